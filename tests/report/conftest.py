"""Reports of real analyses for the format tests: the samples/ repo, and a temp repo whose source holds markup."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.config import Settings
from advisor.engine import analyze
from advisor.model import Confidence, Report

from advisor.profile.facts import ProfileFindings

from report_helpers import MARKUP_SOURCE, REPO_ROOT, constructed_profile_json


@pytest.fixture(scope="session")
def samples_report() -> Report:
    report = analyze(REPO_ROOT / "samples", None, Settings(min_confidence=Confidence.POSSIBLE))
    assert report.findings, "the samples repo should give findings"
    return report


@pytest.fixture(scope="session")
def markup_repo(tmp_path_factory) -> Path:
    repo = tmp_path_factory.mktemp("markup repo")
    (repo / "train.py").write_text(MARKUP_SOURCE)
    return repo


@pytest.fixture
def markup_report(markup_repo: Path) -> Report:
    report = analyze(markup_repo, None, Settings(min_confidence=Confidence.POSSIBLE))
    assert any(f.location.line == 3 for f in report.findings)
    return report


@pytest.fixture(scope="session")
def captured_report() -> Report:
    """samples/input_bound with its committed capture: the real ProfileFindings, not a stand-in."""
    capture = REPO_ROOT / "samples" / "profiles" / "input_bound"
    if not capture.is_dir():
        pytest.skip(f"no committed capture at {capture}")
    return analyze(REPO_ROOT / "samples" / "input_bound", capture, Settings(min_confidence=Confidence.POSSIBLE))


@pytest.fixture
def profiled_report(markup_repo: Path) -> Report:
    report = analyze(markup_repo, None, Settings(min_confidence=Confidence.POSSIBLE))
    report.profile = ProfileFindings.from_json(constructed_profile_json())
    return report
