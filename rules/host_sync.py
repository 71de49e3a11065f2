"""TFH004: a tensor's value read on the host in every step of a training loop."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable

import libcst as cst
import libcst.matchers as m

from advisor.codemods.step_interval import GuardWithStepInterval
from advisor.rule import (NUMPY_CALL, PERCENT_FORMATTING, STRING_FORMAT, VALUE_CONVERSIONS, Applicability, CallSite,
                          Confidence, Evidence, Example, Finding, FixAvailability, FunctionInfo, InLoopBody, Rule,
                          RuleContext, SideEffect, SourceQueries, TrainingLoop, Verdict, typical, visit_reading)

METRIC_RESULT = m.Call(func=m.Attribute(attr=m.Name("result")), args=[])
# Keras' copies of a model's or layer's weights into NumPy arrays and back.
WEIGHT_COPY = m.Call(func=m.Attribute(attr=m.Name("get_weights") | m.Name("set_weights")))
# Often enough to follow training, rarely enough that the syncs stop mattering.
LOG_EVERY = 100


@dataclass(frozen=True)
class Sync:
    node: cst.CSTNode
    statement: cst.CSTNode
    kind: str  # "conversion", "print", "branch", "helper"
    blocked_by: cst.Call | None = None  # an earlier call of the step that waits for the device anyway
    environment: CallSite | None = None  # the environment step the loop feeds (in the loop or a function it calls)
    copied_by: tuple[FunctionInfo, cst.Call] | None = None  # the repo function, and its copy, a tensor is passed to
    # The read just before it in the step, where that one runs whenever this one does and nothing between the two
    # may give the device work: once that read has waited for the step, this one waits for nothing more.
    after: "Sync | None" = None


# Calls that already make the step wait for the device (Keras' predict returns NumPy values): a read next to them
# adds little.
BLOCKING_METHODS = frozenset({"predict", "predict_on_batch", "evaluate"})


_CONVERSION_OR_PRINT = m.Call(func=m.Name(value=m.MatchIfTrue(VALUE_CONVERSIONS.__contains__)) | m.Name("print"))
_BLOCKING_CALL = m.Call(func=m.Attribute(attr=m.Name(value=m.MatchIfTrue(BLOCKING_METHODS.__contains__))))
# `if "rgb0" in extras:`: whether a dict of results holds a key, not a tensor's value.
_KEY_TEST = m.Comparison(left=m.SimpleString(), comparisons=[m.ComparisonTarget(operator=m.In() | m.NotIn())])


def _identity_test(test: cst.BaseExpression) -> bool:
    """``aux_logits is not None``, and ``and``/``or``/``not`` of such: Python compares the objects, not the values
    a tensor holds."""
    if isinstance(test, cst.BooleanOperation):
        return _identity_test(test.left) and _identity_test(test.right)
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _identity_test(test.expression)
    return isinstance(test, cst.Comparison) and all(isinstance(target.operator, (cst.Is, cst.IsNot))
                                                    for target in test.comparisons)


class _Syncs(InLoopBody):
    """Host reads of tensor values in per-step code: ``.numpy()``, ``float(t)``, ``print(t)``, ``np.mean(t)``,
    ``if t:``."""

    def __init__(self, loop: TrainingLoop, environment: CallSite | None, queries: SourceQueries) -> None:
        super().__init__()
        self.loop = loop
        self.queries = queries  # where a repo function a call runs copies a tensor passed to it
        self.found: list[Sync] = []
        self.statement: cst.CSTNode | None = None
        self.blocked_by: cst.Call | None = None  # the first blocking call met so far in the step
        self.dispatched = False  # whether a call since the last read may have given the device work
        self.calls_dispatch = False  # whether a call of the current statement may
        # An environment stepped every iteration takes Python values from the policy: the host waits every step.
        self.environment = environment

    def _mentions_tensor(self, node: cst.CSTNode) -> bool:
        """Reads a tensor of the step, or a Keras metric's value (``train_loss.result()``)."""
        return self.loop.reads_tensor(node) or bool(m.findall(node, METRIC_RESULT))

    def _add(self, node: cst.CSTNode, kind: str, copied_by: tuple[FunctionInfo, cst.Call] | None = None) -> None:
        # One finding per statement: `print(float(loss))` is one sync.
        if not any(s.statement is self.statement for s in self.found):
            previous = self.found[-1] if self.found else None
            after = previous if previous is not None and not self.dispatched and self.loop.runs_whenever(
                previous.statement, self.statement) else None
            self.found.append(Sync(node, self.statement, kind, self.blocked_by, self.environment, copied_by, after))
            self.dispatched = False

    def _enter(self, statement: cst.CSTNode) -> None:
        """Start ``statement``: the calls of the one before it gave the device work since the last read unless
        that one read a value (its calls run before its read waits for them) or runs on some steps only (a
        checkpoint saved every 1000 steps)."""
        if self.calls_dispatch and not (self.found and self.found[-1].statement is self.statement) and \
                not self.loop.throttles(self.statement):
            self.dispatched = True
        self.calls_dispatch = False
        self.statement = statement

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self._enter(node)

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self._enter(node)  # the body of a one-line `if step % 200 == 0: print(...)`

    def visit_With(self, node: cst.With) -> None:
        self._enter(node)

    def visit_For(self, node: cst.For) -> None:
        self._enter(node)

    def visit_While(self, node: cst.While) -> None:
        self._enter(node)

    def visit_If(self, node: cst.If) -> None:
        self._enter(node)
        if m.matches(node.test, _KEY_TEST) or _identity_test(node.test):
            return
        if self._mentions_tensor(node.test) or self.loop.reads_device_value(node.test):
            self._add(node.test, "branch")

    def visit_Call(self, node: cst.Call) -> None:
        self.calls_dispatch = self.calls_dispatch or self.loop.dispatches(node)
        if self.blocked_by is None and m.matches(node, _BLOCKING_CALL):
            self.blocked_by = node
        if m.matches(node, _CONVERSION_OR_PRINT):
            self.builtin_call(node)
        if m.matches(node, NUMPY_CALL):
            self.numpy_call(node)
        if isinstance(node.func, cst.Attribute):
            self.numpy_function(node)
        if m.matches(node.func, STRING_FORMAT):
            self.string_formatting(node)
        if node.args:  # `state = to_np(state)`, a helper that returns `t.numpy()`
            copied_by = self.queries.host_copy_of_argument(self.loop.module, node, self._reads_value)
            if copied_by is not None:
                self._add(node, "helper", copied_by)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if m.matches(node, PERCENT_FORMATTING):
            self.string_formatting(node)

    def visit_FormattedStringExpression(self, node: cst.FormattedStringExpression) -> None:
        """``f"loss {loss}"``: formatting a tensor reads its value."""
        if self._reads_value(node.expression):
            self._add(node.expression, "conversion")

    def numpy_call(self, node: cst.Call) -> None:
        receiver = node.func.value
        if not (self.loop.reads_input(receiver)
                or isinstance(receiver, cst.Name) and receiver.value in self.loop.host_counters):
            self._add(node, "conversion")

    def builtin_call(self, node: cst.Call) -> None:
        if self._reads_value(node):
            self._add(node, "print" if node.func.value == "print" else "conversion")

    def string_formatting(self, node: cst.BinaryOperation | cst.Call) -> None:
        """``"%.4f" % loss``, ``"{:.4f}".format(loss)``: formatting a tensor reads its value."""
        if any(self._reads_value(value) for value in ([node.right] if isinstance(node, cst.BinaryOperation)
                                                      else [a.value for a in node.args])):
            self._add(node, "conversion")

    def _reads_value(self, expression: cst.BaseExpression) -> bool:
        """``expression`` needs a tensor's value, not only its static shape."""
        return self._mentions_tensor(expression) and not m.findall(expression, m.Attribute(attr=m.Name("shape")))

    def numpy_function(self, node: cst.Call) -> None:
        """``np.mean(loss)``, ``np.isnan(loss)``: NumPy converts its tensor arguments to arrays on the host."""
        if any(n.startswith("numpy.") for n in self.loop.module.qualified_names(node.func)) and any(
                self._reads_value(arg.value) for arg in node.args):
            self._add(node, "conversion")


class HostSync(Rule):
    code = "TFH004"
    name = "host-sync"
    title = "Tensor value read on the host every training step"
    rationale = (
        "`.numpy()`, `float(t)`, `int(t)`, `print(t)` and `if t:` need the tensor's value on the host, so Python "
        "waits for the step that computes it to finish and copies the result back. Done every step, this stops "
        "the host from queuing the next step while the device works: on a GPU or TPU the device idles between "
        "steps. Reading values every N steps, or accumulating them in a metric, keeps the pipeline full."
    )
    fix = f"Run the statement only every {LOG_EVERY} steps (`if step % {LOG_EVERY} == 0:`)."
    fix_availability = FixAvailability.SOMETIMES
    fix_applicability = Applicability.UNSAFE
    why_unsafe = ("The statement then runs on one step in N: what it prints or records covers fewer steps, and code "
                  "after it must not rely on its result.")
    speedup_model = ("the share of step time the host spends waiting for the device (breakdown); without a profile, "
                     "the typical range of removing a per-step sync.")
    valid = (
        Example("""
            import tensorflow as tf
            ckpt = tf.train.Checkpoint(step=tf.Variable(0), model=model)

            @tf.function
            def train_step(x, y):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(model(x) - y))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
                return loss

            for x, y in dataset:
                train_step(x, y)
                ckpt.step.assign_add(1)
                step = ckpt.step.numpy()
            """, note="an int32 variable lives in host memory: reading it does not wait for the device"),
        Example("""
            import tensorflow as tf

            for step, (x, y) in enumerate(dataset):
                loss = train_step(x, y)
                if step % 100 == 0:
                    print(float(loss))
            """, note="not a training step (no tape here or in train_step): not a training loop"),
        Example("""
            import tensorflow as tf

            def train_step(x, y):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y, model(x))
                optimizer.apply_gradients(zip(tape.gradient(loss, weights), weights))
                return loss

            for step, (x, y) in enumerate(dataset):
                loss = train_step(x, y)
                if step % 100 == 0:
                    print(f"step {step}: {float(loss):.3f}")
            print(float(loss))
            """, note="guarded by a step interval; the last print runs once"),
        Example("""
            import tensorflow as tf

            for step in range(10000):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y, model(x))
                optimizer.apply_gradients(zip(tape.gradient(loss, weights), weights))
                if step % 200 == 0: print("step %d loss %.4f" % (step, loss))
            """, note="a one-line `if` on a step interval"),
        Example("""
            import numpy as np
            import tensorflow as tf

            class Trainer:
                def train(self, x, y):
                    with tf.GradientTape() as tape:
                        loss = loss_fn(y, model(x))
                    optimizer.apply_gradients(zip(tape.gradient(loss, weights), weights))
                    if self.mean_loss is None:
                        self.mean_loss = np.mean(loss)

            for x, y in dataset:
                trainer.train(x, y)
            """, note="a first-step initialisation: once its body has set the value, the `if` never runs again"),
        Example("""
            import tensorflow as tf

            def train_step(x, y):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y, model(x))
                optimizer.apply_gradients(zip(tape.gradient(loss, weights), weights))
                return loss

            for x, y in dataset:
                train_step(x, y)
                print(x.shape[0], learning_rate)
            """, note="static shapes and Python values need no sync"),
        Example("""
            import tensorflow as tf

            train_op = tf.train.AdamOptimizer(1e-3).minimize(loss)
            with tf.Session() as sess:
                for step in range(10000):
                    _, loss_value = sess.run([train_op, loss], feed_dict={keep_prob: 0.5})
                    print("step %d loss %.4f" % (step, loss_value))
                    if step % 100 == 0:
                        print("accuracy", accuracy.eval(feed_dict={keep_prob: 1.0}))
            """, note="TensorFlow 1.x: the training run fetches the loss (a NumPy value); the extra run is on an "
                      "interval"),
        Example("""
            import numpy as np
            import tensorflow as tf

            train_op = tf.train.AdamOptimizer(1e-3).minimize(loss)
            with tf.Session() as sess:
                for step in range(10000):
                    _, grads = sess.run([train_op, gradients], feed_dict={x: images[step], y: labels[step]})
                    norm_node.assign([np.linalg.norm(g) for g in grads]).eval()
            """, note="TensorFlow 1.x: writing host values into a variable runs no pass over the data"),
        Example("""
            import tensorflow as tf

            for x, y in dataset:
                with tf.GradientTape() as tape:
                    loss = loss_fn(y, model(x))
                grads = tape.gradient(loss, weights)
                self.grad_norm = tf.linalg.global_norm(grads)
                if self.clip_norm > 0:
                    grads, _ = tf.clip_by_global_norm(grads, self.clip_norm)
                optimizer.apply_gradients(zip(grads, weights))
            """, note="`self.grad_norm` holds a tensor, not `self`: `self.clip_norm` is a Python setting"),
        Example("""
            import numpy as np
            import tensorflow as tf

            def update(segments):
                states = np.stack([segment.states for segment in segments])
                states = tf.convert_to_tensor(states)
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(model(states))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                              model.trainable_variables))

            for segments in replay:
                update(segments)
            """, note="NumPy stacks host arrays before they become tensors: no device value is read"),
    )
    invalid = (
        Example("""
            import tensorflow as tf
            from tqdm import tqdm

            @tf.function
            def train_step(x, y):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y, model(x))
                optimizer.apply_gradients(zip(tape.gradient(loss, weights), weights))
                return loss

            progress = tqdm(dataset)
            for x, y in progress:
                loss = train_step(x, y)
                progress.set_description(f"loss {loss:.4f}")
            """, line=14, note="an f-string reads the tensor's value, wherever the string goes"),
        Example("""
            import tensorflow as tf

            def train_step(x, y):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y, model(x))
                optimizer.apply_gradients(zip(tape.gradient(loss, weights), weights))
                return loss

            for step, (x, y) in enumerate(dataset):
                loss = train_step(x, y)
                print(f"step {step}: loss {float(loss):.4f}")
            """, line=11, fixed="""
            import tensorflow as tf

            def train_step(x, y):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y, model(x))
                optimizer.apply_gradients(zip(tape.gradient(loss, weights), weights))
                return loss

            for step, (x, y) in enumerate(dataset):
                loss = train_step(x, y)
                if step % 100 == 0:
                    print(f"step {step}: loss {float(loss):.4f}")
            """),
        Example("""
            import tensorflow as tf

            history = []
            for x, y in dataset:
                with tf.GradientTape() as tape:
                    loss = loss_fn(y, model(x))
                optimizer.apply_gradients(zip(tape.gradient(loss, weights), weights))
                history.append(loss.numpy())
            """, line=8, note="a step written inline; its result is kept, so guarding it is no mechanical fix"),
        Example("""
            import tensorflow as tf

            @tf.function
            def train_step(x, y):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y, model(x))
                optimizer.apply_gradients(zip(tape.gradient(loss, weights), weights))
                return loss

            while True:
                loss = train_step(*next(iterator))
                if loss < 0.01:
                    break
            """, line=12, note="early stopping on the loss value: a branch that reads the tensor"),
        Example("""
            import tensorflow as tf

            @tf.function
            def train_step(x, y):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y, model(x))
                optimizer.apply_gradients(zip(tape.gradient(loss, weights), weights))
                return loss

            for x, y in dataset:
                loss = train_step(x, y)
                if tf.equal(optimizer.iterations % 100, 0):
                    tf.summary.scalar("loss", loss, step=optimizer.iterations)
            """, line=12, note="logging on an interval of the optimizer's counter still reads that device variable "
                              "every step to decide; a Python counter decides without waiting"),
        Example("""
            import tensorflow as tf

            train_op = tf.train.AdamOptimizer(1e-3).minimize(loss)
            with tf.Session() as sess:
                for images, labels in batches:
                    sess.run(train_op, feed_dict={x: images, y: labels})
                    print(loss.eval(feed_dict={x: images, y: labels}))
            """, line=7, note="TensorFlow 1.x: reading the loss in a second run recomputes the forward pass every "
                              "step"),
        Example("""
            import numpy as np
            from tensorflow import keras

            def clip_critic(critic, threshold):
                for layer in critic.layers:
                    layer.set_weights([np.clip(w, -threshold, threshold) for w in layer.get_weights()])

            for step in range(10000):
                critic.train_on_batch(images[step % 100], labels[step % 100])
                clip_critic(critic, 0.01)
            """, line=6, note="a WGAN's weight clipping through NumPy copies every critic weight out and back in, "
                              "every step"),
        Example("""
            import tensorflow as tf

            def to_numpy(tensor):
                return tensor.numpy()

            @tf.function
            def train_step(x, y):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y, model(x))
                optimizer.apply_gradients(zip(tape.gradient(loss, weights), weights))
                return loss

            for x, y in dataset:
                loss = train_step(x, y)
                losses.append(to_numpy(loss))
            """, line=15, note="a helper the loop hands the step's loss to copies it to Python"),
    )

    def check(self, ctx: RuleContext) -> Iterable[Finding]:
        for loop in ctx.queries.training_loops:
            syncs = _Syncs(loop, ctx.queries.environment_step(loop), ctx.queries)
            visit_reading(loop.node.body, syncs)
            forward: list[SideEffect] | None = None  # the step's own waits in its models' forward pass, asked once
            # An early stop on a device value waits for every step (`if loss < 0.01: break`): other reads add little.
            stop = next((sync for sync in syncs.found if _decides_exit(loop, sync)
                         and not loop.throttles(sync.statement)), None)
            waits = [sync for sync in syncs.found if not loop.throttles(sync.statement) and not (
                isinstance(sync.node, cst.Call) and ctx.queries.reads_host_variable(loop.module, sync.node))]
            # The reads right after a read, waiting for nothing more, go with the first of them: one fix guards all.
            # (Not after a read that runs on some steps only, or waits for nothing.)
            first_of: dict[int, Sync] = {}
            rereads: dict[int, list[Sync]] = {}
            for sync in waits:
                after = sync.after if sync.after is not None and id(sync.after) in first_of else None
                first = first_of[id(sync)] = first_of[id(after)] if after is not None else sync
                if first is not sync:
                    rereads.setdefault(id(first), []).append(sync)
            for sync in waits:
                if forward is None:
                    forward = [e for e in ctx.queries.host_calls_in(loop.module, loop.node.body) if e.in_forward]
                yield self._finding(ctx, loop, sync if first_of[id(sync)] is not sync else replace(sync, after=None),
                                    forward, stop if stop is not sync else None, rereads.get(id(sync), []))
        # One finding per function that copies (an actor's and a critic's target updates are two fixes), at its first
        # copy.
        copies: dict[int, tuple[TrainingLoop, CallSite]] = {}
        for loop in [*ctx.queries.training_loops, *ctx.queries.keras_batch_loops, *ctx.queries.session_loops]:
            for site in ctx.queries.per_step_calls(loop):
                if m.matches(site.node, WEIGHT_COPY):
                    copies.setdefault(id(site.function.node if site.function is not None else loop.node),
                                      (loop, site))
        for loop, site in copies.values():
            yield self._weight_copy_finding(ctx, loop, site)
        for loop in ctx.queries.session_loops:
            if ctx.queries.environment_step(loop) is not None:
                continue  # an agent runs its policy every environment step to act: that read is the point
            runs = [run for run in ctx.queries.extra_session_runs(loop) if not loop.throttles(run)]
            if runs:
                yield self._rerun_finding(ctx, loop, runs)
            fetched = ctx.queries.fetched_for_some_steps(loop)
            if fetched:
                yield self._some_steps_fetch_finding(ctx, loop, fetched)

    def _weight_copy_finding(self, ctx: RuleContext, loop: TrainingLoop, site: CallSite) -> Finding:
        """A model's weights copied to or from NumPy every step (a target network's update, a WGAN's clipping)."""
        module = site.module
        code = module.node_code(site.node.func)
        description = loop.description
        message = (f"{description[0].upper()}{description[1:]} copies weights between the device and NumPy "
                   f"(`{code}()`, {module.location(site.node).line_label}): every step, the host waits for the step "
                   "to finish, then copies every weight. Keep the update on the device (`variable.assign(...)` in a "
                   "`tf.function`, a `kernel_constraint` to clip), or make it every N steps.")
        where = loop.loop_module.location(loop.loop).display if loop.loop is not None else module.location(
            site.node).display
        evidence = (Evidence.source(f"`{code}` ({module.location(site.node).line_label}) runs once per iteration "
                                    f"of the loop at {where}, under no step interval"),)
        static = Verdict(Confidence.LIKELY, typical("host_sync"), evidence)
        verdict = ctx.verdicts.per_step_cost([(loop.loop_module, loop.loop)], static)
        return self.finding(module, site.node, message, verdict, reach=ctx.queries.reach(module, site.node))

    def _some_steps_fetch_finding(self, ctx: RuleContext, loop: TrainingLoop,
                                  fetched: list[tuple[cst.Call, cst.BaseExpression, cst.Name]]) -> Finding:
        """A TensorFlow 1.x training run fetching, every step, values the loop reads only on some steps (an output
        image saved every N epochs, a decoded sample printed every 100 steps): one finding, at the first run."""
        module = loop.module
        run, fetch, read = fetched[0]
        names = list(dict.fromkeys(f"`{module.node_code(f)}`" for _, f, _ in fetched))
        them = "them" if len(names) > 1 else "it"
        message = (f"The training run at {module.location(run).line_label} fetches {', '.join(names)} every step, "
                   f"but the loop reads {them} only on some steps ({module.location(read).line_label}): every step "
                   f"copies {them} to the host (and computes {them}, if the update does not need {them}). Fetch "
                   f"{them} in a run of its own on the steps that read {them}.")
        evidence = (Evidence.source(f"`{module.node_code(fetch)}` is read only under a step interval or a condition "
                                    f"the loop sets ({module.location(read).display})"),
                    Evidence.source("how much that costs depends on the tensor's size and on whether the update "
                                    "computes it anyway, which the source does not say"))
        verdict = ctx.verdicts.per_step_cost([(loop.loop_module, loop.loop)],
                                             Verdict(Confidence.POSSIBLE, typical("host_sync"), evidence))
        return self.finding(module, run, message, verdict, reach=ctx.queries.reach(module, loop.node))

    def _rerun_finding(self, ctx: RuleContext, loop: TrainingLoop, runs: list[cst.Call]) -> Finding:
        """A TensorFlow 1.x loop that runs the graph again every step to read values: one finding, at the first."""
        module = loop.module
        code = module.node_code(runs[0].func)
        message = (f"The training loop at {module.location(loop.node).display} runs the graph again every step to "
                   f"read a value (`{code}(...)`): that run recomputes what it reads (a forward pass at least) after "
                   "the training run, and the host waits for it. Fetch the value in the training run "
                   "(`sess.run([train_op, loss])`), or read it every N steps.")
        evidence = [Evidence.source(f"runs once per iteration of the loop at {module.location(loop.node).display}, "
                                    "under no step interval, besides the training run at "
                                    f"{module.location(loop.session_runs[0]).line_label}")]
        if len(runs) > 1:
            evidence.append(Evidence.source(f"{len(runs) - 1} more such runs: " + ", ".join(
                f"`{module.node_code(run.func)}` ({module.location(run).line_label})" for run in runs[1:4])))
        confidence = Confidence.LIKELY
        compute = ctx.queries.module_compute(module)
        if compute.tiny:
            # A toy model (tutorials' regressions): the extra run doubles a step of microseconds, nothing to gain.
            confidence = Confidence.POSSIBLE
            evidence.append(Evidence.source("the graph it trains is tiny: all the code of its file " +
                                            compute.describe().removeprefix("its building code ")))
        verdict = ctx.verdicts.host_sync(ctx.verdicts.per_step_cost([(loop.loop_module, loop.loop)], Verdict(
            confidence, typical("host_sync"), tuple(evidence))))
        return self.finding(module, runs[0], message, verdict, reach=ctx.queries.reach(module, loop.node))

    def _finding(self, ctx: RuleContext, loop: TrainingLoop, sync: Sync, forward: list[SideEffect],
                 stop: Sync | None, rereads: list[Sync]) -> Finding:
        """``rereads``: the reads right after this one that wait for nothing more (each one's ``after``)."""
        module = loop.module
        code = module.node_code(sync.node)
        loop_at = loop.loop_module.location(loop.loop).display
        if sync.copied_by is not None:
            helper, copy = sync.copied_by
            reads = (f"hands a tensor to `{helper.name}` (`{code}`), which copies it to Python "
                     f"(`{helper.module.node_code(copy)}`, {helper.module.location(copy).display})")
        else:
            reads = {"branch": f"branches on a value the device computes (`{code}`)",
                     "print": f"prints a tensor value (`{code}`)",
                     "conversion": f"copies a tensor value to Python (`{code}`)"}[sync.kind]
        description = loop.description
        message = (f"{description[0].upper()}{description[1:]} {reads} every step: the host waits for the step to "
                   f"finish before it can start the next one.")
        if sync.kind == "branch" and m.findall(sync.node, m.Modulo()):
            message += " A step interval counted in Python (`step % 100 == 0`) decides without waiting."
        # The source shows the read happen every step: likely (8 of 12 such findings were right on real repos),
        # unless the step blocks anyway or the environment needs the value.
        evidence = [Evidence.source(f"runs once per iteration of the loop at {loop_at}, under no step interval")]
        if sync.environment is not None:
            environment = sync.environment
            evidence.append(Evidence.source(
                f"the loop steps an environment (`{environment.module.node_code(environment.node.func)}(...)`, "
                f"{environment.module.location(environment.node).display}), which takes Python values every "
                "iteration: the host waits for the device anyway"))
        elif sync.blocked_by is not None:
            evidence.append(Evidence.source(
                f"the step already waits for the device at `{module.node_code(sync.blocked_by.func)}(...)` "
                f"({module.location(sync.blocked_by).line_label}), which returns NumPy values: this read adds little"))
        elif stop is not None:
            evidence.append(Evidence.source(
                f"the loop already waits for the device every step at `{module.node_code(stop.node)}` "
                f"({module.location(stop.node).line_label}), whose value decides whether it goes on: this read adds "
                "little"))
        elif forward:
            evidence.append(Evidence.source(
                f"the step already waits for the device in its model's forward pass: {forward[0].what} "
                f"({module.location(forward[0].node).line_label}) {forward[0].consequence}; this read adds little"))
        elif sync.after is not None:
            earlier = sync.after
            evidence.append(Evidence.source(
                f"`{module.node_code(earlier.node)}` ({module.location(earlier.node).line_label}) already waits for "
                "the step, and nothing between the two may give the device work: this read only copies a finished "
                "value, and saves little unless both go"))
        if rereads:
            listed = ", ".join(f"`{module.node_code(r.node)}` ({module.location(r.node).line_label})"
                               for r in rereads[:4])
            evidence.append(Evidence.source(
                f"the step reads again right after it, waiting for nothing more: {listed}; guard them together, or "
                "the next one waits instead"))
        decides_exit = _decides_exit(loop, sync)
        if decides_exit:
            evidence.append(Evidence.source(
                "the value decides whether the loop goes on (early stopping): the host needs it every step, and "
                "only a loop compiled with its test (`tf.while_loop`) decides without waiting"))
        # An interval on a step counter (`if opt.iterations % 5 == 0: train_generator()`) a Python count decides
        # as well; a value the step computes (an accuracy, a NaN check) no count replaces.
        decides_update = sync.kind == "branch" and isinstance(sync.statement, cst.If) and not m.findall(
            sync.node, m.Modulo()) and loop.decides_update(sync.statement)
        if decides_update:
            evidence.append(Evidence.source(
                "the value decides whether or which update the step makes: the host needs it every step, and only "
                "a decision compiled into the step (`tf.cond` in a `tf.function`) makes it without waiting"))
        priorities = ctx.queries.sets_replay_priorities(module, sync.node, sync.statement)
        if priorities:
            evidence.append(Evidence.source(
                "the value becomes a prioritized replay's priorities, by which it samples the next batch: the host "
                "needs it every update (reading it once per update, not per minibatch, is what can be saved)"))
        placement = ctx.queries.cpu_placement(loop.loop_module, loop.loop)
        if placement is not None:
            evidence.append(Evidence.source(
                f"the loop runs on the CPU (`{loop.loop_module.node_code(placement)}`, "
                f"{loop.loop_module.location(placement).line_label}): no device computes ahead of the host"))
        waits_anyway = sync.environment is not None or sync.blocked_by is not None or bool(forward) or \
            placement is not None or decides_exit or stop is not None or sync.after is not None or decides_update \
            or priorities
        static = Verdict(Confidence.POSSIBLE if waits_anyway else Confidence.LIKELY, typical("host_sync"),
                         tuple(evidence))
        verdict = ctx.verdicts.host_sync(ctx.verdicts.per_step_cost([(loop.loop_module, loop.loop)], static))
        # Only a print can be thinned out safely enough to offer: other statements keep their result for later. Not
        # one the step reads again right after: guarding the print alone, the next read would wait instead.
        mechanical = isinstance(sync.statement, cst.SimpleStatementLine) and sync.kind == "print" and \
            loop.counter is not None and m.matches(sync.statement, m.SimpleStatementLine(body=[m.Expr(m.Call())])) \
            and not rereads
        return self.finding(module, sync.node, message, verdict, reach=ctx.queries.reach(module, loop.node),
                            codemod=GuardWithStepInterval if mechanical else None,
                            fix_args={"counter": loop.counter, "every": LOG_EVERY} if mechanical else None)


def _decides_exit(loop: TrainingLoop, sync: Sync) -> bool:
    """Whether ``sync`` is the test of an ``if`` that leaves the loop (early stopping on a device value)."""
    return sync.kind == "branch" and isinstance(sync.statement, cst.If) and loop.ends(sync.statement)
