"""TFS001: TF1's ``py_func``, renamed ``numpy_function`` in TF2 (a style note, off by default)."""

from __future__ import annotations

from typing import Iterable

import libcst.matchers as m

from advisor.codemods.numpy_function import PyFuncToNumpyFunction
from advisor.rule import (Confidence, Evidence, Example, Finding, FixAvailability, Rule, RuleContext, Verdict, anchor,
                          argument)

NUMPY_FUNCTION_SINCE = (1, 14)
# `py_func(func, inp, Tout, stateful=True, name=None)`; `numpy_function` takes `stateful` only from TensorFlow 2.9
# (before, `func, inp, Tout, name`: a fourth positional argument is its name) and is always stateful there.
STATEFUL_POSITION = 3


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
    fix = ("Call `tf.numpy_function` instead (same arguments; `stateful=True` dropped: `numpy_function` is "
           "stateful, and takes no `stateful` before TensorFlow 2.9).")
    fix_availability = FixAvailability.SOMETIMES
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
                return py_func(load_image, [path], tf.uint8, stateful=True)
            """, line=5, fixed="""
            import tensorflow as tf
            from tensorflow.compat.v1 import py_func

            def read(path):
                return tf.numpy_function(load_image, [path], tf.uint8)
            """),
        Example("""
            import tensorflow.compat.v1 as tf

            def read(path):
                return tf.py_func(load_image, [path], tf.uint8, stateful=False)
            """, line=4, note="`numpy_function` has no `stateful=False` before TensorFlow 2.9: no automatic fix"),
        Example("""
            import tensorflow as tf

            def read(path):
                return tf.py_func(load_image, [path], tf.uint8)
            """, line=4,
            note="TensorFlow 1.x code (`tf.py_func` is not in TensorFlow 2), on a version the repo does not declare: "
                 "`numpy_function` came in 1.14"),
    )

    def check(self, ctx: RuleContext) -> Iterable[Finding]:
        for site in ctx.index.calls_to("tensorflow.py_func"):
            pin = ctx.index.tensorflow_pin(site.module)
            if pin is not None and pin.predates(NUMPY_FUNCTION_SINCE):
                continue  # the TensorFlow the repo runs on has only the TF1 name
            called = site.module.node_code(site.node.func)
            message = (f"`{called}` is TF1's name for `tf.numpy_function`, which takes the same function, inputs "
                       "and types.")
            evidence = [Evidence.source("a rename: no change in speed")]
            stateful = argument(site.node, "stateful", STATEFUL_POSITION)
            if pin is None and ctx.queries.calls_tf1_api(site.module):
                # `tf.py_func` itself is TensorFlow 1.x's: the rename holds from 1.14, which nothing here promises.
                confidence, fixable = Confidence.POSSIBLE, False
                evidence.append(Evidence.source("the module is TensorFlow 1.x code, and the repo declares no version: "
                                                "`numpy_function` exists from TensorFlow 1.14"))
                message += " No automatic fix: it needs TensorFlow 1.14 or later, which the repo does not declare."
            elif stateful is None or (stateful.keyword is not None and m.matches(stateful.value, m.Name("True"))):
                confidence, fixable = Confidence.LIKELY, True
            else:
                confidence, fixable = Confidence.LIKELY, False
                message += (f" No automatic fix: it passes `{site.module.node_code(stateful)}`, and "
                            "`numpy_function` takes no `stateful` before TensorFlow 2.9.")
            yield self.finding(site.module, anchor(site.node), message, Verdict(confidence, None, tuple(evidence)),
                               reach=ctx.queries.reach(site.module, site.node),
                               codemod=PyFuncToNumpyFunction if fixable else None, end_node=site.node)
