"""PassTensor: exact output, the output parses, and only the targeted call and argument change."""

from __future__ import annotations

import textwrap

import libcst as cst
from libcst.codemod import CodemodContext

from advisor.codemods.tensor_argument import PassTensor


def _run(code: str, line: int, column: int, argument: int) -> str:
    codemod = PassTensor(CodemodContext(), line=line, column=column, argument=argument)
    return codemod.transform_module(cst.parse_module(code)).code


def _src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def test_wraps_keyword_argument_with_the_module_alias():
    code = _src("""
        import tensorflow as tnf
        for i in range(3):
            step(x, i)
            runner.step(x, offset=i * 2)
        """)
    fixed = _run(code, 4, 12, argument=1)
    assert fixed == _src("""
        import tensorflow as tnf
        for i in range(3):
            step(x, i)
            runner.step(x, offset=tnf.constant(i * 2))
        """)
    cst.parse_module(fixed)


def test_adds_the_import():
    code = "for i in range(3):\n    step(i)\n"
    assert _run(code, 2, 5, argument=0) == "import tensorflow as tf\n\nfor i in range(3):\n    step(tf.constant(i))\n"
