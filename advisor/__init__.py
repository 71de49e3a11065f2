"""advisor: a performance advisor and rewriter for TensorFlow/Keras training code."""

__version__ = "0.1.0"
