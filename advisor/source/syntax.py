"""Reading calls as they are written: an argument by keyword or position, the node a finding points at, literals.

Shared by the source index, the queries, the rules and the codemods, so that "the batch size of ``.batch(...)``" or
"``num_parallel_calls`` of ``.map(...)``" is looked up one way everywhere.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m


def positional_arguments(call: cst.Call) -> list[cst.Arg]:
    """The arguments passed by position (``*args`` excluded: what it holds is unknown)."""
    return [a for a in call.args if a.keyword is None and not a.star]


def argument(call: cst.Call, name: str, position: int | None = None) -> cst.Arg | None:
    """The argument that binds parameter ``name``: by keyword, else (with ``position``) by position."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    if position is not None:
        positional = positional_arguments(call)
        if len(positional) > position:
            return positional[position]
    return None


def argument_value(call: cst.Call, name: str, position: int | None = None) -> cst.BaseExpression | None:
    """The expression passed for parameter ``name`` (see :func:`argument`), or None."""
    found = argument(call, name, position)
    return found.value if found is not None else None


def anchor(call: cst.Call) -> cst.CSTNode:
    """The node a finding points at for a call: the method name of ``x.map(...)``, or the called name."""
    return call.func.attr if isinstance(call.func, cst.Attribute) else call.func


def method_name(call: cst.Call) -> str | None:
    """``map`` for ``ds.map(...)``; None for a call of a plain name."""
    return call.func.attr.value if isinstance(call.func, cst.Attribute) else None


def literal(value: cst.BaseExpression | None) -> object:
    """The Python value of an integer, string, ``True``/``False``/``None`` literal; None for anything else."""
    if isinstance(value, (cst.Integer, cst.SimpleString)):
        return value.evaluated_value
    if isinstance(value, cst.Name) and value.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[value.value]
    return None


def parameter_names(function: cst.FunctionDef) -> tuple[str, ...]:
    """Names of the parameters a call can bind by position or keyword, in order (``*args``/``**kw`` excluded)."""
    params = function.params
    return tuple(p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params))


def superseded_definitions(tree: cst.Module) -> list[cst.FunctionDef]:
    """Module-level functions defined again further down before anything names them (a notebook's cell improving
    the function an earlier cell wrote): no call ever runs the first definition."""
    body = list(tree.body)
    last: dict[str, int] = {}
    found = []
    for place, statement in enumerate(body):
        if not isinstance(statement, cst.FunctionDef):
            continue
        name = statement.name.value
        earlier = last.get(name)
        if earlier is not None and not any(m.findall(between, m.Name(name)) for between in body[earlier + 1:place]):
            found.append(body[earlier])
        last[name] = place
    return found


def brief(code: str, limit: int = 60) -> str:
    """Code on one line, cut at ``limit`` characters (for messages that quote it)."""
    flat = " ".join(code.split())
    return flat if len(flat) <= limit else flat[:limit - 3] + "..."
