"""Never rebind a name: codemods spell TensorFlow with the module's own alias (compat.v1 included) or import it under
a free name, and every patch whose result binds a name the module uses to something else is refused, saying why."""

from __future__ import annotations

import importlib
import inspect
import textwrap
from pathlib import Path

import libcst as cst
import pytest
from libcst.codemod import VisitorBasedCodemodCommand
from libcst.codemod.visitors import AddImportsVisitor

from advisor.apply import compose
from advisor.codemods.base import COMPAT_V1_SPELLING
from advisor.engine import FixRefused, analyze_texts, render_fix
from advisor.model import Applicability, Confidence, Finding, FixRef, Location
from advisor.source.facts import ModuleInfo
from advisor.source.names import rebound_names


def dedent(code: str) -> str:
    return textwrap.dedent(code).lstrip("\n")


def _attribute(module: object, dotted: str) -> object:
    for part in dotted.split("."):
        module = getattr(module, part)
    return module


@pytest.mark.parametrize("dotted,compat_v1", COMPAT_V1_SPELLING.items())
def test_each_compat_v1_spelling_names_the_same_api_in_tensorflow(dotted, compat_v1):
    tf = pytest.importorskip("tensorflow")
    v1 = importlib.import_module("tensorflow.compat.v1")
    new, old = _attribute(tf, dotted), _attribute(v1, compat_v1)
    if new is not old and new != old:  # tf.constant and compat.v1's take the same leading parameters
        assert list(inspect.signature(old).parameters)[:len(inspect.signature(new).parameters)] == \
            list(inspect.signature(new).parameters)


@pytest.mark.parametrize("before,after,changed", [
    ("import tensorflow.compat.v1 as tf\nx = tf.to_float(1)\n",
     "import tensorflow.compat.v1 as tf\nimport tensorflow as tf\nx = tf.to_float(1)\n",
     ["`tf` would change from `tensorflow.compat.v1` to `tensorflow`"]),
    ("import tensorflow as tf\nx = tf.zeros(1)\n", "import tensorflow as tf\nimport keras\nx = tf.zeros(1)\n", []),
    ("import keras\nx = keras.Input(1)\n", "x = keras.Input(1)\n",
     ["`keras` would change from `keras` to a local or unbound name"]),
    ("def f(tf):\n    return tf\n", "import tensorflow as tf\ndef f(tf):\n    return tf\n",
     ["`tf` would change from a local or unbound name to `tensorflow`"]),
    ("from a import model\nmodel.fit()\n", "from a import model\ndef model():\n    pass\nmodel.fit()\n",
     ["`model` would change from `a.model` to `a.model` or its definition in this module"]),
    ("x = obj.tf\n", "import tensorflow as tf\nx = obj.tf\n", []),  # an attribute named tf is no use of `tf`
])
def test_rebound_names(before, after, changed):
    assert rebound_names(cst.parse_module(before), cst.parse_module(after)) == changed


class RebindTf(VisitorBasedCodemodCommand):
    """A codemod that adds ``import tensorflow as tf`` whatever the module holds (the bug this file guards)."""

    def __init__(self, context, line: int, column: int) -> None:
        super().__init__(context)

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        AddImportsVisitor.add_needed_import(self.context, "tensorflow", asname="tf")
        return updated_node.with_changes(body=[*updated_node.body, cst.parse_statement("pass\n")])


COMPAT_V1_MODULE = dedent("""
    import tensorflow.compat.v1 as tf

    def parse(record):
        return tf.to_float(tf.parse_single_example(record, {"x": tf.FixedLenFeature([], tf.int64)})["x"])
    """)


def _module(code: str) -> ModuleInfo:
    data = code.encode()
    return ModuleInfo.of(Path("m.py"), Path("/nonexistent/m.py"), cst.parse_module(data), data)


def test_render_fix_refuses_a_patch_that_rebinds_and_says_why():
    fix = FixRef(RebindTf, {"line": 1, "column": 1}, "rebind", Applicability.SAFE)
    with pytest.raises(FixRefused, match="`tf` would change from `tensorflow.compat.v1` to `tensorflow`"):
        render_fix(_module(COMPAT_V1_MODULE), fix, 1)


def test_apply_compose_refuses_fixes_that_rebind():
    fix = FixRef(RebindTf, {"line": 1, "column": 1}, "rebind", Applicability.SAFE)
    finding = Finding("TFD001", "x", Location(Path("m.py"), 4, 5, 4, 9), "m", Confidence.LIKELY, fix=fix)
    code, applied, skipped = compose(_module(COMPAT_V1_MODULE), [finding])
    assert (code, applied) == (COMPAT_V1_MODULE, [])
    assert "would rebind a name (`tf` would change from `tensorflow.compat.v1`" in skipped[0].reason


@pytest.mark.parametrize("repro", ["r8/b.py", "r9/b1.py", "r9/b3.py"])
def test_compat_v1_modules_keep_their_tf(repro):
    """Every patch offered on a compat.v1 input function keeps `tf` meaning tensorflow.compat.v1."""
    code = dedent("""
        import tensorflow.compat.v1 as tf

        def input_fn(pattern, parser, batch_size):
            dataset = tf.data.Dataset.list_files(pattern)
            dataset = dataset.interleave(tf.data.TFRecordDataset)
            dataset = dataset.map(parser).batch(batch_size)
            return dataset

        dataset = input_fn("*.tfrecord", tf.to_float, 8)
        model.fit(dataset)
        """)
    patches = [f.patch for f in analyze_texts({"input.py": code}) if f.patch is not None]
    assert patches
    for patch in patches:
        assert "import tensorflow as tf" not in patch.new_code
        assert rebound_names(cst.parse_module(code), cst.parse_module(patch.new_code)) == []
