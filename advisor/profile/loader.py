"""load_profile: from a path the user gave to ProfileFindings, through the cache when the capture was seen before.

A cold load decides first whether the converters can run: they need 30-60 times a run's size in memory, so a run
whose estimated need is over the converter's memory limit (see ``convert.memory_limit``) is read by advisor alone,
and the profile's warnings say so and what that leaves out (see ``tool_facts.py``). Otherwise the converter runs in
a child process while this process reads each host's raw trace (streamed, see ``xspace_reader.py``), so the trace
work hides behind the converter's time; a converter that goes over its memory limit anyway is killed and the run is
read by advisor alone. The memory peaks always come from advisor's reading (the converter's memory_profile tool
costs a quarter of a conversion for the same numbers). One host capture that is broken is skipped with a warning when the run has others; a run
with nothing usable, a converter that crashes or runs away, is an InputError naming the file.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from advisor.errors import InputError
from advisor.profile import cache, convert, discovery, trace
from advisor.profile.facts import ProfileFindings
from advisor.profile.findings import build_findings
from advisor.profile.tool_facts import ToolFacts
from advisor.profile.xspace_reader import CaptureFile, CaptureFormatError

GZIP_MAGIC = b"\x1f\x8b"
UTF8_REPLACEMENT = b"\xef\xbf\xbd"
# The bytes looked at for signs of a text conversion: enough to tell, whatever the file's size.
_SNIFF_BYTES = 16 << 20
# A binary re-decoded as UTF-8 is full of replacement characters; random bytes hold one in ~16 M positions.
_REPLACEMENT_SHARE = 0.01
# What advisor's own reading leaves out, against the converter's.
_OWN_READING = ("Advisor read it alone: step breakdown and bottleneck from the trace's steps, iterator times and "
                "memory peaks from its events; no top ops table")
# Errors that a cached entry of the wrong shape raises while findings are built from it.
_MALFORMED_ENTRY = (KeyError, TypeError, AttributeError, IndexError, ValueError)


def load_profile(path: Path, run: str | None = None, use_cache: bool = True) -> ProfileFindings:
    """Read the run at ``path`` (a logdir, a run directory or one ``.xplane.pb``); ``run`` picks a run by name,
    else the newest. ``use_cache=False`` reads the captures again (and refreshes the cache). Raises InputError with
    one line naming the file on unusable input."""
    run_files = discovery.find_run(Path(path), run)
    try:
        plan = _plan(run_files)
        digests = [cache.file_digest(p, trust_stamp=use_cache) for p in run_files.hosts]
    except OSError as error:
        raise InputError(f"{error.filename}: cannot read it ({error.strerror})") from None
    key = cache.cache_key(digests, convert.converter_version(), plan.mode)
    entry = cache.load(key) if use_cache else None
    if entry is not None:
        try:
            return _findings(Path(path), run_files, entry)
        except _MALFORMED_ENTRY:
            pass  # written by another version or damaged: read the captures again, and replace it
    entry = _read_run(run_files, plan)
    cache.store(key, entry)
    try:
        return _findings(Path(path), run_files, entry)
    except ValueError as error:
        usable = [p for p in run_files.hosts if p.name in entry["hosts"]]
        raise InputError(f"{usable[0]}: {error}") from None


def _findings(path: Path, run_files: discovery.RunFiles, entry: dict[str, Any]) -> ProfileFindings:
    warnings = list(entry["warnings"])
    if run_files.unreadable:
        warnings.append(f"{len(run_files.unreadable)} directories under {path} could not be read (the first: "
                        f"{run_files.unreadable[0]}); runs in them were not considered")
    return build_findings(path, run_files.name, entry["hosts"], entry["tools"], entry["trace"], warnings)


@dataclass(frozen=True)
class _Plan:
    """Whether the converter may run on the run's captures (``mode``: "converter" or "own"), and why not."""

    mode: str
    memory_limit: int
    why_not: str = ""


def _plan(run_files: discovery.RunFiles) -> _Plan:
    try:
        limit, what = convert.memory_limit()
    except ValueError as error:
        raise InputError(str(error)) from None
    size = sum(p.stat().st_size for p in run_files.hosts)
    need = convert.estimated_memory(size)
    if need <= limit:
        return _Plan("converter", limit)
    return _Plan("own", limit, f"the converter would need about {convert.gib(need)} for {size / 1e6:.0f} MB of "
                               f"capture, more than {what}")


def _read_run(run_files: discovery.RunFiles, plan: _Plan) -> dict[str, Any]:
    """Convert and parse the run's hosts; the JSON-able entry that the cache keeps."""
    problems: dict[Path, str] = {}
    with contextlib.ExitStack() as stack:
        captures: dict[Path, CaptureFile] = {}
        for path in run_files.hosts:
            try:
                captures[path] = stack.enter_context(_open(path))
            except _UnusableCapture as problem:
                problems[path] = str(problem)
        if not captures:
            raise _unusable_run(problems, plan)
        device = bool(_device_planes(next(iter(captures.values()))))
        converting = stack.enter_context(_Converting(list(captures), device, plan))
        host_facts: dict[Path, dict[str, Any]] = {}
        host_tools: dict[Path, ToolFacts] = {}
        for path, capture in captures.items():
            host_tools[path] = ToolFacts()
            try:
                host_facts[path] = _trace_facts(capture, host_tools[path])
            except _UnusableCapture as problem:
                problems[path] = str(problem)
        if not host_facts:
            converting.cancel()
            raise _unusable_run(problems, plan)
        usable = [p for p in run_files.hosts if p in host_facts]
        stale = len(usable) < len(captures)  # the conversion holds captures whose trace turned out broken
        if stale:
            converting.cancel()  # first: explaining a broken capture may run the converter on it
        warnings = [f"capture {p.name} skipped: {_explain(p, why, plan)}" for p, why in problems.items()]
        if stale:
            converting.start(usable)
        own = ToolFacts.combined([host_tools[p] for p in usable])
        tools, own_warning = converting.facts(usable[0])
        if tools is None:  # advisor reads the run alone
            tools = {"overview": convert.empty_overview(), "ops": {"top": [], "total_self_us": {}, "types": None},
                     "iterators": own["iterators"], "from_trace": True}
            devices = "; no device tools (kernel_stats, op_profile)" if device else ""
            warnings.insert(0, f"{own_warning}. {_OWN_READING}{devices}")
        elif "device_error" in tools:
            warnings.append(f"device tools (kernel_stats, op_profile) failed: {tools.pop('device_error')}")
        tools["memory"] = own["memory"]
    if len(usable) > 1:
        warnings.append(f"{len(usable)} hosts in run {run_files.name}; trace-derived facts (steps without markers, "
                        f"host gaps) come from {usable[0].name}")
    return {"hosts": [p.name for p in usable], "tools": tools, "trace": host_facts[usable[0]], "warnings": warnings}


class _Converting:
    """The run's conversion in a child process, when the plan lets the converter run."""

    def __init__(self, captures: list[Path], device: bool, plan: _Plan) -> None:
        self._device, self._plan = device, plan
        self._conversion: convert.Conversion | None = None
        self.start(captures)

    def __enter__(self) -> _Converting:
        return self

    def __exit__(self, *exc: object) -> None:
        self.cancel()

    def start(self, captures: list[Path]) -> None:
        """Convert ``captures`` (again, without the ones that turned out broken), when the plan lets it."""
        self.cancel()
        if self._plan.mode == "converter":
            self._conversion = convert.Conversion(captures, self._device, self._plan.memory_limit)

    def cancel(self) -> None:
        if self._conversion is not None:
            self._conversion.close()

    def facts(self, first: Path) -> tuple[dict[str, Any] | None, str]:
        """The converter's facts, or None and why advisor reads the run alone. Raises InputError naming ``first``
        when the converter fails."""
        if self._plan.mode == "own":
            return None, f"{first.name} is too big to convert: {self._plan.why_not}"
        assert self._conversion is not None
        try:
            return self._conversion.result(), ""
        except convert.OverMemoryLimit as error:
            return None, f"{first.name}: {error}"
        except convert.ConversionError as error:
            raise InputError(f"{first}: the profiler plugin could not convert it: {error}") from None


class _UnusableCapture(Exception):
    pass


@contextlib.contextmanager
def _open(path: Path) -> Any:
    """The capture, open, with its structure checked; _UnusableCapture when it cannot be used at all."""
    try:
        if path.stat().st_size == 0:
            raise _UnusableCapture("empty file (0 bytes)")
        capture = CaptureFile(path)
    except OSError as error:
        raise _UnusableCapture(f"cannot read it ({error.strerror})") from None
    except CaptureFormatError as error:
        raise _UnusableCapture(f"not a valid XSpace capture ({error})") from None
    with capture:
        names = [plane.name for plane in capture.planes if plane.name.startswith(("/host:", "/device:"))]
        if not any(name.startswith("/host:") for name in names):
            raise _UnusableCapture("the capture holds no host trace (no /host: plane)")
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise _UnusableCapture(f"it holds plane {repeated[0]} more than once, as a capture joined to another "
                                   f"(or to itself) would")
        yield capture


def _device_planes(capture: CaptureFile) -> list[str]:
    return [plane.name for plane in capture.planes if plane.name.startswith("/device:")]


def _trace_facts(capture: CaptureFile, tools: ToolFacts) -> dict[str, Any]:
    try:
        facts = trace.read_trace_facts(capture, tools)
    except CaptureFormatError as error:
        raise _UnusableCapture(f"not a valid XSpace capture ({error})") from None
    except ValueError as error:
        raise _UnusableCapture(str(error)) from None
    except OSError as error:
        raise _UnusableCapture(f"cannot read it ({error.strerror})") from None
    steps = trace.recover_steps(facts)
    if steps is not None and not any(end > start for start, end in steps.intervals):
        raise _UnusableCapture("its events carry no times (every step lasts 0 ps)")
    return facts


def _format_hint(path: Path) -> str:
    """Why a file that is not an XSpace might be one that was mangled, when its bytes say so."""
    try:
        with path.open("rb") as f:
            data = f.read(_SNIFF_BYTES)
    except OSError:
        return ""
    if data.startswith(GZIP_MAGIC):
        return "; it is gzip-compressed: decompress it first (gunzip)"
    line_feeds = data.count(b"\n")
    converted = line_feeds >= 4 and data.count(b"\r\n") == line_feeds  # every LF became CRLF
    if converted or data.count(UTF8_REPLACEMENT) * len(UTF8_REPLACEMENT) > _REPLACEMENT_SHARE * len(data):
        return ("; it looks like it went through a text conversion (CRLF or UTF-8 re-encoding): copy captures as "
                "binary files")
    return ""


def _unusable_run(problems: dict[Path, str], plan: _Plan) -> InputError:
    first = next(iter(problems))
    return InputError(f"{first}: {_explain(first, problems[first], plan)}")


def _explain(capture: Path, problem: str, plan: _Plan) -> str:
    """For a file that is not an XSpace, add what it seems to be instead (gzip, text), else the converter's own
    words (e.g. ``Read less bytes than requested``)."""
    if not problem.startswith("not a valid"):
        return problem
    hint = _format_hint(capture)
    if hint or plan.mode != "converter":
        return problem + hint
    try:
        with convert.Conversion([capture], False, plan.memory_limit) as alone:
            alone.result()
    except (convert.ConversionError, convert.OverMemoryLimit) as error:
        return f"{problem} (converter: {error})"
    return problem
