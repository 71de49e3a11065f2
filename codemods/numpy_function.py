"""Replace TF1's ``py_func`` with ``numpy_function``, which takes the same arguments, less ``stateful=True``:
``numpy_function`` is stateful, and takes no ``stateful`` before TensorFlow 2.9 (the rule offers no fix for a call
passing anything else)."""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from .base import CallTargetCodemod


class PyFuncToNumpyFunction(CallTargetCodemod):
    DESCRIPTION = "Call tf.numpy_function instead of the TF1 py_func (same signature, same behaviour)."

    def rewrite(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        stateful_true = m.Arg(keyword=m.Name("stateful"), value=m.Name("True"))
        args = [arg for arg in updated.args if not m.matches(arg, stateful_true)]
        if len(args) < len(updated.args):
            args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            updated = updated.with_changes(args=args)
        if isinstance(updated.func, cst.Attribute):
            # Keep the receiver: tf.compat.v1 has numpy_function too, so `tf` may stay an alias of compat.v1.
            return updated.with_changes(func=updated.func.with_changes(attr=cst.Name("numpy_function")))
        return updated.with_changes(func=self.tensorflow_attribute("numpy_function"))
