"""The text summary of a profile, printed above the findings: what was read, steps, breakdown, bottleneck,
eager dispatch and tracing, top iterators and ops. Rich decides about colour: none when the console is not a
terminal."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from ..profile.facts import ProfileFindings

ROWS_SHOWN = 5


def render_profile_summary(findings: ProfileFindings, console: Console) -> None:
    steps = findings.steps
    step_time = steps.step_time_ms
    source = "step markers" if steps.source == "markers" else f"recovered from the trace ({steps.kind})"
    hosts = f"{len(findings.hosts)} hosts" if len(findings.hosts) > 1 else findings.hosts[0]
    console.print(f"[bold]Profile[/bold] {findings.path} (run {findings.run}, {hosts})")
    console.print(f"Hardware: {findings.hardware.type} ({', '.join(findings.hardware.devices)})")
    console.print(f"Steps: {steps.count}, {source}; step time {step_time.avg:.1f} ms avg "
                  f"(sd {step_time.stddev:.1f}, min {step_time.min:.1f}, max {step_time.max:.1f})")
    parts = ", ".join(f"{name.replace('_', ' ')} {pct:.1f}%" for name, pct in findings.breakdown_pct.items()
                      if pct >= 0.05)
    console.print(f"Breakdown ({findings.breakdown_source}): {parts}")
    console.print(f"Bottleneck: input {findings.bottleneck.input_class}. {findings.bottleneck.statement}")
    if findings.host_gaps:
        console.print(f"Host gaps between steps: {findings.host_gaps.avg_ms:.1f} ms avg "
                      f"({findings.host_gaps.share_pct:.1f}% of wall time)")
    eager = findings.eager
    console.print(f"Eager dispatch: {eager.ops_per_step:.0f} ops per step from Python; {eager.share_pct:.0f}% of the "
                  f"step outside kernels")
    traced = [f for f in findings.tracing if f.traces]
    if traced:
        console.print("Traced during the capture: " + ", ".join(
            f"{f.function} {f.traces}x in {f.calls} calls ({f.tracing_ms:.0f} ms)" for f in traced))

    pipeline = findings.input_pipeline
    if pipeline.iterators:
        table = Table(title=f"Input pipeline (prefetch: {'yes' if pipeline.has_prefetch else 'no'})",
                      title_justify="left")
        for column in ("iterator", "self ms", "calls", "parallelism", "autotune"):
            table.add_column(column, justify="left" if column == "iterator" else "right")
        for it in pipeline.iterators[:ROWS_SHOWN]:
            table.add_row(it.name, f"{it.self_time_ms:.1f}", str(it.count), _optional(it.parallelism),
                          _optional(it.autotune))
        console.print(table)
    if findings.top_ops:
        table = Table(title="Top ops by self time", title_justify="left")
        for column in ("op type", "name", "self ms", "share"):
            table.add_column(column, justify="left" if column in ("op type", "name") else "right")
        for op in findings.top_ops[:ROWS_SHOWN]:
            table.add_row(op.op_type + (" (Python)" if op.is_py_func else ""), op.name, f"{op.self_time_ms:.1f}",
                          f"{op.share_pct:.1f}%")
        console.print(table)
    if findings.host_gaps and findings.host_gaps.frames:
        table = Table(title="Python between steps (python tracer)", title_justify="left")
        for column in ("frame", "total ms", "calls"):
            table.add_column(column, justify="left" if column == "frame" else "right")
        for frame in findings.host_gaps.frames[:ROWS_SHOWN]:
            table.add_row(frame.frame, f"{frame.total_ms:.1f}", str(frame.count))
        console.print(table)
    for warning in findings.warnings:
        console.print(f"warning: {warning}")


def _optional(value: object) -> str:
    return "-" if value is None else str(value).lower()
