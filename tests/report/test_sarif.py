"""SARIF output: schema-valid, stable rule ids with help, and fixes whose replacements rebuild the patched file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.files import unified_diff
from advisor.report.sarif import FINGERPRINT, diff_changes, render_sarif
from advisor.catalogue import all_rules

from report_helpers import SARIF_SCHEMA, constructed_profile_json


def apply_replacements(text: str, replacements: list[dict]) -> str:
    """Apply SARIF replacements (1-based line/column regions, code-point columns) the way a SARIF viewer would."""
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))

    def offset(line: int, column: int) -> int:
        return starts[line - 1] + column - 1

    # Later regions first, so earlier offsets stay valid.
    for replacement in sorted(replacements, key=lambda r: -r["deletedRegion"]["startLine"]):
        region = replacement["deletedRegion"]
        start = offset(region["startLine"], region["startColumn"])
        end = offset(region["endLine"], region["endColumn"])
        text = text[:start] + replacement.get("insertedContent", {}).get("text", "") + text[end:]
    return text


@pytest.fixture(scope="module")
def validator():
    if not SARIF_SCHEMA.is_file():
        pytest.skip(f"SARIF schema not found at {SARIF_SCHEMA} (the shared/ folder beside the repo checkout)")
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SARIF_SCHEMA.read_text())
    return jsonschema.Draft7Validator(schema)  # the schema's own $schema is draft-07


def test_samples_report_validates_against_the_sarif_schema(samples_report, validator):
    log = json.loads(render_sarif(samples_report))
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(log)]
    assert errors == []


def test_profiled_report_validates_and_carries_the_profile(profiled_report, validator):
    log = json.loads(render_sarif(profiled_report))
    assert list(validator.iter_errors(log)) == []
    assert log["runs"][0]["properties"]["profile"] == constructed_profile_json()


def test_report_with_a_real_capture_validates(captured_report, validator):
    log = json.loads(render_sarif(captured_report))
    assert list(validator.iter_errors(log)) == []
    assert log["runs"][0]["properties"]["profile"] == captured_report.profile.to_json()


def test_rules_and_results_use_the_stable_rule_codes(samples_report):
    run = json.loads(render_sarif(samples_report))["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [r.code for r in all_rules()]
    for rule_class, rule in zip(all_rules(), rules):
        assert rule["shortDescription"]["text"] == rule_class.title
        assert rule_class.rationale in rule["help"]["text"]
    assert len(run["results"]) == len(samples_report.findings)
    for finding, result in zip(samples_report.findings, run["results"]):
        assert result["ruleId"] == finding.code
        assert rules[result["ruleIndex"]]["id"] == finding.code
        assert result["partialFingerprints"][FINGERPRINT] == finding.id
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"] == {"uri": finding.location.path.as_posix(), "uriBaseId": "SRCROOT"}
        assert location["region"]["startLine"] == finding.location.line
        assert result["properties"]["confidence"] == finding.confidence.value
        assert result["properties"]["evidence"] == [e.to_json() for e in finding.evidence]
        assert result["level"] == ("note" if finding.confidence.value == "possible" else "warning")


def test_fix_replacements_rebuild_the_patched_file(samples_report):
    run = json.loads(render_sarif(samples_report))["runs"][0]
    base = Path(run["originalUriBaseIds"]["SRCROOT"]["uri"].removeprefix("file://"))
    fixed = [(f, r) for f, r in zip(samples_report.findings, run["results"]) if f.patch is not None]
    assert fixed, "the samples should have fixable findings"
    for finding, result in fixed:
        (fix,) = result["fixes"]
        (change,) = fix["artifactChanges"]
        assert fix["description"]["text"] == finding.patch.description
        assert fix["properties"]["applicability"] == finding.patch.applicability.value
        original = (base / change["artifactLocation"]["uri"]).read_text()
        assert apply_replacements(original, change["replacements"]) == finding.patch.new_code


@pytest.mark.parametrize("old,new", [
    ("a\nb\nc\n", "a\nB\nc\n"),  # one line replaced
    ("a\nb\nc\n", "a\nc\n"),  # a line deleted: no insertedContent
    ("a\nb\n", "x\na\nb\n"),  # a line inserted at the top
    ("a\nb\n", "a\nb\nc\n"),  # a line appended
    ("a\nb", "a\nb2"),  # last line without a newline, before and after
    ("a\nb", "a\nb\n"),  # a newline added at the end
    ("a\nb\n", "a\nb"),  # the final newline removed
    ("".join(f"{i}\n" for i in range(30)), "".join(f"{i}{'!' * (i % 7 == 0)}\n" for i in range(30))),  # hunks
    ("é🙂\nb\n", "é🙂!\nb\n"),  # non-ASCII: columns are code points
])
def test_diff_changes_turn_any_unified_diff_into_exact_replacements(old, new):
    diff = unified_diff(Path("f.py"), old, new)
    replacements = [change.to_sarif() for change in diff_changes(diff)]
    assert apply_replacements(old, replacements) == new
    assert all(r["deletedRegion"]["startColumn"] >= 1 for r in replacements)


def test_warnings_become_tool_notifications(markup_report, validator):
    markup_report.warnings.append("train.py: could not parse, skipped")
    log = json.loads(render_sarif(markup_report))
    (invocation,) = log["runs"][0]["invocations"]
    assert invocation["toolExecutionNotifications"] == [
        {"level": "warning", "message": {"text": "train.py: could not parse, skipped"}}]
    assert list(validator.iter_errors(log)) == []
