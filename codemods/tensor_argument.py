"""Pass a Python number to a compiled function as a tensor: ``f(x, step)`` -> ``f(x, tf.constant(step))``."""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext

from .base import CallTargetCodemod


class PassTensor(CallTargetCodemod):
    DESCRIPTION = "Wrap a Python scalar argument of a tf.function in tf.constant so that it stops retracing."

    def __init__(self, context: CodemodContext, line: int, column: int, argument: int) -> None:
        super().__init__(context, line, column)
        self.argument = argument  # index into the call's arguments

    def rewrite(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        arg = updated.args[self.argument]
        wrapped = cst.Call(func=self.tensorflow_attribute("constant"), args=[cst.Arg(arg.value)])
        return updated.deep_replace(arg, arg.with_changes(value=wrapped))
