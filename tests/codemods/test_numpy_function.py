"""PyFuncToNumpyFunction: TF1 py_func -> numpy_function, keeping the arguments and the module's own spelling."""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext, CodemodTest

from advisor.codemods.numpy_function import PyFuncToNumpyFunction


class TestPyFuncToNumpyFunction(CodemodTest):
    TRANSFORM = PyFuncToNumpyFunction

    def test_attribute_keeps_its_receiver(self) -> None:
        before = """
            import tensorflow.compat.v1 as tf
            y = tf.py_func(f, [x], tf.float32, stateful=False, name="decode")
        """
        after = """
            import tensorflow.compat.v1 as tf
            y = tf.numpy_function(f, [x], tf.float32, stateful=False, name="decode")
        """
        self.assertCodemod(before, after, line=2, column=8)

    def test_imported_name_is_spelled_with_tensorflow_and_imports_it(self) -> None:
        before = """
            from tensorflow.compat.v1 import py_func
            y = py_func(f, [x], "float32")
        """
        after = """
            from tensorflow.compat.v1 import py_func
            import tensorflow as tf

            y = tf.numpy_function(f, [x], "float32")
        """
        self.assertCodemod(before, after, line=2, column=5)

    def test_only_the_target_call_changes(self) -> None:
        before = """
            import tensorflow as tf
            a = tf.compat.v1.py_func(f, [x], tf.float32)
            b = tf.compat.v1.py_func(g, [x], tf.float32)
        """
        after = """
            import tensorflow as tf
            a = tf.compat.v1.py_func(f, [x], tf.float32)
            b = tf.compat.v1.numpy_function(g, [x], tf.float32)
        """
        self.assertCodemod(before, after, line=3, column=18)

    def test_second_run_changes_nothing(self) -> None:
        code = "import tensorflow as tf\ny = tf.compat.v1.py_func(f, [x], tf.float32)\n"
        once = PyFuncToNumpyFunction(CodemodContext(), line=2, column=18).transform_module(cst.parse_module(code))
        twice = PyFuncToNumpyFunction(CodemodContext(), line=2, column=18).transform_module(once)
        assert twice.code == once.code
        cst.parse_module(twice.code)
