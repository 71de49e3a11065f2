"""``model.compile(...)`` -> ``model.compile(..., steps_per_execution=N)``: Keras runs N batches per call."""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext

from .base import CallTargetCodemod

KEYWORD = "steps_per_execution"


def with_keyword(call: cst.Call, name: str, value: cst.BaseExpression) -> cst.Call:
    """``call`` with keyword argument ``name=value``: the existing one's value replaced, else appended in the call's
    own layout (a call written one argument per line, with a trailing comma, gets the new one on a line of its own)."""
    args = list(call.args)
    for i, arg in enumerate(args):
        if arg.keyword is not None and arg.keyword.value == name:
            args[i] = arg.with_changes(value=value)
            return call.with_changes(args=args)
    new = cst.Arg(value, keyword=cst.Name(name), equal=cst.AssignEqual(cst.SimpleWhitespace(""),
                                                                        cst.SimpleWhitespace("")))
    if not args:
        return call.with_changes(args=[new])
    last = args[-1]
    if isinstance(last.comma, cst.Comma) and isinstance(last.comma.whitespace_after, cst.ParenthesizedWhitespace):
        # The separator between arguments is the previous one's comma, or the line break after the parenthesis.
        separator = args[-2].comma if len(args) > 1 else cst.Comma(whitespace_after=call.whitespace_before_args)
        args[-1] = last.with_changes(comma=separator)
        return call.with_changes(args=[*args, new.with_changes(comma=last.comma)])
    args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return call.with_changes(args=[*args, new])


class SetStepsPerExecution(CallTargetCodemod):
    """Pass ``steps_per_execution=N`` to the ``compile`` call whose method name starts at ``line``:``column``."""

    DESCRIPTION = "Run N training batches per Keras call (steps_per_execution=N)."

    def __init__(self, context: CodemodContext, line: int, column: int, steps: int) -> None:
        super().__init__(context, line, column)
        self.steps = steps

    def rewrite(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        return with_keyword(updated, KEYWORD, cst.Integer(str(self.steps)))
