"""TFD002: ``Dataset.map`` / ``interleave`` without parallel calls."""

from __future__ import annotations

from typing import Callable, Iterable

import libcst as cst

from advisor.codemods.parallel_map import AddNumParallelCalls
from advisor.rule import (PYTHON_FUNCTION_OPS, Confidence, Evidence, Example, Finding, FixAvailability, Pipeline, Rule,
                          RuleContext, Stage, UNCONSUMED, Verdict, argument_value, cached_results,
                          num_parallel_calls, spelling_args, tf1_runtime, typical)

# A literal this small leaves most cores idle; AUTOTUNE sizes parallelism to the machine and the load.
SMALL_PARALLELISM = 3
# Batches this small make a step wait for one or two mapped elements, which a prefetch makes during the step before.
FEW_PER_STEP = 2
# The stages that group elements into batches: a map after one runs once per step.
BATCHING_OPS = frozenset({"batch", "padded_batch", "ragged_batch", "sparse_batch", "bucket_by_sequence_length",
                          "map_and_batch"})
# The transformations `.apply()` takes that group elements into batches (`tf.data.experimental`'s, contrib's).
APPLIED_BATCHING = frozenset({"dense_to_ragged_batch", "dense_to_sparse_batch", "map_and_batch",
                              "bucket_by_sequence_length", "batch_and_drop_remainder",
                              "padded_batch_and_drop_remainder"})


class SerialMap(Rule):
    code = "TFD002"
    name = "serial-map"
    title = "Dataset map or interleave runs one element at a time"
    rationale = (
        "`Dataset.map(f)` and `Dataset.interleave(f)` without `num_parallel_calls` call `f` on one element at a "
        "time on one core. With `num_parallel_calls=tf.data.AUTOTUNE` tf.data runs as many calls in parallel as "
        "the CPU budget allows. TensorFlow 2.x parallelizes a stateless `map` at run time by default (the "
        "`map_parallelization` optimization), but not a stateful one (random ops, `py_function`), not when "
        "the pipeline's options turn default optimizations off, and not on TensorFlow 1.x (code that calls "
        "TF1-only API such as `tf.Session` or `tf.contrib` runs there); a profile shows which happened."
    )
    fix = "Pass `num_parallel_calls=tf.data.AUTOTUNE`."
    fix_availability = FixAvailability.ALWAYS
    speedup_model = "input time divided by the effective parallelism, bounded by the capture's CPU budget."
    valid = (
        Example("""
            import tensorflow as tf
            ds = tf.data.Dataset.range(10).map(lambda x: x + 1, num_parallel_calls=tf.data.AUTOTUNE)
            """),
        Example("""
            import tensorflow as tf
            AUTOTUNE = tf.data.experimental.AUTOTUNE
            ds = tf.data.Dataset.range(10).map(lambda x: x + 1, AUTOTUNE)
            """, note="AUTOTUNE passed positionally, through a constant"),
        Example("""
            import tensorflow as tf
            options = tf.data.Options()
            options.experimental_optimization.map_parallelization = True
            ds = tf.data.Dataset.range(10).map(lambda x: x + 1).with_options(options)
            for x in ds:
                pass
            """, note="options that ask the runtime to parallelize the map"),
        Example("""
            import functools
            import tensorflow as tf

            def set_shapes(batch_size, images, labels):
                images.set_shape(images.get_shape().merge_with(tf.TensorShape([batch_size, None, None, 3])))
                return images, tf.reshape(labels, [batch_size])

            ds = tf.data.TFRecordDataset(files).map(parse, num_parallel_calls=tf.data.AUTOTUNE).batch(64)
            ds = ds.map(functools.partial(set_shapes, 64)).prefetch(tf.data.AUTOTUNE)
            """, note="a map that only restates shapes (or makes constants) does next to nothing per element"),
        Example("""
            import tensorflow as tf
            to_model_shape = lambda x, y: (tf.reshape(x, model.input_shape), tf.reshape(y, model.output_shape))
            model.fit(tf.data.Dataset.from_tensor_slices((x, y)).batch(8).map(to_model_shape), epochs=3)
            """, note="a lambda bound to a name is read as one written in the call"),
        Example("""
            import tensorflow as tf

            def read_label(record):
                return tf.reshape(tf.io.decode_raw(record, tf.uint8), [])

            labels = tf.data.FixedLengthRecordDataset("train-labels", 1, header_bytes=8).map(read_label)
            """, note="`decode_raw` reads the bytes as numbers: no decoding work per element"),
        Example("""
            import pandas as pd
            s = pd.Series([1, 2]).map(str)
            """, note="not a dataset"),
    )
    invalid = (
        Example("""
            import tensorflow as tf
            ds = tf.data.Dataset.range(10).map(lambda x: x * 2)
            """, line=2, fixed="""
            import tensorflow as tf
            ds = tf.data.Dataset.range(10).map(lambda x: x * 2, num_parallel_calls=tf.data.AUTOTUNE)
            """),
        Example("""
            import tensorflow as tf
            def make(files):
                ds = tf.data.Dataset.from_tensor_slices(files)
                return ds.interleave(tf.data.TFRecordDataset, cycle_length=4, num_parallel_calls=1)
            """, line=4, fixed="""
            import tensorflow as tf
            def make(files):
                ds = tf.data.Dataset.from_tensor_slices(files)
                return ds.interleave(tf.data.TFRecordDataset, cycle_length=4, num_parallel_calls=tf.data.AUTOTUNE)
            """, note="a small literal parallelism"),
        Example("""
            import tensorflow as tf
            def make(files):
                return tf.data.TFRecordDataset(files).map(parse, num_parallel_calls=2)
            """, line=3, files={"requirements.txt": "tensorflow-gpu==2.3.0\n"}, fixed="""
            import tensorflow as tf
            def make(files):
                return tf.data.TFRecordDataset(files).map(parse, num_parallel_calls=tf.data.experimental.AUTOTUNE)
            """, note="the repo pins TensorFlow 2.3, which names AUTOTUNE only under `tf.data.experimental`"),
        Example("""
            import tensorflow as tf
            options = tf.data.Options()
            options.experimental_optimization.apply_default_optimizations = False
            ds = tf.data.Dataset.range(10).map(lambda x: x * 2).with_options(options)
            for x in ds:
                pass
            """, line=4, fixed="""
            import tensorflow as tf
            options = tf.data.Options()
            options.experimental_optimization.apply_default_optimizations = False
            ds = tf.data.Dataset.range(10).map(lambda x: x * 2, num_parallel_calls=tf.data.AUTOTUNE).with_options(options)
            for x in ds:
                pass
            """, note="default optimizations off: the map is serial at run time for sure"),
    )

    def check(self, ctx: RuleContext) -> Iterable[Finding]:
        for stage in ctx.index.stages():
            if stage.op not in ("map", "interleave"):
                continue
            parallelism = num_parallel_calls(stage)
            if parallelism is not None and not _is_small_literal(parallelism.value):
                continue
            finding = self._finding(ctx, stage, parallelism, ctx.queries.pipelines_through(stage))
            if finding is not None:
                yield finding

    def _finding(self, ctx: RuleContext, stage: Stage, parallelism: cst.Arg | None,
                 pipelines: list[Pipeline]) -> Finding | None:
        settings = {p.runtime_optimization("map_parallelization") for p in pipelines}
        if stage.op == "map" and parallelism is None and True in settings:
            return None
        mapped = ctx.queries.mapped_function(stage.node, stage.module)
        if mapped is not None and (mapped.is_projection or ctx.queries.only_restates(mapped)):
            return None  # selecting fields, setting shapes, making constants: nothing worth parallelizing
        stateful = ctx.queries.stateful_calls(mapped) if mapped is not None else []
        python = [site for site in stateful if site.names & PYTHON_FUNCTION_OPS]
        waiting = [w for site in python for w in ctx.queries.waits(site)]
        if python and not waiting and len(python) == len(stateful):
            return None  # Python that computes: the GIL serializes it whatever the parallelism (TFD003's advice)
        modules = [module for p in pipelines for module in p.modules] or [stage.module]
        tf1 = ctx.queries.tf1_call(modules) if parallelism is None and False not in settings else None
        if parallelism is not None:
            stated = f"`num_parallel_calls={stage.module.node_code(parallelism.value)}`"
            message = f"`.{stage.op}()` runs with {stated}: at most that many elements at a time."
            confidence = Confidence.LIKELY
        elif stage.op == "map" and False not in settings and not stateful and tf1 is None:
            message = ("`.map()` has no `num_parallel_calls`, so it runs one element at a time unless TensorFlow "
                       "parallelizes it at run time (it does for stateless functions by default; a profile "
                       "would tell).")
            confidence = Confidence.POSSIBLE
        elif stage.op == "map" and waiting:
            module, waits = waiting[0]
            message = (f"`.map()` has no `num_parallel_calls`, and its Python function waits "
                       f"(`{module.node_code(waits)}`, line {module.location(waits).line}): "
                       "TensorFlow runs it one element at a time, but waiting releases the GIL, so parallel calls run "
                       "several at once.")
            confidence = Confidence.LIKELY
        elif stage.op == "map" and stateful:
            first = stateful[0]
            where = first.module.location(first.node).line_label
            message = (f"`.map()` has no `num_parallel_calls`, and its function is stateful "
                       f"(`{first.module.node_code(first.node.func)}`, {where}): "
                       "TensorFlow does not parallelize stateful maps at run time, so it runs one element at a time.")
            confidence = Confidence.LIKELY
        else:
            message = f"`.{stage.op}()` has no `num_parallel_calls`, so it processes one element at a time."
            confidence = Confidence.LIKELY
        function = stage.module.node_code(stage.node.args[0].value) if stage.node.args else ""
        evidence = [Evidence.source(f"`.{stage.op}({function})` without parallel calls")]
        if ctx.queries.built_per_element(stage):
            # An inner dataset: an outer interleave with parallel calls already runs several of them at once.
            confidence = Confidence.POSSIBLE
            evidence.append(Evidence.source("built for every element of an outer dataset, whose interleave may "
                                            "already run several of these at once"))
        prefetch = _prefetch_after_batching(stage, pipelines) if stage.op == "map" else None
        if prefetch is not None:
            confidence = Confidence.POSSIBLE
            evidence.append(Evidence.source(
                f"it maps whole batches, one call per step, and the `.prefetch()` after it "
                f"({prefetch.module.location(prefetch.anchor).line_label}) makes them while the steps run"))
        single = _prefetched_single_batches(ctx, stage, pipelines) if stage.op == "map" and prefetch is None else None
        if single is not None:
            size, ahead = single
            confidence = Confidence.POSSIBLE
            evidence.append(Evidence.source(
                f"batches of {size}, then a `.prefetch()` ({ahead.module.location(ahead.anchor).line_label}): each "
                f"step takes {'one mapped element' if size == 1 else f'{size} mapped elements'}, made while the step "
                "before runs; the map holds training back only if slower than a whole step"))
        if prefetch is None and stage.op == "map" and mapped is not None and ctx.queries.does_light_work(mapped):
            # Microseconds per element: a batch's worth is a small share of a step, whether or not it overlaps.
            confidence = Confidence.POSSIBLE
            ahead = _prefetch_after(stage, pipelines)
            overlap = (f", and the `.prefetch()` after it ({ahead.module.location(ahead.anchor).line_label}) runs it "
                       "ahead of the steps" if ahead is not None else "")
            evidence.append(Evidence.source(
                f"its function only splits, selects, looks up, slices, shuffles, casts or draws random numbers per "
                f"element{overlap}: "
                "one thread likely keeps up"))
        cache = ctx.queries.cached_after(stage)
        if cache is not None:
            confidence = Confidence.POSSIBLE
            evidence.append(cached_results(cache))
        if not pipelines:
            confidence = Confidence.POSSIBLE
            evidence.append(UNCONSUMED)
        uses = {ctx.queries.evaluation_use(p) for p in pipelines}
        if uses and None not in uses:
            confidence = Confidence.POSSIBLE
            evidence.append(Evidence.source(f"it feeds only {' and '.join(sorted(uses))}: not the input every "
                                            "training step waits for"))
        if stateful:
            evidence.append(Evidence.source("stateful ops in the mapped function: " + ", ".join(
                f"`{site.module.node_code(site.node.func)}` ({site.module.location(site.node).display})"
                for site in stateful[:3])))
        if tf1 is not None:
            evidence.append(tf1_runtime(tf1))
        if False in settings:
            evidence.append(Evidence.source("the pipeline's tf.data options turn off run-time map parallelization"))
        verdict = ctx.verdicts.tfdata_stage(stage, Verdict(confidence, typical("parallel_map"), tuple(evidence)))
        if verdict.note is not None:
            message = f"`.{stage.op}()` {verdict.note}: run it with parallel calls."
        priority = 0 if any(ctx.queries.feeds_training(p) for p in pipelines) else 1
        return self.finding(stage.module, stage.anchor, message, verdict, reach=ctx.queries.stage_reach(stage),
                            codemod=AddNumParallelCalls, fix_args=spelling_args(ctx, modules),
                            priority=priority, end_node=stage.node)


def _prefetch_after(stage: Stage, pipelines: list[Pipeline]) -> Stage | None:
    """The ``.prefetch()`` that follows ``stage`` in every pipeline it is part of."""
    return _after(stage, pipelines, lambda before, after: _first(after, "prefetch"))


def _prefetch_after_batching(stage: Stage, pipelines: list[Pipeline]) -> Stage | None:
    """The ``.prefetch()`` that follows ``stage`` where ``stage`` maps whole batches (a ``.batch()`` comes before
    it), in every pipeline it is part of: one call per step, made ahead of the step by the prefetch."""
    return _after(stage, pipelines, lambda before, after: _first(after, "prefetch")
                  if any(map(_batches, before)) else None)


def _prefetched_single_batches(ctx: RuleContext, stage: Stage, pipelines: list[Pipeline]) -> tuple[int, Stage] | None:
    """The batch size (at most :data:`FEW_PER_STEP`) and the ``.prefetch()`` after it where, in every pipeline
    ``stage`` is part of, a ``.batch()`` of that literal size and then a prefetch follow it: a step takes one or two
    mapped elements, made while the step before it runs (a CycleGAN at batch 1)."""
    sizes: set[int] = set()

    def found(before: list[Stage], after: list[Stage]) -> Stage | None:
        place = next((i for i, s in enumerate(after) if _batches(s)), None)
        if place is None or after[place].op != "batch":
            return None
        size = ctx.queries.integer_literal(after[place].module, argument_value(after[place].node, "batch_size", 0),
                                           flags=True)
        if size is None or not 0 < size.value <= FEW_PER_STEP:
            return None
        sizes.add(size.value)
        return _first(after[place + 1:], "prefetch")

    ahead = _after(stage, pipelines, found)
    return (max(sizes), ahead) if ahead is not None else None


def _first(stages: list[Stage], op: str) -> Stage | None:
    return next((s for s in stages if s.op == op), None)


def _batches(stage: Stage) -> bool:
    """Whether ``stage`` groups elements into batches: ``.batch(n)``, ``.apply(dense_to_ragged_batch(n))``."""
    if stage.op in BATCHING_OPS:
        return True
    applied = argument_value(stage.node, "transformation_func", 0) if stage.op == "apply" else None
    return isinstance(applied, cst.Call) and any(name.rsplit(".", 1)[-1] in APPLIED_BATCHING
                                                 for name in stage.module.qualified_names(applied.func))


def _after(stage: Stage, pipelines: list[Pipeline],
           found: Callable[[list[Stage], list[Stage]], Stage | None]) -> Stage | None:
    """What ``found`` picks from the stages before and after ``stage``, when it picks one in every pipeline."""
    picked = []
    for pipeline in pipelines:
        place = [id(s.node) for s in pipeline.stages].index(id(stage.node))
        picked.append(found(pipeline.stages[:place], pipeline.stages[place + 1:]))
    return picked[0] if picked and None not in picked else None


def _is_small_literal(value: cst.BaseExpression) -> bool:
    return isinstance(value, cst.Integer) and 0 < int(value.value) <= SMALL_PARALLELISM
