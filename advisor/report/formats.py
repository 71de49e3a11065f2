"""Every output format as a string, and writing one to a file so that readers never see half a report."""

from __future__ import annotations

import importlib
import io
import json
from pathlib import Path

from rich.console import Console

from ..errors import InputError
from ..files import write_output
from ..model import Report

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
                                  soft_wrap=True, emoji=False))
    return buffer.getvalue()


def render_json(report: Report) -> str:
    return json.dumps(report.to_json(), indent=2) + "\n"


def write_report(path: Path, text: str) -> None:
    """Write a report where the user asked (``--output``): see :func:`advisor.files.write_output`."""
    if path.is_dir():
        raise InputError(f"{path}: is a directory")
    if not path.parent.is_dir():
        raise InputError(f"{path}: directory {path.parent} does not exist")
    try:
        write_output(path, text.encode("utf-8"))
    except OSError as exc:
        raise InputError(f"{path}: cannot write the report: {exc.strerror or exc}") from None
