"""advisor's tree walk against libcst's own: the same nodes, in the same order, with the same calls, and the same
parents as ParentNodeProvider; on real code (the samples, libcst's own node definitions) and on a
module that holds every construct whose children libcst visits out of declaration order."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider

from advisor.source.facts import ModuleInfo
from advisor.source.visitors import CollectorVisitor, children, learn_field_order, parents, visit_batched, visit_reading

REPO = Path(__file__).resolve().parents[2]
LIBCST_NODES = Path(cst.__file__).parent / "_nodes"

# Decorators before the body they are declared after, an f-string's format spec (visited only when present),
# `x if c else y` (the body before the test), comprehensions, walrus, match, star-args, async, global.
CONSTRUCTS = textwrap.dedent('''
    import a.b as c
    from ..pkg import (x as y, z)
    from m import *

    @decorator(arg)
    @other
    async def f(p, /, q: int = 1, *args, r, **kwargs) -> "T":
        global g
        async with open(p) as h, other() as (i, j):
            async for k in h:
                yield k if k else -k
        v = f"{p!r:>{q}} {q=} {r:{'x'}}" f"{q}"
        w = [m for m in range(3) if m] + {n: n for n in q} + {*args}
        return (z := lambda s=1, *t: s), await w, kwargs["k"][1:2:3]

    class C(Base, metaclass=Meta):
        attr: int = 0

        def method(self):
            try:
                pass
            except (ValueError, TypeError) as error:
                raise RuntimeError() from error
            else:
                del self.x
            finally:
                assert self, "message"
            match self.attr:
                case [1, *rest] | {"k": _, **others} if rest:
                    pass
                case C(x=1) as matched:
                    pass
            while not self:
                continue
            return -self.attr ** 2 @ m >> 1 if self < 2 <= 3 else not self
''')


def _real_code() -> list[Path]:
    return sorted([*(REPO / "samples").rglob("*.py"), *LIBCST_NODES.glob("*.py")])


def _trees() -> list[tuple[str, cst.Module]]:
    return [("constructs", cst.parse_module(CONSTRUCTS))] + [
        (path.relative_to(path.parents[2]).as_posix(), cst.parse_module(path.read_bytes())) for path in _real_code()]


TREES = _trees()
NODE_TYPES = sorted({name[len("visit_"):] for name in dir(cst.CSTVisitor) if name.startswith("visit_")
                     and name.count("_") == 1})


class _LibcstEvents(cst.CSTVisitor):
    """Every node libcst visits, as (event, type, id); ``skip``: node types whose children are skipped."""

    def __init__(self, skip: frozenset[str] = frozenset()) -> None:
        super().__init__()
        self.events: list[tuple[str, str, int]] = []
        self.skip = skip

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.events.append(("visit", type(node).__name__, id(node)))
        return type(node).__name__ not in self.skip

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.events.append(("leave", type(original_node).__name__, id(original_node)))


def _recorder(base: type, skip: frozenset[str] = frozenset()) -> object:
    """A visitor of class ``base`` with a visit and a leave method for every node type, recording each call."""
    def visit(name: str):
        def method(self, node: cst.CSTNode) -> bool:
            self.events.append(("visit", name, id(node)))
            return name not in skip
        return method

    def leave(name: str):
        def method(self, original_node: cst.CSTNode) -> None:
            self.events.append(("leave", name, id(original_node)))
        return method

    methods = {f"visit_{name}": visit(name) for name in NODE_TYPES} | {f"leave_{name}": leave(name)
                                                                        for name in NODE_TYPES}
    recorder = type(f"Recording{base.__name__}", (base,), methods)()
    recorder.events = []
    return recorder


@pytest.mark.parametrize(("name", "tree"), TREES, ids=[name for name, _ in TREES])
def test_batched_visit_calls_what_libcst_calls_in_its_order(name: str, tree: cst.Module) -> None:
    expected = _LibcstEvents()
    tree.visit(expected)
    first, second = _recorder(CollectorVisitor), _recorder(CollectorVisitor)
    visit_batched(tree, [first, second])
    assert first.events == expected.events
    assert second.events == expected.events


@pytest.mark.parametrize(("name", "tree"), TREES[:3], ids=[name for name, _ in TREES[:3]])
def test_a_reading_visitor_skips_children_as_libcst_does(name: str, tree: cst.Module) -> None:
    skip = frozenset({"SimpleStatementLine", "Call", "FormattedString"})
    expected = _LibcstEvents(skip)
    tree.visit(expected)
    visitor = _recorder(cst.CSTVisitor, skip)
    visit_reading(tree, visitor)
    assert visitor.events == expected.events


@pytest.mark.parametrize(("name", "tree"), TREES, ids=[name for name, _ in TREES])
def test_parents_are_libcsts(name: str, tree: cst.Module) -> None:
    expected = MetadataWrapper(tree, unsafe_skip_copy=True).resolve(ParentNodeProvider)
    found = parents(tree)
    assert found.keys() == expected.keys()
    assert all(found[node] is expected[node] for node in found)


class _LibcstFieldEvents(_LibcstEvents):
    """libcst's visit of every field of the node types in ``fields``, as (event, type.field, id)."""

    def __init__(self, fields: frozenset[str]) -> None:
        super().__init__()
        self.fields = fields

    def on_visit(self, node: cst.CSTNode) -> bool:
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        pass

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        if type(node).__name__ in self.fields:
            self.events.append(("visit", f"{type(node).__name__}.{attribute}", id(node)))

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        if type(original_node).__name__ in self.fields:
            self.events.append(("leave", f"{type(original_node).__name__}.{attribute}", id(original_node)))


@pytest.mark.parametrize(("name", "tree"), TREES[:3], ids=[name for name, _ in TREES[:3]])
def test_field_methods_are_called_around_the_fields_children_as_libcst_calls_them(name: str, tree: cst.Module) -> None:
    types = frozenset({"If", "Call", "FunctionDef"})
    expected = _LibcstFieldEvents(types)
    tree.visit(expected)

    def method(event: str, label: str):
        def record(self, node: cst.CSTNode) -> None:
            self.events.append((event, label, id(node)))
        return record

    fields = {(node_type, f.name) for node_type in types for f in dataclasses.fields(getattr(cst, node_type))}
    methods = {f"{event}_{node_type}_{field}": method(event, f"{node_type}.{field}")
               for node_type, field in fields for event in ("visit", "leave")}
    recorder = type("FieldRecorder", (CollectorVisitor,), methods)()
    recorder.events = []
    visit_batched(tree, [recorder])
    assert recorder.events == expected.events


def test_a_field_libcst_skips_when_empty_keeps_its_place() -> None:
    """The walk learns a node type's field order from its first node: an f-string expression without a format spec
    must give the order one with a format spec gives."""
    plain, formatted = (cst.parse_expression(code).parts[0] for code in ('f"{a}"', 'f"{a:>{b}}"'))
    assert list(children(formatted, learn_field_order(plain))) == formatted.children


@pytest.mark.parametrize(("name", "tree"), TREES[:4], ids=[name for name, _ in TREES[:4]])
def test_a_modules_positions_are_libcsts(name: str, tree: cst.Module) -> None:
    """ModuleInfo computes positions without libcst's resolver (see ModuleInfo._positions), and hands them to the
    wrapper, where codemods resolve them."""
    module = ModuleInfo.of(Path("m.py"), Path("/m.py"), tree, tree.bytes)
    expected = MetadataWrapper(tree, unsafe_skip_copy=True).resolve(PositionProvider)
    assert all(module.position(node) == expected[node] for node in expected)
    assert module.wrapper.resolve(PositionProvider) is module.wrapper.resolve(PositionProvider)
    assert all(module.wrapper.resolve(PositionProvider)[node] == expected[node] for node in expected)
