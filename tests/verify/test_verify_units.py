"""The parts of verify that need no TensorFlow run: combining predictions, paired ratios, loss parity, paths."""

from __future__ import annotations

import pytest

from advisor.measure import Run, log_differences, max_relative_difference, speedup
from advisor.model import SpeedupEstimate
from advisor.speedup import combine
from advisor.verify import relocate


def test_fixes_on_the_same_part_of_the_step_do_not_multiply():
    prefetch, parallel = SpeedupEstimate(1.22, 1.43, "p"), SpeedupEstimate(1.11, 1.2, "m")
    together = combine([("input wait", prefetch), ("input wait", parallel)])
    assert (together.low, together.high) == pytest.approx((1.22, 1.43))


def test_fixes_on_different_parts_add_their_savings():
    # 20% and 10% of the step saved: 30% saved, 1/0.7.
    together = combine([("input wait", SpeedupEstimate(1.25, 1.25, "a")),
                        ("host time", SpeedupEstimate(1 / 0.9, 1 / 0.9, "b"))])
    assert together.high == pytest.approx(1 / 0.7)
    assert "input wait" in together.basis and "host time" in together.basis


def _run(variant: str, round_number: int, ms: float, losses: list[float]) -> Run:
    logs = [{"step": step, "loss": x, "accuracy": 0.5} for step, x in enumerate(losses)]
    return Run(variant, round_number, [ms, ms * 1.1, ms * 0.9], logs, True)


def test_speedup_is_taken_per_round_then_summarized():
    runs = [_run("original", 0, 100, []), _run("patched", 0, 50, []),
            _run("patched", 1, 80, []), _run("original", 1, 120, []),
            _run("original", 2, 90, []), _run("patched", 2, 90, [])]
    spread = speedup(runs, "original", "patched")
    assert (spread.median, spread.min, spread.max) == pytest.approx((1.5, 1.0, 2.0))


def test_loss_parity_takes_the_largest_relative_difference_per_quantity():
    runs = [_run("original", 0, 10, [2.0, 1.0, 0.5]), _run("patched", 0, 10, [2.0, 1.1, 0.5])]
    differences = log_differences(runs, "original", "patched")
    assert differences == pytest.approx({"loss": 0.1 / 1.1, "accuracy": 0.0})
    assert max_relative_difference([{"step": 3, "loss": 0.0}], [{"step": 3, "loss": 0.0}]) == {"loss": 0.0}
    # steps_per_execution logs only every k-th batch: only the batches both logged are compared.
    assert max_relative_difference([{"step": 1, "loss": 1.0}, {"step": 3, "loss": 1.0}],
                                   [{"step": 3, "loss": 1.1}]) == pytest.approx({"loss": 0.1 / 1.1})


def test_paths_into_the_repo_follow_the_copy(tmp_path):
    repo, copy = tmp_path / "repo", tmp_path / "copy"
    (repo / "sub").mkdir(parents=True)
    (repo / "train.py").write_text("")
    args, cwd = relocate(["python", "train.py", "--steps", "3", "missing.py"], repo, repo, copy)
    assert args == ["python", str(copy / "train.py"), "--steps", "3", "missing.py"] and cwd == copy
    args, cwd = relocate(["python", "repo/train.py"], tmp_path, repo, copy)
    assert args == ["python", str(copy / "train.py")] and cwd == tmp_path  # a working directory outside stays

