"""Every output format as a string, and writing one to a file so that readers never see half a report."""

from __future__ import annotations

import importlib
import io
import json
from pathlib import Path

from rich.console import Console

from ..engine import Report
from ..errors import InputError
from ..state import write_atomically

# Format name -> (module, function); modules load on use, so a plain text run never imports jinja2.
RENDERERS = {
    "text": ("advisor.report.formats", "render_text"),
    "json": ("advisor.report.formats", "render_json"),
    "sarif": ("advisor.report.sarif", "render_sarif"),
    "github": ("advisor.report.github", "render_github"),
    "markdown": ("advisor.report.markdown", "render_markdown"),
    "html": ("advisor.report.html", "render_html"),
}


def render(report: Report, output_format: str) -> str:
    module, function = RENDERERS[output_format]
    return getattr(importlib.import_module(module), function)(report)


def render_text(report: Report) -> str:
    """The terminal report without colour, for files."""
    from .text import render_report

    buffer = io.StringIO()
    render_report(report, Console(file=buffer, force_terminal=False, no_color=True, highlight=False,
                                  soft_wrap=True))
    return buffer.getvalue()


def render_json(report: Report) -> str:
    return json.dumps(report.to_json(), indent=2) + "\n"


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same directory and a rename: a CI step or a
    browser reading the file sees the old report or the new one, never a truncated one. An existing report keeps
    its permission bits."""
    directory = path.parent
    if not directory.is_dir():
        raise InputError(f"{path}: directory {directory} does not exist")
    if path.is_dir():
        raise InputError(f"{path}: is a directory")
    mode = path.stat().st_mode & 0o777 if path.exists() else None
    write_atomically(path, text.encode("utf-8"), mode)
