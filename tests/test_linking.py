"""Runtime linking: the tf.data iterator chains of real captures (and hand-made iterator trees for cases no capture
has) lined up with the source pipelines that ran them."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from advisor.linking import RuntimeChain, match_pipelines, runtime_chains
from advisor.profile.facts import Iterator
from advisor.profile.loader import load_profile
from advisor.source.facts import Pipeline

PROFILES = Path(__file__).resolve().parents[1] / "samples" / "profiles"


@pytest.fixture(scope="module")
def captured() -> Callable[[str], list[Iterator]]:
    """The runtime iterators of a committed capture in samples/profiles/, converted once for this module."""
    loaded: dict[str, list[Iterator]] = {}

    def iterators(name: str) -> list[Iterator]:
        if name not in loaded:
            loaded[name] = load_profile(PROFILES / name).input_pipeline.iterators
        return loaded[name]

    return iterators


def iterator(name: str, parallelism: int | None = None) -> Iterator:
    """A hand-made iterator as a capture names it (``Iterator::Root::Prefetch::Map``)."""
    return Iterator(name, name.rsplit("::", 1)[-1], None, 10, 5.0, 1.0, parallelism, None, None, None)


def stages(chain: RuntimeChain) -> list[str]:
    return [it.stage for it in chain.iterators]


def runs_as(pipeline: Pipeline, iterator_of: dict[int, Iterator]) -> dict[str, str]:
    """Source operation -> the runtime stage that ran it, for the stages that were aligned."""
    return {s.op: iterator_of[id(s.node)].stage for s in pipeline.stages if id(s.node) in iterator_of}


NAIVE = """\
import tensorflow as tf
ds = tf.data.Dataset.from_tensor_slices((x, y)).map(augment).batch(32)
for batch in ds:
    step(batch)
"""

# -- runtime chains -------------------------------------------------------------------------------------------------


def test_chains_are_read_source_first_from_the_iterator_names_of_a_capture(captured):
    (chain,) = runtime_chains(captured("custom_loop"))
    assert stages(chain) == ["TensorSlice", "MapAndBatch"]  # the Root iterator is no stage
    map_and_batch = chain.iterators[1]
    assert (map_and_batch.parallelism, map_and_batch.batch_size) == (1, 32)
    assert chain.expanded() == [("from_tensor_slices", chain.iterators[0]), ("map", map_and_batch),
                                ("batch", map_and_batch)]
    assert not chain.has_prefetch


def test_every_leaf_of_an_iterator_tree_is_a_chain():
    tree = [iterator("Iterator::Root"), iterator("Iterator::Root::Prefetch"),
            iterator("Iterator::Root::Prefetch::Zip"), iterator("Iterator::Root::Prefetch::Zip::TFRecord"),
            iterator("Iterator::Root::Prefetch::Zip::Range")]
    assert [stages(c) for c in runtime_chains(tree)] == [["Range", "Zip", "Prefetch"], ["TFRecord", "Zip", "Prefetch"]]
    assert all(c.has_prefetch for c in runtime_chains(tree))


def test_a_stage_missing_from_the_capture_is_skipped_in_its_chain():
    # The per-iterator table keeps the iterators that ran in the capture's window: a parent may be absent.
    tree = [iterator("Iterator::Root::Prefetch::ParallelMapV2::BatchV2::TensorSlice"),
            iterator("Iterator::Root::Prefetch::ParallelMapV2")]
    (chain,) = runtime_chains(tree)
    assert stages(chain) == ["TensorSlice", "ParallelMapV2"]


def test_an_unknown_runtime_stage_stands_for_itself_lowercased():
    (chain,) = runtime_chains([iterator("Iterator::Root::ShuffleAndRepeat"),
                               iterator("Iterator::Root::ShuffleAndRepeat::SomethingNew")])
    assert [op for op, _ in chain.expanded()] == ["somethingnew", "shuffle", "repeat"]


def test_a_tree_of_only_the_root_has_no_chain():
    assert runtime_chains([iterator("Iterator::Root")]) == []
    assert runtime_chains([]) == []


# -- matching ---------------------------------------------------------------------------------------------------


def test_a_fused_map_and_batch_runs_both_source_stages(captured, index_of):
    index = index_of(code=NAIVE)
    (match,) = match_pipelines(index.pipelines(), captured("custom_loop"))
    assert match.score == 1.0 and match.candidates == 1
    assert runs_as(match.pipeline, match.iterator_of) == {"from_tensor_slices": "TensorSlice", "map": "MapAndBatch",
                                                          "batch": "MapAndBatch"}
    map_stage, batch_stage = match.pipeline.stages[1:]
    assert match.iterator_of[id(map_stage.node)] is match.iterator_of[id(batch_stage.node)]


@pytest.mark.parametrize("prefetch", ["", ".prefetch(tf.data.AUTOTUNE)"])
def test_a_prefetch_injected_at_run_time_or_written_in_the_source_is_left_out_of_the_alignment(captured, index_of,
                                                                                             prefetch: str):
    # eager_loop ran TensorSlice <- MapAndBatch <- Prefetch (autotuned): TensorFlow injects the prefetch.
    index = index_of(code=NAIVE.replace(".batch(32)", f".batch(32){prefetch}"))
    (match,) = match_pipelines(index.pipelines(), captured("eager_loop"))
    assert match.score == 1.0 and match.chain.has_prefetch
    assert "prefetch" not in runs_as(match.pipeline, match.iterator_of)


def test_with_options_is_left_out_of_the_alignment(captured, index_of):
    index = index_of(code=NAIVE.replace(".batch(32)", ".batch(32).with_options(options)"))
    (match,) = match_pipelines(index.pipelines(), captured("custom_loop"))
    assert match.score == 1.0


def test_the_chain_of_a_reordered_pipeline_lines_up_with_its_source_order(captured, index_of):
    index = index_of(code="""
        import tensorflow as tf
        ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(1024).batch(64).map(augment)
        model.fit(ds)
        """)
    (match,) = match_pipelines(index.pipelines(), captured("tuned"))
    assert match.score == 1.0
    assert runs_as(match.pipeline, match.iterator_of) == {"from_tensor_slices": "TensorSlice", "shuffle": "Shuffle",
                                                          "batch": "BatchV2", "map": "ParallelMapV2"}


def test_from_generator_lines_up_with_the_generator_it_runs(captured, index_of):
    # TensorFlow runs from_generator as a FlatMap whose inner iterator is `FlatMap[0]::Generator`.
    index = index_of(code="""
        import tensorflow as tf
        ds = tf.data.Dataset.from_generator(sequences, output_signature=spec)
        for batch in ds.padded_batch(16, drop_remainder=True).prefetch(tf.data.AUTOTUNE):
            pass
        """)
    best = max(match_pipelines(index.pipelines(), captured("retracing")), key=lambda match: match.score)
    assert stages(best.chain) == ["Generator", "PaddedBatchV2", "Prefetch"] and best.score == 1.0
    assert runs_as(best.pipeline, best.iterator_of) == {"from_generator": "Generator",
                                                        "padded_batch": "PaddedBatchV2"}


def test_a_pipeline_that_shares_too_little_with_a_chain_is_not_matched(captured, index_of):
    index = index_of(code="""
        import tensorflow as tf
        model.fit(tf.data.TFRecordDataset(files).interleave(read).repeat().batch(8))
        """)
    assert match_pipelines(index.pipelines(), captured("tuned")) == []
    assert match_pipelines(index.pipelines(), captured("tuned"), min_score=0.2) != []


def test_equally_good_pipelines_are_all_returned_and_counted(captured, index_of):
    index = index_of({"a.py": NAIVE, "b.py": NAIVE})
    matches = match_pipelines(index.pipelines(), captured("custom_loop"))
    assert len(matches) == 2 and {m.pipeline.sink.module.name for m in matches} == {"a", "b"}
    assert all(m.candidates == 2 and m.score == 1.0 for m in matches)


def test_one_pipeline_consumed_twice_is_one_candidate(captured, index_of):
    index = index_of(code=NAIVE + "for batch in ds:\n    pass\n")
    matches = match_pipelines(index.pipelines(), captured("custom_loop"))
    assert len(matches) == 2 and all(m.candidates == 1 for m in matches)


def test_a_training_pipeline_wins_a_tie_against_a_validation_one(captured, index_of):
    index = index_of(code="""
        import tensorflow as tf
        val = tf.data.Dataset.from_tensor_slices(held_out).map(augment).batch(32)
        train = tf.data.Dataset.from_tensor_slices(data).map(augment).batch(32)
        model.fit(train, validation_data=val)
        """)
    assert {p.sink.role for p in index.pipelines()} == {"train", "validation"}
    (match,) = match_pipelines(index.pipelines(), captured("custom_loop"))
    assert match.pipeline.sink.role == "train" and match.candidates == 1


def test_a_better_validation_pipeline_still_beats_a_worse_training_one(index_of):
    # Training wins ties only: the chain that ran a shuffle is the pipeline that has one.
    index = index_of(code="""
        import tensorflow as tf
        train = tf.data.Dataset.from_tensor_slices(data).batch(32)
        val = tf.data.Dataset.from_tensor_slices(held_out).shuffle(10).batch(32)
        model.fit(train, validation_data=val)
        """)
    chain = [iterator("Iterator::Root::BatchV2"), iterator("Iterator::Root::BatchV2::Shuffle"),
             iterator("Iterator::Root::BatchV2::Shuffle::TensorSlice")]
    (match,) = match_pipelines(index.pipelines(), chain)
    assert match.pipeline.sink.role == "validation" and match.score == 1.0
