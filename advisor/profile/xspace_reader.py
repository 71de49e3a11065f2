"""Reading an ``.xplane.pb`` capture line by line, straight from the protobuf wire format.

Parsing a whole XSpace at once (google.protobuf's upb) holds every event of the capture in memory, several times
the file's size, although advisor reads only some threads of it. An XSpace is planes (one per host or device); a plane
is its metadata (event and stat names) and its lines (one per thread); a line is a header (id, name, timestamp) and
its events. :class:`CaptureFile` walks that structure with file reads: it parses each plane's metadata and each
line's header when it opens the file, and reads a line's events only when they are iterated, in chunks of whole
events that upb parses as one ``XLine`` each. So memory is bounded by a chunk whatever the capture's size, and the
lines nobody iterates are never read. Malformed bytes raise :class:`CaptureFormatError`, saying what and where.

The objects mirror the generated messages where advisor reads them (``planes``, ``hostnames``, ``plane.name``,
``plane.event_metadata``, ``plane.lines``, ``line.events``...), so code written for a parsed XSpace reads either.
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from google.protobuf.message import DecodeError

from advisor.profile.xplane_pb import XLine, XPlane

# Wire types (https://protobuf.dev/programming-guides/encoding/); groups (3, 4) are not used by xplane.proto.
VARINT, I64, LEN, I32 = 0, 1, 2, 5
FIXED_SIZES = {I64: 8, I32: 4}
# Field numbers in tsl/profiler/protobuf/xplane.proto
SPACE_PLANE, SPACE_HOSTNAME = 1, 4
PLANE_LINE = 3
LINE_ID, LINE_NAME, LINE_TIMESTAMP_NS, LINE_EVENT = 1, 2, 3, 4

EVENT_CHUNK_BYTES = 4 << 20  # events parsed by upb at a time
_WINDOW_BYTES = 64 << 10  # bytes read at a time while walking field headers
_MAX_VARINT_BYTES = 10


class CaptureFormatError(Exception):
    """The file is not a well-formed XSpace; the message says what is wrong and at which byte."""


def encode_varint(value: int) -> bytes:
    """An int as a protobuf varint (a negative int64 as its two's complement, as protobuf writes it)."""
    if 0 <= value < 0x80:
        return _ONE_BYTE_VARINTS[value]
    value &= (1 << 64) - 1
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


_ONE_BYTE_VARINTS = [bytes((value,)) for value in range(0x80)]


def encode_tag(number: int, wire_type: int) -> bytes:
    return encode_varint(number << 3 | wire_type)


def decode_varint(data: bytes | memoryview, pos: int) -> tuple[int, int]:
    """The varint at ``data[pos:]`` and the position after it; IndexError when ``data`` ends inside it."""
    result = shift = 0
    for i in range(pos, pos + _MAX_VARINT_BYTES):
        byte = data[i]
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, i + 1
        shift += 7
    raise ValueError("varint longer than 10 bytes")


@dataclass(frozen=True)
class Field:
    """One field of a message in the file: ``number``, ``wire_type``, where it starts (``tag_at``), where its value
    starts and ends (``value_at``, ``end``), and ``value`` itself for varint fields."""

    number: int
    wire_type: int
    tag_at: int
    value_at: int
    end: int
    value: int | None = None


@dataclass
class Line:
    """A line (one thread) of a plane: its header, and its events read from the file when iterated. (The fields
    after the events, ``duration_ps`` and the display names, are not read.)"""

    id: int
    name: str
    timestamp_ns: int
    _capture: CaptureFile = field(repr=False)
    _events_at: int = field(repr=False)  # the first event field; the line's other fields precede it in practice
    _end: int = field(repr=False)

    @property
    def events(self) -> Iterator[Any]:
        """The line's XEvent messages, in file order, parsed a chunk at a time."""
        return itertools.chain.from_iterable(self._capture.event_chunks(self._events_at, self._end))


@dataclass
class Plane:
    """A plane (a host or a device): ``name``, ``id``, ``lines``, and its metadata as an XPlane without lines."""

    id: int
    name: str
    lines: list[Line]
    metadata: Any  # XPlane

    @property
    def event_metadata(self) -> Any:
        return self.metadata.event_metadata

    @property
    def stat_metadata(self) -> Any:
        return self.metadata.stat_metadata

    @property
    def stats(self) -> Any:
        return self.metadata.stats


class CaptureFile:
    """An open capture: ``planes`` and ``hostnames`` are read on opening, events as they are iterated.

    Use as a context manager (it keeps the file open for the events). Raises OSError when the file cannot be read
    and CaptureFormatError when its bytes are not an XSpace.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._fd = os.open(self.path, os.O_RDONLY)
        try:
            self.size = os.fstat(self._fd).st_size
            self._window = b""
            self._window_at = 0
            self.planes: list[Plane] = []
            self.hostnames: list[str] = []
            for f in self._fields(0, self.size):
                if f.number == SPACE_PLANE and f.wire_type == LEN:
                    self.planes.append(self._plane(f.value_at, f.end))
                elif f.number == SPACE_HOSTNAME and f.wire_type == LEN:
                    self.hostnames.append(self._text(f))
        except BaseException:
            os.close(self._fd)
            raise

    def __enter__(self) -> CaptureFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def read(self, start: int, end: int) -> bytes:
        """Bytes [start, end) of the file."""
        data = os.pread(self._fd, end - start, start)
        if len(data) != end - start:
            raise CaptureFormatError(f"the file ended at byte {start + len(data)} while reading to byte {end} "
                                     f"(changed while being read?)")
        return data

    def event_chunks(self, start: int, end: int) -> Iterator[Any]:
        """The XEvents of the line fields in [start, end), a list of them per chunk of whole fields."""
        while start < end:
            data = self.read(start, min(end, start + EVENT_CHUNK_BYTES))
            cut = _whole_fields(data, start, end)
            if cut == 0:  # one field larger than a chunk: read it whole
                cut = self._field_at(start, end).end - start
                data = self.read(start, start + cut)
            try:
                chunk = XLine.FromString(memoryview(data)[:cut])
            except DecodeError as error:
                raise CaptureFormatError(f"bad events between bytes {start} and {start + cut} ({error})") from None
            start += cut
            yield chunk.events

    def _plane(self, start: int, end: int) -> Plane:
        metadata = bytearray()  # every field but the lines, parsed below as one XPlane
        line_fields = []
        for f in self._fields(start, end):
            if f.number == PLANE_LINE and f.wire_type == LEN:
                line_fields.append(f)
            else:
                metadata += self._bytes(f.tag_at, f.end)
        try:
            header = XPlane.FromString(bytes(metadata))
        except DecodeError as error:
            raise CaptureFormatError(f"bad plane metadata in the plane at byte {start} ({error})") from None
        return Plane(id=header.id, name=header.name, lines=[self._line(f.value_at, f.end) for f in line_fields],
                     metadata=header)

    def _line(self, start: int, end: int) -> Line:
        values: dict[int, Any] = {}
        events_at = end
        for f in self._fields(start, end):
            if f.number == LINE_EVENT:
                if f.wire_type != LEN:
                    raise CaptureFormatError(f"bad event field at byte {f.tag_at}")
                events_at = min(events_at, f.tag_at)
                if LINE_NAME in values:
                    break  # the header is complete; the events stay on disk until iterated
            elif f.number == LINE_NAME and f.wire_type == LEN:
                values[f.number] = self._text(f)
            elif f.number in (LINE_ID, LINE_TIMESTAMP_NS) and f.wire_type == VARINT:
                values[f.number] = _int64(f.value)
        return Line(id=values.get(LINE_ID, 0), name=values.get(LINE_NAME, ""), timestamp_ns=values.get(LINE_TIMESTAMP_NS, 0),
                    _capture=self, _events_at=events_at, _end=end)

    def _text(self, f: Field) -> str:
        try:
            return self._bytes(f.value_at, f.end).decode()
        except UnicodeDecodeError:
            raise CaptureFormatError(f"invalid UTF-8 in the string at byte {f.value_at}") from None

    def _bytes(self, start: int, end: int) -> bytes:
        """Like read, from the window of field headers when it holds them (metadata entries are small)."""
        offset = start - self._window_at
        if offset >= 0 and end <= self._window_at + len(self._window):
            return self._window[offset:offset + end - start]
        return self.read(start, end)

    def _fields(self, start: int, end: int) -> Iterator[Field]:
        while start < end:
            f = self._field_at(start, end)
            yield f
            start = f.end

    def _field_at(self, pos: int, end: int) -> Field:
        """The field whose tag starts at ``pos`` in a message that ends at ``end``."""
        offset, window_end = pos - self._window_at, self._window_at + len(self._window)
        if offset < 0 or (pos + 2 * _MAX_VARINT_BYTES > window_end and window_end < end):
            self._window, self._window_at, offset = self.read(pos, min(end, pos + _WINDOW_BYTES)), pos, 0
        try:
            tag, i = decode_varint(self._window, offset)
            number, wire_type = tag >> 3, tag & 7
            value = None
            if wire_type == VARINT:
                value, after = decode_varint(self._window, i)
            elif wire_type == LEN:
                length, i = decode_varint(self._window, i)
                after = i + length
            elif wire_type in FIXED_SIZES:
                after = i + FIXED_SIZES[wire_type]
            else:
                raise CaptureFormatError(f"unknown wire type {wire_type} at byte {pos}")
        except (IndexError, ValueError):
            raise CaptureFormatError(f"truncated or malformed field at byte {pos}") from None
        value_at, field_end = self._window_at + i, self._window_at + after
        if number == 0 or field_end > end:
            raise CaptureFormatError(f"field at byte {pos} runs past the end of its message (byte {end}): "
                                     f"the file is truncated or not an XSpace")
        return Field(number, wire_type, pos, value_at, field_end, value)


def _whole_fields(data: bytes, at: int, end: int) -> int:
    """How many bytes at the start of ``data`` (read from file offset ``at``) are whole fields of a message that
    ends at ``end``. This is the hot loop of reading a line, with a fast path for its fields: events, whose tag is
    one byte and whose length is one or two."""
    i, size, whole = 0, len(data), 0
    while i < size:
        try:
            if data[i] == _EVENT_TAG:
                length = data[i + 1]
                if length < 0x80:
                    i += 2 + length
                elif data[i + 2] < 0x80:
                    i += 3 + (length & 0x7F) + (data[i + 2] << 7)
                else:
                    length, i = decode_varint(data, i + 1)
                    i += length
            else:
                i = _field_end(data, i, at + whole)
        except (IndexError, ValueError):
            if at + size < end:
                break  # the chunk ends inside this field's header; the next chunk starts with it
            raise CaptureFormatError(f"truncated or malformed field at byte {at + whole}") from None
        if at + i > end:
            raise CaptureFormatError(f"field at byte {at + whole} runs past the end of its line (byte {end}): "
                                     f"the file is truncated or not an XSpace")
        if i > size:
            break
        whole = i
    return whole


_EVENT_TAG = LINE_EVENT << 3 | LEN


def _field_end(data: bytes, i: int, file_offset: int) -> int:
    """Where the field whose tag starts at ``data[i]`` ends (IndexError when ``data`` ends in its header)."""
    tag, i = decode_varint(data, i)
    wire_type = tag & 7
    if wire_type == LEN:
        length, i = decode_varint(data, i)
        return i + length
    if wire_type == VARINT:
        return decode_varint(data, i)[1]
    if wire_type in FIXED_SIZES:
        return i + FIXED_SIZES[wire_type]
    raise CaptureFormatError(f"unknown wire type {wire_type} at byte {file_offset}")


def _int64(value: int) -> int:
    """A varint read as uint64, as the int64 it encodes."""
    return value - (1 << 64) if value >= 1 << 63 else value
