"""Code that raises whatever data a run brings: a name nothing in the module binds (an import left out:
``keras.regularizers.l2(...)`` under ``import tensorflow as tf`` only), a call whose arguments the callee's
signature rejects (six arguments for eight required parameters). A run stops there, so the statements after it,
in the same block and the blocks around it, never run.

Plain syntax: which parts of a statement Python evaluates every time it runs the statement, which names a module
binds anywhere, whether a signature accepts a call. The queries join them with the call graph.
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Iterator, Sequence

import libcst as cst
import libcst.matchers as m

# Names no statement of a module needs to bind: Python's builtins (Python 2's too, for code written for it), the
# module's own attributes, and what IPython gives a script it runs.
DEFINED_EVERYWHERE = frozenset(dir(builtins)) | {
    "xrange", "unicode", "basestring", "long", "raw_input", "file", "reduce", "unichr", "execfile", "reload", "cmp",
    "buffer", "apply", "intern", "coerce",
    "__file__", "__name__", "__doc__", "__spec__", "__loader__", "__package__", "__builtins__", "__path__",
    "__cached__", "__annotations__",
    "get_ipython", "display", "In", "Out",
}

# Code that binds names no statement shows (`globals()["model"] = ...`, `exec(...)`, a builtin patched in): a
# module with any of it says nothing certain about which of its names exist.
DYNAMIC_BINDING = re.compile(r"\b(?:globals|locals|vars|exec|execfile|setattr)\s*\(|\b__builtins?__\b|\bbuiltins\b|"
                             r"\bsys\.modules\b|\bimport\s+\*")


def bound_names(code: cst.CSTNode) -> frozenset[str]:
    """Every name ``code`` (a module, a function's body) binds, in any scope it holds (an assignment, a loop's or a
    ``with``'s target, a parameter, a definition, an import, an ``except ... as``, a comprehension's variable): more
    than Python sees from any one place, so that a name outside it is certainly bound nowhere there."""
    collector = _Bindings()
    code.visit(collector)
    return frozenset(collector.names)


# The part of each kind of node that holds the names it binds (a match statement: all of it, to be safe).
BINDING_PARTS = {cst.AssignTarget: "target", cst.AnnAssign: "target", cst.AugAssign: "target", cst.For: "target",
                 cst.CompFor: "target", cst.NamedExpr: "target", cst.AsName: "name", cst.Param: "name",
                 cst.FunctionDef: "name", cst.ClassDef: "name", cst.Global: "names", cst.Nonlocal: "names",
                 cst.Match: None}


class _Bindings(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()

    def on_visit(self, node: cst.CSTNode) -> bool:
        if type(node) in BINDING_PARTS:
            part = BINDING_PARTS[type(node)]
            held = node if part is None else getattr(node, part)
            for item in held if isinstance(held, Sequence) else [held]:
                self.names.update(name.value for name in m.findall(item, m.Name()))
        elif isinstance(node, cst.ImportAlias) and node.asname is None:  # `import a.b.c` binds `a`
            name = node.name
            while isinstance(name, cst.Attribute):
                name = name.value
            self.names.add(name.value)
        return True


def header_expressions(statement: cst.BaseStatement) -> list[cst.BaseExpression]:
    """What Python evaluates of ``statement`` before any of its body: a simple statement's values, an ``if``'s or
    ``while``'s test, a ``for``'s iterable, a ``with``'s context managers (not a definition's decorators or
    defaults: a run that defines code does not call it)."""
    if isinstance(statement, cst.SimpleStatementLine):
        return [small.value for small in statement.body
                if isinstance(small, (cst.Expr, cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Return))
                and small.value is not None]
    if isinstance(statement, (cst.If, cst.While)):
        return [statement.test]
    if isinstance(statement, cst.For):
        return [statement.iter]
    if isinstance(statement, cst.With):
        return [item.item for item in statement.items]
    return []


def inner_blocks(statement: cst.BaseStatement) -> list[Sequence[cst.BaseStatement]]:
    """The blocks of statements ``statement`` holds, in source order (an ``elif`` is a block of one ``if``; a
    one-line suite, ``if x: y``, holds none)."""
    if isinstance(statement, cst.If) and isinstance(statement.orelse, cst.If):
        return [_statements(statement.body), [statement.orelse]]
    suites = [getattr(statement, "body", None), *(handler.body for handler in getattr(statement, "handlers", ())),
              getattr(getattr(statement, "orelse", None), "body", None),
              getattr(getattr(statement, "finalbody", None), "body", None)]
    return [_statements(suite) for suite in suites if isinstance(suite, cst.BaseSuite)]


def _statements(suite: cst.BaseSuite) -> Sequence[cst.BaseStatement]:
    return suite.body if isinstance(suite, cst.IndentedBlock) else ()


def evaluated_every_time(expression: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The parts of ``expression`` that Python evaluates whenever it evaluates ``expression``: not a lambda's body,
    nor a comprehension's element (the iterable may be empty), nor the right side of ``and``/``or``, nor the
    branches of ``x if c else y``; an attribute's object and not its name, an argument's value and not its keyword."""
    yield expression
    if isinstance(expression, cst.Lambda):
        return
    if isinstance(expression, cst.BooleanOperation):
        parts: list[cst.CSTNode] = [expression.left]
    elif isinstance(expression, cst.IfExp):
        parts = [expression.test]
    elif isinstance(expression, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
        parts = [expression.for_in.iter]
    elif isinstance(expression, cst.Attribute):
        parts = [expression.value]
    elif isinstance(expression, (cst.Arg, cst.NamedExpr)):
        parts = [expression.value]
    else:
        parts = list(expression.children)
    for part in parts:
        yield from evaluated_every_time(part)


def rejected_arguments(call: cst.Call, parameters: cst.Parameters, bound: bool) -> str | None:
    """Why a signature raises TypeError for ``call`` whatever the values (too many positional arguments, a keyword
    it lacks, a required parameter left out), as Python says it; None when it accepts the call, or when the call
    unpacks ``*args``/``**kwargs`` (what they hold is unknown). ``bound``: the first parameter is ``self``."""
    if any(arg.star for arg in call.args):
        return None
    positional = [*parameters.posonly_params, *parameters.params][1 if bound else 0:]
    by_keyword = positional[max(0, len(parameters.posonly_params) - (1 if bound else 0)):] + \
        list(parameters.kwonly_params)
    given = [arg for arg in call.args if arg.keyword is None]
    keywords = [arg.keyword.value for arg in call.args if arg.keyword is not None]
    if len(given) > len(positional) and not isinstance(parameters.star_arg, cst.Param):
        return f"takes {len(positional)} positional arguments but {len(given)} were given"
    doubled = [keyword for keyword in keywords if keyword in {p.name.value for p in positional[:len(given)]}]
    if doubled:
        return f"got multiple values for argument '{doubled[0]}'"
    accepted = {param.name.value for param in by_keyword}
    unknown = [keyword for keyword in keywords if keyword not in accepted]
    if unknown and parameters.star_kwarg is None:
        return f"got an unexpected keyword argument '{unknown[0]}'"
    missing = [param.name.value for index, param in enumerate(positional)
               if param.default is None and index >= len(given) and param.name.value not in keywords]
    missing += [param.name.value for param in parameters.kwonly_params
                if param.default is None and param.name.value not in keywords]
    if missing:
        return f"missing {len(missing)} required argument{'s' if len(missing) > 1 else ''}: " + \
            ", ".join(f"'{name}'" for name in missing)
    return None


def may_leave_early(statement: cst.BaseStatement) -> bool:
    """Whether ``statement`` may end its function's run before the next statement (a ``return``, ``raise`` or
    ``yield`` in it, but in a function it defines), or catches what its code raises (a ``try``)."""
    return not isinstance(statement, (cst.FunctionDef, cst.ClassDef)) and _holds(statement, EARLY_EXITS)


def is_generator(function: cst.FunctionDef) -> bool:
    """Whether calling ``function`` only makes a generator: its body runs when the generator is iterated."""
    return _holds(function.body, (cst.Yield,))


EARLY_EXITS = (cst.Return, cst.Raise, cst.Yield, cst.Try)


def _holds(node: cst.CSTNode, kinds: tuple[type, ...]) -> bool:
    """Whether ``node`` holds a node of ``kinds`` outside the functions, classes and lambdas it defines."""
    if isinstance(node, kinds):
        return True
    return any(not isinstance(child, (cst.FunctionDef, cst.ClassDef, cst.Lambda)) and _holds(child, kinds)
               for child in node.children)
