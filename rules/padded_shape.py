"""TFC002: layer widths and batch sizes that the accelerator's matrix units must pad."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Iterator

import libcst as cst
import libcst.matchers as m

from advisor import speedup
from advisor.codemods.round_up import RoundUpLiteral, round_up
from advisor.model import Applicability, Confidence, Evidence, Finding
from advisor.rule import Example, Rule, RuleContext
from advisor.source.index import ModuleInfo, SourceIndex


# The argument that sizes each layer's matmul or convolution output.
LAYER_SIZE_ARGUMENT = {
    **{f"keras.layers.{name}": "filters" for name in ("Conv1D", "Conv2D", "Conv3D", "Convolution1D",
                                                      "Convolution2D", "Convolution3D")},
    **{f"keras.layers.{name}": "units" for name in ("Dense", "LSTM", "GRU")},
}
# Tensor cores take 16-bit tiles in multiples of 8; the TPU's matrix unit is 128 wide.
MULTIPLE = {"gpu": 8, "tpu": 128}
DEFAULT_MULTIPLE = MULTIPLE["gpu"]
# Names that say a size is dictated by the data (the class count), not chosen for capacity.
DATA_SIZE_NAME = re.compile(r"class|label|categor|vocab|target|output", re.IGNORECASE)
# A layer with one of these activations produces class scores.
OUTPUT_ACTIVATIONS = frozenset({"softmax", "sigmoid"})
MODEL_CONSTRUCTORS = ("keras.Model", "keras.models.Model")
SEQUENTIAL = ("keras.Sequential", "keras.models.Sequential")


@dataclass(frozen=True)
class Size:
    """A size argument resolved to the integer literal that sets it, possibly a module constant elsewhere."""

    what: str  # "`Dense` units", "batch size"
    site: cst.Call
    site_module: ModuleInfo
    literal: cst.Integer
    literal_module: ModuleInfo
    constant: str | None  # the constant's name when the size is written through one

    @property
    def value(self) -> int:
        return int(self.literal.evaluated_value)


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
        # The configured multiple (settings.shape_multiple) wins; the config module lands with shape_multiple_for.
        multiple_for = getattr(ctx.settings, "shape_multiple_for", None)
        multiple = multiple_for(hardware) if multiple_for else MULTIPLE.get(hardware, DEFAULT_MULTIPLE)
        by_literal: dict[int, list[Size]] = {}
        excluded: set[int] = set()
        sizes = list(_sizes(ctx.index))
        off_multiple = {id(s.literal) for s in sizes if s.value >= multiple and s.value % multiple}
        # Only sizes whose literal is off the multiple need the (costlier) output-layer test.
        for size in (s for s in sizes if id(s.literal) in off_multiple):
            if _is_data_sized(ctx.index, size):
                excluded.add(id(size.literal))
            else:
                by_literal.setdefault(id(size.literal), []).append(size)
        for key, sizes in by_literal.items():
            # A constant that also sizes an output layer is the class count: rounding it would change the data.
            if key not in excluded:
                yield self._finding(ctx, sizes, multiple, hardware)

    def _finding(self, ctx: RuleContext, sizes: list[Size], multiple: int, hardware: str | None) -> Finding:
        first = sizes[0]
        padded = round_up(first.value, multiple)
        uses = ", ".join(f"{s.what} at {s.site_module.location(s.site).display}" for s in sizes)
        written = f"`{first.constant} = {first.value}`" if first.constant else f"{first.value}"
        evidence = [Evidence("source", f"{written} sizes {uses}")]
        device = ctx.profile.device if ctx.profile is not None else None
        device_share = device.compute_share_pct if device is not None else None
        if hardware is None:
            confidence = Confidence.POSSIBLE
            target = f"a multiple of {multiple} (GPU tensor cores; 128 on TPUs)"
        else:
            confidence = Confidence.LIKELY
            target = f"a multiple of {multiple} ({hardware.upper()})"
        if device_share is not None:
            evidence.append(Evidence("profile", f"device compute is {device_share:.0f}% of the step time",
                                     {"device_compute_share": device_share / 100.0}))
            estimate = speedup.padded_dimension(first.value, multiple, device_share / 100.0)
        else:
            estimate = speedup.typical("padded_shape")
        message = (f"{first.what[0].upper()}{first.what[1:]} {written} is not {target}: the hardware pads it to {padded} or "
                   f"runs a slower kernel.")
        return self.finding(first.literal_module, first.literal, message, confidence=confidence, evidence=evidence,
                            speedup=estimate, codemod=RoundUpLiteral, fix_args={"multiple": multiple})


def _sizes(index: SourceIndex) -> Iterator[Size]:
    """Every layer size and batch size written as an integer literal, directly or through a module constant."""
    for layer, keyword in LAYER_SIZE_ARGUMENT.items():
        for site in index.calls_to(layer):
            size = _resolve(index, site.module, site.node, _argument(site.node, keyword),
                            f"`{layer.rsplit('.', 1)[1]}` {keyword}")
            if size is not None:
                yield size
    for stage in index.stages():
        if stage.op == "batch":
            size = _resolve(index, stage.module, stage.node, _argument(stage.node, "batch_size"), "batch size")
            if size is not None:
                yield size
    for site in index.calls:
        if m.matches(site.node.func, m.Attribute(attr=m.Name("fit"))):
            batch = next((a.value for a in site.node.args if m.matches(a.keyword, m.Name("batch_size"))), None)
            size = _resolve(index, site.module, site.node, batch, "batch size")
            if size is not None:
                yield size


def _argument(call: cst.Call, keyword: str) -> cst.BaseExpression | None:
    """A size's argument: by keyword, or the first positional (all these sizes come first)."""
    for arg in call.args:
        if m.matches(arg.keyword, m.Name(keyword)):
            return arg.value
    positional = [a for a in call.args if a.keyword is None and not a.star]
    return positional[0].value if positional else None


def _resolve(index: SourceIndex, module: ModuleInfo, call: cst.Call, value: cst.BaseExpression | None,
             what: str) -> Size | None:
    if isinstance(value, cst.Integer):
        return Size(what, call, module, value, module, None)
    if isinstance(value, (cst.Name, cst.Attribute)):
        constant = index.constant(module, value)
        if constant is not None and isinstance(constant.value, cst.Integer):
            return Size(what, call, module, constant.value, constant.module, constant.name)
    return None


def _is_data_sized(index: SourceIndex, size: Size) -> bool:
    """Whether the size is set by the data rather than chosen: an output layer's, or a class-count constant's."""
    if size.what == "batch size":
        return False
    if size.constant is not None and DATA_SIZE_NAME.search(size.constant):
        return True
    activation = _argument_named(size.site, "activation")
    if isinstance(activation, cst.SimpleString) and activation.evaluated_value in OUTPUT_ACTIVATIONS:
        return True
    return _is_output_layer(index, size.site_module, size.site)


def _argument_named(call: cst.Call, keyword: str) -> cst.BaseExpression | None:
    return next((a.value for a in call.args if m.matches(a.keyword, m.Name(keyword))), None)


def _is_output_layer(index: SourceIndex, module: ModuleInfo, layer: cst.Call) -> bool:
    """The last layer of a ``Sequential([...])`` literal, or the layer whose output is a ``Model``'s outputs."""
    parent = module.parent(layer)
    if isinstance(parent, cst.Element):
        container = module.parent(parent)
        constructor = module.parent(module.parent(container)) if container is not None else None
        return isinstance(container, cst.List) and container.elements[-1] is parent \
            and isinstance(constructor, cst.Call) and bool(module.qualified_names(constructor.func) & set(SEQUENTIAL))
    # Functional API: `outputs = Dense(n)(x)` and `Model(inputs, outputs)` (or the applied layer passed directly).
    applied = parent if isinstance(parent, cst.Call) and parent.func is layer else None
    if applied is None:
        return False
    outputs = _model_outputs(index, module)
    assignment = module.parent(applied)
    names = {t.target.value for t in assignment.targets if isinstance(t.target, cst.Name)} \
        if isinstance(assignment, cst.Assign) else set()
    return any(o is applied or (isinstance(o, cst.Name) and o.value in names) for o in outputs)


def _model_outputs(index: SourceIndex, module: ModuleInfo) -> list[cst.BaseExpression]:
    """The ``outputs`` expressions (or their elements) of the module's ``keras.Model(inputs, outputs)`` calls."""
    found: list[cst.BaseExpression] = []
    for site in index.calls_to(*MODEL_CONSTRUCTORS):
        if site.module is not module:
            continue
        call = site.node
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        value = _argument_named(call, "outputs") or (positional[1] if len(positional) > 1 else None)
        if isinstance(value, (cst.List, cst.Tuple)):
            found.extend(e.value for e in value.elements)
        elif value is not None:
            found.append(value)
    return found
