"""benchmarks/real_world_accuracy.py on a tiny repo made here: a checkout made from a git snapshot in fetch's
layout, a real advisor run, its findings matched to labels and misses, the accuracy page written. No network."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "real_world_accuracy.py"
_spec = importlib.util.spec_from_file_location("real_world_accuracy", SCRIPT)
accuracy = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = accuracy  # dataclasses look their module up while the script loads
_spec.loader.exec_module(accuracy)

REPO = "owner/name"
# advisor reports TFC002 (batch 10), TFD001 (no prefetch) and TFD002 (serial map) at line 3 of train.py,
# TFD002 at line 3 of data.py, and TFD002 at line 2 of the notebook's cell 2 (cells count from 1, markdown too).
TRAIN = """import tensorflow as tf

ds = tf.data.Dataset.range(100).map(lambda x: x * 2).batch(10)
for x in ds:
    pass
"""
DATA = """import tensorflow as tf

ds = tf.data.Dataset.range(5).map(lambda x: x + 1)
"""
NOTEBOOK = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
    {"cell_type": "markdown", "metadata": {}, "source": ["# Exploring"]},
    {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
     "source": ["import tensorflow as tf\n", "ds = tf.data.Dataset.range(5).map(lambda x: x + 1)\n"]},
]}


def _git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
                          check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def snapshot(tmp_path):
    """(mirror folder, commit): one commit of a two-file repo, where fetch leaves snapshots."""
    work = tmp_path / "mirror" / "owner+name" / "repo"
    work.mkdir(parents=True)
    (work / "train.py").write_text(TRAIN)
    (work / "data.py").write_text(DATA)
    (work / "explore.ipynb").write_text(json.dumps(NOTEBOOK))
    _git(work, "init", "-q")
    _git(work, "add", ".")
    _git(work, "commit", "-qm", "the repo")
    return tmp_path / "mirror", _git(work, "rev-parse", "HEAD")


def label(path: str, line: int, rule: str, verdict: str, reached: bool = True, cell: int | None = None) -> dict:
    return {"repo": REPO, "path": path, **({"cell": cell} if cell else {}), "line": line, "rule": rule,
            "confidence": "possible", "label": verdict, "reached": reached,
            "should_be": None if verdict == "wrong" else "possible",
            "cause": None if verdict == "right" else "negligible-work", "reason": "a reason"}


def every_finding_labelled() -> list[dict]:
    """A label for each of advisor's five findings on the snapshot."""
    return [label("train.py", 3, "TFD002", "right"), label("train.py", 3, "TFD001", "debatable"),
            label("train.py", 3, "TFC002", "wrong"), label("data.py", 3, "TFD002", "wrong", reached=False),
            label("explore.ipynb", 2, "TFD002", "right", cell=2)]


def write_manifest(folder: Path, commit: str, findings: list[dict], misses: list[dict] = ()) -> Path:
    manifest = folder / "manifest.json"
    manifest.write_text(json.dumps({"repos": [{"repo": REPO, "commit": commit, "why": "a sample",
                                               "entry_points": ["train.py"]}],
                                    "findings": findings, "misses": list(misses)}))
    return manifest


def run(tmp_path, manifest: Path, mirror: Path, *extra: str) -> int:
    return accuracy.main(["--manifest", str(manifest), "--repos", str(tmp_path / "checkouts"),
                          "--mirror", str(mirror), *extra])


def table_row(output: str, rule: str) -> list[str]:
    line = next(line for line in output.splitlines() if line.startswith(rule + " "))
    return line.split()


def test_scores_labelled_findings_and_lists_unlabelled_ones(tmp_path, snapshot, capsys):
    mirror, commit = snapshot
    miss = {"repo": REPO, "path": "train.py", "line": 4, "rule": "TFH002", "cause": "inline-tape-loop",
            "reason": "a miss"}
    manifest = write_manifest(tmp_path, commit, [
        label("train.py", 3, "TFD002", "right"),
        label("data.py", 3, "TFD002", "wrong", reached=False),
        label("explore.ipynb", 2, "TFD002", "right", cell=2),
        label("train.py", 3, "TFC002", "debatable"),
    ], [miss])

    assert run(tmp_path, manifest, mirror) == accuracy.EXIT_FAILED  # TFD001 has no label
    output = capsys.readouterr().out

    # findings, right, debatable, wrong, unlabelled, precision, precision (r+d), precision (reached), recall ...
    serial_map = table_row(output, "TFD002")
    assert serial_map[1:9] == ["3", "2", "0", "1", "0", "0.67", "0.67", "1.00"]
    assert serial_map[9:13] == ["1.00", "(2/2)", "1.00", "(1/1)"]  # recall, and recall without notebooks
    assert serial_map[-3:] == ["0", "1", "0"]  # in tests, unreached, confidence off
    assert table_row(output, "TFH002")[9:11] == ["0.00", "(0/1)"]
    unlabelled = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    assert [(entry["path"], entry["line"], entry["rule"], entry["label"]) for entry in unlabelled] == \
        [("train.py", 3, "TFD001", "TODO")]
    assert "TFH002  inline-tape-loop" in output

    checkout = tmp_path / "checkouts" / "owner+name"
    assert (checkout / "train.py").read_text() == TRAIN
    assert (tmp_path / "checkouts" / "owner+name.commit").read_text().strip() == commit
    assert not (checkout / ".advisor").exists()  # advisor analysed a copy
    assert _git(mirror / "owner+name" / "repo", "status", "--porcelain") == ""


def test_complete_labels_pass_and_write_the_accuracy_page(tmp_path, snapshot):
    mirror, commit = snapshot
    manifest = write_manifest(tmp_path, commit, every_finding_labelled())
    page = tmp_path / "accuracy.md"

    assert run(tmp_path, manifest, mirror, "--write-docs", str(page)) == accuracy.EXIT_OK

    text = page.read_text()
    assert "| TFD002 | 3 | 2 | 0 | 1 | 0 | 0.67 |" in text
    assert f"| owner/name | {commit[:12]} | a sample | `train.py` | 5 (2 / 1 / 2 / 0) |" in text
    assert "| 1 | debatable | TFD001 | negligible-work |" in text


def test_repos_without_a_snapshot_can_be_left_out_and_are_named(tmp_path, snapshot, capsys):
    mirror, commit = snapshot
    manifest = write_manifest(tmp_path, commit, every_finding_labelled())
    document = json.loads(manifest.read_text())
    document["repos"].append({"repo": "other/gone", "commit": "0" * 40, "why": "no snapshot", "entry_points": []})
    manifest.write_text(json.dumps(document))
    page = tmp_path / "accuracy.md"

    assert run(tmp_path, manifest, mirror, "--write-docs", str(page)) == accuracy.EXIT_UNUSABLE
    assert "other/gone" in capsys.readouterr().err
    assert run(tmp_path, manifest, mirror, "--skip-missing", "--write-docs", str(page)) == accuracy.EXIT_OK
    assert "not evaluated (no checkout or snapshot): other/gone" in capsys.readouterr().err

    text = page.read_text()
    assert "on 1 public TensorFlow/Keras repos" in text
    assert "1 more repos of the manifest were not evaluated in this run" in text
    assert "| other/gone | 000000000000 | no snapshot |  | not evaluated in this run |" in text
    assert "| TFD002 | 3 | 2 | 0 | 1 | 0 | 0.67 |" in text


def test_kept_findings_are_rescored_without_running_advisor_again(tmp_path, snapshot, capsys):
    mirror, commit = snapshot
    kept = tmp_path / "findings.json"
    manifest = write_manifest(tmp_path, commit, [label("train.py", 3, "TFD002", "right")])
    assert run(tmp_path, manifest, mirror, "--findings", str(kept)) == accuracy.EXIT_FAILED  # two unlabelled
    assert "analysing owner/name" in capsys.readouterr().err
    document = json.loads(kept.read_text())
    found = document["findings"][REPO]
    assert document["made_at"] == {REPO: accuracy.advisor_commit()}
    relabelled = write_manifest(tmp_path, commit, [
        label(f["path"], f["line"], f["code"], "right", cell=f.get("cell")) for f in found])

    assert run(tmp_path, relabelled, mirror, "--findings", str(kept)) == accuracy.EXIT_OK
    assert "analysing" not in capsys.readouterr().err


def test_a_rescored_page_names_the_commits_that_made_the_findings(tmp_path, snapshot):
    """Findings kept from runs of two advisor commits (and a file written before commits were recorded) are scored
    together: the page says which commit made how many repos' findings, not the commit that scores them."""
    mirror, commit = snapshot
    manifest = write_manifest(tmp_path, commit, every_finding_labelled())
    kept = tmp_path / "findings.json"
    assert run(tmp_path, manifest, mirror, "--findings", str(kept)) == accuracy.EXIT_OK
    found = accuracy.read_findings(kept)
    document = json.loads(manifest.read_text())
    document["repos"].append({**document["repos"][0], "repo": "other/name"})
    document["findings"] += [{**entry, "repo": "other/name"} for entry in document["findings"]]
    manifest.write_text(json.dumps(document))
    checkouts = tmp_path / "checkouts"
    shutil.copytree(checkouts / "owner+name", checkouts / "other+name")
    shutil.copy(checkouts / "owner+name.commit", checkouts / "other+name.commit")
    accuracy.write_findings(accuracy.KeptFindings({**found.findings, "other/name": found.findings[REPO]},
                                                  {REPO: "a" * 40, "other/name": "b" * 40}), kept)
    page = tmp_path / "accuracy.md"

    assert run(tmp_path, manifest, mirror, "--findings", str(kept), "--write-docs", str(page)) == accuracy.EXIT_OK
    assert f"made at advisor commits {'a' * 40} (1 repos), {'b' * 40} (1 repos)." in page.read_text()

    kept.write_text(json.dumps(found.findings))  # the older format: findings by repo alone
    assert accuracy.read_findings(kept) == accuracy.KeptFindings(found.findings)


def test_a_run_stopped_part_way_keeps_the_repos_it_finished_and_resumes_after_them(tmp_path, snapshot, monkeypatch):
    """A full rerun takes hours: the findings file is written after each repo, so a run stopped in the second repo
    keeps the first one's findings, and the next run analyses only the second."""
    mirror, commit = snapshot
    manifest = write_manifest(tmp_path, commit, every_finding_labelled())
    document = json.loads(manifest.read_text())
    document["repos"].append({**document["repos"][0], "repo": "other/name"})
    manifest.write_text(json.dumps(document))
    shutil.copytree(mirror / "owner+name", mirror / "other+name")
    kept = tmp_path / "findings.json"
    analysed = []
    real_run_advisor = accuracy.run_advisor

    def stopped_in_the_second_repo(checkout):
        analysed.append(checkout.name)
        if len(analysed) == 2:
            raise KeyboardInterrupt
        return real_run_advisor(checkout)

    monkeypatch.setattr(accuracy, "run_advisor", stopped_in_the_second_repo)
    with pytest.raises(KeyboardInterrupt):
        run(tmp_path, manifest, mirror, "--findings", str(kept))
    assert list(accuracy.read_findings(kept).findings) == [REPO]

    analysed.clear()
    monkeypatch.setattr(accuracy, "run_advisor", real_run_advisor)
    run(tmp_path, manifest, mirror, "--findings", str(kept))
    resumed = accuracy.read_findings(kept)
    assert resumed.findings["other/name"] == resumed.findings[REPO]
    assert set(resumed.made_at) == {REPO, "other/name"}


def test_scoring_of_vanished_right_findings_changed_confidences_and_test_files():
    place = accuracy.Place(REPO, "train.py", None, 3, "TFD002")
    gone = accuracy.Place(REPO, "train.py", None, 9, "TFD002")
    manifest = accuracy.Manifest(
        [accuracy.RepoEntry(REPO, "0" * 40, "", ())],
        {place: accuracy.Label(place, "possible", "right", True, "likely", None, "stateful map"),
         gone: accuracy.Label(gone, "possible", "right", True, "possible", None, "a decode map")},
        {})
    finding = {"path": "train.py", "line": 3, "code": "TFD002", "confidence": "likely", "message": "serial map"}
    in_a_test = {"path": "pkg/tests/data.py", "line": 1, "code": "TFD002", "confidence": "possible", "message": "m"}

    evaluation = accuracy.evaluate(manifest, {REPO: [finding, in_a_test]}, ["TFD002"])

    score = evaluation.scores["TFD002"]
    assert (score.right, score.found, score.expected, score.confidence_off) == (1, 1, 2, 0)
    assert (score.findings, score.unlabelled, score.in_tests) == (2, 1, 1)
    assert [label.place for label in evaluation.no_longer_reported] == [gone]
    assert [(label.place, now) for label, now in evaluation.confidence_changed] == [(place, "likely")]


def test_unusable_inputs_are_one_error_line(tmp_path, snapshot, capsys):
    mirror, commit = snapshot
    bad_label = write_manifest(tmp_path, commit, [label("train.py", 3, "TFD002", "fine")])
    assert run(tmp_path, bad_label, mirror) == accuracy.EXIT_UNUSABLE
    assert "label must be one of right, debatable, wrong" in capsys.readouterr().err

    manifest = write_manifest(tmp_path, commit, [])
    assert run(tmp_path, manifest, tmp_path / "no-mirror") == accuracy.EXIT_UNUSABLE
    error = capsys.readouterr().err
    assert "no snapshot" in error and REPO in error

    (tmp_path / "checkouts" / "owner+name").mkdir(parents=True)
    (tmp_path / "checkouts" / "owner+name.commit").write_text("f" * 40)
    assert run(tmp_path, manifest, mirror) == accuracy.EXIT_UNUSABLE
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "remove it to make it again" in error
