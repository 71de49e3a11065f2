"""How training code is really written, one pattern per test (issue #11): each small repo here is written for this
test, in the shape public repos use, and the test says what advisor must report and where.

Static analysis only; the findings a pattern must not produce are asserted as much as the ones it must.
"""

from __future__ import annotations

import textwrap

import pytest

from advisor.config import Settings
from advisor.engine import analyze_texts
from advisor.model import Confidence, Reach


def _findings(files: dict[str, str], *codes: str, show_all: bool = False):
    settings = Settings(select=codes or ("ALL",), show_all=show_all)
    sources = {path: textwrap.dedent(text).lstrip("\n") for path, text in files.items()}
    return analyze_texts(sources, settings)


def _where(findings) -> list[tuple[str, str, int]]:
    return sorted((f.code, f.location.path.as_posix(), f.location.line) for f in findings)


def test_a_step_closure_in_main_fed_by_a_python_iterator():
    findings = _findings({"run.py": """
        import tensorflow as tf

        class Batches:
            def __iter__(self):
                return self
            def __next__(self):
                return tf.ones((4, 3)), tf.ones((4, 1))

        def main():
            net = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            opt = tf.keras.optimizers.SGD()

            def step(x, y):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean((net(x) - y) ** 2)
                opt.apply_gradients(zip(tape.gradient(loss, net.trainable_variables), net.trainable_variables))
                return loss.numpy()

            for x, y in Batches():
                value = step(x, y)
                print(value)

        main()
        """}, "TFH002", "TFH004")
    # The closure is the eager step; `.numpy()` inside it syncs every step; printing the Python float it returns
    # is not a sync.
    assert _where(findings) == [("TFH002", "run.py", 13), ("TFH004", "run.py", 17)]


def test_step_results_read_with_numpy_in_a_method_a_while_loop_calls():
    findings = _findings({"trainer.py": """
        import numpy as np
        import tensorflow as tf

        class Runner:
            def __init__(self):
                self.net = tf.keras.Sequential([tf.keras.layers.Dense(1)])
                self.opt = tf.keras.optimizers.Adam()
                self.count = 0

            @tf.function
            def update(self, batch):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_sum(self.net(batch))
                self.opt.apply_gradients(zip(tape.gradient(loss, self.net.trainable_variables),
                                             self.net.trainable_variables))
                return loss

            def run_once(self):
                loss = self.update(tf.zeros((2, 3)))
                self.history = np.asarray(loss)
                self.count += 1

        runner = Runner()
        while runner.count < 10:
            runner.run_once()
        """}, "TFH004")
    assert _where(findings) == [("TFH004", "trainer.py", 20)]
    assert "runs every step" in findings[0].message


def test_a_step_reached_through_a_method_of_an_object_of_unknown_type():
    findings = _findings({"loop.py": """
        import tensorflow as tf

        net = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        opt = tf.keras.optimizers.Adam()

        def update(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(net(x))
            opt.apply_gradients(zip(tape.gradient(loss, net.trainable_variables), net.trainable_variables))
            return loss

        class Driver:
            def go(self):
                loss = update(tf.zeros((2, 3)))
                print(int(loss))

        driver = Driver()
        for _ in range(5):
            driver.go()
        """}, "TFH002", "TFH004")
    assert _where(findings) == [("TFH002", "loop.py", 6), ("TFH004", "loop.py", 15)]


def test_a_gradient_loop_that_updates_an_input_image_is_not_training():
    findings = _findings({"visualize.py": """
        import tensorflow as tf

        model = tf.keras.applications.VGG16(include_top=False)
        image = tf.Variable(tf.random.uniform((1, 64, 64, 3)))
        for _ in range(30):
            with tf.GradientTape() as tape:
                activation = tf.reduce_mean(model(image)[..., 7])
            grads = tape.gradient(activation, image)
            image.assign_add(grads * 0.1)
            print(float(activation))
        """}, "TFH", "TFC")
    assert findings == []


def test_datasets_from_a_dict_with_random_augmentation_in_a_callable_object():
    findings = _findings({
        "pipeline.py": """
            import tensorflow as tf

            class Jitter:
                def __call__(self, sample):
                    image = tf.image.random_brightness(sample["image"], 0.2)
                    return image, sample["label"]

            def make_train(splits, batch):
                jitter = Jitter()
                return splits["train"].shuffle(512).map(jitter).batch(batch)

            def make_eval(splits, batch):
                return splits["test"].map(lambda s: (s["image"], s["label"])).batch(batch)
            """,
        "fit.py": """
            import tensorflow as tf
            import tensorflow_datasets as tfds
            from pipeline import make_eval, make_train

            splits = tfds.load("beans")
            model = tf.keras.Sequential([tf.keras.layers.Flatten(), tf.keras.layers.Dense(3)])
            model.compile("adam", "sparse_categorical_crossentropy")
            model.fit(make_train(splits, 32), validation_data=make_eval(splits, 32))
            """}, "TFD002")
    # The random map is stateful: TensorFlow will not parallelize it at run time. Selecting fields is no finding.
    assert _where(findings) == [("TFD002", "pipeline.py", 10)]
    assert findings[0].confidence == Confidence.LIKELY and "stateful" in findings[0].message


def test_a_star_import_and_a_global_dataset_defined_below_the_function_that_trains():
    findings = _findings({
        "common.py": """
            import tensorflow as tf

            def records(paths):
                options = tf.data.Options()
                options.experimental_optimization.apply_default_optimizations = False
                ds = tf.data.TFRecordDataset(paths).map(tf.io.parse_tensor_wrapper)
                return ds.with_options(options)
            """,
        "train.py": """
            import tensorflow as tf
            from common import *

            def fit(model):
                model.fit(train_ds, epochs=2)

            train_ds = records(["a.tfrecord"]).batch(16)
            fit(tf.keras.Sequential([tf.keras.layers.Dense(1)]))
            """}, "TFD001", "TFD002")
    assert _where(findings) == [("TFD001", "train.py", 7), ("TFD002", "common.py", 6)]
    (prefetch,) = [f for f in findings if f.code == "TFD001"]
    assert "consumed by train at train.py:5" in prefetch.evidence[0].message


def test_tf1_input_functions_end_where_they_return_their_pipeline():
    findings = _findings({"input.py": """
        import tensorflow.compat.v1 as tf

        def train_input_fn(files, parse, batch):
            ds = tf.data.TFRecordDataset(files).repeat()
            return ds.map(parse).batch(batch)

        def eval_input_fn(files, parse, batch):
            return tf.data.TFRecordDataset(files).map(parse).batch(batch)
        """}, "TFD001")
    # No caller in sight: an Estimator calls them. The evaluation one ranks lower.
    assert _where(findings) == [("TFD001", "input.py", 5), ("TFD001", "input.py", 8)]
    train, evaluation = sorted(findings, key=lambda f: f.location.line)
    assert train.priority < evaluation.priority


def test_inference_code_of_a_training_repo_is_hidden_unless_asked():
    files = {
        "train.py": """
            import tensorflow as tf
            from data import training_data

            model = tf.keras.Sequential([tf.keras.layers.Dense(8)])
            model.compile("adam", "mse")
            model.fit(training_data())
            """,
        "data.py": """
            import tensorflow as tf

            def training_data():
                return tf.data.Dataset.range(64).map(lambda x: (tf.cast(x, tf.float32), x)).batch(8)
            """,
        "generate.py": """
            import tensorflow as tf

            def generate(model, prompts):
                outputs = []
                for batch in tf.data.Dataset.from_tensor_slices(prompts).map(lambda p: p * 2).batch(4):
                    outputs.append(model(batch))
                return outputs
            """}
    shown = _findings(files, "TFD")
    assert {f.location.path.as_posix() for f in shown} == {"data.py"}
    everything = _findings(files, "TFD", show_all=True)
    hidden = [f for f in everything if f.location.path.as_posix() == "generate.py"]
    assert hidden and all(f.reach is Reach.OTHER for f in hidden)


def test_a_subclassed_model_gets_mixed_precision_at_its_construction_and_keeps_its_class_count():
    findings = _findings({
        "net.py": """
            import tensorflow as tf

            class Classifier(tf.keras.Model):
                def __init__(self):
                    super().__init__()
                    self.hidden = tf.keras.layers.Dense(300, activation="relu")
                    self.logits = tf.keras.layers.Dense(10)

                def call(self, x):
                    h = self.hidden(x)
                    out = self.logits(h)
                    return out
            """,
        "main.py": """
            import tensorflow as tf
            from net import Classifier

            data = tf.data.Dataset.from_tensor_slices((tf.zeros((32, 4)), tf.zeros((32,)))).batch(8)
            classifier = Classifier()
            classifier.compile("adam", "sparse_categorical_crossentropy")
            classifier.fit(data)
            """}, "TFC")
    assert _where(findings) == [("TFC001", "main.py", 5), ("TFC002", "net.py", 6)]


@pytest.mark.parametrize("test_path", ["tests/test_model.py", "model_test.py", "conftest.py", "test/util.py"])
def test_test_code_is_left_out(tmp_path, test_path):
    from advisor.engine import analyze

    (tmp_path / test_path).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / test_path).write_text("import tensorflow as tf\nds = tf.data.Dataset.range(8).batch(3)\n"
                                      "for x in ds:\n    pass\n")
    report = analyze(tmp_path, None, Settings())
    assert report.findings == [] and report.files_excluded == 1
