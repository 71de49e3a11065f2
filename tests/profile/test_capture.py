"""capture() for real: runs a sample under TensorFlow in a child process (about 20-30 s on 2 cores)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from advisor.errors import InputError
from advisor.profile.loader import load_profile
from advisor.profile.capture import capture

SAMPLES = Path(__file__).resolve().parents[2] / "samples"

pytest.importorskip("tensorflow")


@pytest.mark.capture
def test_capture_keras_fit_with_markers(tmp_path, monkeypatch):
    monkeypatch.chdir(SAMPLES / "slow_callback")
    run = capture([sys.executable, "train.py", "--steps", "20"], tmp_path / "logdir", warmup=5, steps=10,
                  python_tracer=False)
    assert run.parent == tmp_path / "logdir" / "plugins" / "profile"
    assert not run.name.endswith(".partial")
    findings = load_profile(tmp_path / "logdir")
    assert findings.steps.source == "markers"
    assert 8 <= findings.steps.count <= 10
    assert findings.host_gaps.avg_ms > 5


@pytest.mark.capture
def test_a_crashing_script_is_an_input_error_with_its_last_line(tmp_path):
    script = tmp_path / "crash.py"
    script.write_text("raise SystemExit('boom: dataset missing')\n")
    with pytest.raises(InputError, match="the training script failed: boom: dataset missing"):
        capture([sys.executable, str(script)], tmp_path / "logdir", warmup=1, steps=2, python_tracer=False)


def test_a_non_python_command_is_refused(tmp_path):
    with pytest.raises(InputError, match="Python training script"):
        capture(["bash", "train.sh"], tmp_path, warmup=1, steps=2, python_tracer=False)


def test_a_missing_script_is_refused_before_starting_python(tmp_path):
    with pytest.raises(InputError, match="train.py: no such script"):
        capture([sys.executable, str(tmp_path / "train.py")], tmp_path / "logdir", warmup=1, steps=2,
                python_tracer=False)
    assert not (tmp_path / "logdir").exists()
