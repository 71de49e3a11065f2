"""Canonical qualified names for the many spellings of the TensorFlow and Keras APIs.

libcst's ``QualifiedNameProvider`` already follows imports and aliases (``import tensorflow as tf`` makes
``tf.data.Dataset`` resolve to ``tensorflow.data.Dataset``). What it cannot know is that ``tensorflow.keras``,
``tf_keras`` and ``keras`` are one API, or that ``tf.compat.v2`` is plain ``tf``. Rules compare canonical names only.
"""

from __future__ import annotations

_PREFIX_ALIASES = (
    ("tensorflow.python.keras.", "keras."),
    ("tensorflow.keras.", "keras."),
    ("tf_keras.", "keras."),
    ("keras.src.", "keras."),
    ("tensorflow.compat.v2.", "tensorflow."),
    ("tensorflow.data.experimental.AUTOTUNE", "tensorflow.data.AUTOTUNE"),
)

_EXACT_ALIASES = {
    "tensorflow.keras": "keras",
    "tf_keras": "keras",
}


def canonical(qualified_name: str) -> str:
    """Map one qualified name to the spelling rules use (``tensorflow.keras.layers.Dense`` -> ``keras.layers.Dense``)."""
    if qualified_name in _EXACT_ALIASES:
        return _EXACT_ALIASES[qualified_name]
    for prefix, replacement in _PREFIX_ALIASES:
        if qualified_name.startswith(prefix) or qualified_name == prefix.rstrip("."):
            return replacement + qualified_name[len(prefix):]
    return qualified_name


# A file that mentions none of these cannot use TensorFlow or Keras; it is not parsed at all.
PREFILTER_WORDS = (b"tensorflow", b"keras", b"tf_keras")
