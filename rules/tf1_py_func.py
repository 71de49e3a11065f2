"""TFS001: TF1's ``py_func``, renamed ``numpy_function`` in TF2 (a style note, off by default)."""

from __future__ import annotations

from typing import Iterable

from advisor.codemods.numpy_function import PyFuncToNumpyFunction
from advisor.rule import Confidence, Evidence, Example, Finding, FixAvailability, Rule, RuleContext, Verdict, anchor

NUMPY_FUNCTION_SINCE = (1, 14)


class Tf1PyFunc(Rule):
    code = "TFS001"
    name = "tf1-py-func"
    title = "TF1's py_func where TF2 names it numpy_function"
    rationale = (
        "`tf.compat.v1.py_func` is TF1's name for `tf.numpy_function`: same arguments, same behaviour, same speed. "
        "The rename changes no time; it only keeps code on TF2's names. A style note, off unless selected "
        "(`--select TFS001`); where the Python runs per element or per step, TFD003 reports its cost."
    )
    enabled_by_default = False
    fix = "Call `tf.numpy_function` instead (same arguments)."
    fix_availability = FixAvailability.ALWAYS
    valid = (
        Example("""
            import tensorflow as tf
            def read(path):
                return tf.numpy_function(load_image, [path], tf.uint8)
            """),
        Example("""
            import tensorflow as tf
            def read(path):
                return tf.py_func(load_image, [path], tf.uint8)
            """, files={"requirements.txt": "tensorflow-gpu==1.12.0\n"},
            note="the repo pins a TensorFlow older than 1.14, which has no `numpy_function`"),
    )
    invalid = (
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
            """),
    )

    def check(self, ctx: RuleContext) -> Iterable[Finding]:
        for site in ctx.index.calls_to("tensorflow.py_func"):
            pin = ctx.index.tensorflow_pin(site.module)
            if pin is not None and pin.predates(NUMPY_FUNCTION_SINCE):
                continue  # the TensorFlow the repo runs on has only the TF1 name
            called = site.module.node_code(site.node.func)
            yield self.finding(site.module, anchor(site.node), f"`{called}` is TF1's name for `tf.numpy_function`, "
                               "which takes the same arguments.",
                               Verdict(Confidence.LIKELY, None, (Evidence.source("a rename: no change in speed"),)),
                               reach=ctx.queries.reach(site.module, site.node), codemod=PyFuncToNumpyFunction,
                               end_node=site.node)
