"""EnableMixedPrecision: the policy line before the target statement, spelled as the module spells keras."""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext, CodemodTest

from advisor.codemods.mixed_precision import EnableMixedPrecision


class TestEnableMixedPrecision(CodemodTest):
    TRANSFORM = EnableMixedPrecision

    def test_module_level_sequential_with_float32_output(self) -> None:
        before = """
            import keras as k
            model = k.Sequential([k.layers.Dense(64), k.layers.Dense(10)])
        """
        after = """
            import keras as k
            k.mixed_precision.set_global_policy("mixed_float16")
            model = k.Sequential([k.layers.Dense(64), k.layers.Dense(10, dtype="float32")])
        """
        self.assertCodemod(before, after, line=2, column=11, policy="mixed_float16", output_layer=(2, 52))

    def test_inside_a_builder_spelled_through_tensorflow(self) -> None:
        before = """
            import tensorflow as tf

            def build():
                if True:
                    inputs = tf.keras.Input(shape=(8,))
                return tf.keras.Model(inputs, inputs)
        """
        after = """
            import tensorflow as tf

            def build():
                if True:
                    tf.keras.mixed_precision.set_global_policy("mixed_bfloat16")
                    inputs = tf.keras.Input(shape=(8,))
                return tf.keras.Model(inputs, inputs)
        """
        self.assertCodemod(before, after, line=5, column=27, policy="mixed_bfloat16")

    def test_keras_imported_when_the_module_has_no_spelling_of_it(self) -> None:
        before = """
            from tensorflow.keras.layers import Dense
            layer = Dense(4)
        """
        after = """
            from tensorflow.keras.layers import Dense
            import keras

            keras.mixed_precision.set_global_policy("mixed_float16")
            layer = Dense(4)
        """
        self.assertCodemod(before, after, line=2, column=9, policy="mixed_float16")


def test_output_layer_with_a_dtype_is_left_alone_and_the_result_parses() -> None:
    code = 'from tensorflow import keras\nm = keras.Sequential([keras.layers.Dense(1, dtype="float32")])\n'
    new = EnableMixedPrecision(CodemodContext(), line=2, column=11, policy="mixed_float16",
                               output_layer=(2, 36)).transform_module(cst.parse_module(code))
    assert new.code == ('from tensorflow import keras\nkeras.mixed_precision.set_global_policy("mixed_float16")\n'
                        'm = keras.Sequential([keras.layers.Dense(1, dtype="float32")])\n')
    cst.parse_module(new.code)
