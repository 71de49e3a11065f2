"""TFD004: training batches made by Python (``Dataset.from_generator``, a Python iterator feeding the loop)."""

from __future__ import annotations

from typing import Iterable

import libcst as cst

from advisor.rule import (Confidence, Evidence, Example, Finding, FunctionInfo, MappedFunction, Pipeline, Rule,
                          RuleContext, Stage, TrainingLoop, Verdict, typical)


class PythonInput(Rule):
    code = "TFD004"
    name = "python-input"
    title = "Training batches are made by Python code, one at a time"
    rationale = (
        "`Dataset.from_generator` calls a Python generator for every element, under the GIL: tf.data can neither "
        "run it in parallel nor fuse it, and it is limited to one core. A Python iterator that a custom loop "
        "iterates over (`for x, y in Batches():`) is worse: each batch is made between two steps, with no overlap "
        "at all. When the data is in memory, `Dataset.from_tensor_slices` reads it in TensorFlow; when it is in "
        "files, `TFRecordDataset` or `list_files(...).interleave(...)` with parallel maps does; either way, end "
        "the pipeline with `.prefetch(tf.data.AUTOTUNE)` so input overlaps the step."
    )
    speedup_model = ("the capture's generator iterator time, bounded by the time the step waits for input; without a "
                     "profile, the typical range of parallelizing input.")
    valid = (
        Example("""
            import tensorflow as tf
            ds = tf.data.Dataset.from_tensor_slices((images, labels)).batch(32).prefetch(tf.data.AUTOTUNE)
            model.fit(ds)
            """),
        Example("""
            import tensorflow as tf
            def stream():
                yield from range(10)
            for value in tf.data.Dataset.from_generator(stream, output_signature=tf.TensorSpec((), tf.int64)):
                print(value)
            """, note="not training"),
    )
    invalid = (
        Example("""
            import numpy as np
            import tensorflow as tf

            def samples():
                for image, label in zip(np.load("x.npy"), np.load("y.npy")):
                    yield image / 255.0, label

            ds = tf.data.Dataset.from_generator(samples, output_types=(tf.float32, tf.int64)).batch(32)
            model.fit(ds, epochs=5)
            """, line=8),
        Example("""
            import numpy as np
            import tensorflow as tf

            class Batches:
                def __iter__(self):
                    return self
                def __next__(self):
                    return np.load("x.npy")[:32], np.load("y.npy")[:32]

            def step(x, y):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y, model(x))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                              model.trainable_variables))

            for x, y in Batches():
                step(x, y)
            """, line=16, note="a Python iterator feeding a custom loop: no overlap with the step"),
    )

    def check(self, ctx: RuleContext) -> Iterable[Finding]:
        generators: dict[int, tuple[Stage, list[Pipeline]]] = {}
        for pipeline in ctx.index.pipelines():
            source = pipeline.stages[0]
            if source.op == "from_generator" and ctx.queries.feeds_training(pipeline):
                generators.setdefault(id(source.node), (source, []))[1].append(pipeline)
        for source, pipelines in generators.values():
            yield self._generator_finding(ctx, source, pipelines)
        for loop in ctx.queries.training_loops:
            batches = ctx.queries.python_batches(loop)
            if batches is not None:
                yield self._iterator_finding(ctx, loop, *batches)

    def _generator_finding(self, ctx: RuleContext, source: Stage, pipelines: list[Pipeline]) -> Finding:
        sinks = ", ".join(dict.fromkeys(f"{p.sink.role} at {p.sink.module.location(p.sink.node).display}"
                                        for p in pipelines))
        generator = ctx.queries.mapped_function(source.node, source.module, "generator")
        work = ctx.queries.python_work(generator) if generator is not None else []
        evidence = [Evidence.source(f"`Dataset.from_generator` feeds {sinks}")]
        if work:
            evidence.append(Evidence.source("the generator computes in Python: " + ", ".join(dict.fromkeys(
                f"`{w.module.node_code(w.node.func)}`" for w in work[:3]))))
        # A generator that only hands out values already in memory costs little per element.
        static = Verdict(Confidence.LIKELY if work else Confidence.POSSIBLE, typical("parallel_map"), tuple(evidence))
        verdict = ctx.verdicts.python_source(source, static)
        message = ("`Dataset.from_generator` makes every element in Python, one at a time under the GIL: read the "
                   "data with tf.data instead (`from_tensor_slices` for arrays in memory, `TFRecordDataset` or "
                   "`list_files().interleave()` for files).")
        reach = min((ctx.queries.pipeline_reach(p) for p in pipelines), key=lambda r: r.rank)
        return self.finding(source.module, source.anchor, message, verdict, reach=reach, end_node=source.node)

    def _iterator_finding(self, ctx: RuleContext, loop: TrainingLoop, batches: cst.CSTNode,
                          makers: list[FunctionInfo], keras_images: bool) -> Finding:
        if keras_images:
            evidence = [Evidence.source("each batch comes from a Keras ImageDataGenerator iterator, which reads and "
                                        "augments images in Python, between two steps")]
            works = True
        else:
            costs = {what: node for maker in makers for what, node in ctx.queries.host_costs(maker).items()}
            makes = ", ".join(f"`{maker.name}` ({maker.module.location(maker.node.name).display})" for maker in makers)
            evidence = [Evidence.source(f"each batch comes from {makes}, between two steps")]
            work = [w for maker in makers for w in ctx.queries.python_work(
                MappedFunction(maker.node.body, maker.module, maker))]
            if costs or work:
                evidence.append(Evidence.source("which does " + ", ".join(dict.fromkeys(
                    [*costs, *(f"`{w.module.node_code(w.node.func)}`" for w in work[:3])]))))
            works = bool(costs or work)
        message = (f"The training loop at {loop.module.location(loop.node).display} takes its batches from Python: "
                   "each one is made after the previous step ends, with no overlap. A `tf.data` pipeline ending in "
                   "`.prefetch(tf.data.AUTOTUNE)` makes the next batch while the step runs.")
        verdict = Verdict(Confidence.LIKELY if works else Confidence.POSSIBLE, typical("prefetch"), tuple(evidence))
        return self.finding(loop.module, batches, message, verdict, reach=ctx.queries.reach(loop.module, loop.node))
