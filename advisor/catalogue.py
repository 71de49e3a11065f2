"""The catalogue of rules: every rule class of ``advisor.rules``, discovered by importing each module of the package.

Nothing registers a rule by hand, and nothing outside a rule's own file names it: the engine, the reports and the
docs all read this list.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from functools import cache

from .rule import Rule

RULES_PACKAGE = "advisor.rules"


@cache
def all_rules() -> tuple[type[Rule], ...]:
    """Every rule class in ``advisor.rules``, sorted by code."""
    package = importlib.import_module(RULES_PACKAGE)
    found: list[type[Rule]] = []
    for info in pkgutil.iter_modules(package.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{RULES_PACKAGE}.{info.name}")
        found.extend(obj for _, obj in inspect.getmembers(module, inspect.isclass)
                     if issubclass(obj, Rule) and obj is not Rule and obj.__module__ == module.__name__)
    return tuple(sorted(found, key=lambda r: r.code))


def rule_by_code(code: str) -> type[Rule] | None:
    wanted = code.upper()
    return next((r for r in all_rules() if r.code == wanted or r.name == code.lower()), None)
