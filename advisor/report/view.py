"""What the file formats (SARIF, GitHub, Markdown, HTML) share: display fields of a finding, the profile as the
reports show it, source snippets, and the jinja2 environment."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import jinja2

from ..model import Confidence, Finding, Report, SpeedupEstimate
from ..profile.facts import Iterator

# Step-time categories in the order a step spends them, with the labels people read.
BREAKDOWN_LABELS = {
    "input": "Input",
    "host_compute": "Host compute",
    "device_compute": "Device compute",
    "kernel_launch": "Kernel launch",
    "compile": "Compile",
    "outside_step": "Outside step",
    "other": "Other",
}


def severity(confidence: Confidence) -> str:
    """SARIF's level for a finding: ``possible`` ones are notes, so CI can gate on the rest."""
    return "note" if confidence is Confidence.POSSIBLE else "warning"


def speedup_text(speedup: SpeedupEstimate | None) -> str:
    return f"{speedup.low:.2f}x-{speedup.high:.2f}x" if speedup is not None else ""


def finding_view(finding: Finding) -> dict[str, Any]:
    """The finding's JSON contract plus the fields every format displays the same way."""
    data = finding.to_json()
    data["where"] = finding.location.display
    data["speedup_text"] = speedup_text(finding.speedup)
    return data


@dataclass(frozen=True)
class SourceLine:
    number: int
    text: str
    marked: bool


def source_snippet(report: Report, finding: Finding, context: int = 3) -> list[SourceLine]:
    """The lines around a finding, read from the repo now; empty when the file is gone or unreadable."""
    location = finding.location
    try:
        lines = (report.repo / location.path).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    first = max(1, location.line - context)
    last = min(len(lines), location.end_line + context)
    return [SourceLine(n, lines[n - 1], location.line <= n <= location.end_line) for n in range(first, last + 1)]


@dataclass(frozen=True)
class Segment:
    key: str
    label: str
    pct: float


@dataclass
class ProfileView:
    """The parts of a profile the reports show, in the words they show them."""

    hardware: str
    step_count: int
    step_source: str
    step_time_ms: dict[str, float]
    bottleneck: str
    breakdown: list[Segment]
    iterators: list[Iterator]  # slowest first
    has_prefetch: bool
    dominant_stage: str | None


def profile_view(report: Report) -> ProfileView | None:
    profile = report.profile
    if profile is None:
        return None
    steps, step_time = profile.steps, profile.steps.step_time_ms
    return ProfileView(
        hardware=profile.hardware.type,
        step_count=steps.count,
        step_source=steps.source,
        step_time_ms={"avg": step_time.avg, "stddev": step_time.stddev, "min": step_time.min, "max": step_time.max},
        bottleneck=profile.bottleneck.statement,
        breakdown=[Segment(key, BREAKDOWN_LABELS.get(key, key.replace("_", " ").capitalize()), pct)
                   for key, pct in profile.breakdown_pct.items() if pct > 0],
        iterators=sorted(profile.input_pipeline.iterators, key=lambda it: -it.self_time_ms),
        has_prefetch=profile.input_pipeline.has_prefetch,
        dominant_stage=profile.input_pipeline.dominant_stage,
    )


def make_environment(autoescape: bool, **filters: Callable[..., Any]) -> jinja2.Environment:
    """Templates from advisor/templates; HTML ones escape every value, Markdown ones take text as it is."""
    env = jinja2.Environment(loader=jinja2.PackageLoader("advisor", "templates"), autoescape=autoescape,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True)
    env.filters.update(number=number_text, **filters)
    return env


def number_text(value: Any, digits: int = 1) -> str:
    """Measurements for people: floats to ``digits`` places, integers as they are, a dash for unknown."""
    if isinstance(value, bool) or value is None:
        return "-" if value is None else str(value).lower()
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    return f"{value:,}" if isinstance(value, int) else str(value)
