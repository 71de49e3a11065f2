"""TFD001: a training pipeline that does not end with ``prefetch``."""

from __future__ import annotations

from typing import Iterable

from advisor.codemods.append_prefetch import AppendPrefetch
from advisor.rule import (Confidence, Evidence, Example, Finding, FixAvailability, Pipeline, Rule, RuleContext, Verdict,
                          typical)

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
        "so without a profile this is only a possible gain; a capture shows whether a prefetch runs."
    )
    fix = "Append `.prefetch(tf.data.AUTOTUNE)` to the pipeline's last transformation."
    fix_availability = FixAvailability.ALWAYS
    speedup_model = "step time -> max(input, compute) + residual: the input time that prefetch can overlap."
    valid = (
        Example("""
            import tensorflow as tf
            ds = tf.data.Dataset.range(10).batch(2).prefetch(tf.data.AUTOTUNE)
            model.fit(ds)
            """),
        Example("""
            import tensorflow as tf
            ds = tf.data.Dataset.range(10).batch(2).prefetch(1).with_options(tf.data.Options())
            for batch in ds:
                pass
            """, note="with_options after prefetch adds no stage"),
        Example("""
            import numpy as np
            x = np.zeros((8, 2))
            model.fit(x, epochs=1)
            """, note="NumPy input: no tf.data pipeline"),
    )
    invalid = (
        Example("""
            import tensorflow as tf
            ds = tf.data.Dataset.from_tensor_slices(([1.0], [0])).batch(32)
            model.fit(ds, epochs=2)
            """, line=2, fixed="""
            import tensorflow as tf
            ds = tf.data.Dataset.from_tensor_slices(([1.0], [0])).batch(32).prefetch(tf.data.AUTOTUNE)
            model.fit(ds, epochs=2)
            """),
        Example("""
            from tensorflow import data
            ds = data.Dataset.range(100)
            ds = ds.prefetch(2)
            ds = ds.batch(8)
            for batch in ds:
                pass
            """, line=4, fixed="""
            from tensorflow import data
            import tensorflow as tf

            ds = data.Dataset.range(100)
            ds = ds.prefetch(2)
            ds = ds.batch(8).prefetch(tf.data.AUTOTUNE)
            for batch in ds:
                pass
            """, note="prefetch earlier in the chain, not last; tensorflow imported for AUTOTUNE"),
        Example("""
            import tensorflow as tf
            ds = tf.data.Dataset.range(100).batch(8)
            ds.prefetch(2)
            model.fit(ds)
            """, line=2, fixed="""
            import tensorflow as tf
            ds = tf.data.Dataset.range(100).batch(8).prefetch(tf.data.AUTOTUNE)
            ds.prefetch(2)
            model.fit(ds)
            """, note="the result of ds.prefetch(2) is discarded"),
    )

    def check(self, ctx: RuleContext) -> Iterable[Finding]:
        best: dict[int, Pipeline] = {}
        for pipeline in ctx.index.pipelines():
            stages = pipeline.working_stages
            if not stages or stages[-1].op == "prefetch":
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
        evidence = [Evidence.source(f"consumed by {sink.role} at {sink_location}; stages: "
                                    f"{' -> '.join(pipeline.ops())}")]
        earlier = [s for s in pipeline.stages if s.op == "prefetch"]
        if earlier:
            line = earlier[-1].module.location(earlier[-1].anchor).line
            evidence.append(Evidence.source(f"prefetch on line {line} is followed by `{last.op}`, which then runs "
                                            "without overlap"))
        discarded = [d for s in pipeline.stages for d in ctx.index.discarded_after(s) if d.op == "prefetch"]
        if discarded:
            line = discarded[0].module.location(discarded[0].anchor).line
            evidence.append(Evidence.source(f"the result of `.prefetch()` on line {line} is discarded: tf.data "
                                            "transformations return a new dataset"))
        if pipeline.runtime_optimization("inject_prefetch") is False:
            static = Verdict(Confidence.LIKELY, typical("prefetch"), tuple(evidence),
                             "its tf.data options turn off the prefetch TensorFlow would inject at run time")
        else:
            static = Verdict(Confidence.POSSIBLE, typical("prefetch"), tuple(evidence),
                             "TensorFlow may inject a prefetch at run time; a profile would tell")
        verdict = ctx.verdicts.tfdata_chain(pipeline, static)
        message = (f"The {sink.role} input pipeline ends with `.{last.op}()` and no `.prefetch()`: the next batch "
                   f"is prepared only after each step ({verdict.note}).")
        return self.finding(last.module, last.anchor, message, verdict, codemod=AppendPrefetch,
                            priority=ROLE_PRIORITY[sink.role], end_node=last.node)
