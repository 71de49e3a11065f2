"""A self-contained HTML report: the profile with its step-time breakdown and tf.data iterators drawn as inline SVG,
then the findings with their source, evidence, expected speedup and diff. No scripts, no external assets: the file
opens anywhere, offline, and can be attached to a CI run as is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from markupsafe import Markup, escape

from .. import __version__
from ..model import Report
from ..profile.facts import Iterator
from .text import summary_line
from .view import Segment, finding_view, make_environment, profile_view, source_snippet

# Okabe-Ito colours (distinguishable with colour-blindness), each with the text colour that reads on it.
CATEGORY_COLOURS = {
    "input": ("#E69F00", "#000"),
    "host_compute": ("#56B4E9", "#000"),
    "device_compute": ("#009E73", "#fff"),
    "kernel_launch": ("#CC79A7", "#000"),
    "compile": ("#0072B2", "#fff"),
    "outside_step": ("#D55E00", "#fff"),
    "other": ("#999999", "#000"),
}
UNKNOWN_COLOUR = ("#666666", "#fff")

CHART_WIDTH = 1000  # SVG user units; the chart scales to the page width
MAX_ITERATORS = 15  # the slowest; the rest are noise next to them
ITERATOR_NAME_CHARS = 44


@dataclass(frozen=True)
class Bar:
    label: str
    pct: float
    x: float
    width: float
    fill: str
    text_fill: str
    labelled: bool  # wide enough to carry its percentage inside


def breakdown_bars(segments: list[Segment]) -> list[Bar]:
    """One horizontal stacked bar. Shares are drawn out of 100% (or their sum, if a rounding pushes it over), so a
    breakdown that leaves time unaccounted shows the gap instead of stretching."""
    scale = CHART_WIDTH / max(100.0, sum(s.pct for s in segments))
    bars, x = [], 0.0
    for segment in segments:
        fill, text_fill = CATEGORY_COLOURS.get(segment.key, UNKNOWN_COLOUR)
        width = segment.pct * scale
        bars.append(Bar(segment.label, segment.pct, round(x, 2), round(width, 2), fill, text_fill, width >= 70))
        x += width
    return bars


@dataclass(frozen=True)
class IteratorBar:
    row: Iterator
    short_name: str
    y: int
    width: float


ITERATOR_ROW = 26
ITERATOR_BAR_X, ITERATOR_BAR_MAX = 360, 340


def iterator_bars(rows: list[Iterator]) -> list[IteratorBar]:
    """The slowest iterators, each with a bar scaled to the slowest one's self time."""
    shown = rows[:MAX_ITERATORS]
    longest = max((r.self_time_ms for r in shown), default=0.0) or 1.0
    return [IteratorBar(row, shorten(row.name), 32 + i * ITERATOR_ROW,
                        round(row.self_time_ms / longest * ITERATOR_BAR_MAX, 2))
            for i, row in enumerate(shown)]


def shorten(name: str, limit: int = ITERATOR_NAME_CHARS) -> str:
    """Iterator names grow at the front (``Iterator::Root::Prefetch::BatchV2::Map``): the end says which stage,
    and the ``Iterator::`` every name starts with says nothing."""
    name = name.removeprefix("Iterator::")
    return name if len(name) <= limit else "…" + name[-(limit - 1):]


def inline_code(text: str) -> Markup:
    """Escaped text in which `code spans` (rule messages use them) become <code> elements."""
    escaped = str(escape(text))  # escape first: only our own tags are added after
    return Markup(re.sub(r"`([^`\n]+)`", r"<code>\1</code>", escaped))


def diff_class(line: str) -> str:
    if line.startswith(("+++", "---")):
        return "file"
    return {"+": "add", "-": "del", "@": "hunk"}.get(line[:1], "ctx")


_ENV = make_environment(True, inline_code=inline_code, diff_class=diff_class)


def render_html(report: Report) -> str:
    profile = profile_view(report)
    return _ENV.get_template("report.html.j2").render(
        version=__version__,
        repo=str(report.repo),
        summary=summary_line(report),
        profile=profile,
        breakdown=breakdown_bars(profile.breakdown) if profile else [],
        iterators=iterator_bars(profile.iterators) if profile else [],
        hidden_iterators=max(0, len(profile.iterators) - MAX_ITERATORS) if profile else 0,
        chart_width=CHART_WIDTH,
        iterator_row=ITERATOR_ROW,
        iterator_bar_x=ITERATOR_BAR_X,
        findings=[(finding_view(f), source_snippet(report, f)) for f in report.findings],
        warnings=report.warnings,
    )
