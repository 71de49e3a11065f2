"""The tf.data codemods on their own: exact output, the output parses, and a second run changes nothing."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest
from libcst.codemod import CodemodContext, SkipFile

from advisor.codemods.append_prefetch import AppendPrefetch
from advisor.codemods.parallel_map import AddNumParallelCalls


def run(codemod: type, code: str, line: int, column: int) -> str:
    return codemod(CodemodContext(), line=line, column=column).transform_module(cst.parse_module(code)).code


def dedent(code: str) -> str:
    return textwrap.dedent(code).lstrip("\n")


CASES = [
    pytest.param(AppendPrefetch, """
        import tensorflow as tf
        ds = (
            tf.data.Dataset.range(8)
            .map(f)
            .batch(2)
        )
        """, 5, 6, """
        import tensorflow as tf
        ds = (
            tf.data.Dataset.range(8)
            .map(f)
            .batch(2)
            .prefetch(tf.data.AUTOTUNE)
        )
        """, id="prefetch-keeps-one-stage-per-line"),
    pytest.param(AppendPrefetch, """
        import tensorflow
        ds = tensorflow.data.TFRecordDataset(files)
        """, 2, 22, """
        import tensorflow
        ds = tensorflow.data.TFRecordDataset(files).prefetch(tensorflow.data.AUTOTUNE)
        """, id="prefetch-on-a-source-with-the-unaliased-module"),
    pytest.param(AddNumParallelCalls, """
        import tensorflow as tf
        ds = ds.map(
            parse,
            deterministic=False,
        )
        """, 2, 9, """
        import tensorflow as tf
        ds = ds.map(
            parse,
            deterministic=False,
            num_parallel_calls=tf.data.AUTOTUNE,
        )
        """, id="parallel-calls-keeps-one-argument-per-line"),
    pytest.param(AddNumParallelCalls, """
        import tensorflow as tf
        ds = ds.map(parse, 1)
        """, 2, 9, """
        import tensorflow as tf
        ds = ds.map(parse, tf.data.AUTOTUNE)
        """, id="positional-literal-replaced"),
    pytest.param(AddNumParallelCalls, """
        from keras import layers
        ds = ds.map(parse).map(other)
        """, 2, 20, """
        from keras import layers
        import tensorflow as tf

        ds = ds.map(parse).map(other, num_parallel_calls=tf.data.AUTOTUNE)
        """, id="only-the-targeted-call-and-import-added"),
    pytest.param(AddNumParallelCalls, """
        import tensorflow as tf
        ds = ds.map(
            parse
        )
        """, 2, 9, """
        import tensorflow as tf
        ds = ds.map(
            parse,
            num_parallel_calls=tf.data.AUTOTUNE
        )
        """, id="one-argument-per-line-without-trailing-comma"),
    pytest.param(AddNumParallelCalls, """
        import tensorflow as tf
        def make(ds):
            return ds.map(parse,
                          deterministic=False)
        """, 3, 15, """
        import tensorflow as tf
        def make(ds):
            return ds.map(parse,
                          deterministic=False,
                          num_parallel_calls=tf.data.AUTOTUNE)
        """, id="hanging-indent-aligned-with-the-parenthesis"),
    pytest.param(AddNumParallelCalls, """
        import tensorflow as tf
        ds = ds.map(
            parse,  # the parser
        )
        ds = ds.map(
            parse  # no trailing comma
        )
        """, 2, 9, """
        import tensorflow as tf
        ds = ds.map(
            parse,  # the parser
            num_parallel_calls=tf.data.AUTOTUNE,
        )
        ds = ds.map(
            parse  # no trailing comma
        )
        """, id="a-comment-stays-on-its-line"),
    pytest.param(AddNumParallelCalls, """
        import tensorflow as tf
        ds = ds.map(
            parse  # no trailing comma
        )
        """, 2, 9, """
        import tensorflow as tf
        ds = ds.map(
            parse,  # no trailing comma
            num_parallel_calls=tf.data.AUTOTUNE
        )
        """, id="a-comment-stays-on-its-line-without-trailing-comma"),
    pytest.param(AddNumParallelCalls, """
        import tensorflow as tf
        ds = ds.map(parse,)
        """, 2, 9, """
        import tensorflow as tf
        ds = ds.map(parse, num_parallel_calls=tf.data.AUTOTUNE,)
        """, id="one-line-trailing-comma-kept"),
    pytest.param(AddNumParallelCalls, """
        import tensorflow.compat.v1 as tf
        ds = tf.data.TFRecordDataset(files).map(parse)
        """, 2, 37, """
        import tensorflow.compat.v1 as tf
        ds = tf.data.TFRecordDataset(files).map(parse, num_parallel_calls=tf.data.experimental.AUTOTUNE)
        """, id="compat-v1-alias-kept"),
    pytest.param(AppendPrefetch, """
        from tensorflow.compat import v1 as tf
        ds = tf.data.TFRecordDataset(files)
        """, 2, 14, """
        from tensorflow.compat import v1 as tf
        ds = tf.data.TFRecordDataset(files).prefetch(tf.data.experimental.AUTOTUNE)
        """, id="compat-v1-from-import-alias-kept"),
    pytest.param(AppendPrefetch, """
        from tensorflow import data

        def pipeline(tf):
            return data.TFRecordDataset(tf.files)
        """, 4, 17, """
        from tensorflow import data
        import tensorflow

        def pipeline(tf):
            return data.TFRecordDataset(tf.files).prefetch(tensorflow.data.AUTOTUNE)
        """, id="import-under-a-free-name"),
    pytest.param(AppendPrefetch, """
        from tensorflow import data

        def pipeline():
            import tensorflow as tf
            return data.TFRecordDataset(files)
        """, 5, 17, """
        from tensorflow import data
        import tensorflow

        def pipeline():
            import tensorflow as tf
            return data.TFRecordDataset(files).prefetch(tensorflow.data.AUTOTUNE)
        """, id="a-function-level-alias-is-not-visible-elsewhere"),
]


@pytest.mark.parametrize("codemod,before,line,column,after", CASES)
def test_codemod_output_is_exact_parses_and_is_idempotent(codemod, before, line, column, after):
    output = run(codemod, dedent(before), line, column)
    assert output == dedent(after)
    cst.parse_module(output)
    if codemod is AddNumParallelCalls:  # re-targeting the same call finds nothing left to change
        assert run(codemod, output, line, column) == output
    assert not [line for line in output.splitlines() if line != line.rstrip()], "trailing whitespace"


def test_no_free_name_for_an_import_means_no_patch_and_says_why():
    code = dedent("""
        from tensorflow import data
        tf = tensorflow = None
        ds = data.TFRecordDataset(files)
        """)
    with pytest.raises(SkipFile, match="`tf` and `tensorflow`"):
        run(AppendPrefetch, code, 3, 11)
