"""TFC001: a Keras model trained in float32 where the accelerator has 16-bit matrix units."""

from __future__ import annotations

from typing import Iterable

import libcst as cst
import libcst.matchers as m

from advisor import speedup
from advisor.codemods.base import anchor_of
from advisor.codemods.mixed_precision import EnableMixedPrecision
from advisor.model import Applicability, Confidence, Evidence, Finding, SpeedupEstimate
from advisor.rule import Example, Rule, RuleContext
from advisor.source.index import CallSite, ModuleInfo, SourceIndex


# Any of these, or a "mixed_..." policy string anywhere, means the repo already chose its precision.
MIXED_PRECISION_APIS = frozenset({
    "keras.mixed_precision.set_global_policy", "keras.mixed_precision.Policy", "keras.mixed_precision.DTypePolicy",
    "keras.mixed_precision.experimental.set_policy", "keras.mixed_precision.experimental.Policy",
    "keras.mixed_precision.LossScaleOptimizer", "keras.config.set_dtype_policy", "keras.DTypePolicy",
    "keras.dtype_policies.DTypePolicy", "tensorflow.train.experimental.enable_mixed_precision_graph_rewrite",
    "tensorflow.compat.v1.train.experimental.enable_mixed_precision_graph_rewrite",
})
MIXED_POLICIES = frozenset({"mixed_float16", "mixed_bfloat16"})
MODEL_CONSTRUCTORS = frozenset({"keras.Input", "keras.layers.Input", "keras.Sequential", "keras.models.Sequential",
                                "keras.Model", "keras.models.Model"})
MODEL_CONSTRUCTOR_PREFIXES = ("keras.layers.", "keras.applications.")
SEQUENTIAL = frozenset({"keras.Sequential", "keras.models.Sequential"})
OUTPUT_LAYERS = frozenset({"keras.layers.Dense", "keras.layers.Activation"})
POLICY = {"tpu": "mixed_bfloat16"}
DEFAULT_POLICY = "mixed_float16"
# How much faster the eligible (fp32 matmul/conv) device time runs in 16 bits: fp16 tensor cores do 2x the TF32
# rate on A100/H100 and far more than plain fp32 on V100; end-to-end, compute-bound layers gain 2-3x (TensorFlow's
# mixed precision guide). TPUs already multiply in bfloat16: the policy saves memory traffic, a smaller gain.
SPEEDUP_FACTOR = {"gpu": 2.5, "tpu": 1.3}
# Device compute already this much 16-bit means the capture ran mixed precision (set outside the source).
ALREADY_16BIT_PCT = 50.0


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
        index = ctx.index
        if hardware == "cpu" or _uses_mixed_precision(index) or not _trains(index):
            return
        construction = _first_model_construction(index)
        if construction is None:
            return
        confidence, estimate, evidence = _verdict(ctx.profile, hardware)
        if confidence is None:
            return
        policy = POLICY.get(hardware, DEFAULT_POLICY)
        module = construction.module
        evidence.insert(0, Evidence("source", "no mixed-precision policy (set_global_policy, a \"mixed_\" dtype) "
                                              "anywhere in the repo"))
        loops = list(index.calls_to("tensorflow.GradientTape"))
        message = (f"The model built here computes in float32: `{policy}` would run its matrix multiplications "
                   "and convolutions on 16-bit hardware units.")
        if loops and policy == "mixed_float16":
            where = loops[0].module.location(loops[0].node).display
            message += (f" The GradientTape loop ({where}) also needs loss scaling: wrap its optimizer in "
                        "`LossScaleOptimizer` and differentiate `optimizer.scale_loss(loss)` inside the tape.")
        output = _sequential_output_layer(module, construction.node)
        fix_args = {"policy": policy, "output_layer": _start(module, anchor_of(output)) if output else None}
        yield self.finding(module, anchor_of(construction.node), message, confidence=confidence,
                           evidence=evidence, speedup=estimate, codemod=EnableMixedPrecision, fix_args=fix_args,
                           end_node=construction.node)


def _uses_mixed_precision(index: SourceIndex) -> bool:
    if any(index.calls_to(*MIXED_PRECISION_APIS)):
        return True
    policy_string = m.SimpleString(value=m.MatchIfTrue(lambda v: v.strip("\"'") in MIXED_POLICIES))
    # The text test first: walking every tree with a matcher costs more than all other rules together.
    return any(m.findall(module.tree, policy_string) for module in index.modules
               if any(policy in module.code for policy in MIXED_POLICIES))


def _trains(index: SourceIndex) -> bool:
    """Keras training (``compile``/``fit``) or a custom loop (``tf.GradientTape``)."""
    trains = m.Attribute(attr=m.Name("fit") | m.Name("compile") | m.Name("train_on_batch"))
    return any(m.matches(c.node.func, trains) for c in index.calls) or any(index.calls_to("tensorflow.GradientTape"))


def _is_construction(site: CallSite) -> bool:
    # Layers built inside a class (a custom layer's __init__/build) are not where the program builds its model.
    if site.function is not None and site.function.class_key is not None:
        return False
    return bool(site.names & MODEL_CONSTRUCTORS) or any(n.startswith(MODEL_CONSTRUCTOR_PREFIXES) for n in site.names)


def _first_model_construction(index: SourceIndex) -> CallSite | None:
    """The first Keras layer or model construction, in a module that trains when there is one."""
    sites = [c for c in index.calls if _is_construction(c)]
    if not sites:
        return None
    trains = m.Attribute(attr=m.Name("fit") | m.Name("compile"))
    training_modules = {id(c.module) for c in index.calls if m.matches(c.node.func, trains)}
    return min(sites, key=lambda c: (id(c.module) not in training_modules, c.module.path.as_posix(),
                                     _start(c.module, c.node)))


def _sequential_output_layer(module: ModuleInfo, construction: cst.Call) -> cst.Call | None:
    """The last layer of ``Sequential([..., Dense(n)])`` when it is a Dense/Activation literal without a dtype."""
    if not module.qualified_names(construction.func) & SEQUENTIAL or not construction.args:
        return None
    layers = construction.args[0].value
    if not isinstance(layers, cst.List) or not layers.elements:
        return None
    last = layers.elements[-1].value
    if isinstance(last, cst.Call) and module.qualified_names(last.func) & OUTPUT_LAYERS \
            and not any(m.matches(arg.keyword, m.Name("dtype")) for arg in last.args):
        return last
    return None


def _start(module: ModuleInfo, node: cst.CSTNode) -> tuple[int, int]:
    location = module.location(node)
    return location.line, location.column


def _verdict(profile: object, hardware: str | None
             ) -> tuple[Confidence | None, SpeedupEstimate | None, list[Evidence]]:
    """Confidence, speedup and evidence from the capture's device data; None confidence: do not report."""
    device = profile.device if profile is not None else None
    if device is None:
        # No device capture: a static run, or a target device given without a capture of it.
        return Confidence.POSSIBLE, speedup.typical("mixed_precision"), []
    compute_pct, sixteen_pct = device.compute_share_pct, device.compute_16bit_pct
    eligible, used = device.tensor_core_eligible_ops, device.tensor_core_used_ops
    evidence = [Evidence("profile", f"device compute is {compute_pct:.0f}% of the step; "
                                    f"{eligible} tensor-core-eligible ops, {used} using tensor cores"
                                    + (f"; {sixteen_pct:.0f}% of device compute in 16-bit ops"
                                       if sixteen_pct is not None else ""),
                         {"compute_share_pct": compute_pct, "compute_16bit_pct": sixteen_pct,
                          "eligible": eligible, "used": used})]
    if sixteen_pct is not None and sixteen_pct >= ALREADY_16BIT_PCT:
        return None, None, evidence  # the capture already computes in 16 bits
    fp32_share = compute_pct / 100.0 * (1.0 - (sixteen_pct or 0.0) / 100.0)
    estimate = speedup.amdahl(fp32_share, SPEEDUP_FACTOR.get(hardware or "gpu", SPEEDUP_FACTOR["gpu"]),
                              "fp32 device compute")
    confidence = Confidence.CONFIRMED if eligible > used else Confidence.LIKELY
    return confidence, estimate, evidence
