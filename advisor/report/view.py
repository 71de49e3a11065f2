"""What the file formats (SARIF, GitHub, Markdown, HTML) share: display fields of a finding, a defensive reading of
the profile's JSON, source snippets, and the jinja2 environment.

The profile is read from ``ProfileFindings.to_json()`` only, and every key is optional: the formats render what a
capture provides and leave out the rest, so an older or partial profile never breaks a report.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import jinja2

from ..model import Report
from ..model import Confidence, Finding, SpeedupEstimate

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


@dataclass(frozen=True)
class IteratorRow:
    name: str
    self_time_ms: float | None
    count: int | None
    parallelism: Any
    autotune: Any


@dataclass
class ProfileView:
    """The parts of a profile the reports show, each None or empty when the capture lacks it."""

    hardware: str | None = None
    step_count: int | None = None
    step_source: str | None = None
    step_time_ms: dict[str, float] = field(default_factory=dict)
    bottleneck: str | None = None
    breakdown: list[Segment] = field(default_factory=list)
    iterators: list[IteratorRow] = field(default_factory=list)
    has_prefetch: bool | None = None
    dominant_stage: str | None = None
    top_ops: list[dict[str, Any]] = field(default_factory=list)


def profile_view(report: Report) -> ProfileView | None:
    if report.profile is None:
        return None
    data = report.profile.to_json()
    return read_profile(data) if isinstance(data, Mapping) else None


def read_profile(data: Mapping[str, Any]) -> ProfileView:
    steps = _mapping(data.get("steps"))
    step_time = {k: v for k, v in _mapping(steps.get("step_time_ms")).items() if _is_number(v)}
    breakdown = _mapping(data.get("breakdown_pct"))
    # Known categories first, in step order; any category a newer profile adds still shows, after them.
    keys = [k for k in BREAKDOWN_LABELS if k in breakdown] + [k for k in breakdown if k not in BREAKDOWN_LABELS]
    segments = [Segment(k, BREAKDOWN_LABELS.get(k, k.replace("_", " ").capitalize()), float(breakdown[k]))
                for k in keys if _is_number(breakdown[k]) and breakdown[k] > 0]
    pipeline = _mapping(data.get("input_pipeline"))
    iterators = [IteratorRow(str(it.get("name", "?")), _number(it.get("self_time_ms")), _number(it.get("count")),
                             it.get("parallelism"), it.get("autotune"))
                 for it in _list(pipeline.get("iterators")) if isinstance(it, Mapping)]
    iterators.sort(key=lambda it: -(it.self_time_ms or 0.0))
    return ProfileView(
        hardware=_text(data.get("hardware")),
        step_count=_number(steps.get("count")),
        step_source=_text(steps.get("source")),
        step_time_ms=step_time,
        bottleneck=_text(data.get("bottleneck")),
        breakdown=segments,
        iterators=iterators,
        has_prefetch=pipeline.get("has_prefetch") if isinstance(pipeline.get("has_prefetch"), bool) else None,
        dominant_stage=_text(pipeline.get("dominant_stage")),
        top_ops=[dict(op) for op in _list(data.get("top_ops")) if isinstance(op, Mapping)],
    )


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, (list, tuple)) else []


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _number(value: Any) -> Any:
    return value if _is_number(value) else None


def _text(value: Any) -> str | None:
    """Strings as they are; a mapping (e.g. hardware details or a bottleneck with a message) as its main text."""
    if value is None or value == "":
        return None
    if isinstance(value, Mapping):
        for key in ("message", "statement", "summary", "kind", "type", "name"):
            if value.get(key):
                return str(value[key])
        return ", ".join(f"{k}: {v}" for k, v in value.items()) or None
    return str(value)


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
