"""ModuleNames: what a dotted name in a module refers to, through its imports, in the canonical spelling rules use."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from advisor.source.names import ModuleNames, canonical, is_tf2_api


def names_of(code: str, module: str = "train", package: str = "") -> ModuleNames:
    return ModuleNames.of(cst.parse_module(textwrap.dedent(code)), module, package)


def resolve(names: ModuleNames, expression: str) -> frozenset[str]:
    return names.resolve(cst.parse_expression(expression))


@pytest.mark.parametrize(("imports", "expression", "expected"), [
    ("import tensorflow as tf", "tf.data.Dataset.range", "tensorflow.data.Dataset.range"),
    ("import tensorflow", "tensorflow.data.TFRecordDataset", "tensorflow.data.TFRecordDataset"),
    ("import tensorflow.keras", "tensorflow.keras.layers.Dense", "keras.layers.Dense"),  # binds `tensorflow`
    ("import tensorflow.keras as tfk", "tfk.layers.Dense", "keras.layers.Dense"),
    ("from tensorflow import keras", "keras.layers.Dense", "keras.layers.Dense"),
    ("from tensorflow.keras import layers as L", "L.Dense", "keras.layers.Dense"),
    ("from tensorflow.keras.layers import Dense", "Dense", "keras.layers.Dense"),
    ("import tf_keras as keras", "keras.callbacks.Callback", "keras.callbacks.Callback"),
    ("from keras.src.layers import Dense", "Dense", "keras.layers.Dense"),
    ("from tensorflow.python.keras import layers", "layers.Conv2D", "keras.layers.Conv2D"),
    ("import tensorflow.compat.v2 as tf", "tf.function", "tensorflow.function"),
    ("import tensorflow as tf", "tf.compat.v2.data.Dataset", "tensorflow.data.Dataset"),
    ("import tensorflow.compat.v2 as tf", "tf.keras.Model", "keras.Model"),  # through two aliases
    ("import tensorflow.compat.v1 as tf", "tf.keras.layers.Conv2D", "keras.layers.Conv2D"),
    ("from tensorflow.compat import v2", "v2", "tensorflow"),
    ("import tensorflow as tf", "tf.data.experimental.AUTOTUNE", "tensorflow.data.AUTOTUNE"),
    ("import tensorflow as tf", "tf.keras", "keras"),
    ("import numpy as np", "np.save", "numpy.save"),
    ("import matplotlib.pyplot as plt", "plt.savefig", "matplotlib.pyplot.savefig"),
])
def test_imports_and_aliases_resolve_to_one_canonical_name(imports: str, expression: str, expected: str):
    assert resolve(names_of(imports), expression) == {expected}


@pytest.mark.parametrize(("module", "package", "imports", "expected"), [
    ("pkg.sub.train", "pkg.sub", "from . import data", "pkg.sub.data.load"),
    ("pkg.sub.train", "pkg.sub", "from .data import load", "pkg.sub.data.load"),
    ("pkg.sub.train", "pkg.sub", "from ..data import load", "pkg.data.load"),
    ("pkg.sub.train", "pkg.sub", "from .. import data", "pkg.data.load"),
    ("pkg", "pkg", "from .data import load", "pkg.data.load"),  # in pkg/__init__.py, `.` is pkg itself
    ("train", "", "from .data import load", "data.load"),  # a top-level script: the repo root is the package
])
def test_relative_imports_resolve_against_the_module_package(module: str, package: str, imports: str,
                                                              expected: str):
    names = names_of(imports, module, package)
    expression = "load" if "import load" in imports else "data.load"
    assert resolve(names, expression) == {expected}


def test_module_level_definitions_resolve_to_the_module_and_builtins_to_builtins():
    names = names_of("""
        import tensorflow as tf
        BATCH, (WIDTH, DEPTH) = 32, (8, 2)
        def make_dataset(): ...
        class Trainer: ...
        def main():
            local_helper = 1
        """, module="pkg.train", package="pkg")
    assert resolve(names, "make_dataset") == {"pkg.train.make_dataset"}
    assert resolve(names, "Trainer.fit") == {"pkg.train.Trainer.fit"}
    assert resolve(names, "WIDTH") == {"pkg.train.WIDTH"}
    assert resolve(names, "print") == {"builtins.print"}
    assert resolve(names, "local_helper") == frozenset()  # not module level


def test_imports_inside_functions_count():
    names = names_of("""
        def build():
            import tensorflow as tf
            return tf.keras.Sequential()
        """)
    assert resolve(names, "tf.keras.Sequential") == {"keras.Sequential"}


def test_an_import_shadows_a_builtin_of_the_same_name():
    assert resolve(names_of("from rich import print"), "print") == {"rich.print"}


def test_unknown_names_and_expressions_that_are_not_names_resolve_to_nothing():
    names = names_of("import tensorflow as tf")
    assert resolve(names, "model.fit") == frozenset()
    assert resolve(names, "tf_data[0]") == frozenset()
    assert names.resolve(cst.parse_expression("'tf'")) == frozenset()


def test_a_name_only_a_star_import_can_bind_may_come_from_each_star_imported_module():
    # Which module defines it is known only across modules: the index and the dataflow settle it.
    names = names_of("""
        from tensorflow.keras.layers import *
        from .common import *
        import tensorflow as tf
        """, module="pkg.train", package="pkg")
    assert resolve(names, "Dense") == {"keras.layers.Dense", "pkg.common.Dense"}
    assert resolve(names, "tf.function") == {"tensorflow.function"}  # an explicit binding wins
    assert resolve(names, "len") == {"builtins.len"}
    assert resolve(names_of("import os"), "Dense") == frozenset()


def test_compat_v1_apis_resolve_like_tensorflow():
    # TF1 code through compat.v1 uses the same tf.data, py_func and function APIs the rules reason about.
    names = names_of("import tensorflow.compat.v1 as tf")
    assert resolve(names, "tf.data.TFRecordDataset") == {"tensorflow.data.TFRecordDataset"}
    assert resolve(names, "tf.py_func") == {"tensorflow.py_func"}


def test_self_methods_resolve_to_the_enclosing_class_method():
    names = names_of("class Trainer: ...", module="pkg.trainer", package="pkg")
    assert names.resolve(cst.parse_expression("self.step"), "pkg.trainer.Trainer") == {"pkg.trainer.Trainer.step"}
    assert names.resolve(cst.parse_expression("cls.build"), "pkg.trainer.Trainer") == {"pkg.trainer.Trainer.build"}
    assert names.resolve(cst.parse_expression("self.model.fit"), "pkg.trainer.Trainer") == frozenset()
    assert names.resolve(cst.parse_expression("self.step")) == frozenset()  # outside a class


def test_canonical_leaves_names_outside_the_aliased_apis_alone():
    assert canonical("tensorflow_datasets.load") == "tensorflow_datasets.load"
    assert canonical("kerastuner.Hyperband") == "kerastuner.Hyperband"  # a prefix of a word is not an alias
    assert canonical("tensorflow.keras") == "keras"


@pytest.mark.parametrize(("imported", "api", "expected"), [
    ("tensorflow", "tensorflow", True),
    ("tensorflow.compat.v2", "tensorflow", True),
    ("tensorflow.compat.v1", "tensorflow", False),  # TF1's names: `data.experimental.AUTOTUNE`
    ("tensorflow.keras", "keras", True),
    ("tensorflow.compat.v1.keras", "keras", False),
])
def test_tf2_apis_are_told_from_tf1_ones_reached_through_compat_v1(imported: str, api: str, expected: bool):
    assert is_tf2_api(imported, api) is expected
