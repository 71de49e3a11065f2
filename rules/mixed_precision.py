"""TFC001: a Keras model trained in float32 where the accelerator has 16-bit matrix units."""

from __future__ import annotations

from typing import Iterable

from advisor.codemods.mixed_precision import EnableMixedPrecision
from advisor.rule import (GRADIENT_TAPE, Applicability, Confidence, Evidence, Example, Finding, FixAvailability, Rule,
                          RuleContext, Verdict, anchor, typical)

POLICY = {"tpu": "mixed_bfloat16"}
DEFAULT_POLICY = "mixed_float16"


class MixedPrecision(Rule):
    code = "TFC001"
    name = "mixed-precision"
    title = "Model trains in float32 without a mixed-precision policy"
    rationale = (
        "GPU tensor cores and TPU matrix units multiply 16-bit numbers several times faster than 32-bit ones, "
        "and 16-bit activations halve memory traffic. Keras computes in float32 unless a mixed-precision policy "
        "is set before the layers are built (variables stay float32 either way). On CPUs mixed precision is "
        "usually slower, so the finding needs a GPU/TPU capture or `target-device` to be more than possible."
    )
    fix = ('Set `keras.mixed_precision.set_global_policy("mixed_float16")` ("mixed_bfloat16" on TPUs) before the '
           'model is built, and give a visible output layer `dtype="float32"`. A custom GradientTape loop must '
           "also scale the loss: wrap the optimizer in `keras.mixed_precision.LossScaleOptimizer` and take the "
           "gradient of `optimizer.scale_loss(loss)` inside the tape.")
    fix_availability = FixAvailability.ALWAYS
    fix_applicability = Applicability.UNSAFE
    why_unsafe = ("Changes the numerics: float16 overflows above 65504 and underflows small gradients, so custom "
                  "loops need loss scaling (Keras `fit` adds it by itself); outputs and losses should stay float32.")
    speedup_model = ("Amdahl: the fp32 device compute share runs ~2.5x faster on GPU tensor cores (1.3x on TPUs); "
                     "a typical range without a device capture.")
    valid = (
        Example("""
            import tensorflow as tf
            tf.keras.mixed_precision.set_global_policy("mixed_float16")
            model = tf.keras.Sequential([tf.keras.layers.Dense(64)])
            model.compile(optimizer="adam", loss="mse")
            """),
        Example("""
            import keras
            model = keras.Sequential([keras.layers.Dense(64, dtype="mixed_bfloat16")])
            model.fit(x, y)
            """, note="a per-layer policy"),
        Example("""
            import keras
            model = keras.Sequential([keras.layers.Dense(64)])
            model.predict(x)
            """, note="inference only"),
    )
    invalid = (
        Example("""
            from tensorflow import keras

            # The classifier.
            model = keras.Sequential([
                keras.layers.Dense(256, activation="relu"),
                keras.layers.Dense(10),
            ])
            model.compile(optimizer="adam", loss="mse")
            """, line=4, fixed="""
            from tensorflow import keras

            # The classifier.
            keras.mixed_precision.set_global_policy("mixed_float16")
            model = keras.Sequential([
                keras.layers.Dense(256, activation="relu"),
                keras.layers.Dense(10, dtype="float32"),
            ])
            model.compile(optimizer="adam", loss="mse")
            """),
        Example("""
            import tensorflow as tf

            def build():
                inputs = tf.keras.Input(shape=(32,))
                outputs = tf.keras.layers.Dense(1)(inputs)
                return tf.keras.Model(inputs, outputs)

            model = build()
            model.fit(x, y)
            """, line=4, fixed="""
            import tensorflow as tf

            def build():
                tf.keras.mixed_precision.set_global_policy("mixed_float16")
                inputs = tf.keras.Input(shape=(32,))
                outputs = tf.keras.layers.Dense(1)(inputs)
                return tf.keras.Model(inputs, outputs)

            model = build()
            model.fit(x, y)
            """, note="functional model: the policy goes before the first layer, inside the builder"),
    )

    def check(self, ctx: RuleContext) -> Iterable[Finding]:
        hardware = ctx.target_device
        queries = ctx.queries
        if hardware == "cpu" or queries.uses_mixed_precision or not queries.trains:
            return
        construction = queries.first_model_construction
        if construction is None:
            return
        verdict = ctx.verdicts.device_precision(Verdict(Confidence.POSSIBLE, typical("mixed_precision"), (
            Evidence.source("no mixed-precision policy (set_global_policy, a \"mixed_\" dtype) anywhere in the repo"),
        )))
        if verdict is None:
            return  # the capture already computes in 16 bits
        policy = POLICY.get(hardware, DEFAULT_POLICY)
        module = construction.module
        loops = list(ctx.index.calls_to(GRADIENT_TAPE))
        message = (f"The model built here computes in float32: `{policy}` would run its matrix multiplications "
                   "and convolutions on 16-bit hardware units.")
        if loops and policy == "mixed_float16":
            where = loops[0].module.location(loops[0].node).display
            message += (f" The GradientTape loop ({where}) also needs loss scaling: wrap its optimizer in "
                        "`LossScaleOptimizer` and differentiate `optimizer.scale_loss(loss)` inside the tape.")
        output = queries.sequential_output_layer(module, construction.node)
        output_at = module.location(anchor(output)) if output is not None else None
        fix_args = {"policy": policy, "output_layer": (output_at.line, output_at.column) if output_at else None}
        yield self.finding(module, anchor(construction.node), message, verdict, codemod=EnableMixedPrecision,
                           fix_args=fix_args, end_node=construction.node)
