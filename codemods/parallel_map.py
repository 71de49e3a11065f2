"""Give ``Dataset.map`` / ``Dataset.interleave`` ``num_parallel_calls=tf.data.AUTOTUNE``."""

from __future__ import annotations

import libcst as cst

from .base import CallTargetCodemod

# Where num_parallel_calls sits among the positional parameters of each method.
NUM_PARALLEL_CALLS_POSITION = {"map": 1, "interleave": 3}


def num_parallel_calls_arg(call: cst.Call, method: str) -> cst.Arg | None:
    """The argument passing ``num_parallel_calls`` to ``call``, by keyword or by position."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "num_parallel_calls":
            return arg
    positional = [a for a in call.args if a.keyword is None and not a.star]
    position = NUM_PARALLEL_CALLS_POSITION.get(method)
    if position is not None and len(positional) > position:
        return positional[position]
    return None


class AddNumParallelCalls(CallTargetCodemod):
    DESCRIPTION = "Run a tf.data map/interleave with num_parallel_calls=tf.data.AUTOTUNE."

    def rewrite(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        autotune = self.tensorflow_attribute("data.AUTOTUNE")
        method = updated.func.attr.value if isinstance(updated.func, cst.Attribute) else ""
        existing = num_parallel_calls_arg(updated, method)
        if existing is not None:
            return updated.deep_replace(existing, existing.with_changes(value=autotune))
        new_arg = cst.Arg(
            value=autotune,
            keyword=cst.Name("num_parallel_calls"),
            equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
        )
        if not updated.args:
            return updated.with_changes(args=[new_arg])
        *previous, last = updated.args
        if isinstance(last.comma, cst.Comma):
            # A trailing comma means one argument per line: the new argument goes last with that comma (the
            # line break before ")"), and the old last argument takes the separator used between arguments.
            separator = previous[-1].comma if previous else cst.Comma(whitespace_after=updated.whitespace_before_args)
            return updated.with_changes(args=[*previous, last.with_changes(comma=separator),
                                              new_arg.with_changes(comma=last.comma)])
        return updated.with_changes(args=[*previous, last.with_changes(comma=cst.Comma(
            whitespace_after=cst.SimpleWhitespace(" "))), new_arg])
