"""How training code is really written, one pattern per test (issue #11): each small repo here is written for this
test, in the shape public repos use, and the test says what advisor must report and where.

Static analysis only; the findings a pattern must not produce are asserted as much as the ones it must.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from advisor.config import Settings
from advisor.engine import analyze_texts
from advisor.model import Confidence, Reach


def _findings(files: dict[str, str], *codes: str, show_all: bool = False):
    settings = Settings(select=codes or ("ALL",), show_all=show_all, min_confidence=Confidence.POSSIBLE)
    sources = {path: textwrap.dedent(text).lstrip("\n") for path, text in files.items()}
    return analyze_texts(sources, settings)


def _evidence(finding) -> str:
    """All a finding's evidence, as one text to look for a statement in."""
    return " ".join(e.message for e in finding.evidence)


def _where(findings) -> list[tuple[str, str, int]]:
    return sorted((f.code, f.location.path.as_posix(), f.location.line) for f in findings)


# A model and its optimizer made under a distribution strategy, and the step each replica runs.
_REPLICATED = """
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(512), tf.keras.layers.Dense(10)])
    optimizer = tf.keras.optimizers.Adam()
"""
_REPLICA_STEP = """def step_fn(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(y, model(x)))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss
"""

# A GAN's compiled discriminator step (StarGAN ports).
_DISCRIMINATOR_STEP = """@tf.function
def train_disc(disc, x, optimizer):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(disc(x))
    optimizer.apply_gradients(zip(tape.gradient(loss, disc.trainable_variables), disc.trainable_variables))
    return loss
"""


def test_per_step_reads_of_the_allocator_and_of_the_first_batches_only_wait_for_no_step():
    """A YOLOv5 port's batch loop formats `tf.config.experimental.get_memory_usage` (an allocator counter, a Python
    int) into its progress bar and plots the batches only while `ni = batch_idx + nb * epoch`, the batches since
    the run started, is below 3: only the running mean loss it prints is read every step."""
    findings = _findings({"train.py": """
        import tensorflow as tf

        def train(model, optimizer, loader, nb, epochs):
            for epoch in range(epochs):
                mloss = tf.zeros([])
                for batch_idx, (images, targets) in enumerate(loader):
                    ni = batch_idx + nb * epoch
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean(tf.square(model(images) - targets))
                    grads = tape.gradient(loss, model.trainable_variables)
                    optimizer.apply_gradients(zip(grads, model.trainable_variables))
                    mloss = (mloss * batch_idx + loss) / (batch_idx + 1)
                    gpus = tf.config.list_physical_devices("GPU")
                    gpu_mem = f"{tf.config.experimental.get_memory_usage('GPU:0') / 1E9 if gpus else 0:.3g}G"
                    print(f"{epoch} {mloss.numpy():.4g} {gpu_mem}")
                    if ni < 3:
                        plot_images(images.numpy(), loss.numpy(), f"train_batch{ni}.jpg")

        train(tf.keras.Sequential([tf.keras.layers.Dense(1)]), tf.keras.optimizers.Adam(), batches, 100, 300)
        """}, "TFH004", show_all=True)
    assert _where(findings) == [("TFH004", "train.py", 15)]


def test_an_identity_test_on_a_tensor_reads_no_value():
    """A NAS trainer's step adds the auxiliary head's loss `if aux_logits is not None:` (Python compares objects)
    and keeps an EMA baseline `if ema_baseline is None:`; its early stop on the loss's value does read it."""
    findings = _findings({"train_cifar.py": """
        import tensorflow as tf

        @tf.function
        def train_step(model, optimizer, images, labels):
            with tf.GradientTape() as tape:
                logits = model(images, training=True)
                loss = tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(labels, logits))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
            return loss, None

        def train(model, optimizer, dataset):
            baseline = None
            for images, labels in dataset:
                loss, aux = train_step(model, optimizer, images, labels)
                if aux is not None and baseline is None:
                    baseline = loss
                if loss < 1e-3:
                    break

        train(tf.keras.Sequential([tf.keras.layers.Dense(10)]), tf.keras.optimizers.Adam(), batches)
        """}, "TFH004", show_all=True)
    assert _where(findings) == [("TFH004", "train_cifar.py", 17)]


@pytest.mark.parametrize("device", ['"CPU: 0"', '"/gpu:0"'])
def test_a_model_trained_under_a_cpu_device_scope_gains_nothing_from_16_bits_or_from_fewer_syncs(device):
    """An NER repo builds its BERT-sized model, then runs the whole training loop under `with tf.device("CPU: 0"):`:
    no 16-bit units, and no device computing ahead of the host that a per-step read would stall."""
    findings = _findings({"train.py": f"""
        import tensorflow as tf

        @tf.function
        def forward_step(batch, model, optimizer):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(batch["x"]) - batch["y"]))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
            return loss

        model = tf.keras.Sequential([tf.keras.layers.Dense(1024) for _ in range(24)])
        optimizer = tf.keras.optimizers.Adam()
        with tf.device({device}):
            for epoch in range(10):
                for batch in dataset:
                    loss = forward_step(batch, model, optimizer)
                    print("loss", loss.numpy())
        """}, "TFC001", "TFH004", show_all=True)
    expected = Confidence.POSSIBLE if "CPU" in device else Confidence.LIKELY
    assert [(f.code, f.location.line, f.confidence) for f in findings] == [
        ("TFC001", 10, expected), ("TFH004", 16, expected)]


def test_a_script_importing_a_name_its_repo_module_lacks_runs_nothing():
    """A YOLO repo's quantization-aware trainer imports `compute_loss` from the model factory, which no longer has
    it: the script stops at its import with ImportError, so its eager loop trains in no run; train.py's does."""
    step = """
        for images, target in dataset:
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(images, training=True))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
        """
    findings = _findings({
        "core/__init__.py": "",
        "core/model_factory.py": """
            import tensorflow as tf

            def get_model():
                return tf.keras.Sequential([tf.keras.layers.Conv2D(64, 3)])
            """,
        "train.py": "import tensorflow as tf\nfrom core.model_factory import get_model\n\nmodel = get_model()\n"
                    "optimizer = tf.keras.optimizers.Adam()\n" + textwrap.dedent(step),
        "train_qat.py": "import tensorflow as tf\nfrom core.model_factory import get_model, compute_loss\n\n"
                        "model = get_model()\noptimizer = tf.keras.optimizers.Adam()\n" + textwrap.dedent(step),
    }, "TFH002", show_all=True)
    assert [(f.location.path.as_posix(), f.reach) for f in findings] == [
        ("train.py", Reach.TRAINING), ("train_qat.py", Reach.OTHER)]


def test_a_script_function_only_another_scripts_same_name_calls_runs_in_no_run():
    """A GAN repo's WGAN-denoise.py defines `train()` and has its call commented out; Train.py calls a `train()`
    of its own. No other module can import the first (a script nothing imports, named with a hyphen), and its own
    code names no `train` (`tf.train.Checkpoint` is TensorFlow's): its eager steps run in no run."""
    script = """
        import tensorflow as tf

        generator = tf.keras.Sequential([tf.keras.layers.Conv2D(64, 3)])
        optimizer = tf.keras.optimizers.RMSprop(3e-4)

        def train_step(images):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(generator(images))
            optimizer.apply_gradients(zip(tape.gradient(loss, generator.trainable_variables),
                                          generator.trainable_variables))

        def train(dataset, epochs):
            checkpoint = tf.train.Checkpoint(generator=generator)
            for epoch in range(epochs):
                for images in dataset:
                    train_step(images)
                checkpoint.save("ckpt")
        """
    script = textwrap.dedent(script)
    findings = _findings({"GAN/WGAN-denoise.py": script + "\n# train(dataset, 100)\n",
                          "GAN/Train.py": script + "\ntrain(dataset, 100)\n"}, "TFH002", show_all=True)
    assert [(f.location.path.as_posix(), f.reach) for f in findings] == [
        ("GAN/Train.py", Reach.TRAINING), ("GAN/WGAN-denoise.py", Reach.OTHER)]


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
    (tmp_path / test_path).write_text("import tensorflow as tf\n\ndef test_batches():\n"
                                      "    for x in tf.data.Dataset.range(8).batch(3):\n        pass\n")
    report = analyze(tmp_path, None, Settings(min_confidence=Confidence.POSSIBLE))
    assert report.findings == [] and report.files_excluded == 1


def test_steps_of_objects_held_in_attributes_are_found_through_their_type():
    findings = _findings({"a2c.py": """
        import tensorflow as tf

        class Actor:
            def __init__(self):
                self.net = tf.keras.Sequential([tf.keras.layers.Dense(2)])
                self.opt = tf.keras.optimizers.Adam()

            def train(self, states):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(self.net(states))
                self.opt.apply_gradients(zip(tape.gradient(loss, self.net.trainable_variables),
                                             self.net.trainable_variables))
                return loss

        class Critic:
            def train(self, states):
                return states

        class Agent:
            def __init__(self):
                self.actor = Actor()
                self.critic = Critic()

            def train(self, episodes):
                for _ in range(episodes):
                    states = tf.zeros((4, 3))
                    self.actor.train(states)
                    self.critic.train(states)

        Agent().train(100)
        """}, "TFH002")
    # `train` is defined by three classes: the type of `self.actor` says which one runs.
    assert _where(findings) == [("TFH002", "a2c.py", 8)]


def test_every_model_a_repo_trains_gets_its_mixed_precision_finding_where_it_is_built():
    findings = _findings({
        "gan.py": """
            import tensorflow as tf

            def make_generator():
                return tf.keras.Sequential([tf.keras.layers.Dense(128), tf.keras.layers.Dense(784)])

            generator = make_generator()
            g_opt = tf.keras.optimizers.Adam()

            @tf.function
            def step(noise):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(generator(noise))
                g_opt.apply_gradients(zip(tape.gradient(loss, generator.trainable_variables),
                                          generator.trainable_variables))

            for _ in range(100):
                step(tf.random.normal((64, 16)))
            """,
        "classifier.py": """
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.layers.Conv2D(32, 3), tf.keras.layers.Dense(10)])
            model.compile("adam", "sparse_categorical_crossentropy")
            model.fit(images, labels, epochs=3)
            """}, "TFC001")
    assert _where(findings) == [("TFC001", "classifier.py", 3), ("TFC001", "gan.py", 4)]
    custom, keras_fit = sorted(findings, key=lambda f: f.location.path.name, reverse=True)
    assert "loss scaling" in custom.message and "loss scaling" not in keras_fit.message


def test_a_model_an_object_holds_is_trained_through_keras_copies_of_it_on_several_gpus():
    """EAST's trainer builds a plain object whose constructor builds the model and keeps it (`self.model =
    model`), then trains `east.model` on one GPU or `multi_gpu_model(east.model, gpus=n)` on several: either way,
    the ResNet50 the constructor built is what trains."""
    findings = _findings({"model.py": """
        from keras.applications.resnet50 import ResNet50
        from keras.layers import Conv2D, Input
        from keras.models import Model

        class EASTModel:
            def __init__(self, input_size=512):
                image = Input(shape=(input_size, input_size, 3))
                resnet = ResNet50(input_tensor=image, weights="imagenet", include_top=False)
                score = Conv2D(1, (1, 1), activation="sigmoid")(resnet.output)
                model = Model(inputs=image, outputs=score)
                self.model = model
        """, "train.py": """
        from keras.utils.multi_gpu_utils import multi_gpu_model
        from model import EASTModel

        def main(gpus):
            if len(gpus) <= 1:
                east = EASTModel(512)
                parallel_model = east.model
            else:
                east = EASTModel(512)
                parallel_model = multi_gpu_model(east.model, gpus=len(gpus))
            parallel_model.compile(loss="binary_crossentropy", optimizer="adam")
            parallel_model.fit_generator(batches, epochs=800, steps_per_epoch=1000)

        if __name__ == "__main__":
            main(GPUS)
        """}, "TFC001")
    assert [(f.location.path.name, f.location.line, f.confidence) for f in findings] == [
        ("model.py", 10, Confidence.LIKELY)]


def test_constructing_a_plain_class_runs_its_constructor_not_the_build_its_caller_calls():
    """A TF1 Transformer's `Graph(mode)` only stores its mode; the model function then calls `graph.build(...)`,
    which makes the layers: counted once, where it is called (Keras runs a layer's `build` itself; Python does
    not run a plain class's)."""
    findings = _findings({"model.py": """
        import tensorflow as tf

        class Graph:
            def __init__(self, mode):
                self.mode = mode

            def build(self, inputs):
                outputs = inputs
                for _ in range(8):
                    outputs = tf.layers.dense(outputs, 512, activation=tf.nn.relu)
                return outputs

        def train(inputs, labels):
            graph = Graph("train")
            logits = graph.build(inputs)
            loss = tf.losses.softmax_cross_entropy(labels, logits)
            train_op = tf.train.AdamOptimizer(1e-4).minimize(loss)
            with tf.Session() as sess:
                for step in range(100000):
                    sess.run(train_op)

        if __name__ == "__main__":
            train(features, targets)
        """}, "TFC001", show_all=True)
    assert [(f.location.line, f.confidence) for f in findings] == [(17, Confidence.POSSIBLE)]
    assert "0 convolution and 8 dense layers" in _evidence(findings[0])


def test_a_plain_class_whose_calls_build_the_network_is_counted_where_it_is_made():
    """A TF1 CycleGAN's `Generator` is a plain class whose `__call__` builds the ResNet generator (`self.G(x)` in the
    model): calling the object runs it, so the generator's convolutions count."""
    findings = _findings({"model.py": """
        import tensorflow as tf

        class Generator:
            def __init__(self, name, ngf=64):
                self.name = name
                self.ngf = ngf

            def __call__(self, inputs):
                with tf.variable_scope(self.name):
                    x = inputs
                    for _ in range(9):
                        x = tf.layers.conv2d(x, 4 * self.ngf, 3, padding="same")
                    return tf.layers.conv2d(x, 3, 7, padding="same")

        class CycleGAN:
            def __init__(self):
                self.G = Generator("G")

            def model(self, x):
                return tf.reduce_mean(tf.abs(self.G(x) - x))

        def train():
            gan = CycleGAN()
            loss = gan.model(tf.placeholder(tf.float32, [1, 256, 256, 3]))
            train_op = tf.train.AdamOptimizer(2e-4).minimize(loss)
            with tf.Session() as sess:
                for step in range(200000):
                    sess.run(train_op)

        if __name__ == "__main__":
            train()
        """}, "TFC001", show_all=True)
    assert [(f.location.line, f.confidence) for f in findings] == [(25, Confidence.LIKELY)]


@pytest.mark.parametrize("batches", [
    "gen = ImageDataGenerator(rotation_range=10).flow_from_directory('images', batch_size=32)",
    "gen = load_batches('images')",
])
def test_a_python_generator_fed_to_the_step_through_next(batches):
    findings = _findings({"train.py": f"""
        import numpy as np
        import tensorflow as tf
        from tensorflow.keras.preprocessing.image import ImageDataGenerator

        def load_batches(folder):
            while True:
                yield np.load(folder + "/x.npy"), np.load(folder + "/y.npy")

        @tf.function
        def step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(x) - y)
            opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))

        {batches}
        for _ in range(1000):
            x, y = next(gen)
            step(x, y)
        """}, "TFD004")
    assert _where(findings) == [("TFD004", "train.py", 17)]
    assert findings[0].confidence == Confidence.LIKELY


def test_metric_values_and_formatted_losses_read_every_step():
    findings = _findings({"train.py": """
        import tensorflow as tf

        train_loss = tf.keras.metrics.Mean()

        @tf.function
        def step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(x) - y)
            opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
            train_loss(loss)
            return loss

        for epoch in range(3):
            for x, y in dataset:
                loss = step(x, y)
                progress.set_postfix(loss="%.4f" % loss)
                print("epoch", epoch, "loss", train_loss.result())
        """}, "TFH004")
    assert _where(findings) == [("TFH004", "train.py", 16), ("TFH004", "train.py", 17)]


def test_python_in_a_tf_function_only_an_epoch_callback_calls_is_no_per_step_cost():
    """An evaluation callback's `tf.function` calls `tf.numpy_function` for a metric: once per eval batch at each
    epoch's end, not on the training step (google/automl's COCO callback)."""
    (finding,) = _findings({"train.py": """
        import tensorflow as tf

        class COCOCallback(tf.keras.callbacks.Callback):
            @tf.function
            def _get_detections(self, images, labels):
                tf.numpy_function(self.evaluator.update_state, [labels, self.model(images)], [])

            def on_epoch_end(self, epoch, logs=None):
                for images, labels in self.test_dataset:
                    self._get_detections(images, labels)

        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        model.compile("sgd", "mse")
        model.fit(x, y, callbacks=[COCOCallback()])
        """}, "TFD003")
    assert finding.confidence is Confidence.POSSIBLE
    assert any("no training step calls it" in e.message for e in finding.evidence)


def test_a_script_whose_loop_trains_inline_is_a_training_entry_point():
    """A module-level loop with a GradientTape and apply_gradients trains; its findings are not hidden as unreached
    because another script of the repo calls fit."""
    findings = _findings({
        "fit_script.py": """
            import tensorflow as tf
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.compile("sgd", "mse")
            model.fit(x, y)
            """,
        "logistic.py": """
            import tensorflow as tf
            for x, y in dataset:
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(model(x) - y))
                optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
            """}, "TFH002")
    (inline,) = [f for f in findings if f.location.path.name == "logistic.py"]
    assert inline.reach is Reach.TRAINING and inline.location.line == 3


def test_a_tf_function_made_per_training_run_is_traced_once_per_run_not_per_step():
    """`train_and_eval` defines its step with `@tf.function` and runs its own loop over it; the loop that calls
    `train_and_eval` iterates runs (google-research/simclr's colab): one trace per run is expected."""
    findings = _findings({"sweep.py": """
        import tensorflow as tf

        def train_and_eval(width):
            model = tf.keras.Sequential([tf.keras.layers.Dense(width)])
            optimizer = tf.keras.optimizers.SGD()

            @tf.function
            def train_step(x, y):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(model(x) - y))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                              model.trainable_variables))

            for x, y in dataset:
                train_step(x, y)

        for width in (64, 128, 256):
            train_and_eval(width)
        """}, "TFH003")
    assert findings == []


def test_an_inner_dataset_handed_to_a_parallel_interleave_through_a_partial():
    findings = _findings({"input.py": """
        import functools
        import tensorflow as tf

        def input_fn(params):
            files = tf.data.Dataset.list_files(params["pattern"], shuffle=True)

            def make_dataset(files_dataset, shard_index):
                files_dataset = files_dataset.shard(params["parallel_reads"], shard_index)
                dataset = files_dataset.interleave(tf.data.TFRecordDataset)
                return dataset.map(parse, num_parallel_calls=tf.data.AUTOTUNE)

            dataset = tf.data.Dataset.range(params["parallel_reads"])
            map_fn = functools.partial(make_dataset, files)
            dataset = dataset.interleave(map_fn, cycle_length=8, num_parallel_calls=tf.data.AUTOTUNE)
            return dataset.batch(params["batch_size"]).prefetch(tf.data.AUTOTUNE)

        estimator.train(input_fn=input_fn, max_steps=1000)
        """}, "TFD001", "TFD002")
    # The inner interleave runs once per shard, several shards at once: serial in itself, parallel overall.
    assert [(f.code, f.location.line, f.confidence) for f in findings] == [("TFD002", 9, Confidence.POSSIBLE)]


@pytest.mark.parametrize("window", ["tf.data.experimental.group_by_window(key_func=bucket, reduce_func=batching)",
                                    "tf.data.experimental.group_by_window(bucket, batching, window_size=64)"])
def test_the_batches_a_group_by_window_makes_of_each_window_are_inner_datasets(window):
    """A translation model's Estimator input function buckets examples by length: `group_by_window` hands each
    window to `batching`, which pads it into batches the outer pipeline goes on with, prefetched at its end. The
    training script hands the input function to the Estimator in a module of its own."""
    findings = _findings({"dataset.py": """
        import tensorflow as tf

        def bucket_dataset(files, batch_size):
            dataset = tf.data.TFRecordDataset(files).map(parse, num_parallel_calls=8)

            def bucket(source, target):
                return tf.cast(tf.size(source) // 16, tf.int64)

            def batching(bucket_id, grouped):
                return grouped.padded_batch(batch_size, ([None], [None]))

            dataset = dataset.apply(""" + window + """)
            return dataset.repeat().prefetch(1)
        """, "train.py": """
        import tensorflow as tf
        import dataset

        def train_input_fn():
            return dataset.bucket_dataset(["train.tfrecord"], 64)

        estimator = tf.estimator.Estimator(model_fn)
        estimator.train(input_fn=train_input_fn, max_steps=100000)
        """}, "TFD001", show_all=True)
    assert findings == []


def test_a_dataset_a_keras_callback_reads_is_not_training_input():
    """A neural-process script hands its test set to a callback that plots one prediction after each epoch: the
    callback's serial map runs once an epoch, while `fit` trains on the training pipeline."""
    findings = _findings({"utils.py": """
        import tensorflow as tf

        class PlotCallback(tf.keras.callbacks.Callback):
            def __init__(self, ds):
                super().__init__()
                self.test_ds = ds
                self.test_it = iter(ds)

            def on_epoch_end(self, epoch, logs=None):
                inputs, target = next(self.test_it)
                plot(self.model(inputs), target)
        """, "train.py": """
        import tensorflow as tf
        from utils import PlotCallback

        train_ds = tf.data.Dataset.from_tensor_slices(images).batch(64).map(encode).prefetch(1)
        test_ds = tf.data.Dataset.from_tensor_slices(test_images).batch(1).map(encode)
        model.fit(train_ds, epochs=100, callbacks=[PlotCallback(test_ds)])
        """}, "TFD002", show_all=True)
    assert sorted((f.location.line, f.reach) for f in findings) == [(4, Reach.TRAINING), (5, Reach.OTHER)]


def test_a_notebook_dataset_only_looked_at_is_not_training_input():
    findings = _findings({"chapter.py": """
        import tensorflow as tf

        files = tf.data.Dataset.list_files("data/*.csv")
        lines = files.interleave(lambda f: tf.data.TextLineDataset(f).skip(1), cycle_length=5)
        for line in lines.take(5):
            print(line.numpy())

        train = tf.data.TextLineDataset("train.csv").map(parse, num_parallel_calls=4).batch(32).prefetch(1)
        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        model.compile(loss="mse", optimizer="sgd")
        model.fit(train, epochs=2)
        """}, "TFD002", show_all=True)
    # The notebook trains, but not on `lines`: its serial interleave feeds a print, so no training run pays for it.
    assert [(f.code, f.location.line, f.reach) for f in findings] == [("TFD002", 4, Reach.OTHER)]


@pytest.mark.parametrize("read, likely", [
    ("td_errors_all += td_errors.numpy().flatten().tolist()", False),
    ("replay.update_priorities(indices, np.abs(td_errors.numpy()))", False),
    ("losses.append(td_errors.numpy().mean())", True),
])
def test_td_errors_read_for_a_prioritized_replay_are_values_the_algorithm_needs(read, likely):
    """An Ape-X learner reads each minibatch's TD errors to the host: they become the replay's priorities, by which
    it samples the next batch (accumulated and returned to the loop that updates the buffer, or handed to the update
    directly). The same read only to log a loss is one to thin out."""
    findings = _findings({"learner.py": f"""
        import numpy as np
        import tensorflow as tf

        def learn(replay, model, optimizer, steps):
            indices_all, td_errors_all, losses = [], [], []
            for step in range(steps):
                indices, states, targets = replay.sample(32)
                with tf.GradientTape() as tape:
                    td_errors = targets - model(states)
                    loss = tf.reduce_mean(tf.square(td_errors))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                              model.trainable_variables))
                indices_all += indices
                {read}
            return indices_all, td_errors_all, losses
        """}, "TFH004", show_all=True)
    assert [(f.location.line, f.confidence) for f in findings] == [
        (14, Confidence.LIKELY if likely else Confidence.POSSIBLE)]


def test_a_device_value_that_stops_the_loop_early_is_a_read_the_algorithm_needs():
    """PPO's policy update stops its iterations early once the KL divergence exceeds its target (`if kl > 1.5 *
    target_kl: break`, a Unity ML-Agents PPO port): the host needs the value every step to decide, so the read is
    at most possible. The same test that only logs is a read to drop (likely)."""
    template = """
        import tensorflow as tf

        class Policy:
            def __init__(self):
                self.model = tf.keras.Sequential([tf.keras.layers.Dense(64), tf.keras.layers.Dense(4)])
                self.optimizer = tf.keras.optimizers.Adam()
                self.target_kl = 0.01

            @tf.function
            def train_pi_one_step(self, observations, logp_old):
                with tf.GradientTape() as tape:
                    logp = tf.nn.log_softmax(self.model(observations))
                    loss = -tf.reduce_mean(logp)
                grads = tape.gradient(loss, self.model.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
                return loss, tf.reduce_mean(logp_old - logp)

            def update(self, observations, logp_old):
                for i in range(80):
                    loss, kl = self.train_pi_one_step(observations, logp_old)
                    if kl > 1.5 * self.target_kl:
                        ACTION

        policy = Policy()
        for epoch in range(1000):
            policy.update(*collect_rollout(env, policy))
        """
    stops = _findings({"ppo.py": template.replace("ACTION", "break")}, "TFH004")
    logs = _findings({"ppo.py": template.replace("ACTION", "print('high kl', i)")}, "TFH004")
    assert [(f.location.line, f.confidence) for f in stops] == [(21, Confidence.POSSIBLE)]
    assert "decides whether the loop goes on (early stopping)" in stops[0].evidence[-1].message
    assert [(f.location.line, f.confidence) for f in logs] == [(21, Confidence.LIKELY)]


def test_a_read_the_environment_needs_or_after_a_blocking_predict_is_possible():
    findings = _findings({"agent.py": """
        import numpy as np
        import tensorflow as tf

        def play(env, model, optimizer, target):
            obs = env.reset()
            for step in range(1000):
                with tf.GradientTape() as tape:
                    probas = model(obs[np.newaxis])
                    loss = tf.reduce_mean(probas)
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                action = tf.random.uniform([1, 1]) > probas
                obs, reward, done, info = env.step(int(action[0, 0].numpy()))
                next_q = target.predict(obs[np.newaxis])
                mask = tf.one_hot(np.argmax(next_q), 2).numpy()
                print(float(loss))

        def replay(model, target, batches, optimizer):
            for x, y in batches:
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean((model(x) - y) ** 2)
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                print(float(loss))
                target.predict(x)
                print(float(loss))
        """}, "TFH004")
    confidence = {f.location.line: f.confidence for f in findings}
    assert confidence.pop(24) is Confidence.LIKELY and confidence.pop(26) is Confidence.POSSIBLE
    # The environment takes the action as a Python value every iteration, and predict blocks every step too: the
    # host waits for the device anyway, so each read adds little.
    assert confidence == {13: Confidence.POSSIBLE, 15: Confidence.POSSIBLE, 16: Confidence.POSSIBLE}


def test_tensorflow_1_pipelines_are_serial_and_unprefetched_for_sure_and_fixed_with_names_tf1_has():
    session_script = """
        import tensorflow as tf

        def parse(record):
            return tf.io.parse_single_example(record, {"x": tf.io.FixedLenFeature([], tf.string)})

        def main():
            ds = tf.data.TFRecordDataset(["train.tfrecord"]).map(parse).batch(32)
            batch = ds.make_one_shot_iterator().get_next()
            with tf.Session() as sess:
                for _ in range(1000):
                    sess.run(batch)

        main()
        """
    findings = _findings({"train.py": session_script}, "TFD001", "TFD002")
    assert {(f.code, f.confidence) for f in findings} == {("TFD001", Confidence.LIKELY),
                                                          ("TFD002", Confidence.LIKELY)}
    assert all("tf.data.experimental.AUTOTUNE" in f.patch.diff for f in findings)  # TF 1.x has no tf.data.AUTOTUNE
    assert all(any("`tf.Session` (train.py:9" in e.message for e in f.evidence) for f in findings)
    # The same code through tf.compat.v1 runs on TensorFlow 2, which parallelizes the stateless map and injects a
    # prefetch itself: only possible, and fixed with TF2's names.
    compat = session_script.replace("import tensorflow as tf", "import tensorflow.compat.v1 as tf")
    findings = _findings({"train.py": compat}, "TFD001", "TFD002")
    assert {(f.code, f.confidence) for f in findings} == {("TFD001", Confidence.POSSIBLE),
                                                          ("TFD002", Confidence.POSSIBLE)}


def test_a_stateful_map_whose_results_are_cached_runs_in_the_first_epoch_only():
    findings = _findings({"train.py": """
        import tensorflow as tf

        def decode(path):
            image = tf.image.decode_jpeg(tf.io.read_file(path))
            return tf.image.random_crop(image, [224, 224, 3])

        ds = tf.data.Dataset.list_files("images/*.jpg").map(decode).cache().batch(32).prefetch(2)
        model.fit(ds, epochs=10)
        """}, "TFD002")
    (finding,) = findings
    assert finding.confidence is Confidence.POSSIBLE  # stateful, but cached: later epochs read the cache
    assert any("first epoch only" in e.message for e in finding.evidence)


def test_a_map_of_the_closure_a_factory_returns_is_read_for_its_work():
    """A YOLOv3 repo maps `parse_function_generator(80)`, a factory returning the parser it defines, which decodes
    each JPEG and jitters it at random: a stateful map TensorFlow never parallelizes by itself."""
    findings = _findings({"train.py": """
        import tensorflow as tf

        def parse_function_generator(num_classes, jitter=0.3):
            def parse_function(record):
                features = tf.io.parse_single_example(record, {"image": tf.io.FixedLenFeature([], tf.string)})
                image = tf.io.decode_jpeg(features["image"])
                scale = tf.random.uniform((), 1 - jitter, 1 + jitter)
                return tf.image.resize(image, tf.cast(scale * 416, tf.int32) * [1, 1])
            return parse_function

        ds = tf.data.TFRecordDataset(files).map(parse_function_generator(80)).batch(12).prefetch(2)
        model.fit(ds, epochs=10)
        """}, "TFD002")
    assert [(f.location.line, f.confidence) for f in findings] == [(11, Confidence.LIKELY)]
    assert any("stateful" in e.message for e in findings[0].evidence)


def test_a_tensorflow_1_session_training_is_training_and_its_graph_gets_the_mixed_precision_rewrite():
    files = {
        "model.py": """
            import tensorflow as tf

            def network(images):
                x = images
                for filters in (64, 128, 256, 512):
                    x = tf.layers.conv2d(x, filters, 3, activation=tf.nn.relu)
                return tf.layers.dense(tf.layers.flatten(x), 21)

            def parse(record):
                features = tf.parse_single_example(record, {"image": tf.FixedLenFeature([], tf.string)})
                return tf.image.resize_images(tf.image.decode_jpeg(features["image"]), [513, 513])
            """,
        "train.py": """
            import tensorflow as tf
            from model import network, parse

            images = tf.data.TFRecordDataset(["train.tfrecord"]).map(parse).batch(8).make_one_shot_iterator()
            loss = tf.reduce_mean(network(images.get_next()))
            train_op = tf.train.MomentumOptimizer(1e-3, 0.9).minimize(loss)
            with tf.Session() as sess:
                for step in range(100000):
                    sess.run(train_op)
            """,
        "test.py": """
            import tensorflow as tf
            from model import network, parse

            images = tf.data.TFRecordDataset(["val.tfrecord"]).map(parse).batch(8).make_one_shot_iterator()
            scores = network(images.get_next())
            with tf.Session() as sess:
                for step in range(100):
                    print(sess.run(scores))
            """,
    }
    findings = _findings(files, "TFC001", "TFD002", show_all=True)
    where = {(f.code, f.location.path.as_posix(), f.location.line): (f.confidence, f.reach) for f in findings}
    # The session script builds a weight update: it trains. The evaluation script only runs the graph.
    assert where[("TFD002", "train.py", 4)] == (Confidence.LIKELY, Reach.TRAINING)
    assert where[("TFD002", "test.py", 4)][1] is Reach.OTHER
    assert where[("TFC001", "train.py", 6)] == (Confidence.LIKELY, Reach.TRAINING)
    (mixed,) = [f for f in findings if f.code == "TFC001"]
    assert "enable_mixed_precision_graph_rewrite" in mixed.message and mixed.fix is None


def test_reading_an_int32_step_variable_is_no_sync_an_int64_one_is():
    findings = _findings({"trainer.py": """
        import tensorflow as tf

        class Trainer:
            def __init__(self, model):
                self.model = model
                self.step = tf.Variable(0, dtype=tf.int32)
                self.seen = tf.Variable(0, dtype=tf.int64)

            @tf.function
            def train_step(self, x):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(self.model(x))
                grads = tape.gradient(loss, self.model.trainable_variables)
                optimizer.apply_gradients(zip(grads, self.model.trainable_variables))

            def fit(self, dataset):
                epochs = tf.Variable(0)
                for x in dataset:
                    self.train_step(x)
                    self.step.assign_add(1)
                    done = self.step.numpy()
                    self.seen.assign_add(64)
                    total = self.seen.numpy()
                    count = epochs.numpy()
        """}, "TFH004")
    # int32 variables live in host memory; an int64 one lives on the device, beside the step's work.
    assert _where(findings) == [("TFH004", "trainer.py", 23)]


def test_a_step_counter_a_trainer_keeps_in_its_checkpoint_is_read_from_host_memory():
    findings = _findings({"train.py": """
        import tensorflow as tf

        class Trainer:
            def __init__(self, model):
                self.checkpoint = tf.train.Checkpoint(step=tf.Variable(0), model=model)

            @tf.function
            def train_step(self, x):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(self.checkpoint.model(x))
                grads = tape.gradient(loss, self.checkpoint.model.trainable_variables)
                optimizer.apply_gradients(zip(grads, self.checkpoint.model.trainable_variables))
                return loss

            def train(self, dataset):
                ckpt = self.checkpoint
                for x in dataset:
                    ckpt.step.assign_add(1)
                    step = ckpt.step.numpy()
                    loss = self.train_step(x)
                    print(loss.numpy())
        """}, "TFH004")
    assert _where(findings) == [("TFH004", "train.py", 21)]  # the loss, not the counter


def test_a_model_file_that_no_script_imports_or_runs_trains_in_no_run():
    """A research repo keeps model variants whose own `test()` is commented out: their graphs are built by nothing
    the repo runs, while the training script trains another model."""
    model = """
        import tensorflow as tf

        class {name}:
            def __init__(self, vocab_size):
                self.inputs = tf.placeholder(tf.int32, [None, 100])
                embedded = tf.nn.embedding_lookup(tf.get_variable("embedding", [vocab_size, 512]), self.inputs)
                hidden = embedded
                for width in (512, 512, 512, 512):
                    hidden = tf.layers.conv1d(hidden, width, 3)
                self.loss = tf.reduce_mean(tf.layers.dense(hidden, 512))
                self.train_op = tf.train.AdamOptimizer(1e-3).minimize(self.loss)

        def test():
            model = {name}(10000)
            with tf.Session() as sess:
                sess.run(model.train_op)

        {call}
        """
    files = {
        "cnn_model.py": model.format(name="TextCNN", call=""),
        "old/rnn_model.py": model.format(name="TextRNN", call="# test()"),
        "cnn_train.py": """
            import tensorflow as tf
            from cnn_model import TextCNN

            model = TextCNN(10000)
            with tf.Session() as sess:
                for step in range(1000):
                    sess.run(model.train_op)
            """,
    }
    findings = _findings(files, "TFC001", show_all=True)
    reach = {f.location.path.as_posix(): f.reach for f in findings}
    assert reach == {"cnn_model.py": Reach.TRAINING, "old/rnn_model.py": Reach.OTHER}


@pytest.mark.parametrize("predict_builds", ["FLAGS.is_training", "is_training=False"])
def test_a_model_built_only_to_predict_or_by_its_own_test_function_trains_in_no_run(predict_builds):
    """A TensorFlow 1.x model class returns from its constructor before its train op unless `is_training`; a predict
    script builds it with a flag that defaults to False, and the model file's `test()` (which nothing calls) trains
    it: no run of the repo trains it. The training script trains another model, built with `is_training=True`; that
    model file's `test()` feeding slices is no training run either."""
    model = """
        import numpy as np
        import tensorflow as tf

        class {name}:
            def __init__(self, vocab_size, is_training):
                self.inputs = tf.placeholder(tf.int32, [None, 100])
                hidden = tf.nn.embedding_lookup(tf.get_variable("embedding", [vocab_size, 512]), self.inputs)
                for width in (512, 512, 512, 512):
                    hidden = tf.layers.conv1d(hidden, width, 3)
                self.logits = tf.layers.dense(hidden, 512)
                if not is_training:
                    return
                self.train_op = tf.train.AdamOptimizer(1e-3).minimize(tf.reduce_mean(self.logits))

        def test():
            model = {name}(10000, True)
            data = np.zeros((3200, 100))
            with tf.Session() as sess:
                for step in range(100):
                    sess.run(model.train_op, feed_dict={{model.inputs: data[step * 32:(step + 1) * 32]}})
        """
    files = {
        "han_model.py": model.format(name="HAN"),
        "cnn_model.py": model.format(name="TextCNN"),
        "han_predict.py": f"""
            import tensorflow as tf
            from han_model import HAN

            FLAGS = tf.app.flags.FLAGS
            tf.app.flags.DEFINE_boolean("is_training", False, "train or predict")

            def main(_):
                model = HAN(10000, {predict_builds})
                with tf.Session() as sess:
                    print(sess.run(model.logits))

            if __name__ == "__main__":
                tf.app.run()
            """,
        "cnn_train.py": """
            import tensorflow as tf
            from cnn_model import TextCNN

            model = TextCNN(10000, is_training=True)
            with tf.Session() as sess:
                for step in range(1000):
                    sess.run(model.train_op)
            """,
    }
    reach = {(f.code, f.location.path.as_posix()): f.reach for f in _findings(files, "TFC001", "TFD004",
                                                                                show_all=True)}
    assert reach == {("TFC001", "cnn_model.py"): Reach.TRAINING, ("TFC001", "han_model.py"): Reach.OTHER,
                     # the feeds in the `test()`s nothing calls
                     ("TFD004", "cnn_model.py"): Reach.OTHER, ("TFD004", "han_model.py"): Reach.OTHER}


def test_gradient_ascent_on_an_image_is_no_training():
    """Filter visualization updates an input image with an optimizer; nothing in it trains a model."""
    files = {"visualize.py": """
        import numpy as np
        import tensorflow as tf

        def ascent_step(extractor, image_var, optimizer):
            with tf.GradientTape() as tape:
                tape.watch(image_var)
                loss = tf.reduce_mean(extractor(image_var[0]))
            grads = tape.gradient(loss, image_var)
            optimizer.apply_gradients(zip(grads * -1, image_var))
            return loss, image_var

        def visualize(model, optimizer):
            image = np.random.uniform(size=(224, 224, 3)).astype("float32")
            for iteration in range(100):
                loss, image_var = ascent_step(model, [tf.Variable(image)], optimizer)
                image = image_var[0].numpy()
            return image
        """}
    assert _findings(files, "TFH002", "TFH004", "TFC001", show_all=True) == []


def test_an_evaluation_script_that_builds_the_model_fn_in_eval_mode_is_no_training():
    files = {
        "model.py": """
            import tensorflow as tf

            def model_fn(features, labels, mode, params):
                logits = tf.layers.dense(features, 10)
                loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
                train_op = None
                if mode == tf.estimator.ModeKeys.TRAIN:
                    train_op = tf.train.AdamOptimizer().minimize(loss)
                return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
            """,
        "data.py": """
            import tensorflow as tf

            def train_input_fn():
                return tf.data.TFRecordDataset(["train.tfrecord"]).map(parse).batch(32)

            def eval_input_fn():
                return tf.data.TFRecordDataset(["val.tfrecord"]).map(parse).batch(32)
            """,
        "train.py": """
            import tensorflow as tf
            import data, model

            estimator = tf.estimator.Estimator(model_fn=model.model_fn)
            estimator.train(input_fn=data.train_input_fn)
            """,
        "evaluate.py": """
            import tensorflow as tf
            import data, model

            features, labels = data.eval_input_fn().make_one_shot_iterator().get_next()
            spec = model.model_fn(features, labels, tf.estimator.ModeKeys.EVAL, params={})
            with tf.Session() as sess:
                print(sess.run(spec.loss))
            """,
    }
    findings = _findings(files, "TFD002", show_all=True)
    assert sorted((f.location.line, f.reach) for f in findings) == [(4, Reach.TRAINING), (7, Reach.OTHER)]


@pytest.mark.parametrize("train", ['estimator.train(input_fn=lambda: model.input_fn(["train.tfrecord"]))',
                                   'estimator.train(lambda: model.input_fn(["train.tfrecord"]), steps=1000)'])
def test_an_estimator_made_to_predict_is_no_training(train):
    files = {
        "model.py": """
            import tensorflow as tf

            def model_fn(features, labels, mode, params):
                logits = tf.layers.dense(features, 10)
                train_op = None
                if mode == tf.estimator.ModeKeys.TRAIN:
                    train_op = tf.train.AdamOptimizer().minimize(tf.reduce_mean(logits))
                return tf.estimator.EstimatorSpec(mode, loss=tf.reduce_mean(logits), train_op=train_op)

            def input_fn(files):
                return tf.data.TFRecordDataset(files).map(parse).batch(32)
            """,
        "train.py": """
            import tensorflow as tf
            import model

            estimator = tf.estimator.Estimator(model_fn=model.model_fn)
            {train}
            """.format(train=train),
        "predict.py": """
            import tensorflow as tf
            import model

            def images_input():
                return tf.data.TFRecordDataset(["images.tfrecord"]).map(decode).batch(1)

            estimator = tf.estimator.Estimator(model_fn=model.model_fn)
            for prediction in estimator.predict(input_fn=images_input):
                print(prediction)
            """,
    }
    reach = {(f.location.path.as_posix(), f.location.line): f.reach for f in _findings(files, "TFD002", show_all=True)}
    assert reach == {("model.py", 11): Reach.TRAINING, ("predict.py", 5): Reach.OTHER}


def test_a_step_compiled_by_a_helper_and_called_on_a_model_of_unknown_type():
    """`model = config.get_model()` gives no type; the model class binds its compiled step to `self.train_step`
    through a helper that returns `tf.function(...)(function)`."""
    files = {
        "model.py": """
            import tensorflow as tf

            class Transformer(tf.keras.Model):
                def __init__(self, debug=False):
                    super().__init__()
                    self.debug = debug
                    self.dense = tf.keras.layers.Dense(512)
                    self.train_step = self._apply_signature(self._train_step)

                def _apply_signature(self, function):
                    if self.debug:
                        return function
                    return tf.function(input_signature=None)(function)

                def _train_step(self, x, y):
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean(tf.square(self.dense(x) - y))
                    grads = tape.gradient(loss, self.trainable_variables)
                    self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
                    return {"loss": loss}
            """,
        "train.py": """
            from registry import MODELS

            model = MODELS[name]()
            losses = []
            for x, y in dataset:
                output = model.train_step(x, y)
                losses.append(float(output["loss"]))
            """,
    }
    assert _where(_findings(files, "TFH002", "TFH004")) == [("TFH004", "train.py", 7)]


@pytest.mark.parametrize("compiled, expected", [
    ("", [("TFH002", "train.py", 8)]),
    ("@tf.function\n", []),  # the replica step is traced into the compiled caller
])
def test_a_step_a_distribution_strategy_runs_on_each_replica(compiled: str, expected):
    files = {"train.py": _REPLICATED + "\n" + _REPLICA_STEP + f"""
{compiled}def distributed_step(x, y):
    return strategy.run(step_fn, args=(x, y))

for x, y in dataset:
    distributed_step(x, y)
"""}
    assert _where(_findings(files, "TFH002")) == expected


def test_a_step_handed_to_a_method_that_runs_it_on_each_replica():
    """DDSP style: the compiled step hands its replica step to the trainer's own ``run``, which hands its parameter
    to the strategy; the loop then reads a per-step value of the step it dispatched."""
    files = {"train.py": _REPLICATED + """
class Trainer:
    def run(self, fn, *args):
        return strategy.run(fn, args=args)

    @tf.function
    def train_step(self, batch):
        return self.run(self.step_fn, batch)

    @tf.function
    def step_fn(self, batch):
        with tf.GradientTape() as tape:
            loss = loss_fn(batch)
        optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
        return loss

trainer = Trainer()
for batch in dataset:
    loss = trainer.train_step(batch)
    print("loss: {:.2f}".format(float(loss)))
"""}
    assert _where(_findings(files, "TFH004")) == [("TFH004", "train.py", 26)]


def test_a_builder_that_calls_the_block_function_it_is_handed_still_returns_its_own_model():
    """WDSR: `wdsr_b()` hands `res_block_b` to `wdsr`, which calls it once per block and returns the `Model` it
    builds: the blocks' layers are the model's, not models of their own."""
    findings = _findings({"wdsr.py": """
        import tensorflow as tf
        import tensorflow_addons as tfa
        from tensorflow.keras.layers import Add, Conv2D, Input

        def wdsr_b(scale, num_filters=32, num_res_blocks=32):
            return wdsr(scale, num_filters, num_res_blocks, res_block_b)

        def wdsr(scale, num_filters, num_res_blocks, res_block):
            x_in = Input(shape=(None, None, 3))
            m = conv2d_weightnorm(num_filters, 3)(x_in)
            for i in range(num_res_blocks):
                m = res_block(m, num_filters)
            return tf.keras.Model(x_in, conv2d_weightnorm(3 * scale ** 2, 3)(m))

        def res_block_b(x_in, num_filters):
            x = conv2d_weightnorm(num_filters * 6, 1)(x_in)
            x = conv2d_weightnorm(num_filters, 3)(x)
            return Add()([x_in, x])

        def conv2d_weightnorm(filters, kernel_size):
            return tfa.layers.WeightNormalization(Conv2D(filters, kernel_size, padding="same"))

        model = wdsr_b(scale=4)
        model.compile(optimizer="adam", loss="mae")
        model.fit(train_ds, epochs=300)
        """}, "TFC001", show_all=True)
    assert [f.location.line for f in findings] == [13]


@pytest.mark.parametrize("factory", [
    "from transformers import TFAutoModelForSequenceClassification as Factory\n"
    "model = Factory.from_pretrained('distilbert-base-uncased', num_labels=2)",
    "import keras_hub\nmodel = keras_hub.models.BertClassifier.from_preset('bert_base_en', num_classes=2)",
    "from keras_bert import load_trained_model_from_checkpoint\n"
    "model = load_trained_model_from_checkpoint(config_path, checkpoint_path, training=False, seq_len=128)",
    "import bert\nmodel = bert.BertModelLayer.from_params(bert.params_from_pretrained_ckpt(model_dir), name='bert')",
])
def test_a_pretrained_architecture_fine_tuned_in_float32(factory: str):
    files = {"finetune.py": factory + """
import tensorflow as tf
model.compile(optimizer=tf.keras.optimizers.Adam(3e-5), loss="sparse_categorical_crossentropy")
model.fit(train_dataset, epochs=3)
"""}
    (finding,) = _findings(files, "TFC001")
    assert (finding.location.line, finding.confidence) == (2, Confidence.LIKELY)
    assert any("known architecture from its library" in e.message for e in finding.evidence)


def test_a_subclassed_model_declaring_its_input_from_attributes_its_base_class_sets_is_sized_by_them():
    """A VAE whose encoder starts with `InputLayer(input_shape=(self._height, self._width, self._channels))`, the
    attributes its base class sets to 28 (MNIST) or to an `image_height` defaulting to 28 (check 70): its convolutions,
    however many the loops make, run on 28-pixel images."""
    findings = _findings({"vae.py": """
        import tensorflow as tf

        class ImageVAE(tf.keras.Model):
            def __init__(self, dataset=None, image_height=28, image_width=28, n_channels=1):
                super().__init__()
                if dataset is None:
                    self._height = 28
                    self._width = 28
                    self._channels = 1
                else:
                    self._height = image_height
                    self._width = image_width
                    self._channels = n_channels

        class CVAE(ImageVAE):
            def __init__(self, filters, **kwargs):
                super().__init__(**kwargs)
                self._encoder = tf.keras.Sequential()
                self._encoder.add(tf.keras.layers.InputLayer(input_shape=(self._height, self._width, self._channels)))
                for width in filters:
                    self._encoder.add(tf.keras.layers.Conv2D(width, 3, strides=2))
                    self._encoder.add(tf.keras.layers.Conv2D(width, 3))
                self._encoder.add(tf.keras.layers.Flatten())
                self._encoder.add(tf.keras.layers.Dense(256))

        model = CVAE(architecture)
        model.compile(optimizer="adam", loss="mse")
        model.fit(x_train, x_train, epochs=50, batch_size=64)
        """}, "TFC001", show_all=True)
    assert [f.confidence for f in findings] == [Confidence.POSSIBLE]
    assert "on 28-pixel images" in _evidence(findings[0])


def test_task_models_assembled_around_preset_backbones_train_those_backbones():
    """KerasCV's detectors made with `backbone=` (check 70: a YOLOv8-XL, then a YOLOv8-L, trained in float32 in one
    notebook): each model training trains is its preset backbone with a head."""
    findings = _findings({"train.py": """
        import keras_cv

        backbone = keras_cv.models.YOLOV8Backbone.from_preset("yolo_v8_xl_backbone_coco")
        xl = keras_cv.models.YOLOV8Detector(num_classes=3, bounding_box_format="xywh", backbone=backbone)
        xl.compile(optimizer="adam", classification_loss="binary_crossentropy", box_loss="ciou")
        xl.fit(train_ds, validation_data=val_ds, epochs=200)

        large = keras_cv.models.YOLOV8Detector(
            num_classes=3, bounding_box_format="xywh",
            backbone=keras_cv.models.YOLOV8Backbone.from_preset("yolo_v8_l_backbone_coco"))
        large.compile(optimizer="adam", classification_loss="binary_crossentropy", box_loss="ciou")
        large.fit(train_ds, validation_data=val_ds, epochs=200)
        """}, "TFC001")
    assert [(f.location.line, f.confidence) for f in findings] == [(3, Confidence.LIKELY), (10, Confidence.LIKELY)]
    assert all(any("known architecture from its library" in e.message for e in f.evidence) for f in findings)


@pytest.mark.parametrize("use, heavy", [
    ("features = conv_base.predict(images)\ninputs = keras.Input(shape=(5, 5, 512))", False),  # features computed first
    ("inputs = keras.Input(shape=(180, 180, 3))\nfeatures = conv_base(inputs)", True),  # the backbone is in the model
])
def test_a_backbone_only_run_beforehand_is_not_part_of_the_model(use: str, heavy: bool):
    files = {"train.py": """
import keras
from keras import layers
conv_base = keras.applications.vgg16.VGG16(weights="imagenet", include_top=False)
""" + use + """
x = layers.Flatten()(inputs)
outputs = layers.Dense(1, activation="sigmoid")(layers.Dense(256)(x))
model = keras.Model(inputs, outputs)
model.compile(loss="binary_crossentropy", optimizer="rmsprop")
model.fit(train_features, train_labels)
"""}
    (finding,) = _findings(files, "TFC001")
    assert (finding.confidence is Confidence.LIKELY) is heavy


def test_the_loop_around_a_distributed_step_reads_a_metric_every_step():
    files = {"train.py": _REPLICATED + """
loss_metric = tf.keras.metrics.Mean()

@tf.function
def train_step(x, y):
""" + textwrap.indent(_REPLICA_STEP, "    ") + """    return strategy.run(step_fn, args=(x, y))

for x, y in dataset:
    loss_metric(train_step(x, y))
    progress.comment = f"loss: {loss_metric.result()}"
"""}
    assert _where(_findings(files, "TFH002", "TFH004")) == [("TFH004", "train.py", 22)]


def test_a_notebook_that_reuses_the_backbone_name_later_still_keeps_the_feature_model_small():
    files = {"train.py": """
import keras
from keras import layers
conv_base = keras.applications.vgg16.VGG16(weights="imagenet", include_top=False)
features = conv_base.predict(images)
inputs = keras.Input(shape=(5, 5, 512))
head = keras.Model(inputs, layers.Dense(1)(layers.Dense(256)(layers.Flatten()(inputs))))
head.compile(loss="binary_crossentropy", optimizer="rmsprop")
head.fit(features, labels)

conv_base = keras.applications.vgg16.VGG16(weights="imagenet", include_top=False)
images_in = keras.Input(shape=(180, 180, 3))
tuned = keras.Model(images_in, layers.Dense(1)(layers.Flatten()(conv_base(images_in))))
tuned.compile(loss="binary_crossentropy", optimizer="rmsprop")
tuned.fit(train_dataset)
"""}
    confidence = {f.location.line: f.confidence for f in _findings(files, "TFC001")}
    assert confidence == {6: Confidence.POSSIBLE, 12: Confidence.LIKELY}


def test_the_loop_around_a_function_that_runs_many_steps_per_call_is_not_per_step():
    files = {"train.py": _REPLICATED + """
@tf.function
def train_multiple_steps(iterator, steps):
""" + textwrap.indent(_REPLICA_STEP, "    ") + """    for _ in tf.range(steps):
        strategy.run(step_fn, args=next(iterator))

while optimizer.iterations.numpy() < total_steps:
    train_multiple_steps(iterator, 100)
    print(f"step {optimizer.iterations.numpy()}")
"""}
    assert _findings(files, "TFH002", "TFH004") == []


def test_an_estimator_trains_the_slim_network_a_generator_returns():
    """TensorFlow 1.x official-model style: a generator picks a TF-Slim ResNet and returns the network function
    it defines; the Estimator's model_fn calls what it returned. The ResNet is what the training computes with."""
    findings = _findings({"train.py": """
        import tensorflow as tf
        from tensorflow.contrib.slim.nets import resnet_v2

        def generator(num_classes, depth):
            if depth == 50:
                base_model = resnet_v2.resnet_v2_50
            else:
                base_model = resnet_v2.resnet_v2_101

            def model(inputs, is_training):
                net, _ = base_model(inputs, num_classes=None, is_training=is_training)
                return tf.layers.conv2d(net, num_classes, 1)
            return model

        def model_fn(features, labels, mode, params):
            network = generator(params["num_classes"], params["depth"])
            logits = network(features, mode == tf.estimator.ModeKeys.TRAIN)
            loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
            train_op = tf.train.MomentumOptimizer(0.01, 0.9).minimize(loss)
            return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

        def main(_):
            estimator = tf.estimator.Estimator(model_fn, params={"num_classes": 21, "depth": 101})
            estimator.train(input_fn=lambda: make_dataset(), max_steps=30000)

        if __name__ == "__main__":
            tf.app.run()
        """}, "TFC001")
    (finding,) = findings
    assert (finding.location.line, finding.confidence) == (19, Confidence.LIKELY)
    assert any("base_model" in e.message and "known architecture" in e.message for e in finding.evidence)


def test_a_hand_written_recurrence_is_one_layer_per_weight_not_one_per_time_step():
    """A TensorFlow 1.x text model writes its GRU cell by hand: the weights its constructor makes are applied at
    each of the sequence's steps. That is three gates' work, not a deep network: mixed precision stays possible."""
    findings = _findings({"model.py": """
        import tensorflow as tf

        class TextGRU:
            def __init__(self, hidden_size, num_classes, sequence_length):
                self.inputs = tf.placeholder(tf.float32, [None, sequence_length, hidden_size])
                self.labels = tf.placeholder(tf.int32, [None])
                self.W_z = tf.get_variable("W_z", shape=[hidden_size, hidden_size])
                self.W_r = tf.get_variable("W_r", shape=[hidden_size, hidden_size])
                self.W_h = tf.get_variable("W_h", shape=[hidden_size, hidden_size])
                self.W_out = tf.get_variable("W_out", shape=[hidden_size, num_classes])
                h = tf.zeros_like(self.inputs[:, 0])
                for x in tf.unstack(self.inputs, axis=1):
                    h = self.cell(x, h)
                logits = tf.matmul(h, self.W_out)
                loss = tf.losses.sparse_softmax_cross_entropy(self.labels, logits)
                self.train_op = tf.train.AdamOptimizer(1e-3).minimize(loss)

            def cell(self, x, h):
                z = tf.sigmoid(tf.matmul(x + h, self.W_z))
                r = tf.sigmoid(tf.matmul(x + h, self.W_r))
                return z * h + (1 - z) * tf.tanh(tf.matmul(x + r * h, self.W_h))
        """, "train.py": """
        import tensorflow as tf
        from model import TextGRU

        model = TextGRU(hidden_size=256, num_classes=10, sequence_length=100)
        with tf.Session() as sess:
            for step in range(10000):
                sess.run(model.train_op, feed_dict=next_batch())
        """}, "TFC001")
    (finding,) = findings
    assert (finding.location.path.as_posix(), finding.confidence) == ("model.py", Confidence.POSSIBLE)


@pytest.mark.parametrize("tiny_default, line", [("False", 16), ("True", 8)])
def test_the_model_a_flag_chooses_by_default_is_the_one_trained(tiny_default: str, line: int):
    """`if FLAGS.tiny:` picks the small variant only when asked: the default run trains the big model, built by a
    function that returns its training head when `training=True`, and a custom loop unpacks it from a setup()."""
    findings = _findings({"train.py": f"""
        import tensorflow as tf
        from absl import app, flags

        flags.DEFINE_boolean("tiny", {tiny_default}, "train the tiny variant")
        FLAGS = flags.FLAGS

        def Tiny(size):
            return tf.keras.Sequential([tf.keras.layers.Conv2D(256, 3) for _ in range(4)])

        def Big(size, training=False):
            inputs = tf.keras.Input([size, size, 3])
            x = inputs
            for filters in (64, 128, 256, 512, 1024):
                x = tf.keras.layers.Conv2D(filters, 3, strides=2)(x)
            if training:
                return tf.keras.Model(inputs, x)
            return tf.keras.Model(inputs, tf.keras.layers.Lambda(decode_boxes)(x))

        def setup_model():
            if FLAGS.tiny:
                model = Tiny(416)
            else:
                model = Big(416, training=True)
            return model, tf.keras.optimizers.Adam(1e-3)

        def main(_):
            model, optimizer = setup_model()
            for images, labels in dataset:
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(model(images) - labels))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))

        if __name__ == "__main__":
            app.run(main)
        """}, "TFC001")
    assert [(f.location.line, f.confidence) for f in findings] == [(line, Confidence.LIKELY)]


@pytest.mark.parametrize("is_training, confidence", [("False", Confidence.POSSIBLE), ("True", Confidence.LIKELY)])
def test_augmentation_in_a_branch_the_map_does_not_take_leaves_it_stateless(is_training: str, confidence):
    """One preprocessing function serves training and evaluation: its random augmentation runs only when the map
    passes `is_training=True`. Stateless, TensorFlow parallelizes the map at run time (possible); stateful, it
    does not (likely)."""
    findings = _findings({"train.py": f"""
        import tensorflow as tf
        import tensorflow_datasets as tfds

        def preprocess_for_train(image):
            image = tf.image.random_flip_left_right(image)
            return tf.image.random_crop(image, [224, 224, 3])

        def preprocess_image(image, is_training=False):
            image = tf.image.convert_image_dtype(image, tf.float32)
            if is_training:
                return preprocess_for_train(image)
            else:
                return tf.image.resize(image, [224, 224])

        def _preprocess(x):
            return preprocess_image(x["image"], is_training={is_training}), x["label"]

        model = tf.keras.applications.ResNet50(weights=None)
        model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
        dataset = tfds.load("tf_flowers", split="train")
        model.fit(dataset.map(_preprocess).batch(64).prefetch(1), epochs=10)
        """}, "TFD002")
    assert [(f.location.line, f.confidence) for f in findings] == [(21, confidence)]


def test_a_generator_pipeline_read_through_the_iterator_its_object_holds():
    """A data class builds its pipeline in its constructor and keeps an iterator over it; the training loop takes
    each batch with `next_batch()`. The object comes from a classmethod constructor (`from_config`), and another
    class has methods of the same names, so only the constructor says which class it is."""
    findings = _findings({"data.py": """
        import numpy as np
        import tensorflow as tf

        class Batches:
            def __init__(self, files):
                dataset = tf.data.Dataset.from_generator(lambda: self._read(files), output_types=tf.float32)
                self.data_iter = iter(dataset.batch(32).repeat(-1).prefetch(2))

            @classmethod
            def from_config(cls, config):
                return cls(config["files"])

            def _read(self, files):
                for name in files:
                    yield np.load(name)

            def next_batch(self):
                return next(self.data_iter)

        class Samples:
            @classmethod
            def from_config(cls, config):
                return cls()

            def next_batch(self):
                return np.zeros((32, 10))
        """, "train.py": """
        import tensorflow as tf
        from data import Batches

        model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
        optimizer = tf.keras.optimizers.Adam()
        batches = Batches.from_config({"files": ["a.npy"]})

        @tf.function
        def train_step(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(x))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))

        for step in range(1000):
            train_step(batches.next_batch())
        """}, "TFD004")
    assert [(f.location.path.as_posix(), f.location.line, f.confidence, f.reach) for f in findings] == [
        ("data.py", 6, Confidence.LIKELY, Reach.TRAINING)]


def test_the_reading_a_generator_does_through_a_callable_its_constructor_is_given():
    """A generic data class takes the per-sample loader as an argument (`preprocessor=self._load`) and calls it
    from its generator: the loading is Python work of the pipeline, as if written in the generator."""
    findings = _findings({"data.py": """
        import numpy as np
        import tensorflow as tf

        class Dataset:
            def __init__(self, samples, preprocessor):
                self.samples = samples
                self.preprocessor = preprocessor

            def _generate(self):
                return (self.preprocessor(sample) for sample in self.samples)

            def train_batches(self):
                return tf.data.Dataset.from_generator(self._generate, output_types=tf.float32).batch(16)

        class Handler:
            def __init__(self, names):
                self.names = names

            def _load(self, name):
                return np.load(name + ".npy")

            def get_dataset(self):
                return Dataset(self.names, preprocessor=self._load).train_batches()
        """, "train.py": """
        import tensorflow as tf
        from data import Handler

        model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
        model.compile(optimizer="adam", loss="mse")
        model.fit(Handler(["a", "b"]).get_dataset(), epochs=10)
        """}, "TFD004")
    assert [(f.location.line, f.confidence) for f in findings] == [(13, Confidence.LIKELY)]
    assert any("np.load" in e.message for e in findings[0].evidence)


def test_a_model_that_trains_itself_is_built_where_its_class_is_constructed():
    """The model's class holds its own training step (differentiating `self.trainable_variables`); the script gets
    the model from a classmethod constructor. The model the step trains is built at that `cls(...)`."""
    findings = _findings({"models.py": """
        import tensorflow as tf

        class Transformer(tf.keras.Model):
            def __init__(self, width):
                super().__init__()
                self.blocks = [tf.keras.layers.Conv1D(width, 3) for _ in range(12)]
                self.optimizer_ = tf.keras.optimizers.Adam()

            @classmethod
            def from_config(cls, config):
                return cls(**config)

            def call(self, x):
                for block in self.blocks:
                    x = block(x)
                return x

            @tf.function
            def train_on(self, x, y):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(self(x) - y))
                grads = tape.gradient(loss, self.trainable_variables)
                self.optimizer_.apply_gradients(zip(grads, self.trainable_variables))
                return loss
        """, "train.py": """
        from models import Transformer

        model = Transformer.from_config({"width": 512})
        for x, y in batches:
            model.train_on(x, y)
        """}, "TFC001")
    assert [(f.location.path.as_posix(), f.location.line, f.confidence) for f in findings] == [
        ("models.py", 11, Confidence.LIKELY)]


def test_a_module_a_package_init_binds_under_another_name():
    """A multi-backend package binds `data` to its TensorFlow or its PyTorch module in `__init__`; the training
    script calls `data.init_dataset()`. The pipeline in `tf_data.py` is what training reads."""
    findings = _findings({"pkg/__init__.py": """
        from pkg import backend

        if backend.is_tensorflow:
            from pkg import tf_data as data
        else:
            from pkg import torch_data as data
        """, "pkg/backend.py": """
        is_tensorflow = True
        """, "pkg/tf_data.py": """
        import tensorflow as tf

        def augment(image):
            return tf.image.random_flip_left_right(image)

        def init_dataset(files):
            return tf.data.TFRecordDataset(files).map(augment).batch(32).prefetch(tf.data.AUTOTUNE)
        """, "train.py": """
        import tensorflow as tf
        from pkg import data

        model = tf.keras.applications.ResNet50(weights=None)
        model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
        model.fit(data.init_dataset(["train.tfrecord"]), epochs=90)
        """}, "TFD002")
    assert [(f.location.path.as_posix(), f.location.line, f.confidence, f.reach) for f in findings] == [
        ("pkg/tf_data.py", 7, Confidence.LIKELY, Reach.TRAINING)]


@pytest.mark.parametrize("mode_default, confidence", [("fit", Confidence.POSSIBLE), ("eager_tf", Confidence.LIKELY)])
def test_a_training_mode_the_default_settings_skip_is_at_most_possible(mode_default: str, confidence):
    """yolov3-tf2's shape: `--mode` picks `model.fit` or an eager GradientTape loop for debugging. With `fit` the
    default, a run reaches the loop's per-step `.numpy()` and eager step only when the user asks for that mode;
    with `eager_tf` the default, both are what a run does."""
    findings = _findings({"train.py": f"""
        import tensorflow as tf
        from absl import app, flags

        flags.DEFINE_enum("mode", "{mode_default}", ["fit", "eager_tf"], "how to train")
        flags.DEFINE_integer("epochs", 2, "epochs")
        FLAGS = flags.FLAGS

        def main(_):
            model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
            optimizer = tf.keras.optimizers.Adam()
            dataset = tf.data.TFRecordDataset(["train.tfrecord"]).batch(8).prefetch(1)
            if FLAGS.mode == "eager_tf" and FLAGS.epochs > 0:
                for images, labels in dataset:
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean(tf.square(model(images) - labels))
                    grads = tape.gradient(loss, model.trainable_variables)
                    optimizer.apply_gradients(zip(grads, model.trainable_variables))
                    print("loss", loss.numpy())
            else:
                model.compile(optimizer, "mse")
                model.fit(dataset, epochs=FLAGS.epochs)

        if __name__ == "__main__":
            app.run(main)
        """}, "TFH002", "TFH004")
    assert [(f.code, f.location.line, f.confidence) for f in findings] == [
        ("TFH002", 14, confidence), ("TFH004", 18, confidence)]
    if confidence is Confidence.POSSIBLE:
        skipped = '`FLAGS.mode == "eager_tf" and FLAGS.epochs > 0` (train.py:12:8) is False'
        assert all(skipped in f.evidence[-1].message for f in findings)


@pytest.mark.parametrize("mode_arguments", [['"--mode", nargs="?"', '"mode", nargs="?"'],
                                            ['"--mode", default="generate"']])
def test_a_mode_switch_that_trains_through_a_wrapper_is_taken_by_a_run_that_trains(mode_arguments):
    """gpt-2-simple's shape: `args.mode == "finetune"` calls a command wrapper (`cmd_finetune`) that calls the
    training function. Whether the mode has no default (`--mode` and a positional `mode`, which the user gives) or
    defaults to generating, the branch is how the program is told to train: its per-step image reads stay likely."""
    arguments = "\n            ".join(f"parser.add_argument({a})" for a in mode_arguments)
    findings = _findings({"gpt2.py": f"""
        import argparse
        import cv2
        import tensorflow as tf

        def finetune(sess, paths, steps=1000):
            model = build_transformer(layers=12)
            loss = model.loss()
            train_op = tf.compat.v1.train.AdamOptimizer(1e-4).minimize(loss)
            for step in range(steps):
                batch = [cv2.imread(path) for path in paths[step * 4:step * 4 + 4]]
                sess.run(train_op, feed_dict={{model.x: batch}})

        def cmd_finetune(paths):
            finetune(tf.compat.v1.Session(), paths)

        def cmd():
            parser = argparse.ArgumentParser()
            {arguments}
            args = parser.parse_args()
            if args.mode == "finetune":
                cmd_finetune(glob.glob("images/*.jpg"))
            if args.mode == "generate":
                generate()
        """}, "TFD004")
    assert [(f.code, f.location.line, f.confidence) for f in findings] == [("TFD004", 11, Confidence.LIKELY)]


def test_a_default_that_fakes_the_data_leaves_the_real_pipeline_reached():
    """A benchmark script defaults to random tensors (`--use_data=fake`); the real pipeline, in the branch the
    default skips, is what a user training on their data runs: its serial decoding map stays likely."""
    findings = _findings({"train.py": """
        import tensorflow as tf

        tf.app.flags.DEFINE_string("use_data", "fake", "fake or real")
        FLAGS = tf.app.flags.FLAGS

        def parse(record):
            features = tf.parse_single_example(record, {"image": tf.FixedLenFeature([], tf.string)})
            return tf.image.resize_images(tf.image.decode_jpeg(features["image"]), [299, 299])

        def input_fn(params):
            if FLAGS.use_data == "real":
                dataset = tf.data.TFRecordDataset(tf.gfile.Glob("train-*")).repeat().map(parse).batch(64)
                images = dataset.make_one_shot_iterator().get_next()
            else:
                images = tf.random_uniform([64, 299, 299, 3])
            return images, tf.zeros([64], tf.int32)

        estimator = tf.estimator.Estimator(model_fn)
        estimator.train(input_fn, max_steps=100000)
        """}, "TFD002")
    assert [(f.location.line, f.confidence) for f in findings] == [(12, Confidence.LIKELY)]


def test_maps_of_validation_and_evaluation_pipelines_are_at_most_possible():
    """One `preprocess` (with random flips) serves three pipelines: the training one is what every step waits for;
    the validation one runs once per epoch and the test one once, after training: possible, saying so."""
    findings = _findings({"train.py": """
        import tensorflow as tf

        def preprocess(path, label):
            image = tf.image.decode_jpeg(tf.io.read_file(path))
            return tf.image.random_flip_left_right(image), label

        db_train = tf.data.Dataset.from_tensor_slices((train_paths, train_labels)).map(preprocess).batch(32)
        db_val = tf.data.Dataset.from_tensor_slices((val_paths, val_labels)).map(preprocess).batch(32)
        db_test = tf.data.Dataset.from_tensor_slices((test_paths, test_labels)).map(preprocess).batch(32)

        model = tf.keras.applications.ResNet50(weights=None, classes=5)
        model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
        model.fit(db_train, validation_data=db_val, epochs=100)
        model.evaluate(db_test)
        """}, "TFD002")
    assert [(f.location.line, f.confidence) for f in findings] == [
        (7, Confidence.LIKELY), (8, Confidence.POSSIBLE), (9, Confidence.POSSIBLE)]
    assert "it feeds only validation: not the input every training step waits for" in [
        e.message for e in findings[1].evidence]
    assert "it feeds only evaluation: not the input every training step waits for" in [
        e.message for e in findings[2].evidence]


_TCN_LIBRARY = """
    from tensorflow.keras.layers import Conv1D, Layer

    class ResidualBlock(Layer):
        def __init__(self, nb_filters, kernel_size, **kwargs):
            super().__init__(**kwargs)
            self.nb_filters = nb_filters
            self.kernel_size = kernel_size

        def build(self, input_shape):
            self.convs = [Conv1D(filters=self.nb_filters, kernel_size=self.kernel_size) for _ in range(2)]
            self.match = Conv1D(filters=self.nb_filters, kernel_size=1)

    class TCN(Layer):
        def __init__(self, nb_filters=64, kernel_size=3, dilations=(1, 2, 4, 8, 16, 32), **kwargs):
            super().__init__(**kwargs)
            self.nb_filters = nb_filters
            self.kernel_size = kernel_size
            self.dilations = dilations

        def build(self, input_shape):
            self.blocks = []
            for i, d in enumerate(self.dilations):
                filters = self.nb_filters[i] if isinstance(self.nb_filters, list) else self.nb_filters
                self.blocks.append(ResidualBlock(nb_filters=filters, kernel_size=self.kernel_size))

        def compute_output_shape(self, input_shape):
            if not self.built:
                self.build(input_shape)
            return input_shape
    """


@pytest.mark.parametrize("construction, confidence", [
    ("TCN(nb_filters=12)", Confidence.POSSIBLE), ("TCN()", Confidence.POSSIBLE),
    ("TCN(nb_filters=[256, 256, 512, 512, 512, 512])", Confidence.LIKELY),
    ("TCN(nb_filters=512, kernel_size=5)", Confidence.LIKELY)])
def test_a_library_layer_is_as_wide_as_the_script_constructs_it(construction: str, confidence):
    """keras-tcn's shape: each example script builds the library's TCN layer with its own width; the layer class
    hands it to residual blocks it builds in a loop (an int or a list per block), and `compute_output_shape` calls
    `build` again. A 12-filter TCN, or the default 64-filter one (1-D filters of fewer than 128 do no 16-bit work
    worth a policy), is too small to gain; a 512-filter one is not. A list of widths is not read: unknown counts."""
    findings = _findings({"tcn.py": _TCN_LIBRARY, "train.py": f"""
        import numpy as np
        from tensorflow.keras import Sequential
        from tensorflow.keras.layers import Dense, Embedding
        from tcn import TCN

        model = Sequential([Embedding(20000, 128), {construction}, Dense(1, activation="sigmoid")])
        model.compile("adam", "binary_crossentropy")
        model.fit(np.load("x.npy"), np.load("y.npy"), epochs=10)
        """}, "TFC001")
    assert [(f.location.path.as_posix(), f.confidence) for f in findings] == [("train.py", confidence)]


def _resnet_module(widths: tuple[int, ...]) -> str:
    layers = ", ".join(f"tf.keras.layers.Conv2D({w}, 3)" for w in widths)
    return f"""
        import tensorflow as tf

        class ResNet(tf.keras.Model):
            def __init__(self, classes):
                super().__init__()
                self.body = tf.keras.Sequential([{layers}])
                self.head = tf.keras.layers.Dense(classes)

            def call(self, x):
                return self.head(self.body(x))
        """


_LESSON_TRAINING = """
    import tensorflow as tf
    from resnet import ResNet

    model = ResNet(5)
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    model.fit(tf.data.Dataset.load("pokemon").batch(32), epochs=100)
    """


@pytest.mark.parametrize("local_resnet", [_resnet_module((16, 32)), "class ResNet(tf.keras.Model)：\n    pass\n"],
                         ids=["small", "unreadable"])
def test_an_import_reads_the_module_in_the_scripts_own_folder(local_resnet: str):
    """A tutorial's lessons each have their own `resnet.py`: lesson 2's training script imports its own small one
    (or one advisor cannot read: a full-width colon is a syntax error), not lesson 1's deep ResNet."""
    findings = _findings({"lesson1/resnet.py": _resnet_module((64, 128, 256, 512) * 4),
                          "lesson1/train.py": _LESSON_TRAINING, "lesson2/resnet.py": local_resnet,
                          "lesson2/train.py": _LESSON_TRAINING}, "TFC001")
    assert [(f.location.path.as_posix(), f.confidence) for f in findings] == [
        ("lesson1/train.py", Confidence.LIKELY), ("lesson2/train.py", Confidence.POSSIBLE)]


def test_the_models_a_gan_trains_together_are_sized_together():
    """A 64x64 DCGAN trained inline in main(): the discriminator's update calls it only through a loss function it
    is handed. Each model alone is a few convolutions; together they are every step's work. Both are trained: each
    gets its finding, sized with the other."""
    findings = _findings({"gan.py": """
        import tensorflow as tf
        from tensorflow.keras import layers

        class Generator(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.fc = layers.Dense(3 * 3 * 512)
                self.up1 = layers.Conv2DTranspose(256, 3, 3)
                self.up2 = layers.Conv2DTranspose(128, 5, 2)
                self.out = layers.Conv2DTranspose(3, 4, 3)

        class Discriminator(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.conv1 = layers.Conv2D(64, 5, 3)
                self.conv2 = layers.Conv2D(128, 5, 3)
                self.conv3 = layers.Conv2D(256, 5, 3)
                self.fc = layers.Dense(1)
        """, "train.py": """
        import tensorflow as tf
        from gan import Generator, Discriminator

        def d_loss_fn(generator, discriminator, z, x):
            return tf.reduce_mean(discriminator(generator(z))) - tf.reduce_mean(discriminator(x))

        def main():
            generator = Generator()
            discriminator = Discriminator()
            g_optimizer, d_optimizer = tf.keras.optimizers.Adam(), tf.keras.optimizers.Adam()
            for x in dataset:
                z = tf.random.normal([512, 100])
                with tf.GradientTape() as tape:
                    d_loss = d_loss_fn(generator, discriminator, z, x)
                grads = tape.gradient(d_loss, discriminator.trainable_variables)
                d_optimizer.apply_gradients(zip(grads, discriminator.trainable_variables))
                with tf.GradientTape() as tape:
                    g_loss = -tf.reduce_mean(discriminator(generator(z)))
                grads = tape.gradient(g_loss, generator.trainable_variables)
                g_optimizer.apply_gradients(zip(grads, generator.trainable_variables))

        main()
        """}, "TFC001")
    assert [(f.location.line, f.confidence) for f in findings] == [(8, Confidence.LIKELY), (9, Confidence.LIKELY)]
    assert all("that of the 1 other model trained in the same steps makes 5 convolution" in f.evidence[1].message
               for f in findings)


def test_python_numbers_converted_in_a_forward_pass_are_no_host_reads():
    # `float("-inf")` and `float(max_timescale)` (a parameter that defaults to a number) stay Python floats under
    # tf.function: the eager inline step can just be compiled.
    findings = _findings({"train.py": """
        import math
        import tensorflow as tf

        def timing_signal(length, channels, min_timescale=1.0, max_timescale=1.0e4):
            increment = math.log(float(max_timescale) / float(min_timescale)) / (channels // 2 - 1)
            scales = tf.exp(tf.range(channels // 2, dtype=tf.float32) * -increment)
            return tf.sin(tf.cast(tf.range(length), tf.float32)[:, None] * scales[None])

        class Encoder(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.dense = tf.keras.layers.Dense(512)

            def call(self, x, mask):
                x = self.dense(x) + timing_signal(tf.shape(x)[1], 512)
                scores = tf.matmul(x, x, transpose_b=True)
                scores = tf.where(mask, scores, tf.fill(tf.shape(scores), float("-inf")))
                return tf.reduce_mean(tf.nn.softmax(scores))

        model = Encoder()
        optimizer = tf.keras.optimizers.Adam()
        for epoch in range(10):
            for x, mask in dataset:
                with tf.GradientTape() as tape:
                    loss = model(x, mask)
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                              model.trainable_variables))
        """}, "TFH002")
    assert [(f.location.line, f.confidence) for f in findings] == [(24, Confidence.LIKELY)]


def test_a_branch_on_a_value_already_copied_to_the_host_waits_for_nothing_more():
    # `.numpy()` waits for the device once; `num_pos == 0.` then compares two host floats.
    findings = _findings({"train.py": """
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        optim = tf.keras.optimizers.Adam()
        for epoch in range(10):
            for x, labels in dataset:
                with tf.GradientTape() as tape:
                    logits = model(x, training=True)
                    num_pos = tf.reduce_sum(labels).numpy()
                    if num_pos == 0.:
                        weight = 1.
                    else:
                        weight = 2.
                    loss = tf.reduce_mean(tf.nn.weighted_cross_entropy_with_logits(labels, logits, weight))
                grads = tape.gradient(loss, model.trainable_variables)
                optim.apply_gradients(zip(grads, model.trainable_variables))
        """}, "TFH004")
    assert [(f.location.line, f.confidence) for f in findings] == [(9, Confidence.LIKELY)]


def test_a_list_each_iteration_fills_anew_holds_no_tensor_of_an_earlier_one():
    """A PPO update loop starts each minibatch with empty lists, fills them from the NumPy rollout and rebinds each
    name to a tensor (`obs = tf.convert_to_tensor(np.asarray(obs))`): `np.asarray` stacks host arrays and waits for
    nothing; only the step's loss, read with `.numpy()`, is a sync."""
    script = """
        import numpy as np
        import tensorflow as tf

        @tf.function
        def update(obs, adv):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(policy(obs) * adv)
            optimizer.apply_gradients(zip(tape.gradient(loss, policy.trainable_variables), policy.trainable_variables))
            return loss

        i = 0
        while i < num_samples:
            obs = []
            adv = []
            for b in range(batch_size):
                obs.append(obs_horizon[indices[i]])
                adv.append(adv_horizon[indices[i]])
                i += 1
            obs = tf.convert_to_tensor(np.asarray(obs), dtype=tf.float32)
            adv = tf.convert_to_tensor(np.asarray(adv), dtype=tf.float32)
            loss = update(obs, adv)
            losses.append(loss.numpy())
        """
    assert _where(_findings({"ppo.py": script}, "TFH004")) == [("TFH004", "ppo.py", 22)]
    # The tensor the last iteration computed comes round (one of Python's values copied into a tensor would not).
    kept = script.replace("            obs = []\n", "").replace(
        "obs = tf.convert_to_tensor(np.asarray(obs), dtype=tf.float32)",
        "obs = tf.math.l2_normalize(np.asarray(obs, dtype=np.float32), axis=-1)")
    assert _where(_findings({"ppo.py": kept}, "TFH004")) == [("TFH004", "ppo.py", 18), ("TFH004", "ppo.py", 21)]


def test_arithmetic_on_a_tensors_shape_is_read_from_host_memory():
    """A Tacotron trainer walks each batch's frames in chunks: `end = tf.minimum((i + 1) * chunk, n_frames)` with
    `n_frames = tf.shape(mel)[1]` is int32 arithmetic on a shape, held in host memory, and `if end - start <= 0:`
    waits for no kernel. A branch on the step's loss does."""
    script = """
        import tensorflow as tf

        @tf.function
        def optimize_step(text, mel):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(text) - mel))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
            return loss

        def train_step(text, mel, chunk=25):
            n_frames = tf.shape(mel)[1]
            for i in range(n_frames // chunk + 1):
                start = i * chunk
                end = tf.minimum((i + 1) * chunk, n_frames)
                if end - start <= 0:
                    continue
                loss = optimize_step(text, mel[:, start:end])
                if loss > 100.0:
                    print("diverging")

        for text, mel in dataset:
            train_step(text, mel)
        """
    assert _where(_findings({"train.py": script}, "TFH004")) == [("TFH004", "train.py", 18)]


def test_a_tensor_handed_to_a_helper_that_copies_it_to_python_is_a_sync():
    """A Tacotron trainer carries the decoder state from chunk to chunk through `state = to_np(state)`, a helper
    whose `tensor.numpy()` copies the step's result to the host every step. A logger that reads the loss only on
    some calls (`if step % 100 == 0:`) waits only then."""
    script = """
        import tensorflow as tf

        def to_np(tensor):
            if isinstance(tensor, (list, tuple)):
                return [to_np(t) for t in tensor]
            return tensor.numpy() if hasattr(tensor, "numpy") else tensor

        def log(step, loss):
            if step % 100 == 0:
                print(step, float(loss))

        @tf.function
        def optimize_step(x, state):
            with tf.GradientTape() as tape:
                y, new_state = model(x, state)
                loss = tf.reduce_mean(tf.square(y - x))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
            return new_state, loss

        state = None
        for step, x in enumerate(dataset):
            state, loss = optimize_step(x, state)
            state = to_np(state)
            log(step, loss)
        """
    findings = _findings({"train.py": script}, "TFH004")
    assert _where(findings) == [("TFH004", "train.py", 23)]
    assert "hands a tensor to `to_np`" in findings[0].message


def test_a_test_that_orders_the_step_against_a_bound_starts_a_phase_not_an_interval():
    """A latent-diffusion autoencoder trains alone until `global_step_discriminator`, then with its discriminator:
    each side of `if i >= self.start:` runs on every step of its phase, and both read the losses with `.numpy()`.
    A look at the first few steps (`if i < 5:`) is no per-step cost."""
    script = """
        import tensorflow as tf

        @tf.function
        def step_autoencoder(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - x))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
            return loss

        class Trainer:
            def train(self, dataset):
                for i, x in enumerate(dataset):
                    if i >= self.discriminator_start:
                        loss = step_autoencoder(x)
                        loss = loss.numpy()
                    else:
                        loss = step_autoencoder(x)
                        loss = loss.numpy()
                    if i < 5:
                        print(float(step_autoencoder(x)))
        """
    assert _where(_findings({"trainer.py": script}, "TFH004")) == [("TFH004", "trainer.py", 15),
                                                                    ("TFH004", "trainer.py", 18)]


def test_numpy_work_on_a_python_batch_inside_a_tape_is_host_work():
    """A YOLOv5 loop opens its tape around everything: the batch its loader's `next_batch()` returns, NumPy's
    scaling of it, the indices `np.where(...)[0]` picks and a sample drawn for a picture are host arrays, and
    reading them waits for nothing; the loss formatted for the progress bar, and the copy `np.where` makes of the
    predictions, are the step's."""
    script = """
        import random
        import numpy as np
        import tensorflow as tf

        for epoch in range(100):
            for batch in range(steps):
                with tf.GradientTape() as tape:
                    data = loader.next_batch()
                    images = np.array(data["imgs"] / 255.0, dtype=np.float32)
                    boxes = np.array(data["bboxes"] / 640, dtype=np.float32)
                    preds = model(images, training=True)
                    loss = loss_fn(preds, boxes)
                    grads = tape.gradient(loss, model.trainable_variables)
                    optimizer.apply_gradients(zip(grads, model.trainable_variables))
                    bar.set_postfix({"loss": "{:.5f}".format(loss)})
                    kept = np.where(preds.numpy() > 0.5)[0]
                    if len(kept) > 0:
                        print(kept)
                    one = random.choice(range(batch_size))
                    box = boxes[one] * 640
                    for i in np.where(np.sum(box, axis=-1))[0]:
                        xmin, ymin, xmax, ymax = box[i]
                        image = draw(images[one].copy() * 255, int(xmin), int(ymin), int(xmax), int(ymax))
        """
    assert _where(_findings({"train.py": script}, "TFH004")) == [("TFH004", "train.py", 15),
                                                                  ("TFH004", "train.py", 16)]


def test_norms_of_each_gradient_taken_with_numpy_every_step_are_syncs():
    """A Tacotron loop plots each layer's gradient norm: `np.linalg.norm(g)` for every `g` of the tape's gradients
    copies each one to the host every step. Its shape (`len(g.get_shape())`) is known without waiting."""
    findings = _findings({"train.py": """
        import numpy as np
        import tensorflow as tf

        for x, y in dataset:
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - y))
            gradients = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(gradients, model.trainable_variables))
            norms = []
            for i, g in enumerate(gradients):
                if len(g.get_shape()) > 0:
                    norms.append(np.linalg.norm(g))
        """}, "TFH004")
    assert _where(findings) == [("TFH004", "train.py", 12)]


def test_an_eager_step_whose_model_compiles_its_own_forward_pass_gains_less():
    """A text classifier's models decorate their `call` with `@tf.function`: the loop's eager step dispatches only
    the loss and the update from Python, so compiling it is worth less than the finding's usual promise."""
    script = """
        import tensorflow as tf

        class TextCNN(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.convs = [tf.keras.layers.Conv1D(128, k) for k in (3, 4, 5)]
                self.dense = tf.keras.layers.Dense(10)

            @tf.function
            def call(self, x):
                return self.dense(tf.concat([tf.reduce_max(conv(x), axis=1) for conv in self.convs], axis=-1))

        model = TextCNN()
        optimizer = tf.keras.optimizers.Adam()
        for epoch in range(10):
            for x, y in dataset:
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(y, model(x)))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                              model.trainable_variables))
        """
    (finding,) = _findings({"train.py": script}, "TFH002")
    assert finding.confidence is Confidence.POSSIBLE
    assert any("`TextCNN.call`" in e.message for e in finding.evidence)
    # A long-text BERT trainer calls the compiled method by its name.
    (named,) = _findings({"train.py": script.replace("y, model(x)", "y, model.call(x)")}, "TFH002")
    assert named.confidence is Confidence.POSSIBLE
    (eager,) = _findings({"train.py": script.replace("            @tf.function\n", "")}, "TFH002")
    assert eager.confidence is Confidence.LIKELY


def test_a_sum_of_losses_built_up_in_a_tape_is_a_tensor():
    """A YOLOv3 step adds each scale's losses to names it starts at 0 (`giou_loss += loss_items[0]`), then sums
    them: formatting the total for a log line every step reads the device's result."""
    findings = _findings({"train.py": """
        import tensorflow as tf

        for x, y in dataset:
            with tf.GradientTape() as tape:
                giou_loss = conf_loss = 0
                for head in heads:
                    loss_items = compute_loss(head(x), y)
                    giou_loss += loss_items[0]
                    conf_loss += loss_items[1]
                total_loss = giou_loss + conf_loss
            optimizer.apply_gradients(zip(tape.gradient(total_loss, model.trainable_variables),
                                          model.trainable_variables))
            print("total_loss: %4.2f" % total_loss)
        """}, "TFH004")
    assert _where(findings) == [("TFH004", "train.py", 13)]


def test_a_model_that_reads_host_values_in_its_forward_pass_is_no_quick_compile():
    """A detection model's `call` computes anchor shapes with `.numpy()` (dragen1860's Faster R-CNN): the eager
    inline step cannot just be compiled, and the loop's `loss.numpy()` adds little to the waits the forward pass
    already makes. Both findings stay, at possible, saying why."""
    findings = _findings({"detection/misc.py": """
        import tensorflow as tf

        def pad_shapes(metas):
            return tf.cast(tf.reduce_max(metas[:, 6:8], axis=0), tf.int32).numpy()
        """, "detection/detector.py": """
        import tensorflow as tf
        from detection.misc import pad_shapes

        class RPNHead(tf.keras.layers.Layer):
            def call(self, features, metas):
                height, width = pad_shapes(metas)
                return tf.image.resize(features, (height, width))

        class FasterRCNN(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.backbone = tf.keras.applications.ResNet50(include_top=False, weights=None)
                self.rpn_head = RPNHead()

            def call(self, inputs, training=False):
                images, metas = inputs
                return tf.reduce_mean(self.rpn_head(self.backbone(images), metas))
        """, "train.py": """
        import tensorflow as tf
        from detection.detector import FasterRCNN

        model = FasterRCNN()
        optimizer = tf.keras.optimizers.SGD(1e-3)
        for epoch in range(100):
            for images, metas in dataset:
                with tf.GradientTape() as tape:
                    loss = model((images, metas), training=True)
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                print(epoch, loss.numpy())
        """}, "TFH002", "TFH004")
    assert [(f.code, f.location.path.as_posix(), f.location.line, f.confidence) for f in findings] == [
        ("TFH002", "train.py", 8, Confidence.POSSIBLE), ("TFH004", "train.py", 12, Confidence.POSSIBLE)]
    step, sync = findings
    assert "compiling is a rewrite of the model, not of the step" in step.message
    assert "detection/misc.py:4:12" in step.evidence[-1].message
    assert "the step already waits for the device in its model's forward pass" in sync.evidence[-1].message


def test_host_values_a_compiled_step_computes_while_tracing_make_no_per_step_wait():
    """StyleGAN2's regularized discriminator step is a `tf.function` whose generator computes truncation
    coefficients with `np.ones_like` (StyleGAN2-TensorFlow-2.x): NumPy runs once, while the step is traced, so
    the loop's `d_loss.numpy()` is the read that waits every step (likely), not one that adds to a wait already
    there."""
    findings = _findings({"train.py": """
        import numpy as np
        import tensorflow as tf

        class Generator(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.dense = tf.keras.layers.Dense(512)
                self.layer_indices = np.arange(18)

            def truncation_trick(self, w):
                ones = np.ones_like(self.layer_indices, dtype=np.float32)
                return w * ones[0]

            def call(self, z):
                return self.truncation_trick(self.dense(z))

        class Trainer:
            def __init__(self):
                self.generator = Generator()
                self.optimizer = tf.keras.optimizers.Adam()

            @tf.function
            def d_train_step(self, z):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(self.generator(z))
                grads = tape.gradient(loss, self.generator.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.generator.trainable_variables))
                return loss

            def train(self, dataset):
                for step, z in enumerate(dataset):
                    d_loss = self.d_train_step(z)
                    losses = {"d_loss": d_loss.numpy()}
                    if step % 100 == 0:
                        print(step, losses)

        Trainer().train(tf.data.Dataset.from_tensor_slices(tf.random.normal([64, 8])).batch(8))
        """}, "TFH004")
    assert [(f.location.line, f.confidence) for f in findings] == [(33, Confidence.LIKELY)]
    assert not any("already waits" in e.message for e in findings[0].evidence)


def test_a_dataset_made_once_before_the_loop_is_no_per_step_python_batch():
    """ColorBot's shape: `load_dataset` downloads a file once (gfile checks), then returns a tf.data pipeline; the
    epoch loop hands that dataset to a training function every epoch. Nothing is read in Python per step."""
    findings = _findings({"utils.py": """
        import tensorflow as tf

        def load_dataset(data_dir, url, batch_size):
            path = data_dir + "/train.csv"
            if not tf.io.gfile.exists(path):
                tf.io.gfile.copy(url, path)
            return tf.data.TextLineDataset(path).map(parse).padded_batch(batch_size).prefetch(1)
        """, "main.py": """
        import tensorflow as tf
        from utils import load_dataset

        def train_one_epoch(model, optimizer, dataset):
            for labels, chars in dataset:
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(model(chars) - labels))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))

        def main():
            train_data = load_dataset("data", "https://example.com/train.csv", 64)
            model = tf.keras.Sequential([tf.keras.layers.LSTM(256), tf.keras.layers.Dense(3)])
            optimizer = tf.keras.optimizers.Adam()
            for epoch in range(40):
                train_one_epoch(model, optimizer, train_data)

        main()
        """}, "TFD004")
    assert findings == []


def test_plain_gradient_descent_by_hand_is_training():
    """Tutorials update raw variables with the tape's gradients themselves (`w.assign_sub(lr * grads[0])`, or
    `p.assign_sub(lr * g)` over `zip(params, grads)`): that trains, eagerly, every batch. Gradient ascent on an input
    image (a filter visualization) updates no weights and trains nothing."""
    findings = _findings({"forward.py": """
        import tensorflow as tf

        w1 = tf.Variable(tf.random.truncated_normal([784, 256], stddev=0.1))
        w2 = tf.Variable(tf.random.truncated_normal([256, 10], stddev=0.1))
        for epoch in range(10):
            for x, y in train_db:
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(y - tf.nn.relu(x @ w1) @ w2))
                grads = tape.gradient(loss, [w1, w2])
                w1.assign_sub(0.001 * grads[0])
                w2.assign_sub(0.001 * grads[1])
        """, "epoch.py": """
        import tensorflow as tf

        def train_epoch(epoch, dataset, params, lr=0.001):
            for step, (x, y) in enumerate(dataset):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(y - x @ params[0]))
                grads = tape.gradient(loss, params)
                for p, g in zip(params, grads):
                    p.assign_sub(lr * g)
            return loss.numpy()

        params = [tf.Variable(tf.zeros([784, 10]))]
        for epoch in range(20):
            print(train_epoch(epoch, train_db, params))
        """, "visualize.py": """
        import tensorflow as tf

        image = tf.Variable(tf.random.uniform([1, 128, 128, 3]))
        for i in range(100):
            with tf.GradientTape() as tape:
                activation = tf.reduce_mean(feature_extractor(image)[..., 7])
            grads = tape.gradient(activation, image)
            image.assign_add(10.0 * tf.math.l2_normalize(grads))
        """}, "TFH002", "TFH004")
    # One finding per training step; the epoch function's `return loss.numpy()` runs once per epoch, not per step.
    assert [(f.code, f.location.path.as_posix(), f.location.line, f.confidence) for f in findings] == [
        ("TFH002", "epoch.py", 3, Confidence.LIKELY), ("TFH002", "forward.py", 7, Confidence.LIKELY)]


def test_a_loop_of_a_few_steps_is_no_per_step_cost_worth_a_change():
    """A 10-step demo of a BatchNormalization layer's training: compiling it would trace once for ten eager steps.
    The same step called 10 times per replay, per environment step of 1000 episodes, runs many times."""
    findings = _findings({"demo.py": """
        import tensorflow as tf

        net = tf.keras.layers.BatchNormalization()
        optimizer = tf.keras.optimizers.SGD(1e-2)
        x = tf.random.normal([2, 4, 4, 3])
        for i in range(10):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.pow(net(x, training=True), 2)) - 1
            grads = tape.gradient(loss, net.trainable_variables)
            optimizer.apply_gradients(zip(grads, net.trainable_variables))
        """, "agent.py": """
        import tensorflow as tf

        class Agent:
            def update(self, states, targets):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(self.model(states) - targets))
                grads = tape.gradient(loss, self.model.trainable_variables)
                self.opt.apply_gradients(zip(grads, self.model.trainable_variables))

            def replay(self):
                for _ in range(10):
                    self.update(*self.buffer.sample())

            def train(self, max_episodes=1000):
                for ep in range(max_episodes):
                    done = False
                    while not done:
                        done = self.env.step(self.act())[2]
                        self.replay()

        Agent().train()
        """}, "TFH002")
    assert [(f.location.path.as_posix(), f.confidence) for f in findings] == [
        ("agent.py", Confidence.LIKELY), ("demo.py", Confidence.POSSIBLE)]
    assert "the loop runs 10 steps in all: a per-step cost adds up to little" in [
        e.message for e in findings[1].evidence]


def test_a_function_only_a_branch_off_by_default_calls_is_skipped_with_it():
    """bubbliiiing's shape: the script's settings live in its `if __name__ == "__main__":` block (`eager = False`);
    `if eager:` builds a from_generator pipeline and calls the custom loop's epoch function, else Keras fits a
    Sequence. A default run never calls `fit_one_epoch`: its per-step `.numpy()` is at most possible. The eager
    branch makes a dataset the default one does not, but both train: it is no stand-in for the data."""
    findings = _findings({"utils_fit.py": """
        import tensorflow as tf

        @tf.function
        def train_step(images, targets, model, optimizer):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(images) - targets))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        def fit_one_epoch(model, optimizer, gen, epoch_step):
            for iteration, (images, targets) in enumerate(gen):
                if iteration >= epoch_step:
                    break
                loss = train_step(images, targets, model, optimizer)
                print(iteration, loss.numpy())
        """, "train.py": """
        import tensorflow as tf
        from utils_fit import fit_one_epoch

        if __name__ == "__main__":
            eager = False
            model = build_model()
            optimizer = tf.keras.optimizers.Adam()
            if eager:
                gen = tf.data.Dataset.from_generator(loader.generate, (tf.float32, tf.float32)).prefetch(8)
                for epoch in range(100):
                    fit_one_epoch(model, optimizer, gen, 1000)
            else:
                model.compile(optimizer, "mse")
                model.fit(loader, epochs=100)
        """}, "TFH004")
    assert [(f.location.path.as_posix(), f.confidence) for f in findings] == [("utils_fit.py", Confidence.POSSIBLE)]
    assert "`eager` (train.py:8:8) is False with them" in findings[0].evidence[-1].message


def test_a_reinitializable_iterator_consumes_the_dataset_a_session_loop_trains_on():
    """TensorFlow 1.x's `Iterator.from_structure` + `make_initializer(train_batches)`, then a session loop running
    the train op: the dataset that initializer takes is the training input (Kyubyong's transformer). Its
    from_generator tokenizes every sentence in Python."""
    findings = _findings({"data_load.py": """
        import tensorflow as tf

        def generator_fn(sents, vocab_fpath):
            token2idx = load_vocab(vocab_fpath)
            for sent in sents:
                yield [token2idx.get(t, 1) for t in sent.decode("utf-8").split()]

        def get_batch(sents, vocab_fpath, batch_size):
            dataset = tf.data.Dataset.from_generator(generator_fn, tf.int32, args=(sents, vocab_fpath))
            return dataset.repeat().padded_batch(batch_size, [None]).prefetch(1)
        """, "train.py": """
        import tensorflow as tf
        from data_load import get_batch

        train_batches = get_batch(train_sents, "vocab.txt", 32)
        iterator = tf.data.Iterator.from_structure(train_batches.output_types, train_batches.output_shapes)
        xs = iterator.get_next()
        train_init_op = iterator.make_initializer(train_batches)
        loss = tf.reduce_mean(tf.layers.dense(tf.one_hot(xs, 32000), 512))
        train_op = tf.train.AdamOptimizer(1e-4).minimize(loss)
        with tf.Session() as sess:
            sess.run(train_init_op)
            for step in range(100000):
                sess.run(train_op)
        """}, "TFD004")
    assert [(f.location.path.as_posix(), f.location.line, f.reach) for f in findings] == [
        ("data_load.py", 9, Reach.TRAINING)]


def test_the_part_a_caller_unpacks_is_not_the_builders_other_models():
    """keras-retinanet's `create_models` returns (model, training_model, prediction_model); training fits
    `training_model`, made by a wrapper advisor cannot see into. The prediction wrapper, bound to the third
    name, is not what trains: no finding is anchored there (the repo's other script trains a model it sees)."""
    findings = _findings({"models.py": """
        import tensorflow as tf

        def bbox_model(model):
            boxes = tf.keras.layers.Lambda(decode)(model.outputs[0])
            return tf.keras.models.Model(inputs=model.inputs, outputs=boxes)
        """, "train.py": """
        import tensorflow as tf
        from models import bbox_model

        def create_models(backbone_fn, gpus):
            model = backbone_fn()
            training_model = tf.keras.utils.multi_gpu_model(model, gpus=gpus)
            prediction_model = bbox_model(model)
            training_model.compile(optimizer="adam", loss="mse")
            return model, training_model, prediction_model

        def main(backbone_fn):
            model, training_model, prediction_model = create_models(backbone_fn, 2)
            training_model.fit(generator, epochs=50)

        if __name__ == "__main__":
            main(BACKBONES[args.backbone])
        """, "finetune.py": """
        import tensorflow as tf

        model = tf.keras.applications.ResNet50(weights=None)
        model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
        model.fit(images, epochs=10)
        """}, "TFC001")
    assert [f.location.path.as_posix() for f in findings] == ["finetune.py"]


def test_a_sequential_of_a_layer_list_written_elsewhere_counts_those_layers():
    """A VGG13 for CIFAR: its conv layers are a module-level list, `Sequential(conv_layers)` built in main()."""
    findings = _findings({"cifar_train.py": """
        import tensorflow as tf
        from tensorflow.keras import layers, Sequential

        conv_layers = [
            layers.Conv2D(64, 3, padding="same", activation="relu"), layers.Conv2D(64, 3, padding="same"),
            layers.MaxPool2D(2), layers.Conv2D(128, 3, padding="same"), layers.Conv2D(128, 3, padding="same"),
            layers.MaxPool2D(2), layers.Conv2D(256, 3, padding="same"), layers.Conv2D(256, 3, padding="same"),
            layers.MaxPool2D(2), layers.Conv2D(512, 3, padding="same"), layers.Conv2D(512, 3, padding="same"),
        ]

        def main():
            conv_net = Sequential(conv_layers)
            conv_net.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
            conv_net.fit(train_db, epochs=50)

        if __name__ == "__main__":
            main()
        """}, "TFC001")
    assert [(f.location.line, f.confidence) for f in findings] == [(12, Confidence.LIKELY)]


def test_a_functional_model_built_on_another_models_tensors_counts_that_model():
    """keras-yolo3's bottleneck training: one YOLOv3 body, then a bottleneck model, a last-layer model and the full
    training model are cut from it. The full model is `Model([body.input, *y_true], Lambda(loss)([*body.output,
    *y_true]))`: the body's layers are its layers. The last-layer model applies three of the body's layers to
    cached features (`body.layers[249](in0)`), and reads another model's output only for an Input's shape: small."""
    findings = _findings({"train.py": """
        import tensorflow as tf
        from tensorflow.keras.layers import Input, Lambda
        from tensorflow.keras.models import Model

        def yolo_body(inputs):
            x = inputs
            for filters in (64, 128, 256, 512, 1024):
                x = tf.keras.layers.Conv2D(filters, 3, strides=2)(x)
            return Model(inputs, [tf.keras.layers.Conv2D(255, 1)(x)])

        def create_model():
            image_input = Input(shape=(None, None, 3))
            y_true = [Input(shape=(13, 13, 3, 85))]
            body = yolo_body(image_input)
            bottleneck = Model([body.input, *y_true], [body.layers[-2].output])
            in0 = Input(shape=bottleneck.output[0].shape[1:])
            last = Model([in0, *y_true], Lambda(loss)([body.layers[-1](in0), *y_true]))
            model = Model([body.input, *y_true], Lambda(loss)([*body.output, *y_true]))
            return model, bottleneck, last

        model, bottleneck, last = create_model()
        last.compile(optimizer="adam", loss=lambda y, p: p)
        last.fit(features, epochs=10)
        model.compile(optimizer="adam", loss=lambda y, p: p)
        model.fit(images, epochs=100)
        """}, "TFC001")
    assert sorted((f.location.line, f.confidence) for f in findings) == [
        (17, Confidence.POSSIBLE), (18, Confidence.LIKELY)]


def test_a_functional_model_made_after_another_on_the_same_tensors_counts_their_layers():
    """Faster R-CNN ports' shape: `model_rpn = Model(inputs, rpn)`, then `model_all = Model([inputs, roi_input], rpn
    + classifier)`; both on the same ResNet features. The layers before the first model are the second's too: a
    ResNet-sized detector, not a model "too small to gain"."""
    findings = _findings({"frcnn.py": """
        import tensorflow as tf
        from tensorflow.keras.layers import Conv2D, Dense, Input, TimeDistributed
        from tensorflow.keras.models import Model

        def block(x, filters):
            filters1, filters2 = filters
            x = Conv2D(filters1, 1)(x)
            return Conv2D(filters2, 3, padding="same")(x)

        def rpn_head(x):
            return [Conv2D(512, 3, padding="same")(x)]

        def get_model(num_classes):
            inputs = Input(shape=(None, None, 3))
            roi_input = Input(shape=(None, 4))
            x = inputs
            for filters in ([64, 256], [128, 512], [256, 1024], [256, 1024], [256, 1024]):
                x = block(x, filters)
            rpn = rpn_head(x)
            classifier = [TimeDistributed(Dense(num_classes))(roi_input)]
            model_rpn = Model(inputs, rpn)
            model_all = Model([inputs, roi_input], rpn + classifier)
            return model_rpn, model_all

        model_rpn, model_all = get_model(21)
        model_rpn.compile(optimizer="adam", loss="mse")
        model_all.compile(optimizer="adam", loss="mse")
        for images, targets in batches:
            model_rpn.train_on_batch(images, targets)
            model_all.train_on_batch([images, rois], targets)
        """}, "TFC001")
    assert [(f.location.line, f.confidence) for f in findings] == [(21, Confidence.LIKELY), (22, Confidence.LIKELY)]


def test_a_functional_head_on_the_tensors_of_a_model_made_to_load_weights_counts_its_layers():
    """An FCN written out layer by layer (a CV cookbook's): `Model(input, block5_pool)` is made only to load VGG16's
    weights into the layers; the head's 3-filter convolutions on `block5_pool` end in `Model(input, output)`, the
    model that trains. The VGG16 layers before the first model are the FCN's too: a model to gain from mixed
    precision, not one with no layers to count."""
    findings = _findings({"fcn.py": """
        import tensorflow as tf
        from tensorflow.keras.layers import *
        from tensorflow.keras.models import Model

        def vgg_block(x, filters, convolutions):
            for _ in range(convolutions):
                x = Conv2D(filters, (3, 3), activation="relu", padding="same")(x)
            return x

        class FCN:
            def __init__(self, output_channels=3):
                self.output_channels = output_channels
                self.model = self._create_model()
                self.model.compile(optimizer="rmsprop", loss="sparse_categorical_crossentropy")

            def _create_model(self):
                input = Input(shape=(256, 256, 3))
                x = vgg_block(input, 64, 2)
                x = vgg_block(MaxPooling2D()(x), 128, 2)
                x = vgg_block(MaxPooling2D()(x), 256, 3)
                x = vgg_block(MaxPooling2D()(x), 512, 3)
                x = vgg_block(MaxPooling2D()(x), 512, 3)
                block5_pool = MaxPooling2D()(x)
                vgg = Model(input, block5_pool)
                vgg.load_weights("vgg16.h5", by_name=True)
                output = Conv2D(self.output_channels, (7, 7), padding="same")(block5_pool)
                output = Conv2DTranspose(self.output_channels, (32, 32), strides=32)(output)
                output = Softmax()(output)
                return Model(input, output)

        fcn = FCN()
        fcn.model.fit(train_dataset, epochs=120)
        """}, "TFC001", show_all=True)
    assert [(f.location.line, f.confidence) for f in findings] == [(29, Confidence.LIKELY)]


def test_a_model_a_method_keeps_in_self_and_another_trains_is_the_trained_model():
    """The Siamese-network shape: `__init__` sets `self.model = []`, a builder method assigns the functional model
    to `self.model`, and the training method calls `self.model.train_on_batch(...)`: that model is what trains."""
    findings = _findings({"siamese.py": """
        from keras.layers import Conv2D, Dense, Flatten, Input, Lambda
        from keras.models import Model, Sequential

        class SiameseNetwork:
            def __init__(self):
                self.model = []
                self._construct()

            def _construct(self):
                tower = Sequential()
                for filters in (64, 128, 128, 256):
                    tower.add(Conv2D(filters, 4, activation="relu", input_shape=(105, 105, 1)))
                tower.add(Flatten())
                tower.add(Dense(4096, activation="sigmoid"))
                left, right = Input((105, 105, 1)), Input((105, 105, 1))
                distance = Lambda(lambda t: abs(t[0] - t[1]))([tower(left), tower(right)])
                self.model = Model(inputs=[left, right], outputs=Dense(1, activation="sigmoid")(distance))
                self.model.compile(loss="binary_crossentropy", optimizer="sgd")

            def train(self, loader, iterations):
                for iteration in range(iterations):
                    images, labels = loader.get_train_batch()
                    self.model.train_on_batch(images, labels)

        if __name__ == "__main__":
            SiameseNetwork().train(OmniglotLoader(), 1000000)
        """}, "TFC001")
    assert [(f.location.line, f.confidence) for f in findings] == [(17, Confidence.LIKELY)]


def test_an_iterator_over_a_keras_image_generator_hands_out_its_batches():
    """`train_dataset = iter(train_generator)`, then `next(train_dataset)` every step of a custom loop: the batches
    are the ImageDataGenerator's, read and augmented in Python."""
    findings = _findings({"train.py": """
        import tensorflow as tf

        datagen = tf.keras.preprocessing.image.ImageDataGenerator(rotation_range=20, horizontal_flip=True)
        train_generator = datagen.flow_from_directory("data/train", target_size=(224, 224), batch_size=32)

        @tf.function
        def train_step(inputs):
            images, labels = inputs
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.keras.losses.categorical_crossentropy(labels, model(images)))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        for epoch in range(50):
            train_dataset = iter(train_generator)
            for _ in range(len(train_generator)):
                train_step(next(train_dataset))
        """}, "TFD004")
    assert [(f.location.line, f.confidence) for f in findings] == [(18, Confidence.LIKELY)]


def test_a_guard_on_the_optimizers_counter_reads_it_every_step_unless_compiled():
    """`if tf.equal(optimizer.iterations % log_freq, 0):` after a compiled step decides on a device variable every
    step (TF 2's eager examples log this way); the same test inside a compiled loop is a graph op."""
    findings = _findings({"train.py": """
        import tensorflow as tf

        @tf.function
        def train_step(x, y):
            with tf.GradientTape() as tape:
                loss = loss_fn(y, model(x))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
            return loss

        @tf.function
        def train_compiled(n):
            for _ in tf.range(n):
                loss = train_step(*next(iterator))
                if optimizer.iterations % 5000 == 0:
                    tf.print("step", optimizer.iterations, loss)

        for step, (x, y) in enumerate(dataset):
            loss = train_step(x, y)
            if tf.equal(optimizer.iterations % 100, 0):
                tf.summary.scalar("loss", loss, step=optimizer.iterations)
            if step % 100 == 0:
                tf.summary.scalar("lr", optimizer.learning_rate, step=step)
        """}, "TFH004")
    assert [(f.location.line, f.confidence) for f in findings] == [(19, Confidence.LIKELY)]


TF1_GAN = """
    import tensorflow as tf

    def discriminator(x, reuse=False):
        with tf.variable_scope("discriminator", reuse=reuse):
            net = tf.layers.conv2d(x, 64, 4, strides=2)
            net = tf.layers.conv2d(net, 128, 4, strides=2)
            return tf.layers.dense(tf.layers.flatten(net), 1)

    def generator(z, reuse=False):
        with tf.variable_scope("generator", reuse=reuse):
            net = tf.reshape(tf.layers.dense(z, 7 * 7 * 128), [-1, 7, 7, 128])
            net = tf.layers.conv2d_transpose(net, 64, 4, strides=2)
            return tf.layers.conv2d_transpose(net, {last}, 4, strides=2)

    images = tf.placeholder(tf.float32, [None] + image_dims)
    z = tf.placeholder(tf.float32, [None, 62])
    real = discriminator(images)
    fake = discriminator(generator(z), reuse=True)
    samples = generator(z, reuse=True)
    loss = tf.reduce_mean(fake) - tf.reduce_mean(real)
    train_op = tf.train.AdamOptimizer(2e-4).minimize(loss)
    data = {loader}
    with tf.Session() as sess:
        for step in range(100000):
            sess.run(train_op, feed_dict={{images: data[step % 100], z: noise()}})
    """


@pytest.mark.parametrize("last, loader, confidence", [
    (1, "load_images('celeba')", Confidence.POSSIBLE),  # three wide convolutions, the shared ones counted once
    (64, "load_images('celeba')", Confidence.LIKELY),
    (64, "load_mnist('fashion-mnist')", Confidence.POSSIBLE),  # as many, on 28-pixel images
])
def test_a_tf1_gan_counts_shared_towers_once_and_knows_mnist_images_are_small(last, loader, confidence):
    """`discriminator(fake, reuse=True)` applies the layers the first call made, as a Keras model called on real
    and generated images does; a program that loads MNIST trains on 28-pixel images even when its placeholders are
    shaped by variables."""
    findings = _findings({"gan.py": TF1_GAN.format(last=last, loader=loader)}, "TFC001", show_all=True)
    assert [f.confidence for f in findings] == [confidence]


def test_models_given_to_a_model_class_or_applied_as_layers_are_counted():
    """A Keras GAN class constructed with its two Sequential models, and a classifier that applies a VGG16 base
    built before another model: each trains those models' layers (the book's GAN and feature-extraction examples)."""
    findings = _findings({"train.py": """
        import keras
        import tensorflow as tf
        from keras import layers

        discriminator = keras.Sequential([
            keras.Input(shape=(64, 64, 3)),
            layers.Conv2D(64, 4, strides=2), layers.Conv2D(128, 4, strides=2), layers.Conv2D(128, 4, strides=2),
            layers.Flatten(), layers.Dense(1)])
        generator = keras.Sequential([
            keras.Input(shape=(128,)), layers.Dense(8 * 8 * 128), layers.Reshape((8, 8, 128)),
            layers.Conv2DTranspose(128, 4, strides=2), layers.Conv2DTranspose(256, 4, strides=2),
            layers.Conv2D(3, 5)])

        class GAN(keras.Model):
            def __init__(self, discriminator, generator):
                super().__init__()
                self.discriminator, self.generator = discriminator, generator

            def train_step(self, images):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(self.discriminator(self.generator(tf.random.normal((32, 128)))))
                grads = tape.gradient(loss, self.generator.trainable_weights)
                self.optimizer.apply_gradients(zip(grads, self.generator.trainable_weights))
                return {"loss": loss}

        gan = GAN(discriminator=discriminator, generator=generator)
        gan.compile(optimizer="adam")
        gan.fit(dataset, epochs=100)

        conv_base = keras.applications.vgg16.VGG16(weights="imagenet", include_top=False)
        head = keras.Sequential([layers.Dense(256), layers.Dense(1)])
        head.fit(features, labels)
        inputs = keras.Input(shape=(180, 180, 3))
        outputs = layers.Dense(1)(layers.Flatten()(conv_base(inputs)))
        model = keras.Model(inputs, outputs)
        model.fit(images, epochs=30)
        """}, "TFC001", show_all=True)
    assert {f.location.line: f.confidence for f in findings if f.confidence is Confidence.LIKELY}.keys() == {26, 35}


@pytest.mark.parametrize("loop, width, confidence", [
    ("for filters in layer_filters:", "filters", Confidence.POSSIBLE),  # 32 and 64: one wide layer in each loop
    ("for filters in [64, 128]:", "filters", Confidence.LIKELY),
    ("for _ in range(2):", "64", Confidence.LIKELY),
    ("for filters in widths():", "filters", Confidence.LIKELY),  # values not written out: LOOP_REPEAT
])
def test_a_loop_over_written_values_makes_a_layer_once_per_wide_value(loop, width, confidence):
    findings = _findings({"train.py": f"""
        import tensorflow as tf
        from tensorflow.keras.layers import Conv2D, Conv2DTranspose, Input

        layer_filters = [32, 64]
        inputs = x = Input(shape=(128, 128, 3))
        {loop}
            x = Conv2D(filters={width}, kernel_size=3, strides=2)(x)
        {loop}
            x = Conv2DTranspose(filters={width}, kernel_size=3, strides=2)(x)
        model = tf.keras.Model(inputs, Conv2D(3, 3)(x))
        model.fit(images, epochs=30)
        """}, "TFC001", show_all=True)
    assert [f.confidence for f in findings] == [confidence]


@pytest.mark.parametrize("library", ["bert4keras", "tf2_bert"])
def test_a_library_transformer_reexported_keras_and_a_model_object_holding_its_keras_model(library):
    """bert4keras style: `keras` comes from the package's backend module (which imports it), the transformer from
    `build_transformer_model`, and the classifier is built on `bert.model.output`; tf2_bert, its TensorFlow 2 port
    (a book's RoBERTa fine-tuning), builds the same."""
    findings = _findings({"pkg/__init__.py": "", "pkg/backend.py": """
        import keras
        import keras.backend as K
        """, "train.py": f"""
        from pkg.backend import keras
        from {library}.models import build_transformer_model

        bert = build_transformer_model(config_path, checkpoint_path, return_keras_model=False)
        output = keras.layers.Dense(2, activation="softmax")(keras.layers.Lambda(lambda x: x[:, 0])(bert.model.output))
        model = keras.models.Model(bert.model.input, output)
        model.compile(loss="sparse_categorical_crossentropy", optimizer="adam")
        model.fit(train_generator.forfit(), steps_per_epoch=len(train_generator), epochs=10)
        """}, "TFC001")
    assert [(f.location.path.as_posix(), f.location.line, f.confidence) for f in findings] == [
        ("train.py", 6, Confidence.LIKELY)]


def test_tf1_api_in_code_no_training_reaches_says_nothing_of_the_pipelines_tensorflow():
    """A library module keeps a TF1 serving class (`tf.get_default_graph()`) beside the dataset helper a TF 2
    script trains on; a generator that only shuffles its in-memory samples does no work per element."""
    files = {"snippets.py": """
        import numpy as np
        import tensorflow as tf

        class DataGenerator:
            def __init__(self, data, batch_size):
                self.data, self.batch_size = data, batch_size

            def forfit(self):
                while True:
                    for i in np.random.permutation(len(self.data)):
                        yield self.data[i]

            def to_dataset(self, types):
                return tf.data.Dataset.from_generator(self.forfit, output_types=types).map(
                    lambda x, y: (tf.strings.lower(x), y)).batch(self.batch_size)

        class WebServing:
            def __init__(self):
                self.graph = tf.get_default_graph()
        """, "train.py": """
        import tensorflow as tf
        from snippets import DataGenerator

        model = tf.keras.applications.ResNet50(weights=None)
        model.compile(optimizer="sgd", loss="mse")
        model.fit(DataGenerator(samples, 32).to_dataset(("string", "int32")), epochs=10)
        """}
    findings = _findings(files, "TFD002", "TFD004", show_all=True)
    assert [(f.code, f.location.line, f.confidence) for f in findings] == [
        ("TFD002", 14, Confidence.POSSIBLE), ("TFD004", 14, Confidence.POSSIBLE)]


def test_a_sequence_held_by_self_behind_the_train_switch_of_a_chapter_script():
    """Packt's book layout: each chapter folder has its own data_generator.py; the script's class sets
    `self.train_generator` in a method (None until then) and fits on it; the script trains only with `--train`,
    which is how it is run to train (no other way to train beside it)."""
    generator = """
        import numpy as np
        from skimage.io import imread
        from tensorflow.keras.utils import Sequence

        class DataGenerator(Sequence):
            def __init__(self, keys):
                self.keys = keys

            def __len__(self):
                return len(self.keys) // 8

            def __getitem__(self, index):
                return np.stack([{read}(k) for k in self.keys[index * 8:(index + 1) * 8]]), np.zeros(8)
        """
    findings = _findings({"chapter11/data_generator.py": generator.format(read="imread"),
                          "chapter12/data_generator.py": generator.format(read="np.load"), "chapter11/ssd.py": """
        import argparse
        from tensorflow.keras.applications import ResNet50
        from data_generator import DataGenerator

        class SSD:
            def __init__(self, args):
                self.args = args
                self.train_generator = None
                self.model = ResNet50(weights=None)

            def build_generator(self):
                self.train_generator = DataGenerator(self.args.keys)

            def train(self):
                if self.train_generator is None:
                    self.build_generator()
                self.model.compile(optimizer="adam", loss="mse")
                self.model.fit(self.train_generator, epochs=self.args.epochs)

            def evaluate(self):
                print(self.model.evaluate(self.args.test))

        if __name__ == "__main__":
            parser = argparse.ArgumentParser()
            parser.add_argument("--train", action="store_true")
            parser.add_argument("--evaluate", action="store_true")
            args = parser.parse_args()
            ssd = SSD(args)
            if args.evaluate:
                ssd.evaluate()
            if args.train:
                ssd.train()
        """}, "TFD004")
    assert [(f.location.path.as_posix(), f.location.line, f.confidence) for f in findings] == [
        ("chapter11/ssd.py", 18, Confidence.LIKELY)]
    assert "chapter12" not in _evidence(findings[0])


def test_a_training_switch_beside_an_evaluation_switch_that_fits_a_probe_is_taken():
    """Advanced Deep Learning with Keras' MINE: `if args.train: mine.train()`, and beside it `if args.eval:
    mine.eval()`, whose evaluation fits a linear classifier on the codes (a training call, two calls down). Both
    flags are off by default; the evaluation is no other way to train the model: a run that trains takes the
    switch, and the generator's per-image rotations are what it waits for."""
    findings = _findings({"mine.py": """
        import argparse
        import numpy as np
        from scipy.ndimage import rotate
        from tensorflow import keras

        class Batches(keras.utils.Sequence):
            def __len__(self):
                return 100

            def __getitem__(self, index):
                return np.stack([rotate(image, 15) for image in load(index)]), labels(index)

        class LinearProbe:
            def __init__(self, dim):
                self.model = keras.Sequential([keras.layers.Dense(10)])

            def fit(self, codes, labels):
                self.model.compile(optimizer="adam", loss="mse")
                self.model.fit(codes, labels, epochs=10)

        class MINE:
            def __init__(self, args):
                self.model = keras.Sequential([keras.layers.Conv2D(64, 3), keras.layers.Dense(10)])
                self.probe = LinearProbe(10)

            def train(self):
                self.model.compile(optimizer="adam", loss="mse")
                self.model.fit(Batches(), epochs=200)

            def eval(self):
                self.probe.fit(self.model.predict(test_images), test_labels)

        if __name__ == "__main__":
            parser = argparse.ArgumentParser()
            parser.add_argument("--train", action="store_true")
            parser.add_argument("--eval", action="store_true")
            args = parser.parse_args()
            mine = MINE(args)
            if args.train:
                mine.train()
            if args.eval:
                mine.eval()
        """}, "TFD004")
    assert [(f.location.line, f.confidence) for f in findings] == [(28, Confidence.LIKELY)]


@pytest.mark.parametrize("cell, confidence", [
    ("tf.contrib.rnn.BasicLSTMCell(1024)", Confidence.LIKELY),  # four wide products at every time step
    ("tf.nn.rnn_cell.GRUCell(num_units=1024)", Confidence.LIKELY),
    ("tf.nn.rnn_cell.LSTMCell(num_units=64)", Confidence.POSSIBLE),
])
def test_tensorflow_1_recurrent_cells_count_as_recurrent_layers(cell, confidence):
    """A TF1 seq2seq model stacks its cells in a loop over the layers (NMT, chatbots): each is a recurrent layer."""
    findings = _findings({"train.py": f"""
        import tensorflow as tf

        def build(inputs, num_layers):
            cells = [{cell} for _ in range(num_layers)]
            outputs, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.MultiRNNCell(cells), inputs, dtype=tf.float32)
            return tf.layers.dense(outputs, 30000)

        inputs = tf.placeholder(tf.float32, [None, 50, 512])
        loss = tf.reduce_mean(build(inputs, 2))
        train_op = tf.train.AdamOptimizer().minimize(loss)
        """}, "TFC001", show_all=True)
    assert [f.confidence for f in findings] == [confidence]


@pytest.mark.parametrize("layers, confidence", [
    ("layers.GRU(1024, return_sequences=True)", Confidence.LIKELY),  # three wide products at every time step
    ("layers.Bidirectional(layers.LSTM(1024, return_sequences=True))", Confidence.LIKELY),
    ("layers.LSTM(64, return_sequences=True)", Confidence.POSSIBLE),
    ("layers.Dense(2048)", Confidence.POSSIBLE),  # one wide layer, no time steps of its own to repeat it over
])
def test_recurrent_layers_count_their_gates_and_width(layers, confidence):
    findings = _findings({"train.py": f"""
        import keras
        from keras import layers

        inputs = keras.Input(shape=(None,), dtype="int64")
        x = layers.Embedding(30000, 256)(inputs)
        x = {layers}(x)
        model = keras.Model(inputs, layers.Dense(30000, activation="softmax")(x))
        model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
        model.fit(dataset, epochs=10)
        """}, "TFC001", show_all=True)
    assert [f.confidence for f in findings] == [confidence]


def test_a_library_preset_that_loads_no_network_is_no_architecture():
    findings = _findings({"train.py": """
        import keras
        import keras_hub

        tokenizer = keras_hub.models.GemmaTokenizer.from_preset("gemma3_1b")
        tokens = tokenizer(texts)
        inputs = keras.Input(shape=(None,), dtype="int64")
        model = keras.Model(inputs, keras.layers.Dense(2)(keras.layers.Embedding(1000, 32)(inputs)))
        model.fit(tokens, labels, epochs=10)
        """}, "TFC001", show_all=True)
    assert [(f.confidence, "known architecture" in f.evidence[-1].message) for f in findings] == [
        (Confidence.POSSIBLE, False)]


def test_a_model_passed_through_two_functions_into_the_step_is_the_one_it_trains():
    """SimCLR notebook style: `train_step(xis, xjs, model, optimizer)` trains its `model` parameter; the training
    function passes on its own parameter; the script passes the model a builder made. The augmentation Sequential
    the loop also calls trains nothing."""
    findings = _findings({"train.py": """
        import tensorflow as tf
        from tensorflow.keras.layers import Dense, GlobalAveragePooling2D, Input, Lambda
        from tensorflow.keras.models import Model, Sequential

        data_augmentation = Sequential([Lambda(lambda x: tf.image.random_flip_left_right(x))])

        def get_resnet_simclr(hidden):
            base_model = tf.keras.applications.ResNet50(include_top=False, weights=None)
            inputs = Input((224, 224, 3))
            return Model(inputs, Dense(hidden)(GlobalAveragePooling2D()(base_model(inputs, training=True))))

        @tf.function
        def train_step(xis, xjs, model, optimizer):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(xis) * model(xjs))
            gradients = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(gradients, model.trainable_variables))
            return loss

        def train_simclr(model, dataset, optimizer, epochs=100):
            for epoch in range(epochs):
                for image_batch in dataset:
                    train_step(data_augmentation(image_batch), data_augmentation(image_batch), model, optimizer)
            return model

        resnet_simclr = get_resnet_simclr(128)
        train_simclr(resnet_simclr, train_ds, tf.keras.optimizers.SGD(0.1), epochs=200)
        """}, "TFC001", show_all=True)
    assert [(f.location.line, f.confidence) for f in findings] == [(10, Confidence.LIKELY)]


def test_an_application_chosen_by_name_at_run_time_is_a_known_architecture():
    findings = _findings({"train.py": """
        from tensorflow.keras import applications
        from tensorflow.keras.layers import Dense
        from tensorflow.keras.models import Model

        def get_model(cfg):
            base_model = getattr(applications, cfg.model.model_name)(include_top=False, pooling="avg")
            features = base_model.output
            return Model(inputs=base_model.input, outputs=[Dense(2)(features), Dense(101)(features)])

        model = get_model(cfg)
        model.compile(optimizer="adam", loss="categorical_crossentropy")
        model.fit(generator, epochs=30)
        """}, "TFC001", show_all=True)
    assert [(f.location.line, f.confidence) for f in findings] == [(8, Confidence.LIKELY)]


def test_optimizing_the_image_a_model_is_fed_is_no_training():
    """Neural style transfer: `apply_gradients([(grad, image)])` with `grad = tape.gradient(loss, image)`, where
    `image` is what the step feeds the VGG feature extractor: the image changes, no model trains."""
    findings = _findings({"style.py": """
        import tensorflow as tf

        vgg = tf.keras.applications.VGG19(include_top=False, weights="imagenet")
        extractor = tf.keras.Model(vgg.input, [vgg.get_layer(name).output for name in layers])
        optimizer = tf.optimizers.Adam(learning_rate=0.02)

        @tf.function
        def train_step(image):
            with tf.GradientTape() as tape:
                loss = style_content_loss(extractor(image))
            grad = tape.gradient(loss, image)
            optimizer.apply_gradients([(grad, image)])

        image = tf.Variable(content_image)
        for step in range(1000):
            train_step(image)
        """}, "TFC001", "TFH002", "TFH004", show_all=True)
    assert findings == []


def test_a_backbone_added_to_a_sequential_by_name_is_counted():
    """The Keras book's feature-extraction example: `model = Sequential()`, then `model.add(conv_base)` with
    `conv_base = VGG16(...)` built before."""
    findings = _findings({"train.py": """
        from keras import layers, models
        from keras.applications import VGG16

        conv_base = VGG16(weights="imagenet", include_top=False, input_shape=(150, 150, 3))
        model = models.Sequential()
        model.add(conv_base)
        model.add(layers.Flatten())
        model.add(layers.Dense(256, activation="relu"))
        model.add(layers.Dense(1, activation="sigmoid"))
        model.compile(loss="binary_crossentropy", optimizer="rmsprop")
        model.fit(train_generator, steps_per_epoch=100, epochs=30)
        """}, "TFC001", show_all=True)
    assert [(f.location.line, f.confidence) for f in findings] == [(5, Confidence.LIKELY)]


def test_a_tf1_step_function_a_loop_calls_runs_every_step():
    """The TextCNN tutorial: `def train_step(x_batch, y_batch)` inside `train()` runs the training op with the
    merged summary op and writes the summary; the loop over batches calls it every iteration."""
    findings = _findings({"train.py": """
        import tensorflow as tf

        def train(cnn, batches):
            train_op = tf.train.AdamOptimizer(1e-3).minimize(cnn.loss)
            train_summary_op = tf.summary.merge([tf.summary.scalar("loss", cnn.loss)])
            with tf.Session() as sess:
                writer = tf.summary.FileWriter("summaries", sess.graph)

                def train_step(x_batch, y_batch):
                    _, step, summaries = sess.run([train_op, global_step, train_summary_op],
                                                  {cnn.input_x: x_batch, cnn.input_y: y_batch})
                    writer.add_summary(summaries, step)

                for batch in batches:
                    x_batch, y_batch = zip(*batch)
                    train_step(x_batch, y_batch)

        train(TextCNN(), batch_iter(data, 64, 200))
        """}, "TFH006", show_all=True)
    assert [(f.location.line, f.confidence) for f in findings] == [(12, Confidence.POSSIBLE)]


def test_a_merged_summary_of_a_histogram_per_gradient_is_heavy_host_work():
    """`for g, v in grads_and_vars: tf.summary.histogram(v.name, g)` merged into the summary a TF1 loop fetches
    every step: whole gradients (an embedding's too) are copied and binned on the host each step."""
    findings = _findings({"train.py": """
        import tensorflow as tf

        def train(loss, batches):
            optimizer = tf.train.AdamOptimizer(1e-3)
            grads_and_vars = optimizer.compute_gradients(loss)
            train_op = optimizer.apply_gradients(grads_and_vars, global_step=global_step)
            histograms = [tf.summary.histogram(v.name + "/grad", g) for g, v in grads_and_vars if g is not None]
            train_summary_op = tf.summary.merge([tf.summary.scalar("loss", loss)] + histograms)
            with tf.Session() as sess:
                writer = tf.summary.FileWriter("summaries", sess.graph)
                for x_batch, y_batch in batches:
                    _, step, summaries = sess.run([train_op, global_step, train_summary_op], {x: x_batch, y: y_batch})
                    writer.add_summary(summaries, step)

        train(model_loss(), batch_iter(data))
        """}, "TFH006", show_all=True)
    assert [(f.location.line, f.confidence) for f in findings] == [(13, Confidence.LIKELY)]


def test_a_flag_read_through_a_star_import_takes_the_default_of_the_config_it_imports():
    """A repo of NLP projects, each with its own `config.py` defining `--augment` with its own default, and a
    `train.py` reading `args` through `from config import *`: the default that run reads is its own project's, so
    the Python augmentation behind `if args.augment == "heavy":` runs by default in one project and not in the
    other."""
    config = """
        import argparse

        parser = argparse.ArgumentParser()
        parser.add_argument("--augment", default="{default}")
        args = parser.parse_args()
        """
    train = """
        import numpy as np
        import tensorflow as tf
        from config import *

        def jitter(image):
            return image + np.random.normal(size=image.shape)

        dataset = tf.data.Dataset.from_tensor_slices((images, labels))
        if args.augment == "heavy":
            dataset = dataset.map(lambda x, y: (tf.py_function(jitter, [x], tf.float32), y))
        model = tf.keras.Sequential([tf.keras.layers.Dense(8)])
        model.compile("adam", "mse")
        model.fit(dataset.batch(32).prefetch(1), epochs=100)
        """
    findings = _findings({"plain/config.py": config.format(default="none"), "plain/train.py": train,
                          "augmented/config.py": config.format(default="heavy"), "augmented/train.py": train},
                         "TFD003", show_all=True)
    assert sorted((f.location.path.as_posix(), f.confidence) for f in findings) == [
        ("augmented/train.py", Confidence.LIKELY), ("plain/train.py", Confidence.POSSIBLE)]


def test_a_generator_handing_out_arrays_in_memory_needs_no_prefetch_to_keep_up():
    """A TF1 language model's `from_generator` yields windows of a token array it holds (`tokens[i:i + window]`):
    the next batch is ready in microseconds, so the missing prefetch is only possible. A generator that loads each
    window from a file is input work a prefetch overlaps with the step (TF 1.x injects none)."""
    script = """
        import numpy as np
        import tensorflow as tf

        tokens = np.load("corpus.npy")

        def windows():
            for i in range(0, len(tokens) - 4000, 25):
                yield {item}

        dataset = tf.data.Dataset.from_generator(windows, tf.int32, tf.TensorShape([None]))
        batch = dataset.make_one_shot_iterator().get_next()
        train_op = tf.train.AdamOptimizer().minimize(language_model_loss(batch))
        with tf.Session() as sess:
            for step in range(100000):
                sess.run(train_op)
        """
    (finding,) = _findings({"train.py": script.format(item="tokens[i:i + 4000]")}, "TFD001", show_all=True)
    assert finding.confidence is Confidence.POSSIBLE
    assert "only hands out values already in memory" in _evidence(finding)
    (finding,) = _findings({"train.py": script.format(item='np.load(f"windows/{i}.npy")')}, "TFD001", show_all=True)
    assert finding.confidence is Confidence.LIKELY


def test_a_summary_proto_built_from_a_python_number_is_no_graph_summary():
    """A YOLOv3 TF1 loop fetches the merged summary (input images drawn with their boxes) every step and writes it,
    and also writes `tf.Summary(value=[tf.Summary.Value(tag=..., simple_value=train_loss)])`, a proto it builds from
    the loss it already fetched: the first is heavy host work every step, the second a scalar's serialization and
    computes nothing in the session."""
    findings = _findings({"train.py": """
        import tensorflow as tf

        def train(images, loss):
            tf.summary.image("input", images)
            merged_summary = tf.summary.merge_all()
            train_op = tf.train.AdamOptimizer(1e-3).minimize(loss)
            with tf.Session() as sess:
                writer = tf.summary.FileWriter("logs", sess.graph)
                for step in range(100000):
                    train_loss, summary, _ = sess.run([loss, merged_summary, train_op])
                    writer.add_summary(summary=tf.Summary(value=[tf.Summary.Value(tag="train loss",
                                                                                  simple_value=train_loss)]),
                                       global_step=step)
                    writer.add_summary(summary, step)

        train(load_images(), yolo_loss())
        """}, "TFH006", show_all=True)
    built, fetched = sorted(findings, key=lambda f: f.location.line)
    assert [(f.location.line, f.confidence) for f in (built, fetched)] == [(11, Confidence.POSSIBLE),
                                                                          (14, Confidence.LIKELY)]
    assert "writes a summary it builds" in built.message and "Fetch the summary op" not in built.message


def test_summary_ops_aliased_by_a_star_imported_ops_module_are_those_ops():
    """DCGAN-tensorflow's copies (one per chapter of a book's repo) alias the summary ops in `ops.py` by TensorFlow
    version (`image_summary = tf.image_summary` in a `try`, `tf.summary.image` in its `except`) and star-import
    them: the generator's image summary, merged and fetched with each update, is encoded every step; the
    discriminator's merge of a histogram of its output is little host work."""
    ops = """
        import tensorflow as tf

        try:
            image_summary = tf.image_summary
            histogram_summary = tf.histogram_summary
            merge_summary = tf.merge_summary
        except AttributeError:
            image_summary = tf.summary.image
            histogram_summary = tf.summary.histogram
            merge_summary = tf.summary.merge
        """
    model = """
        import tensorflow as tf
        from ops import *

        class DCGAN:
            def build(self):
                self.G = generator(self.z)
                self.g_sum = merge_summary([image_summary("G", self.G)])
                self.d_sum = merge_summary([histogram_summary("d", self.D)])
                self.g_optim = tf.train.AdamOptimizer(2e-4).minimize(self.g_loss)
                self.d_optim = tf.train.AdamOptimizer(2e-4).minimize(self.d_loss)

            def train(self, batches):
                for epoch in range(25):
                    for batch_z in batches:
                        _, summary_str = self.sess.run([self.d_optim, self.d_sum], feed_dict={self.z: batch_z})
                        self.writer.add_summary(summary_str, epoch)
                        _, summary_str = self.sess.run([self.g_optim, self.g_sum], feed_dict={self.z: batch_z})
                        self.writer.add_summary(summary_str, epoch)

        model = DCGAN()
        model.build()
        model.train(noise_batches())
        """
    findings = _findings({"chapter_8/ops.py": ops, "chapter_8/model.py": model,
                          "chapter_9/ops.py": "import tensorflow as tf\n"}, "TFH006", show_all=True)
    assert sorted((f.location.line, f.confidence) for f in findings) == [
        (16, Confidence.POSSIBLE), (18, Confidence.LIKELY)]


def test_a_summary_collection_merged_by_key_holds_only_its_own_summaries():
    """An anomaly-detection BiGAN makes its scalar losses into the `dis` and `gen` collections and its images into
    `image`, and fetches `merge_all("dis")` and `merge_all("gen")` every step: scalars, little host work (possible);
    every 20 steps a run of its own fetches the images into the same name `sm`, which writes them, so the every-step
    runs are not ones that fetch for some steps only."""
    findings = _findings({"train.py": """
        import tensorflow as tf

        def train(loss_dis, loss_gen, images, trainx):
            train_dis = tf.train.AdamOptimizer(1e-4).minimize(loss_dis)
            train_gen = tf.train.AdamOptimizer(1e-4).minimize(loss_gen)
            tf.summary.scalar("loss_discriminator", loss_dis, ["dis"])
            tf.summary.scalar("loss_generator", loss_gen, ["gen"])
            tf.summary.image("reconstruct", images, 8, ["image"])
            sum_op_dis = tf.summary.merge_all("dis")
            sum_op_gen = tf.summary.merge_all("gen")
            sum_op_im = tf.summary.merge_all("image")
            with tf.Session() as sess:
                writer = tf.summary.FileWriter("logs", sess.graph)
                for t in range(1000):
                    feed = {x: trainx[t * 32:(t + 1) * 32]}
                    _, sm = sess.run([train_dis, sum_op_dis], feed_dict=feed)
                    writer.add_summary(sm, t)
                    _, sm = sess.run([train_gen, sum_op_gen], feed_dict=feed)
                    writer.add_summary(sm, t)
                    if t % 20 == 0:
                        sm = sess.run(sum_op_im, feed_dict=feed)
                        writer.add_summary(sm, t)

        train(d_loss, g_loss, reconstruction, data)
        """}, "TFH006", show_all=True)
    assert [(f.location.line, f.confidence) for f in findings] == [(17, Confidence.POSSIBLE),
                                                                   (19, Confidence.POSSIBLE)]


def test_an_inherited_generator_runs_the_subclass_method_it_calls_through_self():
    """bert4keras: `model.fit(train_generator.forfit())`, where the library's `DataGenerator.forfit` yields from
    `self.__iter__()` and the script's subclass overrides `__iter__` to read and resize images."""
    findings = _findings({"snippets.py": """
        class DataGenerator:
            def __init__(self, data, batch_size=32):
                self.data, self.batch_size = data, batch_size

            def __iter__(self, random=False):
                raise NotImplementedError

            def forfit(self):
                while True:
                    for d in self.__iter__(True):
                        yield d
        """, "train.py": """
        import cv2
        import numpy as np
        import tensorflow as tf
        from snippets import DataGenerator

        class data_generator(DataGenerator):
            def __iter__(self, random=False):
                images = [cv2.resize(cv2.imread(path), (299, 299)) for path, _ in self.data[:self.batch_size]]
                yield np.array(images), np.zeros(self.batch_size)

        model = tf.keras.applications.Xception(weights=None)
        model.compile(optimizer="adam", loss="mse")
        train_generator = data_generator(samples, 32)
        model.fit(train_generator.forfit(), steps_per_epoch=1000, epochs=100)
        """}, "TFD004")
    assert [(f.location.path.as_posix(), f.location.line, f.confidence) for f in findings] == [
        ("train.py", 14, Confidence.LIKELY)]


def test_a_name_a_script_assigns_again_holds_the_last_value_above_where_it_is_read():
    """A notebook sets `hidden_dim = 32` in one cell and `hidden_dim = 1024` in a later one: the GRU built after the
    second is 1024 units wide, the one built before it 32."""
    findings = _findings({"lm.py": """
        import keras
        from keras import layers

        hidden_dim = 32
        inputs = keras.Input(shape=(None,), dtype="int64")
        small = keras.Model(inputs, layers.Dense(10)(layers.GRU(hidden_dim)(layers.Embedding(1000, 32)(inputs))))
        small.fit(toy_data, epochs=1)

        hidden_dim = 1024
        tokens = keras.Input(shape=(None,), dtype="int64")
        x = layers.GRU(hidden_dim, return_sequences=True)(layers.Embedding(256, 256)(tokens))
        model = keras.Model(tokens, layers.Dense(256, activation="softmax")(x))
        model.fit(text_data, epochs=20)
        """}, "TFC001", show_all=True)
    assert sorted((f.location.line, f.confidence) for f in findings) == [
        (6, Confidence.POSSIBLE), (12, Confidence.LIKELY)]


def test_a_compat_v1_session_graph_trains_and_its_op_runs_itself():
    """A TensorFlow 1.x style-transfer trainer ported to TensorFlow 2 through `tf.compat.v1`: the session, the
    placeholder and the optimizer are compat.v1's, the training op runs itself (`train_step.run(feed_dict=...)`),
    and each batch is read from image files in the loop. The losses are fetched only on printing steps, decided
    through flags the loop assigns."""
    findings = _findings({"optimize.py": """
        import numpy as np
        import imageio
        import tensorflow as tf

        def transform(images):
            x = images
            for filters in (64, 128, 256, 256, 256, 128, 64):
                x = tf.compat.v1.layers.conv2d(x, filters, 3, padding="same", activation=tf.nn.relu)
            return tf.compat.v1.layers.conv2d(x, 3, 3, padding="same")

        def optimize(paths, epochs=2, batch_size=4, print_iterations=1000):
            with tf.Graph().as_default(), tf.compat.v1.Session() as sess:
                images = tf.compat.v1.placeholder(tf.float32, shape=(batch_size, 256, 256, 3))
                loss = tf.reduce_mean(tf.square(transform(images) - images))
                train_step = tf.compat.v1.train.AdamOptimizer(1e-3).minimize(loss)
                sess.run(tf.compat.v1.global_variables_initializer())
                for epoch in range(epochs):
                    iterations = 0
                    while iterations * batch_size < len(paths):
                        batch = np.stack([imageio.imread(p) for p in paths[iterations:iterations + batch_size]])
                        train_step.run(feed_dict={images: batch})
                        iterations += 1
                        is_print_iter = iterations % print_iterations == 0
                        should_print = is_print_iter or epoch == epochs - 1
                        if should_print:
                            print(sess.run(loss, feed_dict={images: batch}))
        """})
    assert [(f.code, f.location.line, f.confidence) for f in findings] == [
        ("TFC001", 15, Confidence.LIKELY), ("TFD004", 21, Confidence.LIKELY)]
    assert "tf.compat.v1.mixed_precision.enable_mixed_precision_graph_rewrite" in findings[0].message


def test_a_tf1_training_op_run_through_control_dependencies_and_a_progress_bar():
    """TF1 YOLO trainers make the op a session runs a `no_op` under control dependencies on the optimizer's update
    (and the moving averages), pick one of two such ops per epoch, and iterate a Python dataset class through tqdm."""
    findings = _findings({"dataset.py": """
        import cv2
        import numpy as np

        class Dataset:
            def __init__(self, paths):
                self.paths = paths
            def __iter__(self):
                return self
            def __next__(self):
                return np.stack([cv2.resize(cv2.imread(p), (416, 416)) for p in self.paths[:8]])
        """, "train.py": """
        import tensorflow as tf
        from tqdm import tqdm
        from dataset import Dataset

        class Train:
            def __init__(self, paths):
                self.trainset = Dataset(paths)
                self.images = tf.placeholder(tf.float32, (None, 416, 416, 3))
                self.loss = tf.reduce_mean(tf.layers.conv2d(self.images, 64, 3))
                first = tf.train.AdamOptimizer(1e-3).minimize(self.loss)
                with tf.control_dependencies([first]):
                    self.train_op_frozen = tf.no_op()
                second = tf.train.AdamOptimizer(1e-4).minimize(self.loss)
                self.train_op_all = tf.group(second)
                self.sess = tf.Session()

            def train(self, epochs):
                for epoch in range(epochs):
                    train_op = self.train_op_frozen if epoch < 5 else self.train_op_all
                    if epoch >= 5:
                        train_op = self.train_op_all
                    for batch in tqdm(self.trainset):
                        self.sess.run([train_op, self.loss], feed_dict={self.images: batch})

        if __name__ == "__main__":
            Train(["a.jpg"]).train(10)
        """}, "TFD004")
    assert [(f.location.path.as_posix(), f.location.line, f.confidence) for f in findings] == [
        ("train.py", 22, Confidence.LIKELY)]


def test_a_session_loop_that_fetches_a_list_it_gathered_before_trains():
    """darkflow's shape: the fetches are gathered into a list (or dict) first, `fetches = [self.train_op, loss]`,
    then `sess.run(fetches, feed_dict)` per batch of a generator that reads images: the run trains."""
    findings = _findings({"train.py": """
        import cv2
        import tensorflow as tf

        images = tf.placeholder(tf.float32, (None, 416, 416, 3))
        loss = tf.reduce_mean(tf.layers.conv2d(images, 64, 3))
        train_op = tf.train.AdamOptimizer(1e-3).minimize(loss)

        def batches(paths):
            for path in paths:
                yield [cv2.resize(cv2.imread(path), (416, 416))]

        def train(sess, paths):
            fetches = [train_op, loss]
            for batch in batches(paths):
                sess.run(fetches, {images: batch})

        def evaluate(sess, paths):
            fetches = {"loss": loss}
            for batch in batches(paths):
                sess.run(fetches, {images: batch})

        if __name__ == "__main__":
            with tf.Session() as sess:
                train(sess, ["a.jpg"])
                evaluate(sess, ["b.jpg"])
        """}, "TFD004")
    assert [(f.location.line, f.confidence) for f in findings] == [(14, Confidence.LIKELY)]


def test_fetches_concatenated_and_rebuilt_in_each_branch_are_read_where_the_run_is():
    """Faster R-CNN ports' shape: `fetch_list = [losses..., train_op] + extra`, then rebuilt in an `if DEBUG:`
    without the training op and in its `else:` with it. The run under `else:` trains (its loop feeds Python
    batches and writes the summary it fetched, every step); the debugging run does not."""
    findings = _findings({"train.py": """
        import cv2
        import tensorflow as tf

        DEBUG = False
        images = tf.placeholder(tf.float32, (None, 600, 600, 3))
        scores = tf.layers.conv2d(images, 64, 3)
        loss = tf.reduce_mean(scores)
        train_op = tf.train.MomentumOptimizer(1e-3, 0.9).minimize(loss)
        summary_op = tf.summary.merge_all()

        def minibatch(path):
            return [cv2.resize(cv2.imread(path), (600, 600))]

        def train(sess, writer, paths):
            for step, path in enumerate(paths):
                blob = minibatch(path)
                fetch_list = [loss, summary_op, train_op] + [scores]
                if DEBUG:
                    fetch_list = [loss, summary_op] + [scores]
                    loss_value, summary, _ = sess.run(fetches=fetch_list, feed_dict={images: blob})
                else:
                    fetch_list = [loss, summary_op, train_op] + [scores]
                    loss_value, summary, _, _ = sess.run(fetches=fetch_list, feed_dict={images: blob})
                writer.add_summary(summary, step)

        if __name__ == "__main__":
            with tf.Session() as sess:
                train(sess, tf.summary.FileWriter("logs"), ["a.jpg"])
        """}, "TFD004", "TFH006")
    assert _where(findings) == [("TFD004", "train.py", 23), ("TFH006", "train.py", 24)]


def test_a_python_2_training_script_is_read_and_offered_no_fix():
    """A TensorFlow 1.x script from 2017 in Python 2: print statements, `except E, e`. It is read as Python 3 and
    its findings reported, but no fix rewrites a file advisor read through that rewrite."""
    findings = _findings({"gan.py": """
        import numpy as np
        import tensorflow as tf

        def generator(z):
            x = tf.layers.dense(z, 4 * 4 * 512)
            x = tf.reshape(x, [-1, 4, 4, 512])
            for filters in (512, 256, 128, 64):
                x = tf.layers.conv2d_transpose(x, filters, 5, strides=2, padding="same")
            return tf.layers.conv2d_transpose(x, 3, 5, strides=2, padding="same")

        z = tf.placeholder(tf.float32, [None, 128])
        loss = tf.reduce_mean(generator(z))
        train_op = tf.train.AdamOptimizer(2e-4).minimize(loss)
        with tf.Session() as session:
            try:
                session.run(tf.global_variables_initializer())
            except ValueError, error:
                print "cannot initialise:", error
            for step in xrange(100000):
                print >>sys.stderr, step
                session.run(train_op, feed_dict={z: codes[step * 64:(step + 1) * 64]})
        """}, "TFC001", "TFD004")
    assert [(f.code, f.location.line, f.confidence, f.patch) for f in findings] == [
        ("TFC001", 13, Confidence.LIKELY, None), ("TFD004", 21, Confidence.POSSIBLE, None)]


def test_tf_app_run_calls_the_scripts_main():
    """`tf.app.run()` with no function calls the script's `main`: the training there is this program's, and a
    float16 flag in another project of the repo is not on its way."""
    findings = _findings({"cifar10/model.py": """
        import tensorflow as tf
        FLAGS = tf.app.flags.FLAGS
        tf.app.flags.DEFINE_boolean("use_fp16", False, "Train the model using fp16.")

        def _variable(name, shape):
            return tf.get_variable(name, shape, dtype=tf.float16 if FLAGS.use_fp16 else tf.float32)
        """, "classifier/train.py": """
        import tensorflow as tf

        def network(images):
            x = images
            for filters in (64, 128, 256, 512):
                x = tf.layers.conv2d(x, filters, 3, activation=tf.nn.relu)
            return tf.layers.dense(tf.layers.flatten(x), 1000)

        def main(_):
            images = tf.placeholder(tf.float32, [None, 224, 224, 3])
            loss = tf.reduce_mean(network(images))
            train_op = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
            with tf.Session() as sess:
                for _ in range(100000):
                    sess.run(train_op)

        if __name__ == "__main__":
            tf.app.run()
        """}, "TFC001")
    assert [(f.location.path.as_posix(), f.location.line, f.confidence) for f in findings] == [
        ("classifier/train.py", 12, Confidence.LIKELY)]


def test_a_float16_serving_graph_no_training_reaches_turns_no_mixed_precision_on():
    """BERT-as-a-service's shape in a fine-tuning repo: the optimizer helper is called from a model function that
    Estimator calls, and from another model function no code calls (a way in the source does not show); the serving
    code casts its frozen graph to float16.
    The serving graph is not on the way of any training: fine-tuning still computes in float32."""
    findings = _findings({"optimization.py": """
        import tensorflow as tf

        def create_optimizer(loss, learning_rate):
            optimizer = tf.train.AdamOptimizer(learning_rate)
            grads = tf.gradients(loss, tf.trainable_variables())
            return optimizer.apply_gradients(zip(grads, tf.trainable_variables()))
        """, "modeling.py": """
        import tensorflow as tf

        def transformer(x):
            for _ in range(12):
                x = tf.layers.dense(tf.layers.dense(x, 3072, activation=tf.nn.gelu), 768)
            return x
        """, "train_ner.py": """
        import tensorflow as tf
        import modeling
        import optimization

        def model_fn_builder(learning_rate):
            def model_fn(features, labels, mode, params):
                loss = tf.reduce_mean(modeling.transformer(features["input_ids"]))
                train_op = optimization.create_optimizer(loss, learning_rate)
                return tf.estimator.EstimatorSpec(mode=mode, loss=loss, train_op=train_op)
            return model_fn

        def main(_):
            estimator = tf.estimator.Estimator(model_fn=model_fn_builder(5e-5))
            estimator.train(input_fn=train_input_fn, max_steps=10000)

        if __name__ == "__main__":
            tf.app.run()
        """, "squad.py": """
        import modeling
        import optimization

        def squad_model_fn(features, labels, mode, params):
            loss = modeling.transformer(features["input_ids"])
            return optimization.create_optimizer(loss, params["learning_rate"])
        """, "server/graph.py": """
        import tensorflow as tf

        def optimize_graph(graph_def, fp16):
            if fp16:
                graph_def = convert_variables_to_constants(graph_def, dtype=tf.float16)
            return graph_def
        """}, "TFC001")
    assert [(f.location.path.as_posix(), f.location.line, f.confidence) for f in findings] == [
        ("optimization.py", 6, Confidence.LIKELY)]
    assert "server/graph.py:5" in findings[0].evidence[0].message
    # the rewrite's loss scaling reaches the gradients the wrapped optimizer takes, not tf.gradients'
    assert "instead of `tf.gradients` (line 5)" in findings[0].message


def test_an_agent_trained_between_environment_steps_is_no_sure_mixed_precision_gain():
    """A TensorFlow 1.x DQN: the Atari network is big enough by its layer count, but the agent trains between
    steps of a gym environment the host runs in Python, and reads its policy every step to act (no extra run to
    report there); the update runs every step, the policy-gradient one every ten episodes."""
    findings = _findings({"dqn.py": """
        import gym
        import numpy as np
        import tensorflow as tf

        def q_network(screens):
            x = screens
            for filters in (64, 128, 128, 256):
                x = tf.layers.conv2d(x, filters, 3, strides=2, activation=tf.nn.relu)
            return tf.layers.dense(tf.layers.dense(tf.layers.flatten(x), 1024), 6)

        screens = tf.placeholder(tf.float32, [None, 84, 84, 4])
        q_values = q_network(screens)
        loss = tf.reduce_mean(tf.square(q_values))
        optimizer = tf.train.RMSPropOptimizer(2.5e-4)
        train_op = optimizer.minimize(loss)
        env = gym.make("Pong-v0")
        with tf.Session() as sess:
            observation = env.reset()
            for step in range(1000000):
                action = np.argmax(sess.run(q_values, feed_dict={screens: [observation]}))
                observation, reward, done, _ = env.step(action)
                sess.run(train_op, feed_dict={screens: [observation]})
        """}, "TFC001", "TFH004")
    assert [(f.code, f.location.line, f.confidence) for f in findings] == [("TFC001", 15, Confidence.POSSIBLE)]
    assert "environment" in _evidence(findings[0])


def test_a_policy_loop_that_updates_every_n_episodes_is_no_training_loop():
    findings = _findings({"cartpole.py": """
        import gym
        import numpy as np
        import tensorflow as tf

        observations = tf.placeholder(tf.float32, [None, 4])
        hidden = tf.layers.dense(observations, 50, activation=tf.nn.relu)
        probability = tf.nn.sigmoid(tf.layers.dense(hidden, 1))
        gradients = tf.placeholder(tf.float32, [None, 1])
        adam = tf.train.AdamOptimizer(1e-2)
        update = adam.apply_gradients([(gradients, v) for v in tf.trainable_variables()])
        env = gym.make("CartPole-v0")
        with tf.Session() as sess:
            observation = env.reset()
            episode = 0
            while episode < 10000:
                p = sess.run(probability, feed_dict={observations: [observation]})
                observation, reward, done, _ = env.step(1 if np.random.uniform() < p else 0)
                if done:
                    episode += 1
                    if episode % 10 == 0:
                        sess.run(update, feed_dict={gradients: np.zeros((1, 1))})
        """}, "TFH004", "TFD004")
    assert findings == []


def test_tf1_networks_picked_by_a_function_and_applied_to_real_and_fake_images():
    """improved_wgan's 64px GAN: `Generator, Discriminator = GeneratorAndDiscriminator()` picks the networks, the
    discriminator is applied to real, fake and interpolated images (its variables shared by name), images are
    channels first (`[BATCH, 3, 64, 64]`), and each layer's op multiplies by the same weight in both branches of
    a rank test."""
    findings = _findings({"lib.py": """
        import tensorflow as tf

        def Linear(name, input_dim, output_dim, inputs):
            weight = param(name + ".W", (input_dim, output_dim))
            if inputs.get_shape().ndims == 2:
                return tf.matmul(inputs, weight)
            return tf.reshape(tf.matmul(tf.reshape(inputs, [-1, input_dim]), weight), [-1, output_dim])

        def Conv2D(name, input_dim, output_dim, inputs):
            return tf.nn.conv2d(inputs, param(name + ".Filters", (3, 3, input_dim, output_dim)), [1, 1, 1, 1], "SAME")
        """, "gan_64x64.py": """
        import tensorflow as tf
        from lib import Conv2D, Linear

        DIM = 64

        def GoodGenerator(n_samples):
            output = Linear("Generator.Input", 128, 4 * 4 * 8 * DIM, tf.random_normal([n_samples, 128]))
            for i, (n_in, n_out) in enumerate([(8, 8), (8, 4), (4, 2), (2, 1)]):
                output = Conv2D("Generator.Res%d" % i, n_in * DIM, n_out * DIM, output)
            return Conv2D("Generator.Output", DIM, 3, output)

        def GoodDiscriminator(inputs):
            output = Conv2D("Discriminator.Input", 3, DIM, inputs)
            for i, (n_in, n_out) in enumerate([(1, 2), (2, 4), (4, 8), (8, 8)]):
                output = Conv2D("Discriminator.Res%d" % i, n_in * DIM, n_out * DIM, output)
            return Linear("Discriminator.Output", 4 * 4 * 8 * DIM, 1, output)

        def GeneratorAndDiscriminator():
            return GoodGenerator, GoodDiscriminator

        Generator, Discriminator = GeneratorAndDiscriminator()
        real_data = tf.placeholder(tf.float32, shape=[64, 3, 64, 64])
        fake_data = Generator(64)
        disc_real = Discriminator(real_data)
        disc_fake = Discriminator(fake_data)
        gradients = tf.gradients(Discriminator(real_data + fake_data), [fake_data])[0]
        gen_cost = -tf.reduce_mean(disc_fake)
        disc_cost = tf.reduce_mean(disc_fake) - tf.reduce_mean(disc_real) + tf.reduce_mean(gradients)
        gen_train_op = tf.train.AdamOptimizer(1e-4).minimize(gen_cost)
        disc_train_op = tf.train.AdamOptimizer(1e-4).minimize(disc_cost)
        with tf.Session() as session:
            for iteration in range(200000):
                session.run(gen_train_op)
                session.run(disc_train_op)
        """}, "TFC001")
    assert [(f.location.line, f.confidence) for f in findings] == [(29, Confidence.LIKELY)]
    evidence = _evidence(findings[0])
    # Each network counted once: the generator's 4 wide convolutions (its 3-filter output too narrow), the
    # discriminator's 1 + 4 and 1 more (a loop of written values counts each), one matrix product each.
    assert "10 convolution and 2 dense layers on 64-pixel images" in evidence, evidence



_DQN = """
import gym
import numpy as np
import tensorflow as tf


class DQN:
    def __init__(self, state_dim, action_dim):
        self.model = tf.keras.Sequential([tf.keras.layers.Dense(32, activation="relu"),
                                          tf.keras.layers.Dense(action_dim)])
        self.model.compile(loss="mse", optimizer="adam")

    def predict(self, state):
        return self.model.predict(state)

    def get_action(self, state):
        return np.argmax(self.predict(state[None])[0])

    def train(self, states, targets):
        self.model.fit(states, targets, epochs=1)


class Agent:
    def __init__(self, env):
        self.env = env
        self.model = DQN(4, 2)

    def train(self, episodes):
        for ep in range(episodes):
            done, state = False, self.env.reset()
            states = []
            while not done:
                action = self.model.get_action(state)
                states.append(state)
                state, reward, done, _ = self.env.step(action)
            self.model.train(np.array(states), np.zeros((len(states), 2)))


if __name__ == "__main__":
    Agent(gym.make("CartPole-v0")).train(1000)
"""


def test_a_script_and_its_notebook_copy_keep_their_classes_apart():
    """An RL cookbook keeps each agent as a script and as the notebook exported from it: `Agent` and `DQN` are
    classes of each file, so each file's per-step `predict` is run by its own loop, and says so."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    notebook = nbformat.writes(new_notebook(cells=[new_code_cell(_DQN.strip())]))
    findings = _findings({"dqn.py": _DQN, "dqn.ipynb": notebook}, "TFH007")
    assert [(f.location.path.suffix, f.location.line, f.confidence) for f in findings] == [
        (".ipynb", 13, Confidence.LIKELY), (".py", 13, Confidence.LIKELY)]
    notebook_finding, script_finding = findings
    assert "the loop at dqn.ipynb:cell 1:31:13" in notebook_finding.message
    assert "the loop at dqn.py:31:13" in script_finding.message


def test_each_notebook_cell_that_builds_a_graph_is_sized_on_its_own():
    """TF-Slim's walkthrough notebook trains a 32-16-1 regression MLP in one cell and fine-tunes a convolutional
    network in another: the regression is not sized by the other cell's layers."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    cells = ["""import tensorflow as tf
slim = tf.contrib.slim""", """def regression_model(inputs):
    net = slim.fully_connected(inputs, 32)
    net = slim.fully_connected(net, 16)
    return slim.fully_connected(net, 1, activation_fn=None)""", """with tf.Graph().as_default():
    loss = tf.losses.mean_squared_error(targets, regression_model(inputs))
    train_op = slim.learning.create_train_op(loss, tf.train.AdamOptimizer(0.005))
    slim.learning.train(train_op, logdir="/tmp/regression", number_of_steps=5000)""", """def cnn(images):
    net = images
    for filters in (64, 128, 256, 512):
        net = slim.conv2d(net, filters, [3, 3])
    return slim.fully_connected(slim.flatten(net), 5)""", """with tf.Graph().as_default():
    images = tf.placeholder(tf.float32, [None, 224, 224, 3])
    loss = tf.losses.softmax_cross_entropy(labels, cnn(images))
    train_op = slim.learning.create_train_op(loss, tf.train.AdamOptimizer(0.01))
    slim.learning.train(train_op, logdir="/tmp/cnn", number_of_steps=10000)"""]
    document = nbformat.writes(new_notebook(cells=[new_code_cell(cell) for cell in cells]))
    findings = _findings({"walkthrough.ipynb": document}, "TFC001")
    assert [(f.location.cell.cell, f.location.cell.line, f.confidence) for f in findings] == [
        (5, 4, Confidence.LIKELY), (3, 3, Confidence.POSSIBLE)]


def test_a_graph_builder_called_at_a_notebooks_top_level_is_sized_with_its_own_cell():
    """Hands-On ML's chapter 9: a deep network's cells come first, then a cell defining `logistic_regression()`
    (one `tf.matmul` and its `minimize`) and a cell calling it. The update's graph is the regression's: the layers
    of the cells above the call built other graphs."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    cells = ["""import tensorflow as tf""", """X = tf.placeholder(tf.float32, [None, 784])
hidden = X
for units in (512, 512, 512, 512):
    hidden = tf.layers.dense(hidden, units, activation=tf.nn.relu)
deep_op = tf.train.AdamOptimizer().minimize(tf.reduce_mean(tf.layers.dense(hidden, 10)))""",
             """def logistic_regression(X, y, learning_rate=0.01):
    theta = tf.Variable(tf.random_uniform([int(X.get_shape()[1]), 1], -1.0, 1.0), name="theta")
    y_proba = tf.sigmoid(tf.matmul(X, theta))
    loss = tf.losses.log_loss(y, y_proba)
    training_op = tf.train.GradientDescentOptimizer(learning_rate=learning_rate).minimize(loss)
    return y_proba, loss, training_op""", """X = tf.placeholder(tf.float32, [None, 3])
y = tf.placeholder(tf.float32, [None, 1])
y_proba, loss, training_op = logistic_regression(X, y)
with tf.Session() as sess:
    for epoch in range(10001):
        sess.run(training_op, feed_dict={X: X_train, y: y_train})"""]
    document = nbformat.writes(new_notebook(cells=[new_code_cell(cell) for cell in cells]))
    findings = _findings({"ch09.ipynb": document}, "TFC001", show_all=True)
    regression = [f for f in findings if f.location.cell.cell == 3]
    assert [f.confidence for f in regression] == [Confidence.POSSIBLE]
    assert "0 convolution and 0 dense layers" in regression[0].evidence[-1].message


def test_layer_widths_given_through_a_dict_of_keyword_arguments_are_counted():
    """Hands-On ML's capsule network: `tf.layers.conv2d(X, name="conv1", **conv1_params)` with `conv1_params =
    {"filters": 256, ...}` written once: two 256-filter convolutions."""
    findings = _findings({"capsnet.py": """
        import tensorflow as tf

        X = tf.placeholder(shape=[None, 28, 28, 1], dtype=tf.float32, name="X")
        conv1_params = {"filters": 256, "kernel_size": 9, "strides": 1, "activation": tf.nn.relu}
        conv2_params = {"filters": 256, "kernel_size": 9, "strides": 2, "activation": tf.nn.relu}
        conv1 = tf.layers.conv2d(X, name="conv1", **conv1_params)
        conv2 = tf.layers.conv2d(conv1, name="conv2", **conv2_params)
        loss = tf.reduce_mean(tf.layers.dense(tf.layers.flatten(conv2), 10))
        training_op = tf.train.AdamOptimizer().minimize(loss)
        with tf.Session() as sess:
            for step in range(100000):
                sess.run(training_op)
        """}, "TFC001")
    assert "2 convolution and 0 dense layers" in findings[0].evidence[-1].message


@pytest.mark.parametrize("kernel, width, counted", [(1, 50, "0 convolution and 0 dense"),
                                                     (3, 256, "4 convolution and 0 dense")])
def test_a_dict_of_keyword_arguments_written_again_for_each_layer_gives_each_its_own(kernel, width, counted):
    """SASRec's feed-forward block: `params = {"filters": num_units[0], "kernel_size": 1, ...}`, a
    `tf.layers.conv1d(**params)`, then `params` written again for the next layer. Each layer takes the dict last
    written before it: 1-wide convolutions of 50 filters are narrow position-wise dense layers, not convolutions."""
    findings = _findings({"model.py": f"""
        import tensorflow as tf

        def feedforward(inputs, num_units):
            with tf.variable_scope("ff"):
                params = {{"inputs": inputs, "filters": num_units[0], "kernel_size": {kernel},
                          "activation": tf.nn.relu}}
                outputs = tf.layers.conv1d(**params)
                params = {{"inputs": outputs, "filters": num_units[1], "kernel_size": {kernel}}}
                outputs = tf.layers.conv1d(**params)
            return outputs + inputs

        seq = tf.placeholder(tf.float32, [None, 50, {width}])
        for i in range(2):
            seq = feedforward(seq, num_units=[{width}, {width}])
        loss = tf.reduce_mean(seq)
        train_op = tf.train.AdamOptimizer().minimize(loss)
        with tf.Session() as sess:
            for step in range(100000):
                sess.run(train_op)
        """}, "TFC001", show_all=True)
    assert counted in findings[0].evidence[-1].message


@pytest.mark.parametrize("embed_dim, counter_bound, confidence", [
    (64, "n_filters", Confidence.POSSIBLE),
    (64, "n_filters * 64", Confidence.LIKELY),  # the counter runs up to wide filters
])
def test_widths_a_model_gets_through_an_unpacked_dict_and_a_counted_comprehension(embed_dim, counter_bound,
                                                                                    confidence):
    """RecLearn's Caser: `Caser(**model_params)`, the dict written out in the script, and horizontal convolutions
    `Conv1D(filters=i + 1) for i in range(self.hor_n + 1)`: both widths are known, and small."""
    findings = _findings({"train.py": f"""
        import tensorflow as tf
        from tensorflow.keras.layers import Conv1D, Dense

        class Caser(tf.keras.Model):
            def __init__(self, embed_dim, n_filters=8):
                super().__init__()
                self.n_filters = n_filters
                self.convs = [Conv1D(filters=i + 1, kernel_size=2) for i in range({counter_bound.replace(
                    "n_filters", "self.n_filters")} + 1)]
                self.blocks = [Dense(embed_dim) for _ in range(16)]

            def call(self, x):
                for conv in self.convs:
                    x = conv(x)
                for block in self.blocks:
                    x = block(x)
                return x

        model_params = {{"embed_dim": {embed_dim}, "n_filters": 8}}
        model = Caser(**model_params)
        model.compile(optimizer="adam", loss="mse")
        model.fit(sequences, targets, epochs=30)
        """}, "TFC001", show_all=True)
    assert [f.confidence for f in findings] == [confidence]


@pytest.mark.parametrize("constructed, dense", [
    ("DeepResNetSNGP", 7),  # the input layer and six hidden ones: the override runs instead of the base's factory
    ("DeepResNet", 7),
])
def test_a_subclass_overriding_its_bases_layer_factory_counts_each_layer_once(constructed, dense):
    """The SNGP tutorial: `DeepResNet.__init__` makes its hidden layers with `self.make_dense_layer()`, which
    `DeepResNetSNGP` overrides to wrap the base's layer in spectral normalization. Constructing the subclass runs
    its override, once per layer, with the construction's own `num_layers`: seven 128-unit layers, too few to gain."""
    findings = _findings({"train.py": f"""
        import tensorflow as tf

        class DeepResNet(tf.keras.Model):
            def __init__(self, num_classes, num_layers=3, num_hidden=128):
                super().__init__()
                self.input_layer = tf.keras.layers.Dense(num_hidden)
                self.dense_layers = [self.make_dense_layer(num_hidden) for _ in range(num_layers)]
                self.classifier = tf.keras.layers.Dense(num_classes)

            def call(self, inputs):
                hidden = self.input_layer(inputs)
                for layer in self.dense_layers:
                    hidden = hidden + layer(hidden)
                return self.classifier(hidden)

            def make_dense_layer(self, width):
                return tf.keras.layers.Dense(width, activation="relu")

        class DeepResNetSNGP(DeepResNet):
            def make_dense_layer(self, width):
                return SpectralNormalization(super().make_dense_layer(width))

        other = DeepResNet(num_classes=2, num_layers=40)  # another construction's arguments are not this one's
        config = dict(num_classes=2, num_layers=6, num_hidden=128)
        model = {constructed}(**config)
        model.compile(optimizer="adam", loss="mse")
        model.fit(points, labels, epochs=100)
        """}, "TFC001", show_all=True)
    assert [(f.confidence, f"0 convolution and {dense} dense layers" in f.evidence[-1].message)
            for f in findings] == [(Confidence.POSSIBLE, True)]


@pytest.mark.parametrize("sizes, dense", [("[10, 10, 10]", 0), ("[256, 256, 256, 256]", 4)])
def test_a_width_a_loop_takes_from_a_config_modules_list_is_known(sizes, dense):
    """xDeepFM's CIN: `for idx, layer_size in enumerate(Config.cross_layer_size)`, a kernel variable shaped
    `[1, n, layer_size]` convolved per layer: the widths are the list's items, written in another module. A
    one-wide convolution is a dense layer at each position: four of them are no heavy model."""
    findings = _findings({"Config.py": f"cross_layer_size = {sizes}\n", "train.py": """
        import tensorflow as tf
        import Config

        class Model:
            def __init__(self):
                self.x = tf.placeholder(tf.float32, [None, 11, 16])
                self.y = tf.placeholder(tf.float32, [None])
                hidden = self.x
                for idx, layer_size in enumerate(Config.cross_layer_size):
                    filters = tf.get_variable(name="f_" + str(idx), shape=[1, 121, layer_size])
                    hidden = tf.nn.conv1d(hidden, filters=filters, stride=1, padding="VALID")
                self.loss = tf.reduce_mean(tf.square(tf.reduce_sum(hidden, [1, 2]) - self.y))
                self.train_op = tf.train.AdagradOptimizer(0.01).minimize(self.loss)

            def train(self, batches):
                with tf.Session() as sess:
                    for x, y in batches:
                        sess.run(self.train_op, feed_dict={self.x: x, self.y: y})

        Model().train(batches)
        """}, "TFC001", show_all=True)
    assert [(f.confidence, f"0 convolution and {dense} dense layers" in f.evidence[-1].message)
            for f in findings] == [(Confidence.POSSIBLE, True)]


def test_an_object_applied_where_it_is_made_has_its_layers_once():
    """mac-graph unrolls its MAC cell: `d_cell = MAC_RNNCell(args)`, then `d_cell(inputs, state)` in a loop. Making
    the object counts what its `__call__` builds; each application applies those same layers again."""
    findings = _findings({"train.py": """
        import tensorflow as tf

        class Cell:
            def __init__(self, width):
                self.width = width

            def __call__(self, x, state):
                with tf.variable_scope("cell", reuse=tf.AUTO_REUSE):
                    for _ in range(3):
                        x = tf.layers.dense(x, self.width)
                    return x, state

        def decode(x):
            cell = Cell(512)
            state = None
            for step in range(10):
                x, state = cell(x, state)
            return x

        x = tf.placeholder(tf.float32, [None, 512])
        loss = tf.reduce_mean(decode(x))
        train_op = tf.train.AdamOptimizer().minimize(loss)
        with tf.Session() as sess:
            for step in range(100000):
                sess.run(train_op)
        """}, "TFC001", show_all=True)
    assert [(f.confidence, "0 convolution and 3 dense layers" in f.evidence[-1].message) for f in findings] == [
        (Confidence.POSSIBLE, True)]


def test_the_model_a_step_trains_through_an_instance_it_is_given_is_the_one_its_class_makes():
    """YOLOv4_keras_implementation: `YOLO = YOLOv4(args)` (a plain class whose `__init__` makes `self.model =
    tf.keras.Model(...)`), passed to the step, which calls `YOLO.model(images)`: the trained model is that one."""
    findings = _findings({"model.py": """
        import tensorflow as tf

        def conv(x, filters):
            return tf.keras.layers.Conv2D(filters, 3, padding="same")(x)

        class YOLOv4(object):
            def __init__(self, size):
                inputs = tf.keras.Input((size, size, 3))
                x = inputs
                for filters in [64, 128, 256, 512, 1024]:
                    x = conv(x, filters)
                self.model = tf.keras.Model(inputs=inputs, outputs=x)
        """, "train.py": """
        import tensorflow as tf
        from model import YOLOv4

        @tf.function
        def train_step(images, YOLO, optimizer):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(YOLO.model(images, training=True))
            gradients = tape.gradient(loss, YOLO.model.trainable_variables)
            optimizer.apply_gradients(zip(gradients, YOLO.model.trainable_variables))

        YOLO = YOLOv4(416)
        optimizer = tf.keras.optimizers.SGD()
        for images in dataset:
            train_step(images, YOLO, optimizer)
        """}, "TFC001", show_all=True)
    assert [(f.location.path.as_posix(), f.location.line, f.confidence) for f in findings] == [
        ("model.py", 12, Confidence.LIKELY)]


def test_a_global_width_assigned_in_two_cells_is_known_inside_a_builder():
    """MIT's debiasing lab sets `n_filters = 12` in the classifier's cell and again in the VAE's; the builder
    function reads it: its 12-72-filter convolutions are narrow, the model too small to gain."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    cells = ["""import functools
import tensorflow as tf""", """n_filters = 12

def make_standard_classifier(n_outputs=1):
    Conv2D = functools.partial(tf.keras.layers.Conv2D, padding="same", activation="relu")
    return tf.keras.Sequential([
        Conv2D(filters=1 * n_filters, kernel_size=5, strides=2),
        Conv2D(filters=2 * n_filters, kernel_size=5, strides=2),
        Conv2D(filters=4 * n_filters, kernel_size=3, strides=2),
        Conv2D(filters=6 * n_filters, kernel_size=3, strides=2),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(512),
        tf.keras.layers.Dense(n_outputs),
    ])

standard_classifier = make_standard_classifier()
standard_classifier.compile(optimizer="adam", loss="binary_crossentropy")
standard_classifier.fit(images, labels, batch_size=32, epochs=2)""", """n_filters = 12  # the same for the VAE"""]
    document = nbformat.writes(new_notebook(cells=[new_code_cell(cell) for cell in cells]))
    findings = _findings({"lab.ipynb": document}, "TFC001", show_all=True)
    assert [(f.location.cell.cell, f.confidence) for f in findings] == [(2, Confidence.POSSIBLE)]


def test_a_time_series_transformer_of_narrow_blocks_is_no_heavy_model():
    """keras.io's time-series transformer: `MultiHeadAttention(key_dim=256, num_heads=4)` over one feature per
    step, whose block's feed-forward is a 4-filter pointwise `Conv1D` and a `Conv1D` back to the input's width:
    the attention works at the model's width, not at `key_dim * num_heads`, and a pointwise 1-D convolution is
    a dense layer."""
    findings = _findings({"train.py": """
        from tensorflow import keras
        from tensorflow.keras import layers

        def transformer_encoder(inputs, head_size, num_heads, ff_dim, dropout=0):
            x = layers.LayerNormalization(epsilon=1e-6)(inputs)
            x = layers.MultiHeadAttention(key_dim=head_size, num_heads=num_heads, dropout=dropout)(x, x)
            res = x + inputs
            x = layers.LayerNormalization(epsilon=1e-6)(res)
            x = layers.Conv1D(filters=ff_dim, kernel_size=1, activation="relu")(x)
            x = layers.Conv1D(filters=inputs.shape[-1], kernel_size=1)(x)
            return x + res

        def build_model(input_shape, head_size, num_heads, ff_dim, num_transformer_blocks, mlp_units):
            inputs = keras.Input(shape=input_shape)
            x = inputs
            for _ in range(num_transformer_blocks):
                x = transformer_encoder(x, head_size, num_heads, ff_dim)
            x = layers.GlobalAveragePooling1D(data_format="channels_first")(x)
            for dim in mlp_units:
                x = layers.Dense(dim, activation="relu")(x)
            return keras.Model(inputs, layers.Dense(1)(x))

        model = build_model(x_train.shape[1:], head_size=256, num_heads=4, ff_dim=4, num_transformer_blocks=4,
                            mlp_units=[128])
        model.compile(loss="mean_squared_error", optimizer=keras.optimizers.Adam(learning_rate=1e-4))
        model.fit(x_train, y_train, validation_split=0.2, epochs=200, batch_size=64)
        """}, "TFC001", show_all=True)
    assert [(f.location.line, f.confidence) for f in findings] == [(21, Confidence.POSSIBLE)]


def test_a_tf1_network_held_in_an_attribute_and_a_training_op_returned_under_control_dependencies():
    """CycleGAN ports: `self.generator = generator_resnet` picks the network the graph applies, an `optimize()`
    method returns `tf.no_op()` under control dependencies on four updates, and the loop fetches the merged
    image summaries in every training run while it writes them every 100 steps."""
    findings = _findings({"model.py": """
        import tensorflow as tf

        def generator_resnet(image, reuse=False, name="generator"):
            with tf.variable_scope(name, reuse=reuse):
                x = image
                for filters in (64, 128, 256, 256, 256, 256, 128, 64):
                    x = tf.layers.conv2d(x, filters, 3, padding="same", activation=tf.nn.relu)
                return tf.layers.conv2d(x, 3, 7, padding="same")

        class CycleGAN:
            def __init__(self):
                self.generator = generator_resnet
                self.real = tf.placeholder(tf.float32, [1, 256, 256, 3])

            def model(self):
                fake = self.generator(self.real, name="A2B")
                tf.summary.image("fake", fake)
                return tf.reduce_mean(tf.abs(fake - self.real))

            def optimize(self, loss):
                def make_optimizer(loss, name):
                    return tf.train.AdamOptimizer(2e-4, name=name).minimize(loss)
                g_optimizer = make_optimizer(loss, "Adam_G")
                d_optimizer = make_optimizer(-loss, "Adam_D")
                with tf.control_dependencies([g_optimizer, d_optimizer]):
                    return tf.no_op(name="optimizers")
        """, "train.py": """
        import tensorflow as tf
        from model import CycleGAN

        def train():
            gan = CycleGAN()
            loss = gan.model()
            optimizers = gan.optimize(loss)
            summary_op = tf.summary.merge_all()
            with tf.Session() as sess:
                writer = tf.summary.FileWriter("logs", sess.graph)
                for step in range(200000):
                    _, loss_val, summary = sess.run([optimizers, loss, summary_op])
                    if step % 100 == 0:
                        writer.add_summary(summary, step)

        if __name__ == "__main__":
            train()
        """}, "TFC001", "TFH006")
    assert [(f.code, f.location.path.as_posix(), f.location.line, f.confidence) for f in findings] == [
        ("TFC001", "model.py", 22, Confidence.LIKELY), ("TFH006", "train.py", 12, Confidence.LIKELY)]


def test_the_update_a_run_with_the_defaults_builds_anchors_the_graph_finding():
    """improved_wgan's scripts build an RMSProp update under `if MODE == 'wgan':` and the Adam one under the
    default `wgan-gp`; a sampler built after the updates (`Generator(128, noise=fixed_noise)`) is no part of what
    they train."""
    findings = _findings({"gan.py": """
        import tensorflow as tf

        MODE = "wgan-gp"

        def Generator(n_samples, noise=None):
            x = tf.layers.dense(noise if noise is not None else tf.random_normal([n_samples, 128]), 4 * 4 * 256)
            x = tf.reshape(x, [-1, 4, 4, 256])
            for filters in (128, 64):
                x = tf.layers.conv2d_transpose(x, filters, 5, strides=2, padding="same")
            return tf.layers.conv2d_transpose(x, 1, 5, strides=2, padding="same")

        def Discriminator(inputs):
            x = inputs
            for filters in (64, 128, 256):
                x = tf.layers.conv2d(x, filters, 5, strides=2, padding="same")
            return tf.layers.dense(tf.layers.flatten(x), 1)

        real_data = tf.placeholder(tf.float32, shape=[None, 28, 28, 1])
        disc_cost = tf.reduce_mean(Discriminator(Generator(64))) - tf.reduce_mean(Discriminator(real_data))
        if MODE == "wgan":
            disc_train_op = tf.train.RMSPropOptimizer(5e-5).minimize(disc_cost)
        else:
            disc_train_op = tf.train.AdamOptimizer(1e-4).minimize(disc_cost)
        samples = Generator(128, noise=tf.random_normal([128, 128]))
        with tf.Session() as session:
            for iteration in range(200000):
                session.run(disc_train_op)
        """}, "TFC001")
    assert [(f.location.line, f.confidence) for f in findings] == [(23, Confidence.POSSIBLE)]
    # The generator once (2 wide transposed convolutions) and the discriminator once (3): MNIST-sized.
    assert "5 convolution and 1 dense layers on 28-pixel images" in _evidence(findings[0])


def test_multi_gpu_towers_apply_one_network():
    """aymericdamien's multi-GPU CNN builds a tower per GPU in a loop, `conv_net(x, reuse=reuse_vars)`: the towers
    share one MNIST network, too small to gain."""
    findings = _findings({"multigpu_cnn.py": """
        import tensorflow as tf

        num_gpus = 2

        def conv_net(x, n_classes, reuse):
            with tf.variable_scope("ConvNet", reuse=reuse):
                x = tf.reshape(x, shape=[-1, 28, 28, 1])
                x = tf.layers.conv2d(x, 64, 5, activation=tf.nn.relu)
                x = tf.layers.conv2d(x, 128, 3, activation=tf.nn.relu)
                x = tf.layers.dense(tf.layers.flatten(x), 1024)
                return tf.layers.dense(x, n_classes)

        X = tf.placeholder(tf.float32, [None, 784])
        tower_grads = []
        reuse_vars = False
        optimizer = tf.train.AdamOptimizer(1e-3)
        for i in range(num_gpus):
            with tf.device("/gpu:%d" % i):
                logits = conv_net(X, 10, reuse=reuse_vars)
                tower_grads.append(optimizer.compute_gradients(tf.reduce_mean(logits)))
                reuse_vars = True
        train_op = optimizer.apply_gradients(tower_grads[0])
        with tf.Session() as sess:
            for step in range(10000):
                sess.run(train_op)
        """}, "TFC001")
    assert [(f.location.line, f.confidence) for f in findings] == [(22, Confidence.POSSIBLE)]


def test_fit_on_a_tpu_without_steps_per_execution_only_where_tensorflow_2_4_names_it():
    """`compile` under a TPUStrategy without `steps_per_execution`: reported without a profile, with a fix of 32;
    not where the program runs TensorFlow 1.x (the argument does not exist there)."""
    tpu_fit = """
        import tensorflow as tf

        resolver = tf.distribute.cluster_resolver.TPUClusterResolver()
        strategy = tf.distribute.TPUStrategy(resolver)
        with strategy.scope():
            model = tf.keras.applications.ResNet50(weights=None)
            model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
        model.fit(dataset, epochs=10)
        """
    findings = _findings({"train.py": tpu_fit}, "TFH005")
    assert [(f.location.line, f.confidence) for f in findings] == [(7, Confidence.LIKELY)]
    assert "steps_per_execution=32" in findings[0].patch.diff
    assert _findings({"train.py": tpu_fit, "requirements.txt": "tensorflow==2.3.0\n"}, "TFH005") == []
    # TensorFlow 1.15 running as 2.x (`compat.v2`, `enable_v2_behavior()`): no `steps_per_execution` there either.
    assert _findings({"train.py": tpu_fit.replace("import tensorflow as tf", "import tensorflow.compat.v2 as tf")},
                     "TFH005") == []
    assert _findings({"train.py": tpu_fit.replace('loss="sparse_categorical_crossentropy"',
                                                  'loss="mse", experimental_steps_per_execution=50')}, "TFH005") == []


def test_a_library_task_trains_on_a_tpu_only_where_its_own_module_says_so():
    """Model Maker's specs sit side by side in one folder, and no script of the repo runs them: the object
    detector's TPUStrategy says nothing of where the audio classifier's `compile` runs."""
    findings = _findings({"specs/detector.py": """
        import tensorflow as tf

        def train(model, dataset, use_tpu=False):
            strategy = tf.distribute.TPUStrategy(resolver) if use_tpu else tf.distribute.get_strategy()
            with strategy.scope():
                model.compile(optimizer="sgd", loss="mse")
            model.fit(dataset, epochs=10)
        """, "specs/audio.py": """
        import tensorflow as tf

        def train(model, dataset):
            model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
            model.fit(dataset, epochs=10)
        """}, "TFH005")
    assert [(f.location.path.as_posix(), f.location.line) for f in findings] == [("specs/detector.py", 6)]


def test_a_projection_weight_held_in_a_tuple_counts_once():
    """The TF1 chatbot keeps its sampled-softmax projection as `self.output_projection = (w, b)` and applies
    `w` to every output of every bucket: one 256-wide layer, not one per time step and bucket."""
    findings = _findings({"model.py": """
        import tensorflow as tf

        class ChatBotModel:
            def _inference(self):
                w = tf.get_variable("proj_w", [256, 24000])
                b = tf.get_variable("proj_b", [24000])
                self.output_projection = (w, b)

            def _create_loss(self):
                self.outputs = [[tf.zeros([64, 256])] * 10] * 4
                for bucket in range(4):
                    self.outputs[bucket] = [tf.matmul(output, self.output_projection[0]) + self.output_projection[1]
                                            for output in self.outputs[bucket]]
                self.loss = tf.reduce_mean(self.outputs[0][0])

            def build_graph(self):
                self._inference()
                self._create_loss()
                self.train_op = tf.train.GradientDescentOptimizer(0.5).minimize(self.loss)

        def train():
            model = ChatBotModel()
            model.build_graph()
            with tf.Session() as sess:
                for step in range(100000):
                    sess.run(model.train_op)

        if __name__ == "__main__":
            train()
        """}, "TFC001")
    assert [(f.location.line, f.confidence) for f in findings] == [(19, Confidence.POSSIBLE)]
    assert "0 convolution and 1 dense layers" in _evidence(findings[0])


def test_a_summary_name_reused_by_two_runs_is_read_from_the_run_above_its_write():
    """UGATIT binds `summary_str` in the discriminator's run (written every step) and again in the generator's,
    which runs and is written every `n_critic` steps: that write reads the generator's run, not the first one."""
    findings = _findings({"train.py": """
        import tensorflow as tf

        d_optim = tf.train.AdamOptimizer(1e-4).minimize(d_loss)
        g_optim = tf.train.AdamOptimizer(1e-4).minimize(g_loss)
        tf.summary.image("fake", fake)
        g_summary = tf.summary.merge_all()
        with tf.Session() as sess:
            writer = tf.summary.FileWriter("logs", sess.graph)
            for counter in range(100000):
                _, summary_str = sess.run([d_optim, d_summary])
                if counter % 100 == 0:
                    writer.add_summary(summary_str, counter)
                if counter % 5 == 0:
                    _, summary_str = sess.run([g_optim, g_summary])
                    writer.add_summary(summary_str, counter)
        """}, "TFH006")
    assert [(f.location.line, f.confidence) for f in findings] == [(10, Confidence.LIKELY)]


def test_a_summary_behind_a_flag_its_body_turns_off_is_written_once():
    """A YOLO trainer writes the first batch's images `if img_write is True:`, then sets `img_write = False`: one
    image summary per run; the per-step scalars are written every step."""
    findings = _findings({"train.py": """
        import tensorflow as tf

        writer = tf.summary.create_file_writer("logs")
        img_write = True
        for epoch in range(100):
            for step, (image_data, target) in enumerate(trainset):
                if img_write is True:
                    with writer.as_default():
                        tf.summary.image("Training data", image_data, max_outputs=10, step=0)
                    img_write = False
                loss = model.train_on_batch(image_data, target)
                with writer.as_default():
                    tf.summary.histogram("loss", loss, step=step)
        """}, "TFH006", show_all=True)
    assert [f.location.line for f in findings] == [13]


def test_a_step_named_like_an_evaluation_step_elsewhere_is_the_one_its_scope_defines():
    """SimCLR's TF2 `run.py` defines a `single_step` inside `perform_evaluation()` and another inside `main()`;
    each `strategy.run(single_step, ...)` runs the one its own function defines. The evaluation loop is no
    training loop, and the training loop runs `steps_per_loop` steps per call: its read of the step counter
    after each call is no per-step sync."""
    findings = _findings({"run.py": """
        import tensorflow as tf

        def perform_evaluation(model, ds, strategy):
            @tf.function
            def single_step(features, labels):
                return model(features, training=False)

            iterator = iter(ds)
            for i in range(100):
                strategy.run(single_step, (next(iterator)))
                print(float(model.losses[0]))

        def main(model, optimizer, ds, strategy, steps_per_loop, train_steps):
            def single_step(features, labels):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(model(features, training=True))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))

            @tf.function
            def train_multiple_steps(iterator):
                for _ in tf.range(steps_per_loop):
                    strategy.run(single_step, next(iterator))

            iterator = iter(ds)
            while optimizer.iterations.numpy() < train_steps:
                train_multiple_steps(iterator)
            perform_evaluation(model, ds, strategy)
        """}, "TFH002", "TFH003", "TFH004")
    assert findings == []


def test_an_agent_trained_as_each_episode_ends_is_no_sure_eager_step_cost():
    """MIT's RL labs call their eager `train_step` under `if done: ...; break` inside the environment loop: once
    per episode, after hundreds of environment steps the host runs anyway."""
    findings = _findings({"rl.py": """
        import gym
        import numpy as np
        import tensorflow as tf

        def train_step(model, optimizer, observations, actions):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(observations) - actions)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))

        env = gym.make("CartPole-v1")
        model = tf.keras.Sequential([tf.keras.layers.Dense(32), tf.keras.layers.Dense(2)])
        optimizer = tf.keras.optimizers.Adam(1e-3)
        for i_episode in range(500):
            observation = env.reset()
            memory = []
            while True:
                action = int(np.argmax(model(observation[None])))
                observation, reward, done, info = env.step(action)
                memory.append((observation, action))
                if done:
                    train_step(model, optimizer, np.array([o for o, _ in memory]), np.array([a for _, a in memory]))
                    break
        """}, "TFH002")
    assert [(f.location.line, f.confidence) for f in findings] == [(5, Confidence.POSSIBLE)]


def test_a_session_run_whose_values_a_later_run_is_fed_is_an_input_of_the_step():
    """A DQN's replay computes its targets from the network's Q values before the update (they are fed to it),
    and a recurrent policy feeds its state back in: those runs make inputs, no training run could fetch them.
    A second run that only reads the loss again is the finding."""
    findings = _findings({"agent.py": """
        import numpy as np
        import tensorflow as tf

        X = tf.placeholder(tf.float32, [None, 8])
        Y = tf.placeholder(tf.float32, [None, 3])
        logits = tf.layers.dense(tf.layers.dense(X, 256), 3)
        cost = tf.reduce_mean(tf.square(Y - logits))
        optimizer = tf.train.AdamOptimizer(1e-3).minimize(cost)
        sess = tf.Session()

        def replay(states, new_states, actions, rewards):
            q = sess.run(logits, feed_dict={X: states})
            q_next = sess.run(logits, feed_dict={X: new_states})
            targets = q.copy()
            for i, action in enumerate(actions):
                targets[i, action] = rewards[i]
                targets[i, action] += 0.99 * np.amax(q_next[i])
            loss, _ = sess.run([cost, optimizer], feed_dict={X: states, Y: targets})
            again = sess.run(cost, feed_dict={X: states, Y: targets})
            return loss, again

        for step in range(10000):
            batch = np.random.rand(32, 8)
            replay(batch, batch, np.zeros(32, int), np.ones(32))
        """}, "TFH004")
    assert _where(findings) == [("TFH004", "agent.py", 19)]


def test_a_small_tf1_attention_model_is_sized_by_its_written_loops_and_weights():
    """A stock forecaster's conv seq2seq: 16 attention heads of `size_layer // n_attn_heads` units, `tf.matmul` of
    activations (scores by values, no weight), and a block loop over `range(num_layers)` with num_layers=1: two
    convolutions and a few dense layers, too small for mixed precision to gain."""
    findings = _findings({"forecast.py": """
        import tensorflow as tf

        def conv_block(x, n_hidden):
            return tf.squeeze(tf.layers.conv2d(tf.expand_dims(x, 2), n_hidden, (3, 1), padding="same"), 2)

        class Model:
            def __init__(self, num_layers, size_layer, n_attn_heads=16):
                self.X = tf.placeholder(tf.float32, (None, None, 1))
                self.Y = tf.placeholder(tf.float32, (None, 1))
                h = tf.layers.dense(self.X, size_layer)
                for i in range(num_layers):
                    h = conv_block(h, size_layer * 2)
                    heads = []
                    for j in range(n_attn_heads):
                        q = tf.layers.dense(h, size_layer // n_attn_heads)
                        k = tf.layers.dense(h, size_layer // n_attn_heads)
                        scores = tf.nn.softmax(tf.matmul(q, tf.transpose(k, [0, 2, 1])))
                        heads.append(tf.matmul(scores, k))
                    h = tf.layers.dense(tf.concat(heads, 2), size_layer)
                self.logits = tf.layers.dense(h[:, -1], 1)
                self.cost = tf.reduce_mean(tf.square(self.Y - self.logits))
                self.optimizer = tf.train.AdamOptimizer(1e-3).minimize(self.cost)

        num_layers = 1
        size_layer = 128
        model = Model(num_layers, size_layer)
        sess = tf.InteractiveSession()
        for epoch in range(300):
            sess.run([model.optimizer, model.cost], feed_dict={model.X: batch_x, model.Y: batch_y})
        """}, "TFC001")
    assert [(f.location.line, f.confidence) for f in findings] == [(22, Confidence.POSSIBLE)]


def test_an_attention_product_of_a_tensor_bound_twice_is_no_layer():
    """GAT's attention head multiplies its coefficients by `seq_fts`, a narrow layer's output that a dropout rebinds
    on some runs: both bindings are computed, so the product is of activations, not a weight: 8 heads in 2 layers
    of 8-unit features are no work for 16-bit units."""
    findings = _findings({"gat.py": """
        import tensorflow as tf

        def attn_head(seq, out_sz, bias_mat, in_drop=0.0):
            seq_fts = tf.layers.conv1d(seq, out_sz, 1, use_bias=False)
            f_1 = tf.layers.conv1d(seq_fts, 1, 1)
            coefs = tf.nn.softmax(f_1 + bias_mat)
            if in_drop != 0.0:
                seq_fts = tf.nn.dropout(seq_fts, 1.0 - in_drop)
            return tf.matmul(coefs, seq_fts)

        features = tf.placeholder(tf.float32, (1, 2708, 1433))
        bias = tf.placeholder(tf.float32, (1, 2708, 2708))
        hidden = tf.concat([attn_head(features, 8, bias, in_drop=0.6) for _ in range(8)], axis=-1)
        logits = tf.add_n([attn_head(hidden, 7, bias, in_drop=0.6) for _ in range(8)]) / 8
        loss = tf.reduce_mean(logits)
        train_op = tf.train.AdamOptimizer(0.005).minimize(loss)
        with tf.Session() as sess:
            for epoch in range(100000):
                sess.run(train_op)
        """}, "TFC001")
    assert [(f.location.line, f.confidence) for f in findings] == [(16, Confidence.POSSIBLE)]


@pytest.mark.parametrize("argument, setting, confidence, builder", [
    ("residual=False", "False", Confidence.POSSIBLE, "make_model"),
    ("", "False", Confidence.POSSIBLE, "make_model"),  # the default
    ("residual=residual", "False", Confidence.POSSIBLE, "make_model"),  # what the builder's own caller passes
    ("residual=residual", "True", Confidence.LIKELY, "make_model"),
    ("residual=True", "False", Confidence.LIKELY, "make_model"),
    ("residual=not residual", "True", Confidence.POSSIBLE, "make_model"),
    # a script's own `build`, no Keras layer's that the framework calls with what it likes: its one call sets it
    ("residual=residual", "False", Confidence.POSSIBLE, "build"),
])
def test_a_branch_the_call_s_arguments_rule_out_builds_no_layers(argument, setting, confidence, builder):
    """GAT's attention heads project their input in an `if residual:` branch that its calls switch off with
    `residual=False` (and its last with `True`): the layers of a helper's branch count where the call that runs the
    helper can take it. Twelve blocks of one narrow layer each are no work for 16-bit units; with their 512-unit
    projections they are."""
    findings = _findings({"train.py": f"""
        import numpy as np
        import tensorflow as tf

        def block(x, residual=False):
            y = tf.keras.layers.Dense(64, activation="relu")(x)
            if residual:
                y = y + tf.keras.layers.Dense(512)(x)
            return y

        def {builder}(residual):
            inputs = tf.keras.Input((512,))
            x = inputs
            for _ in range(12):
                x = block(x, {argument})
            return tf.keras.Model(inputs, tf.keras.layers.Dense(10)(block(x, residual=True)))

        features = np.load("features.npy")
        model = {builder}(residual={setting})
        model.compile("adam", "sparse_categorical_crossentropy")
        model.fit(features["x"], features["y"], epochs=10)
        """}, "TFC001")
    assert [f.confidence for f in findings] == [confidence]


def test_a_flag_a_helper_hands_on_is_what_its_own_call_passed():
    """`stack(x, residual=False)` runs `block(x, residual=residual)`: the block's branch is decided by what the call of
    `stack` that the trained model makes passes, though another model's call passes `True`."""
    findings = _findings({"train.py": """
        import numpy as np
        from tensorflow import keras

        def block(x, residual):
            y = keras.layers.Dense(64, activation="relu")(x)
            if residual:
                y = y + keras.layers.Dense(512)(x)
            return y

        def stack(x, residual):
            for _ in range(12):
                x = block(x, residual=residual)
            return x

        def make_model():
            inputs = keras.Input((512,))
            return keras.Model(inputs, keras.layers.Dense(10)(stack(inputs, residual=False)))

        def make_residual_model():
            inputs = keras.Input((512,))
            return keras.Model(inputs, keras.layers.Dense(10)(stack(inputs, residual=True)))

        features = np.load("features.npy")
        model = make_model()
        model.compile("adam", "sparse_categorical_crossentropy")
        model.fit(features["x"], features["y"], epochs=10)
        """}, "TFC001")
    assert [f.confidence for f in findings] == [Confidence.POSSIBLE]


@pytest.mark.parametrize("start, levels, confidence", [
    (16, 4, Confidence.LIKELY),  # 16, 32, 64, 128 filters down, 256 at the bottom
    (8, 3, Confidence.POSSIBLE),  # 8, 16 and 32 down: only the bottom's 64 filters count
])
def test_filters_doubled_at_each_level_widen_the_layers_that_read_them(start, levels, confidence):
    """A U-Net's `n_filters *= 2` at the end of each level: the layers of later levels and of the bottom read the
    doubled number, not the first level's."""
    findings = _findings({"train.py": f"""
        import numpy as np
        from tensorflow import keras

        def unet(levels):
            inputs = keras.Input((256, 256, 1))
            x = inputs
            n_filters = {start}
            for _ in range(levels):
                x = keras.layers.Conv2D(n_filters, 3, padding="same", activation="relu")(x)
                x = keras.layers.Conv2D(n_filters, 3, padding="same", activation="relu")(x)
                x = keras.layers.MaxPooling2D()(x)
                n_filters *= 2
            x = keras.layers.Conv2D(n_filters, 3, padding="same", activation="relu")(x)
            return keras.Model(inputs, keras.layers.Conv2D(1, 1, activation="sigmoid")(x))

        scans = np.load("scans.npz")
        model = unet({levels})
        model.compile("adam", "binary_crossentropy")
        model.fit(scans["x"], scans["y"], batch_size=16, epochs=50)
        """}, "TFC001")
    assert [f.confidence for f in findings] == [confidence]


@pytest.mark.parametrize("returned", ["flags.FLAGS", "FLAGS"])
def test_flags_a_function_defines_and_returns_have_their_defaults(returned):
    """A TF1 template's `FLAGS = define_flags()`, whose `define_flags` defines the flags and returns `flags.FLAGS`:
    `FLAGS.model` reads the flag, whose default ("dnn") picks a small MLP over the 8-layer CNN option."""
    findings = _findings({"train.py": f"""
        import tensorflow as tf

        def define_flags():
            flags = tf.app.flags
            flags.DEFINE_string("model", "dnn", "dnn or cnn")
            FLAGS = flags.FLAGS
            return {returned}

        FLAGS = define_flags()

        def inference(inputs):
            if FLAGS.model == "cnn":
                x = tf.reshape(inputs, [-1, 64, 64, 1])
                for filters in (64, 128, 256, 256, 512, 512, 512, 512):
                    x = tf.layers.conv2d(x, filters, 3, padding="same", activation=tf.nn.relu)
                return tf.layers.dense(tf.layers.flatten(x), 2)
            return tf.layers.dense(tf.layers.dense(inputs, 32, activation=tf.nn.relu), 2)

        features = tf.placeholder(tf.float32, [None, 4096])
        labels = tf.placeholder(tf.int64, [None])
        loss = tf.losses.sparse_softmax_cross_entropy(labels, inference(features))
        train_op = tf.train.AdamOptimizer(0.001).minimize(loss)
        with tf.Session() as sess:
            for step in range(100000):
                sess.run(train_op)
        """}, "TFC001")
    assert [f.confidence for f in findings] == [Confidence.POSSIBLE]


def test_estimator_input_functions_handed_over_as_partials_feed_what_their_method_does():
    """`estimator.predict(functools.partial(make_dataset, sentence))`, positionally, through a name: a one-sentence
    prediction input, no training pipeline; `estimator.train(train_input)` trains on what `input_fn` returns."""
    findings = _findings({"classify.py": """
        import functools
        import tensorflow as tf

        def make_dataset(sentence):
            def generate():
                yield list(sentence)
            return tf.data.Dataset.from_generator(generate, output_types=tf.string).batch(1)

        def input_fn(path, batch_size):
            return tf.data.TextLineDataset(path).map(tf.strings.bytes_split).padded_batch(batch_size).repeat()

        def model_fn(features, labels, mode):
            logits = tf.layers.dense(features, 2)
            loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
            train_op = tf.train.AdamOptimizer().minimize(loss, tf.train.get_global_step())
            return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

        train_input = functools.partial(input_fn, "train.txt", batch_size=64)
        predict_input = functools.partial(make_dataset, "ABC.")
        estimator = tf.estimator.Estimator(model_fn)
        estimator.train(train_input)
        predictions = estimator.predict(predict_input)
        """}, "TFD001")
    assert [(f.location.line, f.confidence, f.evidence[0].message.split(";")[0]) for f in findings] == [
        (10, Confidence.LIKELY, "consumed by train at classify.py:21:1"),
        (7, Confidence.POSSIBLE, "consumed by predict at classify.py:22:15"),
    ]


@pytest.mark.parametrize("size, reported", [
    ("len(interactions.row)", []),  # a negative item for every interaction: all the training triplets
    ("256", [(17, "TFH007")]),  # a few items of the data: a minibatch
])
def test_negatives_drawn_for_every_interaction_make_a_whole_epoch(size, reported):
    """Neural collaborative filtering: each epoch fits on every (user, item) pair of the training matrix with a
    negative item drawn at random for each, `np.random.randint(mat.shape[1], size=len(mat.row))`: a whole epoch
    per `fit`, not a minibatch drawn from the data (as `size=256` would be)."""
    findings = _findings({"train.py": f"""
        import numpy as np
        import tensorflow as tf

        def get_triplets(interactions):
            return interactions.row, interactions.col, np.random.randint(interactions.shape[1], size={size})

        def build_model():
            inputs = tf.keras.Input((3,))
            return tf.keras.Model(inputs, tf.keras.layers.Dense(1)(inputs))

        train = load_interactions("train.csv")
        model = build_model()
        model.compile("adam", "mse")
        for epoch in range(1000):
            users, positives, negatives = get_triplets(train)
            inputs = {{"user": users, "positive": positives, "negative": negatives}}
            model.fit(inputs, np.ones(len(users)), batch_size=256, epochs=1)
        """}, "TFH007")
    assert _where(findings) == [(code, "train.py", line) for line, code in reported]


_POOLED_LOADER = """
import cv2
import numpy as np
from concurrent.futures import ThreadPoolExecutor

class DataGenerator:
    def __init__(self, paths, batch_size):
        self.paths, self.batch_size = paths, batch_size
        self.pool = ThreadPoolExecutor(8)

    def load_image(self, path):
        return cv2.resize(cv2.imread(path), (64, 64))

    def load(self):
        futures = [self.pool.submit(self.load_image, path) for path in np.random.choice(self.paths, self.batch_size)]
        images = np.asarray([future.result() for future in futures]).astype("float32") / 255.0
        return images[:, ::2, ::2], images
"""


def test_a_step_held_in_a_local_name_takes_batches_a_pool_makes_while_it_waits():
    """`compute = tf.function(self.compute_gradient)`, then `compute(model, x, y)` each iteration: the loop's step,
    though the name it is called by is no function's. Its batches come from a loader that hands the decoding to a
    thread pool and waits for the results (`submit`, then `.result()`): made side by side, but between two steps,
    not ahead of them."""
    findings = _findings({"generator.py": _POOLED_LOADER, "train.py": """
        import glob
        import tensorflow as tf
        from generator import DataGenerator

        class SuperResolution:
            def __init__(self):
                self.model = build_model()
                self.data = DataGenerator(glob.glob("images/*.jpg"), batch_size=32)

            def compute_gradient(self, model, optimizer, x, y):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(y - model(x, training=True)))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                              model.trainable_variables))
                return loss

            def train(self):
                optimizer = tf.keras.optimizers.Adam()
                compute = tf.function(self.compute_gradient)
                while True:
                    x, y = self.data.load()
                    compute(self.model, optimizer, x, y)

        SuperResolution().train()
        """}, "TFD004")
    assert [(f.location.path.as_posix(), f.location.line, f.confidence) for f in findings] == [
        ("train.py", 22, Confidence.LIKELY)]


def test_a_loop_over_a_list_s_last_item_runs_that_many_times():
    """`for i in range(n_heads[-1])`: the last item of `n_heads = [8, 1]` (GAT's one output head), not the
    largest item of the list."""
    findings = _findings({"train.py": """
        import numpy as np
        import tensorflow as tf

        def make_model(n_heads):
            inputs = tf.keras.Input((512,))
            heads = [tf.keras.layers.Dense(512)(inputs) for _ in range(n_heads[-1])]
            return tf.keras.Model(inputs, tf.keras.layers.Dense(10)(tf.add_n(heads)))

        features = np.load("features.npy")
        model = make_model([16, 1])
        model.compile("adam", "sparse_categorical_crossentropy")
        model.fit(features["x"], features["y"], epochs=10)
        """}, "TFC001")
    assert [f.confidence for f in findings] == [Confidence.POSSIBLE]


def test_tf1_training_ops_as_real_scripts_make_them_and_leave_them():
    """An optimizer from a repo helper (`config_optimizer` returning `tf.train.MomentumOptimizer`) trains; a
    training op a checkpoint converter builds and never runs does not; summaries under `if gs - last >= 500:` whose
    body moves `last` on are throttled."""
    model = """
        import tensorflow as tf

        def network(x):
            for filters in (64, 128, 256, 512, 512):
                x = tf.layers.conv2d(x, filters, 3, padding="same")
            return x

        def config_optimizer(name, lr):
            if name == "momentum":
                return tf.train.MomentumOptimizer(lr, momentum=0.9)
            return tf.train.AdamOptimizer(lr)
        """
    findings = _findings({"model.py": model, "train.py": """
        import tensorflow as tf
        from model import network, config_optimizer

        images = tf.placeholder(tf.float32, [None, 416, 416, 3])
        loss = tf.reduce_mean(network(images))
        optimizer = config_optimizer("momentum", 1e-3)
        train_op = optimizer.minimize(loss)
        merged = tf.summary.merge_all()
        writer = tf.summary.FileWriter("logs")
        with tf.Session() as sess:
            last = 0
            while True:
                _, step = sess.run([train_op, tf.train.get_global_step()])
                if step - last >= 500:
                    writer.add_summary(sess.run(merged), step)
                    last = step
        """, "convert.py": """
        import tensorflow as tf
        from model import network

        def convert(path):
            with tf.Session() as sess:
                loss = tf.reduce_mean(network(tf.placeholder(tf.float32, [None, 416, 416, 3])))
                train_op = tf.train.MomentumOptimizer(1e-3, 0.9).minimize(loss)
                tf.train.Saver().restore(sess, path)
                tf.train.Saver().save(sess, path + ".new")
        """}, "TFC001", "TFH004", "TFH006")
    assert _where(findings) == [("TFC001", "train.py", 7)]


def test_compat_v1_gradients_build_a_graph_an_estimator_trains():
    """ELECTRA's optimizer module: `tensorflow.compat.v1` with `tf.gradients` (which eager execution refuses) and
    a repo subclass of `tf.train.Optimizer`: the update a TPUEstimator's model_fn builds is graph training."""
    findings = _findings({"optimization.py": """
        import tensorflow.compat.v1 as tf

        class AdamWeightDecayOptimizer(tf.train.Optimizer):
            def apply_gradients(self, grads_and_vars, global_step=None, name=None):
                return tf.no_op()

        def create_optimizer(loss, lr):
            global_step = tf.train.get_or_create_global_step()
            optimizer = AdamWeightDecayOptimizer(lr)
            tvars = tf.trainable_variables()
            grads = tf.gradients(loss, tvars)
            return optimizer.apply_gradients(zip(grads, tvars), global_step=global_step)
        """, "run_pretraining.py": """
        import tensorflow.compat.v1 as tf
        from optimization import create_optimizer

        def model_fn(features, labels, mode, params):
            x = features["input_ids"]
            for _ in range(12):
                x = tf.layers.dense(x, 1024)
            loss = tf.reduce_mean(x)
            train_op = create_optimizer(loss, 1e-4)
            return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

        estimator = tf.estimator.Estimator(model_fn)
        estimator.train(input_fn, max_steps=1000000)
        """}, "TFC001")
    assert [(f.location.path.as_posix(), f.location.line) for f in findings] == [("optimization.py", 12)]


@pytest.mark.parametrize("use_tpu, on_tpu", [("False", False), ("True", True)])
def test_a_tpu_estimator_with_use_tpu_off_by_default_trains_on_a_gpu(use_tpu: str, on_tpu: bool):
    """BERT's fine-tuning scripts: `TPUEstimator(use_tpu=FLAGS.use_tpu, ...)` with the flag off by default runs as an
    Estimator on the CPU or GPU: the advice is float16's graph rewrite, not a TPU's bfloat16."""
    findings = _findings({"run_ner.py": f"""
        import tensorflow as tf

        flags = tf.flags
        FLAGS = flags.FLAGS
        flags.DEFINE_bool("use_tpu", {use_tpu}, "Whether to use TPU or GPU/CPU.")

        def model_fn(features, labels, mode, params):
            x = features["input_ids"]
            for _ in range(12):
                x = tf.layers.dense(x, 1024)
            loss = tf.reduce_mean(x)
            train_op = tf.train.AdamOptimizer(1e-4).minimize(loss)
            return tf.contrib.tpu.TPUEstimatorSpec(mode=mode, loss=loss, train_op=train_op)

        def main(_):
            estimator = tf.contrib.tpu.TPUEstimator(use_tpu=FLAGS.use_tpu, model_fn=model_fn, train_batch_size=32)
            estimator.train(input_fn=train_input_fn, max_steps=10000)

        if __name__ == "__main__":
            tf.app.run()
        """}, "TFC001")
    assert [(f.location.line, f.confidence) for f in findings] == [(12, Confidence.LIKELY)]
    assert ("bfloat16_scope" in findings[0].message) is on_tpu


def test_a_value_fetched_every_step_and_read_on_some_steps_only():
    """Learning-to-See-in-the-Dark's shape: the training run fetches the output image every step; the loop clips
    it every step but saves it only every 500 epochs. A loss fetched to be printed every 100 steps is a number the
    update computes anyway: no finding for it."""
    findings = _findings({"train.py": """
        import numpy as np
        import tensorflow as tf

        in_image = tf.placeholder(tf.float32, [None, None, None, 4])
        out_image = network(in_image)
        G_loss = tf.reduce_mean(tf.abs(out_image - gt_image))
        G_opt = tf.train.AdamOptimizer(1e-4).minimize(G_loss)
        with tf.Session() as sess:
            for epoch in range(4001):
                for step, ind in enumerate(np.random.permutation(len(train_ids))):
                    _, G_current, output = sess.run([G_opt, G_loss, out_image], feed_dict={in_image: crop(ind)})
                    output = np.minimum(np.maximum(output, 0), 1)
                    if step % 100 == 0:
                        print(G_current)
                    if epoch % 500 == 0:
                        save_image(output[0])
        """}, "TFH004")
    assert [(f.location.line, f.confidence) for f in findings] == [(11, Confidence.POSSIBLE)]
    assert "fetches `out_image` every step, but the loop reads it only on some steps (line 16)" in findings[0].message


def test_a_fetched_value_kept_in_a_running_total_is_read_every_step():
    """A MovieLens embedding trainer fetches its mean squared error every step and keeps a decayed running total of
    it (`accmse = accmse * decay + _mse`), printed only every epoch: the total needs every step's value, so the
    fetch is no waste. The predictions, only printed with it, are the finding."""
    findings = _findings({"train.py": """
        import tensorflow as tf

        prediction = model(batch_ids)
        mse = tf.reduce_mean(tf.square(prediction - ratings))
        optimizer = tf.train.AdamOptimizer().minimize(loss)
        with tf.Session() as session:
            accmse = 0.0
            for step in range(num_steps):
                _, predictions, _mse = session.run([optimizer, prediction, mse], feed_dict=next_feed())
                accmse = accmse * decay + _mse
                expmse = accmse / (step + 1)
                if step % display_interval == 0:
                    print(expmse, predictions[:10])
        """}, "TFH004", show_all=True)
    assert [f.location.line for f in findings] == [9]
    assert "fetches `prediction` every step, but" in findings[0].message


def test_what_an_epochs_end_of_data_handler_runs_is_no_per_step_work():
    """A TF1 MNIST trainer reads its initializable iterator in `while True: try: ... except
    tf.errors.OutOfRangeError:`, and the handler computes the loss over the whole training set, then `break`s: that
    runs once an epoch, when the data runs out, not every step. The same run in the `try` is per step."""
    script = """
        import tensorflow as tf

        optimizer = tf.train.AdamOptimizer(1e-3).minimize(loss)
        with tf.Session() as sess:
            for epoch in range(20):
                sess.run(iterator.initializer, feed_dict={X: x_train, Y: y_train})
                while True:
                    try:
                        images, labels = sess.run(next_element)
                        sess.run(optimizer, feed_dict={X: images, Y: labels})
                        {in_try}
                    except tf.errors.OutOfRangeError:
                        {in_handler}
                        break
        """
    evaluation = 'print("loss", sess.run(loss, feed_dict={X: x_train, Y: y_train}))'
    at_epoch_end = script.replace("{in_try}", "pass").replace("{in_handler}", evaluation)
    assert _findings({"train.py": at_epoch_end}, "TFH004", show_all=True) == []
    every_step = script.replace("{in_try}", evaluation).replace("{in_handler}", "pass")
    assert [f.location.line for f in _findings({"train.py": every_step}, "TFH004", show_all=True)] == [11]


def test_the_first_n_batches_of_a_python_generator_are_made_by_it():
    """GraphSAGE's TF2 port trains on `islice(minibatch_generator, 0, TRAINING_STEPS)`: the first steps' batches
    of a generator that samples neighbours with NumPy, one after the other with no overlap; `islice` hands them
    out unchanged."""
    findings = _findings({"supervised.py": """
        from itertools import islice
        import numpy as np
        import tensorflow as tf

        def build_batch(nodes, neigh_dict):
            sampled = [np.random.choice(neigh_dict[node], 10) for node in nodes]
            adjacency = np.stack([np.isin(all_nodes, row) for row in sampled])
            return adjacency.astype(np.float32) / adjacency.sum(axis=1, keepdims=True)

        def generate_training_minibatch(nodes, all_labels, batch_size):
            while True:
                batch_nodes = np.random.choice(nodes, size=batch_size, replace=False)
                yield build_batch(batch_nodes, neigh_dict), all_labels[batch_nodes]

        minibatch_generator = generate_training_minibatch(train_nodes, labels, 256)
        for inputs, inputs_labels in islice(minibatch_generator, 0, 100):
            with tf.GradientTape() as tape:
                loss = loss_fn(inputs_labels, graphsage(inputs))
            optimizer.apply_gradients(zip(tape.gradient(loss, graphsage.trainable_weights),
                                          graphsage.trainable_weights))
        """}, "TFD004")
    assert [(f.location.line, f.confidence) for f in findings] == [(16, Confidence.LIKELY)]


def test_what_a_batch_generator_walks_is_made_once_a_pass():
    """Hands-On ML's `shuffle_batch`: the generator splits a shuffled index array once a pass (`for batch_idx in
    np.array_split(rnd_idx, n_batches)`), then each batch is a slice of arrays in memory: no array work per batch."""
    findings = _findings({"train.py": """
        import numpy as np
        import tensorflow as tf

        def shuffle_batch(X, y, batch_size):
            rnd_idx = np.random.permutation(len(X))
            n_batches = len(X) // batch_size
            for batch_idx in np.array_split(rnd_idx, n_batches):
                X_batch, y_batch = X[batch_idx], y[batch_idx]
                yield X_batch, y_batch

        X = tf.placeholder(tf.float32, [None, 784])
        y = tf.placeholder(tf.int32, [None])
        logits = tf.layers.dense(tf.layers.dense(X, 300), 10)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        training_op = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
        with tf.Session() as sess:
            for epoch in range(40):
                for X_batch, y_batch in shuffle_batch(X_train, y_train, 50):
                    sess.run(training_op, feed_dict={X: X_batch, y: y_batch})
        """}, "TFD004")
    assert [(f.location.line, f.confidence) for f in findings] == [(18, Confidence.POSSIBLE)]
    assert "NumPy on data in memory may keep up" in findings[0].evidence[-1].message


def test_a_recurrent_state_fed_back_and_a_variable_are_no_values_read_on_some_steps():
    """A char-RNN's loop fetches `final_state` and feeds it back as the next step's `initial_state`: it is read
    every step. A weight variable fetched to be printed is not computed for it, and a copy of a few numbers. The
    generated images, saved every 100 steps, are the finding."""
    findings = _findings({"train.py": """
        import tensorflow as tf

        W = tf.Variable(tf.zeros([784, 10]))
        logits = model(inputs, W)
        cost = tf.reduce_mean(loss(logits))
        optimizer = tf.train.AdamOptimizer().minimize(cost)
        with tf.Session() as sess:
            for e in range(20):
                new_state = sess.run(initial_state)
                for step, (x, y) in enumerate(batches):
                    batch_loss, new_state, _, w, images = sess.run(
                        [cost, final_state, optimizer, W, images_out],
                        feed_dict={inputs: x, targets: y, initial_state: new_state})
                    if step % 100 == 0:
                        print(batch_loss, new_state, w)
                        save(images)
        """}, "TFH004")
    assert [f.location.line for f in findings] == [11]
    assert "fetches `images_out` every step" in findings[0].message


def test_an_assignment_op_evaluated_every_step_is_an_update_not_a_read():
    """Hands-On ML's max-norm regularization: `clip_weights = tf.assign(weights, clipped_weights)`, evaluated after
    every training run. It writes the weights on the device (and must follow the update): no value read back. The
    loss evaluated in a run of its own every step is one."""
    findings = _findings({"train.py": """
        import tensorflow as tf

        X = tf.placeholder(tf.float32, [None, 784])
        y = tf.placeholder(tf.int32, [None])
        with tf.variable_scope("hidden1", reuse=True):
            weights = tf.get_variable("kernel")
        clipped_weights = tf.clip_by_norm(weights, clip_norm=1.0, axes=1)
        clip_weights = tf.assign(weights, clipped_weights)
        loss = model_loss(X, y)
        training_op = tf.train.MomentumOptimizer(0.01, 0.9).minimize(loss)
        with tf.Session() as sess:
            for epoch in range(20):
                for X_batch, y_batch in batches:
                    sess.run(training_op, feed_dict={X: X_batch, y: y_batch})
                    clip_weights.eval()
                    print(loss.eval(feed_dict={X: X_batch, y: y_batch}))
        """}, "TFH004")
    assert [f.location.line for f in findings] == [16]
    assert "`loss.eval(...)`" in findings[0].message


def test_a_keras_segmentation_network_trains_with_its_own_train_method():
    """keras_segmentation's `vgg_unet(n_classes=51, input_height=416, input_width=608)` is a VGG16-encoder U-Net the
    library builds; `model.train(train_images=..., epochs=10)` fits it. A known architecture, trained: mixed precision
    is likely worth it."""
    findings = _findings({"segment.py": """
        import keras_segmentation

        model = keras_segmentation.models.unet.vgg_unet(n_classes=51, input_height=416, input_width=608)
        model.train(train_images="images_prepped_train/", train_annotations="annotations_prepped_train/",
                    checkpoints_path="model_output/", epochs=10)
        """}, "TFC001")
    assert [(f.location.line, f.confidence) for f in findings] == [(3, Confidence.LIKELY)]


def test_run_eagerly_left_at_a_trainers_default_of_true():
    findings = _findings({"trainer.py": """
        import tensorflow as tf

        class KerasTrainer:
            def __init__(self, model):
                self.model = model

            def train(self, dataset, epochs=10, run_eagerly: bool = True):
                self.model.compile(loss="mse", optimizer="adam", run_eagerly=run_eagerly)
                self.model.fit(dataset, epochs=epochs)

        model = tf.keras.Sequential([tf.keras.layers.Dense(64), tf.keras.layers.Dense(1)])
        KerasTrainer(model).train(dataset, epochs=100)
        """}, "TFH002")
    assert [(f.location.line, f.confidence) for f in findings] == [(8, Confidence.LIKELY)]


def test_an_agent_of_a_repos_own_environment_feeds_what_it_played():
    """A gridworld of the repo's own, stepped as gym's are (`s1, r, d = env.step(a)`): an RL agent, so its DQN is
    no sure mixed-precision gain, and the transitions it feeds are no batches a reader could prepare."""
    findings = _findings({"dqn.py": """
        import numpy as np
        import tensorflow as tf
        from gridworld import gameEnv

        env = gameEnv(size=5)
        state = tf.placeholder(tf.float32, [None, 84, 84, 3])
        target = tf.placeholder(tf.float32, [None, 4])
        x = state
        for filters in (64, 128, 256, 512, 512):
            x = tf.layers.conv2d(x, filters, 3)
        q = tf.layers.dense(tf.layers.flatten(x), 4)
        train_op = tf.train.AdamOptimizer(1e-4).minimize(tf.reduce_mean(tf.square(target - q)))
        with tf.Session() as sess:
            s = env.reset()
            for step in range(100000):
                a = np.random.randint(4)
                s1, r, d = env.step(a)
                sess.run(train_op, feed_dict={state: np.stack([s, s1]), target: np.zeros((2, 4)) + r})
                s = s1
        """}, "TFC001", "TFD004")
    assert [(f.code, f.confidence) for f in findings] == [("TFC001", Confidence.POSSIBLE)]


_CELEBA = """
import matplotlib.pyplot as plt
import tensorflow as tf
import tensorflow_datasets as tfds

celeba = tfds.load("celeb_a", split="train")

def preprocess(example, size=(64, 64)):
    image = tf.image.random_flip_left_right(tf.image.random_crop(example["image"], (178, 178, 3)))
    return tf.image.resize(image, size) / 255.0, example["attributes"]["Male"]

demo = celeba.take(2).repeat(5).map(lambda x: preprocess(x, size=(178, 178)))
fig = plt.figure()
for j, example in enumerate(demo):
    ax = fig.add_subplot(2, 5, j + 1)
    ax.set_xticks([])
    ax.imshow(example[0])

train = celeba.map(preprocess).shuffle(1000).batch(32)
model = tf.keras.applications.ResNet50(weights=None, classes=2)
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(train, epochs=20)
"""


def test_a_pipeline_only_plotted_is_no_training_input_and_a_script_paired_with_its_notebook_cites_itself():
    """A book chapter as a script and as the notebook it was exported from (same name): a map that feeds ten
    plotted images is no training input; the training map's evidence names the file's own `preprocess`, not the
    notebook's copy of it."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    notebook = nbformat.writes(new_notebook(cells=[new_code_cell(_CELEBA.strip())]))
    findings = _findings({"ch15.py": _CELEBA, "ch15.ipynb": notebook}, "TFD002")
    script = [f for f in findings if f.location.path.suffix == ".py"]
    assert [(f.location.line, f.confidence) for f in script] == [(18, Confidence.LIKELY)]
    assert "ch15.ipynb" not in _evidence(script[0])
    assert [(f.location.cell.line, f.confidence) for f in findings if f.location.cell is not None] == [
        (18, Confidence.LIKELY)]


def test_a_map_whose_dataset_no_training_reads_is_only_possible():
    """A recommender tutorial perturbs embeddings in a random map only to build a retrieval index (ScaNN's
    `index_from_dataset`) in the notebook that also trains: no consumer advisor knows reads that dataset."""
    findings = _findings({"serving.py": """
        import tensorflow as tf
        import tensorflow_recommenders as tfrs

        movies = tf.data.Dataset.from_tensor_slices(titles)
        model = tfrs.Model()
        model.compile(optimizer="adagrad")
        model.fit(ratings.batch(8192), epochs=3)

        embeddings = movies.batch(4096).repeat(1000).map(lambda x: x * tf.random.uniform(tf.shape(x)))
        index = tfrs.layers.factorized_top_k.ScaNN(model.user_model)
        index.index_from_dataset(tf.data.Dataset.zip((movies.batch(4096).repeat(1000), embeddings)))
        """}, "TFD002")
    assert [(f.location.line, f.confidence) for f in findings] == [(9, Confidence.POSSIBLE)]
    assert "no consumer of this dataset is seen" in _evidence(findings[0])


def test_a_script_that_makes_the_model_to_sample_from_it_does_not_train():
    """GPT-2's model class carries its own training loop (`fit` -> `train_step`); the sampling script makes one only
    to restore a checkpoint. Making the object runs what Keras calls by itself (`call`), not the loop the training
    script calls by name."""
    findings = _findings({"model.py": """
        import tensorflow as tf

        class Gpt2(tf.keras.Model):
            def __init__(self, layers, width):
                super().__init__()
                self.blocks = [tf.keras.layers.Dense(width) for _ in range(layers)]
                self.optimizer = tf.keras.optimizers.Adam()

            def call(self, x):
                for block in self.blocks:
                    x = block(x)
                return x

            @tf.function
            def train_step(self, x, y):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(self(x) - y))
                grads = tape.gradient(loss, self.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
                return loss

            def fit(self, dataset):
                for x, y in dataset:
                    self.train_step(x, y)
        """, "train.py": """
        from model import Gpt2

        if __name__ == "__main__":
            model = Gpt2(12, 768)
            model.fit(dataset)
        """, "sample.py": """
        import tensorflow as tf
        from model import Gpt2

        def load(path):
            model = Gpt2(12, 768)
            tf.train.Checkpoint(model=model).restore(path)
            return model

        if __name__ == "__main__":
            load("ckpt")(tokens)
        """}, "TFC001", show_all=True)
    assert {(f.location.path.as_posix(), f.reach) for f in findings} == {
        ("train.py", Reach.TRAINING), ("sample.py", Reach.OTHER)}


def test_a_worker_thread_trains_through_the_run_its_start_calls():
    """A3C beside A2C: each A3C worker is a `Thread` whose `run` (which `start()` calls) trains the global actor
    eagerly; making the worker reaches its `run`, as Python calls it."""
    findings = _findings({"a3c.py": """
        from threading import Thread
        import tensorflow as tf

        class Actor:
            def __init__(self):
                self.model = tf.keras.Sequential([tf.keras.layers.Dense(2)])
                self.opt = tf.keras.optimizers.Adam()

            def train(self, states, advantages):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(self.model(states) * advantages)
                grads = tape.gradient(loss, self.model.trainable_variables)
                self.opt.apply_gradients(zip(grads, self.model.trainable_variables))

        class Worker(Thread):
            def __init__(self, actor):
                Thread.__init__(self)
                self.actor = actor

            def train(self):
                for episode in range(1000):
                    self.actor.train(states, advantages)

            def run(self):
                self.train()

        class Agent:
            def train(self):
                actor = Actor()
                for worker in [Worker(actor) for _ in range(4)]:
                    worker.start()

        if __name__ == "__main__":
            Agent().train()
        """, "a2c.py": """
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(2)])
        model.compile("adam", "mse")
        model.fit(states, values)
        """}, "TFH002")
    assert [(f.location.line, f.confidence, f.reach) for f in findings] == [(9, Confidence.LIKELY, Reach.TRAINING)]


def test_a_helper_defined_inside_a_function_hides_the_module_function_of_that_name():
    """A book chapter defines `encode_map_fn` at module level for its first model, then again inside
    `preprocess_datasets()` for the next: the map there runs the inner one, its own `tf.py_function`."""
    findings = _findings({"ch16.py": """
        import tensorflow as tf

        raw_train = tf.data.Dataset.from_tensor_slices((texts, labels))

        def encode_map_fn(text, label):
            return tf.py_function(encode, inp=[text, label], Tout=(tf.int64, tf.int64))

        train = raw_train.map(encode_map_fn).padded_batch(32)
        model = tf.keras.Sequential([tf.keras.layers.Embedding(1000, 20), tf.keras.layers.SimpleRNN(64)])
        model.compile("adam", "binary_crossentropy")
        model.fit(train, epochs=10)

        def preprocess_datasets(raw_train, max_seq_length):
            def encode_map_fn(text, label):
                return tf.py_function(encode_truncated, inp=[text, label], Tout=(tf.int64, tf.int64))

            return raw_train.map(encode_map_fn).padded_batch(32)

        for length in (100, None):
            model.fit(preprocess_datasets(raw_train, length), epochs=10)
        """}, "TFD003")
    assert [(f.location.line, f.confidence) for f in findings] == [(6, Confidence.LIKELY), (15, Confidence.LIKELY)]


@pytest.mark.parametrize("cache, confidence", [(".cache()", Confidence.POSSIBLE), ("", Confidence.LIKELY)])
def test_a_python_function_whose_results_are_cached_runs_in_the_first_epoch_only(cache, confidence):
    """The Transformer tutorial tokenizes with `tf.py_function`, then caches the tokenized pairs: 19 of its 20
    epochs read the cache, so the Python is a first-epoch cost, below the default output."""
    findings = _findings({"transformer.py": f"""
        import tensorflow as tf
        import tensorflow_datasets as tfds

        def tf_encode(pt, en):
            return tf.py_function(encode, [pt, en], [tf.int64, tf.int64])

        examples = tfds.load("ted_hrlr_translate/pt_to_en", split="train", as_supervised=True)
        train = examples.map(tf_encode).filter(short){cache}.shuffle(20000).padded_batch(64).prefetch(2)
        for epoch in range(20):
            for inp, tar in train:
                train_step(inp, tar)
        """}, "TFD003", show_all=True)
    assert [(f.location.line, f.confidence) for f in findings] == [(5, confidence)]
    assert ("first epoch only" in _evidence(findings[0])) == bool(cache)


def test_a_script_and_its_notebook_each_name_their_own_map_of_a_python_function():
    """The same chapter as script and notebook: each `tf.py_function` finding names the map of its own file."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    chapter = """import tensorflow as tf

def encode_map_fn(text, label):
    return tf.py_function(encode, inp=[text, label], Tout=(tf.int64, tf.int64))

train = tf.data.Dataset.from_tensor_slices((texts, labels)).map(encode_map_fn).padded_batch(32)
model = tf.keras.Sequential([tf.keras.layers.Embedding(1000, 20), tf.keras.layers.SimpleRNN(64)])
model.compile("adam", "binary_crossentropy")
model.fit(train, epochs=10)
"""
    notebook = nbformat.writes(new_notebook(cells=[new_code_cell("# setup"), new_code_cell(chapter)]))
    findings = _findings({"ch16.py": chapter, "ch16.ipynb": notebook}, "TFD003")
    assert sorted((f.location.path.as_posix(), f.message.split("holding")[0].split("at ")[-1]) for f in findings) == [
        ("ch16.ipynb", "cell 2, line 6, "), ("ch16.py", "line 6, ")]


@pytest.mark.parametrize("model, confidence", [
    ("tf.add(tf.matmul(x_data, A), b)", Confidence.POSSIBLE),  # a regression
    ("tf.layers.dense(tf.layers.flatten(tf.layers.conv2d(x_data, 64, 3)), 1)", Confidence.LIKELY),
])
def test_a_second_run_per_step_of_a_toy_graph_is_only_possible(model, confidence):
    """A cookbook's linear regression on iris re-runs its loss every step: true, but the graph is a 1x1 matmul, so
    a run takes microseconds; a convolutional model's second forward pass costs real time."""
    findings = _findings({"regression.py": f"""
        import numpy as np
        import tensorflow as tf

        x_data = tf.placeholder(tf.float32, [None, 1])
        y_target = tf.placeholder(tf.float32, [None, 1])
        A = tf.Variable(tf.random_normal(shape=[1, 1]))
        b = tf.Variable(tf.zeros([1, 1]))
        output = {model}
        loss = tf.reduce_mean(tf.square(y_target - output))
        train_step = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
        sess = tf.Session()
        for i in range(5000):
            rand_index = np.random.choice(len(x_vals), size=25)
            sess.run(train_step, feed_dict={{x_data: x_vals[rand_index], y_target: y_vals[rand_index]}})
            temp_loss = sess.run(loss, feed_dict={{x_data: x_vals[rand_index], y_target: y_vals[rand_index]}})
        """}, "TFH004")
    assert [(f.location.line, f.confidence) for f in findings] == [(15, confidence)]


def test_earlier_runs_of_the_same_runner_are_not_layers_of_the_graph_a_later_run_trains():
    """DeepFM's main runs its runner three times (DeepFM, FM, DNN): each builds and trains a graph of its own, so
    the third run's graph is not three models' layers (it was counted as 45 dense layers, likely)."""
    findings = _findings({"model.py": """
        import tensorflow as tf

        class Net:
            def __init__(self, deep):
                self.x = tf.placeholder(tf.float32, [None, 39])
                y = self.x
                if deep:
                    y = tf.layers.dense(tf.layers.dense(y, 256), 256)
                self.loss = tf.reduce_mean(tf.layers.dense(y, 1))
                self.train_op = tf.train.AdamOptimizer(1e-3).minimize(self.loss)
                self.sess = tf.Session()

            def fit(self, batches):
                for x in batches:
                    self.sess.run(self.train_op, feed_dict={self.x: x})
        """, "main.py": """
        from model import Net

        def run(deep):
            Net(deep).fit(batches)

        run(True)
        run(True)
        run(False)
        """}, "TFC001", show_all=True)
    (finding,) = findings
    assert finding.confidence is Confidence.POSSIBLE
    assert "0 convolution and 2 dense layers" in _evidence(finding)


def test_a_pipeline_read_for_a_few_elements_is_looked_at_not_trained_on():
    """The tf.data guide builds datasets to show a batch (`next(iter(ds))`) or two images (`ds.take(2)`) in the
    notebook that trains a model further down: those pipelines feed no training; the one `fit` reads does."""
    shown = """
        import numpy as np
        import tensorflow as tf

        def series():
            while True:
                yield np.random.randint(0, 10), np.random.normal(size=(np.random.randint(1, 10),))

        ds_series = tf.data.Dataset.from_generator(series, output_types=(tf.int32, tf.float32))
        ids, batch = next(iter(ds_series.padded_batch(10)))

        @tf.py_function(Tout=tf.float32)
        def random_rotate(image):
            return scipy.ndimage.rotate(image, np.random.uniform(-30, 30), reshape=False)

        def rotate_pair(image, label):
            return random_rotate(image), label

        rotated = tf.data.Dataset.from_tensor_slices((images, labels)).map(rotate_pair)
        for image, label in rotated.take(2):
            show(image, label)
        model.fit(tf.data.Dataset.from_generator(series, output_types=(tf.int32, tf.float32)).batch(32), epochs=5)
        """
    assert [(f.code, f.location.line) for f in _findings({"guide.py": shown}, "TFD003", "TFD004")] == [
        ("TFD004", 21)]
    assert {(f.code, f.location.line, f.reach) for f in _findings({"guide.py": shown}, "TFD003", "TFD004",
                                                                    show_all=True)} == {
        ("TFD004", 21, Reach.TRAINING), ("TFD003", 11, Reach.OTHER)}


def test_a_text_cnn_over_token_embeddings_counts_its_filters_as_dense_layers():
    """Kim's sentence CNN (dennybritz's, SeqGAN's discriminator) convolves the expanded embedding matrix with
    filters as wide as the embedding: a dense layer at every token of a short sentence, not an image convolution.
    Four filter sizes of 128 filters were counted as an image CNN, likely; it is possible."""
    findings = _findings({"text_cnn.py": """
        import tensorflow as tf

        class TextCNN:
            def __init__(self, sequence_length, vocab_size, embedding_size, filter_sizes, num_filters):
                self.input_x = tf.placeholder(tf.int32, [None, sequence_length])
                self.W = tf.Variable(tf.random_uniform([vocab_size, embedding_size], -1.0, 1.0))
                self.embedded_chars = tf.nn.embedding_lookup(self.W, self.input_x)
                self.embedded_chars_expanded = tf.expand_dims(self.embedded_chars, -1)
                pooled = []
                for filter_size in filter_sizes:
                    W = tf.Variable(tf.truncated_normal([filter_size, embedding_size, 1, 128], stddev=0.1))
                    conv = tf.nn.conv2d(self.embedded_chars_expanded, W, strides=[1, 1, 1, 1], padding="VALID")
                    pooled.append(tf.nn.max_pool(tf.nn.relu(conv), ksize=[1, sequence_length - filter_size + 1, 1, 1],
                                                 strides=[1, 1, 1, 1], padding="VALID"))
                self.loss = tf.reduce_mean(tf.concat(pooled, 3))
                self.train_op = tf.train.AdamOptimizer(1e-3).minimize(self.loss)

        cnn = TextCNN(56, 20000, 128, [3, 4, 5], 128)
        with tf.Session() as sess:
            for batch in batches:
                sess.run(cnn.train_op, feed_dict={cnn.input_x: batch})
        """}, "TFC001", show_all=True)
    assert [f.confidence for f in findings] == [Confidence.POSSIBLE]
    assert "0 convolution and 4 dense layers" in _evidence(findings[0])


@pytest.mark.parametrize("embedding", [
    # set in another method
    """def add_embedding(self):
                embedded = tf.nn.embedding_lookup(self.W, self.input_x)
                self.cnn_input = tf.expand_dims(embedded, -1)""",
    # returned by a helper, dropped out first
    """def add_embedding(self):
                self.cnn_input = self.embed(self.input_x)

            def embed(self, ids):
                inputs = tf.expand_dims(tf.nn.embedding_lookup(self.W, ids), -1)
                inputs = tf.nn.dropout(inputs, keep_prob=0.5)
                return inputs""",
])
def test_a_text_cnn_whose_layers_take_embeddings_made_elsewhere_counts_its_filters_as_dense(embedding):
    """Text CNNs split into methods (a ConvMF recommender's `add_embedding`, then `add_conv` with
    `tf.layers.conv2d(inputs=self.cnn_input, kernel_size=[k, embedding_size])`): the convolution's input is still
    the token embeddings, when another method expands them or a helper returns them dropped out."""
    findings = _findings({"text_cnn.py": """
        import tensorflow as tf

        class TextCNN:
            def __init__(self, vocab_size, embedding_size):
                self.embedding_size = embedding_size
                self.input_x = tf.placeholder(tf.int32, [None, 100])
                self.W = tf.get_variable("embedding", [vocab_size, embedding_size])
                self.add_embedding()
                self.add_conv()

            """ + embedding + """

            def add_conv(self):
                pooled = []
                for width in [3, 4, 5]:
                    conv = tf.layers.conv2d(inputs=self.cnn_input, filters=128,
                                            kernel_size=[width, self.embedding_size], activation=tf.nn.relu)
                    pooled.append(tf.reduce_max(conv, axis=1))
                self.loss = tf.reduce_mean(tf.concat(pooled, -1))
                self.train_op = tf.train.AdamOptimizer(1e-3).minimize(self.loss)

        cnn = TextCNN(20000, 200)
        with tf.Session() as sess:
            for batch in batches:
                sess.run(cnn.train_op, feed_dict={cnn.input_x: batch})
        """}, "TFC001", show_all=True)
    assert [f.confidence for f in findings] == [Confidence.POSSIBLE]
    assert "0 convolution and 3 dense layers" in _evidence(findings[0])


def test_widths_zipped_from_lists_each_branch_chooses_are_all_narrow():
    """A keyword-spotting attention model builds its query CNN from `num_fil`, a list each branch of `if
    query_style == ...:` sets, zipped with the kernel sizes (`for i, (nf, ks) in enumerate(zip(num_fil,
    kern_sz))`): 5 or 10 filters whichever branch runs, no work for 16-bit units. Zipped with wide ones, it is."""
    script = """
        import tensorflow as tf
        from tensorflow.keras import layers as L

        def attention_model(inputs, query_style):
            if query_style == "conv01":
                num_fil = [{first}, {first}, {first}]
                kern_sz = [(4, 4), (4, 4), (4, 4)]
            else:
                num_fil = [5, 5, 5, 5]
                kern_sz = [(4, 4), (4, 4), (4, 4), (4, 4)]
            x = inputs
            for i, (nf, ks) in enumerate(zip(num_fil, kern_sz)):
                x = L.Conv2D(nf, kernel_size=ks, padding="same")(x)
                x = L.MaxPooling2D(2)(x)
            return tf.keras.Model(inputs, L.Dense(35)(L.Flatten()(x)))

        model = attention_model(L.Input(shape=(128, 128, 1)), "conv01")
        model.compile("adam", "sparse_categorical_crossentropy")
        model.fit(spectrograms, labels, batch_size=16, epochs=30)
        """
    (narrow,) = _findings({"train.py": script.format(first=10)}, "TFC001", show_all=True)
    assert narrow.confidence is Confidence.POSSIBLE
    assert "makes 0 convolution" in _evidence(narrow)
    (wide,) = _findings({"train.py": script.format(first=256)}, "TFC001", show_all=True)
    assert "makes 0 convolution" not in _evidence(wide)


@pytest.mark.parametrize("after_update, confidence", [
    ("ema(model, ema_model, 0.999)", Confidence.LIKELY),  # one eager op per weight every step
    ("ema_decay.assign(0.999)", Confidence.POSSIBLE),  # one variable set once a step: no per-weight loop
    ("if time_to_update(optimizer.iterations):\n                    ema(model, ema_model, 0.999)",
     Confidence.POSSIBLE),  # not every step
])
def test_a_step_of_compiled_models_that_updates_each_weight_in_a_python_loop_stays_likely(after_update,
                                                                                          confidence):
    """MixMatch's eager `train`: the WideResNet's `call` is compiled, but after each update `ema(model, ema_model)`
    assigns every weight's moving average in a Python loop: hundreds of eager ops a step, which compiling the step
    turns into one graph. A single variable set once a step is not that, nor a copy a test runs on some steps only
    (a DQN's target network)."""
    (finding,) = _findings({"train.py": f"""
        import tensorflow as tf

        class WideResNet(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.dense = tf.keras.layers.Dense(10)

            @tf.function
            def call(self, inputs):
                return self.dense(inputs)

        def ema(model, ema_model, decay):
            for var, ema_var in zip(model.variables, ema_model.variables):
                ema_var.assign((1 - decay) * var + decay * ema_var)

        def train(dataset, model, ema_model, optimizer, ema_decay):
            for x, y in dataset:
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(model(x) - y))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                {after_update}

        model, ema_model = WideResNet(), WideResNet()
        for epoch in range(100):
            train(tf.data.Dataset.range(10), model, ema_model, tf.keras.optimizers.Adam(), tf.Variable(0.9))
        """}, "TFH002", show_all=True)
    assert finding.confidence is confidence
    assert ("updates each weight in a Python loop (`ema_var.assign`" in _evidence(finding)) is (
        confidence is Confidence.LIKELY)


def test_a_step_given_a_model_whose_call_is_compiled_dispatches_little_eagerly():
    """A TF-Hub export sample's `train_step(model, loss_fn, optimizer, image, label)` is not compiled, but the
    `MNIST` model `main` builds and passes it has `@tf.function def call`: the forward pass (and its gradient) run
    as a graph, only the loss and the update are dispatched eagerly, so compiling the step is only possible."""
    script = """
        import tensorflow as tf

        class MNIST(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.dense = tf.keras.layers.Dense(10)

            {decorator}
            def call(self, inputs):
                return self.dense(tf.keras.layers.Flatten()(inputs))

        def train_step(model, loss_fn, optimizer, image, label):
            with tf.GradientTape() as tape:
                loss = loss_fn(tf.one_hot(label, 10), model(image))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))

        def main():
            model = MNIST()
            optimizer = tf.keras.optimizers.Adam()
            loss_fn = tf.keras.losses.CategoricalCrossentropy()
            for image, label in dataset:
                train_step(model, loss_fn, optimizer, image, label)

        main()
        """
    (finding,) = _findings({"export.py": script.format(decorator="@tf.function")}, "TFH002", show_all=True)
    assert finding.confidence is Confidence.POSSIBLE
    assert "the models it runs are compiled already (`MNIST.call`" in _evidence(finding)
    (finding,) = _findings({"export.py": script.format(decorator="")}, "TFH002", show_all=True)
    assert finding.confidence is Confidence.LIKELY


def test_an_input_shape_given_to_a_layer_of_a_subclassed_model_declares_nothing():
    """A ResNet-34 subclass writes `Conv2D(64, 7, strides=2, input_shape=[224, 224, 3])` in its `__init__`, a
    leftover of the Sequential it was ported from: a subclassed model takes the shape of what it is called on, here
    `tfds.load("mnist")`'s 28-pixel digits, where no stack of layers keeps 16-bit units busy. A Sequential's first
    layer does declare its input."""
    layers = """[tf.keras.layers.Conv2D(64, 7, strides=2, input_shape=[224, 224, 3], padding="same")] + [
                tf.keras.layers.Conv2D(f, 3, padding="same") for f in [64] * 3 + [128] * 4 + [256] * 6 + [512] * 3]"""
    subclassed = """
        import tensorflow as tf
        import tensorflow_datasets as tfds

        class ResNet(tf.keras.Model):
            def __init__(self, num_classes):
                super().__init__()
                self.stack = LAYERS
                self.classifier = tf.keras.layers.Dense(num_classes)

            def call(self, inputs):
                x = inputs
                for layer in self.stack:
                    x = layer(x)
                return self.classifier(tf.reduce_mean(x, [1, 2]))

        model = ResNet(10)
        model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
        model.fit(tfds.load("mnist", split="train", as_supervised=True).batch(32), epochs=1)
        """.replace("LAYERS", layers)
    (finding,) = _findings({"train.py": subclassed}, "TFC001", show_all=True)
    assert finding.confidence is Confidence.POSSIBLE
    assert "on 28-pixel images" in _evidence(finding)
    sequential = """
        import tensorflow as tf
        import tensorflow_datasets as tfds

        model = tf.keras.Sequential(LAYERS)
        model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
        model.fit(tfds.load("imagenette", split="train", as_supervised=True).batch(32), epochs=1)
        """.replace("LAYERS", layers)
    (finding,) = _findings({"train.py": sequential}, "TFC001", show_all=True)
    assert "on 224-pixel images" in _evidence(finding)


def test_the_tutorials_pix2pix_networks_are_known_architectures():
    """CycleGAN's tutorial trains `tensorflow_examples`' U-Net generators and PatchGAN discriminators at 256 pixels:
    whole networks, built by a library whose code is not in the repo."""
    findings = _findings({"cyclegan.py": """
        import tensorflow as tf
        from tensorflow_examples.models.pix2pix import pix2pix

        generator = pix2pix.unet_generator(3, norm_type="instancenorm")
        discriminator = pix2pix.discriminator(norm_type="instancenorm", target=False)
        g_optimizer, d_optimizer = tf.keras.optimizers.Adam(2e-4), tf.keras.optimizers.Adam(2e-4)

        @tf.function
        def train_step(real_x, real_y):
            with tf.GradientTape(persistent=True) as tape:
                fake_y = generator(real_x, training=True)
                g_loss = loss_fn(discriminator(fake_y, training=True))
                d_loss = loss_fn(discriminator(real_y, training=True)) - g_loss
            g_optimizer.apply_gradients(zip(tape.gradient(g_loss, generator.trainable_variables),
                                            generator.trainable_variables))
            d_optimizer.apply_gradients(zip(tape.gradient(d_loss, discriminator.trainable_variables),
                                            discriminator.trainable_variables))

        for x, y in tf.data.Dataset.zip((horses, zebras)):
            train_step(x, y)
        """}, "TFC001")
    assert [(f.location.line, f.confidence) for f in findings] == [(4, Confidence.LIKELY), (5, Confidence.LIKELY)]


def test_models_a_trainer_is_given_are_those_its_step_trains():
    """TensorFlow's NMT example hands its encoder and decoder to a `Train` object (`self.encoder = encoder`) whose
    step calls `self.encoder(...)`: the models the step trains are those the code making the trainer passes."""
    findings = _findings({"train.py": """
        import tensorflow as tf

        class Encoder(tf.keras.Model):
            def __init__(self, units):
                super().__init__()
                self.embedding = tf.keras.layers.Embedding(8000, 256)
                self.gru = tf.keras.layers.GRU(units, return_sequences=True, return_state=True)

            def call(self, x):
                return self.gru(self.embedding(x))

        class Train:
            def __init__(self, encoder):
                self.encoder = encoder
                self.optimizer = tf.keras.optimizers.Adam()

            @tf.function
            def train_step(self, x, y):
                with tf.GradientTape() as tape:
                    output, state = self.encoder(x)
                    loss = tf.reduce_mean(tf.square(state - y))
                variables = self.encoder.trainable_variables
                self.optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))

        def main(units=1024):
            trainer = Train(Encoder(units))
            for x, y in dataset:
                trainer.train_step(x, y)

        main()
        probe = tf.keras.Sequential([tf.keras.layers.Dense(2)])
        probe.fit(features, labels)
        """}, "TFC001", show_all=True)
    assert [(f.location.line, f.confidence) for f in findings] == [(26, Confidence.LIKELY), (31, Confidence.POSSIBLE)]


def test_in_the_librarys_own_repo_its_network_builder_is_followed():
    """`tensorflow_examples` itself defines `unet_generator`: there it is repo code, and the finding is where the
    builder makes the model, as for any builder."""
    findings = _findings({"tensorflow_examples/models/pix2pix/pix2pix.py": """
        import tensorflow as tf

        def unet_generator(channels):
            inputs = tf.keras.layers.Input(shape=[256, 256, 3])
            x = inputs
            for filters in [64, 128, 256, 512, 512, 512, 512, 512]:
                x = tf.keras.layers.Conv2D(filters, 4, strides=2, padding="same")(x)
            return tf.keras.Model(inputs=inputs, outputs=x)
        """, "train.py": """
        import tensorflow as tf
        from tensorflow_examples.models.pix2pix import pix2pix

        generator = pix2pix.unet_generator(3)
        generator.compile(optimizer="adam", loss="mae")
        generator.fit(dataset, epochs=200)
        """}, "TFC001")
    assert [(f.location.path.as_posix(), f.location.line) for f in findings] == [
        ("tensorflow_examples/models/pix2pix/pix2pix.py", 8)]


@pytest.mark.parametrize("update, reported", [
    ("agent.soft_update()", True),  # every environment step
    ("if done:\n            agent.soft_update()", False),  # when an episode ends
    ("if step % 100 == 0:\n            agent.soft_update()", False),
])
def test_a_target_network_updated_through_numpy_every_step_is_a_host_round_trip(update, reported):
    """DDPG agents (germain-hug's, marload's) blend the target network's weights in NumPy after every environment
    step: `get_weights()` waits for the step and copies every weight out, `set_weights()` copies them back."""
    code = textwrap.dedent("""
        import gym
        import numpy as np
        import tensorflow as tf

        class Agent:
            def __init__(self):
                self.model = tf.keras.Sequential([tf.keras.layers.Dense(400), tf.keras.layers.Dense(1)])
                self.target = tf.keras.models.clone_model(self.model)
                self.optimizer = tf.keras.optimizers.Adam()

            def train(self, states, targets):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(self.model(states) - targets))
                grads = tape.gradient(loss, self.model.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))

            def soft_update(self):
                weights, target = self.model.get_weights(), self.target.get_weights()
                self.target.set_weights([0.01 * w + 0.99 * t for w, t in zip(weights, target)])

        env, agent = gym.make("Pendulum-v1"), Agent()
        state = env.reset()
        for step in range(100000):
            state, reward, done, _ = env.step(env.action_space.sample())
            agent.train(np.array([state]), np.array([[reward]]))
            UPDATE
        """).replace("UPDATE", update)
    findings = [f for f in _findings({"ddpg.py": code}, "TFH004", show_all=True) if "copies weights" in f.message]
    assert [(f.location.line, f.confidence) for f in findings] == ([(18, Confidence.LIKELY)] if reported else [])


def test_a_generator_class_made_in_the_from_generator_call_is_read_for_its_work():
    """The video tutorial hands `from_generator` a `FrameGenerator(paths, 10)` whose `__call__` decodes each clip
    with OpenCV: that Python work makes the finding likely, as for a generator function."""
    findings = _findings({"video.py": """
        import cv2
        import numpy as np
        import tensorflow as tf

        class FrameGenerator:
            def __init__(self, paths, n_frames):
                self.paths, self.n_frames = paths, n_frames

            def __call__(self):
                for path in self.paths:
                    capture = cv2.VideoCapture(str(path))
                    frames = [capture.read()[1] for _ in range(self.n_frames)]
                    yield np.array(frames), 0

        train_ds = tf.data.Dataset.from_generator(FrameGenerator(paths, 10), output_signature=signature).batch(8)
        model.fit(train_ds, epochs=50)
        """}, "TFD004")
    assert [(f.location.line, f.confidence) for f in findings] == [(15, Confidence.LIKELY)]


@pytest.mark.parametrize("iterate, expected", [
    ("return iter(self.ds)", [("TFD004", 11)]),  # the generator, not the class, makes the batches
    ("for path in self.paths:\n                    yield cv2.imread(path), 0", [("TFD004", 27)]),
])
def test_an_iterator_class_over_a_pipeline_whose_generator_a_constructor_argument_names(iterate: str, expected):
    """MASTER-TF: `LmdbDataset(lmdb_generator=data.read_records, ...)` hands the generator to `from_generator` in
    its constructor, and its `__iter__` returns an iterator over the finished pipeline. The generator's per-element
    work is read through the argument; the class itself makes no batch in Python."""
    findings = _findings({"train.py": f"""
        import cv2
        import tensorflow as tf

        def read_records(path):
            for name in open(path):
                yield cv2.imread(name.strip()), 0

        class LmdbDataset:
            def __init__(self, lmdb_generator, path):
                self.paths = [path]
                self.ds = tf.data.Dataset.from_generator(lmdb_generator, output_types=(tf.uint8, tf.int32),
                                                         args=(path,)).batch(32).prefetch(tf.data.AUTOTUNE)

            def __iter__(self):
                {iterate}

        model = tf.keras.applications.ResNet50(weights=None)
        optimizer = tf.keras.optimizers.Adam()

        @tf.function
        def train_step(images, labels):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(labels, model(images)))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))

        for images, labels in LmdbDataset(lmdb_generator=read_records, path="train.txt"):
            train_step(images, labels)
        """}, "TFD004")
    assert [(f.code, f.location.line, f.confidence) for f in findings] == [
        (code, line, Confidence.LIKELY) for code, line in expected]


def test_a_network_only_a_flag_off_by_default_builds_is_not_counted():
    """PATE's teachers build `inference_deeper` only under `--deeper` (off by default): the graph a run with the
    defaults trains is the small CNN, too small to gain on 28-pixel images."""
    findings = _findings({"deep_cnn.py": """
        import tensorflow as tf

        tf.flags.DEFINE_boolean("deeper", False, "Activate deeper CNN model")
        FLAGS = tf.flags.FLAGS

        def inference(images):
            x = tf.layers.conv2d(images, 64, 5)
            return tf.layers.dense(tf.layers.flatten(tf.layers.conv2d(x, 128, 5)), 10)

        def inference_deeper(images):
            x = images
            for filters in [96, 96, 96, 192, 192, 192, 192, 192]:
                x = tf.layers.conv2d(x, filters, 3)
            return tf.layers.dense(tf.layers.flatten(x), 10)

        def train(images, labels):
            if FLAGS.deeper:
                logits = inference_deeper(images)
            else:
                logits = inference(images)
            loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
            train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
            with tf.Session() as sess:
                for _ in range(10000):
                    sess.run(train_op)

        train(tf.placeholder(tf.float32, [None, 28, 28, 1]), tf.placeholder(tf.int64, [None]))
        """}, "TFC001", show_all=True)
    assert [f.confidence for f in findings] == [Confidence.POSSIBLE]
    assert "2 convolution and 0 dense layers" in _evidence(findings[0])


def test_a_map_of_a_method_of_a_repo_object_is_read_for_what_it_does():
    """The CORD-19 tutorial maps `THE_DATASET.example_fn` (THE_DATASET = Dataset(...)), which only regroups
    fields: nothing worth parallel calls, even with `num_parallel_calls=1` written out."""
    findings = _findings({"embeddings.py": """
        import tensorflow as tf

        class Dataset:
            def example_fn(self, data):
                return {"feature": data["abstract"], "label": data["label"]}, data["label"]

        THE_DATASET = Dataset()

        def input_fn_train(params):
            data = tf.data.TFRecordDataset(files).map(THE_DATASET.example_fn, num_parallel_calls=1)
            return data.repeat().shuffle(1024).batch(params["batch_size"])

        estimator.train(input_fn=input_fn_train, steps=1000)
        """}, "TFD002", show_all=True)
    assert findings == []


@pytest.mark.parametrize("regroup", [
    """x, y = {}, {}
            for name, tensor in record.items():
                if name in ("start_positions", "end_positions"):
                    y[name] = tensor
                else:
                    x[name] = tensor
            return x, y""",
    "return tf.SparseTensor(record[0], record[1], record[2]), record[3]",
], ids=["dict-split", "sparse-wrap"])
def test_a_map_that_walks_or_wraps_the_fields_it_is_given_does_no_work(regroup):
    """BERT's SQuAD pipeline splits each record's dict into features and labels with a loop over `.items()`; a
    knowledge-graph notebook wraps a generator's (indices, values, shape) into a `tf.SparseTensor`: structure, not
    per-element work worth parallel calls."""
    findings = _findings({"squad.py": f"""
        import tensorflow as tf

        def select(record):
            {regroup}

        ds = tf.data.TFRecordDataset(files).map(select).batch(32).prefetch(8)
        model.fit(ds, epochs=2)
        """}, "TFD002", show_all=True)
    assert findings == []


@pytest.mark.parametrize("mode, confidence", [("'train'", Confidence.LIKELY), ("'eval'", Confidence.POSSIBLE)])
def test_a_branch_on_a_mode_the_map_passes_decides_what_it_runs(mode, confidence):
    """rasbt's CelebA `preprocess(x, mode='eval')` skips the random crop and flip of `if mode == 'train':`: the
    test pipeline's map is stateless (TensorFlow parallelizes it at run time), the training one's is not."""
    findings = _findings({"celeba.py": f"""
        import tensorflow as tf

        def preprocess(example, size=(64, 64), mode="train"):
            image = example["image"]
            if mode == "train":
                image = tf.image.random_flip_left_right(tf.image.random_crop(image, size=(178, 178, 3)))
            else:
                image = tf.image.crop_to_bounding_box(image, 20, 0, 178, 178)
            return tf.image.resize(image, size) / 255.0, example["label"]

        ds = tf.data.TFRecordDataset(files).map(lambda x: preprocess(x, mode={mode})).batch(32)
        model.fit(ds, epochs=20)
        """}, "TFD002")
    assert [(f.location.line, f.confidence) for f in findings] == [(11, confidence)]


def test_a_model_a_checkpoint_holds_is_followed_to_what_the_subclass_passes():
    """krasserm's EDSR trainer keeps its model in `tf.train.Checkpoint(model=model)` and its step calls
    `self.checkpoint.model(lr)`; `EdsrTrainer` hands the model on with `super().__init__(model, ...)`. The model the
    step trains is the EDSR the script passes, a heavy float32 conv net."""
    findings = _findings({"edsr.py": """
        import tensorflow as tf
        from tensorflow.keras.layers import Conv2D, Input

        def edsr(num_res_blocks=16):
            x_in = Input(shape=(None, None, 3))
            x = Conv2D(64, 3, padding="same")(x_in)
            for _ in range(num_res_blocks):
                x = Conv2D(64, 3, padding="same", activation="relu")(x)
                x = Conv2D(64, 3, padding="same")(x)
            return tf.keras.Model(x_in, Conv2D(3, 3, padding="same")(x))
        """, "train.py": """
        import tensorflow as tf

        class Trainer:
            def __init__(self, model, learning_rate):
                self.checkpoint = tf.train.Checkpoint(step=tf.Variable(0), model=model,
                                                      optimizer=tf.keras.optimizers.Adam(learning_rate))

            @tf.function
            def train_step(self, lr, hr):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.abs(hr - self.checkpoint.model(lr, training=True)))
                variables = self.checkpoint.model.trainable_variables
                self.checkpoint.optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))

        class EdsrTrainer(Trainer):
            def __init__(self, model):
                super().__init__(model, learning_rate=1e-4)

        if __name__ == "__main__":
            from edsr import edsr

            trainer = EdsrTrainer(model=edsr(num_res_blocks=16))
            for lr, hr in dataset:
                trainer.train_step(lr, hr)
        """}, "TFC001")
    assert [(f.location.path.as_posix(), f.location.line, f.confidence) for f in findings] == [
        ("edsr.py", 10, Confidence.LIKELY)]


def test_a_function_of_a_repo_module_named_like_a_dataset_method_is_no_stage():
    """MixMatch's `layers.interleave(logits, batch)` (its own libml/layers.py) swaps slices of a list of tensors so
    batch norm sees mixed batches: no dataset, no prefetch, and a `num_parallel_calls` fix would be a TypeError."""
    findings = _findings({"libml/layers.py": """
        import tensorflow as tf

        def interleave(xy, batch):
            return [tf.concat(v, axis=0) for v in xy]
        """, "mixmatch.py": """
        import tensorflow as tf
        import utils as helpers
        from libml import layers

        def model(x, y, batch, classifier):
            batches = layers.interleave([x] + y, batch)
            logits = layers.interleave([classifier(b) for b in batches], batch)
            shuffled = helpers.shuffle(logits, buffer_size=100)
            loss = tf.reduce_mean(shuffled[0])
            train_op = tf.train.AdamOptimizer().minimize(loss)
            with tf.Session() as sess:
                for _ in range(1000):
                    sess.run(train_op)
        """}, "TFD001", "TFD002", show_all=True)
    assert findings == []


def test_mixed_precision_behind_a_flag_off_by_default_is_the_change_to_make():
    """DeepSpeech turns the graph rewrite on only under `--automatic_mixed_precision`, False by default (defined in
    a function through `f = absl.flags`, read through `from util.flags import FLAGS`): a run with the defaults
    computes in float32, and the finding says which flag turns 16 bits on."""
    findings = _findings({"util/flags.py": """
        import absl.flags

        FLAGS = absl.flags.FLAGS

        def create_flags():
            f = absl.flags
            f.DEFINE_boolean("automatic_mixed_precision", False, "whether to allow automatic mixed precision")
        """, "train.py": """
        import tensorflow as tf
        from util.flags import FLAGS, create_flags

        def train(images, labels):
            x = images
            for filters in (64, 128, 256, 512):
                x = tf.layers.conv2d(x, filters, 3, activation=tf.nn.relu)
            loss = tf.losses.sparse_softmax_cross_entropy(labels, tf.layers.dense(tf.layers.flatten(x), 10))
            optimizer = tf.train.AdamOptimizer(1e-4)
            if FLAGS.automatic_mixed_precision:
                optimizer = tf.train.experimental.enable_mixed_precision_graph_rewrite(optimizer)
            train_op = optimizer.minimize(loss)
            with tf.Session() as sess:
                for _ in range(100000):
                    sess.run(train_op)

        if __name__ == "__main__":
            create_flags()
            train(tf.placeholder(tf.float32, [None, 224, 224, 3]), tf.placeholder(tf.int64, [None]))
        """}, "TFC001")
    assert [(f.location.path.as_posix(), f.location.line, f.confidence) for f in findings] == [
        ("train.py", 12, Confidence.LIKELY)]
    assert "under `FLAGS.automatic_mixed_precision` (train.py:10:8), which is False with the defaults" in \
        findings[0].evidence[0].message


def test_the_nvidia_only_mixed_precision_environment_variable_turns_nothing_on():
    # Stock TensorFlow ignores TF_ENABLE_AUTO_MIXED_PRECISION (only NVIDIA's builds read it): this YOLO trains in
    # float32.
    findings = _findings({"train.py": """
        import os
        from tensorflow import keras
        from tensorflow.keras import layers

        os.environ["TF_ENABLE_AUTO_MIXED_PRECISION"] = "1"

        inputs = keras.Input((416, 416, 3))
        x = inputs
        for filters in (64, 128, 256, 512, 1024):
            x = layers.Conv2D(filters, 3, padding="same", activation="relu")(x)
            x = layers.MaxPooling2D()(x)
        model = keras.Model(inputs, layers.Conv2D(255, 1)(x))
        model.compile(optimizer="adam", loss="mse")
        model.fit(images, targets, batch_size=16, epochs=250)
        """}, "TFC001")
    assert [(f.location.line, f.confidence) for f in findings] == [(12, Confidence.LIKELY)]


def test_a_definition_made_again_later_in_a_notebook_is_not_the_one_trained():
    """The ResNet chapter's notebook trains a functional `ResNet50()` (cells 45-63), then redefines `ResNet` and
    `ResNet50` as Sequential subclasses and only summarizes them: the model trained is the first, and the later
    class is no model of the training (it was reported as one, likely)."""
    findings = _findings({"resnet.py": """
        import tensorflow as tf
        from tensorflow.keras.layers import Conv2D, Dense, GlobalAveragePooling2D, Input

        def ResNet(input_shape, num_classes, repetitions):
            inputs = Input(shape=input_shape)
            x = inputs
            for filters in (64, 128, 256, 512):
                x = Conv2D(filters, 3, padding="same")(x)
            return tf.keras.Model(inputs, Dense(num_classes)(GlobalAveragePooling2D()(x)))

        def ResNet50(input_shape, num_classes):
            return ResNet(input_shape, num_classes, repetitions=(3, 4, 6, 3))

        resnet50 = ResNet50((224, 224, 3), 100)
        resnet50.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
        resnet50.fit(train_dataset, epochs=300)

        class ResNet(tf.keras.Sequential):
            def __init__(self, input_shape, num_classes, repetitions):
                super().__init__([Input(shape=input_shape)] + [Conv2D(512, 3) for _ in range(sum(repetitions))]
                                 + [GlobalAveragePooling2D(), Dense(num_classes)])

        class ResNet50(ResNet):
            def __init__(self, input_shape, num_classes):
                super().__init__(input_shape, num_classes, repetitions=(3, 4, 6, 3))

        ResNet50((224, 224, 3), 100).summary()
        """}, "TFC001", show_all=True)
    assert [(f.location.line, f.confidence) for f in findings] == [(9, Confidence.LIKELY)]


def test_a_map_that_merges_zipped_feature_dicts_only_restructures():
    """UDA zips its supervised and augmented datasets, then maps `flatten_input`, which copies the keys of each
    feature dict into one (asserting none repeats): Python on the structure, no op per element."""
    findings = _findings({"data.py": """
        import tensorflow as tf

        def get_input_fn(sup_files, unsup_files, batch_size):
            def input_fn(params):
                datasets = [tf.data.TFRecordDataset(files).map(parse, num_parallel_calls=8).batch(batch_size)
                            for files in (sup_files, unsup_files)]

                def flatten_input(*features):
                    result = {}
                    for feature in features:
                        for key in feature:
                            assert key not in result
                            result[key] = feature[key]
                    return result

                return tf.data.Dataset.zip(tuple(datasets)).map(flatten_input).prefetch(1)
            return input_fn

        estimator.train(input_fn=get_input_fn(sup, unsup, 32), max_steps=100000)
        """}, "TFD002", show_all=True)
    assert [f.location.line for f in findings] == []


def test_a_tpu_strategy_made_in_a_later_section_is_not_where_earlier_models_train():
    """The AMLD Keras notebook trains its models on the GPU runtime first and makes a TPUStrategy only in its last,
    optional section: the earlier `compile` calls run on no TPU (no TFH005, no bfloat16 policy), the later one does."""
    findings = _findings({"keras.py": """
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Conv2D(64, 3), tf.keras.layers.Flatten(),
                                     tf.keras.layers.Dense(10)])
        model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
        model.fit(train_ds, epochs=5)

        resolver = tf.distribute.cluster_resolver.TPUClusterResolver()
        strategy = tf.distribute.TPUStrategy(resolver)
        with strategy.scope():
            tpu_model = tf.keras.Sequential([tf.keras.layers.Conv2D(64, 3), tf.keras.layers.Flatten(),
                                             tf.keras.layers.Dense(10)])
            tpu_model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
        tpu_model.fit(train_ds, epochs=5)
        """}, "TFH005")
    assert [f.location.line for f in findings] == [13]


def test_layers_a_comprehension_makes_are_counted_as_often_as_it_runs():
    """The VAE chapter's encoder and decoder make `[Conv2D(32 * 2 ** i, ...) for i in range(layer_depth)]` with
    `layer_depth = 2` passed from the notebook: two layers each, not four, and a 28-pixel VAE is too small to gain
    by default."""
    findings = _findings({"vae.py": """
        import tensorflow as tf
        from tensorflow.keras.layers import Conv2D, Conv2DTranspose, Dense, Flatten, Input, Reshape

        layer_depth = 2

        def encoder(input_shape, latent_dim, filters_orig=32, layer_depth=4):
            return tf.keras.Sequential([Input(shape=input_shape)] + [
                Conv2D(filters_orig * 2 ** i, 3, strides=2, padding="same") for i in range(layer_depth)
            ] + [Flatten(), Dense(latent_dim)])

        def decoder(latent_dim, filters_orig=32, layer_depth=4):
            return tf.keras.Sequential([Input(shape=(latent_dim,)), Dense(7 * 7 * 64), Reshape((7, 7, 64))] + [
                Conv2DTranspose(filters_orig * 2 ** (layer_depth - i - 1), 3, strides=2, padding="same")
                for i in range(layer_depth)
            ] + [Conv2DTranspose(1, 3, padding="same")])

        inputs = Input(shape=(28, 28, 1))
        vae = tf.keras.Model(inputs, decoder(2, 32, layer_depth)(encoder((28, 28, 1), 4, 32, layer_depth)(inputs)))
        vae.compile(optimizer="adam", loss="mse")
        vae.fit(train_images, train_images, epochs=30)
        """}, "TFC001", show_all=True)
    assert [f.confidence for f in findings] == [Confidence.POSSIBLE]


def test_layers_made_in_closures_their_factories_return_are_counted():
    """The ResNet chapter builds its layers in closures (`_res_conv(filters=64, kernel_size=7)(inputs)`, a block
    factory passed down as `block_fn` and called as `block_fn(filters=...)(x)`): the functional ResNet trained at
    224 pixels is a heavy float32 conv net, not "1 convolution"."""
    findings = _findings({"resnet.py": """
        import tensorflow as tf
        from tensorflow.keras.layers import Activation, Conv2D, Dense, GlobalAveragePooling2D, Input, add

        def _res_conv(filters, kernel_size=3, strides=1):
            def layer_fn(x):
                return Activation("relu")(Conv2D(filters, kernel_size, strides=strides, padding="same")(x))
            return layer_fn

        def _residual_block_basic(filters, strides=1):
            def layer_fn(x):
                residual = _res_conv(filters, strides=strides)(x)
                return add([Conv2D(filters, 1, strides=strides)(x), _res_conv(filters)(residual)])
            return layer_fn

        def _residual_macroblock(block_fn, filters, repetitions=3, strides_1st_block=1):
            def layer_fn(x):
                for i in range(repetitions):
                    x = block_fn(filters=filters, strides=strides_1st_block if i == 0 else 1)(x)
                return x
            return layer_fn

        def ResNet(input_shape, num_classes, block_fn=_residual_block_basic, repetitions=(2, 2, 2, 2)):
            inputs = Input(shape=input_shape)
            x = _res_conv(filters=64, kernel_size=7, strides=2)(inputs)
            filters = 64
            for i, repet in enumerate(repetitions):
                x = _residual_macroblock(block_fn, filters, repet, 1 if i == 0 else 2)(x)
                filters *= 2
            return tf.keras.Model(inputs, Dense(num_classes)(GlobalAveragePooling2D()(x)))

        resnet = ResNet((224, 224, 3), 100)
        resnet.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
        resnet.fit(train_dataset, epochs=300)
        """}, "TFC001", show_all=True)
    assert [(f.location.line, f.confidence) for f in findings] == [(29, Confidence.LIKELY)]


def test_a_replay_pipeline_between_environment_rollouts_is_not_what_the_updates_wait_on():
    """The Pong trainer reads its replay memory through a tf.data pipeline (TensorFlow 1.x, no prefetch) once per
    rollout of thousands of frames the host steps in gym: the missing prefetch is real but not what the training
    waits on, so it is possible, not likely."""
    findings = _findings({"task.py": """
        import gym
        import tensorflow as tf

        MEMORY = []

        def gen():
            for observation, action, reward in MEMORY:
                yield observation, action, reward

        dataset = tf.data.Dataset.from_generator(gen, output_types=(tf.float32, tf.int32, tf.float32))
        dataset = dataset.map(lambda o, a, r: (tf.image.resize(o, (80, 80)), a, r)).shuffle(100000).batch(10000)
        observations, actions, rewards = dataset.make_one_shot_iterator().get_next()
        loss = tf.reduce_mean(rewards * tf.layers.dense(tf.layers.flatten(observations), 3)[:, 0])
        train_op = tf.train.RMSPropOptimizer(1e-3).minimize(loss)

        env = gym.make("Pong-v0")
        with tf.Session() as sess:
            for episode in range(10000):
                observation, done = env.reset(), False
                while not done:
                    observation, reward, done, _ = env.step(env.action_space.sample())
                    MEMORY.append((observation, 0, reward))
                sess.run(train_op)
        """}, "TFD001", show_all=True)
    assert [(f.location.line, f.confidence) for f in findings] == [(11, Confidence.POSSIBLE)]
    assert "environment" in findings[0].evidence[-1].message


def test_a_toy_gan_of_two_hundred_iterations_gains_little_from_per_step_fixes():
    """nlintz's GAN runs 200 iterations and re-runs its losses every one to print them: true, but a per-step cost
    over 200 steps adds up to seconds, so possible, as for a 10-step demo."""
    findings = _findings({"gan.py": """
        import numpy as np
        import tensorflow as tf

        X = tf.placeholder(tf.float32, [None, 784])
        hidden = tf.layers.dense(tf.layers.dense(X, 1024, tf.nn.relu), 1024, tf.nn.relu)
        D_obj = tf.reduce_mean(tf.layers.dense(hidden, 1))
        D_opt = tf.train.AdamOptimizer().minimize(D_obj)
        with tf.Session() as sess:
            for i in range(200):
                sess.run(D_opt, feed_dict={X: images[np.random.choice(len(images), 128)]})
                d_cost = sess.run(D_obj, feed_dict={X: images[np.random.choice(len(images), 128)]})
                print(i, d_cost)
        """}, "TFH004", show_all=True)
    assert [(f.location.line, f.confidence) for f in findings] == [(11, Confidence.POSSIBLE)]
    assert "the loop runs 200 steps in all" in findings[0].evidence[-1].message


def test_a_base_init_a_subclass_runs_through_super_is_counted_once():
    """The SNGP tutorial's `DeepResNetSNGP(DeepResNet)` builds its layers in `DeepResNet.__init__`, run through
    `super().__init__(**kwargs)`: counted once (it was twice, 15 dense layers, likely, for a 128-wide MLP on 2-D
    toy data)."""
    findings = _findings({"sngp.py": """
        import tensorflow as tf

        class DeepResNet(tf.keras.Model):
            def __init__(self, num_classes, num_layers=3, num_hidden=128):
                super().__init__()
                self.num_hidden = num_hidden
                self.input_layer = tf.keras.layers.Dense(self.num_hidden, trainable=False)
                self.dense_layers = [self.make_dense_layer() for _ in range(num_layers)]
                self.classifier = tf.keras.layers.Dense(num_classes)

            def call(self, inputs):
                hidden = self.input_layer(inputs)
                for layer in self.dense_layers:
                    hidden += layer(hidden)
                return self.classifier(hidden)

            def make_dense_layer(self):
                return tf.keras.layers.Dense(self.num_hidden, activation="relu")

        class DeepResNetSNGP(DeepResNet):
            def __init__(self, spec_norm_bound=0.9, **kwargs):
                self.spec_norm_bound = spec_norm_bound
                super().__init__(**kwargs)

            def make_dense_layer(self):
                return super().make_dense_layer()

        model = DeepResNetSNGP(num_classes=2, num_layers=6, num_hidden=128)
        model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
        model.fit(train_examples, train_labels, epochs=100)
        """}, "TFC001", show_all=True)
    assert [f.confidence for f in findings] == [Confidence.POSSIBLE]


def test_a_module_name_two_projects_share_is_the_one_of_the_importers_project():
    """tensorflow-without-a-phd holds an MNIST tutorial and a Pong trainer, each with a `trainer/task.py`: the
    tutorial's `from trainer.task import load_dataset` is its own project's module, so the Pong trainer's gym
    environment says nothing about the tutorial's pipeline."""
    files = {"mnist/mlengine/trainer/task.py": """
        import tensorflow as tf

        def load_dataset(image_file):
            return tf.data.FixedLengthRecordDataset(image_file, 784).map(lambda x: tf.io.decode_raw(x, tf.uint8))
        """, "mnist/train.py": """
        import tensorflow as tf
        from trainer.task import load_dataset

        images = load_dataset("train-images").shuffle(60000).batch(100).make_one_shot_iterator().get_next()
        loss = tf.reduce_mean(tf.layers.dense(tf.layers.flatten(tf.cast(images, tf.float32)), 10))
        train_op = tf.train.AdamOptimizer().minimize(loss)
        with tf.Session() as sess:
            for _ in range(10000):
                sess.run(train_op)
        """, "pong/trainer/task.py": """
        import gym
        import tensorflow as tf

        env = gym.make("Pong-v0")
        """}
    findings = _findings(files, "TFD001")
    assert [(f.location.path.as_posix(), f.confidence) for f in findings] == [("mnist/train.py", Confidence.LIKELY)]
    assert not any("environment" in e.message for e in findings[0].evidence)


def test_a_layer_two_star_imports_leave_open_is_no_keras_application():
    """The FCN-8s module star-imports both `keras.layers` and `keras.applications.vgg16`: its `Input(...)` is a
    layer, not an architecture (the DANN notebook's finding said the model "builds `Input`, a known architecture");
    its `VGG16` is one."""
    findings = _findings({"fcn.py": """
        from tensorflow.keras.models import Model
        from tensorflow.keras.layers import *
        from tensorflow.keras.applications.vgg16 import *

        def fcn_8s(image_size, ch_out):
            inputs = Input(shape=(*image_size, 3), name="input")
            vgg16 = VGG16(include_top=False, weights="imagenet", input_tensor=inputs)
            x = Conv2DTranspose(ch_out, 64, strides=32, padding="same")(vgg16.output)
            return Model(inputs, x)
        """, "dann.py": """
        from tensorflow.keras.models import Model
        from tensorflow.keras.layers import Conv2D, Dense, GlobalMaxPool2D
        from fcn import fcn_8s

        segmentation = fcn_8s((224, 224), 19)
        features = segmentation.get_layer("block5_pool").output
        head = Dense(2)(GlobalMaxPool2D()(Conv2D(256, 3, padding="same")(features)))
        combined = Model(segmentation.input, (segmentation.output, head))
        combined.compile(optimizer="adam", loss=["sparse_categorical_crossentropy"] * 2)
        combined.fit(train_dataset, epochs=50)
        """}, "TFC001")
    assert [(f.location.path.as_posix(), f.location.line) for f in findings] == [("dann.py", 8)]
    assert "it builds `VGG16`, a known architecture" in findings[0].evidence[1].message


def test_an_evaluation_input_function_handing_its_dataset_to_an_iterator_helper_feeds_evaluation():
    """The MNIST Estimator tutorial's train and eval input functions both hand their datasets to
    `nodes_for_model`, which makes the iterator: the one `eval_data_input_fn` builds (a single batch of the test
    set) feeds evaluation, not the steps, so its missing prefetch is possible; the training one's stays likely."""
    findings = _findings({"task.py": """
        import tensorflow as tf

        def load_dataset(image_file):
            return tf.data.FixedLengthRecordDataset(image_file, 784).map(lambda x: tf.decode_raw(x, tf.uint8) / 255)

        def nodes_for_model(dataset):
            features = dataset.make_one_shot_iterator().get_next()
            return {"image": features}, None

        def train_data_input_fn(image_file):
            return nodes_for_model(load_dataset(image_file).repeat().shuffle(60000).batch(100))

        def eval_data_input_fn(image_file):
            return nodes_for_model(load_dataset(image_file).batch(10000).repeat(1))

        train_spec = tf.estimator.TrainSpec(lambda: train_data_input_fn("train"), max_steps=10000)
        eval_spec = tf.estimator.EvalSpec(lambda: eval_data_input_fn("test"), steps=1)
        tf.estimator.train_and_evaluate(estimator, train_spec, eval_spec)
        """}, "TFD001", show_all=True)
    assert [(f.location.line, f.confidence) for f in findings] == [(11, Confidence.LIKELY), (14, Confidence.POSSIBLE)]
    assert findings[1].evidence[-1].message == "it feeds evaluation: not the input every training step waits for"


def test_optimizers_made_through_a_local_name_for_the_class_are_tensorflow_updates():
    """BEGAN's trainer picks `optimizer = tf.train.AdamOptimizer` and makes both with `g_optimizer, d_optimizer =
    optimizer(self.g_lr), optimizer(self.d_lr)` (its star import of `models` notwithstanding): their `minimize`
    calls are the graph's training, which a heavy 64-pixel GAN makes worth mixed precision."""
    findings = _findings({"models.py": """
        import tensorflow as tf

        def GeneratorCNN(z, hidden_num):
            x = tf.reshape(tf.layers.dense(z, 8 * 8 * hidden_num), [-1, 8, 8, hidden_num])
            for _ in range(4):
                x = tf.layers.conv2d(x, hidden_num, 3, padding="same")
                x = tf.layers.conv2d(tf.image.resize_nearest_neighbor(x, (64, 64)), hidden_num, 3, padding="same")
            return tf.layers.conv2d(x, 3, 3, padding="same")
        """, "trainer.py": """
        import tensorflow as tf
        from models import *

        class Trainer(object):
            def __init__(self, z):
                optimizer = tf.train.AdamOptimizer
                g_optimizer, d_optimizer = optimizer(1e-4), optimizer(1e-4)
                self.g_loss = tf.reduce_mean(GeneratorCNN(z, 128))
                self.g_optim = g_optimizer.minimize(self.g_loss)

            def train(self):
                with tf.Session() as sess:
                    for step in range(500000):
                        sess.run(self.g_optim)

        Trainer(tf.random_uniform([16, 64])).train()
        """}, "TFC001")
    assert [(f.location.path.as_posix(), f.location.line) for f in findings] == [("trainer.py", 9)]


def test_gradients_a_hand_written_optimizer_applies_are_the_graphs_training():
    """PixelCNN++ and Glow take `tf.gradients(loss, params)` and apply them with an optimizer of their own (each
    parameter's `assign`, grouped by `tf.group`): that update is what the session trains, and the heavy raw-op
    network behind the loss is what mixed precision would speed up."""
    findings = _findings({"optim.py": """
        import tensorflow as tf

        def adam_updates(params, grads, lr=0.001):
            updates = []
            for p, g in zip(params, grads):
                v = tf.Variable(tf.zeros(p.get_shape()))
                v_t = 0.9 * v + 0.1 * g
                updates.append(v.assign(v_t))
                updates.append(p.assign(p - lr * v_t))
            return tf.group(*updates)
        """, "train.py": """
        import tensorflow as tf
        import optim

        x = tf.placeholder(tf.float32, [16, 64, 64, 3])
        h = x
        for _ in range(8):
            h = tf.layers.conv2d(h, 256, 3, padding="same", activation=tf.nn.relu)
        loss = tf.reduce_mean(tf.square(tf.layers.conv2d(h, 3, 3, padding="same") - x))
        params = tf.trainable_variables()
        grads = tf.gradients(loss, params)
        train_op = optim.adam_updates(params, grads, lr=1e-3)
        with tf.Session() as sess:
            for _ in range(100000):
                sess.run(train_op, {x: next_batch()})
        """}, "TFC001")
    assert [(f.location.path.as_posix(), f.location.line, f.confidence) for f in findings] == [
        ("train.py", 10, Confidence.LIKELY)]


def test_run_eagerly_set_by_a_module_constant_is_an_eager_step():
    """The secret sharer notebook compiles with `run_eagerly=ENABLE_EAGER` and sets `ENABLE_EAGER = True` a cell
    above: its LSTM(1024) trains eagerly, as with a literal `True`."""
    findings = _findings({"secret_sharer.py": """
        import tensorflow as tf

        ENABLE_EAGER = True

        def train_model(train_data):
            model = tf.keras.Sequential([tf.keras.layers.Embedding(256, 128), tf.keras.layers.LSTM(1024),
                                         tf.keras.layers.Dense(256)])
            model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", run_eagerly=ENABLE_EAGER)
            model.fit(train_data, epochs=50)

        train_model(dataset)
        """}, "TFH002")
    assert [f.location.line for f in findings] == [8]


@pytest.mark.parametrize("dynamic, expected", [("True", [(5, Confidence.LIKELY)]), ("False", [])])
def test_a_dynamic_layer_makes_keras_train_its_model_eagerly(dynamic, expected):
    """A conditional neural process's encoder is a layer made `dynamic=True`: Keras runs every step of the model
    that holds it eagerly, as `run_eagerly=True` would."""
    findings = _findings({"model.py": f"""
        import tensorflow as tf

        class Encoder(tf.keras.layers.Layer):
            def __init__(self, dims, name="encoder"):
                super(Encoder, self).__init__(name=name, dynamic={dynamic})
                self.dense = [tf.keras.layers.Dense(d) for d in dims]

            def call(self, x):
                for layer in self.dense:
                    x = layer(x)
                return tf.reduce_mean(x, axis=1)
        """, "train.py": """
        import tensorflow as tf
        from model import Encoder

        model = tf.keras.Sequential([Encoder([500, 500]), tf.keras.layers.Dense(2)])
        model.compile(loss="mse", optimizer="adam")
        model.fit(train_ds, epochs=100)
        """}, "TFH002")
    assert [(f.location.path.as_posix(), f.location.line, f.confidence) for f in findings] == [
        ("model.py", *found) for found in expected]
    if expected:
        assert "`dynamic=True` marks `Encoder` as a layer that runs only eagerly" in findings[0].message


def test_a_known_architecture_on_small_images_may_be_too_small_to_gain():
    """A MobileNet built on 48-pixel faces, the side written through module constants (`INPUT_SHAPE = IMAGE_SIZE +
    (1,)`), does a twentieth of its 224-pixel work: possible, the side in the evidence. At 160 pixels it is heavy."""
    script = """
    import tensorflow as tf
    from tensorflow.keras.applications.mobilenet import MobileNet

    IMAGE_SIZE = (SIDE, SIDE)
    INPUT_SHAPE = IMAGE_SIZE + (1,)
    model = MobileNet(input_tensor=tf.keras.layers.Input(shape=INPUT_SHAPE), include_top=False, weights=None)
    model.compile(optimizer="adam", loss="mse")
    model.fit(x, y, batch_size=32, epochs=50)
    """
    small, = _findings({"train.py": script.replace("SIDE", "48")}, "TFC001")
    assert small.confidence is Confidence.POSSIBLE
    assert "on 48-pixel images" in _evidence(small)
    large, = _findings({"train.py": script.replace("SIDE", "160")}, "TFC001")
    assert large.confidence is Confidence.LIKELY
    # A VGG19 does thirty times a MobileNet's work an image: on 32-pixel CIFAR images still heavy.
    vgg = script.replace("SIDE", "32").replace("mobilenet import MobileNet", "vgg19 import VGG19").replace(
        "MobileNet(", "VGG19(")
    heavy, = _findings({"train.py": vgg}, "TFC001")
    assert heavy.confidence is Confidence.LIKELY


def test_a_tensorflow_1_pipeline_drained_into_memory_at_startup_is_no_training_input():
    """An iterator a session drains into NumPy arrays once (`while True: feats = sess.run(features); self.images =
    np.concatenate(...)`), training later fed slices of them: not the input a step waits for. The same iterator read
    by a loop that runs a step is."""
    loader = """
    import numpy as np
    import tensorflow as tf

    class InMemory(object):
        def __init__(self, files):
            dataset = tf.data.TFRecordDataset(files).map(tf.io.decode_raw).batch(10000)
            features = dataset.make_one_shot_iterator().get_next()
            with tf.Session() as sess:
                while True:
                    try:
                        batch = sess.run(features)
                        self.images = batch if self.images is None else np.concatenate([self.images, batch])
                    except tf.errors.OutOfRangeError:
                        break
    """
    train = """
    import tensorflow as tf
    from data import InMemory

    data = InMemory(["train.tfrecord"])
    x = tf.placeholder(tf.float32, [None, 784])
    loss = tf.reduce_mean(tf.layers.dense(x, 10))
    train_op = tf.train.AdamOptimizer().minimize(loss)
    with tf.Session() as sess:
        for step in range(10000):
            sess.run(train_op, feed_dict={x: data.images[step % 6 * 10000:][:100]})
    """
    assert not _findings({"data.py": loader, "train.py": train}, "TFD001")
    trained = loader.replace("self.images = batch if self.images is None else np.concatenate([self.images, batch])",
                             "sess.run(train_op, feed_dict={x: batch})")
    assert _where(_findings({"data.py": trained, "train.py": train}, "TFD001")) == [("TFD001", "data.py", 6)]


def test_a_search_for_a_latent_vector_through_a_trained_generator_trains_no_model():
    """BEGAN's test-time interpolation: an optimizer updates only `z_r`, a variable the code makes by hand and feeds
    the generator as its input; the generator's own training is the finding."""
    script = """
    import tensorflow as tf

    def generator(z, reuse=False):
        with tf.variable_scope("G", reuse=reuse):
            x = tf.layers.dense(z, 8 * 8 * 512)
            x = tf.reshape(x, [-1, 8, 8, 512])
            for filters in (512, 256, 128, 64):
                x = tf.layers.conv2d_transpose(x, filters, 5, strides=2, padding="same")
            return tf.layers.conv2d(x, 3, 3, padding="same")

    class Trainer(object):
        def build_model(self):
            self.z = tf.random_uniform([64, 128])
            self.x = tf.placeholder(tf.float32, [64, 128, 128, 3])
            self.g_loss = tf.reduce_mean(tf.abs(self.x - generator(self.z)))
            self.g_optim = tf.train.AdamOptimizer(1e-4).minimize(self.g_loss)

        def build_search(self):
            self.z_r = tf.get_variable("z_r", [64, 128], tf.float32)
            loss = tf.reduce_mean(tf.abs(self.x - generator(self.z_r, reuse=True)))
            self.z_r_optim = tf.train.AdamOptimizer(1e-4).minimize(loss, var_list=[self.z_r])

        def train(self, sess, images):
            for step in range(100000):
                sess.run(self.g_optim, feed_dict={self.x: images[step % 100]})

    trainer = Trainer()
    trainer.build_model()
    trainer.build_search()
    trainer.train(tf.Session(), load())
    """
    assert _where(_findings({"trainer.py": script}, "TFC001")) == [("TFC001", "trainer.py", 16)]


def test_a_static_shape_a_key_test_and_a_function_defined_in_the_loop_read_no_tensor_per_step():
    """NeRF's eager loop: `np.random.choice(coords.shape[0], ...)` reads a static shape, `if "rgb0" in extras:`
    tests a dict of results for a key, and `save_weights`, defined in the loop body, copies weights only where it
    is called (every 10,000 steps). The loss printed every step is the one read."""
    script = """
    import numpy as np
    import tensorflow as tf

    def render(model, rays):
        raw = model(rays)
        return raw[..., :3], {"raw": raw, "rgb0": raw[..., 3:6]}

    model = tf.keras.Sequential([tf.keras.layers.Dense(256) for _ in range(8)] + [tf.keras.layers.Dense(6)])
    optimizer = tf.keras.optimizers.Adam()
    for i in range(200000):
        coords = tf.reshape(tf.stack(tf.meshgrid(tf.range(400), tf.range(400)), -1), [-1, 2])
        select = np.random.choice(coords.shape[0], size=[1024], replace=False)
        rays = tf.gather_nd(coords, select[:, None])
        with tf.GradientTape() as tape:
            rgb, extras = render(model, tf.cast(rays, tf.float32))
            loss = tf.reduce_mean(tf.square(rgb))
            if "rgb0" in extras:
                loss += tf.reduce_mean(tf.square(extras["rgb0"]))
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))

        def save_weights(net, i):
            np.save("weights_{:06d}.npy".format(i), net.get_weights())

        print(i, loss.numpy())
        if i % 10000 == 0:
            save_weights(model, i)
    """
    assert _where(_findings({"run_nerf.py": script}, "TFH004")) == [("TFH004", "run_nerf.py", 25)]


def test_no_stack_of_layers_on_mnist_size_images_is_heavy():
    """Udacity's batch-norm lesson: 19 convolutions on 28-pixel MNIST digits, the maps shrinking to a pixel or two.
    However many layers are counted, a model on images that small may be too small to gain: possible."""
    script = """
    import tensorflow as tf
    from tensorflow.examples.tutorials.mnist import input_data

    mnist = input_data.read_data_sets("MNIST_data/", one_hot=True)

    def conv_layer(prev_layer, layer_depth):
        strides = 2 if layer_depth % 3 == 0 else 1
        return tf.layers.conv2d(prev_layer, layer_depth * 4, 3, strides, "same", activation=tf.nn.relu)

    def train(num_batches, batch_size):
        inputs = tf.placeholder(tf.float32, [None, 28, 28, 1])
        labels = tf.placeholder(tf.float32, [None, 10])
        layer = inputs
        for layer_i in range(1, 20):
            layer = conv_layer(layer, layer_i)
        logits = tf.layers.dense(tf.layers.flatten(layer), 10)
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=logits, labels=labels))
        train_opt = tf.train.AdamOptimizer(0.01).minimize(loss)
        with tf.Session() as sess:
            for batch_i in range(num_batches):
                batch_xs, batch_ys = mnist.train.next_batch(batch_size)
                sess.run(train_opt, {inputs: batch_xs, labels: batch_ys})

    train(800, 64)
    """
    finding, = _findings({"train.py": script}, "TFC001")
    assert finding.confidence is Confidence.POSSIBLE
    assert "on 28-pixel images" in _evidence(finding)


def test_tf_functions_built_once_per_configuration_or_checkpoint_are_no_retracing():
    """A loop over configurations that keeps the step it builds for each (`train_step_fns.append(build(...))`),
    and an evaluation loop per checkpoint that hands the function it builds to code looping over the data, trace
    once per element of what they iterate. A loop that builds a function and calls it at once retraces each time."""
    helper = """
    import tensorflow as tf

    def build_train_step_fn(model, optimizer, attack):
        @tf.function
        def train_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(attack(x)) - y))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
        return train_step

    def build_eval_step_fn(model):
        @tf.function
        def eval_step(x):
            return model(x)
        return eval_step
    """
    trainer = """
    import tensorflow as tf
    import helper

    def evaluate_dataset(dataset, eval_step_fn):
        for x, y in dataset:
            eval_step_fn(x)

    def train(model, optimizer, dataset, attacks, checkpoints):
        train_step_fns = []
        for attack in attacks:
            train_step_fns.append(helper.build_train_step_fn(model, optimizer, attack))
        for epoch in range(100):
            for x, y in dataset:
                train_step_fns[epoch % len(train_step_fns)](x, y)
        for checkpoint in checkpoints:
            model.load_weights(checkpoint)
            eval_step_fn = helper.build_eval_step_fn(model)
            evaluate_dataset(dataset, eval_step_fn)
    """
    assert not _findings({"helper.py": helper, "trainer.py": trainer}, "TFH003")
    per_batch = trainer.replace("evaluate_dataset(dataset, eval_step_fn)", "eval_step_fn(checkpoint)")
    assert _where(_findings({"helper.py": helper, "trainer.py": per_batch}, "TFH003")) == [
        ("TFH003", "helper.py", 13)]


@pytest.mark.parametrize("test", ['split == "train"', 'split != "valid"', "is_training",
                                  "mode == tf.estimator.ModeKeys.TRAIN"])
def test_the_evaluation_branch_of_an_input_function_serving_both_splits_is_no_training_input(test):
    """Transformer-XL's input_fn: `if split == "train":` a cached, prefetched pipeline, else the evaluation one,
    serial and unprefetched. The evaluation branch feeds evaluation; a training pipeline there would be the
    finding."""
    script = """
    import tensorflow as tf

    def get_input_fn(files, split, is_training, mode, batch_size):
        def parser(record):
            example = tf.io.parse_single_example(record, {"inputs": tf.io.VarLenFeature(tf.int64)})
            return example, tf.random.uniform([])  # stateful: TensorFlow leaves the map serial

        def input_fn(params):
            if TEST:
                dataset = tf.data.TFRecordDataset(files).map(parser, num_parallel_calls=8).cache().repeat()
                dataset = dataset.batch(batch_size).prefetch(8)
            else:
                dataset = tf.data.TFRecordDataset(files)
                dataset = dataset.map(parser)
                dataset = dataset.batch(batch_size)
            return dataset
        return input_fn

    estimator = tf.estimator.Estimator(model_fn=model_fn)
    estimator.train(input_fn=get_input_fn(["train.tfrecord"], "train", True, "train", 32), max_steps=100000)
    """
    serial, = _findings({"data_utils.py": script.replace("TEST", test)}, "TFD002")
    assert serial.confidence is Confidence.POSSIBLE
    assert "it feeds only evaluation" in _evidence(serial)
    # With the branches swapped, the serial map is in the branch a training run takes.
    swapped, = _findings({"data_utils.py": script.replace("TEST", f"not ({test})")}, "TFD002")
    assert swapped.confidence is Confidence.LIKELY


def test_a_model_handed_to_the_function_that_fits_it_through_functions_that_return_it():
    """five-video's train_cnn.py: `train_model(model, ...)` fits its parameter; main passes the model
    `get_model()` built, after `model = freeze_all_but_top(model)`, which returns the model it was given. The
    InceptionV3 built there is what trains, not the first layer some other module makes."""
    models = """
    from keras.layers import Conv2D, TimeDistributed
    from keras.models import Sequential

    def lrcn():
        model = Sequential()
        model.add(TimeDistributed(Conv2D(32, (7, 7)), input_shape=(40, 80, 80, 3)))
        return model
    """
    train = """
    from keras.applications.inception_v3 import InceptionV3
    from keras.layers import Dense, GlobalAveragePooling2D
    from keras.models import Model

    def get_model():
        base_model = InceptionV3(weights="imagenet", include_top=False)
        x = GlobalAveragePooling2D()(base_model.output)
        return Model(inputs=base_model.input, outputs=Dense(101, activation="softmax")(x))

    def freeze_all_but_top(model):
        for layer in model.layers[:-2]:
            layer.trainable = False
        model.compile(optimizer="rmsprop", loss="categorical_crossentropy")
        return model

    def train_model(model, nb_epoch, generators):
        train_generator, validation_generator = generators
        model.fit_generator(train_generator, steps_per_epoch=100, epochs=nb_epoch)
        return model

    def main():
        model = get_model()
        generators = get_generators()
        model = freeze_all_but_top(model)
        model = train_model(model, 10, generators)

    main()
    """
    finding, = _findings({"models.py": models, "train_cnn.py": train}, "TFC001")
    assert (finding.location.path.as_posix(), finding.location.line) == ("train_cnn.py", 8)
    assert finding.confidence is Confidence.LIKELY


def test_python_batches_background_workers_make_ahead_of_the_steps_are_possible():
    """EAST's get_batch takes its batches from a GeneratorEnqueuer that worker processes fill: the reading and
    cropping overlap the steps, and the loop waits only when the workers fall behind. Without the enqueuer the
    generator makes every batch between steps."""
    data = """
    import time
    import cv2
    import numpy as np
    from keras.utils import GeneratorEnqueuer

    def generator(batch_size):
        while True:
            images = [cv2.resize(cv2.imread(path), (512, 512)) for path in np.random.choice(PATHS, batch_size)]
            yield np.array(images)

    def get_batch(num_workers, batch_size):
        enqueuer = GeneratorEnqueuer(generator(batch_size), use_multiprocessing=True)
        enqueuer.start(max_queue_size=10, workers=num_workers)
        while True:
            while enqueuer.queue.empty():
                time.sleep(0.01)
            yield enqueuer.queue.get()
    """
    train = """
    import tensorflow as tf
    import data

    images = tf.placeholder(tf.float32, [None, 512, 512, 3])
    train_op = tf.train.AdamOptimizer().minimize(tf.reduce_mean(tf.layers.conv2d(images, 64, 3)))
    with tf.Session() as sess:
        batches = data.get_batch(num_workers=16, batch_size=14)
        for step in range(100000):
            sess.run(train_op, feed_dict={images: next(batches)})
    """
    queued, = _findings({"data.py": data, "train.py": train}, "TFD004")
    assert queued.confidence is Confidence.POSSIBLE
    assert "background workers make the batches ahead" in _evidence(queued)
    serial = data.replace("""        enqueuer = GeneratorEnqueuer(generator(batch_size), use_multiprocessing=True)
        enqueuer.start(max_queue_size=10, workers=num_workers)
        while True:
            while enqueuer.queue.empty():
                time.sleep(0.01)
            yield enqueuer.queue.get()""", """        yield from generator(batch_size)""")
    made, = _findings({"data.py": serial, "train.py": train}, "TFD004")
    assert made.confidence is Confidence.LIKELY


@pytest.mark.parametrize("batching", [
    ".batch(32)",
    # tf2-edgetpu-examples batches ragged boxes with an experimental transformation
    ".apply(tf.data.experimental.dense_to_ragged_batch(batch_size=32))",
    ".apply(batch_and_drop_remainder(32))",
])
def test_a_stateful_map_over_whole_batches_before_a_prefetch_is_possible(batching):
    """Hands-On ML's diffusion notebook maps `prepare_batch` (random noise per batch) after `.batch(32)` and before
    `.prefetch(1)`: one call per step, made while the steps run. Mapped per element, the same function is the
    finding."""
    script = """
    import tensorflow as tf
    from tensorflow.contrib.data import batch_and_drop_remainder

    def prepare_batch(images):
        noise = tf.random.normal(tf.shape(images))
        return {"noisy": images + noise}, noise

    dataset = tf.data.Dataset.from_tensor_slices(images).shuffle(10000)
    train_set = dataset.batch(32).map(prepare_batch).prefetch(1)
    model.fit(train_set, epochs=100)
    """
    batched, = _findings({"train.py": script.replace(".batch(32)", batching)}, "TFD002")
    assert batched.confidence is Confidence.POSSIBLE
    assert "it maps whole batches" in _evidence(batched)
    per_element, = _findings({"train.py": script.replace(".batch(32).map(prepare_batch)",
                                                         f".map(prepare_batch){batching}")}, "TFD002")
    assert per_element.confidence is Confidence.LIKELY


def test_the_models_an_object_holds_in_an_attribute_its_training_fits():
    """five-video's train.py: `rm = ResearchModels(...)`, then `rm.model.fit_generator(...)`; the class assigns
    `self.model = self.lstm()` or `self.c3d()` by the name it is given. Each model a run may train gets its
    finding where it is built."""
    models = """
    from keras.layers import LSTM, Conv3D, Dense, Flatten
    from keras.models import Sequential

    class ResearchModels():
        def __init__(self, nb_classes, model, seq_length):
            self.nb_classes = nb_classes
            if model == "lstm":
                self.model = self.lstm(seq_length)
            elif model == "c3d":
                self.model = self.c3d(seq_length)
            self.model.compile(loss="categorical_crossentropy", optimizer="adam")

        def lstm(self, seq_length):
            model = Sequential()
            model.add(LSTM(2048, input_shape=(seq_length, 2048)))
            model.add(Dense(512, activation="relu"))
            model.add(Dense(self.nb_classes, activation="softmax"))
            return model

        def c3d(self, seq_length):
            model = Sequential()
            for filters in (64, 128, 256, 256, 512, 512):
                model.add(Conv3D(filters, (3, 3, 3), activation="relu", input_shape=(seq_length, 80, 80, 3)))
            model.add(Flatten())
            model.add(Dense(4096, activation="relu"))
            model.add(Dense(self.nb_classes, activation="softmax"))
            return model
    """
    train = """
    from models import ResearchModels

    def train(model, seq_length, generator):
        rm = ResearchModels(101, model, seq_length)
        rm.model.fit_generator(generator=generator, steps_per_epoch=1000, epochs=1000)

    train("lstm", 40, batches())
    """
    assert _where(_findings({"models.py": models, "train.py": train}, "TFC001")) == [
        ("TFC001", "models.py", 14), ("TFC001", "models.py", 21)]


def test_keras_predict_and_fit_per_transition_or_per_character_while_training():
    """keon's DQN replays 32 transitions per environment step, each with `predict` and `fit` on one state; a text
    model samples 400 characters with `predict(x)[0]` after every epoch, in a LambdaCallback. Both run while the
    model trains. The same sampling loop run once training is done is no training cost."""
    agent = """
    import random
    import numpy as np
    from keras.models import Sequential
    from keras.layers import Dense

    class DQNAgent:
        def __init__(self, state_size, action_size):
            self.memory = []
            self.model = self._build_model(state_size, action_size)

        def _build_model(self, state_size, action_size):
            model = Sequential()
            model.add(Dense(24, input_dim=state_size, activation="relu"))
            model.add(Dense(action_size, activation="linear"))
            model.compile(loss="mse", optimizer="adam")
            return model

        def replay(self, batch_size):
            minibatch = random.sample(self.memory, batch_size)
            for state, action, reward, next_state, done in minibatch:
                target = reward + 0.95 * np.amax(self.model.predict(next_state)[0])
                target_f = self.model.predict(state)
                target_f[0][action] = target
                self.model.fit(state, target_f, epochs=1, verbose=0)

    agent = DQNAgent(4, 2)
    for e in range(1000):
        for time in range(500):
            agent.memory.append(env.step(0))
            if len(agent.memory) > 32:
                agent.replay(32)
    """
    assert _where(_findings({"dqn.py": agent}, "TFH007")) == [
        ("TFH007", "dqn.py", 21), ("TFH007", "dqn.py", 22), ("TFH007", "dqn.py", 24)]
    fit = next(f for f in _findings({"dqn.py": agent}, "TFH007") if f.location.line == 24)
    assert fit.fix is not None and fit.fix.applicability.value == "unsafe"
    # The fix is one update where `fit` would make one per 32 rows: the message says so.
    assert "`fit` splits an input of more than 32 rows into batches of 32" in fit.message
    predict = next(f for f in _findings({"dqn.py": agent}, "TFH007") if f.location.line == 22)
    assert "splits" not in predict.message

    sampler = """
    import numpy as np
    from tensorflow import keras

    model = keras.Sequential([keras.Input((40, 57)), keras.layers.LSTM(128), keras.layers.Dense(57)])
    model.compile(loss="categorical_crossentropy", optimizer="adam")

    def sample_text(epoch, logs):
        for i in range(400):
            x_pred = np.zeros((1, 40, 57))
            preds = model.predict(x_pred, verbose=0)[0]

    model.fit(x, y, batch_size=128, epochs=60, callbacks=[keras.callbacks.LambdaCallback(on_epoch_end=sample_text)])
    """
    assert _where(_findings({"generate.py": sampler}, "TFH007")) == [("TFH007", "generate.py", 10)]
    after_training = sampler.replace(", callbacks=[keras.callbacks.LambdaCallback(on_epoch_end=sample_text)]", "")
    assert not _findings({"generate.py": after_training + "\nsample_text(0, None)\n"}, "TFH007")


def test_a_fit_on_a_few_taken_batches_is_a_demo_not_training_input():
    """Hands-On ML fits a detection head on `train_set.take(5).repeat(2)` mapped to attach random boxes: ten
    batches, a demo of the API. Taken from the whole training set, the same map is the finding."""
    script = """
    import tensorflow as tf

    def add_random_bounding_boxes(images, labels):
        return images, (labels, tf.random.uniform([tf.shape(images)[0], 4]))

    train_set = tf.data.Dataset.from_tensor_slices((images, labels)).batch(32)
    fake_train_set = train_set.take(5).repeat(2).map(add_random_bounding_boxes)
    model.fit(fake_train_set, epochs=2)
    """
    assert not _findings({"demo.py": script}, "TFD002")
    whole = script.replace(".take(5).repeat(2)", ".repeat(2)")
    assert _where(_findings({"demo.py": whole}, "TFD002")) == [("TFD002", "demo.py", 7)]


def test_keras_calls_per_training_run_or_every_n_steps_or_of_the_repos_own_method_are_no_per_step_calls():
    """A fresh model fitted per cross-validation fold (`fit(..., epochs=100)`, then one predict), predictions sampled
    every 100 batches in a callback, a repo class's own `predict(text, encode=True)`, and predictions over a literal
    list of whole datasets: none runs one small batch per step."""
    script = """
    import numpy as np
    from tensorflow import keras

    def build():
        model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(64), keras.layers.Dense(1)])
        model.compile(optimizer="adam", loss="mse")
        return model

    class Viz(keras.callbacks.Callback):
        def on_batch_end(self, batch, logs=None):
            if batch % 100 == 0:
                for image in samples:
                    shown.append(self.model.predict(np.expand_dims(image, axis=0)))

    for train_x, train_y, test_x in folds:
        model = build()
        model.fit(train_x, train_y, batch_size=256, epochs=100, callbacks=[Viz()])
        y_pred = model.predict(np.array([test_x]))
        for data in [train_x, train_x[:, ::-1]]:
            scores = model.predict(data, batch_size=256)
    """
    assert not _findings({"folds.py": script}, "TFH007")


def test_a_fit_for_epochs_the_source_does_not_say_is_a_training_run_and_so_is_the_loop_around_it():
    """PINNs' benchmark resets one model per data size and fits it for `tf_epochs + nt_epochs` epochs, then
    predicts the test grid: each iteration is a whole training run (the epochs come from an import the script
    cannot resolve), not a step. A DQN's `train(x, y, epochs=1)` wrapper, which every caller leaves at its
    default, fits one batch per replay: the finding."""
    script = """
    import numpy as np
    from tensorflow import keras
    from config import tf_epochs, nt_epochs

    def prep_data(n):
        rows = np.random.choice(len(points), n, replace=False)
        return points[rows], values[rows], grid

    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(20), keras.layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse")
    initial_w = model.get_weights()
    for size in [50, 200, 400]:
        x_train, y_train, x_star = prep_data(size)
        model.set_weights(initial_w)
        model.fit(x_train, y_train, epochs=tf_epochs + nt_epochs, verbose=0)
        u_pred = model.predict(x_star)
    """
    assert not _findings({"bench.py": script}, "TFH007")
    agent = """
    import random
    import numpy as np
    from tensorflow import keras

    class Brain:
        def __init__(self):
            self.model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(64), keras.layers.Dense(2)])
            self.model.compile(optimizer="adam", loss="mse")

        def train(self, x, y, epochs=1, verbose=0):
            self.model.fit(x, y, batch_size=64, epochs=epochs, verbose=verbose)

    brain = Brain()
    memory = []
    for episode in range(1000):
        memory.append(env.step())
        batch = random.sample(memory, 64)
        x = np.array([s for s, _ in batch])
        y = np.array([t for _, t in batch])
        brain.train(x, y)
    """
    assert _where(_findings({"agent.py": agent}, "TFH007")) == [("TFH007", "agent.py", 11)]


@pytest.mark.parametrize("load, confidence", [
    ("data = input_data.read_data_sets('MNIST_data')", Confidence.POSSIBLE),
    ("if FLAGS.dataset == 'mnist':\n            data = input_data.read_data_sets('MNIST_data')", Confidence.LIKELY)])
def test_mnist_loaded_always_caps_a_model_loaded_on_some_runs_does_not(load, confidence):
    """A model whose inputs declare no size, in a module that loads MNIST: every run trains on 28-pixel digits when
    the load is unconditional (Hands-On CV's LeNets); DCGAN-tensorflow loads MNIST only `if dataset == 'mnist'`, its
    default run trains CelebA at 64 pixels (there MNIST's side only asks for a deeper network, as for CIFAR)."""
    script = f"""
    import tensorflow as tf
    from tensorflow.examples.tutorials.mnist import input_data

    def main():
        {load}
        images = tf.placeholder(tf.float32, [None] + IMAGE_DIMS)
        x = images
        for filters in (64, 128, 256, 512, 512, 256, 128, 64):
            x = tf.layers.conv2d(x, filters, 5, padding="same")
        loss = tf.reduce_mean(tf.layers.dense(tf.layers.flatten(x), 1))
        optim = tf.train.AdamOptimizer(2e-4).minimize(loss)
        with tf.Session() as sess:
            for step in range(100000):
                sess.run(optim, feed_dict={{images: batches[step % 100]}})

    main()
    """
    finding, = _findings({"model.py": script}, "TFC001")
    assert finding.confidence is confidence


def test_a_generator_shuffling_once_per_epoch_slices_memory_per_batch():
    # The permutation and the fancy-index copy run once per pass; each batch is a slice of arrays in memory.
    findings = _findings({"train.py": """
        import numpy as np
        import tensorflow as tf

        def batch_iter(x, y, batch_size=64):
            indices = np.random.permutation(np.arange(len(x)))
            x_shuffle, y_shuffle = x[indices], y[indices]
            for i in range(len(x) // batch_size):
                yield x_shuffle[i * batch_size:(i + 1) * batch_size], y_shuffle[i * batch_size:(i + 1) * batch_size]

        train_op = tf.train.AdamOptimizer(1e-3).minimize(loss)
        with tf.Session() as sess:
            for epoch in range(10):
                for x_batch, y_batch in batch_iter(x_train, y_train):
                    sess.run(train_op, feed_dict={inputs: x_batch, labels: y_batch})
        """}, "TFD004")
    assert [(f.location.line, f.confidence) for f in findings] == [(13, Confidence.POSSIBLE)]


def test_a_generator_handed_a_keras_image_iterator_reads_images():
    # `crop_generator` crops what the ImageDataGenerator iterator it is handed reads and augments.
    findings = _findings({"train.py": """
        import numpy as np
        from tensorflow import keras

        def crop_generator(batches, size):
            while True:
                batch_x, batch_y = next(batches)
                yield batch_x[:, :size, :size], batch_y

        augment = keras.preprocessing.image.ImageDataGenerator(rotation_range=30, zoom_range=0.2)
        train_iterator = augment.flow_from_dataframe(frame, directory="images", batch_size=32)
        train_batches = crop_generator(train_iterator, 224)
        model.fit_generator(generator=train_batches, steps_per_epoch=1000, epochs=10)
        """}, "TFD004")
    assert [(f.location.line, f.confidence) for f in findings] == [(12, Confidence.LIKELY)]


def test_a_generator_function_chosen_by_a_branch_and_called_through_its_name():
    # Each model type binds `data_generator` to its module's generator; the one called reads and augments images.
    findings = _findings({"yolo/data.py": """
        import numpy as np
        from PIL import Image

        def yolo_batches(lines, batch_size):
            while True:
                images = [np.array(Image.open(line.split()[0]).resize((416, 416))) for line in lines[:batch_size]]
                yield np.stack(images), np.zeros((batch_size, 13, 13, 255))

        def tiny_yolo_batches(lines, batch_size):
            while True:
                images = [np.array(Image.open(line.split()[0]).resize((320, 320))) for line in lines[:batch_size]]
                yield np.stack(images), np.zeros((batch_size, 10, 10, 255))
        """, "train.py": """
        from yolo.data import tiny_yolo_batches, yolo_batches

        def main(model_type, model, lines):
            if model_type == "yolo":
                data_generator = yolo_batches
            elif model_type == "tiny_yolo":
                data_generator = tiny_yolo_batches
            else:
                raise ValueError(model_type)
            model.fit_generator(data_generator(lines, 16), steps_per_epoch=len(lines) // 16, epochs=100)

        main("yolo", model, open("train.txt").readlines())
        """}, "TFD004")
    assert [(f.location.path.as_posix(), f.location.line, f.confidence) for f in findings] == [
        ("train.py", 10, Confidence.LIKELY)]


def test_a_queue_batch_fetched_to_numpy_and_fed_back_by_alternating_gan_updates():
    # The queue's batch, made by a helper of another module, goes out to NumPy and back in through `feed_dict`; the
    # discriminator and generator updates take turns in an `if` and its `else`: together, every step trains.
    findings = _findings({"libs/data.py": """
        import tensorflow as tf

        def input_pipeline(files, batch_size):
            reader = tf.WholeFileReader()
            _, contents = reader.read(tf.train.string_input_producer(files))
            image = tf.image.resize_images(tf.image.decode_jpeg(contents), [64, 64])
            return tf.train.shuffle_batch([image], batch_size, capacity=1000, min_after_dequeue=100, num_threads=2)
        """, "gan.py": """
        import numpy as np
        import tensorflow as tf
        from libs.data import input_pipeline

        def train(files, gan, batch_size=64):
            batch = input_pipeline(files, batch_size)
            opt_d = tf.train.AdamOptimizer(1e-4).minimize(gan["loss_d"])
            opt_g = tf.train.AdamOptimizer(1e-4).minimize(gan["loss_g"])
            sess = tf.Session()
            coord = tf.train.Coordinator()
            tf.train.start_queue_runners(sess=sess, coord=coord)
            step = 0
            while not coord.should_stop():
                images = sess.run(batch) / 127.5 - 1.0
                noise = np.random.uniform(-1.0, 1.0, [batch_size, 100])
                step += 1
                if step % 2 == 1:
                    sess.run(opt_d, feed_dict={gan["x"]: images, gan["z"]: noise})
                else:
                    sess.run(opt_g, feed_dict={gan["z"]: noise})

        train(tf.gfile.Glob("images/*.jpg"), build_gan())
        """}, "TFD004")
    assert [(f.location.path.as_posix(), f.location.line, f.confidence) for f in findings] == [
        ("gan.py", 18, Confidence.LIKELY)]
    assert "fetch each batch from its input pipeline" in findings[0].message


def test_a_text_generator_opens_its_files_once_per_pass_and_the_evaluation_branch_feeds_no_training():
    # `data_generator` opens each file once per pass and only splits its lines (plain Python per element: possible);
    # `image_generator` loads an array per line (likely for training). The `else` of `if is_training:` builds the
    # evaluation's pipeline alone: the call that feeds `estimator.train` passes `is_training=True`.
    findings = _findings({"train.py": """
        import numpy as np
        import tensorflow as tf

        def data_generator(paths, vocab):
            for path in paths:
                with open(path) as f:
                    for line in f:
                        words, label = line.rstrip().split("|")
                        yield [vocab.get(w, 0) for w in words.split()], int(label)

        def image_generator(paths):
            for path in paths:
                with open(path) as f:
                    for line in f:
                        yield np.load(line.rstrip()), 0

        def dataset(is_training, params):
            if is_training:
                ds = tf.data.Dataset.from_generator(lambda: data_generator(params["train"], params["vocab"]),
                                                    output_types=(tf.int32, tf.int32))
                ds = ds.shuffle(10000)
            else:
                ds = tf.data.Dataset.from_generator(lambda: image_generator(params["test"]),
                                                    output_types=(tf.float32, tf.int32))
            return ds.padded_batch(32).prefetch(1)

        def images(params):
            return tf.data.Dataset.from_generator(lambda: image_generator(params["train"]),
                                                  output_types=(tf.float32, tf.int32)).batch(32)

        estimator = tf.estimator.Estimator(model_fn=model_fn, params=params)
        estimator.train(input_fn=lambda: dataset(is_training=True, params=params))
        estimator.evaluate(input_fn=lambda: dataset(is_training=False, params=params))
        estimator.train(input_fn=lambda: images(params))
        """}, "TFD004")
    found = sorted(findings, key=lambda f: f.location.line)
    assert [(f.location.line, f.confidence) for f in found] == [(19, Confidence.POSSIBLE), (28, Confidence.LIKELY)]
    assert "reads a file line by line" in found[0].evidence[-1].message
    assert "otherwise does plain Python per element" in found[0].evidence[-1].message


def test_a_generator_advisor_cannot_follow_is_not_said_to_do_no_work():
    """MultiPlanarUNet's trainer wraps the Sequence its `fit(self, train, ...)` is given in `from_generator(train,
    ...)`; which Sequence class a run makes is chosen by name from a YAML file. What the generator does per element
    is unknown, not plain Python: the evidence says so, and the finding stays possible."""
    findings = _findings({"trainer.py": """
        import tensorflow as tf

        class Trainer:
            def __init__(self, model):
                self.model = model

            def fit(self, train, epochs):
                dtypes, shapes = list(zip(*map(lambda x: (x.dtype, x.shape), train[0])))
                train = tf.data.Dataset.from_generator(train, dtypes, shapes)
                self.model.fit(train, epochs=epochs)
        """}, "TFD004", show_all=True)
    assert [f.confidence for f in findings] == [Confidence.POSSIBLE]
    assert "what the generator (`train`) does per element is not in the source" in _evidence(findings[0])
    assert "plain Python only" not in _evidence(findings[0])


def test_batches_drawn_from_a_pool_the_class_fills_in_background_threads():
    # `start()` runs threads that augment samples into a pool; `get_batch` copies random entries out of it (after a
    # warm-up wait): the batches are made while the steps run.
    findings = _findings({"data.py": """
        import random
        import time
        from threading import Thread
        import numpy as np
        import cv2

        class PoolGenerator:
            def __init__(self, paths, pool_size):
                self.paths, self.pool, self.pool_size = paths, [], pool_size

            def _run(self):
                while True:
                    image = cv2.imread(random.choice(self.paths))
                    self.pool.append(cv2.resize(cv2.flip(image, 1), (208, 208)))

            def start(self):
                for _ in range(2):
                    Thread(target=self._run, daemon=True).start()

            def get_batch(self, n):
                while len(self.pool) < 100:
                    time.sleep(0.1)
                batch = np.empty((n, 208, 208, 3), dtype=np.float32)
                for i in range(n):
                    batch[i] = self.pool[random.randrange(len(self.pool))]
                return batch
        """, "train.py": """
        from data import PoolGenerator

        generator = PoolGenerator(paths, pool_size=1000)
        generator.start()
        for iteration in range(300000):
            x = generator.get_batch(32)
            model.train_on_batch(x, targets(x))
        """}, "TFD004")
    assert [(f.location.path.as_posix(), f.location.line, f.confidence) for f in findings] == [
        ("train.py", 7, Confidence.POSSIBLE)]
    assert "background workers make the batches ahead of the steps" in findings[0].evidence[-1].message


def test_a_gradient_accumulation_run_is_training_not_an_extra_read():
    # Each step zeroes the accumulators, runs the accumulating update (reading the loss with it) a few times, then
    # applies them: in the `else` of a save interval, or with the summaries in its body.
    findings = _findings({"train.py": """
        import tensorflow as tf

        loss = build_loss(image_batch, label_batch)
        optimizer = tf.train.MomentumOptimizer(2.5e-4, 0.9)
        variables = tf.trainable_variables()
        accumulators = [tf.Variable(tf.zeros_like(v.initialized_value()), trainable=False) for v in variables]
        zero_op = [a.assign(tf.zeros_like(a)) for a in accumulators]
        accum_grads_op = [a.assign_add(g / 10) for a, g in zip(accumulators, tf.gradients(loss, variables))]
        train_op = optimizer.apply_gradients(zip(accumulators, variables))
        sess = tf.Session()
        for step in range(20000):
            sess.run(zero_op, feed_dict={step_ph: step})
            for i in range(10):
                _, value = sess.run([accum_grads_op, loss], feed_dict={step_ph: step})
            if step % 1000 == 0:
                summary, _ = sess.run([summaries, train_op], feed_dict={step_ph: step})
            else:
                sess.run(train_op, feed_dict={step_ph: step})
        """}, "TFH004")
    assert findings == []


def test_the_else_of_a_step_interval_runs_on_most_steps():
    # The discriminator's run (and its summary) every third step; the generator's, with its image summaries, on the
    # other two: the second write is per step in all but name.
    findings = _findings({"gan.py": """
        import tensorflow as tf

        opt_d = tf.train.AdamOptimizer(1e-4).minimize(loss_d)
        opt_g = tf.train.AdamOptimizer(1e-4).minimize(loss_g)
        tf.summary.image("fakes", generated)
        summaries = tf.summary.merge_all()
        writer = tf.summary.FileWriter("logs")
        sess = tf.Session()
        for step in range(100000):
            if step % 3 == 0:
                _, summary = sess.run([opt_d, summaries], feed_dict={z: noise(), lr: 1e-4})
                writer.add_summary(summary, step)
            else:
                _, summary = sess.run([opt_g, summaries], feed_dict={z: noise(), lr: 1e-4})
                writer.add_summary(summary, step)
        """}, "TFH006")
    assert [(f.location.line, f.confidence) for f in findings] == [(15, Confidence.LIKELY)]


def test_a_repo_subclass_of_the_keras_image_generator_reads_and_augments_too():
    findings = _findings({"utils.py": """
        from keras.preprocessing.image import ImageDataGenerator

        class DroneDataGenerator(ImageDataGenerator):
            def random_crop(self, image, size):
                return image[:size[0], :size[1]]
        """, "cnn.py": """
        import utils

        datagen = utils.DroneDataGenerator(rotation_range=0.2, rescale=1.0 / 255, width_shift_range=0.2)
        batches = datagen.flow_from_directory("train", target_size=(320, 240), batch_size=32)
        model.fit_generator(batches, epochs=100, steps_per_epoch=batches.samples // 32)
        """}, "TFD004")
    assert [(f.location.path.as_posix(), f.location.line, f.confidence) for f in findings] == [
        ("cnn.py", 5, Confidence.LIKELY)]


def test_a_model_class_picked_from_a_table_by_name_is_trained():
    # `models[name](...)` constructs one of the table's classes; its `train()` is what the script runs. (The
    # notebook only loads one to attack it.)
    sources = {"networks/lenet.py": """
        from tensorflow import keras

        class LeNet:
            def __init__(self, epochs=200):
                self.epochs = epochs
                self.model = keras.Sequential([keras.layers.Conv2D(6, 5), keras.layers.Flatten(),
                                               keras.layers.Dense(10)])

            def train(self):
                augment = keras.preprocessing.image.ImageDataGenerator(horizontal_flip=True, width_shift_range=0.1)
                self.model.compile(optimizer="sgd", loss="categorical_crossentropy")
                self.model.fit_generator(augment.flow(x_train, y_train, batch_size=128), epochs=self.epochs)
        """, "networks/resnet.py": """
        from tensorflow import keras

        class ResNet:
            def __init__(self, epochs=200):
                self.epochs = epochs
                self.model = keras.applications.ResNet50(weights=None, input_shape=(32, 32, 3), classes=10)

            def train(self):
                augment = keras.preprocessing.image.ImageDataGenerator(horizontal_flip=True, width_shift_range=0.1)
                self.model.compile(optimizer="sgd", loss="categorical_crossentropy")
                self.model.fit_generator(augment.flow(x_train, y_train, batch_size=128), epochs=self.epochs)
        """, "train.py": """
        import argparse
        from networks.lenet import LeNet
        from networks.resnet import ResNet

        if __name__ == "__main__":
            models = {"lenet": LeNet, "resnet": ResNet}
            parser = argparse.ArgumentParser()
            parser.add_argument("--model", choices=models.keys(), required=True)
            args = parser.parse_args()
            model = models[args.model](epochs=10)
            model.train()
        """, "attack.py": """
        from networks.resnet import ResNet

        model = ResNet()
        print(model.model.predict(images))
        """}
    findings = _findings(sources, "TFD004")
    assert sorted((f.location.path.as_posix(), f.location.line, f.confidence) for f in findings) == [
        ("networks/lenet.py", 12, Confidence.LIKELY), ("networks/resnet.py", 11, Confidence.LIKELY)]


def test_a_generator_walking_a_lazy_chain_it_made_before_its_loop_reads_per_item():
    # `pairs` is made once per pass, but lazily: each image is loaded as the loop takes it.
    findings = _findings({"reader.py": """
        import random
        import numpy as np
        from keras.preprocessing.image import img_to_array, load_img

        class SegmentationGenerator:
            def get_processed_pairs(self, img_fnames, mask_fnames):
                images = (img_to_array(load_img(f)) for f in img_fnames)
                masks = (img_to_array(load_img(f, grayscale=True)) for f in mask_fnames)
                return zip(images, masks)

            def flow_from_list(self, img_fnames, mask_fnames, batch_size):
                while True:
                    pairs = self.get_processed_pairs(img_fnames, mask_fnames)
                    i, img_batch = 0, np.zeros((batch_size, 500, 500, 3))
                    for img, mask in pairs:
                        img_batch[i] = img
                        i += 1
                        if i == batch_size:
                            i = 0
                            yield img_batch, mask
        """, "train.py": """
        from reader import SegmentationGenerator

        batches = SegmentationGenerator().flow_from_list(images, masks, 8)
        model.fit_generator(batches, steps_per_epoch=1000, epochs=20)
        """}, "TFD004")
    assert [(f.location.path.as_posix(), f.location.line, f.confidence) for f in findings] == [
        ("train.py", 4, Confidence.LIKELY)]


def test_a_generator_advancing_a_reading_generator_it_made_before_its_loop_reads_per_item():
    """voxelmorph's `scan_to_scan` makes `gen = volgen(paths)` once, then takes `next(gen)` per batch: `volgen`'s
    loop loads a volume from disk for each of those items, so the batches are read from files."""
    findings = _findings({"generators.py": """
        import numpy as np

        def volgen(vol_names, batch_size=1):
            while True:
                indices = np.random.randint(len(vol_names), size=batch_size)
                yield np.concatenate([np.load(vol_names[i])["vol"] for i in indices], axis=0)

        def scan_to_scan(vol_names, batch_size=1):
            gen = volgen(vol_names, batch_size=batch_size)
            zeros = None
            while True:
                scan1, scan2 = next(gen), next(gen)
                if zeros is None:
                    zeros = np.zeros((batch_size, *scan1.shape[1:-1], 3))
                yield [scan1, scan2], [scan2, zeros]
        """, "train.py": """
        import generators

        model.fit(generators.scan_to_scan(files, batch_size=1), epochs=1500, steps_per_epoch=100)
        """}, "TFD004")
    assert [(f.location.path.as_posix(), f.location.line, f.confidence) for f in findings] == [
        ("train.py", 3, Confidence.LIKELY)]
    assert "`np.load`" in findings[0].evidence[1].message


@pytest.mark.parametrize("reader, read", [
    ("import nibabel as nib", "nib.load(path).get_fdata()"),
    ("import SimpleITK as sitk", "sitk.GetArrayFromImage(sitk.ReadImage(path))"),
    ("import pydicom", "pydicom.dcmread(path).pixel_array"),
    ("import tifffile", "tifffile.imread(path)"),
])
def test_a_sequence_reading_medical_image_files_reads_files(reader: str, read: str):
    """NIfTI volumes, DICOM slices and TIFF stacks read per batch are file reads, as PIL's and OpenCV's are."""
    findings = _findings({"train.py": f"""
        import numpy as np
        import tensorflow as tf
        {reader}

        class Volumes(tf.keras.utils.Sequence):
            def __init__(self, paths, batch_size):
                self.paths, self.batch_size = paths, batch_size

            def __len__(self):
                return len(self.paths) // self.batch_size

            def __getitem__(self, index):
                batch = self.paths[index * self.batch_size:(index + 1) * self.batch_size]
                return np.stack([{read} for path in batch])

        model.fit(Volumes(files, 2), epochs=100)
        """}, "TFD004")
    assert [(f.location.line, f.confidence) for f in findings] == [(16, Confidence.LIKELY)]


def test_a_sequence_rendering_images_with_a_library_object_it_holds_makes_its_batches_in_python():
    """`self.image = ImageCaptcha(...)`, then `self.image.generate_image(text)` per sample: the method of a library
    object a `self` attribute holds is that library's work (captcha renders with PIL); a shuffle drawn from the
    `RandomState` another attribute holds only picks the order."""
    findings = _findings({"train.py": """
        import numpy as np
        import tensorflow as tf
        from captcha.image import ImageCaptcha

        class CaptchaSequence(tf.keras.utils.Sequence):
            def __init__(self, characters, batch_size, steps):
                self.characters, self.batch_size, self.steps = characters, batch_size, steps
                self.image = ImageCaptcha(width=160, height=60)

            def __len__(self):
                return self.steps

            def __getitem__(self, index):
                x = np.zeros((self.batch_size, 60, 160, 3), dtype=np.float32)
                for i in range(self.batch_size):
                    x[i] = np.array(self.image.generate_image(self.characters[i % 10] * 4)) / 255.0
                return x, x[:, 0, 0, :1]

        def shuffled(x, y, batch_size):
            rng = np.random.RandomState(0)
            while True:
                order = rng.permutation(len(x))[:batch_size]
                yield x[order], y[order]

        model.fit(CaptchaSequence("0123456789", 64, 1000), epochs=100)
        batches = shuffled(x_train, y_train, 64)
        for step in range(10000):
            model.train_on_batch(*next(batches))
        """}, "TFD004")
    assert [(f.location.line, f.confidence) for f in findings] == [(25, Confidence.LIKELY), (28, Confidence.POSSIBLE)]
    assert "`self.image.generate_image`" in findings[0].evidence[1].message


def test_keras_evaluate_on_each_batch_sliced_by_the_loop_counter():
    # `evaluate` on the batch `train_on_batch` just took: Keras' set-up per call, every step.
    findings = _findings({"train.py": """
        from tensorflow import keras

        def train(model, x, y, batch_size, epochs=10):
            for epoch in range(epochs):
                losses = []
                for start in range(0, x.shape[0] - batch_size, batch_size):
                    inputs = keras.utils.to_categorical(x[start:start + batch_size], num_classes=50)
                    model.train_on_batch(inputs, y[start:start + batch_size])
                    losses.append(model.evaluate(inputs, y[start:start + batch_size], batch_size=batch_size))
                    model.predict(x, batch_size=batch_size)

        model = keras.Sequential([keras.layers.Dense(64), keras.layers.Dense(50)])
        model.compile(optimizer="adam", loss="categorical_crossentropy")
        train(model, features, targets, 64)
        """}, "TFH007")
    assert _where(findings) == [("TFH007", "train.py", 9)]


def test_keras_predict_in_a_method_given_one_sample_by_its_caller():
    # `Brain.predict` runs the model's `predict`; `predict_one` hands it one state, once per environment step.
    findings = _findings({"agent.py": """
        import gym
        import numpy as np
        from tensorflow import keras

        class Brain:
            def __init__(self, state_size, actions):
                self.state_size = state_size
                self.model = keras.Sequential([keras.layers.Dense(64, activation="relu"), keras.layers.Dense(actions)])
                self.model.compile(optimizer="adam", loss="mse")

            def train(self, x, y):
                self.model.train_on_batch(x, y)

            def predict(self, states):
                return self.model.predict(states)

            def predict_one(self, state):
                return self.predict(state.reshape(1, self.state_size)).flatten()

        env = gym.make("CartPole-v1")
        brain = Brain(4, 2)
        for episode in range(1000):
            state, done = env.reset(), False
            while not done:
                action = np.argmax(brain.predict_one(state))
                state, reward, done, _ = env.step(action)
                brain.train(state[None], np.array([[reward, reward]]))
        """}, "TFH007")
    assert _where(findings) == [("TFH007", "agent.py", 15)]


def test_keras_predict_of_a_policy_per_environment_step_with_its_update_in_an_inner_loop():
    """A PPO agent (an RL cookbook's) flattens the state, then makes it a batch of one in a line of its own, unpacks
    the policy's two outputs, and updates in an inner loop over epochs every few environment steps: the episode
    loop's iterations are still the steps the agent takes, each with a `predict` of one state."""
    findings = _findings({"ppo.py": """
        import gym
        import numpy as np
        import tensorflow as tf

        class Actor:
            def __init__(self, state_dim):
                self.state_dim = state_dim
                inputs = tf.keras.Input((state_dim,))
                hidden = tf.keras.layers.Dense(32, activation="relu")(inputs)
                outputs = [tf.keras.layers.Dense(1)(hidden), tf.keras.layers.Dense(1, activation="softplus")(hidden)]
                self.model = tf.keras.Model(inputs, outputs)
                self.opt = tf.keras.optimizers.Adam()

            def get_action(self, state):
                state = state.reshape(-1)
                state = np.expand_dims(state, axis=0).astype(np.float32)
                mu, std = self.model.predict(state)
                return np.random.normal(mu[0], std[0])

            def train(self, states, advantages):
                with tf.GradientTape() as tape:
                    mu, std = self.model(states, training=True)
                    loss = -tf.reduce_mean(mu * advantages)
                grads = tape.gradient(loss, self.model.trainable_variables)
                self.opt.apply_gradients(zip(grads, self.model.trainable_variables))

        env = gym.make("Pendulum-v0")
        actor = Actor(3)
        for episode in range(1000):
            state, done, rollout = env.reset(), False, []
            while not done:
                action = actor.get_action(state)
                state, reward, done, _ = env.step(action)
                rollout.append((state, reward))
                if len(rollout) >= 5 or done:
                    states = np.array([s for s, _ in rollout])
                    for epoch in range(3):
                        actor.train(states, np.array([r for _, r in rollout]))
                    rollout = []
        """}, "TFH007")
    assert _where(findings) == [("TFH007", "ppo.py", 17)]
    assert "the loop at ppo.py:31:5" in findings[0].message
    assert [e.message for e in findings[0].evidence] == [
        "its input is one sample made a batch (`state = np.expand_dims(state, axis=0).astype(np.float32)`)"]


def test_keras_predict_once_an_episode_with_the_updates_after_it_is_no_per_step_call():
    """An agent that plays each episode out in an inner loop, then predicts on one state to log its value and
    replays a few batches: the episode loop's `predict` runs once an episode, not once a step."""
    findings = _findings({"agent.py": """
        import gym
        import numpy as np
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(64, activation="relu"), tf.keras.layers.Dense(2)])
        model.compile(optimizer="adam", loss="mse")
        env = gym.make("CartPole-v1")
        memory = []
        for episode in range(1000):
            state, done = env.reset(), False
            while not done:
                state, reward, done, _ = env.step(np.random.randint(2))
                memory.append((state, reward))
            start = np.reshape(env.reset(), [1, 4])
            print(episode, model.predict(start)[0])
            for _ in range(10):
                batch = np.array([s for s, _ in memory[-32:]])
                model.train_on_batch(batch, np.zeros((len(batch), 2)))
        """}, "TFH007")
    assert _where(findings) == []


def test_keras_predict_on_noise_drawn_each_gan_step():
    # The generator's `predict` on each step's noise, between the discriminator's and the combined model's updates;
    # the images sampled every 50 epochs are not per step.
    findings = _findings({"gan.py": """
        import numpy as np
        from tensorflow import keras

        generator = keras.Sequential([keras.layers.Dense(256, activation="relu"), keras.layers.Dense(784)])
        discriminator = keras.Sequential([keras.layers.Dense(256, activation="relu"), keras.layers.Dense(1)])
        discriminator.compile(optimizer="adam", loss="binary_crossentropy")
        combined = keras.Sequential([generator, discriminator])
        combined.compile(optimizer="adam", loss="binary_crossentropy")

        for epoch in range(10000):
            picked = np.random.randint(0, images.shape[0], 32)
            noise = np.random.normal(0, 1, (32, 100))
            fakes = generator.predict(noise)
            discriminator.train_on_batch(images[picked], np.ones((32, 1)))
            discriminator.train_on_batch(fakes, np.zeros((32, 1)))
            combined.train_on_batch(noise, np.ones((32, 1)))
            if epoch % 50 == 0:
                samples = np.random.normal(0, 1, (25, 100))
                save(generator.predict(samples))
        """}, "TFH007")
    assert _where(findings) == [("TFH007", "gan.py", 13)]


def test_keras_predict_of_a_cloned_target_network_per_replayed_transition():
    findings = _findings({"dqn.py": """
        import random
        import numpy as np
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(24, activation="relu"), tf.keras.layers.Dense(2)])
        model.compile(loss="mse", optimizer="adam")
        target = tf.keras.models.clone_model(model)

        def replay(memory, batch_size):
            for state, action, reward, next_state, done in random.sample(memory, batch_size):
                goal = target.predict(state)
                goal[0][action] = reward + 0.99 * np.max(target.predict(next_state)[0])
                model.train_on_batch(state, goal)

        for episode in range(1000):
            replay(memory, 32)
        """}, "TFH007")
    assert _where(findings) == [("TFH007", "dqn.py", 11), ("TFH007", "dqn.py", 12)]


def test_keras_predict_reduced_to_one_action_by_argmax():
    # The state is made a batch of one by a helper the loop calls; `np.argmax` over the whole result (no axis) picks
    # one action: one sample per environment step. Over a batch, an axis says each row's (the replay's targets, once
    # an episode).
    findings = _findings({"dqn.py": """
        import gym
        import numpy as np
        from tensorflow import keras

        class DQN:
            def __init__(self):
                self.env = gym.make("CartPole-v1")
                self.model = keras.Sequential([keras.layers.Dense(24, activation="relu"), keras.layers.Dense(2)])
                self.model.compile(optimizer="adam", loss="mse")

            def preprocess(self, state):
                return np.reshape(state, [1, 4])

            def choose_action(self, state, epsilon):
                if np.random.random() <= epsilon:
                    return self.env.action_space.sample()
                return np.argmax(self.model.predict(state))

            def train(self, episodes):
                for episode in range(episodes):
                    state, done = self.preprocess(self.env.reset()), False
                    while not done:
                        action = self.choose_action(state, 0.1)
                        next_state, reward, done, _ = self.env.step(action)
                        next_state = self.preprocess(next_state)
                        self.model.train_on_batch(state, np.array([[reward, reward]]))
                        state = next_state
                    best = np.argmax(self.model.predict(batch_of_states), axis=1)

        DQN().train(1000)
        """}, "TFH007")
    assert _where(findings) == [("TFH007", "dqn.py", 17)]


def test_keras_fit_on_a_replay_minibatch_and_predict_through_a_brain_object_per_environment_step():
    # Each environment step: `act` -> `predict_one` -> `predict` on one state (three calls from the loop), and
    # `replay` fits the brain on a minibatch its memory draws (`random.sample`), through `Brain.train`'s parameters,
    # with Keras 1's `nb_epoch`. `agent.brain.predict(states)` is the repo's own method, not Keras' (the finding is
    # where the brain runs the model's).
    findings = _findings({"dqn.py": """
        import random
        import gym
        import numpy as np
        from keras.models import Sequential
        from keras.layers import Dense

        class Brain:
            def __init__(self, state_count, action_count):
                self.state_count = state_count
                self.model = Sequential([Dense(64, activation="relu"), Dense(action_count)])
                self.model.compile(loss="mse", optimizer="rmsprop")

            def train(self, x, y, epoch=1):
                self.model.fit(x, y, batch_size=64, nb_epoch=epoch, verbose=0)

            def predict(self, s):
                return self.model.predict(s)

            def predict_one(self, s):
                return self.predict(s.reshape(1, self.state_count)).flatten()

        class Memory:
            def __init__(self):
                self.samples = []

            def sample(self, n):
                return random.sample(self.samples, min(n, len(self.samples)))

        class Agent:
            def __init__(self, state_count, action_count):
                self.brain = Brain(state_count, action_count)
                self.memory = Memory()

            def act(self, s):
                return np.argmax(self.brain.predict_one(s))

            def replay(self):
                batch = self.memory.sample(64)
                states = np.array([o[0] for o in batch])
                q = agent.brain.predict(states)
                x = np.zeros((len(batch), 4))
                y = np.zeros((len(batch), 2))
                for i, (s, a, r) in enumerate(batch):
                    x[i] = s
                    y[i] = q[i]
                    y[i][a] = r
                self.brain.train(x, y)

        class RandomAgent:
            def act(self, s):
                return random.randint(0, 1)

            def replay(self):
                pass

        def run(env, agent):
            s, done = env.reset(), False
            while not done:
                a = agent.act(s)
                s, r, done, _ = env.step(a)
                agent.replay()

        env = gym.make("CartPole-v1")
        agent = Agent(4, 2)
        run(env, RandomAgent())
        while True:
            run(env, agent)
        """}, "TFH007")
    assert _where(findings) == [("TFH007", "dqn.py", 14), ("TFH007", "dqn.py", 17)]


def test_a_decoder_model_applied_in_the_outputs_is_part_of_the_model_not_its_start():
    # The decoder is built between the encoder's layers and the model that applies it: the model trained holds both.
    findings = _findings({"capsnet.py": """
        import numpy as np
        from tensorflow.keras import layers, models

        x = layers.Input(shape=(224, 224, 3))
        conv1 = layers.Conv2D(256, 9, activation="relu")(x)
        conv2 = layers.Conv2D(256, 9, strides=2, activation="relu")(conv1)
        features = layers.Flatten()(conv2)
        decoder = models.Sequential(name="decoder")
        decoder.add(layers.Dense(512, activation="relu", input_dim=1024))
        decoder.add(layers.Dense(np.prod((224, 224, 3)), activation="sigmoid"))
        model = models.Model(x, [layers.Dense(10)(features), decoder(layers.Dense(1024)(features))])
        model.compile(optimizer="adam", loss=["mse", "mse"])
        model.fit(images, [labels, images], epochs=50)
        """}, "TFC001")
    assert [f.location.line for f in findings] == [11]
    assert "makes 2 convolution and 3 dense layers on 224-pixel images" in findings[0].evidence[-1].message


def test_an_autoencoder_of_an_encoder_and_a_decoder_model_counts_their_layers_once():
    # `Model(inputs, decoder(encoder(inputs)))`: both parts are built in the window before it and applied in it;
    # counted twice, three stride-2 convolutions each way on 32-pixel CIFAR looked heavy.
    findings = _findings({"colorize.py": """
        from tensorflow.keras.datasets import cifar10
        from tensorflow.keras.layers import Conv2D, Conv2DTranspose, Dense, Flatten, Input, Reshape
        from tensorflow.keras.models import Model

        (x_train, _), _ = cifar10.load_data()
        inputs = Input(shape=(32, 32, 1))
        x = inputs
        for filters in [64, 128, 256]:
            x = Conv2D(filters=filters, kernel_size=3, strides=2, padding="same")(x)
        latent = Dense(256)(Flatten()(x))
        encoder = Model(inputs, latent)
        latent_inputs = Input(shape=(256,))
        x = Reshape((4, 4, 256))(Dense(4 * 4 * 256)(latent_inputs))
        for filters in [256, 128, 64]:
            x = Conv2DTranspose(filters=filters, kernel_size=3, strides=2, padding="same")(x)
        outputs = Conv2DTranspose(filters=3, kernel_size=3, padding="same")(x)
        decoder = Model(latent_inputs, outputs)
        autoencoder = Model(inputs, decoder(encoder(inputs)))
        autoencoder.compile(loss="mse", optimizer="adam")
        autoencoder.fit(x_train_gray, x_train, epochs=30, batch_size=32)
        """}, "TFC001")
    assert [(f.location.line, f.confidence) for f in findings] == [(18, Confidence.POSSIBLE)]
    assert "makes 6 convolution and 2 dense layers on 32-pixel images" in findings[0].evidence[-1].message


def test_a_head_added_by_a_helper_to_the_base_model_its_caller_passes():
    # `add_new_last_layer` builds on the InceptionV3 base its caller made and passed: the model fine-tuned is it.
    findings = _findings({"fine_tune.py": """
        from keras.applications.inception_v3 import InceptionV3
        from keras.layers import Dense, GlobalAveragePooling2D
        from keras.models import Model
        from keras.preprocessing.image import ImageDataGenerator

        def add_new_last_layer(base_model, classes):
            x = GlobalAveragePooling2D()(base_model.output)
            x = Dense(1024, activation="relu")(x)
            return Model(input=base_model.input, output=Dense(classes, activation="softmax")(x))

        def train(directory):
            base_model = InceptionV3(weights="imagenet", include_top=False)
            model = add_new_last_layer(base_model, 12)
            model.compile(optimizer="rmsprop", loss="categorical_crossentropy")
            batches = ImageDataGenerator(rotation_range=30).flow_from_directory(directory, target_size=(299, 299))
            model.fit_generator(batches, steps_per_epoch=100, epochs=20)

        if __name__ == "__main__":
            train("train")
        """}, "TFC001")
    assert [(f.location.line, f.confidence) for f in findings] == [(9, Confidence.LIKELY)]


def test_a_model_built_and_trained_under_a_cpu_device_gains_nothing_from_16_bits():
    findings = _findings({"model.py": """
        import tensorflow as tf

        def build(x, y):
            for units in (1024, 1024, 1024, 1024):
                x = tf.layers.dense(x, units, activation=tf.nn.relu)
            loss = tf.losses.mean_squared_error(y, tf.layers.dense(x, 10))
            return tf.train.RMSPropOptimizer(1e-4).minimize(loss)
        """, "main.py": """
        import tensorflow as tf
        from model import build

        def main():
            with tf.device("/cpu:0"):
                train_op = build(tf.placeholder(tf.float32, [None, 100]), tf.placeholder(tf.float32, [None, 10]))
                with tf.Session() as sess:
                    for step in range(100000):
                        sess.run(train_op, feed_dict=next_batch())

        if __name__ == "__main__":
            main()
        """}, "TFC001")
    assert [(f.location.path.as_posix(), f.confidence) for f in findings] == [("model.py", Confidence.POSSIBLE)]
    assert "placed on the CPU (`tf.device(\"/cpu:0\")`)" in findings[0].evidence[-1].message


def test_a_cpu_scope_holding_the_variables_of_gpu_towers_is_no_cpu_training():
    # monodepth: the whole graph under `tf.device('/cpu:0')`, each tower under `tf.device('/gpu:%d' % i)`.
    findings = _findings({"main.py": """
        import tensorflow as tf

        def train(images, gpus):
            with tf.Graph().as_default(), tf.device("/cpu:0"):
                optimizer = tf.train.AdamOptimizer(1e-4)
                grads = []
                for i in range(gpus):
                    with tf.device("/gpu:%d" % i):
                        x = images[i]
                        for filters in (64, 128, 256, 512):
                            x = tf.layers.conv2d(x, filters, 3, activation=tf.nn.relu)
                        grads.append(optimizer.compute_gradients(tf.reduce_mean(x)))
                train_op = optimizer.apply_gradients(grads[0])
                with tf.Session() as sess:
                    for step in range(100000):
                        sess.run(train_op)

        if __name__ == "__main__":
            train(tf.split(tf.placeholder(tf.float32, [8, 256, 512, 3]), 2), 2)
        """}, "TFC001")
    assert [f.confidence for f in findings] == [Confidence.LIKELY]


def test_a_dataset_made_up_at_random_is_no_replay_minibatch():
    # `get_x_y` draws which of its 1000 rows are positive: a whole synthetic dataset, fitted and evaluated once per
    # bisection step on a new model; nothing is drawn from a memory.
    findings = _findings({"receptive_field.py": """
        import numpy as np
        from tensorflow import keras

        def get_x_y(steps, size=1000):
            positive = np.random.choice(size, size=size // 2, replace=False)
            x, y = np.zeros((size, steps, 1)), np.zeros((size, 1))
            x[positive, 0], y[positive, 0] = 1.0, 1.0
            return x, y

        def learned(steps):
            model = keras.Sequential([keras.layers.Conv1D(32, 3, dilation_rate=4), keras.layers.Flatten(),
                                      keras.layers.Dense(1)])
            model.compile(optimizer="adam", loss="mse")
            x, y = get_x_y(steps)
            model.fit(x, y, epochs=2, verbose=0)
            return model.evaluate(x, y, verbose=0) < 0.1

        bounds = [1, 1000]
        while bounds[1] - bounds[0] > 1:
            middle = sum(bounds) // 2
            bounds = [bounds[0], middle] if learned(middle) else [middle, bounds[1]]
        """}, "TFH007")
    assert findings == []


def test_keras_predict_per_step_on_tensorflow_1_saves_little():
    # TensorFlow 1.x's Keras runs `predict` without TensorFlow 2's per-call data adapter: possible, saying why. The
    # same code with a TensorFlow 2 pin stays likely.
    script = """
        import random
        import numpy as np
        import tensorflow as tf
        from keras.models import Sequential
        from keras.layers import Dense

        model = Sequential([Dense(64, activation="relu", input_dim=4), Dense(2)])
        model.compile(loss="mse", optimizer="adam")
        memory = []
        for t in range(100000):
            action = np.argmax(model.predict(state.reshape(1, 4)))
            state, reward, done, _ = env.step(action)
            model.train_on_batch(state.reshape(1, 4), np.array([[reward, reward]]))
        """
    tf1 = _findings({"qlearn.py": script + "config = tf.ConfigProto()\n"}, "TFH007")
    assert [(f.location.line, f.confidence) for f in tf1] == [(11, Confidence.POSSIBLE)]
    assert "runs on TensorFlow 1.x: `tf.ConfigProto` (qlearn.py:14:10) exists only there" in tf1[0].evidence[-1].message
    assert "sets up an iterator" not in tf1[0].message
    pinned = _findings({"qlearn.py": script, "requirements.txt": "tensorflow==1.15\n"}, "TFH007")
    assert [f.confidence for f in pinned] == [Confidence.POSSIBLE]
    tf2 = _findings({"qlearn.py": script, "requirements.txt": "tensorflow>=2.4\n"}, "TFH007")
    assert [f.confidence for f in tf2] == [Confidence.LIKELY]


def test_a_small_cnn_on_cifar_is_not_heavy():
    # Four convolutions of 64+ filters on 32-pixel CIFAR images, 16 and 8 pixels after pooling: little to gain.
    findings = _findings({"cifar.py": """
        from tensorflow.keras import datasets, layers, models

        (x_train, y_train), _ = datasets.cifar10.load_data()
        model = models.Sequential()
        model.add(layers.Conv2D(32, (3, 3), padding="same", input_shape=x_train.shape[1:], activation="relu"))
        model.add(layers.MaxPooling2D())
        for filters in (64, 64, 128, 128):
            model.add(layers.Conv2D(filters, (3, 3), padding="same", activation="relu"))
        model.add(layers.Flatten())
        model.add(layers.Dense(10, activation="softmax"))
        model.compile(optimizer="adam", loss="categorical_crossentropy")
        model.fit(x_train, y_train, batch_size=64, epochs=50)
        """}, "TFC001")
    assert [f.confidence for f in findings] == [Confidence.POSSIBLE]


def test_each_networks_target_update_through_numpy_is_its_own_finding():
    # DDPG: the actor's and the critic's soft target updates copy weights through NumPy every step; two fixes.
    networks = """
        from tensorflow import keras

        class {name}:
            def __init__(self, tau):
                self.tau = tau
                self.model = keras.Sequential([keras.layers.Dense(300, activation="relu"), keras.layers.Dense(1)])
                self.model.compile(optimizer="adam", loss="mse")
                self.target_model = keras.models.clone_model(self.model)

            def target_train(self):
                weights = self.model.get_weights()
                target_weights = self.target_model.get_weights()
                for i in range(len(weights)):
                    target_weights[i] = self.tau * weights[i] + (1 - self.tau) * target_weights[i]
                self.target_model.set_weights(target_weights)
        """
    findings = _findings({"actor.py": networks.format(name="Actor"), "critic.py": networks.format(name="Critic"),
                          "train.py": """
        from actor import Actor
        from critic import Critic

        actor, critic = Actor(0.001), Critic(0.001)
        for step in range(100000):
            critic.model.train_on_batch(states, targets)
            actor.model.train_on_batch(states, actions)
            actor.target_train()
            critic.target_train()
        """}, "TFH004")
    assert _where(findings) == [("TFH004", "actor.py", 11), ("TFH004", "critic.py", 11)]


def test_a_sequence_taking_items_from_a_dataset_object_reads_its_images():
    # The Sequence's batch is `self.dataset[j]` for each j: the dataset object's `__getitem__` reads the files.
    findings = _findings({"train.py": """
        import cv2
        import numpy as np
        from tensorflow import keras

        class Dataset:
            def __init__(self, paths):
                self.paths = paths

            def __getitem__(self, i):
                image = cv2.cvtColor(cv2.imread(self.paths[i]), cv2.COLOR_BGR2RGB)
                return image, cv2.imread(self.paths[i].replace("images", "masks"), 0)

        class Loader(keras.utils.Sequence):
            def __init__(self, dataset, batch_size=8):
                self.dataset = dataset
                self.batch_size = batch_size

            def __getitem__(self, i):
                data = [self.dataset[j] for j in range(i * self.batch_size, (i + 1) * self.batch_size)]
                return tuple(np.stack(samples) for samples in zip(*data))

            def __len__(self):
                return 100

        train_dataset = Dataset(train_paths)
        model.fit(Loader(train_dataset), epochs=40)
        """}, "TFD004")
    assert [(f.location.line, f.confidence) for f in findings] == [(26, Confidence.LIKELY)]


def test_a_generator_method_yielding_its_own_items_runs_its_getitem():
    """A YOLOv5 port hands `dataset.iter` to `from_generator`; `iter` yields `self[i]`, so each element is what the
    class's own `__getitem__` makes: an image read, decoded and resized."""
    findings = _findings({"train.py": """
        import tensorflow as tf

        class LoadImagesAndLabels:
            def __init__(self, paths):
                self.paths = paths
                self.indices = range(len(paths))

            def __getitem__(self, index):
                image = tf.image.decode_jpeg(tf.io.read_file(self.paths[index]))
                return tf.image.resize(image, (640, 640)), index

            def iter(self):
                for i in self.indices:
                    yield self[i]

        dataset = LoadImagesAndLabels(paths)
        loader = tf.data.Dataset.from_generator(dataset.iter, output_signature=(
            tf.TensorSpec([640, 640, 3], tf.float32), tf.TensorSpec([], tf.int32))).batch(16)
        model.fit(loader, epochs=300)
        """}, "TFD004", show_all=True)
    assert [(f.location.line, f.confidence) for f in findings] == [(17, Confidence.LIKELY)]


def test_a_keras_image_iterator_handed_to_the_method_that_fits():
    # The model class fits whatever iterator it is handed; the script hands it an ImageDataGenerator's.
    findings = _findings({"models/vae.py": """
        class VAE:
            def __init__(self, model):
                self.model = model

            def train_with_generator(self, data_flow, epochs, steps):
                self.model.fit_generator(data_flow, steps_per_epoch=steps, epochs=epochs)
        """, "train.py": """
        from tensorflow import keras
        from models.vae import VAE

        model = keras.Sequential([keras.layers.Conv2D(64, 3), keras.layers.Flatten(), keras.layers.Dense(200)])
        model.compile(optimizer="adam", loss="mse")
        data_gen = keras.preprocessing.image.ImageDataGenerator(rescale=1 / 255)
        data_flow = data_gen.flow_from_directory("celeb", target_size=(128, 128), batch_size=32, class_mode="input")
        VAE(model).train_with_generator(data_flow, epochs=200, steps=1000)
        """}, "TFD004")
    assert [(f.location.path.as_posix(), f.location.line, f.confidence) for f in findings] == [
        ("models/vae.py", 6, Confidence.LIKELY)]


def test_keras_evaluate_on_a_batch_sliced_by_index_times_size_written_without_spaces():
    findings = _findings({"train.py": """
        from tensorflow import keras

        def train(model, x, y, batch_size, epochs=10):
            for epoch in range(epochs):
                for i in range(x.shape[0] // batch_size):
                    model.train_on_batch(x[i*batch_size:(i+1)*batch_size], y[i*batch_size:(i+1)*batch_size])
                    model.evaluate(x[i*batch_size:(i+1)*batch_size], y[i*batch_size:(i+1)*batch_size],
                                   batch_size=batch_size)

        model = keras.Sequential([keras.layers.Dense(64), keras.layers.Dense(50)])
        model.compile(optimizer="adam", loss="mse")
        train(model, features, targets, 64)
        """}, "TFH007")
    assert _where(findings) == [("TFH007", "train.py", 7)]


def test_a_tf1_summary_written_every_step_is_as_heavy_as_the_summaries_merged_into_it():
    # pix2pix: the discriminator's summary merges a histogram of its [batch, 1] output and two losses, the
    # generator's an image too; `merge_all()` holds whatever the module makes (the image).
    findings = _findings({"model.py": """
        import tensorflow as tf

        class Pix2Pix:
            def build_model(self):
                self.d_sum = tf.summary.histogram("d", self.D)
                self.fake_sum = tf.summary.image("fake_B", self.fake_B)
                self.d_loss_sum = tf.summary.scalar("d_loss", self.d_loss)
                self.g_loss_sum = tf.summary.scalar("g_loss", self.g_loss)

            def train(self, batches):
                d_optim = tf.train.AdamOptimizer(2e-4).minimize(self.d_loss)
                g_optim = tf.train.AdamOptimizer(2e-4).minimize(self.g_loss)
                self.g_sum = tf.summary.merge([self.fake_sum, self.g_loss_sum])
                self.d_sum = tf.summary.merge([self.d_sum, self.d_loss_sum])
                everything = tf.summary.merge_all()
                for counter, batch in enumerate(batches):
                    _, summary_str = self.sess.run([d_optim, self.d_sum], feed_dict={self.data: batch})
                    self.writer.add_summary(summary_str, counter)
                    _, summary_str = self.sess.run([g_optim, self.g_sum], feed_dict={self.data: batch})
                    self.writer.add_summary(summary_str, counter)
                    summary_str = self.sess.run(everything, feed_dict={self.data: batch})
                    self.writer.add_summary(summary_str, counter)
        """}, "TFH006", show_all=True)
    assert sorted((f.location.line, f.confidence) for f in findings) == [
        (18, Confidence.POSSIBLE), (20, Confidence.LIKELY), (22, Confidence.LIKELY)]


def test_a_method_a_base_class_calls_on_self_runs_the_subclass_override_with_what_it_is_given():
    # im2latex: the base class's `train` calls `self._run_epoch(train_set)`, which the model class overrides;
    # there `minibatches(train_set, n)` only groups items: the images are read by the DataGenerator `main` made.
    findings = _findings({
        "data.py": """
            from PIL import Image

            class DataGenerator:
                def __init__(self, paths):
                    self._paths = paths

                def __iter__(self):
                    for path in self._paths:
                        yield self._load(path)

                def _load(self, path):
                    return Image.open(path).convert("L")
            """,
        "utils.py": """
            def minibatches(data, size):
                batch = []
                for item in data:
                    if len(batch) == size:
                        yield batch
                        batch = []
                    batch.append(item)
                if batch:
                    yield batch
            """,
        "base.py": """
            class BaseModel:
                def train(self, train_set):
                    for epoch in range(10):
                        self._run_epoch(train_set)

                @staticmethod
                def _run_epoch(train_set):
                    raise NotImplementedError
            """,
        "model.py": """
            import tensorflow as tf
            from base import BaseModel
            from utils import minibatches

            class Img2Seq(BaseModel):
                def build(self):
                    self.img = tf.placeholder(tf.float32, [None, 64, 64, 1])
                    self.train_op = tf.train.AdamOptimizer(1e-3).minimize(self.loss)

                def _run_epoch(self, train_set):
                    for batch in minibatches(train_set, 20):
                        self.sess.run(self.train_op, feed_dict={self.img: batch})
            """,
        "train.py": """
            from data import DataGenerator
            from model import Img2Seq

            def main():
                train_set = DataGenerator(["a.png", "b.png"])
                model = Img2Seq()
                model.build()
                model.train(train_set)

            if __name__ == "__main__":
                main()
            """}, "TFD004")
    assert [(f.location.path.as_posix(), f.location.line, f.confidence) for f in findings] == [
        ("model.py", 11, Confidence.LIKELY)]
    assert "Image.open" in findings[0].evidence[-1].message


@pytest.mark.parametrize("base, likely", [("keras.metrics.Metric", False), ("keras.layers.Layer", True)])
def test_a_pretrained_network_a_metric_builds_is_not_the_model_trained(base, likely):
    """gan-flavours-keras: the GAN's `compile` builds a KID metric whose encoder is a pretrained InceptionV3. The
    metric measures the small GAN; its network learns nothing. Built as a layer of the model, it is what trains."""
    findings = _findings({"train.py": f"""
        from tensorflow import keras

        class KID({base}):
            def __init__(self):
                super().__init__()
                self.encoder = keras.applications.InceptionV3(include_top=False, weights="imagenet")

        class GAN(keras.Model):
            def __init__(self):
                super().__init__()
                self.generator = keras.Sequential([keras.layers.Dense(32), keras.layers.Dense(2)])
                self.kid = KID()

            def call(self, x):
                return self.generator(x)

        model = GAN()
        model.compile(optimizer="adam", loss="mse")
        model.fit(x, y, epochs=10)
        """}, "TFC001")
    assert [f.confidence for f in findings if f.confidence is Confidence.LIKELY] == (
        [Confidence.LIKELY] if likely else [])


def test_a_known_architecture_frozen_for_the_whole_training_is_only_possible_one_fine_tuned_later_likely():
    # Transfer-learning tutorials: feature extraction trains a head on a frozen EfficientNet (16 bits would speed up
    # its forward pass alone); the next model unfreezes its base's top layers to fine-tune them.
    findings = _findings({"transfer.py": """
        import tensorflow as tf

        base_model = tf.keras.applications.EfficientNetB0(include_top=False)
        base_model.trainable = False
        inputs = tf.keras.layers.Input(shape=(224, 224, 3))
        x = tf.keras.layers.GlobalAveragePooling2D()(base_model(inputs, training=False))
        model_0 = tf.keras.Model(inputs, tf.keras.layers.Dense(10, activation="softmax")(x))
        model_0.compile(loss="categorical_crossentropy", optimizer="adam")
        model_0.fit(train_data, epochs=5)

        base_model = tf.keras.applications.EfficientNetB0(include_top=False)
        base_model.trainable = False
        inputs = tf.keras.layers.Input(shape=(224, 224, 3))
        x = tf.keras.layers.GlobalAveragePooling2D()(base_model(inputs, training=False))
        model_2 = tf.keras.Model(inputs, tf.keras.layers.Dense(10, activation="softmax")(x))
        model_2.compile(loss="categorical_crossentropy", optimizer="adam")
        model_2.fit(train_data, epochs=5)
        base_model.trainable = True
        for layer in base_model.layers[:-10]:
            layer.trainable = False
        model_2.compile(loss="categorical_crossentropy", optimizer=tf.keras.optimizers.Adam(1e-4))
        model_2.fit(train_data, epochs=10, initial_epoch=5)
        """}, "TFC001")
    findings = sorted(findings, key=lambda f: f.location.line)
    assert [(f.location.line, f.confidence) for f in findings] == [(7, Confidence.POSSIBLE), (15, Confidence.LIKELY)]
    assert "is frozen (`base_model.trainable = False`)" in findings[0].evidence[-1].message


def test_a_batch_loader_that_loads_a_file_of_many_batches_once_in_a_while_slices_memory_per_step():
    # chatbot-rnn: `next_batch` hands out the next of the batches it holds and loads the next preprocessed file
    # only when they are used up; reading a file every step (the second loader) is the per-step cost.
    loader = """
        import numpy as np
        import tensorflow as tf
        from PIL import Image

        class TextLoader:
            def __init__(self, files):
                self.files, self.pointer, self.num_batches, self.file_index = files, 0, 0, -1

            def _load(self, index):
                data = np.load(self.files[index])
                self.x_batches, self.y_batches = np.split(data["x"], 100), np.split(data["y"], 100)
                self.num_batches, self.pointer, self.file_index = 100, 0, index

            def next_batch(self):
                if self.file_index < 0:
                    self._load(0)
                if self.pointer >= self.num_batches:
                    self._load((self.file_index + 1) % len(self.files))
                x, y = self.x_batches[self.pointer], self.y_batches[self.pointer]
                self.pointer += 1
                return x, y

        class ImageLoader:
            def __init__(self, paths):
                self.paths, self.pointer = paths, 0

            def next_batch(self):
                images = [np.asarray(Image.open(p)) for p in self.paths[self.pointer:self.pointer + 32]]
                self.pointer += 32
                return np.stack(images), np.zeros(32)

        loader = {}(["a.npz", "b.npz"])
        train_op = tf.train.AdamOptimizer(1e-3).minimize(loss)
        with tf.Session() as sess:
            for step in range(100000):
                x, y = loader.next_batch()
                sess.run(train_op, feed_dict={{inputs: x, targets: y}})
        """
    text = _findings({"train.py": loader.format("TextLoader")}, "TFD004")
    images = _findings({"train.py": loader.format("ImageLoader")}, "TFD004")
    assert [(f.location.line, f.confidence) for f in text] == [(37, Confidence.POSSIBLE)]
    assert "slices or draws data already in memory" in text[0].evidence[-1].message
    assert [(f.location.line, f.confidence) for f in images] == [(37, Confidence.LIKELY)]


def test_a_merged_summary_holds_the_per_variable_histograms_a_subclass_module_makes_through_a_helper():
    # image_captioning: the base class's loop writes `merge_all()` every step; the model module deriving from it
    # makes a histogram of every trainable variable, through a helper called for each.
    findings = _findings({
        "base_model.py": """
            import tensorflow as tf

            class BaseModel:
                def train(self, sess, batches):
                    writer = tf.summary.FileWriter("logs")
                    for batch in batches:
                        _, summary = sess.run([self.opt_op, self.summary], feed_dict={self.images: batch})
                        writer.add_summary(summary)
            """,
        "model.py": """
            import tensorflow as tf
            from base_model import BaseModel

            class CaptionGenerator(BaseModel):
                def build(self):
                    self.opt_op = tf.train.AdamOptimizer(1e-4).minimize(self.total_loss)
                    for var in tf.trainable_variables():
                        self.variable_summary(var)
                    tf.summary.scalar("total_loss", self.total_loss)
                    self.summary = tf.summary.merge_all()

                def variable_summary(self, var):
                    tf.summary.scalar("mean", tf.reduce_mean(var))
                    tf.summary.histogram("histogram", var)
            """}, "TFH006", show_all=True)
    assert [(f.location.path.as_posix(), f.location.line, f.confidence) for f in findings] == [
        ("base_model.py", 8, Confidence.LIKELY)]


def test_an_optimizer_class_held_in_an_attribute_by_update_rule_builds_a_graph_training():
    # show-attend-and-tell: the solver keeps the optimizer's class by its update rule and makes it when it builds
    # the training op.
    # (`from utils import *`: a name the star import may bring, as far as the source tells)
    findings = _findings({"utils.py": "import numpy as np\n", "solver.py": """
        import tensorflow as tf
        from utils import *

        class CaptioningSolver:
            def __init__(self, model, update_rule="adam", learning_rate=0.001):
                self.model, self.learning_rate = model, learning_rate
                if update_rule == "adam":
                    self.optimizer = tf.train.AdamOptimizer
                elif update_rule == "momentum":
                    self.optimizer = tf.train.MomentumOptimizer

            def train(self, features, captions):
                loss = self.model.build_model()
                with tf.variable_scope(tf.get_variable_scope(), reuse=False):
                    optimizer = self.optimizer(learning_rate=self.learning_rate)
                    grads = tf.gradients(loss, tf.trainable_variables())
                    grads_and_vars = list(zip(grads, tf.trainable_variables()))
                    train_op = optimizer.apply_gradients(grads_and_vars=grads_and_vars)
                with tf.Session() as sess:
                    for i in range(100000):
                        sess.run(train_op, feed_dict={self.model.features: features[i]})
        """}, "TFC001")
    assert [f.location.line for f in findings] == [18]


def test_a_method_called_on_a_parameter_runs_that_of_the_class_the_callers_pass():
    # bilm-tf: `train(options, data, n_gpus)` takes the dataset object the script made; two classes of the repo
    # have an `iter_batches`, and `data`'s class tells which one makes the batches.
    findings = _findings({
        "data.py": """
            import numpy as np

            class LMDataset:
                def __init__(self, pattern):
                    self.pattern = pattern

                def iter_batches(self, batch_size):
                    while True:
                        yield np.zeros((batch_size, 20), dtype=np.int32)

            class ShardedDataset:
                def __init__(self, pattern):
                    self.pattern = pattern

                def iter_batches(self, batch_size):
                    with open(self.pattern) as shard:
                        for line in shard:
                            yield np.array([[ord(c) for c in line.split()[0]]] * batch_size)
            """,
        "training.py": """
            import tensorflow as tf

            def train(options, data, n_gpus):
                train_op = tf.train.AdagradOptimizer(0.2).minimize(options.loss)
                with tf.Session() as sess:
                    data_gen = data.iter_batches(64 * n_gpus)
                    for batch_no, batch in enumerate(data_gen, start=1):
                        sess.run(train_op, feed_dict={options.token_ids: batch})
            """,
        "train_elmo.py": """
            from data import ShardedDataset
            from training import train

            def main(options):
                data = ShardedDataset("corpus/*")
                train(options, data, 1)
            """}, "TFD004")
    assert [(f.location.path.as_posix(), f.location.line, f.confidence) for f in findings] == [
        ("training.py", 7, Confidence.LIKELY)]
    assert "data.py:15" in findings[0].evidence[0].message


def test_a_session_loop_feeding_the_entries_of_a_dict_its_data_layer_made():
    """Faster R-CNN's TensorFlow trainers: `blobs = data_layer.forward()` reads and resizes images into a dict each
    iteration, and the feed takes its entries (`blobs['data']`) through a dict bound the line before."""
    findings = _findings({"train.py": """
        import cv2
        import numpy as np
        import tensorflow as tf

        class DataLayer:
            def __init__(self, paths):
                self.paths = paths
            def forward(self):
                image = cv2.resize(cv2.imread(np.random.choice(self.paths)), (600, 600))
                return {"data": image[None], "im_info": np.array([[600, 600, 1.0]])}

        def train(paths, max_iters):
            images = tf.placeholder(tf.float32, (1, None, None, 3))
            info = tf.placeholder(tf.float32, (1, 3))
            loss = tf.reduce_mean(tf.layers.conv2d(images, 512, 3)) + tf.reduce_sum(info)
            train_op = tf.train.MomentumOptimizer(1e-3, 0.9).minimize(loss)
            data_layer = DataLayer(paths)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                for step in range(max_iters):
                    blobs = data_layer.forward()
                    feed_dict = {images: blobs["data"], info: blobs["im_info"], keep_prob: 0.5}
                    sess.run([loss, train_op], feed_dict=feed_dict)

        if __name__ == "__main__":
            train(["a.jpg"], 70000)
        """}, "TFD004")
    assert [(f.location.line, f.confidence) for f in findings] == [(23, Confidence.LIKELY)]


@pytest.mark.parametrize("feed, reported", [("{learning_rate: current_lr}", False),
                                             ("{learning_rate: current_lr, images: next_images(it)}", True)])
def test_a_learning_rate_a_schedule_computes_per_step_is_fed_no_batch(feed, reported):
    """pose-tensorflow reads its batches from a queue a thread fills and feeds only `learning_rate:
    lr_gen.get_lr(it)`: a setting the host computes, not a batch made in Python."""
    findings = _findings({"train.py": f"""
        import numpy as np
        import tensorflow as tf

        class LearningRate:
            def get_lr(self, it):
                return 0.01 * (0.1 ** (it // 10000))

        def next_images(it):
            return np.load(f"batch_{{it}}.npy")

        def train():
            images = tf.placeholder_with_default(queue.dequeue(), (8, 224, 224, 3))
            learning_rate = tf.placeholder(tf.float32, shape=[])
            loss = tf.reduce_mean(tf.layers.conv2d(images, 512, 3))
            train_op = tf.train.MomentumOptimizer(learning_rate, 0.9).minimize(loss)
            lr_gen = LearningRate()
            with tf.Session() as sess:
                for it in range(100000):
                    current_lr = lr_gen.get_lr(it)
                    sess.run(train_op, feed_dict={feed})

        if __name__ == "__main__":
            train()
        """}, "TFD004")
    assert bool(findings) == reported


def test_a_dataset_handed_to_fit_as_a_numpy_iterator_feeds_training():
    """`model.fit(x=dataset.repeat().as_numpy_iterator())`: the dataset's maps run for every training batch all the
    same, whatever loops preview a few of its elements before."""
    findings = _findings({"train.py": """
        import tensorflow as tf

        def char_to_index(char):
            return vocabulary.get(char.numpy().decode("utf-8"), 0)

        chars = tf.data.TextLineDataset(["wiki.txt"]).unbatch()
        indexed = chars.map(lambda c: tf.py_function(func=char_to_index, inp=[c], Tout=tf.int32))
        for index in indexed.take(20):
            print(index.numpy())
        batches = indexed.batch(201, drop_remainder=True).batch(64).prefetch(10)
        model = tf.keras.Sequential([tf.keras.layers.Embedding(96, 256), tf.keras.layers.LSTM(1024),
                                     tf.keras.layers.Dense(96)])
        model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
        model.fit(x=batches.repeat().as_numpy_iterator(), epochs=40, steps_per_epoch=1000)
        """}, "TFD003")
    assert [(f.location.line, f.confidence, f.reach) for f in findings] == [
        (7, Confidence.LIKELY, Reach.TRAINING)]


def test_a_gan_helper_that_predicts_on_fresh_noise_each_step():
    """The GAN tutorials' shape: `generate_fake_samples` draws latent points through `generate_latent_points` and
    runs the generator's `predict` on them, once per batch of the training loop; the samples plotted once per epoch
    are no per-step call."""
    findings = _findings({"gan.py": """
        from numpy import ones, zeros
        from numpy.random import randn, randint
        from keras.models import Sequential
        from keras.layers import Conv2D, Conv2DTranspose, Dense, Flatten, Reshape

        def define_generator(latent_dim):
            return Sequential([Dense(128 * 8 * 8, input_dim=latent_dim), Reshape((8, 8, 128)),
                               Conv2DTranspose(128, 4, strides=2, padding="same"), Conv2D(3, 8, padding="same")])

        def generate_latent_points(latent_dim, n_samples):
            x_input = randn(latent_dim * n_samples)
            x_input = x_input.reshape(n_samples, latent_dim)
            return x_input

        def generate_fake_samples(generator, latent_dim, n_samples):
            x_input = generate_latent_points(latent_dim, n_samples)
            X = generator.predict(x_input)
            return X, zeros((n_samples, 1))

        def summarize_performance(epoch, g_model, latent_dim):
            points = generate_latent_points(latent_dim, 100)
            save_plot(g_model.predict(points), epoch)

        def train(g_model, d_model, gan_model, dataset, latent_dim, n_epochs=100, n_batch=128):
            for i in range(n_epochs):
                for j in range(dataset.shape[0] // n_batch):
                    ix = randint(0, dataset.shape[0], n_batch // 2)
                    d_model.train_on_batch(dataset[ix], ones((n_batch // 2, 1)))
                    X_fake, y_fake = generate_fake_samples(g_model, latent_dim, n_batch // 2)
                    d_model.train_on_batch(X_fake, y_fake)
                    gan_model.train_on_batch(generate_latent_points(latent_dim, n_batch), ones((n_batch, 1)))
                summarize_performance(i, g_model, latent_dim)

        generator = define_generator(100)
        train(generator, discriminator, gan, load_real_samples(), 100)
        """}, "TFH007")
    assert [(f.location.line, f.confidence) for f in findings] == [(17, Confidence.LIKELY)]
    assert "drawn each call (`generate_latent_points`)" in findings[0].evidence[0].message


def test_a_gan_loop_that_predicts_on_noise_drawn_inline():
    """The same, with the noise drawn in the call's argument (`generator.predict(np.random.uniform(...))`), between
    the discriminator's and the adversarial model's `train_on_batch` of each iteration."""
    findings = _findings({"gan.py": """
        import numpy as np
        from keras.models import Sequential
        from keras.layers import Conv2D, Conv2DTranspose, Dense, Flatten, Reshape

        generator = Sequential([Dense(7 * 7 * 64, input_dim=100), Reshape((7, 7, 64)),
                                Conv2DTranspose(1, 5, strides=4, padding="same")])
        discriminator = Sequential([Conv2D(64, 5, input_shape=(28, 28, 1)), Flatten(), Dense(1)])
        adversarial = Sequential([generator, discriminator])

        def train(data, iterations, batch=128):
            for i in range(iterations):
                real = data[np.random.choice(data.shape[0], batch, replace=False)]
                fake = generator.predict(np.random.uniform(-1.0, 1.0, size=[batch, 100]))
                discriminator.train_on_batch(np.concatenate((real, fake)), np.ones([2 * batch, 1]))
                adversarial.train_on_batch(np.random.uniform(-1.0, 1.0, size=[batch, 100]), np.ones([batch, 1]))

        train(np.load("drawings.npy"), 3000)
        """}, "TFH007")
    assert [(f.location.line, f.confidence) for f in findings] == [(13, Confidence.LIKELY)]
    assert "drawn each iteration (`np.random.uniform`)" in findings[0].evidence[0].message


def test_batches_sliced_from_an_encoded_text_need_no_pipeline_to_be_likely():
    """The char-RNN tutorials' `get_batches`: windows sliced from one encoded array, the targets a shifted copy in
    `np.zeros_like`; nothing read or computed per sample. A generator that fills its zeros sample by sample does
    work in Python."""
    model = """
        import numpy as np
        import tensorflow as tf

        inputs = tf.placeholder(tf.int32, (100, 100))
        targets = tf.placeholder(tf.int32, (100, 100))
        cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(512) for _ in range(2)])
        outputs, state = tf.nn.dynamic_rnn(cell, tf.one_hot(inputs, 83), dtype=tf.float32)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=targets, logits=tf.layers.dense(outputs, 83)))
        train_op = tf.train.AdamOptimizer(1e-3).minimize(loss)
        with tf.Session() as sess:
            for e in range(20):
                for x, y in get_batches(encoded, 100, 100):
                    sess.run([loss, train_op], feed_dict={inputs: x, targets: y})
        """
    sliced = """
        def get_batches(arr, n_seqs, n_steps):
            arr = arr[:len(arr) // (n_seqs * n_steps) * n_seqs * n_steps].reshape((n_seqs, -1))
            for n in range(0, arr.shape[1], n_steps):
                x = arr[:, n:n + n_steps]
                y = np.zeros_like(x)
                y[:, :-1], y[:, -1] = x[:, 1:], x[:, 0]
                yield x, y
        """
    filled = """
        def get_batches(text, n_seqs, n_steps):
            for start in range(0, len(text), n_seqs * n_steps):
                x = np.zeros((n_seqs, n_steps), dtype=np.int32)
                for row in range(n_seqs):
                    for step in range(n_steps):
                        x[row, step] = vocab[text[start + row * n_steps + step]]
                yield x[:, :-1], x[:, 1:]
        """
    for makers, confidence in ((sliced, Confidence.POSSIBLE), (filled, Confidence.LIKELY)):
        findings = _findings({"train.py": textwrap.dedent(makers) + textwrap.dedent(model)}, "TFD004")
        assert [f.confidence for f in findings] == [confidence]


def test_ctr_models_multiply_narrow_per_head_weights_and_split_activations():
    """Click-through-rate notebooks (AutoInt, xDeepFM) write their interaction layers with `tf.matmul`: on
    per-head weights kept in lists (`W_Q.append(tf.Variable(...shape=(k, d)))`, `W_Q[i]`) 6 wide, and on slices of
    split activations (`x0_cols[i]`). Neither is a wide dense layer: the model is too small to be sure of a gain."""
    findings = _findings({"ctr.py": """
        import tensorflow as tf
        from tensorflow.keras.layers import Concatenate, Dense, Embedding, Input
        from tensorflow.keras.models import Model

        def auto_interacting(embed_map, d=6, n_attention_head=2):
            k = embed_map.shape[-1]
            heads, W_Q, W_K, W_V = [], [], [], []
            for i in range(n_attention_head):
                W_Q.append(tf.Variable(tf.random.truncated_normal(shape=(k, d))))
                W_K.append(tf.Variable(tf.random.truncated_normal(shape=(k, d))))
                W_V.append(tf.Variable(tf.random.truncated_normal(shape=(k, d))))
            for i in range(n_attention_head):
                embed_q = tf.matmul(embed_map, W_Q[i])
                embed_k = tf.matmul(embed_map, W_K[i])
                embed_v = tf.matmul(embed_map, W_V[i])
                energy = tf.matmul(embed_q, tf.transpose(embed_k, [0, 2, 1]))
                heads.append(tf.matmul(tf.nn.softmax(energy), embed_v))
            return Concatenate(axis=-1)(heads)

        def compressed_interaction(x0, xl, k):
            x0_cols, xl_cols = tf.split(x0, k, axis=-1), tf.split(xl, k, axis=-1)
            return Concatenate(axis=-1)([tf.matmul(xl_cols[i], x0_cols[i], transpose_b=True) for i in range(k)])

        inputs = [Input([1]) for _ in range(39)]
        embeds = Concatenate(axis=1)([Embedding(1000, 8)(x) for x in inputs])
        xl = embeds
        for _ in range(3):
            xl = auto_interacting(xl)
        crossed = compressed_interaction(embeds, embeds, 8)
        output = Dense(1, activation="sigmoid")(Concatenate()([tf.keras.layers.Flatten()(xl),
                                                               tf.keras.layers.Flatten()(crossed)]))
        model = Model(inputs, output)
        model.compile(optimizer="adam", loss="binary_crossentropy")
        model.fit(train_x, train_y, epochs=5, batch_size=256)
        """}, "TFC001")
    assert [f.confidence for f in findings] == [Confidence.POSSIBLE]


@pytest.mark.parametrize("feeding, line", [
    ("""
     def image_mask_generator(image_generator, mask_generator):
         train_generator = zip(image_generator, mask_generator)
         for (img, mask) in train_generator:
             yield (img, mask)

     model.fit(image_mask_generator(images, masks), steps_per_epoch=100, epochs=50)
     """, 21),
    ("""
     model.fit_generator(zip(images, masks), steps_per_epoch=100, epochs=50)
     """, 16),
    ("""
     from itertools import izip
     pairs = izip(images, masks)
     for epoch in xrange(40):
         for step in xrange(100):
             img, mask = next(pairs)
             model.train_on_batch(img, mask)
     """, 20),
], ids=["a generator over the zipped iterators", "the zipped iterators",
        "Python 2's izip of the iterators, one batch taken per step"])
def test_segmentation_trained_on_two_augmenting_iterators_zipped(feeding: str, line: int):
    """U-Net tutorials augment images and masks alike with two `ImageDataGenerator`s on one seed and zip their
    iterators, directly or in a generator that yields the pairs: each batch is augmented in Python."""
    model = textwrap.dedent("""
        from tensorflow.keras.layers import Conv2D, Input
        from tensorflow.keras.models import Model
        from tensorflow.keras.preprocessing.image import ImageDataGenerator

        arguments = dict(rotation_range=90, width_shift_range=0.3, shear_range=0.5, zoom_range=0.3,
                         horizontal_flip=True, fill_mode="reflect")
        images = ImageDataGenerator(**arguments).flow(X_train, batch_size=16, seed=42)
        masks = ImageDataGenerator(**arguments).flow(y_train, batch_size=16, seed=42)
        inputs = Input((256, 256, 1))
        x = inputs
        for filters in (64, 128, 256, 512, 1024):
            x = Conv2D(filters, 3, padding="same", activation="relu")(x)
        model = Model(inputs, Conv2D(1, 1, activation="sigmoid")(x))
        model.compile(optimizer="adam", loss="binary_crossentropy")
        """)
    findings = _findings({"train.py": model + textwrap.dedent(feeding)}, "TFD004")
    assert [(f.location.line, f.confidence) for f in findings] == [(line, Confidence.LIKELY)]


def test_a_feature_extractor_predicting_the_batch_a_loop_index_picks():
    """SRGAN tutorials cut the data into a list of batches first, then pick one per iteration by index
    (`hr_imgs = train_hr_batches[b]`) and run the VGG feature extractor's `predict` on it, next to the
    `train_on_batch` of the combined model."""
    findings = _findings({"train.py": """
        import numpy as np
        from tqdm import tqdm
        from tensorflow.keras.applications import VGG19
        from tensorflow.keras.models import Model

        vgg = VGG19(weights="imagenet", include_top=False, input_shape=(128, 128, 3))
        vgg = Model(vgg.inputs, vgg.layers[10].output)
        train_hr_batches = [hr_train[i:i + 1] for i in range(len(hr_train))]
        train_lr_batches = [lr_train[i:i + 1] for i in range(len(lr_train))]
        for e in range(5):
            for b in tqdm(range(len(train_hr_batches))):
                lr_imgs = train_lr_batches[b]
                hr_imgs = train_hr_batches[b]
                image_features = vgg.predict(hr_imgs)
                gan_model.train_on_batch([lr_imgs, hr_imgs], [np.ones((1, 1)), image_features])
        """}, "TFH007")
    assert [(f.location.line, f.confidence) for f in findings] == [(14, Confidence.LIKELY)]
    assert "the item `train_hr_batches[b]` of each iteration" in findings[0].evidence[0].message


def test_a_segmentation_models_unet_on_an_imagenet_backbone_is_compute_heavy():
    """`segmentation_models` builds a whole encoder-decoder on a ResNet or EfficientNet backbone: one call, a
    network as heavy as the backbone at the tiles' size."""
    findings = _findings({"train.py": """
        import segmentation_models as sm

        preprocess_input = sm.get_preprocessing("resnet34")
        model = sm.Unet("resnet34", encoder_weights="imagenet", classes=6, activation="softmax")
        model.compile("adam", loss=sm.losses.categorical_focal_dice_loss, metrics=[sm.metrics.iou_score])
        model.fit(preprocess_input(X_train), y_train, batch_size=16, epochs=25, validation_data=(X_val, y_val))
        """}, "TFC001")
    assert [(f.location.line, f.confidence) for f in findings] == [(4, Confidence.LIKELY)]


def test_a_step_method_feeding_the_blobs_its_caller_read_this_iteration():
    """tf-faster-rcnn's shape: the trainer's loop reads `blobs = self.data_layer.forward()` (images read and
    resized with OpenCV) and hands them to the network's `train_step(sess, blobs, train_op)`, which feeds
    `blobs['data']` to the session."""
    findings = _findings({"nets/network.py": """
        import tensorflow as tf

        class Network:
            def create_architecture(self):
                self._image = tf.placeholder(tf.float32, shape=[1, None, None, 3])
                self._im_info = tf.placeholder(tf.float32, shape=[3])
                net = self._image
                for filters in (64, 128, 256, 512, 512):
                    net = tf.layers.conv2d(net, filters, 3, padding="same", activation=tf.nn.relu)
                self._loss = tf.reduce_mean(net) + tf.reduce_sum(self._im_info)
                return self._loss

            def train_step(self, sess, blobs, train_op):
                feed_dict = {self._image: blobs["data"], self._im_info: blobs["im_info"]}
                loss, _ = sess.run([self._loss, train_op], feed_dict=feed_dict)
                return loss
        """, "data_layer.py": """
        import cv2
        import numpy as np

        class RoIDataLayer:
            def __init__(self, roidb):
                self._roidb = roidb
            def forward(self):
                entry = self._roidb[np.random.randint(len(self._roidb))]
                image = cv2.resize(cv2.imread(entry["image"]), (1000, 600))
                return {"data": image[None], "im_info": np.array([600, 1000, 1.0])}
        """, "train_val.py": """
        import tensorflow as tf
        from data_layer import RoIDataLayer
        from nets.network import Network

        class SolverWrapper:
            def __init__(self, network, roidb):
                self.net = network
                self.data_layer = RoIDataLayer(roidb)

            def train_model(self, sess, max_iters):
                loss = self.net.create_architecture()
                train_op = tf.train.MomentumOptimizer(1e-3, 0.9).minimize(loss)
                sess.run(tf.global_variables_initializer())
                iter = 0
                while iter < max_iters:
                    blobs = self.data_layer.forward()
                    self.net.train_step(sess, blobs, train_op)
                    iter += 1

        if __name__ == "__main__":
            with tf.Session() as sess:
                SolverWrapper(Network(), roidb).train_model(sess, 70000)
        """}, "TFD004")
    assert [(f.location.path.as_posix(), f.confidence) for f in findings] == [("nets/network.py", Confidence.LIKELY)]
    assert "cv2.imread" in findings[0].evidence[1].message


def test_an_agent_predicting_one_state_then_taking_the_argmax_of_the_bound_result():
    """Keras DQN notebooks: `q = model.predict(s_t)`, then `action_index = np.argmax(q)` on the next line, at
    every frame the agent does not explore (`t % FRAME_PER_ACTION == 0` with an interval of 1 is every frame),
    while the same loop trains on replayed minibatches."""
    findings = _findings({"dino.py": """
        import random
        import numpy as np
        from keras.layers import Conv2D, Dense, Flatten
        from keras.models import Sequential

        FRAME_PER_ACTION = 1
        model = Sequential([Conv2D(32, 8, strides=4, input_shape=(80, 80, 4)), Flatten(), Dense(2)])
        model.compile(loss="mse", optimizer="adam")
        s_t = np.zeros((1, 80, 80, 4))
        memory = []
        t = 0
        while True:
            if t % FRAME_PER_ACTION == 0 and random.random() <= epsilon:
                action_index = random.randrange(2)
            elif t % FRAME_PER_ACTION == 0:
                q = model.predict(s_t)
                action_index = np.argmax(q)
            x_t1, r_t, terminal = game.get_state(action_index)
            s_t1 = np.append(x_t1.reshape(1, 80, 80, 1), s_t[:, :, :, :3], axis=3)
            memory.append((s_t, action_index, r_t, s_t1, terminal))
            minibatch = random.sample(memory, min(len(memory), 32))
            inputs = np.concatenate([m[0] for m in minibatch])
            model.train_on_batch(inputs, np.zeros((len(minibatch), 2)))
            s_t = s_t1
            t += 1
        """}, "TFH007")
    assert [(f.location.line, f.confidence) for f in findings] == [(16, Confidence.LIKELY)]
    assert "`np.argmax(q)`" in findings[0].evidence[0].message


@pytest.mark.parametrize("call, confidence", [("create_model()", Confidence.POSSIBLE),
                                              ("create_model(trainable=TRAINABLE)", Confidence.POSSIBLE),
                                              ("create_model(trainable=True)", Confidence.LIKELY)])
def test_a_backbone_frozen_through_a_flag_its_builder_defaults_to_false(call: str, confidence: Confidence):
    """Localization examples freeze the backbone with `layer.trainable = trainable`, a builder parameter that
    defaults to False: frozen for the training where no call passes True."""
    findings = _findings({"train.py": f"""
        from tensorflow.keras.applications.mobilenet_v2 import MobileNetV2
        from tensorflow.keras.layers import Conv2D, Reshape
        from tensorflow.keras.models import Model

        TRAINABLE = False
        def create_model(trainable=False):
            model = MobileNetV2(input_shape=(224, 224, 3), include_top=False, alpha=1.0)
            for layer in model.layers:
                layer.trainable = trainable
            x = Conv2D(4, kernel_size=3, name="coords")(model.layers[-1].output)
            return Model(inputs=model.input, outputs=Reshape((4,))(x))

        model = {call}
        model.compile(loss="mean_squared_error", optimizer="adam")
        model.fit(train_images, train_boxes, epochs=200, batch_size=32)
        """}, "TFC001")
    assert [(f.location.line, f.confidence) for f in findings] == [(11, confidence)]


@pytest.mark.parametrize("freeze, confidence", [
    ("if freeze_backbone:\n    for layer in inception.layers:\n        layer.trainable = False", Confidence.LIKELY),
    ("for layer in inception.layers:\n    if \"normalization\" in layer.name:\n        layer.trainable = False",
     Confidence.LIKELY),
    ("if FREEZE:\n    inception.trainable = False", Confidence.POSSIBLE)])
def test_a_backbone_frozen_only_when_the_run_asks_or_only_its_normalization_learns(freeze: str, confidence: Confidence):
    """A RetinaNet pipeline freezes its InceptionV3 backbone under `if freeze_backbone:`, a flag its callers pass
    from their configuration, and always freezes only the batch-normalization layers (keras-FRCNN): the backbone
    trains. Under a constant the source sets (`FREEZE = True`), the freeze is the run's."""
    written = textwrap.indent(freeze, " " * 12).lstrip()
    findings = _findings({"train.py": f"""
        import keras

        FREEZE = True

        def inception_backbone(input_tensor, freeze_backbone=False):
            inception = keras.applications.inception_v3.InceptionV3(input_tensor=input_tensor, include_top=False)
            {written}
            return keras.Model(inputs=input_tensor, outputs=inception.output)

        def retinanet(config):
            inputs = keras.Input(shape=(800, 800, 3))
            backbone = inception_backbone(inputs, freeze_backbone=config.freeze_backbone)
            outputs = keras.layers.Conv2D(9 * config.num_classes, 3, padding="same")(backbone.output)
            return keras.Model(inputs=inputs, outputs=outputs)

        model = retinanet(config)
        model.compile(loss="binary_crossentropy", optimizer="adam")
        model.fit_generator(generator, steps_per_epoch=10000, epochs=50)
        """}, "TFC001")
    assert [(f.location.line, f.confidence) for f in findings] == [(14 + freeze.count("\n"), confidence)]


def test_a_gan_written_for_multi_backend_keras_predicts_without_data_adapters():
    """A Keras 1-era DCGAN (`Dense(input_dim=100, output_dim=1024)`, accepted up to Keras 2.3 only) runs where
    `predict` slices arrays without TensorFlow 2's per-call set-up: the per-batch `predict` saves little."""
    findings = _findings({"dcgan.py": """
        import numpy as np
        from keras.layers import Activation, Dense
        from keras.models import Sequential

        def generator_model():
            model = Sequential()
            model.add(Dense(input_dim=100, output_dim=1024))
            model.add(Activation("tanh"))
            model.add(Dense(784))
            return model

        g = generator_model()
        g.compile(loss="binary_crossentropy", optimizer="SGD")
        for epoch in range(100):
            for index in range(X_train.shape[0] // 128):
                noise = np.random.uniform(-1, 1, size=(128, 100))
                generated_images = g.predict(noise, verbose=0)
                d_loss = d.train_on_batch(np.concatenate((X_train[index * 128:(index + 1) * 128], generated_images)),
                                          [1] * 128 + [0] * 128)
        """}, "TFH007")
    assert [(f.location.line, f.confidence) for f in findings] == [(17, Confidence.POSSIBLE)]
    assert "`Dense(output_dim=...)` (dcgan.py:7:15) is Keras 1's spelling" in findings[0].evidence[1].message


def test_an_embeddings_output_dim_is_keras_2s_spelling_too():
    """`Embedding(input_dim=vocab_size, output_dim=256)` is how Keras 2 and tf.keras name an embedding's width (a
    GPT's token embedding, check 72): no sign of Keras 1, so mixed precision needs no port first. `Dense(output_dim=
    ...)` is Keras 1's."""
    script = """
        import tensorflow as tf
        from tensorflow.keras import layers

        inputs = layers.Input(shape=(256,))
        x = layers.Embedding(input_dim=50000, output_dim=512)(inputs)
        for _ in range(12):
            x = layers.Dense(2048, activation="relu")(x)
            x = layers.Dense({width})(x)
        model = tf.keras.Model(inputs, layers.Dense(50000)(x))
        model.compile(loss="sparse_categorical_crossentropy", optimizer="adam")
        model.fit(tokens, targets, batch_size=64, epochs=10)
        """
    (finding,) = _findings({"gpt.py": script.format(width="512")}, "TFC001")
    assert not any("multi-backend Keras" in e.message for e in finding.evidence)
    (finding,) = _findings({"gpt.py": script.format(width="output_dim=512")}, "TFC001", show_all=True)
    assert any("`output_dim=` in `layers.Dense`" in e.message for e in finding.evidence)


def test_a_training_script_importing_models_written_for_multi_backend_keras_runs_there_too():
    """The DCGAN's training script is plain (`g.predict(noise)`, `train_on_batch`); the models it star-imports are
    written in Keras 1's spelling (`Dense(input_dim=100, output_dim=1024)`): the whole program runs on Keras 2.3 or
    older, whose `predict` has no per-call set-up to save (check 69: DCGAN-SVHN)."""
    findings = _findings({"model.py": """
        from keras.layers import Activation, Dense
        from keras.models import Sequential

        def generator_model():
            model = Sequential()
            model.add(Dense(input_dim=100, output_dim=1024))
            model.add(Activation("tanh"))
            return model
        """, "train.py": """
        import numpy as np
        from model import *

        g = generator_model()
        g.compile(loss="binary_crossentropy", optimizer="SGD")
        for epoch in range(100):
            for index in range(num_batches):
                noise = np.random.uniform(-1, 1, size=(128, 100))
                generated_images = g.predict(noise, verbose=0)
                d.train_on_batch(np.concatenate((get_batch(index), generated_images)), [1] * 128 + [0] * 128)
        """}, "TFH007")
    assert [(f.location.line, f.confidence) for f in findings] == [(9, Confidence.POSSIBLE)]
    assert "`Dense(output_dim=...)` (model.py:6:15) is Keras 1's spelling" in findings[0].evidence[1].message


def test_tf1_text_maps_running_ahead_of_the_steps_are_only_possible():
    """TF1 sequence-to-sequence trainers map sentences to ids one element at a time (`string_split`, a vocabulary
    table's `lookup`, slicing, `concat`), each map followed by a `.prefetch()`: one thread keeps up with a step
    that runs an LSTM. A serial map that decodes images is the step's bottleneck all the same."""
    findings = _findings({"train.py": """
        import tensorflow as tf

        def text_input(source_file, vocab):
            dataset = tf.data.TextLineDataset(source_file)
            dataset = dataset.map(lambda src: tf.string_split([src]).values).prefetch(1000)
            dataset = dataset.map(lambda src: tf.cast(vocab.lookup(src[:50]), tf.int32)).prefetch(1000)
            dataset = dataset.map(lambda src: (src, tf.size(src))).prefetch(1000)
            return dataset.shuffle(100).repeat().padded_batch(128, padded_shapes=([None], []))

        def image_input(files):
            dataset = tf.data.TFRecordDataset(files)
            dataset = dataset.map(lambda r: tf.image.decode_jpeg(tf.parse_single_example(r, FEATURES)["image"]))
            return dataset.prefetch(1000).batch(128)

        sentences, lengths = text_input("train.en", vocab).make_one_shot_iterator().get_next()
        images = image_input(["train.tfrecord"]).make_one_shot_iterator().get_next()
        loss = tf.reduce_mean(tf.layers.dense(tf.one_hot(sentences, 1000), 512)) + tf.reduce_mean(
            tf.layers.conv2d(tf.cast(images, tf.float32), 64, 3))
        train_op = tf.train.AdamOptimizer().minimize(loss)
        with tf.Session() as sess:
            for step in range(100000):
                sess.run(train_op)
        """}, "TFD002")
    assert sorted((f.location.line, f.confidence) for f in findings) == [
        (5, Confidence.POSSIBLE), (6, Confidence.POSSIBLE), (7, Confidence.POSSIBLE), (12, Confidence.LIKELY)]


def test_a_map_sampling_file_names_per_identity_does_light_work():
    """triplet-reid's first map picks K file names of one person: a mask over the names, a shuffle of a few indices
    and a gather. Stateful, so serial, but microseconds per element ahead of the parallel decoding map."""
    findings = _findings({"train.py": """
        import tensorflow as tf

        def sample_k_fids_for_pid(pid, all_fids, all_pids, batch_k):
            possible_fids = tf.boolean_mask(all_fids, tf.equal(all_pids, pid))
            count = tf.shape(possible_fids)[0]
            padded_count = tf.cast(tf.ceil(batch_k / tf.cast(count, tf.float32)), tf.int32) * count
            shuffled = tf.random_shuffle(tf.mod(tf.range(padded_count), count))
            return tf.gather(possible_fids, shuffled[:batch_k]), tf.fill([batch_k], pid)

        dataset = tf.data.Dataset.from_tensor_slices(unique_pids).shuffle(1000).repeat(None)
        dataset = dataset.map(lambda pid: sample_k_fids_for_pid(pid, all_fids=fids, all_pids=pids, batch_k=4))
        dataset = dataset.apply(tf.contrib.data.unbatch())
        dataset = dataset.map(load_image, num_parallel_calls=8).batch(72).prefetch(1)
        images, fids, pids = dataset.make_one_shot_iterator().get_next()
        train_op = tf.train.AdamOptimizer().minimize(tf.reduce_mean(tf.layers.conv2d(images, 512, 3)))
        with tf.Session() as sess:
            for step in range(25000):
                sess.run(train_op)
        """}, "TFD002")
    assert [(f.location.line, f.confidence) for f in findings] == [(11, Confidence.POSSIBLE)]
    assert any("only splits, selects, looks up, slices, shuffles, casts or draws random numbers" in e.message
               for e in findings[0].evidence)


def test_maps_drawing_a_noise_vector_or_parsing_a_csv_line_do_light_work():
    """A GAN's MNIST pipeline maps `preprocess` (scale the image, draw a noise vector of fixed size) with no parallel
    calls: stateful, so serial at run time, but a few microseconds per element; a TF1 Estimator tutorial's
    `decode_csv` of one line is as cheap. Noise the size of the element, or a flip, is work per pixel."""
    findings = _findings({"train.py": """
        import tensorflow as tf

        def preprocess(image):
            image = tf.reshape(tf.image.convert_image_dtype(image, tf.float32), [-1]) * 2 - 1.0
            return tf.random.uniform(shape=(20,), minval=-1.0, maxval=1.0), image

        def diffuse(image):
            return image + tf.random.normal(tf.shape(image)), image

        def flip(image):
            return tf.image.random_flip_left_right(image), image

        gan_set = tf.data.Dataset.from_tensor_slices(mnist).map(preprocess).shuffle(10000).batch(64)
        noisy_set = tf.data.Dataset.from_tensor_slices(mnist).map(diffuse).shuffle(10000).batch(64)
        flipped_set = tf.data.Dataset.from_tensor_slices(mnist).map(flip).shuffle(10000).batch(64)
        model.fit(gan_set, epochs=10)
        model.fit(noisy_set, epochs=10)
        model.fit(flipped_set, epochs=10)
        """}, "TFD002")
    assert [(f.location.line, f.confidence) for f in findings] == [
        (14, Confidence.LIKELY), (15, Confidence.LIKELY), (13, Confidence.POSSIBLE)]
    assert "its function only splits, selects, looks up, slices, shuffles, casts or draws random numbers per " \
           "element: one thread likely keeps up" in [e.message for e in findings[2].evidence]
    csv, = _findings({"train.py": """
        import tensorflow as tf

        def csv_input_fn():
            return tf.data.TextLineDataset("train.csv").map(lambda line: tf.decode_csv(line, [[0.0]] * 8)).batch(8)

        estimator = tf.estimator.LinearClassifier(feature_columns)
        estimator.train(csv_input_fn, steps=1000)
        """}, "TFD002")
    assert csv.confidence is Confidence.POSSIBLE


def test_python_ops_of_a_tf1_training_graph_run_every_step_unless_they_only_draw_summaries():
    """A TF1 Faster R-CNN builds its anchor-target layer as a `tf.py_func` op (NumPy box matching on the host) into
    the graph every `sess.run(train_op)` evaluates; the ground-truth boxes drawn for an image summary run only when
    summaries are written, a metric's only in evaluation; a proposal layer in Python on one branch of a switch
    (the other builds it in TensorFlow) may not be built at all."""
    findings = _findings({"lib/network.py": """
        import tensorflow as tf
        from lib.rpn import proposal_layer_py, anchor_target_layer_py, proposal_layer_tf, draw_boxes

        class Network:
            def proposal_layer(self, scores, deltas):
                if cfg.USE_E2E_TF:
                    rois = proposal_layer_tf(scores, deltas)
                else:
                    rois = tf.py_func(proposal_layer_py, [scores, deltas], tf.float32)
                return rois

            def metric_fn(self, boxes):
                return tf.py_func(coco_map, [boxes], tf.float32)

            def anchor_target_layer(self, scores, boxes):
                return tf.reshape(tf.py_func(anchor_target_layer_py, [scores, boxes], tf.float32), [-1])

            def summaries(self, image, boxes):
                return tf.summary.image("gt", tf.py_func(draw_boxes, [image, boxes], tf.float32))

            def build(self, images, boxes):
                scores, deltas = self.rpn(images)
                rois = self.proposal_layer(scores, deltas)
                labels = self.anchor_target_layer(scores, boxes)
                self.summary = self.summaries(images, boxes)
                self.mean_ap = self.metric_fn(rois)
                self.loss = tf.reduce_mean(tf.losses.softmax_cross_entropy(labels, scores)) + tf.reduce_mean(rois)
        """, "train.py": """
        import tensorflow as tf
        from lib.network import Network

        def train(max_iters):
            net = Network()
            net.build(images, boxes)
            train_op = tf.train.MomentumOptimizer(0.001, 0.9).minimize(net.loss)
            with tf.Session() as sess:
                for step in range(max_iters):
                    sess.run(train_op, feed_dict={images: next_blobs()})

        if __name__ == "__main__":
            train(70000)
        """}, "TFD003", show_all=True)
    assert [(f.location.line, f.confidence) for f in findings] == [(16, Confidence.LIKELY), (9, Confidence.POSSIBLE)]
    assert "the graph gets it only on one branch of `if cfg.USE_E2E_TF:`" in findings[1].evidence[-1].message
    assert findings[0].message.startswith("`tf.py_func` runs Python in the TensorFlow 1.x graph that the training "
                                          "loop's `sess.run` (train.py:10:13) evaluates every step")


@pytest.mark.parametrize("loop", [
    "progress = tqdm(train_data, total=steps_per_epoch)\n        for images, labels in progress:",
    "for images, labels in tqdm(train_data, desc='Batch'):",
])
def test_a_dataset_iterated_through_a_progress_bar_feeds_the_loop(loop: str):
    """A GAN's custom loop iterates its dataset through `tqdm` (bound to a name first, or inline): the progress bar
    hands the dataset's batches on, so the pipeline feeds training and its stateful map is what the step waits for."""
    findings = _findings({"train.py": f"""
        import tensorflow as tf
        from tqdm import tqdm

        def augment(image, label):
            return tf.image.random_flip_left_right(tf.image.resize(image, (512, 512))), label

        train_data = tf.data.Dataset.from_tensor_slices((paths, labels)).map(augment).batch(8).prefetch(2)
        {loop}
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(generator(images))
            optimizer.apply_gradients(zip(tape.gradient(loss, generator.trainable_variables),
                                          generator.trainable_variables))
        """}, "TFD002")
    assert [(f.location.line, f.confidence, f.reach) for f in findings] == [(7, Confidence.LIKELY, Reach.TRAINING)]


def test_predictions_once_per_epoch_or_only_the_first_step_are_not_per_step_calls():
    """A GAN trainer refits an sklearn SVM on features of the whole dataset after each epoch (its `fit` is not
    Keras training, so the epoch loop still trains only in its inner loop), and once before the first step (a flag
    its body sets); only the features of each step's own batch are predicted per step."""
    findings = _findings({"train.py": """
        import numpy as np
        from sklearn import svm
        from keras.layers import Dense, Input
        from keras.models import Model

        class SupportVectorGAN:
            def __init__(self):
                inputs = Input(shape=(64,))
                self.features = Model(inputs, Dense(128)(inputs))
                self.generator = Model(inputs, Dense(64)(inputs))
                self.svm = svm.LinearSVC()
                self.fitted_once = False

            def refit_svm(self, images):
                z = np.random.normal(size=(len(images), 64))
                self.svm.fit(self.features.predict(self.generator.predict(z)), np.ones(len(images)))

            def train_on_batch(self, x_feats, x_batch):
                if not self.fitted_once:
                    self.fitted_once = True
                    self.refit_svm(self.dataset)
                return self.generator.train_on_batch(x_feats, x_batch)

            def train(self, dataset, epochs):
                self.dataset = dataset
                for epoch in range(epochs):
                    for x_batch in np.split(dataset, len(dataset) // 64):
                        self.train_on_batch(self.features.predict(x_batch), x_batch)
                    self.refit_svm(dataset)

        SupportVectorGAN().train(np.load("images.npy"), 100)
        """}, "TFH007")
    assert [(f.location.line, f.confidence) for f in findings] == [(28, Confidence.LIKELY)]


def test_a_method_no_code_names_is_dead_even_in_a_class_training_uses():
    """A text classifier's `Graph` class has `fit`, which the training script calls, and a leftover `fit_sim` that
    nothing names: no run reaches it, so its finding stays out of the default output. A method named only in a
    string (`getattr(graph, "fit_by_name")`) may run."""
    method = """
            def {name}(self, paths):
                data = tf.data.Dataset.from_tensor_slices(paths).map(self.augment).batch(64).prefetch(2)
                self.model.fit(data, epochs=10)
    """
    findings = _findings({"graph.py": """
        import tensorflow as tf

        class Graph:
            def __init__(self):
                self.model = tf.keras.Sequential([tf.keras.layers.Dense(2)])
                self.model.compile("adam", "categorical_crossentropy")

            def augment(self, path):
                return tf.image.random_flip_left_right(tf.io.decode_jpeg(tf.io.read_file(path)))
        """ + "".join(method.format(name=name) for name in ("fit", "fit_sim", "fit_by_name")), "train.py": """
        from graph import Graph

        graph = Graph()
        graph.fit(PATHS)
        getattr(graph, "fit_by_name")(PATHS)
        """}, "TFD002", show_all=True)
    assert sorted((f.location.line, f.reach) for f in findings) == [
        (12, Reach.TRAINING), (16, Reach.OTHER), (20, Reach.TRAINING)]


def test_a_generator_that_maps_a_reading_function_over_its_paths_reads_files():
    """An image-captioning generator preprocesses each batch with `map(partial(self._preprocess_an_image, ...),
    paths)`: Python's `map` runs the method, which opens and decodes a JPEG per image."""
    finding, = _findings({"train.py": """
        from functools import partial
        import numpy as np
        from keras.preprocessing import image

        class ImagePreprocessor:
            def preprocess_images(self, paths, random_transform=True):
                return map(partial(self._preprocess_an_image, random_transform=random_transform), paths)

            def _preprocess_an_image(self, path, random_transform=True):
                return image.img_to_array(image.load_img(path, target_size=(299, 299)))

        def training_set(paths, captions, preprocessor):
            while True:
                for start in range(0, len(paths), 32):
                    images = np.array(list(preprocessor.preprocess_images(paths[start:start + 32])))
                    yield images, captions[start:start + 32]

        model.fit_generator(training_set(PATHS, CAPTIONS, ImagePreprocessor()), steps_per_epoch=1000, epochs=10)
        """}, "TFD004")
    assert finding.confidence is Confidence.LIKELY
    assert "which does `image.load_img`" in _evidence(finding)


def test_reading_the_global_step_a_helper_returns_is_no_second_pass():
    """`i = global_step.eval(sess)` each iteration reads a variable (the step counter `create_train_op` returns
    with the training op), not a forward pass; `loss.eval(feed_dict=...)` is one."""
    script = """
        import tensorflow as tf

        def create_train_op(loss, learning_rate):
            global_step = tf.train.get_or_create_global_step()
            train_op = tf.train.AdamOptimizer(learning_rate).minimize(loss, global_step)
            return global_step, train_op

        images = tf.placeholder(tf.float32, (None, 784))
        loss = tf.reduce_mean(tf.layers.dense(images, 1024))
        global_step, train_op = create_train_op(loss, 1e-3)
        sess = tf.Session()
        for _ in range(10000):
            batch = next_batch()
            i = global_step.eval(sess)
            sess.run(train_op, feed_dict={images: batch})
        """
    assert not _findings({"train.py": script}, "TFH004")
    extra = script.replace("i = global_step.eval(sess)", "i = loss.eval(session=sess, feed_dict={images: batch})")
    assert [f.location.line for f in _findings({"train.py": extra}, "TFH004")] == [14]


@pytest.mark.parametrize("after, confidence", [
    (".shuffle(100).repeat().padded_batch(128, padded_shapes=[None])", Confidence.POSSIBLE),
    (".map(lambda ids: tf.image.resize(tf.reshape(tf.cast(ids, tf.float32), [8, 8, 1]), [224, 224])).batch(128)",
     Confidence.LIKELY),
], ids=["shuffle and batch after the prefetch", "a map after the prefetch"])
def test_a_tf1_pipeline_prefetched_before_its_batching(after: str, confidence: Confidence):
    """TF1 trainers prefetch after their maps and then shuffle and pad batches: the work already runs ahead of the
    step, and only the batch's copy does not. A map after the prefetch is work that does not overlap."""
    findings = _findings({"train.py": f"""
        import tensorflow as tf

        dataset = tf.data.TextLineDataset("train.txt")
        dataset = dataset.map(lambda line: tf.string_to_number(tf.string_split([line]).values)).prefetch(1000)
        dataset = dataset{after}
        batch = dataset.make_one_shot_iterator().get_next()
        loss = tf.reduce_mean(tf.layers.dense(tf.cast(batch, tf.float32), 512))
        train_op = tf.train.AdamOptimizer().minimize(loss)
        with tf.Session() as sess:
            for step in range(100000):
                sess.run(train_op)
        """}, "TFD001")
    assert [(f.location.line, f.confidence) for f in findings] == [(5, confidence)]


@pytest.mark.parametrize("trainer", ["""
    for episode in range(3000):
        s = env.reset()
        for t in range(200):
            a = actor.choose_action(s)
            s_, r, done, info = env.step(a)
            actor.learn(s, a, r, s_)
            s = s_
    """, """
    o = env.reset()
    for t in range(100000):
        a = get_action(o)
        o2, r, d, _ = env.step(a)
        replay_buffer.store(o, a, r, o2, d)
        o = o2
        if t % 50 == 0:
            for j in range(50):
                batch = replay_buffer.sample_batch(100)
                sess.run(train_op, feed_dict={state: batch["obs1"], reward: batch["rews"]})
    """], ids=["a step method fed what the agent just played", "updates sampled from a replay memory"])
def test_an_agent_feeding_the_transitions_it_plays_is_no_input_pipeline(trainer: str):
    """Reinforcement learning feeds its updates the transitions the environment just returned, or a replay
    memory's sample of them: no reader could make those ahead of the step, in the step method the episode loop
    calls or in an update loop inside the loop that plays."""
    findings = _findings({"agent.py": textwrap.dedent("""
        import numpy as np
        import tensorflow as tf

        state = tf.placeholder(tf.float32, [None, 4])
        reward = tf.placeholder(tf.float32, [None])
        loss = tf.reduce_mean(tf.layers.dense(state, 64)) * tf.reduce_mean(reward)
        train_op = tf.train.AdamOptimizer(1e-3).minimize(loss)
        sess = tf.Session()

        class Actor:
            def learn(self, s, a, r, s_):
                s = s[np.newaxis, :]
                sess.run(train_op, feed_dict={state: s, reward: np.array([r])})

        actor = Actor()
        """) + textwrap.dedent(trainer)}, "TFD004", show_all=True)
    assert not findings


@pytest.mark.parametrize("maker, feeding", [
    ("""
     def generate_batch(words, batch_size, window):
         batch, labels = [], []
         while len(batch) < batch_size:
             center = np.random.randint(window, len(words) - window)
             for offset in random.sample(range(1, window + 1), 2):
                 batch.append(words[center])
                 labels.append(words[center + offset])
         return np.array(batch[:batch_size]), np.array(labels[:batch_size])[:, None]
     """, """
     for step in range(100000):
         x, y = generate_batch(words, 128, 2)
         sess.run(train_op, feed_dict={inputs: x, targets: y})
     """),
    ("""
     def get_batches(words, batch_size, window):
         for start in range(0, len(words), batch_size):
             batch = words[start:start + batch_size]
             x, y = [], []
             for i in range(len(batch)):
                 targets = get_targets(batch, i, window)
                 y.extend(targets)
                 x.extend([batch[i]] * len(targets))
             yield x, y
     """, """
     for epoch in range(10):
         for x, y in get_batches(words, 1000, 5):
             sess.run(train_op, feed_dict={inputs: x, targets: np.array(y)[:, None]})
     """),
], ids=["a function called per step", "a generator the loop walks"])
def test_skip_gram_batches_made_pair_by_pair_in_python(maker: str, feeding: str):
    """word2vec tutorials make each batch of (center, context) pairs in a Python loop over its samples, with a
    random draw per sample, while the step is one embedding lookup: the loop, not the data, is the cost."""
    graph = textwrap.dedent("""
        import random

        import numpy as np
        import tensorflow.compat.v1 as tf

        def get_targets(words, index, window):
            span = random.randint(1, window)
            return words[max(index - span, 0):index] + words[index + 1:index + span + 1]

        words = open("text8").read().split()
        inputs = tf.placeholder(tf.int32, [None])
        targets = tf.placeholder(tf.int32, [None, 1])
        embedding = tf.Variable(tf.random_uniform((50000, 200), -1, 1))
        weights = tf.Variable(tf.truncated_normal((50000, 200)))
        loss = tf.reduce_mean(tf.nn.sampled_softmax_loss(weights, tf.zeros(50000), targets,
                                                         tf.nn.embedding_lookup(embedding, inputs), 100, 50000))
        train_op = tf.train.AdamOptimizer().minimize(loss)
        sess = tf.Session()
        """) + textwrap.dedent(maker) + textwrap.dedent(feeding)
    findings = _findings({"word2vec.py": graph}, "TFD004")
    assert [f.confidence for f in findings] == [Confidence.LIKELY]
    assert "one at a time in a Python loop" in findings[0].evidence[-1].message


def test_the_model_a_run_with_the_default_flags_builds_of_two_branches():
    """Training scripts that offer two architectures bind the model in an `if`/`else` on a flag: the finding
    belongs to the one the default builds (here a wide ResNet, behind a flag normalized with `str(...).lower()`),
    not to the binding written last."""
    findings = _findings({
        "train.py": """
            import argparse

            from keras.layers import Conv2D, Dense, Flatten, Input
            from keras.models import Model

            parser = argparse.ArgumentParser()
            parser.add_argument("--model", type=str, default="wrn")
            args = parser.parse_args()
            model_type = str(args.model).lower()

            def wide_resnet():
                inputs = Input((224, 224, 3))
                x = inputs
                for filters in (64, 128, 256):
                    for _ in range(4):
                        x = Conv2D(filters, 3, padding="same", activation="relu")(x)
                return Model(inputs, Dense(10, activation="softmax")(Flatten()(x)))

            def small_net():
                inputs = Input((224, 224, 3))
                x = Conv2D(12, 3, activation="relu")(inputs)
                return Model(inputs, Dense(10, activation="softmax")(Flatten()(x)))

            if model_type == "wrn":
                model = wide_resnet()
            else:
                model = small_net()
            model.compile(loss="categorical_crossentropy", optimizer="sgd")
            model.fit(x_train, y_train, batch_size=128, epochs=200)
            """}, "TFC001")
    assert [(f.location.line, f.confidence) for f in findings] == [(17, Confidence.LIKELY)]


@pytest.mark.parametrize("reset", ["", "Config.structure = ModelStructure.CUSTOM"])
def test_the_model_a_config_class_picks_of_two_branches(reset):
    """An open-set classifier picks its architecture with `Config.structure`, a class setting in config.py: the
    finding belongs to the model that setting builds, unless the program sets it again."""
    findings = _findings({
        "config.py": """
            from enum import Enum

            class ModelStructure(Enum):
                RESNET = "resnet"
                CUSTOM = "custom"

            class Config:
                structure = ModelStructure.RESNET
                batch_size = 64
            """,
        "train.py": f"""
            from keras.applications import ResNet50
            from keras.layers import Conv2D, Dense, Flatten, Input
            from keras.models import Model

            from config import Config, ModelStructure
            {reset}

            def resnet():
                return ResNet50(weights=None, classes=10)

            def custom():
                inputs = Input((224, 224, 3))
                x = Conv2D(128, 3, activation="relu")(inputs)
                x = Conv2D(256, 3, activation="relu")(x)
                return Model(inputs, Dense(10, activation="softmax")(Flatten()(x)))

            if Config.structure == ModelStructure.RESNET:
                model = resnet()
            elif Config.structure == ModelStructure.CUSTOM:
                model = custom()
            model.compile(loss="categorical_crossentropy", optimizer="sgd")
            model.fit(x_train, y_train, batch_size=Config.batch_size, epochs=200)
            """}, "TFC001", show_all=True)
    shown = [f.location.line for f in findings if f.confidence is Confidence.LIKELY]
    assert shown == ([] if reset else [9])  # set again: which model trains, the source does not settle


def test_the_model_a_step_trains_is_the_one_bound_when_the_module_first_calls_it():
    """An image-captioning notebook builds its model, trains it through a `tf.function` that reads the global,
    then binds the same name to a new model that loads the weights to generate: the step trains the first."""
    findings = _findings({"captioning.py": """
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Conv2D(256, 3, padding="same") for _ in range(8)]
                                    + [tf.keras.layers.Dense(1000)])
        optimizer = tf.keras.optimizers.Adam()

        @tf.function
        def train_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(y, model(x)))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))

        for epoch in range(10):
            for x, y in train_set:
                train_step(x, y)
        model.save_weights("captioner")

        model = tf.keras.Sequential([tf.keras.layers.Conv2D(256, 3, padding="same") for _ in range(8)]
                                    + [tf.keras.layers.Dense(1000)])
        model.load_weights("captioner")
        print(model(test_images))
        """}, "TFC001", show_all=True)
    assert [f.location.line for f in findings] == [3]


def test_a_branch_on_the_argument_namespace_a_trainer_keeps_is_decided_by_the_flags_default():
    """A pruning repo's trainer keeps the parsed arguments (`self.args = args`) and takes an eager step only under
    `if self.args.prop_a != 0:`, a flag defaulting to 0: a run with the defaults takes the compiled step."""
    findings = _findings({"train.py": """
        import argparse

        import tensorflow as tf

        class Train:
            def __init__(self, model, optimizer, data, args):
                self.model, self.optimizer, self.data = model, optimizer, data
                self.args = args

            @tf.function
            def train_step(self, x, y):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(self.model(x) - y))
                grads = tape.gradient(loss, self.model.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))

            def train_step_prop(self, x, y):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(self.model(x) - y)) * self.args.prop_a
                grads = tape.gradient(loss, self.model.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))

            def __call__(self):
                for x, y in self.data:
                    if self.args.prop_a != 0:
                        self.train_step_prop(x, y)
                    else:
                        self.train_step(x, y)

        parser = argparse.ArgumentParser()
        parser.add_argument("--prop_a", type=float, default=0.0)
        args = parser.parse_args()
        Train(tf.keras.Sequential([tf.keras.layers.Dense(1)]), tf.keras.optimizers.SGD(), dataset, args)()
        """}, "TFH002", show_all=True)
    assert [f.confidence for f in findings] == [Confidence.POSSIBLE]


@pytest.mark.parametrize("factor, confidence", [("1.0", Confidence.POSSIBLE), ("4.0", Confidence.LIKELY)])
def test_layer_widths_scaled_by_a_factor_the_builder_sets(factor, confidence):
    """A speech-to-face model scales its convolutions' filters by `factor = 1.0` (`int(32 * factor)`): 32- and
    64-filter layers, counted as such, not as widths the source does not say."""
    findings = _findings({"model.py": f"""
        import tensorflow as tf

        def conv(x, filters):
            return tf.keras.layers.Conv2D(filters, 3, padding="same")(x)

        def build():
            inputs = tf.keras.Input((128, 128, 3))
            factor = {factor}
            x = conv(inputs, int(32 * factor))
            x = conv(x, int(32 * factor))
            x = conv(x, int(64 * factor))
            x = conv(x, int(64 * factor))
            x = tf.keras.layers.Dense(128)(tf.keras.layers.Flatten()(x))
            return tf.keras.Model(inputs, tf.keras.layers.Dense(15069)(x))

        model = build()
        model.compile("adam", "mse")
        model.fit(x_train, y_train, batch_size=64, epochs=50)
        """}, "TFC001", show_all=True)
    assert [(f.location.line, f.confidence) for f in findings] == [(14, confidence)]


def test_a_training_function_that_builds_its_model_through_a_global_alias():
    """`model_fn = HAN_model_1` at the top of a worker script, `model, saver = model_fn(sess)` in its `train()`: the
    alias leads the training function to the model's update, so its loop is training code, not code no training
    run reaches."""
    findings = _findings({
        "model.py": """
            import tensorflow.compat.v1 as tf

            class Classifier:
                def __init__(self, vocab_size, classes):
                    self.inputs = tf.placeholder(tf.int32, [None, None])
                    self.labels = tf.placeholder(tf.int32, [None])
                    embedded = tf.reduce_mean(tf.nn.embedding_lookup(tf.Variable(tf.zeros([vocab_size, 256])),
                                                                     self.inputs), 1)
                    logits = tf.layers.dense(tf.layers.dense(embedded, 512), classes)
                    self.loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                        labels=self.labels, logits=logits))
                    self.train_op = tf.train.AdamOptimizer().minimize(self.loss)
            """,
        "worker.py": """
            import pickle

            import numpy as np
            import tensorflow.compat.v1 as tf

            from model import Classifier

            def build_classifier(session):
                model = Classifier(50000, 5)
                session.run(tf.global_variables_initializer())
                return model

            model_fn = build_classifier

            def batches(path, size):
                with open(path, "rb") as f:
                    documents = pickle.load(f)
                for start in range(0, len(documents), size):
                    yield np.array([d["tokens"] for d in documents[start:start + size]]), \\
                        np.array([d["label"] for d in documents[start:start + size]])

            def train():
                with tf.Session() as sess:
                    model = model_fn(sess)
                    for x, y in batches("train.pickle", 30):
                        sess.run(model.train_op, {model.inputs: x, model.labels: y})

            if __name__ == "__main__":
                train()
            """}, "TFD004", show_all=True)
    assert [(f.location.path.as_posix(), f.reach) for f in findings] == [("worker.py", Reach.TRAINING)]


def test_the_repos_own_keras_image_iterator_is_read_like_flow_from_directory():
    """keras-fcn's shape: an ImageDataGenerator subclass whose own `flow_from_imageset` returns an instance of the
    repo's subclass of Keras' image `Iterator`, which makes each batch in Python 2's `next`. Training on it at batch 1,
    on the GPU the script picks, is a small batch; its `next` reads an image per sample on the host, through the
    loader object it was given."""
    findings = _findings({"voc_generator.py": """
        import numpy as np
        from keras.preprocessing.image import ImageDataGenerator, Iterator, load_img, img_to_array

        class PascalVocGenerator(ImageDataGenerator):
            def flow_from_imageset(self, loader, batch_size=1, shuffle=True):
                return IndexIterator(loader, self, batch_size=batch_size, shuffle=shuffle)

        class IndexIterator(Iterator):
            def __init__(self, image_set_loader, generator, batch_size=1, shuffle=False):
                self.image_set_loader = image_set_loader
                self.generator = generator
                super(IndexIterator, self).__init__(len(image_set_loader.filenames), batch_size, shuffle, None)

            def next(self):
                with self.lock:
                    index_array = next(self.index_generator)
                return np.stack([self.image_set_loader.load_img(j) for j in index_array])

        class ImageSetLoader(object):
            def __init__(self, filenames):
                self.filenames = filenames

            def load_img(self, index):
                return img_to_array(load_img(self.filenames[index], target_size=(224, 224)))
        """, "train.py": """
        import os
        from keras.layers import Conv2D, Input
        from keras.models import Model
        from voc_generator import ImageSetLoader, PascalVocGenerator

        os.environ["CUDA_VISIBLE_DEVICES"] = "0"
        inputs = Input((224, 224, 3))
        model = Model(inputs, Conv2D(21, 1)(Conv2D(64, 3, padding="same")(inputs)))
        model.compile(optimizer="sgd", loss="categorical_crossentropy")
        datagen = PascalVocGenerator(rescale=1 / 255.)
        loader = ImageSetLoader(["a.jpg"])
        model.fit_generator(datagen.flow_from_imageset(loader, batch_size=1), steps_per_epoch=1112, epochs=100)
        """}, "TFC003", "TFD004")
    assert [(f.code, f.location.path.as_posix(), f.location.line, f.confidence) for f in findings] == [
        ("TFC003", "train.py", 12, Confidence.LIKELY), ("TFD004", "train.py", 12, Confidence.LIKELY)]
    assert "which does `load_img`" in findings[1].evidence[1].message


def test_a_caffe_tensorflow_network_counts_the_layers_its_setup_chains():
    """Caffe-TensorFlow's shape (DeepLab, PSPNet, Faster R-CNN ports): a base `Network` whose `__init__` runs the
    subclass's own `setup`, which chains `@layer` methods (`self.feed('data').conv(3, 3, 64, 1, 1, name=...)`); the
    decorator's wrapper passes the layer's input before the caller's arguments, so `64` is `c_o`, the filters. A
    VGG16 trunk of ten such convolutions on 600-pixel images is compute-heavy."""
    findings = _findings({"network.py": """
        import tensorflow as tf

        def layer(op):
            def layer_decorated(self, *args, **kwargs):
                name = kwargs.setdefault('name', op.__name__)
                layer_input = self.terminals[0]
                layer_output = op(self, layer_input, *args, **kwargs)
                self.layers[name] = layer_output
                self.feed(layer_output)
                return self
            return layer_decorated


        class Network(object):
            def __init__(self, inputs, trainable=True):
                self.inputs = inputs
                self.terminals = []
                self.layers = dict(inputs)
                self.trainable = trainable
                self.setup()

            def setup(self):
                raise NotImplementedError('Must be implemented by the subclass.')

            def feed(self, *args):
                self.terminals = [self.layers[a] if isinstance(a, str) else a for a in args]
                return self

            def make_var(self, name, shape):
                return tf.get_variable(name, shape, trainable=self.trainable)

            @layer
            def conv(self, input, k_h, k_w, c_o, s_h, s_w, name, relu=True, padding='SAME'):
                c_i = input.get_shape()[-1]
                convolve = lambda i, k: tf.nn.conv2d(i, k, [1, s_h, s_w, 1], padding=padding)
                with tf.variable_scope(name) as scope:
                    kernel = self.make_var('weights', shape=[k_h, k_w, c_i, c_o])
                    output = convolve(input, kernel)
                    if relu:
                        output = tf.nn.relu(output, name=scope.name)
                    return output

            @layer
            def max_pool(self, input, k_h, k_w, s_h, s_w, name, padding='SAME'):
                return tf.nn.max_pool(input, [1, k_h, k_w, 1], [1, s_h, s_w, 1], padding=padding, name=name)
        """, "model.py": """
        from network import Network

        class VGG16(Network):
            def setup(self):
                (self.feed('data')
                     .conv(3, 3, 64, 1, 1, name='conv1_1')
                     .conv(3, 3, 64, 1, 1, name='conv1_2')
                     .max_pool(2, 2, 2, 2, name='pool1')
                     .conv(3, 3, 128, 1, 1, name='conv2_1')
                     .conv(3, 3, 128, 1, 1, name='conv2_2')
                     .max_pool(2, 2, 2, 2, name='pool2')
                     .conv(3, 3, 256, 1, 1, name='conv3_1')
                     .conv(3, 3, 256, 1, 1, name='conv3_2')
                     .conv(3, 3, 256, 1, 1, name='conv3_3')
                     .max_pool(2, 2, 2, 2, name='pool3')
                     .conv(3, 3, 512, 1, 1, name='conv4_1')
                     .conv(3, 3, 512, 1, 1, name='conv4_2')
                     .conv(3, 3, 512, 1, 1, name='conv4_3'))
        """, "train.py": """
        import tensorflow as tf
        from model import VGG16

        images = tf.placeholder(tf.float32, [None, 600, 600, 3])
        net = VGG16({'data': images})
        loss = tf.reduce_mean(net.layers['conv4_3'])
        train_op = tf.train.MomentumOptimizer(0.001, 0.9).minimize(loss)
        with tf.Session() as sess:
            for step in range(1000):
                sess.run(train_op, feed_dict={images: load_batch(step)})
        """}, "TFC001")
    assert [(f.location.path.as_posix(), f.location.line, f.confidence) for f in findings] == [
        ("train.py", 7, Confidence.LIKELY)]
    assert "makes 10 convolution and 0 dense layers" in findings[0].evidence[1].message


def test_flushing_standard_output_every_step_costs_in_a_notebook_not_in_a_script():
    """A progress line flushed every step (`print("\\r{}%".format(i), end=""); sys.stdout.flush()`): in a script the
    flush hands it to the terminal, no summary writer's work; in a notebook the kernel blocks until its IO thread
    has sent it."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    loop = """import sys
import tensorflow as tf

for step, (x, y) in enumerate(dataset):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
    print("\\r{}".format(step), end="")
    sys.stdout.flush()
"""
    assert not _findings({"train.py": loop}, "TFH006")
    notebook = nbformat.writes(new_notebook(cells=[new_code_cell(loop)]))
    assert [(f.location.cell.line, f.confidence) for f in _findings({"train.ipynb": notebook}, "TFH006")] == [
        (9, Confidence.POSSIBLE)]


def test_each_notebook_that_trains_its_model_inline_gets_its_own_finding():
    """Two fine-tuning notebooks side by side, each defining `BertFinetune` around a pretrained Hugging Face BERT
    and training it in a cell's loop with a GradientTape: the model each loop differentiates is the one it builds,
    not only the first model construction found in the repo."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    def notebook(head: str) -> str:
        cells = ["""import tensorflow as tf
from transformers import TFBertModel""", f"""class BertFinetune(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.bert = TFBertModel.from_pretrained("bert-base-chinese")
        self.out = tf.keras.layers.Dense({head})

    def call(self, inputs, training):
        return self.out(self.bert(inputs, training=training)[1])""", """model = BertFinetune()
optim = tf.optimizers.Adam(1e-5)""", """for epoch in range(10):
    for text, labels in dataset:
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(labels, model(text, True)))
        grads = tape.gradient(loss, model.trainable_variables)
        optim.apply_gradients(zip(grads, model.trainable_variables))"""]
        return nbformat.writes(new_notebook(cells=[new_code_cell(cell) for cell in cells]))

    findings = _findings({"main/finetune.ipynb": notebook("15"), "main/tagging.ipynb": notebook("40")}, "TFC001")
    assert [(f.location.path.as_posix(), f.location.cell.cell, f.location.cell.line, f.confidence)
            for f in findings] == [("main/finetune.ipynb", 3, 1, Confidence.LIKELY),
                                   ("main/tagging.ipynb", 3, 1, Confidence.LIKELY)]


def test_a_replay_minibatch_drawn_from_a_global_memory_is_predicted_per_step():
    """Hands-On ML's DQN: `sample_experiences` draws indices into a module-level `replay_memory`, and the training
    step, run once per episode, predicts on the drawn next states, unpacked from the experiences it returned."""
    findings = _findings({"dqn.py": """
        from collections import deque

        import numpy as np
        import tensorflow as tf
        from tensorflow import keras

        model = keras.models.Sequential([keras.layers.Dense(32, activation="elu", input_shape=[4]),
                                         keras.layers.Dense(2)])
        optimizer = keras.optimizers.Adam(learning_rate=1e-2)
        replay_memory = deque(maxlen=2000)

        def sample_experiences(batch_size):
            indices = np.random.randint(len(replay_memory), size=batch_size)
            batch = [replay_memory[index] for index in indices]
            return [np.array([experience[field] for experience in batch]) for field in range(5)]

        def training_step(batch_size):
            experiences = sample_experiences(batch_size)
            states, actions, rewards, next_states, dones = experiences
            next_q_values = model.predict(next_states)
            target_q_values = rewards + (1 - dones) * 0.95 * np.max(next_q_values, axis=1)
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(target_q_values - tf.reduce_max(model(states), axis=1)))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))

        for episode in range(600):
            play_one_episode(env)
            if episode > 50:
                training_step(32)
        """}, "TFH007")
    assert [(f.location.line, f.confidence) for f in findings] == [(20, Confidence.LIKELY)]


def test_a_callbacks_evaluation_hooks_hold_up_no_training_step():
    """A callback tutorial prints in every batch hook: the training ones between training steps (likely), the
    evaluation ones only in `evaluate`, as the `fit` it is given has no validation data (possible, saying so)."""
    findings = _findings({"callbacks.py": """
        import tensorflow as tf

        class MyCustomCallback(tf.keras.callbacks.Callback):
            def on_train_batch_end(self, batch, logs=None):
                print("Training: batch {} ends".format(batch))

            def on_test_batch_end(self, batch, logs=None):
                print("Evaluating: batch {} ends".format(batch))

        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        model.compile(optimizer="sgd", loss="mse")
        model.fit(x_train, y_train, batch_size=64, epochs=1, steps_per_epoch=5, callbacks=[MyCustomCallback()])
        model.evaluate(x_test, y_test, batch_size=128, steps=5, callbacks=[MyCustomCallback()])
        """}, "TFH001")
    assert [(f.location.line, f.confidence) for f in findings] == [(4, Confidence.LIKELY), (7, Confidence.POSSIBLE)]
    assert "no `fit` that validates is given it" in findings[1].evidence[-1].message


def test_a_five_call_retracing_demo_retraces_five_times_only():
    """A tutorial cell shows that Python values retrace: five calls with `i` make five graphs, then stop. A training
    loop of thousands of steps passing its step counter retraces on every one."""
    findings = _findings({"tf_function.py": """
        import tensorflow as tf

        @tf.function
        def square(x):
            return tf.square(x)

        for i in range(5):
            square(i)

        @tf.function
        def train_step(step, x):
            return x * tf.cast(step, tf.float32)

        for step in range(100000):
            train_step(step, tf.ones(3))
        """}, "TFH003")
    demo, training = sorted(findings, key=lambda f: f.location.line)
    assert [(f.location.line, f.confidence) for f in (demo, training)] == [
        (8, Confidence.POSSIBLE), (15, Confidence.LIKELY)]
    assert "the loop runs 5 steps in all" in demo.evidence[-1].message


def test_slim_repeat_counts_each_layer_it_repeats():
    """TF-Slim's VGG16: `slim.repeat(net, 3, slim.conv2d, 256, [3, 3])` makes three 256-filter convolutions; the
    thirteen of the network at 224 pixels are compute-heavy."""
    findings = _findings({"train.py": """
        import tensorflow as tf
        slim = tf.contrib.slim

        def vgg16(inputs):
            net = slim.repeat(inputs, 2, slim.conv2d, 64, [3, 3], scope='conv1')
            net = slim.max_pool2d(net, [2, 2], scope='pool1')
            net = slim.repeat(net, 2, slim.conv2d, 128, [3, 3], scope='conv2')
            net = slim.repeat(net, 3, slim.conv2d, 256, [3, 3], scope='conv3')
            net = slim.repeat(net, 3, slim.conv2d, 512, [3, 3], scope='conv4')
            net = slim.repeat(net, 3, slim.conv2d, 512, [3, 3], scope='conv5')
            return slim.fully_connected(slim.flatten(net), 10)

        images = tf.placeholder(tf.float32, [None, 224, 224, 3])
        loss = tf.reduce_mean(vgg16(images))
        train_op = tf.train.MomentumOptimizer(0.01, 0.9).minimize(loss)
        with tf.Session() as sess:
            for step in range(10000):
                sess.run(train_op, feed_dict={images: next_batch()})
        """}, "TFC001")
    assert [(f.location.line, f.confidence) for f in findings] == [(15, Confidence.LIKELY)]
    assert "makes 13 convolution and 0 dense layers" in findings[0].evidence[1].message


def test_a_function_redefined_before_any_call_is_not_the_one_training_runs():
    """A notebook improves its reader in the next cell, under the same name, before anything calls it: training
    runs the second definition's pipeline; the first one's is reached by no run."""
    findings = _findings({"notebook.py": """
        import tensorflow as tf

        def csv_reader_dataset(filenames, batch_size=32):
            dataset = tf.data.Dataset.list_files(filenames).repeat()
            dataset = dataset.interleave(lambda f: tf.data.TextLineDataset(f).skip(1), cycle_length=5)
            return dataset.map(parse_csv_line, num_parallel_calls=5).batch(batch_size).prefetch(1)

        def csv_reader_dataset(filenames, batch_size=32):
            dataset = tf.data.Dataset.list_files(filenames).repeat()
            dataset = dataset.interleave(lambda f: tf.data.TextLineDataset(f).skip(1), cycle_length=5)
            return dataset.map(parse_csv_line, num_parallel_calls=tf.data.AUTOTUNE).batch(batch_size).prefetch(1)

        model = tf.keras.Sequential([tf.keras.layers.Dense(30, activation="relu"), tf.keras.layers.Dense(1)])
        model.compile(loss="mse", optimizer="sgd")
        model.fit(csv_reader_dataset(train_filepaths), steps_per_epoch=362, epochs=10)
        """}, "TFD002", show_all=True)
    assert [(f.location.line, f.reach) for f in sorted(findings, key=lambda f: f.location.line)] == [
        (5, Reach.OTHER), (10, Reach.TRAINING)]


def test_splits_unpacked_side_by_side_from_a_tfds_dict_are_pipelines():
    """`train_ds, test_ds = dataset["train"], dataset["test"]` after `dataset, info = tfds.load(..., with_info=True)`:
    each name holds its split; the training one, batched without a prefetch, feeds `fit`."""
    findings = _findings({"train.py": """
        import tensorflow as tf
        import tensorflow_datasets as tfds

        dataset, info = tfds.load("imdb_reviews/subwords8k", with_info=True, as_supervised=True)
        train_dataset, test_dataset = dataset["train"], dataset["test"]
        train_dataset = train_dataset.shuffle(10000).padded_batch(64, train_dataset.output_shapes)
        model = tf.keras.Sequential([tf.keras.layers.Embedding(8000, 64), tf.keras.layers.LSTM(64),
                                     tf.keras.layers.Dense(1)])
        model.compile(loss="binary_crossentropy", optimizer="adam")
        model.fit(train_dataset, epochs=10)
        """}, "TFD001")
    assert [(f.location.line, f.reach) for f in findings] == [(6, Reach.TRAINING)]


def test_a_loop_that_updates_with_gradients_a_helper_takes_is_an_eager_step():
    """TensorFlow's custom-training walkthrough: `grad()` opens the tape and returns the gradients, the loop applies
    them; nothing is compiled, so every step runs eagerly."""
    findings = _findings({"train.py": """
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(10, activation="relu", input_shape=(4,)),
                                     tf.keras.layers.Dense(10, activation="relu"), tf.keras.layers.Dense(3)])
        loss_object = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        optimizer = tf.keras.optimizers.SGD(learning_rate=0.01)


        def loss(model, x, y, training):
            return loss_object(y_true=y, y_pred=model(x, training=training))


        def grad(model, inputs, targets):
            with tf.GradientTape() as tape:
                loss_value = loss(model, inputs, targets, training=True)
            return loss_value, tape.gradient(loss_value, model.trainable_variables)


        for epoch in range(201):
            for x, y in train_dataset:
                loss_value, grads = grad(model, x, y)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
        """}, "TFH002")
    assert [(f.location.line, f.confidence) for f in findings] == [(21, Confidence.LIKELY)]
    assert "its tape in `grad`, called on line 21" in findings[0].evidence[0].message


def test_a_dense_model_trained_by_an_eager_loop_is_sized_after_compiling():
    """A two-block transformer tagger of 300-unit layers (many dense layers by count, little math on short
    utterances) trained step by step in an eager loop: mixed precision is possible until the step is compiled. The
    same model under `fit`, which compiles its step, stays likely."""
    model = """
        import tensorflow as tf

        class Tagger(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.blocks = [tf.keras.layers.Dense(300) for _ in range(12)]
                self.out = tf.keras.layers.Dense(128)

            def call(self, x):
                for layer in self.blocks:
                    x = layer(x)
                return self.out(x)

        model = Tagger()
        optimizer = tf.keras.optimizers.Adam()
        """
    eager = model + """
        for x, y in dataset:
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(y, model(x), from_logits=True))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
        """
    fitted = model + """
        model.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy")
        model.fit(dataset, epochs=10)
        """
    (in_loop,) = _findings({"tagger.py": eager}, "TFC001")
    (by_fit,) = _findings({"tagger.py": fitted}, "TFC001")
    assert (in_loop.location.line, in_loop.confidence) == (14, Confidence.POSSIBLE)
    assert "its training step runs eagerly" in in_loop.evidence[-1].message
    assert (by_fit.location.line, by_fit.confidence) == (14, Confidence.LIKELY)


def test_a_backbone_a_repo_builder_returns_frozen_by_its_caller_or_unfrozen_through_the_trained_model():
    """SwAV's evaluation notebooks: a linear probe freezes the backbone its repo builder returns
    (`backbone = get_backbone(); backbone.trainable = False`): 16 bits speed up its forward pass alone. The
    supervised baseline freezes its ResNet in the builder but unfreezes it through the trained model
    (`model.layers[1].trainable = True`) before `fit`: the whole network trains."""
    builder = """
        import tensorflow as tf

        def get_backbone():
            base = tf.keras.applications.ResNet50(include_top=False, weights=None, input_shape=(224, 224, 3))
            base.trainable = True
            inputs = tf.keras.layers.Input((224, 224, 3))
            return tf.keras.Model(inputs, tf.keras.layers.GlobalAveragePooling2D()(base(inputs)))
        """
    probe = _findings({"architecture.py": builder, "probe.py": """
        import tensorflow as tf
        import architecture

        def get_linear_classifier():
            inputs = tf.keras.layers.Input(shape=(224, 224, 3))
            backbone = architecture.get_backbone()
            backbone.trainable = False
            outputs = tf.keras.layers.Dense(5, activation="softmax")(backbone(inputs, training=False))
            return tf.keras.Model(inputs, outputs)

        model = get_linear_classifier()
        model.compile(loss="sparse_categorical_crossentropy", optimizer="adam")
        model.fit(training_ds, epochs=35)
        """}, "TFC001")
    assert [(f.location.path.as_posix(), f.location.line, f.confidence) for f in probe] == [
        ("probe.py", 9, Confidence.POSSIBLE)]
    assert "frozen (`backbone.trainable = False`)" in probe[0].evidence[-1].message
    fine_tuned = """
        import tensorflow as tf

        def get_training_model(trainable=False):
            inputs = tf.keras.layers.Input(shape=(224, 224, 3))
            extractor = tf.keras.applications.ResNet50(weights="imagenet", include_top=False)
            extractor.trainable = trainable
            x = tf.keras.layers.GlobalAveragePooling2D()(extractor(inputs, training=False))
            return tf.keras.Model(inputs, tf.keras.layers.Dense(5, activation="softmax")(x))

        model = get_training_model()
        {unfreeze}
        model.compile(loss="sparse_categorical_crossentropy", optimizer=tf.keras.optimizers.Adam(1e-5))
        model.fit(training_ds, epochs=35)
        """
    for unfreeze, confidence in [("model.layers[1].trainable = True", Confidence.LIKELY),
                                 ("for layer in model.layers[-3:]:\n    layer.trainable = True", Confidence.LIKELY),
                                 ("print(model.layers[1].trainable)", Confidence.POSSIBLE)]:
        code = textwrap.dedent(fine_tuned).replace("{unfreeze}", unfreeze)
        found = _findings({"finetune.py": code}, "TFC001")
        assert [(f.location.line, f.confidence) for f in found] == [(8, confidence)], unfreeze


def test_a_projection_head_trained_with_a_convolutional_backbone_is_the_backbones_finding():
    """SimCLR and SwAV train an encoder and a head of dense layers in one step: the step's work is the encoder's,
    one policy set before both serves the two, and the finding is the encoder's alone (a GAN's two convolutional
    networks each keep theirs). The encoder comes from a table of builders (`encoders[args.encoder]()`)."""
    findings = _findings({"models.py": """
        import tensorflow as tf

        def resnet(widths):
            inputs = tf.keras.layers.Input((32, 32, 3))
            x = inputs
            for filters in widths:
                x = tf.keras.layers.Conv2D(filters, 3, padding="same", activation="relu")(x)
            return tf.keras.Model(inputs, tf.keras.layers.GlobalAveragePooling2D()(x))

        def ResNet18():
            return resnet((64, 64, 64, 64, 128, 128, 128, 128, 256, 256, 256, 256, 512, 512, 512, 512))

        class ProjectionHead(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.fc1 = tf.keras.layers.Dense(units=256)
                self.fc2 = tf.keras.layers.Dense(units=128)

            def call(self, x):
                return self.fc2(tf.nn.relu(self.fc1(x)))
        """, "pretraining.py": """
        import tensorflow as tf
        from models import ResNet18, ProjectionHead

        encoders = {"resnet18": ResNet18}

        def main(args):
            f_net = encoders[args.encoder]()
            g_net = ProjectionHead()
            opt = tf.keras.optimizers.Adam()

            @tf.function
            def train_step(x):
                with tf.GradientTape(persistent=True) as tape:
                    loss = tf.reduce_mean(g_net(f_net(x, training=True), training=True))
                variables = f_net.trainable_variables + g_net.trainable_variables
                opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
                return loss

            for x in batches:
                train_step(x)
        """}, "TFC001")
    assert [(f.location.path.as_posix(), f.location.line, f.confidence) for f in findings] == [
        ("models.py", 8, Confidence.LIKELY)]


@pytest.mark.parametrize("widths, expected", [((32, 64, 128), Confidence.POSSIBLE),
                                              ((64, 128, 256), Confidence.LIKELY)])
def test_a_small_discriminator_trained_with_a_heavy_generator_is_the_generators_finding(widths, expected):
    """A super-resolution GAN (DDcGAN, sr-tf2): a generator of eight 64-filter convolutions and a discriminator of
    three small ones, trained in the same steps. One global policy serves both: the generator's finding is the one
    to act on; the discriminator's is `possible`, pointing at it (a discriminator of narrow convolutions alone would
    have none, like a projection head). A discriminator of real work of its own (pix2pix's PatchGAN, three
    convolutions of 64+ filters) keeps its finding."""
    findings = _findings({"train.py": """
        import tensorflow as tf
        from tensorflow.keras import layers

        def generator():
            inputs = tf.keras.Input((96, 96, 3))
            x = inputs
            for _ in range(8):
                x = layers.Conv2D(64, 3, padding="same", activation="relu")(x)
            return tf.keras.Model(inputs, layers.Conv2D(3, 3, padding="same")(x))

        def discriminator():
            return tf.keras.Sequential([layers.Conv2D({}, 3, 2), layers.Conv2D({}, 3, 2), layers.Conv2D({}, 3, 2),
                                        layers.Flatten(), layers.Dense(1)])

        G = generator()
        D = discriminator()
        g_opt, d_opt = tf.keras.optimizers.Adam(), tf.keras.optimizers.Adam()

        @tf.function
        def train_step(lr, hr):
            with tf.GradientTape() as g_tape, tf.GradientTape() as d_tape:
                sr = G(lr)
                d_loss = tf.reduce_mean(D(sr)) - tf.reduce_mean(D(hr))
                g_loss = -tf.reduce_mean(D(sr)) + tf.reduce_mean(tf.abs(sr - hr))
            g_opt.apply_gradients(zip(g_tape.gradient(g_loss, G.trainable_variables), G.trainable_variables))
            d_opt.apply_gradients(zip(d_tape.gradient(d_loss, D.trainable_variables), D.trainable_variables))

        for lr, hr in dataset:
            train_step(lr, hr)
        """.format(*widths)}, "TFC001", show_all=True)
    assert [(f.location.line, f.confidence) for f in findings] == [(9, Confidence.LIKELY), (12, expected)]
    assert ("the model built at train.py:9:12, which the same steps train, is the heavy one" in
            findings[1].evidence[-1].message) == (expected is Confidence.POSSIBLE)


@pytest.mark.parametrize("verbose, expected", [
    ("", Confidence.POSSIBLE), ("verbose=args.verbose", Confidence.POSSIBLE), ("verbose=True", Confidence.LIKELY)])
def test_a_callbacks_per_batch_work_under_its_own_switch_counts_where_an_instance_turns_it_on(verbose, expected):
    """A NeRF trainer's monitor renders and plots test images after every batch, all under `if self.verbose:`;
    `verbose` defaults to False, and the training script builds the monitor without it (or from a flag off by
    default): the work runs in no run with the defaults. Built with `verbose=True`, it runs every batch."""
    findings = _findings({"monitor.py": """
        import logging
        import matplotlib.pyplot as plt
        import tensorflow as tf

        class Monitor(tf.keras.callbacks.Callback):
            def __init__(self, images, verbose=False):
                super().__init__()
                self.images = images
                self.verbose = verbose

            def on_train_batch_end(self, batch, logs=None):
                if self.verbose:
                    logging.debug(f"batch {batch}: {logs}")
                    plt.imshow(self.model.predict(self.images)[0])
                    plt.savefig(f"batch{batch}.png")
        """, "train.py": f"""
        import argparse
        import tensorflow as tf
        from monitor import Monitor

        parser = argparse.ArgumentParser()
        parser.add_argument("--verbose", action="store_true")
        args = parser.parse_args()
        model.fit(dataset, epochs=10, callbacks=[Monitor(images, {verbose})])
        """}, "TFH001", show_all=True)
    assert [(f.location.path.as_posix(), f.confidence) for f in findings] == [("monitor.py", expected)]


@pytest.mark.parametrize("settings, expected", [
    ("rescale=1. / 255", Confidence.POSSIBLE), ("**augmentation", Confidence.POSSIBLE),
    ("rescale=1. / 255, rotation_range=20", Confidence.LIKELY), ("**dict(rotation_range=180)", Confidence.LIKELY)])
def test_a_keras_flow_over_arrays_without_augmentation_only_slices_them(settings, expected):
    """Transfer-learning notebooks and a cardiac segmentation trainer feed Keras from `ImageDataGenerator(...).flow`
    over arrays already in memory: with no augmenting setting (`rescale` alone, or a dict of zero ranges and no
    flips) each batch is NumPy slicing, which may keep up with the step; with a rotation it is image work."""
    findings = _findings({"train.py": f"""
        from tensorflow.keras.preprocessing.image import ImageDataGenerator

        augmentation = dict(rotation_range=0, zoom_range=0.0, horizontal_flip=False)
        train_datagen = ImageDataGenerator({settings})
        train_generator = train_datagen.flow(x_train, y_train, batch_size=32)
        model.fit_generator(train_generator, steps_per_epoch=len(x_train) // 32, epochs=20)
        """}, "TFD004", show_all=True)
    assert [f.confidence for f in findings] == [expected]


@pytest.mark.parametrize("target, expected", [("q_best.numpy()", Confidence.POSSIBLE),
                                              ("tf.stop_gradient(q_best)", Confidence.LIKELY)])
def test_an_eager_switch_the_compiled_code_needs_is_possible(target, expected):
    """A football DQN turns every tf.function eager, and its `max_value` step reads `.numpy()`: removing the switch,
    as a debugging leftover, would break the run; the code it keeps eager is the change to make first. Without the
    host read the switch is a plain leftover."""
    findings = _findings({"agent.py": f"""
        import tensorflow as tf

        class Agent:
            @tf.function
            def max_value(self, obs):
                q_best = tf.reduce_max(self.q_network(obs), axis=1)
                return {target}
        """, "main.py": """
        import tensorflow as tf
        from agent import Agent

        tf.config.run_functions_eagerly(True)
        agent = Agent()
        optimizer = tf.keras.optimizers.Adam()
        for obs, target in replay:
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(agent.q_network(obs) - target - agent.max_value(obs)))
            grads = tape.gradient(loss, agent.q_network.trainable_variables)
            optimizer.apply_gradients(zip(grads, agent.q_network.trainable_variables))
        """}, "TFH002", show_all=True)
    switch = [f for f in findings if f.location.path.as_posix() == "main.py" and f.location.line == 4]
    assert [f.confidence for f in switch] == [expected]
    assert ("`q_best.numpy()` (agent.py:7:16) fails" in _evidence(switch[0])) == \
        (expected is Confidence.POSSIBLE)


def test_a_generator_drawing_its_order_once_an_epoch_and_a_summary_on_the_epochs_last_step():
    """ShuffleNet's trainer: `generate_batch` yields from one loop per kind of data, shuffling only `if
    new_epoch:` (a flag its branch turns off): per batch it only indexes arrays in memory, no sure gain from
    tf.data. The epoch's average is written in the branch that ends the loop (`...; break`): once an epoch."""
    findings = _findings({"data_loader.py": """
        import numpy as np

        class DataLoader:
            def generate_batch(self, type="train"):
                if type == "train":
                    new_epoch, start = True, 0
                    while True:
                        if new_epoch:
                            start = 0
                            mask = np.arange(self.n) if not self.shuffle else np.random.permutation(self.n)
                            new_epoch = False
                        x, y = self.x[mask[start:start + 32]], self.y[mask[start:start + 32]]
                        start += 32
                        if start >= self.n:
                            new_epoch = True
                        yield x, y
                else:
                    start = 0
                    while True:
                        x, y = self.x_val[start:start + 32], self.y_val[start:start + 32]
                        start = (start + 32) % self.n_val
                        yield x, y
        """, "train.py": """
        import numpy as np
        import tensorflow as tf
        from data_loader import DataLoader
        from model import build_model

        class Trainer:
            def __init__(self, model):
                self.x, self.y, self.loss = model.x, model.y, model.loss
                self.train_op = tf.train.AdamOptimizer(1e-3).minimize(self.loss)

            def train(self, data, iterations):
                for epoch in range(10):
                    it = 0
                    losses = []
                    for x, y in data.generate_batch(type="train"):
                        _, loss = self.sess.run([self.train_op, self.loss], feed_dict={self.x: x, self.y: y})
                        losses.append(loss)
                        if it >= iterations - 1:
                            summary = self.sess.run(self.summary, feed_dict={self.avg: np.mean(losses)})
                            self.writer.add_summary(summary, epoch)
                            break
                        it += 1

        if __name__ == "__main__":
            Trainer(build_model()).train(DataLoader(), 100)
        """}, "TFD004", "TFH006")
    assert _where(findings) == [("TFD004", "train.py", 15)]
    assert findings[0].confidence is Confidence.POSSIBLE
    assert "advisor sees no file read or image decoding in it" in findings[0].evidence[-1].message


def test_a_python_feed_is_reported_at_the_run_of_every_step_not_the_traced_run_of_some():
    """A WGAN notebook runs the critic with a full trace on one step in 100 (`if i % 100 == 99 and j == 0:`) and
    plainly in the `else`: the feed every step waits for is the plain run's."""
    findings = _findings({"wgan.py": """
        import numpy as np
        import tensorflow as tf

        def main(dataset):
            real_data = tf.placeholder(tf.float32, [64, 784])
            critic_loss = tf.reduce_mean(tf.layers.dense(real_data, 1))
            opt_c = tf.train.RMSPropOptimizer(5e-5).minimize(critic_loss)
            merged_all = tf.summary.merge_all()
            def next_feed_dict():
                images = np.reshape(dataset.train.next_batch(64)[0], (-1, 28, 28))
                images = np.pad(images, ((0, 0), (2, 2), (2, 2)), mode="constant", constant_values=-1)
                return {real_data: np.reshape(images, (64, -1))}

            with tf.Session() as sess:
                for i in range(100000):
                    for j in range(5):
                        feed_dict = next_feed_dict()
                        if i % 100 == 99 and j == 0:
                            options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
                            _, merged = sess.run([opt_c, merged_all], feed_dict=feed_dict, options=options)
                        else:
                            sess.run(opt_c, feed_dict=feed_dict)

        if __name__ == "__main__":
            main(load_mnist())
        """}, "TFD004")
    assert _where(findings) == [("TFD004", "wgan.py", 22)]


def test_depthwise_convolutions_are_no_work_for_16_bit_units_their_pointwise_products_are():
    """ShuffleNet's TF1 layers: a depthwise convolution does one filter per channel (little arithmetic per byte
    moved), which 16-bit units do not speed up; the 1x1 convolution after it is the product over channels that they
    do."""
    model = """
        import tensorflow as tf

        def depthwise(name, x):
            with tf.variable_scope(name):
                w = tf.get_variable("w", [3, 3, x.get_shape()[-1], 1])
                return tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME")

        def pointwise(name, x, filters):
            with tf.variable_scope(name):
                w = tf.get_variable("w", [1, 1, x.get_shape()[-1], filters])
                return tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME")

        x = tf.placeholder(tf.float32, [None, 224, 224, 3])
        for i in range(8):
            x = depthwise("dw%d" % i, x)
            {pointwise}
        loss = tf.reduce_mean(x)
        train_op = tf.train.AdamOptimizer(1e-3).minimize(loss)
        with tf.Session() as sess:
            for step in range(1000):
                sess.run(train_op, feed_dict={x: next_batch()})
        """
    for pointwise, confidence in [('x = pointwise("pw%d" % i, x, 256)', Confidence.LIKELY),
                                  ("x = tf.nn.relu(x)", Confidence.POSSIBLE)]:
        findings = _findings({"train.py": textwrap.dedent(model).replace("{pointwise}", pointwise)}, "TFC001")
        assert [(f.location.line, f.confidence) for f in findings] == [(18, confidence)], pointwise


def test_a_name_copied_or_set_to_a_number_in_a_tape_is_no_tensor_to_wait_for():
    """SwAV's eager step walks crop groups in a GradientTape: `start_idx = 0`, then `start_idx = end_idx` from a
    loop over `tf.cumsum` of Python shape ints, and branches `if start_idx == 0:`. Under a tape advisor takes what is
    assigned for the forward pass's tensors, but a copy of a name that holds none, or a number, is not one; the
    branch on the step's loss still waits for the device."""
    findings = _findings({"train.py": """
        import tensorflow as tf

        backbone = tf.keras.applications.ResNet50(include_top=False, weights=None, pooling="avg")
        optimizer = tf.keras.optimizers.SGD(0.1)

        def train_step(views):
            sizes = [v.shape[1] for v in views]
            idx_crops = tf.cumsum([sizes.count(s) for s in sorted(set(sizes), reverse=True)])
            start_idx = 0
            with tf.GradientTape() as tape:
                for end_idx in idx_crops:
                    out = backbone(tf.concat(views[start_idx:end_idx], axis=0))
                    if start_idx == 0:
                        embeddings = out
                    else:
                        embeddings = tf.concat((embeddings, out), axis=0)
                    start_idx = end_idx
                loss = tf.reduce_mean(embeddings)
                if loss > 10.0:
                    loss = loss / 10.0
            gradients = tape.gradient(loss, backbone.trainable_variables)
            optimizer.apply_gradients(zip(gradients, backbone.trainable_variables))
            return loss

        for views in loader:
            train_step(views)
        """}, "TFH004")
    assert _where(findings) == [("TFH004", "train.py", 19)]


def test_a_training_op_grouped_from_a_list_holding_the_update_is_run_by_a_models_method():
    """V-GAN: `self.dis_optim = tf.group(*dis_ops)` with `dis_ops = [dis_op] + self._dis_train_ops` (the batch
    norms' updates), run by `train_dis(x, y)`, which the solver's loop calls with batches it loads in Python."""
    findings = _findings({"model.py": """
        import tensorflow as tf

        class CGAN:
            def __init__(self, sess):
                self.sess = sess
                self.X = tf.placeholder(tf.float32, [None, 640, 640, 3])
                self.d_loss = tf.reduce_mean(tf.layers.conv2d(self.X, 64, 3))
                self._dis_train_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
                dis_op = tf.train.AdamOptimizer(2e-4).minimize(self.d_loss)
                dis_ops = [dis_op] + self._dis_train_ops
                self.dis_optim = tf.group(*dis_ops)

            def train_dis(self, x_data):
                _, d_loss = self.sess.run([self.dis_optim, self.d_loss], feed_dict={self.X: x_data})
                return d_loss
        """, "solver.py": """
        import numpy as np
        import tensorflow as tf
        from PIL import Image
        from model import CGAN

        class Solver:
            def __init__(self, paths):
                self.paths = paths
                self.model = CGAN(tf.Session())

            def next_batch(self):
                return np.stack([np.asarray(Image.open(p)) for p in np.random.choice(self.paths, 4)])

            def train(self):
                for step in range(10000):
                    x_imgs = self.next_batch()
                    self.model.train_dis(x_imgs)

        if __name__ == "__main__":
            Solver(["a.png", "b.png"]).train()
        """}, "TFD004")
    assert [(f.location.path.as_posix(), f.location.line, f.confidence) for f in findings] == [
        ("model.py", 14, Confidence.LIKELY)]


def test_a_tf1_model_fn_calls_the_closure_a_factory_returns_with_blocks_from_a_table():
    """SimCLR's TF1 code: `model = resnet_v1(50)` returns the closure `resnet_v1_generator` defines, picking its block
    from a table (`params = model_params[depth]`, then `params["block"]`); `build_model_fn(model)` defines the
    Estimator's `model_fn`, which calls `model(features)`: the ResNet is what the update trains."""
    findings = _findings({"resnet.py": """
        import tensorflow as tf

        def bottleneck_block(inputs, filters):
            inputs = tf.layers.conv2d(inputs, filters, 1)
            inputs = tf.layers.conv2d(inputs, filters, 3, padding="same")
            return tf.layers.conv2d(inputs, 4 * filters, 1)

        def block_group(inputs, filters, block_fn, blocks):
            for _ in range(blocks):
                inputs = block_fn(inputs, filters)
            return inputs

        def resnet_v1_generator(block_fn, layers):
            def model(inputs, is_training):
                inputs = tf.layers.conv2d(inputs, 64, 7, strides=2)
                for filters, blocks in zip((64, 128, 256, 512), layers):
                    inputs = block_group(inputs, filters, block_fn=block_fn, blocks=blocks)
                return tf.reduce_mean(inputs, [1, 2])
            return model

        def resnet_v1(resnet_depth):
            model_params = {50: {"block": bottleneck_block, "layers": [3, 4, 6, 3]},
                            101: {"block": bottleneck_block, "layers": [3, 4, 23, 3]}}
            params = model_params[resnet_depth]
            return resnet_v1_generator(params["block"], params["layers"])
        """, "model.py": """
        import tensorflow as tf

        def build_model_fn(model):
            def model_fn(features, labels, mode, params=None):
                hiddens = model(features, is_training=True)
                loss = tf.losses.softmax_cross_entropy(labels, tf.layers.dense(hiddens, 1000))
                train_op = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss, tf.train.get_global_step())
                return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
            return model_fn
        """, "run.py": """
        import tensorflow as tf
        import model as model_lib
        import resnet

        def main(_):
            model = resnet.resnet_v1(resnet_depth=50)
            estimator = tf.estimator.Estimator(model_lib.build_model_fn(model))
            estimator.train(input_fn, max_steps=100000)

        if __name__ == "__main__":
            tf.app.run(main)
        """}, "TFC001")
    assert [(f.location.path.as_posix(), f.location.line, f.confidence) for f in findings] == [
        ("model.py", 7, Confidence.LIKELY)]


def test_a_flag_set_true_on_a_step_interval_by_a_conditional_expression_throttles_what_it_guards():
    # MoCo's loop: `compute_accuracy = True if (iterations + 1) % 100 == 0 else False`, then the logging under
    # `if compute_accuracy:` runs one step in a hundred; the loss read outside it runs every step.
    findings = _findings({"moco.py": """
        import tensorflow as tf

        model = tf.keras.applications.ResNet50(weights=None)
        optimizer = tf.keras.optimizers.SGD(0.03)

        @tf.function
        def train_step(images):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(images, training=True))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        for images in dataset:
            compute_accuracy = True if (optimizer.iterations + 1) % 100 == 0 else False
            loss = train_step(images)
            if compute_accuracy:
                print("loss {:.3f}".format(loss.numpy()))
            history.append(loss.numpy())
        """}, "TFH004")
    assert [(f.location.line, f.confidence) for f in findings] == [(19, Confidence.LIKELY)]


# A function that trains a small model in an eager GradientTape loop over `data`.
_EAGER_LOOP = """
        def {name}(data):
            model = tf.keras.Sequential([tf.keras.layers.Dense(2)])
            optimizer = tf.keras.optimizers.Adam()
            for x in data:
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(model(x))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                              model.trainable_variables))
"""


def test_a_script_function_only_commented_out_code_calls_is_dead():
    """A score-matching repo's `gmm.py` keeps a toy `train()` whose only caller, `estimated_grads()`, is called in a
    commented-out line of its `__main__` block: no run reaches the loop, so its findings stay out of the default
    output. The script's `train_sampler()`, which its `__main__` calls, trains."""
    loop = """
        def {name}(data, steps):
            model = tf.keras.Sequential([tf.keras.layers.Dense(2)])
            optimizer = tf.keras.optimizers.Adam()
            for x in data.take(steps):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(model(x))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                              model.trainable_variables))
    """
    findings = _findings({"gmm.py": """
        import tensorflow as tf
        """ + loop.format(name="train") + """
        def estimated_grads(data):
            return train(data, 1000)
        """ + loop.format(name="train_sampler") + """
        if __name__ == "__main__":
            data = tf.data.Dataset.from_tensor_slices(tf.random.normal((1000, 2))).batch(128)
            # grads = estimated_grads(data)
            train_sampler(data, 1000)
        """}, "TFH002", show_all=True)
    assert sorted((f.location.path.as_posix(), f.location.line, f.reach) for f in findings) == [
        ("gmm.py", 7, Reach.OTHER), ("gmm.py", 19, Reach.TRAINING)]


@pytest.mark.parametrize("lookup, reach", [("", Reach.OTHER), ("globals()[args.exp_name](data)", Reach.TRAINING)])
def test_a_script_function_whose_name_is_only_a_string_runs_where_the_script_looks_names_up(lookup, reach):
    """A policy-gradient script's `__main__` has its `ppo(...)` call commented out and runs the saved policy instead;
    "ppo" is left as the experiment name's default, which calls nothing unless the script looks functions up by
    name. The repo's other script trains."""
    findings = _findings({"pg.py": """
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(2)])
        model.compile(optimizer="adam", loss="mse")
        model.fit(tf.random.normal((1000, 2)), tf.random.normal((1000, 2)))
        """, "ppo.py": """
        import argparse
        import tensorflow as tf
        """ + _EAGER_LOOP.format(name="ppo") + """
        def play(data):
            model = tf.keras.models.load_model("policy.h5")
            return [model(x) for x in data]

        if __name__ == "__main__":
            parser = argparse.ArgumentParser()
            parser.add_argument("--exp_name", type=str, default="ppo")
            args = parser.parse_args()
            data = tf.data.Dataset.from_tensor_slices(tf.random.normal((1000, 2))).batch(128)
            # ppo(data)
            play(data)
            """ + lookup + """
        """}, "TFH002", show_all=True)
    assert [(f.location.line, f.reach) for f in findings] == [(8, reach)]


def test_a_method_named_only_by_a_keyword_or_in_prose_is_never_called():
    """A face-recognition trainer's `training()` loop is no longer called (its call is commented out); the word
    "training" is left only as a keyword (`self.model(x, training=True)`) and in a help text: neither calls it, so
    its findings stay out of the default output. The `fit()` the script calls trains."""
    loop = """
            def {name}(self, data):
                for x in data:
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean(self.model(x, training=True))
                    self.optimizer.apply_gradients(zip(tape.gradient(loss, self.model.trainable_variables),
                                                       self.model.trainable_variables))
    """
    findings = _findings({"train.py": """
        import argparse
        import tensorflow as tf

        class Trainer:
            def __init__(self):
                self.model = tf.keras.Sequential([tf.keras.layers.Dense(2)])
                self.optimizer = tf.keras.optimizers.Adam()
        """ + loop.format(name="training") + loop.format(name="fit") + """
        parser = argparse.ArgumentParser()
        parser.add_argument("--epochs", type=int, help="epochs of training")
        args = parser.parse_args()
        trainer = Trainer()
        # trainer.training(dataset)
        trainer.fit(dataset)
        """}, "TFH002", show_all=True)
    assert sorted((f.location.line, f.reach) for f in findings) == [(11, Reach.OTHER), (18, Reach.TRAINING)]


def test_code_after_a_scripts_unconditional_exit_never_runs():
    """A weight-conversion utility ends its work with a module-level `exit()` and keeps a leftover training loop
    below it, `__main__` block included: Python never gets there. The repo's `train.py` trains."""
    loop = _EAGER_LOOP.format(name="main") + """
        if __name__ == "__main__":
            main(tf.data.Dataset.from_tensor_slices(tf.random.normal((1000, 2))).batch(128))
    """
    findings = _findings({"convert.py": """
        import sys
        import tensorflow as tf

        weights = tf.keras.models.load_model("yolo.h5").get_weights()
        print(len(weights))
        sys.exit()
        """ + loop, "train.py": """
        import tensorflow as tf
        """ + loop}, "TFH002", show_all=True)
    assert sorted((f.location.path.as_posix(), f.reach) for f in findings) == [
        ("convert.py", Reach.OTHER), ("train.py", Reach.TRAINING)]


def test_the_networks_a_base_class_step_trains_in_each_subclass_are_alternatives_not_partners():
    """A meta-learning framework's base class trains `self.model`, which each subclass builds its own way: a run
    trains one of them. The small four-convolution network is not as heavy as the VGG16 another subclass fine-tunes,
    as the two networks of a GAN's step would be together."""
    findings = _findings({"base.py": """
        import tensorflow as tf

        class BaseModel:
            def __init__(self):
                self.model = self.initialize_network()
                self.optimizer = tf.keras.optimizers.Adam()

            @tf.function
            def train_step(self, x, y):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(y, self.model(x)))
                grads = tape.gradient(loss, self.model.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))

            def train(self, dataset):
                for x, y in dataset:
                    self.train_step(x, y)
        """, "conv4.py": """
        import tensorflow as tf
        from base import BaseModel

        class Conv4(BaseModel):
            def initialize_network(self):
                return tf.keras.Sequential([tf.keras.layers.Conv2D(32, 3), tf.keras.layers.Conv2D(32, 3),
                                            tf.keras.layers.Conv2D(32, 3), tf.keras.layers.Conv2D(32, 3),
                                            tf.keras.layers.Flatten(), tf.keras.layers.Dense(5)])

        if __name__ == "__main__":
            Conv4().train(tf.data.Dataset.from_tensor_slices((tf.zeros((64, 84, 84, 3)), tf.zeros(64))).batch(4))
        """, "transfer.py": """
        import tensorflow as tf
        from base import BaseModel

        class Transfer(BaseModel):
            def initialize_network(self):
                base = tf.keras.applications.VGG16(include_top=False, input_shape=(224, 224, 3))
                return tf.keras.Sequential([base, tf.keras.layers.Flatten(), tf.keras.layers.Dense(5)])

        if __name__ == "__main__":
            Transfer().train(tf.data.Dataset.from_tensor_slices((tf.zeros((64, 224, 224, 3)), tf.zeros(64))).batch(4))
        """}, "TFC001", show_all=True)
    assert sorted((f.location.path.as_posix(), f.confidence) for f in findings) == [
        ("conv4.py", Confidence.POSSIBLE), ("transfer.py", Confidence.LIKELY)]


def test_a_model_only_an_evaluation_function_builds_is_not_the_one_training_builds():
    """A depth-estimation repo's trainer keeps its networks in a dict (`self.models["depth"] = ResNet()`), which
    advisor does not follow to the step; its `evaluate_depth()` builds the same network to load weights and
    predict. Mixed precision is not advised at the evaluation's construction as if training built it there."""
    findings = _findings({"nets.py": """
        import tensorflow as tf

        class ResNet(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.convs = [tf.keras.layers.Conv2D(filters, 3) for filters in (64, 128, 256, 512, 512, 512)]

            def call(self, x):
                for conv in self.convs:
                    x = conv(x)
                return x
        """, "trainer.py": """
        import tensorflow as tf
        from nets import ResNet

        class Trainer:
            def __init__(self):
                self.models = {}
                self.models["depth"] = ResNet()
                self.optimizer = tf.keras.optimizers.Adam()

            def train(self, dataset):
                for x in dataset:
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean(self.models["depth"](x))
                    variables = self.models["depth"].trainable_variables
                    self.optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
        """, "start.py": """
        import sys
        import tensorflow as tf
        from nets import ResNet
        from trainer import Trainer

        def evaluate_depth(images):
            model = ResNet()
            model.load_weights("depth.h5")
            return model.predict(images)

        if __name__ == "__main__":
            if sys.argv[1] == "train":
                Trainer().train(tf.data.Dataset.from_tensor_slices(tf.zeros((8, 192, 640, 3))).batch(4))
            else:
                evaluate_depth(tf.zeros((1, 192, 640, 3)))
        """}, "TFC001")
    assert [(f.location.path.as_posix(), f.location.line) for f in findings] == []


def test_a_model_an_evaluation_script_builds_is_not_the_one_training_builds():
    """A distillation repo returns its compiled steps from a factory as a tuple (`train_step, test_step =
    make_steps(model)`), which advisor does not follow to the model they train; its `test.py` builds the network to
    load saved weights. Mixed precision goes where the training script builds it, not the evaluation script."""
    files = {"steps.py": """
        import tensorflow as tf

        def make_steps(model):
            optimizer = tf.keras.optimizers.SGD(0.1)

            @tf.function
            def training(images, labels):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(labels, model(images)))
                variables = model.trainable_variables
                optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))

            @tf.function
            def validation(images, labels):
                return model(images)
            return training, validation
        """, "test.py": """
        import tensorflow as tf
        from steps import make_steps

        model = tf.keras.Sequential([tf.keras.layers.Conv2D(f, 3) for f in (64, 128, 256, 512, 512, 512)])
        _, test_step = make_steps(model)
        for images, labels in test_ds:
            test_step(images, labels)
        """, "train.py": """
        import tensorflow as tf
        from steps import make_steps

        def load_model():
            return tf.keras.Sequential([tf.keras.layers.Conv2D(f, 3) for f in (64, 128, 256, 512, 512, 512)])

        model = load_model()
        train_step, test_step = make_steps(model)
        for epoch in range(100):
            for images, labels in train_ds:
                train_step(images, labels)
        """}
    assert [(f.location.path.as_posix(), f.location.line) for f in _findings(files, "TFC001")] == [("train.py", 5)]


def test_steps_a_factory_returns_by_name_train_the_script_that_calls_them():
    """A StarGAN port picks its compiled steps with a factory that returns module functions by name (`train_d,
    train_g = define_train_loop(False)`, returning `train_disc, train_gen` or their mixed-precision pair): the
    script's loop calls them, so the script trains, and its pipeline's serial JPEG-decoding map is on the way."""
    files = {"utils.py": """
        import tensorflow as tf

""" + textwrap.indent(_DISCRIMINATOR_STEP, " " * 8) + """
        @tf.function
        def train_disc_mp(disc, x, optimizer):
            return train_disc(disc, x, optimizer)

        def define_train_loop(use_mp):
            if use_mp:
                return train_disc_mp, None
            else:
                return train_disc, None
        """, "train.py": """
        import tensorflow as tf
        from utils import *

        def parse(record):
            features = tf.io.parse_single_example(record, {"image": tf.io.FixedLenFeature([], tf.string)})
            return tf.image.resize(tf.io.decode_jpeg(features["image"]), (128, 128))

        def main():
            dataset = tf.data.TFRecordDataset(["train.tfrecord"])
            dataset = dataset.map(parse)
            dataset = dataset.batch(16).prefetch(tf.data.AUTOTUNE)
            disc = tf.keras.Sequential([tf.keras.layers.Conv2D(64, 3), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.Adam()
            train_d, _ = define_train_loop(False)
            for epoch in range(10):
                for x in dataset:
                    train_d(disc, x, optimizer)

        if __name__ == "__main__":
            main()
        """}
    findings = _findings(files, "TFD002", show_all=True)
    assert [(f.location.path.as_posix(), f.location.line, f.reach) for f in findings] == [
        ("train.py", 10, Reach.TRAINING)]


@pytest.mark.parametrize("switch, written_every_step", [("write_hists", False), ("True", True)])
def test_summaries_a_step_helper_writes_only_when_its_caller_switches_them_on(switch, written_every_step):
    """A StyleGAN port's step hands its helper a flag (`process_hists(model, grads, write_hists_summary, step)`,
    set every 25k images) and the helper writes its histograms under `if write_hists_summary:`: not every step.
    Passed True, it would be."""
    files = {"train.py": f"""
        import tensorflow as tf

        def process_hists(model, grads, write_hists_summary, step):
            if write_hists_summary:
                for weight, grad in zip(model.trainable_weights, grads):
                    tf.summary.histogram(weight.name, weight, step=step)
                    tf.summary.histogram(weight.name + "/grad", grad, step=step)

        @tf.function
        def step_grads(model, images):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(images))
            grads = tape.gradient(loss, model.trainable_weights)
            optimizer.apply_gradients(zip(grads, model.trainable_weights))
            return grads

        def train(model, dataset):
            seen = 0
            for step, images in enumerate(dataset):
                write_hists = seen // 25000 != (seen + 32) // 25000
                grads = step_grads(model, images)
                process_hists(model, grads, {switch}, step)
                seen += 32

        train(tf.keras.Sequential([tf.keras.layers.Dense(512)]), tf.data.Dataset.range(10).batch(2))
        """}
    findings = _findings(files, "TFH006", show_all=True)
    assert [(f.location.path.as_posix(), f.location.line) for f in findings] == (
        [("train.py", 22)] if written_every_step else [])


def test_an_early_stop_written_on_the_line_of_its_test_decides_the_loop():
    """A CycleGAN port stops when all four losses are small, its `break` on the `if`'s own line (`if GA_loss < 0.01
    and ...: break;`): the host needs those values every step, as it does for the same test over two lines, and
    its other reads (a step interval tested on the optimizer's iterations) add little to that wait."""
    files = {"train.py": """
        import tensorflow as tf

        def main(model, images):
            optimizer = tf.keras.optimizers.Adam(2e-4)
            while True:
                with tf.GradientTape() as tape:
                    ga_loss, gb_loss = model(next(images))
                variables = model.trainable_variables
                optimizer.apply_gradients(zip(tape.gradient(ga_loss + gb_loss, variables), variables))
                if tf.equal(optimizer.iterations % 500, 0):
                    print(optimizer.iterations)
                if ga_loss < 0.01 and gb_loss < 0.01: break;

        main(tf.keras.Model(), iter(tf.data.Dataset.range(10)))
        """}
    findings = _findings(files, "TFH004", show_all=True)
    assert [(f.location.line, f.confidence) for f in findings] == [(10, Confidence.POSSIBLE), (12, Confidence.POSSIBLE)]
    assert "whose value decides whether it goes on: this read adds little" in str(findings[0].evidence)


def test_predict_on_the_model_an_agents_actor_holds_runs_per_environment_step():
    """A book's A2C agent calls `self.actor.model.predict(state)` and `self.critic.model.predict(state)` on each
    state the environment returns, `model` being what the Actor and Critic classes build (`self.model =
    self.create_model()`, a Sequential): a whole `predict` per environment step."""
    files = {"a2c.py": """
        import numpy as np
        import tensorflow as tf

        class Actor:
            def __init__(self, state_dim, action_dim):
                self.model = self.create_model(state_dim, action_dim)
                self.opt = tf.keras.optimizers.Adam(5e-4)

            def create_model(self, state_dim, action_dim):
                return tf.keras.Sequential([tf.keras.layers.Dense(32, activation="relu"),
                                            tf.keras.layers.Dense(action_dim, activation="softmax")])

            def train(self, states, actions):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(self.model(states) * actions)
                grads = tape.gradient(loss, self.model.trainable_variables)
                self.opt.apply_gradients(zip(grads, self.model.trainable_variables))

        class Agent:
            def __init__(self, env):
                self.env = env
                self.actor = Actor(4, 2)

            def train(self, episodes=1000):
                for episode in range(episodes):
                    state, done, states, actions = self.env.reset(), False, [], []
                    while not done:
                        probs = self.actor.model.predict(np.reshape(state, [1, 4]))
                        action = np.random.choice(2, p=probs[0])
                        next_state, reward, done, _ = self.env.step(action)
                        states.append(state)
                        actions.append(action)
                        if len(states) >= 5 or done:
                            self.actor.train(np.array(states), np.array(actions))
                            states, actions = [], []
                        state = next_state

        Agent(gym.make("CartPole-v1")).train()
        """}
    findings = _findings(files, "TFH007")
    assert [(f.location.line, f.confidence) for f in findings] == [(28, Confidence.LIKELY)]


def test_a_ctc_model_made_on_a_recognizers_output_counts_the_recognizers_layers():
    """A book's captcha recognizer applies ResNet50 to its input, reshapes the features for two bidirectional GRUs
    (`x = ...(x)` each time), makes `model = Model(image_input, x)` to predict with, then the CTC model it trains on
    that same `x` (`ctc_model = Model([image_input, labels, ...], Lambda(ctc)([x, labels, ...]))`): ResNet50 is the
    trained model's too."""
    files = {"train.py": """
        import tensorflow as tf
        from tensorflow.keras.applications.resnet50 import ResNet50
        from tensorflow.keras.layers import GRU, Bidirectional, Dense, Input, Lambda, Reshape
        from tensorflow.keras.models import Model

        resnet50 = ResNet50(weights="imagenet", include_top=False, input_shape=(64, 160, 3))
        image_input = Input((64, 160, 3))
        x = resnet50(image_input)
        x = Reshape((10, 2048))(x)
        x = Bidirectional(GRU(128, return_sequences=True))(x)
        x = Dense(37, activation="softmax")(x)
        model = Model(image_input, x)

        labels = Input(shape=(6,))
        input_len = Input(shape=(1,))
        label_len = Input(shape=(1,))
        ctc_out = Lambda(lambda args: tf.keras.backend.ctc_batch_cost(*args))([labels, x, input_len, label_len])
        ctc_model = Model(inputs=[image_input, labels, input_len, label_len], outputs=ctc_out)
        ctc_model.compile(loss=lambda y_true, y_pred: y_pred, optimizer="adam")
        ctc_model.fit(train_data, epochs=100)
        """}
    findings = _findings(files, "TFC001")
    assert [(f.location.line, f.confidence) for f in findings] == [(18, Confidence.LIKELY)]
    assert "`ResNet50`, a known architecture" in str(findings[0].evidence)


def test_a_count_the_host_keeps_in_a_tensor_waits_for_no_step():
    """A StarGAN port counts its steps in a tensor (`step = tf.constant(0)`, `step += 1`) and reads it every
    iteration (`if step.numpy() % 5 == 0:`, `if step.numpy() == iters_per_epoch: break`): no step computes it, and
    an int32 scalar stays in host memory. Reading the step's loss is a wait."""
    files = {"train.py": """
        import tensorflow as tf

""" + textwrap.indent(_DISCRIMINATOR_STEP, " " * 8) + """
        def main(model, dataset, iters_per_epoch):
            optimizer = tf.keras.optimizers.Adam()
            for epoch in range(10):
                step = tf.constant(0)
                for x in dataset:
                    step += 1
                    loss = train_disc(model, x, optimizer)
                    if step.numpy() % 5 == 0:
                        print(step.numpy())
                    print(loss.numpy())
                    if step.numpy() == iters_per_epoch:
                        break

        main(tf.keras.Sequential([tf.keras.layers.Dense(1)]), tf.data.Dataset.range(10).batch(2), 5)
        """}
    findings = _findings(files, "TFH004", show_all=True)
    assert [f.location.line for f in findings] == [19]


def test_calling_a_policy_object_runs_its_call_method_per_environment_step():
    """An RL library's policies are callable objects (`a = pi(s)`, `pi = SoftmaxPolicy(func)`) whose `__call__`
    runs the model's `predict` on the one state: calling the instance runs that method, once per environment step."""
    files = {"train.py": """
        import gym
        import numpy as np
        import tensorflow as tf


        class GreedyPolicy:
            def __init__(self, model):
                self.model = model

            def __call__(self, state):
                return int(np.argmax(self.model.predict(state[None])[0]))


        model = tf.keras.Sequential([tf.keras.layers.Dense(64, activation="relu"), tf.keras.layers.Dense(2)])
        model.compile(optimizer="adam", loss="mse")
        policy = GreedyPolicy(model)
        env = gym.make("CartPole-v1")
        for episode in range(500):
            state, done, states, targets = env.reset(), False, [], []
            while not done:
                action = policy(state)
                next_state, reward, done, _ = env.step(action)
                states.append(state)
                targets.append(reward)
                state = next_state
            model.fit(np.array(states), np.array(targets), verbose=0)
        """}
    findings = _findings(files, "TFH007")
    assert [(f.location.line, f.confidence) for f in findings] == [(11, Confidence.LIKELY)]


def test_code_that_handles_a_16_bit_dtype_a_caller_may_ask_for_sets_no_mixed_precision():
    """An ImageNet loader (DeepMind's, copied into many ports) takes a `dtype` parameter and, `if dtype ==
    tf.bfloat16:`, casts each batch to it; the training leaves it at float32. Neither the comparison nor the cast
    it guards turns 16 bits on: the model trains in float32. A caller that passes bfloat16 chooses it."""
    loader = """
        import tensorflow as tf

        def load(split, dtype=tf.float32):
            ds = tf.data.TFRecordDataset(split).map(parse, num_parallel_calls=8).batch(256).prefetch(1)
            for batch in ds:
                if dtype == tf.bfloat16:
                    batch["images"] = tf.cast(batch["images"], tf.bfloat16)
                yield batch
        """
    train = """
        import tensorflow as tf
        from dataset import load

        model = tf.keras.Sequential([tf.keras.layers.Conv2D(f, 3) for f in (64, 128, 256, 512, 512, 512)])
        model.compile(optimizer="sgd", loss="mse")
        model.fit(load("train"), epochs=90)
        """
    assert _where(_findings({"dataset.py": loader, "train.py": train}, "TFC001")) == [("TFC001", "train.py", 4)]
    chosen = train.replace('load("train")', 'load("train", dtype=tf.bfloat16)')
    assert not _findings({"dataset.py": loader, "train.py": chosen}, "TFC001")


def test_a_model_made_and_then_replaced_before_fit_is_not_the_one_its_own_train_step_trains():
    """An SRResNet script builds its Keras model (a subclass with its own `train_step`) once, then builds it again
    and fits the second: the first is dropped, never trained, and the finding goes to the one `fit` trains."""
    findings = _findings({"train.py": """
        import tensorflow as tf

        class Generator(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.convs = [tf.keras.layers.Conv2D(f, 3) for f in (64, 128, 256, 512, 512, 512)]

            def call(self, x):
                for conv in self.convs:
                    x = conv(x)
                return x

            def train_step(self, data):
                x, y = data
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(self(x) - y))
                self.optimizer.apply_gradients(zip(tape.gradient(loss, self.trainable_variables),
                                                   self.trainable_variables))
                return {"loss": loss}

        def main():
            model = Generator()
            callbacks = [tf.keras.callbacks.ModelCheckpoint("weights.h5")]
            model = Generator()
            model.compile(optimizer="adam")
            model.fit(dataset, epochs=100, callbacks=callbacks)

        main()
        """}, "TFC001")
    assert [f.location.line for f in findings] == [24]


def test_a_setting_a_function_assigns_once_decides_its_branches():
    """A 3-D U-Net trainer writes its settings at the top of `main()`: `mixed_precision = False`, then `if
    mixed_precision: set_policy(...)`. A run with them trains in float32: turning the setting on is the change. A
    name the function binds again (a loop's) decides nothing."""
    script = """
        import tensorflow as tf

        def main():
            mixed_precision = False
            if mixed_precision:
                tf.keras.mixed_precision.set_global_policy("mixed_float16")
            model = tf.keras.Sequential([tf.keras.layers.Conv3D(f, 3) for f in (64, 128, 256, 512, 512, 512)])
            model.compile(optimizer="adam", loss="mse")
            model.fit(dataset, epochs=100)

        main()
        """
    (finding,) = _findings({"train.py": script}, "TFC001")
    assert "which is False with the defaults" in _evidence(finding)
    setting = "            mixed_precision = False\n"
    looped = script.replace(setting, setting + "            for mixed_precision in (False, True):\n                pass\n")
    assert "for mixed_precision in" in looped and not _findings({"train.py": looped}, "TFC001")


def test_a_head_fine_tuned_inside_an_evaluation_function_is_not_training():
    """A few-shot learning repo evaluates its encoder by fitting a linear head on each test task, in a loop with a
    GradientTape inside `evaluate()`: the script that runs only that is no training run."""
    loop = """
            def {name}(self, tasks):
                for x, y in tasks:
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(y, self.{net}(x)))
                    variables = self.{net}.trainable_variables
                    self.optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
    """
    findings = _findings({"cross_domain_ae.py": """
        import tensorflow as tf

        class CrossDomainAE:
            def __init__(self):
                self.encoder = tf.keras.Sequential([tf.keras.layers.Conv2D(64, 3), tf.keras.layers.Flatten()])
                self.head = tf.keras.layers.Dense(5)
                self.optimizer = tf.keras.optimizers.Adam()
        """ + loop.format(name="train", net="encoder") + loop.format(name="evaluate", net="head") + """
        if __name__ == "__main__":
            tasks = tf.data.Dataset.from_tensor_slices((tf.zeros((25, 84, 84, 3)), tf.zeros(25))).batch(5)
            CrossDomainAE().train(tasks)
        """, "cross_domain_ae_run.py": """
        import tensorflow as tf
        from cross_domain_ae import CrossDomainAE

        CrossDomainAE().evaluate(tf.data.Dataset.from_tensor_slices((tf.zeros((25, 84, 84, 3)),
                                                                     tf.zeros(25))).batch(5))
        """}, "TFH002", show_all=True)
    assert sorted((f.location.line, f.reach) for f in findings) == [(11, Reach.TRAINING), (18, Reach.OTHER)]


def test_a_class_count_no_source_line_says_is_no_width_chosen_for_capacity():
    """A multi-task classifier's heads are `Dense(num_classes)` per task, both given by the data: one output per
    class, however many the dataset has. Eight 512-unit layers under them are a small model for 16-bit units; the
    heads, which advisor cannot size, do not make it a big one."""
    finding, = _findings({"train.py": """
        import sys
        import tensorflow as tf

        class MultiTask(tf.keras.Model):
            def __init__(self, num_classes, tasks):
                super().__init__()
                self.hidden = [tf.keras.layers.Dense(512, activation="relu") for _ in range(8)]
                self.heads = [tf.keras.layers.Dense(num_classes) for _ in tasks]

            def call(self, x):
                for layer in self.hidden:
                    x = layer(x)
                return [head(x) for head in self.heads]

        model = MultiTask(int(sys.argv[1]), sys.argv[2:])
        model.compile("adam", "sparse_categorical_crossentropy")
        model.fit(features, labels, epochs=10)
        """}, "TFC001")
    assert (finding.location.line, finding.confidence) == (15, Confidence.POSSIBLE)


def test_a_function_a_script_hands_to_fire_as_a_command_is_a_way_into_training():
    """`fire.Fire()` makes every function of its script a command-line command the user names (`python cli.py
    finetune`): no code names `finetune`, yet a run starts there. A function of another script that nothing calls
    stays dead."""
    loop = """
        def {name}(steps=1000):
            model = tf.keras.Sequential([tf.keras.layers.Dense(2)])
            optimizer = tf.keras.optimizers.Adam()
            for x in tf.data.Dataset.from_tensor_slices(tf.random.normal((steps, 2))).batch(128):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(model(x))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                              model.trainable_variables))
    """
    findings = _findings({"cli.py": """
        import fire
        import tensorflow as tf
        """ + loop.format(name="finetune") + """
        fire.Fire()
        """, "train.py": """
        import tensorflow as tf
        """ + loop.format(name="train") + loop.format(name="train_leftover") + """
        train()
        """}, "TFH002", show_all=True)
    assert sorted((f.location.path.as_posix(), f.location.line, f.reach) for f in findings) == [
        ("cli.py", 8, Reach.TRAINING), ("train.py", 7, Reach.TRAINING), ("train.py", 16, Reach.OTHER)]


def test_a_function_of_an_imported_module_that_no_code_names_is_no_way_into_training():
    """A segmentation repo's `models.py` holds both models: `train.py` imports it, builds and fits
    `distance_model()`, and `train_rpn()`, which builds and fits the region-proposal model on its own pipeline, is
    named by no code: no run trains it, so its unparallelized map and heavy model are not reported with the
    training. A function of that module another module names (`models.train_unet` given to a dispatch table) is
    still a way in."""
    findings = _findings({"models.py": """
        import tensorflow as tf
        import datasets

        def train_rpn(epochs=10):
            model = tf.keras.Sequential([tf.keras.layers.Conv2D(512, 3, padding="same"),
                                         tf.keras.layers.Conv2D(512, 3, padding="same")])
            model.compile("adam", "mse")
            model.fit(datasets.rpn_dataset(), epochs=epochs)

        def train_unet(epochs=10):
            model = tf.keras.Sequential([tf.keras.layers.Conv2D(8, 3, padding="same")])
            model.compile("adam", "mse")
            model.fit(datasets.unet_dataset(), epochs=epochs)

        def distance_model():
            return tf.keras.Sequential([tf.keras.layers.Conv2D(8, 3, padding="same")])
        """, "datasets.py": """
        import numpy as np
        import tensorflow as tf

        def _load(path):
            return tf.numpy_function(lambda p: np.load(p), [path], tf.float32)

        def rpn_dataset():
            return tf.data.Dataset.list_files("rpn/*.npy").map(_load).batch(4).prefetch(2)

        def unet_dataset():
            return tf.data.Dataset.list_files("unet/*.npy").map(_load).batch(4).prefetch(2)

        def distance_dataset():
            return tf.data.Dataset.list_files("distance/*.npy").map(_load).batch(4).prefetch(2)
        """, "train.py": """
        import sys
        import datasets
        import models

        COMMANDS = {"unet": models.train_unet}
        if len(sys.argv) > 1:
            COMMANDS[sys.argv[1]]()
        model = models.distance_model()
        model.compile("adam", "mse")
        model.fit(datasets.distance_dataset(), epochs=100)
        """}, "TFD002", show_all=True)
    assert sorted((f.location.line, f.reach) for f in findings) == [
        (8, Reach.OTHER), (11, Reach.TRAINING), (14, Reach.TRAINING)]


def test_a_modules_self_test_that_fits_a_toy_model_is_no_training():
    """A keyword-spotting repo's `audio_generator.py` defines the Keras `Sequence` its training scripts import, and
    a `test_audio_generator()` its own `__main__` runs, fitting a small CNN on the generator for a few epochs to
    check it: the module's self-test, not a training run. The script that imports the generator trains."""
    findings = _findings({"audio_generator.py": """
        import numpy as np
        import tensorflow as tf

        class AudioGenerator(tf.keras.utils.Sequence):
            def __init__(self, paths, batch_size=16):
                self.paths, self.batch_size = paths, batch_size

            def __len__(self):
                return len(self.paths) // self.batch_size

            def __getitem__(self, index):
                batch = self.paths[index * self.batch_size:(index + 1) * self.batch_size]
                return np.stack([np.load(p) for p in batch]), np.zeros(len(batch))

        def test_audio_generator():
            model = tf.keras.Sequential([tf.keras.layers.Conv2D(8, 3), tf.keras.layers.Dense(1)])
            model.compile("adam", "mse")
            model.fit(AudioGenerator(sample_paths()), epochs=5)

        if __name__ == "__main__":
            test_audio_generator()
        """, "train.py": """
        import tensorflow as tf
        from audio_generator import AudioGenerator

        model = build_model()
        model.compile("adam", "sparse_categorical_crossentropy")
        model.fit(AudioGenerator(training_paths()), epochs=30)
        """}, "TFD004", show_all=True)
    assert sorted((f.location.path.as_posix(), f.reach) for f in findings) == [
        ("audio_generator.py", Reach.OTHER), ("train.py", Reach.TRAINING)]


def test_a_distributed_evaluation_pass_beside_the_training_loop_is_not_training_input():
    """A segmentation trainer distributes two `from_generator` datasets with its strategy, then each epoch loops
    over the training one with the compiled `train_step` and over the validation one with `test_step`: the strategy
    hands the batches on, so the loops consume the pipelines. The validation generator is no input a training step
    waits for; the training one is."""
    findings = _findings({"train.py": """
        import numpy as np
        import tensorflow as tf
        from PIL import Image

        class Parser:
            def __init__(self, paths):
                self.paths = paths
            def generator(self):
                for path in self.paths:
                    yield np.asarray(Image.open(path), np.float32), np.zeros((64, 64), np.float32)

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Conv2D(8, 3, padding="same")])
            optimizer = tf.keras.optimizers.Adam()
        shapes = (tf.TensorShape([None, None, 3]), tf.TensorShape([None, None]))
        dataset = tf.data.Dataset.from_generator(Parser(train_paths).generator, (tf.float32, tf.float32),
                                                 shapes).batch(8)
        datasetv = tf.data.Dataset.from_generator(Parser(val_paths).generator, (tf.float32, tf.float32),
                                                  shapes).batch(8)
        dist_dataset = strategy.experimental_distribute_dataset(dataset)
        dist_datasetv = strategy.experimental_distribute_dataset(datasetv)

        @tf.function
        def train_step(inputs):
            def step_fn(batch):
                x, y = batch
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(model(x)[..., 0] - y))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                return loss
            return strategy.run(step_fn, args=(inputs,))

        @tf.function
        def test_step(inputs):
            return strategy.run(lambda batch: model(batch[0]), args=(inputs,))

        for epoch in range(10):
            for batch in dist_dataset:
                train_step(batch)
            for batch in dist_datasetv:
                test_step(batch)
        """}, "TFD004", show_all=True)
    (finding,) = findings
    assert (finding.location.line, finding.confidence) == (17, Confidence.LIKELY)
    assert "feeds loop at train.py:40:5" in finding.evidence[0].message


def test_a_class_a_script_imports_is_the_one_in_its_own_folder():
    """A text-recognition repo has one folder per model variant, each with its own `Seq2Seq.py` whose class has the
    same name; a script imports the one beside it (its folder comes first on the import path). The eager step of
    the `ctc` trainer runs `ctc/Seq2Seq.py`, not the `seq2seq` variant's model, whose Python randomness would make
    compiling the step change what it computes."""
    model = """
        import random
        import tensorflow as tf

        class Seq2Seq(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.dense = tf.keras.layers.Dense(256)

            def call(self, x):
                {body}
        """
    findings = _findings({
        "ctc/Seq2Seq.py": model.format(body="return self.dense(x)"),
        "seq2seq/Seq2Seq.py": model.format(body="return self.dense(x) if random.random() < 0.5 else x"),
        "ctc/TrainSlover.py": """
            import tensorflow as tf
            from Seq2Seq import Seq2Seq

            class Solver:
                def __init__(self, dataset):
                    self.seq2seq = Seq2Seq()
                    self.optimizer = tf.keras.optimizers.Adam()
                    self.dataset = dataset

                def train(self):
                    for x, y in self.dataset:
                        with tf.GradientTape() as tape:
                            loss = tf.reduce_mean(tf.square(self.seq2seq(x) - y))
                        grads = tape.gradient(loss, self.seq2seq.trainable_variables)
                        self.optimizer.apply_gradients(zip(grads, self.seq2seq.trainable_variables))

            if __name__ == "__main__":
                Solver(tf.data.Dataset.from_tensor_slices((tf.zeros((64, 8)), tf.zeros((64, 256)))).batch(8)).train()
            """}, "TFH002")
    assert [(f.location.path.as_posix(), f.location.line, f.confidence) for f in findings] == [
        ("ctc/TrainSlover.py", 12, Confidence.LIKELY)]


def test_reading_the_batch_a_loop_iterates_waits_for_no_step():
    """An OCR trainer logs the labels of each batch it takes from its dataset (`ctc_idx.numpy()`, or an item of it,
    `data[0][0].cpu().numpy()`): a dataset's elements are made on the host, so reading them waits for no step.
    Reading the loss the step computed does."""
    findings = _findings({"train.py": """
        import logging
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
        optimizer = tf.keras.optimizers.Adam()
        dataset = tf.data.Dataset.from_tensor_slices((tf.zeros((64, 8)), tf.zeros((64,), tf.int32))).batch(8)

        @tf.function
        def train_step(images, labels):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(labels, model(images)))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
            return loss

        for epoch in range(10):
            for data in dataset:
                images, labels = data
                logging.debug("labels: {}".format(labels.numpy()))
                logging.debug("first: {}".format(data[0][0].cpu().numpy()))
                loss = train_step(images, labels)
                logging.info("loss: {}".format(loss.numpy()))
        """}, "TFH004")
    assert _where(findings) == [("TFH004", "train.py", 21)]


def test_a_step_compiled_by_tf_function_func_keyword_is_compiled():
    """LFADS compiles its step with `tf.function(func=self._step, input_signature=...)` and runs the eager `_step`
    only when a debugging option asks: the step is compiled."""
    findings = _findings({"models.py": """
        import tensorflow as tf

        class LFADS:
            def __init__(self, eager=False):
                self.model = tf.keras.Sequential([tf.keras.layers.Dense(256)])
                self.optimizer = tf.keras.optimizers.Adam()
                self.eager = eager
                self._graph_step = tf.function(func=self._step)

            def _step(self, batch):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(self.model(batch)))
                grads = tape.gradient(loss, self.model.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))

            def train_epoch(self, dataset):
                for batch in dataset.batch(16):
                    if self.eager:
                        self._step(batch)
                    else:
                        self._graph_step(batch)

        if __name__ == "__main__":
            LFADS().train_epoch(tf.data.Dataset.from_tensor_slices(tf.zeros((256, 32))))
        """}, "TFH002", show_all=True)
    assert not findings


def test_a_gan_class_given_its_keras_models_predicts_once_per_step():
    """A WGAN class is handed the generator and critic a notebook builds (`WGAN(generator, critic)`), and each
    critic step generates its fakes with `self.generator.predict(noise)`: Keras' whole-dataset set-up on every
    step, for one batch."""
    findings = _findings({"wgan.py": """
        import numpy as np

        class WGAN:
            def __init__(self, generator, critic):
                self.generator = generator
                self.critic = critic

            def _train_critic(self, x_train, batch_size):
                true_imgs = x_train[np.random.randint(0, x_train.shape[0], batch_size)]
                noise = np.random.normal(0, 1, (batch_size, 100))
                gen_imgs = self.generator.predict(noise)
                self.critic.train_on_batch(true_imgs, np.ones((batch_size, 1)))
                self.critic.train_on_batch(gen_imgs, -np.ones((batch_size, 1)))

            def train(self, x_train, batch_size, epochs):
                for epoch in range(epochs):
                    for _ in range(5):
                        self._train_critic(x_train, batch_size)
        """, "run.py": """
        import numpy as np
        from tensorflow.keras import layers, models
        from wgan import WGAN

        generator = models.Sequential([layers.Dense(3072, input_shape=(100,)), layers.Reshape((32, 32, 3))])
        critic = models.Sequential([layers.Conv2D(64, 3, input_shape=(32, 32, 3)), layers.Flatten(),
                                    layers.Dense(1)])
        critic.compile(optimizer="rmsprop", loss="mse")
        WGAN(generator, critic).train(np.zeros((1000, 32, 32, 3)), 32, 200)
        """}, "TFH007")
    assert _where(findings) == [("TFH007", "wgan.py", 11)]


def test_a_validation_pass_every_few_epochs_evaluates_each_batch_it_walks():
    """An open-set classifier validates every few epochs by calling `evaluate` on each validation batch: the
    interval makes the pass rare, not the calls in it, which run once per batch whenever it comes. A sample
    predicted every few epochs stays a rare call."""
    findings = _findings({"train.py": """
        import numpy as np
        import tensorflow as tf

        classifier = tf.keras.applications.ResNet50(weights=None)
        classifier.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
        for epoch in range(100):
            for step in range(1000):
                img, label = next(train_batches)
                classifier.train_on_batch(img, label)
            if (epoch + 1) % 5 == 0:
                val_accs = []
                for val_img, val_label in val_batches:
                    _, val_acc = classifier.evaluate(val_img, val_label, verbose=0)
                    val_accs.append(val_acc)
                sample = classifier.predict(np.random.normal(size=(1, 224, 224, 3)))
        """}, "TFH007")
    assert _where(findings) == [("TFH007", "train.py", 13)]


@pytest.mark.parametrize("hide", [
    'tf.config.set_visible_devices([], "GPU")',
    "tf.config.experimental.set_visible_devices(devices=[], device_type='GPU')",
])
def test_a_script_that_makes_no_gpu_visible_trains_on_the_cpu(hide):
    """`tf.config.set_visible_devices([], "GPU")` hides every GPU from the rest of the run, as `CUDA_VISIBLE_DEVICES
    = "-1"` does: as written the model trains on the CPU, and mixed precision is only possible."""
    (finding,) = _findings({"train.py": f"""
        import tensorflow as tf
        {hide}

        model = tf.keras.Sequential([tf.keras.layers.Conv2D(f, 3) for f in (64, 128, 256, 512, 512, 1024)])
        model.compile(optimizer="adam", loss="mse")
        model.fit(dataset, epochs=300)
        """}, "TFC001", show_all=True)
    assert finding.confidence is Confidence.POSSIBLE
    assert "hides every GPU" in _evidence(finding)


def test_an_estimator_whose_session_has_no_gpu_trains_on_the_cpu():
    """Recommender repos' Estimator scripts (DIN, DeepFM) configure their session with `device_count={'GPU': 0}`:
    every run trains on the CPU, where float16 gains nothing, however heavy the model. A session given one GPU says
    nothing of that."""
    script = """
        import tensorflow as tf

        def model_fn(features, labels, mode, params):
            net = features["image"]
            for filters in [64, 128, 256, 512, 512, 1024]:
                net = tf.layers.conv2d(net, filters, 3, activation=tf.nn.relu)
            loss = tf.losses.log_loss(labels, tf.layers.dense(tf.reduce_mean(net, [1, 2]), 1, activation=tf.sigmoid))
            train_op = tf.train.AdamOptimizer().minimize(loss, global_step=tf.train.get_global_step())
            return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

        def main(_):
            config = tf.estimator.RunConfig().replace(session_config=tf.ConfigProto(device_count={{"GPU": {gpus},
                                                                                                   "CPU": 8}}))
            estimator = tf.estimator.Estimator(model_fn=model_fn, config=config)
            estimator.train(input_fn=train_input_fn)

        if __name__ == "__main__":
            tf.app.run()
        """
    (finding,) = _findings({"DIN.py": script.format(gpus=0)}, "TFC001", show_all=True)
    assert finding.confidence is Confidence.POSSIBLE
    assert "hides every GPU (`tf.ConfigProto(device_count=" in _evidence(finding)
    (finding,) = _findings({"DIN.py": script.format(gpus=1)}, "TFC001", show_all=True)
    assert finding.confidence is Confidence.LIKELY


@pytest.mark.parametrize("helper, used", [
    ("""
        class BBoxUtility:
            def __init__(self, num_classes):
                self.boxes = tf.placeholder(dtype="float32", shape=(None, 4))
                self.sess = tf.Session(config=tf.ConfigProto(device_count={"GPU": 0}))
        """, "BBoxUtility(21)"),
    ("""
        def initial_mel_spectrograms(waves):
            graph = tf.Graph()
            with graph.as_default():
                placeholder = tf.placeholder(tf.float32, shape=waves.shape)
                spectrograms = tf.signal.stft(placeholder, 1024, 256)
            config = tf.ConfigProto(device_count={"GPU": 0})
            sess = tf.Session(config=config, graph=graph)
            return sess.run(spectrograms, feed_dict={placeholder: waves})
        """, "initial_mel_spectrograms(None)")])
def test_a_session_a_helper_makes_for_its_own_work_hides_no_gpu_from_the_training(helper, used):
    """SSD-Keras's box utility keeps `self.sess = tf.Session(config=tf.ConfigProto(device_count={'GPU': 0}))` for
    its non-max suppression; a WaveNet repo computes its first mel spectrograms in a session of its own on the CPU.
    Those sessions hide the GPU from themselves only: the training, in Keras' session, still sees it."""
    (finding,) = _findings({"helpers.py": "import tensorflow as tf\n" + textwrap.dedent(helper), "train.py": f"""
        import tensorflow as tf
        from helpers import *

        {used}
        model = tf.keras.Sequential([tf.keras.layers.Conv2D(256, 3) for _ in range(16)])
        model.build((None, 300, 300, 3))
        model.compile("adam", "mse")
        model.fit(tf.data.Dataset.range(10), epochs=100)
        """}, "TFC001", show_all=True)
    assert finding.confidence is Confidence.LIKELY
    assert "hides every GPU" not in _evidence(finding)


def test_a_script_that_hides_every_gpu_trains_on_the_cpu():
    """A YOLOv5 port sets `CUDA_VISIBLE_DEVICES = "-1"` at the top of its training script: as written it trains on
    the CPU, where float16 gains nothing, so mixed precision is only possible. Hiding the GPUs under a flag (a
    `--cpu` option) says nothing of the run the defaults make."""
    script = """
        import os
        {hide}
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Conv2D(f, 3) for f in (64, 128, 256, 512, 512, 1024)])
        model.compile(optimizer="adam", loss="mse")
        model.fit(dataset, epochs=300)
        """
    hidden = script.format(hide='os.environ["CUDA_VISIBLE_DEVICES"] = "-1"')
    (finding,) = _findings({"train.py": hidden}, "TFC001")
    assert finding.confidence is Confidence.POSSIBLE
    assert "hides every GPU" in _evidence(finding)
    flagged = script.format(hide='if os.getenv("FORCE_CPU"): os.environ["CUDA_VISIBLE_DEVICES"] = "-1"')
    (finding,) = _findings({"train.py": flagged}, "TFC001")
    assert finding.confidence is Confidence.LIKELY
    # A weight converter that hides the GPUs and builds the same model says nothing of the training script.
    model = """
        import tensorflow as tf

        def yolo():
            return tf.keras.Sequential([tf.keras.layers.Conv2D(f, 3) for f in (64, 128, 256, 512, 512, 1024)])
        """
    findings = _findings({"model.py": model, "convert.py": """
        import os
        os.environ["CUDA_VISIBLE_DEVICES"] = "-1"
        from model import yolo
        yolo().save_weights("converted.h5")
        """, "train.py": """
        from model import yolo
        net = yolo()
        net.compile(optimizer="adam", loss="mse")
        net.fit(dataset, epochs=300)
        """}, "TFC001")
    assert [(f.location.path.as_posix(), f.confidence) for f in findings] == [("model.py", Confidence.LIKELY)]


def test_a_keras_model_trained_by_tensorflow_1_eagerly_has_no_policy_to_set():
    """An OCR trainer written for TensorFlow 1.x eager execution (`tf.enable_eager_execution()`, a `tf.train`
    optimizer) trains a big Keras model: Keras' mixed-precision policy and loss scaling are TensorFlow 2's, and
    1.x's graph rewrite needs a graph, so the advice is only possible there."""
    script = """
        import tensorflow as tf
        {eager}

        model = tf.keras.Sequential([tf.keras.layers.Conv2D(f, 3) for f in (64, 128, 256, 512, 512, 512)])
        optimizer = tf.train.AdamOptimizer(1e-3)
        for images, labels in dataset:
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(images) - labels))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
        """
    (finding,) = _findings({"train.py": script.format(eager="tf.enable_eager_execution()")}, "TFC001")
    assert (finding.location.line, finding.confidence) == (4, Confidence.POSSIBLE)
    assert "runs TensorFlow 1.x eagerly" in _evidence(finding)
    # In a graph (no eager execution) the 1.x rewrite applies: the model's finding stays likely.
    graph = {f.location.line: f for f in _findings({"train.py": script.format(eager="")}, "TFC001")}
    assert graph[4].confidence is Confidence.LIKELY


def test_python_run_by_a_function_a_map_reaches_through_a_lambda_or_a_bound_method_runs_per_element():
    """Two YOLOv3 loaders run their augmentation through `tf.numpy_function` in the parse function their dataset
    maps: one maps `lambda x: _parse_fn(x, training=training)`, the other its own method, `dataset.map(self.parse)`.
    Either way the Python runs for every element, under the GIL."""
    findings = _findings({"loader.py": """
        import cv2
        import numpy as np
        import tensorflow as tf

        def augment(image):
            return cv2.GaussianBlur(image, (5, 5), 0).astype(np.float32)

        def _parse_fn(record, training):
            image = tf.io.decode_jpeg(record)
            if training:
                image = tf.numpy_function(augment, [image], tf.float32)
            return image

        def make_dataset(files, training=True):
            dataset = tf.data.TFRecordDataset(files)
            return dataset.map(lambda x: _parse_fn(x, training=training), num_parallel_calls=-1).batch(8)

        class Reader:
            def change_image(self, image):
                return cv2.resize(image.numpy(), (416, 416)).astype(np.float32)

            def parse(self, image):
                return tf.py_function(self.change_image, [image], tf.float32)

            def dataset(self, images):
                return tf.data.Dataset.from_tensor_slices(images).map(self.parse, num_parallel_calls=-1).batch(8)

        model = tf.keras.Sequential([tf.keras.layers.Conv2D(8, 3)])
        model.compile("adam", "mse")
        model.fit(make_dataset(["train.tfrecord"]), epochs=10)
        model.fit(Reader().dataset(np.zeros((64, 500, 500, 3), np.uint8)), epochs=10)
        """}, "TFD003", show_all=True)
    assert [(f.location.line, f.confidence) for f in findings] == [(11, Confidence.LIKELY), (23, Confidence.LIKELY)]


def test_the_model_a_step_is_passed_is_the_one_the_default_run_binds():
    """A YOLOv1 script builds `Model()` when `--mode` is `train` (the default) and `Model(is_train=False)` otherwise,
    then hands `model` to its eager training function: the model to make 16-bit is the one training builds."""
    findings = _findings({"main.py": """
        import argparse
        import tensorflow as tf

        class Model(tf.keras.Model):
            def __init__(self, is_train=True):
                super().__init__()
                self.convs = [tf.keras.layers.Conv2D(f, 3) for f in (64, 128, 256, 512, 1024, 1024)]
                self.optimizer = tf.keras.optimizers.Adam()

            def call(self, x):
                for conv in self.convs:
                    x = conv(x)
                return x

        def train(model, dataset):
            for images, labels in dataset:
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(model(images) - labels))
                gradients = tape.gradient(loss, model.trainable_variables)
                model.optimizer.apply_gradients(zip(gradients, model.trainable_variables))

        parser = argparse.ArgumentParser()
        parser.add_argument("--mode", default="train")
        args = parser.parse_args()
        if args.mode == "train":
            model = Model()
        else:
            model = Model(is_train=False)
        train(model, dataset)
        """}, "TFC001")
    assert [(f.location.line, f.confidence) for f in findings] == [(26, Confidence.LIKELY)]


def test_arithmetic_on_a_running_total_of_losses_is_a_tensor_too():
    """A YOLOv1 loop keeps a running average of the loss (`loss_sum += loss`, `loss_avg = loss_sum / (i + 1)`) and
    prints both the batch loss and the average each step: each `float()` waits for the step, so fixing one alone
    gains nothing."""
    findings = _findings({"train.py": """
        import tensorflow as tf

        def train(model, dataset, optimizer):
            loss_sum = 0
            for i, (images, labels) in enumerate(dataset):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(model(images) - labels))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                              model.trainable_variables))
                loss_sum += loss
                loss_avg = loss_sum / (i + 1)
                avg_loss_str = str(float(loss_avg))
                batch_loss_str = str(float(loss))

        train(tf.keras.Sequential([tf.keras.layers.Dense(10)]), dataset, tf.keras.optimizers.Adam())
        """}, "TFH004")
    assert _where(findings) == [("TFH004", "train.py", 12), ("TFH004", "train.py", 13)]


def test_a_keras_loop_beside_a_custom_training_loop_trains_too():
    """A two-stage trainer pretrains with a custom step over one dataset, then fine-tunes with `train_on_batch` over
    another: both loops train, so the second dataset's Python generator is input a training step waits for."""
    findings = _findings({"train.py": """
        import numpy as np
        import tensorflow as tf
        from PIL import Image

        def images(paths):
            for path in paths:
                yield np.asarray(Image.open(path), np.float32), np.float32(0)

        model = tf.keras.Sequential([tf.keras.layers.Conv2D(8, 3), tf.keras.layers.GlobalAveragePooling2D()])
        model.compile("adam", "mse")
        optimizer = tf.keras.optimizers.Adam()
        pretrain = tf.data.Dataset.from_tensor_slices((np.zeros((64, 32, 32, 3)), np.zeros(64))).batch(8)
        finetune = tf.data.Dataset.from_generator(lambda: images(paths), (tf.float32, tf.float32)).batch(8)

        @tf.function
        def train_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - y))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))

        for x, y in pretrain:
            train_step(x, y)
        for x, y in finetune:
            model.train_on_batch(x, y)
        """}, "TFD004")
    assert _where(findings) == [("TFD004", "train.py", 13)]


def test_a_py_function_in_a_dataset_nothing_reads_is_no_sure_cost():
    """A translation notebook encodes its training and validation sets with `tf.py_function`; it trains on the
    first and never reads the second: that one's Python costs no step."""
    findings = _findings({"nmt.py": """
        import tensorflow as tf

        def encode(zh, en):
            return tokenizer_zh.encode(zh.numpy()), tokenizer_en.encode(en.numpy())

        def pairs(split):
            return tf.data.experimental.CsvDataset(f"{split}.csv", [tf.string, tf.string])

        train_dataset = pairs("train").map(lambda zh, en: tf.py_function(encode, [zh, en], [tf.int32, tf.int32]))
        train_dataset = train_dataset.padded_batch(64, padded_shapes=([-1], [-1])).prefetch(1)
        val_dataset = pairs("val").map(lambda zh, en: tf.py_function(encode, [zh, en], [tf.int32, tf.int32]))
        val_dataset = val_dataset.padded_batch(64, padded_shapes=([-1], [-1]))
        model = tf.keras.Sequential([tf.keras.layers.Embedding(8000, 512), tf.keras.layers.Dense(8000)])
        model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
        model.fit(train_dataset, epochs=20)
        """}, "TFD003", show_all=True)
    assert [(f.location.line, f.confidence) for f in findings] == [(9, Confidence.LIKELY), (11, Confidence.POSSIBLE)]


def test_numpy_function_handed_a_loader_waits_on_files():
    """TensorFlowTTS loads each utterance's features with `tf.numpy_function(np.load, [path], tf.float32)` in its
    dataset's map: the Python waits on a file, releasing the GIL, so parallel calls do help. With them, nothing to
    report (TFD003 is for Python that computes); without them, the serial map is the finding."""
    script = """
        import numpy as np
        import tensorflow as tf

        @tf.function
        def load(path):
            return tf.numpy_function(np.load, [path], tf.float32)

        dataset = tf.data.Dataset.from_tensor_slices(paths).map(lambda p: load(p){parallel}).batch(16)
        model.fit(dataset, epochs=10)
        """
    assert not _findings({"train.py": script.format(parallel=", tf.data.AUTOTUNE")}, "TFD003", "TFD002",
                         show_all=True)
    (finding,) = _findings({"train.py": script.format(parallel="")}, "TFD003", "TFD002")
    assert (finding.code, finding.location.line, finding.confidence) == ("TFD002", 8, Confidence.LIKELY)
    assert "waits (`np.load`, line 6)" in finding.message


_VENDORED_EXAMPLE = """
import tensorflow as tf

def decode(x):
    return tf.image.decode_png(x)

ds = tf.data.TFRecordDataset(["a.tfrecord"]).map(decode).batch(32)
model = tf.keras.Sequential([tf.keras.layers.Conv2D(8, 3)])
model.compile("adam", "mse")
model.fit(ds, epochs=10)
"""
_OWN_TRAINING = """
import tensorflow as tf
import tensorflow_probability as tfp

x = tf.random.normal([64, 4])
model = tf.keras.Sequential([tf.keras.layers.Dense(4)])
model.compile("adam", "mse")
model.fit(x, x, epochs=10)
"""


@pytest.mark.parametrize("packaged", [False, True])
def test_the_examples_of_a_library_the_repo_keeps_a_copy_of_are_not_its_training(packaged):
    """A PEARL port keeps all of TensorFlow Probability at its root for `import tensorflow_probability` to find, its
    examples included: they train, but not in this repo's runs (hidden by default). Where the repo is that library's
    own distribution (a setup.py at its root), its examples are its training."""
    files = {"main.py": _OWN_TRAINING, "tensorflow_probability/__init__.py": "import tensorflow as tf\n",
             "tensorflow_probability/examples/vae.py": _VENDORED_EXAMPLE}
    if packaged:
        files["setup.py"] = "from setuptools import setup\nsetup(name='tensorflow-probability')\n"
    (finding,) = _findings(files, "TFD002", show_all=True)
    assert finding.location.path.as_posix() == "tensorflow_probability/examples/vae.py"
    assert finding.reach is (Reach.TRAINING if packaged else Reach.OTHER)


@pytest.mark.parametrize("licensed, imported", [(True, True), (False, True), (True, False)])
def test_the_scripts_of_a_project_the_repo_keeps_a_copy_of_are_not_its_training(licensed, imported):
    """A YOLO project keeps qqwweee's keras-yolo3 in `src/keras_yolo3/`, its MIT license beside it, and its own
    trainer imports the copy's model: the copy's `train.py` is that other project's script, not this repo's
    training (hidden by default). A folder without a license of its own is the repo's own code; a licensed folder
    nothing outside imports (a book's chapters, each a project) is no library of the repo: its scripts train."""
    files = {"src/keras_yolo3/yolo3/__init__.py": "",
             "src/keras_yolo3/yolo3/model.py": "import tensorflow as tf\n\ndef yolo_body():\n"
                                               "    return tf.keras.Sequential([tf.keras.layers.Conv2D(8, 3)])\n",
             "src/keras_yolo3/train.py": _VENDORED_EXAMPLE,
             "train.py": _OWN_TRAINING.replace("import tensorflow_probability as tfp",
                                               "from keras_yolo3.yolo3.model import yolo_body" if imported else "")}
    if licensed:
        files["src/keras_yolo3/LICENSE"] = "MIT License\n\nCopyright (c) 2018 qqwweee\n"
    (finding,) = _findings(files, "TFD002", show_all=True)
    assert finding.location.path.as_posix() == "src/keras_yolo3/train.py"
    assert finding.reach is (Reach.OTHER if licensed and imported else Reach.TRAINING)


@pytest.mark.parametrize("exported", [False, True])
def test_a_script_importing_a_name_its_module_lost_through_star_imports_does_not_run(exported):
    """A YOLO repo's stale experiment script imports `YOLOv3Encoder` from `models/yolov3.py`, which no longer has it;
    that module star-imports a repo module of constants, which lacks it too: the import fails, the script trains in
    no run. Where the star-imported module defines it, the script runs."""
    constants = "ANCHORS = [10, 13]\n" + ("class YOLOv3Encoder:\n    pass\n" if exported else "")
    findings = _findings({
        "train.py": _OWN_TRAINING, "utils/__init__.py": "", "utils/constant.py": constants, "models/__init__.py": "",
        "models/yolov3.py": "import tensorflow as tf\nfrom utils.constant import *\n\nclass YOLOv3(tf.keras.Model):\n"
                            "    pass\n",
        "experiments/train_yolov3.py": """
            import tensorflow as tf
            from models.yolov3 import YOLOv3Encoder

            model = tf.keras.Sequential([tf.keras.layers.Conv2D(64, 3) for _ in range(8)])
            model.compile("adam", "mse")
            model.fit(tf.data.TFRecordDataset(["a"]).map(tf.io.parse_tensor).batch(8), epochs=10)
            """}, "TFD002", show_all=True)
    assert [f.reach for f in findings] == [Reach.TRAINING if exported else Reach.OTHER]


@pytest.mark.parametrize("workers, parallel", [
    ("workers=cfg['num_workers'],\n          use_multiprocessing=True if cfg['num_workers'] > 1 else False", True),
    ("workers=num_workers,\n          use_multiprocessing=True if num_workers > 1 else False", False),
    ("", False)])
def test_a_sequence_made_by_workers_the_configuration_sets_is_no_finding(workers, parallel):
    """A YOLO trainer passes `workers` and `use_multiprocessing` from its YAML configuration: the program is built to
    make its batches in parallel processes, so the Python batches are no finding. Without them, or where the source
    sets the count to 1 (`num_workers = 1`, as bubbliiiing's trainers do), they are."""
    findings = _findings({"train.py": f"""
        import cv2
        import numpy as np
        import tensorflow as tf
        import yaml

        class Images(tf.keras.utils.Sequence):
            def __init__(self, paths):
                self.paths = paths

            def __len__(self):
                return len(self.paths) // 16

            def __getitem__(self, i):
                batch = np.stack([cv2.imread(p) for p in self.paths[i * 16:(i + 1) * 16]])
                return batch, batch

        cfg = yaml.safe_load(open("config.yaml"))
        num_workers = 1
        model = tf.keras.Sequential([tf.keras.layers.Conv2D(64, 3) for _ in range(8)])
        model.compile("adam", "mse")
        model.fit(Images(["a.jpg"] * 64), epochs=10,
                  {workers})
        """}, "TFD004")
    assert [f.confidence for f in findings] == ([] if parallel else [Confidence.LIKELY])


@pytest.mark.parametrize("guarded", [True, False])
def test_eager_functions_turned_on_by_a_mode_the_run_opts_into_is_possible(guarded):
    """A trainer turns every tf.function eager only `if train_mode == "eager"`, a mode its configuration chooses:
    whether a training run picks it, the source does not say (possible). Unconditional, it is the finding."""
    switch = "if train_mode == 'eager':\n" + " " * 16 if guarded else ""
    findings = _findings({"train.py": f"""
        import sys
        import tensorflow as tf

        def prepare(train_mode):
            {switch}tf.config.run_functions_eagerly(True)

        prepare(sys.argv[1])
        model = tf.keras.Sequential([tf.keras.layers.Conv2D(64, 3) for _ in range(8)])
        model.compile("adam", "mse")
        model.fit(tf.data.TFRecordDataset(["a"]).batch(8).prefetch(1), epochs=10)
        """}, "TFH002")
    assert [f.confidence for f in findings] == [Confidence.POSSIBLE if guarded else Confidence.LIKELY]


@pytest.mark.parametrize("exits", [True, False])
def test_a_step_the_loop_exits_after_runs_once(exits):
    """A debugging notebook runs its eager step on the first batch and then `sys.exit(1)`: the step runs once, no
    loop of steps to compile. Without the exit, the eager step is the finding."""
    ending = "sys.exit(1)" if exits else "pass"
    findings = _findings({"debug.py": f"""
        import sys
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Conv2D(64, 3) for _ in range(8)])
        optimizer = tf.keras.optimizers.SGD()

        def train_step(images, labels):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(images) - labels))
            gradients = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(gradients, model.trainable_variables))
            return loss

        for images, labels in tf.data.TFRecordDataset(["a"]).map(tf.io.parse_tensor).batch(8):
            loss = train_step(images, labels)
            {ending}
        """}, "TFH002")
    assert [f.location.line for f in findings] == ([] if exits else [7])


def test_a_read_in_the_branch_that_runs_the_step_happens_every_step():
    """A YOLO trainer gathers images with a Python counter and runs its compiled step when the batch is full, in
    `if batch_counter == BATCH_SIZE:`, then prints the loss there: that branch runs the step itself, so it is no
    interval the read is throttled by; the read happens on every step."""
    head = """import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Conv2D(64, 3) for _ in range(8)])
optimizer = tf.keras.optimizers.SGD()
iter_template = "iter {}, Loss: {}"

@tf.function
"""
    loop = """
batch_counter = 0
batch_images, batch_labels = [], []
iteration = 0
for image, label in tf.data.TFRecordDataset(["a"]).map(tf.io.parse_tensor):
    if batch_counter == 4:
        loss = step_fn(tf.stack(batch_images), tf.stack(batch_labels))
        print(iter_template.format(iteration, loss))
        batch_images, batch_labels = [image], [label]
        batch_counter = 1
        iteration += 1
    else:
        batch_images.append(image)
        batch_labels.append(label)
        batch_counter += 1
"""
    (finding,) = _findings({"main.py": head + _REPLICA_STEP + loop}, "TFH004")
    assert (finding.location.line, finding.confidence) == (21, Confidence.LIKELY)


def test_predict_per_step_with_eager_execution_turned_off_is_possible():
    """A DQN agent module calls `tf.compat.v1.disable_eager_execution()` and then predicts one state per environment
    step: Keras runs its TensorFlow 1.x loops there, without the per-call set-up that makes TensorFlow 2's
    `predict` slow (possible)."""
    findings = _findings({"agent.py": """
        import gym
        import numpy as np
        import tensorflow as tf

        tf.compat.v1.disable_eager_execution()

        env = gym.make("CartPole-v1")
        model = tf.keras.Sequential([tf.keras.layers.Dense(16), tf.keras.layers.Dense(2)])
        model.compile("adam", "mse")
        state = env.reset()
        for step in range(10000):
            action = np.argmax(model.predict(state[None]))
            state, reward, done, _ = env.step(action)
            model.fit(state[None], np.zeros((1, 2)), verbose=0)
        """}, "TFH007")
    assert {(f.location.line, f.confidence) for f in findings} == {(12, Confidence.POSSIBLE), (14, Confidence.POSSIBLE)}
    assert all("turns eager execution off" in _evidence(f) for f in findings)


def test_a_class_imported_from_a_package_name_two_projects_share_is_the_one_that_exports_it():
    """Two projects of a repo each have a `models` package; `I2I/train_FST.py` imports `FastStyleTransfer` from its
    own, which passes it on from a subpackage: the class its loop trains is that one, so its per-step read is
    found, as in the other project's script."""
    model = """
        import tensorflow as tf

        class {name}(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.step = tf.Variable(0)
                self.optimizer = tf.keras.optimizers.Adam()

            @tf.function
            def train(self, images):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(self(images))
                grads = tape.gradient(loss, self.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
                self.step.assign_add(1)
                return loss
        """
    script = """
        import tensorflow as tf
        from models import {name}

        model = {name}()
        for images in tf.data.TFRecordDataset(["a"]).map(tf.io.parse_tensor).batch(8).prefetch(1):
            model.train(images)
            current_step = model.step.numpy()
        """
    files = {}
    for project, name in (("GAN", "DCGAN"), ("I2I", "FastStyleTransfer")):
        files |= {f"{project}/models/__init__.py": f"from .{name.lower()} import {name}\n",
                  f"{project}/models/{name.lower()}/__init__.py": f"from .model import {name}\n",
                  f"{project}/models/{name.lower()}/model.py": model.format(name=name),
                  f"{project}/train_{name}.py": script.format(name=name)}
    assert sorted(f.location.path.as_posix() for f in _findings(files, "TFH004")) == [
        "GAN/train_DCGAN.py", "I2I/train_FastStyleTransfer.py"]


def test_a_function_a_package_passes_on_is_reached_through_the_package_attribute():
    """A notebook does `from mycnn import data` and calls `data.generate_classification_dataset(...)`, a function
    `mycnn/data/__init__.py` imports from its `classification` module: the pipeline it builds is what training
    consumes."""
    findings = _findings({
        "mycnn/__init__.py": "from . import data\n",
        "mycnn/data/__init__.py": "from .classification import generate_classification_dataset\n",
        "mycnn/data/classification.py": """
            import tensorflow as tf

            def load_img(path):
                image = tf.image.decode_jpeg(tf.io.read_file(path))
                return tf.image.random_flip_left_right(tf.image.resize(image, (227, 227)))

            def generate_classification_dataset(paths, batch_size):
                return tf.data.Dataset.from_tensor_slices(paths).map(load_img).batch(batch_size).prefetch(1)
            """,
        "train.py": """
            import tensorflow as tf
            from mycnn import data

            train_dataset = data.generate_classification_dataset(["a.jpg"], 50)
            model = tf.keras.Sequential([tf.keras.layers.Conv2D(64, 3) for _ in range(8)])
            model.compile("adam", "mse")
            model.fit(train_dataset, epochs=30)
            """}, "TFD002", show_all=True)
    assert [(f.location.path.as_posix(), f.location.line, f.reach) for f in findings] == [
        ("mycnn/data/classification.py", 8, Reach.TRAINING)]


def test_a_backbone_cut_at_a_layer_and_then_frozen_is_frozen():
    """An SSD trainer builds MobileNetV2, binds the name again to a `Model` of its own layers up to one block,
    and freezes every layer of that: the backbone trains no further (possible), as with the MobileNet it freezes
    without the cut."""
    (finding,) = _findings({"ssd.py": """
        import tensorflow as tf
        from tensorflow.keras.applications import MobileNetV2
        from tensorflow.keras.models import Model

        base_network = MobileNetV2(input_shape=(300, 300, 3), weights="imagenet", include_top=False)
        base_network = Model(inputs=base_network.input, outputs=base_network.get_layer("block_16_project_BN").output)
        for layer in base_network.layers:
            layer.trainable = False
        x = tf.keras.layers.Conv2D(256, 3)(base_network.output)
        model = Model(base_network.input, tf.keras.layers.Conv2D(24, 3)(x))
        model.compile(loss="mse", optimizer="adam")
        model.fit(train_data, epochs=120)
        """}, "TFC001")
    assert (finding.location.line, finding.confidence) == (10, Confidence.POSSIBLE)
    assert "is frozen (`layer.trainable = False`)" in finding.evidence[-1].message


@pytest.mark.parametrize("kept, confidence", [(2, Confidence.POSSIBLE), (20, Confidence.LIKELY)])
def test_a_backbone_frozen_through_the_layers_of_the_model_built_on_it(kept: int, confidence: Confidence):
    """A distillation repo builds `Model(base_model.input, probabilities)` on a MobileNet, adding pooling, dropout, a
    dense layer and its activation, then freezes `model.layers[:-2]`: every layer but the last two of its head, so
    the MobileNet trains no further (possible). Freezing all but the last 20 fine-tunes the backbone's top."""
    (finding,) = _findings({"train.py": f"""
        from tensorflow.keras.applications.mobilenet import MobileNet
        from tensorflow.keras.layers import Activation, Dense, Dropout, GlobalAveragePooling2D
        from tensorflow.keras.models import Model

        def get_mobilenet(input_size):
            base_model = MobileNet(include_top=False, weights="imagenet", input_shape=(input_size, input_size, 3))
            x = GlobalAveragePooling2D()(base_model.output)
            x = Dropout(0.5)(x)
            logits = Dense(256)(x)
            probabilities = Activation("softmax")(logits)
            model = Model(base_model.input, probabilities)
            for layer in model.layers[:-{kept}]:
                layer.trainable = False
            return model

        model = get_mobilenet(224)
        model.compile(loss="categorical_crossentropy", optimizer="sgd")
        model.fit(train_images, epochs=30)
        """}, "TFC001")
    assert (finding.location.line, finding.confidence) == (11, confidence)


@pytest.mark.parametrize("child_epochs", [8, None])
def test_a_controller_whose_every_step_fits_child_networks_has_no_per_step_cost_worth_a_change(child_epochs):
    """A NAS controller's loop samples architectures, fits a child network on each for 8 epochs, then updates its
    own small policy and prints its loss: next to the children's training, the controller's per-step read is a small
    share (possible). Where the environment only scores the architecture, the read is the finding."""
    reward = (f"model.fit(self.x, self.y, epochs={child_epochs}, verbose=0)\n"
              "                return model.evaluate(self.x, self.y)[1]") if child_epochs else \
        "return float(len(actions))"
    findings = _findings({"controller.py": f"""
        import numpy as np
        import tensorflow as tf

        class DenseEnv:
            def __init__(self, x, y):
                self.x, self.y = x, y

            def get_rewards(self, actions):
                model = tf.keras.Sequential([tf.keras.layers.Dense(units) for units in actions])
                model.compile("adam", "mse")
                {reward}

        def train_controller(model, env, optimizer, steps):
            for step in range(steps):
                with tf.GradientTape() as tape:
                    archs, log_probs = model(None)
                    rewards = [env.get_rewards(list(arch)) for arch in archs.numpy()]
                    loss = -tf.reduce_sum(log_probs * rewards)
                gradients = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(gradients, model.trainable_variables))
                print("policy loss:", loss.numpy())

        controller = tf.keras.Sequential([tf.keras.layers.LSTM(64)])
        train_controller(controller, DenseEnv(np.zeros((64, 8)), np.zeros((64, 1))), tf.keras.optimizers.Adam(),
                         steps=500)
        """}, "TFH004", show_all=True)
    assert sorted((f.location.line, f.confidence) for f in findings) == (
        [(18, Confidence.POSSIBLE), (22, Confidence.POSSIBLE)] if child_epochs else
        [(17, Confidence.LIKELY), (21, Confidence.LIKELY)])


@pytest.mark.parametrize("parallelism, found", [("num_parallel_calls=3", True), ("3", True),
                                                 ("num_parallel_calls=4", False)])
def test_three_parallel_calls_leave_a_decoding_map_short_of_cores(parallelism, found):
    """Three checked repos decode images in a map with `num_parallel_calls=3` (a phase-retrieval trainer passing it
    positionally): a few cores of the many a GPU host has; AUTOTUNE sizes it to the machine. Four is left alone."""
    findings = _findings({"train.py": f"""
        import tensorflow as tf

        def parse(path):
            image = tf.image.decode_jpeg(tf.io.read_file(path))
            return tf.image.resize(image, (299, 299))

        ds = tf.data.Dataset.from_tensor_slices(["a.jpg"]).map(parse, {parallelism}).batch(64).prefetch(1)
        model = tf.keras.Sequential([tf.keras.layers.Conv2D(64, 3) for _ in range(8)])
        model.compile("adam", "mse")
        model.fit(ds, epochs=10)
        """}, "TFD002")
    assert [f.location.line for f in findings] == ([7] if found else [])


def test_an_update_whose_gradients_a_tape_records_is_eager_whatever_tensorflow_1_api_its_module_calls():
    """A style-transfer module makes its optimizer with `tf.train.AdamOptimizer` (TensorFlow 1.x API) and applies
    the gradients a helper's GradientTape records: the script that runs it enables eager execution, so the loop is
    an eager one (TFH002 says so), not a graph for TensorFlow 1.x's mixed-precision graph rewrite."""
    findings = _findings({"transfer_tools.py": """
        import tensorflow as tf

        def compute_grads(model, image):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(image))
            return tape.gradient(loss, image), loss
        """, "stm_model.py": """
        import tensorflow as tf
        import transfer_tools as tt

        def run_style_transfer(model, init_image, iterations=1000):
            opt = tf.train.AdamOptimizer(learning_rate=5)
            for i in range(iterations):
                grads, loss = tt.compute_grads(model, init_image)
                opt.apply_gradients([(grads, init_image)])
            return init_image
        """, "app.py": """
        import tensorflow as tf
        import stm_model

        tf.enable_eager_execution()
        vgg = tf.keras.applications.VGG19(include_top=False)
        stm_model.run_style_transfer(vgg, tf.Variable(tf.zeros((1, 512, 512, 3))))
        """}, "TFC001", "TFH002", show_all=True)
    assert [(f.code, f.location.path.as_posix()) for f in findings if "graph" in f.message] == []
    assert [(f.code, f.location.path.as_posix(), f.location.line) for f in findings if f.code == "TFH002"] == [
        ("TFH002", "stm_model.py", 7)]


@pytest.mark.parametrize("batch, likely", [("np.array(x_batch), np.array(y_batch)", False),
                                           ("np.array([[ord(c) for c in str(t)] for t in x_batch]), y_batch", True)])
def test_a_generator_that_copies_slices_of_arrays_in_memory_makes_its_batches_cheaply(batch, likely):
    """An NLP trainer's `fill_feed_batch_data` slices the token arrays it holds and yields `np.array` copies of the
    slices: a copy of each batch, microseconds (possible). Building the batch in Python (a comprehension over its
    texts) is the per-batch work that can starve the step (likely)."""
    findings = _findings({"trainer.py": f"""
        import numpy as np
        import tensorflow as tf

        def fill_feed_batch_data(data, batch_size):
            X, Y = data[0], data[1]
            for idx in range(X.shape[0] // batch_size):
                x_batch = X[batch_size * idx: batch_size * (idx + 1)]
                y_batch = Y[batch_size * idx: batch_size * (idx + 1)]
                yield {batch}

        model = tf.keras.Sequential([tf.keras.layers.Embedding(8000, 312), tf.keras.layers.LSTM(312)])
        optimizer = tf.keras.optimizers.Adam()

        @tf.function
        def train_one_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(y, model(x)))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        data = (np.load("x.npy"), np.load("y.npy"))
        for epoch in range(10):
            for text_batch, labels_batch in fill_feed_batch_data(data, 64):
                loss = train_one_step(text_batch, labels_batch)
        """}, "TFD004")
    assert [f.confidence for f in findings] == [Confidence.LIKELY if likely else Confidence.POSSIBLE]


@pytest.mark.parametrize("element_work, found", [
    ("[self.tokenize(line.numpy().decode('utf-8')) for line in texts]", True),
    ("[int(label) for label in labels.numpy()]", False),  # a conversion per element, no work of its own
])
def test_a_tf_data_batch_tokenized_element_by_element_in_python_before_an_inline_step(element_work, found):
    """A text pipeline's batches, each handed to a preprocessor object's method that copies the batch to the host
    and tokenizes it line by line in Python (MeCab, a vocabulary lookup, padding), before a step written in the
    loop: the pipeline's prefetch cannot overlap that work, which runs in one thread between two steps."""
    findings = _findings({"utils.py": f"""
        import tensorflow as tf
        from tensorflow.keras.preprocessing.sequence import pad_sequences

        class PreProcessor:
            def __init__(self, vocab, tokenizer):
                self.vocab = vocab
                self.tokenize = tokenizer

            def convert2idx(self, record):
                texts, labels = tf.io.decode_csv(record, record_defaults=[[""], [0]], field_delim="\\t")
                data = {element_work}
                return tf.convert_to_tensor(pad_sequences(data, maxlen=70)), labels
        """, "train.py": """
        import tensorflow as tf
        from utils import PreProcessor

        dataset = tf.data.TextLineDataset("train.tsv").shuffle(1000).batch(128).prefetch(1)
        pre_processor = PreProcessor(vocab, tokenizer=mecab.morphs)
        model = tf.keras.Sequential([tf.keras.layers.Embedding(8000, 300), tf.keras.layers.Conv1D(300, 3),
                                     tf.keras.layers.GlobalMaxPooling1D(), tf.keras.layers.Dense(2)])
        opt = tf.keras.optimizers.Adam()
        for epoch in range(10):
            for mb in dataset:
                x_mb, y_mb = pre_processor.convert2idx(mb)
                with tf.GradientTape() as tape:
                    mb_loss = tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(y_mb, model(x_mb)))
                grads = tape.gradient(mb_loss, model.trainable_variables)
                opt.apply_gradients(zip(grads, model.trainable_variables))
        """}, "TFD004", show_all=True)
    assert _where(findings) == ([("TFD004", "train.py", 11)] if found else [])
    if found:
        assert findings[0].confidence == Confidence.LIKELY
        assert "`for line in texts`" in findings[0].evidence[1].message


@pytest.mark.parametrize("trainer, likely", [
    ("agent.train(states)", False),  # the repo's own tape loop: `run_eagerly` changes nothing it runs
    ("agent.policy.fit(states, targets, epochs=5)", True),
])
def test_run_eagerly_on_a_model_keras_never_trains_changes_no_training_step(trainer, likely):
    """A policy network compiled with `run_eagerly=True` inside an agent that trains it with a GradientTape of its
    own: the switch only affects Keras' loops (`fit`), which no module importing the agent runs."""
    findings = _findings({"agent.py": """
        import tensorflow as tf

        class Agent:
            def __init__(self):
                self.policy = tf.keras.Sequential([tf.keras.layers.Dense(512), tf.keras.layers.Dense(4)])
                self.policy.compile(run_eagerly=True)
                self.optimizer = tf.keras.optimizers.Adam()

            def train(self, states):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(self.policy(states))
                grads = tape.gradient(loss, self.policy.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.policy.trainable_variables))
        """, "main.py": f"""
        from agent import Agent

        agent = Agent()
        for episode in range(1000):
            states, targets = play(agent)
            {trainer}
        """}, "TFH002", show_all=True)
    switch = [f for f in findings if f.location.line == 6]
    assert [f.confidence for f in switch] == [Confidence.LIKELY if likely else Confidence.POSSIBLE]


@pytest.mark.parametrize("layers, reach", [
    ("# def dense(x, units):\n#     return tf.keras.layers.Dense(units)(x)\n", Reach.OTHER),
    ("def dense(x, units):\n    return tf.keras.layers.Dense(units)(x)\n", Reach.TRAINING),
])
def test_scripts_whose_imports_fail_through_a_chain_of_modules_train_in_no_run(layers, reach):
    """An MCMC port whose layers module is commented out whole: the sampler module importing `dense` from it fails,
    so does the trainer importing the sampler, and every example importing the trainer in its `__main__` block.
    With no script that can start, the trainer is no library its users call either: its findings are hidden."""
    findings = _findings({
        "mc/__init__.py": "",
        "mc/layers.py": "import tensorflow as tf\n\n" + layers,
        "mc/nice.py": """
            import tensorflow as tf
            from mc.layers import dense

            def network(x):
                for _ in range(6):
                    x = dense(x, 1024)
                return x
            """,
        "mc/trainer.py": """
            import tensorflow as tf
            from mc.nice import network

            class Trainer:
                def train(self, dataset):
                    model = tf.keras.Sequential([tf.keras.layers.Dense(1024), tf.keras.layers.Dense(1024)])
                    optimizer = tf.keras.optimizers.Adam()
                    for x in dataset:
                        with tf.GradientTape() as tape:
                            loss = tf.reduce_mean(network(model(x)))
                        optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                                      model.trainable_variables))
            """,
        "examples/ring.py": """
            import numpy as np

            if __name__ == "__main__":
                from mc.trainer import Trainer

                Trainer().train(np.load("ring.npy"))
            """,
    }, "TFH002", show_all=True)
    assert [(f.location.path.as_posix(), f.reach) for f in findings] == [("mc/trainer.py", reach)]


@pytest.mark.parametrize("applied, likely", [("decoder(encoder(content))", True),
                                             ("tf.keras.layers.Dense(3)(content)", False)])
def test_a_model_built_from_the_models_its_builder_is_given_counts_their_layers(applied, likely):
    """A style-transfer model made by a function that applies the encoder and the decoder it is given to its
    inputs (`build_model(vgg19, decoder)`): the model it returns runs their convolutions, which its own code only
    calls."""
    convolutions = ", ".join(["Conv2D(256, 3, padding='same')"] * 6)
    findings = _findings({"models.py": f"""
        import tensorflow as tf
        from tensorflow.keras.layers import Conv2D, Input
        from tensorflow.keras.models import Model, Sequential

        def build_encoder():
            return Sequential([{convolutions}])

        def build_decoder():
            return Sequential([{convolutions}])

        def build_model(encoder, decoder):
            content = Input(shape=(256, 256, 3))
            return Model(inputs=content, outputs={applied})
        """, "train.py": """
        import tensorflow as tf
        from models import build_decoder, build_encoder, build_model

        encoder = build_encoder()
        model = build_model(encoder, build_decoder())
        optimizer = tf.keras.optimizers.Adam()
        for images in dataset:
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(images) - images))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
        """}, "TFC001", show_all=True)
    assert [(f.location.path.as_posix(), f.location.line, f.confidence) for f in findings] == [
        ("models.py", 13, Confidence.LIKELY if likely else Confidence.POSSIBLE)]


@pytest.mark.parametrize("policy", [
    "self.pi = Categorical(env_info)",
    "if discrete:\n    self.pi = Categorical(env_info)\nelse:\n    self.pi = Gaussian(env_info)",
])
def test_a_policy_model_predicting_its_own_observation_through_an_agents_attribute_each_environment_step(policy):
    """A PPO port's policy, a Keras model subclass, runs `self.predict(obs)` in its `get_action`, which the trainer
    calls as `self.agent.pi.get_action(o)` on each observation the environment's step returns: a whole `predict`
    per step, for one state."""
    made = textwrap.indent(policy, " " * 16).lstrip()
    findings = _findings({"models.py": """
        import tensorflow as tf

        class Categorical(tf.keras.Model):
            def __init__(self, env_info):
                super().__init__()
                self.hidden = tf.keras.layers.Dense(64)
                self.logits = tf.keras.layers.Dense(env_info.actions)

            def call(self, inputs):
                return self.logits(self.hidden(inputs))

            def get_action(self, obs):
                logits = self.predict(obs)
                return tf.random.categorical(logits, 1)

        class Gaussian(Categorical):
            def get_action(self, obs):
                mu = self.predict(obs)
                return mu + tf.random.normal(tf.shape(mu))
        """, "agent.py": f"""
        import tensorflow as tf
        from models import Categorical, Gaussian

        class Agent:
            def __init__(self, env_info, discrete=True):
                {made}
                self.optimizer = tf.keras.optimizers.Adam()

            def update(self, obs, actions, advantages):
                with tf.GradientTape() as tape:
                    loss = -tf.reduce_mean(self.pi(obs) * advantages)
                grads = tape.gradient(loss, self.pi.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.pi.trainable_variables))
        """, "trainer.py": """
        from agent import Agent

        class Trainer:
            def __init__(self, env):
                self.env = env
                self.agent = Agent(env.info)

            def train(self):
                o, r, d = self.env.reset()
                for epoch in range(1000):
                    batch = []
                    for step in range(250):
                        a = self.agent.pi.get_action(o)
                        batch.append((o, a))
                        o, r, d = self.env.step(a)
                    self.agent.update(*collate(batch))

        Trainer(make_env()).train()
        """}, "TFH007", show_all=True)
    assert [(f.location.path.as_posix(), f.location.line, f.confidence) for f in findings] == [
        ("models.py", 13, Confidence.LIKELY), *([("models.py", 18, Confidence.LIKELY)] if "Gaussian" in policy else [])]
    assert "an environment's observation (`self.env.step(a)`)" in findings[0].evidence[0].message


@pytest.mark.parametrize("read", ["cv2.imread(path)", "self.cache[path]"])
def test_a_loader_passed_to_the_training_function_reads_each_batch_for_a_step_written_in_its_loop(read):
    """A style-transfer trainer given two image loaders (`train(model, content_ds, style_ds)`) takes a batch from
    each every iteration for the step it writes in its loop: the loaders read and decode the images in Python,
    between two steps (an in-memory cache of them is no batch worth a pipeline)."""
    findings = _findings({"utils.py": f"""
        import cv2
        import numpy as np

        class ImageDataset:
            def __init__(self, paths, batch_size=8):
                self.paths, self.batch_size, self.cache = paths, batch_size, {{}}

            def get_batch(self):
                images = []
                for path in self.paths[:self.batch_size]:
                    images.append({read})
                return np.stack(images)
        """, "train.py": """
        import tensorflow as tf

        def train(model, content_ds, style_ds, steps):
            optimizer = tf.keras.optimizers.Adam(1e-4)
            for i in range(steps):
                content, style = content_ds.get_batch(), style_ds.get_batch()
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(model([content, style]) - content))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
        """, "main.py": """
        from train import train
        from utils import ImageDataset

        train(build_model(), ImageDataset(content_paths), ImageDataset(style_paths), 10000)
        """}, "TFD004", show_all=True)
    assert _where(findings) == ([("TFD004", "train.py", 6)] if "cv2" in read else [])


def test_a_loop_handing_its_tape_to_an_update_helper_trains_the_models_its_caller_passes():
    """A pix2pix loop opens the tape and hands it to `optimize(tape, model, loss)`, which takes the gradients and
    applies them: the loop is an eager training step, and it trains the generator and discriminator `main()` builds
    and passes to it."""
    blocks = "\n".join(f"                self.conv_{i} = tf.keras.layers.Conv2D(256, 4, strides=2)" for i in range(6))
    findings = _findings({"train.py": f"""
        import tensorflow as tf

        class Generator(tf.keras.Model):
            def __init__(self):
                super().__init__()
{blocks}

            def call(self, x):
                return self.conv_5(self.conv_4(self.conv_3(self.conv_2(self.conv_1(self.conv_0(x))))))

        optimizer = tf.keras.optimizers.Adam(2e-4)

        def optimize(tape, model, loss):
            gradients = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(gradients, model.trainable_variables))

        def train(generator, dataset):
            for images, targets in dataset:
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.abs(generator(images) - targets))
                optimize(tape, generator, loss)

        def main():
            generator = Generator()
            train(generator, load_image_batches("facades", size=256))

        main()
        """}, "TFH002", "TFC001", show_all=True)
    assert sorted((f.code, f.location.line, f.confidence) for f in findings) == [
        ("TFC001", 29, Confidence.LIKELY), ("TFH002", 24, Confidence.LIKELY)]


@pytest.mark.parametrize("default, found", [(2, True), (32, False)])
def test_a_small_batch_set_by_a_command_line_flags_default_is_reported_at_the_default(default, found):
    """A segmentation script trains with `batch_size=args.batch_size` on the GPU it grows memory on: the flag's
    default is the batch a run without options trains with."""
    findings = _findings({"train.py": f"""
        import argparse
        import tensorflow as tf

        parser = argparse.ArgumentParser()
        parser.add_argument("--batch_size", type=int, default={default})
        args = parser.parse_args()

        for gpu in tf.config.list_physical_devices("GPU"):
            tf.config.experimental.set_memory_growth(gpu, True)
        model.fit(images, masks, batch_size=args.batch_size, epochs=50)
        """}, "TFC003", show_all=True)
    assert [(f.location.line, f.confidence) for f in findings] == ([(5, Confidence.LIKELY)] if found else [])
    if found:
        assert "`args.batch_size = 2`" in findings[0].message


@pytest.mark.parametrize("per_step, likely", [(False, False), (True, True)])
def test_an_eager_update_after_each_episode_the_loop_plays_is_a_small_share_of_the_iteration(per_step, likely):
    """A policy-gradient agent plays an episode in an inner loop, then updates once with an eager step: compiling
    the update saves a few milliseconds per episode of hundreds of environment steps. An agent that updates after
    every environment step is the eager step's cost each step."""
    update = "update(np.array(states), np.array(rewards))"
    findings = _findings({"train.py": f"""
        import numpy as np
        import tensorflow as tf

        def update(states, rewards):
            with tf.GradientTape() as tape:
                loss = -tf.reduce_mean(tf.math.log(policy(states)) * rewards)
            optimizer.apply_gradients(zip(tape.gradient(loss, policy.trainable_variables),
                                          policy.trainable_variables))

        for episode in range(1000):
            states, rewards, state, done = [], [], env.reset(), False
            while not done:
                state, reward, done, _ = env.step(np.argmax(policy(state[None])))
                states.append(state)
                rewards.append(reward)
                {update if per_step else ""}
            {"" if per_step else update}
        """}, "TFH002", show_all=True)
    assert [(f.location.line, f.confidence) for f in findings] == [
        (4, Confidence.LIKELY if likely else Confidence.POSSIBLE)]


def test_a_step_that_plays_its_episodes_before_its_one_update_is_a_small_share_of_its_call():
    """A policy-gradient `train_one_epoch` plays CartPole until it has 5000 steps, then updates once on them; the
    script calls it once per epoch, for 1000 epochs. Compiling the update saves a few milliseconds of an epoch of
    environment steps (and the function cannot be compiled whole: the environment takes Python values)."""
    findings = _findings({"simple_pg.py": """
        import tensorflow as tf

        def train_one_epoch(agent, optimizer, batch_size=5000):
            batch_obs, batch_weights, obs = [], [], agent.env.reset()
            while True:
                batch_obs.append(obs.copy())
                obs, reward, done, _ = agent.env.step(agent.act(obs[None])[0].numpy())
                batch_weights.append(reward)
                if done:
                    obs = agent.env.reset()
                    if len(batch_obs) > batch_size:
                        break
            with tf.GradientTape() as tape:
                loss = agent.loss(tf.constant(batch_obs), tf.constant(batch_weights))
            optimizer.apply_gradients(zip(tape.gradient(loss, agent.trainable_variables), agent.trainable_variables))
            return loss

        for epoch in range(1000):
            print(epoch, train_one_epoch(agent, optimizer).numpy())
        """}, "TFH002", show_all=True)
    assert [(f.location.line, f.confidence) for f in findings] == [(3, Confidence.POSSIBLE)]
    assert any("an episode it plays itself first" in e.message for e in findings[0].evidence)


def test_a_package_module_that_imports_relatively_reads_the_standard_librarys_typing():
    """An EfficientDet package keeps an `efficientdet/typing.py` beside its `train.py`, whose click commands train;
    `train.py` imports `.callbacks` relatively, so it runs as `python -m efficientdet.train`, where its `from typing
    import Mapping` is the standard library's, not the sibling that lacks `Mapping`."""
    findings = _findings({"efficientdet/__init__.py": "", "efficientdet/typing.py": "Annotations = dict\n",
                          "efficientdet/callbacks.py": "import tensorflow as tf\n", "efficientdet/train.py": """
        from typing import Mapping
        import click
        import tensorflow as tf
        from .callbacks import tf as callbacks_tf

        def train(model, dataset, epochs):
            optimizer = tf.keras.optimizers.Adam()
            for epoch in range(epochs):
                for images, labels in dataset:
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean(model(images))
                    optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                                  model.trainable_variables))

        @click.group()
        def main():
            pass

        @main.command(name="VOC")
        def voc():
            train(build_model(), build_dataset(), 20)

        if __name__ == "__main__":
            main()
        """}, "TFH002", show_all=True)
    assert [(f.location.path.as_posix(), f.reach) for f in findings] == [("efficientdet/train.py", Reach.TRAINING)]


@pytest.mark.parametrize("imports, modules", [
    ("from typing import Optional", {"lib/__init__.py": "", "lib/typing/__init__.py": "Types = dict\n"}),
    ("from metrics import metrics", {"metrics/metrics.py": "def iou(a, b):\n    return a\n"}),
    ("from bert import BertModelLayer", {"19-bert/bert.py": "class Bert:\n    pass\n"}),
])
def test_an_import_that_names_a_module_the_script_cannot_import_that_way_says_nothing_of_failing(imports, modules):
    """A library's own subpackage named like the standard library's `typing`, a submodule `metrics/metrics.py` the
    script imports from its folder, another example folder's `bert.py` beside a script importing the installed
    `bert`: none is the module the script's import reads, so the import says nothing of the script failing."""
    findings = _findings({**modules, "train.py": f"""
        import tensorflow as tf
        {imports}

        optimizer = tf.keras.optimizers.Adam()
        for images, target in dataset:
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(images, training=True))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
        """}, "TFH002", show_all=True)
    assert [(f.location.path.as_posix(), f.reach) for f in findings] == [("train.py", Reach.TRAINING)]


def test_an_episode_played_inside_the_tape_reads_the_environments_flags_on_the_host():
    """REINFORCE recording a whole CartPole episode on one tape, then handing the tape to the policy's update: what
    `env.step` returns there is Python, so `if done: break` waits for no device value."""
    findings = _findings({"reinforce.py": """
        import tensorflow as tf

        class Policy(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.fc = tf.keras.layers.Dense(2, activation="softmax")
                self.optimizer = tf.keras.optimizers.Adam(2e-4)
                self.data = []

            def call(self, s):
                return self.fc(s)

            def train_net(self, tape):
                loss = -tf.add_n([log_prob * r for r, log_prob in self.data])
                grads = tape.gradient(loss, self.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.trainable_variables))

        pi = Policy()
        for episode in range(400):
            s = env.reset()
            with tf.GradientTape(persistent=True) as tape:
                for t in range(501):
                    prob = pi(tf.expand_dims(tf.constant(s, dtype=tf.float32), axis=0))
                    a = int(tf.random.categorical(tf.math.log(prob), 1)[0])
                    s, r, done, info = env.step(a)
                    pi.data.append((r, tf.math.log(prob[0][a])))
                    if done:
                        break
                pi.train_net(tape)
        """}, "TFH004", show_all=True)
    assert [f.location.line for f in findings if f.location.line == 27] == []
    assert [f.location.line for f in findings] == [24]  # (the action the environment needs: possible, saying so)


# A training script whose model module uses `keras` it never imports (the script imports it for itself).
_MODEL_WITHOUT_ITS_IMPORT = """
    import tensorflow as tf

    def Pnet():
        inputs = tf.keras.Input(shape=[None, None, 3])
        x = tf.keras.layers.Conv2D(10, 3, kernel_regularizer=keras.regularizers.l2(0.0005))(inputs)
        return tf.keras.Model(inputs, x)
    """
_EAGER_LOOP_AFTER = """
    import tensorflow as tf
    import tensorflow.keras as keras
    from model import Pnet

    def train(epochs, data):
        {before}
        optimizer = keras.optimizers.Adam()
        for epoch in range(epochs):
            for images, labels in data:
                {in_loop}
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(model(images))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))

    train(10, tf.data.Dataset.range(10))
    """


@pytest.mark.parametrize("before, in_loop, raising", [
    ("model = Pnet()", "pass", "`Pnet()` (line 6) raises in what it runs: `keras` is bound in train.py but "
                               "imported, assigned or defined nowhere in model.py"),
    ("model = tf.keras.Sequential([tf.keras.layers.Dense(10)])", "images = image_color_distort(images)",
     "`image_color_distort` is bound in augment.py but imported, assigned or defined nowhere in train.py"),
])
def test_code_after_a_statement_that_raises_whatever_the_data_is_at_most_possible(before, in_loop, raising):
    """A script that cannot get to its loop as committed (the model's module never imports the `keras` it uses; the
    loop calls an augmentation another module defines and it never imports): its eager step is possible, saying
    which line raises. (A name no module binds at all is more likely code a snippet leaves out.)"""
    augment = "import tensorflow as tf\n\ndef image_color_distort(images):\n    return tf.image.random_hue(images, 0.1)"
    findings = _findings({"model.py": _MODEL_WITHOUT_ITS_IMPORT, "augment.py": augment,
                          "train.py": _EAGER_LOOP_AFTER.format(before=before, in_loop=in_loop)}, "TFH002")
    assert [(f.location.line, f.confidence) for f in findings] == [(11, Confidence.POSSIBLE)]
    assert any(raising in e.message and "NameError" in e.message for e in findings[0].evidence)


@pytest.mark.parametrize("model_module", [
    _MODEL_WITHOUT_ITS_IMPORT.replace("import tensorflow as tf",
                                      "import tensorflow as tf\n    from tensorflow import keras"),
    _MODEL_WITHOUT_ITS_IMPORT.replace("import tensorflow as tf", "import tensorflow as tf\n    from layers import *"),
    _MODEL_WITHOUT_ITS_IMPORT.replace("import tensorflow as tf", "import tensorflow as tf\n"
                                      "    try:\n        import keras\n    except ImportError:\n        keras = None"),
    # Python 2's builtins are a Python 2 run's
    _MODEL_WITHOUT_ITS_IMPORT.replace("0.0005", "reduce(lambda a, b: a * b, [0.0005])").replace("keras.", "tf.keras."),
    # only on some calls
    _MODEL_WITHOUT_ITS_IMPORT.replace("    x = tf", "    if False:\n            keras = None\n        x = tf"),
])
def test_a_name_the_module_binds_somehow_raises_nothing(model_module):
    findings = _findings({"model.py": model_module,
                          "train.py": _EAGER_LOOP_AFTER.format(before="model = Pnet()", in_loop="pass")}, "TFH002")
    assert [(f.location.line, f.confidence) for f in findings] == [(11, Confidence.LIKELY)]


@pytest.mark.parametrize("construction, confidence", [
    ("GANLoss(perceptual, content, adversarial, 0.1, 0.01)", Confidence.POSSIBLE),  # 5 of 6 required
    ("GANLoss(perceptual, content, adversarial, 0.1, 0.01, 1.0)", Confidence.LIKELY),
    ("GANLoss(perceptual, content, adversarial, 0.1, 0.01, mu=1.0)", Confidence.LIKELY),
    ("GANLoss(*losses)", Confidence.LIKELY),
])
def test_a_call_whose_arguments_the_signature_rejects_stops_the_run(construction, confidence):
    """sr-tf2's GAN trainer constructs its loss with fewer arguments than its `__init__` requires: TypeError before
    the loop, whose eager step is then possible."""
    findings = _findings({"train.py": f"""
        import tensorflow as tf

        class GANLoss:
            def __init__(self, perceptual, content, adversarial, lbd, eta, mu):
                self.weights = (lbd, eta, mu)

        def train_gan(model, data, perceptual, content, adversarial, losses):
            loss_fn = {construction}
            optimizer = tf.keras.optimizers.Adam()
            for images in data:
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(model(images))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))

        train_gan(tf.keras.Sequential([tf.keras.layers.Dense(4)]), [], None, None, None, ())
        """}, "TFH002")
    assert [(f.location.line, f.confidence) for f in findings] == [(11, confidence)]


_MODEL_FACTORY = """
    import tensorflow as tf

    def get_model():
        return tf.keras.Sequential([tf.keras.layers.Conv2D(64, 3), tf.keras.layers.Dense(10)])
    """
_STALE_TRAINING_SCRIPT = """
    import tensorflow as tf
    {imports}

    def train(data):
        model = get_model()
        optimizer = tf.keras.optimizers.Adam()
        for images, labels in data:
            with tf.GradientTape() as tape:
                loss = compute_loss(model(images), labels)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))

    train(tf.data.Dataset.range(10))
    """


@pytest.mark.parametrize("module_file", ["core/nms.pyx", "core/nms.cpython-311-x86_64-linux-gnu.so",
                                         "core/nms/__init__.py", "core/test_nms.py"])
def test_a_package_s_module_an_import_loads_is_no_missing_name(tmp_path, module_file):
    """`from core import nms` where `core/__init__.py` binds no `nms`: the package's folder holds it, as a Cython
    source built in place, an extension, a subpackage, or a file the run leaves out (a test file): the import
    works."""
    from advisor.engine import analyze

    name = Path(module_file).parts[1].split(".")[0]
    files = {"core/__init__.py": "import tensorflow as tf\n", "core/model_factory.py": _MODEL_FACTORY,
             module_file: "", "train.py": _STALE_TRAINING_SCRIPT.format(
                 imports=f"from core.model_factory import get_model\n    from core import {name}\n"
                         f"    compute_loss = {name}.compute_loss")}
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(textwrap.dedent(text))
    report = analyze(tmp_path, None, Settings(select=("TFH002",), min_confidence=Confidence.POSSIBLE))
    assert [(f.code, f.confidence) for f in report.findings] == [("TFH002", Confidence.LIKELY)]
    (tmp_path / module_file).unlink()  # gone: the import raises
    if module_file.endswith("/__init__.py"):
        (tmp_path / module_file).parent.rmdir()  # an empty folder would import as a namespace package
    report = analyze(tmp_path, None, Settings(select=("TFH002",), min_confidence=Confidence.POSSIBLE))
    assert report.findings == []


@pytest.mark.parametrize("normalization, confidence", [
    ("transform.MinMaxNormalization(255)", Confidence.POSSIBLE),  # `object` takes no arguments
    ("transform.MinMaxNormalization()", Confidence.LIKELY),
    ("transform.Scale(255)", Confidence.LIKELY),  # its base's constructor may take it
])
def test_arguments_to_a_class_without_a_constructor_stop_the_run(normalization, confidence):
    """mrtoct's patch pipeline builds `data.transform.MinMaxNormalization(tf.uint16.max)` inside a `with
    tf.name_scope(...)` block, for a class that only defines `__call__`: TypeError before the pipeline is made."""
    findings = _findings({"requirements.txt": "tensorflow-gpu==1.15.0\n", "pkg/transform.py": """
        import tensorflow as tf

        class MinMaxNormalization:
            def __call__(self, x):
                x = tf.cast(x, tf.float32) - tf.reduce_min(x)
                return x / tf.reduce_max(x)

        class Scale(Normalizer):
            def __call__(self, x):
                return x / 255
        """, "pkg/provider.py": f"""
        import tensorflow as tf
        from pkg import transform

        def decode(record):
            features = tf.parse_single_example(record, {{"volume": tf.FixedLenFeature([], tf.string)}})
            return tf.reshape(tf.decode_raw(features["volume"], tf.uint16), [256, 256, 256])

        def train_input_fn(paths):
            with tf.name_scope("volume"):
                normalize = {normalization}
            with tf.name_scope("patch"):
                dataset = tf.data.TFRecordDataset(paths).map(decode).map(normalize).batch(16)
            return dataset.make_one_shot_iterator().get_next()

        estimator = tf.estimator.Estimator(model_fn=model_fn)
        estimator.train(input_fn=lambda: train_input_fn(["train.tfrecord"]), max_steps=100000)
        """}, "TFD002")
    assert [(f.location.line, f.confidence) for f in findings][:1] == [(12, confidence)]


def test_a_parameter_named_like_a_function_is_not_that_function():
    """A progressive GAN's blocks take `n_filters`, a partial of the module's three-argument `n_filters`, and call
    it with one: the call is the parameter's, which accepts it."""
    model = """
        import tensorflow as tf

        def n_filters(stage, base, cap):
            return min(base // 2 ** stage, cap)

        def block(x, stage, n_filters):
            return tf.keras.layers.Conv2D(n_filters(stage), 3)(x)

        def Pnet():
            inputs = tf.keras.Input([64, 64, 3])
            return tf.keras.Model(inputs, block(inputs, 2, lambda n: n_filters(n, 8192, 512)))
        """
    findings = _findings({"model.py": model, "train.py": _EAGER_LOOP_AFTER.format(before="model = Pnet()",
                                                                                  in_loop="pass")}, "TFH002")
    assert [(f.location.line, f.confidence) for f in findings] == [(11, Confidence.LIKELY)]


def test_a_pipeline_under_a_setting_that_is_off_and_no_else_is_skipped():
    """HER's curriculum pipeline is made only `if curriculum_learn:`, which the script sets False; with no `else`
    the default run makes no data there at all, so its Python generator is at most possible."""
    findings = _findings({"train.py": """
        import numpy as np
        import tensorflow as tf

        def generate():
            for episode in np.load("demos.npy"):
                yield np.concatenate([episode[:-1], episode[1:]]), episode[-1]

        curriculum_learn = False
        if curriculum_learn:
            dataset = tf.data.Dataset.from_generator(generate, (tf.float32, tf.float32))

        model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
        model.compile("adam", "mse")

        def train(epochs):
            if curriculum_learn:
                batches = iter(dataset)
            for epoch in range(epochs):
                model.train_on_batch(*(next(batches) if curriculum_learn else replay_buffer.sample()))

        train(10)
        """}, "TFD004")
    assert [(f.location.line, f.confidence) for f in findings] == [(10, Confidence.POSSIBLE)]


def test_a_model_whose_training_call_a_run_never_gets_to_trains_nothing():
    """sr-tf2's RaGAN trainer builds its discriminator, then constructs its loss with too few arguments before
    `fit`: the discriminator trains in no run, so its mixed-precision finding is not shown."""
    files = {"train.py": """
        import tensorflow as tf

        class GANLoss(tf.keras.losses.Loss):
            def __init__(self, perceptual, content, adversarial, lbd, eta, mu):
                super().__init__()
                self.weights = (lbd, eta, mu)

        def train_ragan(data):
            inputs = tf.keras.Input([224, 224, 3])
            x = inputs
            for filters in (64, 128, 256, 512, 512, 512):
                x = tf.keras.layers.Conv2D(filters, 3, padding="same", activation="relu")(x)
                x = tf.keras.layers.Conv2D(filters, 3, padding="same", activation="relu")(x)
            discriminator = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(tf.keras.layers.Flatten()(x)))
            loss = GANLoss(None, None, None, {lbd})
            discriminator.compile("adam", loss)
            discriminator.fit(data, epochs=100)

        train_ragan(tf.data.Dataset.range(10))
        """}
    srcnn = """
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Conv2D(64, 9), tf.keras.layers.Conv2D(32, 1),
                                     tf.keras.layers.Conv2D(3, 5)])
        model.compile("adam", "mse")
        model.fit(tf.data.Dataset.range(10), epochs=100)
        """
    broken = _findings({"train.py": files["train.py"].format(lbd="0.1"), "srcnn.py": srcnn}, "TFC001")
    working = _findings({"train.py": files["train.py"].format(lbd="0.1, 0.01, 1.0"), "srcnn.py": srcnn}, "TFC001")
    assert [(f.location.path.name, f.location.line, f.confidence) for f in working if f.location.path.name ==
            "train.py"] == [("train.py", 14, Confidence.LIKELY)]
    assert [f.confidence for f in broken if f.location.path.name == "train.py"] in ([], [Confidence.POSSIBLE])


@pytest.mark.parametrize("folder, confidence", [
    ("~old", Confidence.POSSIBLE), ("Trash", Confidence.POSSIBLE), ("deprecated", Confidence.POSSIBLE),
    ("scripts", Confidence.LIKELY), ("legacy", Confidence.LIKELY), ("bold", Confidence.LIKELY),
    ("old-school-tensorflow", Confidence.LIKELY),
])
def test_a_script_kept_in_an_archive_folder_is_at_most_possible(folder, confidence):
    """A bird classifier keeps its earlier training script in `~old/`; a model zoo its discarded capsule network in
    `Trash/`: what they find is at most possible, saying where the file is kept."""
    findings = _findings({f"{folder}/train.py": """
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
        optimizer = tf.keras.optimizers.Adam()
        for images, labels in tf.data.Dataset.range(10):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(images))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
        """}, "TFH002")
    assert [(f.location.line, f.confidence) for f in findings] == [(6, confidence)]


def test_a_loop_applying_what_a_compiled_gradient_helper_returns_trains():
    """A speech recognizer's `@tf.function train_step` returns gradients and its epoch loop applies them: the repo
    trains there, so a scratch script beside it that no training run reaches is not shown."""
    findings = _findings({"models.py": """
        import tensorflow as tf

        @tf.function
        def train_step(model, inputs):
            x, y = inputs
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
            return tape.gradient(loss, model.trainable_variables), loss

        def train_model(model, dataset, optimizer, epochs):
            for epoch in range(epochs):
                for inputs in dataset:
                    gradients, loss = train_step(model, inputs)
                    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        """, "main.py": """
        import tensorflow as tf
        from models import train_model

        train_model(tf.keras.Sequential([tf.keras.layers.Dense(1)]), tf.data.TFRecordDataset(["a"]),
                    tf.keras.optimizers.Adam(), 10)
        """, "dev/augmentation_example.py": """
        import time
        import numpy as np
        import tensorflow as tf

        class ArtificialDataset(tf.data.Dataset):
            def _generator(num_samples):
                time.sleep(0.03)
                for sample_idx in range(num_samples):
                    time.sleep(0.015)
                    yield np.random.standard_normal((10, 5))

            def __new__(cls, num_samples=2):
                return tf.data.Dataset.from_generator(cls._generator, output_types=tf.float64, args=(num_samples,))

        if __name__ == "__main__":
            for sample in ArtificialDataset().batch(1).map(tf.transpose, num_parallel_calls=tf.data.AUTOTUNE):
                print(sample.shape)
        """}, "TFD004", show_all=True)
    assert [(f.location.path.as_posix(), f.off_training) for f in findings] == [
        ("dev/augmentation_example.py", True)]


@pytest.mark.parametrize("model, batch, confidence", [
    ("tf.keras.applications.Xception(weights=None, input_shape=(64, 64, 3), classes=10)", 8, Confidence.POSSIBLE),
    ("tf.keras.applications.Xception(weights=None, input_shape=(64, 64, 3), classes=10)", 64, Confidence.LIKELY),
    ("tf.keras.applications.ResNet50(weights=None, input_shape=(224, 224, 3), classes=10)", 8, Confidence.LIKELY),
    ("tf.keras.Sequential([tf.keras.Input((64, 64, 3))] + [tf.keras.layers.Conv2D(128, 3) for _ in range(5)] + "
     "[tf.keras.layers.Flatten(), tf.keras.layers.Dense(10)])", 8, Confidence.POSSIBLE),
    ("tf.keras.Sequential([tf.keras.Input((64, 64, 3))] + [tf.keras.layers.Conv2D(128, 3) for _ in range(5)] + "
     "[tf.keras.layers.Flatten(), tf.keras.layers.Dense(10)])", 64, Confidence.LIKELY),
])
def test_batches_of_a_few_small_images_are_too_little_work_for_16_bits(model, batch, confidence):
    """A model zoo trains its Xception and PolyNet on 64-pixel images in batches of 8: each step is over before
    its kernels' launches, whatever the layers; in batches of 64, or a ResNet50 on 224-pixel images, it is not."""
    findings = _findings({"train.py": f"""
        import tensorflow as tf

        model = {model}
        model.compile("adam", "sparse_categorical_crossentropy")
        train = tf.data.Dataset.from_tensor_slices((images, labels)).shuffle(1000).batch({batch})
        model.fit(train, epochs=100)
        """}, "TFC001")
    assert [(f.location.line, f.confidence) for f in findings] == [(3, confidence)]
    assert confidence is Confidence.LIKELY or f"in batches of {batch}" in findings[0].evidence[1].message


@pytest.mark.parametrize("cache, confidence", [("", Confidence.LIKELY), (".cache()", Confidence.POSSIBLE)])
def test_a_python_generator_whose_elements_are_cached_runs_in_the_first_epoch_only(cache, confidence):
    """A CT denoiser reads its volumes with a Python generator, then caches them for its 5000 epochs."""
    findings = _findings({"train.py": f"""
        import numpy as np
        import tensorflow as tf

        def volumes(paths):
            for path in paths:
                volume = np.load(path)
                yield volume + np.random.normal(0, 0.1, volume.shape), volume

        train = tf.data.Dataset.from_generator(lambda: volumes(train_paths), (tf.float32, tf.float32))
        model = tf.keras.Sequential([tf.keras.layers.Conv3D(8, 3)])
        model.compile("adam", "mse")
        model.fit(train{cache}.batch(4), epochs=5000)
        """}, "TFD004")
    assert [(f.location.line, f.confidence) for f in findings] == [(9, confidence)]


@pytest.mark.parametrize("verbose, expected", [("", Confidence.POSSIBLE), ("verbose=1", Confidence.LIKELY)])
def test_a_callbacks_per_batch_work_under_a_comparison_of_its_switch_counts_where_an_instance_turns_it_on(
        verbose, expected):
    """A transformer's learning-rate scheduler prints per batch `if self.verbose > 0:`; the trainer builds it with
    the default `verbose=0`: the print runs in no run with the defaults."""
    findings = _findings({"train.py": f"""
        import tensorflow as tf

        class BatchLearningRateScheduler(tf.keras.callbacks.Callback):
            def __init__(self, schedule, verbose=0):
                super().__init__()
                self.schedule = schedule
                self.verbose = verbose

            def on_batch_begin(self, batch, logs=None):
                if self.verbose > 0:
                    print(f"batch {{batch}}: learning rate {{self.model.optimizer.lr.numpy()}}")

        model.fit(dataset, epochs=10, callbacks=[BatchLearningRateScheduler(lambda step: 1e-3, {verbose})])
        """}, "TFH001", show_all=True)
    assert [(f.location.line, f.confidence) for f in findings] == [(9, expected)]


@pytest.mark.parametrize("logging, expected", [
    ("with tf.summary.record_if(step % self.log_rate == 0):\n                    for name, value in logs.items():\n"
     "                        tf.summary.scalar(name, value, step)", []),
    ("for name, value in logs.items():\n                    tf.summary.scalar(name, value, step)", [22]),
])
def test_summaries_recorded_on_a_step_interval_and_in_the_step_itself_are_not_per_step_writes(logging, expected):
    """A style-transfer trainer logs through `make_logs`, whose writes `tf.summary.record_if(step % 100 == 0)`
    gates; its compiled step writes scalars of its own, where a guard around the call would skip training steps."""
    findings = _findings({"train.py": f"""
        import tensorflow as tf

        class Trainer:
            log_rate = 100

            def make_logs(self, logs, step):
                {logging}

            @tf.function
            def train_step(self, images):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(self.model(images))
                tf.summary.scalar("regularization", tf.reduce_sum(self.model.losses))
                self.optimizer.apply_gradients(zip(tape.gradient(loss, self.model.trainable_variables),
                                                   self.model.trainable_variables))
                return loss

            def run(self, dataset):
                for step, images in enumerate(dataset):
                    loss = self.train_step(images)
                    self.make_logs({{"loss": loss}}, step)

        Trainer().run(tf.data.TFRecordDataset(["a"]))
        """}, "TFH006")
    assert [f.location.line for f in findings] == expected


def test_a_model_a_property_builds_on_first_use_is_the_model_fit_trains():
    """A DeepLabV3+ trainer builds its model in a `model` property (`self._model = None` in `__init__`, made and
    compiled on first use) and trains `self.model.fit(...)`: that model, a ResNet50 backbone, is the one to find."""
    findings = _findings({"train.py": """
        import tensorflow as tf

        class Segmenter(tf.keras.Model):
            def build(self, input_shape):
                self.backbone = tf.keras.applications.ResNet50(include_top=False, weights="imagenet")
                self.head = tf.keras.layers.Conv2D(21, 1)

            def call(self, inputs):
                return self.head(self.backbone(inputs))

        class Trainer:
            def __init__(self, dataset):
                self.dataset = dataset
                self._model = None

            @property
            def model(self):
                if self._model is not None:
                    return self._model
                self._model = Segmenter()
                self._model.compile("adam", "sparse_categorical_crossentropy")
                return self._model

            def train(self):
                return self.model.fit(self.dataset, epochs=100)

        Trainer(tf.data.TFRecordDataset(["train.tfrecord"])).train()
        """}, "TFC001")
    assert [(f.location.line, f.confidence) for f in findings] == [(20, Confidence.LIKELY)]


@pytest.mark.parametrize("read, expected", [
    ("for weight in self.model.trainable_weights:\n"
     "                    self.average[weight.name] = 0.999 * self.average[weight.name] + 0.001 * K.get_value(weight)",
     [(8, Confidence.LIKELY)]),
    ("self.average = K.batch_get_value(self.model.weights)", [(8, Confidence.LIKELY)]),
    ("self.learning_rates.append(K.get_value(self.model.optimizer.lr))", []),
])
def test_a_callback_copying_the_models_weights_to_the_host_every_batch_is_slow(read, expected):
    """A QANet trainer keeps an exponential moving average of every weight in `on_batch_end`, reading each with
    `K.get_value`: the whole model comes to the host after every batch. Reading the learning rate is one scalar."""
    findings = _findings({"train.py": f"""
        from tensorflow.keras import backend as K
        from tensorflow.keras.callbacks import Callback

        class ExponentialMovingAverage(Callback):
            def on_train_begin(self, logs=None):
                self.average, self.learning_rates = {{}}, []

            def on_batch_end(self, batch, logs=None):
                {read}

        model.fit(dataset, epochs=30, callbacks=[ExponentialMovingAverage()])
        """}, "TFH001")
    assert [(f.location.line, f.confidence) for f in findings] == expected


def test_a_global_another_module_sets_on_an_import_is_bound():
    """A trainer's main sets `config.args = args` on its configuration module, whose functions read `args` as a
    global: reading it raises nothing."""
    findings = _findings({"config.py": """
        def learning_rate():
            return args.lr
        """, "train.py": """
        import argparse
        import tensorflow as tf
        import config
        from config import learning_rate

        def train(data):
            optimizer = tf.keras.optimizers.Adam(learning_rate())
            model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
            for images in data:
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(model(images))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                              model.trainable_variables))

        args = argparse.ArgumentParser().parse_args()
        config.args = args
        train(tf.data.TFRecordDataset(["a"]))
        """}, "TFH002")
    assert [(f.location.line, f.confidence) for f in findings] == [(10, Confidence.LIKELY)]


_TWO_READS = """
import tensorflow as tf

@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
    return loss

for step in range(10000):
    x, y = next(batches)
    loss = train_step(x, y)
    total = loss.numpy()
    BETWEEN
    history.append(float(loss))
"""


def test_a_second_read_of_a_finished_step_waits_for_nothing_more():
    """The laomaotf/ixtiyoruz pattern: `loss.numpy()`, then `loss_fm.numpy()`, `loss_wh.numpy()` on the next lines.
    The first read waits for the step; the later ones copy finished values (or values a metric's few small ops
    made from them). Not where device work runs between them (a second network's step, LynnHo's `train_G` between
    two counter reads)."""
    rereads = _findings({"train.py": _TWO_READS.replace("BETWEEN", "print('step', step, total)")}, "TFH004")
    assert [(f.location.line, f.confidence) for f in rereads] == [
        (13, Confidence.LIKELY), (15, Confidence.POSSIBLE)]
    assert "`loss.numpy()` (line 13) already waits for the step" in rereads[1].evidence[-1].message
    assert "reads again right after it, waiting for nothing more: `float(loss)` (line 15)" in \
        rereads[0].evidence[-1].message
    means = _findings({"train.py": _TWO_READS.replace("loss.numpy()", "loss.numpy().mean()").replace(
        "BETWEEN", "pass")}, "TFH004")
    assert [(f.location.line, f.confidence) for f in means] == [(13, Confidence.LIKELY), (15, Confidence.POSSIBLE)]
    saved = _findings({"train.py": _TWO_READS.replace("BETWEEN", "if step % 1000 == 0:\n        model.save('m')")},
                      "TFH004")
    assert [(f.location.line, f.confidence) for f in saved] == [(13, Confidence.LIKELY), (16, Confidence.POSSIBLE)]
    # A metric's accumulation between them (Real-ESRGAN's `metric.update_state(l1)`, then `.result().numpy()`)
    # queues a few small ops that finish as soon as they run.
    metered = _findings({"train.py": _TWO_READS.replace("BETWEEN", "l1_metric.update_state(loss)")}, "TFH004")
    assert [(f.location.line, f.confidence) for f in metered] == [(13, Confidence.LIKELY), (15, Confidence.POSSIBLE)]
    stepped = _findings({"train.py": _TWO_READS.replace("BETWEEN", "critic_step(x)")}, "TFH004")
    assert [(f.location.line, f.confidence) for f in stepped] == [(13, Confidence.LIKELY), (15, Confidence.LIKELY)]
    guarded = _findings({"train.py": _TWO_READS.replace("    total = loss.numpy()\n", "    if step % 100 == 0:\n"
                                                        "        total = loss.numpy()\n").replace("BETWEEN", "pass")},
                        "TFH004")
    assert [(f.location.line, f.confidence) for f in guarded] == [(16, Confidence.LIKELY)]


def test_a_name_the_step_binds_then_copies_to_the_host_is_a_tensor_until_the_copy():
    """Real-ESRGAN: `loss = train_step(...)`, a progress print formatting `loss`, then `loss =
    metric.result().numpy()`. The print reads the step's tensor; reads after the copy, and those atop the next
    iteration (the last binding then), read a host number."""
    findings = _findings({"train.py": _TWO_READS.replace("    x, y = next(batches)\n", "    print(loss)\n    x, y = "
                                                         "next(batches)\n").replace(
        "    total = loss.numpy()\n    BETWEEN\n    history.append(float(loss))\n",
        "    print(f'loss {loss:.4f}')\n    metric.update_state(loss)\n    loss = metric.result().numpy()\n"
        "    history.append(float(loss))\n")}, "TFH004")
    assert [(f.location.line, f.confidence) for f in findings] == [(14, Confidence.LIKELY), (16, Confidence.POSSIBLE)]


@pytest.mark.parametrize("read", [
    "for name, value in losses.items():\n                log += '{}: {:.2f} '.format(name, value)",
    "for value in losses.values():\n                log += f'{value:.2f} '"])
def test_the_values_of_a_dict_of_the_step_losses_are_tensors(read):
    """ddsp's loop formats each loss of the dict its compiled step returns: every value is a tensor of the step, so
    formatting it waits for the device (the keys are Python strings)."""
    findings = _findings({"train.py": f"""
        import tensorflow as tf

        @tf.function
        def train_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - y))
            opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
            return {{"total": loss}}

        for step in range(10000):
            losses = train_step(*next(batches))
            log = ""
            {read}
        """}, "TFH004")
    assert [(f.location.line, f.confidence) for f in findings] == [(14, Confidence.LIKELY)]


_UPDATE_DECIDED = """
import tensorflow as tf

for step in range(10000):
    x, y = next(batches)
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    if TEST:
        ACTION
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
"""


def test_a_branch_deciding_the_update_needs_the_value_every_step():
    """GAIL's discriminator updates only while it is inaccurate; YOLOv3 skips the update on a NaN loss: the host
    needs the value every step, and only a `tf.cond` compiled into the step decides without waiting. A step
    interval on the optimizer's counter is still a sync a Python count removes."""
    def confidence(test: str, action: str) -> list[tuple[int, Confidence]]:
        findings = _findings({"train.py": _UPDATE_DECIDED.replace("TEST", test).replace("ACTION", action)},
                             "TFH004")
        return [(f.location.line, f.confidence) for f in findings]

    assert confidence("tf.math.reduce_any(tf.math.is_nan(loss))", "continue") == [(8, Confidence.POSSIBLE)]
    assert confidence("loss > 10.0", "optimizer.apply_gradients(zip(grads, model.trainable_variables))") == [
        (8, Confidence.POSSIBLE)]
    in_tape = _findings({"train.py": _UPDATE_DECIDED.replace(
        "    grads = tape.gradient", "        if tf.reduce_any(tf.math.is_nan(loss)):\n            continue\n"
        "    grads = tape.gradient").replace("    if TEST:\n        ACTION\n", "")}, "TFH004")
    assert [(f.location.line, f.confidence) for f in in_tape] == [(7, Confidence.POSSIBLE)]
    assert confidence("tf.equal(optimizer.iterations % 5, 0)", "continue") == [(8, Confidence.LIKELY)]
    assert confidence("loss > 10.0", "print('high loss')") == [(8, Confidence.LIKELY)]


def test_a_read_on_the_steps_a_branch_skips_is_not_every_step():
    """DeepLabV3's loop prints the invalid labels and skips the batch: the print runs on the steps that do not
    train, not on every step."""
    findings = _findings({"train.py": _UPDATE_DECIDED.replace("TEST", "labels is None").replace(
        "ACTION", "print('skipping', loss)\n        continue")}, "TFH004")
    assert findings == []


def test_a_tensor_copied_from_the_hosts_values_is_no_value_of_the_step():
    """A prioritized-replay DQN copies the sampled actions into a tensor (`tf.convert_to_tensor(action)`) and reads
    them back with `np.array(action)`: its own values, computed by no step. The TD errors it reads are the step's."""
    findings = _findings({"dqn.py": """
        import numpy as np
        import tensorflow as tf

        def update(model, optimizer, memory):
            batch = memory.sample(64)
            action = [b[1] for b in batch]
            with tf.GradientTape() as tape:
                action = tf.convert_to_tensor(action, dtype=tf.int32)
                q = tf.reduce_sum(tf.one_hot(action, 2) * model(np.stack([b[0] for b in batch])), axis=1)
                loss = tf.reduce_mean(tf.square(q - np.array([b[2] for b in batch])))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
            taken = np.array(action)
            errors = np.abs(q.numpy() - taken)

        for step in range(100000):
            update(model, optimizer, memory)
        """}, "TFH004")
    assert _where(findings) == [("TFH004", "dqn.py", 13)]


def test_a_tf_function_defined_with_a_decorator_in_the_loop_body_is_made_every_iteration():
    """A GPT-2 trainer defines `@tf.function def get_loss(...)` inside its batch loop: a new function, traced anew,
    every step."""
    findings = _findings({"train.py": """
        import tensorflow as tf

        for step, batch in enumerate(dataset):
            @tf.function
            def get_loss(batch):
                return strategy.run(train_step, args=(batch,))

            loss = get_loss(batch)
        """}, "TFH003")
    assert [(f.location.line, f.confidence) for f in findings] == [(5, Confidence.LIKELY)]
    assert "`get_loss` is defined with `@tf.function` inside the loop at train.py:3:1" in findings[0].message


@pytest.mark.parametrize("construction", [
    "transformers.modeling_tf_gpt2.TFGPT2LMHeadModel(config=config)",
    "transformers.TFBertForSequenceClassification.from_pretrained('bert-base-uncased')",
    "transformers.TFGPT2LMHeadModel.from_pretrained('gpt2')",
])
def test_a_hugging_face_model_built_from_its_configuration_is_a_known_architecture(construction):
    """A Chinese GPT-2 trainer builds `TFGPT2LMHeadModel(config=...)` under the module path transformers 2.x gave
    it: a whole GPT-2, as much a known architecture as one loaded with `from_pretrained`."""
    findings = _findings({"train.py": f"""
        import tensorflow as tf
        import transformers

        config = transformers.GPT2Config(n_layer=10)
        model = {construction}
        model.compile(optimizer="adam", loss=loss_fn)
        model.fit(dataset, epochs=3)
        """}, "TFC001")
    assert [(f.location.line, f.confidence) for f in findings] == [(5, Confidence.LIKELY)]
    assert "a known architecture" in findings[0].evidence[1].message


def test_modes_none_of_which_the_default_picks_are_each_a_switch_a_run_turns_on():
    """An autoencoder script trains the model `--ae_type` names, `VAE` or `CVAE`, and defaults to none of them: a
    run must pick one, so neither is skipped by default. Where an `else` trains by default, the modes it stands
    for are."""
    script = """
        import argparse
        import tensorflow as tf

        def train_vae():
            for x, _ in dataset:
                with tf.GradientTape() as tape:
                    loss = vae.loss(x)
                optimizer.apply_gradients(zip(tape.gradient(loss, vae.trainable_variables), vae.trainable_variables))

        def train_cvae():
            for x, y in dataset:
                with tf.GradientTape() as tape:
                    loss = cvae.loss(x, y)
                optimizer.apply_gradients(zip(tape.gradient(loss, cvae.trainable_variables), cvae.trainable_variables))

        parser = argparse.ArgumentParser()
        parser.add_argument("--ae_type", type=str, default=False)
        args = parser.parse_args()
        if args.ae_type == "VAE":
            train_vae()
        elif args.ae_type == "CVAE":
            train_cvae()
        """
    modes = _findings({"run.py": script}, "TFH002")
    assert [(f.location.line, f.confidence) for f in modes] == [(6, Confidence.LIKELY), (12, Confidence.LIKELY)]
    defaulted = _findings({"run.py": script.rstrip(" ") + "        else:\n            train_vae()\n"}, "TFH002")
    assert [(f.location.line, f.confidence) for f in defaulted] == [
        (6, Confidence.LIKELY), (12, Confidence.POSSIBLE)]


# A DQN agent whose update runs between its moves: the loop steps the environment, then calls `update()`, which
# samples its replay memory (indices drawn from the filled part of it) and fits the sampled transitions.
_REPLAY_AGENT = """
import gym
import numpy as np
import tensorflow as tf


class Agent:
    def __init__(self, env):
        self.env = env
        self.model = tf.keras.Sequential([tf.keras.layers.Dense(256, activation="relu"),
                                          tf.keras.layers.Dense(2)])
        self.model.compile(optimizer="adam", loss="mse")
        self.states = np.zeros((10000, 4))
        self.filled = 0

    def sample(self, n):
        return [np.random.randint(0, self.filled) for _ in range(n)]

    def update(self):
        batch = self.states[self.sample(32)]
        targets = self.model.predict(batch)
        loss = self.model.train_on_batch(batch, targets)

    def run(self, steps):
        state = self.env.reset()
        for t in range(steps):
            action = np.argmax(self.model(state[None]))
            state, reward, done, _ = self.env.step(action)
            self.states[self.filled] = state
            self.filled += 1
            if t > 100:
                self.update()


if __name__ == "__main__":
    Agent(gym.make("CartPole-v1")).run(100000)
"""


def test_a_replay_minibatch_of_indices_drawn_below_a_bound_the_agent_keeps():
    """`np.random.randint(0, self.filled)` draws indices into what the agent holds: a replay minibatch, not data made
    up at random, so `predict` on it runs once per update on one small batch."""
    findings = _findings({"dqn.py": _REPLAY_AGENT}, "TFH007")
    predict = [f for f in findings if f.location.line == 20]
    assert [f.confidence for f in predict] == [Confidence.LIKELY]
    assert "a minibatch drawn at random (`self.sample(32)`)" in str(predict[0].evidence)


def test_a_host_read_in_an_update_the_agent_runs_between_its_moves():
    """The loop calling `update()` steps an environment every iteration, which takes the action as a Python value:
    the host waits for the device there anyway, so the update's own read adds little."""
    findings = _findings({"dqn.py": """
        import gym
        import numpy as np
        import tensorflow as tf

        class Agent:
            def __init__(self, env):
                self.env = env
                self.model = tf.keras.Sequential([tf.keras.layers.Dense(256), tf.keras.layers.Dense(2)])
                self.optimizer = tf.keras.optimizers.Adam()

            def update(self, states, targets):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(self.model(states) - targets))
                grads = tape.gradient(loss, self.model.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
                self.losses.append(loss.numpy())

            def run(self, steps):
                state = self.env.reset()
                for t in range(steps):
                    state, reward, done, _ = self.env.step(self.env.action_space.sample())
                    self.update(state[None], np.array([[reward, reward]]))

        Agent(gym.make("CartPole-v1")).run(100000)
        """}, "TFH004")
    assert [(f.location.line, f.confidence) for f in findings] == [(16, Confidence.POSSIBLE)]
    assert "the loop steps an environment (`self.env.step(...)`" in str(findings[0].evidence)


def test_keras_predict_on_rows_an_agent_filled_from_its_replay_between_moves():
    """A prioritized replay fills the batch rows from a sum tree (no draw of items the source shows); the update
    still runs between two moves of the agent, whose data is what it played: each `predict` is one small batch.
    An update once per episode, after the loop that plays it (in its body, or in a function it calls), learns from
    the whole episode."""
    findings = _findings({"per.py": """
        import gym
        import numpy as np
        import tensorflow as tf

        class Agent:
            def __init__(self, env):
                self.env = env
                self.model = tf.keras.Sequential([tf.keras.layers.Dense(64), tf.keras.layers.Dense(2)])
                self.model.compile(optimizer="adam", loss="mse")
                self.b_obs = np.empty((32, 4))

            def sum_tree_sample(self, k):
                for i in range(k):
                    self.b_obs[i] = self.tree.get_leaf(np.random.uniform(0, self.tree.total))

            def train_step(self):
                self.sum_tree_sample(32)
                q = self.model.predict(self.b_obs)
                return self.model.train_on_batch(self.b_obs, q)

            def episode_update(self, states):
                self.model.fit(np.array(states), self.model.predict(np.array(states)), epochs=1)

            def train(self, steps):
                obs = self.env.reset()
                for t in range(steps):
                    obs, reward, done, _ = self.env.step(self.env.action_space.sample())
                    self.train_step()

            def train_episodes(self, episodes):
                for episode in range(episodes):
                    states, done = [], False
                    while not done:
                        obs, reward, done, _ = self.env.step(self.env.action_space.sample())
                        states.append(obs)
                    self.episode_update(states)

            def rollout(self):
                states, done = [], False
                while not done:
                    obs, reward, done, _ = self.env.step(self.env.action_space.sample())
                    states.append(obs)
                return states

            def evolve(self, generations):
                for generation in range(generations):
                    elite = [s for _ in range(70) for s in self.rollout()]
                    self.model.fit(np.array(elite), self.model.predict(np.array(elite)), epochs=1)

        agent = Agent(gym.make("CartPole-v1"))
        agent.train(10000)
        agent.train_episodes(100)
        agent.evolve(10)
        """}, "TFH007")
    assert _where(findings) == [("TFH007", "per.py", 18)]
    evidence = str(findings[0].evidence)
    assert "it runs in the loop that steps an environment (`self.env.step(...)`, per.py:27:" in evidence


def test_a_precision_switch_a_parameter_that_every_call_leaves_off():
    """`configure_optimizer(use_float16=False)`: no caller of `get_optimizer` passes `use_float16`, so its default
    reaches the helper's test and the run with the defaults computes in float32 (Model Garden's BERT helpers)."""
    helper = """
        import tensorflow as tf

        def configure_optimizer(optimizer, use_float16=False):
            if use_float16:
                optimizer = tf.keras.mixed_precision.LossScaleOptimizer(optimizer)
            return optimizer
        """
    train = """
        import tensorflow as tf
        from transformers import TFBertForSequenceClassification
        from performance import configure_optimizer

        def get_optimizer(lr, use_float16=False):
            return configure_optimizer(tf.keras.optimizers.Adam(lr), use_float16=use_float16)

        model = TFBertForSequenceClassification.from_pretrained("bert-base-uncased")
        model.compile(optimizer=get_optimizer(3e-5), loss="sparse_categorical_crossentropy")
        model.fit(tf.data.Dataset.from_tensor_slices(({"input_ids": [[1, 2]]}, [0])).batch(32), epochs=3)
        """
    findings = _findings({"performance.py": helper, "train.py": train}, "TFC001")
    assert [(f.location.path.name, f.confidence) for f in findings] == [("train.py", Confidence.LIKELY)]
    assert "under `use_float16` (performance.py:4:8), which is False with the defaults" in str(findings[0].evidence)
    # A caller that turns it on is a run that computes in 16 bits.
    on = train.replace("get_optimizer(3e-5)", "get_optimizer(3e-5, use_float16=True)")
    assert _findings({"performance.py": helper, "train.py": on}, "TFC001") == []


@pytest.mark.parametrize("construction, likely", [("Trainer()", True), ("Trainer(use_amp=True)", False)])
def test_a_precision_switch_a_constructor_parameter_that_every_construction_leaves_off(construction, likely):
    """A trainer class turns mixed precision on in its `__init__` when `use_amp` is set; the script makes it with
    the default, so the run computes in float32. A construction that sets it is a run in 16 bits."""
    findings = _findings({"train.py": f"""
        import tensorflow as tf

        class Trainer:
            def __init__(self, use_amp=False):
                if use_amp:
                    tf.keras.mixed_precision.set_global_policy("mixed_float16")
                self.model = tf.keras.applications.ResNet50(weights=None)
                self.model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")

            def fit(self, dataset):
                self.model.fit(dataset, epochs=90)

        {construction}.fit(dataset)
        """}, "TFC001")
    assert [f.confidence for f in findings] == ([Confidence.LIKELY] if likely else [])


@pytest.mark.parametrize("construction, reported", [
    ("Agent(use_categorical=True)", ["update_categorical"]),
    ("Agent()", ["update_plain"]),
    ("Agent(use_categorical=flag)", ["update_categorical", "update_plain"]),
    ("Agent(use_categorical=True)\n        agent.use_categorical = flag", ["update_categorical", "update_plain"]),
])
def test_an_update_chosen_by_an_attribute_every_construction_sets(construction, reported):
    """An agent picks its update by `self.use_categorical`, copied from its constructor's parameter; the script
    builds it with the flag on, so the plain update never runs. Where the value is not written (a flag read at
    run time, or set on the agent afterwards), both may run."""
    step = """
            def update_{name}(self, x):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(self.net(x))
                grads = tape.gradient(loss, self.net.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.net.trainable_variables))
    """
    findings = _findings({"main.py": """
        import sys
        import tensorflow as tf

        class Agent:
            def __init__(self, use_categorical=False):
                self.use_categorical = use_categorical
                self.net = tf.keras.Sequential([tf.keras.layers.Dense(512), tf.keras.layers.Dense(4)])
                self.optimizer = tf.keras.optimizers.Adam()

            def learn(self, x):
                if self.use_categorical:
                    self.update_categorical(x)
                else:
                    self.update_plain(x)
        """ + step.format(name="categorical") + step.format(name="plain") + f"""
        flag = len(sys.argv) > 1
        agent = {construction}
        for episode in range(1000):
            agent.learn(tf.random.normal((32, 8)))
        """}, "TFH002")
    assert sorted(f.message.split("`")[1] for f in findings if f.confidence is Confidence.LIKELY) == reported


def test_a_parser_helper_a_dataset_map_calls_is_not_retraced_per_pipeline():
    """`@tf.function` parsers defined in `load_data` (one the `map` calls, one that one calls), with `load_data`
    called per age group: tf.data traces a map's function with each pipeline, decorated or not: nothing to gain.
    (Another notebook of the repo defines parsers of the same names: each file's are called only where it says.)"""
    ood = """
        import tensorflow as tf

        def load_data(paths):
            @tf.function
            def parse_record(proto):
                return tf.io.parse_single_example(proto, {"image": tf.io.FixedLenFeature([], tf.string)})

            @tf.function
            def parse_image(proto):
                return tf.io.parse_tensor(parse_record(proto)["image"], out_type=tf.float32)

            return tf.data.TFRecordDataset(paths).map(parse_image)

        datasets = []
        for age in ["1year", "2year", "4year"]:
            datasets.append(load_data([age]))
        """
    assert _findings({"ood.py": ood, "ood_copy.py": ood}, "TFH003") == []


def test_flags_read_from_the_config_module_a_script_stores_them_in():
    """`configs.config_values = args` in the entry point, `configs.config_values.model` in the helper that builds
    the model: the flag's default picks the model a run builds, so the ResNet branch is not what trains."""
    files = {"configs.py": "config_values = None\n", "main.py": """
        import argparse
        import configs
        import utils

        if __name__ == "__main__":
            parser = argparse.ArgumentParser()
            parser.add_argument("--model", default="resnet")
            args = parser.parse_args()
            configs.config_values = args
            utils.train()
        """, "utils.py": """
        import tensorflow as tf
        import configs

        def resnet():
            return tf.keras.Sequential([tf.keras.layers.Conv2D(256, 3) for _ in range(20)])

        def refinenet():
            return tf.keras.Sequential([tf.keras.layers.Conv2D(128, 3) for _ in range(30)])

        def train():
            if configs.config_values.model == "resnet":
                model = resnet()
            else:
                model = refinenet()
            model.compile(optimizer="adam", loss="mse")
            model.fit(tf.random.normal((256, 224, 224, 3)), tf.random.normal((256, 1)), epochs=10)
        """}
    findings = _findings(files, "TFC001")
    assert [(f.location.path.name, f.location.line) for f in findings] == [("utils.py", 5)]


# A dense model's compiled training step, named as a test needs.
_COMPILED_STEP = """
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(512), tf.keras.layers.Dense(1)])
        optimizer = tf.keras.optimizers.Adam()

        @tf.function
        def {name}(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(x))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss
"""


def test_a_step_function_picked_by_a_tuple_assignment():
    """`train_step, test_step = train_one_step, test_one_step` in the loop: the call runs the step it names, so the
    loop is a training loop, and its per-step read is one."""
    findings = _findings({"train.py": _COMPILED_STEP.format(name="train_one_step") + """
        train_loss = tf.keras.metrics.Mean()

        @tf.function
        def test_one_step(x):
            return tf.reduce_mean(model(x))

        for x in tf.data.Dataset.from_tensor_slices(tf.random.normal((1024, 32))).batch(32).prefetch(2):
            train_step, test_step = train_one_step, test_one_step
            train_loss(train_step(x))
            print(train_loss.result().numpy())
        """}, "TFH004")
    assert [(f.location.line, f.confidence) for f in findings] == [(23, Confidence.LIKELY)]


def test_a_generator_behind_star_imports_of_star_imports():
    """The script star-imports the `utils` package, whose `__init__` star-imports `tools`, which imports
    TensorFlow: `tf.data.Dataset.from_generator` is TensorFlow's whatever order the files are read in."""
    findings = _findings({"training.py": """
        from utils import *

        def examples(paths):
            for path in paths:
                yield np.load(path), 0

        dataset = tf.data.Dataset.from_generator(lambda: examples(PATHS), output_signature=(
            tf.TensorSpec(shape=(448, 448, 3), dtype=tf.float32), tf.TensorSpec(shape=(), dtype=tf.int32)))
        model = tf.keras.applications.VGG16(weights=None)
        model.compile(optimizer="sgd", loss="mse")
        model.fit(dataset.batch(8).prefetch(tf.data.AUTOTUNE), epochs=30)
        """, "utils/__init__.py": "from .tools import *\n", "utils/tools.py": """
        import numpy as np
        import tensorflow as tf

        PATHS = ["a.npy", "b.npy"]
        """}, "TFD004")
    assert [(f.location.path.name, f.location.line) for f in findings] == [("training.py", 7)]


def test_no_patch_guards_a_print_the_step_reads_again_right_after():
    """The print of a step's loss is followed by appends of the same values: a patch guarding the print alone would
    leave the appends waiting for every step, so the finding (which lists them) offers none."""
    step = _COMPILED_STEP.format(name="train_step") + """
        history = []
        for step, x in enumerate(tf.data.Dataset.from_tensor_slices(tf.random.normal((1024, 32))).batch(32)):
            loss = train_step(x)
            print(f"step {step}: loss {loss.numpy()}")
            history.append(loss.numpy())
        """
    findings = _findings({"train.py": step}, "TFH004")
    assert [(f.location.line, f.confidence, f.fix is None) for f in findings] == [
        (17, Confidence.LIKELY, True), (18, Confidence.POSSIBLE, True)]
    alone = _findings({"train.py": step.replace("            history.append(loss.numpy())\n", "")}, "TFH004")
    assert [(f.location.line, f.fix is not None) for f in alone] == [(17, True)]


def test_a_dispatch_table_keyed_by_a_parameter_its_callers_pass():
    """`{"train": train, "eval": evaluate}[mode]()` in `launch(mode)`: the key is a parameter, which the call graph
    being built cannot follow to `launch`'s callers (they are what it is building); the table's functions all count."""
    findings = _findings({"main.py": """
        import tensorflow as tf

        def train():
            model = tf.keras.Sequential([tf.keras.layers.Dense(512), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.Adam()
            for x in tf.data.Dataset.from_tensor_slices(tf.random.normal((1024, 32))).batch(32):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(model(x))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))

        def evaluate():
            pass

        def launch(mode):
            {"train": train, "eval": evaluate}[mode]()

        if __name__ == "__main__":
            launch("train")
        """}, "TFH002")
    assert _where(findings) == [("TFH002", "main.py", 7)]


# A physics-informed network with its own full-batch loop beside Keras' `fit`.
_PINN_CLASS = """
class {name}(tf.keras.Model):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(self(x) - y))
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return loss

    def fit_custom(self, x, y, epochs):
        for epoch in range(epochs):
            loss = self.train_step((x, y))
            self.history.append(loss.numpy())
"""


def test_a_method_the_code_calls_only_on_objects_of_other_classes():
    """Two model classes with a custom `fit_custom` loop each; the script trains one with `fit_custom` and the
    other with Keras' `fit`. Making the second reaches its methods, but no code calls its `fit_custom`: the only
    such call runs the first class's, so the second's loop trains in no run."""
    models = "import tensorflow as tf\n" + "".join(_PINN_CLASS.format(name=name) for name in ("HeatPinn", "WavePinn"))
    findings = _findings({"models.py": models, "heat.py": """
        import tensorflow as tf
        from models import HeatPinn, WavePinn

        heat = HeatPinn()
        heat.compile(optimizer="adam")
        heat.fit_custom(tf.random.normal((1024, 2)), tf.random.normal((1024, 1)), epochs=10000)
        wave = WavePinn()
        wave.compile(optimizer="adam")
        wave.fit(tf.random.normal((1024, 2)), tf.random.normal((1024, 1)), epochs=10)
        """}, "TFH004")
    assert _where(findings) == [("TFH004", "models.py", 15)]


def test_a_method_called_on_what_a_factory_function_returns_is_that_class_s():
    """Two projects of a repo each keep a `data_process.py` with a `Data` class and its `dataset()` pipeline. The
    seq2seq script trains on `data_process.create_train_data(...).dataset()`, a `Data` its static constructor
    makes; the transformer's script reads only the vocabulary from its own `Data` and trains on another pipeline,
    so its `dataset()` runs in no training."""
    data_process = """
        import tensorflow as tf

        class Data:
            def __init__(self, files):
                self.files = files
                self.vocab_size = 8000

            @staticmethod
            def pre_process(files):
                return Data(files)

            def dataset(self):
                return tf.data.TFRecordDataset(self.files).map(tf.io.parse_tensor).batch(32)

        def create_train_data(files):
            data = Data.pre_process(files)
            return data
        """
    findings = _findings({"seq2seq/data_process.py": data_process, "transformer/data_process.py": data_process,
                          "seq2seq/train.py": """
        import data_process

        data_model = data_process.create_train_data(["train.tfrecord"])
        model.fit(data_model.dataset(), epochs=10)
        """, "transformer/train.py": """
        import tensorflow as tf
        import data_process

        data_model = data_process.create_train_data(["train.tfrecord"])
        model = build(data_model.vocab_size)
        model.fit(tf.data.TFRecordDataset(["train.tfrecord"]).batch(32).prefetch(1), epochs=10)
        """}, "TFD001", show_all=True)
    assert sorted((f.location.path.as_posix(), f.reach) for f in findings) == [
        ("seq2seq/data_process.py", Reach.TRAINING), ("transformer/data_process.py", Reach.OTHER)]


def test_a_library_method_of_a_repo_model_is_not_the_one_repo_method_of_that_name():
    """An RL gallery's SAC agent copies its critic's weights into the target network every update
    (`self.target_qnet.set_weights(...)`, a Keras method of the repo's `QNetwork`); another project's agent defines
    a `set_weights` of its own that moves a world model's weights, which no SAC update runs."""
    findings = _findings({"sac/main.py": """
        import tensorflow as tf

        class QNetwork(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.dense = tf.keras.layers.Dense(1)

            def call(self, x):
                return self.dense(x)

        class SAC:
            def __init__(self):
                self.qnet = QNetwork()
                self.target_qnet = QNetwork()
                self.optimizer = tf.keras.optimizers.Adam()

            @tf.function
            def update_networks(self, states):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(self.qnet(states))
                variables = self.qnet.trainable_variables
                self.optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))

            def learn(self, buffer):
                for step in range(100000):
                    self.update_networks(buffer.sample())
                    self.target_qnet.set_weights(self.qnet.get_weights())

        SAC().learn(buffer)
        """, "dreamer/agent.py": """
        class DreamerAgent:
            def set_weights(self, weights):
                self.world_model.set_weights(weights[0])
                self.policy.set_weights(weights[1])
        """}, "TFH004", show_all=True)
    assert [(f.location.path.as_posix(), f.location.line) for f in findings] == [("sac/main.py", 27)]


def test_a_keras_train_step_only_an_unreached_loop_calls_eagerly_trains_compiled():
    """Keras' `fit` compiles a model's `train_step` override; the class's own `fit_custom` loop would call it
    eagerly, but the script trains with `fit`: the eager calls are in code no run reaches."""
    models = "import tensorflow as tf\n" + _PINN_CLASS.format(name="WavePinn")
    findings = _findings({"models.py": models, "wave.py": """
        import tensorflow as tf
        from models import WavePinn

        wave = WavePinn()
        wave.compile(optimizer="adam")
        wave.fit(tf.random.normal((1024, 2)), tf.random.normal((1024, 1)), epochs=10)
        """}, "TFH002", show_all=True)
    assert [(f.location.line, f.reach) for f in findings] == [(4, Reach.OTHER)]


_FED_IMAGES_TRAINING = """
import cv2
import tensorflow as tf

class NAME:
    def __init__(self, args):
        self.args = args

    def train(self):
        x = tf.compat.v1.placeholder(tf.float32, [None, 64, 64, 3])
        loss = tf.reduce_mean(tf.compat.v1.layers.conv2d(x, 64, 3))
        train_op = tf.compat.v1.train.AdamOptimizer().minimize(loss)
        with tf.compat.v1.Session() as sess:
            for step in range(1000):
                batch = [cv2.imread(p) for p in self.args.paths[step * 4:step * 4 + 4]]
                sess.run(train_op, feed_dict={x: batch})
"""


@pytest.mark.parametrize("rnn_model", [
    _FED_IMAGES_TRAINING.replace("NAME", "RNN_Model"),
    # tabs and spaces mixed as Python 3 cannot read them: what it trains is unknown
    "import tensorflow as tf\n\nclass RNN_Model:\n    def train(self):\n"
    "        if a:\n        \tb = 1\n            c = 2\n",
])
def test_the_model_a_script_fixes_in_a_local_is_the_one_trained_even_beside_an_unreadable_module(rnn_model):
    """Speech-Recognition-CTC's main: `model_type = 'RNN'` picks `RNN_Model(...).train()` over the WaveNet branch,
    whose per-step image reads a default run never makes. Its `rnn_model.py` mixes tabs and spaces: advisor cannot
    read it, so the WaveNet branch is not the only way to train there, nor a switch a run that trains turns on."""
    findings = _findings({
        "main.py": """
            import argparse
            from rnn_model import RNN_Model
            from wavenet_model import Wavenet_Model

            def main():
                parser = argparse.ArgumentParser()
                parser.add_argument("--paths", nargs="+")
                model_type = "RNN"
                args = parser.parse_args()
                if model_type == "RNN":
                    model = RNN_Model(args)
                    model.train()
                elif model_type == "WAVENET":
                    model = Wavenet_Model(args)
                    model.train()

            if __name__ == "__main__":
                main()
            """,
        "rnn_model.py": rnn_model,
        "wavenet_model.py": _FED_IMAGES_TRAINING.replace("NAME", "Wavenet_Model")}, "TFD004")
    wavenet = [f for f in findings if f.location.path.name == "wavenet_model.py"]
    assert [(f.location.line, f.confidence) for f in wavenet] == [(15, Confidence.POSSIBLE)]
    assert "`model_type == \"RNN\"` (main.py:10:8) is True" in wavenet[0].evidence[-1].message


@pytest.mark.parametrize("mode, confidence", [
    ('type=str2bool, default="n"', Confidence.LIKELY),  # what `str2bool("n")` is, only running it tells
    ('type=int, default="0"', Confidence.LIKELY),  # argparse converts the default: 0, the branch runs
    ('type=int, default="1"', Confidence.POSSIBLE),  # 1: the other one does
])
def test_a_string_default_is_what_its_type_makes_of_it(mode, confidence):
    """argparse hands a string default to `type` as it does a value typed on the command line: Speech-Recognition-
    CTC's `--mode` is `str2bool("n")`, False, which `args.mode == 0` takes; the string "n" itself would not."""
    findings = _findings({
        "main.py": f"""
            import argparse
            from model import Model
            from language_model import LanguageModel

            def str2bool(v):
                return v.lower() in ("yes", "y", "true", "t")

            parser = argparse.ArgumentParser()
            parser.add_argument("--mode", {mode})
            parser.add_argument("--paths", nargs="+")
            args = parser.parse_args()
            if args.mode == 0:
                Model(args).train()
            else:
                LanguageModel(args).train()
            """,
        "model.py": _FED_IMAGES_TRAINING.replace("NAME", "Model"),
        "language_model.py": _FED_IMAGES_TRAINING.replace("NAME", "LanguageModel").replace("cv2.imread", "read")},
        "TFD004")
    assert [(f.location.line, f.confidence) for f in findings if f.location.path.name == "model.py"] == [
        (15, confidence)]


def test_printing_a_string_made_of_the_step_s_values_reads_them_where_it_is_made():
    """StarGAN's loop formats its losses into `log` (`"...".format(disc_loss / batch_size)`), adds more on generator
    steps (`log += ...`), then prints it: the read is the formatting; `print(log)` prints a Python string."""
    findings = _findings({"train.py": """
        import tensorflow as tf

        @tf.function
        def train_step(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(x))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
            return loss

        for step, x in enumerate(dataset):
            loss = train_step(x)
            log = "step {} - loss = {}".format(step, loss / 16)
            if step % 5 == 0:
                extra_loss = train_step(x)
                log += " - extra_loss = {}".format(extra_loss / 16)
            print(log)
        """}, "TFH004")
    assert [f.location.line for f in findings] == [12, 15]


@pytest.mark.parametrize("written, trained", [
    ("", 6),
    ("config['msg'] = args.msg", 9),  # the literal's value is only where the run starts: the last model built
])
def test_a_setting_a_script_s_config_dict_holds_decides_its_branch(written, trained):
    """pointnet2-tensorflow2 keeps its settings in a dict literal its `__main__` block binds (`'msg': True`):
    `if config['msg'] == True:` builds the multi-scale model, which `fit` trains; not the single-scale one of the
    `else`."""
    findings = _findings({"train.py": f"""
        import argparse
        import tensorflow as tf
        from tensorflow.keras import layers

        def multi_scale_model():
            return tf.keras.Sequential([layers.Conv2D(256, 3) for _ in range(12)] + [layers.Dense(40)])

        def single_scale_model():
            return tf.keras.Sequential([layers.Conv2D(128, 3) for _ in range(12)] + [layers.Dense(40)])

        def train():
            if config['msg'] == True:
                model = multi_scale_model()
            else:
                model = single_scale_model()
            model.compile("adam", "sparse_categorical_crossentropy")
            model.fit(tf.data.TFRecordDataset(config['train_ds']).batch(config['batch_size']), epochs=100)

        if __name__ == '__main__':
            args = argparse.ArgumentParser().parse_args()
            config = {{'train_ds': 'data/train.tfrecord', 'batch_size': 32, 'msg': True}}
            {written}
            train()
        """}, "TFC001")
    assert [(f.location.line, f.confidence) for f in findings] == [(trained, Confidence.LIKELY)]


def test_a_helper_making_a_layer_of_the_width_each_call_passes_counts_once_per_call():
    """tiny-YOLO's notebook builds its Sequential through a local `Conv2D(filters, kernel_size)` wrapping Keras':
    each call with another literal width is another layer, not the same network applied again to another input."""
    findings = _findings({"yolo.py": """
        from tensorflow import keras

        def Conv2D(filters, kernel_size):
            return keras.layers.Conv2D(filters=filters, kernel_size=kernel_size, padding="same")

        model = keras.Sequential()
        model.add(Conv2D(64, 3))
        model.add(Conv2D(128, 3))
        model.add(Conv2D(256, 3))
        model.add(Conv2D(512, 3))
        model.add(Conv2D(1024, 3))
        model.add(Conv2D(256, 3))
        model.add(Conv2D(256, 3))
        model.add(Conv2D(256, 3))
        model.add(keras.layers.Dense(10))
        model.compile(optimizer="adam", loss="mse")
        model.fit(images, targets, epochs=100)
        """}, "TFC001")
    (finding,) = findings
    assert finding.confidence is Confidence.LIKELY
    assert any("makes 8 convolution" in e.message for e in finding.evidence)


def test_a_notebook_s_only_training_loop_behind_a_flag_set_false_is_the_switch_a_run_turns_on():
    """tiny-YOLO's notebook writes its only training loop inline under `if TRAIN:`, with `TRAIN = False` set at
    the top (flip it to train): a run that trains takes that branch, so what the loop does every step is reported
    as likely; a loop in a function defined beside such a branch trains only where that function is called."""
    script = """
        import tensorflow as tf

        TRAIN = False

        if TRAIN:
            while True:
                batch = next(generator())
                with tf.GradientTape() as tape:
                    loss_value = loss_object(batch[1], model(batch[0]))
                grads = tape.gradient(loss_value, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
        """
    (finding,) = _findings({"train.py": script}, "TFH002")
    assert (finding.location.line, finding.confidence) == (8, Confidence.LIKELY)
    assert not any("skips this code" in e.message for e in finding.evidence)


# A TensorFlow 1.x recommender's input functions (deep-match): a builder returns a dataset and the closure that
# decodes its lines, whose helper runs a `tf.py_func`; the prediction input comes first in the file.
_DECODER_BUILDER = """
import numpy as np
import tensorflow as tf

def parse_sequence(text):
    def split(text):
        return np.array(text.split(b","))
    return tf.py_func(split, [text], tf.string)

def dataset_and_decoder(table):
    def decode(line):
        return {"items": parse_sequence(line)}
    return tf.data.TextLineDataset([table]), decode

def predict_input_fn_builder(table):
    def input_fn():
        dataset, decode = dataset_and_decoder(table)
        dataset = dataset.map(decode, num_parallel_calls=8).batch(256)
        return dataset.make_one_shot_iterator().get_next()
    return input_fn
"""


def test_a_decoder_a_builder_returns_beside_its_dataset_is_what_the_map_runs():
    """`dataset, decode = dataset_and_decoder(table)`, then `dataset.map(decode)`: the map runs the closure the
    builder returns at that place, and the `tf.py_func` its helper calls. The training input comes after the
    prediction input, whose `input_fn` is defined in `predict_input_fn_builder`: the finding names the training
    map, shown by default; with the prediction input alone, it feeds evaluation only."""
    training = """
def train_input_fn():
    dataset, decode = dataset_and_decoder("train.txt")
    return dataset.repeat().map(decode, num_parallel_calls=8).batch(256)

estimator = tf.estimator.Estimator(model_fn)
estimator.train(input_fn=train_input_fn, max_steps=100000)
"""
    (finding,) = _findings({"main.py": _DECODER_BUILDER + training}, "TFD003")
    assert (finding.location.line, finding.confidence) == (7, Confidence.LIKELY)
    assert "line 23" in finding.message
    predicting = "\nestimator = tf.estimator.Estimator(model_fn)\nfor result in estimator.predict(" \
                 "input_fn=predict_input_fn_builder('items.txt')):\n    print(result)\n"
    (finding,) = _findings({"main.py": _DECODER_BUILDER + predicting}, "TFD003")
    assert finding.confidence is Confidence.POSSIBLE
    assert any("feeds evaluation only" in e.message for e in finding.evidence)


def test_summaries_an_eager_update_writes_are_reported_there_not_at_the_call_of_the_agent_s_train():
    """A SAC agent's `train(batch)` runs its eager critic and policy updates; the critic's writes a histogram of
    every gradient every step: the finding goes in the update, where the writes are; none at `agent.train(...)` in
    the loop, where a step interval would skip the training too."""
    files = {"sac.py": """
        import tensorflow as tf

        class SAC:
            def update_q(self, states, targets):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean((self.q(states) - targets) ** 2)
                grads = tape.gradient(loss, self.q.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.q.trainable_variables))
                with self.writer.as_default():
                    for grad, var in zip(grads, self.q.trainable_variables):
                        tf.summary.histogram(var.name, grad, self.step)
                return loss

            def update_policy(self, states):
                with tf.GradientTape() as tape:
                    loss = -tf.reduce_mean(self.q(states))
                grads = tape.gradient(loss, self.policy.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.policy.trainable_variables))
                return loss

            def train(self, states, targets):
                self.update_q(states, targets)
                return self.update_policy(states)

        agent = SAC()
        for step in range(100000):
            states, targets = replay.sample(256)
            agent.train(states, targets)
        """}
    findings = _findings(files, "TFH006", show_all=True)
    assert [(f.location.line, f.confidence) for f in findings] == [(11, Confidence.LIKELY)]


@pytest.mark.parametrize("labels, in_memory", [
    ("np.reshape(np.array(labels[i:i + batch_size], dtype=np.int32), (-1, 1))", True),
    ("np.expand_dims(np.array(labels[i:i + batch_size]), -1)", True),
    ("np.reshape(np.array([len(s) for s in labels[i:i + batch_size]]), (-1, 1))", False),
])
def test_a_batch_generator_reshaping_slices_of_arrays_in_memory_does_no_array_work(labels, in_memory):
    """A sentiment notebook's generator copies slices of its in-memory arrays and gives one another shape
    (`np.reshape(np.array(labels[i:i + n]), (-1, 1))`): a view of a copy, no work per batch; built in Python, it is."""
    findings = _findings({"train.py": f"""
        import numpy as np
        import tensorflow as tf

        def get_training_set(sentences, labels, batch_size):
            for i in range(0, len(sentences), batch_size):
                yield np.array(sentences[i:i + batch_size]), {labels}

        X = tf.placeholder(tf.int32, [None, 100])
        y = tf.placeholder(tf.int32, [None, 1])
        loss = tf.losses.mean_squared_error(y, tf.layers.dense(tf.layers.dense(tf.cast(X, tf.float32), 300), 1))
        train_op = tf.train.AdamOptimizer(0.01).minimize(loss)
        with tf.Session() as sess:
            for epoch in range(10):
                for x_batch, y_batch in get_training_set(X_train, y_train, 600):
                    sess.run(train_op, feed_dict={{X: x_batch, y: y_batch}})
        """}, "TFD004")
    assert [(f.location.line, f.confidence) for f in findings] == [
        (14, Confidence.POSSIBLE if in_memory else Confidence.LIKELY)]


def test_an_update_every_n_environment_steps_follows_a_rollout():
    """A PPO agent updates once per 4000 environment steps (`if step % update_timestep == 0: agent.learn()`), ten
    epochs over the rollout each time: the environment's steps take most of the time, and compiling the update
    saves a small share of it (a loop that updates every step, or every fourth, is another matter)."""
    script = """
        import gym
        import numpy as np
        import tensorflow as tf

        class Agent:
            def learn(self):
                obs = np.vstack(self.memory.obs)
                for epoch in range(10):
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean(self.policy(obs))
                    grads = tape.gradient(loss, self.policy.trainable_variables)
                    self.optimizer.apply_gradients(zip(grads, self.policy.trainable_variables))

        env = gym.make("BipedalWalker-v3")
        agent = Agent()
        step = 0
        for episode in range(50000):
            obs = env.reset()
            while True:
                step += 1
                obs, reward, done, _ = env.step(agent.act(obs))
                if step % 4000 == 0:
                    agent.learn()
                if done:
                    break
        """
    (finding,) = _findings({"ppo.py": script}, "TFH002")
    assert finding.confidence is Confidence.POSSIBLE
    assert any("environment steps of the interval it runs on" in e.message for e in finding.evidence)
    every_step = script.replace("if step % 4000 == 0:\n                    agent.learn()", "agent.learn()")
    (finding,) = _findings({"ppo.py": every_step}, "TFH002")
    assert finding.confidence is Confidence.LIKELY
    every_fourth = script.replace("step % 4000", "step % 4")  # a DQN-style agent: the updates are most of the work
    (finding,) = _findings({"ppo.py": every_fourth}, "TFH002")
    assert finding.confidence is Confidence.LIKELY


def test_keras_on_a_tensorflow1_session_gets_the_graph_rewrite_not_a_policy():
    """A U-Net script of the Keras 2 era hands Keras a `tf.Session(config=...)` and fits a model that another module
    builds: Keras on TensorFlow 1.x has no mixed-precision policy, so the finding proposes 1.x's graph rewrite
    around the optimizer and no patch; a TensorFlow 2 script's model gets the policy and its patch."""
    findings = _findings({
        "net.py": """
            from keras.layers import Conv2D, Input, MaxPooling2D, UpSampling2D, concatenate
            from keras.models import Model

            def unet(side=256):
                inputs = Input((side, side, 3))
                down = [inputs]
                for filters in (64, 128, 256, 512):
                    x = Conv2D(filters, 3, padding="same", activation="relu")(down[-1])
                    x = Conv2D(filters, 3, padding="same", activation="relu")(x)
                    down.append(MaxPooling2D()(x))
                x = down[-1]
                for filters in (512, 256, 128, 64):
                    x = Conv2D(filters, 3, padding="same", activation="relu")(UpSampling2D()(x))
                return Model(inputs, Conv2D(1, 1, activation="sigmoid")(x))
            """,
        "train.py": """
            import tensorflow as tf
            from keras import backend as K
            from keras.optimizers import Adam

            from net import unet

            config = tf.ConfigProto()
            config.gpu_options.allow_growth = True
            K.set_session(tf.Session(config=config))
            model = unet()
            model.compile(optimizer=Adam(1e-4), loss="binary_crossentropy")
            model.fit(images, masks, batch_size=32, epochs=100)
            """,
        "tf2/train.py": """
            import tensorflow as tf

            def unet(side=256):
                inputs = tf.keras.Input((side, side, 3))
                x = inputs
                for filters in (64, 128, 256, 512, 512, 256, 128, 64):
                    x = tf.keras.layers.Conv2D(filters, 3, padding="same", activation="relu")(x)
                return tf.keras.Model(inputs, tf.keras.layers.Conv2D(1, 1, activation="sigmoid")(x))

            model = unet()
            model.compile(optimizer="adam", loss="binary_crossentropy")
            model.fit(images, masks, batch_size=32, epochs=100)
            """}, "TFC001")
    by_path = {f.location.path.as_posix(): f for f in findings}
    assert _where(findings) == [("TFC001", "net.py", 14), ("TFC001", "tf2/train.py", 8)]
    on_tf1 = by_path["net.py"]
    assert on_tf1.confidence is Confidence.LIKELY
    assert "on TensorFlow 1.x (`tf.ConfigProto`, train.py:7" in on_tf1.message
    assert "enable_mixed_precision_graph_rewrite(optimizer)" in on_tf1.message and on_tf1.patch is None
    assert "set_global_policy" not in on_tf1.message
    assert "mixed_float16" in by_path["tf2/train.py"].message and by_path["tf2/train.py"].patch is not None


_BLOCKS_MODULE = """
    import tensorflow as tf

    def down(filters):
        return tf.keras.layers.Conv2D(filters, 4, strides=2, padding="same")
    """
_NETWORK_IMPORTING_A_SIBLING = """
    import tensorflow as tf
    from blocks import down

    def network():
        inputs = tf.keras.Input((256, 256, 3))
        return tf.keras.Model(inputs, down(64)(inputs))
    """
_EAGER_TRAINING_LOOP = """\
optimizer = tf.keras.optimizers.Adam()
for images in tf.data.Dataset.range(10):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(model(images))
    optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
"""
_EAGER_SCRIPT_OF_THE_PACKAGE = """
import tensorflow as tf
from model.network import network

model = network()
""" + _EAGER_TRAINING_LOOP + 'print(f"trained {len(model.layers)} layers")\n'


def test_a_package_module_importing_its_sibling_by_a_bare_name_is_taken_to_run():
    """A retinal-segmentation repo's `lib/DRIVE_dataloader.py` writes `from pre_process import *` beside
    lib/pre_process.py, and train.py at the root imports `lib.DRIVE_dataloader`: plain Python 3 would look for
    `pre_process` on the path only, yet its README times the training on an RTX 3090. IDEs put a project's source
    folders on the path (PyCharm's sources roots), so such an import says nothing of whether the script runs."""
    findings = _findings({"model/__init__.py": "", "model/blocks.py": _BLOCKS_MODULE,
                          "model/network.py": _NETWORK_IMPORTING_A_SIBLING,
                          "train.py": _EAGER_SCRIPT_OF_THE_PACKAGE}, "TFH002")
    assert [(f.location.path.as_posix(), f.location.line, f.confidence) for f in findings] == [
        ("train.py", 7, Confidence.LIKELY)]
    assert not any("a run stops" in e.message for e in findings[0].evidence)


def test_a_function_named_like_one_another_module_defines_for_itself_is_still_only_called_by_its_callers():
    """A pix2pix port's notebook defines and calls its own `Network` beside the package's: its mentions name its
    own, so the package's is called only by train.py, which stops before it trains (a NameError: only another
    module binds `DATA_DIR`): its model's finding is possible, saying why; the notebook's model, built and trained
    in its cells, stays likely."""
    network = _NETWORK_IMPORTING_A_SIBLING.replace(
        "return tf.keras.Model(inputs, down(64)(inputs))",
        "x = inputs\n        for filters in (64, 128, 256, 512, 512, 512):\n            x = down(filters)(x)\n"
        "        return tf.keras.Model(inputs, x)").replace("def network", "def Network")
    script = _EAGER_SCRIPT_OF_THE_PACKAGE.replace("import network", "import Network").replace(
        "model = network()", "print(DATA_DIR)\nmodel = Network()")
    own = textwrap.dedent("""
        import tensorflow as tf

        def Network():
            inputs = tf.keras.Input((256, 256, 3))
            x = inputs
            for filters in (64, 128, 256, 512, 512, 512):
                x = tf.keras.layers.Conv2D(filters, 4, strides=2, padding="same")(x)
            return tf.keras.Model(inputs, x)

        model = Network()
        """) + _EAGER_TRAINING_LOOP
    findings = _findings({"model/__init__.py": "", "model/blocks.py": _BLOCKS_MODULE + 'DATA_DIR = "data"\n',
                          "model/network.py": network, "train.py": script, "colab.py": own}, "TFC001")
    confidences = {f.location.path.as_posix(): f.confidence for f in findings}
    assert confidences == {"model/network.py": Confidence.POSSIBLE, "colab.py": Confidence.LIKELY}
    assert any("a run stops before it gets here" in e.message
               for f in findings if f.location.path.as_posix() == "model/network.py" for e in f.evidence)


def test_a_training_model_built_on_a_networks_ends_counts_the_networks_layers():
    """A YOLOv4 port wraps its network in a training model whose outputs are the losses: `Model([self.yolo_model.
    input, *y_true], loss)`, with the labels as `Input((52, 52, 3, 25))` (a grid of anchors, no images). The
    training model runs the network's convolutions, built by helpers, so mixed precision is likely; the labels'
    shape says nothing of the images' size."""
    findings = _findings({"models.py": """
        import tensorflow as tf
        from tensorflow.keras import layers, models

        def conv(x, filters, kernel_size, downsampling=False):
            x = layers.Conv2D(filters, kernel_size, strides=2 if downsampling else 1, padding="same")(x)
            return layers.LeakyReLU()(layers.BatchNormalization()(x))

        def darknet(x):
            for filters in (32, 64, 128, 256, 512, 1024):
                x = conv(x, filters, 3, downsampling=True)
                x = conv(x, filters // 2, 1)
                x = conv(x, filters, 3)
            return layers.Conv2D(75, 1)(x)

        def yolo_loss(args):
            prediction, labels = args
            return tf.reduce_mean(tf.square(prediction - labels[..., 0]))

        class Yolov4:
            def __init__(self, image_size=(416, 416, 3)):
                self.image_size = image_size
                self.build_model()

            def build_model(self):
                input_layer = layers.Input(self.image_size)
                self.yolo_model = models.Model(input_layer, darknet(input_layer))
                y_true = [layers.Input(shape=(13, 13, 3, 25))]
                loss = layers.Lambda(yolo_loss)([self.yolo_model.output, *y_true])
                self.training_model = models.Model([self.yolo_model.input, *y_true], loss)
                self.training_model.compile(optimizer="adam", loss=lambda y_true, y_pred: y_pred)

            def fit(self, data, epochs):
                self.training_model.fit(data, epochs=epochs)
        """,
        "train.py": """
            from models import Yolov4

            model = Yolov4()
            model.fit(train_generator, epochs=100)
            """}, "TFC001")
    training = next(f for f in findings if f.location.line == 29)
    assert training.confidence is Confidence.LIKELY
    size = next(e.message for e in training.evidence if "convolution" in e.message)
    assert "the model is compute-heavy" in size and "pixel images" not in size and "other model" not in size


def test_a_model_trained_with_keras_1_arguments_has_no_policy_to_set():
    """A 2017 captcha notebook builds a CNN with `Convolution2D(32, 3, 3)` and trains it with `fit_generator(...,
    nb_epoch=5)`: Keras 1's arguments, which run on multi-backend Keras 2.3 at the newest, where no mixed-precision
    policy exists. A heavy model is still worth porting: the finding says so and offers no patch (one would call
    the `keras.mixed_precision` that version lacks); the same model written for Keras 2 gets the patch."""
    script = """
        from keras.layers import Convolution2D, Dense, Flatten, Input, MaxPooling2D
        from keras.models import Model

        inputs = Input((80, 170, 3))
        x = inputs
        for filters in (64, 128, 256, 512):
            x = Convolution2D(filters, 3, 3, activation="relu")(x)
            x = Convolution2D(filters, 3, 3, activation="relu")(x)
            x = MaxPooling2D((2, 2))(x)
        model = Model(inputs, Dense(36, activation="softmax")(Flatten()(x)))
        model.compile(loss="categorical_crossentropy", optimizer="adadelta")
        model.fit_generator(gen(), {epochs}=5)
        """
    (old,) = _findings({"train.py": script.format(epochs="samples_per_epoch=51200, nb_epoch")}, "TFC001")
    said = "multi-backend Keras 2.3 or older (`samples_per_epoch=` in `model.fit_generator`, train.py:12"
    assert any(said in e.message for e in old.evidence)
    assert (old.confidence, old.fix) == (Confidence.LIKELY, None)
    assert "No automatic patch: the code is written for multi-backend Keras 2.3 or older" in old.message
    (new,) = _findings({"train.py": script.format(epochs="steps_per_epoch=1600, epochs")}, "TFC001")
    assert new.confidence is Confidence.LIKELY and new.fix is not None


@pytest.mark.parametrize("after_fit, reported", [
    ("model.fit(training, epochs=40)", []),  # a whole training run, then the validation images one at a time
    ("model.fit(training, epochs=1)", [("TFH007", "search.py", 14)]),  # one epoch per fold: no whole run
])
def test_predictions_on_validation_images_after_a_whole_fit_are_once_per_run(after_fit, reported):
    """A road-segmentation search trains each fold with `fit(epochs=...)`, then scores the fold's validation tiles
    with `predict` one at a time: the loop runs once per training run, not per step, whatever loop over folds calls
    it."""
    findings = _findings({"search.py": f"""
        import numpy as np
        import tensorflow as tf

        def build():
            model = tf.keras.Sequential([tf.keras.layers.Conv2D(64, 3) for _ in range(8)])
            model.compile("adam", "mse")
            return model

        def run_fold(training, validation_images):
            model = build()
            {after_fit}
            scores = []
            for image, mask in validation_images:
                predicted = model.predict(image)
                scores.append(np.mean(np.where(predicted >= 0, 1.0, 0.0) == mask))
            return np.mean(scores)

        folds = [(tf.data.Dataset.range(10), [(np.zeros((1, 8, 8, 3)), 0)]) for _ in range(5)]
        for training, validation_images in folds:
            run_fold(training, validation_images)
        """}, "TFH007")
    assert _where(findings) == reported


def test_batches_of_a_generator_an_iterator_class_holds_bring_its_work():
    """MIMIC-III's `BatchGen`: `self.generator = self._generator()` in `__init__`, and `__next__` returns
    `next(self.generator)`; the generator reads and resizes images: that is the work of the batches `fit_generator`
    takes."""
    findings = _findings({"train.py": """
        import cv2
        import numpy as np
        import tensorflow as tf

        class BatchGen:
            def __init__(self, paths, batch_size):
                self.paths = paths
                self.batch_size = batch_size
                self.generator = self._generator()

            def _generator(self):
                while True:
                    for i in range(0, len(self.paths), self.batch_size):
                        images = [cv2.resize(cv2.imread(p), (224, 224))
                                  for p in self.paths[i:i + self.batch_size]]
                        yield np.stack(images), np.zeros(len(images))

            def __iter__(self):
                return self.generator

            def __next__(self):
                return next(self.generator)

        model = tf.keras.applications.ResNet50(weights=None)
        model.compile("adam", "sparse_categorical_crossentropy")
        model.fit_generator(BatchGen(["a.png"] * 1000, 32), steps_per_epoch=100, epochs=10)
        """}, "TFD004")
    assert [f.confidence for f in findings] == [Confidence.LIKELY]
    assert "cv2.imread" in _evidence(findings[0])


@pytest.mark.parametrize("source, reported", [
    ('tf.data.experimental.make_csv_dataset("train.csv", batch_size=32, label_name="y")', []),
    ('tf.data.experimental.CsvDataset(["train.csv"], [0.0, 0.0]).batch(32)', ["TFD001"]),
])
def test_a_csv_dataset_that_prefetches_on_its_own_needs_no_prefetch(source, reported):
    """SparrowRecSys trains its recommenders on `make_csv_dataset(...)`, whose `prefetch_buffer_size` defaults to
    autotuning: the pipeline already ends with a prefetch. A bare `CsvDataset` does not."""
    findings = _findings({"train.py": f"""
        import tensorflow as tf

        dataset = {source}
        model = tf.keras.Sequential([tf.keras.layers.Dense(128), tf.keras.layers.Dense(1)])
        model.compile("adam", "mse")
        model.fit(dataset, epochs=5)
        """}, "TFD001", show_all=True)
    assert [f.code for f in findings] == reported


@pytest.mark.parametrize("update, reported", [
    ("for momentum_weight, weight in self.pairs:\n"
     "                    momentum_weight.assign_add((weight - momentum_weight) * 0.001)", True),
    ("self.seen.assign_add(1)", False),  # one counter: one op
])
def test_a_batch_hook_updating_each_weight_eagerly_is_slow_with_no_thinning_fix(update, reported):
    """A MoCo road-segmentation model moves its momentum encoder towards the encoder in a callback's
    `on_train_batch_end`, one `assign_add` per weight in a Python loop: hundreds of eager ops after every batch. The
    advice is to compile the loop; running it every Nth batch would change the algorithm, so no patch thins it."""
    findings = _findings({"train.py": f"""
        import tensorflow as tf

        class UpdateMomentumEncoder(tf.keras.callbacks.Callback):
            def __init__(self, pairs):
                super().__init__()
                self.pairs = pairs
                self.seen = tf.Variable(0)

            def on_train_batch_end(self, batch, logs=None):
                {update}

        encoder = tf.keras.applications.ResNet50(weights=None)
        momentum = tf.keras.applications.ResNet50(weights=None)
        encoder.compile("adam", "sparse_categorical_crossentropy")
        callback = UpdateMomentumEncoder(list(zip(momentum.weights, encoder.weights)))
        encoder.fit(tf.data.Dataset.range(10), epochs=10, callbacks=[callback])
        """}, "TFH001")
    assert len(findings) == int(reported)
    if reported:
        assert findings[0].confidence is Confidence.LIKELY and findings[0].fix is None
        assert "Compile the loop into one `tf.function`" in findings[0].message


def test_a_shallow_network_of_narrow_convolutions_is_no_heavy_model():
    """Prototypical networks' Conv-4 encoder (check 75): four 64-filter convolutions, images whose size a config file
    gives. Each is wide enough to count, but a network that shallow and that narrow does a few hundred million
    multiply-adds an image at most: possible. A 128-filter layer among them, or images declared 128 pixels or
    larger, keep it likely."""
    def model(widths: tuple[int, ...], side: int | None = None) -> str:
        inputs = f"tf.keras.Input(shape=({side}, {side}, 3)), " if side else ""
        layers = ", ".join(f"tf.keras.layers.Conv2D({w}, 3), tf.keras.layers.MaxPool2D()" for w in widths)
        return f"""
import tensorflow as tf

encoder = tf.keras.Sequential([{inputs}{layers}, tf.keras.layers.Flatten()])
optimizer = tf.keras.optimizers.Adam()

@tf.function
def train_step(images, labels):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(encoder(images) - labels))
    optimizer.apply_gradients(zip(tape.gradient(loss, encoder.trainable_variables), encoder.trainable_variables))

for images, labels in episodes:
    train_step(images, labels)
"""
    cases = {"narrow": model((64, 64, 64, 64)), "one wide layer": model((64, 64, 64, 128)),
             "large images": model((64, 64, 64, 64), side=160), "small images": model((64, 64, 64, 64), side=84)}
    confidences = {name: [f.confidence for f in _findings({"train.py": source}, "TFC001", show_all=True)]
                   for name, source in cases.items()}
    assert confidences == {"narrow": [Confidence.POSSIBLE], "one wide layer": [Confidence.LIKELY],
                           "large images": [Confidence.LIKELY], "small images": [Confidence.POSSIBLE]}


def test_a_tf_function_made_per_host_for_later_calls_is_not_retraced_per_step():
    """SEED RL's learner (check 76): a loop over hosts defines each host's `@tf.function` handlers and binds them to
    its gRPC server, and calls a factory per inference device whose nested inference function (the one returned)
    uses a compiled helper. Nothing runs them in that loop: each is traced at its first call, not per step. A
    factory that runs the function it compiles, called per batch, still is."""
    findings = _findings({"learner.py": """
        import tensorflow as tf

        def init_server(hosts, server):
            for host in hosts:
                @tf.function
                def pending_minimize():
                    return host.completed < host.batch

                def get_inference_fn(device):
                    @tf.function
                    def add_episode_stats(done):
                        host.stats.add(done)

                    def inference(observations):
                        add_episode_stats(observations.done)
                        return host.policy(observations)
                    return inference

                host.inference_fns = [get_inference_fn(d) for d in host.devices]
                server.bind(pending_minimize)

        def train_batch(model, x):
            @tf.function
            def step(x):
                return model(x)
            return step(x)

        for x in dataset:
            train_batch(model, x)
        """}, "TFH003", show_all=True)
    assert [f.location.line for f in findings] == [24]


def test_a_step_defined_in_a_method_trains_the_model_its_class_builds():
    """FCOS's trainer (check 76): `train(self)` defines its `@tf.function` step as a closure that calls
    `self.model`, which `_build_model` binds: the closure's `self` is the method's, so that model is the trained one
    and its construction gets the mixed-precision finding."""
    findings = _findings({"fcos/model.py": """
        import tensorflow as tf

        class FCOS:
            def __init__(self, epochs):
                self.epochs = epochs
                self._build_model()

            def _build_model(self):
                inputs = tf.keras.Input(shape=(720, 1280, 3))
                x = inputs
                for filters in (64, 128, 256, 512, 1024):
                    x = tf.keras.layers.Conv2D(filters, 3, strides=2)(x)
                self.model = tf.keras.Model(inputs=[inputs], outputs=[x])

            def train(self, dataset):
                optimizer = tf.keras.optimizers.SGD(0.01)

                @tf.function
                def train_step(images, targets):
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean(tf.square(self.model(images, training=True) - targets))
                    gradients = tape.gradient(loss, self.model.trainable_variables)
                    optimizer.apply_gradients(zip(gradients, self.model.trainable_variables))
                    return loss

                for _ in range(self.epochs):
                    for images, targets in dataset:
                        train_step(images, targets)
        """, "train.py": """
        from fcos.model import FCOS

        FCOS(epochs=10).train(dataset)
        """}, "TFC001")
    assert [(f.location.path.as_posix(), f.location.line, f.confidence) for f in findings] == [
        ("fcos/model.py", 13, Confidence.LIKELY)]


@pytest.mark.parametrize("loop, confidence", [
    ("for layers in xrange(2, 16 + 1):", Confidence.LIKELY),  # 15 + 2 written out: deep
    ("for layers in range(2, 5):", Confidence.POSSIBLE),  # 3 + 2: shallow, and every layer 64 filters wide
    ("for layers in range(num_layers):", Confidence.LIKELY),  # not written: it may be deeper than counted
])
def test_the_depth_of_a_narrow_network_is_read_from_its_loop(loop, confidence):
    """DnCNN (a denoiser of 17 convolutions of 64 filters at full resolution) builds its middle layers in
    `xrange(2, 16 + 1)`: a range with a start counts as one without, Python 2's `xrange` as `range`. Where the
    loop's count is not written, the network is not known to be shallow."""
    findings = _findings({"model.py": f"""
        import tensorflow as tf

        def dncnn(x, num_layers):
            output = tf.layers.conv2d(x, 64, 3, padding="same", activation=tf.nn.relu)
            {loop}
                output = tf.layers.conv2d(output, 64, 3, padding="same", use_bias=False)
                output = tf.nn.relu(tf.layers.batch_normalization(output, training=True))
            return tf.layers.conv2d(output, 1, 3, padding="same")

        clean = tf.placeholder(tf.float32, [None, None, None, 1])
        loss = tf.reduce_mean(tf.square(dncnn(clean, config["depth"]) - clean))
        train_op = tf.train.AdamOptimizer(1e-3).minimize(loss)
        with tf.Session() as sess:
            for step in range(100000):
                sess.run(train_op)
        """}, "TFC001", show_all=True)
    assert [f.confidence for f in findings] == [confidence]


def test_an_external_optimizers_minimize_is_no_graph_update():
    """Physics-informed networks (check 77) train with Adam, then with SciPy's L-BFGS through
    `ScipyOptimizerInterface(loss).minimize(sess)`: a whole optimization run from Python through the session, no
    update op a graph rewrite could wrap. Only the Adam update gets the mixed-precision finding."""
    findings = _findings({"pinn.py": """
        import tensorflow as tf

        class PhysicsInformedNN:
            def __init__(self, x, u):
                self.x_tf = tf.placeholder(tf.float32, shape=[None, 2])
                self.u_tf = tf.placeholder(tf.float32, shape=[None, 1])
                h = self.x_tf
                for units in (512, 512, 512, 512, 512, 512, 512, 512, 512, 512, 512, 512, 512):
                    h = tf.layers.dense(h, units, activation=tf.tanh)
                self.loss = tf.reduce_mean(tf.square(tf.layers.dense(h, 1) - self.u_tf))
                self.optimizer = tf.contrib.opt.ScipyOptimizerInterface(self.loss, method="L-BFGS-B")
                self.optimizer_Adam = tf.train.AdamOptimizer()
                self.train_op_Adam = self.optimizer_Adam.minimize(self.loss)
                self.sess = tf.Session()
                self.sess.run(tf.global_variables_initializer())

            def train(self, n_iter, feed):
                for it in range(n_iter):
                    self.sess.run(self.train_op_Adam, feed)
                self.optimizer.minimize(self.sess, feed_dict=feed, fetches=[self.loss])

        if __name__ == "__main__":
            model = PhysicsInformedNN(x, u)
            model.train(50000, feed)
        """}, "TFC001", show_all=True)
    assert [f.location.line for f in findings] == [13]


def test_a_generator_walking_a_files_lines_is_said_to_read_it():
    """A knowledge-graph notebook's generator opens its triples file once a pass and yields an element per line,
    parsed in plain Python: buffered reads, not work that makes the finding likely, but the evidence must not say
    the generator reads no file."""
    findings = _findings({"train.py": """
        import tensorflow as tf

        def data_generator(f_path, vocab):
            with open(f_path) as f:
                for line in f:
                    s, p, o = line.rstrip().split()
                    yield (vocab[s], vocab[p]), vocab[o]

        @tf.function
        def train_step(x, y):
            with tf.GradientTape() as tape:
                loss = loss_fn(y, model(x))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))

        ds = tf.data.Dataset.from_generator(lambda: data_generator("train.txt", vocab), output_types=(
            (tf.int32, tf.int32), tf.int32)).batch(128)
        for x, y in ds:
            train_step(x, y)
        """}, "TFD004", show_all=True)
    assert [f.confidence for f in findings] == [Confidence.POSSIBLE]
    assert any(e.message.startswith("the generator reads a file line by line (`open(f_path)`, line 4, buffered reads)")
               for e in findings[0].evidence), [e.message for e in findings[0].evidence]


def test_a_sum_of_copies_to_python_is_a_host_value():
    """Fast style transfer's loop (check 78) adds `loss.numpy()` into `mean_loss`, then tests `mean_loss` against
    its best: the copy waits for the step, the sum of copies is already a host value. One finding, at the copy."""
    findings = _findings({"train.py": """
        import tensorflow as tf

        @tf.function
        def train_step(batch):
            with tf.GradientTape() as tape:
                loss = loss_fn(model(batch), batch)
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
            return loss

        mean_loss, lowest_loss = 0, float("inf")
        for i, batch in enumerate(dataset):
            loss = train_step(batch)
            mean_loss += loss.numpy()
            mean_loss /= i % 100 + 1
            if lowest_loss - mean_loss > 0.01:
                lowest_loss = mean_loss
        """}, "TFH004", show_all=True)
    assert [f.location.line for f in findings] == [13]
