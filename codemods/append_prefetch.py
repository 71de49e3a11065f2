"""Append ``.prefetch(tf.data.AUTOTUNE)`` to a dataset expression."""

from __future__ import annotations

import libcst as cst

from .base import CallTargetCodemod


class AppendPrefetch(CallTargetCodemod):
    DESCRIPTION = "Append .prefetch(tf.data.AUTOTUNE) to the last transformation of a tf.data pipeline."

    def rewrite(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        # Keep the layout of a chain written one transformation per line: reuse the dot's leading whitespace.
        dot = updated.func.dot if isinstance(updated.func, cst.Attribute) else cst.Dot()
        # Parentheses around the whole chain belong to its outermost call: they move out to the new one.
        return cst.Call(
            func=cst.Attribute(value=updated.with_changes(lpar=[], rpar=[]), attr=cst.Name("prefetch"), dot=dot),
            args=[cst.Arg(self.tensorflow_attribute("data.AUTOTUNE"))],
            lpar=updated.lpar,
            rpar=updated.rpar,
        )
