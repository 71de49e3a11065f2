"""SetStepsPerExecution: exact output in each call layout, parsable, and a second run changes nothing."""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext, CodemodTest

from advisor.codemods.steps_per_execution import SetStepsPerExecution


class TestSetStepsPerExecution(CodemodTest):
    TRANSFORM = SetStepsPerExecution

    def test_keyword_appended_on_one_line(self) -> None:
        before = """
            model.compile(optimizer="adam", loss="mse")
        """
        after = """
            model.compile(optimizer="adam", loss="mse", steps_per_execution=32)
        """
        self.assertCodemod(before, after, line=1, column=7, steps=32)

    def test_one_argument_per_line_keeps_its_layout(self) -> None:
        before = """
            model.compile(
                optimizer="adam",
                loss="mse",
            )
        """
        after = """
            model.compile(
                optimizer="adam",
                loss="mse",
                steps_per_execution=8,
            )
        """
        self.assertCodemod(before, after, line=1, column=7, steps=8)

    def test_a_single_argument_per_line(self) -> None:
        before = """
            model.compile(
                "adam",
            )
        """
        after = """
            model.compile(
                "adam",
                steps_per_execution=8,
            )
        """
        self.assertCodemod(before, after, line=1, column=7, steps=8)

    def test_an_existing_value_is_replaced(self) -> None:
        before = """
            model.compile("adam", steps_per_execution=1, loss="mse")
        """
        after = """
            model.compile("adam", steps_per_execution=16, loss="mse")
        """
        self.assertCodemod(before, after, line=1, column=7, steps=16)

    def test_other_calls_are_left_alone(self) -> None:
        code = """
            model.compile("adam")
            other.compile("sgd")
        """
        after = """
            model.compile("adam")
            other.compile("sgd", steps_per_execution=4)
        """
        self.assertCodemod(code, after, line=2, column=7, steps=4)


def test_a_second_run_changes_nothing() -> None:
    code = 'model.compile(\n    optimizer="adam",\n    loss="mse",\n)\n'
    once = SetStepsPerExecution(CodemodContext(), line=1, column=7, steps=8).transform_module(cst.parse_module(code))
    twice = SetStepsPerExecution(CodemodContext(), line=1, column=7, steps=8).transform_module(once)
    assert "steps_per_execution=8,\n)" in once.code and twice.code == once.code
    cst.parse_module(twice.code)
