"""Turn on Keras mixed precision: set the global policy before the model is built, keep its output in float32."""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor
from libcst.helpers import get_full_name_for_node
from libcst.metadata import PositionProvider

from advisor.source.syntax import anchor, argument

from .base import TensorflowCodemod, with_keyword

class EnableMixedPrecision(TensorflowCodemod):
    """Insert ``keras.mixed_precision.set_global_policy(policy)`` before the statement holding the call anchored at
    ``line``:``column``; with ``output_layer`` (a call's anchor position), give that layer ``dtype="float32"``.

    Layers take the global policy when they are created, so the policy must be set before the first of them.
    """

    DESCRIPTION = "Set a mixed-precision global policy before the model is built; keep the output layer in float32."
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, context: CodemodContext, line: int, column: int, policy: str,
                 output_layer: tuple[int, int] | None = None) -> None:
        super().__init__(context)
        self.target = (line, column)
        self.policy = policy
        self.output_layer = tuple(output_layer) if output_layer else None
        self.inserted = False

    def _starts_at(self, node: cst.CSTNode, position: tuple[int, int] | None) -> bool:
        start = self.get_metadata(PositionProvider, node).start
        return (start.line, start.column + 1) == position

    def _contains_target(self, node: cst.CSTNode) -> bool:
        code_range = self.get_metadata(PositionProvider, node)
        line, column = self.target[0], self.target[1] - 1
        return (code_range.start.line, code_range.start.column) <= (line, column) < \
            (code_range.end.line, code_range.end.column)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if self.output_layer is None or not self._starts_at(anchor(original_node), self.output_layer) \
                or argument(updated_node, "dtype") is not None:
            return updated_node
        return with_keyword(updated_node, "dtype", cst.SimpleString('"float32"'))

    # The innermost block holding the target gets the statement: blocks are left inside-out.
    def leave_IndentedBlock(self, original_node: cst.IndentedBlock,
                            updated_node: cst.IndentedBlock) -> cst.IndentedBlock:
        return updated_node.with_changes(body=self._insert(original_node.body, updated_node.body))

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        return updated_node.with_changes(body=self._insert(original_node.body, updated_node.body))

    def _insert(self, original: tuple, updated: tuple) -> list:
        body = list(updated)
        if self.inserted:
            return body
        for position, statement in enumerate(original):
            if self._contains_target(statement):
                self.inserted = True
                policy = cst.parse_statement(
                    f'{self._keras()}.mixed_precision.set_global_policy("{self.policy}")\n')
                # The statement's leading blank lines and comments stay above the new line.
                policy = policy.with_changes(leading_lines=body[position].leading_lines)
                body[position] = body[position].with_changes(leading_lines=())
                body.insert(position, policy)
                break
        return body

    def _keras(self) -> str:
        """How the module spells keras: its own keras import, else ``tf.keras``, else a new ``import keras``."""
        tensorflow = None
        for statement in self.context.module.body if self.context.module else ():
            for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
                if isinstance(small, cst.Import):
                    for alias in small.names:
                        name = get_full_name_for_node(alias.name)
                        local = alias.asname.name.value if alias.asname else name
                        if name in ("keras", "tf_keras") or (name == "tensorflow.keras" and alias.asname):
                            return local
                        if name == "tensorflow":
                            tensorflow = local
                elif isinstance(small, cst.ImportFrom) and get_full_name_for_node(small.module) == "tensorflow" \
                        and not isinstance(small.names, cst.ImportStar):
                    for alias in small.names:
                        if m.matches(alias.name, m.Name("keras")):
                            return alias.asname.name.value if alias.asname else "keras"
        if tensorflow is not None:
            return f"{tensorflow}.keras"
        AddImportsVisitor.add_needed_import(self.context, "keras")
        return "keras"
