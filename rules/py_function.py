"""TFD003: Python functions called from a tf.data map or a compiled step (``py_function``, ``numpy_function``)."""

from __future__ import annotations

from typing import Iterable

from advisor.codemods.numpy_function import PyFuncToNumpyFunction
from advisor.rule import (CallSite, Confidence, Evidence, Example, Finding, FixAvailability, HotContext, Rule,
                          RuleContext, Verdict, anchor, typical)

LEGACY = frozenset({"tensorflow.py_func", "tensorflow.compat.v1.py_func"})
PY_FUNCTIONS = LEGACY | {
    "tensorflow.py_function", "tensorflow.numpy_function",
    "tensorflow.compat.v1.py_function", "tensorflow.compat.v1.numpy_function",
}


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
    fix_availability = FixAvailability.SOMETIMES
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
        hot = ctx.queries.hot_functions
        for site in ctx.index.calls_to(*PY_FUNCTIONS):
            context = hot.context_of(site)
            legacy = bool(site.names & LEGACY)
            if context is None and not legacy:
                continue
            yield self._finding(ctx, site, context, legacy)

    def _finding(self, ctx: RuleContext, site: CallSite, context: HotContext | None, legacy: bool) -> Finding:
        module = site.module
        called = module.node_code(site.node.func)
        parts = []
        if legacy:
            parts.append(f"`{called}` is TF1's name for `tf.numpy_function`, which takes the same arguments.")
        if context is not None:
            parts.append(f"`{called}` runs Python {context.what}, holding the GIL")
            parts[-1] += (": `num_parallel_calls` cannot parallelize it; rewrite it with TensorFlow ops."
                          if context.in_dataset else "; rewrite it with TensorFlow ops or move it out of the step.")
            static = Verdict(Confidence.LIKELY, typical("py_function"), (Evidence.source(context.where),))
        else:
            static = Verdict(Confidence.POSSIBLE)
        verdict = ctx.verdicts.python_function_ops(context is not None, context is not None and context.in_dataset,
                                                   static)
        return self.finding(module, anchor(site.node), " ".join(parts), verdict,
                            codemod=PyFuncToNumpyFunction if legacy else None,
                            priority=0 if context is not None else 1, end_node=site.node)
