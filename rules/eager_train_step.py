"""TFH002: a custom training step that runs eagerly, called once per batch from a Python loop."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator

import libcst as cst
import libcst.matchers as m

from advisor import speedup
from advisor.codemods.tf_function import AddTfFunction
from advisor.model import CONTRADICTION, PROFILE, Applicability, Confidence, Evidence, Finding, SpeedupEstimate
from advisor.rule import Example, Rule, RuleContext
from advisor.source.index import CallSite, FunctionInfo, SourceIndex

GRADIENT_TAPE = "tensorflow.GradientTape"
UPDATE_METHODS = frozenset({"apply_gradients", "minimize"})
VALUE_CONVERSIONS = frozenset({"float", "int", "bool"})
# A compiled step dispatches about two ops from Python per step (the function and the input's GetNext); an eager
# one dispatches every op of the forward pass, the gradient and the update (232 per step in samples/eager_loop).
# Fewer than this per step: the captured loop is not running an eager training step.
EAGER_OPS_MIN = 20
# The captured step is confirmed as dispatch-bound when Python and op dispatch (the time outside kernels) take at
# least this share of it: compiling then at least doubles the step's speed at the range's high end. Measured: 87%
# in samples/eager_loop, 37% in its compiled twin (whose short step is mostly the loop's own Python).
CONFIRMED_EAGER_SHARE_PCT = 50.0


def training_steps(index: SourceIndex) -> Iterator[FunctionInfo]:
    """Functions that open a ``tf.GradientTape`` and update weights with ``apply_gradients`` or ``minimize``."""
    by_function: dict[int, list[CallSite]] = {}
    for call in index.calls:
        if call.function is not None:
            by_function.setdefault(id(call.function.node), []).append(call)
    for function in index.functions:
        calls = by_function.get(id(function.node), [])
        if any(GRADIENT_TAPE in c.names for c in calls) and any(
                m.matches(c.node.func, m.Attribute(attr=m.Name(value=m.MatchIfTrue(UPDATE_METHODS.__contains__))))
                for c in calls):
            yield function


def per_batch_calls(index: SourceIndex, function: FunctionInfo) -> list[CallSite]:
    """Calls of ``function`` made from inside a Python loop's body, eagerly (not from a compiled caller)."""
    return [c for c in index.calls_of(function) if c.module.enclosing_loop(c.node) is not None
            and not (c.function is not None and index.is_compiled(c.function))]


@dataclass(frozen=True)
class SideEffect:
    """Python in the step that behaves differently once the step is traced into a graph."""

    node: cst.CSTNode
    what: str  # "`print(...)`"
    consequence: str  # what happens to it under tf.function
    breaks_step: bool  # True: compiling would make the step fail or compute something else


class _SideEffects(m.MatcherDecoratableVisitor):
    def __init__(self, module) -> None:
        super().__init__()
        self.module = module
        self.found: list[SideEffect] = []
        self.declared: set[str] = set()  # global / nonlocal names: state that outlives one call

    def _add(self, node: cst.CSTNode, consequence: str, breaks_step: bool) -> None:
        self.found.append(SideEffect(node, f"`{self.module.node_code(node)}`", consequence, breaks_step))

    def visit_Global(self, node: cst.Global) -> None:
        self.declared.update(n.name.value for n in node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.declared.update(n.name.value for n in node.names)

    @m.visit(m.Call(func=m.Attribute(attr=m.Name("numpy")), args=[]))
    def numpy_call(self, node: cst.Call) -> None:
        self._add(node, "fails: a graph tensor has no NumPy value while tracing", True)

    @m.visit(m.Call(func=m.Name(value=m.MatchIfTrue(VALUE_CONVERSIONS.__contains__)), args=[m.Arg()]))
    def value_conversion(self, node: cst.Call) -> None:
        if self.module.qualified_names(node.func) & {f"builtins.{n}" for n in VALUE_CONVERSIONS} and not \
                m.findall(node.args[0].value, m.Attribute(attr=m.Name("shape")) | m.BaseNumber()):
            self._add(node, "fails: a graph tensor has no Python value while tracing", True)

    @m.visit(m.Call(func=m.Attribute(attr=m.Name("append") | m.Name("extend"))))
    def list_append(self, node: cst.Call) -> None:
        self._add(node, "runs once, while tracing, and stores a symbolic tensor instead of one value per step", True)

    @m.visit(m.Call(func=m.Name("print")))
    def print_call(self, node: cst.Call) -> None:
        if "builtins.print" in self.module.qualified_names(node.func):
            self._add(node, "prints only while tracing, not every step (`tf.print` prints every step)", False)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Attribute) or m.matches(node.target, m.Name(
                value=m.MatchIfTrue(self.declared.__contains__))):
            self._add(node, "counts traces, not steps: it runs only while tracing", True)


def side_effects(function: FunctionInfo) -> list[SideEffect]:
    visitor = _SideEffects(function.module)
    function.node.body.visit(visitor)
    return visitor.found


class EagerTrainStep(Rule):
    code = "TFH002"
    name = "eager-train-step"
    title = "Training step runs eagerly from a Python loop"
    rationale = (
        "A custom training step that is not compiled by `tf.function` runs eagerly: each op of the forward pass, "
        "the gradient and the optimizer update is dispatched one at a time from Python, and nothing is fused. On "
        "small and medium models that dispatch costs more than the math; compiling the step was measured 2-4x "
        "faster per epoch on a 2-core CPU. TensorFlow's profiler cannot say so on its own: such a loop has no "
        "step markers."
    )
    fix = "Decorate the step with `@tf.function`."
    fix_applicability = Applicability.UNSAFE
    why_unsafe = (
        "Python in the step (print, list appends, counters, `.numpy()`) runs only while the function is traced, "
        "not every step; the fix is offered only when no such code would change what the step computes."
    )
    speedup_model = ("the step's share outside kernels (Python and eager op dispatch) measured in a custom loop's "
                     "capture is the most compiling removes; confirmed when that share is at least "
                     f"{CONFIRMED_EAGER_SHARE_PCT:.0f}% with {EAGER_OPS_MIN}+ ops dispatched per step. Without a "
                     "profile, the typical range of compiling an eager step.")
    valid = (
        Example("""
            import tensorflow as tf

            @tf.function
            def train_step(x, y):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y, model(x, training=True))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                return loss

            for x, y in dataset:
                train_step(x, y)
            """),
        Example("""
            import tensorflow as tf

            def train_step(x, y):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y, model(x, training=True))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                return loss

            step = tf.function(train_step)
            for x, y in dataset:
                step(x, y)
            """, note="compiled by a wrapper call"),
        Example("""
            import tensorflow as tf

            def train_step(x, y):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y, model(x, training=True))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))

            @tf.function
            def train_epoch(dataset):
                for x, y in dataset:
                    train_step(x, y)
            """, note="called from a compiled function: AutoGraph turns the loop into a graph loop"),
        Example("""
            import tensorflow as tf

            def train_step(x, y):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y, model(x, training=True))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))

            train_step(x, y)
            """, note="called once, not per batch"),
    )
    invalid = (
        Example("""
            import tensorflow as tf

            def train_step(x, y):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y, model(x, training=True))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                return loss

            for epoch in range(3):
                for x, y in dataset:
                    train_step(x, y)
            """, line=3, fixed="""
            import tensorflow as tf

            @tf.function
            def train_step(x, y):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y, model(x, training=True))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                return loss

            for epoch in range(3):
                for x, y in dataset:
                    train_step(x, y)
            """),
        Example("""
            from tensorflow import GradientTape

            def train_step(x, y):
                with GradientTape() as tape:
                    loss = loss_fn(y, model(x, training=True))
                    print("tracing" if step == 0 else "")
                optimizer.minimize(loss, model.trainable_variables, tape=tape)

            while True:
                train_step(*next(iterator))
            """, line=3, fixed="""
            from tensorflow import GradientTape
            import tensorflow as tf

            @tf.function
            def train_step(x, y):
                with GradientTape() as tape:
                    loss = loss_fn(y, model(x, training=True))
                    print("tracing" if step == 0 else "")
                optimizer.minimize(loss, model.trainable_variables, tape=tape)

            while True:
                train_step(*next(iterator))
            """, note="a print that would then run only while tracing: the fix is still offered, and unsafe"),
        Example("""
            import tensorflow as tf

            def train_step(x, y):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y, model(x, training=True))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                print(loss.numpy())

            for x, y in dataset:
                train_step(x, y)
            """, line=3, note="`.numpy()` fails inside tf.function: no patch, and the finding says why"),
    )

    def check(self, ctx: RuleContext) -> Iterable[Finding]:
        for function in training_steps(ctx.index):
            if ctx.index.is_compiled(function):
                continue
            calls = per_batch_calls(ctx.index, function)
            if calls:
                yield self._finding(ctx, function, calls)

    def _finding(self, ctx: RuleContext, function: FunctionInfo, calls: list[CallSite]) -> Finding:
        module = function.module
        evidence = [Evidence("source", f"called once per iteration of the loop at "
                                       f"{c.module.location(c.module.enclosing_loop(c.node)).display}")
                    for c in calls]
        effects = side_effects(function)
        for effect in effects:
            evidence.append(Evidence("source", f"line {module.location(effect.node).line}: {effect.what} "
                                               f"{effect.consequence} under tf.function"))
        message = (f"`{function.name}` opens a GradientTape and updates the weights but is not compiled with "
                   f"`tf.function`, so every op of every step is dispatched eagerly from Python.")
        breaking = [e for e in effects if e.breaks_step]
        if breaking:
            lines = ", ".join(f"{e.what} (line {module.location(e.node).line})" for e in breaking)
            message += (f" No automatic patch: {lines} would fail or change meaning inside a compiled step; move "
                        f"it out of `{function.name}` (return the tensor and convert it in the loop, every N steps), "
                        f"then add `@tf.function`.")
        confidence, estimate = Confidence.LIKELY, speedup.typical("tf_function")
        if ctx.profile is not None:
            confidence, estimate = self._profile_verdict(ctx.profile, evidence, confidence, estimate)
        return self.finding(module, function.node.name, message, confidence=confidence, evidence=evidence,
                            speedup=estimate, codemod=None if breaking else AddTfFunction)

    @staticmethod
    def _profile_verdict(profile, evidence: list[Evidence], confidence: Confidence,
                         estimate: SpeedupEstimate) -> tuple[Confidence, SpeedupEstimate | None]:
        """Confirm, size or contradict the finding with the captured steps' eager dispatch."""
        if profile.host_gaps is not None:  # Keras step calls: the capture is of `fit`, not of a custom loop
            evidence.append(Evidence(PROFILE, "the capture's steps are Keras `fit` steps: it does not show this loop"))
            return confidence, estimate
        eager, step_ms = profile.eager, profile.steps.step_time_ms.avg
        evidence.append(Evidence(
            PROFILE, f"the captured loop dispatches {eager.ops_per_step:.0f} ops per step from Python; outside "
                     f"kernels (Python, op dispatch) it spends {eager.share_pct:.0f}% of its {step_ms:.1f} ms step "
                     f"(kernels {eager.kernel_ms_per_step:.1f} ms, dispatch calls {eager.dispatch_ms_per_step:.1f} ms)",
            {"ops_per_step": eager.ops_per_step, "eager_share_pct": eager.share_pct, "step_ms": step_ms,
             "kernel_ms_per_step": eager.kernel_ms_per_step, "dispatch_ms_per_step": eager.dispatch_ms_per_step}))
        if eager.ops_per_step < EAGER_OPS_MIN:
            evidence.append(Evidence(CONTRADICTION, f"only {eager.ops_per_step:.0f} ops per step are dispatched "
                                                    "eagerly: the captured step already runs compiled"))
            return Confidence.POSSIBLE, None
        gain = speedup.bounded_by_share(eager.share_pct / 100, "Python and eager dispatch",
                                        "compiling also fuses the kernels, which can gain more")
        if eager.share_pct >= CONFIRMED_EAGER_SHARE_PCT:
            return Confidence.CONFIRMED, gain
        return confidence, gain
