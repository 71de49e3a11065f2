"""Walking libcst trees without rebuilding them: the collectors' batched visit, read-only visitors, every node's parent.

libcst's own traversal (``CSTNode.visit``) rebuilds each node it passes, visitor or not: its
``_visit_and_replace_children`` constructs a validated copy of the node, which a visitor then throws away. And
``ParentNodeProvider`` asks every node for its ``children``, which rebuilds it once more. On a large repo that was
most of the index's time. The index only reads its trees, so it walks them through the nodes' fields instead: the
same nodes, in the same order, with the same calls, about five times faster (tests/source/test_visitors.py compares
the two on real code).
"""

from __future__ import annotations

import dataclasses
import inspect
from functools import cache
from typing import Callable, Iterator, Mapping, NamedTuple, Sequence

import libcst as cst

NodeMethod = Callable[[cst.CSTNode], object]


class CollectorVisitor(cst.BatchableCSTVisitor):
    """A batchable visitor that only reads the tree: run a batch of them with :func:`visit_batched`.

    Its ``visit_<Node>``/``leave_<Node>`` methods are found once per class (libcst looks them up with
    ``inspect.getmembers`` on every instance, which on large repos cost a tenth of the whole index). As in any
    batched visit, what they return is ignored: a collector cannot skip a node's children. ``visit_<Node>_<field>``
    and ``leave_<Node>_<field>`` are called before and after the walk of that field's children.
    """

    def get_visitors(self) -> Mapping[str, object]:
        return {name: getattr(self, name) for name in _own_methods(type(self))}


@cache
def _own_methods(visitor_type: type) -> frozenset[str]:
    """The ``visit_<Node>``/``leave_<Node>`` (and ``visit_<Node>_<field>``/``leave_<Node>_<field>``) methods a
    visitor class defines; libcst's base classes define one that does nothing for every node type and field."""
    return frozenset(name for name, member in inspect.getmembers(visitor_type, inspect.isfunction)
                     if name.startswith(("visit_", "leave_")) and not getattr(member, "_is_no_op", False))


def visit_batched(tree: cst.CSTNode, collectors: Sequence[CollectorVisitor]) -> None:
    """What ``MetadataWrapper.visit_batched(collectors)`` does for collectors that read no metadata: at every node,
    each collector's ``visit_<Node>`` in turn, then the children's, in lexical order, then each ``leave_<Node>``."""
    methods: dict[str, list[NodeMethod]] = {}
    for collector in collectors:
        for name, method in collector.get_visitors().items():
            methods.setdefault(name, []).append(method)
    _walk(tree, lambda name: methods.get(name, []), skips_children=False)


def visit_reading(tree: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
    """``tree.visit(visitor)`` for a visitor that reads the tree and needs no metadata: a ``visit_<Node>`` that
    returns False skips the node's children (its ``leave_<Node>`` is still called)."""
    own = _own_methods(type(visitor))
    _walk(tree, lambda name: [getattr(visitor, name)] if name in own else [], skips_children=True)


class _Dispatch(NamedTuple):
    """What the walk does at a node of one type: its visit and leave methods, its fields in visiting order, and the
    methods called around each field's children (``leave_If_body``), when any."""

    visits: list[NodeMethod]
    leaves: list[NodeMethod]
    order: tuple[str, ...]
    around_fields: dict[str, tuple[list[NodeMethod], list[NodeMethod]]]


# Whitespace, comments and punctuation: about two thirds of a module's nodes, and no statement or expression below
# them. A walk whose visitors have no method for any of them leaves them out.
TRIVIA = (cst.SimpleWhitespace, cst.ParenthesizedWhitespace, cst.TrailingWhitespace, cst.Newline, cst.EmptyLine,
          cst.Comment, cst.Comma, cst.Dot, cst.AssignEqual, cst.Colon, cst.Semicolon, cst.LeftParen, cst.RightParen,
          cst.LeftSquareBracket, cst.RightSquareBracket, cst.LeftCurlyBrace, cst.RightCurlyBrace)


def _walk(tree: cst.CSTNode, methods: Callable[[str], list[NodeMethod]], skips_children: bool) -> None:
    dispatch: dict[type, _Dispatch] = {}
    skipped = {t for t in TRIVIA if not (methods(f"visit_{t.__name__}") or methods(f"leave_{t.__name__}"))}
    skipped = skipped if len(skipped) == len(TRIVIA) else set()  # a visitor of some trivia may want what holds it

    def entry_of(node: cst.CSTNode) -> _Dispatch:
        name = type(node).__name__
        order = _field_order(node)
        around = {field: (methods(f"visit_{name}_{field}"), methods(f"leave_{name}_{field}")) for field in order}
        return _Dispatch(methods(f"visit_{name}"), methods(f"leave_{name}"), order,
                         {field: calls for field, calls in around.items() if calls != ([], [])})

    def walk(node: cst.CSTNode) -> None:
        entry = dispatch.get(type(node))
        if entry is None:
            entry = dispatch[type(node)] = entry_of(node)
        skip = False
        for method in entry.visits:
            skip = method(node) is False or skip
        if not (skip and skips_children):
            if entry.around_fields:
                for field in entry.order:
                    before, after = entry.around_fields.get(field, ((), ()))
                    for method in before:
                        method(node)
                    for child in children(node, (field,)):
                        if type(child) not in skipped:
                            walk(child)
                    for method in after:
                        method(node)
            else:
                for child in children(node, entry.order):
                    if type(child) not in skipped:
                        walk(child)
        for method in entry.leaves:
            method(node)

    walk(tree)


def parents(tree: cst.CSTNode) -> dict[cst.CSTNode, cst.CSTNode]:
    """Each node of ``tree`` but the root -> the node that holds it: what libcst's ``ParentNodeProvider`` gives."""
    found: dict[cst.CSTNode, cst.CSTNode] = {}
    stack = [tree]
    while stack:
        node = stack.pop()
        for child in children(node, _declared_fields(type(node))):
            found[child] = node
            stack.append(child)
    return found


def children(node: cst.CSTNode, fields: Sequence[str]) -> Iterator[cst.CSTNode]:
    """The nodes held by ``node``'s ``fields``, in that order: a field holds a node, a sequence of nodes, or none."""
    for name in fields:
        value = getattr(node, name)
        kind = _value_kind(type(value))
        if kind is _NODE:
            yield value
        elif kind is _SEQUENCE:
            for item in value:
                if _value_kind(type(item)) is _NODE:
                    yield item


_NODE, _SEQUENCE, _OTHER = "node", "sequence", "other"


@cache
def _value_kind(value_type: type) -> str:
    """What a field's value is, by its type (CSTNode is an abstract class: ``isinstance`` on it is slow)."""
    if issubclass(value_type, cst.CSTNode):
        return _NODE
    return _SEQUENCE if value_type in (tuple, list) else _OTHER


@cache
def _declared_fields(node_type: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(node_type))


class _FieldOrder(cst.CSTVisitor):
    """Records the order in which libcst visits one node's fields: its children's lexical order."""

    def __init__(self, node: cst.CSTNode) -> None:
        super().__init__()
        self.node = node
        self.fields: list[str] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        return node is self.node  # the node's own fields, not its children's

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        if node is self.node and attribute not in self.fields:
            self.fields.append(attribute)


def learn_field_order(node: cst.CSTNode) -> tuple[str, ...]:
    """The fields of ``node``'s type in the order libcst visits them, learnt from libcst on ``node``. A field libcst
    skips when it is empty (an f-string expression's ``format_spec``, its last) goes after the others; fields that
    never hold a node are harmless in the list."""
    recorder = _FieldOrder(node)
    node.visit(recorder)
    return (*recorder.fields, *(name for name in _declared_fields(type(node)) if name not in recorder.fields))


_FIELD_ORDER: dict[type, tuple[str, ...]] = {}


def _field_order(node: cst.CSTNode) -> tuple[str, ...]:
    """:func:`learn_field_order` of the first node of each type."""
    order = _FIELD_ORDER.get(type(node))
    if order is None:
        order = _FIELD_ORDER[type(node)] = learn_field_order(node)
    return order
