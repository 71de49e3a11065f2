"""`advisor apply --verified`: only fixes measured faster on their own, with matching losses, are applied; every
other one is named with the reason it was held back. The measurements are recorded as `advisor verify` records
them, from given per-round ratios (no TensorFlow run)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from advisor.config import DEFAULT_STATE_FILE
from advisor.measure import CPU, STEP, Estimate
from advisor.state import load_analysis
from advisor.verify import PatchSet, verdict_figure, verified_fixes
from verify_helpers import snapshot

FASTER_ROUNDS = (1.4, 1.5, 1.45, 1.6, 1.38, 1.52)
EVEN_ROUNDS = (0.99, 1.01, 1.0, 1.02, 0.98, 1.01)


def _record(saved, findings, ratios, *, loss_diff=0.0, code_ran=True, error=None) -> None:
    figure, reason = verdict_figure(findings)
    patch_set = PatchSet("alone", findings, None, figure, reason, {}, wall=Estimate(STEP, ratios, 0.95),
                         cpu=Estimate(CPU, ratios, 0.95), max_rel_loss_diff=loss_diff, error=error,
                         ran=code_ran if len(findings) == 1 else None)
    saved.record_verification(patch_set.to_json([], {}, []))


@pytest.fixture
def measured(repo):
    """The tiny repo's three safe fixes: the map measured faster, the prefetch even, the untaken map never ran."""
    saved = load_analysis(repo, DEFAULT_STATE_FILE)
    source = (repo / "train.py").read_text().splitlines()
    fixes = [f for f in saved.findings if f.patch is not None and f.fix.applicability.value == "safe"]
    (serial_map,) = [f for f in fixes if "ds.map(scale)" in source[f.location.line - 1]]
    (unused_map,) = [f for f in fixes if "ds.map(flip)" in source[f.location.line - 1]]
    (prefetch,) = [f for f in fixes if f.code == "TFD001"]
    _record(saved, [serial_map], FASTER_ROUNDS)
    _record(saved, [prefetch], EVEN_ROUNDS)
    _record(saved, [unused_map], EVEN_ROUNDS, code_ran=False)
    _record(saved, fixes, FASTER_ROUNDS)  # together: says nothing about each one
    return repo, saved, (serial_map, prefetch, unused_map)


def test_only_fixes_measured_faster_alone_are_verified(measured):
    _, saved, (serial_map, prefetch, unused_map) = measured
    accepted, held = verified_fixes(saved, [serial_map, prefetch, unused_map])
    assert accepted == [serial_map]
    reasons = dict((f.id, reason) for f, reason in held)
    assert reasons[prefetch.id].startswith("measured no gain: 1.00x (0.98x-1.02x) on wall time per step")
    assert reasons[unused_map.id] == "its code never ran in the measured program"


def test_diverging_losses_a_slowdown_a_failure_and_no_measurement_hold_a_fix_back(measured):
    _, saved, (serial_map, prefetch, unused_map) = measured
    _record(saved, [serial_map], FASTER_ROUNDS, loss_diff=0.2)
    _record(saved, [prefetch], tuple(1 / r for r in FASTER_ROUNDS))
    _record(saved, [unused_map], FASTER_ROUNDS, error="Traceback ...\nValueError: bad shape")
    held = dict((f.id, reason) for f, reason in verified_fixes(saved, [serial_map, prefetch, unused_map])[1])
    assert held[serial_map.id] == "losses diverge (max relative difference 2.00e-01 > 0.01)"
    assert held[prefetch.id].startswith("measured slower: 0.68x (0.62x-0.72x)")
    assert held[unused_map.id] == "the program failed with it: ValueError: bad shape"
    saved.verifications = []
    (_, reason), *_ = verified_fixes(saved, [serial_map])[1]
    assert reason.startswith("not measured alone")


def test_apply_verified_applies_the_faster_fix_and_says_why_the_others_were_held_back(measured):
    repo, _, (serial_map, prefetch, unused_map) = measured
    before = snapshot(repo)
    done = subprocess.run([sys.executable, "-m", "advisor", "apply", "--all", "--verified", "--repo", str(repo)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr  # with --all, holding back is no failure
    assert f"applied {serial_map.code} [{serial_map.id}]" in done.stdout
    assert f"not applied {prefetch.code} [{prefetch.id}]" in done.stderr and "measured no gain" in done.stderr
    assert f"not applied {unused_map.code} [{unused_map.id}]" in done.stderr and "never ran" in done.stderr
    changed = {path for path, digest in snapshot(repo).items() if before.get(path) != digest}
    assert changed == {"train.py"}
    text = (repo / "train.py").read_text()
    assert "ds.map(scale, num_parallel_calls=tf.data.AUTOTUNE)" in text and ".prefetch(" not in text
    # Named by id, a held-back fix is a failure to do what was asked.
    again = subprocess.run([sys.executable, "-m", "advisor", "apply", prefetch.id, "--verified", "--repo", str(repo)],
                           capture_output=True, text=True)
    assert again.returncode == 1 and "measured no gain" in again.stderr
