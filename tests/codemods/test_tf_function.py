"""AddTfFunction and ReduceRetracing: exact output, the output parses, and a second run changes nothing."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest
from libcst.codemod import CodemodContext

from advisor.codemods.tf_function import AddTfFunction, ReduceRetracing


def _run(codemod: type, code: str, line: int, column: int) -> str:
    return codemod(CodemodContext(), line=line, column=column).transform_module(cst.parse_module(code)).code


def _src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


ADD_CASES = [
    pytest.param("""
        import tensorflow as tf

        def step(x):
            return x
        """, 3, 5, """
        import tensorflow as tf

        @tf.function
        def step(x):
            return x
        """, id="plain"),
    pytest.param("""
        import tensorflow

        # the step
        @other
        def step(x):
            return x
        """, 5, 5, """
        import tensorflow

        # the step
        @tensorflow.function
        @other
        def step(x):
            return x
        """, id="outermost, module's own alias, comment kept above"),
    pytest.param("""
        import numpy as np

        class Trainer:
            def step(self, x):
                return x
        """, 4, 9, """
        import numpy as np
        import tensorflow as tf

        class Trainer:
            @tf.function
            def step(self, x):
                return x
        """, id="method, tensorflow imported"),
]

REDUCE_CASES = [
    pytest.param("""
        import tensorflow as tf

        @tf.function
        def step(x):
            return x
        """, """
        import tensorflow as tf

        @tf.function(reduce_retracing=True)
        def step(x):
            return x
        """, id="bare decorator"),
    pytest.param("""
        from tensorflow import function

        @function(jit_compile=True)
        def step(x):
            return x
        """, """
        from tensorflow import function

        @function(jit_compile=True, reduce_retracing=True)
        def step(x):
            return x
        """, id="decorator call with arguments"),
    pytest.param("""
        import tensorflow as tf

        @tf.function(reduce_retracing=False, jit_compile=True)
        def step(x):
            return x
        """, """
        import tensorflow as tf

        @tf.function(reduce_retracing=True, jit_compile=True)
        def step(x):
            return x
        """, id="explicit False"),
]


@pytest.mark.parametrize("code,line,column,expected", ADD_CASES)
def test_add_tf_function(code, line, column, expected):
    fixed = _run(AddTfFunction, _src(code), line, column)
    assert fixed == _src(expected)
    cst.parse_module(fixed)
    # The def moved down by the lines the fix added: the second run targets it there and changes nothing.
    added = fixed.count("\n") - _src(code).count("\n")
    assert _run(AddTfFunction, fixed, line + added, column) == fixed


@pytest.mark.parametrize("code,expected", REDUCE_CASES)
def test_reduce_retracing(code, expected):
    fixed = _run(ReduceRetracing, _src(code), 4, 5)
    assert fixed == _src(expected)
    cst.parse_module(fixed)
    assert _run(ReduceRetracing, fixed, 4, 5) == fixed


def test_other_positions_are_left_alone():
    code = _src("""
        import tensorflow as tf

        def step(x):
            return x
        """)
    assert _run(AddTfFunction, code, 3, 1) == code
