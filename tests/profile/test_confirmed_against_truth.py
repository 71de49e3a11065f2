"""advisor's verdicts on every committed capture against samples/profiles/truth.json (issue #12).

truth.json says, per capture, which source lines cost a measured share of the step and, per rule, whether a
confirmed finding there is right (`confirm`), wrong (`reject`) or either. Here advisor analyzes each sample with
its capture, as a user would, and every confirmed finding must sit at a line truth.json judges right for its rule,
and every costly line must get its confirmed finding. (test_truth.py keeps truth.json true to the captures.)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.config import Settings
from advisor.engine import analyze
from advisor.model import Confidence, Finding

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
TRUTH = json.loads((SAMPLES / "profiles" / "truth.json").read_text())["captures"]


def _entry_at(finding: Finding, lines: list[dict]) -> dict | None:
    location = finding.location
    return next((e for e in lines if location.path.as_posix() == e["path"]
                 and e["line"] <= location.line <= e.get("end_line", e["line"])), None)


@pytest.fixture(scope="module", params=sorted(TRUTH))
def judged(request) -> tuple[list[Finding], list[dict]]:
    capture = TRUTH[request.param]
    report = analyze(SAMPLES / capture["sample"], SAMPLES / "profiles" / request.param, Settings(select=("ALL",)))
    return report.findings, capture["lines"]


def test_every_confirmed_finding_is_at_a_line_the_capture_shows_costing_time(judged):
    findings, lines = judged
    wrong = []
    for finding in findings:
        if finding.confidence is Confidence.CONFIRMED:
            entry = _entry_at(finding, lines)
            if entry is None or entry["findings"].get(finding.code) not in ("confirm", "either"):
                wrong.append((finding.code, finding.location.display, entry and entry["findings"].get(finding.code)))
    assert wrong == []


def test_every_costly_line_gets_its_confirmed_finding(judged):
    findings, lines = judged
    missed = [(code, entry["path"], entry["line"]) for entry in lines if entry["cost"] == "costly"
              for code, verdict in entry["findings"].items() if verdict == "confirm"
              and not any(f.code == code and f.confidence is Confidence.CONFIRMED and _entry_at(f, lines) is entry
                          for f in findings)]
    assert missed == []
