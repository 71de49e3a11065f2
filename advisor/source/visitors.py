"""The base of the source collectors: a batchable visitor whose visit methods are found once per class."""

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
