"""TFH006: summaries written, or a writer flushed, on every step of a custom training loop."""

from __future__ import annotations

from typing import Callable, Iterable

import libcst as cst
import libcst.matchers as m

from advisor.codemods.step_interval import GuardWithStepInterval
from advisor.rule import (PER_TENSOR_HISTOGRAMS, Applicability, Confidence, Evidence, Example, Finding,
                          FixAvailability, InLoopBody, ModuleInfo, Rule, RuleContext, TrainingLoop, Verdict,
                          host_built_summary, recorded_on_some_steps, typical, visit_reading)

SUMMARY_PREFIX = "tensorflow.summary."
# Writing these encodes data on the host (and images/histograms copy whole tensors there).
SUMMARY_OPS = ("scalar", "image", "histogram", "audio", "text", "write")
# These copy whole tensors to the host every step; a scalar or a text is a few bytes queued for the writer's thread,
# and a flush hands the buffer to the OS (costly on remote storage): on the labelled repos, per-step scalars and
# flushes in eager loops were negligible next to the step.
HEAVY_SUMMARY_OPS = ("image", "histogram", "audio")
# Often enough to follow training, rarely enough that the writes stop mattering.
WRITE_EVERY = 100
_ADD_SUMMARY = m.Attribute(attr=m.Name("add_summary"))  # TensorFlow 1.x's FileWriter
# Python's own output streams: flushing one in a script hands a print to the terminal, no summary; in a notebook the
# kernel blocks until its IO thread has sent the output.
STANDARD_STREAMS = ("sys.stdout.", "sys.stderr.")
# In a TensorFlow 1.x merged summary: images are encoded as PNGs on the host every run; a histogram's size is that of
# its tensor, which the source does not tell (often a loss: nothing), unless one is made per variable or gradient.
GRAPH_HEAVY_SUMMARIES = frozenset({"image", "audio", PER_TENSOR_HISTOGRAMS})


class _Writes(InLoopBody):
    """Summary writes and writer flushes in per-step code, one per statement."""

    def __init__(self, loop: TrainingLoop, heavy_written: Callable[[cst.Call], bool]) -> None:
        super().__init__()
        self.loop = loop
        self.heavy_written = heavy_written  # whether what a TensorFlow 1.x write writes holds images
        self.statement: cst.CSTNode | None = None
        self.found: list[tuple[cst.Call, cst.CSTNode, str, bool]] = []  # (call, statement, what it does, heavy)

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self.statement = node

    def visit_Call(self, node: cst.Call) -> None:
        write = _summary_write(self.loop.module, node, self.heavy_written)
        if write is not None and not any(found[1] is self.statement for found in self.found):
            self.found.append((node, self.statement, *write))


def _summary_write(module: ModuleInfo, node: cst.Call, heavy_written: Callable[[cst.Call], bool]
                   ) -> tuple[str, bool] | None:
    """What the call ``node`` does if it writes a summary or flushes a writer, and whether that is heavy host work."""
    names = module.qualified_names(node.func)
    ops = {n.rsplit(".", 1)[-1] for n in names if n.startswith(SUMMARY_PREFIX)}
    if ops & set(SUMMARY_OPS):
        return f"writes a summary (`{module.node_code(node.func)}`)", bool(ops & set(HEAVY_SUMMARY_OPS))
    if m.matches(node.func, m.Attribute(attr=m.Name("flush"))) and not node.args and (
            module.notebook is not None or not any(n.startswith(STANDARD_STREAMS) for n in names)):
        return f"flushes a writer (`{module.node_code(node)}`)", False
    if m.matches(node.func, _ADD_SUMMARY) and node.args:
        if host_built_summary(module, node) is not None:
            return f"writes a summary it builds (`{module.node_code(node.func)}`)", heavy_written(node)
        # TensorFlow 1.x: the session computed the summary in the step's run, the writer serializes it.
        return f"computes summaries in its run and writes them (`{module.node_code(node.func)}`)", heavy_written(node)
    return None


class PerStepSummary(Rule):
    code = "TFH006"
    name = "per-step-summary"
    title = "Summaries written or flushed every step of a custom training loop"
    rationale = (
        "`tf.summary.scalar`, `image` and `histogram` called every step encode their data on the host and queue a "
        "write (images and histograms first copy whole tensors there), and `writer.flush()` every step waits for "
        "the file system. In a custom loop that runs between steps, so the next step starts later. Writing every "
        "N steps (`if step % N == 0`, or `tf.summary.record_if`) keeps the curves and drops the cost."
    )
    fix = f"Write only every {WRITE_EVERY} steps (`if step % {WRITE_EVERY} == 0:` around the statement)."
    fix_availability = FixAvailability.SOMETIMES
    fix_applicability = Applicability.UNSAFE
    why_unsafe = "The curves then have one point per N steps instead of one per step."
    speedup_model = "the typical range of removing per-step host work from a custom loop (no capture measures it)."
    valid = (
        Example("""
            import tensorflow as tf

            for step, (x, y) in enumerate(dataset):
                loss = train_step(x, y)
                if step % 100 == 0:
                    tf.summary.scalar("loss", loss, step=step)
                    writer.flush()
            """, note="already written on a step interval"),
        Example("""
            import tensorflow as tf

            for epoch in range(10):
                tf.summary.scalar("epoch", epoch, step=epoch)
            """, note="not a training loop"),
        Example("""
            import tensorflow as tf

            merged = tf.summary.merge_all()
            train_op = tf.train.AdamOptimizer(1e-3).minimize(loss)
            with tf.Session() as sess:
                writer = tf.summary.FileWriter("logs", sess.graph)
                for step in range(10000):
                    if step % 100 == 0:
                        summary, _ = sess.run([merged, train_op])
                        writer.add_summary(summary, step)
                    else:
                        sess.run(train_op)
            """, note="TensorFlow 1.x, summaries fetched and written every 100 steps"),
        Example("""
            import sys
            import tensorflow as tf

            @tf.function
            def train_step(x, y):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y, model(x))
                optimizer.apply_gradients(zip(tape.gradient(loss, weights), weights))
                return loss

            for step, (x, y) in enumerate(dataset):
                loss = train_step(x, y)
                if step % 100 == 0:
                    print(step, float(loss))
                sys.stdout.flush()
            """, note="flushing Python's standard output writes no summary"),
        Example("""
            import tensorflow as tf

            def write_histograms(model, write_now, step):
                if write_now:
                    for weight in model.trainable_weights:
                        tf.summary.histogram(weight.name, weight, step=step)

            for step, (x, y) in enumerate(batches):
                model.train_on_batch(x, y)
                write_histograms(model, step % 1000 == 0, step)
            """, note="the helper writes only when its caller switches it on, every 1000 steps"),
    )
    invalid = (
        Example("""
            import tensorflow as tf

            def write_log(writer, names, logs, step):
                with writer.as_default():
                    for name, value in zip(names, logs):
                        tf.summary.scalar(name, value, step=step)
                        writer.flush()

            for step, (x, y) in enumerate(batches):
                losses = model.train_on_batch(x, y)
                write_log(writer, ["loss", "accuracy"], losses, step)
            """, line=11, fixed="""
            import tensorflow as tf

            def write_log(writer, names, logs, step):
                with writer.as_default():
                    for name, value in zip(names, logs):
                        tf.summary.scalar(name, value, step=step)
                        writer.flush()

            for step, (x, y) in enumerate(batches):
                losses = model.train_on_batch(x, y)
                if step % 100 == 0:
                    write_log(writer, ["loss", "accuracy"], losses, step)
            """, note="a Keras batch loop; the writes are in a helper it calls every step"),
        Example("""
            import tensorflow as tf

            def train_step(x, y):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y, model(x))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                              model.trainable_variables))
                return loss

            for step, (x, y) in enumerate(dataset):
                loss = train_step(x, y)
                tf.summary.scalar("loss", loss, step=step)
            """, line=12, fixed="""
            import tensorflow as tf

            def train_step(x, y):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y, model(x))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                              model.trainable_variables))
                return loss

            for step, (x, y) in enumerate(dataset):
                loss = train_step(x, y)
                if step % 100 == 0:
                    tf.summary.scalar("loss", loss, step=step)
            """),
        Example("""
            import tensorflow as tf

            while True:
                x, y = next(batches)
                with tf.GradientTape() as tape:
                    loss = loss_fn(y, model(x))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                              model.trainable_variables))
                writer.flush()
            """, line=9, note="no step counter to guard with: no automatic fix"),
        Example("""
            import tensorflow as tf

            tf.summary.image("inputs", images)
            merged = tf.summary.merge_all()
            train_op = tf.train.AdamOptimizer(1e-3).minimize(loss)
            with tf.Session() as sess:
                writer = tf.summary.FileWriter("logs", sess.graph)
                for step in range(10000):
                    summary, _ = sess.run([merged, train_op])
                    writer.add_summary(summary, step)
            """, line=10, note="TensorFlow 1.x: the session encodes the images every step; guarding the write "
                               "alone would not stop that, so no automatic fix"),
        Example("""
            import tensorflow as tf

            tf.summary.histogram("logits", logits)
            merged = tf.summary.merge_all()
            train_op = tf.train.AdamOptimizer(1e-3).minimize(loss)
            with tf.Session() as sess:
                writer = tf.summary.FileWriter("logs", sess.graph)
                for step in range(10000):
                    summary, _ = sess.run([merged, train_op])
                    if step % 100 == 0:
                        writer.add_summary(summary, step)
            """, line=9, note="the write waits for every 100th step, the session computes the summary every step"),
    )

    def check(self, ctx: RuleContext) -> Iterable[Finding]:
        for loop in [*ctx.queries.training_loops, *ctx.queries.keras_batch_loops, *ctx.queries.session_loops]:
            def heavy_written(write: cst.Call, loop: TrainingLoop = loop) -> bool:
                return bool(GRAPH_HEAVY_SUMMARIES & (ctx.queries.written_summary_kinds(loop, write)
                                                     or ctx.queries.summary_kinds(loop.module)))

            writes = _Writes(loop, heavy_written)
            visit_reading(loop.node.body, writes)
            yield from self._helper_findings(ctx, loop, writes.found)
            for call, statement, what, heavy in writes.found:
                if recorded_on_some_steps(loop.module, call):
                    continue
                if not loop.throttles(statement):
                    yield self._finding(ctx, loop, call, statement, what, heavy)
                elif m.matches(call.func, _ADD_SUMMARY) and call.args and isinstance(call.args[0].value, cst.Name):
                    run = ctx.queries.training_run_binding(loop, call, call.args[0].value.value)
                    if run is not None:
                        yield self._fetch_finding(ctx, loop, run, call, heavy)

    def _helper_findings(self, ctx: RuleContext, loop: TrainingLoop,
                         found: list[tuple[cst.Call, cst.CSTNode, str, bool]]) -> Iterable[Finding]:
        """Writes made every step in a repo function the loop calls (``write_log(writer, names, logs, step)``),
        reported at that call: where a step interval would go. Not a call already found writing in the body."""
        written = {id(call) for call, *_ in found}
        for call, made in ctx.queries.per_step_calls_by_body_call(loop, known_callees=True):
            # Not the step, nor a function running it (`agent.train(batch)` calling each network's update): a guard
            # there would skip training steps, not summaries.
            if id(call.node) in written or ctx.queries.leads_to_training(call.node):
                continue
            writes = [(site, write) for site in made if not recorded_on_some_steps(site.module, site.node)
                      and (write := _summary_write(site.module, site.node, lambda _: False)) is not None]
            if writes:
                site, (what, heavy) = writes[0]
                helper = call.module.node_code(call.node.func)
                where = site.module.location(site.node).display
                statement = call.module.parent(call.module.parent(call.node))  # `write_log(...)` alone on its line
                yield self._finding(ctx, loop, call.node, statement, f"{what[:-1]} in `{helper}`, {where})", heavy)

    def _fetch_finding(self, ctx: RuleContext, loop: TrainingLoop, run: cst.Call, write: cst.Call,
                       heavy: bool) -> Finding:
        """A TensorFlow 1.x loop that writes its summary every N steps but fetches it in every training run."""
        module = loop.module
        message = (f"The training run at {module.location(run).line_label} computes the summary every step, while "
                   f"the loop writes it only on some steps ({module.location(write).line_label}): fetch the summary "
                   "op in a run of its own on the steps that write it.")
        evidence = [Evidence.source(f"the training run fetches `{module.node_code(write.args[0].value)}` every "
                                    f"iteration of the loop at {loop.loop_module.location(loop.loop).display}")]
        if not heavy:
            evidence.append(Evidence.source("a scalar or text summary is little work for the session: it matters "
                                            "when steps are short"))
        verdict = ctx.verdicts.per_step_cost([(loop.loop_module, loop.loop)], Verdict(
            Confidence.LIKELY if heavy else Confidence.POSSIBLE, typical("host_sync"), tuple(evidence)))
        return self.finding(module, run, message, verdict, reach=ctx.queries.reach(module, loop.node))

    def _finding(self, ctx: RuleContext, loop: TrainingLoop, call: cst.Call, statement: cst.CSTNode,
                 what: str, heavy: bool) -> Finding:
        description = loop.description
        graph_summary = m.matches(call.func, _ADD_SUMMARY) and host_built_summary(loop.module, call) is None
        message = (f"{description[0].upper()}{description[1:]} {what} every step: the next step waits for that host "
                   "work." + (" Fetch the summary op only on the steps that write it: guarding the write alone "
                              "leaves the session computing it every step." if graph_summary else ""))
        evidence = [Evidence.source(f"runs once per iteration of the loop at "
                                    f"{loop.loop_module.location(loop.loop).display}, under no step interval")]
        if not heavy:
            evidence.append(Evidence.source("a scalar or text summary, or a flush, is little host work: it matters "
                                            "when steps are short or the logs go to remote storage"))
        verdict = ctx.verdicts.per_step_cost([(loop.loop_module, loop.loop)], Verdict(
            Confidence.LIKELY if heavy else Confidence.POSSIBLE, typical("host_sync"), tuple(evidence)))
        mechanical = loop.counter is not None and not graph_summary and m.matches(
            statement, m.SimpleStatementLine(body=[m.Expr(m.Call())]))
        return self.finding(loop.module, call, message, verdict, reach=ctx.queries.reach(loop.module, loop.node),
                            codemod=GuardWithStepInterval if mechanical else None,
                            fix_args={"counter": loop.counter, "every": WRITE_EVERY} if mechanical else None)
