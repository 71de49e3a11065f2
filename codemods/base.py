"""What the codemods share: finding their target by position, editing a call's keyword arguments, and spelling
TensorFlow names the module's way."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import libcst as cst
from libcst.codemod import CodemodContext, VisitorBasedCodemodCommand
from libcst.codemod.visitors import AddImportsVisitor
from libcst.metadata import PositionProvider

from advisor.source.names import ModuleNames
from advisor.source.syntax import anchor, argument


def with_keyword(call: cst.Call, name: str, value: cst.BaseExpression, position: int | None = None) -> cst.Call:
    """``call`` passing ``value`` for parameter ``name``: the argument that binds it (by keyword, or by ``position``)
    gets the new value; else ``name=value`` is appended in the call's own layout (a call written one argument per
    line, with a trailing comma, gets the new one on a line of its own)."""
    existing = argument(call, name, position)
    if existing is not None:
        return call.with_changes(args=[arg.with_changes(value=value) if arg is existing else arg for arg in call.args])
    args = list(call.args)
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


class TensorflowCodemod(VisitorBasedCodemodCommand):
    """A codemod that may write TensorFlow names, spelled the way the module imports tensorflow."""

    # Plain transformer dispatch: these codemods use no matcher decorators, and libcst's matcher bookkeeping on
    # every node made each fix cost over half a second on large files.
    on_visit = cst.CSTTransformer.on_visit
    on_leave = cst.CSTTransformer.on_leave
    on_visit_attribute = cst.CSTTransformer.on_visit_attribute
    on_leave_attribute = cst.CSTTransformer.on_leave_attribute

    @contextmanager
    def _handle_metadata_reference(self, module: cst.Module) -> Iterator[cst.Module]:
        """Run on the source index's own wrapper when given it (``CodemodContext(wrapper=...)``).

        libcst would deep-copy the tree and resolve positions again for every fix, several passes over the file
        each; the index has resolved them already, and a transformer never mutates the tree it reads.
        """
        shared = self.context.wrapper
        if shared is None or shared.module is not module:
            with super()._handle_metadata_reference(module) as own:
                yield own
            return
        with self.resolve(shared):
            yield module

    @property
    def module_names(self) -> ModuleNames:
        """The module's imports, to resolve and spell names as the index does (no scope analysis needed)."""
        if getattr(self, "_module_names", None) is None:
            self._module_names = ModuleNames.of(self.context.module, "", "")
        return self._module_names

    def tensorflow_attribute(self, dotted: str) -> cst.BaseExpression:
        """``data.AUTOTUNE`` spelled with the module's own alias for tensorflow, importing it when missing."""
        alias = next((name for name, target in self.module_names.aliases.items() if target == "tensorflow"), None)
        if alias is None:
            AddImportsVisitor.add_needed_import(self.context, "tensorflow", asname="tf")
            alias = "tf"
        return cst.parse_expression(f"{alias}.{dotted}")


class PositionTargetCodemod(TensorflowCodemod):
    """A codemod aimed at a finding's position, ``line``:``column`` (1-based, as findings report them).

    Targets are positions, not node objects, so a codemod runs the same on a module parsed from a fixture as on
    the module the source index already holds.
    """

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, context: CodemodContext, line: int, column: int) -> None:
        super().__init__(context)
        self.target = (line, column)

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        """Visit only the top-level statement that holds the target: these codemods change nothing outside the
        node they aim at (imports are added afterwards, by libcst, on the whole module), and a whole-module
        traversal per fix dominated the cost of a report on large files."""
        line = self.target[0]
        for statement in tree.body:
            span = self.get_metadata(PositionProvider, statement)
            if span.start.line <= line <= span.end.line:
                rewritten = statement.visit(self)
                return tree.with_changes(body=[rewritten if s is statement else s for s in tree.body])
        return tree

    def starts_at_target(self, node: cst.CSTNode) -> bool:
        start = self.get_metadata(PositionProvider, node).start
        return (start.line, start.column + 1) == self.target


class CallTargetCodemod(PositionTargetCodemod):
    """Rewrites the one call whose anchor (see :func:`anchor_of`) starts at the target."""

    def __init__(self, context: CodemodContext, line: int, column: int) -> None:
        super().__init__(context, line, column)
        self.changed = False

    def is_target(self, call: cst.Call) -> bool:
        return self.starts_at_target(anchor(call))

    def rewrite(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        raise NotImplementedError

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if not self.changed and self.is_target(original_node):
            self.changed = True
            return self.rewrite(original_node, updated_node)
        return updated_node


class FunctionTargetCodemod(PositionTargetCodemod):
    """Rewrites the one ``def`` whose name starts at the target."""

    def rewrite(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        raise NotImplementedError

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        if self.starts_at_target(original_node.name):
            return self.rewrite(original_node, updated_node)
        return updated_node
