"""samples/profiles/truth.json and ablations.json, checked against the committed captures and sample sources.

truth.json says, for every committed capture, which source lines cost a measured share of its step and which
tempting lines did not (issue #12). These tests keep it honest, not advisor: every line it names exists and holds the
text the entry quotes, every figure it cites is what the capture shows (evidence.py recomputes them with the
converters), every ablation it cites applies to the sample and was measured, and each verdict agrees with the
numbers it cites. Whether advisor's findings agree with truth.json is tested where the verdicts are made.
"""

from __future__ import annotations

import json
import py_compile
import shutil
import sys
from pathlib import Path

import pytest

from advisor.catalogue import all_rules

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
PROFILES = SAMPLES / "profiles"
sys.path.insert(0, str(PROFILES))

import ablate  # noqa: E402
import evidence  # noqa: E402
from regenerate import CAPTURES  # noqa: E402

TRUTH = json.loads((PROFILES / "truth.json").read_text())
ABLATIONS = json.loads((PROFILES / "ablations.json").read_text())["ablations"]
RULE_CODES = {rule.code for rule in all_rules()}
FINDING_VERDICTS = {"confirm", "reject", "either"}
# truth.json's "criteria", as numbers.
COSTLY_SPEEDUP, FREE_SPEEDUP = 1.10, 1.05
COSTLY_SHARE_PCT, FREE_SHARE_PCT = 10.0, 5.0
MIN_ROUNDS = 5
MAX_CAPTURE_BYTES = 2_000_000  # captures are committed: keep them small

LINES = [(name, entry) for name, capture in TRUTH["captures"].items() for entry in capture["lines"]]
LINE_IDS = [f"{name}:{entry['path']}:{entry['line']}" for name, entry in LINES]


def _figure(name: str, path: list[str]):
    value = TRUTH["captures"][name]["measured"]
    for key in path:
        value = value[key]
    return value


def _cited_numbers(name: str, entry: dict) -> tuple[list[float], list[float]]:
    """The shares (%) of the cited figures that have one, and the median speedups of the cited ablations."""
    shares = [figure["share_pct"] for figure in (_figure(name, path) for path in entry["figures"])
              if isinstance(figure, dict) and "share_pct" in figure]
    speedups = [ABLATIONS[ablation]["measured"]["speedup"]["median"] for ablation in entry["ablations"]]
    return shares, speedups


def test_every_committed_capture_has_a_truth_entry_for_its_own_sample():
    assert TRUTH["captures"].keys() == CAPTURES.keys()
    for name, capture in TRUTH["captures"].items():
        assert capture["sample"] == CAPTURES[name].sample, name
        assert capture["lines"], f"{name}: no lines judged"


@pytest.mark.parametrize("name", list(CAPTURES))
def test_capture_is_committed_and_small(name):
    assert 0 < evidence.capture_file(name).stat().st_size < MAX_CAPTURE_BYTES


@pytest.mark.parametrize("name", list(CAPTURES))
def test_measured_figures_are_what_the_capture_shows(name):
    assert TRUTH["captures"][name]["measured"] == evidence.evidence(name, evidence.sample_files(CAPTURES[name].sample))


@pytest.mark.parametrize(("name", "entry"), LINES, ids=LINE_IDS)
def test_each_line_exists_and_holds_the_quoted_text(name, entry):
    source = (SAMPLES / TRUTH["captures"][name]["sample"] / entry["path"]).read_text().splitlines()
    assert entry["text"] and entry["text"] in source[entry["line"] - 1]
    assert entry["line"] <= entry.get("end_line", entry["line"]) <= len(source)


@pytest.mark.parametrize(("name", "entry"), LINES, ids=LINE_IDS)
def test_each_verdict_names_real_rules_figures_and_ablations_of_this_program(name, entry):
    assert set(entry["findings"]) <= RULE_CODES
    assert set(entry["findings"].values()) <= FINDING_VERDICTS
    assert entry["cost"] in TRUTH["criteria"]
    assert entry["why"]
    for path in entry["figures"]:
        _figure(name, path)  # raises KeyError when the capture has no such figure
    capture = CAPTURES[name]
    for ablation in entry["ablations"]:
        assert (ABLATIONS[ablation]["sample"], tuple(ABLATIONS[ablation]["args"])) == (capture.sample, capture.args)


@pytest.mark.parametrize(("name", "entry"), LINES, ids=LINE_IDS)
def test_each_cost_agrees_with_the_numbers_it_cites(name, entry):
    shares, speedups = _cited_numbers(name, entry)
    if entry["cost"] == "costly":
        assert entry["ran"]
        assert max(shares, default=0) >= COSTLY_SHARE_PCT or (
            not shares and max(speedups, default=0) >= COSTLY_SPEEDUP)
    elif entry["cost"] == "none":
        assert not entry["ran"] or (all(s < FREE_SPEEDUP for s in speedups) and all(s < FREE_SHARE_PCT for s in shares))
        assert "confirm" not in entry["findings"].values()


def test_each_line_is_judged_once_per_capture():
    for name, capture in TRUTH["captures"].items():
        places = [(entry["path"], entry["line"]) for entry in capture["lines"]]
        assert len(places) == len(set(places)), name


def test_a_line_that_did_not_run_cites_no_capture_figure():
    for name, entry in LINES:
        if not entry["ran"]:
            assert not entry["figures"] and entry["cost"] == "none", f"{name}: {entry['line']}"


@pytest.mark.parametrize("ablation", list(ABLATIONS))
def test_ablation_applies_to_its_sample_and_was_measured(ablation, tmp_path):
    entry = ABLATIONS[ablation]
    copy = tmp_path / entry["sample"]
    shutil.copytree(SAMPLES / entry["sample"], copy, ignore=shutil.ignore_patterns(".advisor", "__pycache__"))
    ablate.apply_edits(copy, entry["edits"])  # raises unless each edit's text occurs exactly once
    for edit in entry["edits"]:
        py_compile.compile(str(copy / edit["path"]), doraise=True)
    measured = entry["measured"]
    assert measured["sample_digest"] == ablate.sample_digest(entry["sample"]), "the sample changed: measure again"
    assert measured["rounds"] >= MIN_ROUNDS
    assert len(measured["original_ms_per_step"]) == len(measured["ablated_ms_per_step"]) == measured["rounds"]
    speedup = measured["speedup"]
    assert speedup["min"] <= speedup["median"] <= speedup["max"]


def test_every_ablation_is_cited():
    cited = {ablation for _, entry in LINES for ablation in entry["ablations"]}
    assert cited == ABLATIONS.keys()
