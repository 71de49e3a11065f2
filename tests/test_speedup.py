"""The speedup models: ranges from profile shares, Amdahl's law, and their limits (properties, with hypothesis)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from advisor import speedup

shares = st.floats(min_value=0.0, max_value=0.99, allow_nan=False)


@given(shares)
def test_every_model_gives_an_ordered_range_at_or_above_one(share):
    for estimate in (speedup.input_overlap(share), speedup.throttle(share, 10),
                     speedup.bounded_by_share(share, "x"), speedup.amdahl(share, 3.0, "x"),
                     speedup.parallel_stage(share, 1, 4, share), speedup.padded_dimension(30, 8, share)):
        assert 1.0 <= estimate.low <= estimate.high
        assert estimate.basis


@given(shares)
def test_removing_a_share_is_amdahl(share):
    assert speedup.bounded_by_share(share, "x").high == pytest.approx(1 / (1 - share))


def test_overlap_hides_the_smaller_of_input_and_compute():
    assert speedup.input_overlap(0.3).high == pytest.approx(1 / 0.7)
    assert speedup.input_overlap(0.7).high == pytest.approx(1 / 0.7)  # compute is 30%: that is all it can hide
    assert speedup.input_overlap(0.0).high == 1.0


def test_a_parallel_stage_is_bounded_by_the_cpu_budget_and_the_input_wait():
    assert speedup.parallel_stage(0.4, 1, 2).high == pytest.approx(1 / (1 - 0.2))
    assert speedup.parallel_stage(0.4, 2, 2).high == 1.0  # already at the budget
    assert speedup.parallel_stage(0.4, 1, 8, input_share=0.1).high == pytest.approx(1 / 0.9)


def test_throttling_removes_all_but_one_nth_of_the_gap():
    assert speedup.throttle(0.5, 10).high == pytest.approx(1 / (1 - 0.45))


def test_shared_cores_promise_nothing_at_the_low_end_on_cpu_only_runs():
    estimate = speedup.input_overlap(0.3)
    assert speedup.on_shared_cores(estimate, cpu_only=False) == estimate
    shared = speedup.on_shared_cores(estimate, cpu_only=True)
    assert (shared.low, shared.high) == (1.0, estimate.high) and "CPU-only" in shared.basis


def test_typical_ranges_say_they_are_typical():
    assert "typical range without a profile" in speedup.typical("prefetch").basis
