"""benchmarks/real_world_labels.py on a small manifest written here: the labels kept in step with a run's findings."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "real_world_labels.py"
_spec = importlib.util.spec_from_file_location("real_world_labels", SCRIPT)
labels = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = labels
_spec.loader.exec_module(labels)

REPO = "owner/name"


def finding(line: int, code: str, confidence: str) -> dict:
    return {"path": "train.py", "line": line, "code": code, "confidence": confidence, "message": f"m{line}"}


def label(line: int, rule: str, confidence: str, verdict: str = "right") -> dict:
    return {"repo": REPO, "path": "train.py", "line": line, "rule": rule, "confidence": confidence, "label": verdict,
            "reached": True, "should_be": confidence, "reason": f"r{line}"}


@pytest.fixture
def manifest(tmp_path) -> Path:
    path = tmp_path / "manifest.json"
    labels.write({"repos": [{"repo": REPO, "commit": "0" * 40, "why": "a sample", "entry_points": ["train.py"]}],
                  "findings": [label(3, "TFD002", "likely"), label(9, "TFH004", "likely")],
                  "misses": [{"repo": REPO, "path": "train.py", "line": 12, "rule": "TFH002", "cause": "c",
                              "reason": "an eager step"}]}, path)
    return path


@pytest.fixture
def findings(tmp_path) -> Path:
    path = tmp_path / "findings.json"
    # line 3 now possible (and reported twice: the surest counts), line 9 gone, line 12 a recorded miss, line 20 new
    path.write_text(json.dumps({REPO: [finding(3, "TFD002", "possible"), finding(3, "TFD002", "possible"),
                                       finding(12, "TFH002", "likely"), finding(20, "TFD001", "possible")]}))
    return path


def run(manifest: Path, *args: str) -> int:
    return labels.main(["--manifest", str(manifest), *args])


def test_diff_lists_what_changed_against_the_labels(manifest, findings, capsys):
    before = manifest.read_text()
    assert run(manifest, "diff", str(findings), "-v") == 1  # two findings have no label
    output = capsys.readouterr().out
    assert "confidence likely -> possible: right ('owner/name', 'train.py', None, 3, 'TFD002')" in output
    assert "no longer reported: right likely ('owner/name', 'train.py', None, 9, 'TFH004')" in output
    assert "# a recorded miss, now reported: an eager step" in output
    unlabelled = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    assert [(entry["line"], entry["rule"], entry["label"]) for entry in unlabelled] == [
        (12, "TFH002", "TODO"), (20, "TFD001", "TODO")]
    assert manifest.read_text() == before


def test_sync_sets_confidences_and_add_appends_labels_a_miss_leaves(manifest, findings, tmp_path):
    assert run(manifest, "sync", str(findings)) == 0
    new = tmp_path / "new.jsonl"
    new.write_text(json.dumps({**label(12, "TFH002", "likely"), "cell": None}) + "\n\n" +
                   json.dumps({**label(20, "TFD001", "possible", "wrong"), "should_be": None,
                               "cause": "negligible-work"}) + "\n")
    assert run(manifest, "add", str(new)) == 0

    document = json.loads(manifest.read_text())
    assert [(entry["line"], entry["confidence"]) for entry in document["findings"]] == [
        (3, "possible"), (9, "likely"), (12, "likely"), (20, "possible")]
    assert "cell" not in document["findings"][2] and "should_be" not in document["findings"][3]
    assert document["misses"] == []
    assert sum(line.startswith('{"repo"') for line in manifest.read_text().splitlines()) == 5  # one entry a line
    assert run(manifest, "diff", str(findings)) == 0


def test_a_label_the_manifest_cannot_take_leaves_it_as_it_was(manifest, tmp_path, capsys):
    before = manifest.read_text()
    twice = tmp_path / "twice.jsonl"
    twice.write_text(json.dumps(label(3, "TFD002", "likely")) + "\n")
    incomplete = tmp_path / "incomplete.jsonl"
    incomplete.write_text(json.dumps({**label(30, "TFD001", "likely"), "label": "fine"}) + "\n")

    assert run(manifest, "add", str(twice)) == 2
    assert "train.py:3 TFD002 is there already" in capsys.readouterr().err
    assert run(manifest, "add", str(incomplete)) == 2
    assert "label must be one of right, debatable, wrong" in capsys.readouterr().err
    assert manifest.read_text() == before
    assert not list(tmp_path.glob("*.new"))


def test_missing_lists_the_repos_with_no_snapshot(manifest, tmp_path, capsys):
    assert run(manifest, "missing", "--mirror", str(tmp_path / "mirror")) == 0
    assert capsys.readouterr().out.splitlines() == [REPO]
    snapshot = tmp_path / "mirror" / "owner+name" / "repo"
    (snapshot / "objects").mkdir(parents=True)
    (snapshot / "HEAD").write_text("ref: refs/heads/main\n")
    assert run(manifest, "missing", "--mirror", str(tmp_path / "mirror")) == 0
    assert capsys.readouterr().out == ""
