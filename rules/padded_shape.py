"""TFC002: layer widths and batch sizes that the accelerator's matrix units must pad."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator

import libcst as cst
import libcst.matchers as m

from advisor.codemods.round_up import RoundUpLiteral
from advisor.rule import (Applicability, Confidence, Evidence, Example, Finding, FixAvailability, IntegerLiteral,
                          ModuleInfo, Rule, RuleContext, Verdict, argument_value, round_up, typical)

# The argument that sizes each layer's matmul or convolution output.
LAYER_SIZE_ARGUMENT = {
    **{f"keras.layers.{name}": "filters" for name in ("Conv1D", "Conv2D", "Conv3D", "Convolution1D",
                                                      "Convolution2D", "Convolution3D")},
    **{f"keras.layers.{name}": "units" for name in ("Dense", "LSTM", "GRU")},
}


@dataclass(frozen=True)
class Size:
    """A size argument resolved to the integer literal that sets it, possibly a module constant elsewhere."""

    what: str  # "`Dense` units", "batch size"
    site: cst.Call
    site_module: ModuleInfo
    value: IntegerLiteral


class PaddedShape(Rule):
    code = "TFC002"
    name = "padded-shape"
    title = "Layer width or batch size is not a multiple the accelerator computes in"
    rationale = (
        "GPU tensor cores multiply 16-bit matrices in tiles whose sides are multiples of 8, and the TPU's matrix "
        "unit is 128 wide. A layer width, filter count or batch size off those multiples is padded by the "
        "hardware, or runs on a slower kernel that does not use the tensor cores at all. Sizes set by the data "
        "(the class count of an output layer, RGB input channels) and tiny layers are left alone: padding them "
        "buys nothing. Only GPU/TPU training gains; a CPU does not care."
    )
    fix = "Round the size up to the next multiple (8 for GPUs, 128 for TPUs), where it is written."
    fix_availability = FixAvailability.ALWAYS
    fix_applicability = Applicability.UNSAFE
    why_unsafe = ("Changes the model: a wider layer has more parameters and capacity, and needs more memory; a "
                  "larger batch changes the optimization (learning-rate schedules tuned for the old one) and memory.")
    speedup_model = ("the padded dimension's utilization (size / rounded size) on the share of step time in device "
                     "compute (from the profile), or a typical range.")
    valid = (
        Example("""
            from tensorflow import keras
            model = keras.Sequential([
                keras.layers.Conv2D(32, 3, input_shape=(64, 64, 3)),
                keras.layers.Dense(4, activation="relu"),
                keras.layers.Dense(10),
            ])
            """, note="aligned, tiny, and the class-count output layer"),
        Example("""
            import keras
            NUM_CLASSES = 37
            inputs = keras.Input(shape=(128,))
            hidden = keras.layers.Dense(256, activation="relu")(inputs)
            logits = keras.layers.Dense(NUM_CLASSES)(hidden)
            probabilities = keras.layers.Dense(37, activation="softmax")(hidden)
            model = keras.Model(inputs, logits)
            """, note="output layers: the model's outputs, a class-count name, a softmax head"),
        Example("""
            import tensorflow as tf
            ds = tf.data.Dataset.range(1000).batch(64)
            model.fit(x, y, batch_size=256)
            """),
    )
    invalid = (
        Example("""
            from tensorflow import keras
            x = keras.layers.Conv2D(30, 3, activation="relu")(inputs)
            """, line=2, fixed="""
            from tensorflow import keras
            x = keras.layers.Conv2D(32, 3, activation="relu")(inputs)
            """),
        Example("""
            import tensorflow as tf
            model = tf.keras.Sequential([
                tf.keras.layers.Dense(units=100, activation="relu"),
                tf.keras.layers.Dense(10),
            ])
            """, line=3, fixed="""
            import tensorflow as tf
            model = tf.keras.Sequential([
                tf.keras.layers.Dense(units=104, activation="relu"),
                tf.keras.layers.Dense(10),
            ])
            """),
        Example("""
            import tensorflow as tf
            HIDDEN = 500
            encoder = tf.keras.layers.LSTM(HIDDEN, return_sequences=True)
            """, line=2, fixed="""
            import tensorflow as tf
            HIDDEN = 504
            encoder = tf.keras.layers.LSTM(HIDDEN, return_sequences=True)
            """, note="through a module constant: rounded where it is defined"),
        Example("""
            import tensorflow as tf
            ds = tf.data.Dataset.range(1000).shuffle(100).batch(100)
            """, line=2, fixed="""
            import tensorflow as tf
            ds = tf.data.Dataset.range(1000).shuffle(100).batch(104)
            """, note="a batch size; shuffle's buffer is not one"),
    )

    def check(self, ctx: RuleContext) -> Iterable[Finding]:
        hardware = ctx.target_device
        if hardware == "cpu":
            return
        multiple = ctx.settings.shape_multiple_for(hardware)
        by_literal: dict[int, list[Size]] = {}
        excluded: set[int] = set()
        # Only sizes whose literal is off the multiple need the (costlier) output-layer test.
        for size in _sizes(ctx):
            if size.value.value < multiple or not size.value.value % multiple:
                continue
            key = id(size.value.literal)
            if size.what != "batch size" and ctx.queries.is_data_sized(size.site_module, size.site,
                                                                       size.value.constant):
                excluded.add(key)
            else:
                by_literal.setdefault(key, []).append(size)
        for key, sizes in by_literal.items():
            # A constant that also sizes an output layer is the class count: rounding it would change the data.
            if key not in excluded:
                yield self._finding(ctx, sizes, multiple, hardware)

    def _finding(self, ctx: RuleContext, sizes: list[Size], multiple: int, hardware: str | None) -> Finding:
        first = sizes[0]
        value = first.value
        padded = round_up(value.value, multiple)
        uses = ", ".join(f"{s.what} at {s.site_module.location(s.site).display}" for s in sizes)
        written = f"`{value.constant} = {value.value}`" if value.constant else f"{value.value}"
        if hardware is None:
            confidence = Confidence.POSSIBLE
            target = f"a multiple of {multiple} (GPU tensor cores; 128 on TPUs)"
        else:
            confidence = Confidence.LIKELY
            target = f"a multiple of {multiple} ({hardware.upper()})"
        static = Verdict(confidence, typical("padded_shape"), (Evidence.source(f"{written} sizes {uses}"),))
        verdict = ctx.verdicts.padded_dimension(value.value, multiple, static)
        message = (f"{first.what[0].upper()}{first.what[1:]} {written} is not {target}: the hardware pads it to "
                   f"{padded} or runs a slower kernel.")
        return self.finding(value.module, value.literal, message, verdict, codemod=RoundUpLiteral,
                            fix_args={"multiple": multiple})


def _sizes(ctx: RuleContext) -> Iterator[Size]:
    """Every layer size and batch size written as an integer literal, directly or through a module constant."""
    index, queries = ctx.index, ctx.queries
    for layer, keyword in LAYER_SIZE_ARGUMENT.items():
        for site in index.calls_to(layer):
            value = queries.integer_literal(site.module, argument_value(site.node, keyword, 0))
            if value is not None:
                yield Size(f"`{layer.rsplit('.', 1)[1]}` {keyword}", site.node, site.module, value)
    for stage in index.stages():
        if stage.op == "batch":
            value = queries.integer_literal(stage.module, argument_value(stage.node, "batch_size", 0))
            if value is not None:
                yield Size("batch size", stage.node, stage.module, value)
    for site in index.calls:
        if m.matches(site.node.func, m.Attribute(attr=m.Name("fit"))):
            value = queries.integer_literal(site.module, argument_value(site.node, "batch_size"))
            if value is not None:
                yield Size("batch size", site.node, site.module, value)
