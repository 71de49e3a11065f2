"""The numbers truth.json's verdicts rest on, read from one committed capture.

``python samples/profiles/evidence.py NAME ...`` prints them as JSON; truth.json keeps a copy per capture (its
``measured`` field) and tests/profile/test_truth.py recomputes them, so the two cannot drift apart.

This is the ground truth advisor is checked against, so it does not use advisor's own reading of the trace
(``advisor.profile.trace``: step recovery, host gaps, eager dispatch), only the profiler plugin's converters (through
``advisor.profile.convert``, which runs them unchanged) and the raw events:

- a step is the time from one call of the pipeline's root iterator (``Iterator::Root``, once per batch whatever
  consumes it: Keras fit or a custom loop) to the next, so ``step_ms`` needs no step markers and no Keras;
- per-step figures are a whole capture's total divided by ``steps`` (the root iterator's calls), shares are per-step
  figures over ``step_ms``;
- ``pipeline``: every tf.data iterator that ran (``Iterator::Root::MapAndBatch::TensorSlice``: the runtime chain,
  after TensorFlow's rewrites), which tells the pipelines of one program apart;
- ``iterators``: the converter's self time of each tf.data iterator, with the runtime's parallelism where the
  iterator reports one;
- ``python_ops``: the converter's self time of ``EagerPyFunc`` (tf.py_function) and ``PyFunc`` (tf.numpy_function);
- ``input_wait``: time inside ``IteratorGetNextOp::DoCompute`` (the consumer waiting for a batch);
- ``between_steps``: Keras fit only: time on the Python thread between one ``multi_step_on_iterator`` call and the
  next (callbacks, the progress bar, Python in the loop);
- ``frames``: python-tracer captures only: the user's own frames (files of the sample) inside those gaps;
- ``eager_ops_per_step``: ops dispatched one by one from Python (``EagerExecute`` on the python thread);
- ``graph_building``: tf.function traces during the capture (``tf.function-graph_building`` events) and their time.

Shares at or below ``MIN_SHARE_PCT`` are left out: they are noise for a verdict, and keeping them would make the copy
in truth.json fragile.
"""

from __future__ import annotations

import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from advisor.profile import convert  # noqa: E402
from advisor.profile.xplane_pb import XSpace  # noqa: E402

PROFILES = Path(__file__).resolve().parent
ROOT_ITERATOR = "Iterator::Root"
PYTHON_OPS = ("EagerPyFunc", "PyFunc")
GET_NEXT = "IteratorGetNextOp::DoCompute"
KERAS_STEP = "multi_step_on_iterator"
EAGER_OP = "EagerExecute"
GRAPH_BUILDING = "tf.function-graph_building"
# TensorFlow names its own threads tf_*; the others run Python. The main thread is named after the interpreter's
# executable ("python", "python3", "python3.11"), so it is not looked up by name.
TF_THREAD_PREFIX = "tf_"
MIN_SHARE_PCT = 1.0
PS_PER_MS = 1e9


def capture_file(name: str) -> Path:
    (found,) = (PROFILES / name).rglob("*.xplane.pb")
    return found


def evidence(name: str, user_files: frozenset[str] = frozenset()) -> dict[str, Any]:
    """The figures of capture ``name`` (see the module doc); ``user_files`` names the sample's source files, whose
    python-tracer frames are kept."""
    path = capture_file(name)
    raw = _raw_events(path)
    roots = sorted(raw["root_starts"])
    steps = len(roots)
    step_ms = (roots[-1] - roots[0]) / (steps - 1) / PS_PER_MS

    def figures(ms_per_step: float) -> dict[str, float]:
        return {"ms_per_step": round(ms_per_step, 2), "share_pct": round(100 * ms_per_step / step_ms, 1)}

    with convert.Conversion([path], device=False, memory_limit=convert.memory_limit()[0]) as conversion:
        tables = conversion.result()
    iterators = {}
    for row in tables["iterators"]:
        share = figures(row["self_time_ms"] / steps)
        if share["share_pct"] > MIN_SHARE_PCT:
            iterators[row["name"]] = {**share, "parallelism": raw["parallelism"].get(row["name"])}
    python_ops = {}
    for op in tables["ops"]["top"]:
        if op["op_type"] in PYTHON_OPS:
            python_ops[op["op_type"]] = {**figures(op["self_time_us"] / 1000 / steps), "calls": op["occurrences"]}
    facts: dict[str, Any] = {
        "steps": steps,
        "step_ms": round(step_ms, 2),
        "pipeline": sorted(row["name"] for row in tables["iterators"]),
        "iterators": iterators,
        "python_ops": python_ops,
        "input_wait": figures(raw["get_next_ms"] / steps),
        "eager_ops_per_step": round(raw["eager_ops"] / steps, 1),
        "graph_building": {"count": len(raw["graph_building_ms"]), **figures(sum(raw["graph_building_ms"]) / steps)},
    }
    calls = sorted(raw["keras_steps"])
    if len(calls) >= 2:
        gaps = [(a[1], b[0]) for a, b in zip(calls, calls[1:]) if b[0] > a[1]]
        intervals = len(calls) - 1
        gap_ms = [(b - a) / PS_PER_MS for a, b in gaps]
        facts["between_steps"] = {**figures(sum(gap_ms) / intervals),
                                  "median_gap_ms": round(statistics.median(gap_ms), 2) if gaps else 0.0}
        frames = {frame: figures(ms / intervals) for frame, ms in _frames_in(raw["frames"], gaps, user_files).items()}
        facts["frames"] = {frame: share for frame, share in frames.items() if share["share_pct"] > MIN_SHARE_PCT}
    return facts


def _raw_events(path: Path) -> dict[str, Any]:
    xspace = XSpace()
    xspace.ParseFromString(path.read_bytes())
    raw: dict[str, Any] = {"root_starts": [], "keras_steps": [], "frames": [], "parallelism": {}, "get_next_ms": 0.0,
                           "eager_ops": 0, "graph_building_ms": []}
    for plane in xspace.planes:
        if not plane.name.startswith("/host:"):
            continue
        names = {key: meta.name for key, meta in plane.event_metadata.items()}
        stat_names = {key: meta.name for key, meta in plane.stat_metadata.items()}
        for line in plane.lines:
            on_python = not line.name.startswith(TF_THREAD_PREFIX)
            base_ps = line.timestamp_ns * 1000
            for event in line.events:
                name = names.get(event.metadata_id, "")
                start = base_ps + event.offset_ps
                if name == ROOT_ITERATOR:
                    raw["root_starts"].append(start)
                elif name.startswith(ROOT_ITERATOR) and name not in raw["parallelism"]:
                    raw["parallelism"][name] = _stat(event, stat_names, "parallelism")
                elif name == GET_NEXT:
                    raw["get_next_ms"] += event.duration_ps / PS_PER_MS
                elif name == GRAPH_BUILDING:
                    raw["graph_building_ms"].append(event.duration_ps / PS_PER_MS)
                elif on_python and name == KERAS_STEP:
                    raw["keras_steps"].append((start, start + event.duration_ps))
                elif on_python and name == EAGER_OP:
                    raw["eager_ops"] += 1
                elif on_python and name.startswith("$"):
                    raw["frames"].append((start, start + event.duration_ps, name[1:]))
    return raw


def _stat(event: Any, stat_names: dict[int, str], wanted: str) -> int | None:
    for stat in event.stats:
        if stat_names.get(stat.metadata_id) == wanted and stat.WhichOneof("value") == "int64_value":
            return stat.int64_value
    return None


def _frames_in(frames: list[tuple[int, int, str]], gaps: list[tuple[int, int]],
               user_files: frozenset[str]) -> dict[str, float]:
    """Total ms of each user frame that lies inside a gap; a frame nested in another one of the same name (a
    recursive call) counts once."""
    totals: dict[str, float] = defaultdict(float)
    for start, end, frame in frames:
        if frame.split(":")[0] in user_files and any(a <= start and end <= b for a, b in gaps):
            totals[frame] += (end - start) / PS_PER_MS
    return {frame: round(ms, 2) for frame, ms in sorted(totals.items(), key=lambda item: -item[1])}


def sample_files(sample: str) -> frozenset[str]:
    return frozenset(p.name for p in (REPO / "samples" / sample).glob("*.py"))


def main(names: list[str]) -> None:
    from regenerate import CAPTURES

    print(json.dumps({name: evidence(name, sample_files(CAPTURES[name].sample)) for name in names or CAPTURES},
                     indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])
