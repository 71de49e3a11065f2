"""TFH001: Keras callbacks that do slow host work after every batch."""

from __future__ import annotations

import math
from typing import Iterable

import libcst as cst
import libcst.matchers as m

from advisor import speedup
from advisor.codemods.throttle_callback import TensorBoardUpdatePerEpoch, ThrottleBatchHook, batch_parameter
from advisor.model import Applicability, Confidence, Evidence, Finding, SpeedupEstimate
from advisor.rule import Example, Rule, RuleContext
from advisor.source.index import CallSite, FunctionInfo, ModuleInfo


BATCH_HOOKS = frozenset({
    "on_train_batch_begin", "on_train_batch_end", "on_batch_begin", "on_batch_end",
    "on_test_batch_begin", "on_test_batch_end", "on_predict_batch_begin", "on_predict_batch_end",
})
# What a call costs, by the callee's canonical name (exact, or a prefix ending in ".").
COSTLY_NAMES = {
    "builtins.open": "file I/O", "builtins.print": "console output", "os.fsync": "file I/O",
    "json.dump": "file I/O", "pickle.dump": "file I/O", "numpy.save": "file I/O", "numpy.savez": "file I/O",
    "numpy.savetxt": "file I/O", "logging.": "logging", "requests.": "network I/O", "urllib.": "network I/O",
    "socket.": "network I/O", "shutil.": "file I/O", "matplotlib.": "plotting", "time.sleep": "sleeping",
    "builtins.float": "a device-to-host sync (float())", "keras.ops.convert_to_numpy": "a device-to-host sync",
    "tensorflow.summary.image": "image summaries", "tensorflow.summary.histogram": "histogram summaries",
    "keras.saving.save_model": "model saving", "keras.models.save_model": "model saving",
}
# Method calls whose receiver advisor cannot type, known by name alone.
COSTLY_METHODS = {
    "numpy": "a device-to-host sync (.numpy())", "item": "a device-to-host sync (.item())",
    "get_weights": "copying weights to the host (get_weights)", "save": "model or checkpoint saving",
    "save_weights": "model or checkpoint saving", "savefig": "plotting", "write": "file I/O", "flush": "file I/O",
}
# A hook throttled to every Nth batch should leave at most this share of the step as host gap.
TARGET_GAP_SHARE = 0.02
DEFAULT_EVERY, MIN_EVERY, MAX_EVERY = 100, 10, 1000
# The profile calls a gap this large a cost worth confirming.
CONFIRMED_GAP_SHARE = 0.05
# Profiling more batches than this slows them and writes traces nobody reads.
PROFILED_BATCHES_MAX = 20


class SlowCallback(Rule):
    code = "TFH001"
    name = "slow-callback"
    title = "Callback does slow host work after every batch"
    rationale = (
        "Keras runs per-batch callback hooks on the Python thread between training steps, and the next step "
        "starts only when they return. File or network I/O, printing, converting tensors to Python numbers "
        "(a device sync), copying weights, plotting or saving models there adds its whole cost to every step. "
        "TensorBoard with `update_freq=\"batch\"`, histograms, images or a long `profile_batch` range does the "
        "same from inside Keras."
    )
    fix = ('Run the hook on every Nth batch only (`if batch % N != 0: return` at its top; N from the measured '
           'gap, 100 without a profile), or log TensorBoard scalars per epoch (`update_freq="epoch"`).')
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
            import keras
            class Counter(keras.callbacks.Callback):
                def on_train_batch_end(self, batch, logs=None):
                    self.seen += 1
            """, note="cheap bookkeeping"),
        Example("""
            import tensorflow as tf
            tb = tf.keras.callbacks.TensorBoard("logs", update_freq="epoch", profile_batch=(10, 15))
            """),
    )
    invalid = (
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
        gap = _host_gap(ctx.profile)
        every = _every_n(gap[1]) if gap else DEFAULT_EVERY
        for cls_info in ctx.index.subclasses_of("keras.callbacks.Callback"):
            for hook in ctx.index.methods_of(cls_info):
                if hook.name in BATCH_HOOKS:
                    finding = self._hook_finding(ctx, cls_info.name, hook, gap, every)
                    if finding is not None:
                        yield finding
        for site in ctx.index.calls_to("keras.callbacks.TensorBoard"):
            yield from self._tensorboard_findings(site, gap)

    # -- custom callbacks ---------------------------------------------------------------------------------------
    def _hook_finding(self, ctx: RuleContext, class_name: str, hook: FunctionInfo,
                      gap: tuple[float, float] | None, every: int) -> Finding | None:
        batch = batch_parameter(hook.node)
        if batch is not None and m.findall(hook.node.body, m.BinaryOperation(left=m.Name(batch),
                                                                              operator=m.Modulo())):
            return None  # the hook already picks the batches it works on
        costs = _costs(ctx.index.calls, hook)
        if not costs:
            return None
        module = hook.module
        lines = ", ".join(f"{what} (line {module.location(node).line})" for what, node in costs.items())
        evidence = [Evidence("source", f"per-batch work: {lines}")]
        frames = _frames_of(ctx.profile, hook)
        evidence.extend(Evidence("profile", f"python tracer: `{f['frame']}` ran {f['total_ms']:.1f} ms in "
                                            f"{f['count']} calls between steps", dict(f)) for f in frames)
        confidence, estimate = _gap_verdict(gap, every, evidence)
        message = (f"`{class_name}.{hook.name}` runs after every batch and does {', '.join(dict.fromkeys(costs))}; "
                   "the next training step waits for it.")
        fix_args = {"every": every}
        return self.finding(module, hook.node.name, message, confidence=confidence, evidence=evidence,
                            speedup=estimate, codemod=ThrottleBatchHook if batch is not None else None,
                            fix_args=fix_args)

    # -- keras.callbacks.TensorBoard ------------------------------------------------------------------------------
    def _tensorboard_findings(self, site: CallSite, gap: tuple[float, float] | None) -> Iterable[Finding]:
        module = site.module
        for arg in site.node.args:
            if arg.keyword is None:
                continue
            keyword, value = arg.keyword.value, arg.value
            if keyword == "update_freq" and m.matches(value, m.SimpleString() | m.Integer()) \
                    and _literal(value) in ("batch", 1):
                evidence = [Evidence("source", f"TensorBoard({module.node_code(arg)})")]
                confidence, estimate = _gap_verdict(gap, DEFAULT_EVERY, evidence)
                yield self.finding(module, arg.keyword, "TensorBoard writes its scalars after every batch, "
                                   "between training steps.", confidence=confidence, evidence=evidence,
                                   speedup=estimate, codemod=TensorBoardUpdatePerEpoch)
            elif keyword == "histogram_freq" and m.matches(value, m.Integer()) and _literal(value) == 1:
                yield self._possible(module, arg, "TensorBoard computes weight histograms every epoch: slow for "
                                                  "large models (their size is unknown to static analysis).")
            elif keyword == "write_images" and m.matches(value, m.Name("True")):
                yield self._possible(module, arg, "TensorBoard writes the model's weights as images every epoch.")
            elif keyword == "profile_batch" and _profiled_batches(value) > PROFILED_BATCHES_MAX:
                yield self.finding(module, arg.keyword, f"TensorBoard profiles {_profiled_batches(value)} batches: "
                                   "the profiler slows every one of them and writes a trace for each.",
                                   confidence=Confidence.LIKELY,
                                   evidence=[Evidence("source", f"TensorBoard({module.node_code(arg)})")])

    def _possible(self, module: ModuleInfo, arg: cst.Arg, message: str) -> Finding:
        return self.finding(module, arg.keyword, message, confidence=Confidence.POSSIBLE,
                            evidence=[Evidence("source", f"TensorBoard({module.node_code(arg)})")])



def _costs(calls: list[CallSite], hook: FunctionInfo) -> dict[str, cst.CSTNode]:
    """What the hook's own calls cost (nested functions excluded: they run when called), first call per kind."""
    found: dict[str, cst.CSTNode] = {}
    for site in calls:
        if site.function is not hook:
            continue
        what = next((label for name, label in COSTLY_NAMES.items() for callee in site.names
                     if callee == name or (name.endswith(".") and callee.startswith(name))), None)
        if what is None and isinstance(site.node.func, cst.Attribute):
            what = COSTLY_METHODS.get(site.node.func.attr.value)
        if what is not None:
            found.setdefault(what, site.node)
    return found


def _host_gap(profile: object) -> tuple[float, float] | None:
    """(average ms, share of the step 0..1) of the host gaps between steps, when the capture measured them."""
    gaps = profile.host_gaps if profile is not None else None
    return (gaps.avg_ms, gaps.share_pct / 100.0) if gaps is not None else None


def _every_n(gap_share: float) -> int:
    """Run the hook often enough to keep its gap near TARGET_GAP_SHARE of the step, within sane bounds."""
    return min(max(math.ceil(gap_share / TARGET_GAP_SHARE), MIN_EVERY), MAX_EVERY)


def _frames_of(profile: object, hook: FunctionInfo) -> list[dict]:
    """The python tracer's frames (``$train.py:24 on_train_batch_end``) that are this hook: same file name,
    same function name, a line inside the definition (the tracer names the ``def`` line, or a decorator's)."""
    position = hook.module.position(hook.node)
    matched = []
    frames = profile.host_gaps.frames if profile is not None and profile.host_gaps is not None else ()
    for frame in frames:
        name = frame.frame.lstrip("$")
        where, _, function = name.partition(" ")
        filename, _, line = where.rpartition(":")
        if function == hook.name and filename.rsplit("/", 1)[-1] == hook.module.path.name and line.isdigit() \
                and position.start.line <= int(line) <= position.end.line:
            matched.append({"frame": name, "total_ms": frame.total_ms, "count": frame.count})
    return matched


def _gap_verdict(gap: tuple[float, float] | None, every: int,
                 evidence: list[Evidence]) -> tuple[Confidence, SpeedupEstimate]:
    """Confidence and speedup from the measured host gap (appending its evidence), or the static defaults."""
    if gap is None:
        return Confidence.LIKELY, speedup.typical("callback")
    avg_ms, share = gap
    evidence.append(Evidence("profile", f"the host waits {avg_ms:.1f} ms between steps on average, {share:.0%} "
                                        "of the step time", {"avg_ms": avg_ms, "share": share}))
    confidence = Confidence.CONFIRMED if share >= CONFIRMED_GAP_SHARE else Confidence.POSSIBLE
    return confidence, speedup.throttle(share, every)


def _literal(value: cst.BaseExpression) -> object:
    return value.evaluated_value if isinstance(value, (cst.SimpleString, cst.Integer)) else None


def _profiled_batches(value: cst.BaseExpression) -> int:
    """How many batches ``profile_batch`` profiles: a (start, stop) tuple or a "start,stop" string; else 0."""
    bounds: list[object] = []
    if isinstance(value, cst.Tuple):
        bounds = [_literal(e.value) for e in value.elements]
    elif isinstance(value, cst.SimpleString) and isinstance(value.evaluated_value, str):
        bounds = [int(part) if part.strip().isdigit() else None for part in value.evaluated_value.split(",")]
    if len(bounds) == 2 and all(isinstance(b, int) for b in bounds):
        return bounds[1] - bounds[0] + 1
    return 0
