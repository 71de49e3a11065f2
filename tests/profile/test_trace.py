"""trace.py's interval arithmetic and tf.function attribution on hand-made events (no capture needed)."""

from __future__ import annotations

import pytest

from advisor.profile import trace

MS = int(trace.PS_PER_MS)


def _steps(*bounds: int) -> trace.RecoveredSteps:
    intervals = [(a * MS, b * MS) for a, b in zip(bounds, bounds[1:])]
    return trace.RecoveredSteps("trace", "loop", intervals, [0] * len(intervals))


def test_eager_facts_count_nested_events_once_and_clip_them_to_the_steps():
    events = trace._EagerEvents(
        op_starts=[1 * MS, 2 * MS, 12 * MS, 25 * MS],  # the last one after the steps
        # A slow-path dispatch nested in a fast-path one counts once; the one across the step boundary is split.
        dispatch=[(1 * MS, 5 * MS), (2 * MS, 3 * MS), (9 * MS, 13 * MS)],
        kernel=[(2 * MS, 3 * MS), (12 * MS, 13 * MS)],
    )
    facts = trace.eager_facts(_steps(0, 10, 20), events)
    assert facts["ops_per_step"] == 1.5
    assert facts["dispatch_ms_per_step"] == pytest.approx(4.0)  # (4 + 1) + 3 over two steps
    assert facts["kernel_ms_per_step"] == pytest.approx(1.0)
    assert facts["share_pct"] == pytest.approx(90.0)


def test_graph_building_counts_for_the_innermost_function_being_called():
    outer = trace.FunctionCall((0, 100), "train_step", traced=True, tracing_count=3)
    inner = trace.FunctionCall((20, 40), "helper", traced=True, tracing_count=1)
    later = trace.FunctionCall((200, 210), "train_step", traced=False, tracing_count=3)
    facts = trace.tracing_facts([later, inner, outer], graph_building=[(5, 90), (25, 35)])
    assert facts == [
        {"function": "train_step", "calls": 2, "traces": 1, "tracing_ms": 85 / MS, "total_traces": 3},
        {"function": "helper", "calls": 1, "traces": 1, "tracing_ms": 10 / MS, "total_traces": 1},
    ]
