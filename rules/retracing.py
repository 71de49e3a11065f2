"""TFH003: a ``tf.function`` that is traced again and again instead of once."""

from __future__ import annotations

from typing import Any, Iterable, Iterator

import libcst as cst
import libcst.matchers as m

from advisor import speedup
from advisor.codemods.tensor_argument import PassTensor
from advisor.codemods.tf_function import ReduceRetracing
from advisor.model import CONTRADICTION, PROFILE, Applicability, Confidence, Evidence, Finding, SpeedupEstimate
from advisor.rule import Example, Rule, RuleContext
from advisor.rules.host_sync import TrainingLoop
from advisor.source.index import TF_FUNCTION, CallSite, FunctionInfo, ModuleInfo, SourceIndex

# tf.function arguments that already stop retracing on new shapes.
SHAPE_RELAXING = frozenset({"reduce_retracing", "input_signature", "experimental_relax_shapes"})


def _keyword(call: cst.Call, name: str) -> cst.Arg | None:
    return next((a for a in call.args if a.keyword is not None and a.keyword.value == name), None)


class Retracing(Rule):
    code = "TFH003"
    name = "retracing"
    title = "tf.function retraced during training"
    rationale = (
        "A `tf.function` traces its Python body into a graph once per new input signature: each new Python value "
        "of a scalar argument, each new tensor shape, and every time the `tf.function` object itself is created "
        "anew. Tracing reruns the Python and rebuilds the graph, which takes far longer than running it; a function "
        "that retraces every step is slower than no `tf.function` at all. TensorFlow warns only after five "
        "retraces within a short time."
    )
    fix = ("Pass the changing Python number as a tensor (`tf.constant(step)`), or let the function accept new "
           "shapes (`reduce_retracing=True`).")
    fix_applicability = Applicability.UNSAFE
    why_unsafe = ("Inside the function a tensor argument is no longer a Python number (Python `if`s on it become "
                  "graph conditionals); a generalized shape hides static dimensions from the code that reads them.")
    speedup_model = ("the function's tracing time as a share of the captured steps is the most removing its "
                     "retraces saves; confirmed when the capture shows it traced more than once. Without a profile, "
                     "the typical range of removing retraces.")
    valid = (
        Example("""
            import tensorflow as tf

            @tf.function
            def train_step(x, step):
                return x

            for step, x in enumerate(tf.data.Dataset.range(8).batch(2, drop_remainder=True)):
                train_step(x, tf.constant(step))
            """),
        Example("""
            import tensorflow as tf

            @tf.function(reduce_retracing=True)
            def train_step(x):
                return x

            for x in tf.data.Dataset.range(9).batch(2):
                train_step(x)
            """, note="the ragged last batch is traced once, with a generalized shape"),
        Example("""
            import tensorflow as tf

            def make_step(model):
                @tf.function
                def step(x):
                    return model(x)
                return step

            step = make_step(model)
            for x in dataset:
                step(x)
            """, note="a factory called once"),
    )
    invalid = (
        Example("""
            import tensorflow as tf

            @tf.function
            def train_step(x, step):
                return x

            for step, x in enumerate(dataset):
                train_step(x, step)
            """, line=8, fixed="""
            import tensorflow as tf

            @tf.function
            def train_step(x, step):
                return x

            for step, x in enumerate(dataset):
                train_step(x, tf.constant(step))
            """, note="a Python step counter: a new trace every step"),
        Example("""
            import tensorflow as tf

            @tf.function
            def train_step(x):
                return x

            for x in tf.data.Dataset.range(9).batch(2):
                train_step(x)
            """, line=4, fixed="""
            import tensorflow as tf

            @tf.function(reduce_retracing=True)
            def train_step(x):
                return x

            for x in tf.data.Dataset.range(9).batch(2):
                train_step(x)
            """, note="a ragged last batch (no drop_remainder): one more trace"),
        Example("""
            import tensorflow as tf

            for x in dataset:
                step = tf.function(lambda x: model(x))
                step(x)
            """, line=4, note="a new tf.function per iteration; hoisting it is left to the user"),
        Example("""
            import tensorflow as tf

            def train_batch(model, x):
                @tf.function
                def step(x):
                    return model(x)
                return step(x)

            for x in dataset:
                train_batch(model, x)
            """, line=5, note="defined per call of a function that the loop calls per batch"),
    )

    def check(self, ctx: RuleContext) -> Iterable[Finding]:
        index = ctx.index
        yield from self._created_per_iteration(ctx)
        for function in index.functions:
            if not index.is_compiled(function):
                continue
            for call in index.calls_of(function):
                loop = call.module.enclosing_loop(call.node)
                if loop is not None:
                    yield from self._scalar_arguments(ctx, function, call, TrainingLoop(call.module, loop))
            yield from self._varying_shapes(ctx, function)

    def _report(self, ctx: RuleContext, function_name: str | None, module: ModuleInfo, node: cst.CSTNode,
                message: str, confidence: Confidence, evidence: list[Evidence], **fix: Any) -> Finding:
        """A finding about the tf.function compiling ``function_name`` (None when unknown), sized by the capture."""
        estimate: SpeedupEstimate | None = speedup.typical("retracing")
        if ctx.profile is not None and function_name is not None:
            confidence, estimate = _profile_verdict(ctx.profile, function_name, evidence, confidence, estimate)
        return self.finding(module, node, message, confidence=confidence, evidence=evidence, speedup=estimate, **fix)


    def _created_per_iteration(self, ctx: RuleContext) -> Iterator[Finding]:
        """``tf.function`` objects created in a loop body, or in a function the loop calls per iteration, with the
        name of the Python function they compile (None for a lambda or an expression)."""
        index = ctx.index
        created: list[tuple[cst.CSTNode, ModuleInfo, str, str | None]] = [
            (call.node, call.module, "`tf.function(...)` is called", _compiled_name(call.node))
            for call in index.calls_to(TF_FUNCTION)]
        created += [(f.node.name, f.module, f"`{f.name}` is defined with `@tf.function`", f.name)
                    for f in index.functions if TF_FUNCTION in f.decorators]
        for node, module, what, function_name in created:
            loop = module.enclosing_loop(node)
            if loop is not None:
                yield self._per_iteration(ctx, function_name, module, node,
                                          f"{what} inside the loop at {module.location(loop).display}")
                continue
            outer = self._enclosing_function(index, module, node)
            if outer is None or index.is_compiled(outer):
                continue
            per_batch = [c for c in index.calls_of(outer) if c.module.enclosing_loop(c.node) is not None]
            if per_batch:
                where = per_batch[0].module.location(per_batch[0].node).display
                yield self._per_iteration(ctx, function_name, module, node,
                                          f"{what} inside `{outer.name}`, which a loop calls per iteration at {where}")

    @staticmethod
    def _enclosing_function(index: SourceIndex, module: ModuleInfo, node: cst.CSTNode) -> FunctionInfo | None:
        parent = module.parent(node)
        if isinstance(node, cst.Name) and isinstance(parent, cst.FunctionDef):
            parent = module.parent(parent)  # the decorated def's own name: look above the def
        while parent is not None and not isinstance(parent, cst.FunctionDef):
            parent = module.parent(parent)
        return index.function_of(parent) if parent is not None else None

    def _per_iteration(self, ctx: RuleContext, function_name: str | None, module: ModuleInfo, node: cst.CSTNode,
                       where: str) -> Finding:
        message = (f"{where}: every iteration makes a new `tf.function`, which traces its Python into a new graph "
                   f"before it runs. Create it once, outside the loop, and call it in the loop.")
        return self._report(ctx, function_name, module, node, message, Confidence.LIKELY,
                            [Evidence("source", where)])

    def _scalar_arguments(self, ctx: RuleContext, function: FunctionInfo, call: CallSite,
                          loop: TrainingLoop) -> Iterator[Finding]:
        """Arguments built from the loop's Python step counter: a new value, hence a new trace, every step."""
        counter = loop.counter
        if counter is None:
            return
        for position, arg in enumerate(call.node.args):
            if not m.findall(arg.value, m.Name(counter)) or _is_tensor_call(call.module, arg.value):
                continue
            anchor = call.node.func.attr if isinstance(call.node.func, cst.Attribute) else call.node.func
            start = call.module.location(anchor)
            message = (f"`{call.module.node_code(arg.value)}` is the loop's Python step counter: `tf.function` "
                       f"traces a new graph for every new Python value, so this call retraces every step.")
            yield self._report(ctx, function.name, call.module, arg.value, message, Confidence.LIKELY,
                               [Evidence("source", f"`{counter}` counts the iterations of the loop at "
                                                   f"{call.module.location(loop.node).display}")],
                               codemod=PassTensor,
                               fix_args={"line": start.line, "column": start.column, "argument": position})

    def _varying_shapes(self, ctx: RuleContext, function: FunctionInfo) -> Iterator[Finding]:
        """Batches of changing shape fed to a compiled function whose decorator does not relax shapes."""
        index = ctx.index
        decorator = next((d.decorator for d in function.node.decorators if TF_FUNCTION in function.module
                          .qualified_names(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator)),
                         None)
        if decorator is None or isinstance(decorator, cst.Call) and any(
                _keyword(decorator, k) is not None for k in SHAPE_RELAXING):
            return
        loops = {id(loop): loop for c in index.calls_of(function)
                 if (loop := c.module.enclosing_loop(c.node)) is not None}
        causes: list[tuple[Confidence, str]] = []
        for pipeline in index.pipelines():
            if pipeline.sink.role != "loop" or id(pipeline.sink.node) not in loops:
                continue
            for stage in pipeline.stages:
                at = stage.module.location(stage.anchor).display
                if stage.op == "padded_batch" and _keyword(stage.node, "padded_shapes") is None and \
                        len([a for a in stage.node.args if a.keyword is None]) < 2:
                    causes.append((Confidence.LIKELY, f"`.padded_batch()` at {at} pads each batch to its own "
                                                      f"longest element: a new shape, and a new trace, per length"))
                elif stage.op == "batch" and not _drops_remainder(stage.node):
                    causes.append((Confidence.POSSIBLE, f"`.batch()` at {at} keeps a smaller last batch "
                                                        f"(no `drop_remainder=True`): one more trace for its shape"))
        if not causes:
            return
        confidence = min((c for c, _ in causes), key=lambda c: c.rank)
        message = (f"`{function.name}` is a `tf.function` fed batches of varying shape, so it traces a new graph "
                   f"for each shape; `reduce_retracing=True` lets it trace one graph with a generalized shape.")
        yield self._report(ctx, function.name, function.module, function.node.name, message, confidence,
                           [Evidence("source", text) for _, text in dict.fromkeys(causes)], codemod=ReduceRetracing)


def _profile_verdict(profile: Any, function_name: str, evidence: list[Evidence], confidence: Confidence,
                     estimate: SpeedupEstimate | None) -> tuple[Confidence, SpeedupEstimate | None]:
    """Confirm or contradict a finding with the capture's traces of the function, known by its Python name.

    Only traces inside the capture count: a step that builds its optimizer's variables on the first call traces
    twice at the start (``total_traces`` 2) and never again."""
    traced = next((f for f in profile.tracing if f.function == function_name), None)
    if traced is None:
        evidence.append(Evidence(PROFILE, f"`{function_name}` is not called in the capture"))
        return confidence, estimate
    captured_ms = profile.steps.count * profile.steps.step_time_ms.avg
    share = traced.tracing_ms / captured_ms if captured_ms else 0.0
    evidence.append(Evidence(
        PROFILE, f"`{function_name}` traced {traced.traces} times in {traced.calls} calls during the capture, "
                 f"building graphs for {traced.tracing_ms:.0f} ms ({share:.0%} of the captured steps' time); "
                 f"{traced.total_traces} traces since the program started",
        {"function": function_name, "traces": traced.traces, "calls": traced.calls,
         "tracing_ms": traced.tracing_ms, "total_traces": traced.total_traces, "tracing_share": share}))
    if traced.traces > 1:
        return Confidence.CONFIRMED, speedup.bounded_by_share(share, "tracing")
    if traced.traces == 0 and traced.calls > 1:
        evidence.append(Evidence(CONTRADICTION, f"all {traced.calls} captured calls of `{function_name}` reused a "
                                                "graph traced earlier"))
        return Confidence.POSSIBLE, None
    return confidence, estimate


def _compiled_name(call: cst.Call) -> str | None:
    """The Python function ``tf.function(f)`` compiles, by name: the capture names its calls after it."""
    first = call.args[0].value if call.args and call.args[0].keyword is None else None
    return first.value if isinstance(first, cst.Name) else None


def _drops_remainder(batch: cst.Call) -> bool:
    flag = _keyword(batch, "drop_remainder")
    positional = [a for a in batch.args if a.keyword is None]
    value = flag.value if flag is not None else positional[1].value if len(positional) > 1 else None
    return value is not None and not m.matches(value, m.Name("False"))


def _is_tensor_call(module: ModuleInfo, expression: cst.BaseExpression) -> bool:
    """``tf.constant(step)`` and the like: already a tensor, whatever Python it was made from."""
    return isinstance(expression, cst.Call) and any(
        n.startswith("tensorflow.") for n in module.qualified_names(expression.func))
