"""The graph-compatibility checks that gate TFH002's `@tf.function` fix (SourceQueries.side_effects), checked
against TensorFlow itself: each step below is flagged as breaking exactly when compiling it makes it fail or
compute something else (results, or state it leaves behind)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from advisor.source.index import SourceIndex
from advisor.source.queries import SourceQueries
from advisor.source.walk import SourceFile

HERE = Path(__file__).parent

# name -> (the step, whether the checks must call it breaking)
STEPS = {
    "zip over a gradient times a number": ("""
        def step(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(weights * x)
            grads = tape.gradient(loss, weights)
            total = 0.0
            for g, v in zip(grads * -1, [1.0, 2.0, 3.0]):
                total += v
            return loss + total
        """, True),
    "zip over a list of gradients": ("""
        def step(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(weights * x)
            grads = tape.gradient(loss, [weights])
            return [g * 2.0 for g, v in zip(grads, [weights])]
        """, False),
    "for over a tensor (AutoGraph loop)": ("""
        def step(x):
            total = tf.constant(0.0)
            for e in tf.reshape(x, [3]):
                total += e
            return total
        """, False),
    "unpacking an op result": ("""
        def step(x):
            a, b, c = tf.reshape(x, [3])
            return a + b
        """, True),
    "enumerate over an op result": ("""
        def step(x):
            total = 0.0
            for i, e in enumerate(tf.identity(x)):
                total += e
            return total
        """, True),
    "tf.Variable per call": ("""
        def step(x):
            v = tf.Variable(1.0)
            return x * v
        """, True),
    "a Keras layer built per call": ("""
        def step(x):
            return tf.keras.layers.Dense(2)(tf.reshape(x, (1, 3)))
        """, True),
    ".numpy()": ("""
        def step(x):
            return x.numpy() * 2
        """, True),
    "if on a tensor, both branches": ("""
        def step(x):
            loss = tf.reduce_sum(x)
            if loss > 0:
                y = loss * 2
            else:
                y = loss
            return y
        """, False),
    "if on a tensor with an early return": ("""
        def step(x):
            loss = tf.reduce_sum(x)
            if loss > 0:
                return loss
            return -loss
        """, False),
    "while on a tensor": ("""
        def step(x):
            loss = tf.reduce_sum(x)
            while loss > 0:
                loss -= 1.0
            return loss
        """, False),
    "if on the static shape": ("""
        def step(x):
            if x.shape[0] > 2:
                y = x * 2
            return y
        """, False),
    "a name set in one tensor branch only": ("""
        def step(x):
            loss = tf.reduce_sum(x)
            if loss > 0:
                y = loss * 2
            return y
        """, True),
    "raise on a tensor condition": ("""
        def step(x):
            loss = tf.reduce_sum(x)
            if tf.math.is_nan(loss):
                raise ValueError("nan")
            return loss
        """, True),
    "break out of a Python loop on a tensor": ("""
        def step(x):
            loss = tf.reduce_sum(x)
            for i in range(3):
                if loss > 0:
                    break
                loss = loss + 1
            return loss
        """, True),
    "assert on a tensor": ("""
        def step(x):
            loss = tf.reduce_sum(x)
            assert loss > -100
            return loss
        """, True),
    "state kept across calls": ("""
        def step(x):
            loss = tf.reduce_sum(x)
            state["last"] = loss
            return loss
        """, True),
    "a NumPy random draw": ("""
        import numpy as np
        np.random.seed(0)

        def step(x):
            return x * np.random.rand()
        """, True),
    "Python's random": ("""
        import random
        random.seed(0)

        def step(x):
            return x * random.random()
        """, True),
    "a repo function that draws the minibatch": ("""
        import numpy as np
        np.random.seed(0)
        data = np.arange(12.0, dtype=np.float32).reshape(4, 3)

        def sample():
            return data * np.random.rand()

        def step(x):
            return x * sample()
        """, True),
    "NumPy on the step's tensor": ("""
        import numpy as np

        def step(x):
            return np.clip(x, 0.0, 1.0) * 2
        """, True),
    "NumPy on constants and the static shape": ("""
        import numpy as np

        def step(x):
            return x * np.sqrt(2.0) / np.prod(x.shape) + np.pi
        """, False),
    "NumPy on a name bound to the static shape": ("""
        import numpy as np

        def step(x):
            shape = (x.shape[0], x.shape[0])
            mask = np.tril(np.ones(shape, dtype=np.float32), k=0)
            return tf.reduce_sum(x * tf.convert_to_tensor(mask))
        """, False),
    "NumPy on a name rebound to the step's tensor": ("""
        import numpy as np

        def step(x):
            shape = (x.shape[0], x.shape[0])
            shape = x * 2
            return np.clip(shape, 0.0, 1.0)
        """, True),
    "Keras weights copied through NumPy": ("""
        model = tf.keras.Sequential([tf.keras.layers.Dense(3, kernel_initializer="ones")])
        model.build((None, 3))

        def step(x):
            model.set_weights([w * 0.5 for w in model.get_weights()])
            return model(tf.reshape(x, (1, 3)))
        """, True),
}


def _side_effects(source: str):
    module = "import tensorflow as tf\n" + textwrap.dedent(source)
    root = Path("/nonexistent-example-repo")
    index = SourceIndex.build(root, [SourceFile(Path("step.py"), root / "step.py", module.encode())], 1)
    (step,) = index.functions_named("step.step")
    return SourceQueries(index).side_effects(step)


@pytest.mark.parametrize("name", STEPS)
def test_checks_flag_what_breaks(name):
    source, breaking = STEPS[name]
    assert any(e.breaks_step for e in _side_effects(source)) == breaking


@pytest.mark.slow
def test_tensorflow_agrees_with_the_checks(tmp_path):
    pytest.importorskip("tensorflow")
    modules = {f"step_{number}": name for number, name in enumerate(STEPS)}
    for module, name in modules.items():
        (tmp_path / f"{module}.py").write_text("import tensorflow as tf\n" + textwrap.dedent(STEPS[name][0]))
    done = subprocess.run([sys.executable, str(HERE / "run_graph_cases.py"), str(tmp_path)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    outcome = {modules[module]: result for module, result in json.loads(done.stdout).items()}
    disagreements = {name: outcome[name] for name, (_, breaking) in STEPS.items()
                     if breaking != (outcome[name]["error"] is not None or not outcome[name]["same"])}
    assert disagreements == {}
