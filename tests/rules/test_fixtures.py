"""Fixture repos per rule (TorchFix style): ``fixtures/<CODE>/<case>/`` is a small repo, analysed statically with
rule CODE alone. Its expectations, in report order:

- ``expected.txt``: one line per finding, ``path:line:col CODE confidence`` (an empty file: no finding);
- ``expected.diff``: the unified diffs of the findings' patches, concatenated; absent when no finding has a patch.

After a change that should move them, regenerate and then read every changed line before committing (a wrong
expectation is a bug to fix, not a baseline to keep)::

    ADVISOR_UPDATE_FIXTURES=1 python -m pytest tests/rules/test_fixtures.py
    git diff tests/rules/fixtures

Regenerating rewrites the files and skips the comparison; it refuses to run where ``CI`` is set.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from advisor.catalogue import rule_by_code
from advisor.model import Confidence
from advisor.config import Settings
from advisor.engine import analyze

FIXTURES = Path(__file__).parent / "fixtures"
CASES = sorted(p for p in FIXTURES.glob("*/*") if p.is_dir())
UPDATING = os.environ.get("ADVISOR_UPDATE_FIXTURES") == "1"


def observed(case: Path) -> tuple[str, str | None]:
    """What advisor reports on the case now: the findings' lines and their patches' diffs (None: no patch)."""
    report = analyze(case, None, Settings(select=(case.parent.name,), min_confidence=Confidence.POSSIBLE))
    findings = "".join(f"{f.location.path.as_posix()}:{f.location.line}:{f.location.column} {f.code} "
                       f"{f.confidence.value}\n" for f in report.findings)
    diffs = "".join(f.patch.diff for f in report.findings if f.patch is not None)
    return findings, diffs or None


def rewrite(case: Path, findings: str, diffs: str | None) -> None:
    (case / "expected.txt").write_text(findings)
    if diffs is not None:
        (case / "expected.diff").write_text(diffs)
    else:
        (case / "expected.diff").unlink(missing_ok=True)


@pytest.mark.parametrize("case", CASES, ids=[f"{c.parent.name}-{c.name}" for c in CASES])
def test_fixture_repo_gives_exactly_the_expected_findings_and_patches(case: Path):
    assert rule_by_code(case.parent.name) is not None, f"{case.parent.name} is not a rule code"
    findings, diffs = observed(case)
    if UPDATING:
        if os.environ.get("CI"):
            pytest.fail("ADVISOR_UPDATE_FIXTURES rewrites the expectations: never in CI")
        rewrite(case, findings, diffs)
        pytest.skip(f"rewrote the expectations of {case.relative_to(FIXTURES)}: review them with git diff")
    assert (case / "expected.txt").is_file(), \
        f"{case} has no expected.txt: write it with ADVISOR_UPDATE_FIXTURES=1 and check it by hand"
    assert findings == (case / "expected.txt").read_text()
    expected_diff = case / "expected.diff"
    assert diffs == (expected_diff.read_text() if expected_diff.is_file() else None)
