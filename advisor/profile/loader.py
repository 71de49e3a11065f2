"""load_profile: from a path the user gave to ProfileFindings, through the cache when the capture was seen before.

A cold load runs the converters (on a copy, in a worker thread: the converter releases the GIL) while this thread
parses the raw XSpace of each host, so the trace work hides behind the converter's own time. One host capture that
is broken is skipped with a warning when the run has others; a run with nothing usable is an InputError naming
the file.
"""

from __future__ import annotations

import concurrent.futures
from pathlib import Path
from typing import Any

from google.protobuf.message import DecodeError

from advisor.errors import InputError
from advisor.profile import cache, convert, discovery, trace
from advisor.profile.facts import ProfileFindings
from advisor.profile.findings import build_findings
from advisor.profile.xplane_pb import XSpace

# Marks of a binary file that went through a text conversion: UTF-8 replacement characters, CRLF line endings.
_TEXT_CONVERSION_MARKS = (b"\xef\xbf\xbd", b"\r\n")


def load_profile(path: Path, run: str | None = None) -> ProfileFindings:
    """Read the run at ``path`` (a logdir, a run directory or one ``.xplane.pb``); ``run`` picks a run by name,
    else the newest. Raises InputError with one line naming the file on unusable input."""
    run_files = discovery.find_run(Path(path), run)
    version = convert.converter_version()
    key = cache.cache_key([cache.file_digest(p) for p in run_files.hosts], version)
    entry = cache.load(key)
    if entry is None:
        entry = _read_run(run_files)
        cache.store(key, entry)
    usable = [p for p in run_files.hosts if p.name in entry["hosts"]]
    try:
        return build_findings(Path(path), run_files.name, entry["hosts"], entry["tools"], entry["trace"],
                              entry["warnings"])
    except ValueError as error:
        raise InputError(f"{usable[0]}: {error}") from None


def _read_run(run_files: discovery.RunFiles) -> dict[str, Any]:
    """Convert and parse the run's hosts; the JSON-able entry that the cache keeps."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as worker:
        converting = worker.submit(_convert, list(run_files.hosts))
        host_facts: dict[Path, dict[str, Any]] = {}
        problems: dict[Path, str] = {}
        for capture in run_files.hosts:
            try:
                host_facts[capture] = _trace_facts(capture)
            except _UnusableCapture as problem:
                problems[capture] = str(problem)
        tools = converting.result()

    if not host_facts:
        first = next(iter(problems))
        raise InputError(f"{first}: {_explain(first, problems[first], tools)}")
    usable = [p for p in run_files.hosts if p in host_facts]
    warnings = [f"capture {p.name} skipped: {_explain(p, why, tools)}" for p, why in problems.items()]
    if problems or isinstance(tools, convert.ConversionError):
        tools = _convert(usable)
    if isinstance(tools, convert.ConversionError):
        raise InputError(f"{usable[0]}: the profiler plugin could not convert it: {tools}")
    if host_facts[usable[0]]["device_planes"]:
        try:
            tools.update(convert.convert_device(usable))
        except convert.ConversionError as error:
            warnings.append(f"device tools (kernel_stats, op_profile) failed: {error}")
    if len(usable) > 1:
        warnings.append(f"{len(usable)} hosts in run {run_files.name}; trace-derived facts (steps without markers, "
                        f"host gaps) come from {usable[0].name}")
    return {"hosts": [p.name for p in usable], "tools": tools, "trace": host_facts[usable[0]],
            "warnings": warnings}


class _UnusableCapture(Exception):
    pass


def _trace_facts(capture: Path) -> dict[str, Any]:
    data = capture.read_bytes()
    if not data:
        raise _UnusableCapture("empty file (0 bytes)")
    xspace = XSpace()
    try:
        xspace.ParseFromString(data)
    except DecodeError as error:
        hint = ("; it looks like it went through a text conversion (CRLF or UTF-8 re-encoding): copy captures as "
                "binary files") if any(mark in data for mark in _TEXT_CONVERSION_MARKS) else ""
        raise _UnusableCapture(f"not a valid XSpace capture ({error}){hint}") from None
    del data
    if not any(plane.name.startswith("/host:") for plane in xspace.planes):
        raise _UnusableCapture("the capture holds no host trace (no /host: plane)")
    return trace.read_trace_facts(xspace)


def _convert(captures: list[Path]) -> dict[str, Any] | convert.ConversionError:
    """The converter facts, or the converter's error (returned, not raised: it is read on the other thread)."""
    try:
        return convert.convert(captures)
    except convert.ConversionError as error:
        return error


def _explain(capture: Path, problem: str, tools: Any) -> str:
    """Prefer the converter's own words for a broken file (e.g. ``Read less bytes than requested``)."""
    if isinstance(tools, convert.ConversionError) or problem.startswith("not a valid"):
        alone = _convert([capture])
        if isinstance(alone, convert.ConversionError):
            return f"{problem} (converter: {alone})"
    return problem
