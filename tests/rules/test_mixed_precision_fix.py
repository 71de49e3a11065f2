"""TFC001's fix on the shapes training code takes (SourceQueries.mixed_precision_plans): which model is trained,
where the policy goes, which output stays float32, and when there is no patch, that the finding says why."""

from __future__ import annotations

import textwrap
from pathlib import Path

from advisor.config import Settings
from advisor.engine import analyze_texts
from advisor.model import Confidence
from advisor.source.index import SourceIndex
from advisor.source.queries import SourceQueries
from advisor.source.walk import SourceFile


def _finding(files: dict[str, str]):
    findings = [f for f in analyze_texts({p: textwrap.dedent(t).lstrip() for p, t in files.items()},
                                      Settings(min_confidence=Confidence.POSSIBLE))
                if f.code == "TFC001"]
    assert len(findings) == 1
    return findings[0]


def test_a_functional_forward_pass_written_as_x_chains_keeps_its_last_layer_float32():
    finding = _finding({"train.py": """
        import tensorflow as tf

        def build():
            inputs = tf.keras.Input(shape=(8,))
            x = tf.keras.layers.Dense(32)(inputs)
            x = tf.keras.layers.Dense(4)(x)
            return tf.keras.Model(inputs, x)

        model = build()
        model.fit(data)
        """})
    assert "x = tf.keras.layers.Dense(4, dtype=\"float32\")(x)" in finding.patch.new_code
    assert 'def build():\n    tf.keras.mixed_precision.set_global_policy("mixed_float16")\n' in finding.patch.new_code


def test_a_model_built_by_a_method_of_the_trainer():
    """The plan follows ``self.model = self.create_model()`` into the method (the rule reports where
    ``SourceQueries.model_construction`` says the model is built)."""
    code = textwrap.dedent("""
        import tensorflow as tf

        class Agent:
            def __init__(self):
                self.model = self.create_model()
                self.model.compile(optimizer="adam", loss="mse")

            def create_model(self):
                return tf.keras.Sequential([tf.keras.layers.Dense(16), tf.keras.layers.Dense(2)])
        """).lstrip()
    root = Path("/nonexistent-example-repo")
    index = SourceIndex.build(root, [SourceFile(Path("agent.py"), root / "agent.py", code.encode())], 1)
    (plan,) = SourceQueries(index).mixed_precision_plans(scale_losses=True)
    (model,) = plan.models
    assert (model.kind, model.builder.name, plan.problem) == ("sequential", "create_model", None)
    assert [model.module.location(statement).line for _, statement in plan.policy_before] == [9]  # its top
    assert [(edit.kind, model.module.node_code(edit.node)) for edit in plan.outputs] == \
        [("dtype", "tf.keras.layers.Dense(2)")]


def test_a_model_assigned_in_two_branches_has_no_patch_and_says_why():
    finding = _finding({"train.py": """
        import tensorflow as tf

        def main(wide):
            if wide:
                model = tf.keras.Sequential([tf.keras.layers.Dense(64), tf.keras.layers.Dense(1)])
            else:
                model = tf.keras.Sequential([tf.keras.layers.Dense(8), tf.keras.layers.Dense(1)])
            model.fit(data)
        """})
    assert finding.patch is None
    assert "No automatic patch: advisor cannot tell where `model` is built." in finding.message


def test_scikit_learn_fits_are_no_keras_models():
    finding = _finding({"train.py": """
        import tensorflow as tf
        from sklearn.linear_model import LogisticRegression

        probe = LogisticRegression()
        probe.fit(features, labels)
        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        model.fit(data)
        """})
    assert finding.location.line == 6 and finding.patch is not None


def test_a_loss_computed_outside_the_tape_cannot_be_scaled():
    finding = _finding({"train.py": """
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        optimizer = tf.keras.optimizers.Adam()

        def train_step(x, y):
            with tf.GradientTape() as tape:
                prediction = model(x)
            grads = tape.gradient(loss_fn(prediction, y), model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))

        for x, y in data:
            train_step(x, y)
        """})
    assert finding.patch is None
    assert "is not of a loss computed inside its `with GradientTape()` block" in finding.message
