"""Questions rules ask about the source, answered once per run: training steps and loops, what runs per element or per
step, Python that changes meaning under ``tf.function``, host work, Keras model construction and output layers.

A :class:`SourceQueries` wraps one :class:`~advisor.source.index.SourceIndex`; answers that scan the whole repo are
computed on first use and kept for the run, so rules that ask the same question share the work.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable, Iterable

import libcst as cst
import libcst.matchers as m

from .facts import CallSite, FunctionInfo, ModuleInfo
from .index import SourceIndex
from .names import GRADIENT_TAPE, TF_FUNCTION
from .syntax import argument_value

UPDATE_METHODS = frozenset({"apply_gradients", "minimize"})
_UPDATE_CALL = m.Call(func=m.Attribute(attr=m.Name(value=m.MatchIfTrue(UPDATE_METHODS.__contains__))))
VALUE_CONVERSIONS = frozenset({"float", "int", "bool"})
TENSOR_APIS = ("tensorflow.", "keras.")

KERAS_MODEL = frozenset({"keras.Model", "keras.models.Model"})
SEQUENTIAL = frozenset({"keras.Sequential", "keras.models.Sequential"})
KERAS_INPUT = frozenset({"keras.Input", "keras.layers.Input"})
MODEL_BUILDING_PREFIXES = ("keras.layers.", "keras.applications.")
OUTPUT_LAYERS = frozenset({"keras.layers.Dense", "keras.layers.Activation"})
# Any of these, or a "mixed_..." policy string anywhere, means the repo already chose its precision.
MIXED_PRECISION_APIS = frozenset({
    "keras.mixed_precision.set_global_policy", "keras.mixed_precision.Policy", "keras.mixed_precision.DTypePolicy",
    "keras.mixed_precision.experimental.set_policy", "keras.mixed_precision.experimental.Policy",
    "keras.mixed_precision.LossScaleOptimizer", "keras.config.set_dtype_policy", "keras.DTypePolicy",
    "keras.dtype_policies.DTypePolicy", "tensorflow.train.experimental.enable_mixed_precision_graph_rewrite",
    "tensorflow.compat.v1.train.experimental.enable_mixed_precision_graph_rewrite",
})
MIXED_POLICIES = frozenset({"mixed_float16", "mixed_bfloat16"})
# Keywords only Keras' Model.compile takes: they tell `model.compile(...)` from `re.compile(...)`.
COMPILE_KEYWORDS = frozenset({"optimizer", "loss", "metrics", "loss_weights", "weighted_metrics", "run_eagerly",
                              "steps_per_execution", "jit_compile", "auto_scale_loss"})

# Dataset methods whose first argument is a function tf.data traces and calls per element.
FUNCTION_STAGES = {"map": "map_func", "flat_map": "map_func", "interleave": "map_func", "filter": "predicate",
                   "map_with_legacy_function": "map_func"}
# Methods Keras traces into a graph by itself (no tf.function decorator in sight).
KERAS_TRACED = {"keras.Model": ("train_step", "test_step", "predict_step", "call"),
                "keras.models.Model": ("train_step", "test_step", "predict_step", "call"),
                "keras.layers.Layer": ("call",), "keras.Layer": ("call",)}

# What a call costs on the host, by the callee's canonical name (exact, or a prefix ending in ".").
COSTLY_NAMES = {
    "builtins.open": "file I/O", "builtins.print": "console output", "os.fsync": "file I/O",
    "json.dump": "file I/O", "pickle.dump": "file I/O", "numpy.save": "file I/O", "numpy.savez": "file I/O",
    "numpy.savetxt": "file I/O", "logging.": "logging", "requests.": "network I/O", "urllib.": "network I/O",
    "socket.": "network I/O", "shutil.": "file I/O", "matplotlib.": "plotting", "time.sleep": "sleeping",
    "builtins.float": "a device-to-host sync (float())", "keras.ops.convert_to_numpy": "a device-to-host sync",
    "tensorflow.summary.image": "image summaries", "tensorflow.summary.histogram": "histogram summaries",
    "keras.saving.save_model": "model saving", "keras.models.save_model": "model saving",
}
# Method calls whose receiver advisor cannot type, known by name alone.
COSTLY_METHODS = {
    "numpy": "a device-to-host sync (.numpy())", "item": "a device-to-host sync (.item())",
    "get_weights": "copying weights to the host (get_weights)", "save": "model or checkpoint saving",
    "save_weights": "model or checkpoint saving", "savefig": "plotting", "write": "file I/O", "flush": "file I/O",
}
# Ops that make a function stateful: random ops with hidden state, and Python called from the graph. tf.data's
# run-time map parallelization leaves stateful functions serial ("stateless" random ops are not stateful).
STATEFUL_OP_PREFIXES = ("tensorflow.random.", "tensorflow.random_", "tensorflow.image.random_",
                        "tensorflow.nn.dropout", "keras.layers.Random", "tensorflow.py_function",
                        "tensorflow.numpy_function", "tensorflow.py_func")
# How deep to follow repo functions called from a mapped function.
CALL_DEPTH = 3
# Names that say a size is dictated by the data (the class count), not chosen for capacity.
DATA_SIZE_NAME = re.compile(r"class|label|categor|vocab|target|output", re.IGNORECASE)
# A layer with one of these activations produces class scores.
OUTPUT_ACTIVATIONS = frozenset({"softmax", "sigmoid"})


# -- training loops -----------------------------------------------------------------------------------------------


@dataclass
class TrainingLoop:
    """Code that runs once per training step, and the names that hold its tensors.

    ``node`` is the Python loop that runs a training step per iteration, or a function whose body runs once per
    iteration of such a loop (``Trainer.train`` called by ``while ...: trainer.train()``; an eager training step's
    own body). ``loop`` is the loop that iterates the steps, in ``loop_module``.
    """

    module: ModuleInfo
    node: cst.For | cst.While | cst.FunctionDef
    loop: cst.For | cst.While | None = None
    loop_module: ModuleInfo | None = None
    tensors: set[str] = field(default_factory=set)
    step_names: set[str] = field(default_factory=set)  # canonical names of the step functions it calls

    @property
    def counter(self) -> str | None:
        """The step counter of ``for step in range(n)`` / ``for step, batch in enumerate(ds)``, if any."""
        loop = self.node
        if not isinstance(loop, cst.For) or not isinstance(loop.iter, cst.Call):
            return None
        if m.matches(loop.iter.func, m.Name("range")) and isinstance(loop.target, cst.Name):
            return loop.target.value
        if m.matches(loop.iter.func, m.Name("enumerate")) and m.matches(loop.target, m.Tuple(
                elements=[m.Element(m.Name()), m.ZeroOrMore()])):
            return loop.target.elements[0].value.value
        return None

    @property
    def description(self) -> str:
        """``the training loop at train.py:16:9`` or ``` `train`, which the loop at run.py:20:1 runs every step```."""
        if isinstance(self.node, cst.FunctionDef):
            where = f" at {self.loop_module.location(self.loop).display}" if self.loop is not None else ""
            return f"`{self.node.name.value}`, which the training loop{where} runs every step,"
        return f"the training loop at {self.module.location(self.node).display}"


class InLoopBody(m.MatcherDecoratableVisitor):
    """Visits a loop body without entering the definitions in it (their bodies do not run per iteration)."""

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False


class _TensorNames(InLoopBody):
    """Names bound to tensors in the loop: results of the step, of TensorFlow/Keras calls, and of the forward pass
    inside a GradientTape."""

    def __init__(self, loop: TrainingLoop, names_of: Callable[[cst.Call], frozenset[str]]) -> None:
        super().__init__()
        self.loop = loop
        self.names_of = names_of  # a call's callee names as the index resolved them (``self.step`` included)
        self.taped = 0

    def _opens_tape(self, node: cst.With) -> bool:
        return any(isinstance(item.item, cst.Call) and GRADIENT_TAPE in self.loop.module.qualified_names(item.item.func)
                   for item in node.items)

    def visit_With(self, node: cst.With) -> None:
        self.taped += self._opens_tape(node)

    def leave_With(self, original_node: cst.With) -> None:
        self.taped -= self._opens_tape(original_node)

    def visit_Assign(self, node: cst.Assign) -> None:
        if not (self.taped or isinstance(node.value, cst.Call) and self._returns_tensors(node.value)):
            return
        for target in node.targets:
            self.loop.tensors.update(n.value for n in m.findall(target.target, m.Name()))

    def _returns_tensors(self, call: cst.Call) -> bool:
        names = self.names_of(call)
        return bool(names & self.loop.step_names) or any(n.startswith(TENSOR_APIS) for n in names)


# -- Python that changes meaning under tf.function ----------------------------------------------------------------


@dataclass(frozen=True)
class SideEffect:
    """Python in a function that behaves differently once the function is traced into a graph."""

    node: cst.CSTNode
    what: str  # "`print(...)`"
    consequence: str  # what happens to it under tf.function
    breaks_step: bool  # True: compiling would make the function fail or compute something else


class _SideEffects(m.MatcherDecoratableVisitor):
    def __init__(self, module: ModuleInfo) -> None:
        super().__init__()
        self.module = module
        self.found: list[SideEffect] = []
        self.declared: set[str] = set()  # global / nonlocal names: state that outlives one call

    def _add(self, node: cst.CSTNode, consequence: str, breaks_step: bool) -> None:
        self.found.append(SideEffect(node, f"`{self.module.node_code(node)}`", consequence, breaks_step))

    def visit_Global(self, node: cst.Global) -> None:
        self.declared.update(n.name.value for n in node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.declared.update(n.name.value for n in node.names)

    @m.visit(m.Call(func=m.Attribute(attr=m.Name("numpy")), args=[]))
    def numpy_call(self, node: cst.Call) -> None:
        self._add(node, "fails: a graph tensor has no NumPy value while tracing", True)

    @m.visit(m.Call(func=m.Name(value=m.MatchIfTrue(VALUE_CONVERSIONS.__contains__)), args=[m.Arg()]))
    def value_conversion(self, node: cst.Call) -> None:
        if self.module.qualified_names(node.func) & {f"builtins.{n}" for n in VALUE_CONVERSIONS} and not \
                m.findall(node.args[0].value, m.Attribute(attr=m.Name("shape")) | m.BaseNumber()):
            self._add(node, "fails: a graph tensor has no Python value while tracing", True)

    @m.visit(m.Call(func=m.Attribute(attr=m.Name("append") | m.Name("extend"))))
    def list_append(self, node: cst.Call) -> None:
        self._add(node, "runs once, while tracing, and stores a symbolic tensor instead of one value per step", True)

    @m.visit(m.Call(func=m.Name("print")))
    def print_call(self, node: cst.Call) -> None:
        if "builtins.print" in self.module.qualified_names(node.func):
            self._add(node, "prints only while tracing, not every step (`tf.print` prints every step)", False)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Attribute) or m.matches(node.target, m.Name(
                value=m.MatchIfTrue(self.declared.__contains__))):
            self._add(node, "counts traces, not steps: it runs only while tracing", True)


# -- what runs per element or per compiled step -------------------------------------------------------------------


@dataclass(frozen=True)
class HotContext:
    """Why a function runs once per element or per step: ``what`` for the message, ``where`` for the evidence."""

    what: str
    where: str
    in_dataset: bool


class HotFunctions:
    """The repo functions that run per dataset element or per compiled step, and the calls made in mapped lambdas.

    A function is hot when a dataset map takes it, when it is a ``tf.function`` (decorated, or wrapped by a
    ``tf.function(f)`` call), when Keras traces it (``train_step``, ``call``), or when a hot function calls it.
    """

    def __init__(self, index: SourceIndex) -> None:
        self.index = index
        self.functions: dict[str, HotContext] = {}
        self.lambda_calls: dict[int, HotContext] = {}
        self._calls_by_function: dict[str, list[CallSite]] = {}
        for site in index.calls:
            if site.function is not None:
                self._calls_by_function.setdefault(site.function.key, []).append(site)
        self._find_roots()
        self._propagate()

    def context_of(self, site: CallSite) -> HotContext | None:
        if id(site.node) in self.lambda_calls:
            return self.lambda_calls[id(site.node)]
        return self.functions.get(site.function.key) if site.function is not None else None

    def _find_roots(self) -> None:
        for stage in self.index.stages():
            keyword = FUNCTION_STAGES.get(stage.op)
            func = argument_value(stage.node, keyword, 0) if keyword else None
            if func is None:
                continue
            where = f"mapped by `.{stage.op}()` at {stage.module.location(stage.anchor).display}"
            context = HotContext(f"for every element of the dataset `.{stage.op}()` at line "
                                 f"{stage.module.location(stage.anchor).line}", where, in_dataset=True)
            if isinstance(func, cst.Lambda):
                for call in m.findall(func, m.Call()):
                    self.lambda_calls[id(call)] = context
            else:
                self._mark(self.index.functions_named(*stage.module.qualified_names(func)), context)
        for function in self.index.functions:
            if TF_FUNCTION in function.decorators:
                self._mark([function], _step_context(function, "a `tf.function`"))
        for site in self.index.calls_to(TF_FUNCTION):
            if site.node.args and not site.node.args[0].keyword:
                wrapped = self.index.functions_named(*site.module.qualified_names(site.node.args[0].value))
                self._mark(wrapped, HotContext("on every call of a `tf.function`", "wrapped by `tf.function(...)` "
                                               f"at {site.module.location(site.node).display}", in_dataset=False))
        for base, methods in KERAS_TRACED.items():
            for cls_info in self.index.subclasses_of(base):
                traced = [f for f in self.index.methods_of(cls_info) if f.name in methods]
                for function in traced:
                    self._mark([function], _step_context(function, "a method Keras compiles"))

    def _mark(self, functions: Iterable[FunctionInfo], context: HotContext) -> None:
        for function in functions:
            self.functions.setdefault(function.key, context)

    def _propagate(self) -> None:
        pending = list(self.functions)
        while pending:
            key = pending.pop()
            for site in self._calls_by_function.get(key, ()):
                for callee in self.index.functions_named(*site.names):
                    if callee.key not in self.functions:
                        self.functions[callee.key] = self.functions[key]
                        pending.append(callee.key)


def _step_context(function: FunctionInfo, kind: str) -> HotContext:
    where = f"`{function.name}` is {kind} ({function.module.location(function.node.name).display})"
    return HotContext(f"on every call of {kind}, `{function.name}`", where, in_dataset=False)


# -- functions a dataset maps -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MappedFunction:
    """What a ``Dataset.map``/``interleave``/``filter`` runs per element: a lambda, a repo function, or the
    ``__call__`` of a callable object the repo defines."""

    body: cst.CSTNode
    module: ModuleInfo
    function: FunctionInfo | None  # None for a lambda

    @property
    def is_projection(self) -> bool:
        """A lambda that only selects, renames or regroups fields (``lambda x: x["image"]``, ``lambda a, b: (b,
        a)``): no call and no arithmetic, nothing worth running in parallel."""
        return self.function is None and not m.findall(self.body, m.Call() | m.BinaryOperation() |
                                                      m.UnaryOperation() | m.Comparison() | m.BooleanOperation())


# -- sizes written as literals ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class IntegerLiteral:
    """An integer literal that sets a value, written directly or through a module constant (possibly elsewhere)."""

    literal: cst.Integer
    module: ModuleInfo  # where the literal is written
    constant: str | None  # the constant's name when the value is written through one

    @property
    def value(self) -> int:
        return int(self.literal.evaluated_value)


class SourceQueries:
    """The shared questions about one index (see the module doc)."""

    def __init__(self, index: SourceIndex) -> None:
        self.index = index

    # -- training steps and loops -------------------------------------------------------------------------------
    @cached_property
    def training_steps(self) -> list[FunctionInfo]:
        """Functions that open a ``tf.GradientTape`` and update weights with ``apply_gradients`` or ``minimize``."""
        steps = []
        for function in self.index.functions:
            calls = self.calls_in(function)
            if any(GRADIENT_TAPE in c.names for c in calls) and any(m.matches(c.node, _UPDATE_CALL) for c in calls):
                steps.append(function)
        return steps

    def calls_in(self, function: FunctionInfo) -> list[CallSite]:
        """The calls ``function``'s own body makes (nested definitions' calls excluded: they run when called)."""
        return self._calls_by_function.get(id(function.node), [])

    @cached_property
    def _calls_by_function(self) -> dict[int, list[CallSite]]:
        by_function: dict[int, list[CallSite]] = {}
        for call in self.index.calls:
            if call.function is not None:
                by_function.setdefault(id(call.function.node), []).append(call)
        return by_function

    def per_batch_calls(self, function: FunctionInfo) -> list[CallSite]:
        """Calls of ``function`` made once per iteration of a Python loop, eagerly (not from a compiled caller):
        from the loop's body, or from a function the loop calls per iteration (``trainer.train()``)."""
        return [c for c in self.callers_of(function) if self.iteration_loop(c) is not None
                and not (c.function is not None and self.index.is_compiled(c.function))]

    def iteration_loop(self, site: CallSite, depth: int = CALL_DEPTH) -> tuple[cst.For | cst.While, ModuleInfo] | None:
        """The Python loop that makes ``site`` once per iteration: the loop around it, or the loop around a call of
        the function it is in (up to ``depth`` calls away). None in a compiled function: AutoGraph turns its loops
        into graph loops."""
        loop = site.module.enclosing_loop(site.node)
        if loop is not None:
            return loop, site.module
        function = site.function
        if function is None or depth == 0 or self.index.is_compiled(function):
            return None
        for caller in self.callers_of(function):
            found = self.iteration_loop(caller, depth - 1)
            if found is not None:
                return found
        return None

    def callees_of(self, site: CallSite) -> list[FunctionInfo]:
        """The repo functions ``site`` calls: by name (imports, ``self.method``, constructors' ``__init__``), else
        for ``obj.method(...)`` on an object of unknown type, the one repo class method of that name, if unique."""
        found = [f for f, _ in self.index.callees(site.names)]
        if found or not isinstance(site.node.func, cst.Attribute) or any(
                n.startswith(("tensorflow.", "keras.", "numpy.", "builtins.")) for n in site.names):
            return found
        methods = self._methods_named.get(site.node.func.attr.value, [])
        return methods if len(methods) == 1 else []

    def callers_of(self, function: FunctionInfo) -> list[CallSite]:
        return self._callers.get(id(function.node), [])

    @cached_property
    def _methods_named(self) -> dict[str, list[FunctionInfo]]:
        methods: dict[str, list[FunctionInfo]] = {}
        for function in self.index.functions:
            if function.class_key is not None and not function.name.startswith("__"):
                methods.setdefault(function.name, []).append(function)
        return methods

    @cached_property
    def _callers(self) -> dict[int, list[CallSite]]:
        callers: dict[int, list[CallSite]] = {}
        for site in self.index.calls:
            for callee in self.callees_of(site):
                callers.setdefault(id(callee.node), []).append(site)
        return callers

    @cached_property
    def training_loops(self) -> list[TrainingLoop]:
        """The code that runs once per training step: loops that run a training step per iteration (or write one
        inline: a GradientTape and a weight update in the loop's body), functions such loops call per iteration
        that call the step, and eager training steps' own bodies."""
        scopes: dict[int, TrainingLoop] = {}
        for step in self.training_steps:
            for call in self.callers_of(step):
                found = self.iteration_loop(call)
                if found is None or (call.function is not None and self.index.is_compiled(call.function)):
                    continue
                loop, loop_module = found
                if call.module.enclosing_loop(call.node) is loop:
                    scope = scopes.setdefault(id(loop), TrainingLoop(call.module, loop, loop, loop_module))
                else:
                    scope = scopes.setdefault(id(call.function.node), TrainingLoop(
                        call.module, call.function.node, loop, loop_module))
                if not self._returns_python_values(step):
                    scope.step_names.update(call.names)
                if not self.index.is_compiled(step):
                    scopes.setdefault(id(step.node), TrainingLoop(step.module, step.node, loop, loop_module))
        for call in self.index.calls_to(GRADIENT_TAPE):
            loop = call.module.enclosing_loop(call.node)
            if loop is not None and not (call.function is not None and self.index.is_compiled(call.function)) \
                    and m.findall(loop.body, _UPDATE_CALL):
                scopes.setdefault(id(loop), TrainingLoop(call.module, loop, loop, call.module))
        for scope in scopes.values():
            scope.node.body.visit(_TensorNames(scope, self._names_of))
        return list(scopes.values())

    def _names_of(self, call: cst.Call) -> frozenset[str]:
        site = self._call_at.get(id(call))
        return site.names if site is not None else frozenset()

    @staticmethod
    def _returns_python_values(function: FunctionInfo) -> bool:
        """Every ``return`` of ``function`` hands back Python values (``loss.numpy()``, ``float(loss)``), not
        tensors: reading them later costs no further sync."""
        returned = [r.value for r in m.findall(function.node.body, m.Return(value=m.DoNotCare()))
                    if r.value is not None]
        values = [e.value for r in returned for e in (r.elements if isinstance(r, cst.Tuple) else [cst.Element(r)])]
        host_value = m.Call(func=m.Attribute(attr=m.Name("numpy") | m.Name("item"))) | m.Call(
            func=m.Name(value=m.MatchIfTrue(VALUE_CONVERSIONS.__contains__))) | m.BaseNumber()
        return bool(values) and all(m.matches(v, host_value) for v in values)

    @staticmethod
    def side_effects(function: FunctionInfo) -> list[SideEffect]:
        """Python in ``function`` that runs only while tracing, or fails, once it is compiled."""
        visitor = _SideEffects(function.module)
        function.node.body.visit(visitor)
        return visitor.found

    # -- mapped functions ---------------------------------------------------------------------------------------
    def mapped_function(self, call: cst.Call, module: ModuleInfo, keyword: str = "map_func") -> MappedFunction | None:
        """The function a dataset method ``call`` (in ``module``) runs per element, when the source shows it."""
        value = argument_value(call, keyword, 0)
        if isinstance(value, cst.Lambda):
            return MappedFunction(value.body, module, None)
        if not isinstance(value, (cst.Name, cst.Attribute)):
            return None
        functions = self.index.functions_named(*module.qualified_names(value))
        if not functions and isinstance(value, cst.Name):
            functions = self._call_methods_of_instance(module, call, value.value)
        return MappedFunction(functions[0].node.body, functions[0].module, functions[0]) if functions else None

    def _call_methods_of_instance(self, module: ModuleInfo, near: cst.CSTNode, name: str) -> list[FunctionInfo]:
        """``__call__`` of the repo class whose instance ``name`` holds, bound by ``name = Class(...)`` in the scope of
        ``near`` (``train_process = RandomProcess(64)`` ... ``ds.map(train_process)``)."""
        scope = self.enclosing_function(module, near)
        for site in self.index.calls:
            if site.module is not module or site.function is not scope:
                continue
            binding = module.parent(site.node)
            if isinstance(binding, cst.Assign) and any(m.matches(t.target, m.Name(name)) for t in binding.targets):
                methods = self.index.functions_named(*(f"{n}.__call__" for n in site.names))
                if methods:
                    return methods
        return []

    def calls_run_by(self, function: MappedFunction) -> list[CallSite]:
        """The calls a mapped function makes per element, following the repo functions it calls."""
        if function.function is not None:
            found, pending = [], [function.function]
        else:
            found = [self._call_at[id(call)] for call in m.findall(function.body, m.Call())
                     if id(call) in self._call_at]
            pending = [f for site in found for f in self.index.functions_named(*site.names)]
        seen: set[int] = set()
        for _ in range(CALL_DEPTH):
            following = []
            for callee in pending:
                if id(callee.node) in seen:
                    continue
                seen.add(id(callee.node))
                calls = self.calls_in(callee)
                found += calls
                following += [f for site in calls for f in self.index.functions_named(*site.names)]
            pending = following
        return found

    def stateful_calls(self, function: MappedFunction) -> list[CallSite]:
        """Calls that make the mapped function stateful (random ops, Python functions)."""
        return [site for site in self.calls_run_by(function)
                if any(name.startswith(STATEFUL_OP_PREFIXES) and "stateless" not in name for name in site.names)]

    @cached_property
    def _call_at(self) -> dict[int, CallSite]:
        return {id(site.node): site for site in self.index.calls}

    @cached_property
    def hot_functions(self) -> HotFunctions:
        return HotFunctions(self.index)

    def enclosing_function(self, module: ModuleInfo, node: cst.CSTNode) -> FunctionInfo | None:
        """The function whose body holds ``node`` (for a ``def``'s own name: the function around that ``def``)."""
        parent = module.parent(node)
        if isinstance(node, cst.Name) and isinstance(parent, cst.FunctionDef):
            parent = module.parent(parent)
        while parent is not None and not isinstance(parent, cst.FunctionDef):
            parent = module.parent(parent)
        return self.index.function_of(parent) if parent is not None else None

    def host_costs(self, function: FunctionInfo) -> dict[str, cst.CSTNode]:
        """What ``function``'s own calls cost on the host (I/O, printing, syncs, saving...), first call per kind."""
        found: dict[str, cst.CSTNode] = {}
        for site in self.calls_in(function):
            what = next((label for name, label in COSTLY_NAMES.items() for callee in site.names
                         if callee == name or (name.endswith(".") and callee.startswith(name))), None)
            if what is None and isinstance(site.node.func, cst.Attribute):
                what = COSTLY_METHODS.get(site.node.func.attr.value)
            if what is not None:
                found.setdefault(what, site.node)
        return found

    # -- Keras --------------------------------------------------------------------------------------------------
    @cached_property
    def keras_compiles(self) -> list[CallSite]:
        """``X.compile(...)`` calls with a Keras-only keyword, or on an object the same module calls ``.fit`` on."""
        def receiver(call: CallSite) -> tuple[int, str]:
            return id(call.module), call.module.node_code(call.node.func.value)

        fitted = {receiver(c) for c in self.index.calls if m.matches(c.node.func, m.Attribute(attr=m.Name("fit")))}
        compiles = []
        for call in self.index.calls:
            if not m.matches(call.node.func, m.Attribute(attr=m.Name("compile"))):
                continue
            keywords = {a.keyword.value for a in call.node.args if a.keyword is not None}
            if keywords & COMPILE_KEYWORDS or receiver(call) in fitted:
                compiles.append(call)
        return compiles

    @cached_property
    def trains(self) -> bool:
        """Keras training (``compile``/``fit``/``train_on_batch``) or a custom loop (``tf.GradientTape``)."""
        trains = m.Attribute(attr=m.Name("fit") | m.Name("compile") | m.Name("train_on_batch"))
        return any(m.matches(c.node.func, trains) for c in self.index.calls) or \
            any(self.index.calls_to(GRADIENT_TAPE))

    @cached_property
    def uses_mixed_precision(self) -> bool:
        """A mixed-precision API call, or a ``"mixed_..."`` policy string, anywhere in the repo."""
        if any(self.index.calls_to(*MIXED_PRECISION_APIS)):
            return True
        policy_string = m.SimpleString(value=m.MatchIfTrue(lambda v: v.strip("\"'") in MIXED_POLICIES))
        # The text test first: walking every tree with a matcher costs more than all other rules together.
        return any(m.findall(module.tree, policy_string) for module in self.index.modules
                   if any(policy in module.code for policy in MIXED_POLICIES))

    @cached_property
    def first_model_construction(self) -> CallSite | None:
        """The first Keras layer or model construction, in a module that trains when there is one.

        Layers built inside a class (a custom layer's ``__init__``/``build``) are not where the program builds its
        model."""
        sites = [c for c in self.index.calls
                 if not (c.function is not None and c.function.class_key is not None)
                 and (c.names & (KERAS_INPUT | SEQUENTIAL | KERAS_MODEL)
                      or any(n.startswith(MODEL_BUILDING_PREFIXES) for n in c.names))]
        if not sites:
            return None
        trains = m.Attribute(attr=m.Name("fit") | m.Name("compile"))
        training_modules = {id(c.module) for c in self.index.calls if m.matches(c.node.func, trains)}

        def order(site: CallSite) -> tuple:
            start = site.module.location(site.node)
            return id(site.module) not in training_modules, site.module.path.as_posix(), start.line, start.column

        return min(sites, key=order)

    @staticmethod
    def sequential_output_layer(module: ModuleInfo, construction: cst.Call) -> cst.Call | None:
        """The last layer of ``Sequential([..., Dense(n)])`` when it is a Dense/Activation literal without a dtype."""
        if not module.qualified_names(construction.func) & SEQUENTIAL or not construction.args:
            return None
        layers = construction.args[0].value
        if not isinstance(layers, cst.List) or not layers.elements:
            return None
        last = layers.elements[-1].value
        if isinstance(last, cst.Call) and module.qualified_names(last.func) & OUTPUT_LAYERS \
                and argument_value(last, "dtype") is None:
            return last
        return None

    def is_output_layer(self, module: ModuleInfo, layer: cst.Call) -> bool:
        """The last layer of a ``Sequential([...])`` literal, or the layer whose output is a ``Model``'s outputs."""
        parent = module.parent(layer)
        if isinstance(parent, cst.Element):
            container = module.parent(parent)
            constructor = module.parent(module.parent(container)) if container is not None else None
            return isinstance(container, cst.List) and container.elements[-1] is parent \
                and isinstance(constructor, cst.Call) and bool(module.qualified_names(constructor.func) & SEQUENTIAL)
        # Functional API: `outputs = Dense(n)(x)` and `Model(inputs, outputs)` (or the applied layer passed directly).
        applied = parent if isinstance(parent, cst.Call) and parent.func is layer else None
        if applied is None:
            return False
        assignment = module.parent(applied)
        names = {t.target.value for t in assignment.targets if isinstance(t.target, cst.Name)} \
            if isinstance(assignment, cst.Assign) else set()
        return any(o is applied or (isinstance(o, cst.Name) and o.value in names)
                   for o in self._model_outputs(module))

    def is_data_sized(self, module: ModuleInfo, layer: cst.Call, constant: str | None) -> bool:
        """Whether a layer's size is set by the data rather than chosen: an output layer's (the class count), a
        softmax/sigmoid head's, or one written through a class-count constant (``NUM_CLASSES``)."""
        if constant is not None and DATA_SIZE_NAME.search(constant):
            return True
        activation = argument_value(layer, "activation")
        if isinstance(activation, cst.SimpleString) and activation.evaluated_value in OUTPUT_ACTIVATIONS:
            return True
        return self.is_output_layer(module, layer)

    def _model_outputs(self, module: ModuleInfo) -> list[cst.BaseExpression]:
        """The ``outputs`` expressions (or their elements) of the module's ``keras.Model(inputs, outputs)`` calls."""
        found: list[cst.BaseExpression] = []
        for site in self.index.calls_to(*KERAS_MODEL):
            if site.module is not module:
                continue
            value = argument_value(site.node, "outputs", 1)
            if isinstance(value, (cst.List, cst.Tuple)):
                found.extend(e.value for e in value.elements)
            elif value is not None:
                found.append(value)
        return found

    # -- values ---------------------------------------------------------------------------------------------------
    def integer_literal(self, module: ModuleInfo, value: cst.BaseExpression | None) -> IntegerLiteral | None:
        """The integer literal ``value`` is, or the module constant it names (``UNITS``, ``config.UNITS``) is bound
        to, in this module or another module of the repo."""
        if isinstance(value, cst.Integer):
            return IntegerLiteral(value, module, None)
        if isinstance(value, (cst.Name, cst.Attribute)):
            constant = self.index.constant(module, value)
            if constant is not None and isinstance(constant.value, cst.Integer):
                return IntegerLiteral(constant.value, constant.module, constant.name)
        return None

    @staticmethod
    def is_tensor_call(module: ModuleInfo, expression: cst.BaseExpression) -> bool:
        """``tf.constant(step)`` and the like: already a tensor, whatever Python it was made from."""
        return isinstance(expression, cst.Call) and any(
            n.startswith("tensorflow.") for n in module.qualified_names(expression.func))


def batch_parameter(hook: cst.FunctionDef) -> str | None:
    """The name of a Keras callback hook's batch index: the first positional parameter after ``self``."""
    positional = [*hook.params.posonly_params, *hook.params.params]
    return positional[1].name.value if len(positional) > 1 else None


def drops_remainder(batch: cst.Call) -> bool:
    """``.batch(n, drop_remainder=True)``: every batch has the same shape."""
    value = argument_value(batch, "drop_remainder", 1)
    return value is not None and not m.matches(value, m.Name("False"))


def compiled_function_name(call: cst.Call) -> str | None:
    """The Python function ``tf.function(f)`` compiles, by name: the capture names its calls after it."""
    first = call.args[0] if call.args else None
    return first.value.value if first is not None and first.keyword is None and isinstance(first.value, cst.Name) \
        else None
