"""GuardWithStepInterval: exact output, the output parses, and the guarded statement is not wrapped twice."""

from __future__ import annotations

import textwrap

import libcst as cst
from libcst.codemod import CodemodContext

from advisor.codemods.step_interval import GuardWithStepInterval


def _run(code: str, line: int, column: int, **args) -> str:
    codemod = GuardWithStepInterval(CodemodContext(), line=line, column=column, counter="step", **args)
    return codemod.transform_module(cst.parse_module(code)).code


def _src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def test_wraps_the_statement_keeping_comments_above_it():
    code = _src("""
        for step, batch in enumerate(ds):
            loss = train_step(batch)
            # progress
            print(float(loss))  # every step
        """)
    fixed = _run(code, 4, 11, every=100)
    assert fixed == _src("""
        for step, batch in enumerate(ds):
            loss = train_step(batch)
            # progress
            if step % 100 == 0:
                print(float(loss))  # every step
        """)
    cst.parse_module(fixed)


def test_interval_and_other_lines():
    code = _src("""
        for step in range(10):
            print(step)
            print(loss.numpy())
        """)
    assert _run(code, 3, 11, every=5) == _src("""
        for step in range(10):
            print(step)
            if step % 5 == 0:
                print(loss.numpy())
        """)
