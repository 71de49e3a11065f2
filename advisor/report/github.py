"""GitHub Actions workflow commands: each finding becomes an annotation on its line in the pull request.

Format: ``::warning file=PATH,line=L,col=C,endLine=L,endColumn=C,title=CODE::MESSAGE``, one per line.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..model import Finding, Report
from .view import severity, speedup_text

# Workflow commands know error, warning and notice; SARIF's "note" is GitHub's "notice".
COMMANDS = {"warning": "warning", "note": "notice"}


def render_github(report: Report) -> str:
    lines = [_annotation(report, finding) for finding in report.findings]
    lines += [f"::warning title=advisor::{_data(warning)}" for warning in report.warnings]
    return "".join(line + "\n" for line in lines)


def _annotation(report: Report, finding: Finding) -> str:
    loc = finding.location
    properties = {
        "file": workspace_path(report, loc.path),
        "line": loc.line,
        "col": loc.column,
        "endLine": loc.end_line,
        "endColumn": loc.end_column,
        "title": finding.code,
    }
    props = ",".join(f"{key}={_property(str(value))}" for key, value in properties.items())
    return f"::{COMMANDS[severity(finding.confidence)]} {props}::{_data(_message(finding))}"


def _message(finding: Finding) -> str:
    """The annotation's body: the finding, what backs it, what it may gain, and how to fix it, one item a line."""
    lines = [f"{finding.message} [{finding.confidence.value}]"]
    lines += [f"{evidence.kind}: {evidence.message}" for evidence in finding.evidence]
    if finding.speedup is not None:
        lines.append(f"expected speedup: {speedup_text(finding.speedup)} ({finding.speedup.basis})")
    if finding.patch is not None:
        lines.append(f"{finding.patch.applicability.value} fix [{finding.id}]: {finding.patch.description}")
    return "\n".join(lines)


def workspace_path(report: Report, path: Path) -> str:
    """The file relative to the current directory, which in a workflow is the checkout GitHub resolves paths in.

    Finding paths are relative to the analysed repo, which may be a subdirectory (``advisor analyze samples``).
    """
    full = Path(os.path.abspath(report.repo / path))
    try:
        return full.relative_to(Path.cwd()).as_posix()
    except ValueError:  # outside the current directory: only an absolute path names it
        return full.as_posix()


def _data(text: str) -> str:
    # The runner's escaping for a command's message (actions/toolkit, command.ts escapeData).
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    # Property values are also cut at ':' and ',' (actions/toolkit, command.ts escapeProperty).
    return _data(text).replace(":", "%3A").replace(",", "%2C")
