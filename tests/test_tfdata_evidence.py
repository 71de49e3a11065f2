"""tf.data findings gated by real captures: the runtime iterator chain is linked to the source pipeline, a serial
stage and a missing prefetch are confirmed and sized, and what the runtime already does hides the finding."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from advisor.config import Settings
from advisor.engine import analyze
from advisor.linking import match_pipelines, runtime_chains
from advisor.model import Confidence
from advisor.profile.loader import load_profile
from advisor.source.index import SourceIndex

REPO_ROOT = Path(__file__).resolve().parents[1]
SAMPLES, PROFILES = REPO_ROOT / "samples", REPO_ROOT / "samples" / "profiles"


def test_runtime_chain_of_a_fused_map_and_batch_lines_up_with_the_source_pipeline():
    profile = load_profile(PROFILES / "input_bound")
    index = SourceIndex.read(SAMPLES / "input_bound")
    (match,) = match_pipelines(index.pipelines(), profile.input_pipeline.iterators)
    assert [it.stage for it in match.chain.iterators] == ["TensorSlice", "Shuffle", "MapAndBatch"]
    assert match.score == 1.0 and match.candidates == 1 and not match.chain.has_prefetch
    runs_as = {stage.op: match.iterator_of[id(stage.node)].stage for stage in match.pipeline.stages}
    assert runs_as == {"from_tensor_slices": "TensorSlice", "shuffle": "Shuffle", "map": "MapAndBatch",
                       "batch": "MapAndBatch"}


def test_runtime_chains_are_read_source_first_from_the_iterator_names():
    profile = load_profile(PROFILES / "tuned")
    (chain,) = runtime_chains(profile.input_pipeline.iterators)
    assert [it.stage for it in chain.iterators] == ["TensorSlice", "Shuffle", "BatchV2", "ParallelMapV2", "Prefetch"]
    assert chain.has_prefetch


def test_input_bound_capture_confirms_the_serial_map_and_sizes_both_tf_data_findings():
    report = analyze(SAMPLES / "input_bound", PROFILES / "input_bound", Settings(select=("TFD",)))
    by_code = {f.code: f for f in report.findings}
    assert set(by_code) == {"TFD001", "TFD002"}
    serial_map, prefetch = by_code["TFD002"], by_code["TFD001"]
    assert serial_map.location.path.name == "data.py"
    assert "ds = ds.map(augment)" in (SAMPLES / "input_bound" / "data.py").read_text().splitlines()[
        serial_map.location.line - 1]
    assert serial_map.confidence is Confidence.CONFIRMED
    # A CPU capture cannot show what overlapping input with compute gains: the prefetch is likely, saying why.
    assert prefetch.confidence is Confidence.LIKELY and any("CPU alone" in e.message for e in prefetch.evidence)
    for finding in (serial_map, prefetch):
        assert finding.speedup is not None and "30%" in finding.speedup.basis  # the capture's input wait
        # A CPU-only capture: input work shares the cores with the model, so no gain is promised.
        assert finding.speedup.low == 1.0 and 1.1 < finding.speedup.high < 1.5
    assert any(e.data.get("parallelism") == 1 for e in serial_map.evidence)
    assert report.hidden == 0


@pytest.fixture
def naive_pipeline(tmp_path: Path) -> Path:
    """The tuned sample's pipeline written naively: no parallel calls, no prefetch."""
    (tmp_path / "train.py").write_text(textwrap.dedent("""
        import tensorflow as tf

        def make_dataset(images, labels, batch_size):
            return (
                tf.data.Dataset.from_tensor_slices((images, labels))
                .shuffle(1024, seed=0)
                .batch(batch_size)
                .map(augment)
            )

        model.fit(make_dataset(images, labels, 64), epochs=1)
        """))
    return tmp_path


def test_findings_the_runtime_contradicts_are_hidden_unless_asked(naive_pipeline: Path):
    # The tuned capture ran this chain as ParallelMapV2 (parallelism 2, autotuned) under an injected Prefetch.
    static = analyze(naive_pipeline, None, Settings(select=("TFD",), min_confidence=Confidence.POSSIBLE))
    assert {f.code for f in static.findings} == {"TFD001", "TFD002"}
    gated = analyze(naive_pipeline, PROFILES / "tuned", Settings(select=("TFD",)))
    assert gated.findings == [] and gated.hidden == 2
    shown = analyze(naive_pipeline, PROFILES / "tuned", Settings(select=("TFD",), show_all=True))
    assert {f.code for f in shown.findings} == {"TFD001", "TFD002"}
    for finding in shown.findings:
        assert finding.confidence is Confidence.POSSIBLE and finding.speedup is None
        assert any(e.kind == "contradiction" for e in finding.evidence)
