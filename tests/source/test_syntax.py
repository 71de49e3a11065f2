"""Reading calls as written: which argument binds a parameter, where a finding points, literal values."""

from __future__ import annotations

import libcst as cst
import pytest

from advisor.source.syntax import anchor, argument, argument_value, literal, method_name, parameter_names


def call(code: str) -> cst.Call:
    expression = cst.parse_expression(code)
    assert isinstance(expression, cst.Call)
    return expression


def code_of(node: cst.CSTNode | None) -> str | None:
    return cst.Module([]).code_for_node(node) if node is not None else None


@pytest.mark.parametrize(("source", "name", "position", "expected"), [
    ("ds.batch(32)", "batch_size", 0, "32"),
    ("ds.batch(batch_size=32)", "batch_size", 0, "32"),
    ("ds.batch(32, drop_remainder=True)", "drop_remainder", 1, "True"),
    ("ds.batch(32, True)", "drop_remainder", 1, "True"),
    ("ds.batch(drop_remainder=True, batch_size=32)", "batch_size", 0, "32"),  # keywords in any order
    ("ds.map(f, num_parallel_calls=4)", "num_parallel_calls", None, "4"),
    ("ds.map(f, 4)", "num_parallel_calls", None, None),  # no position given: only the keyword counts
    ("ds.batch(32)", "drop_remainder", 1, None),
    ("ds.batch(**options)", "batch_size", 0, None),
    ("ds.batch(*sizes)", "batch_size", 0, None),  # what *args holds is unknown
    ("model.fit(x=train, validation_data=val)", "x", 0, "train"),
])
def test_argument_binds_by_keyword_then_by_position(source: str, name: str, position: int | None,
                                                    expected: str | None):
    assert code_of(argument_value(call(source), name, position)) == expected
    found = argument(call(source), name, position)
    assert (found is None) == (expected is None)


def test_a_keyword_wins_over_the_position_it_would_otherwise_fill():
    assert code_of(argument_value(call("f(1, size=2)"), "size", 0)) == "2"


@pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
    "positional_arguments drops a *args and counts the arguments after it from 0: `f(*a, True)` binds True to "
    "position 0, but where it lands is unknown"))
def test_positions_after_a_star_argument_are_unknown():
    assert argument(call("ds.batch(*sizes, True)"), "drop_remainder", 1) is None
    assert argument(call("ds.batch(*sizes, True)"), "batch_size", 0) is None


@pytest.mark.parametrize(("source", "anchored", "method"), [
    ("ds.map(f)", "map", "map"),
    ("tf.data.Dataset.range(8).batch(2)", "batch", "batch"),
    ("print(x)", "print", None),
    ("make()(x)", "make()", None),  # a call of a call: the called expression
])
def test_anchor_is_the_method_name_or_the_called_expression(source: str, anchored: str, method: str | None):
    assert code_of(anchor(call(source))) == anchored
    assert method_name(call(source)) == method


@pytest.mark.parametrize(("source", "expected"), [
    ("64", 64), ("0x10", 16), ("'batch'", "batch"), ('"epoch"', "epoch"), ("True", True), ("False", False),
    ("None", None), ("1.5", None), ("-1", None), ("AUTOTUNE", None), ("f'{x}'", None),
])
def test_literal_values(source: str, expected: object):
    assert literal(cst.parse_expression(source)) == expected
    assert literal(None) is None


def test_parameter_names_are_those_a_call_can_bind_in_order():
    function = cst.parse_statement("def f(a, /, b, *args, c, d=1, **kwargs): pass")
    assert isinstance(function, cst.FunctionDef)
    assert parameter_names(function) == ("a", "b", "c", "d")
