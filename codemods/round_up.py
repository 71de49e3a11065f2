"""Round an integer literal up to a multiple (a layer width, a batch size) where it is written."""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext

from advisor.speedup import round_up

from .base import PositionTargetCodemod


class RoundUpLiteral(PositionTargetCodemod):
    """Replace the integer literal starting at ``line``:``column`` (1-based) by the next multiple of ``multiple``."""

    DESCRIPTION = "Round a size up to the hardware's preferred multiple."

    def __init__(self, context: CodemodContext, line: int, column: int, multiple: int) -> None:
        super().__init__(context, line, column)
        self.multiple = multiple

    def leave_Integer(self, original_node: cst.Integer, updated_node: cst.Integer) -> cst.Integer:
        if not self.starts_at_target(original_node):
            return updated_node
        return updated_node.with_changes(value=str(round_up(int(original_node.evaluated_value), self.multiple)))
