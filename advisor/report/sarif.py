"""SARIF 2.1.0 for code-scanning tools (GitHub code scanning, IDE viewers).

Rule ids are the stable rule codes, so a tool tracks a finding across runs; each patch becomes a SARIF ``fix`` whose
replacements come from the patch's unified diff. The expected speedup, the evidence and the confidence, which
SARIF has no fields for, go in the result's ``properties``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from .. import __version__
from ..catalogue import all_rules
from ..model import Finding, Patch, Report
from ..rule import Rule
from .view import severity

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
# Paths in results are relative to the analysed repo; this base id says where that is.
SRCROOT = "SRCROOT"
# Tools use this to match a result across runs even when lines shift; the finding id is stable in the same way.
FINGERPRINT = "advisorFindingId/v1"


def render_sarif(report: Report) -> str:
    return json.dumps(sarif_log(report), indent=2) + "\n"


def sarif_log(report: Report) -> dict[str, Any]:
    rules = all_rules()
    index = {rule.code: i for i, rule in enumerate(rules)}
    run: dict[str, Any] = {
        "tool": {"driver": {
            "name": "advisor",
            "version": __version__,
            "semanticVersion": __version__,
            "rules": [_rule(rule) for rule in rules],
        }},
        "originalUriBaseIds": {SRCROOT: {"uri": report.repo.resolve().as_uri() + "/"}},
        # libcst counts columns in code points; SARIF's default would be UTF-16 code units.
        "columnKind": "unicodeCodePoints",
        "invocations": [{
            "executionSuccessful": True,
            "toolExecutionNotifications": [{"level": "warning", "message": {"text": w}} for w in report.warnings],
        }],
        "results": [_result(finding, index[finding.code]) for finding in report.findings],
    }
    if report.profile is not None:
        run["properties"] = {"profile": report.profile.to_json()}
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def _rule(rule: type[Rule]) -> dict[str, Any]:
    help_parts = [rule.rationale]
    if rule.fix:
        help_parts.append(f"Fix ({rule.fix_applicability.value}): {rule.fix}")
    if rule.why_unsafe:
        help_parts.append(f"Why unsafe: {rule.why_unsafe}")
    if rule.speedup_model:
        help_parts.append(f"Expected speedup: {rule.speedup_model}")
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.rationale},
        # The rule texts use Markdown backticks, so the same text serves both renderings.
        "help": {"text": "\n\n".join(help_parts), "markdown": "\n\n".join(help_parts)},
        "defaultConfiguration": {"level": "warning"},
        "properties": {"tags": ["performance"], "fixApplicability": rule.fix_applicability.value if rule.fix
                       else None},
    }


def _artifact(finding: Finding) -> dict[str, str]:
    return {"uri": quote(finding.location.path.as_posix()), "uriBaseId": SRCROOT}


def _result(finding: Finding, rule_index: int) -> dict[str, Any]:
    loc = finding.location
    properties: dict[str, Any] = {
        "findingId": finding.id,
        "confidence": finding.confidence.value,
        "evidence": [e.to_json() for e in finding.evidence],
    }
    if finding.speedup is not None:
        properties["speedup"] = finding.speedup.to_json()
    result: dict[str, Any] = {
        "ruleId": finding.code,
        "ruleIndex": rule_index,
        "level": severity(finding.confidence),
        "message": {"text": finding.message},
        "locations": [{"physicalLocation": {
            "artifactLocation": _artifact(finding),
            "region": {"startLine": loc.line, "startColumn": loc.column, "endLine": loc.end_line,
                       "endColumn": loc.end_column},
        }}],
        "partialFingerprints": {FINGERPRINT: finding.id},
        "properties": properties,
    }
    if finding.patch is not None:
        result["fixes"] = [_fix(finding, finding.patch)]
    return result


def _fix(finding: Finding, patch: Patch) -> dict[str, Any]:
    return {
        "description": {"text": patch.description},
        "artifactChanges": [{
            "artifactLocation": _artifact(finding),
            "replacements": [change.to_sarif() for change in diff_changes(patch.diff)],
        }],
        "properties": {"applicability": patch.applicability.value, "whyUnsafe": patch.why_unsafe,
                       "diff": patch.diff},
    }


@dataclass
class LineChange:
    """One run of removed and added lines in a diff: old lines ``start`` .. ``start + len(removed) - 1`` become
    ``added`` (with no removed lines, ``added`` goes in before old line ``start``). Lines keep their newlines."""

    start: int
    removed: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)

    def to_sarif(self) -> dict[str, Any]:
        """A replacement over whole lines, newlines included, so that applying it yields the new file exactly."""
        if not self.removed:
            end_line, end_column = self.start, 1
        elif self.removed[-1].endswith("\n"):
            end_line, end_column = self.start + len(self.removed), 1
        else:  # the file's last line, without a newline: the region ends after its last character
            end_line, end_column = self.start + len(self.removed) - 1, len(self.removed[-1]) + 1
        replacement: dict[str, Any] = {"deletedRegion": {"startLine": self.start, "startColumn": 1,
                                                         "endLine": end_line, "endColumn": end_column}}
        if self.added:  # SARIF: no insertedContent means a pure deletion
            replacement["insertedContent"] = {"text": "".join(self.added)}
        return replacement


_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")


def diff_changes(diff: str) -> list[LineChange]:
    """The line changes of a one-file unified diff, in old-file line numbers.

    Reading the diff, not the file, keeps the fix exactly the patch that ``advisor`` shows and ``git apply`` takes,
    even when the file has changed since the analysis.
    """
    changes: list[LineChange] = []
    current: LineChange | None = None
    last: list[str] | None = None  # the list that got the previous line, for "\ No newline at end of file"
    old_line = 0
    in_hunk = False
    for line in diff.splitlines(keepends=True):
        header = _HUNK.match(line)
        if header:
            start, count = int(header.group(1)), header.group(2)
            # An empty old range names the line before it (`-5,0` inserts after line 5).
            old_line = start + 1 if count == "0" else start
            current, last, in_hunk = None, None, True
            continue
        if not in_hunk:
            continue  # the ---/+++ file header
        marker, text = line[:1], line[1:]
        if marker == "\\":
            if last:
                last[-1] = last[-1].removesuffix("\n")
            continue
        if marker == " ":
            current, last = None, None
            old_line += 1
            continue
        if current is None:
            current = LineChange(old_line)
            changes.append(current)
        if marker == "-":
            current.removed.append(text)
            last = current.removed
            old_line += 1
        elif marker == "+":
            current.added.append(text)
            last = current.added
    return changes
