"""Building :class:`~advisor.profile.facts.ProfileFindings` from what the converters and the raw trace read.

Two sources (see ``convert.py`` and ``trace.py``): the profiler plugin's converters, which own the step
breakdown and bottleneck classification whenever the capture has step markers, and the raw trace, which supplies
steps when there are no markers (Keras 3 ``fit`` emits none) plus what the converters do not report (iterator
parallelism/autotune, host gaps, Python frames). Percentages are 0-100; times are milliseconds unless named ``_us``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from advisor.profile import trace
from advisor.profile.facts import (Bottleneck, Convolution, Device, Eager, Hardware, HostGaps, InputPipeline,
                                   Iterator, Memory, Op, ProfileFindings, PythonFrame, Steps, StepTime,
                                   TracedFunction)

# XProf's thresholds (input: % of step time waiting for input; kernel launch and all-other likewise).
INPUT_HIGH_PCT, INPUT_MODERATE_PCT = 20.0, 5.0
OTHER_HIGH_PCT, OTHER_MODERATE_PCT = 15.0, 3.0
PY_FUNC_OP_TYPES = frozenset({"EagerPyFunc", "PyFunc", "PyFuncStateless"})
PREFETCH_STAGES = frozenset({"Prefetch"})
TOP_OPS_SHOWN = 10


def build_findings(path: Path, run: str, hosts: list[str], tools: dict[str, Any], trace_facts: dict[str, Any],
                   warnings: list[str]) -> ProfileFindings:
    """Combine converter facts (the conversion's result, or the same facts read from the trace when ``from_trace``
    is set in them: see ``tool_facts.py``) and one host's trace facts (``trace.read_trace_facts``).

    Raises ValueError when the capture has no steps (the caller turns it into an InputError naming the file).
    """
    overview = tools["overview"]
    summary = overview["step_summary"]
    recovered = trace.recover_steps(trace_facts)
    if recovered is None:
        raise ValueError("no training steps found (no step markers, Keras step calls, or tf.data GetNext calls on "
                         "the python thread)")
    converter_has_steps = recovered.source == "markers" and _num(summary, "steptime_ms_average") > 0

    if converter_has_steps:
        steps = Steps(
            count=overview["step_rows"], source="markers", kind="markers",
            step_time_ms=StepTime(_num(summary, "steptime_ms_average"), _num(summary, "steptime_ms_standard_deviation"),
                                  _num(summary, "steptime_ms_minimum"), _num(summary, "steptime_ms_maximum")))
        breakdown = _converter_breakdown(summary, recovered)
        bottleneck = _converter_bottleneck(summary, overview["bottleneck"])
    else:
        durations = recovered.durations_ms
        steps = Steps(count=len(durations), source=recovered.source, kind=recovered.kind,
                      step_time_ms=StepTime(**trace.step_time_summary(durations)))
        breakdown = trace.trace_breakdown_pct(recovered, trace_facts["input_waits"])
        bottleneck = _trace_bottleneck(breakdown, recovered.source)

    gaps = trace_facts["host_gaps"]
    memory = tools["memory"]
    return ProfileFindings(
        path=str(path), run=run, hosts=hosts,
        hardware=Hardware(type=summary.get("hardware_type") or ("GPU" if trace_facts["device_planes"] else "CPU_ONLY"),
                          devices=trace_facts["device_planes"] or trace_facts["hostnames"]),
        steps=steps, breakdown_pct=breakdown, breakdown_source="converter" if converter_has_steps else "trace",
        bottleneck=bottleneck,
        input_pipeline=_input_pipeline(tools["iterators"], trace_facts["iterators"]),
        top_ops=_top_ops(tools["ops"]),
        op_types=tools["ops"]["types"],
        host_gaps=HostGaps(gaps["avg_ms"], gaps["share_pct"], [PythonFrame(**f) for f in gaps["frames"]])
        if gaps else None,
        eager=Eager(**trace_facts["eager"]),
        tracing=[TracedFunction(**f) for f in trace_facts["tracing"]],
        memory=Memory(peak_bytes=max(memory.values(), default=0), by_allocator=memory),
        # Device facts come from the converter's device tools only.
        device=_device(tools, breakdown) if trace_facts["device_planes"] and not tools.get("from_trace") else None,
        warnings=warnings,
    )


def _num(values: dict[str, Any], key: str) -> float:
    """The converters report numbers as strings, some with a ``%`` sign."""
    text = str(values.get(key, "") or "").rstrip("%")
    try:
        return float(text)
    except ValueError:
        return 0.0


def _converter_breakdown(summary: dict[str, Any], recovered: trace.RecoveredSteps) -> dict[str, float]:
    """The converter's average step breakdown, plus the (trace-measured) gap between marked steps."""
    parts_ms = {
        "input": _num(summary, "infeed_time_ms_avg"),
        "host_compute": _num(summary, "host_compute_time_ms_avg"),
        "device_compute": _num(summary, "device_compute_time_ms_avg"),
        "kernel_launch": _num(summary, "kernel_launch_time_ms_avg"),
        "compile": _num(summary, "compile_time_ms_avg"),
        "outside_step": sum(recovered.outside_ps) / len(recovered.outside_ps) / trace.PS_PER_MS,
        "other": sum(_num(summary, k) for k in ("other_time_ms_avg", "outfeed_time_ms_avg",
                                                 "device_to_device_time_ms_avg", "device_collectives_time_ms_avg")),
    }
    total = sum(parts_ms.values())
    return {k: 100.0 * v / total if total else 0.0 for k, v in parts_ms.items()}


def _class(pct: float, high: float, moderate: float) -> str:
    return "high" if pct >= high else "moderate" if pct >= moderate else "low"


# The converter states the input class in words ("HIGHLY input-bound", "MODERATELY ...", "NOT input-bound").
_INPUT_CLASS_WORDS = {"HIGHLY": "high", "MODERATELY": "moderate", "NOT": "low"}
_CONVERTER_CLASSES = {"high": "high", "moderate": "moderate", "no": "low", "": "low"}


def _converter_bottleneck(summary: dict[str, Any], analysis: dict[str, Any]) -> Bottleneck:
    conclusion = summary.get("input_conclusion", "")
    step_ms = _num(summary, "steptime_ms_average")
    input_pct = 100.0 * _num(summary, "infeed_time_ms_avg") / step_ms if step_ms else 0.0
    word = re.search(r"\b(HIGHLY|MODERATELY|NOT)\b", conclusion)
    return Bottleneck(
        input_class=_INPUT_CLASS_WORDS[word.group(1)] if word else _class(input_pct, INPUT_HIGH_PCT,
                                                                         INPUT_MODERATE_PCT),
        input_pct=input_pct,
        kernel_launch_class=_CONVERTER_CLASSES.get(analysis.get("kernel_launch_bottleneck", ""), "low"),
        all_other_class=_CONVERTER_CLASSES.get(analysis.get("all_other_bottleneck", ""), "low"),
        statement=analysis.get("statement") or conclusion,
        source="converter",
    )


def _trace_bottleneck(breakdown: dict[str, float], step_source: str) -> Bottleneck:
    input_pct = breakdown["input"]
    steps = ("steps recovered from the trace; the capture has no step markers" if step_source == "trace"
             else "steps timed by advisor from the capture's step markers")
    input_class = _class(input_pct, INPUT_HIGH_PCT, INPUT_MODERATE_PCT)
    degree = {"high": "HIGHLY", "moderate": "MODERATELY", "low": "NOT"}[input_class]
    return Bottleneck(
        input_class=input_class, input_pct=input_pct,
        kernel_launch_class=_class(breakdown["kernel_launch"], OTHER_HIGH_PCT, OTHER_MODERATE_PCT),
        all_other_class=_class(breakdown["other"], OTHER_HIGH_PCT, OTHER_MODERATE_PCT),
        statement=f"Your program is {degree} input-bound because {input_pct:.1f}% of the total step time sampled "
                  f"is waiting for input ({steps}).",
        source="trace",
    )


def _input_pipeline(converted: list[dict[str, Any]], runtime_stats: dict[str, dict[str, Any]]) -> InputPipeline:
    """The converter's per-iterator times joined with the trace's per-iterator settings, by iterator name."""
    times = {row["name"]: row for row in converted}
    iterators = []
    for name in sorted(set(times) | set(runtime_stats)):
        row, stats = times.get(name, {}), runtime_stats.get(name, {})
        iterators.append(Iterator(
            name=name, stage=name.rsplit("::", 1)[-1], dataset=stats.get("name"), count=row.get("count", 0),
            time_ms=row.get("time_ms", 0.0), self_time_ms=row.get("self_time_ms", 0.0),
            parallelism=stats.get("parallelism"), autotune=stats.get("autotune"),
            batch_size=stats.get("batch_size"), buffer_size=stats.get("buffer_size", stats.get("buffer_limit"))))
    iterators.sort(key=lambda it: it.self_time_ms, reverse=True)
    stages = [it for it in iterators if it.stage != "Root"]
    return InputPipeline(
        iterators=iterators,
        has_prefetch=any(it.stage in PREFETCH_STAGES for it in iterators),
        dominant_stage=stages[0].stage if stages else None,
        cpu_budget=next((stats["cpu_budget"] for stats in runtime_stats.values() if stats.get("cpu_budget")), None),
    )


def _top_ops(ops: dict[str, Any]) -> list[Op]:
    totals = ops["total_self_us"]
    return [
        Op(op_type=o["op_type"], name=o["name"], host_or_device=o["host_or_device"], occurrences=o["occurrences"],
           self_time_ms=o["self_time_us"] / 1000.0,
           share_pct=100.0 * o["self_time_us"] / totals[o["host_or_device"]] if totals.get(o["host_or_device"])
           else 0.0,
           is_py_func=o["op_type"] in PY_FUNC_OP_TYPES)
        for o in ops["top"][:TOP_OPS_SHOWN]
    ]


def _device(tools: dict[str, Any], breakdown: dict[str, float]) -> Device:
    kernels = tools.get("kernels", [])
    eligible = {k["op_name"] for k in kernels if k["eligible"]}
    used = {k["op_name"] for k in kernels if k["eligible"] and k["used"]}
    environment = tools["overview"]["device"]
    return Device(
        compute_share_pct=breakdown["device_compute"],
        compute_16bit_pct=_num(environment, "device_compute_16bit_percent")
        if "device_compute_16bit_percent" in environment else None,
        tensor_core_eligible_ops=len(eligible),
        tensor_core_used_ops=len(used),
        eligible_not_using=sorted(eligible - used),
        convolutions=[Convolution(**c) for c in tools.get("convolutions", [])],
    )
