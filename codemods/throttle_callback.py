"""Make per-batch Keras callback work run less often: a hook that returns early, TensorBoard logging per epoch."""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m
from libcst.codemod import CodemodContext, VisitorBasedCodemodCommand
from libcst.metadata import PositionProvider

from .base import CallTargetCodemod

DOCSTRING = m.SimpleStatementLine(body=[m.Expr(value=m.SimpleString() | m.ConcatenatedString())])


def batch_parameter(hook: cst.FunctionDef) -> str | None:
    """The name of a hook's batch index: the first positional parameter after ``self``."""
    positional = [*hook.params.posonly_params, *hook.params.params]
    return positional[1].name.value if len(positional) > 1 else None


class ThrottleBatchHook(VisitorBasedCodemodCommand):
    """Insert ``if batch % N != 0: return`` at the top of the hook whose name starts at ``line``:``column``."""

    DESCRIPTION = "Run a per-batch callback hook on every Nth batch only."
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, context: CodemodContext, line: int, column: int, every: int) -> None:
        super().__init__(context)
        self.target = (line, column)
        self.every = every

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        start = self.get_metadata(PositionProvider, original_node.name).start
        batch = batch_parameter(updated_node)
        if (start.line, start.column + 1) != self.target or batch is None \
                or not isinstance(updated_node.body, cst.IndentedBlock):
            return updated_node
        guard = cst.parse_statement(f"if {batch} % {self.every} != 0:\n    return\n")
        body = list(updated_node.body.body)
        # After the docstring, which must stay the first statement to remain the docstring.
        position = 1 if body and m.matches(body[0], DOCSTRING) else 0
        body.insert(position, guard)
        return updated_node.with_changes(body=updated_node.body.with_changes(body=body))


class TensorBoardUpdatePerEpoch(CallTargetCodemod):
    """``TensorBoard(update_freq="batch")`` -> ``update_freq="epoch"``; the target is the ``update_freq`` keyword."""

    DESCRIPTION = 'Write TensorBoard logs once per epoch (update_freq="epoch").'

    def is_target(self, call: cst.Call) -> bool:
        return any(arg.keyword is not None and arg.keyword.value == "update_freq"
                   and self._starts_at_target(arg.keyword) for arg in call.args)

    def _starts_at_target(self, node: cst.CSTNode) -> bool:
        start = self.get_metadata(PositionProvider, node).start
        return (start.line, start.column + 1) == self.target

    def rewrite(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        args = [arg.with_changes(value=cst.SimpleString('"epoch"'))
                if arg.keyword is not None and arg.keyword.value == "update_freq" else arg for arg in updated.args]
        return updated.with_changes(args=args)
