"""ThrottleBatchHook and TensorBoardUpdatePerEpoch: exact output, parsable, and a second run changes nothing."""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext, CodemodTest

from advisor.codemods.throttle_callback import TensorBoardUpdatePerEpoch, ThrottleBatchHook

HOOK = """
class Logger(keras.callbacks.Callback):
    def on_train_batch_end(self, batch, logs=None):
        print(batch)
"""


class TestThrottleBatchHook(CodemodTest):
    TRANSFORM = ThrottleBatchHook

    def test_guard_goes_first(self) -> None:
        after = """
            class Logger(keras.callbacks.Callback):
                def on_train_batch_end(self, batch, logs=None):
                    if batch % 25 != 0:
                        return
                    print(batch)
        """
        self.assertCodemod(HOOK, after, line=2, column=9, every=25)

    def test_guard_follows_the_docstring_and_uses_the_parameter_name(self) -> None:
        before = '''
            class Logger(keras.callbacks.Callback):
                def on_batch_end(self, i, logs=None):
                    """Write the loss."""
                    print(i)
        '''
        after = '''
            class Logger(keras.callbacks.Callback):
                def on_batch_end(self, i, logs=None):
                    """Write the loss."""
                    if i % 100 != 0:
                        return
                    print(i)
        '''
        self.assertCodemod(before, after, line=2, column=9, every=100)

    def test_other_functions_are_left_alone(self) -> None:
        self.assertCodemod(HOOK, HOOK, line=3, column=9, every=100)


class TestTensorBoardUpdatePerEpoch(CodemodTest):
    TRANSFORM = TensorBoardUpdatePerEpoch

    def test_update_freq_becomes_epoch(self) -> None:
        before = """
            import tensorflow as tf
            tb = tf.keras.callbacks.TensorBoard(
                log_dir="logs",
                update_freq="batch",
            )
        """
        after = """
            import tensorflow as tf
            tb = tf.keras.callbacks.TensorBoard(
                log_dir="logs",
                update_freq="epoch",
            )
        """
        self.assertCodemod(before, after, line=4, column=5)


def test_a_second_run_changes_nothing() -> None:
    # The throttled hook is no longer reported, so the codemod never runs on it twice; the TensorBoard one may.
    code = 'import keras\ntb = keras.callbacks.TensorBoard("logs", update_freq="batch")\n'
    once = TensorBoardUpdatePerEpoch(CodemodContext(), line=2, column=42).transform_module(cst.parse_module(code))
    twice = TensorBoardUpdatePerEpoch(CodemodContext(), line=2, column=42).transform_module(once)
    assert 'update_freq="epoch"' in once.code and twice.code == once.code
    cst.parse_module(twice.code)
