"""TFC001: a Keras model or a TensorFlow 1.x graph trained in float32 where the accelerator has 16-bit units."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from advisor.codemods.mixed_precision import EnableMixedPrecision
from advisor.rule import (GRADIENT_TAPE, Applicability, CallSite, Confidence, Evidence, Example, Finding,
                          FixAvailability, MixedPrecisionPlan, ModelCompute, ModelConstruction, ModuleInfo,
                          PrecisionSetting, Rule, RuleContext, SourceQueries, TensorflowPin, Verdict, anchor,
                          environment_steps, typical)

# The TensorFlow each piece of advice needs: Keras' mixed-precision API (experimental in 2.1-2.3), the names the
# patch writes (`set_global_policy` from 2.4, Keras 3's `LossScaleOptimizer.scale_loss` from 2.16), TF1's graph
# rewrite.
KERAS_POLICY_SINCE = (2, 1)
SET_GLOBAL_POLICY_SINCE = (2, 4)
SCALE_LOSS_SINCE = (2, 16)
GRAPH_REWRITE_SINCE = (1, 14)
POLICY = {"tpu": "mixed_bfloat16"}
POLICY_DEVICES = frozenset({"gpu", "tpu"})
DEFAULT_POLICY = "mixed_float16"


class MixedPrecision(Rule):
    code = "TFC001"
    name = "mixed-precision"
    title = "Model trains in float32 without a mixed-precision policy"
    rationale = (
        "GPU tensor cores and TPU matrix units multiply 16-bit numbers several times faster than 32-bit ones, "
        "and 16-bit activations halve memory traffic. Keras computes in float32 unless a mixed-precision policy "
        "is set before the layers are built (variables stay float32 either way); a TensorFlow 1.x graph turns it "
        "on by wrapping its optimizer in the automatic mixed-precision graph rewrite (or, on TPUs, by building "
        "the model in a bfloat16 scope). On CPUs mixed precision is usually slower, so the finding needs a "
        "GPU/TPU capture, `target-device`, or a model big enough to be trained on an accelerator."
    )
    fix = ('Set `keras.mixed_precision.set_global_policy("mixed_float16")` ("mixed_bfloat16" on TPUs) before the '
           'model is built, and give a visible output layer `dtype="float32"`. A custom GradientTape loop must '
           "also scale the loss: wrap the optimizer in `keras.mixed_precision.LossScaleOptimizer` and take the "
           "gradient of `optimizer.scale_loss(loss)` inside the tape.")
    fix_availability = FixAvailability.SOMETIMES
    fix_applicability = Applicability.UNSAFE
    why_unsafe = ("Changes the numerics: float16 overflows above 65504 and underflows small gradients, so custom "
                  "loops need loss scaling (Keras `fit` adds it by itself); outputs and losses should stay float32.")
    speedup_model = ("Amdahl: the fp32 device compute share runs ~2.5x faster on GPU tensor cores (1.3x on TPUs); "
                     "a typical range without a device capture.")
    valid = (
        Example("""
            import tensorflow as tf
            optimizer = tf.train.experimental.enable_mixed_precision_graph_rewrite(tf.train.AdamOptimizer(1e-3))
            train_op = optimizer.minimize(loss)
            """, note="TensorFlow 1.x's automatic mixed precision"),
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
            import tensorflow as tf

            def network(images):
                x = images
                for filters in (64, 128, 256, 512):
                    x = tf.layers.conv2d(x, filters, 3, activation=tf.nn.relu)
                return tf.layers.dense(tf.layers.flatten(x), 10)

            loss = tf.losses.sparse_softmax_cross_entropy(labels, network(images))
            train_op = tf.train.AdamOptimizer(1e-3).minimize(loss)
            with tf.Session() as sess:
                for _ in range(10000):
                    sess.run(train_op)
            """, line=10, note="a TensorFlow 1.x graph: the automatic mixed-precision graph rewrite wraps its optimizer"),
        Example("""
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.layers.Conv2D(64, 3), tf.keras.layers.Conv2D(128, 3),
                                         tf.keras.layers.Conv2D(256, 3), tf.keras.layers.Conv2D(512, 3),
                                         tf.keras.layers.GlobalAveragePooling2D(), tf.keras.layers.Dense(10)])
            model.compile("adam", "sparse_categorical_crossentropy")
            model.fit(dataset, epochs=10)
            """, line=3, files={"requirements.txt": "tensorflow==2.3.1\n"},
            note="the repo pins TensorFlow 2.3, which has no `set_global_policy`: no patch, and the finding says how "
                 "2.3 spells it"),
        Example("""
            import tensorflow as tf

            strategy = tf.distribute.TPUStrategy(tf.distribute.cluster_resolver.TPUClusterResolver())
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.layers.Conv2D(64, 3), tf.keras.layers.Conv2D(128, 3),
                                             tf.keras.layers.Conv2D(256, 3), tf.keras.layers.Conv2D(512, 3),
                                             tf.keras.layers.GlobalAveragePooling2D(), tf.keras.layers.Dense(10)])
                model.compile("adam", "sparse_categorical_crossentropy")
            model.fit(dataset, epochs=10)
            """, line=5, fixed="""
            import tensorflow as tf

            strategy = tf.distribute.TPUStrategy(tf.distribute.cluster_resolver.TPUClusterResolver())
            tf.keras.mixed_precision.set_global_policy("mixed_bfloat16")
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.layers.Conv2D(64, 3), tf.keras.layers.Conv2D(128, 3),
                                             tf.keras.layers.Conv2D(256, 3), tf.keras.layers.Conv2D(512, 3),
                                             tf.keras.layers.GlobalAveragePooling2D(), tf.keras.layers.Dense(10, dtype="float32")])
                model.compile("adam", "sparse_categorical_crossentropy")
            model.fit(dataset, epochs=10)
            """, note="the code sets up a TPU: TPUs compute in bfloat16"),
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

            def conv_block(x, filters, downsample):
                if downsample:
                    x = tf.keras.layers.Conv2D(filters, 3, strides=2)(x)
                return tf.keras.layers.Conv2D(filters, 3)(x)

            def build():
                \"\"\"The classifier.\"\"\"
                inputs = tf.keras.Input(shape=(32, 32, 3))
                x = conv_block(tf.keras.layers.Dense(16)(inputs), 16, downsample=True)
                outputs = tf.keras.layers.Dense(10)(tf.keras.layers.Flatten()(x))
                return tf.keras.Model(inputs, outputs)

            model = build()
            model.fit(x, y)
            """, line=13, fixed="""
            import tensorflow as tf

            def conv_block(x, filters, downsample):
                if downsample:
                    x = tf.keras.layers.Conv2D(filters, 3, strides=2)(x)
                return tf.keras.layers.Conv2D(filters, 3)(x)

            def build():
                \"\"\"The classifier.\"\"\"
                tf.keras.mixed_precision.set_global_policy("mixed_float16")
                inputs = tf.keras.Input(shape=(32, 32, 3))
                x = conv_block(tf.keras.layers.Dense(16)(inputs), 16, downsample=True)
                outputs = tf.keras.layers.Dense(10, dtype="float32")(tf.keras.layers.Flatten()(x))
                return tf.keras.Model(inputs, outputs)

            model = build()
            model.fit(x, y)
            """, note="functional model: the policy goes at the top of the builder the training calls, never into "
                      "a per-layer helper; the layer whose output is the model's output stays float32"),
        Example("""
            import tensorflow as tf

            class Net(tf.keras.Model):
                def __init__(self):
                    super().__init__()
                    self.hidden = tf.keras.layers.Dense(64, activation="relu")
                    self.classifier = tf.keras.layers.Dense(10)

                def call(self, x):
                    return self.classifier(self.hidden(x))

            model = Net()
            model.compile(optimizer="adam", loss="mse")
            """, line=12, fixed="""
            import tensorflow as tf

            class Net(tf.keras.Model):
                def __init__(self):
                    super().__init__()
                    self.hidden = tf.keras.layers.Dense(64, activation="relu")
                    self.classifier = tf.keras.layers.Dense(10, dtype="float32")

                def call(self, x):
                    return self.classifier(self.hidden(x))

            tf.keras.mixed_precision.set_global_policy("mixed_float16")
            model = Net()
            model.compile(optimizer="adam", loss="mse")
            """, note="subclassed model: the last layer `call` applies stays float32"),
        Example("""
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.layers.Dense(64, activation="relu"), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.Adam(1e-3)

            @tf.function
            def train_step(x, y):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                return loss

            for x, y in dataset:
                train_step(x, y)
            """, line=3, fixed="""
            import tensorflow as tf

            tf.keras.mixed_precision.set_global_policy("mixed_float16")
            model = tf.keras.Sequential([tf.keras.layers.Dense(64, activation="relu"), tf.keras.layers.Dense(1, dtype="float32")])
            optimizer = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.Adam(1e-3))

            @tf.function
            def train_step(x, y):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
                    scaled_loss = optimizer.scale_loss(loss)
                grads = tape.gradient(scaled_loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                return loss

            for x, y in dataset:
                train_step(x, y)
            """, note="a custom loop: its optimizer becomes a LossScaleOptimizer and the tape differentiates the "
                      "scaled loss (apply_gradients unscales the gradients)"),
        Example("""
            import tensorflow as tf
            from model import Net

            model = Net()
            model.compile(optimizer="adam", loss="mse")
            """, line=4, files={"model.py": """
            import tensorflow as tf

            class Net(tf.keras.Model):
                def __init__(self):
                    super().__init__()
                    self.classifier = tf.keras.layers.Dense(10)

                def call(self, x):
                    return self.classifier(x)
            """}, note="the policy belongs in example.py and the float32 output layer in model.py: no patch, and "
                       "the finding says why"),
        Example("""
            import tensorflow as tf

            def train(optimizer, dataset):
                model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
                for x, y in dataset:
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean(tf.square(model(x) - y))
                    grads = tape.gradient(loss, model.trainable_variables)
                    optimizer.apply_gradients(zip(grads, model.trainable_variables))
            """, line=4, note="the optimizer comes from the caller: advisor cannot wrap it for loss scaling, so no "
                              "patch"),
    )

    def check(self, ctx: RuleContext) -> Iterable[Finding]:
        queries = ctx.queries
        if ctx.target_device == "cpu" or not queries.trains:
            return
        for construction in queries.model_constructions:
            setting = queries.mixed_precision_set_for(construction)
            if setting.policy_set:
                continue
            carrier = _heavy_partner(queries, construction)
            if carrier is not None and carrier.dense_head:
                continue  # the backbone's finding covers the steps both train: one policy serves the two
            compute = queries.model_compute(construction)
            tf1 = queries.keras_on_tf1(construction)
            verdict, policy = self._verdict(ctx, construction, compute, setting,
                                            KERAS_POLICY_SINCE if tf1 is None else GRAPH_REWRITE_SINCE, carrier)
            if verdict is None:
                return  # the capture already computes in 16 bits
            if tf1 is not None and policy == DEFAULT_POLICY:
                yield self._tf1_keras_finding(ctx, construction, verdict, tf1)
            else:
                yield self._finding(ctx, construction, verdict, policy, compute)
        for training in queries.graph_trainings:
            setting = queries.mixed_precision_set_for(training)
            if setting.policy_set:
                continue
            verdict, policy = self._verdict(ctx, training, queries.graph_model_compute(training), setting,
                                            GRAPH_REWRITE_SINCE)
            if verdict is None:
                return
            yield self._graph_finding(ctx, training, verdict, policy)

    @staticmethod
    def _verdict(ctx: RuleContext, site: CallSite, compute: ModelCompute, setting: PrecisionSetting,
                 api_since: tuple[int, int], carrier: _Carrier | None = None) -> tuple[Verdict | None, str]:
        """How sure the finding at ``site`` is, and the policy it proposes; None when the capture already computes
        in 16 bits. ``setting``: where the repo turns mixed precision on, if it does, off the way of this training
        or behind a flag off by default; ``api_since``: the TensorFlow release the advice needs; ``carrier``: a
        model the same steps train, heavy where this one is not (:func:`_heavy_partner`)."""
        hardware = ctx.target_device
        # Without a configured or captured device, code that sets up a TPU beside the model trains there.
        tpu = ctx.queries.tpu_training([site.module], run_by=site) if hardware is None else None
        policy = POLICY.get("tpu" if tpu is not None else hardware, DEFAULT_POLICY)
        # Likely where the training is known to run on an accelerator (configured, or the capture's), or where the
        # model is big enough to keep 16-bit units busy (a model that size is trained on one); a small model on
        # unknown hardware may gain nothing.
        confidence = Confidence.LIKELY if hardware in POLICY_DEVICES or compute.heavy else Confidence.POSSIBLE
        size = ("the model is compute-heavy: " if compute.heavy else "the model may be too small to gain: ") + \
            compute.describe()
        environment = ctx.queries.acting_environment(site) if hardware is None else None
        flag = setting.off_by_default
        if flag is not None:
            setting_found = (f"mixed precision only where the source turns it on ({setting.elsewhere.display}), "
                             f"under `{flag.test}` ({flag.location.display}), which is {flag.value} with the defaults "
                             "the source sets: a run with them computes in float32; turning it on is the change")
        else:
            where = "anywhere in the repo" if setting.elsewhere is None else \
                f"in the code this training runs (the one at {setting.elsewhere.display} is not on its way)"
            setting_found = ("no mixed-precision policy (set_global_policy, a \"mixed_\" dtype, the graph rewrite) "
                             f"{where}")
        evidence = [Evidence.source(setting_found), Evidence.source(size)]
        if tpu is not None:
            evidence.append(Evidence.source(f"trains on a TPU: `{tpu.module.node_code(tpu.node.func)}` "
                                            f"({tpu.module.location(tpu.node).display})"))
        if compute.frozen is not None:
            # Only its forward pass would run in 16 bits, and steps that train a head alone are often input-bound.
            confidence = Confidence.POSSIBLE
            evidence.append(Evidence.source(f"its `{compute.application}` is frozen (`{compute.frozen}`) and trained "
                                            "no further: only the layers on top learn, so 16 bits would speed up its "
                                            "forward pass alone, and such steps often wait for their input"))
        if compute.heavy_by_dense_layers and ctx.queries.eagerly_trained(site):
            # Eager steps dispatch every op from Python: a model whose size is a count of its dense layers (a
            # two-layer transformer on short utterances counts as many as a big one) may wait on that more than on
            # its math.
            confidence = Confidence.POSSIBLE
            evidence.append(Evidence.source("its training step runs eagerly (no `tf.function`), dispatching every "
                                            "op from Python: compile the step first (TFH002), then its dense layers' "
                                            "work decides"))
        placement = (ctx.queries.cpu_placement(site.module, site.node) or ctx.queries.trained_on_cpu(site)
                     if hardware is None else None)
        if placement is not None:
            confidence = Confidence.POSSIBLE
            evidence.append(Evidence.source(f"placed on the CPU (`{site.module.node_code(placement)}`), which has no "
                                            "16-bit units to gain from"))
        hidden = ctx.queries.gpus_hidden_for(site) if hardware is None else None
        if hidden is not None:
            confidence = Confidence.POSSIBLE
            module, setting = hidden
            evidence.append(Evidence.source(f"the program hides every GPU (`{module.node_code(setting).strip()}`, "
                                            f"{module.location(setting).display}): as written it trains on the CPU, "
                                            "which has no 16-bit units to gain from"))
        if environment is not None:
            # Reinforcement learning: updates are small batches between environment steps the host runs in Python.
            confidence = Confidence.POSSIBLE
            evidence.append(environment_steps(environment, "the device often waits on it, whatever the precision"))
        # Keras' policy and its loss scaling are TensorFlow 2's, and 1.x's graph rewrite needs a graph.
        tf1_eager = ctx.queries.tf1_eager_execution(site.module) if api_since == KERAS_POLICY_SINCE else None
        if tf1_eager is not None:
            confidence = Confidence.POSSIBLE
            evidence.append(Evidence.source(
                f"this code runs TensorFlow 1.x eagerly (`{site.module.node_code(tf1_eager.node).strip()}`, "
                f"{site.module.location(tf1_eager.node).display}): Keras' mixed-precision policy and loss scaling "
                f"need TensorFlow {api_since[0]}.{api_since[1]}, and 1.x's graph rewrite applies to graphs only"))
        if carrier is not None:
            # One global policy serves every model of the steps: the heavy model's finding is the one to act on.
            confidence = Confidence.POSSIBLE
            own, heavy = carrier.small, carrier.site
            evidence.append(Evidence.source(
                f"on its own it makes {own.convolutions} convolution and {own.dense} dense layers of the sizes counted "
                f"above; the model built at {heavy.module.location(heavy.node).display}, which the same steps "
                "train, is the heavy one, and the policy its finding proposes covers this model too"))
        legacy = ctx.queries.legacy_keras_training(site) if api_since == KERAS_POLICY_SINCE else None
        if legacy is not None:
            # Keras 1's arguments run on multi-backend Keras 2.3 at the newest, which has no mixed precision; a
            # heavy model is still worth the port (the labelled SSD300 and wide ResNets), so the finding keeps its
            # confidence and loses its patch (see _finding).
            call, keyword = legacy
            evidence.append(Evidence.source(
                f"the code is written for multi-backend Keras 2.3 or older (`{keyword}=` in "
                f"`{call.module.node_code(call.node.func)}`, {call.module.location(call.node).display}), which has "
                "no mixed-precision policy: it needs porting to TensorFlow 2's Keras first"))
        pin = ctx.index.tensorflow_pin(site.module)
        if tf1_eager is None and pin is not None and pin.predates(api_since):
            # Upgrading TensorFlow comes first: a bigger change than the finding's, which it cannot promise.
            confidence = Confidence.POSSIBLE
            evidence.append(Evidence.source(f"the repo declares {pin.describe()}, older than the TensorFlow "
                                            f"{api_since[0]}.{api_since[1]} this needs"))
        return ctx.verdicts.device_precision(Verdict(confidence, typical("mixed_precision"), tuple(evidence))), policy

    def _graph_finding(self, ctx: RuleContext, training: CallSite, verdict: Verdict, policy: str) -> Finding:
        """A TensorFlow 1.x graph: no Keras policy there; the optimizer or the model's scope turns 16 bits on."""
        # A graph built through tf.compat.v1 runs on TensorFlow 2, which spells the rewrite under compat.v1.
        rewrite = "tf.train.experimental" if ctx.queries.calls_tf1_api(training.module) else \
            "tf.compat.v1.mixed_precision"
        gradients = ctx.queries.symbolic_gradients(training)
        # The rewrite applies to the sessions made after it (TensorFlow's documentation), and scales the losses
        # the wrapped optimizer differentiates.
        on_gpu = (f"on a GPU, wrap the optimizer before this update and before the session is made, `optimizer = "
                  f"{rewrite}.enable_mixed_precision_graph_rewrite(optimizer)` (TensorFlow 1.14+: float16 where it is "
                  "safe, with loss scaling; sessions made earlier keep float32)" + (
                      f", and take the gradients from it (`optimizer.compute_gradients(loss)`) instead of "
                      f"`{training.module.node_code(gradients.node.func)}` "
                      f"({gradients.module.location(gradients.node).line_label}), which its loss scaling does not "
                      "reach" if gradients is not None else ""))
        on_tpu = ("on a TPU, build the model under `tf.contrib.tpu.bfloat16_scope()` (bfloat16 activations, float32 "
                  "variables) and cast its outputs to float32")
        advice = on_tpu if ctx.target_device == "tpu" else f"{on_gpu}; {on_tpu}" if policy == "mixed_bfloat16" \
            else on_gpu
        message = (f"The graph this update trains computes in float32: to run its matrix multiplications and "
                   f"convolutions on 16-bit hardware units, {advice}. No automatic patch: the change is TensorFlow "
                   f"1.x's, not a Keras policy.")
        module, node = training.module, training.node
        return self.finding(module, anchor(node), message, verdict, reach=ctx.queries.reach(module, node),
                            end_node=node)

    def _tf1_keras_finding(self, ctx: RuleContext, construction: CallSite, verdict: Verdict, tf1: CallSite
                           ) -> Finding:
        """Keras on TensorFlow 1.x: no policy there; 1.x's graph rewrite wraps the optimizer Keras is given."""
        module, node = construction.module, construction.node
        message = ("The model built here computes in float32, on TensorFlow 1.x "
                   f"(`{tf1.module.node_code(tf1.node.func)}`, {tf1.module.location(tf1.node).display}), where Keras "
                   "has no mixed-precision policy: to run its matrix multiplications and convolutions on a GPU's "
                   "16-bit units, wrap the optimizer given to `compile` in "
                   "`tf.train.experimental.enable_mixed_precision_graph_rewrite(optimizer)` before Keras' session "
                   "is made (TensorFlow 1.14+: float16 where it is safe, with loss scaling; it takes a `tf.keras` or "
                   "`tf.train` optimizer, so multi-backend Keras' optimizers need `tf.keras` first). No automatic "
                   "patch: the change is TensorFlow 1.x's, not a Keras policy.")
        return self.finding(module, anchor(node), message, verdict, reach=ctx.queries.reach(module, node),
                            end_node=node)

    def _finding(self, ctx: RuleContext, construction: CallSite, verdict: Verdict, policy: str,
                 compute: ModelCompute) -> Finding:
        queries = ctx.queries
        plans = queries.mixed_precision_plans(scale_losses=policy == "mixed_float16")
        plan = next((p for p in plans if any(_builds(model, construction) for model in p.models)), None) or \
            next((p for p in plans if p.training is construction.module), None)
        module, node = construction.module, construction.node
        message = (f"The model built here computes in float32: `{policy}` would run its matrix multiplications "
                   "and convolutions on 16-bit hardware units.")
        problem = plan.problem if plan is not None else (
            f"`{compute.application}` builds its layers in its library, so no edit can keep its outputs in float32: "
            "set the policy before this line and cast the outputs to float32 for the loss"
            if compute.application is not None else "advisor cannot tell which model the training builds")
        training = plan.training if plan is not None else module
        pin = ctx.index.tensorflow_pin(training)
        if problem is None and queries.legacy_keras_training(construction) is not None:
            problem = "the code is written for multi-backend Keras 2.3 or older, which has no `keras.mixed_precision`"
        problem = problem or _missing_api(pin, plan)
        if policy == "mixed_float16" and any(call.module is training for call in ctx.index.calls_to(GRADIENT_TAPE)):
            message += (" Its GradientTape loop also needs loss scaling, which the fix adds."
                        if problem is None and plan.loss_scaling else
                        " Its GradientTape loop also needs loss scaling: wrap its optimizer in `LossScaleOptimizer` "
                        "and differentiate " + ("`optimizer.get_scaled_loss(loss)` inside the tape, then unscale the "
                                                "gradients with `optimizer.get_unscaled_gradients`"
                                                if pin is not None and pin.predates(SCALE_LOSS_SINCE) else
                                                "`optimizer.scale_loss(loss)` inside the tape") + ".")
        reach = queries.reach(module, node)
        if problem is not None:
            message += f" No automatic patch: {problem}."
            return self.finding(module, anchor(node), message, verdict, reach=reach, end_node=node)
        return self.finding(module, anchor(node), message, verdict, reach=reach, codemod=EnableMixedPrecision,
                            fix_args=_fix_args(plan, policy), end_node=node)


@dataclass(frozen=True)
class _Carrier:
    """A model heavy on its own that the same steps train as a small one: its finding proposes the one policy both
    need."""

    site: CallSite
    heavy: ModelCompute  # its own work
    small: ModelCompute  # the small model's own work

    @property
    def dense_head(self) -> bool:
        """The small model is a head of dense layers on the carrier's convolutional network (a self-supervised
        encoder's projection head): nothing of its own for 16 bits to speed up."""
        return not self.small.convolutions and self.small.application is None and bool(
            self.heavy.convolutions or self.heavy.application)


def _heavy_partner(queries: SourceQueries, construction: CallSite) -> _Carrier | None:
    """A model the steps that train the model built at ``construction`` train too, heavy on its own where that one
    is small (a GAN's generator beside a discriminator of a few narrow convolutions), with no policy of its own. A
    model of real work of its own (a PatchGAN's 64-512-filter convolutions) keeps its finding."""
    partners = queries.trained_with(construction)
    own = queries.model_compute(construction, alone=True) if partners else None
    if own is None or not own.small:
        return None  # (most models train alone: nothing else to carry the finding)
    for partner in partners:
        heavy = queries.model_compute(partner, alone=True)
        if heavy.heavy and not queries.mixed_precision_set_for(partner).policy_set:
            return _Carrier(partner, heavy, own)
    return None


def _missing_api(pin: TensorflowPin | None, plan: MixedPrecisionPlan) -> str | None:
    """Why the patch cannot run on the TensorFlow the repo declares, if it cannot: the names it writes came later."""
    if pin is None:
        return None
    if pin.predates(SET_GLOBAL_POLICY_SINCE):
        return (f"the repo declares {pin.describe()}, older than `set_global_policy` (TensorFlow 2.4); TensorFlow "
                "2.1-2.3 spell it `tf.keras.mixed_precision.experimental.set_policy`")
    if plan.loss_scaling and pin.predates(SCALE_LOSS_SINCE):
        return (f"the repo declares {pin.describe()}, whose LossScaleOptimizer has no `scale_loss` (Keras 3, "
                "TensorFlow 2.16)")
    return None


def _builds(model: ModelConstruction, construction: CallSite) -> bool:
    """Whether ``construction`` (where the finding points) builds ``model``: it is the model's construction, or a
    layer built in the function that constructs the model or in its builder."""
    if model.call is construction.node:
        return True
    function = construction.function
    if function is None:
        return model.scope is None and model.module is construction.module
    return any(owner is not None and owner.node is function.node for owner in (model.scope, model.builder))


def _position(module: ModuleInfo, node: object) -> list[int]:
    location = module.location(node)
    return [location.line, location.column]


def _fix_args(plan: MixedPrecisionPlan, policy: str) -> dict:
    """The codemod's arguments: positions in the one module the plan changes (JSON, for the saved analysis)."""
    return {
        "policy": policy,
        "policy_before": [_position(module, statement) for module, statement in plan.policy_before],
        "outputs": [[edit.kind, *_position(edit.module, anchor(edit.node) if edit.kind == "dtype" else edit.node)]
                    for edit in plan.outputs],
        "loss_scaling": [{"tape": _position(s.module, s.tape), "loss": s.loss,
                          "optimizer": s.module.node_code(s.optimizer), "gradient": _position(s.module, s.gradient),
                          "wrap_optimizer": _position(s.module, s.construction) if s.construction else None}
                         for s in plan.loss_scaling],
    }
