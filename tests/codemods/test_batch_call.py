"""CallOnBatch: exact output, the dataset arguments dropped in each layout, and a second run changes nothing."""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext, CodemodTest

from advisor.codemods.batch_call import CallOnBatch


class TestCallOnBatch(CodemodTest):
    TRANSFORM = CallOnBatch

    def test_predict_drops_its_verbosity(self) -> None:
        before = """
            q = model.predict(state[np.newaxis], verbose=0)[0]
        """
        after = """
            q = model.predict_on_batch(state[np.newaxis])[0]
        """
        self.assertCodemod(before, after, line=1, column=11)

    def test_fit_drops_epochs_and_verbosity_and_keeps_sample_weights(self) -> None:
        before = """
            self.model.fit(state, target_f, epochs=1, verbose=0, sample_weight=weights)
        """
        after = """
            self.model.train_on_batch(state, target_f, sample_weight=weights)
        """
        self.assertCodemod(before, after, line=1, column=12)

    def test_one_argument_per_line_keeps_its_layout_and_trailing_comma(self) -> None:
        before = """
            model.fit(
                x,
                y,
                verbose=0,
            )
        """
        after = """
            model.train_on_batch(
                x,
                y,
            )
        """
        self.assertCodemod(before, after, line=1, column=7)

    def test_only_the_call_at_the_target_changes(self) -> None:
        before = """
            model.predict(a)
            model.predict(b, verbose=0)
        """
        after = """
            model.predict(a)
            model.predict_on_batch(b)
        """
        self.assertCodemod(before, after, line=2, column=7)


def test_a_second_run_changes_nothing() -> None:
    code = "model.fit(\n    x,\n    y,\n    verbose=0,\n)\n"
    once = CallOnBatch(CodemodContext(), line=1, column=7).transform_module(cst.parse_module(code))
    twice = CallOnBatch(CodemodContext(), line=1, column=7).transform_module(once)
    assert "train_on_batch(\n    x,\n    y,\n)" in once.code and twice.code == once.code
    cst.parse_module(twice.code)
