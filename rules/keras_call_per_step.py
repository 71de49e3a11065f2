"""TFH007: Keras' whole-dataset ``fit``/``predict``/``evaluate`` called on one batch per iteration of a loop."""

from __future__ import annotations

from typing import Iterable

import libcst as cst

from advisor.codemods.batch_call import DATASET_ARGUMENTS, ON_BATCH, CallOnBatch
from advisor.rule import (Applicability, Confidence, Evidence, Example, Finding, FixAvailability, PerStepKerasCall,
                          Rule, RuleContext, Verdict, argument_value, typical)

# TensorFlow 2.0 made Keras' fit/predict/evaluate build a data adapter and an iterator per call: the set-up the
# one-batch methods skip. TensorFlow 1.x's Keras (and Keras 2.2 on it) loops over the arrays directly.
DATA_ADAPTERS_SINCE = (2, 0)
# The arguments each one-batch method takes besides those it has no use for (DATASET_ARGUMENTS): a call passing
# others (callbacks, validation data) has no one-batch form.
ON_BATCH_ARGUMENTS = {"predict": {"x"}, "fit": {"x", "y", "sample_weight", "class_weight"}}


class KerasCallPerStep(Rule):
    code = "TFH007"
    name = "keras-call-per-step"
    title = "Keras fit or predict called on one batch per loop iteration"
    rationale = (
        "`fit`, `predict` and `evaluate` are made for datasets: every call wraps its input in an iterator, sets up "
        "callbacks and a progress bar, and only then runs the batches. Called once per iteration of a Python loop "
        "on that iteration's data (an agent acting on one state, a replay loop fitting one transition at a time), "
        "that set-up is the whole cost: measured in TensorFlow 2.21, 60-90 ms a call against about 1 ms for "
        "`predict_on_batch` or `train_on_batch` on one sample of a small model. The one-batch methods, or calling "
        "the model, run just the batch. TensorFlow 1.x's Keras has no such set-up (it loops over the arrays): code "
        "that runs there gets the finding at possible."
    )
    fix = ("Call `predict_on_batch(x)` for `predict(x)` and `train_on_batch(x, y)` for `fit(x, y)` (or call the "
           "model, `model(x, training=False)`, where a tensor will do).")
    fix_availability = FixAvailability.SOMETIMES
    fix_applicability = Applicability.UNSAFE
    why_unsafe = (
        "The one-batch methods run their input as a single batch: the same values as `predict`/`fit` on a batch of "
        "up to 32 rows (Keras' default batch size), but a larger input runs in one pass, and `fit`'s shuffling and "
        "progress output are gone. `train_on_batch` returns the loss, not a History: the fix is offered only where "
        "`fit`'s result is not used, for one epoch, without callbacks or validation data."
    )
    speedup_model = ("the set-up a whole-dataset call adds to one batch, measured against the one-batch method "
                     "(benchmarks/keras_call_overhead.py): most of an iteration whose model is small. Without a "
                     "profile, the typical range of that saving.")
    valid = (
        Example("""
            import numpy as np
            from tensorflow import keras

            model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(24), keras.layers.Dense(2)])
            model.compile(optimizer="adam", loss="mse")
            for epoch in range(100):
                model.fit(x_train, y_train, epochs=1, verbose=0)
            """, note="one epoch over the whole training set per call: the set-up is paid once per epoch"),
        Example("""
            import numpy as np
            from tensorflow import keras

            model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(24), keras.layers.Dense(2)])
            model.compile(optimizer="adam", loss="mse")
            for step in range(10000):
                state = env.reset()
                q_values = model.predict_on_batch(state[np.newaxis])[0]
            """, note="the one-batch method already"),
    )
    invalid = (
        Example("""
            import random
            from tensorflow import keras

            class Agent:
                def __init__(self):
                    self.memory = []
                    self.model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(24, activation="relu"),
                                                   keras.layers.Dense(2)])
                    self.model.compile(optimizer="adam", loss="mse")

                def replay(self, batch_size):
                    for state, target_f in random.sample(self.memory, batch_size):
                        self.model.fit(state, target_f, epochs=1, verbose=0)
            """, line=13, fixed="""
            import random
            from tensorflow import keras

            class Agent:
                def __init__(self):
                    self.memory = []
                    self.model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(24, activation="relu"),
                                                   keras.layers.Dense(2)])
                    self.model.compile(optimizer="adam", loss="mse")

                def replay(self, batch_size):
                    for state, target_f in random.sample(self.memory, batch_size):
                        self.model.train_on_batch(state, target_f)
            """, note="a DQN replaying its memory one transition at a time"),
        Example("""
            import numpy as np
            import tensorflow as tf
            from tensorflow import keras

            model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(32, activation="elu"),
                                      keras.layers.Dense(2)])
            optimizer = keras.optimizers.Adam()

            def epsilon_greedy_policy(state, epsilon):
                if np.random.rand() < epsilon:
                    return np.random.randint(2)
                return model.predict(state[np.newaxis], verbose=0)[0].argmax()

            def training_step(states, targets):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(model(states) - targets))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))

            for episode in range(600):
                state = env.reset()
                for step in range(200):
                    state, reward, done, info = env.step(epsilon_greedy_policy(state, 0.1))
                training_step(*replay_batch(32))
            """, line=12, fixed="""
            import numpy as np
            import tensorflow as tf
            from tensorflow import keras

            model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(32, activation="elu"),
                                      keras.layers.Dense(2)])
            optimizer = keras.optimizers.Adam()

            def epsilon_greedy_policy(state, epsilon):
                if np.random.rand() < epsilon:
                    return np.random.randint(2)
                return model.predict_on_batch(state[np.newaxis])[0].argmax()

            def training_step(states, targets):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(model(states) - targets))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))

            for episode in range(600):
                state = env.reset()
                for step in range(200):
                    state, reward, done, info = env.step(epsilon_greedy_policy(state, 0.1))
                training_step(*replay_batch(32))
            """, note="the policy predicts one state per environment step, in a function the loop calls; the "
                      "episodes train"),
        Example("""
            from tensorflow import keras

            model = keras.Sequential([keras.Input((784,)), keras.layers.Dense(10)])
            model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
            losses = []
            for images, labels in batches(x_train, y_train, 64):
                history = model.fit(images, labels, verbose=0)
                losses.append(history.history["loss"][0])
            """, line=7, note="one batch per call; its History is read, which `train_on_batch` does not return: "
                                "no automatic fix"),
    )

    def check(self, ctx: RuleContext) -> Iterable[Finding]:
        for call in ctx.queries.keras_calls_per_step:
            yield self._finding(ctx, call)

    def _finding(self, ctx: RuleContext, call: PerStepKerasCall) -> Finding:
        site = call.site
        method = site.node.func.attr.value
        loop = call.loop_module.location(call.loop).display
        evidence = [Evidence.source(f"its input is {call.data}")]
        tf1 = ctx.queries.tf1_call([site.module])
        pin = ctx.index.tensorflow_pin(site.module)
        legacy = ctx.queries.legacy_keras_call(site.module)
        graph = ctx.queries.eager_turned_off(site.module)
        without_adapters = tf1 is not None or legacy is not None or graph is not None or pin is not None and \
            pin.predates(DATA_ADAPTERS_SINCE)
        if without_adapters:
            if tf1 is not None:
                why = f"TensorFlow 1.x: `{tf1.module.node_code(tf1.node.func)}` " \
                    f"({tf1.module.location(tf1.node).display}) exists only there"
            elif graph is not None:
                why = f"TensorFlow 1.x's execution: `{graph.module.node_code(graph.node.func)}()` " \
                    f"({graph.module.location(graph.node).display}) turns eager execution off"
            elif legacy is not None:
                spelled, keyword = legacy
                why = f"multi-backend Keras 2.3 or older: `{spelled.module.node_code(spelled.node.func)}" \
                    f"({keyword}=...)` ({spelled.module.location(spelled.node).display}) is Keras 1's spelling"
            else:
                why = f"TensorFlow 1.x: the repo declares {pin.describe()}"
            evidence.append(Evidence.source(
                f"this code runs on {why}; its Keras loops over the arrays without the data adapter and iterator "
                "TensorFlow 2 sets up on every call: the one-batch method saves far less there"))
        set_up = "" if without_adapters else " each call sets up an iterator, callbacks and a progress bar before it " \
            "runs one small batch."
        message = (f"`{method}` runs once per iteration of the loop at {loop}, on that iteration's data:{set_up} "
                   f"`{ON_BATCH[method]}` runs just the batch.")
        if method == "fit" and argument_value(site.node, "batch_size") is None:
            # Keras' default batch size: an input larger than that is several updates to `fit`, one to the fix.
            message += (" (`fit` splits an input of more than 32 rows into batches of 32: `train_on_batch` takes "
                        "it as one batch, one update.)")
        verdict = ctx.verdicts.per_step_cost([(call.loop_module, call.loop)], Verdict(
            Confidence.POSSIBLE if without_adapters else Confidence.LIKELY, typical("keras_call"), tuple(evidence)))
        fixable = _has_batch_form(site.module.parent(site.node), site.node, method)
        return self.finding(site.module, site.node.func.attr, message, verdict,
                            reach=ctx.queries.reach(site.module, site.node),
                            codemod=CallOnBatch if fixable else None)


def _has_batch_form(parent: cst.CSTNode | None, call: cst.Call, method: str) -> bool:
    """Whether the one-batch method does what ``call`` does: the same arguments, less those about batching a
    dataset; for ``fit``, one epoch whose History nobody reads."""
    allowed = ON_BATCH_ARGUMENTS.get(method)
    if allowed is None:
        return False
    keywords = {arg.keyword.value for arg in call.args if arg.keyword is not None}
    positional = [arg for arg in call.args if arg.keyword is None]
    if any(arg.star for arg in call.args) or not keywords <= allowed | DATASET_ARGUMENTS \
            or len(positional) > len(allowed & {"x", "y"}):
        return False
    if method == "fit":
        epochs = argument_value(call, "epochs")
        return (epochs is None or isinstance(epochs, cst.Integer) and epochs.value == "1") and isinstance(
            parent, cst.Expr)
    return True
