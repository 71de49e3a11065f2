"""What the codemods share: finding their target by position, editing a call's keyword arguments, and spelling
TensorFlow names the module's way."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import libcst as cst
from libcst.codemod import CodemodContext, SkipFile, VisitorBasedCodemodCommand
from libcst.codemod.visitors import AddImportsVisitor
from libcst.metadata import PositionProvider

from advisor.source.names import ModuleNames, is_tf2_api, used_names
from advisor.source.syntax import anchor, argument

# The TensorFlow names codemods write, spelled for a module whose ``tf`` is ``tensorflow.compat.v1`` (TF1 code run
# on TF2; that alias is kept, not rebound) or that runs on TensorFlow 1.x. ``tf.data.AUTOTUNE`` is TF 2.x only; the
# experimental name exists in every TF since 1.13 and in compat.v1. tests/codemods/test_names.py checks each pair
# against TensorFlow.
COMPAT_V1_SPELLING = {
    "data.AUTOTUNE": "data.experimental.AUTOTUNE",
    "numpy_function": "numpy_function",
    "function": "function",
    "constant": "constant",
}


def with_keyword(call: cst.Call, name: str, value: cst.BaseExpression, position: int | None = None) -> cst.Call:
    """``call`` passing ``value`` for parameter ``name``: the argument that binds it (by keyword, or by ``position``)
    gets the new value; else ``name=value`` is appended in the call's own layout: on a line of its own, indented like
    the others, when the arguments are written one per line; a trailing comma and comments stay where they were."""
    existing = argument(call, name, position)
    if existing is not None:
        return call.with_changes(args=[arg.with_changes(value=value) if arg is existing else arg for arg in call.args])
    new = cst.Arg(value, keyword=cst.Name(name), equal=cst.AssignEqual(cst.SimpleWhitespace(""),
                                                                        cst.SimpleWhitespace("")))
    args = list(call.args)
    if not args:
        return call.with_changes(args=[new])
    last = args[-1]
    between = _argument_separator(call)
    if isinstance(last.comma, cst.Comma):  # `f(a, b,)`: the new argument takes over the trailing comma
        closing = last.comma.whitespace_after
        new = new.with_changes(comma=last.comma.with_changes(whitespace_before=cst.SimpleWhitespace(""),
                                                             whitespace_after=_without_comment(closing)),
                               whitespace_after_arg=last.whitespace_after_arg)
    else:
        closing = last.whitespace_after_arg
        new = new.with_changes(whitespace_after_arg=_without_comment(closing))
    comma = cst.Comma(whitespace_before=last.comma.whitespace_before if isinstance(last.comma, cst.Comma)
                      else cst.SimpleWhitespace(""), whitespace_after=_line_break_keeping_comment(closing, between))
    args[-1] = last.with_changes(comma=comma, whitespace_after_arg=cst.SimpleWhitespace(""))
    return call.with_changes(args=[*args, new])


def _argument_separator(call: cst.Call) -> cst.BaseParenthesizableWhitespace:
    """The whitespace this call puts before an argument: after the previous comma, or after the parenthesis when
    the first argument starts a new line; comments left out."""
    args = call.args
    if len(args) > 1 and isinstance(args[-2].comma, cst.Comma):
        return _without_comment(args[-2].comma.whitespace_after)
    if isinstance(call.whitespace_before_args, cst.ParenthesizedWhitespace):
        return _without_comment(call.whitespace_before_args)
    return cst.SimpleWhitespace(" ")


def _without_comment(whitespace: cst.BaseParenthesizableWhitespace) -> cst.BaseParenthesizableWhitespace:
    """The same line break and indentation, without the comment or blank lines (those stay where they were)."""
    if isinstance(whitespace, cst.ParenthesizedWhitespace):
        return whitespace.with_changes(first_line=cst.TrailingWhitespace(newline=whitespace.first_line.newline),
                                       empty_lines=[])
    return whitespace


def _line_break_keeping_comment(closing: cst.BaseParenthesizableWhitespace,
                                between: cst.BaseParenthesizableWhitespace) -> cst.BaseParenthesizableWhitespace:
    """What follows the comma after the formerly last argument: the separator ``between`` arguments, keeping a
    comment that ended that argument's line (``closing``) on that line."""
    if not (isinstance(closing, cst.ParenthesizedWhitespace) and closing.first_line.comment is not None):
        return between
    if isinstance(between, cst.ParenthesizedWhitespace):
        return between.with_changes(first_line=closing.first_line, empty_lines=closing.empty_lines)
    return closing


class TensorflowCodemod(VisitorBasedCodemodCommand):
    """A codemod that may write TensorFlow names, spelled the way the module imports tensorflow."""

    # The code runs on TensorFlow 1.x, or on a declared TensorFlow older than 2.4 (the finding's rule tells): write
    # names that exist there.
    tensorflow_1 = False

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

    @property
    def used_names(self) -> set[str]:
        """Every identifier the module writes (see :func:`advisor.source.names.used_names`)."""
        if getattr(self, "_used_names", None) is None:
            self._used_names = used_names(self.context.module)
        return self._used_names

    def tensorflow_attribute(self, dotted: str) -> cst.BaseExpression:
        """``data.AUTOTUNE`` spelled with the module's own alias for tensorflow (or for ``tensorflow.compat.v1``,
        when the name exists there), else with a new import under a name the module does not use; for code that
        runs on TensorFlow 1.x (``tensorflow_1``), in the spelling that exists there."""
        aliases = self.module_names.global_aliases
        alias = next((name for name, target in aliases.items() if is_tf2_api(target, "tensorflow")), None)
        if alias is None and dotted in COMPAT_V1_SPELLING:
            alias = next((name for name, target in aliases.items() if target == "tensorflow.compat.v1"), None)
            dotted = COMPAT_V1_SPELLING[dotted] if alias is not None else dotted
        elif alias is not None and dotted in COMPAT_V1_SPELLING and self.tensorflow_1:
            dotted = COMPAT_V1_SPELLING[dotted]
        if alias is None:
            alias = self.import_under_free_name("tensorflow", ("tf", "tensorflow"))
        return cst.parse_expression(f"{alias}.{dotted}")

    def import_under_free_name(self, module: str, names: tuple[str, ...]) -> str:
        """Import ``module`` under the first of ``names`` that the module never writes (an import must not rebind
        anything); SkipFile when all are taken. An import an earlier fix of the same pass asked for is reused."""
        pending = next((item for item in self.context.scratch.get(AddImportsVisitor.CONTEXT_KEY, ())
                        if item.module == module and item.obj_name is None), None)
        if pending is not None:
            return pending.alias or module
        for name in names:
            if name not in self.used_names:
                AddImportsVisitor.add_needed_import(self.context, module, asname=None if name == module else name)
                return name
        raise SkipFile(f"the module already uses {' and '.join(f'`{n}`' for n in names)} for something else, so "
                       f"`{module}` cannot be imported without rebinding a name")


class PositionTargetCodemod(TensorflowCodemod):
    """A codemod aimed at a finding's position, ``line``:``column`` (1-based, as findings report them).

    Targets are positions, not node objects, so a codemod runs the same on a module parsed from a fixture as on
    the module the source index already holds.
    """

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, context: CodemodContext, line: int, column: int, tensorflow_1: bool = False) -> None:
        super().__init__(context)
        self.target = (line, column)
        self.tensorflow_1 = tensorflow_1

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

    def __init__(self, context: CodemodContext, line: int, column: int, tensorflow_1: bool = False) -> None:
        super().__init__(context, line, column, tensorflow_1)
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
