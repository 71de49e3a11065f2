"""Speedup models: from profile numbers to an expected whole-step speedup range.

Each model returns a :class:`SpeedupEstimate` whose ``basis`` states the formula and the numbers used, so a
user can check the arithmetic. Ranges, not points: the low end assumes the fix recovers less than the model's
ideal (contention, residual overheads), the high end assumes it recovers all of it. Without a profile, rules use
:data:`TYPICAL` ranges, labelled as such.

All shares are fractions of the average step time (0..1).
"""

from __future__ import annotations

from typing import Iterable

from .model import SpeedupEstimate

# How much of the ideal gain a fix realizes at the low end of the range. Measured on 2-core CPU runs of the
# samples (see README, benchmarks): parallel maps and prefetch realized 60-100% of their ideal.
LOW_END_REALIZATION = 0.6

# Published/typical ranges for a static-only run (no profile): the tf.data performance guide and TensorFlow's
# mixed-precision guide report gains in these ranges on input-bound or compute-bound workloads respectively.
TYPICAL = {
    "prefetch": (1.0, 1.5),
    "parallel_map": (1.0, 2.0),
    "py_function": (1.0, 2.0),
    "callback": (1.0, 1.5),
    "mixed_precision": (1.0, 3.0),
    "padded_shape": (1.0, 1.15),
    "tf_function": (1.5, 4.0),
    "steps_per_execution": (1.0, 2.0),
    # A per-step device-to-host copy stalls the host until the step ends; it costs most on asynchronous devices.
    "host_sync": (1.0, 1.3),
    # Each retrace re-runs the Python function and rebuilds the graph; per-step retracing dominates small steps.
    "retracing": (1.0, 3.0),
    # Samples per second of a larger batch on an accelerator, where a batch of a few samples leaves it mostly idle.
    "small_batch": (1.0, 3.0),
    # Keras' whole-dataset calls on one batch against the one-batch methods (benchmarks/keras_call_overhead.py:
    # 60-130x the call); the loop gains that much only where those calls are most of its iteration.
    "keras_call": (1.5, 20.0),
}


def typical(kind: str) -> SpeedupEstimate:
    low, high = TYPICAL[kind]
    return SpeedupEstimate(low, high, f"typical range without a profile ({kind.replace('_', ' ')}); "
                                      "capture a profile for an estimate of this program")


def _clamp_share(share: float) -> float:
    return min(max(share, 0.0), 0.999)


def _range(ideal_saved_share: float, basis: str) -> SpeedupEstimate:
    """From the fraction of step time a fix removes at best, to a range (Amdahl: 1 / (1 - saved))."""
    saved = _clamp_share(ideal_saved_share)
    high = 1.0 / (1.0 - saved)
    low = 1.0 / (1.0 - saved * LOW_END_REALIZATION)
    return SpeedupEstimate(low, high, basis)


def input_overlap(input_share: float) -> SpeedupEstimate:
    """Prefetch overlaps input with compute: step -> max(input, compute) + residual.

    With input share ``i`` of the step and the rest ``1 - i`` compute, the overlapped step is ``max(i, 1 - i)``.
    """
    i = _clamp_share(input_share)
    saved = min(i, 1.0 - i)
    return _range(saved, f"step -> max(input, compute): input {i:.0%} of step, compute {1 - i:.0%}; "
                         f"overlap hides up to {saved:.0%}")


def parallel_stage(stage_share: float, parallelism_now: float, cpu_budget: float,
                   input_share: float | None = None) -> SpeedupEstimate:
    """A serial stage made parallel: its time divides by the effective parallelism.

    ``stage_share`` is the stage's self time as a share of the step; ``cpu_budget`` bounds the parallelism
    (the capture's ``cpu_budget`` stat, or the core count). Only time the step waits for input is saved, so
    the gain is bounded by ``input_share`` when the profile gives it.
    """
    parallelism = max(cpu_budget / max(parallelism_now, 1.0), 1.0)
    s = _clamp_share(stage_share)
    saved = s * (1.0 - 1.0 / parallelism)
    if input_share is not None:
        saved = min(saved, _clamp_share(input_share))
    bound = f", bounded by input wait {input_share:.0%}" if input_share is not None else ""
    return _range(saved, f"stage {s:.0%} of step / effective parallelism {parallelism:.1f} "
                         f"(cpu budget {cpu_budget:g}, now {parallelism_now:g}){bound}")


def on_shared_cores(estimate: SpeedupEstimate, cpu_only: bool) -> SpeedupEstimate:
    """On a CPU-only run the input pipeline and the model's ops compete for the same cores.

    Overlapping or parallelizing input then gains only what idle cores can absorb, which the capture does not
    measure: with every core busy in the model's ops (convolutions use all of them) the gain is nil. The low end
    becomes no gain; the high end stays the idle-core ideal. Measured on 2 cores (docs/benchmarks.md): a CPU-heavy
    augmentation map gained 1.01-1.09x, a map waiting on I/O 1.86x, both within such ranges.
    """
    if not cpu_only:
        return estimate
    return SpeedupEstimate(1.0, estimate.high, f"{estimate.basis}; CPU-only run: input work shares the cores with "
                                               "the model, so the low end assumes no idle core")


def throttle(gap_share: float, every_n: int) -> SpeedupEstimate:
    """A per-batch hook run every N batches removes (1 - 1/N) of the measured gap."""
    saved = _clamp_share(gap_share) * (1.0 - 1.0 / every_n)
    return _range(saved, f"host gap {gap_share:.0%} of step x (1 - 1/{every_n})")


def bounded_by_share(share: float, what: str, note: str = "") -> SpeedupEstimate:
    """Removing (at best) all of something that takes ``share`` of the step."""
    return _range(share, f"{what} {share:.0%} of step{'; ' + note if note else ''}")


def amdahl(eligible_share: float, factor: float, what: str) -> SpeedupEstimate:
    """``eligible_share`` of the step runs ``factor`` times faster (mixed precision, compiled steps)."""
    e = _clamp_share(eligible_share)
    high = 1.0 / ((1.0 - e) + e / factor)
    low_factor = 1.0 + (factor - 1.0) * LOW_END_REALIZATION
    low = 1.0 / ((1.0 - e) + e / low_factor)
    return SpeedupEstimate(low, high, f"Amdahl: {what} {e:.0%} of step, {factor:g}x faster")


def round_up(value: int, multiple: int) -> int:
    """The smallest multiple of ``multiple`` that is at least ``value``."""
    return -(-value // multiple) * multiple


def padded_dimension(size: int, multiple: int, compute_share: float = 1.0) -> SpeedupEstimate:
    """Rounding ``size`` up to ``multiple`` lets the hardware use all of its tiles.

    Utilization of the padded dimension is ``size / padded``; the gain applies to the share of step time spent
    in the affected ops (``compute_share``), and the rounded layer does ``padded / size`` more work.
    """
    padded = round_up(size, multiple)
    utilization = size / padded
    # Work grows by padded/size but runs at full tile utilization: net time ratio for the affected ops ~ 1
    # on paper; hardware with tile quantization (tensor cores) runs unaligned shapes on slower paths, which is
    # what makes aligned shapes faster. Model the slow path as running at `utilization` of the fast one.
    saved = _clamp_share(compute_share) * (1.0 - utilization)
    return _range(saved, f"{size} padded to {padded}: utilization {utilization:.0%} of the padded dimension, "
                         f"affected ops {compute_share:.0%} of step")


def combine(estimates: Iterable[tuple[str, SpeedupEstimate]]) -> SpeedupEstimate:
    """The expected speedup of several fixes applied together. Each estimate comes with the part of the step its
    fix shortens (e.g. "input wait", "host time", "device compute").

    Speedups are not multiplied: that would count time twice. The rule works in saved shares of the original step
    (``s = 1 - 1/speedup``):

    - fixes on the same part compete for the same time. Prefetch hides the input wait behind compute; a parallel
      map shortens that same wait, and once the wait is hidden a faster map saves nothing more. Each model's high
      end already removes all of the part it can reach, so a part saves the largest saving among its fixes, at
      both ends of the range (together they realize at least what the best one does alone).
    - fixes on different parts save disjoint time, so the parts' savings add (Amdahl over disjoint parts).
    """
    best: dict[str, tuple[float, float]] = {}
    for part, estimate in estimates:
        low, high = best.get(part, (0.0, 0.0))
        best[part] = (max(low, 1.0 - 1.0 / estimate.low), max(high, 1.0 - 1.0 / estimate.high))
    if not best:
        raise ValueError("combine() needs at least one estimate")
    saved_low = _clamp_share(sum(low for low, _ in best.values()))
    saved_high = _clamp_share(sum(high for _, high in best.values()))
    parts = ", ".join(f"{part} saves {low:.0%}-{high:.0%}" for part, (low, high) in best.items())
    return SpeedupEstimate(1.0 / (1.0 - saved_low), 1.0 / (1.0 - saved_high),
                           f"combined: the best fix per part of the step, parts added ({parts} of the step)")
