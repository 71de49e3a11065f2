"""TFH001: Keras callbacks that do slow host work after every batch."""

from __future__ import annotations

import math
from functools import partial
from typing import Iterable

import libcst as cst
import libcst.matchers as m

from advisor.codemods.throttle_callback import TensorBoardUpdatePerEpoch, ThrottleBatchHook
from advisor.rule import (Applicability, CallSite, Confidence, Evidence, Example, Finding, FixAvailability,
                          FunctionInfo, Rule, RuleContext, Verdict, argument_value, batch_parameter, literal,
                          typical)

BATCH_HOOKS = frozenset({"on_train_batch_begin", "on_train_batch_end", "on_batch_begin", "on_batch_end"})
# Run per batch of `evaluate`, and of the validation pass of a `fit` given validation data, in every epoch.
# (`on_predict_batch_*` runs in `predict` only: no training waits for it.)
EVALUATION_HOOKS = frozenset({"on_test_batch_begin", "on_test_batch_end"})
# A hook throttled to every Nth batch should leave at most this share of the step as host gap.
TARGET_GAP_SHARE = 0.02
DEFAULT_EVERY, MIN_EVERY, MAX_EVERY = 100, 10, 1000
# Profiling more batches than this slows them and writes traces nobody reads.
PROFILED_BATCHES_MAX = 20


class SlowCallback(Rule):
    code = "TFH001"
    name = "slow-callback"
    title = "Callback does slow host work after every batch"
    rationale = (
        "Keras runs per-batch callback hooks on the Python thread between training steps, and the next step "
        "starts only when they return. File or network I/O, printing, copying weights, plotting or saving models "
        "there adds its whole cost to every step. (Reading a value there costs no more wait: Keras has already "
        "waited for the batch, to hand the hook its logs as Python numbers.) "
        "TensorBoard with `update_freq=\"batch\"`, histograms, images or a long `profile_batch` range does the "
        "same from inside Keras."
    )
    fix = ('Run the hook on every Nth batch only (`if batch % N != 0: return` at its top; N from the measured '
           'gap, 100 without a profile), or log TensorBoard scalars per epoch (`update_freq="epoch"`).')
    fix_availability = FixAvailability.SOMETIMES
    fix_applicability = Applicability.UNSAFE
    why_unsafe = ("The hook then sees only every Nth batch: per-batch logs, checkpoints or metrics it keeps become "
                  "every Nth; TensorBoard per epoch loses the per-batch curves.")
    speedup_model = "host gap between steps x (1 - 1/N): the hook's time that running it every Nth batch removes."
    valid = (
        Example("""
            from tensorflow import keras
            class Logger(keras.callbacks.Callback):
                def on_epoch_end(self, epoch, logs=None):
                    print(epoch, logs)
            """, note="per-epoch hooks run once per epoch"),
        Example("""
            from tensorflow import keras
            class Logger(keras.callbacks.Callback):
                def on_train_batch_end(self, batch, logs=None):
                    if batch % 200 == 0:
                        print(batch, logs)
            """, note="already throttled"),
        Example("""
            from tensorflow import keras
            class StopAt(keras.callbacks.Callback):
                def on_train_batch_end(self, batch, logs=None):
                    self.seen += 1
                    if self.seen == self.failure_step:
                        print("simulating a failure at", self.seen)
                        raise RuntimeError("interrupted")
                    if self.seen >= self.last_step:
                        print("stopping after", self.last_step, "steps")
                        self.model.stop_training = True
            """, note="prints on one batch only: when it fails, when it stops the training"),
        Example("""
            import time
            from tensorflow import keras
            class HourlyCheckpoint(keras.callbacks.Callback):
                def on_train_batch_end(self, batch, logs=None):
                    if time.time() - self.saved_at > 3600:
                        self.model.save("checkpoint.h5")
                        self.saved_at = time.time()
            """, note="saves once an hour: the clock decides, and the hook starts the hour again"),
        Example("""
            import keras
            class Counter(keras.callbacks.Callback):
                def on_train_batch_end(self, batch, logs=None):
                    self.seen += 1
            """, note="cheap bookkeeping"),
        Example("""
            import keras
            class LearningRateFinder(keras.callbacks.Callback):
                def on_batch_end(self, batch, logs=None):
                    rate = self.model.optimizer.learning_rate.numpy() * self.factor
                    self.model.optimizer.learning_rate = rate
                    self.rates.append(rate)
                    self.losses.append(logs["loss"])
            """, note="reads values only: Keras waited for the batch before it called the hook"),
        Example("""
            import tensorflow as tf
            tb = tf.keras.callbacks.TensorBoard("logs", update_freq="epoch", profile_batch=(10, 15))
            """),
        Example("""
            from tensorflow import keras
            class Progress(keras.callbacks.Callback):
                def on_predict_batch_end(self, batch, logs=None):
                    print("predicted batch", batch)
            """, note="a prediction hook: no training step waits for it"),
    )
    invalid = (
        Example("""
            import tensorflow as tf

            class MomentumEncoder(tf.keras.callbacks.Callback):
                def __init__(self, pairs, momentum=0.999):
                    super().__init__()
                    self.pairs, self.momentum = pairs, momentum

                def on_train_batch_end(self, batch, logs=None):
                    for key_weight, query_weight in self.pairs:
                        key_weight.assign_add((query_weight - key_weight) * (1.0 - self.momentum))
            """, line=8, note="one eager op per weight after every batch; no patch: thinning the updates out would "
                              "change the algorithm"),
        Example("""
            import time
            from tensorflow import keras

            class BatchLogger(keras.callbacks.Callback):
                def on_train_batch_end(self, batch, logs=None):
                    \"\"\"Log every batch.\"\"\"
                    with open("log.txt", "a") as f:
                        f.write(f"{batch} {float(logs['loss'])}\\n")
            """, line=5, fixed="""
            import time
            from tensorflow import keras

            class BatchLogger(keras.callbacks.Callback):
                def on_train_batch_end(self, batch, logs=None):
                    \"\"\"Log every batch.\"\"\"
                    if batch % 100 != 0:
                        return
                    with open("log.txt", "a") as f:
                        f.write(f"{batch} {float(logs['loss'])}\\n")
            """),
        Example("""
            import tensorflow as tf

            class Base(tf.keras.callbacks.Callback):
                pass

            class Snapshot(Base):
                def on_batch_end(self, step, logs=None):
                    self.model.save_weights(f"ckpt/{step}.weights.h5")
            """, line=7, fixed="""
            import tensorflow as tf

            class Base(tf.keras.callbacks.Callback):
                pass

            class Snapshot(Base):
                def on_batch_end(self, step, logs=None):
                    if step % 100 != 0:
                        return
                    self.model.save_weights(f"ckpt/{step}.weights.h5")
            """, note="through a repo base class; the batch parameter keeps its name"),
        Example("""
            import tensorflow as tf
            model.fit(ds, callbacks=[tf.keras.callbacks.TensorBoard(log_dir="logs", update_freq="batch")])
            """, line=2, fixed="""
            import tensorflow as tf
            model.fit(ds, callbacks=[tf.keras.callbacks.TensorBoard(log_dir="logs", update_freq="epoch")])
            """),
        Example("""
            from tensorflow import keras
            tb = keras.callbacks.TensorBoard("logs", profile_batch=(1, 100000))
            """, line=2, note="profiles the whole run"),
    )

    def check(self, ctx: RuleContext) -> Iterable[Finding]:
        gap_share = ctx.verdicts.host_gap_share
        every = _every_n(gap_share) if gap_share is not None else DEFAULT_EVERY
        for cls_info in ctx.index.subclasses_of("keras.callbacks.Callback"):
            for hook in ctx.index.methods_of(cls_info):
                if hook.name in BATCH_HOOKS | EVALUATION_HOOKS:
                    finding = self._hook_finding(ctx, cls_info.name, hook, every)
                    if finding is not None:
                        yield finding
        for site in ctx.index.calls_to("keras.callbacks.TensorBoard"):
            yield from self._tensorboard_findings(ctx, site)

    # -- custom callbacks ---------------------------------------------------------------------------------------
    def _hook_finding(self, ctx: RuleContext, class_name: str, hook: FunctionInfo, every: int) -> Finding | None:
        batch = batch_parameter(hook.node)
        if batch is not None and m.findall(hook.node.body, m.BinaryOperation(left=m.Name(batch),
                                                                              operator=m.Modulo())):
            return None  # the hook already picks the batches it works on
        # Keras hands a custom batch hook its logs as Python numbers (Keras 3 whenever a callback defines one;
        # tf.keras 2 unless the callback takes TensorFlow logs): the batch has been waited for before the hook
        # runs, and a value read there waits no longer (measured in TensorFlow 2.21: the hook gets floats).
        costs = ctx.queries.host_costs(hook, every_call=True, device_waited=True)
        update = ctx.queries.eager_weight_updates(hook)
        if update is not None:
            costs.setdefault("an eager update of each weight in a Python loop", update.node)
        if not costs:
            return None
        module = hook.module
        lines = ", ".join(f"{what} ({module.location(node).line_label})" for what, node in costs.items())
        constructions = [site for cls_info in ctx.index.classes if cls_info.key == hook.class_key
                         for site in ctx.queries.constructions_of(cls_info)]
        # An evaluation hook holds up training only in the validation passes of a `fit` it is given to.
        evaluation = hook.name in EVALUATION_HOOKS and not any(
            id(site.node) in ctx.queries.validated_callbacks for site in constructions)
        evidence = [Evidence.source(f"per-batch work: {lines}")]
        if evaluation:
            evidence.append(Evidence.source("it runs per batch of `evaluate`: no `fit` that validates is given it"))
        # A debugging switch of the callback's own (`if self.verbose:`) that no instance turns on: the work is off.
        switches = {id(switch): switch for switch in map(partial(ctx.queries.instance_switch_off, hook),
                                                         costs.values())}
        switch = next(iter(switches.values())) if len(switches) == 1 else None
        if switch is not None:
            evidence.append(Evidence.source(f"only under `if {module.node_code(switch.test)}:` "
                                            f"({module.location(switch).display}), which no instance the source "
                                            "makes turns on"))
        static = Verdict(Confidence.POSSIBLE if evaluation or switch is not None else Confidence.LIKELY,
                         typical("callback"), tuple(evidence))
        registration = ctx.queries.registration(constructions)
        verdict = ctx.verdicts.host_gap(every, static, hook, registration, ctx.queries.fixed_sleep_ms(hook))
        waiting = "the next evaluation step" if hook.name in EVALUATION_HOOKS else "the next training step"
        message = (f"`{class_name}.{hook.name}` runs after every batch and does {', '.join(dict.fromkeys(costs))}; "
                   f"{waiting} waits for it.")
        # The updates are the algorithm (a momentum encoder follows the encoder every batch): thinning them out
        # changes the training; compiling them makes one call of them.
        updates_only = update is not None and list(costs.values()) == [update.node]
        if updates_only:
            message += (" Compile the loop into one `tf.function` the hook calls: one graph run per batch instead "
                        "of one eager op per weight. No automatic patch: running it on fewer batches would change "
                        "what it computes.")
        return self.finding(module, hook.node.name, message, verdict, reach=ctx.queries.reach(module, hook.node),
                            codemod=ThrottleBatchHook if batch is not None and not updates_only else None,
                            fix_args={"every": every})

    # -- keras.callbacks.TensorBoard ------------------------------------------------------------------------------
    def _tensorboard_findings(self, ctx: RuleContext, site: CallSite) -> Iterable[Finding]:
        module = site.module
        reach = ctx.queries.reach(module, site.node)
        for arg in site.node.args:
            if arg.keyword is None:
                continue
            keyword, value = arg.keyword.value, arg.value
            source = (Evidence.source(f"TensorBoard({keyword}={module.node_code(value)})"),)
            if keyword == "update_freq" and isinstance(value, (cst.SimpleString, cst.Integer)) \
                    and literal(value) in ("batch", 1):
                # Possible without a capture: a batch's scalars cost a few milliseconds of host time, which matters
                # next to short steps (a capture's host gaps tell) and not next to a large model's.
                static = Verdict(Confidence.POSSIBLE, typical("callback"), source + (Evidence.source(
                    "a few scalars per batch: it matters when steps are short, which a capture shows"),))
                verdict = ctx.verdicts.host_gap(DEFAULT_EVERY, static, registration=ctx.queries.registration([site]))
                yield self.finding(module, arg.keyword, "TensorBoard writes its scalars after every batch, between "
                                   "training steps.", verdict, reach=reach, codemod=TensorBoardUpdatePerEpoch)
            elif keyword == "histogram_freq" and literal(value) == 1 and isinstance(value, cst.Integer):
                yield self.finding(module, arg.keyword, "TensorBoard computes weight histograms every epoch: slow "
                                   "for large models (their size is unknown to static analysis).",
                                   Verdict(Confidence.POSSIBLE, None, source), reach=reach)
            elif keyword == "write_images" and literal(value) is True and _writes_histograms(site.node):
                # TensorBoard draws the weights as images where it writes their histograms, and only there.
                yield self.finding(module, arg.keyword, "TensorBoard writes the model's weights as images every "
                                   "epoch.", Verdict(Confidence.POSSIBLE, None, source), reach=reach)
            elif keyword == "profile_batch" and _profiled_batches(value) > PROFILED_BATCHES_MAX:
                yield self.finding(module, arg.keyword, f"TensorBoard profiles {_profiled_batches(value)} batches: "
                                   "the profiler slows every one of them and writes a trace for each.",
                                   Verdict(Confidence.LIKELY, None, source), reach=reach)


def _every_n(gap_share: float) -> int:
    """Run the hook often enough to keep its gap near TARGET_GAP_SHARE of the step, within sane bounds."""
    return min(max(math.ceil(gap_share / TARGET_GAP_SHARE), MIN_EVERY), MAX_EVERY)


def _writes_histograms(tensorboard: cst.Call) -> bool:
    """Whether a ``TensorBoard(...)`` call sets ``histogram_freq`` to something other than its default, 0."""
    frequency = argument_value(tensorboard, "histogram_freq")
    return frequency is not None and literal(frequency) not in (0, False)


def _profiled_batches(value: cst.BaseExpression) -> int:
    """How many batches ``profile_batch`` profiles: a (start, stop) tuple or a "start,stop" string; else 0."""
    bounds: list[object] = []
    if isinstance(value, cst.Tuple):
        bounds = [literal(e.value) for e in value.elements]
    elif isinstance(value, cst.SimpleString) and isinstance(value.evaluated_value, str):
        bounds = [int(part) if part.strip().isdigit() else None for part in value.evaluated_value.split(",")]
    if len(bounds) == 2 and all(isinstance(b, int) and not isinstance(b, bool) for b in bounds):
        return bounds[1] - bounds[0] + 1
    return 0
