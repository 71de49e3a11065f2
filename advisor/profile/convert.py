"""Running the profiler plugin's own converters (xprof) on a capture, and keeping only what advisor reads.

The converters write cache files beside their input (``ALL_HOSTS.op_stats_v2.pb``, ...), so they run on a copy in a
temporary directory, never on the user's files. All tools run in that one directory on purpose: the first one
(``overview_page``) builds the combined op stats and the following ones reuse them, which makes them nearly free.
The low-level ``xspace_to_tools_data`` is used because it returns the converter's error text, which the
high-level ``raw_to_tool_data`` hides.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Iterator

# Always needed. On captures with a device plane, DEVICE_TOOLS too (they are empty on CPU-only captures).
HOST_TOOLS = ("overview_page", "input_pipeline_analyzer", "framework_op_stats", "memory_profile")
DEVICE_TOOLS = ("kernel_stats", "op_profile")
PER_HOST_TOOLS = frozenset({"memory_profile"})  # it refuses more than one XSpace; it runs once per host
TOP_OPS_KEPT = 25  # framework_op_stats rows kept (by self time); the rest never reach a report


class ConversionError(Exception):
    """A converter rejected the capture; the message is the converter's own text."""


def converter_version() -> str:
    from importlib.metadata import version

    return version("xprof")


def convert(captures: list[Path]) -> dict[str, Any]:
    """Run the host tools on copies of ``captures`` (one run's hosts) and return the facts advisor uses from them:
    ``{"overview": ..., "iterators": [...], "ops": {...}, "memory": {...}}`` (see the ``_*_facts`` functions).
    Raises ConversionError with the converter's message."""
    outputs = _run_tools(captures, HOST_TOOLS)
    return {
        "overview": _overview_facts(outputs["overview_page"]),
        "iterators": _iterator_facts(outputs["input_pipeline_analyzer"]),
        "ops": _op_facts(outputs["framework_op_stats"]),
        "memory": _memory_facts(outputs["memory_profile"]),
    }


def convert_device(captures: list[Path]) -> dict[str, Any]:
    """The device tools, for captures with a GPU/TPU plane: ``{"kernels": [...], "convolutions": [...]}``."""
    outputs = _run_tools(captures, DEVICE_TOOLS)
    return {"kernels": _kernel_facts(outputs["kernel_stats"]),
            "convolutions": _convolution_facts(outputs["op_profile"])}


def _run_tools(captures: list[Path], tools: tuple[str, ...]) -> dict[str, Any]:
    from xprof.convert import _pywrap_profiler_plugin

    outputs: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="advisor-convert-") as scratch, _native_stderr_silenced():
        copies = []
        for capture in captures:
            copy = Path(scratch) / capture.name
            shutil.copyfile(capture, copy)
            copies.append(str(copy))
        for tool in tools:
            inputs = [[copy] for copy in copies] if tool in PER_HOST_TOOLS else [copies]
            results = []
            for paths in inputs:
                raw, ok = _pywrap_profiler_plugin.xspace_to_tools_data(paths, tool, {})
                if not ok:
                    text = raw.decode(errors="replace") if isinstance(raw, bytes) else str(raw)
                    raise ConversionError(text.strip() or f"{tool} conversion failed")
                results.append(json.loads(raw) if raw else None)
            outputs[tool] = results if tool in PER_HOST_TOOLS else results[0]
    return outputs


@contextlib.contextmanager
def _native_stderr_silenced() -> Iterator[None]:
    """The converters log every stage to the process' stderr (fd 2); a CLI run must not show that."""
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _table_rows(table: dict[str, Any]) -> list[dict[str, Any]]:
    """A gviz DataTable's rows as dicts keyed by column id."""
    ids = [c.get("id") for c in table.get("cols", [])]
    return [dict(zip(ids, (cell.get("v") if cell else None for cell in row.get("c", [])))) for row in
            table.get("rows", [])]


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
    """framework_op_stats (first table): the top ops by self time, and the total self time per side ("Host",
    "Device") without IDLE, which shares are relative to (the converter's own percentages include idle time)."""
    if not op_stats:
        return {"top": [], "total_self_us": {}}
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
    return {"top": top, "total_self_us": totals}


def _memory_facts(per_host: list[dict[str, Any] | None]) -> dict[str, int]:
    """memory_profile (one output per host): the peak bytes in use per allocator (e.g. ``mklcpu``,
    ``GPU_0_bfc``), the highest over hosts."""
    peaks: dict[str, int] = {}
    for memory in per_host:
        for name, profile in (memory or {}).get("memoryProfilePerAllocator", {}).items():
            peak = int(profile.get("profileSummary", {}).get("peakStats", {}).get("peakBytesInUse", 0))
            peaks[name] = max(peaks.get(name, 0), peak)
    return peaks


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
