"""Each consistency check behind `confirmed`, pinned with a real capture on each side (issue #12).

The captures come from scripts shaped like real ones: one script whose flag picks one of four pipelines
(samples/pipelines), a callback registered only under a flag (samples/conditional_callback), a callback class
defined but never registered (samples/tiny_batch_unused_callback), an eager step written inline in the loop
(samples/inline_eager, captured once as `python` and once as `python3`). No TensorFlow needed.
"""

from __future__ import annotations

import pytest

from advisor.config import Settings
from advisor.engine import analyze
from advisor.model import Confidence, Finding
from profile_fixtures import PROFILES

SAMPLES = PROFILES.parent


def _findings(sample: str, capture: str, code: str) -> dict[int, Finding]:
    report = analyze(SAMPLES / sample, PROFILES / capture, Settings(select=(code,), show_all=True))
    return {f.location.line: f for f in report.findings}


def _line_of(sample: str, text: str) -> int:
    lines = (SAMPLES / sample / "train.py").read_text().splitlines()
    return next(number for number, line in enumerate(lines, 1) if text in line)


@pytest.mark.parametrize(("capture", "ran", "did_not_run"), [
    ("pipelines_pyfunc", "tf.py_function(", "tf.numpy_function(band_energies"),
    ("pipelines_numpyfunc", "tf.numpy_function(band_energies", "tf.py_function("),
])
def test_the_python_op_kind_tells_which_python_function_ran(capture, ran, did_not_run):
    """EagerPyFunc is py_function, PyFunc numpy_function: only the call whose op kind the capture shows, in the
    pipeline that ran, is confirmed; the other is not."""
    findings = _findings("pipelines", capture, "TFD003")
    assert findings[_line_of("pipelines", ran)].confidence is Confidence.CONFIRMED
    assert findings[_line_of("pipelines", did_not_run)].confidence is Confidence.POSSIBLE


@pytest.mark.parametrize(("capture", "mapped"), [
    ("pipelines_serial", "ds.map(augmented_features)"),
    ("pipelines_io", "ds.map(load_shard)"),
])
def test_of_a_script_s_pipelines_chosen_by_a_flag_only_the_one_that_ran_is_confirmed(capture, mapped):
    """Each branch of the flag's if/elif makes its own pipeline; the runtime chain (list_files runs as a Shuffle over
    TensorSlice) and the ops the others would run (Python functions the capture does not show) pick the one."""
    findings = _findings("pipelines", capture, "TFD002")
    confirmed = [line for line, f in findings.items() if f.confidence is Confidence.CONFIRMED]
    assert confirmed == [_line_of("pipelines", mapped)]


def test_a_callback_registered_under_a_flag_is_confirmed_only_in_the_run_that_registered_it():
    """The capture with the flag on has a 10 ms gap between steps (over 5x Keras' own); with it off, under 1 ms."""
    hook = _line_of("conditional_callback", "def on_train_batch_end")
    on = _findings("conditional_callback", "conditional_callback_on", "TFH001")[hook]
    off = _findings("conditional_callback", "conditional_callback", "TFH001")[hook]
    assert on.confidence is Confidence.CONFIRMED
    assert off.confidence is Confidence.LIKELY
    assert any("does not register it on every run" in e.message for e in off.evidence)


def test_the_python_tracer_confirms_a_conditionally_registered_callback_by_its_frames():
    hook = _line_of("conditional_callback", "def on_train_batch_end")
    finding = _findings("conditional_callback", "conditional_callback_on_python_tracer", "TFH001")[hook]
    assert finding.confidence is Confidence.CONFIRMED
    assert any(e.message.startswith("python tracer:") for e in finding.evidence)


def test_a_callback_no_training_registers_is_not_confirmed_by_a_host_gap():
    """The class sleeps 20 ms per batch, but no fit call is given it: the 0.4 ms between steps (23% of a 1.7 ms
    step) is Keras' own work, and the finding is neither confirmed nor shown by default."""
    shown = analyze(SAMPLES / "tiny_batch_unused_callback", PROFILES / "tiny_batch_unused_callback",
                    Settings(select=("TFH001",)))
    assert shown.findings == []
    (finding,) = _findings("tiny_batch_unused_callback", "tiny_batch_unused_callback", "TFH001").values()
    assert finding.confidence is not Confidence.CONFIRMED
    assert any("given it nowhere advisor can see" in e.message for e in finding.evidence)


@pytest.mark.parametrize("capture", ["inline_eager", "inline_eager_python3"])
def test_an_eager_step_written_inline_is_confirmed_at_its_gradient_tape(capture):
    """Steps are recovered from the loop's GetNext calls on the main thread, whatever the interpreter's name."""
    (finding,) = _findings("inline_eager", capture, "TFH002").values()
    assert finding.location.line == _line_of("inline_eager", "with tf.GradientTape() as tape:")
    assert finding.confidence is Confidence.CONFIRMED and finding.patch is None
