"""TFH005: Keras runs one batch per call of its compiled step while the host's time between calls is a large share
of the step."""

from __future__ import annotations

import math
from typing import Any, Iterable, Iterator

import libcst as cst
import libcst.matchers as m

from advisor import speedup
from advisor.codemods.steps_per_execution import KEYWORD, SetStepsPerExecution
from advisor.model import PROFILE, Applicability, Confidence, Evidence, Finding
from advisor.rule import Example, Rule, RuleContext
from advisor.source.index import CallSite, SourceIndex

# Keywords only Keras' Model.compile takes: they tell `model.compile(...)` from `re.compile(...)`.
COMPILE_KEYWORDS = frozenset({"optimizer", "loss", "metrics", "loss_weights", "weighted_metrics", "run_eagerly",
                              KEYWORD, "jit_compile", "auto_scale_loss"})
# Reported when the host's time between Keras step calls is at least this share of the run: below it, the most
# the fix could gain is about 10%. A fit step on these samples leaves 1-2% (samples/tuned: 0.7 ms of a 46 ms step).
GAP_SHARE_MIN_PCT = 10.0
# N is chosen so that the gap left, once per N batches, is at most this share of the step.
TARGET_GAP_SHARE = 0.05
MIN_STEPS, MAX_STEPS = 2, 100


def steps_for(gap_share: float) -> int:
    """The smallest N that leaves at most TARGET_GAP_SHARE of the step as gap: the gap share ``g`` of the step
    becomes ``(g / N) / (1 - g + g / N)`` when it is paid once per N batches."""
    g = min(gap_share, 0.99)
    needed = g * (1 - TARGET_GAP_SHARE) / (TARGET_GAP_SHARE * (1 - g))
    return max(MIN_STEPS, min(MAX_STEPS, math.ceil(needed)))


def keras_compiles(index: SourceIndex) -> Iterator[CallSite]:
    """``X.compile(...)`` calls with a Keras-only keyword, or on an object the same module calls ``.fit`` on."""
    def receiver(call: CallSite) -> tuple[int, str]:
        return id(call.module), call.module.node_code(call.node.func.value)

    fitted = {receiver(c) for c in index.calls if m.matches(c.node.func, m.Attribute(attr=m.Name("fit")))}
    for call in index.calls:
        if not m.matches(call.node.func, m.Attribute(attr=m.Name("compile"))):
            continue
        keywords = {a.keyword.value for a in call.node.args if a.keyword is not None}
        if keywords & COMPILE_KEYWORDS or receiver(call) in fitted:
            yield call


def _runs_one_step_per_call(call: cst.Call) -> bool:
    value = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == KEYWORD), None)
    return value is None or m.matches(value, m.Integer("1"))


class StepsPerExecution(Rule):
    code = "TFH005"
    name = "steps-per-execution"
    title = "Keras runs one batch per call while the host's time between steps is a large share of a step"
    rationale = (
        "Keras `fit` calls its compiled train function once per batch by default, and between calls the host runs "
        "the loop's Python: callbacks, the progress bar, logs. That fixed cost per call matters when the step is "
        "short. `steps_per_execution=N` runs N batches per call, so the host's per-call work happens once every N "
        "batches. Only a capture of `fit` shows the time between steps, so the rule reports only with a profile: "
        "without one, every `compile` would be reported."
    )
    fix = "Pass `steps_per_execution=N` to `compile`, with N sized from the measured time between steps."
    fix_applicability = Applicability.UNSAFE
    why_unsafe = (
        "Per-batch callback hooks (`on_train_batch_begin`/`end`) and batch-level logs then run once every N "
        "batches, with the last batch's logs: a callback that acts on every batch sees one in N."
    )
    speedup_model = (f"the measured host gap between Keras steps, paid once per N batches instead of every batch: "
                     f"(1 - 1/N) of it is removed; reported when the gap is at least {GAP_SHARE_MIN_PCT:.0f}% of "
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
    )

    def check(self, ctx: RuleContext) -> Iterable[Finding]:
        gaps = getattr(ctx.profile, "host_gaps", None)  # None without a profile, or for a custom loop's capture
        if gaps is None or gaps.share_pct < GAP_SHARE_MIN_PCT:
            return
        for call in keras_compiles(ctx.index):
            if _runs_one_step_per_call(call.node):
                yield self._finding(ctx.profile, call)

    def _finding(self, profile: Any, call: CallSite) -> Finding:
        gaps, step_ms = profile.host_gaps, profile.steps.step_time_ms.avg
        share = gaps.share_pct / 100
        steps = steps_for(share)
        evidence = [Evidence(PROFILE, f"between Keras step calls the host spends {gaps.avg_ms:.1f} ms per step, "
                                      f"{gaps.share_pct:.0f}% of the run (step {step_ms:.1f} ms)",
                             {"gap_ms": gaps.avg_ms, "gap_share_pct": gaps.share_pct, "step_ms": step_ms,
                              "steps_per_execution": steps})]
        message = (f"`compile` runs one batch per call, and the capture shows the host spending {gaps.share_pct:.0f}% "
                   f"of the run between steps: `steps_per_execution={steps}` pays that once every {steps} batches. "
                   "If a per-batch callback makes the gap, throttling that callback instead keeps its meaning.")
        return self.finding(call.module, call.node.func.attr, message, confidence=Confidence.CONFIRMED,
                            evidence=evidence, speedup=speedup.throttle(share, steps),
                            codemod=SetStepsPerExecution, fix_args={"steps": steps})
