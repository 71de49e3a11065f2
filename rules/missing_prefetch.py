"""TFD001: a training pipeline that does not end with ``prefetch``."""

from __future__ import annotations

from typing import Iterable

from advisor.codemods.append_prefetch import AppendPrefetch
from advisor.rule import (Confidence, Evidence, Example, Finding, FixAvailability, Pipeline, Rule, RuleContext, Stage,
                          Verdict, environment_steps, runs_in_parallel, spelling_args, tf1_runtime, typical)

# Stages that do per-element work worth overlapping with the step; a pipeline of in-memory slices, shuffles and
# batches alone prepares a batch in microseconds.
WORK_OPS = frozenset({"map", "interleave", "flat_map", "filter", "map_with_legacy_function", "apply"})
IN_MEMORY_SOURCES = frozenset({"from_tensor_slices", "from_tensors", "range", "zip", "counter"})
# Stages after a prefetch that only count, repeat or pair up elements (`zip` of datasets each made ahead): nothing
# to overlap.
COUNTING_OPS = frozenset({"take", "skip", "repeat", "enumerate", "shard", "zip"})
# Stages that only regroup elements a prefetch made ahead (shuffle a buffer, pad and stack a batch): a copy per
# batch, little to overlap next to the work before the prefetch.
ASSEMBLING_OPS = COUNTING_OPS | {"shuffle", "batch", "padded_batch", "unbatch", "rebatch"}
# The same, applied as TensorFlow 1.x's contrib transformations.
ASSEMBLING_APPLIED = ("batch_and_drop_remainder", "shuffle_and_repeat", "unbatch")
# Sources that end with a prefetch of their own: Keras' directory readers (`prefetch(AUTOTUNE)`, Keras 2.6 and later,
# and 3), and tf.data's CSV and feature readers (their `prefetch_buffer_size` defaults to autotuning).
PREFETCHING_SOURCES = frozenset({"image_dataset_from_directory", "text_dataset_from_directory",
                                 "audio_dataset_from_directory", "make_csv_dataset", "make_batched_features_dataset"})
ROLE_PRIORITY = {"train": 0, "loop": 0, "iter": 0, "distribute": 0, "returned": 1, "validation": 1, "evaluate": 2,
                 "predict": 2, "returned_eval": 2}


class MissingPrefetch(Rule):
    code = "TFD001"
    name = "missing-prefetch"
    title = "Input pipeline is consumed without a final prefetch"
    rationale = (
        "Without `prefetch` at the end of a tf.data pipeline, the next batch is produced only after the current "
        "training step finishes, so input preparation and computation take turns instead of overlapping. "
        "TensorFlow 2.x may inject a prefetch at run time (the `inject_prefetch` optimization, on by default), "
        "so without a profile this is only a possible gain; a capture shows whether a prefetch runs. TensorFlow "
        "1.x injects none (code that calls TF1-only API such as `tf.Session` runs there), unless a TPU infeed "
        "already runs the input ahead of the step."
    )
    fix = "Append `.prefetch(tf.data.AUTOTUNE)` to the pipeline's last transformation."
    fix_availability = FixAvailability.ALWAYS
    speedup_model = "step time -> max(input, compute) + residual: the input time that prefetch can overlap."
    valid = (
        Example("""
            import tensorflow as tf
            ds = tf.data.TFRecordDataset(files).map(parse).batch(2).prefetch(tf.data.AUTOTUNE)
            model.fit(ds)
            """),
        Example("""
            import tensorflow as tf
            ds = tf.data.TFRecordDataset(files).map(parse).batch(2).prefetch(1).with_options(tf.data.Options())
            for batch in ds:
                pass
            """, note="with_options after prefetch adds no stage"),
        Example("""
            import tensorflow as tf
            points = tf.data.TextLineDataset(points_file).map(decode).batch(256).prefetch(4)
            pairs = tf.data.TextLineDataset(pairs_file).map(decode).batch(256).prefetch(4)
            estimator.train(input_fn=lambda: tf.data.Dataset.zip({"points": points, "pairs": pairs}))
            """, note="zip pairs up batches each input made ahead: nothing left to overlap"),
        Example("""
            import numpy as np
            x = np.zeros((8, 2))
            model.fit(x, epochs=1)
            """, note="NumPy input: no tf.data pipeline"),
        Example("""
            import keras
            train_ds = keras.utils.image_dataset_from_directory("train", image_size=(180, 180), batch_size=32)
            model.fit(train_ds.repeat(), steps_per_epoch=1000, epochs=30)
            """, note="Keras' directory readers end their dataset with a prefetch"),
        Example("""
            import tensorflow as tf
            ds = tf.data.Dataset.from_tensor_slices((images, labels)).shuffle(1000).batch(32)
            model.fit(ds, epochs=2)
            """, note="slices of arrays in memory, shuffled and batched: no per-element work to overlap"),
        Example("""
            import tensorflow as tf
            ds = tf.data.TFRecordDataset(files).map(parse, num_parallel_calls=tf.data.AUTOTUNE)
            model.fit(ds)
            """, note="a parallel map works ahead of the step by itself"),
        Example("""
            import tensorflow as tf
            ds = tf.data.TFRecordDataset(files).map(parse).batch(8).prefetch(2)
            for batch in ds.take(100):
                pass
            """, note="take() after the prefetch only counts elements"),
        Example("""
            import tensorflow as tf
            ds = tf.data.TFRecordDataset(files).map(parse).batch(8)
            ds = ds.apply(tf.data.experimental.prefetch_to_device("/gpu:0"))
            model.fit(ds)
            """, note="a prefetch to the device is a prefetch"),
        Example("""
            import tensorflow as tf

            def read_file(path):
                return tf.data.TFRecordDataset(path).map(parse).batch(16)

            ds = tf.data.Dataset.list_files(pattern).interleave(read_file, num_parallel_calls=tf.data.AUTOTUNE)
            ds = ds.unbatch().batch(64).prefetch(tf.data.AUTOTUNE)
            model.fit(ds)
            """, note="a dataset built per element of another (interleave, flat_map): the outer one prefetches"),
    )
    invalid = (
        Example("""
            import tensorflow as tf
            ds = tf.data.Dataset.from_tensor_slices(paths).map(load_image).batch(32)
            model.fit(ds, epochs=2)
            """, line=2, fixed="""
            import tensorflow as tf
            ds = tf.data.Dataset.from_tensor_slices(paths).map(load_image).batch(32).prefetch(tf.data.AUTOTUNE)
            model.fit(ds, epochs=2)
            """),
        Example("""
            from tensorflow import data
            ds = data.TFRecordDataset(files).map(parse)
            ds = ds.prefetch(2)
            ds = ds.batch(8)
            for batch in ds:
                pass
            """, line=4, fixed="""
            from tensorflow import data
            import tensorflow as tf

            ds = data.TFRecordDataset(files).map(parse)
            ds = ds.prefetch(2)
            ds = ds.batch(8).prefetch(tf.data.AUTOTUNE)
            for batch in ds:
                pass
            """, note="prefetch earlier in the chain, not last; tensorflow imported for AUTOTUNE"),
        Example("""
            import tensorflow as tf
            ds = tf.data.TFRecordDataset(files).map(parse).batch(8)
            ds.prefetch(2)
            model.fit(ds)
            """, line=2, fixed="""
            import tensorflow as tf
            ds = tf.data.TFRecordDataset(files).map(parse).batch(8).prefetch(tf.data.AUTOTUNE)
            ds.prefetch(2)
            model.fit(ds)
            """, note="the result of ds.prefetch(2) is discarded"),
        Example("""
            import tensorflow as tf

            def train_input_fn(files):
                return tf.data.TFRecordDataset(files).map(parse).batch(64)

            estimator.train(input_fn=lambda: train_input_fn(files), max_steps=1000)
            """, line=4, fixed="""
            import tensorflow as tf

            def train_input_fn(files):
                return tf.data.TFRecordDataset(files).map(parse).batch(64).prefetch(tf.data.AUTOTUNE)

            estimator.train(input_fn=lambda: train_input_fn(files), max_steps=1000)
            """, note="an Estimator's input function: it trains on what the function returns"),
        Example("""
            import tensorflow as tf
            images = tf.data.TFRecordDataset(files).map(parse).batch(64).make_one_shot_iterator().get_next()
            with tf.Session() as sess:
                sess.run(train_op(images))
            """, line=2, fixed="""
            import tensorflow as tf
            images = tf.data.TFRecordDataset(files).map(parse).batch(64).prefetch(tf.data.experimental.AUTOTUNE).make_one_shot_iterator().get_next()
            with tf.Session() as sess:
                sess.run(train_op(images))
            """, note="TensorFlow 1.x code (`tf.Session`): TF 1.x injects no prefetch, and has no `tf.data.AUTOTUNE`"),
    )

    def check(self, ctx: RuleContext) -> Iterable[Finding]:
        best: dict[int, Pipeline] = {}
        for pipeline in ctx.index.pipelines():
            stages = pipeline.working_stages
            if not stages or stages[-1].op == "prefetch" or _overlapped(stages) or _negligible(stages) \
                    or ctx.queries.built_per_element(pipeline.last_stage):
                continue
            key = id(stages[-1].node)
            if key not in best or ROLE_PRIORITY[pipeline.sink.role] < ROLE_PRIORITY[best[key].sink.role]:
                best[key] = pipeline
        for pipeline in best.values():
            yield self._finding(ctx, pipeline)

    def _finding(self, ctx: RuleContext, pipeline: Pipeline) -> Finding:
        last = pipeline.working_stages[-1]
        sink = pipeline.sink
        sink_location = sink.module.location(sink.node).display
        evidence = [Evidence.source(f"consumed by {sink.described} at {sink_location}; stages: "
                                    f"{' -> '.join(pipeline.ops())}")]
        earlier = [s for s in pipeline.stages if s.op == "prefetch"]
        if earlier:
            line = earlier[-1].module.location(earlier[-1].anchor).line_label
            evidence.append(Evidence.source(f"prefetch on {line} is followed by `{last.op}`, which then runs "
                                            "without overlap"))
        discarded = [d for s in pipeline.stages for d in ctx.index.discarded_after(s) if d.op == "prefetch"]
        if discarded:
            line = discarded[0].module.location(discarded[0].anchor).line_label
            evidence.append(Evidence.source(f"the result of `.prefetch()` on {line} is discarded: tf.data "
                                            "transformations return a new dataset"))
        injected = pipeline.runtime_optimization("inject_prefetch")
        tf1 = ctx.queries.tf1_call(pipeline.modules) if injected is None else None
        tpu = ctx.queries.tpu_training(pipeline.modules) if tf1 is not None else None
        if injected is False:
            static = Verdict(Confidence.LIKELY, typical("prefetch"), tuple(evidence),
                             "its tf.data options turn off the prefetch TensorFlow would inject at run time")
        elif tf1 is not None and tpu is None:
            static = Verdict(Confidence.LIKELY, typical("prefetch"), (*evidence, tf1_runtime(tf1)),
                             "TensorFlow 1.x, which this code runs on, injects none")
        elif tpu is not None:
            static = Verdict(Confidence.POSSIBLE, typical("prefetch"), tuple(evidence),
                             f"the infeed of a TPU (`{tpu.module.node_code(tpu.node.func)}`, "
                             f"{tpu.module.location(tpu.node).display}) already runs the input ahead of the step")
        else:
            static = Verdict(Confidence.POSSIBLE, typical("prefetch"), tuple(evidence),
                             "TensorFlow may inject a prefetch at run time; a profile would tell")
        ahead = _assembled_after(pipeline.working_stages)
        if static.confidence is Confidence.LIKELY and ahead is not None:
            what = "the prefetch" if ahead.op == "prefetch" or ahead.op in PREFETCHING_SOURCES else \
                f"the parallel `{ahead.op}` on {ahead.module.location(ahead.anchor).line_label}"
            static = Verdict(Confidence.POSSIBLE, static.speedup, (*static.evidence, Evidence.source(
                f"only shuffling and batching run after {what}: the work before them already runs ahead of the "
                "step")), static.note)
        if static.confidence is Confidence.LIKELY and _hands_out_memory(ctx, pipeline):
            static = Verdict(Confidence.POSSIBLE, static.speedup, (*static.evidence, Evidence.source(
                "its Python generator only hands out values already in memory (no file read, no array or image "
                "work per element), and no stage after it works: a batch is ready long before a step ends")),
                static.note)
        use = ctx.queries.evaluation_use(pipeline)
        if use is not None and static.confidence is Confidence.LIKELY:
            static = Verdict(Confidence.POSSIBLE, static.speedup, (*static.evidence, Evidence.source(
                f"it feeds {use}: not the input every training step waits for")), static.note)
        environment = ctx.queries.pipeline_environment(pipeline) if static.confidence is Confidence.LIKELY else None
        if environment is not None:
            # Reinforcement learning: the updates wait on the environment's Python steps between them, not on input.
            static = Verdict(Confidence.POSSIBLE, static.speedup, (*static.evidence, environment_steps(
                environment, "the updates wait on those more than on this input")), static.note)
        verdict = ctx.verdicts.tfdata_chain(pipeline, static)
        message = (f"The {sink.described} input pipeline ends with `.{last.op}()` and no `.prefetch()`: the next "
                   f"batch is prepared only after each step ({verdict.note}).")
        priority = ROLE_PRIORITY[sink.role] if ctx.queries.feeds_training(pipeline) or not sink.is_training \
            else ROLE_PRIORITY["evaluate"]  # a loop over a dataset that trains nothing
        return self.finding(last.module, last.anchor, message, verdict,
                            reach=ctx.queries.pipeline_reach(pipeline), codemod=AppendPrefetch,
                            fix_args=spelling_args(ctx, pipeline.modules), priority=priority,
                            end_node=last.node)


# Transformations applied with `.apply()` that already work ahead of the step: a fused map-and-batch, a prefetch to
# the device (`tf.data.experimental.prefetch_to_device`).
OVERLAPPING_APPLIED = ("map_and_batch", "prefetch_to_device")


def _overlapped(stages: list[Stage]) -> bool:
    """Input already overlaps the step: the last stage runs its work in parallel in the background (a map or
    interleave with parallel calls, a fused map-and-batch), or only counting stages follow a prefetch (or a Keras
    directory reader, which ends with one)."""
    last = stages[-1]
    if runs_in_parallel(last) or (last.op == "apply" and any(
            transformation in last.module.node_code(last.node) for transformation in OVERLAPPING_APPLIED)):
        return True
    return _only_after_prefetch(stages, COUNTING_OPS)


def _only_after_prefetch(stages: list[Stage], ops: frozenset[str]) -> bool:
    """Whether a prefetch (or a source that ends with one) is followed only by stages among ``ops``."""
    prefetches = [i for i, s in enumerate(stages) if s.op == "prefetch" or s.op in PREFETCHING_SOURCES]
    return bool(prefetches) and all(s.op in ops for s in stages[prefetches[-1] + 1:])


def _assembled_after(stages: list[Stage]) -> Stage | None:
    """The last stage that works ahead of the step by itself (a prefetch, a source ending with one, a map or
    interleave with parallel calls, which keeps that many elements in flight), where only stages that regroup
    elements follow it (``ASSEMBLING_OPS``, or a batch or shuffle applied: ``apply(batch_and_drop_remainder(n))``)."""
    ahead = [i for i, s in enumerate(stages)
             if s.op == "prefetch" or s.op in PREFETCHING_SOURCES or (s.op in WORK_OPS and runs_in_parallel(s))]
    if not ahead:
        return None
    assembling = all(s.op in ASSEMBLING_OPS or s.op == "apply" and any(
        transformation in s.module.node_code(s.node) for transformation in ASSEMBLING_APPLIED)
        for s in stages[ahead[-1] + 1:])
    return stages[ahead[-1]] if assembling else None


def _hands_out_memory(ctx: RuleContext, pipeline: Pipeline) -> bool:
    """A pipeline whose source is a Python generator doing no work per element but handing out what it holds
    (``yield tokens[i:i + window]``), with no working stage after it."""
    source = pipeline.stages[0]
    if not (source.is_source and source.op == "from_generator") or any(s.op in WORK_OPS for s in pipeline.stages):
        return False
    return ctx.queries.generator_work(source) == []


def _negligible(stages: list[Stage]) -> bool:
    """A pipeline over data in memory with no per-element work: nothing for a prefetch to overlap."""
    return stages[0].is_source and stages[0].op in IN_MEMORY_SOURCES and not any(s.op in WORK_OPS for s in stages)
