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
import networkx as nx

from ..model import Reach
from .facts import CallSite, ClassInfo, FunctionInfo, ModuleInfo, Pipeline
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
# Python run from the graph (tf.py_function and friends), by the callee's canonical name.
PYTHON_FUNCTION_OPS = frozenset({"tensorflow.py_function", "tensorflow.numpy_function", "tensorflow.py_func"})
# Calls that wait rather than compute: sleeping, file, network and image/array I/O. They release the GIL, so
# several run at once when tf.data calls the Python function in parallel (measured: 1.8x on 2 cores).
WAITING_PREFIXES = ("time.sleep", "builtins.open", "requests.", "urllib.", "socket.", "http.", "PIL.Image.open",
                    "cv2.imread", "cv2.VideoCapture", "imageio.", "skimage.io.", "numpy.load", "numpy.fromfile",
                    "h5py.", "tensorflow.io.gfile.", "tensorflow.io.read_file", "scipy.io.", "soundfile.",
                    "librosa.load", "pandas.read_", "pickle.load", "json.load", "os.read", "boto3.")
# Python libraries that compute on arrays and images on the host.
PYTHON_COMPUTE_PREFIXES = ("numpy.", "PIL.", "cv2.", "scipy.", "skimage.", "librosa.", "albumentations.")
WAITING_METHODS = frozenset({"read", "readline", "readlines", "recv", "download_file", "get_object"})
# How deep to follow repo functions called from a mapped function.
CALL_DEPTH = 3
# Calls that train a model, by method name (receivers are rarely typed): Keras, and Estimators given an input_fn.
TRAINING_METHODS = frozenset({"fit", "fit_generator", "train_on_batch"})
ESTIMATOR_TRAINING = frozenset({"tensorflow.estimator.train_and_evaluate"})
NOT_KERAS_PREFIXES = ("sklearn.", "numpy.", "pandas.", "scipy.", "xgboost.", "lightgbm.")
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

    def throttles(self, statement: cst.CSTNode) -> bool:
        """Whether ``statement`` runs only on some steps: inside an ``if`` on a step interval (``if step % 100 ==
        0:``) or on the loop's counter, whose test reads no tensor of the step."""
        module, node = self.module, statement
        parent = module.parent(node)
        while parent is not None and parent is not self.node:
            if isinstance(parent, cst.If) and node is not parent.test and not any(
                    n.value in self.tensors for n in m.findall(parent.test, m.Name())) and (
                    m.findall(parent.test, m.Modulo()) or (self.counter is not None and any(
                        n.value == self.counter for n in m.findall(parent.test, m.Name())))):
                return True
            node, parent = parent, module.parent(parent)
        return False

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
            context = HotContext(f"for every element of the dataset `.{stage.op}()` at "
                                 f"{stage.module.location(stage.anchor).line_label}", where, in_dataset=True)
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

    # -- training reachability ---------------------------------------------------------------------------------
    def reach(self, module: ModuleInfo, node: cst.CSTNode) -> Reach:
        """Whether a training run reaches ``node``: the code around it (its function, or its module's top level)
        is on the way from an entry point to training, or is called from there. :attr:`Reach.UNKNOWN` when the
        repo shows no training."""
        reached = self._reached
        if reached is None:
            return Reach.UNKNOWN
        if isinstance(node, cst.FunctionDef):
            key = id(node)
        else:
            function = self.enclosing_function(module, node)
            key = id(function.node) if function is not None else ("module", id(module))
        return Reach.TRAINING if key in reached else Reach.OTHER

    @cached_property
    def _reached(self) -> set | None:
        """Code a training run reaches: what leads from an entry point to a training call, and everything that code
        calls (data, model building, the step, callbacks). None when nothing trains."""
        graph = self._call_graph
        anchors = {self._caller_key(site) for site in self._training_calls}
        anchors |= {id(step.node) for step in self.training_steps}
        if not anchors:
            return None
        roots = set(anchors)
        for anchor in anchors:
            roots |= nx.ancestors(graph, anchor)
        reached = set(roots)
        for root in roots:
            reached |= nx.descendants(graph, root)
        return reached

    @cached_property
    def _call_graph(self) -> nx.DiGraph:
        """Functions and modules' top-level code, an edge for each call between them; instantiating a repo class
        reaches all its methods (Keras calls `call`, callbacks' hooks, `train_step` by itself)."""
        graph = nx.DiGraph()
        graph.add_nodes_from(("module", id(module)) for module in self.index.modules)
        graph.add_nodes_from(id(function.node) for function in self.index.functions)
        methods_by_class: dict[str, list[FunctionInfo]] = {}
        for function in self.index.functions:
            if function.class_key is not None:
                methods_by_class.setdefault(function.class_key, []).append(function)
        for site in self.index.calls:
            caller = self._caller_key(site)
            for callee in self.callees_of(site) + self._functions_passed(site):
                graph.add_edge(caller, id(callee.node))
                if callee.name == "__init__":
                    graph.add_edges_from((caller, id(method.node)) for method in methods_by_class[callee.class_key])
            for cls_info in self._classes_named(site.names):
                graph.add_edges_from((caller, id(method.node)) for method in methods_by_class.get(cls_info.key, ()))
        for function in self.index.functions:  # a nested function runs when its outer function does
            if function.outer is not None:
                graph.add_edge(id(function.outer.node), id(function.node))
        return graph

    def _functions_passed(self, site: CallSite) -> list[FunctionInfo]:
        """Repo functions handed to a call to be called later: ``ds.map(decode)``, ``tf.function(step)``,
        ``LambdaCallback(on_batch_end=log)``."""
        class_key = site.function.class_key if site.function is not None else None
        return [f for arg in site.node.args if isinstance(arg.value, (cst.Name, cst.Attribute))
                for f in self.index.functions_named(*site.module.names.resolve(arg.value, class_key))]

    def feeds_training(self, pipeline: Pipeline) -> bool:
        """Whether ``pipeline`` feeds training: ``fit``, a distribution strategy, a function's return (out of
        sight, but named like training data), or a loop or iterator in code that runs training steps (a loop over
        a dataset that only predicts or prints does not)."""
        sink = pipeline.sink
        if sink.role not in ("loop", "iter"):
            return sink.is_training
        if sink.role == "loop" and any(loop.node is sink.node for loop in self.training_loops):
            return True
        scope = self.enclosing_function(sink.module, sink.node)
        key = id(scope.node) if scope is not None else ("module", id(sink.module))
        return any(self._caller_key(site) == key for site in self._training_calls) or any(
            (id(loop.node) if isinstance(loop.node, cst.FunctionDef) else None) == key
            or (self.enclosing_function(loop.module, loop.node) is scope and loop.module is sink.module)
            for loop in self.training_loops)

    def python_batches(self, loop: TrainingLoop) -> list[FunctionInfo]:
        """When a training loop iterates over batches that Python makes (``for x, y in Batches():`` with a repo
        class's ``__next__``/``__iter__``, or a repo generator function): the functions that make each batch."""
        if not isinstance(loop.node, cst.For):
            return []
        iterable = loop.node.iter
        if isinstance(iterable, cst.Call) and m.matches(iterable.func, m.Name("enumerate")) and iterable.args:
            iterable = iterable.args[0].value
        if isinstance(iterable, cst.Name):
            bound = self.bound_call(loop.module, loop.node, iterable.value)
            iterable = bound.node if bound is not None else iterable
        site = self._call_at.get(id(iterable)) if isinstance(iterable, cst.Call) else None
        if site is None:
            return []
        makers = [method for cls_info in self._classes_named(site.names) for method in self.index.methods_of(cls_info)
                  if method.name in ("__next__", "__iter__", "__getitem__")]
        generators = [f for f in self.callees_of(site) if m.findall(f.node.body, m.Yield())]
        return makers + generators

    def _classes_named(self, names: frozenset[str]) -> list[ClassInfo]:
        """Repo classes a callee's names may refer to (``Net()``, ``models.Net()``), by suffix as for functions."""
        return [c for name in names for c in self._classes_by_name.get(name, ())]

    @cached_property
    def _classes_by_name(self) -> dict[str, list[ClassInfo]]:
        by_name: dict[str, list[ClassInfo]] = {}
        for cls_info in self.index.classes:
            parts = cls_info.key.split(".")
            for start in range(len(parts) - 1):
                by_name.setdefault(".".join(parts[start:]), []).append(cls_info)
        return by_name

    @staticmethod
    def _caller_key(site: CallSite) -> int | tuple:
        return id(site.function.node) if site.function is not None else ("module", id(site.module))

    @cached_property
    def _training_calls(self) -> list[CallSite]:
        """Calls that train: Keras ``fit``/``train_on_batch``, an Estimator's ``train(input_fn=...)``,
        ``train_and_evaluate``, and calls of the repo's training steps."""
        found = []
        for site in self.index.calls:
            method = site.node.func.attr.value if isinstance(site.node.func, cst.Attribute) else None
            if site.names & ESTIMATOR_TRAINING or (method == "train" and argument_value(site.node, "input_fn")):
                found.append(site)
            elif method in TRAINING_METHODS and not any(n.startswith(NOT_KERAS_PREFIXES) for n in site.names):
                found.append(site)
        found += [c for step in self.training_steps for c in self.callers_of(step)]
        return found

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
        """The function a call (in ``module``) is given to run: what a dataset method runs per element, or the
        Python a ``tf.py_function`` runs (``keyword="func"``), when the source shows it."""
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
        bound = self.bound_call(module, near, name)
        return self.index.functions_named(*(f"{n}.__call__" for n in bound.names)) if bound is not None else []

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

    def waiting_calls(self, python_function_call: CallSite) -> list[CallSite]:
        """For a ``tf.py_function``/``numpy_function`` call: the calls its Python makes that wait (sleep, file or
        network I/O) rather than compute; empty when it computes, or when the source does not show its Python."""
        function = self.mapped_function(python_function_call.node, python_function_call.module, "func")
        if function is None:
            return []
        return [site for site in self.calls_run_by(function)
                if any(name.startswith(WAITING_PREFIXES) for name in site.names)
                or (not site.names and isinstance(site.node.func, cst.Attribute)
                    and site.node.func.attr.value in WAITING_METHODS)]

    def python_work(self, function: MappedFunction) -> list[CallSite]:
        """Calls of a Python function (a generator, an iterator's ``__next__``) that do real host work: I/O, or
        array and image computation in NumPy, PIL or OpenCV."""
        return [site for site in self.calls_run_by(function)
                if any(name.startswith(WAITING_PREFIXES + PYTHON_COMPUTE_PREFIXES) for name in site.names)]

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
        """The repo trains a model: Keras ``compile``/``fit``/``train_on_batch``, an Estimator, or a custom loop
        that updates weights (a GradientTape alone may only compute gradients of an input, as visualizations do)."""
        return bool(self._training_calls or self.keras_compiles or self.training_loops)

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
    def model_construction(self) -> CallSite | None:
        """Where the program builds the model it trains: the construction of a model that a training call
        (``model.fit``) trains, followed into the builder function that makes it; else the first Keras layer or
        model construction of code a training run reaches, in a module that trains when there is one.

        Layers built inside a class (a custom layer's ``__init__``/``build``) are not where the program builds its
        model; instantiating a repo subclass of ``keras.Model`` is."""
        trained = [c for site in self._training_calls for c in self._constructions_of_receiver(site)]
        if trained:
            return min(trained, key=self._source_order)
        sites = [c for c in self.index.calls if self._builds_model(c) and not (
            c.function is not None and c.function.class_key is not None)
            and self.reach(c.module, c.node) is not Reach.OTHER]
        if not sites:
            return None
        trains = m.Attribute(attr=m.Name("fit") | m.Name("compile"))
        training_modules = {id(c.module) for c in self.index.calls if m.matches(c.node.func, trains)}
        return min(sites, key=lambda c: (id(c.module) not in training_modules, *self._source_order(c)))

    @staticmethod
    def _source_order(site: CallSite) -> tuple:
        start = site.module.location(site.node)
        return site.module.path.as_posix(), start.line, start.column

    def _builds_model(self, site: CallSite) -> bool:
        """A Keras layer, input or model construction, or the instantiation of a repo ``keras.Model`` subclass."""
        return bool(site.names & (KERAS_INPUT | SEQUENTIAL | KERAS_MODEL)) or any(
            n.startswith(MODEL_BUILDING_PREFIXES) for n in site.names) or any(
            c.key in self._keras_model_classes for c in self._classes_named(site.names))

    @cached_property
    def _keras_model_classes(self) -> set[str]:
        return {c.key for base in KERAS_MODEL for c in self.index.subclasses_of(base)}

    def _constructions_of_receiver(self, training: CallSite) -> list[CallSite]:
        """For ``model.fit(...)``: the model constructions that made ``model``, through the builder functions that
        return it (``model = build_model()``)."""
        receiver = training.node.func.value if isinstance(training.node.func, cst.Attribute) else None
        if not isinstance(receiver, cst.Name):
            return []
        bound = self.bound_call(training.module, training.node, receiver.value)
        return self._constructions_in_call(bound, CALL_DEPTH) if bound is not None else []

    def _constructions_in_call(self, site: CallSite, depth: int) -> list[CallSite]:
        if self._builds_model(site):
            return [site]
        if depth == 0:
            return []
        found = []
        for builder in self.callees_of(site):
            calls = sorted(self.calls_in(builder), key=self._source_order)
            layers = [c for c in calls if self._builds_model(c)]
            found += layers[:1] or [c for call in calls for c in self._constructions_in_call(call, depth - 1)][:1]
        return found

    def bound_call(self, module: ModuleInfo, near: cst.CSTNode, name: str) -> CallSite | None:
        """The call whose result ``name`` holds where ``near`` is: ``name = call(...)`` in the same function (or at
        module level, for code at module level), the last such binding before ``near``."""
        scope = self.enclosing_function(module, near)
        line = module.location(near).line
        bindings = [site for site in self.index.calls
                    if site.module is module and site.function is scope and self._binds(site, name)
                    and module.location(site.node).line <= line]
        return max(bindings, key=self._source_order) if bindings else None

    @staticmethod
    def _binds(site: CallSite, name: str) -> bool:
        binding = site.module.parent(site.node)
        return isinstance(binding, cst.Assign) and any(m.matches(t.target, m.Name(name)) for t in binding.targets)

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
        """The last layer of a ``Sequential([...])`` literal, the layer whose output is a ``Model``'s outputs, or
        the layer a subclassed model's ``call`` returns the output of (``self.head = Dense(10)`` ... ``return
        self.head(x)``)."""
        parent = module.parent(layer)
        attribute = self._assigned_self_attribute(module, parent)
        if attribute is not None:
            return attribute in self._returned_layer_attributes(module, layer)
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

    @staticmethod
    def _assigned_self_attribute(module: ModuleInfo, node: cst.CSTNode | None) -> str | None:
        """``head`` when ``node`` is the statement ``self.head = ...``."""
        if not isinstance(node, cst.Assign):
            return None
        targets = [t.target for t in node.targets]
        if len(targets) == 1 and m.matches(targets[0], m.Attribute(value=m.Name("self"), attr=m.Name())):
            return targets[0].attr.value
        return None

    def _returned_layer_attributes(self, module: ModuleInfo, near: cst.CSTNode) -> set[str]:
        """The ``self.X`` layers whose outputs the ``call`` method of the class holding ``near`` returns, directly
        (``return self.X(h)``) or through a name (``out = self.X(h)`` ... ``return out``)."""
        function = self.enclosing_function(module, near)
        methods = [f for f in self.index.functions if function is not None and f.class_key == function.class_key
                   and f.name == "call"]
        found: set[str] = set()
        applied_self = m.Call(func=m.Attribute(value=m.Name("self"), attr=m.Name()))
        for method in methods:
            outputs = {}
            for statement in m.findall(method.node.body, m.Assign(value=applied_self)):
                for target in statement.targets:
                    if isinstance(target.target, cst.Name):
                        outputs[target.target.value] = statement.value.func.attr.value
            for returned in m.findall(method.node.body, m.Return(value=m.DoNotCare())):
                value = returned.value
                if m.matches(value, applied_self):
                    found.add(value.func.attr.value)
                elif isinstance(value, cst.Name) and value.value in outputs:
                    found.add(outputs[value.value])
        return found

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
