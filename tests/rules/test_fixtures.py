"""Fixture repos per rule (TorchFix style): ``fixtures/<CODE>/<case>/`` is a small repo and its ``expected.txt``
lists, one per line, the findings of that rule it must give (``path:line``); an empty file means none."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.config import Settings
from advisor.engine import analyze

FIXTURES = Path(__file__).parent / "fixtures"
CASES = sorted(p for p in FIXTURES.glob("*/*") if (p / "expected.txt").is_file())


@pytest.mark.parametrize("case", CASES, ids=[f"{c.parent.name}-{c.name}" for c in CASES])
def test_fixture_repo_gives_exactly_the_expected_findings(case: Path):
    code = case.parent.name
    expected = sorted(line.strip() for line in (case / "expected.txt").read_text().splitlines() if line.strip())
    report = analyze(case, None, Settings(select=(code,)))
    assert sorted(f"{f.location.path.as_posix()}:{f.location.line}" for f in report.findings) == expected
