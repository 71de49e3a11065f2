"""Give ``Dataset.map`` / ``Dataset.interleave`` ``num_parallel_calls=tf.data.AUTOTUNE``."""

from __future__ import annotations

import libcst as cst

from advisor.source.syntax import method_name

from .base import CallTargetCodemod, with_keyword

# Where num_parallel_calls sits among the positional parameters of each method.
NUM_PARALLEL_CALLS_POSITION = {"map": 1, "interleave": 3}


class AddNumParallelCalls(CallTargetCodemod):
    DESCRIPTION = "Run a tf.data map/interleave with num_parallel_calls=tf.data.AUTOTUNE."

    def rewrite(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        position = NUM_PARALLEL_CALLS_POSITION.get(method_name(updated) or "")
        return with_keyword(updated, "num_parallel_calls", self.tensorflow_attribute("data.AUTOTUNE"), position)
