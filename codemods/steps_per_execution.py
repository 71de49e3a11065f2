"""``model.compile(...)`` -> ``model.compile(..., steps_per_execution=N)``: Keras runs N batches per call."""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext

from .base import CallTargetCodemod, with_keyword

class SetStepsPerExecution(CallTargetCodemod):
    """Pass ``steps_per_execution=N`` to the ``compile`` call whose method name starts at ``line``:``column``."""

    DESCRIPTION = "Run N training batches per Keras call (steps_per_execution=N)."

    def __init__(self, context: CodemodContext, line: int, column: int, steps: int) -> None:
        super().__init__(context, line, column)
        self.steps = steps

    def rewrite(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        return with_keyword(updated, "steps_per_execution", cst.Integer(str(self.steps)))
