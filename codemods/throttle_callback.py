"""Make per-batch Keras callback work run less often: a hook that returns early, TensorBoard logging per epoch."""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m
from libcst.codemod import CodemodContext

from advisor.source.queries import batch_parameter

from .base import CallTargetCodemod, FunctionTargetCodemod, with_keyword

DOCSTRING = m.SimpleStatementLine(body=[m.Expr(value=m.SimpleString() | m.ConcatenatedString())])


class ThrottleBatchHook(FunctionTargetCodemod):
    """Insert ``if batch % N != 0: return`` at the top of the hook whose name starts at ``line``:``column``."""

    DESCRIPTION = "Run a per-batch callback hook on every Nth batch only."

    def __init__(self, context: CodemodContext, line: int, column: int, every: int) -> None:
        super().__init__(context, line, column)
        self.every = every

    def rewrite(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        batch = batch_parameter(updated)
        if batch is None or not isinstance(updated.body, cst.IndentedBlock):
            return updated
        guard = cst.parse_statement(f"if {batch} % {self.every} != 0:\n    return\n")
        body = list(updated.body.body)
        # After the docstring, which must stay the first statement to remain the docstring.
        position = 1 if body and m.matches(body[0], DOCSTRING) else 0
        body.insert(position, guard)
        return updated.with_changes(body=updated.body.with_changes(body=body))


class TensorBoardUpdatePerEpoch(CallTargetCodemod):
    """``TensorBoard(update_freq="batch")`` -> ``update_freq="epoch"``; the target is the ``update_freq`` keyword."""

    DESCRIPTION = 'Write TensorBoard logs once per epoch (update_freq="epoch").'

    def is_target(self, call: cst.Call) -> bool:
        return any(arg.keyword is not None and arg.keyword.value == "update_freq"
                   and self.starts_at_target(arg.keyword) for arg in call.args)

    def rewrite(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        return with_keyword(updated, "update_freq", cst.SimpleString('"epoch"'))
