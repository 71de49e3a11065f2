"""TFH005: Keras runs one batch per call of its compiled step while the host's time between calls is a large share
of the step."""

from __future__ import annotations

import math
from typing import Iterable

import libcst as cst
import libcst.matchers as m

from advisor.codemods.steps_per_execution import SetStepsPerExecution
from advisor.rule import (Applicability, CallSite, Confidence, Evidence, Example, Finding, FixAvailability, Rule,
                          RuleContext, Verdict, argument_value, typical)

# Reported when the host's time between Keras step calls is at least this share of the run: below it, the most
# the fix could gain is about 10%. A fit step on these samples leaves 1-2% (samples/tuned: 0.7 ms of a 46 ms step).
GAP_SHARE_MIN = 0.10
# N is chosen so that the gap left, once per N batches, is at most this share of the step.
TARGET_GAP_SHARE = 0.05
MIN_STEPS, MAX_STEPS = 2, 100
# Without a capture, on a TPU: the number of batches per call TensorFlow's TPU guide runs its Keras examples with.
TPU_STEPS = 32
TPU_STRATEGIES = frozenset({"tensorflow.distribute.TPUStrategy", "tensorflow.distribute.experimental.TPUStrategy"})


def steps_for(gap_share: float) -> int:
    """The smallest N that leaves at most TARGET_GAP_SHARE of the step as gap: the gap share ``g`` of the step
    becomes ``(g / N) / (1 - g + g / N)`` when it is paid once per N batches."""
    g = min(gap_share, 0.99)
    needed = g * (1 - TARGET_GAP_SHARE) / (TARGET_GAP_SHARE * (1 - g))
    return max(MIN_STEPS, min(MAX_STEPS, math.ceil(needed)))


def _runs_one_step_per_call(call: cst.Call) -> bool:
    value = argument_value(call, "steps_per_execution") or argument_value(call, "experimental_steps_per_execution")
    return value is None or m.matches(value, m.Integer("1"))


class StepsPerExecution(Rule):
    code = "TFH005"
    name = "steps-per-execution"
    title = "Keras runs one batch per call while the host's time between steps is a large share of a step"
    rationale = (
        "Keras `fit` calls its compiled train function once per batch by default, and between calls the host runs "
        "the loop's Python: callbacks, the progress bar, logs. That fixed cost per call matters when the step is "
        "short. `steps_per_execution=N` runs N batches per call, so the host's per-call work happens once every N "
        "batches. Only a capture of `fit` shows the time between steps, so the rule reports with a profile, or "
        "without one where `fit` trains on a TPU: there each call is a round trip from the host to the TPU, which "
        "TensorFlow's TPU guide amortises over 32 batches or more."
    )
    fix = "Pass `steps_per_execution=N` to `compile`, with N sized from the measured time between steps."
    fix_availability = FixAvailability.ALWAYS
    fix_applicability = Applicability.UNSAFE
    why_unsafe = (
        "Per-batch callback hooks (`on_train_batch_begin`/`end`) and batch-level logs then run once every N "
        "batches, with the last batch's logs: a callback that acts on every batch sees one in N."
    )
    speedup_model = (f"the measured host gap between Keras steps, paid once per N batches instead of every batch: "
                     f"(1 - 1/N) of it is removed; reported when the gap is at least {GAP_SHARE_MIN:.0%} of "
                     f"the run, N chosen to leave at most {TARGET_GAP_SHARE:.0%} ({MIN_STEPS}-{MAX_STEPS}).")
    valid = (
        Example("""
            model.compile(optimizer="adam", loss="mse", steps_per_execution=64)
            model.fit(dataset, epochs=3)
            """, profile="samples/profiles/slow_callback", note="already runs several batches per call"),
        Example("""
            model.compile(optimizer="adam", loss="mse")
            model.fit(dataset, epochs=3)
            """, profile="samples/profiles/tuned", note="capture samples/profiles/tuned: the host spends under 2% of "
                                                        "the run between steps"),
        Example("""
            model.compile(optimizer="adam", loss="mse")
            model.fit(dataset, epochs=3)
            """, note="no profile: nothing says the time between steps matters"),
        Example("""
            import re
            pattern = re.compile("step [0-9]+")
            """, profile="samples/profiles/slow_callback", note="not a Keras model"),
        Example("""
            import argparse
            import tensorflow as tf

            parser = argparse.ArgumentParser()
            parser.add_argument("--strategy", default="mirror")
            args = parser.parse_args()
            if args.strategy == "mirror":
                strategy = tf.distribute.MirroredStrategy()
            elif args.strategy == "tpu":
                strategy = tf.distribute.TPUStrategy(tf.distribute.cluster_resolver.TPUClusterResolver())
            with strategy.scope():
                model = tf.keras.applications.ResNet50(weights=None)
                model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
            model.fit(dataset, epochs=10)
            """, note="no profile, and the TPU is an option the defaults leave off: the run uses GPUs"),
    )
    invalid = (
        Example("""
            model.compile(optimizer="adam", loss="mse")
            model.fit(dataset, epochs=3)
            """, line=1, fixed="""
            model.compile(optimizer="adam", loss="mse", steps_per_execution=56)
            model.fit(dataset, epochs=3)
            """, profile="samples/profiles/slow_callback",
                note="capture samples/profiles/slow_callback: 74% of the run between steps, so N = 56"),
        Example("""
            model.compile(
                "adam",
                steps_per_execution=1,
            )
            model.fit(dataset)
            """, line=1, fixed="""
            model.compile(
                "adam",
                steps_per_execution=56,
            )
            model.fit(dataset)
            """, profile="samples/profiles/slow_callback", note="an explicit 1, on a model that `fit` trains"),
        Example("""
            import tensorflow as tf

            strategy = tf.distribute.TPUStrategy(tf.distribute.cluster_resolver.TPUClusterResolver())
            with strategy.scope():
                model = tf.keras.applications.ResNet50(weights=None)
                model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
            model.fit(dataset, epochs=10)
            """, line=6, fixed="""
            import tensorflow as tf

            strategy = tf.distribute.TPUStrategy(tf.distribute.cluster_resolver.TPUClusterResolver())
            with strategy.scope():
                model = tf.keras.applications.ResNet50(weights=None)
                model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy", steps_per_execution=32)
            model.fit(dataset, epochs=10)
            """, note="no profile, but `fit` trains on a TPU: each call is a round trip to it"),
    )

    def check(self, ctx: RuleContext) -> Iterable[Finding]:
        share = ctx.verdicts.host_gap_share  # None without a profile, or for a custom loop's capture
        if share is None:
            if ctx.profile is None and ctx.target_device in (None, "tpu"):
                yield from self._tpu_findings(ctx)
            return
        if share < GAP_SHARE_MIN:
            return
        steps = steps_for(share)
        for call in ctx.queries.keras_compiles:
            if _runs_one_step_per_call(call.node):
                yield self._finding(ctx, call, share, steps)

    def _tpu_findings(self, ctx: RuleContext) -> Iterable[Finding]:
        """Without a capture: models `fit` trains on a TPU, one batch per call."""
        for call in ctx.queries.keras_compiles:
            tpu = ctx.queries.tpu_training([call.module], run_by=call)
            # TensorFlow 2.4 named `steps_per_execution`; TensorFlow 1.x's TPU Keras (`keras_to_tpu_model`) has none.
            if tpu is None or not tpu.names & TPU_STRATEGIES or ctx.queries.predates_tf24_names([call.module]) or \
                    ctx.queries.imports_compat_api(call.module) or not _runs_one_step_per_call(call.node) or \
                    not ctx.queries.fitted(call):
                continue
            evidence = (Evidence.source(f"trains on a TPU: `{tpu.module.node_code(tpu.node.func)}` "
                                        f"({tpu.module.location(tpu.node).display})"),
                        Evidence.source("`compile` sets no `steps_per_execution`: `fit` calls the TPU once per batch"))
            message = (f"`compile` runs one batch per call on a TPU: each call is a round trip from the host, which "
                       f"the TPU waits out between batches. `steps_per_execution={TPU_STEPS}` runs {TPU_STEPS} batches "
                       "per call, as TensorFlow's TPU guide does; a capture sizes N for this program.")
            yield self.finding(call.module, call.node.func.attr, message,
                               Verdict(Confidence.LIKELY, typical("steps_per_execution"), evidence),
                               reach=ctx.queries.reach(call.module, call.node), codemod=SetStepsPerExecution,
                               fix_args={"steps": TPU_STEPS})

    def _finding(self, ctx: RuleContext, call: CallSite, share: float, steps: int) -> Finding:
        verdict = ctx.verdicts.host_gap(steps, Verdict(Confidence.CONFIRMED))
        message = (f"`compile` runs one batch per call, and the capture shows the host spending {share:.0%} of the "
                   f"run between steps: `steps_per_execution={steps}` pays that once every {steps} batches. If a "
                   "per-batch callback makes the gap, throttling that callback instead keeps its meaning.")
        return self.finding(call.module, call.node.func.attr, message, verdict,
                            reach=ctx.queries.reach(call.module, call.node), codemod=SetStepsPerExecution,
                            fix_args={"steps": steps})
