"""TFC003: a training batch so small that an accelerator spends its steps waiting, not computing."""

from __future__ import annotations

from typing import Iterable

import libcst as cst
import libcst.matchers as m

from advisor.rule import (Confidence, Evidence, Example, Finding, IntegerLiteral, ModuleInfo, Rule, RuleContext,
                          Verdict, argument_value, typical)

# Batches this small leave a GPU's or TPU's matrix units mostly idle: each step's fixed costs (launching kernels,
# the host's loop, input) are paid for a handful of samples.
SMALL_BATCH_MAX = 4
ACCELERATORS = ("gpu", "tpu")


class SmallBatch(Rule):
    code = "TFC003"
    name = "small-batch"
    title = "Accelerator training with a batch of 1-4 samples"
    rationale = (
        "A GPU or TPU runs a step's matrix multiplications on thousands of units at once; with a batch of one to "
        "four samples most of them idle, and the step's fixed costs (kernel launches, the host's Python, fetching "
        "the batch) dominate. Unless memory forces it, a larger batch (with the learning rate scaled to it) trains "
        "more samples per second; when memory does force it, mixed precision or gradient accumulation recovers "
        "some of the loss. Reported only for accelerator training: set `target-device` or give a GPU/TPU capture."
    )
    speedup_model = ("the typical range of larger batches on an accelerator; the capture's device idle time is not "
                     "yet read for it.")
    valid = (
        Example("""
            import tensorflow as tf
            ds = tf.data.Dataset.range(100).batch(2)
            model.fit(ds)
            """, note="no accelerator known: a CPU run does not care"),
    )
    invalid = (
        Example("""
            import tensorflow as tf
            BATCH = 2
            ds = tf.data.Dataset.from_tensor_slices((images, labels)).shuffle(100).batch(BATCH)
            model.fit(ds, epochs=10)
            """, line=2, settings={"target_device": "gpu"}, note="training on a GPU (`target-device = 'gpu'`)"),
    )

    def check(self, ctx: RuleContext) -> Iterable[Finding]:
        if ctx.target_device not in ACCELERATORS:
            return
        reported: set[int] = set()
        for pipeline in ctx.index.pipelines():
            if not ctx.queries.feeds_training(pipeline):
                continue
            for stage in pipeline.stages:
                if stage.op == "batch":
                    size = ctx.queries.integer_literal(stage.module, argument_value(stage.node, "batch_size", 0))
                    if size is not None and self._small(size) and id(size.literal) not in reported:
                        reported.add(id(size.literal))
                        yield self._finding(ctx, size, stage.module, stage.node)
        for site in ctx.index.calls:
            if m.matches(site.node.func, m.Attribute(attr=m.Name("fit"))):
                size = ctx.queries.integer_literal(site.module, argument_value(site.node, "batch_size"))
                if size is not None and self._small(size) and id(size.literal) not in reported:
                    reported.add(id(size.literal))
                    yield self._finding(ctx, size, site.module, site.node)

    @staticmethod
    def _small(size: IntegerLiteral) -> bool:
        return 0 < size.value <= SMALL_BATCH_MAX

    def _finding(self, ctx: RuleContext, size: IntegerLiteral, module: ModuleInfo, site: cst.Call) -> Finding:
        written = f"`{size.constant} = {size.value}`" if size.constant else f"{size.value}"
        message = (f"The training batch is {written} samples on a {ctx.target_device.upper()}: most of its matrix "
                   "units idle and each step's fixed costs dominate. Use a larger batch (scaling the learning rate "
                   "with it) unless memory forbids it.")
        verdict = Verdict(Confidence.LIKELY, typical("small_batch"), (Evidence.source(
            f"batch size {size.value} at {module.location(site).display}"),))
        return self.finding(size.module, size.literal, message, verdict, reach=ctx.queries.reach(module, site))
