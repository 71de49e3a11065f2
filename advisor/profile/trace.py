"""Facts the converters do not give, read from the raw XSpace: steps without markers, iterator settings, Python frames.

All times here are picoseconds since the epoch (the XSpace's own unit), as plain ints, so that everything this module
returns is JSON and can be cached.

Steps, in order of preference:
- ``markers``: TraceMe step markers (an event with a ``step_num`` stat and ``_r=1``), e.g. advisor's capture in
  Keras fit or ``tf.profiler.experimental.Trace("train", step_num=i, _r=1)`` in the user's loop.
- ``trace`` / Keras: Keras 3 runs every batch as one ``multi_step_on_iterator`` call on the ``python`` thread (older
  Keras: ``one_step_on_iterator``); a step lasts from one call's start to the next call's start, so it includes the
  host gap after the call, where callbacks run.
- ``trace`` / loop: a custom loop (``for batch in dataset``) calls ``IteratorGetNextOp::DoCompute`` on the python
  thread once per step; a step lasts from one GetNext to the next.
"""

from __future__ import annotations

import bisect
import statistics
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Iterable

PYTHON_THREAD = "python"
# Everything read here happens on the python thread or on tf.data's iterator threads; the compute and Eigen thread
# pools hold most of a capture's events and none of these, so they are not walked at all.
TF_DATA_THREAD_PREFIXES = ("tf_data_iterator_get_next", "tf_data_iterator_resource")
KERAS_STEP_FUNCTIONS = ("multi_step_on_iterator", "one_step_on_iterator")
GET_NEXT = "IteratorGetNextOp::DoCompute"
ITERATOR_PREFIX = "Iterator::"
PYTHON_FRAME_PREFIX = "$"  # the python tracer names frames "$file.py:LINE function"
# Iterator stats worth keeping (the runtime's view of each tf.data stage); other stats are ids and shapes.
ITERATOR_STATS = ("name", "parallelism", "autotune", "batch_size", "buffer_size", "buffer_limit", "cycle_length",
                  "deterministic", "cpu_budget", "ram_budget_megabytes")
FRAMES_KEPT = 15
PS_PER_MS = 1e9

Interval = tuple[int, int]


def read_trace_facts(xspace: Any) -> dict[str, Any]:
    """Everything advisor takes from one host's raw XSpace, as JSON-able data.

    ``hostnames``, ``device_planes`` (e.g. ``/device:GPU:0``), ``markers``/``step_calls``/``loop_get_next``
    (intervals), ``input_waits`` (GetNext intervals on any thread), ``iterators`` (name -> runtime stats) and
    ``host_gaps`` (see :func:`host_gap_facts`; None without Keras step calls).
    """
    facts: dict[str, Any] = {
        "hostnames": list(xspace.hostnames),
        "device_planes": sorted(p.name for p in xspace.planes if p.name.startswith("/device:")),
        "markers": [], "step_calls": [], "loop_get_next": [], "input_waits": [], "iterators": {},
    }
    frames: list[tuple[int, int, str]] = []
    for plane in xspace.planes:
        if not plane.name.startswith("/host:"):
            continue
        stat_names = {key: meta.name for key, meta in plane.stat_metadata.items()}
        event_names = {key: meta.name for key, meta in plane.event_metadata.items()}
        step_num_ids = {key for key, name in stat_names.items() if name == "step_num"}
        for line in plane.lines:
            on_python = line.name == PYTHON_THREAD
            if not on_python and not line.name.startswith(TF_DATA_THREAD_PREFIXES):
                continue
            base_ps = line.timestamp_ns * 1000
            for event in line.events:
                name = event_names.get(event.metadata_id, "")
                start = base_ps + event.offset_ps
                interval = (start, start + event.duration_ps)
                if on_python and name.startswith(PYTHON_FRAME_PREFIX):
                    frames.append((interval[0], interval[1], name[1:]))
                elif name == GET_NEXT:
                    facts["input_waits"].append(interval)
                    if on_python:
                        facts["loop_get_next"].append(interval)
                elif on_python and name in KERAS_STEP_FUNCTIONS:
                    facts["step_calls"].append(interval)
                elif name.startswith(ITERATOR_PREFIX):
                    if name not in facts["iterators"]:
                        facts["iterators"][name] = _stats(event.stats, plane, stat_names, ITERATOR_STATS)
                elif step_num_ids and any(stat.metadata_id in step_num_ids for stat in event.stats):
                    if _stats(event.stats, plane, stat_names, ("_r",)).get("_r") == 1:
                        facts["markers"].append(interval)
    for key in ("markers", "step_calls", "loop_get_next", "input_waits"):
        facts[key].sort()
    facts["host_gaps"] = host_gap_facts(facts["step_calls"], frames)
    return facts


def _stats(stats: Iterable[Any], plane: Any, stat_names: dict[int, str], wanted: tuple[str, ...]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for stat in stats:
        name = stat_names.get(stat.metadata_id)
        if name not in wanted:
            continue
        kind = stat.WhichOneof("value")
        value = plane.stat_metadata[stat.ref_value].name if kind == "ref_value" else getattr(stat, kind)
        values[name] = {"true": True, "false": False}.get(value, value) if isinstance(value, str) else value
    return values


def keras_gaps(step_calls: list[Interval]) -> list[Interval]:
    """Host time between consecutive Keras step calls (callbacks, progress bar, user Python)."""
    return [(a[1], b[0]) for a, b in zip(step_calls, step_calls[1:]) if b[0] > a[1]]


def _frames_in_gaps(frames: list[tuple[int, int, str]], gaps: list[Interval]) -> Iterable[tuple[int, int, str]]:
    starts = [g[0] for g in gaps]
    for frame in frames:
        i = bisect.bisect_right(starts, frame[0]) - 1
        if i >= 0 and frame[1] <= gaps[i][1]:
            yield frame


@dataclass(frozen=True)
class RecoveredSteps:
    """Steps found in the trace: ``source`` ("markers" or "trace"), ``kind`` ("markers", "keras", "loop") and
    each step's interval plus the part of it spent outside the step function (the host gap)."""

    source: str
    kind: str
    intervals: list[Interval]
    outside_ps: list[int]

    @property
    def durations_ms(self) -> list[float]:
        return [(end - start) / PS_PER_MS for start, end in self.intervals]


def recover_steps(facts: dict[str, Any], use_markers: bool = True) -> RecoveredSteps | None:
    """The capture's steps (see the module docstring), or None when it has fewer than two of any kind."""
    if use_markers and len(facts["markers"]) >= 2:
        markers = facts["markers"]
        gaps = [max(0, b[0] - a[1]) for a, b in zip(markers, markers[1:])] + [0]
        return RecoveredSteps("markers", "markers", [tuple(m) for m in markers], gaps)
    for kind, calls in (("keras", facts["step_calls"]), ("loop", facts["loop_get_next"])):
        if len(calls) >= 2:
            intervals = [(a[0], b[0]) for a, b in zip(calls, calls[1:])]
            # In a custom loop the whole body is the step; in Keras what follows the call is outside it.
            outside = [max(0, b[0] - a[1]) if kind == "keras" else 0 for a, b in zip(calls, calls[1:])]
            return RecoveredSteps("trace", kind, intervals, outside)
    return None


def step_time_summary(durations_ms: list[float]) -> dict[str, float]:
    return {
        "avg": statistics.fmean(durations_ms),
        "stddev": statistics.pstdev(durations_ms),
        "min": min(durations_ms),
        "max": max(durations_ms),
    }


def trace_breakdown_pct(steps: RecoveredSteps, input_waits: list[Interval]) -> dict[str, float]:
    """Where step time went, from the trace alone (no device data): input waits, the gap outside the step function,
    and the rest of the step as host compute."""
    total = sum(end - start for start, end in steps.intervals)
    waits = sorted(input_waits)
    wait_starts = [w[0] for w in waits]
    input_ps = 0
    for start, end in steps.intervals:
        i = max(0, bisect.bisect_left(wait_starts, start) - 1)
        while i < len(waits) and waits[i][0] < end:
            input_ps += max(0, min(end, waits[i][1]) - max(start, waits[i][0]))
            i += 1
    outside_ps = sum(steps.outside_ps)
    host_ps = max(0, total - input_ps - outside_ps)
    share = (lambda ps: 100.0 * ps / total) if total else (lambda ps: 0.0)
    return {"input": share(input_ps), "host_compute": share(host_ps), "device_compute": 0.0, "kernel_launch": 0.0,
            "compile": 0.0, "outside_step": share(outside_ps), "other": 0.0}


def host_gap_facts(step_calls: list[Interval], frames: list[tuple[int, int, str]]) -> dict[str, Any] | None:
    """The gaps between Keras step calls: ``avg_ms`` per step, ``share_pct`` of the time from the first call to the
    last, and ``frames``: the python tracer frames that ran inside gaps, by total (inclusive, so nested frames
    overlap) time. None without Keras step calls (a custom loop's step is its whole body)."""
    if len(step_calls) < 2:
        return None
    gaps = keras_gaps(step_calls)
    span = step_calls[-1][0] - step_calls[0][0]
    gap_ps = [end - start for start, end in gaps]
    totals: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])
    for start, end, name in _frames_in_gaps(frames, gaps):
        totals[name][0] += (end - start) / PS_PER_MS
        totals[name][1] += 1
    ranked = sorted(totals.items(), key=lambda item: item[1][0], reverse=True)[:FRAMES_KEPT]
    return {
        "avg_ms": sum(gap_ps) / (len(step_calls) - 1) / PS_PER_MS,
        "share_pct": 100.0 * sum(gap_ps) / span if span else 0.0,
        "frames": [{"frame": name, "total_ms": total, "count": int(count)} for name, (total, count) in ranked],
    }
