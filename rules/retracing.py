"""TFH003: a ``tf.function`` that is traced again and again instead of once."""

from __future__ import annotations

from typing import Iterable, Iterator

import libcst as cst
import libcst.matchers as m

from advisor import speedup
from advisor.codemods.tensor_argument import PassTensor
from advisor.codemods.tf_function import ReduceRetracing
from advisor.model import Applicability, Confidence, Evidence, Finding
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
    speedup_model = "typical range of removing retraces (time spent tracing per step, once a profile reports it)."
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
        yield from self._created_per_iteration(index)
        for function in index.functions:
            if not index.is_compiled(function):
                continue
            for call in index.calls_of(function):
                loop = call.module.enclosing_loop(call.node)
                if loop is not None:
                    yield from self._scalar_arguments(call, TrainingLoop(call.module, loop))
            yield from self._varying_shapes(index, function)

    def _created_per_iteration(self, index: SourceIndex) -> Iterator[Finding]:
        """``tf.function`` objects created in a loop body, or in a function the loop calls per iteration."""
        created: list[tuple[cst.CSTNode, ModuleInfo, str]] = [
            (call.node, call.module, "`tf.function(...)` is called") for call in index.calls_to(TF_FUNCTION)]
        created += [(f.node.name, f.module, f"`{f.name}` is defined with `@tf.function`")
                    for f in index.functions if TF_FUNCTION in f.decorators]
        for node, module, what in created:
            loop = module.enclosing_loop(node)
            if loop is not None:
                yield self._per_iteration(module, node, f"{what} inside the loop at "
                                                        f"{module.location(loop).display}")
                continue
            outer = self._enclosing_function(index, module, node)
            if outer is None or index.is_compiled(outer):
                continue
            per_batch = [c for c in index.calls_of(outer) if c.module.enclosing_loop(c.node) is not None]
            if per_batch:
                where = per_batch[0].module.location(per_batch[0].node).display
                yield self._per_iteration(module, node, f"{what} inside `{outer.name}`, which a loop calls per "
                                                        f"iteration at {where}")

    @staticmethod
    def _enclosing_function(index: SourceIndex, module: ModuleInfo, node: cst.CSTNode) -> FunctionInfo | None:
        parent = module.parent(node)
        if isinstance(node, cst.Name) and isinstance(parent, cst.FunctionDef):
            parent = module.parent(parent)  # the decorated def's own name: look above the def
        while parent is not None and not isinstance(parent, cst.FunctionDef):
            parent = module.parent(parent)
        return index.function_of(parent) if parent is not None else None

    def _per_iteration(self, module: ModuleInfo, node: cst.CSTNode, where: str) -> Finding:
        message = (f"{where}: every iteration makes a new `tf.function`, which traces its Python into a new graph "
                   f"before it runs. Create it once, outside the loop, and call it in the loop.")
        return self.finding(module, node, message, confidence=Confidence.LIKELY,
                            evidence=[Evidence("source", where)], speedup=speedup.typical("retracing"))

    def _scalar_arguments(self, call: CallSite, loop: TrainingLoop) -> Iterator[Finding]:
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
            yield self.finding(call.module, arg.value, message, confidence=Confidence.LIKELY,
                               evidence=[Evidence("source", f"`{counter}` counts the iterations of the loop at "
                                                            f"{call.module.location(loop.node).display}")],
                               speedup=speedup.typical("retracing"), codemod=PassTensor,
                               fix_args={"line": start.line, "column": start.column, "argument": position})

    def _varying_shapes(self, index: SourceIndex, function: FunctionInfo) -> Iterator[Finding]:
        """Batches of changing shape fed to a compiled function whose decorator does not relax shapes."""
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
        yield self.finding(function.module, function.node.name, message, confidence=confidence,
                           evidence=[Evidence("source", text) for _, text in dict.fromkeys(causes)],
                           speedup=speedup.typical("retracing"), codemod=ReduceRetracing)


def _drops_remainder(batch: cst.Call) -> bool:
    flag = _keyword(batch, "drop_remainder")
    positional = [a for a in batch.args if a.keyword is None]
    value = flag.value if flag is not None else positional[1].value if len(positional) > 1 else None
    return value is not None and not m.matches(value, m.Name("False"))


def _is_tensor_call(module: ModuleInfo, expression: cst.BaseExpression) -> bool:
    """``tf.constant(step)`` and the like: already a tensor, whatever Python it was made from."""
    return isinstance(expression, cst.Call) and any(
        n.startswith("tensorflow.") for n in module.qualified_names(expression.func))
