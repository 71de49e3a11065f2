"""The tf.data dataflow: which dataset stages reach which consumer, through names, closures, helper functions,
modules, star imports, tuple returns, parameters, ``self`` attributes and dataset collections; pipelines returned to
consumers out of sight; thrown-away stages; the pipeline's tf.data Options."""

from __future__ import annotations

import pytest

from advisor.source.facts import Sink
from advisor.source.index import SourceIndex


def paths(index: SourceIndex) -> set[tuple[tuple[str, ...], str]]:
    """Each source-to-sink pipeline as (its operations, its sink's role)."""
    return {(tuple(p.ops()), p.sink.role) for p in index.pipelines()}


def test_reassigned_names_carry_the_dataset_from_stage_to_stage(index_of):
    index = index_of(code="""
        import tensorflow as tf
        ds = tf.data.Dataset.from_tensor_slices((x, y))
        ds = ds.shuffle(1024)
        ds = ds.map(augment).batch(64)
        model.fit(ds, epochs=3)
        """)
    assert paths(index) == {(("from_tensor_slices", "shuffle", "map", "batch"), "train")}
    (pipeline,) = index.pipelines()
    assert [pipeline.sink.module.location(s.anchor).line for s in pipeline.stages] == [3, 4, 5, 5]
    assert pipeline.last_stage.op == "batch" and pipeline.stages[0].is_source


def test_a_name_rebound_to_something_else_is_no_longer_the_dataset(index_of):
    index = index_of(code="""
        import tensorflow as tf
        ds = tf.data.Dataset.range(8).batch(2)
        ds = len(names)
        for batch in ds:
            pass
        """)
    assert paths(index) == set()


def test_names_are_looked_up_in_the_function_then_the_module(index_of):
    index = index_of(code="""
        import tensorflow as tf
        ds = tf.data.Dataset.range(3)

        def shadowing():
            ds = tf.data.TFRecordDataset(files).batch(1)
            return ds

        def reading_the_module():
            for batch in ds.batch(2):
                pass

        model.fit(shadowing())
        """)
    assert paths(index) == {(("TFRecordDataset", "batch"), "train"), (("range", "batch"), "loop")}


@pytest.mark.parametrize("imports, call", [
    ("from pkg.data import load", "load(files)"),
    ("from pkg import data", "data.load(files)"),
    ("import pkg.data", "pkg.data.load(files)"),
    ("import pkg.data as d", "d.load(files)"),
    ("from .pkg.data import load", "load(files)"),
])
def test_a_dataset_returned_by_a_helper_in_another_module_reaches_its_consumer(index_of, imports, call):
    index = index_of({
        "pkg/__init__.py": "",
        "pkg/data.py": """
            import tensorflow as tf

            def load(files):
                ds = tf.data.TFRecordDataset(files)
                ds = ds.shuffle(1000)
                return ds.batch(128)
            """,
        "train.py": f"{imports}\nmodel.fit({call}, epochs=3)\n",
    })
    assert paths(index) == {(("TFRecordDataset", "shuffle", "batch"), "train")}
    (pipeline,) = index.pipelines()
    assert pipeline.last_stage.module.path.as_posix() == "pkg/data.py"
    assert pipeline.sink.module.path.as_posix() == "train.py"


def test_tuple_returns_are_followed_element_by_element(index_of):
    index = index_of({
        "data.py": """
            import tensorflow as tf

            def make_datasets():
                train = tf.data.Dataset.range(100).shuffle(100).batch(10)
                test = tf.data.Dataset.range(20).batch(10).prefetch(1)
                return train, test
            """,
        "train.py": """
            from data import make_datasets
            train_ds, test_ds = make_datasets()
            model.fit(train_ds, validation_data=test_ds)
            """,
    })
    assert paths(index) == {(("range", "shuffle", "batch"), "train"), (("range", "batch", "prefetch"), "validation")}


@pytest.mark.parametrize("combine", ["tf.data.Dataset.zip((images, labels))",
                                     "tf.data.Dataset.zip({'image': images, 'label': labels})",
                                     "tf.data.Dataset.sample_from_datasets([images, labels])"])
def test_the_datasets_a_zip_or_a_sample_combines_flow_into_it(index_of, combine):
    index = index_of(code=f"""
        import tensorflow as tf

        def get_dataset(paths, labels):
            images = tf.data.Dataset.from_tensor_slices(paths).map(load_image)
            labels = tf.data.Dataset.from_tensor_slices(labels)
            return {combine}, len(paths)

        train, count = get_dataset(paths, labels)
        for x, y in train.shuffle(count).batch(32):
            train_step(x, y)
        """)
    op = combine.split("(")[0].rsplit(".", 1)[-1]
    assert paths(index) == {(("from_tensor_slices", "map", op, "shuffle", "batch"), "loop"),
                            (("from_tensor_slices", op, "shuffle", "batch"), "loop")}


def test_datasets_passed_to_a_helper_flow_through_its_parameters_by_position_and_keyword(index_of):
    index = index_of({
        "augment.py": """
            def add_augmentation(ds, fn, size=32):
                return ds.map(fn).batch(size)
            """,
        "train.py": """
            import tensorflow as tf
            import augment
            files = tf.data.Dataset.list_files("*.png")
            by_position = augment.add_augmentation(files, lambda x: x)
            by_keyword = augment.add_augmentation(fn=decode, ds=tf.data.TFRecordDataset(names).shuffle(8))
            for batch in by_position:
                pass
            model.fit(by_keyword)
            """,
    })
    assert {(("list_files", "map", "batch"), "loop"), (("TFRecordDataset", "shuffle", "map", "batch"), "train")} \
        <= paths(index)


@pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
    "the dataflow is context-insensitive: a helper applied to two datasets joins them at its parameter, so "
    "each reaches the other's consumer too"))
def test_a_helper_applied_to_two_datasets_keeps_them_apart(index_of):
    index = index_of({
        "augment.py": "def add(ds):\n    return ds.map(f).batch(2)\n",
        "train.py": """
            import tensorflow as tf
            from augment import add
            train = add(tf.data.TFRecordDataset(train_files))
            val = add(tf.data.Dataset.range(5))
            model.fit(train, validation_data=val)
            """,
    })
    assert paths(index) == {(("TFRecordDataset", "map", "batch"), "train"), (("range", "map", "batch"), "validation")}


@pytest.mark.parametrize("consumer, role", [
    ("model.fit(ds)", "train"),
    ("model.fit(x=ds, epochs=2)", "train"),
    ("model.fit(other, validation_data=ds)", "validation"),
    ("model.evaluate(ds)", "evaluate"),
    ("model.predict(ds)", "predict"),
    ("for batch in ds:\n    pass", "loop"),
    ("for step, batch in enumerate(ds):\n    pass", "loop"),
    ("for batch, label in zip(ds, labels):\n    pass", "loop"),
    ("batches = iter(ds)", "iter"),
    ("dist = strategy.experimental_distribute_dataset(ds)", "distribute"),
    ("dist = strategy.experimental_distribute_dataset(ds)\nfor batch in dist:\n    pass", "loop"),
])
def test_every_kind_of_consumer_is_a_sink_with_its_role(index_of, consumer, role):
    index = index_of(code=f"import tensorflow as tf\nds = tf.data.Dataset.range(8).batch(2)\n{consumer}\n")
    assert paths(index) == {(("range", "batch"), role)}


@pytest.mark.parametrize("role, training", [("train", True), ("loop", True), ("iter", True), ("distribute", True),
                                            ("validation", False), ("evaluate", False), ("predict", False)])
def test_training_sinks(role: str, training: bool):
    assert Sink(role, None, None).is_training is training


def test_a_transformation_whose_result_is_thrown_away_is_marked_and_left_out_of_the_pipeline(index_of):
    index = index_of(code="""
        import tensorflow as tf
        ds = tf.data.Dataset.range(8).batch(2)
        ds.prefetch(2)
        model.fit(ds)
        """)
    assert paths(index) == {(("range", "batch"), "train")}
    (pipeline,) = index.pipelines()
    (discarded,) = index.discarded_after(pipeline.last_stage)
    assert discarded.op == "prefetch" and discarded.discarded
    assert not any(s.discarded for s in pipeline.stages)


def test_both_inputs_of_concatenate_flow_into_it(index_of):
    index = index_of(code="""
        import tensorflow as tf
        a = tf.data.Dataset.range(3)
        b = tf.data.TFRecordDataset(files).map(parse)
        for batch in a.concatenate(b).batch(2):
            pass
        """)
    assert paths(index) == {(("range", "concatenate", "batch"), "loop"),
                            (("TFRecordDataset", "map", "concatenate", "batch"), "loop")}


def test_ambiguous_methods_on_values_not_known_to_be_datasets_are_not_stages(index_of):
    # `.map`/`.filter`/`.take` exist on pandas, lists of futures...; `.batch`/`.prefetch` are tf.data's alone.
    index = index_of(code="""
        import tensorflow as tf
        frame = read_table(path)
        labels = frame.map(encode)
        rows = unknown.filter(keep)
        for batch in make_batches().batch(32).prefetch(2):
            pass
        """)
    assert {s.op for s in index.stages()} == {"batch", "prefetch"}
    assert paths(index) == {(("batch", "prefetch"), "loop")}


def test_ambiguous_methods_are_stages_when_their_result_flows_into_a_dataset_method(index_of):
    # rasbt's CelebA pipeline starts from a TFDS builder's `as_dataset()`, unknown to advisor: `shuffle` after the
    # `take` and `map` says they were tf.data's.
    index = index_of(code="""
        import tensorflow_datasets as tfds
        celeba = builder.as_dataset(shuffle_files=False)
        train = celeba["train"].take(16000)
        model.fit(train.map(preprocess).shuffle(1000).batch(32))
        """)
    assert paths(index) == {(("take", "map", "shuffle", "batch"), "train")}


def test_another_data_librarys_datasets_are_not_tf_data_whatever_their_methods(index_of):
    # Hugging Face `datasets` has `map` and `shuffle` too: tokenized, shuffled, then handed to TensorFlow.
    index = index_of({"datasets/dataset_factory.py": """
        import tensorflow as tf
        def get_dataset(name):
            return tf.data.TFRecordDataset(name)
        """, "train.py": """
        import tensorflow as tf
        from datasets import load_dataset
        from datasets import dataset_factory
        emotions = load_dataset("emotion")
        train = emotions.map(tokenize, batched=True)["train"].shuffle(seed=42)
        model.fit(train.to_tf_dataset(batch_size=8), epochs=3)
        model.fit(dataset_factory.get_dataset("flowers").map(decode).shuffle(64).batch(32))
        """})
    assert paths(index) == {(("TFRecordDataset", "map", "shuffle", "batch"), "train")}
    assert sorted((s.op, s.module.location(s.node).line) for s in index.stages() if s.module.name == "train") == [
        ("batch", 8), ("map", 8), ("shuffle", 8)]


def test_a_map_on_a_value_either_branch_binds_is_a_stage_only_when_a_dataset_flows_in(index_of):
    # pandas again (a DeepFM data parser): `frame` is one of two frames, `frame[col].map(vocabulary)` is pandas'.
    index = index_of(code="""
        import tensorflow as tf
        if path is None:
            frame = given.copy()
        else:
            frame = read_csv(path)
        frame[col] = frame[col].map(vocabulary)
        if cached:
            ds = tf.data.Dataset.load(path)
        else:
            ds = tf.data.TFRecordDataset(files)
        model.fit(ds.map(parse).batch(32))
        """)
    assert paths(index) == {(("load", "map", "batch"), "train"), (("TFRecordDataset", "map", "batch"), "train")}
    assert [s.module.location(s.node).line for s in index.stages() if s.op == "map"] == [12]


def test_tf_data_options_apply_to_the_pipeline_even_when_set_after_with_options(index_of):
    index = index_of(code="""
        import tensorflow as tf
        options = tf.data.Options()
        ds = tf.data.Dataset.range(10).map(f).with_options(options).batch(2)
        options.experimental_optimization.map_parallelization = False
        options.threading.private_threadpool_size = 4
        model.fit(ds)
        """)
    (pipeline,) = index.pipelines()
    assert pipeline.options == {"experimental_optimization.map_parallelization": False,
                                "threading.private_threadpool_size": 4}
    assert pipeline.runtime_optimization("map_parallelization") is False
    assert pipeline.runtime_optimization("inject_prefetch") is None  # TensorFlow's default stays in force
    assert [s.op for s in pipeline.working_stages] == ["range", "map", "batch"]


def test_turning_the_default_optimizations_off_turns_each_of_them_off(index_of):
    index = index_of(code="""
        import tensorflow as tf
        options = tf.data.Options()
        options.experimental_optimization.apply_default_optimizations = False
        options.experimental_optimization.inject_prefetch = True
        model.fit(tf.data.Dataset.range(10).map(f).batch(2).with_options(options))
        """)
    (pipeline,) = index.pipelines()
    assert pipeline.runtime_optimization("map_parallelization") is False
    assert pipeline.runtime_optimization("inject_prefetch") is True  # an explicit setting wins


def test_a_pipeline_without_options_leaves_every_optimization_to_tensorflow(index_of):
    (pipeline,) = index_of(code="import tensorflow as tf\nmodel.fit(tf.data.Dataset.range(4).batch(2))\n").pipelines()
    assert pipeline.options == {} and pipeline.runtime_optimization("map_parallelization") is None


def test_options_built_inside_the_input_function_apply(index_of):
    index = index_of(code="""
        import tensorflow as tf

        def make():
            options = tf.data.Options()
            options.experimental_optimization.apply_default_optimizations = False
            return tf.data.Dataset.range(3).map(f).batch(2).with_options(options)

        model.fit(make())
        """)
    (pipeline,) = index.pipelines()
    assert pipeline.runtime_optimization("map_parallelization") is False


def test_a_map_on_a_dataset_a_helper_returned_is_a_stage(index_of):
    # `.map` alone does not make `load()` a dataset (pandas has one too): linking shows that load returns one.
    index = index_of({
        "data.py": "import tensorflow as tf\n\ndef load():\n    return tf.data.TFRecordDataset(files)\n",
        "train.py": """
            from data import load
            ds = load()
            ds = ds.map(augment)
            model.fit(ds.batch(32))
            """,
    })
    assert paths(index) == {(("TFRecordDataset", "map", "batch"), "train")}


def test_a_closure_consumes_its_enclosing_functions_dataset(index_of):
    index = index_of(code="""
        import tensorflow as tf

        def main():
            ds = tf.data.Dataset.range(10).batch(2)

            def run_epoch():
                for batch in ds:
                    pass

            run_epoch()
        """)
    assert paths(index) == {(("range", "batch"), "loop")}


def test_a_compat_v1_pipeline_is_a_pipeline(index_of):
    # shared/repros r8, r9: TF1 input functions through tensorflow.compat.v1.
    index = index_of(code="""
        import tensorflow.compat.v1 as tf
        ds = tf.data.TFRecordDataset(files).map(parse).batch(32)
        for batch in ds:
            pass
        """)
    assert paths(index) == {(("TFRecordDataset", "map", "batch"), "loop")}


def test_a_pipeline_returned_to_no_visible_caller_ends_at_its_return(index_of):
    # An Estimator's input functions: the consumer is outside the repo.
    index = index_of(code="""
        import tensorflow as tf

        def train_input_fn():
            return tf.data.TFRecordDataset(files).map(parse).batch(32)

        def eval_input_fn():
            return tf.data.TFRecordDataset(files).batch(32)

        def make():
            return tf.data.Dataset.range(4).batch(2)

        model.fit(make())
        """)
    assert paths(index) == {(("TFRecordDataset", "map", "batch"), "returned"),
                            (("TFRecordDataset", "batch"), "returned_eval"), (("range", "batch"), "train")}
    returned = {p.sink.role: p.sink for p in index.pipelines()}
    assert returned["returned"].function == "train_input_fn" and returned["returned"].is_training
    assert returned["returned_eval"].function == "eval_input_fn" and not returned["returned_eval"].is_training


_SHUFFLED_WHEN_ASKED = """
import functools
import tensorflow as tf

def input_fn(files, params, shuffle_and_repeat=False):
    dataset = tf.data.TFRecordDataset(files).batch(params["batch_size"])
    if TEST:
        dataset = dataset.shuffle(1024).repeat()
    return dataset

CALLS
"""
_SHUFFLED = ("TFRecordDataset", "batch", "shuffle", "repeat")


@pytest.mark.parametrize("test, calls, expected", [
    # partials handed to an Estimator, one passing the flag, one leaving the default
    ("shuffle_and_repeat", "estimator.train(functools.partial(input_fn, files, params, shuffle_and_repeat=True))\n"
     "estimator.evaluate(functools.partial(input_fn, test_files, params))",
     {(_SHUFFLED, "train"), (_SHUFFLED[:2], "evaluate")}),
    # direct calls, by position; a negated test
    ("not shuffle_and_repeat", "model.fit(input_fn(files, params, False))\nmodel.evaluate(input_fn(files, params, 1))",
     {(_SHUFFLED, "train"), (_SHUFFLED[:2], "evaluate")}),
    # a flag no literal settles keeps both branches
    ("shuffle_and_repeat", "model.fit(input_fn(files, params, args.shuffle))",
     {(_SHUFFLED, "train"), (_SHUFFLED[:2], "train")}),
])
def test_a_branch_on_a_parameter_takes_the_value_each_call_passes(index_of, test, calls, expected):
    """leotmc/text_classification's `input_fn` shuffles and repeats only when asked: the training partial asks, the
    evaluation one leaves the default, so the unshuffled pipeline ending at `batch` is evaluation's alone."""
    index = index_of(code=_SHUFFLED_WHEN_ASKED.replace("TEST", test).replace("CALLS", calls))
    assert paths(index) == expected


def test_a_parameter_rebound_before_its_test_decides_no_branch(index_of):
    index = index_of(code="""
        import tensorflow as tf

        def input_fn(files, training=False):
            training = training or files.endswith("train")
            dataset = tf.data.TFRecordDataset(files)
            if training:
                dataset = dataset.repeat()
            return dataset

        model.fit(input_fn(files))
        """)
    assert paths(index) == {(("TFRecordDataset", "repeat"), "train"), (("TFRecordDataset",), "train")}


_HELD_BY_A_PROPERTY = """
import tensorflow as tf

class Source:
    def __init__(self, records):
        self._records = records

    @property
    def records(self):
        return self._records
READER
def make(files):
    return Source(tf.data.TFRecordDataset(files))
"""


@pytest.mark.parametrize("reader, ends", [
    ("\n    def batched(self):\n        return self.records.batch(32).prefetch(2)\n", set()),
    ("", {(("TFRecordDataset",), "returned")}),
])
def test_a_pipeline_a_property_holds_ends_only_where_no_code_reads_the_property(index_of, reader, ends):
    """self-attention-tacotron wraps its record streams in a `DatasetSource` whose `records` property returns them
    to methods that batch and prefetch them: the property's return is no end where the repo reads the property."""
    index = index_of(code=_HELD_BY_A_PROPERTY.replace("READER", reader))
    assert {(stages, role) for stages, role in paths(index) if stages == ("TFRecordDataset",)} == ends


def test_an_element_of_a_dataset_collection_is_that_dataset(index_of):
    index = index_of(code="""
        import tensorflow_datasets as tfds
        datasets = tfds.load("mnist")
        model.fit(datasets["train"].map(normalize).batch(32))
        """)
    assert paths(index) == {(("load", "map", "batch"), "train")}


def test_a_dict_literal_of_datasets_keeps_each_key_its_own_dataset(index_of):
    """FCOS' trainer keeps its two pipelines in `batches = {"train": ..., "test": ...}` and loops over
    `tqdm(batches["train"])`: each key reads its own dataset; a key no source line spells reads any of them."""
    index = index_of(code="""
        import tensorflow as tf
        from tqdm import tqdm
        batches = {"train": tf.data.TFRecordDataset(files).map(parse).batch(8),
                   "test": tf.data.Dataset.range(4).batch(2)}
        for x, y in tqdm(batches["train"]):
            train_step(x, y)
        for x in batches["test"]:
            print(x)
        for x in batches[split]:
            print(x)
        """)
    loops = {(tuple(p.ops()), p.sink.module.location(p.sink.node).line) for p in index.pipelines()}
    assert loops == {(("TFRecordDataset", "map", "batch"), 6), (("range", "batch"), 8),
                     (("TFRecordDataset", "map", "batch"), 10), (("range", "batch"), 10)}


def test_datasets_stored_into_an_empty_dict_flow_out_of_its_entries(index_of):
    """A keyword-spotting project fills `datasets = {}` in a loop over its splits (`datasets[split] = ds`) and
    returns `datasets["train"]`; a recommender stores its inputs under constants (`_zip[FEATURES] = ds`) and zips
    the dict: what goes in under a key no string spells reaches every read, one under a string its own."""
    index = index_of(code="""
        import tensorflow as tf

        def get_datasets():
            datasets = {}
            for split in ("train", "test"):
                datasets[split] = tf.data.TFRecordDataset(split).map(parse)
            return datasets["train"], datasets["test"]

        def input_fn():
            _zip = {}
            _zip["points"] = tf.data.TextLineDataset(table).map(decode).batch(64)
            return tf.data.Dataset.zip(_zip)

        train, test = get_datasets()
        model.fit(train.batch(32), validation_data=test.batch(32))
        """)
    assert paths(index) == {(("TFRecordDataset", "map", "batch"), "train"),
                            (("TFRecordDataset", "map", "batch"), "validation"),
                            (("TextLineDataset", "map", "batch", "zip"), "returned")}


@pytest.mark.parametrize("builder, role", [
    ("predict_input_fn_builder", "returned_eval"),
    ("make_input_fn", "returned"),
    ("train_and_eval_input_fns", "returned"),
])
def test_an_input_function_a_builder_returns_takes_the_builder_s_word_for_its_data(index_of, builder, role):
    """deep-match's `predict_input_fn_builder(table)` returns an `input_fn` the Estimator's `predict` gets: that
    input is for evaluation, as an `eval_input_fn`'s is; a builder naming neither, or both, says nothing."""
    index = index_of(code=f"""
        import tensorflow as tf

        def {builder}(table):
            def input_fn():
                return tf.data.TextLineDataset([table]).map(decode).batch(256)
            return input_fn
        """)
    assert paths(index) == {(("TextLineDataset", "map", "batch"), role)}


def test_a_dataset_kept_on_self_flows_from_the_constructor_to_the_methods(index_of):
    index = index_of({
        "trainer.py": """
            class Trainer:
                def __init__(self, model, dataset):
                    self.model = model
                    self.dataset = dataset.prefetch(2)

                def train(self):
                    for batch in self.dataset:
                        self.model.train_on_batch(batch)
            """,
        "train.py": """
            import tensorflow as tf
            from trainer import Trainer
            Trainer(model, tf.data.Dataset.range(8).batch(2)).train()
            """,
    })
    assert paths(index) == {(("range", "batch", "prefetch"), "loop")}


@pytest.mark.parametrize("consumer", ["ds.make_one_shot_iterator()", "tf.data.make_one_shot_iterator(ds)",
                                      "ds.make_initializable_iterator()"])
def test_tf1_iterators_consume_the_dataset(index_of, consumer: str):
    index = index_of(code=f"""
        import tensorflow.compat.v1 as tf
        ds = tf.data.TFRecordDataset(files).batch(2)
        iterator = {consumer}
        """)
    assert paths(index) == {(("TFRecordDataset", "batch"), "iter")}


def test_module_level_datasets_reach_star_importers_and_functions_defined_above_them(index_of):
    index = index_of({
        "data.py": "import tensorflow as tf\ntrain_ds = tf.data.Dataset.range(8).batch(2)\n",
        "other.py": "import tensorflow as tf\ntrain_ds = tf.data.TFRecordDataset(files).batch(2)\n",
        "train.py": """
            import tensorflow as tf
            from data import *

            def main():
                model.fit(train_ds)
                for batch in val_ds:
                    pass

            val_ds = tf.data.Dataset.range(4).batch(4)
            """,
    })
    assert paths(index) == {(("range", "batch"), "train"), (("range", "batch"), "loop")}
    train, loop = sorted(index.pipelines(), key=lambda p: p.sink.role, reverse=True)
    assert train.stages[0].module.name == "data" and loop.stages[0].module.name == "train"


def test_a_map_on_a_parameter_not_known_to_be_a_dataset_is_no_stage(index_of):
    index = index_of(code="""
        import pandas as pd
        import tensorflow as tf

        def encode_labels(series, vocabulary):
            return series.map(vocabulary.get)
        """)
    assert list(index.stages()) == [] and paths(index) == set()


def test_a_source_a_subclass_override_returns_continues_in_the_base_class_input_function(index_of):
    index = index_of({
        "imagenet_input.py": """
            import tensorflow as tf

            class ImageNetInput:
                def input_fn(self, params):
                    ds = self.make_source_dataset()
                    return ds.map(self.parse, num_parallel_calls=8).batch(64).prefetch(tf.data.AUTOTUNE)

                def make_source_dataset(self):
                    return

            class FileInput(ImageNetInput):
                def make_source_dataset(self):
                    return tf.data.TFRecordDataset(tf.io.gfile.glob("train-*")).shuffle(1024)
            """,
        "main.py": """
            import imagenet_input
            estimator.train(input_fn=imagenet_input.FileInput().input_fn)
            """,
    })
    ends = {(p.sink.role, p.ops()[-1]) for p in index.pipelines()}
    assert ends == {("train", "prefetch")}  # not a "returned" pipeline ending at the shuffle
