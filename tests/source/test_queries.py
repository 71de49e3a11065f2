"""SourceQueries: training steps and loops, Python that changes meaning under tf.function, what runs per element or
per step, host costs, Keras compiles, model construction and output layers, integer literals through constants."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import libcst as cst
import libcst.matchers as m

import pytest

from advisor.source.facts import FunctionInfo, ModuleInfo
from advisor.source.index import SourceIndex
from advisor.source.queries import LOOP_REPEAT, SourceQueries, batch_parameter, compiled_function_name


def function(index: SourceIndex, name: str) -> FunctionInfo:
    (found,) = [f for f in index.functions if f.name == name]
    return found


def module(index: SourceIndex, path: str = "train.py") -> ModuleInfo:
    (found,) = [m for m in index.modules if m.path.as_posix() == path]
    return found


def call(module: ModuleInfo, code: str) -> cst.Call:
    """The one call in ``module`` written exactly as ``code``."""
    (found,) = [c for c in m.findall(module.tree, m.Call()) if module.node_code(c) == code]
    return found


STEP = """
    import tensorflow as tf

    def train_step(model, optimizer, x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x) - y))
        optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
        return loss
    """


# -- training steps and loops -------------------------------------------------------------------------------------


def test_a_training_step_opens_a_tape_and_updates_weights_in_its_own_body(index_of):
    index = index_of({"steps.py": STEP + """
        def eval_step(model, x):
            with tf.GradientTape() as tape:  # a tape without an update: saliency, not training
                y = model(x)
            return tape.gradient(y, x)

        def minimize_step(opt, loss_fn, var_list):
            with tf.GradientTape():
                pass
            opt.minimize(loss_fn, var_list)

        def outer():
            def inner():
                with tf.GradientTape() as tape:
                    pass
            optimizer.apply_gradients([])  # the tape is the closure's, not this function's

        def gradient_ascent_step(feature_extractor, image_var, optimizer):  # visualizes a filter: updates an image
            with tf.GradientTape() as tape:
                tape.watch(image_var)
                loss = tf.reduce_mean(feature_extractor(image_var[0]))
            grads = tape.gradient(loss, image_var)
            optimizer.apply_gradients(zip(grads * -1, image_var))

        def gradient_penalty_step(critic, real, fake, optimizer):  # watches an input, and trains the critic
            with tf.GradientTape() as tape:
                with tf.GradientTape() as penalty_tape:
                    penalty_tape.watch(fake)
                    score = critic(fake)
                penalty = tf.reduce_mean(penalty_tape.gradient(score, fake))
                loss = critic(real) - score + penalty
            grads = tape.gradient(loss, critic.trainable_variables)
            optimizer.apply_gradients(zip(grads, critic.trainable_variables))
        """})
    assert {f.name for f in SourceQueries(index).training_steps} == {"train_step", "minimize_step",
                                                                       "gradient_penalty_step"}


def test_a_step_called_eagerly_from_a_loop_makes_a_training_loop(index_of):
    index = index_of({"steps.py": STEP, "train.py": """
        import tensorflow as tf
        from steps import train_step

        def fit(model, optimizer, dataset):
            for step, (x, y) in enumerate(dataset):
                loss = train_step(model, optimizer, x, y)
                scaled = tf.reduce_mean(loss)
                label = describe(loss)

        @tf.function
        def compiled_epoch(model, optimizer, dataset):
            for x, y in dataset:
                train_step(model, optimizer, x, y)  # AutoGraph runs this loop in the graph
        """})
    queries = SourceQueries(index)
    step = function(index, "train_step")
    (per_batch,) = queries.per_batch_calls(step)
    assert per_batch.function.name == "fit"
    loop, step_body = queries.training_loops
    assert isinstance(loop.node, cst.For) and loop.module.path.as_posix() == "train.py" and loop.counter == "step"
    assert loop.step_names == {"steps.train_step"}
    assert loop.tensors == {"loss", "scaled"}  # the step's results and TensorFlow's; not a Python helper's
    # The eager step's own body runs once per iteration too.
    assert step_body.node is step.node and step_body.loop is loop.node and step_body.loop_module is loop.module
    assert step_body.description == "`train_step`, which the training loop at train.py:6:5 runs every step,"


def test_a_function_a_loop_calls_per_iteration_runs_per_step(index_of):
    # shared/repros r3, r5: the step is reached through a method that a `while` loop calls.
    index = index_of({"steps.py": STEP, "train.py": """
        import tensorflow as tf
        from steps import train_step

        class Trainer:
            def train(self):
                loss = train_step(self.model, self.optimizer, self.x, self.y)
                history = float(loss)

        def main(trainer):
            while trainer.running:
                trainer.train()
        """})
    queries = SourceQueries(index)
    (per_batch,) = queries.per_batch_calls(function(index, "train_step"))
    loop, _ = queries.iteration_loop(per_batch)
    assert isinstance(loop, cst.While)
    scopes = {s.node.name.value if isinstance(s.node, cst.FunctionDef) else "loop": s for s in queries.training_loops}
    assert set(scopes) == {"train", "train_step", "loop"}  # the `while` body runs once per step too
    assert scopes["loop"].node is loop
    assert scopes["train"].loop is loop and scopes["train"].tensors == {"loss"}
    assert scopes["train"].description == "`train`, which the training loop at train.py:11:5 runs every step,"


def test_a_step_that_returns_python_values_gives_its_loop_no_tensors(index_of):
    index = index_of(code=STEP.replace("return loss", "return loss.numpy()") + """
        for x, y in dataset:
            loss = train_step(model, optimizer, x, y)
        """)
    loop = next(s for s in SourceQueries(index).training_loops if isinstance(s.node, cst.For))
    assert loop.step_names == set() and loop.tensors == set()  # reading `loss` later costs no further sync


def test_a_loop_that_opens_a_tape_itself_is_a_training_loop(index_of):
    index = index_of(code="""
        import tensorflow as tf
        for epoch in range(10):
            for x, y in dataset:
                with tf.GradientTape() as tape:
                    prediction = model(x)
                    loss = loss_fn(y, prediction)
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                              model.trainable_variables))
        """)
    (loop,) = SourceQueries(index).training_loops
    assert isinstance(loop.node, cst.For) and module(index).node_code(loop.node.target) == "x, y"
    assert loop.counter is None
    assert loop.tensors == {"prediction", "loss"}  # assigned under the tape: the forward pass


@pytest.mark.parametrize("header, counter", [
    ("for step in range(100):", "step"),
    ("for i, (x, y) in enumerate(dataset):", "i"),
    ("for x, y in dataset:", None),
    ("while True:", None),
])
def test_the_step_counter_of_a_training_loop(index_of, header: str, counter: str | None):
    index = index_of(code=f"""
        import tensorflow as tf
        {header}
            with tf.GradientTape() as tape:
                loss = model(x)
            optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
        """)
    (loop,) = SourceQueries(index).training_loops
    assert loop.counter == counter


def test_a_loop_with_a_tape_but_no_weight_update_is_no_training_loop(index_of):
    # Filter visualization, adversarial examples: gradients with respect to the input, not the weights.
    index = index_of(code="""
        import tensorflow as tf
        for step in range(100):
            with tf.GradientTape() as tape:
                tape.watch(image)
                activation = model(image)
            image = image + 0.1 * tape.gradient(activation, image)
        """)
    assert SourceQueries(index).training_loops == []


# -- side effects -----------------------------------------------------------------------------------------------


def test_a_function_is_compiled_when_decorated_wrapped_or_defined_in_a_compiled_function(index_of):
    index = index_of({
        "steps.py": """
            import tensorflow as tf

            @tf.function
            def decorated(x):
                def inner(y):
                    return y
                return inner(x)

            def wrapped(x):
                return x

            def wrapped_with_options(x):
                return x

            def eager(x):
                return x
            """,
        "train.py": """
            import tensorflow as tf
            from steps import wrapped, wrapped_with_options
            step = tf.function(wrapped)
            fast_step = tf.function(jit_compile=True)(wrapped_with_options)
            """,
    })
    queries = SourceQueries(index)
    compiled = {f.name: queries.is_compiled(f) for f in index.functions}
    assert compiled == {"decorated": True, "inner": True, "wrapped": True, "wrapped_with_options": True,
                        "eager": False}


def test_methods_wrapped_through_their_object_and_by_wrappers_of_tf_function_are_compiled(index_of):
    index = index_of({
        "common.py": """
            import tensorflow as tf

            def function(*args, **kwargs):
                return tf.function(*args, autograph=False, **kwargs)
            """,
        "agents.py": """
            import tensorflow as tf
            import common

            class Base:
                def train(self, x):
                    return self._train(x)

            class Agent(Base):
                def _train(self, x):
                    return x

            class Trainer:
                def __init__(self):
                    self.step = tf.function(self.step)

                def step(self, x):
                    return x

                def evaluate(self, x):
                    return x

            class FastTrainer(Trainer):
                def step(self, x):
                    return x

            @common.function
            def decorated(x):
                return x

            def main():
                agent = Agent()
                agent.train = common.function(agent.train)
                compiled_twice = common.function()(decorated)
            """,
    })
    queries = SourceQueries(index)
    compiled = {f.key.split(".", 1)[1]: queries.is_compiled(f) for f in index.functions
                if f.module.path.stem == "agents"}
    assert compiled == {"Base.train": True, "Agent._train": False, "Trainer.__init__": False, "Trainer.step": True,
                        "Trainer.evaluate": False, "FastTrainer.step": True, "decorated": True, "main": False}


def test_side_effects_are_python_that_a_trace_runs_once_or_cannot_run(index_of):
    index = index_of(code="""
        import tensorflow as tf
        history = []
        traces = 0

        def train_step(self, x):
            global traces
            loss = self.model(x)
            value = loss.numpy()
            as_float = float(loss)
            size = int(x.shape[0])
            history.append(loss)
            print("loss", loss)
            tf.print("loss", loss)
            self.calls += 1
            traces += 1
            local = 0
            local += 1
            return loss
        """)
    found = {(e.what, e.breaks_step) for e in SourceQueries(index).side_effects(function(index, "train_step"))}
    assert found == {("`loss.numpy()`", True), ("`float(loss)`", True), ("`history.append(loss)`", True),
                     ('`print("loss", loss)`', False), ("`self.calls += 1`", True), ("`traces += 1`", True)}


def test_converting_a_number_is_no_side_effect(index_of):
    index = index_of(code="""
        def train_step(x):
            rate = float(1e-3)
            steps = int(2 ** 10)
            return x * rate
        """)
    assert SourceQueries(index).side_effects(function(index, "train_step")) == []


def test_a_print_that_is_not_the_builtin_is_no_side_effect(index_of):
    index = index_of(code="""
        from rich import print

        def step(x):
            print(x)
        """)
    assert SourceQueries(index).side_effects(function(index, "step")) == []


# -- hot functions ----------------------------------------------------------------------------------------------


def test_functions_a_dataset_maps_are_hot_per_element_and_so_are_their_callees(index_of):
    index = index_of({
        "pkg/preprocess.py": """
            import tensorflow as tf

            def _to_array(record):
                return tf.numpy_function(convert, [record], tf.float32)

            def decode(record):
                return _to_array(record)

            def debug_decode(record):
                return record
            """,
        "train.py": """
            import tensorflow as tf
            from pkg.preprocess import decode
            ds = tf.data.TFRecordDataset(files).map(decode).filter(lambda x: keep(x))
            """,
    })
    hot = SourceQueries(index).hot_functions
    by_key = {f.key: f for f in index.functions}
    assert set(hot.functions) == {id(by_key[key].node) for key in ("pkg.preprocess.decode",
                                                                   "pkg.preprocess._to_array")}
    context = hot.functions[id(by_key["pkg.preprocess._to_array"].node)]
    assert context.in_dataset and context.what == "for every element of the dataset `.map()` at line 4"
    assert context.where == "mapped by `.map()` at train.py:4:37"
    (in_lambda,) = [c for c in index.calls if c.module.node_code(c.node) == "keep(x)"]
    assert hot.context_of(in_lambda).what == "for every element of the dataset `.filter()` at line 4"


def test_compiled_and_keras_traced_functions_are_hot_per_step(index_of):
    index = index_of(code="""
        import tensorflow as tf
        from tensorflow import keras

        @tf.function(reduce_retracing=True)
        def decorated(x):
            return helper(x)

        def helper(x):
            return x

        def wrapped(x):
            return x

        step = tf.function(wrapped)

        class Classifier(keras.Model):
            def train_step(self, data):
                return data

            def summary_text(self):
                return ""

        class Block(keras.layers.Layer):
            def call(self, x):
                return x

        def eager(x):
            return x
        """)
    by_node = SourceQueries(index).hot_functions.functions
    hot = {f.key: by_node[id(f.node)] for f in index.functions if id(f.node) in by_node}
    assert set(hot) == {"train.decorated", "train.helper", "train.wrapped", "train.Classifier.train_step",
                        "train.Block.call"}
    assert not any(context.in_dataset for context in hot.values())
    assert hot["train.helper"] is hot["train.decorated"]  # a callee inherits its caller's reason
    assert hot["train.wrapped"].where == "wrapped by `tf.function(...)` at train.py:15:8"
    assert hot["train.Classifier.train_step"].what == "on every call of a method Keras compiles, `train_step`"


def test_a_compiled_closure_does_not_make_an_eager_closure_of_the_same_name_hot(index_of):
    index = index_of(code="""
        import tensorflow as tf

        def train():
            @tf.function
            def step(x):
                return x

        def evaluate():
            def step(x):
                return tf.py_function(show, [x], tf.float32)
        """)
    hot = SourceQueries(index).hot_functions
    (py_function,) = index.calls_to("tensorflow.py_function")
    assert hot.context_of(py_function) is None


# -- host costs -------------------------------------------------------------------------------------------------


def test_host_costs_are_the_first_call_of_each_kind_in_the_functions_own_body(index_of):
    index = index_of(code="""
        import logging
        import matplotlib.pyplot as plt
        import numpy as np

        def on_train_batch_end(self, batch, logs=None):
            with open("log.txt", "a") as f:
                f.write(str(logs))
            logging.getLogger(__name__).info("batch %s", batch)
            logging.info("batch %s", batch)
            weights = self.model.get_weights()
            np.save("w.npy", weights)
            plt.savefig("loss.png")
            value = logs["loss"].numpy()

            def later():
                print(value)
        """)
    costs = SourceQueries(index).host_costs(function(index, "on_train_batch_end"))
    written = {what: module(index).node_code(node) for what, node in costs.items()}
    assert written == {
        "file I/O": 'open("log.txt", "a")',
        "logging": 'logging.getLogger(__name__).info("batch %s", batch)',
        "copying weights to the host (get_weights)": "self.model.get_weights()",
        "plotting": 'plt.savefig("loss.png")',
        "a device-to-host sync (.numpy())": 'logs["loss"].numpy()',
    }  # np.save is file I/O too, but not the first; print() is in a nested function


# -- Keras --------------------------------------------------------------------------------------------------------


def test_keras_compiles_are_told_from_other_compile_methods(index_of):
    index = index_of({
        "train.py": """
            import re
            pattern = re.compile("run-[0-9]+")
            model.compile(optimizer="adam", loss="mse")
            fitted.compile()
            fitted.fit(ds)
            regex.compile(flags)
            """,
        "other.py": "model.fit(ds)\nunrelated.compile()\n",
    })
    compiles = SourceQueries(index).keras_compiles
    assert [c.module.node_code(c.node) for c in compiles] == ['model.compile(optimizer="adam", loss="mse")',
                                                             "fitted.compile()"]


@pytest.mark.parametrize("code, trains", [
    ("model.fit(ds)", True),
    ("model.compile(optimizer='adam')", True),
    ("model.train_on_batch(x, y)", True),
    ("estimator.train(input_fn=train_input_fn)", True),
    ("import tensorflow as tf\nfor x in ds:\n    with tf.GradientTape() as tape:\n        loss = model(x)\n"
     "    optimizer.apply_gradients(zip(tape.gradient(loss, weights), weights))", True),
    ("import tensorflow as tf\nwith tf.GradientTape() as tape:\n    y = model(image)", False),  # gradients, no update
    ("model.predict(ds)", False),
    ("from sklearn.svm import SVC\nSVC().fit(x, y)", False),
])
def test_trains(index_of, code: str, trains: bool):
    assert SourceQueries(index_of(code=code)).trains is trains


@pytest.mark.parametrize("code, mixed", [
    ("from tensorflow.keras import mixed_precision\nmixed_precision.set_global_policy('mixed_float16')", True),
    ("import keras\nkeras.config.set_dtype_policy(POLICY)", True),
    ("POLICY = 'mixed_bfloat16'", True),
    ("import keras\nkeras.layers.Dense(4, dtype=\"mixed_float16\")", True),
    ("import keras\nkeras.layers.Dense(4, dtype='float32')", False),
    ("import tensorflow as tf\nimages = tf.cast(images, tf.bfloat16)", True),  # a TF1 graph computing in bfloat16
    ("import tensorflow as tf\ntf.config.optimizer.set_experimental_options({'auto_mixed_precision': True})", True),
    ("import numpy as np\nweights = weights.astype(np.float16)", False),  # numpy storage
    ("# we could try mixed_float16 later\nimport keras", False),  # a comment is no policy
])
def test_mixed_precision_sites(index_of, code: str, mixed: bool):
    assert bool(SourceQueries(index_of(code=code)).mixed_precision_sites) is mixed


_MODELS = """
    import tensorflow as tf
    def build():
        return tf.keras.Sequential([tf.keras.layers.Conv2D(64, 3)])
"""
_TRAIN_WITH_POLICY = """
    import tensorflow as tf
    import models
    def main():
        tf.keras.mixed_precision.set_global_policy("mixed_float16")
        model = models.build()
        model.fit(ds)
    if __name__ == "__main__":
        main()
"""
_TRAIN_WITHOUT_POLICY = """
    import tensorflow as tf
    def main():
        model = tf.keras.Sequential([tf.keras.layers.Conv2D(64, 3)])
        model.fit(ds)
    if __name__ == "__main__":
        main()
"""


def _policy_for_the_model_built_in(index, path: str) -> tuple[bool, str | None]:
    queries = SourceQueries(index)
    construction = next(c for c in queries.model_constructions if c.module.path.as_posix() == path)
    setting = queries.mixed_precision_set_for(construction)
    return setting.policy_set, setting.elsewhere and setting.elsewhere.display


@pytest.mark.parametrize("files, elsewhere", [
    ({"models.py": _MODELS, "train.py": _TRAIN_WITH_POLICY, "tutorial/segment.py": _TRAIN_WITHOUT_POLICY},
     "train.py:5:5"),
    # a helper the training never calls
    ({"precision.py": "import tensorflow as tf\ndef use_16_bits():\n    tf.keras.mixed_precision.set_global_policy("
                      "'mixed_float16')\n",
      "tutorial/segment.py": _TRAIN_WITHOUT_POLICY}, "precision.py:3:5"),
])
def test_a_policy_off_the_path_of_this_training_does_not_count(index_of, files: dict[str, str], elsewhere: str):
    assert _policy_for_the_model_built_in(index_of(files), "tutorial/segment.py") == (False, elsewhere)


def test_a_training_no_code_is_seen_to_call_may_run_with_any_policy_of_the_repo(index_of):
    # `fit_model` is called from outside the repo (a launcher, a notebook elsewhere): which policy it runs under
    # is unknown
    library = "import tensorflow as tf\ndef fit_model(ds):\n    model = tf.keras.Sequential([tf.keras.layers.Conv2D(" \
              "64, 3)])\n    model.fit(ds)\n"
    index = index_of({"library.py": library, "models.py": _MODELS, "train.py": _TRAIN_WITH_POLICY})
    assert _policy_for_the_model_built_in(index, "library.py") == (True, None)


@pytest.mark.parametrize("files", [
    # the policy is set in a module the training script imports: importing it runs it
    {"precision.py": "import tensorflow as tf\ntf.keras.mixed_precision.set_global_policy('mixed_float16')\n",
     "tutorial/segment.py": "import precision\n" + textwrap.dedent(_TRAIN_WITHOUT_POLICY)},
    # a launcher sets the policy, then runs the training script's main
    {"launch.py": "import tensorflow as tf\nfrom tutorial import segment\n"
                  "tf.keras.mixed_precision.set_global_policy('mixed_float16')\nsegment.main()\n",
     "tutorial/segment.py": _TRAIN_WITHOUT_POLICY},
])
def test_a_policy_the_training_may_run_counts(index_of, files: dict[str, str]):
    assert _policy_for_the_model_built_in(index_of(files), "tutorial/segment.py") == (True, None)


def test_a_policy_counts_for_a_builder_shared_with_the_script_that_sets_it(index_of):
    index = index_of({"models.py": _MODELS, "train.py": _TRAIN_WITH_POLICY})
    assert _policy_for_the_model_built_in(index, "models.py") == (True, None)


def test_without_a_trained_model_the_construction_is_the_first_in_a_training_module_outside_layer_classes(index_of):
    index = index_of({
        "a_export.py": "import keras\nexported = keras.Sequential([keras.layers.Dense(1)])\n",
        "layers.py": """
            import keras

            class Block(keras.layers.Layer):
                def build(self, shape):
                    self.dense = keras.layers.Dense(8)
            """,
        "train.py": """
            import keras
            from layers import Block

            inputs = keras.Input(shape=(4,))
            outputs = keras.layers.Dense(1)(Block()(inputs))
            model = keras.Model(inputs, outputs)
            model.compile("adam", "mse")
            """,
    })
    (first,) = SourceQueries(index).model_constructions
    assert first.module.path.as_posix() == "train.py" and first.module.node_code(first.node) == \
        "keras.Input(shape=(4,))"


def test_the_model_construction_is_the_model_fit_trains_followed_into_its_builder(index_of):
    index = index_of({
        "models.py": """
            import keras

            def build_probe():
                return keras.Sequential([keras.layers.Dense(1)])

            def build(units):
                inputs = keras.Input(shape=(units,))
                return keras.Model(inputs, keras.layers.Dense(10)(inputs))
            """,
        "train.py": """
            from models import build, build_probe
            probe = build_probe()
            model = build(64)
            model.fit(x, y)
            """,
    })
    (construction,) = SourceQueries(index).model_constructions
    assert construction.module.node_code(construction.node) == "keras.Model(inputs, keras.layers.Dense(10)(inputs))"


@pytest.mark.parametrize("sources, trained", [
    ("self.q_network.trainable_variables", ["QNetwork(units=256)"]),  # the target network is only run
    ("self.q_network.trainable_variables + self.target_network.trainable_variables",
     ["QNetwork(units=256)", "QNetwork(units=256)"]),
    ("variables", ["QNetwork(units=256)", "QNetwork(units=256)"]),  # which model's, the step does not say
    ("self.q_network.trainable_variables + [self.temperature]", ["QNetwork(units=256)"]),  # a watched input
])
def test_the_models_a_step_trains_are_those_whose_weights_it_differentiates(index_of, sources: str, trained):
    index = index_of(code=f"""
        import tensorflow as tf

        class QNetwork(tf.keras.Model):
            def __init__(self, units):
                super().__init__()
                self.hidden = tf.keras.layers.Dense(units)

        class Agent:
            def __init__(self):
                self.q_network = QNetwork(units=256)
                self.target_network = QNetwork(units=256)

            def update(self, states, variables):
                with tf.GradientTape() as tape:
                    tape.watch(self.temperature)
                    loss = tf.reduce_mean(self.q_network(states) - self.target_network(states))
                weights = {sources}
                grads = tape.gradient(loss, weights)
                self.optimizer.apply_gradients(zip(grads, weights))

        agent = Agent()  # the step's caller holds no model: its constructor's last one is not what trains
        for states in replay:
            agent.update(states, None)
        """)
    constructions = SourceQueries(index).model_constructions
    assert [c.module.node_code(c.node) for c in constructions] == trained


def test_without_a_training_module_the_first_construction_in_source_order_is_taken(index_of):
    index = index_of({"b.py": "import keras\nkeras.layers.Dense(2)\n", "a.py": "import keras\nkeras.layers.Dense(1)\n"})
    (first,) = SourceQueries(index).model_constructions
    assert first.module.node_code(first.node) == "keras.layers.Dense(1)"
    assert SourceQueries(index_of(code="import numpy\n")).model_constructions == []


def test_output_layers_of_sequential_and_functional_models(index_of):
    index = index_of(code="""
        import keras
        seq = keras.Sequential([keras.layers.Dense(64), keras.layers.Dense(10)])
        x = keras.layers.Dense(32)(inputs)
        scores = keras.layers.Dense(5)(x)
        hidden = keras.layers.Dense(7)(x)
        model = keras.Model(inputs=inputs, outputs=[scores, keras.layers.Dense(3)(x)])
        """)
    train, queries = module(index), SourceQueries(index)
    is_output = {code: queries.is_output_layer(train, call(train, code)) for code in (
        "keras.layers.Dense(64)", "keras.layers.Dense(10)", "keras.layers.Dense(32)", "keras.layers.Dense(5)",
        "keras.layers.Dense(7)", "keras.layers.Dense(3)")}
    assert is_output == {"keras.layers.Dense(64)": False, "keras.layers.Dense(10)": True,
                         "keras.layers.Dense(32)": False, "keras.layers.Dense(5)": True,
                         "keras.layers.Dense(7)": False, "keras.layers.Dense(3)": True}


def test_a_size_is_data_sized_by_its_constant_name_its_activation_or_its_place(index_of):
    index = index_of(code="""
        import keras
        keras.layers.Dense(NUM_CLASSES)
        keras.layers.Dense(12, activation="sigmoid")
        keras.layers.Dense(12, activation="relu")
        keras.Sequential([keras.layers.Dense(300), keras.layers.Dense(10)])
        """)
    train, queries = module(index), SourceQueries(index)
    assert queries.is_data_sized(train, call(train, "keras.layers.Dense(NUM_CLASSES)"), "NUM_CLASSES")
    assert queries.is_data_sized(train, call(train, 'keras.layers.Dense(12, activation="sigmoid")'), None)
    assert not queries.is_data_sized(train, call(train, 'keras.layers.Dense(12, activation="relu")'), None)
    assert not queries.is_data_sized(train, call(train, "keras.layers.Dense(300)"), "HIDDEN_UNITS")
    assert queries.is_data_sized(train, call(train, "keras.layers.Dense(10)"), None)


# -- values -------------------------------------------------------------------------------------------------------


def test_integer_literals_are_found_directly_and_through_constants_of_any_module(index_of):
    index = index_of({
        "config.py": "UNITS = 300\nRATE = 0.1\nSTEPS = 10\nSTEPS = 20\n",
        "train.py": """
            import config
            from config import UNITS
            WIDTH = 60
            layer(300, UNITS, config.UNITS, WIDTH, config.RATE, config.STEPS, units, 2 * WIDTH)
            """,
    })
    train, queries = module(index), SourceQueries(index)
    arguments = [a.value for a in call(train, "layer(300, UNITS, config.UNITS, WIDTH, config.RATE, config.STEPS, "
                                                  "units, 2 * WIDTH)").args]
    found = [queries.integer_literal(train, value) for value in arguments]
    described = [(f.value, f.module.name, f.constant) if f is not None else None for f in found]
    assert described == [(300, "train", None), (300, "config", "UNITS"), (300, "config", "UNITS"),
                         (60, "train", "WIDTH"), None, None, None, None]
    assert queries.integer_literal(train, None) is None


def test_enclosing_function_of_a_node_and_of_a_def_name(index_of):
    index = index_of(code="""
        def outer():
            def inner():
                work()
            return inner
        top()
        """)
    train, queries = module(index), SourceQueries(index)
    assert queries.enclosing_function(train, call(train, "work()")).name == "inner"
    inner = function(index, "inner")
    assert queries.enclosing_function(train, inner.node.name).name == "outer"  # the def's own name: the def around
    assert queries.enclosing_function(train, call(train, "top()")) is None


def test_is_tensor_call(index_of):
    train = module(index_of(code="import tensorflow as tf\na = tf.constant(step)\nb = float(step)\n"))
    assert SourceQueries.is_tensor_call(train, call(train, "tf.constant(step)"))
    assert not SourceQueries.is_tensor_call(train, call(train, "float(step)"))
    assert not SourceQueries.is_tensor_call(train, cst.parse_expression("step"))


@pytest.mark.parametrize("code, expected", [
    ("tf.function(train_step)", "train_step"), ("tf.function(train_step, jit_compile=True)", "train_step"),
    ("tf.function(func=train_step)", None), ("tf.function(self.step)", None), ("tf.function()", None),
])
def test_compiled_function_name(code: str, expected: str | None):
    assert compiled_function_name(cst.parse_expression(code)) == expected


@pytest.mark.parametrize("code, expected", [
    ("def on_train_batch_end(self, batch, logs=None): pass", "batch"),
    ("def on_train_batch_end(self, /, step, logs=None): pass", "step"),
    ("def on_train_batch_end(self): pass", None),
])
def test_batch_parameter(code: str, expected: str | None):
    assert batch_parameter(cst.parse_statement(code)) == expected


# -- mapped functions ---------------------------------------------------------------------------------------------


MAPS = """
    import tensorflow as tf
    from augment import jitter, RandomProcess

    def decode(record):
        return tf.io.parse_tensor(record, tf.float32)

    def stateless(image, seed):
        return tf.image.stateless_random_flip_left_right(image, seed=seed)

    process = RandomProcess(64)
    ds = tf.data.TFRecordDataset(files)
    projected = ds.map(lambda x: x["image"])
    swapped = ds.map(lambda a, b: (b, a))
    scaled = ds.map(lambda x: x / 255)
    decoded = ds.map(decode)
    seeded = ds.map(stateless)
    jittered = ds.map(lambda x: jitter(x))
    processed = ds.map(process)
    python = ds.map(lambda x: tf.py_function(str, [x], tf.string))
    imported = ds.map(unknown)
    cropped = ds.map(lambda x: tf.image.sample_distorted_bounding_box(tf.shape(x), boxes))
    seeded_crop = ds.map(lambda x: tf.image.stateless_sample_distorted_bounding_box(tf.shape(x), boxes, seed))
    noisy = ds.map(lambda x: x + tf.compat.v1.truncated_normal(tf.shape(x)))
    """
AUGMENT = """
    import tensorflow as tf

    def jitter(image):
        return image + noise(tf.shape(image))

    def noise(shape):
        return tf.random.normal(shape)

    class RandomProcess:
        def __init__(self, size):
            self.size = size

        def __call__(self, image):
            return tf.image.random_crop(image, (self.size, self.size, 3))
    """


def test_a_map_that_slices_its_element_with_negative_bounds_is_a_projection(index_of):
    """gpt2-tf's `ds.batch(n).map(lambda window: (window[:, :-1], window[:, 1:]))` splits each batch into inputs
    and targets: `-1` is a number, not arithmetic; negating the element is."""
    index = index_of({"train.py": """
        import tensorflow as tf
        ds = tf.data.Dataset.from_tensor_slices(tokens).batch(65)
        sliced = ds.map(lambda window: (window[:, :-1], window[:, 1:]))
        negated = ds.map(lambda x: -x)
        """})
    train, queries = module(index), SourceQueries(index)
    projections = {code: queries.mapped_function(call(train, code), train).is_projection for code in (
        "ds.map(lambda window: (window[:, :-1], window[:, 1:]))", "ds.map(lambda x: -x)")}
    assert list(projections.values()) == [True, False]


def test_mapped_functions_are_lambdas_repo_functions_or_callable_objects(index_of):
    index = index_of({"train.py": MAPS, "augment.py": AUGMENT})
    train, queries = module(index), SourceQueries(index)
    mapped = {code: queries.mapped_function(call(train, code), train) for code in (
        'ds.map(lambda x: x["image"])', "ds.map(lambda a, b: (b, a))", "ds.map(lambda x: x / 255)",
        "ds.map(decode)", "ds.map(process)", "ds.map(unknown)")}
    assert [code for code, found in mapped.items() if found is not None and found.is_projection] == [
        'ds.map(lambda x: x["image"])', "ds.map(lambda a, b: (b, a))"]  # arithmetic is work, selection is not
    assert mapped["ds.map(decode)"].function.key == "train.decode"
    assert mapped["ds.map(process)"].function.key == "augment.RandomProcess.__call__"
    assert mapped["ds.map(unknown)"] is None


def test_stateful_calls_are_random_ops_and_python_functions_through_the_repo_functions_a_map_runs(index_of):
    index = index_of({"train.py": MAPS, "augment.py": AUGMENT})
    train, queries = module(index), SourceQueries(index)

    def stateful(code: str) -> list[str]:
        found = queries.stateful_calls(queries.mapped_function(call(train, code), train))
        return [site.module.node_code(site.node.func) for site in found]

    assert stateful("ds.map(decode)") == []
    assert stateful("ds.map(stateless)") == []  # stateless random ops take their seed: TF parallelizes them
    assert stateful("ds.map(lambda x: jitter(x))") == ["tf.random.normal"]  # two repo calls deep
    assert stateful("ds.map(process)") == ["tf.image.random_crop"]
    assert stateful('ds.map(lambda x: tf.py_function(str, [x], tf.string))') == ["tf.py_function"]
    # random crops draw their box from a stateful op unless seeded (SimCLR, Inception preprocessing)
    assert stateful("ds.map(lambda x: tf.image.sample_distorted_bounding_box(tf.shape(x), boxes))") == [
        "tf.image.sample_distorted_bounding_box"]
    assert stateful("ds.map(lambda x: tf.image.stateless_sample_distorted_bounding_box(tf.shape(x), boxes, seed))"
                    ) == []
    assert stateful("ds.map(lambda x: x + tf.compat.v1.truncated_normal(tf.shape(x)))") == [
        "tf.compat.v1.truncated_normal"]  # TensorFlow 1.x's names for random ops


def test_a_call_through_a_name_bound_to_a_wrapped_function_calls_that_function(index_of):
    index = index_of({"train.py": """
        import functools
        import tensorflow as tf

        def train_step(model, x):
            return x

        def eval_step(x):
            return x

        class Agent:
            def __init__(self, wrap):
                self._train_fn = wrap()(self._train)

            def train(self, x):
                return self._train_fn(x)

            def _train(self, x):
                return x

        step = functools.partial(train_step, None)
        evaluate = tf.function(eval_step)
        for x in range(3):
            step(x)
            evaluate(x)
        """})
    queries = SourceQueries(index)
    callers = {f.name: [cst.Module([]).code_for_node(c.node) for c in queries.callers_of(f)] for f in index.functions}
    assert callers["train_step"] == ["step(x)"] and callers["eval_step"] == ["evaluate(x)"]
    assert callers["_train"] == ["self._train_fn(x)"]


def test_model_compute_counts_the_layers_a_trained_model_builds_through_loops_helpers_and_layer_classes(index_of):
    index = index_of({
        "blocks.py": """
            import tensorflow as tf

            class Residual(tf.keras.layers.Layer):
                def __init__(self, filters):
                    super().__init__()
                    self.a = tf.keras.layers.Conv2D(filters, 3, padding="same")
                    self.b = tf.keras.layers.Conv2D(filters, 3, padding="same")

            def stage(x, filters):
                for _ in range(4):
                    x = Residual(filters)(x)
                return x
            """,
        "train.py": """
            import tensorflow as tf
            from blocks import stage

            def resnet():
                inputs = tf.keras.Input((32, 32, 3))
                x = stage(inputs, 64)
                return tf.keras.Model(inputs, tf.keras.layers.Dense(10)(x))

            def mlp():
                return tf.keras.Sequential([tf.keras.layers.Dense(512), tf.keras.layers.Dense(2)])

            big = resnet()
            small = mlp()
            big.compile(optimizer="adam", loss="mse")
            big.fit(data)
            small.compile(optimizer="adam", loss="mse")
            small.fit(data)
            """,
    })
    queries = SourceQueries(index)
    compute = {c.function.name: queries.model_compute(c) for c in queries.model_constructions}
    assert (compute["resnet"].convolutions, compute["resnet"].dense, compute["resnet"].heavy) == (8, 0, True)
    assert (compute["mlp"].convolutions, compute["mlp"].dense, compute["mlp"].heavy) == (0, 1, False)


def test_a_layer_built_in_either_branch_of_an_if_counts_once(index_of):
    """A VAE's encoder adds `Dense(n)` or `Dense(n, activation=...)` as its activations are given: one layer per
    loop step whichever branch runs, not two."""
    index = index_of(code="""
        import tensorflow as tf

        def build(widths, activations=None):
            model = tf.keras.Sequential()
            for i in range(len(widths)):
                if activations is None:
                    model.add(tf.keras.layers.Dense(widths[i]))
                elif activations[i] == "linear":
                    model.add(tf.keras.layers.Dense(widths[i], use_bias=False))
                else:
                    model.add(tf.keras.layers.Dense(widths[i], activation=activations[i]))
            model.add(tf.keras.layers.Dense(784))
            return model

        model = build([512, 256], config.activations)
        model.compile(optimizer="adam", loss="mse")
        model.fit(data)
        """)
    queries = SourceQueries(index)
    (construction,) = queries.model_constructions
    assert queries.model_compute(construction).dense == 1 + LOOP_REPEAT


def test_a_layer_in_the_else_branch_counts_where_the_defaults_skip_the_first_branch(index_of):
    """DCGAN-tensorflow builds `DCGAN(sess, y_dim=10)` under `if FLAGS.dataset == "mnist":` and `DCGAN(sess)` in the
    `else:` that the default dataset (celebA) runs, then trains it in a session: the else branch's model is the one
    training builds, not a duplicate of a branch that never runs."""
    index = index_of(code="""
        import tensorflow as tf

        flags = tf.app.flags
        flags.DEFINE_string("dataset", "celebA", "The name of dataset [celebA, mnist, lsun]")
        FLAGS = flags.FLAGS

        class DCGAN:
            def __init__(self, sess, y_dim=None):
                self.sess = sess
                images = tf.placeholder(tf.float32, [64, 64, 64, 3])
                h = tf.layers.conv2d(images, 128, 5, strides=2)
                h = tf.layers.conv2d(h, 256, 5, strides=2)
                self.loss = tf.reduce_mean(tf.layers.dense(tf.layers.flatten(h), 1))

            def train(self, config):
                optim = tf.train.AdamOptimizer(0.0002).minimize(self.loss)
                for step in range(10000):
                    self.sess.run(optim)

        def main(_):
            with tf.Session() as sess:
                if FLAGS.dataset == "mnist":
                    dcgan = DCGAN(sess, y_dim=10)
                else:
                    dcgan = DCGAN(sess)
                dcgan.train(FLAGS)

        if __name__ == "__main__":
            tf.app.run()
        """)
    queries = SourceQueries(index)
    (training,) = queries.graph_trainings
    assert queries.graph_model_compute(training).convolutions == 2


def test_a_repo_subclass_of_a_convolution_counts_as_one(index_of):
    index = index_of(code="""
        import tensorflow as tf

        class StandardizedConv2D(tf.keras.layers.Conv2D):
            def call(self, inputs):
                return super().call(inputs)

        class PaddedConv2D(StandardizedConv2D):
            pass

        class Block(tf.keras.layers.Layer):  # a layer that builds layers: followed, not counted itself
            def __init__(self):
                super().__init__()
                self.conv = PaddedConv2D(256, 3)

        def build():
            inputs = tf.keras.Input((224, 224, 3))
            x = StandardizedConv2D(64, 7)(inputs)
            for _ in range(3):
                x = Block()(x)
            return tf.keras.Model(inputs, StandardizedConv2D(8, 1)(x))

        model = build()
        model.fit(data)
        """)
    queries = SourceQueries(index)
    (construction,) = queries.model_constructions
    assert queries.model_compute(construction).convolutions == 4  # 1 + a loop of 3, the narrow head left out


@pytest.mark.parametrize("branches, convolutions", [(False, 11), (True, 0)])
def test_a_model_built_on_another_models_output_counts_its_layers_unless_the_other_is_an_alternative(
        index_of, branches: bool, convolutions: int):
    """An FCN's head is built on the output of a model made to load the backbone's weights: the backbone's layers
    are the FCN's too. Scaled-YOLOv4's export model, in the `else` of `if training:`, is built on the outputs the
    training model returns in the other branch: an alternative, not one built on the other, whose layers are
    counted where its own window starts."""
    body = """
            if training:
                model = tf.keras.Model(inputs=inputs, outputs=outputs)
                return model
            else:
                boxes = tf.keras.layers.Reshape((-1, 4))(outputs)
                return tf.keras.Model(inputs=inputs, outputs=boxes)""" if branches else """
            backbone = tf.keras.Model(inputs=inputs, outputs=outputs)
            backbone.load_weights("backbone.h5")
            boxes = tf.keras.layers.Reshape((-1, 4))(outputs)
            return tf.keras.Model(inputs=inputs, outputs=boxes)"""
    index = index_of(code="""
        import tensorflow as tf

        def build(training=True):
            inputs = tf.keras.Input((608, 608, 3))
            x = inputs
            for filters in (64, 128, 256, 512, 1024):
                x = tf.keras.layers.Conv2D(filters, 3, strides=2, padding="same")(x)
                x = tf.keras.layers.Conv2D(filters, 3, padding="same")(x)
            outputs = tf.keras.layers.Conv2D(255, 1)(x)""" + body + """

        model = build()
        model.fit(data)
        """)
    queries = SourceQueries(index)
    last = max((c for c in index.calls if "keras.Model" in c.names), key=lambda c: c.module.location(c.node).line)
    assert queries.model_compute(last).convolutions == convolutions


def test_the_model_a_setup_function_returns_in_a_tuple_is_followed_into_its_builder(index_of):
    index = index_of({
        "models.py": """
            from tensorflow.keras import Input, Model
            from tensorflow.keras.layers import Conv2D, Lambda

            def conv(x, filters):
                return Conv2D(filters, 3)(x)

            def block(x, filters):
                return conv(conv(x, filters), filters * 2)

            def Detector(size, training=False):
                x = inputs = Input([size, size, 3])
                for filters in (64, 128, 256):
                    x = block(x, filters)
                if training:
                    return Model(inputs, x)
                return Model(inputs, Lambda(decode)(x))

            def TinyDetector(size, training=False):
                x = inputs = Input([size, size, 3])
                return Model(inputs, conv(x, 16))
            """,
        "train.py": """
            from models import Detector, TinyDetector

            def setup(tiny):
                if tiny:
                    model = TinyDetector(416, training=True)
                else:
                    model = Detector(416, training=True)
                pretrained = Detector(416)
                optimizer = make_optimizer()
                return model, optimizer

            model, optimizer = setup(FLAGS.tiny)
            model.compile(optimizer=optimizer, loss="mse")
            model.fit(data)
            """,
    })
    queries = SourceQueries(index)
    compute = {c.function.name: queries.model_compute(c) for c in queries.model_constructions}
    # The model `setup` returns under `model` (the first of its alternatives), not the pretrained one it also
    # builds. The detector's layers count although the training `return Model(...)` comes first: the code after it
    # builds the other return.
    assert sorted(compute) == ["TinyDetector"]
    detector = next(c for c in index.calls if c.function is not None and c.function.name == "Detector"
                    and c.module.node_code(c.node).startswith("Model(inputs, Lambda"))
    assert (queries.model_compute(detector).convolutions, queries.model_compute(detector).heavy) == (6, True)


def test_the_model_a_builder_always_makes_is_the_one_it_returns_not_a_conditional_alternative(index_of):
    index = index_of(code="""
        import tensorflow as tf

        def get_model(name):
            model = tf.keras.applications.ResNet50(weights=None)
            if name == "resnet18":
                model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            return model

        model = get_model(FLAGS.model)
        model.fit(data)
        """)
    (construction,) = SourceQueries(index).model_constructions
    assert construction.module.node_code(construction.node.func) == "tf.keras.applications.ResNet50"


def test_a_pipeline_built_in_a_function_a_dataset_runs_per_element_is_an_inner_dataset(index_of):
    index = index_of({"train.py": """
        import tensorflow as tf

        def rows(path):
            return tf.data.TFRecordDataset(path).batch(4)

        def read_file(path):
            return rows(path)

        train = tf.data.Dataset.list_files("*.tfrecord").flat_map(read_file).batch(64)
        model.fit(train)
        """})
    queries = SourceQueries(index)
    # The dataflow links these inner datasets to their flat_map; the query answers for any stage, as rules ask it
    # when the link is out of sight (a flat_map in another module, a dynamic dispatch).
    inner = sorted((stage.module.location(stage.node).line, stage.op,
                    queries.built_per_element(stage)) for stage in index.stages())
    assert inner == [(5, "TFRecordDataset", True), (5, "batch", True), (10, "batch", False), (10, "flat_map", False),
                     (10, "list_files", False)]


def test_a_method_called_on_an_attribute_set_from_a_constructor_parameter_is_the_passed_objects(index_of):
    index = index_of(code="""
        import tensorflow as tf

        class Actor:
            def train(self, states):
                return states

        class Critic:
            def train(self, states):
                return states

        class Worker:
            def __init__(self, env, actor, critic=None):
                self.actor = actor
                self.critic = critic

            def run(self):
                for states in self.env:
                    self.actor.train(states)
                    self.critic.train(states)

        class Agent:
            def __init__(self):
                self.actor = Actor()

            def train(self):
                critic = Critic()
                Worker(env, self.actor, critic=critic).run()
        """)
    queries = SourceQueries(index)
    called = {cst.Module([]).code_for_node(c.node): sorted(f.key for f in queries.callees_of(c))
              for c in index.calls if "train(states)" in cst.Module([]).code_for_node(c.node)}
    assert called == {"self.actor.train(states)": ["train.Actor.train"],
                      "self.critic.train(states)": ["train.Critic.train"]}


def test_a_call_through_a_dispatch_table_calls_every_function_the_table_names(index_of):
    """A MuZero/AlphaZero repo's main picks its trainer from `switch = {"ALPHAZERO": learn_a0, "MUZERO": learn_m0}`
    and calls `switch[content.algorithm](game, content)`: both may run, and the training they start is reached. A
    key the script sets (a classifier's `backbone = "mobilenetv1"`) picks one."""
    index = index_of(code="""
        import tensorflow as tf

        def learn_a0(game, content):
            model.fit(game.examples(), epochs=content.epochs)

        def learn_m0(game, content):
            model.fit(game.trajectories(), epochs=content.epochs)

        def evaluate(game, content):
            model.evaluate(game.examples())

        if __name__ == "__main__":
            switch = {"ALPHAZERO": learn_a0, "MUZERO": learn_m0}
            switch[content.algorithm](game, content)
            {"eval": evaluate}[content.mode](game, content)
            algorithm = "MUZERO"  # a setting the script writes picks one
            switch[algorithm](game, content)
        """)
    queries = SourceQueries(index)
    called = {cst.Module([]).code_for_node(c.node): sorted(f.key for f in queries.callees_of(c))
              for c in index.calls if "](game, content)" in cst.Module([]).code_for_node(c.node)}
    assert called == {"switch[content.algorithm](game, content)": ["train.learn_a0", "train.learn_m0"],
                      '{"eval": evaluate}[content.mode](game, content)': ["train.evaluate"],
                      "switch[algorithm](game, content)": ["train.learn_m0"]}
    fits = [c for c in index.calls if ".fit(" in cst.Module([]).code_for_node(c.node)]
    assert {queries.reach(c.module, c.node).name for c in fits} == {"TRAINING"}


def test_objects_handed_to_a_base_class_constructor_resolve_their_methods(index_of):
    """MuZero's coach: `MuCoach.__init__` hands its network and its own search class to `Coach.__init__` through
    `super().__init__(game, neural_net, MCTS)`, which keeps the one and builds the other (`self.mcts =
    search_engine(game, neural_net)`); the network's base class builds its architecture from a table of classes
    (`self.network = builder(game)` with `NETWORKS[arch]` handed up by the subclass)."""
    index = index_of(code="""
        class AtariNetwork:
            def __init__(self, game):
                self.game = game

            def act(self, state):
                return state

        class Player:  # the same method names on classes the training does not use
            def act(self, state):
                return state

            def search(self, state):
                return state

            def train(self, batch):
                return batch

        NETWORKS = {"atari": AtariNetwork}

        class NeuralNet:
            def __init__(self, game, builder):
                self.network = builder(game)

        class DefaultNet(NeuralNet):
            def __init__(self, game, arch):
                super().__init__(game, NETWORKS[arch])

            def train(self, batch):
                return self.network.act(batch)

        class MCTS:
            def __init__(self, game, net):
                self.net = net

            def search(self, state):
                return state

        class Coach:
            def __init__(self, game, neural_net, search_engine):
                self.neural_net = neural_net
                self.mcts = search_engine(game, neural_net)

            def learn(self, batches):
                for batch in batches:
                    self.mcts.search(batch)
                    self.neural_net.train(batch)

        class MuCoach(Coach):
            def __init__(self, game, neural_net):
                super().__init__(game, neural_net, MCTS)

        MuCoach(game, DefaultNet(game, "atari")).learn(batches)
        """)
    queries = SourceQueries(index)
    called = {cst.Module([]).code_for_node(c.node): sorted(f.key for f in queries.callees_of(c))
              for c in index.calls if cst.Module([]).code_for_node(c.node).startswith("self.")}
    assert called == {"self.mcts.search(batch)": ["train.MCTS.search"],
                      "self.neural_net.train(batch)": ["train.DefaultNet.train"],
                      "self.network.act(batch)": ["train.AtariNetwork.act"]}


def test_a_method_of_an_object_a_library_made_is_not_the_repos_method_of_that_name(index_of):
    """The repo's one `run` method (a chatbot's) is what `bot.run()` may call on an object of unknown type (also one
    a local object's method made: `config.make_runner()`); not `sess.run(...)` on a session TensorFlow made,
    assigned, opened by `with`, or held in `self`."""
    index = index_of(code="""
        import tensorflow as tf

        class ChatBot:
            def run(self):
                print("chatting")

        class Trainer:
            def __init__(self):
                self.session = tf.Session()

            def step(self, op):
                self.session.run(op)

        def train(op, bot, config):
            with tf.Session() as sess:
                sess.run(op)
            session = tf.Session()
            session.run(op)
            bot.run()
            runner = config.make_runner()
            runner.run()
        """)
    queries = SourceQueries(index)
    called = {cst.Module([]).code_for_node(c.node): sorted(f.key for f in queries.callees_of(c))
              for c in index.calls if ".run(" in cst.Module([]).code_for_node(c.node)}
    assert called == {"self.session.run(op)": [], "sess.run(op)": [], "session.run(op)": [],
                      "bot.run()": ["train.ChatBot.run"], "runner.run()": ["train.ChatBot.run"]}


def test_each_model_built_at_module_level_counts_its_own_layers(index_of):
    index = index_of(code="""
        import tensorflow as tf

        mlp = tf.keras.Sequential([tf.keras.layers.Dense(300), tf.keras.layers.Dense(100), tf.keras.layers.Dense(10)])
        mlp.compile(optimizer="sgd", loss="mse")
        mlp.fit(x, y)

        inputs = tf.keras.Input((64, 64, 3))
        h = tf.keras.layers.Conv2D(64, 7)(inputs)
        for filters in (128, 256, 256, 512):
            h = tf.keras.layers.Conv2D(filters, 3)(h)
        cnn = tf.keras.Model(inputs, tf.keras.layers.Dense(10)(h))
        cnn.compile(optimizer="sgd", loss="mse")
        cnn.fit(x, y)

        grown = tf.keras.Sequential()
        grown.add(tf.keras.layers.Dense(512))
        grown.add(tf.keras.layers.Dense(512))
        grown.compile(optimizer="sgd", loss="mse")
        grown.fit(x, y)

        backbone = tf.keras.applications.MobileNetV2(weights=None)
        wrapped = tf.keras.Sequential([backbone, tf.keras.layers.Dense(10)])
        wrapped.compile(optimizer="sgd", loss="mse")
        wrapped.fit(x, y)
        """)
    queries = SourceQueries(index)
    module = index.modules[0]
    compute = {module.location(c.node).line: queries.model_compute(c) for c in queries.model_constructions}
    # A notebook or a script builds model after model: each counts the layers that build it, not the module's.
    assert {line: (c.convolutions, c.dense, c.heavy) for line, c in compute.items()} == {
        4: (0, 1, False), 12: (5, 0, True), 16: (0, 2, False), 23: (0, 0, True)}
    assert compute[23].application == "tf.keras.applications.MobileNetV2"


def test_a_loop_over_an_enumerated_or_zipped_list_runs_once_per_element(index_of):
    """`for i, c in enumerate(channels)` runs over the list's values (`c` is the width), `zip(kernels, filters)` as
    often as its first list holds values, whose values are not the width."""
    index = index_of(code="""
        import tensorflow as tf

        def build(x, num_channels):
            channels = [num_channels, num_channels * 2]
            for i, c in enumerate(channels):
                x = tf.keras.layers.Conv2D(c, 3)(x)
            for i, c in enumerate([16, 32, 256]):
                x = tf.keras.layers.Conv2D(c, 3)(x)
            for k, f in zip([3, 3], [256, 512]):
                x = tf.keras.layers.Conv2D(f, k)(x)
            return tf.keras.Model(x, x)

        model = build(tf.keras.Input((224, 224, 3)), params.num_channels)
        model.compile(optimizer="sgd", loss="mse")
        model.fit(x, y)
        """)
    queries = SourceQueries(index)
    (construction,) = queries.model_constructions
    assert queries.model_compute(construction).convolutions == 2 + 1 + 2  # not 4 times each loop


def test_a_loop_over_a_list_parameter_runs_over_what_is_passed_else_its_default(index_of):
    """DeepLearningZeroToAll's MLP class loops over `hidden_dims=[32, 32]`, which no construction passes: two narrow
    layers, not four wide ones; a construction that passes wide ones counts those."""
    index = index_of(code="""
        import tensorflow as tf

        class MLP:
            def __init__(self, name, hidden_dims=[32, 32]):
                net = tf.placeholder(tf.float32, [None, 784])
                for i, h_dim in enumerate(hidden_dims):
                    net = tf.layers.dense(net, h_dim)
                loss = tf.reduce_mean(tf.layers.dense(net, 10))
                self.train_op = tf.train.AdamOptimizer().minimize(loss)

        def wide(width):
            net = tf.placeholder(tf.float32, [None, 784])
            for units in width:
                net = tf.layers.dense(net, units)
            return tf.train.AdamOptimizer().minimize(tf.reduce_mean(net))

        small = MLP("small")
        train_op = wide([1024, 1024, 1024])
        """)
    queries = SourceQueries(index)
    counts = [queries.graph_model_compute(training).dense for training in queries.graph_trainings]
    assert counts == [0, 3]


def test_a_few_convolutions_on_small_images_are_cheap_a_deep_network_on_them_is_not(index_of):
    index = index_of(code="""
        import tensorflow as tf

        images = tf.placeholder(tf.float32, [None, 28, 28, 1])
        x = tf.layers.conv2d(images, 64, 5)
        x = tf.layers.conv2d(x, 128, 5)
        fake = tf.layers.conv2d_transpose(tf.layers.conv2d_transpose(x, 128, 5), 64, 5)
        d_step = tf.train.AdamOptimizer().minimize(tf.reduce_mean(fake))

        def resnet(images):
            x = images
            for filters in (64, 64, 128, 128):
                x = tf.layers.conv2d(tf.layers.conv2d(x, filters, 3), filters, 3)
            return x

        def train():
            loss = tf.reduce_mean(resnet(tf.placeholder(tf.float32, [None, 32, 32, 3])))
            return tf.train.AdamOptimizer().minimize(loss)
        """)
    queries = SourceQueries(index)
    small, deep = (queries.graph_model_compute(t) for t in queries.graph_trainings)
    assert (small.convolutions, small.image_side, small.heavy) == (4, 28, False)  # a GAN on MNIST
    assert (deep.convolutions, deep.image_side, deep.heavy) == (8, 32, True)  # a ResNet on CIFAR
    assert "on 28-pixel images" in small.describe()


def test_narrow_layers_do_not_make_a_model_heavy_whatever_their_number(index_of):
    index = index_of(code="""
        import tensorflow as tf

        N_FILTERS = 32

        def block(x, filters):
            return tf.keras.layers.Conv2D(2 * filters, 3)(x)

        inputs = tf.keras.Input((28, 28, 1))
        x = inputs
        for _ in range(4):
            x = tf.keras.layers.Conv1D(N_FILTERS, 2)(x)
            x = block(x, 16)
            x = block(x, N_FILTERS)
        model = tf.keras.Model(inputs, x)
        model.compile(optimizer="sgd", loss="mse")
        model.fit(data)
        """)
    queries = SourceQueries(index)
    (construction,) = queries.model_constructions
    # Conv1D(32) is narrow; block's 2 * 16 filters too; 2 * N_FILTERS = 64 filters count, four times (the loop).
    assert queries.model_compute(construction).convolutions == 4


def test_widths_read_from_a_list_or_dict_item_are_that_item(index_of):
    index = index_of(code="""
        import tensorflow as tf

        N_FILTERS = [16, 32, 48]

        def build(conv_n_filters=(16, 32, 48, 64), config={"filters": 32, "wide": 128}):
            inputs = tf.keras.Input((512, 512, 3))
            x = tf.keras.layers.Conv2D(conv_n_filters[0], 3)(inputs)
            x = tf.keras.layers.Conv2D(N_FILTERS[-1], 3)(x)
            x = tf.keras.layers.Conv2D(config["filters"], 3)(x)
            x = tf.keras.layers.Conv2D(config["wide"], 3)(x)
            for i in range(2):
                x = tf.keras.layers.Conv2D(conv_n_filters[i], 3)(x)
            return tf.keras.Model(inputs, x)

        model = build()
        model.compile(optimizer="sgd", loss="mse")
        model.fit(data)
        """)
    queries = SourceQueries(index)
    (construction,) = queries.model_constructions
    # 16, 48 and 32 filters are narrow; config["wide"] counts; an index the source leaves open reads the widest item
    # (64 filters), twice.
    assert queries.model_compute(construction).convolutions == 3


def test_widths_are_read_through_attributes_constructor_arguments_and_flag_defaults(index_of):
    # A TensorFlow 1.x model class: its weights are variables whose widths come from the constructor, which the
    # training script calls with flags; the repo's other script defines the same flag with another default.
    index = index_of({"model.py": """
        import tensorflow as tf

        class TextModel:
            def __init__(self, hidden_size, num_classes):
                self.hidden_size = hidden_size
                self.W = tf.get_variable("W", shape=[self.hidden_size, self.hidden_size])
                self.W_out = tf.Variable(tf.truncated_normal([hidden_size, num_classes]))
                self.train_op = self.train(self.inference())

            def inference(self):
                x = self.inputs
                for _ in range(8):
                    x = tf.matmul(x, self.W)
                return tf.matmul(x, self.W_out)

            def train(self, logits):
                return tf.train.AdamOptimizer().minimize(tf.reduce_mean(logits))
        """, "train.py": """
        import tensorflow as tf
        from model import TextModel

        FLAGS = tf.app.flags.FLAGS
        tf.app.flags.DEFINE_integer("hidden_size", 100, "width of the hidden layers")

        def main(_):
            model = TextModel(FLAGS.hidden_size, num_classes=10)
            with tf.Session() as sess:
                for _ in range(1000):
                    sess.run(model.train_op)

        if __name__ == "__main__":
            tf.app.run()
        """, "train_wide.py": """
        from absl import flags
        flags.DEFINE_integer("hidden_size", 1024, "width of the hidden layers")
        """})
    queries = SourceQueries(index)
    (training,) = queries.graph_trainings
    train_script = next(module for module in index.modules if module.path.name == "train.py")
    flag = cst.parse_expression("FLAGS.hidden_size")
    assert train_script.node_code(queries.flag_default(train_script, flag)[1]) == "100"  # its own definition
    model = next(module for module in index.modules if module.path.name == "model.py")
    # Read elsewhere, the flag has no one default: the repo's two definitions disagree.
    assert queries.flag_default(model, cst.parse_expression("tf.app.flags.FLAGS.hidden_size")) is None
    # 100-wide matrix multiplications (8 in a loop, and the 10-class output) are no work for matrix units.
    assert (queries.graph_model_compute(training).dense, queries.graph_model_compute(training).heavy) == (0, False)


def test_a_raw_op_counts_as_often_as_its_weight_variable_is_made(index_of):
    # A recurrence applies the weights its constructor made at every time step: two layers' work, not one per step;
    # a helper that makes its own variable makes a new layer at each call (six calls in a loop: counted as a loop).
    index = index_of(code="""
        import tensorflow as tf

        class RNN:
            def __init__(self, inputs):
                self.inputs = inputs
                self.W = tf.get_variable("W", shape=[512, 512])
                self.U = tf.Variable(tf.truncated_normal([512, 512]))
                self.train_op = tf.train.AdamOptimizer().minimize(tf.reduce_mean(self.unroll()))

            def step(self, x, h):
                return tf.tanh(tf.matmul(x, self.W) + tf.matmul(h, self.U))

            def unroll(self):
                h = tf.zeros([32, 512])
                for x in self.inputs:
                    h = self.step(x, h)
                return h

        def dense(x, units):
            W = tf.get_variable("W", shape=[512, units])
            return tf.matmul(x, W)

        def mlp(x):
            for _ in range(6):
                x = dense(x, 512)
            return tf.train.AdamOptimizer().minimize(tf.reduce_mean(x))
        """)
    queries = SourceQueries(index)
    recurrence, mlp = (queries.graph_model_compute(t) for t in queries.graph_trainings)
    assert (recurrence.dense, mlp.dense) == (2, 6)  # the loop runs the helper six times, as written


@pytest.mark.parametrize("units, dense", [("100", 0), ("1024", 8), ("config.lstm_dim", 0)])
def test_a_repos_own_rnn_cell_counts_as_a_recurrent_layer(index_of, units: str, dense: int):
    """A NER tagger's own LSTM cell multiplies by eight weights at every time step: a recurrent layer, counted only
    where it is 512 units or wider (a 100-unit BiLSTM is launch-bound), not eight dense layers of unknown width."""
    index = index_of(code=f"""
        import tensorflow as tf
        from tensorflow.python.ops import rnn_cell_impl

        class PeepholeLSTMCell(rnn_cell_impl.RNNCell):
            def __init__(self, num_units):
                self._num_units = num_units

            def __call__(self, inputs, state):
                size = inputs.get_shape()[-1]
                out = inputs
                for gate in ["i", "f", "o", "c"]:
                    w_x = tf.get_variable("w_x" + gate, [size, self._num_units])
                    w_h = tf.get_variable("w_h" + gate, [self._num_units, self._num_units])
                    out = tf.matmul(inputs, w_x) + tf.matmul(state, w_h)
                return out, out

        def train(inputs, num_units):
            cell = PeepholeLSTMCell(num_units)
            outputs, _ = tf.nn.dynamic_rnn(cell, inputs, dtype=tf.float32)
            return tf.train.AdamOptimizer().minimize(tf.reduce_mean(outputs))

        train_op = train(tf.placeholder(tf.float32, [None, 50, 300]), {units})
        """)
    queries = SourceQueries(index)
    (training,) = queries.graph_trainings
    assert queries.graph_model_compute(training).dense == dense


def test_a_one_wide_raw_convolution_is_a_dense_layer(index_of):
    """xDeepFM's compressed interaction layers: `tf.nn.conv1d` by a `[1, m * h, size]` filter is a dense layer at
    every position, in a loop over the layer sizes."""
    index = index_of(code="""
        import tensorflow as tf

        def cin(x, sizes):
            for idx, size in enumerate(sizes):
                filters = tf.get_variable("f_" + str(idx), shape=[1, 39 * 39, size])
                x = tf.nn.conv1d(x, filters=filters, stride=1, padding="VALID")
            return x

        train_op = tf.train.AdamOptimizer().minimize(tf.reduce_mean(cin(features, [128, 128, 128])))
        """)
    queries = SourceQueries(index)
    (training,) = queries.graph_trainings
    compute = queries.graph_model_compute(training)
    assert (compute.convolutions, compute.dense) == (0, LOOP_REPEAT)  # a raw op's loop: counted as a loop


def test_a_parameter_no_call_passes_has_its_default(index_of):
    """A recommender's `build_network(self, L, n_h=16, n_v=4)` is called by a script left out as a test: its
    convolutions of `self.n_v` filters are as narrow as its defaults say."""
    index = index_of(code="""
        import tensorflow as tf

        class Caser:
            def build_network(self, L, n_h=16, n_v=4):
                self.n_v = n_v
                self.n_h = n_h
                x = tf.expand_dims(self.items, 3)
                out_v = tf.layers.conv2d(x, filters=self.n_v, kernel_size=(L, 1))
                for i in range(L):
                    out_h = tf.layers.conv2d(x, filters=self.n_h, kernel_size=(i + 1, 150))
                self.optimizer = tf.train.AdamOptimizer().minimize(tf.reduce_mean(out_v) + tf.reduce_mean(out_h))
        """)
    queries = SourceQueries(index)
    (training,) = queries.graph_trainings
    assert queries.graph_model_compute(training).convolutions == 0


@pytest.mark.parametrize("units, dense", [(40, 0), (512, 2)])
def test_an_estimators_model_function_reads_the_params_it_was_made_with(index_of, units: int, dense: int):
    """`tf.estimator.Estimator(model_fn=model_fn, params={"units": FLAGS.units})` calls `model_fn(features, labels,
    mode, params)`: its layers are as wide as the params say."""
    index = index_of(code=f"""
        import tensorflow as tf

        tf.app.flags.DEFINE_integer("units", {units}, "width")
        FLAGS = tf.app.flags.FLAGS

        def model_fn(features, labels, mode, params):
            x = features["x"]
            for _ in range(params["blocks"]):
                x = tf.layers.dense(x, params["units"])
            loss = tf.losses.sigmoid_cross_entropy(labels, tf.layers.dense(x, 1))
            train_op = tf.train.AdagradOptimizer(0.01).minimize(loss, global_step=tf.train.get_global_step())
            return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

        model = tf.estimator.Estimator(model_fn=model_fn, params={{"units": FLAGS.units, "blocks": 2}})
        model.train(input_fn)
        """)
    queries = SourceQueries(index)
    (training,) = queries.graph_trainings
    assert queries.graph_model_compute(training).dense == dense


def test_a_block_class_passed_down_as_a_parameter_is_counted_where_it_is_called(index_of):
    # ResNets written as `BlockGroup(block_fn=...)`: the block class travels through parameters from a table.
    index = index_of(code="""
        import tensorflow as tf

        class Bottleneck(tf.keras.layers.Layer):
            def __init__(self, filters):
                super().__init__()
                self.convs = [tf.keras.layers.Conv2D(filters, 3) for _ in range(3)]

        class BlockGroup(tf.keras.layers.Layer):
            def __init__(self, filters, block_fn, blocks):
                super().__init__()
                self.blocks = [block_fn(filters) for _ in range(blocks)]

        class ResNet(tf.keras.Model):
            def __init__(self, block_fn, width):
                super().__init__()
                self.groups = [BlockGroup(64 * width, block_fn, 3), BlockGroup(128 * width, block_fn, 4)]

        def resnet(depth, width=1):
            params = {50: {"block": Bottleneck, "layers": [3, 4, 6, 3]}}[depth]
            return ResNet(params["block"], width)

        model = resnet(50)
        model.compile(optimizer="sgd", loss="mse")
        model.fit(data)
        """)
    queries = SourceQueries(index)
    (construction,) = queries.model_constructions
    # Two groups of a repeated block of a repeated convolution, each comprehension counted as it runs: 3 and 4
    # blocks of 3 convolutions, both groups as wide.
    assert queries.model_compute(construction).convolutions == 3 * 3 + 4 * 3


def test_a_keras_application_chosen_from_a_table_of_them_is_what_the_model_builds(index_of):
    index = index_of(code="""
        import tensorflow as tf

        BACKBONES = {"resnet50": tf.keras.applications.ResNet50, "mobilenet": tf.keras.applications.MobileNetV2}

        def build(name):
            backbone = BACKBONES[name](include_top=False, weights=None, input_shape=(224, 224, 3))
            outputs = tf.keras.layers.Dense(1000)(tf.keras.layers.GlobalAveragePooling2D()(backbone.output))
            return tf.keras.Model(backbone.input, outputs)

        model = build(FLAGS.model)
        model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
        model.fit(data)
        """)
    queries = SourceQueries(index)
    (construction,) = queries.model_constructions
    compute = queries.model_compute(construction)
    assert (compute.heavy, compute.application) == (True, "BACKBONES[name]")


def test_a_closure_trains_the_model_bound_when_it_runs_not_one_made_below_it(index_of):
    index = index_of(code="""
        import tensorflow as tf

        def main(train, evaluate):
            model = tf.keras.Sequential([tf.keras.layers.Conv2D(64, 3)])
            if train:
                def step(x):
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean(model(x))
                    grads = tape.gradient(loss, model.trainable_variables)
                    optimizer.apply_gradients(zip(grads, model.trainable_variables))
                for x in dataset:
                    step(x)
            if evaluate:
                model = tf.keras.Sequential([tf.keras.layers.Conv2D(8, 3)])
                model.evaluate(test_data)
        """)
    (construction,) = SourceQueries(index).model_constructions
    assert construction.module.location(construction.node).line == 5


# -- TensorFlow 1.x session loops ----------------------------------------------------------------------------------

SESSION_MODEL = """
    import tensorflow as tf

    class TextCNN:
        def __init__(self):
            self.input_x = tf.placeholder(tf.int32, [None, 200])
            self.loss_val = self.loss()
            self.train_op = self.train()

        def train(self):
            train_op = tf.train.AdamOptimizer(1e-3).minimize(self.loss_val)
            return train_op
"""


def test_a_loop_that_runs_an_attribute_holding_a_methods_training_op_is_a_session_loop(index_of):
    index = index_of({"model.py": SESSION_MODEL, "train.py": """
        import tensorflow as tf
        from model import TextCNN

        model = TextCNN()
        with tf.Session() as sess:
            for epoch in range(10):
                for start, end in zip(range(0, n, 64), range(64, n, 64)):
                    feed_dict = {model.input_x: trainX[start:end], model.dropout_keep_prob: 0.8}
                    feed_dict[model.input_y] = trainY[start:end]
                    loss, _ = sess.run([model.loss_val, model.train_op], feed_dict)
            print(sess.run(model.loss_val, feed_dict={model.input_x: testX}))
    """})
    queries = SourceQueries(index)
    (loop,) = queries.session_loops
    train = module(index)
    assert train.location(loop.node).line == 8 and len(loop.session_runs) == 1
    fed = queries.fed_batches(loop)
    assert sorted(train.node_code(e) for e in fed.made) == ["trainX[start:end]", "trainY[start:end]"]
    assert fed.work == []  # slices of arrays in memory


def test_a_feed_of_settings_only_feeds_no_batches_and_fed_reads_are_extra_runs(index_of):
    """A run for its effect (a reset) or an unfed read (a counter) is no second pass over the data."""
    index = index_of(code="""
        import tensorflow as tf

        images, labels = tf.train.shuffle_batch([image, label], batch_size=32, capacity=100, min_after_dequeue=50)
        train_op = tf.train.AdamOptimizer(1e-3).minimize(loss)
        with tf.Session() as sess:
            for step in range(1000):
                lr = 0.1 * 0.99 ** step
                sess.run(reset_op)
                sess.run(train_op, feed_dict={keep_prob: 0.5, learning_rate: lr})
                step = sess.run(global_step)
                print(loss.eval(), sess.run(accuracy, feed_dict={keep_prob: 1.0}))
    """)
    queries = SourceQueries(index)
    (loop,) = queries.session_loops
    assert queries.fed_batches(loop) is None
    assert [module(index).node_code(c.func) for c in queries.extra_session_runs(loop)] == ["loss.eval", "sess.run"]


def test_a_loop_steps_an_environment_in_the_functions_it_calls_or_through_a_driver(index_of):
    index = index_of(code="""
        import tensorflow as tf

        def collect_step(environment, policy):
            action = policy.action(environment.current_time_step())
            environment.step(action)

        @tf.function
        def train(experience):
            with tf.GradientTape() as tape:
                loss = agent_loss(experience)
            optimizer.apply_gradients(zip(tape.gradient(loss, weights), weights))
            return loss

        for _ in range(1000):
            collect_step(train_env, collect_policy)
            train(next(iterator))

        for _ in range(1000):
            time_step, _ = collect_driver.run(time_step)
            train(next(iterator))
        """)
    queries = SourceQueries(index)
    train = module(index)
    steps = {train.location(loop.node).line: queries.environment_step(loop) for loop in queries.training_loops}
    assert {line: train.node_code(site.node.func) for line, site in steps.items()} == {
        15: "environment.step", 19: "collect_driver.run"}


def test_the_branches_a_run_with_the_source_defaults_skips(index_of):
    index = index_of({"train.py": """
        import tensorflow as tf

        DEBUG = False
        LAYERS = (2, 3)
        tf.app.flags.DEFINE_string("optimizer", "adam", "which optimizer")
        FLAGS = tf.app.flags.FLAGS

        def train(verbose):
            if not DEBUG:
                fast()
            else:
                slow()
            if FLAGS.optimizer in ("sgd", "momentum") or DEBUG:
                sgd()
            if 2 < LAYERS[0] <= 4 and FLAGS.optimizer is not None:
                unknown()
            if verbose:
                log()
            if LAYERS == (2, 3) and FLAGS.optimizer != "sgd":
                adam()
        """})
    queries = SourceQueries(index)
    (module,) = index.modules
    skipped = {line: queries.skipped_by_default(module, line) for line in range(1, 23)}
    # (the file's lines count from its leading empty line): `else:` and `slow()`, and `sgd()`
    assert {line for line, branch in skipped.items() if branch is not None} == {12, 13, 15}
    assert (skipped[13].test, skipped[13].value, skipped[13].location.line) == ("not DEBUG", True, 10)
    assert (skipped[15].test, skipped[15].value) == ('FLAGS.optimizer in ("sgd", "momentum") or DEBUG', False)


def test_argparse_defaults_are_what_a_run_reads_unless_the_code_writes_the_arguments(index_of):
    index = index_of({"options.py": """
        import argparse

        def get_args():
            parser = argparse.ArgumentParser()
            parser.add_argument("--batch-size", type=int, default=64)
            parser.add_argument("--debug", action="store_true")
            parser.add_argument("--no-augment", dest="augment", action="store_false")
            parser.add_argument("--data", required=True)
            parser.add_argument("--epochs", type=int, default=90)
            parser.add_argument("--resume")
            parser.add_argument("--mode", nargs="?")
            parser.add_argument("mode", nargs="?")
            parser.add_argument("config", nargs="?", default="base.yaml")
            parser.add_argument("--lr", type=float, default=0.1)
            parser.set_defaults(lr=0.01)
            args = parser.parse_args()
            return args
        """, "train.py": """
        from options import get_args

        args = get_args()
        if args.debug:
            args.epochs = 1
        config = load_config()
        print(args.batch_size, args.debug, args.augment, args.data, args.epochs, args.resume, args.lr, args.mode)
        """})
    queries = SourceQueries(index)
    train = next(module for module in index.modules if module.path.name == "train.py")

    def default(code: str) -> str | None:
        found = queries.flag_default(train, cst.parse_expression(code))
        return found[1].value if isinstance(found, tuple) and isinstance(found[1], cst.Name) else \
            found[0].node_code(found[1]) if found is not None else None

    assert default("args.batch_size") == "64"  # --batch-size's destination
    assert (default("args.debug"), default("args.augment")) == ("False", "True")  # store_true, store_false
    assert default("args.data") is None  # required: a run always passes it
    assert default("args.resume") == "None"  # argparse's own default
    assert default("args.mode") is None  # also positional: the user gives it
    assert default("args.config") is None  # positional: the user gives it, or may
    assert default("args.epochs") is None  # written by the script: its default is not what the run reads
    assert default("args.lr") is None  # two definitions that disagree
    assert default("config.batch_size") is None  # not what argparse parsed


def test_tensorflow_1_api_in_a_branch_on_the_running_version_says_nothing_of_it(index_of):
    index = index_of({"both.py": """
        import tensorflow as tf

        def sequence_lengths(ds):
            if tf.executing_eagerly():
                return [len(x) for x in ds]
            else:
                with tf.Session() as sess:
                    return sess.run(ds.make_one_shot_iterator().get_next())
        """, "graph.py": """
        import tensorflow as tf

        with tf.Session() as sess:
            sess.run(train_op)
        """})
    queries = SourceQueries(index)
    both, graph = (next(m for m in index.modules if m.path.name == name) for name in ("both.py", "graph.py"))
    assert queries.tf1_call([both]) is None
    assert graph.node_code(queries.tf1_call([graph]).node) == "tf.Session()"


def test_a_folder_that_asserts_tensorflow_2_is_no_tensorflow_1_program(index_of):
    index = index_of({"colorbot/main.py": """
        import tensorflow as tf
        from utils import load_dataset

        assert tf.__version__.startswith("2.")
        """, "colorbot/utils.py": """
        import tensorflow as tf

        def parse(line):
            return tf.string_split([line], ",").values
        """, "colorbot/eager_demo.py": """
        import tensorflow as tf

        tf.enable_eager_execution()
        """, "legacy/utils.py": """
        import tensorflow as tf

        def parse(line):
            return tf.string_split([line], ",").values
        """})
    queries = SourceQueries(index)
    colorbot, demo, legacy = (next(m for m in index.modules if m.path.as_posix() == path)
                              for path in ("colorbot/utils.py", "colorbot/eager_demo.py", "legacy/utils.py"))
    assert queries.tf1_call([colorbot]) is None  # imported by the program that asserts TensorFlow 2
    # A program of its own beside it (a TensorFlow 1.x eager demo), and a same-named module elsewhere, are not.
    assert queries.tf1_call([demo]) is not None and queries.tf1_call([legacy]) is not None


def test_an_init_defined_in_a_function_and_passed_to_type_is_no_method_of_a_class(index_of):
    index = index_of(code="""
        def remapped(source, names):
            def __init__(self, source, names):
                self._names = names

            def _setup(self, inputs):
                return inputs

            cls = type("Remapped", (object,), {"__init__": __init__, "_setup": _setup})
            return cls(source, names)

        remapped(None, ["image"])
        """)
    queries = SourceQueries(index)
    assert queries.reach(module(index), function(index, "_setup").node) is not None



_PICKED_GENERATOR = """
import tensorflow as tf

def yolo3_generator(lines):
    while True:
        yield [open(line).read() for line in lines], None

def yolo2_generator(lines):
    while True:
        yield [open(line).read() for line in lines], None

def train(model_type, lines, model):
    if model_type == "yolo3":
        data_generator = yolo3_generator
    else:
        data_generator = yolo2_generator
    model.fit(data_generator(lines), epochs=10)
"""
# Prints the functions `data_generator(lines)` runs, in the order the queries give them.
_CALLEES_PROBE = """
import sys
from pathlib import Path
from advisor.source.index import SourceIndex
from advisor.source.queries import SourceQueries
from advisor.source.walk import SourceFile

root = Path(sys.argv[1])
index = SourceIndex.build(root, [SourceFile(Path("train.py"), root / "train.py", (root / "train.py").read_bytes())], 1)
site, = [c for c in index.calls if c.module.node_code(c.node) == "data_generator(lines)"]
print([f.name for f in SourceQueries(index).callees_of(site)])
"""


def test_a_name_bound_to_several_functions_calls_them_in_source_order(tmp_path):
    """keras-YOLOv3-model-set binds `data_generator` to one generator per model type: the functions a call of it
    runs come in the order the code binds them, whatever Python's hash seed (a set of their names once made the
    evidence name a different generator from one run to the next)."""
    (tmp_path / "train.py").write_text(_PICKED_GENERATOR)
    runs = {subprocess.run([sys.executable, "-c", _CALLEES_PROBE, str(tmp_path)], capture_output=True, text=True,
                           check=True, env={**os.environ, "PYTHONHASHSEED": str(seed)}).stdout.strip()
            for seed in range(6)}
    assert runs == {"['yolo3_generator', 'yolo2_generator']"}
