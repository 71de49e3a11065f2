"""Markdown for pull-request comments: a summary table of the findings, then one section per finding with its diff."""

from __future__ import annotations

import re

from ..model import Report
from .text import summary_line
from .view import finding_view, make_environment, profile_view

# Outside code spans these would start emphasis, links, tables or (on GitHub) HTML that the sanitizer drops.
_SPECIAL = re.compile(r"([\\*_\[\]<|~])")
_CODE_SPAN = re.compile(r"(`[^`\n]*`)")


def markdown_text(text: str) -> str:
    """Plain text as Markdown that shows it as it is; `code spans` in it (rule messages use them) stay code."""
    parts = _CODE_SPAN.split(str(text))
    return "".join(part if i % 2 else _SPECIAL.sub(r"\\\1", part) for i, part in enumerate(parts))


def table_cell(text: str) -> str:
    """Text for one table cell: Markdown-escaped, on one line."""
    return markdown_text(" ".join(str(text).split()))


def code_span(text: str, in_table: bool = False) -> str:
    """Text as one inline code span, delimited by more backticks than any run inside it (CommonMark's rule).

    In a table a pipe ends the cell even inside code, so there it is escaped (GitHub shows it without the slash).
    """
    text = " ".join(str(text).split())
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    padded = f" {text} " if text.startswith("`") or text.endswith("`") else text
    return f"{fence}{padded}{fence}".replace("|", "\\|") if in_table else f"{fence}{padded}{fence}"


def code_block(text: str, language: str = "") -> str:
    """A fenced block whose fence is longer than any backtick run inside, so no content can close it early."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text.rstrip(chr(10))}\n{fence}"


def bar(pct: float, width: int = 20) -> str:
    return "█" * round(max(0.0, min(pct, 100.0)) / 100 * width)


_ENV = make_environment(False, md=markdown_text, cell=table_cell, code=code_span, code_block=code_block, bar=bar)


def render_markdown(report: Report) -> str:
    return _ENV.get_template("report.md.j2").render(
        summary=summary_line(report),
        profile=profile_view(report),
        findings=[finding_view(f) for f in report.findings],
        warnings=report.warnings,
    )
