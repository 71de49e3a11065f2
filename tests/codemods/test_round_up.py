"""RoundUpLiteral: the one literal at the target rounds up to the multiple; a second run changes nothing."""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext, CodemodTest

from advisor.codemods.round_up import RoundUpLiteral, round_up


def test_round_up() -> None:
    assert [round_up(v, 8) for v in (8, 9, 30, 100)] == [8, 16, 32, 104]
    assert round_up(300, 128) == 384


class TestRoundUpLiteral(CodemodTest):
    TRANSFORM = RoundUpLiteral

    def test_layer_width(self) -> None:
        before = """
            x = keras.layers.Conv2D(30, 3)(x)
            y = keras.layers.Dense(100)(x)
        """
        after = """
            x = keras.layers.Conv2D(30, 3)(x)
            y = keras.layers.Dense(104)(x)
        """
        self.assertCodemod(before, after, line=2, column=24, multiple=8)

    def test_constant_for_a_tpu(self) -> None:
        self.assertCodemod("UNITS = 300  # hidden width\n", "UNITS = 384  # hidden width\n",
                           line=1, column=9, multiple=128)


def test_a_second_run_changes_nothing() -> None:
    code = "x = keras.layers.Conv2D(30, 3)(x)\n"
    once = RoundUpLiteral(CodemodContext(), line=1, column=25, multiple=8).transform_module(cst.parse_module(code))
    twice = RoundUpLiteral(CodemodContext(), line=1, column=25, multiple=8).transform_module(once)
    assert once.code == "x = keras.layers.Conv2D(32, 3)(x)\n" and twice.code == once.code
