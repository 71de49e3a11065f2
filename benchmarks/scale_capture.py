"""Make a big capture from a real one by repeating its steps: ``python benchmarks/scale_capture.py OUT --mb 200``.

The template (default: the committed samples/profiles/input_bound_markers capture) is parsed and its steps found the
way advisor finds them (step markers, else Keras step calls, else GetNext calls). The window from the first step's
start to the last step's start is then repeated until the file reaches the requested size: every event in the window
is written again for each copy, shifted by the window's length, on the same thread, so every thread keeps its
events' names, durations, stats and nesting, and each copy's steps look like the template's. Events after the window
move past the last copy. Step markers are renumbered so that steps stay distinct, and the stats that identify one
occurrence of something (event, element and producer/consumer ids) are made unique per copy. Metadata is unchanged.

The output is written as it is generated; a line's and a plane's bytes go through spool files first because their
length prefixes must precede them. So a 1 GB capture takes little memory and no TensorFlow. Never commit one.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from advisor.profile import trace  # noqa: E402
from advisor.profile.xplane_pb import XLine, XPlane, XSpace  # noqa: E402
from advisor.profile.xspace_reader import (  # noqa: E402
    LEN, LINE_EVENT, PLANE_LINE, SPACE_PLANE, VARINT, encode_tag, encode_varint)

DEFAULT_TEMPLATE = REPO / "samples" / "profiles" / "input_bound_markers"
STEP_NUMBER_STAT = "step_num"
# Stats whose value identifies one occurrence (an event, an element, a producer/consumer pair): unique per copy.
OCCURRENCE_ID_STATS = frozenset({"id", "parent_id", "step_id", "element_id", "_p", "_c"})
# Field numbers of XEvent and XStat (tsl/profiler/protobuf/xplane.proto)
EVENT_OFFSET_PS, EVENT_STATS = 2, 4
STAT_METADATA_ID, STAT_UINT64, STAT_INT64 = 1, 3, 4
_COPY_ID_BITS = 40  # copy k xors ids with k << 40: distinct per copy, same sign, same width


_OFFSET_TAG = encode_tag(EVENT_OFFSET_PS, VARINT)
_EVENT_TAG, _STAT_TAG = encode_tag(LINE_EVENT, LEN), encode_tag(EVENT_STATS, LEN)


@dataclass(frozen=True)
class _Renumbered:
    """A stat whose value changes per copy: the stat's bytes up to its value, its value, and how it changes."""

    head: bytes  # metadata id and the value's tag
    value: int
    is_step_number: bool

    def field(self, copy: int, steps: int) -> bytes:
        value = self.value + copy * steps if self.is_step_number else self.value ^ (copy << _COPY_ID_BITS)
        stat = self.head + encode_varint(value)
        return _STAT_TAG + encode_varint(len(stat)) + stat


@dataclass(frozen=True)
class _Template:
    """An event ready to be written at any shift: its offset, its other fields, and the stats renumbered per copy."""

    offset_ps: int
    fixed: bytes
    renumbered: tuple[_Renumbered, ...]

    def field(self, shift_ps: int, copy: int, steps: int) -> bytes:
        payload = _OFFSET_TAG + encode_varint(self.offset_ps + shift_ps) + self.fixed
        if self.renumbered:
            payload += b"".join(stat.field(copy, steps) for stat in self.renumbered)
        return _EVENT_TAG + encode_varint(len(payload)) + payload


def scale(template: Path, output: Path, target_bytes: int) -> dict[str, Any]:
    """Write ``output``: ``template`` with its step window repeated until the file holds about ``target_bytes``.
    Returns what was done: ``copies`` of the window, ``steps_per_copy``, ``bytes`` written, ``copy_bytes`` (the
    size of one more copy)."""
    xspace = XSpace.FromString(template.read_bytes())
    window_start, window_end, steps = _step_window(xspace)
    period = window_end - window_start
    # Per host plane, per line: its events before, inside and after the window.
    split = [[_split(line, plane, (window_start, window_end)) for line in plane.lines]
             for plane in xspace.planes if plane.name.startswith("/host:")]
    copy_bytes = sum(len(event.field(period, 1, steps)) for plane in split for _, inside, _ in plane
                     for event in inside)
    copies = max(1, round((target_bytes - xspace.ByteSize()) / copy_bytes) + 1)  # the nearest size reachable
    with output.open("wb") as out, tempfile.TemporaryFile() as plane_spool, tempfile.TemporaryFile() as line_spool:
        host_splits = iter(split)
        for plane in xspace.planes:
            if plane.name.startswith("/host:"):
                plane_spool.seek(0)
                plane_spool.truncate()
                for line, events in zip(plane.lines, next(host_splits)):
                    _write_line(plane_spool, line_spool, line, events, period, steps, copies)
                _write_plane(out, plane_spool, plane)
            else:
                _write_field(out, SPACE_PLANE, plane.SerializeToString())
        rest = XSpace()
        rest.CopyFrom(xspace)
        del rest.planes[:]
        out.write(rest.SerializeToString())  # hostnames, errors, warnings
    return {"copies": copies, "steps_per_copy": steps, "bytes": output.stat().st_size, "copy_bytes": copy_bytes}


def _step_window(xspace: Any) -> tuple[int, int, int]:
    """The window (ps) from the first step's start to the last step's start, and the number of steps in it."""
    recovered = trace.recover_steps(trace.read_trace_facts(xspace))
    if recovered is None or len(recovered.intervals) < 2:
        raise SystemExit("the template capture has fewer than 3 steps to repeat")
    starts = [start for start, _ in recovered.intervals]
    return starts[0], starts[-1], len(starts) - 1


def _write_field(out: BinaryIO, number: int, payload: bytes) -> None:
    out.write(encode_tag(number, LEN) + encode_varint(len(payload)) + payload)


def _write_spooled(out: BinaryIO, number: int, head: bytes, spool: BinaryIO, tail: bytes = b"") -> None:
    """A field whose payload is ``head``, the spool's bytes and ``tail``."""
    out.write(encode_tag(number, LEN) + encode_varint(len(head) + spool.tell() + len(tail)) + head)
    spool.seek(0)
    shutil.copyfileobj(spool, out)
    out.write(tail)


def _write_plane(out: BinaryIO, lines: BinaryIO, plane: Any) -> None:
    metadata = XPlane()
    metadata.CopyFrom(plane)
    del metadata.lines[:]
    metadata.ClearField("id")
    metadata.ClearField("name")
    # In the C++ writer's field order: id and name, the lines, then the metadata.
    _write_spooled(out, SPACE_PLANE, XPlane(id=plane.id, name=plane.name).SerializeToString(), lines,
                   metadata.SerializeToString())


def _split(line: Any, plane: Any, window: tuple[int, int]) -> tuple[list[_Template], ...]:
    """The line's events before, inside and after the window, ready to be written."""
    stat_names = {key: meta.name for key, meta in plane.stat_metadata.items()}
    base_ps = line.timestamp_ns * 1000
    before, inside, after = [], [], []
    for event in line.events:
        start = base_ps + event.offset_ps
        (before if start < window[0] else inside if start < window[1] else after).append(_template(event, stat_names))
    return before, inside, after


def _write_line(out: BinaryIO, spool: BinaryIO, line: Any, events: tuple[list[_Template], ...], period: int,
                steps: int, copies: int) -> None:
    before, inside, after = events
    spool.seek(0)
    spool.truncate()
    for event in before:
        spool.write(event.field(0, 0, steps))
    for copy in range(copies):
        spool.write(b"".join(event.field(copy * period, copy, steps) for event in inside))
    for event in after:
        spool.write(event.field((copies - 1) * period, copies - 1, steps))
    header = XLine()
    header.CopyFrom(line)
    del header.events[:]
    _write_spooled(out, PLANE_LINE, header.SerializeToString(), spool)


def _template(event: Any, stat_names: dict[int, str]) -> _Template:
    renumbered, kept = [], []
    for stat in event.stats:
        name, kind = stat_names.get(stat.metadata_id), stat.WhichOneof("value")
        if kind in ("int64_value", "uint64_value") and (name == STEP_NUMBER_STAT or name in OCCURRENCE_ID_STATS):
            head = (encode_tag(STAT_METADATA_ID, VARINT) + encode_varint(stat.metadata_id)
                    + encode_tag(STAT_INT64 if kind == "int64_value" else STAT_UINT64, VARINT))
            renumbered.append(_Renumbered(head, getattr(stat, kind) & ((1 << 64) - 1), name == STEP_NUMBER_STAT))
        else:
            kept.append(stat)
    fixed = type(event)()
    fixed.CopyFrom(event)
    fixed.ClearField("offset_ps")
    del fixed.stats[:]
    fixed.stats.extend(kept)
    return _Template(event.offset_ps, fixed.SerializeToString(), tuple(renumbered))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", type=Path)
    parser.add_argument("--mb", type=float, required=True, help="target size in MB (1e6 bytes)")
    parser.add_argument("--template", type=Path, default=DEFAULT_TEMPLATE,
                        help="a capture, or a directory holding one (default: input_bound_markers)")
    args = parser.parse_args()
    template = args.template if args.template.is_file() else next(args.template.rglob("*.xplane.pb"))
    done = scale(template, args.output, int(args.mb * 1e6))
    print(f"{args.output}: {done['bytes'] / 1e6:.1f} MB, {done['copies']} copies of {done['steps_per_copy']} steps")


if __name__ == "__main__":
    main()
