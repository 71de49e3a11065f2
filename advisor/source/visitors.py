"""What the source collectors share: a batchable visitor base, and reading a function's parameters."""

from __future__ import annotations

import inspect
from functools import cache
from typing import Mapping

import libcst as cst


class CollectorVisitor(cst.BatchableCSTVisitor):
    """libcst finds a batchable visitor's ``visit_*``/``leave_*`` methods with ``inspect.getmembers`` on every
    instance, which on large repos costs as much as a tenth of the whole index; the set is fixed per class."""

    @classmethod
    @cache
    def _visitor_method_names(cls) -> tuple[str, ...]:
        return tuple(name for name, member in inspect.getmembers(cls, inspect.isfunction)
                     if name.startswith(("visit_", "leave_")) and not getattr(member, "_is_no_op", False))

    def get_visitors(self) -> Mapping[str, object]:
        return {name: getattr(self, name) for name in self._visitor_method_names()}


def parameter_names(function: cst.FunctionDef) -> tuple[str, ...]:
    """Names of the parameters a call can bind by position or keyword, in order (``*args``/``**kw`` excluded)."""
    params = function.params
    return tuple(p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params))
