"""Running the profiler plugin's own converters (xprof) on captures, in a child process, keeping only what advisor
reads.

The converter is C++ (``_pywrap_profiler_plugin.xspace_to_tools_data``, used rather than ``raw_to_tool_data``
because it returns the converter's error text): a malformed capture can crash it or keep it busy for minutes, and it
needs 30-60 times a capture's size in memory. So it runs in a child process, on copies in a temporary directory (it
writes cache files beside its input, which must never land in a user's logdir), and :class:`Conversion` turns
whatever happens there into a result or one exception: the converter's own error text, a crash, a timeout
(ConversionError), or more memory than the child is allowed (OverMemoryLimit: the child is killed). The temporary
directory is removed by this process whatever the child did, and the copies' paths never reach a message.

The child is a bare interpreter running this file, not the advisor package (whose imports cost a second or more):
this module imports nothing of advisor's. It starts without ``site`` (whose .pth files cost more than the rest of
the start) and takes its import path from this process instead. It reads its request as JSON on stdin and writes
the facts as JSON on stdout. All tools run in one directory on purpose: the first one (``overview_page``) builds
the combined op stats and the following ones reuse them, which makes them nearly free. ``memory_profile`` is not
run: it does not reuse them (a quarter of a conversion's time), and advisor reads the same peaks from the trace
(``tool_facts.py``).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

# Always needed. On captures with a device plane, DEVICE_TOOLS too (they are empty on CPU-only captures).
HOST_TOOLS = ("overview_page", "input_pipeline_analyzer", "framework_op_stats")
DEVICE_TOOLS = ("kernel_stats", "op_profile")
TOP_OPS_KEPT = 25  # framework_op_stats rows kept (by self time); the rest never reach a report

# The converter's peak memory for the host tools, measured with benchmarks/profile_ingest.py on scaled captures
# (37x at 10-50 MB, 7.3 GB at 200 MB), with a margin.
MEMORY_PER_CAPTURE_BYTE = 40
MEMORY_BASE_BYTES = 150 << 20
DEFAULT_MEMORY_LIMIT_BYTES = 2 << 30
MEMORY_LIMIT_VARIABLE = "ADVISOR_CONVERTER_MEMORY_MB"
# A healthy conversion runs at 0.2-0.5 s per MB on a busy 2-core machine; a crafted capture can run for minutes.
TIMEOUT_BASE_S, TIMEOUT_PER_MB_S = 30.0, 2.0
_POLL_S = 0.05
# Runs this file in a bare interpreter; the child's working directory is its scratch directory, so that nothing
# in the user's current directory can shadow a module it imports.
_LAUNCH = ["-S", "-c", "import runpy, sys; runpy.run_path(sys.argv[1], run_name='__main__')"]


class ConversionError(Exception):
    """The converter could not convert the captures: its own error text, or how its process ended."""


class OverMemoryLimit(Exception):
    """The converter needed more memory than it is allowed (the message says how much that is)."""


def converter_version() -> str:
    from importlib.metadata import version

    return version("xprof")


def memory_limit() -> tuple[int, str]:
    """How much memory the converter's process may use, and that limit in words: ADVISOR_CONVERTER_MEMORY_MB or the
    default (2 GiB), never more than the memory available now. Raises ValueError for a malformed setting."""
    setting = os.environ.get(MEMORY_LIMIT_VARIABLE)
    if setting is None:
        limit, source = DEFAULT_MEMORY_LIMIT_BYTES, f"the default; {MEMORY_LIMIT_VARIABLE} sets it"
    else:
        try:
            limit, source = int(float(setting) * (1 << 20)), MEMORY_LIMIT_VARIABLE
        except ValueError:
            limit = -1
        if limit <= 0:
            raise ValueError(f"{MEMORY_LIMIT_VARIABLE} must be a positive number of MiB, got {setting!r}")
    available = _available_memory()
    if available is not None and available < limit:
        return available, f"the {gib(available)} of memory available now"
    return limit, f"its limit of {gib(limit)} ({source})"


def estimated_memory(capture_bytes: int) -> int:
    """The converter's expected peak memory for captures of ``capture_bytes`` in all."""
    return MEMORY_BASE_BYTES + MEMORY_PER_CAPTURE_BYTE * capture_bytes


def _available_memory() -> int | None:
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


class Conversion:
    """The converter running in a child process on copies of ``captures`` (one run's hosts): the host tools, and the
    device tools when ``device`` is set. Use as a context manager; :meth:`result` waits for the facts.

    ``memory_limit`` bounds the child's resident memory (watched through /proc; where there is none, only the
    caller's estimate guards it); ``timeout_s`` bounds its time (default: from the captures' size).
    """

    def __init__(self, captures: list[Path], device: bool, memory_limit: int, timeout_s: float | None = None) -> None:
        self.memory_limit = memory_limit
        size_mb = sum(p.stat().st_size for p in captures) / 1e6
        self.timeout_s = timeout_s if timeout_s is not None else TIMEOUT_BASE_S + TIMEOUT_PER_MB_S * size_mb
        self._ended_by: str | None = None  # "memory" or "timeout" when the watcher killed the child
        self._scratch = tempfile.mkdtemp(prefix="advisor-convert-")
        try:
            self._copies = {}
            for capture in captures:
                copy = Path(self._scratch) / f"{len(self._copies)}-{capture.name}"
                shutil.copyfile(capture, copy)
                self._copies[str(copy)] = capture
            self._process = subprocess.Popen(
                [sys.executable, *_LAUNCH, __file__], cwd=self._scratch, stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)  # the converter logs every stage on stderr
        except BaseException:
            shutil.rmtree(self._scratch, ignore_errors=True)
            raise
        self._started = time.monotonic()
        # The request is sent now (it fits in a pipe's buffer), so that the child converts while this process
        # reads the trace.
        request = json.dumps({"captures": list(self._copies), "device": device, "import_path": sys.path})
        try:
            with self._process.stdin as stdin:
                stdin.write(request.encode())
        except BrokenPipeError:
            pass  # it ended already; result() says how
        self._process.stdin = None
        self._output: bytes | None = None
        self._watcher = threading.Thread(target=self._watch, daemon=True)
        self._watcher.start()

    def __enter__(self) -> Conversion:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the child if it still runs, and remove the copies and whatever the converter wrote beside them."""
        if self._process.poll() is None:
            self._process.kill()
        self._process.wait()
        if not self._process.stdout.closed:
            self._process.stdout.close()
        shutil.rmtree(self._scratch, ignore_errors=True)

    def result(self) -> dict[str, Any]:
        """The facts: ``overview``, ``iterators`` and ``ops`` (see the ``_*_facts`` functions), and on request
        ``kernels`` and ``convolutions``, or ``device_error`` when the device tools failed. Raises ConversionError
        or OverMemoryLimit."""
        if self._output is None:
            self._output, _ = self._process.communicate()
            self._watcher.join()
        if self._ended_by == "memory":
            raise OverMemoryLimit(f"the converter went over its memory limit ({gib(self.memory_limit)})")
        if self._ended_by == "timeout":
            raise ConversionError(f"the converter did not finish within {self.timeout_s:.0f} s")
        code = self._process.returncode
        try:
            reply = json.loads(self._output)
        except ValueError:
            if code < 0:
                raise ConversionError(f"the converter crashed ({signal.Signals(-code).name})") from None
            raise ConversionError(f"the converter ended without a result (exit code {code})") from None
        if "error" in reply:
            raise ConversionError(self._without_copies(reply["error"]))
        facts = reply["facts"]
        if "device_error" in facts:
            facts["device_error"] = self._without_copies(facts["device_error"])
        return facts

    def _watch(self) -> None:
        """Poll the child's memory and time; kill it when it goes over either."""
        status = Path(f"/proc/{self._process.pid}/status")
        while self._process.poll() is None:
            rss = _resident_bytes(status)
            if rss is not None and rss > self.memory_limit:
                self._ended_by = "memory"
            elif time.monotonic() - self._started > self.timeout_s:
                self._ended_by = "timeout"
            if self._ended_by:
                self._process.kill()
                return
            time.sleep(_POLL_S)

    def _without_copies(self, text: str) -> str:
        """The converter names the files it read: name the user's captures instead of the temporary copies."""
        for copy, capture in self._copies.items():
            text = text.replace(copy, str(capture))
        return text.replace(self._scratch, "<temporary directory>").strip()


def _resident_bytes(status: Path) -> int | None:
    try:
        for line in status.read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return None


def gib(size: int) -> str:
    return f"{size / (1 << 30):.1f} GiB"


def _serve() -> None:
    """The child's side: read the request, run the tools, write the facts (or the converter's error)."""
    request = json.load(sys.stdin)
    sys.path[:] = request["import_path"]
    captures = request["captures"]
    try:
        outputs = _run_tools(captures, HOST_TOOLS)
        facts: dict[str, Any] = {
            "overview": _overview_facts(outputs["overview_page"]),
            "iterators": _iterator_facts(outputs["input_pipeline_analyzer"]),
            "ops": _op_facts(outputs["framework_op_stats"]),
        }
        if request["device"]:
            try:
                outputs = _run_tools(captures, DEVICE_TOOLS)
                facts.update(kernels=_kernel_facts(outputs["kernel_stats"]),
                             convolutions=_convolution_facts(outputs["op_profile"]))
            except ConversionError as error:
                facts["device_error"] = str(error)
        reply: dict[str, Any] = {"facts": facts}
    except ConversionError as error:
        reply = {"error": str(error)}
    json.dump(reply, sys.stdout)


def _run_tools(captures: list[str], tools: tuple[str, ...]) -> dict[str, Any]:
    from xprof.convert import _pywrap_profiler_plugin

    outputs: dict[str, Any] = {}
    for tool in tools:
        raw, ok = _pywrap_profiler_plugin.xspace_to_tools_data(captures, tool, {})
        if not ok:
            text = raw.decode(errors="replace") if isinstance(raw, bytes) else str(raw)
            raise ConversionError(text.strip() or f"{tool} conversion failed")
        outputs[tool] = json.loads(raw) if raw else None
    return outputs


def _table_rows(table: dict[str, Any]) -> list[dict[str, Any]]:
    """A gviz DataTable's rows as dicts keyed by column id."""
    ids = [c.get("id") for c in table.get("cols", [])]
    return [dict(zip(ids, (cell.get("v") if cell else None for cell in row.get("c", [])))) for row in
            table.get("rows", [])]


def empty_overview() -> dict[str, Any]:
    """The overview facts of a capture without steps, or of one the converter did not read."""
    return _overview_facts(None)


def _overview_facts(overview: list[dict[str, Any]] | None) -> dict[str, Any]:
    """overview_page: [0] run environment percents, [1] step time summary + one row per step, [2] hosts/devices,
    [3] the bottleneck analysis (classes and statements)."""
    if not overview:
        return {"step_summary": {}, "step_rows": 0, "bottleneck": {}, "environment": {}, "device": {}}
    return {
        "device": overview[0].get("p", {}),
        "step_summary": overview[1].get("p", {}),
        "step_rows": len(overview[1].get("rows", [])),
        "environment": overview[2].get("p", {}),
        "bottleneck": overview[3].get("p", {}),
    }


def _iterator_facts(pipeline: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """input_pipeline_analyzer [2]: one row per runtime iterator, times in ms."""
    if not pipeline or len(pipeline) < 3:
        return []
    return [
        {"name": r["opName"], "count": int(r["count"] or 0), "time_ms": r["timeInMs"] or 0.0,
         "self_time_ms": r["selfTimeInMs"] or 0.0}
        for r in _table_rows(pipeline[2])
    ]


def _op_facts(op_stats: list[dict[str, Any]] | dict[str, Any] | None) -> dict[str, Any]:
    """framework_op_stats (first table): the top ops by self time, the total self time per side ("Host",
    "Device") without IDLE, which shares are relative to (the converter's own percentages include idle time), and
    every op type that ran."""
    if not op_stats:
        return {"top": [], "total_self_us": {}, "types": []}
    table = op_stats[0] if isinstance(op_stats, list) else op_stats
    rows = [r for r in _table_rows(table) if r.get("type") != "IDLE"]
    rows.sort(key=lambda r: r.get("total_self_time") or 0.0, reverse=True)
    totals: dict[str, float] = {}
    for r in rows:
        totals[r["host_or_device"]] = totals.get(r["host_or_device"], 0.0) + (r.get("total_self_time") or 0.0)
    top = [
        {"host_or_device": r["host_or_device"], "op_type": r["type"], "name": r["operation"],
         "occurrences": int(r.get("occurrences") or 0), "self_time_us": r.get("total_self_time") or 0.0}
        for r in rows[:TOP_OPS_KEPT]
    ]
    return {"top": top, "total_self_us": totals, "types": sorted({r["type"] for r in rows})}


def _kernel_facts(kernels: dict[str, Any] | None) -> list[dict[str, Any]]:
    """kernel_stats: per GPU kernel, whether its op could use tensor cores and whether the kernel did."""
    return [
        {"kernel": r["kernel_name"], "op_name": r["op_name"], "eligible": bool(r["is_op_tensor_core_eligible"]),
         "used": bool(r["is_kernel_using_tensor_core"]), "total_us": r["total_duration_us"] or 0.0}
        for r in _table_rows(kernels or {})
    ]


def _convolution_facts(op_profile: dict[str, Any] | None) -> list[dict[str, Any]]:
    """op_profile: convolution instructions with their layout (dimension order and padding as XLA reports it)."""
    found: list[dict[str, Any]] = []

    def walk(node: dict[str, Any]) -> None:
        xla = node.get("xla") or {}
        if "convolution" in (xla.get("category", "") + " " + node.get("name", "")).lower() and xla.get("layout"):
            found.append({"name": node.get("name", ""), "layout": xla["layout"],
                          "time_ps": (node.get("metrics") or {}).get("rawTime", 0)})
        for child in node.get("children", []):
            walk(child)

    walk((op_profile or {}).get("byCategory", {}))
    return found


if __name__ == "__main__":
    _serve()
