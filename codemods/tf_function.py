"""Compile a Python function with ``tf.function``, or make its ``tf.function`` retrace less."""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from advisor.source.index import TF_FUNCTION

from .base import FunctionTargetCodemod

EXISTING_FLAG = m.Arg(keyword=m.Name("reduce_retracing"))


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
        flag = cst.Arg(cst.Name("True"), keyword=cst.Name("reduce_retracing"),
                       equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))
        call = decorator.decorator
        if not isinstance(call, cst.Call):
            call = cst.Call(func=call, args=[flag])
        elif any(m.matches(arg, EXISTING_FLAG) for arg in call.args):
            call = call.with_changes(args=[flag.with_changes(comma=arg.comma) if m.matches(arg, EXISTING_FLAG)
                                           else arg for arg in call.args])
        elif call.args:
            last = call.args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            call = call.with_changes(args=[*call.args[:-1], last, flag])
        else:
            call = call.with_changes(args=[flag])
        decorators = list(updated.decorators)
        decorators[index] = decorator.with_changes(decorator=call)
        return updated.with_changes(decorators=decorators)
