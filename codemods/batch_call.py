"""``model.predict(x, verbose=0)`` -> ``model.predict_on_batch(x)``; ``model.fit(x, y, epochs=1, verbose=0)`` ->
``model.train_on_batch(x, y)``: Keras runs the one batch without setting up an iterator, callbacks and a progress
bar first."""

from __future__ import annotations

import libcst as cst

from .base import CallTargetCodemod

# The batch method that does what each whole-dataset method does to one batch.
ON_BATCH = {"fit": "train_on_batch", "predict": "predict_on_batch", "evaluate": "test_on_batch"}
# Arguments about batching a dataset and reporting progress: a single batch has no use for them.
DATASET_ARGUMENTS = frozenset({"verbose", "batch_size", "epochs", "steps", "shuffle"})


class CallOnBatch(CallTargetCodemod):
    """Call the ``*_on_batch`` method in place of the ``fit``/``predict``/``evaluate`` call whose method name
    starts at ``line``:``column``, without the arguments that only batch a dataset or report progress."""

    DESCRIPTION = "Run one batch with the *_on_batch method, not a whole-dataset call."

    def is_target(self, call: cst.Call) -> bool:
        return super().is_target(call) and isinstance(call.func, cst.Attribute) and call.func.attr.value in ON_BATCH

    def rewrite(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        func = updated.func
        kept = [arg for arg in updated.args if arg.keyword is None or arg.keyword.value not in DATASET_ARGUMENTS]
        if kept and kept[-1] is not updated.args[-1]:  # the last argument goes: the new last one ends the call
            last = updated.args[-1]
            kept[-1] = kept[-1].with_changes(comma=last.comma, whitespace_after_arg=last.whitespace_after_arg)
        return updated.with_changes(func=func.with_changes(attr=cst.Name(ON_BATCH[func.attr.value])), args=kept)
