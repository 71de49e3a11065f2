"""Compile a Python function with ``tf.function``, or make its ``tf.function`` retrace less."""

from __future__ import annotations

import libcst as cst

from advisor.source.names import TF_FUNCTION

from .base import FunctionTargetCodemod, with_keyword


class CompiledFunctionCodemod(FunctionTargetCodemod):
    """Rewrites a ``def`` with respect to its ``tf.function`` decorator."""

    def tf_function_decorator(self, function: cst.FunctionDef) -> cst.Decorator | None:
        """``@tf.function`` or ``@tf.function(...)`` among the function's decorators, however tensorflow is imported."""
        for decorator in function.decorators:
            expression = decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else decorator.decorator
            if TF_FUNCTION in self.module_names.resolve(expression):
                return decorator
        return None


class AddTfFunction(CompiledFunctionCodemod):
    DESCRIPTION = "Compile a training step with @tf.function."

    def rewrite(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        if self.tf_function_decorator(original) is not None:
            return updated
        # Outermost, so that it compiles whatever the other decorators make of the function.
        decorator = cst.Decorator(self.tensorflow_attribute("function"))
        return updated.with_changes(decorators=[decorator, *updated.decorators])


class ReduceRetracing(CompiledFunctionCodemod):
    DESCRIPTION = "Pass reduce_retracing=True to the function's tf.function decorator."

    def rewrite(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        found = self.tf_function_decorator(original)
        if found is None:
            return updated
        index = original.decorators.index(found)
        decorator = updated.decorators[index]
        call = decorator.decorator
        call = with_keyword(call if isinstance(call, cst.Call) else cst.Call(func=call), "reduce_retracing",
                            cst.Name("True"))
        decorators = list(updated.decorators)
        decorators[index] = decorator.with_changes(decorator=call)
        return updated.with_changes(decorators=decorators)
