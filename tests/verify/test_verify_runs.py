"""advisor verify for real: the original and patched tiny repo run under TensorFlow (a few minutes on 2 cores)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from advisor.config import DEFAULT_STATE_FILE
from verify_helpers import snapshot

pytest.importorskip("tensorflow")

# One round: these tests check what verify does and records, not the statistic (see test_verify_under_load.py).
VERIFY = [sys.executable, "-m", "advisor", "verify", "--warmup", "2", "--steps", "4", "--min-rounds", "1",
          "--max-rounds", "1"]


def _analysis(repo) -> dict:
    return json.loads((repo / DEFAULT_STATE_FILE).read_text())


@pytest.mark.slow
def test_verify_each_measures_every_fix_alone_and_together_and_leaves_the_tree_alone(repo, tmp_path):
    before = snapshot(repo)
    fixable = {f["id"]: f for f in _analysis(repo)["findings"] if f["fix"] and f["fix"]["applicability"] == "safe"}
    # Run from outside the repo: the saved analysis is found above the script.
    done = subprocess.run([*VERIFY, "--all", "--each", "--format", "json", "--", sys.executable,
                           str(repo / "train.py")], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert snapshot(repo) == before
    together, *alone = result["verifications"]
    assert set(together["patches"]) == set(fixable) and len(fixable) == 3
    assert sorted(a["patches"][0] for a in alone) == sorted(fixable) and all(len(a["patches"]) == 1 for a in alone)
    for record in result["verifications"]:
        measured = record["measured_speedup"]
        assert measured["figure"] == "step" and measured["rounds"] == 1
        assert measured["verdict"] == "inconclusive" and measured["low"] is None  # one round gives no interval
        assert record["predicted"]["low"] <= record["predicted"]["high"]
        assert record["inside"] is (record["predicted"]["low"] <= measured["median"] <= record["predicted"]["high"])
        # Same seeds, same data, same order: the losses of every version agree.
        assert record["parity"]["ok"] is True and record["parity"]["max_rel_loss_diff"] < 1e-4
        assert {r["variant"] for r in record["runs"]} == {"original", record["runs"][-1]["variant"]}
        assert all(r["steps"] == 4 and len(r["loss"]) == 4 and r["cpu_ms_per_step"] > 0 for r in record["runs"])
    # The map in the branch the program never takes: its code never ran; the other fixes' code did.
    ran = {a["patches"][0]: a["code_ran"] for a in alone}
    source = (repo / "train.py").read_text().splitlines()
    (untaken,) = [i for i, f in fixable.items() if "ds.map(flip)" in source[f["line"] - 1]]
    assert ran == {i: i != untaken for i in fixable}
    assert together["code_ran"] is None  # several fixes' code cannot be told apart
    assert result["machine"]["cores"] >= 1 and result["machine"]["load_avg_1m_end"] >= 0
    saved = _analysis(repo)["verifications"]
    assert sorted(map(tuple, (v["patches"] for v in saved))) == sorted(map(tuple, (v["patches"] for v in
                                                                                  result["verifications"])))
    # A re-analysis of the unchanged code keeps the measurements.
    subprocess.run([sys.executable, "-m", "advisor", "analyze", "--min-confidence", "possible", str(repo)],
                   capture_output=True)
    assert len(_analysis(repo)["verifications"]) == 4
    shown = subprocess.run([sys.executable, "-m", "advisor", "analyze", "--min-confidence", "possible", str(repo)],
                           capture_output=True, text=True)
    assert "verified alone: inconclusive (its code never ran)" in shown.stdout


@pytest.mark.slow
def test_a_patched_script_that_fails_is_a_failed_verification(guarded_repo):
    before = snapshot(guarded_repo)
    done = subprocess.run([*VERIFY, "--all", "--", sys.executable, "train.py"], capture_output=True, text=True,
                          cwd=guarded_repo)
    assert done.returncode == 1
    assert "FAILED" in done.stdout and "this pipeline must not prefetch" in done.stdout
    assert snapshot(guarded_repo) == before
    saved = _analysis(guarded_repo)["verifications"]
    assert "this pipeline must not prefetch" in saved[0]["error"]
