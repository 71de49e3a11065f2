"""benchmarks/scale_capture.py makes captures that advisor and the converter read as longer runs of the template."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from advisor.profile.loader import load_profile
from profile_fixtures import capture_file

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from scale_capture import scale  # noqa: E402


def test_a_scaled_capture_is_the_template_run_for_more_steps(tmp_path):
    template = capture_file("input_bound_markers")
    scaled = tmp_path / "plugins" / "profile" / "scaled" / "vm.xplane.pb"
    scaled.parent.mkdir(parents=True)
    done = scale(template, scaled, 4_000_000)
    assert abs(done["bytes"] - 4_000_000) <= done["copy_bytes"] / 2

    before, after = load_profile(template), load_profile(scaled)  # both small enough for the converter
    assert not after.warnings
    # Each copy repeats the window of 19 steps; the step markers stay distinct, so the converter counts them all.
    marked = before.steps.count + (done["copies"] - 1) * done["steps_per_copy"]
    assert after.steps.count == pytest.approx(marked, abs=2)
    assert after.steps.step_time_ms.avg == pytest.approx(before.steps.step_time_ms.avg, rel=0.1)
    assert after.breakdown_pct["input"] == pytest.approx(before.breakdown_pct["input"], abs=3)
    # The same iterators, with the window's calls repeated.
    old = {it.name: it for it in before.input_pipeline.iterators}
    new = {it.name: it for it in after.input_pipeline.iterators}
    assert set(new) == set(old)
    root = "Iterator::Root::MapAndBatch"
    assert new[root].count == pytest.approx(old[root].count * after.steps.count / before.steps.count, rel=0.1)
    assert new[root].parallelism == old[root].parallelism == 1
