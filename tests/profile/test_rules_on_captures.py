"""Profile-aware rules on the committed captures of the samples they were written for (no TensorFlow needed)."""

from __future__ import annotations

from pathlib import Path

from advisor.config import Settings
from advisor.engine import analyze
from advisor.model import Confidence, EvidenceKind
from profile_fixtures import PROFILES

SAMPLES = PROFILES.parent


def _analyze(sample: str, capture: str, code: str, show_all: bool = False):
    return analyze(SAMPLES / sample, PROFILES / capture, Settings(select=(code,), show_all=show_all))


def _line_of(sample: str, text: str) -> int:
    lines = (SAMPLES / sample / "train.py").read_text().splitlines()
    return next(number for number, line in enumerate(lines, 1) if line.startswith(text))


def test_eager_step_is_confirmed_at_its_def_with_the_measured_share_and_a_range():
    (finding,) = _analyze("eager_loop", "eager_loop", "TFH002").findings
    assert finding.location.line == _line_of("eager_loop", "def train_step(")
    assert finding.confidence == Confidence.CONFIRMED
    (measured,) = [e for e in finding.evidence if e.kind is EvidenceKind.PROFILE]
    assert measured.data["ops_per_step"] > 100 and measured.data["eager_share_pct"] > 70
    assert 1.5 < finding.speedup.low < finding.speedup.high
    assert "Python and eager dispatch" in finding.speedup.basis
    assert finding.patch is not None


def test_a_capture_of_a_compiled_step_contradicts_the_eager_finding():
    report = _analyze("eager_loop", "eager_loop_tuned", "TFH002")
    assert report.findings == [] and report.hidden == 1
    (finding,) = _analyze("eager_loop", "eager_loop_tuned", "TFH002", show_all=True).findings
    assert finding.confidence == Confidence.POSSIBLE and finding.speedup is None
    assert any(e.kind is EvidenceKind.CONTRADICTION for e in finding.evidence)


def test_a_keras_capture_neither_confirms_nor_contradicts_a_custom_loop():
    (finding,) = _analyze("eager_loop", "tuned", "TFH002").findings
    assert finding.confidence == Confidence.LIKELY
    assert any(e.kind is EvidenceKind.PROFILE and "Keras `fit`" in e.message for e in finding.evidence)


def test_retracing_is_confirmed_with_the_traces_and_tracing_time_of_the_step():
    findings = _analyze("retracing", "retracing", "TFH003").findings
    assert len(findings) == 2  # the Python step counter and the per-batch padding
    for finding in findings:
        assert finding.confidence == Confidence.CONFIRMED
        (measured,) = [e for e in finding.evidence if e.kind is EvidenceKind.PROFILE]
        assert measured.data["function"] == "train_step" and measured.data["traces"] > 1
        assert finding.speedup.high > 2  # tracing takes most of these steps
        assert finding.speedup.basis.startswith("tracing")


def test_the_compiled_twin_has_neither_finding():
    report = analyze(SAMPLES / "eager_loop_tuned", PROFILES / "eager_loop_tuned", Settings(select=("TFH002", "TFH003")))
    assert report.findings == [] and report.hidden == 0
    assert Path(report.profile.path).name == "eager_loop_tuned"


def test_steps_per_execution_is_reported_only_with_a_capture_of_fit_that_spends_its_time_between_steps():
    fixture = Path(__file__).parents[1] / "rules" / "fixtures" / "TFH005" / "model_module"
    assert analyze(fixture, None, Settings(select=("TFH005",))).findings == []
    assert analyze(fixture, PROFILES / "tuned", Settings(select=("TFH005",))).findings == []
    (finding,) = analyze(fixture, PROFILES / "slow_callback", Settings(select=("TFH005",))).findings
    assert (finding.location.path.as_posix(), finding.location.line) == ("models.py", 10)
    assert finding.confidence == Confidence.CONFIRMED
    assert "steps_per_execution=56,\n    )" in finding.patch.new_code


def test_steps_per_execution_on_the_slow_callback_sample_is_sized_from_its_gap():
    (finding,) = _analyze("slow_callback", "slow_callback", "TFH005").findings
    assert finding.location.line == _line_of("slow_callback", "    model.compile(")
    (measured,) = [e for e in finding.evidence if e.kind is EvidenceKind.PROFILE]
    assert measured.data["share"] > 0.40 and finding.fix.args["steps"] > 10
    assert finding.speedup.high > 2  # most of the gap goes
    assert "x (1 - 1/" in finding.speedup.basis
