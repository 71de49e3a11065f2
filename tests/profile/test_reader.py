"""The streaming XSpace reader against google.protobuf's parse of the same bytes, and on malformed bytes."""

from __future__ import annotations

import pytest
from google.protobuf.message import DecodeError
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.profile import xspace_reader
from advisor.profile.xplane_pb import XLine, XSpace
from advisor.profile.xspace_reader import (
    LEN, LINE_EVENT, LINE_NAME, PLANE_LINE, SPACE_PLANE, CaptureFile, CaptureFormatError, encode_tag, encode_varint)
from profile_fixtures import PROFILES, capture_file

SAMPLES = sorted(p.name for p in PROFILES.iterdir() if p.is_dir())


def _everything(xspace) -> list:
    """What advisor reads of a capture, in a form that compares equal across the two readers."""
    return [list(xspace.hostnames)] + [
        (plane.id, plane.name, dict(plane.event_metadata), dict(plane.stat_metadata), list(plane.stats),
         [(line.id, line.name, line.timestamp_ns, list(line.events)) for line in plane.lines])
        for plane in xspace.planes]


@pytest.mark.parametrize("chunk_bytes", [1000, xspace_reader.EVENT_CHUNK_BYTES])
@pytest.mark.parametrize("name", SAMPLES)
def test_the_reader_reads_what_protobuf_parses(name, chunk_bytes, monkeypatch):
    # Small chunks put many chunk boundaries inside events; the default reads a sample's line in one chunk.
    monkeypatch.setattr(xspace_reader, "EVENT_CHUNK_BYTES", chunk_bytes)
    path = capture_file(name)
    with CaptureFile(path) as capture:
        assert _everything(capture) == _everything(XSpace.FromString(path.read_bytes()))


def _field(number: int, payload: bytes) -> bytes:
    return encode_tag(number, LEN) + encode_varint(len(payload)) + payload


def test_a_line_whose_name_follows_its_events_is_read_whole(tmp_path):
    line = XLine(id=7, timestamp_ns=5)
    line.events.add(metadata_id=1, offset_ps=10, duration_ps=20)
    line.events.add(metadata_id=2, offset_ps=40, duration_ps=5)
    # Field order is free on the wire: events first, the name last.
    line_bytes = line.SerializeToString() + _field(LINE_NAME, b"python")
    path = tmp_path / "odd.xplane.pb"
    path.write_bytes(_field(SPACE_PLANE, _field(2, b"/host:CPU") + _field(PLANE_LINE, line_bytes)))
    with CaptureFile(path) as capture:
        (read,) = capture.planes[0].lines
        assert (read.id, read.name, read.timestamp_ns) == (7, "python", 5)
        assert [(e.metadata_id, e.offset_ps) for e in read.events] == [(1, 10), (2, 40)]


def test_an_event_larger_than_a_chunk_is_read_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(xspace_reader, "EVENT_CHUNK_BYTES", 64)
    line = XLine(name="python")
    big = line.events.add(metadata_id=1, duration_ps=3)
    for i in range(50):
        big.stats.add(metadata_id=i, int64_value=i)
    line.events.add(metadata_id=2)
    path = tmp_path / "big.xplane.pb"
    path.write_bytes(_field(SPACE_PLANE, _field(PLANE_LINE, line.SerializeToString())))
    with CaptureFile(path) as capture:
        events = list(capture.planes[0].lines[0].events)
    assert [len(e.stats) for e in events] == [50, 0]


def test_bad_bytes_name_what_is_wrong_and_where(tmp_path):
    path = tmp_path / "bad.xplane.pb"
    path.write_bytes(_field(SPACE_PLANE, b"\x0f" + b"\x00" * 8))  # wire type 7 does not exist
    with pytest.raises(CaptureFormatError, match="unknown wire type 7 at byte 2"):
        CaptureFile(path)
    path.write_bytes(encode_tag(SPACE_PLANE, LEN) + encode_varint(1000) + b"\x00" * 10)
    with pytest.raises(CaptureFormatError, match="at byte 0 runs past the end"):
        CaptureFile(path)
    path.write_bytes(_field(SPACE_PLANE, _field(PLANE_LINE, _field(LINE_EVENT, b"\x08"))))  # a cut varint
    with CaptureFile(path) as capture, pytest.raises(CaptureFormatError, match="bad events"):
        list(capture.planes[0].lines[0].events)


SMALL_SAMPLE = capture_file("slow_callback").read_bytes()


@settings(max_examples=40, deadline=None)
@given(cut=st.integers(min_value=1, max_value=len(SMALL_SAMPLE) - 1))
def test_a_truncated_capture_fails_where_protobuf_fails(tmp_path_factory, cut):
    """Cut anywhere, a capture is read whole exactly when protobuf parses it, and then reads the same."""
    path = tmp_path_factory.mktemp("cut") / "cut.xplane.pb"
    path.write_bytes(SMALL_SAMPLE[:cut])
    try:
        expected = _everything(XSpace.FromString(SMALL_SAMPLE[:cut]))
    except DecodeError:
        expected = None
    try:
        with CaptureFile(path) as capture:
            read = _everything(capture)
    except CaptureFormatError:
        read = None
    assert read == expected


def test_events_stay_on_disk_until_their_line_is_iterated(tmp_path):
    """A line whose events are garbage does not stop the others from being read; only iterating it fails."""
    good = XLine(name="python")
    good.events.add(metadata_id=1, duration_ps=5)
    garbage = _field(LINE_NAME, b"tf_Compute/1") + _field(LINE_EVENT, b"\xff" * 40)
    path = tmp_path / "partly.xplane.pb"
    path.write_bytes(_field(SPACE_PLANE, _field(PLANE_LINE, good.SerializeToString()) + _field(PLANE_LINE, garbage)))
    with pytest.raises(DecodeError):
        XSpace.FromString(path.read_bytes())
    with CaptureFile(path) as capture:
        python, compute = capture.planes[0].lines
        assert compute.name == "tf_Compute/1"
        assert [e.duration_ps for e in python.events] == [5]
        with pytest.raises(CaptureFormatError):
            list(compute.events)
