"""Replace TF1's ``py_func`` with ``numpy_function``, which takes the same arguments."""

from __future__ import annotations

import libcst as cst

from .base import CallTargetCodemod


class PyFuncToNumpyFunction(CallTargetCodemod):
    DESCRIPTION = "Call tf.numpy_function instead of the TF1 py_func (same signature, same behaviour)."

    def rewrite(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if isinstance(updated.func, cst.Attribute):
            # Keep the receiver: tf.compat.v1 has numpy_function too, so `tf` may stay an alias of compat.v1.
            return updated.with_changes(func=updated.func.with_changes(attr=cst.Name("numpy_function")))
        return updated.with_changes(func=self.tensorflow_attribute("numpy_function"))
