"""EnableMixedPrecision: the policy before the statements it is asked to precede, spelled as the module spells keras;
float32 outputs; loss scaling in custom loops (where each goes is decided by SourceQueries.mixed_precision_plans)."""

from __future__ import annotations

from libcst.codemod import CodemodTest

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
        self.assertCodemod(before, after, line=2, column=11, policy="mixed_float16", policy_before=[(2, 1)],
                           outputs=[("dtype", 2, 52)])

    def test_top_of_a_builder_spelled_through_tensorflow_and_a_wrapped_output(self) -> None:
        before = """
            import tensorflow as tf

            def build():
                inputs = tf.keras.Input(shape=(8,))
                return tf.keras.Model(inputs, Head()(inputs))
        """
        after = """
            import tensorflow as tf

            def build():
                tf.keras.mixed_precision.set_global_policy("mixed_bfloat16")
                inputs = tf.keras.Input(shape=(8,))
                return tf.keras.Model(inputs, tf.keras.layers.Activation("linear", dtype="float32")(Head()(inputs)))
        """
        self.assertCodemod(before, after, line=5, column=21, policy="mixed_bfloat16", policy_before=[(4, 5)],
                           outputs=[("wrap", 5, 35)])

    def test_keras_imported_when_the_module_has_no_spelling_of_it(self) -> None:
        before = """
            from tensorflow.keras.layers import Conv2D, Input
            x = Input((8, 8, 1))
            y = Conv2D(2, 1)(x)
        """
        after = """
            from tensorflow.keras.layers import Conv2D, Input
            import keras

            keras.mixed_precision.set_global_policy("mixed_float16")
            x = Input((8, 8, 1))
            y = Conv2D(2, 1, dtype="float32")(x)
        """
        # The layer's application starts where its construction does: only the construction gets the dtype.
        self.assertCodemod(before, after, line=3, column=5, policy="mixed_float16", policy_before=[(2, 1)],
                           outputs=[("dtype", 3, 5)])

    def test_loss_scaling_of_two_tapes_in_one_block(self) -> None:
        before = """
            import tensorflow as tf
            g_opt = tf.keras.optimizers.Adam(1e-4)
            d_opt = tf.keras.optimizers.Adam(1e-4)

            def step(x):
                with tf.GradientTape() as g_tape, tf.GradientTape() as d_tape:
                    g_loss = gen_loss(x)
                    d_loss = disc_loss(x)

                g_grads = g_tape.gradient(g_loss, gen.trainable_variables)
                d_grads = d_tape.gradient(d_loss, disc.trainable_variables)
                g_opt.apply_gradients(zip(g_grads, gen.trainable_variables))
                d_opt.apply_gradients(zip(d_grads, disc.trainable_variables))
        """
        after = """
            import tensorflow as tf
            g_opt = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.Adam(1e-4))
            d_opt = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.Adam(1e-4))

            def step(x):
                with tf.GradientTape() as g_tape, tf.GradientTape() as d_tape:
                    g_loss = gen_loss(x)
                    d_loss = disc_loss(x)
                    scaled_g_loss = g_opt.scale_loss(g_loss)
                    scaled_d_loss = d_opt.scale_loss(d_loss)

                g_grads = g_tape.gradient(scaled_g_loss, gen.trainable_variables)
                d_grads = d_tape.gradient(scaled_d_loss, disc.trainable_variables)
                g_opt.apply_gradients(zip(g_grads, gen.trainable_variables))
                d_opt.apply_gradients(zip(d_grads, disc.trainable_variables))
        """
        scaling = [{"tape": (6, 5), "loss": "g_loss", "optimizer": "g_opt", "gradient": (10, 15),
                    "wrap_optimizer": (2, 9)},
                   {"tape": (6, 5), "loss": "d_loss", "optimizer": "d_opt", "gradient": (11, 15),
                    "wrap_optimizer": (3, 9)}]
        self.assertCodemod(before, after, line=2, column=1, policy="mixed_float16", loss_scaling=scaling)

    def test_an_output_layer_with_a_dtype_is_left_alone(self) -> None:
        before = """
            from tensorflow import keras
            m = keras.Sequential([keras.layers.Dense(1, dtype="float32")])
        """
        after = """
            from tensorflow import keras
            keras.mixed_precision.set_global_policy("mixed_float16")
            m = keras.Sequential([keras.layers.Dense(1, dtype="float32")])
        """
        self.assertCodemod(before, after, line=2, column=11, policy="mixed_float16", policy_before=[(2, 1)],
                           outputs=[("dtype", 2, 36)])
