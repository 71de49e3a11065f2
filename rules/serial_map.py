"""TFD002: ``Dataset.map`` / ``interleave`` without parallel calls."""

from __future__ import annotations

from typing import Iterable

import libcst as cst

from advisor.codemods.parallel_map import NUM_PARALLEL_CALLS_POSITION, AddNumParallelCalls, num_parallel_calls_arg
from advisor.linking import PARALLEL_STAGES
from advisor.model import CONTRADICTION, PROFILE, SOURCE, Confidence, Evidence, Finding, SpeedupEstimate
from advisor.speedup import on_shared_cores, parallel_stage, typical
from advisor.rule import Example, Rule, RuleContext
from advisor.source.pipelines import Pipeline, Stage

# A literal this small leaves most cores idle; AUTOTUNE sizes parallelism to the machine and the load.
SMALL_PARALLELISM = 2


class SerialMap(Rule):
    code = "TFD002"
    name = "serial-map"
    title = "Dataset map or interleave runs one element at a time"
    rationale = (
        "`Dataset.map(f)` and `Dataset.interleave(f)` without `num_parallel_calls` call `f` on one element at a "
        "time on one core. With `num_parallel_calls=tf.data.AUTOTUNE` tf.data runs as many calls in parallel as "
        "the CPU budget allows. TensorFlow 2.x parallelizes a stateless `map` at run time by default (the "
        "`map_parallelization` optimization), but not a stateful one (random ops, `py_function`), and not when "
        "the pipeline's options turn default optimizations off; a profile shows which happened."
    )
    fix = "Pass `num_parallel_calls=tf.data.AUTOTUNE`."
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
        pipelines_by_stage: dict[int, list[Pipeline]] = {}
        for pipeline in ctx.index.pipelines():
            for stage in pipeline.stages:
                pipelines_by_stage.setdefault(id(stage.node), []).append(pipeline)
        for stage in ctx.index.stages():
            if stage.op not in NUM_PARALLEL_CALLS_POSITION:
                continue
            parallelism = num_parallel_calls_arg(stage.node, stage.op)
            if parallelism is not None and not _is_small_literal(parallelism.value):
                continue
            finding = self._finding(ctx, stage, parallelism, pipelines_by_stage.get(id(stage.node), []))
            if finding is not None:
                yield finding

    def _finding(self, ctx: RuleContext, stage: Stage, parallelism: cst.Arg | None,
                 pipelines: list[Pipeline]) -> Finding | None:
        settings = {p.runtime_optimization("map_parallelization") for p in pipelines}
        if stage.op == "map" and parallelism is None and True in settings:
            return None
        if parallelism is not None:
            stated = f"`num_parallel_calls={stage.module.node_code(parallelism.value)}`"
            message = f"`.{stage.op}()` runs with {stated}: at most that many elements at a time."
            confidence = Confidence.LIKELY
        elif stage.op == "map" and False not in settings:
            message = ("`.map()` has no `num_parallel_calls`, so it runs one element at a time unless TensorFlow "
                       "parallelizes it at run time (it does for stateless functions by default; a profile "
                       "would tell).")
            confidence = Confidence.POSSIBLE
        else:
            message = f"`.{stage.op}()` has no `num_parallel_calls`, so it processes one element at a time."
            confidence = Confidence.LIKELY
        function = stage.module.node_code(stage.node.args[0].value) if stage.node.args else ""
        evidence = [Evidence(SOURCE, f"`.{stage.op}({function})` without parallel calls")]
        if False in settings:
            evidence.append(Evidence(SOURCE, "the pipeline's tf.data options turn off run-time map parallelization"))
        speedup = typical("parallel_map")
        if ctx.profile is not None:
            confidence, speedup, runtime_message = self._profile_verdict(ctx, stage, evidence, confidence)
            message = runtime_message or message
        priority = 0 if any(p.sink.is_training for p in pipelines) else 1
        return self.finding(stage.module, stage.anchor, message, confidence=confidence, evidence=evidence,
                            speedup=speedup, codemod=AddNumParallelCalls, priority=priority, end_node=stage.node)

    @staticmethod
    def _profile_verdict(ctx: RuleContext, stage: Stage, evidence: list[Evidence],
                         confidence: Confidence) -> tuple[Confidence, SpeedupEstimate | None, str | None]:
        """Did the stage run serially, and did the step wait for it? Size the gain from its share of the step.

        Returns the confidence, the speedup, and the message when the capture settles what the source could not.
        """
        found = ctx.runtime_iterator(stage)
        if found is None:
            evidence.append(Evidence(PROFILE, "this stage does not appear in the capture's tf.data iterators"))
            return confidence, typical("parallel_map"), None
        iterator, match = found
        profile = ctx.profile
        capture_ms = profile.steps.count * profile.steps.step_time_ms.avg
        stage_share = min(iterator.self_time_ms / capture_ms, 1.0) if capture_ms else 0.0
        evidence.append(Evidence(PROFILE, f"runs as {iterator.name} ({iterator.dataset}): parallelism "
                                          f"{iterator.parallelism}, autotune {iterator.autotune}, "
                                          f"{iterator.self_time_ms:.0f} ms self time = {stage_share:.0%} of "
                                          f"{profile.steps.count} steps",
                                 {"iterator": iterator.name, "parallelism": iterator.parallelism,
                                  "self_time_ms": iterator.self_time_ms, "stage_share": round(stage_share, 4)}))
        if match.candidates > 1:
            evidence.append(Evidence(PROFILE, f"{match.candidates} pipelines of the repo match this runtime chain "
                                              "equally well; this one is ranked first"))
        serial = iterator.parallelism == 1 or iterator.stage not in PARALLEL_STAGES
        if not serial:
            evidence.append(Evidence(CONTRADICTION, f"TensorFlow already runs it in parallel ({iterator.stage}, "
                                                    f"parallelism {iterator.parallelism})"))
            return Confidence.POSSIBLE, None, None
        bottleneck = profile.bottleneck
        evidence.append(Evidence(PROFILE, f"the step waits for input {bottleneck.input_pct:.1f}% of the time "
                                          f"({bottleneck.input_class})", {"input_pct": bottleneck.input_pct}))
        if bottleneck.input_class == "low":
            evidence.append(Evidence(CONTRADICTION, "the run is not input-bound: a faster map would not shorten "
                                                    "the step"))
            return Confidence.POSSIBLE, None, None
        cpu_budget = profile.input_pipeline.cpu_budget or iterator.parallelism or 1
        message = (f"`.{stage.op}()` ran one element at a time in the capture ({iterator.stage}, parallelism "
                   f"{iterator.parallelism or 1}) while the step waited for input: run it with parallel calls.")
        estimate = parallel_stage(stage_share, iterator.parallelism or 1, cpu_budget, ctx.input_share)
        return Confidence.CONFIRMED, on_shared_cores(estimate, ctx.target_device == "cpu"), message


def _is_small_literal(value: cst.BaseExpression) -> bool:
    return isinstance(value, cst.Integer) and 0 < int(value.value) <= SMALL_PARALLELISM
