"""The parts of verify that need no TensorFlow run: combining predictions, the speedup statistic and its verdicts,
loss parity, paths, and what `apply --verified` accepts."""

from __future__ import annotations

import random
import statistics

import pytest
from hypothesis import given
from hypothesis import strategies as st

from advisor.measure import CPU, FASTER, INCONCLUSIVE, NO_GAIN, SLOWER, STEP, Estimate, Run, StoppingRule, \
    cpu_ms_per_step, estimate, log_differences, max_relative_difference, median_interval
from advisor.model import SpeedupEstimate
from advisor.speedup import combine
from advisor.verify import changed_statements, relocate


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


# -- the interval of the median ------------------------------------------------------------------------------------


def test_the_median_interval_uses_the_order_statistics_the_binomial_allows():
    values = [float(v) for v in range(1, 21)]
    # 95% needs 6 values ([min, max] covers 1 - 2/64); 5 cannot reach it (1 - 2/32 = 0.9375).
    assert median_interval(values[:5], 0.95) is None
    assert median_interval(values[:5], 0.90) == (1.0, 5.0)
    assert median_interval(values[:6], 0.95) == (1.0, 6.0)
    # 9 values: [x(2), x(8)] covers 1 - 2 * 10/512 = 0.961; [x(3), x(7)] only 0.820.
    assert median_interval(values[:9], 0.95) == (2.0, 8.0)
    # 20 values: [x(6), x(15)] covers 0.959.
    assert median_interval(values, 0.95) == (6.0, 15.0)


@given(st.lists(st.floats(0.1, 10.0), min_size=6, max_size=40))
def test_the_median_interval_holds_the_median(values):
    low, high = median_interval(values, 0.95)
    assert low <= statistics.median(values) <= high


def test_the_median_interval_covers_the_true_median_as_often_as_it_claims():
    # Skewed, heavy-tailed ratios like those of a loaded machine: lognormal around a true median of 1.3.
    generator = random.Random(0)
    trials, covered = 2000, 0
    for _ in range(trials):
        ratios = [1.3 * generator.lognormvariate(0, 0.3) for _ in range(10)]
        low, high = median_interval(ratios, 0.95)
        covered += low <= 1.3 <= high
    assert covered / trials >= 0.95 - 0.015  # 0.95 claimed (0.979 exactly for 10 values), sampling error ~0.005


def _estimate(*ratios: float) -> Estimate:
    return Estimate(STEP, ratios, 0.95)


def test_verdicts_follow_where_the_interval_lies():
    assert _estimate(1.2, 1.3, 1.25, 1.4, 1.22, 1.31).verdict == FASTER
    assert _estimate(0.7, 0.8, 0.75, 0.9, 0.72, 0.81).verdict == SLOWER
    assert _estimate(0.99, 1.01, 1.0, 1.02, 0.98, 1.03).verdict == NO_GAIN
    # A small gain inside the band is no gain; an interval that straddles 1 beyond the band decides nothing.
    assert _estimate(1.01, 1.02, 1.03, 1.04, 1.02, 1.03).verdict == NO_GAIN
    assert _estimate(0.8, 1.3, 1.0, 1.1, 0.9, 1.2).verdict == INCONCLUSIVE
    assert _estimate(1.5, 1.6, 1.7).verdict == INCONCLUSIVE  # too few rounds for a 95% interval


def test_a_settled_estimate_decides_and_is_narrow():
    assert _estimate(1.2, 1.3, 1.25, 1.33, 1.22, 1.31).settled(0.15)
    assert not _estimate(1.2, 1.9, 1.25, 1.33, 1.22, 1.31).settled(0.15)  # faster, but 1.2-1.9 is too wide
    assert not _estimate(0.8, 1.3, 1.0, 1.1, 0.9, 1.2).settled(10.0)  # wide enough, but inconclusive


def test_stopping_rules_refuse_impossible_bounds():
    with pytest.raises(ValueError):
        StoppingRule(min_rounds=8, max_rounds=4)
    with pytest.raises(ValueError):
        StoppingRule(confidence=1.0)


# -- runs, figures, parity -----------------------------------------------------------------------------------------


def _run(variant: str, round_number: int, ms: float, losses: list[float] = (), cpu: float | None = None) -> Run:
    logs = [{"step": step, "loss": x, "accuracy": 0.5} for step, x in enumerate(losses)]
    return Run(variant, round_number, [ms, ms * 1.1, ms * 0.9], cpu, logs, True, 1.0)


def test_speedup_is_taken_per_round_on_the_chosen_figure():
    runs = [_run("original", 0, 100, cpu=40), _run("patched", 0, 50, cpu=40),
            _run("patched", 1, 80, cpu=20), _run("original", 1, 120, cpu=40),
            _run("original", 2, 90, cpu=30), _run("patched", 2, 90, cpu=30)]
    assert estimate(runs, "original", "patched", STEP, 0.95).ratios == pytest.approx((2.0, 1.5, 1.0))
    assert estimate(runs, "original", "patched", CPU, 0.95).ratios == pytest.approx((1.0, 2.0, 1.0))


def test_cpu_time_per_step_covers_the_measured_steps_only():
    # [batches completed, CPU seconds]: 2 warm-up batches, then 3 batches costing 0.1 s each.
    marks = [[0, 1.0], [1, 1.5], [2, 1.7], [3, 1.8], [4, 1.9], [5, 2.0]]
    assert cpu_ms_per_step(marks, warmup=2) == pytest.approx(100.0)
    # steps_per_execution=2: the execution ending at batch 4 is the first mark past the warm-up.
    assert cpu_ms_per_step([[0, 0.0], [2, 1.0], [4, 1.2], [6, 1.6]], warmup=3) == pytest.approx(200.0)
    assert cpu_ms_per_step([[0, 0.0], [2, 1.0]], warmup=2) is None  # no whole measured step


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


def test_an_added_decorator_watches_the_definition_it_decorates():
    original = "import tensorflow as tf\n\n\ndef step(x):\n    return x\n\n\nstep(1)\n"
    patched = "import tensorflow as tf\n\n\n@tf.function\ndef step(x):\n    return x\n\n\nstep(1)\n"
    # The decorator is evaluated when the `def` runs: its lines are the definition's, from the decorator on.
    assert changed_statements(original, patched) == [4, 5, 6]
    assert changed_statements(original, original.replace("step(1)", "step(2)")) == [8]
