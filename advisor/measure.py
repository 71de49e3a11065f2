"""Paired measurement: the one method ``advisor verify`` and the benchmarks share.

Absolute step times on a shared machine swing 2x between runs, so no absolute time is ever reported; only ratios
of runs made back to back. The method:

- every variant (the original script, a patched one, an expert's version) runs under the capture bootstrap in
  measure mode (``advisor/profile/bootstrap.py``): the same step counting as ``advisor profile``, the same seeds,
  and a clean stop after ``warmup + steps`` steps; the first ``warmup`` steps of each run are discarded (tracing,
  autotuning, caches);
- a run gives two figures: ``step``, the median wall time of its measured steps (one slow step from a neighbour's
  burst does not move it), and ``cpu``, the process's CPU time (user + system, all threads) per measured step;
- runs alternate in rounds of one run per variant, the order reversed every round (A B, B A, ...), so a load that
  drifts during the measurement penalizes no variant; a round's ratio is taken between its own runs;
- rounds, not steps, are the independent samples. Steps of one run are not: a neighbour's burst lasts seconds and
  slows many consecutive steps, and prefetch buffers couple neighbouring steps, so an interval over steps would be
  far too narrow. Pairing runs in time cancels any drift slower than a round;
- the speedup is the median of the rounds' ratios, with its distribution-free confidence interval: the order
  statistics [x(k), x(n+1-k)] that cover the median with the asked probability whatever the ratios' distribution
  (a binomial argument: it assumes independent rounds, not normal or symmetric ratios; 95% needs 6 rounds);
- rounds go on until every variant's interval decides a verdict and is narrow enough, or a bound is hit. The
  verdict is ``no gain`` when the interval lies within NO_GAIN_BAND of 1, else ``faster`` (above 1), ``slower``
  (below 1) or ``inconclusive`` (it straddles 1);
- the available cores and the load average are recorded at the start and the end, and each run's load at its start.
"""

from __future__ import annotations

import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

BOOTSTRAP = Path(__file__).parent / "profile" / "bootstrap.py"
# A relative difference is taken against at least this magnitude, so a loss that reaches ~0 does not blow it up.
REL_FLOOR = 1e-6
ERROR_TAIL_LINES = 12

# The figures a run gives (see the module doc).
STEP, CPU = "step", "cpu"
FIGURE_NAMES = {STEP: "wall time per step", CPU: "CPU time per step"}
FASTER, NO_GAIN, SLOWER, INCONCLUSIVE = "faster", "no gain", "slower", "inconclusive"
# A speedup whose whole interval lies within 5% of 1 is no gain: too small to be worth a change, and as large as the
# difference between two runs of the same program that we measured under load (docs/benchmarks.md).
NO_GAIN_BAND = 1.05


class RunFailed(Exception):
    """A variant's script exited with an error; ``message`` is the end of its output."""

    def __init__(self, variant: str, message: str) -> None:
        super().__init__(f"{variant}: {message}")
        self.variant = variant
        self.message = message


class WindowTooShort(RunFailed):
    """The measured steps hold fewer than two whole step calls: with steps_per_execution=k a call runs k batches,
    and a window shorter than two calls measures the compilation, not the program."""


@dataclass(frozen=True)
class Variant:
    """One version of the program: ``command`` (interpreter first) run in ``cwd``."""

    name: str
    command: list[str]
    cwd: Path


@dataclass
class Run:
    """One run of one variant: its measured steps (warm-up discarded) and the Keras logs of those steps."""

    variant: str
    round: int
    step_ms: list[float]
    cpu_ms_per_step: float | None  # None: the run measured no whole step after the warm-up boundary
    logs: list[dict[str, float]]  # {"step": batch index, "loss": ..., metric: ...}
    complete: bool  # False: the script ended before warmup + steps steps
    load_avg_1m: float  # when the run started
    executed: dict[str, list[int]] | None = None  # of the lines a check run watched (see run_once), those that ran

    @property
    def median_ms(self) -> float:
        return statistics.median(self.step_ms)

    def figure(self, name: str) -> float | None:
        return self.median_ms if name == STEP else self.cpu_ms_per_step

    def to_json(self) -> dict[str, Any]:
        cpu = self.cpu_ms_per_step
        return {"variant": self.variant, "round": self.round, "steps": len(self.step_ms),
                "median_step_ms": round(self.median_ms, 3),
                "cpu_ms_per_step": None if cpu is None else round(cpu, 3), "complete": self.complete,
                "load_avg_1m": self.load_avg_1m, "step_ms": [round(t, 3) for t in self.step_ms],
                "loss": [entry.get("loss") for entry in self.logs]}


def median_interval(values: Sequence[float], confidence: float) -> tuple[float, float] | None:
    """The distribution-free confidence interval of the median of ``values``: [x(k), x(n+1-k)] of the sorted values,
    with the largest k whose coverage 1 - 2 P(B < k), B ~ Binomial(n, 1/2), is at least ``confidence``. None when
    there are too few values for that confidence (even [min, max] covers less)."""
    n, k, below = len(values), 0, 0.0  # below: P(B < k)
    while k < n // 2 and 1 - 2 * (below + math.comb(n, k) / 2 ** n) >= confidence:
        below += math.comb(n, k) / 2 ** n
        k += 1
    if k == 0:
        return None
    ordered = sorted(values)
    return ordered[k - 1], ordered[n - k]


@dataclass(frozen=True)
class Estimate:
    """A speedup measured over rounds on one figure: the median of the per-round ratios and its interval."""

    figure: str
    ratios: tuple[float, ...]
    confidence: float

    @property
    def median(self) -> float:
        return statistics.median(self.ratios)

    @property
    def interval(self) -> tuple[float, float] | None:
        return median_interval(self.ratios, self.confidence)

    @property
    def verdict(self) -> str:
        if self.interval is None:
            return INCONCLUSIVE
        low, high = self.interval
        if low >= 1 / NO_GAIN_BAND and high <= NO_GAIN_BAND:
            return NO_GAIN
        return FASTER if low > 1 else SLOWER if high < 1 else INCONCLUSIVE

    def settled(self, precision: float) -> bool:
        """Whether more rounds are not needed: the interval decides a verdict and is at most ``precision`` wide
        (relative: high / low - 1)."""
        interval = self.interval
        return self.verdict != INCONCLUSIVE and interval is not None and interval[1] / interval[0] - 1 <= precision

    def inverse(self) -> "Estimate":
        """The same measurement seen from the other variant (slowdown for speedup)."""
        return Estimate(self.figure, tuple(1 / r for r in self.ratios), self.confidence)

    def to_json(self) -> dict[str, Any]:
        interval = self.interval
        return {"figure": self.figure, "median": round(self.median, 3),
                "low": None if interval is None else round(interval[0], 3),
                "high": None if interval is None else round(interval[1], 3),
                "confidence": self.confidence, "rounds": len(self.ratios), "verdict": self.verdict,
                "ratios": [round(r, 3) for r in self.ratios]}


@dataclass(frozen=True)
class StoppingRule:
    """When to stop alternating: once every variant's estimate is settled (``precision``, see
    :meth:`Estimate.settled`) after at least ``min_rounds``, or after ``max_rounds`` whatever they say."""

    min_rounds: int = 6
    max_rounds: int = 20
    precision: float = 0.15
    confidence: float = 0.95

    def __post_init__(self) -> None:
        if not 1 <= self.min_rounds <= self.max_rounds:
            raise ValueError(f"need 1 <= min rounds <= max rounds, got {self.min_rounds}, {self.max_rounds}")
        if not 0 < self.confidence < 1 or self.precision <= 0:
            raise ValueError(f"need 0 < confidence < 1 and precision > 0, got {self.confidence}, {self.precision}")


def run_once(variant: Variant, *, warmup: int, steps: int, seed: int, round_number: int,
             timeout_s: float | None = None, lines: dict[str, list[int]] | None = None) -> Run:
    """Run ``variant`` once in measure mode; raises :class:`RunFailed` when it fails or measures no step.

    ``lines`` ({file path: line numbers}) makes it a check run: it records which of those lines execute, under a
    line tracer that slows the program, so its times mean nothing."""
    if len(variant.command) < 2 or "python" not in Path(variant.command[0]).name:
        raise RunFailed(variant.name, f"not a Python command: {variant.command!r}")
    load = load_average()
    with tempfile.TemporaryDirectory(prefix="advisor-measure-") as scratch:
        out = Path(scratch) / "measure.json"
        config = {"measure": str(out), "warmup": warmup, "steps": steps, "seed": seed, "markers": False,
                  "remote": False, "lines": lines}
        env = dict(os.environ, ADVISOR_CAPTURE=json.dumps(config))
        try:
            done = subprocess.run([variant.command[0], str(BOOTSTRAP), *variant.command[1:]], cwd=variant.cwd,
                                  env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            raise RunFailed(variant.name, f"no result within {timeout_s:g} s") from None
        if done.returncode != 0:
            tail = done.stdout.decode(errors="replace").strip().splitlines()[-ERROR_TAIL_LINES:]
            raise RunFailed(variant.name, "\n".join(tail) or f"exit code {done.returncode}")
        result = (json.loads(out.read_text()) if out.exists()
                  else {"step_ms": [], "logs": [], "complete": False, "cpu_marks": []})
    measured = result["step_ms"][warmup:]
    if not measured:
        raise RunFailed(variant.name, f"the script ran {len(result['step_ms'])} steps, none after the {warmup} "
                                      f"warm-up steps (in Keras fit or a tf.data loop; with steps_per_execution, "
                                      f"the first execution's batches are all warm-up)")
    marks = result["cpu_marks"]
    calls = sum(1 for batches, _ in marks if batches > warmup)  # step-end calls inside the measured window
    per_call = max(later[0] - earlier[0] for earlier, later in zip(marks, marks[1:]))
    if per_call > 1 and calls < 2:
        raise WindowTooShort(variant.name, f"it runs {per_call} batches per step call (steps_per_execution), so "
                                           f"{warmup} warm-up and {steps} measured steps hold {calls} whole "
                                           f"call(s) after the warm-up: use --warmup {per_call} --steps "
                                           f"{2 * per_call} or more (and a script that runs that many steps)")
    # Only Keras fit logs losses; a custom loop has none.
    return Run(variant.name, round_number, measured, cpu_ms_per_step(marks, warmup),
               [e for e in result["logs"] if e["step"] >= warmup], result["complete"], load, result.get("executed"))


def cpu_ms_per_step(marks: list[list[float]], warmup: int) -> float | None:
    """CPU time per step from the bootstrap's [batches completed, CPU seconds] marks, from the first mark at or past
    the warm-up to the last (with steps_per_execution a mark spans several batches)."""
    measured = [(batches, seconds) for batches, seconds in marks if batches >= warmup]
    if len(measured) < 2 or measured[-1][0] == measured[0][0]:
        return None
    (first_batch, first_s), (last_batch, last_s) = measured[0], measured[-1]
    return (last_s - first_s) * 1000 / (last_batch - first_batch)


def alternate(variants: list[Variant], baseline: str, figures: dict[str, str], rule: StoppingRule, *, warmup: int,
              steps: int, seed: int = 0, timeout_s: float | None = None,
              progress: Callable[[Run], None] | None = None) -> tuple[list[Run], dict[str, str]]:
    """Rounds of one run per variant, the order reversed every round, until every variant's speedup over
    ``baseline`` on its figure (``figures``: variant name -> STEP or CPU) is settled, as ``rule`` says.

    Returns the runs, and the variants that failed with the end of their output: a failed variant leaves the
    rounds, the others go on. The baseline's failure raises :class:`RunFailed`."""
    runs: list[Run] = []
    failures: dict[str, str] = {}
    for round_number in range(rule.max_rounds):
        order = variants if round_number % 2 == 0 else variants[::-1]
        for variant in order:
            if variant.name in failures:
                continue
            try:
                run = run_once(variant, warmup=warmup, steps=steps, seed=seed, round_number=round_number,
                               timeout_s=timeout_s)
            except RunFailed as failure:
                if variant.name == baseline:
                    raise
                failures[variant.name] = failure.message
                continue
            runs.append(run)
            if progress is not None:
                progress(run)
        measuring = {name: figure for name, figure in figures.items() if name not in failures}
        if round_number + 1 >= rule.min_rounds and all(
                estimate(runs, baseline, name, figure, rule.confidence).settled(rule.precision)
                for name, figure in measuring.items()):
            break
    return [r for r in runs if r.variant not in failures], failures


def by_round(runs: list[Run], variant: str) -> dict[int, Run]:
    return {run.round: run for run in runs if run.variant == variant}


def estimate(runs: list[Run], baseline: str, variant: str, figure: str, confidence: float) -> Estimate:
    """``variant``'s speedup over ``baseline`` on ``figure``: per round, the baseline's figure / the variant's."""
    base, other = by_round(runs, baseline), by_round(runs, variant)
    pairs = [(base[r].figure(figure), other[r].figure(figure)) for r in sorted(base.keys() & other.keys())]
    return Estimate(figure, tuple(b / v for b, v in pairs if b and v), confidence)


def max_relative_difference(a: list[dict[str, float]], b: list[dict[str, float]]) -> dict[str, float]:
    """Per logged quantity (loss, each metric): the largest relative difference over the steps both logged
    (entries carry their batch index as "step": steps_per_execution logs only some batches)."""
    worst: dict[str, float] = {}
    right_by_step = {entry["step"]: entry for entry in b}
    for left in a:
        right = right_by_step.get(left["step"])
        if right is None:
            continue
        for key in (left.keys() & right.keys()) - {"step"}:
            x, y = left[key], right[key]
            difference = abs(x - y) / max(abs(x), abs(y), REL_FLOOR)
            worst[key] = max(worst.get(key, 0.0), difference)
    return worst


def log_differences(runs: list[Run], baseline: str, variant: str) -> dict[str, float]:
    """The largest relative difference of each logged quantity between the two variants' runs of one round."""
    base, other = by_round(runs, baseline), by_round(runs, variant)
    worst: dict[str, float] = {}
    for r in sorted(base.keys() & other.keys()):
        for key, difference in max_relative_difference(base[r].logs, other[r].logs).items():
            worst[key] = max(worst.get(key, 0.0), difference)
    return worst


def load_average() -> float:
    """The 1-minute load average: how many runnable tasks shared the cores, on average."""
    return round(os.getloadavg()[0], 2)


def machine() -> dict[str, Any]:
    """What the figures were measured on: they mean little without it (the cores this process may use)."""
    return {"cores": len(os.sched_getaffinity(0)),
            "platform": platform.platform(), "python": platform.python_version(), "interpreter": sys.executable}
