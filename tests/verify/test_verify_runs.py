"""advisor verify for real: the original and patched tiny repo run under TensorFlow (about a minute on 2 cores)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from advisor.config import DEFAULT_STATE_FILE
from verify_helpers import snapshot

pytest.importorskip("tensorflow")

VERIFY = [sys.executable, "-m", "advisor", "verify", "--warmup", "2", "--steps", "4", "--repeats", "1"]


@pytest.mark.slow
def test_verify_all_measures_compares_losses_and_leaves_the_tree_alone(repo, tmp_path):
    before = snapshot(repo)
    # Run from outside the repo: the saved analysis is found above the script.
    done = subprocess.run([*VERIFY, "--all", "--format", "json", "--", sys.executable, str(repo / "train.py")],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert snapshot(repo) == before
    assert set(result) >= {"patches", "measured_speedup", "predicted", "inside", "parity", "runs"}
    assert len(result["patches"]) >= 2  # the serial map and the missing prefetch
    measured = result["measured_speedup"]
    assert measured["min"] <= measured["median"] <= measured["max"]
    assert result["predicted"]["low"] <= result["predicted"]["high"]
    assert result["inside"] is (result["predicted"]["low"] <= measured["median"] <= result["predicted"]["high"])
    # Same seeds, same data, same order: the losses of the two versions agree.
    assert result["parity"]["ok"] is True
    assert result["parity"]["max_rel_loss_diff"] < 1e-4
    assert [r["variant"] for r in result["runs"]] == ["original", "patched"]
    assert all(r["steps"] == 4 and len(r["loss"]) == 4 for r in result["runs"])
    saved = json.loads((repo / DEFAULT_STATE_FILE).read_text())
    assert [v["patches"] for v in saved["verifications"]] == [result["patches"]]
    # A re-analysis of the unchanged code keeps the measurement.
    subprocess.run([sys.executable, "-m", "advisor", "analyze", str(repo)], capture_output=True)
    assert json.loads((repo / DEFAULT_STATE_FILE).read_text())["verifications"][0]["patches"] == result["patches"]


@pytest.mark.slow
def test_a_patched_script_that_fails_is_a_failed_verification(guarded_repo):
    before = snapshot(guarded_repo)
    done = subprocess.run([*VERIFY, "--all", "--", sys.executable, "train.py"], capture_output=True, text=True,
                          cwd=guarded_repo)
    assert done.returncode == 1
    assert "verification FAILED" in done.stdout
    assert "this pipeline must not prefetch" in done.stdout
    assert snapshot(guarded_repo) == before
    saved = json.loads((guarded_repo / DEFAULT_STATE_FILE).read_text())
    assert "this pipeline must not prefetch" in saved["verifications"][0]["error"]
