"""TFH003: a ``tf.function`` that is traced again and again instead of once."""

from __future__ import annotations

from typing import Iterable, Iterator

import libcst as cst
import libcst.matchers as m

from advisor.codemods.tensor_argument import PassTensor
from advisor.codemods.tf_function import ReduceRetracing
from advisor.rule import (TF_FUNCTION, Applicability, CallSite, Confidence, Evidence, Example, Finding,
                          FixAvailability, FunctionInfo, ModuleInfo, Rule, RuleContext, TrainingLoop, Verdict,
                          anchor, argument, compiled_function_name, method_name, typical)

# tf.function arguments that already stop retracing on new shapes.
SHAPE_RELAXING = frozenset({"reduce_retracing", "input_signature", "experimental_relax_shapes"})


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
    fix_availability = FixAvailability.SOMETIMES
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

            @tf.function
            def train_step(x):
                return x

            for x in tf.data.Dataset.range(9).batch(2):
                train_step(x)
            """, note="a smaller last batch traces once more per run, not per step: no finding"),
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
        Example("""
            import tensorflow as tf

            @tf.function
            def solve(matrix):
                return tf.linalg.inv(matrix)

            for k in range(num_models):
                solve(matrices[k] + tf.eye(4))
            """, note="the counter picks an element: the argument is a tensor, not the counter's value"),
        Example("""
            import tensorflow as tf

            class Trainer:
                def train_step(self, batch):
                    if self.compiled_step is None:
                        self.compiled_step = tf.function(self.forward)
                    return self.compiled_step(batch)

                def fit(self, dataset):
                    for batch in dataset:
                        self.train_step(batch)
            """, note="made on the first step only: its test fails once its body has set it"),
        Example("""
            import tensorflow as tf

            for resolution in (4, 8, 16, 32):
                generator = tf.function(build_generator(resolution))
                generator(tf.zeros([1, 512]))
            """, note="a different function per iteration, built from the loop's own value: each traces once"),
        Example("""
            import tensorflow as tf

            def ignore_padding(loss):
                @tf.function
                def wrapper(true, pred):
                    mask = true >= 0
                    return loss(tf.boolean_mask(true, mask), tf.boolean_mask(pred, mask))
                return wrapper

            for i, loss in enumerate(losses):
                loss = loss(reduction="none")
                loss = ignore_padding(loss)
                losses[i] = loss
            """, note="a wrapper compiled around each loss of a list: one function per loss, each traced once"),
        Example("""
            import tensorflow as tf

            for host in hosts:
                @tf.function
                def add_unroll(data):
                    host.queue.enqueue(data)
                server.bind(add_unroll)
            """, note="a handler per host that the server calls later: each traced once, at its first call"),
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

            for x in tf.data.Dataset.range(9).padded_batch(2):
                train_step(x)
            """, line=4, fixed="""
            import tensorflow as tf

            @tf.function(reduce_retracing=True)
            def train_step(x):
                return x

            for x in tf.data.Dataset.range(9).padded_batch(2):
                train_step(x)
            """, note="each batch padded to its own longest element: a new shape per length"),
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
            if not ctx.queries.is_compiled(function):
                continue
            for call in index.calls_of(function):
                loop = call.module.enclosing_loop(call.node)
                if loop is not None and not ctx.queries.is_compiled(call.function):  # a traced loop: no retrace
                    yield from self._scalar_arguments(ctx, function, call, TrainingLoop(call.module, loop))
            yield from self._varying_shapes(ctx, function)

    def _report(self, ctx: RuleContext, function_name: str | None, module: ModuleInfo, node: cst.CSTNode,
                message: str, static: Verdict, **fix) -> Finding:
        """A finding about the tf.function compiling ``function_name`` (None when unknown), sized by the capture."""
        return self.finding(module, node, message, ctx.verdicts.tracing(function_name, static),
                            reach=ctx.queries.reach(module, node), **fix)

    def _created_per_iteration(self, ctx: RuleContext) -> Iterator[Finding]:
        """``tf.function`` objects created in a loop body, or in a function the loop calls per iteration, with the
        name of the Python function they compile (None for a lambda or an expression)."""
        index = ctx.index
        created: list[tuple[cst.CSTNode, ModuleInfo, str, str | None]] = [
            (call.node, call.module, "`tf.function(...)` is called", compiled_function_name(call.node))
            for call in index.calls_to(TF_FUNCTION)]
        # (Not a function a dataset's `map` calls: tf.data traces it with each pipeline, decorated or not.)
        decorated = {id(f.node.name): f for f in index.functions
                     if TF_FUNCTION in f.decorators and not ctx.queries.traced_by_dataset(f)}
        created += [(f.node.name, f.module, f"`{f.name}` is defined with `@tf.function`", f.name)
                    for f in decorated.values()]
        for node, module, what, function_name in created:
            if ctx.queries.initialised_once(module, node):
                continue  # made the first time only (`if self.step is None: self.step = tf.function(...)`)
            loop = module.enclosing_loop(node)
            if loop is not None:
                if self._one_function_per_iteration(ctx, node, loop) or (
                        id(node) in decorated and not ctx.queries.called_in_its_iteration(decorated[id(node)])):
                    continue
                yield self._per_iteration(ctx, function_name, module, node,
                                          f"{what} inside the loop at {module.location(loop).display}")
                continue
            outer = ctx.queries.enclosing_function(module, node)
            if outer is None or ctx.queries.is_compiled(outer) or self._looped_within(ctx, outer, function_name):
                continue
            # A function `outer` returns runs where its caller calls it: per iteration, or kept for later.
            returned = function_name is not None and bool(m.findall(outer.node.body, m.Return(m.Name(function_name))))
            if id(node) in decorated and not returned and not any(
                    m.matches(call.node.func, m.Name(function_name)) for call in ctx.queries.calls_in(outer)):
                continue  # neither run nor returned by `outer`: kept by what it returns, for calls later
            definition = module.parent(node)  # the `def` of a decorated function, else the `tf.function(...)` call
            compiled = definition if isinstance(definition, cst.FunctionDef) else node
            per_batch = [c for c in index.calls_of(outer) if (loop := c.module.enclosing_loop(c.node)) is not None
                         and (not returned or ctx.queries.used_in_its_iteration(c))
                         and not ctx.queries.compiles_each_value(outer, compiled, c, loop)]
            if per_batch:
                where = per_batch[0].module.location(per_batch[0].node).display
                yield self._per_iteration(ctx, function_name, module, node,
                                          f"{what} inside `{outer.name}`, which a loop calls per iteration at {where}")

    @staticmethod
    def _one_function_per_iteration(ctx: RuleContext, node: cst.CSTNode, loop: cst.For | cst.While) -> bool:
        """``tf.function(build(res))`` in ``for res in resolutions``, a loop that runs no training step: each
        iteration compiles a different function, which traces once; nothing is traced again."""
        return (isinstance(node, cst.Call) and bool(node.args)
                and ctx.queries.varies_per_iteration(node.args[0].value, loop)
                and not ctx.queries.runs_training_steps(loop))

    @staticmethod
    def _looped_within(ctx: RuleContext, outer: FunctionInfo, function_name: str | None) -> bool:
        """``outer`` runs its own loop over the ``tf.function`` it creates (a training or evaluation run): the
        function traces once per run, and the loop that calls ``outer`` iterates runs, not steps."""
        return function_name is not None and any(
            function_name == (c.node.func.value if isinstance(c.node.func, cst.Name) else method_name(c.node))
            and outer.module.enclosing_loop(c.node) is not None for c in ctx.queries.calls_in(outer))

    def _per_iteration(self, ctx: RuleContext, function_name: str | None, module: ModuleInfo, node: cst.CSTNode,
                       where: str) -> Finding:
        message = (f"{where}: every iteration makes a new `tf.function`, which traces its Python into a new graph "
                   f"before it runs. Create it once, outside the loop, and call it in the loop.")
        return self._report(ctx, function_name, module, node, message,
                            Verdict(Confidence.LIKELY, typical("retracing"), (Evidence.source(where),)))

    def _scalar_arguments(self, ctx: RuleContext, function: FunctionInfo, call: CallSite,
                          loop: TrainingLoop) -> Iterator[Finding]:
        """Arguments built from the loop's Python step counter: a new value, hence a new trace, every step."""
        counter = loop.counter
        if counter is None:
            return
        for position, arg in enumerate(call.node.args):
            if not _counter_value(arg.value, counter) or ctx.queries.is_tensor_call(call.module, arg.value):
                continue
            start = call.module.location(anchor(call.node))
            message = (f"`{call.module.node_code(arg.value)}` is the loop's Python step counter: `tf.function` "
                       f"traces a new graph for every new Python value, so this call retraces every step.")
            static = ctx.verdicts.per_step_cost([(call.module, loop.node)], Verdict(
                Confidence.LIKELY, typical("retracing"), (Evidence.source(
                    f"`{counter}` counts the iterations of the loop at {call.module.location(loop.node).display}"),)))
            yield self._report(ctx, function.name, call.module, arg.value, message, static, codemod=PassTensor,
                               fix_args={"line": start.line, "column": start.column, "argument": position})

    def _varying_shapes(self, ctx: RuleContext, function: FunctionInfo) -> Iterator[Finding]:
        """Batches of changing shape fed to a compiled function whose decorator does not relax shapes."""
        index = ctx.index
        decorator = next((d.decorator for d in function.node.decorators if TF_FUNCTION in function.module
                          .qualified_names(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator)),
                         None)
        if decorator is None or isinstance(decorator, cst.Call) and any(
                argument(decorator, k) is not None for k in SHAPE_RELAXING):
            return
        loops = {id(loop): loop for c in index.calls_of(function)
                 if (loop := c.module.enclosing_loop(c.node)) is not None}
        causes: list[tuple[Confidence, str]] = []
        for pipeline in index.pipelines():
            if pipeline.sink.role != "loop" or id(pipeline.sink.node) not in loops:
                continue
            for stage in pipeline.stages:
                at = stage.module.location(stage.anchor).display
                if stage.op == "padded_batch" and argument(stage.node, "padded_shapes", 1) is None:
                    causes.append((Confidence.LIKELY, f"`.padded_batch()` at {at} pads each batch to its own "
                                                      f"longest element: a new shape, and a new trace, per length"))
        if not causes:
            return
        confidence = min((c for c, _ in causes), key=lambda c: c.rank)
        message = (f"`{function.name}` is a `tf.function` fed batches of varying shape, so it traces a new graph "
                   f"for each shape; `reduce_retracing=True` lets it trace one graph with a generalized shape.")
        static = Verdict(confidence, typical("retracing"), tuple(Evidence.source(text)
                                                                 for _, text in dict.fromkeys(causes)))
        yield self._report(ctx, function.name, function.module, function.node.name, message, static,
                           codemod=ReduceRetracing)


def _counter_value(expr: cst.BaseExpression, counter: str) -> bool:
    """``expr`` is a Python number made from the loop's counter: the counter, or arithmetic on it and other plain
    values (``step + 1``, ``-epoch``). Not an element the counter picks (``matrices[k]``) nor a call's result."""
    if m.matches(expr, m.Name(counter)):
        return True
    if isinstance(expr, cst.UnaryOperation):
        return _counter_value(expr.expression, counter)
    if isinstance(expr, cst.BinaryOperation):
        sides = (expr.left, expr.right)
        return any(_counter_value(side, counter) for side in sides) and all(
            _counter_value(side, counter) or isinstance(side, (cst.Name, cst.Attribute, cst.Integer, cst.Float))
            for side in sides)
    return False
