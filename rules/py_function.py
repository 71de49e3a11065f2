"""TFD003: Python functions called from a tf.data map or a compiled step (``py_function``, ``numpy_function``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import libcst as cst
import libcst.matchers as m

from advisor import speedup
from advisor.codemods.base import anchor_of
from advisor.codemods.numpy_function import PyFuncToNumpyFunction
from advisor.model import Confidence, Evidence, Finding
from advisor.rule import Example, Rule, RuleContext
from advisor.source.index import CallSite, FunctionInfo, SourceIndex


LEGACY = frozenset({"tensorflow.py_func", "tensorflow.compat.v1.py_func"})
PY_FUNCTIONS = LEGACY | {
    "tensorflow.py_function", "tensorflow.numpy_function",
    "tensorflow.compat.v1.py_function", "tensorflow.compat.v1.numpy_function",
}
# Dataset methods whose first argument is a function tf.data traces and calls per element.
FUNCTION_STAGES = {"map": "map_func", "flat_map": "map_func", "interleave": "map_func", "filter": "predicate",
                   "map_with_legacy_function": "map_func"}
# Methods Keras traces into a graph by itself (no tf.function decorator in sight).
KERAS_TRACED = {"keras.Model": ("train_step", "test_step", "predict_step", "call"),
                "keras.models.Model": ("train_step", "test_step", "predict_step", "call"),
                "keras.layers.Layer": ("call",), "keras.Layer": ("call",)}
# Op types the profiler gives the Python-function kernels: EagerPyFunc (py_function), PyFunc (numpy_function).


@dataclass(frozen=True)
class HotContext:
    """Why a function runs once per element or per step: ``what`` for the message, ``where`` for the evidence."""

    what: str
    where: str
    in_dataset: bool


class PyFunction(Rule):
    code = "TFD003"
    name = "py-function"
    title = "Python function called per element of a dataset or per step of a compiled function"
    rationale = (
        "`tf.py_function` and `tf.numpy_function` leave the TensorFlow graph to run Python. In a `Dataset.map` "
        "that happens once per element, holding the GIL: `num_parallel_calls` cannot run it in parallel, and "
        "tf.data cannot fuse or vectorize it. In a `tf.function` step it forces a round trip to the Python "
        "interpreter every step and keeps the step from running on the device or under XLA. TF1's `py_func` is "
        "the old name of `numpy_function`."
    )
    fix = ("Replace TF1's `py_func` with `tf.numpy_function` (same arguments). For any Python function in a map "
           "or a compiled step, rewrite it with TensorFlow ops (`tf.math`, `tf.image`, `tf.strings`) or do the "
           "work once, before training; there is no mechanical rewrite for that.")
    speedup_model = ("the profile's Python-function ops (EagerPyFunc, PyFunc) as a share of the step: the most "
                     "that rewriting them in TensorFlow ops can save; more parallel calls save nothing (GIL).")
    valid = (
        Example("""
            import tensorflow as tf
            def scale(x):
                return tf.cast(x, tf.float32) / 255.0
            ds = tf.data.Dataset.range(10).map(scale)
            """),
        Example("""
            import tensorflow as tf
            def load(path):
                return tf.numpy_function(read_file, [path], tf.string)
            paths = load(tf.constant("a.txt"))
            """, note="numpy_function called once, eagerly, outside any map or compiled function"),
        Example("""
            import tensorflow as tf
            def to_upper(x):
                return tf.py_function(lambda s: s.numpy().upper(), [x], tf.string)
            class Pipeline:
                def map(self, fn):
                    return fn
            Pipeline().map(to_upper)
            """, note="not a dataset map"),
    )
    invalid = (
        Example("""
            import tensorflow as tf
            def normalize(x):
                return tf.py_function(lambda t: t.numpy() / 255.0, [x], tf.float32)
            ds = tf.data.Dataset.range(10).map(normalize, num_parallel_calls=tf.data.AUTOTUNE)
            """, line=3, note="py_function in a mapped function: parallel calls cannot help, the GIL serializes it"),
        Example("""
            import tensorflow as tf
            ds = tf.data.Dataset.range(10)
            ds = ds.map(lambda x: tf.py_function(decode, [x], tf.float32))
            """, line=3, note="in a mapped lambda"),
        Example("""
            import tensorflow as tf
            from tensorflow.compat.v1 import py_func

            def read(path):
                return py_func(load_image, [path], tf.uint8, stateful=False)
            """, line=5, fixed="""
            import tensorflow as tf
            from tensorflow.compat.v1 import py_func

            def read(path):
                return tf.numpy_function(load_image, [path], tf.uint8, stateful=False)
            """, note="TF1 py_func outside a hot path: only the safe rename"),
        Example("""
            import tensorflow as tf

            def log_stats(loss):
                tf.numpy_function(print_loss, [loss], [])

            @tf.function
            def train_step(x, y):
                loss = tf.reduce_mean(tf.square(x - y))
                log_stats(loss)
                return loss
            """, line=4, note="reached from a tf.function step through a helper"),
    )

    def check(self, ctx: RuleContext) -> Iterable[Finding]:
        hot = _HotFunctions(ctx.index)
        share = _py_func_share(ctx.profile)
        for site in ctx.index.calls_to(*PY_FUNCTIONS):
            context = hot.context_of(site)
            legacy = bool(site.names & LEGACY)
            if context is None and not legacy:
                continue
            yield self._finding(ctx, site, context, legacy, share)

    def _finding(self, ctx: RuleContext, site: CallSite, context: HotContext | None, legacy: bool,
                 share: float | None) -> Finding:
        module = site.module
        called = module.node_code(site.node.func)
        evidence: list[Evidence] = []
        parts = []
        if legacy:
            parts.append(f"`{called}` is TF1's name for `tf.numpy_function`, which takes the same arguments.")
        if context is not None:
            evidence.append(Evidence("source", context.where))
            parts.append(f"`{called}` runs Python {context.what}, holding the GIL")
            parts[-1] += (": `num_parallel_calls` cannot parallelize it; rewrite it with TensorFlow ops."
                          if context.in_dataset else "; rewrite it with TensorFlow ops or move it out of the step.")
        if share:
            confidence = Confidence.CONFIRMED if context is not None else Confidence.LIKELY
            evidence.append(Evidence("profile", f"Python-function ops (EagerPyFunc/PyFunc) take {share:.1%} of "
                                                "the step time", {"share": share}))
            input_share = ctx.input_share
            if context is not None and context.in_dataset and input_share is not None and input_share < share:
                # tf.data runs the map beside the step: only the time the step waits for input can be saved.
                estimate = speedup.bounded_by_share(input_share, "input wait", "Python-function ops "
                                                    f"{share:.0%} of step, under the GIL; only TensorFlow ops help")
            else:
                estimate = speedup.bounded_by_share(share, "Python-function ops",
                                                    "the GIL serializes them: only TensorFlow ops recover it")
        elif share is not None:
            # The capture lists its top ops and no Python-function op among them: the time goes elsewhere.
            confidence = Confidence.POSSIBLE
            evidence.append(Evidence("profile", "no EagerPyFunc/PyFunc op among the capture's top ops"))
            estimate = None
        else:
            confidence = Confidence.LIKELY if context is not None else Confidence.POSSIBLE
            estimate = speedup.typical("py_function") if context is not None else None
        return self.finding(module, anchor_of(site.node), " ".join(parts), confidence=confidence, evidence=evidence,
                            speedup=estimate, codemod=PyFuncToNumpyFunction if legacy else None,
                            priority=0 if context is not None else 1, end_node=site.node)


class _HotFunctions:
    """The repo functions that run per dataset element or per compiled step, and the calls made in mapped lambdas.

    A function is hot when a dataset map takes it, when it is a ``tf.function`` (decorated, or wrapped by a
    ``tf.function(f)`` call), when Keras traces it (``train_step``, ``call``), or when a hot function calls it.
    """

    def __init__(self, index: SourceIndex) -> None:
        self.index = index
        self.functions: dict[str, HotContext] = {}
        self.lambda_calls: dict[int, HotContext] = {}
        self._calls_by_function: dict[str, list[CallSite]] = {}
        for site in index.calls:
            if site.function is not None:
                self._calls_by_function.setdefault(site.function.key, []).append(site)
        self._find_roots()
        self._propagate()

    def context_of(self, site: CallSite) -> HotContext | None:
        if id(site.node) in self.lambda_calls:
            return self.lambda_calls[id(site.node)]
        return self.functions.get(site.function.key) if site.function is not None else None

    def _find_roots(self) -> None:
        for stage in self.index.stages():
            keyword = FUNCTION_STAGES.get(stage.op)
            func = _function_argument(stage.node, keyword) if keyword else None
            if func is None:
                continue
            where = f"mapped by `.{stage.op}()` at {stage.module.location(stage.anchor).display}"
            context = HotContext(f"for every element of the dataset `.{stage.op}()` at line "
                                 f"{stage.module.location(stage.anchor).line}", where, in_dataset=True)
            if isinstance(func, cst.Lambda):
                for call in m.findall(func, m.Call()):
                    self.lambda_calls[id(call)] = context
            else:
                self._mark(self.index.functions_named(*stage.module.qualified_names(func)), context)
        for function in self.index.functions:
            if "tensorflow.function" in function.decorators:
                self._mark([function], _step_context(function, "a `tf.function`"))
        for site in self.index.calls_to("tensorflow.function"):
            if site.node.args and not site.node.args[0].keyword:
                wrapped = self.index.functions_named(*site.module.qualified_names(site.node.args[0].value))
                self._mark(wrapped, HotContext("on every call of a `tf.function`", "wrapped by `tf.function(...)` "
                                               f"at {site.module.location(site.node).display}", in_dataset=False))
        for base, methods in KERAS_TRACED.items():
            for cls_info in self.index.subclasses_of(base):
                traced = [f for f in self.index.methods_of(cls_info) if f.name in methods]
                for function in traced:
                    self._mark([function], _step_context(function, "a method Keras compiles"))

    def _mark(self, functions: Iterable[FunctionInfo], context: HotContext) -> None:
        for function in functions:
            self.functions.setdefault(function.key, context)

    def _propagate(self) -> None:
        pending = list(self.functions)
        while pending:
            key = pending.pop()
            for site in self._calls_by_function.get(key, ()):
                for callee in self.index.functions_named(*site.names):
                    if callee.key not in self.functions:
                        self.functions[callee.key] = self.functions[key]
                        pending.append(callee.key)


def _step_context(function: FunctionInfo, kind: str) -> HotContext:
    where = f"`{function.name}` is {kind} ({function.module.location(function.node.name).display})"
    return HotContext(f"on every call of {kind}, `{function.name}`", where, in_dataset=False)


def _function_argument(call: cst.Call, keyword: str) -> cst.BaseExpression | None:
    """The function a dataset method is given: its first positional argument or the named one."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg.value
    positional = [a for a in call.args if a.keyword is None and not a.star]
    return positional[0].value if positional else None


def _py_func_share(profile: object) -> float | None:
    """The share of step time (0..1) the capture's Python-function ops take; None when the profile lists no ops."""
    if profile is None:
        return None
    return sum(op.share_pct for op in profile.top_ops if op.is_py_func) / 100.0
