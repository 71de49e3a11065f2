"""Facts the converters do not give, read from the raw XSpace: steps without markers, iterator settings, Python frames,
eager op dispatch and tf.function tracing.

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

Eager execution (the converters' ``eager`` op-stats column and the overview's eager percentages read 0 on these
captures, so they are not used): every op dispatched from Python is one ``EagerExecute`` event on the python thread,
inside ``TFE_Py_FastPathExecute_C`` (the fast path) or ``TFE_Py_ExecuteCancelable`` (the slow path, and every
tf.function call); the kernel itself runs inside ``EagerKernelExecute``. A compiled step dispatches one op, the
function, whose ``EagerKernelExecute`` spans the whole graph.

tf.function: each call is an event named after the Python function (``train_step``, ``multi_step_on_iterator``)
with the stats ``tf_function_call`` (``traced-nonXla`` when this call traced a new graph, ``notTraced-nonXla`` when
it reused one; ``-xla`` for jit-compiled functions) and ``tracing_count`` (the function's traces so far, the ones
before the capture included). The tracing itself is a nested ``tf.function-graph_building`` event.

Device-to-host copies (a step's ``.numpy()`` on a GPU tensor) leave no event on CPU-only captures, where tensors
already live in host memory; they are not read here.
"""

from __future__ import annotations

import bisect
import re
import statistics
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Iterable

from advisor.profile.tool_facts import ITERATOR_PREFIX, MEMORY_EVENTS, MEMORY_STATS, PS_PER_MS, ToolFacts

# The main Python thread is named after the interpreter's executable: "python", "python3", "python3.11".
PYTHON_THREAD = re.compile(r"python[0-9.]*")
# Everything read here happens on the python thread or on tf.data's iterator threads; the compute and Eigen thread
# pools hold most of a capture's events and none of these, so they are not walked at all.
TF_DATA_THREAD_PREFIXES = ("tf_data_iterator_get_next", "tf_data_iterator_resource")
KERAS_STEP_FUNCTIONS = ("multi_step_on_iterator", "one_step_on_iterator")
GET_NEXT = "IteratorGetNextOp::DoCompute"
PYTHON_FRAME_PREFIX = "$"  # the python tracer names frames "$file.py:LINE function"
# Iterator stats worth keeping (the runtime's view of each tf.data stage); other stats are ids and shapes.
ITERATOR_STATS = ("name", "parallelism", "autotune", "batch_size", "buffer_size", "buffer_limit", "cycle_length",
                  "deterministic", "cpu_budget", "ram_budget_megabytes")
FRAMES_KEPT = 15
EAGER_OP = "EagerExecute"
EAGER_DISPATCH = frozenset({"TFE_Py_FastPathExecute_C", "TFE_Py_ExecuteCancelable"})
EAGER_KERNEL = "EagerKernelExecute"
GRAPH_BUILDING = "tf.function-graph_building"
FUNCTION_CALL_STAT, TRACING_COUNT_STAT = "tf_function_call", "tracing_count"

Interval = tuple[int, int]


def read_trace_facts(xspace: Any, tools: ToolFacts | None = None) -> dict[str, Any]:
    """Everything advisor takes from one host's raw XSpace (a parsed XSpace or an open ``CaptureFile``), as JSON-able
    data.

    ``hostnames``, ``device_planes`` (e.g. ``/device:GPU:0``), ``markers``/``step_calls``/``loop_get_next``
    (intervals), ``input_waits`` (GetNext intervals on any thread), ``iterators`` (name -> runtime stats),
    ``host_gaps`` (see :func:`host_gap_facts`; None without Keras step calls), ``eager`` (see :func:`eager_facts`;
    None without steps) and ``tracing`` (see :func:`tracing_facts`). With ``tools``, every host line is read, and
    ``tools`` collects the converter facts that the trace gives too (see ``tool_facts.py``).
    Raises ValueError for events no profiler writes (a negative duration).
    """
    facts: dict[str, Any] = {
        "hostnames": list(xspace.hostnames),
        "device_planes": sorted(p.name for p in xspace.planes if p.name.startswith("/device:")),
        "markers": [], "step_calls": [], "loop_get_next": [], "input_waits": [], "iterators": {},
    }
    frames: list[tuple[int, int, str]] = []
    eager = _EagerEvents([], [], [])
    calls: list[FunctionCall] = []
    graph_building: list[Interval] = []
    for plane in xspace.planes:
        if not plane.name.startswith("/host:"):
            continue
        stat_names = {key: meta.name for key, meta in plane.stat_metadata.items()}
        event_names = {key: meta.name for key, meta in plane.event_metadata.items()}
        step_num_ids = {key for key, name in stat_names.items() if name == "step_num"}
        call_stat_ids = {key for key, name in stat_names.items() if name == FUNCTION_CALL_STAT}
        tool_event_ids = {key for key, name in event_names.items() if tools and tools.wanted(name)}
        for line in plane.lines:
            on_python = PYTHON_THREAD.fullmatch(line.name) is not None
            base_ps = line.timestamp_ns * 1000
            if not (on_python or line.name.startswith(TF_DATA_THREAD_PREFIXES)):
                if tools is not None:  # only the tool facts' events matter here: a lean loop over most of a capture
                    for event in line.events:
                        if event.metadata_id in tool_event_ids:
                            _add_tool_event(tools, event, line.name, base_ps, plane, event_names, stat_names)
                    tools.end_line()
                continue
            for event in line.events:
                if event.duration_ps < 0:
                    _refuse_negative(event, line.name)
                if event.metadata_id in tool_event_ids:
                    _add_tool_event(tools, event, line.name, base_ps, plane, event_names, stat_names)
                name = event_names.get(event.metadata_id, "")
                start = base_ps + event.offset_ps
                interval = (start, start + event.duration_ps)
                if on_python and name.startswith(PYTHON_FRAME_PREFIX):
                    frames.append((interval[0], interval[1], name[1:]))
                elif on_python and name == EAGER_OP:
                    eager.op_starts.append(start)
                elif on_python and name in EAGER_DISPATCH:
                    eager.dispatch.append(interval)
                elif on_python and name == EAGER_KERNEL:
                    eager.kernel.append(interval)
                elif on_python and name == GRAPH_BUILDING:
                    graph_building.append(interval)
                elif name == GET_NEXT:
                    facts["input_waits"].append(interval)
                    if on_python:
                        facts["loop_get_next"].append(interval)
                elif on_python and (name in KERAS_STEP_FUNCTIONS or _has_stat(event, call_stat_ids)):
                    if name in KERAS_STEP_FUNCTIONS:
                        facts["step_calls"].append(interval)
                    call = _stats(event.stats, plane, stat_names, (FUNCTION_CALL_STAT, TRACING_COUNT_STAT))
                    if FUNCTION_CALL_STAT in call:
                        calls.append(FunctionCall(interval, name, str(call[FUNCTION_CALL_STAT]).startswith("traced"),
                                                  call.get(TRACING_COUNT_STAT, 0)))
                elif name.startswith(ITERATOR_PREFIX):
                    if name not in facts["iterators"]:
                        facts["iterators"][name] = _stats(event.stats, plane, stat_names, ITERATOR_STATS)
                elif _has_stat(event, step_num_ids):
                    if _stats(event.stats, plane, stat_names, ("_r",)).get("_r") == 1:
                        facts["markers"].append(interval)
            if tools is not None:
                tools.end_line()
    for key in ("markers", "step_calls", "loop_get_next", "input_waits"):
        facts[key].sort()
    facts["host_gaps"] = host_gap_facts(facts["step_calls"], frames)
    steps = recover_steps(facts)
    facts["eager"] = eager_facts(steps, eager) if steps is not None else None
    facts["tracing"] = tracing_facts(calls, graph_building)
    return facts


def _add_tool_event(tools: ToolFacts, event: Any, line_name: str, base_ps: int, plane: Any,
                    event_names: dict[int, str], stat_names: dict[int, str]) -> None:
    if event.duration_ps < 0:
        _refuse_negative(event, line_name)
    name = event_names[event.metadata_id]
    stats = _stats(event.stats, plane, stat_names, MEMORY_STATS) if name in MEMORY_EVENTS else {}
    tools.add(name, base_ps + event.offset_ps, event.duration_ps, stats)


def _refuse_negative(event: Any, line_name: str) -> None:
    raise ValueError(f"an event on thread {line_name!r} has a negative duration ({event.duration_ps} ps), which no "
                     f"profiler writes")


def _has_stat(event: Any, stat_ids: set[int]) -> bool:
    if stat_ids:  # a loop rather than any(): this runs for most events of the lines read
        for stat in event.stats:
            if stat.metadata_id in stat_ids:
                return True
    return False


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


def _merged(intervals: Iterable[Interval]) -> list[Interval]:
    """The union of intervals as sorted, disjoint intervals (nested or overlapping events count once)."""
    union: list[Interval] = []
    for start, end in sorted(intervals):
        if union and start <= union[-1][1]:
            union[-1] = (union[-1][0], max(union[-1][1], end))
        else:
            union.append((start, end))
    return union


def _covered_ps(union: list[Interval], window: Interval) -> int:
    """How much of ``window`` the disjoint, sorted ``union`` covers."""
    start, end = window
    i = max(0, bisect.bisect_left(union, (start,)) - 1)
    covered = 0
    while i < len(union) and union[i][0] < end:
        covered += max(0, min(end, union[i][1]) - max(start, union[i][0]))
        i += 1
    return covered


def trace_breakdown_pct(steps: RecoveredSteps, input_waits: list[Interval]) -> dict[str, float]:
    """Where step time went, from the trace alone (no device data): input waits, the gap outside the step function,
    and the rest of the step as host compute."""
    total = sum(end - start for start, end in steps.intervals)
    waits = _merged(input_waits)
    input_ps = sum(_covered_ps(waits, step) for step in steps.intervals)
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


@dataclass(frozen=True)
class _EagerEvents:
    """The python thread's eager execution events: op dispatch starts, dispatch and kernel intervals."""

    op_starts: list[int]
    dispatch: list[Interval]
    kernel: list[Interval]


def eager_facts(steps: RecoveredSteps, events: _EagerEvents) -> dict[str, float]:
    """Eager execution per step, over the recovered steps: ``ops_per_step`` (ops dispatched from Python),
    ``dispatch_ms_per_step`` (time in the dispatch calls, kernels included), ``kernel_ms_per_step`` (time in
    kernels, a compiled function's whole graph included) and ``share_pct``: the share of step time the python
    thread spends outside kernels (Python, op dispatch and, in Keras, the gap between steps), which is what
    compiling the step can remove."""
    op_starts = sorted(events.op_starts)
    dispatch, kernel = _merged(events.dispatch), _merged(events.kernel)
    step_ps = sum(end - start for start, end in steps.intervals)
    ops = sum(bisect.bisect_left(op_starts, end) - bisect.bisect_left(op_starts, start)
              for start, end in steps.intervals)
    kernel_ps = sum(_covered_ps(kernel, step) for step in steps.intervals)
    dispatch_ps = sum(_covered_ps(dispatch, step) for step in steps.intervals)
    count = len(steps.intervals)
    return {
        "ops_per_step": ops / count,
        "dispatch_ms_per_step": dispatch_ps / count / PS_PER_MS,
        "kernel_ms_per_step": kernel_ps / count / PS_PER_MS,
        "share_pct": 100.0 * (1.0 - kernel_ps / step_ps) if step_ps else 0.0,
    }


@dataclass(frozen=True)
class FunctionCall:
    """One call of a tf.function: its interval, the Python function's name, whether this call traced a new graph,
    and the function's traces so far (``tracing_count``: the ones before the capture included)."""

    interval: Interval
    function: str
    traced: bool
    tracing_count: int


def tracing_facts(calls: list[FunctionCall], graph_building: list[Interval]) -> list[dict[str, Any]]:
    """Per tf.function over the capture: ``calls``, ``traces`` (calls that traced), ``tracing_ms`` (the graph
    building events in its calls; one in a nested tf.function's call counts for the nested function) and
    ``total_traces`` (the function's own count, the traces before the capture included); most tracing time first."""
    calls = sorted(calls, key=lambda c: c.interval)
    starts = [c.interval[0] for c in calls]
    tracing_ps: dict[str, int] = defaultdict(int)
    for start, end in graph_building:
        # The innermost call holding the graph building: the latest-starting one that contains it.
        i = bisect.bisect_right(starts, start) - 1
        while i >= 0 and calls[i].interval[1] < end:
            i -= 1
        if i >= 0:
            tracing_ps[calls[i].function] += end - start
    by_function: dict[str, list[FunctionCall]] = defaultdict(list)
    for call in calls:
        by_function[call.function].append(call)
    found = [{"function": name, "calls": len(group), "traces": sum(c.traced for c in group),
              "tracing_ms": tracing_ps[name] / PS_PER_MS, "total_traces": max(c.tracing_count for c in group)}
             for name, group in by_function.items()]
    return sorted(found, key=lambda f: (-f["tracing_ms"], f["function"]))
