"""Every rule against its own examples: valid ones give no finding, invalid ones give one at the stated line,
with exactly the stated fix, which parses and which a second run leaves alone."""

from __future__ import annotations

import subprocess
from functools import cache
from pathlib import Path

import libcst as cst
import pytest

from advisor.engine import analyze_texts
from advisor.profile.loader import load_profile
from advisor.catalogue import all_rules
from advisor.config import Settings
from advisor.model import Confidence, FixAvailability
from advisor.rule import Example, Rule

EXAMPLE_PATH = "example.py"
REPO = Path(__file__).resolve().parents[1]


def _cases(kind: str):
    for rule in all_rules():
        for number, example in enumerate(getattr(rule, kind)):
            yield pytest.param(rule, example, id=f"{rule.code}-{kind}-{number}")


@cache
def _profile(path: str):
    return load_profile(REPO / path)


def _findings(rule: type[Rule], example: Example, code: str):
    files = {EXAMPLE_PATH: code, **{p: Example(t).source for p, t in example.files.items()}}
    profile = _profile(example.profile) if example.profile else None
    settings = Settings(select=(rule.code,), min_confidence=Confidence.POSSIBLE, **example.settings)
    return [f for f in analyze_texts(files, settings, profile=profile) if f.code == rule.code]


def test_rules_are_discovered_with_unique_codes_and_names():
    rules = all_rules()
    assert len(rules) >= 2
    assert len({r.code for r in rules}) == len(rules)
    assert len({r.name for r in rules}) == len(rules)
    for rule in rules:
        assert rule.code[:3] in {"TFD", "TFH", "TFC", "TFS"}, rule.code
        assert rule.valid and rule.invalid, f"{rule.code} needs valid and invalid examples"
        if rule.fix_applicability.value == "unsafe":
            assert rule.why_unsafe, f"{rule.code} must say why its fix is unsafe"


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.code)
def test_fix_availability_is_what_the_examples_show(rule):
    """``always``: every reported example is fixed; ``never``: none is and there is no fix to describe;
    ``sometimes``: the examples show both a fixed finding and one the rule leaves unfixed."""
    fixed = {example.fixed is not None for example in rule.invalid}
    expected = {FixAvailability.ALWAYS: {True}, FixAvailability.NEVER: {False},
                FixAvailability.SOMETIMES: {True, False}}[rule.fix_availability]
    assert fixed == expected, f"{rule.code} is {rule.fix_availability.value}-fixable; its examples say {fixed}"
    assert (rule.fix is None) == (rule.fix_availability is FixAvailability.NEVER)


@pytest.mark.parametrize("rule,example", list(_cases("valid")))
def test_valid_example_gives_no_finding(rule, example):
    assert _findings(rule, example, example.source) == []


@pytest.mark.parametrize("rule,example", list(_cases("invalid")))
def test_invalid_example_is_reported_and_fixed(rule, example):
    findings = [f for f in _findings(rule, example, example.source) if f.location.path.as_posix() == EXAMPLE_PATH]
    assert [f.location.line for f in findings] == [example.line]
    finding = findings[0]
    if example.fixed_source is None:
        assert finding.patch is None
        return
    assert finding.patch is not None
    assert finding.patch.applicability == rule.fix_applicability
    assert finding.patch.new_code == example.fixed_source
    cst.parse_module(finding.patch.new_code)
    # Idempotent: the fixed file has no finding of this rule at that place any more.
    again = [f for f in _findings(rule, example, finding.patch.new_code)
             if f.location.path.as_posix() == EXAMPLE_PATH and f.location.line == example.line]
    assert again == []


@pytest.mark.parametrize("rule,example", [case for case in _cases("invalid") if case.values[1].fixed is not None])
def test_fixed_example_passes_git_diff_check(rule, example, tmp_path):
    """The fix (equal to the example's fixed text, above) adds no trailing whitespace or misindented lines."""
    before, after = tmp_path / "before.py", tmp_path / "after.py"
    before.write_text(example.source)
    after.write_text(example.fixed_source)
    check = subprocess.run(["git", "diff", "--no-index", "--check", str(before), str(after)],
                           capture_output=True, text=True)
    assert check.stdout == ""
