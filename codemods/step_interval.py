"""Run a statement of a training loop only every N steps: ``if step % N == 0:`` around it."""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.metadata import PositionProvider

from .base import TensorflowCodemod


class GuardWithStepInterval(TensorflowCodemod):
    """Wrap the simple statement that contains ``line``:``column`` in ``if <counter> % <every> == 0:``."""

    DESCRIPTION = "Run a per-step host sync only every N steps."
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, context: CodemodContext, line: int, column: int, counter: str, every: int) -> None:
        super().__init__(context)
        self.target = (line, column - 1)
        self.counter = counter
        self.every = every

    def leave_SimpleStatementLine(self, original_node: cst.SimpleStatementLine,
                                  updated_node: cst.SimpleStatementLine) -> cst.BaseStatement:
        span = self.get_metadata(PositionProvider, original_node)
        if not (span.start.line, span.start.column) <= self.target <= (span.end.line, span.end.column):
            return updated_node
        return cst.If(
            test=cst.parse_expression(f"{self.counter} % {self.every} == 0"),
            body=cst.IndentedBlock(body=[updated_node.with_changes(leading_lines=())]),
            leading_lines=updated_node.leading_lines,
        )
