"""TFC003: a training batch so small that an accelerator spends its steps waiting, not computing."""

from __future__ import annotations

from typing import Iterable

import libcst as cst
import libcst.matchers as m

from advisor.rule import (IMAGE_ITERATOR_BATCH_POSITION, Confidence, Evidence, Example, Finding, IntegerLiteral,
                          ModuleInfo, Rule, RuleContext, Verdict, argument_value, typical)

# Batches this small leave a GPU's or TPU's matrix units mostly idle: each step's fixed costs (launching kernels,
# the host's loop, input) are paid for a handful of samples.
SMALL_BATCH_MAX = 4

class SmallBatch(Rule):
    code = "TFC003"
    name = "small-batch"
    title = "Accelerator training with a batch of 1-4 samples"
    rationale = (
        "A GPU or TPU runs a step's matrix multiplications on thousands of units at once; with a batch of one to "
        "four samples most of them idle, and the step's fixed costs (kernel launches, the host's Python, fetching "
        "the batch) dominate. Unless memory forces it, a larger batch (with the learning rate scaled to it) trains "
        "more samples per second; when memory does force it, mixed precision or gradient accumulation recovers "
        "some of the loss. Reported only for accelerator training: a `target-device` of `gpu` or `tpu`, a GPU or "
        "TPU capture, or a program that asks for one (a GPU's memory growth or options, a placement on `/gpu:0`, a "
        "TPU strategy)."
    )
    speedup_model = ("the typical range of larger batches on an accelerator; the capture's device idle time is not "
                     "yet read for it.")
    valid = (
        Example("""
            import tensorflow as tf
            ds = tf.data.Dataset.range(100).batch(2)
            model.fit(ds)
            """, note="no accelerator known: a CPU run does not care"),
        Example("""
            import os
            import tensorflow as tf
            os.environ["CUDA_VISIBLE_DEVICES"] = "-1"
            ds = tf.data.Dataset.range(100).batch(2)
            model.fit(ds)
            """, note="the program hides every GPU: it trains on the CPU"),
        Example("""
            import tensorflow as tf
            print("GPU is", "available" if tf.config.list_physical_devices("GPU") else "NOT AVAILABLE")
            model.fit(images, labels, batch_size=2)
            """, note="a notebook that only says whether a GPU is there asks for none"),
    )
    invalid = (
        Example("""
            import tensorflow as tf
            BATCH = 2
            ds = tf.data.Dataset.from_tensor_slices((images, labels)).shuffle(100).batch(BATCH)
            model.fit(ds, epochs=10)
            """, line=2, settings={"target_device": "gpu"}, note="training on a GPU (`target-device = 'gpu'`)"),
        Example("""
            import tensorflow as tf
            for gpu in tf.config.experimental.list_physical_devices("GPU"):
                tf.config.experimental.set_memory_growth(gpu, True)
            model.fit(images, labels, batch_size=1, epochs=10)
            """, line=4, note="the program grows a GPU's memory: it is meant to train on one"),
        Example("""
            import os
            from keras.preprocessing.image import ImageDataGenerator
            os.environ["CUDA_VISIBLE_DEVICES"] = "0"
            train_flow = ImageDataGenerator(rotation_range=30).flow(images, masks, batch_size=1)
            validation_flow = ImageDataGenerator().flow(val_images, val_masks, batch_size=1)
            model.fit_generator(train_flow, steps_per_epoch=1000, validation_data=validation_flow)
            """, line=4, note="an augmenting Keras iterator of one image per batch, for a GPU the program picks; its "
                               "validation iterator is not what training waits for"),
    )

    def check(self, ctx: RuleContext) -> Iterable[Finding]:
        if ctx.target_device == "cpu":
            return
        batches = [(stage.module, stage.node, argument_value(stage.node, "batch_size", 0))
                   for pipeline in ctx.index.pipelines()
                   if ctx.queries.feeds_training(pipeline) and ctx.queries.evaluation_use(pipeline) is None
                   for stage in pipeline.stages if stage.op == "batch"]
        batches += [(site.module, site.node, argument_value(site.node, "batch_size")) for site in ctx.index.calls
                    if m.matches(site.node.func, m.Attribute(attr=m.Name("fit")))]
        batches += [(site.module, site.node, argument_value(site.node, "batch_size", IMAGE_ITERATOR_BATCH_POSITION.get(
            site.node.func.attr.value))) for site in ctx.queries.training_image_iterators]
        reported: set[int] = set()
        for module, site, value in batches:
            size = ctx.queries.integer_literal(module, value, flags=True)
            if size is None or not 0 < size.value <= SMALL_BATCH_MAX or id(size.literal) in reported:
                continue
            accelerator = ctx.verdicts.accelerator_for(module, site)
            if accelerator is not None:
                reported.add(id(size.literal))
                yield self._finding(ctx, size, module, site, *accelerator)

    def _finding(self, ctx: RuleContext, size: IntegerLiteral, module: ModuleInfo, site: cst.Call, device: str,
                 accelerator: Evidence) -> Finding:
        written = f"`{size.constant} = {size.value}`" if size.constant else f"{size.value}"
        message = (f"The training batch is {written} samples on a {device.upper()}: most of its matrix units idle "
                   "and each step's fixed costs dominate. Use a larger batch (scaling the learning rate with it) "
                   "unless memory forbids it.")
        verdict = Verdict(Confidence.LIKELY, typical("small_batch"), (Evidence.source(
            f"batch size {size.value} at {module.location(site).display}"), accelerator))
        return self.finding(size.module, size.literal, message, verdict, reach=ctx.queries.reach(module, site))
