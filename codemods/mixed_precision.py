"""Turn on Keras mixed precision: set the global policy before the model is built, keep its output in float32, and
scale the loss of custom GradientTape loops."""

from __future__ import annotations

from typing import Sequence

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.metadata import PositionProvider

from advisor.source.names import is_tf2_api
from advisor.source.syntax import anchor

from .base import TensorflowCodemod, with_keyword

Position = Sequence[int]  # (line, column), 1-based like a finding's


class EnableMixedPrecision(TensorflowCodemod):
    """Insert ``keras.mixed_precision.set_global_policy(policy)`` before each statement starting at
    ``policy_before``; ``outputs`` are ``("dtype", line, column)`` (the layer call anchored there gets
    ``dtype="float32"``) or ``("wrap", line, column)`` (the argument starting there is wrapped in a float32 linear
    ``Activation``); each of ``loss_scaling`` (``tape``, ``loss``, ``optimizer``, ``gradient``, ``wrap_optimizer``
    positions and names) scales the loss inside the tape block, differentiates the scaled loss, and wraps the
    optimizer construction in a ``LossScaleOptimizer``.

    Layers take the global policy when they are created, so the policy must be set before the first of them.
    """

    DESCRIPTION = "Set a mixed-precision global policy before the model is built; keep the output layer in float32."
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, context: CodemodContext, line: int, column: int, policy: str,
                 policy_before: Sequence[Position] = (), outputs: Sequence[Sequence] = (),
                 loss_scaling: Sequence[dict] = ()) -> None:
        super().__init__(context)
        self.policy = policy
        self.policy_before = {tuple(p) for p in policy_before}
        self.dtype_layers = {tuple(o[1:]) for o in outputs if o[0] == "dtype"}
        self.wrapped_outputs = {tuple(o[1:]) for o in outputs if o[0] == "wrap"}
        self.scaled: dict[tuple, list[dict]] = {}  # one `with` may open several tapes (a GAN's two)
        for scaling in loss_scaling:
            self.scaled.setdefault(tuple(scaling["tape"]), []).append(scaling)
        self.gradients = {tuple(s["gradient"]): s for s in loss_scaling}
        self.optimizers = {tuple(s["wrap_optimizer"]) for s in loss_scaling if s.get("wrap_optimizer")}

    def _start(self, node: cst.CSTNode) -> tuple[int, int]:
        start = self.get_metadata(PositionProvider, node).start
        return start.line, start.column + 1

    def _keras(self) -> str:
        """How the module spells keras: its own keras alias, else ``tf.keras``, else a new ``import keras``."""
        aliases = self.module_names.global_aliases
        own = next((name for name, target in aliases.items() if is_tf2_api(target, "keras")), None)
        if own is not None:
            return own
        tensorflow = next((name for name, target in aliases.items() if is_tf2_api(target, "tensorflow")), None)
        return f"{tensorflow}.keras" if tensorflow is not None else self.import_under_free_name("keras", ("keras",))

    def _scaled_name(self, loss: str) -> str:
        taken = self.used_names
        return next(name for n in range(1, 100) if (name := f"scaled_{loss}" + (f"_{n}" if n > 1 else "")) not in taken)

    # Blocks are left inside-out; the policy goes before the statements it was asked to precede.
    def leave_IndentedBlock(self, original_node: cst.IndentedBlock,
                            updated_node: cst.IndentedBlock) -> cst.IndentedBlock:
        return updated_node.with_changes(body=self._insert_policy(original_node.body, updated_node.body))

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        return updated_node.with_changes(body=self._insert_policy(original_node.body, updated_node.body))

    def _insert_policy(self, original: Sequence[cst.BaseStatement], updated: Sequence[cst.BaseStatement]) -> list:
        body = []
        for before, after in zip(original, updated):
            if self._start(before) in self.policy_before:
                policy = cst.parse_statement(f'{self._keras()}.mixed_precision.set_global_policy("{self.policy}")\n')
                # The statement's leading blank lines and comments stay above the new line.
                body.append(policy.with_changes(leading_lines=after.leading_lines))
                after = after.with_changes(leading_lines=())
            body.append(after)
        return body

    def leave_With(self, original_node: cst.With, updated_node: cst.With) -> cst.With:
        scalings = self.scaled.get(self._start(original_node), [])
        if not scalings or not isinstance(updated_node.body, cst.IndentedBlock):
            return updated_node
        scaled = [cst.parse_statement(f"{self._scaled_name(s['loss'])} = {s['optimizer']}.scale_loss({s['loss']})\n")
                  for s in scalings]
        return updated_node.with_changes(body=updated_node.body.with_changes(body=[*updated_node.body.body, *scaled]))

    def leave_Arg(self, original_node: cst.Arg, updated_node: cst.Arg) -> cst.Arg:
        if self._start(original_node.value) not in self.wrapped_outputs:
            return updated_node
        activation = cst.parse_expression(f'{self._keras()}.layers.Activation("linear", dtype="float32")')
        return updated_node.with_changes(value=cst.Call(func=activation, args=[cst.Arg(updated_node.value)]))

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        start = self._start(original_node)
        # `Dense(10)(x)` starts where `Dense(10)` does: only the constructor call, not the layer's application.
        if not isinstance(original_node.func, cst.Call) and self._start(anchor(original_node)) in self.dtype_layers:
            updated_node = with_keyword(updated_node, "dtype", cst.SimpleString('"float32"'))
        scaling = self.gradients.get(start)
        if scaling is not None:
            first = updated_node.args[0]
            updated_node = updated_node.with_changes(args=[
                first.with_changes(value=cst.Name(self._scaled_name(scaling["loss"]))), *updated_node.args[1:]])
        if start in self.optimizers:
            wrapper = cst.parse_expression(f"{self._keras()}.mixed_precision.LossScaleOptimizer")
            return cst.Call(func=wrapper, args=[cst.Arg(updated_node)])
        return updated_node
