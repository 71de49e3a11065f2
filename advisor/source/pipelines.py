"""The dataflow of tf.data pipelines, as a networkx graph.

Nodes are values: a dataset source call, a transformation call (``.map``), an opaque call whose result is used as a
dataset (``make_dataset(...)``), a function parameter, a function's returned value, a module-level name, an
attribute of a class's instances (``self.train_ds``), a name used where it is not bound (resolved across modules
later), and sinks (``model.fit(ds)``, ``for batch in ds``, a one-shot iterator). Edges say "flows into". The graph is
built while each module is visited once (:class:`PipelineCollector`), then linked across functions and modules
(:func:`link`), and read by rules as :class:`Pipeline` paths from a source to a sink.

Code is written in many ways that a single module cannot settle: ``make_dataset().map(f)`` is a dataset only if
``make_dataset`` returns one, ``from common import *`` hides where ``train_ds`` comes from, an input function returns
its pipeline to a consumer outside the repo (an Estimator). So a transformation whose receiver is not known to be a
dataset is recorded as *tentative* and kept only if linking shows a dataset flowing into it; and a pipeline that a
function returns to no visible caller ends there (sink role ``returned``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, Sequence

import libcst as cst
import libcst.matchers as m
import networkx as nx

from .facts import DATASET_FACTORY_OPS, DISTRIBUTE_METHODS, FunctionInfo, ModuleInfo, Pipeline, Sink, Stage
from .names import import_names
from .syntax import argument_value, literal, parameter_names
from .visitors import CollectorVisitor

# What makes a method a getter Python calls on reading its name as an attribute.
PROPERTY_DECORATORS = frozenset({"builtins.property", "functools.cached_property"})
DATASET_SOURCES = frozenset({
    "tensorflow.data.Dataset.from_tensor_slices", "tensorflow.data.Dataset.from_tensors",
    "tensorflow.data.Dataset.from_generator", "tensorflow.data.Dataset.range", "tensorflow.data.Dataset.list_files",
    "tensorflow.data.Dataset.load", "tensorflow.data.Dataset.counter",
    "tensorflow.data.TFRecordDataset", "tensorflow.data.TextLineDataset", "tensorflow.data.FixedLengthRecordDataset",
    "tensorflow.data.experimental.make_csv_dataset", "tensorflow.data.experimental.CsvDataset",
    "tensorflow.data.experimental.make_batched_features_dataset", "tensorflow.data.experimental.SqlDataset",
    "keras.utils.image_dataset_from_directory", "keras.utils.text_dataset_from_directory",
    "keras.utils.audio_dataset_from_directory", "keras.utils.timeseries_dataset_from_array",
    "keras.preprocessing.image_dataset_from_directory", "keras.preprocessing.text_dataset_from_directory",
    "tensorflow_datasets.load",
})

# Sources made of other datasets, given in their first argument (a tuple, list or dict of them): those flow in.
COMBINING_SOURCES = frozenset({
    "tensorflow.data.Dataset.zip", "tensorflow.data.Dataset.sample_from_datasets",
    "tensorflow.data.Dataset.choose_from_datasets", "tensorflow.data.experimental.sample_from_datasets",
    "tensorflow.data.experimental.choose_from_datasets",
})
ALL_SOURCES = DATASET_SOURCES | COMBINING_SOURCES  # (a combining source is a source)

# Methods of tf.data.Dataset that return a dataset.
DATASET_METHODS = frozenset({
    "map", "interleave", "flat_map", "filter", "batch", "padded_batch", "ragged_batch", "unbatch", "rebatch",
    "shuffle", "repeat", "cache", "prefetch", "take", "skip", "shard", "with_options", "apply", "window",
    "enumerate", "concatenate", "zip", "snapshot", "bucket_by_sequence_length", "group_by_window", "scan",
    "take_while", "unique", "ignore_errors", "assert_cardinality", "map_with_legacy_function", "sparse_batch",
})
# The subset no other common Python library has: enough to call an unknown receiver a dataset.
DISTINCTIVE_METHODS = DATASET_METHODS - {
    "map", "filter", "apply", "take", "skip", "zip", "concatenate", "repeat", "enumerate", "window", "unique",
    "scan", "shard", "cache",
}

# Libraries whose datasets share tf.data's method names (`map`, `shuffle`, `batch`, `filter`): Hugging Face
# `datasets`, pandas. What their calls return is theirs, whatever is called on it.
FOREIGN_DATA = ("datasets.", "pandas.", "polars.")
TRAIN_METHODS = {"fit": "train", "evaluate": "evaluate", "predict": "predict"}
# TF1 iterators over a dataset: where an input function's pipeline is consumed.
ITERATOR_METHODS = frozenset({"make_one_shot_iterator", "make_initializable_iterator"})
ITERATOR_FUNCTIONS = frozenset({"tensorflow.data.make_one_shot_iterator",
                                "tensorflow.data.make_initializable_iterator"})
# Calls that take a function and consume the datasets it returns, by method: inner datasets of a dataset method (no
# sink of their own; `group_by_window` batches each window with its `reduce_func`), or a strategy's distributed
# input; with the role they give them and the function's parameter (keyword, position).
FUNCTION_CONSUMERS = {**dict.fromkeys(DATASET_FACTORY_OPS, ("inner", "map_func", 0)),
                      "group_by_window": ("inner", "reduce_func", 1),
                      "distribute_datasets_from_function": ("distribute", "dataset_fn", 0)}
# `estimator.train(input_fn=...)` trains on what input_fn returns; evaluate/predict do not.
INPUT_FN_ROLES = {"train": "train", "evaluate": "evaluate", "predict": "predict"}
ESTIMATOR_SPECS = frozenset({"tensorflow.estimator.TrainSpec", "tensorflow.estimator.EvalSpec"})
ESTIMATOR_SPECS_ROLE = {"tensorflow.estimator.TrainSpec": "train", "tensorflow.estimator.EvalSpec": "evaluate"}
# A function with some of its arguments given: calling it calls the function (`functools.partial(input_fn, files)`).
PARTIAL = frozenset({"functools.partial"})
# Progress bars wrap what they iterate and hand its elements on: `for batch in tqdm(dataset)` reads the dataset.
PROGRESS_BARS = frozenset({"tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm", "tqdm.tqdm_notebook"})
# A returned pipeline whose function is named like this feeds evaluation or inference, not training.
NOT_TRAINING_NAME = re.compile(r"eval|valid|test|predict|infer|serv", re.IGNORECASE)
TRAINING_NAME = re.compile(r"train", re.IGNORECASE)


def named_for_evaluation(names: Sequence[str]) -> bool:
    """Whether a function's name, or else the name of a function around it (``names``: innermost first), says its
    data is for evaluation: ``eval_input_fn``, or the ``input_fn`` that ``predict_input_fn_builder`` returns. Of
    the names around it, the first naming training or evaluation decides, and one naming both is training's
    (``train_and_eval_input_fns``)."""
    if names and NOT_TRAINING_NAME.search(names[0]):
        return True
    for name in names:
        if TRAINING_NAME.search(name):
            return False
        if NOT_TRAINING_NAME.search(name):
            return True
    return False


# --- graph node keys -------------------------------------------------------------------------------------------
# ("call", id(node))            a Call whose result is a value of interest (a dataset stage or an opaque call)
# ("item", id(node), i)         element i of a call's tuple result (``train, val = make_datasets()``)
# ("param", func_key, name)     a function parameter
# ("return", func_key, i)       what a function returns (i is None, or the tuple position)
# ("global", module, name)      a module-level name, as its module's code leaves it
# ("attr", class_key, name)     ``self.name`` of a class's instances
# ("ref", module, id(node))     a name used where nothing binds it: a global of this or another module
# ("sink", id(node), role)      where a dataset is consumed
# ("join", id(if), name)        a name after an `if` whose branches bound it to different values
# ("entry", id(dict), key)      the value a dict literal holds under a string key (``{"train": make(...)}``)
# ("collection", id(dict))      a dict literal's values together: what a key no source line spells reads; also
#                               those stored in it later (``datasets[split] = ds`` into ``datasets = {}``)


@dataclass
class _Scope:
    func_key: str | None
    params: tuple[str, ...] = ()
    bindings: dict[str, tuple] = field(default_factory=dict)
    assigned: set[str] = field(default_factory=set)  # names assigned so far (a parameter rebound decides nothing)
    accessor: bool = False  # a property's getter (`@property def source(self): return self._source`)


@dataclass(frozen=True)
class ParameterTest:
    """What an ``if`` branch needs of a parameter of its function: ``if shuffle:`` runs its body when the value
    passed for ``shuffle`` is true."""

    function: str
    parameter: str
    truth: bool

    @property
    def negated(self) -> ParameterTest:
        return ParameterTest(self.function, self.parameter, not self.truth)


def literal_truth(expr: cst.BaseExpression) -> bool | None:
    """The truth of a literal (``True``, ``None``, ``0``, ``"train"``); None for anything else."""
    if isinstance(expr, (cst.Integer, cst.SimpleString)) or \
            isinstance(expr, cst.Name) and expr.value in ("True", "False", "None"):
        return bool(literal(expr))
    return None


Truths = tuple[tuple[int | str, "bool | None"], ...]  # (position or keyword, truth of the literal passed, if one)


def literal_truths(args: Iterable[cst.Arg], first: int = 0) -> Truths:
    """(position from ``first``, or keyword; its truth where it is a literal) of each argument among ``args``."""
    return tuple((arg.keyword.value if arg.keyword else position, literal_truth(arg.value))
                 for position, arg in enumerate(args, start=-first) if not arg.star and position >= 0)


def decided_parameters(callee: FunctionInfo, skipped: int, truths: Truths, spread: bool) -> dict[str, bool]:
    """The truth of each of ``callee``'s parameters a call settles: a literal it passes, or the literal default of
    one it leaves out (when it passes no ``*args``/``**kwargs``). ``skipped``: leading parameters a call does not
    pass (``self``)."""
    params = callee.node.params
    decided = {} if spread else {
        param.name.value: truth for param in (*params.posonly_params, *params.params, *params.kwonly_params)
        if param.default is not None and (truth := literal_truth(param.default)) is not None}
    for position_or_name, truth in truths:
        if isinstance(position_or_name, int):
            position = position_or_name + skipped
            if position >= len(callee.params):
                continue
            position_or_name = callee.params[position]
        if truth is None:
            decided.pop(position_or_name, None)
        else:
            decided[position_or_name] = truth
    return decided


@dataclass(frozen=True)
class PendingCall:
    """A call that may be to a function of the repo, with the values passed to it (linked after all modules)."""

    node: cst.Call
    names: frozenset[str]
    arguments: tuple[tuple[int | str, tuple], ...]  # (position or keyword, graph key of the value)
    module: ModuleInfo
    truths: Truths = ()  # what it passes where (:func:`literal_truths`)
    spread: bool = False  # passes ``*args`` or ``**kwargs``: which defaults it leaves is unknown


class PipelineCollector(CollectorVisitor):
    """Adds one module's dataset values, transformations and sinks to the repo-wide graph."""

    def __init__(self, module: ModuleInfo, graph: nx.DiGraph, pending_calls: list[PendingCall]) -> None:
        super().__init__()
        self.module = module
        self.graph = graph
        self.pending_calls = pending_calls
        self.scopes: list[_Scope] = [_Scope(func_key=None)]
        # the `if` statements being visited: (their scope, its bindings before them, the bindings each branch left,
        # the parameter test deciding which branch runs)
        self.branches: list[tuple[_Scope, dict[str, tuple], list[dict[str, tuple]], ParameterTest | None]] = []
        self.path: list[tuple[str, bool]] = []  # enclosing classes and functions: (name, is a class)
        # tf.data.Options objects: id(Options() call) -> {"experimental_optimization.map_parallelization": False}
        self.options_settings: dict[int, dict[str, object]] = {}

    # -- helpers ------------------------------------------------------------------------------------------------
    @property
    def class_key(self) -> str | None:
        """The key of the innermost enclosing class (what ``self`` is an instance of), if any."""
        classes = [i for i, (_, is_class) in enumerate(self.path) if is_class]
        if not classes:
            return None
        names = [name for name, _ in self.path[:classes[-1] + 1]]
        return self.module.function_key(names[:-1], names[-1])

    def qualified(self, node: cst.CSTNode) -> frozenset[str]:
        return self.module.names.resolve(node, self.class_key)

    def _foreign(self, names: frozenset[str]) -> bool:
        """A call into another data library (:data:`FOREIGN_DATA`), not into a repo module of the same name (TF-Slim
        repos have a `datasets/` package)."""
        return any(n.startswith(FOREIGN_DATA) and n.rsplit(".", 1)[0] not in self.module.names.repo_modules
                   for n in names)

    def _names_module(self, expr: cst.BaseExpression, names: frozenset[str]) -> bool:
        """A module (``import utils``, the repo's ``from libml import layers``), whose functions are no dataset's
        methods: ``layers.interleave(logits, batch)`` regroups a list of tensors."""
        return (isinstance(expr, cst.Name) and expr.value in self.module.names.imported_modules) or any(
            n in self.module.names.repo_modules for n in names)

    def lookup(self, name: str) -> tuple | None:
        """The value ``name`` is bound to here: the innermost scope first (closures see their outer functions)."""
        for scope in reversed(self.scopes):
            if name in scope.bindings:
                return scope.bindings[name]
            if name in scope.params:
                return ("param", scope.func_key, name)
        return None

    def value_of(self, expr: cst.BaseExpression) -> tuple | None:
        """The graph key of the value an expression stands for, adding its node if needed; None if unknown."""
        if isinstance(expr, cst.Subscript):  # `datasets["train"]`: an element of a collection of datasets
            collection = self.value_of(expr.value)
            entries = self.graph.nodes[collection].get("entries", {}) if collection is not None else {}
            index = expr.slice[0].slice if len(expr.slice) == 1 else None
            key = literal(index.value) if isinstance(index, cst.Index) else None
            return entries.get(key, collection) if isinstance(key, str) else collection
        if isinstance(expr, cst.Call) and expr.args and not expr.args[0].keyword and \
                self.qualified(expr.func) & PROGRESS_BARS:
            return self.value_of(expr.args[0].value)
        if isinstance(expr, cst.Call):
            key = ("call", id(expr))
            if key not in self.graph:
                self.graph.add_node(key, kind="opaque", node=expr, module=self.module,
                                    foreign=self._foreign(self.qualified(expr.func)))
            return key
        if isinstance(expr, cst.Name):
            key = self.lookup(expr.value)
            if key is not None:
                return self._node(key)
        if self._self_attribute(expr) is not None:
            return self._node(("attr", self.class_key, self._self_attribute(expr)))
        names = self.qualified(expr) if isinstance(expr, (cst.Name, cst.Attribute)) else frozenset()
        if not names or any(n.startswith(("tensorflow.", "keras.", "builtins.", "numpy.")) for n in names) or \
                self._names_module(expr, names):
            return None
        key = ("ref", self.module.name, id(expr))
        self.graph.add_node(key, kind="ref", names=names)
        return key

    def _node(self, key: tuple) -> tuple:
        """``key``, added to the graph (as a node of its own kind) if it is not there yet."""
        if key not in self.graph:
            self.graph.add_node(key, kind=key[0])
        return key

    def _self_attribute(self, expr: cst.BaseExpression) -> str | None:
        if self.class_key is not None and isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) \
                and expr.value.value == "self":
            return expr.attr.value
        return None

    def add_stage(self, node: cst.Call, op: str, is_source: bool, tentative: bool = False) -> tuple:
        key = ("call", id(node))
        self.graph.add_node(key, kind="stage", stage=Stage(op, is_source, node, self.module, False),
                            tentative=tentative)
        return key

    def is_dataset(self, key: tuple) -> bool:
        """Known to be a dataset already (a stage flows into it); linking may show more later."""
        return _is_dataset(self.graph, key)

    # -- scopes -------------------------------------------------------------------------------------------------
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.path.append((node.name.value, True))

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.path.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        key = self.module.function_key([name for name, _ in self.path], node.name.value)
        if id(node) in self.module.superseded_functions:
            # no call reaches its pipelines: the name's calls link to the definition that replaced it
            key = f"{key}@{id(node)}"
        accessor = any(m.matches(decorator.decorator, m.Name() | m.Attribute()) and
                       self.qualified(decorator.decorator) & PROPERTY_DECORATORS for decorator in node.decorators)
        self.scopes.append(_Scope(func_key=key, params=parameter_names(node), accessor=accessor))
        self.path.append((node.name.value, False))

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.scopes.pop()
        self.path.pop()

    # -- branches -----------------------------------------------------------------------------------------------
    # Each branch of an `if`/`elif`/`else` starts from the bindings before the statement. After it, a name the
    # branches bind to different values stands for any of them (a join node), so `if a: ds = ds.map(f)
    # else: ds = ds.map(g)` makes two pipelines, not one that maps f and then g. Where the test is a parameter
    # (`if shuffle_and_repeat:`), each value's edge into the join says which truth of it the value needs: a call that
    # passes the other one returns the other value (:func:`_feasible`).
    def visit_If(self, node: cst.If) -> None:
        scope = self.scopes[-1]
        self.branches.append((scope, dict(scope.bindings), [], self._parameter_test(node.test)))

    def _parameter_test(self, test: cst.BaseExpression) -> ParameterTest | None:
        """``if training:`` or ``if not training:`` on a parameter of this function that it has not rebound."""
        scope = self.scopes[-1]
        truth = True
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test, truth = test.expression, False
        if scope.func_key is None or not isinstance(test, cst.Name) or test.value not in scope.params or \
                test.value in scope.assigned:
            return None
        return ParameterTest(scope.func_key, test.value, truth)

    def leave_If_body(self, node: cst.If) -> None:
        scope, before, outcomes, _ = self.branches[-1]
        outcomes.append(scope.bindings)
        scope.bindings = dict(before)

    def leave_If(self, original_node: cst.If) -> None:
        scope, _, outcomes, test = self.branches.pop()
        outcomes.append(scope.bindings)  # what the else branch (or elif chain) left, or the bindings before
        merged: dict[str, tuple] = {}
        for name in dict.fromkeys(name for outcome in outcomes for name in outcome):
            values = list(dict.fromkeys(outcome[name] for outcome in outcomes if name in outcome))
            if len(values) == 1:
                merged[name] = values[0]
                continue
            join = ("join", id(original_node), name)
            self.graph.add_node(join, kind="join")
            for value in values:
                sides = [i for i, outcome in enumerate(outcomes) if outcome.get(name) == value]
                if test is not None and len(sides) == 1:  # only the body (0) or only the rest (1) leaves it
                    self.graph.add_edge(value, join, when=test if sides == [0] else test.negated)
                else:
                    self.graph.add_edge(value, join)
            merged[name] = join
        scope.bindings = merged

    # -- values -------------------------------------------------------------------------------------------------
    def leave_Call(self, original_node: cst.Call) -> None:
        node = original_node
        func = node.func
        names = self.qualified(func)
        self._record_functions_passed(node, names)
        if names & ALL_SOURCES:
            op = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) \
                else "source"
            key = self.add_stage(node, op, is_source=True)
            if names & COMBINING_SOURCES and node.args:  # `Dataset.zip((images, labels))`: both flow in
                combined = node.args[0].value
                parts = [e.value for e in combined.elements] if isinstance(combined, (cst.Tuple, cst.List)) else \
                    [e.value for e in combined.elements if isinstance(e, cst.DictElement)] \
                    if isinstance(combined, cst.Dict) else [combined]
                for part in parts:
                    other = self.value_of(part) if isinstance(part, cst.Name) else None
                    if other is not None and self.is_dataset(other):
                        self.graph.add_edge(other, key)
            return
        if "tensorflow.data.Options" in names:
            self.options_settings[id(node)] = {}
            return
        if names & ITERATOR_FUNCTIONS and node.args:
            self._add_sink(node.args[0].value, node, "iter")
            return
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if method in DATASET_METHODS:
                receiver = self.value_of(func.value)
                if receiver is not None and self.graph.nodes[receiver].get("foreign"):
                    # Another library's dataset (`load_dataset("emotion").map(tokenize).shuffle(seed=42)`): what
                    # its methods return is its own too.
                    self.graph.add_node(("call", id(node)), kind="opaque", node=node, module=self.module,
                                        foreign=True)
                    return
                if receiver is not None:
                    # A receiver no dataset is yet seen flowing into (a call, a name bound in another module or in
                    # either branch of an `if`, an attribute, a parameter) is a dataset only if linking shows one
                    # flowing in: pandas has `map` and `filter` too.
                    known = method in DISTINCTIVE_METHODS or self.is_dataset(receiver)
                    key = self.add_stage(node, method, is_source=False, tentative=not known)
                    self.graph.add_edge(receiver, key)
                    if method == "with_options" and node.args:  # the Options object, as bound where it is applied
                        self.graph.nodes[key]["options_of"] = self._key_of(node.args[0].value)
                    for arg in node.args:  # concatenate/zip: the other dataset flows in too
                        other = self.value_of(arg.value) if isinstance(arg.value, cst.Name) else None
                        if other is not None and self.is_dataset(other):
                            self.graph.add_edge(other, key)
                    return
            if method in ITERATOR_METHODS:
                self._add_sink(func.value, node, "iter")
                return
            if method == "make_initializer" and node.args:  # TF1's reinitializable iterator, fed each dataset
                self._add_sink(node.args[0].value, node, "iter")
                return
            if method in DISTRIBUTE_METHODS and node.args:
                # The strategy hands the same batches on: whoever reads the distributed dataset (a loop over it, an
                # iterator) consumes the pipeline; one nobody is seen reading ends here (_end_distributed_pipelines).
                value = self.value_of(node.args[0].value)
                if value is not None:
                    self.graph.add_node(("call", id(node)), kind="distributed", node=node, module=self.module)
                    self.graph.add_edge(value, ("call", id(node)))
                return
            if method in TRAIN_METHODS:
                self._train_sinks(node, TRAIN_METHODS[method])
                return
        if names & {"builtins.iter"} and node.args:
            self._add_sink(node.args[0].value, node, "iter")
            return
        if not any(n.startswith(("tensorflow.", "keras.", "builtins.", "numpy.")) for n in names):
            self._record_possible_repo_call(node, names)

    def _train_sinks(self, node: cst.Call, role: str) -> None:
        data = argument_value(node, "x", 0)
        if data is not None:
            self._add_sink(data, node, role)
        validation = argument_value(node, "validation_data")
        if role == "train" and validation is not None:
            self._add_sink(validation, node, "validation")

    def _add_sink(self, expr: cst.BaseExpression, node: cst.CSTNode, role: str) -> None:
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and \
                expr.func.attr.value == "as_numpy_iterator":  # the dataset's elements, handed over as NumPy arrays
            expr = expr.func.value
        value = self.value_of(expr)
        if value is None:
            return
        key = ("sink", id(node), role)
        self.graph.add_node(key, kind="sink", sink=Sink(role, node, self.module))
        self.graph.add_edge(value, key)

    def _record_functions_passed(self, node: cst.Call, names: frozenset[str]) -> None:
        """Functions handed to a call that calls them later: where what they return is consumed.

        An Estimator trains on what ``input_fn`` returns, ``interleave``/``flat_map`` consume the datasets their
        function returns as inner datasets (``group_by_window`` those its ``reduce_func`` batches), a strategy
        distributes the dataset its function makes. A lambda's value flows there directly; a named function's
        returns are linked once every module is read (:func:`link`)."""
        method = node.func.attr.value if isinstance(node.func, cst.Attribute) else None
        for position, arg in enumerate(node.args):
            keyword = arg.keyword.value if arg.keyword is not None else None
            if method in FUNCTION_CONSUMERS and (keyword or position) in FUNCTION_CONSUMERS[method][1:]:
                role = FUNCTION_CONSUMERS[method][0]
            elif keyword == "input_fn" or position == 0 and keyword is None and method in INPUT_FN_ROLES:
                # (an Estimator's `train(input_fn)`; another object's `train(x)` hands it no repo function returning
                # a dataset, which is all this links)
                specs = names & ESTIMATOR_SPECS
                role = ESTIMATOR_SPECS_ROLE[next(iter(specs))] if specs else INPUT_FN_ROLES.get(method or "", "train")
            else:
                continue
            partial = self._partial_call(arg.value)
            value = partial.args[0].value if partial is not None else arg.value
            truths = literal_truths(partial.args, first=1) if partial is not None else ()
            if isinstance(value, cst.Lambda):
                returned = self.value_of(value.body)
                if returned is not None:
                    self.graph.add_edge(returned, _consumer(self.graph, role, node, self.module))
            elif isinstance(value, (cst.Name, cst.Attribute)) and (passed := self.qualified(value)):
                self.graph.graph.setdefault("passed_functions", []).append((passed, role, node, self.module, truths))

    def _partial_call(self, expr: cst.BaseExpression) -> cst.Call | None:
        """The ``functools.partial(function, ...)`` call ``expr`` is, written here or bound to the name ``expr``
        before (``train_input = functools.partial(input_fn, train_files)``)."""
        bound = self.lookup(expr.value) if isinstance(expr, cst.Name) else None
        call = self.graph.nodes[bound].get("node") if bound is not None and bound in self.graph else expr
        if isinstance(call, cst.Call) and call.args and call.args[0].keyword is None and \
                self.qualified(call.func) & PARTIAL:
            return call
        return None

    def _record_possible_repo_call(self, node: cst.Call, names: frozenset[str]) -> None:
        """Remember a call that may be to a function of this repo, with the values passed to it.

        Whether the callee exists (and returns a dataset or takes one) is known only once every module has been
        visited, so linking happens in :func:`link`.
        """
        if not names:
            return
        arguments = []
        for position, arg in enumerate(node.args):
            if arg.star:
                continue
            value = self.value_of(arg.value) if isinstance(arg.value, (cst.Name, cst.Call, cst.Attribute,
                                                                        cst.Subscript)) else None
            if value is not None:
                arguments.append((arg.keyword.value if arg.keyword else position, value))
        self.pending_calls.append(PendingCall(node, names, tuple(arguments), self.module, literal_truths(node.args),
                                              any(arg.star for arg in node.args)))

    def visit_For(self, node: cst.For) -> None:
        iterable = node.iter
        if isinstance(iterable, cst.Call) and self.qualified(iterable.func) & {"builtins.enumerate", "builtins.zip"} \
                and iterable.args:
            iterable = iterable.args[0].value
        self._add_sink(iterable, node, "loop")

    # -- bindings -----------------------------------------------------------------------------------------------
    def leave_Assign(self, original_node: cst.Assign) -> None:
        value = original_node.value
        for target in original_node.targets:
            self.scopes[-1].assigned.update(name.value for name in m.findall(target.target, m.Name()))
            self._bind(target.target, value)

    def leave_AugAssign(self, original_node: cst.AugAssign) -> None:
        self.scopes[-1].assigned.update(name.value for name in m.findall(original_node.target, m.Name()))

    def leave_AnnAssign(self, original_node: cst.AnnAssign) -> None:
        if original_node.value is not None:
            self._bind(original_node.target, original_node.value)

    def _bind(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        bindings = self.scopes[-1].bindings
        if isinstance(target, cst.Name):
            key = self._key_of(value)
            if key is not None:
                bindings[target.value] = key
            else:
                bindings.pop(target.value, None)
        elif isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, cst.Call):
            # A source that returns its datasets with more (`datasets, info = tfds.load(..., with_info=True)`):
            # they flow into what it is unpacked to (a repo function's returns are linked by position instead).
            source = ("call", id(value)) if self.graph.nodes.get(("call", id(value)), {}).get("kind") == "stage" \
                else None
            for i, element in enumerate(target.elements):
                if isinstance(element.value, cst.Name):
                    item = ("item", id(value), i)
                    bindings[element.value.value] = item
                    self.graph.add_node(item, kind="item", node=value, module=self.module)
                    if source is not None:
                        self.graph.add_edge(source, item)
        elif isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, (cst.Tuple, cst.List)) and \
                len(target.elements) == len(value.elements):
            # `train_ds, test_ds = datasets["train"], datasets["test"]`: each name its own value, all read first
            keys = [self._key_of(element.value) for element in value.elements]
            for element, key in zip(target.elements, keys):
                if isinstance(element.value, cst.Name) and key is not None:
                    bindings[element.value.value] = key
                elif isinstance(element.value, cst.Name):
                    bindings.pop(element.value.value, None)
        elif self._self_attribute(target) is not None:
            key = self._key_of(value)
            if key is not None:
                self.graph.add_edge(key, self._node(("attr", self.class_key, self._self_attribute(target))))
        elif isinstance(target, cst.Attribute):
            self._record_option(target, value)
        elif isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
            self._store_entry(target, value)

    def _store_entry(self, target: cst.Subscript, value: cst.BaseExpression) -> None:
        """``datasets[split] = ds``: the dict the name holds (``datasets = {}``) holds the value too, as the entry of
        that key where a string spells it (``datasets["train"]`` then reads it alone)."""
        key = self._key_of(value)
        held = self.lookup(target.value.value)
        if key is None or held is None or held[0] != "collection":
            return
        index = target.slice[0].slice if len(target.slice) == 1 else None
        name = literal(index.value) if isinstance(index, cst.Index) else None
        if isinstance(name, str):
            entry = self.graph.nodes[held]["entries"].setdefault(name, self._node(("entry", held[1], name)))
            self.graph.add_edge(entry, held)
            self.graph.add_edge(key, entry)
        else:
            self.graph.add_edge(key, held)

    def _key_of(self, value: cst.BaseExpression) -> tuple | None:
        if isinstance(value, (cst.Call, cst.Name, cst.Subscript)) or self._self_attribute(value) is not None:
            return self.value_of(value)
        if isinstance(value, cst.Dict):
            return self._collection(value)
        return None

    def _collection(self, held: cst.Dict) -> tuple | None:
        """The node for a dict literal of values (``batches = {"train": make(train_dir), "test": make(test_dir)}``):
        each string key's value an entry of its own, so ``batches["train"]`` reads the training one alone. An empty
        one is filled later (:meth:`_store_entry`)."""
        entries = {}
        for element in held.elements:
            value = self._key_of(element.value) if isinstance(element, cst.DictElement) else None
            key = literal(element.key) if isinstance(element, cst.DictElement) else None
            if value is not None and isinstance(key, str):
                entries[key] = self._node(("entry", id(held), key))
                self.graph.add_edge(value, entries[key])
        if not entries and held.elements:
            return None
        collection = ("collection", id(held))
        self.graph.add_node(collection, kind="collection", entries=entries)
        for entry in entries.values():
            self.graph.add_edge(entry, collection)
        return collection

    def _record_option(self, target: cst.Attribute, value: cst.BaseExpression) -> None:
        """``options.experimental_optimization.map_parallelization = False`` -> a setting of that Options()."""
        path = []
        expr: cst.BaseExpression = target
        while isinstance(expr, cst.Attribute):
            path.append(expr.attr.value)
            expr = expr.value
        if not isinstance(expr, cst.Name):
            return
        key = self.lookup(expr.value)
        if key is None or key[0] != "call" or key[1] not in self.options_settings:
            return
        setting = literal(value) if isinstance(value, (cst.Name, cst.Integer)) else None
        self.options_settings[key[1]][".".join(reversed(path))] = setting

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.graph.graph.setdefault("read_attributes", set()).add(node.attr.value)

    def leave_Return(self, original_node: cst.Return) -> None:
        func_key = self.scopes[-1].func_key
        value = original_node.value
        if func_key is None or value is None:
            return
        elements = [e.value for e in value.elements] if isinstance(value, cst.Tuple) else [value]
        for i, element in enumerate(elements):
            source = self.value_of(element)
            if source is not None:
                target = ("return", func_key, i if isinstance(value, cst.Tuple) else None)
                self.graph.add_node(target, kind="return", node=original_node, module=self.module,
                                    function=func_key.rsplit(".", 1)[-1],
                                    accessor=self.scopes[-1].accessor,
                                    around=[name for name, in_class in reversed(self.path[:-1]) if not in_class])
                self.graph.add_edge(source, target)

    def leave_Expr(self, original_node: cst.Expr) -> None:
        """A dataset transformation used as a statement: its result is lost."""
        call = original_node.value
        key = ("call", id(call))
        if isinstance(call, cst.Call) and self.graph.nodes.get(key, {}).get("kind") == "stage":
            stage: Stage = self.graph.nodes[key]["stage"]
            self.graph.nodes[key]["stage"] = Stage(stage.op, stage.is_source, stage.node, stage.module, True)

    def leave_Module(self, original_node: cst.Module) -> None:
        # Options are known only after the whole module is read (they are often set after with_options).
        for key, data in list(self.graph.nodes(data=True)):
            stage = data.get("stage")
            if stage is not None and stage.module is self.module and stage.op == "with_options":
                options = data.pop("options_of", None)
                data["options"] = self.options_settings.get(options[1], {}) if options and options[0] == "call" else {}
        # What module-level names hold once the module has run: the value other modules and functions see.
        for name, value in self.scopes[0].bindings.items():
            key = ("global", self.module.name, name)
            self.graph.add_node(key, kind="global")
            self.graph.add_edge(value, key)


def _is_dataset(graph: nx.DiGraph, key: tuple) -> bool:
    def real_stage(node: tuple) -> bool:
        data = graph.nodes[node]
        return data["kind"] == "stage" and not data["tentative"]

    return real_stage(key) or any(real_stage(a) for a in nx.ancestors(graph, key))


Callees = Callable[[frozenset[str]], list[tuple[FunctionInfo, int]]]


def merge(dataflow: nx.DiGraph, module_flow: nx.DiGraph) -> None:
    """Add one module's dataflow to the repo's: its nodes and edges, and what it keeps for :func:`link` (the
    functions it hands to consumers, the attributes it reads) beside every other module's."""
    dataflow.add_nodes_from(module_flow.nodes(data=True))
    dataflow.add_edges_from(module_flow.edges(data=True))
    dataflow.graph.setdefault("passed_functions", []).extend(module_flow.graph.get("passed_functions", ()))
    dataflow.graph.setdefault("read_attributes", set()).update(module_flow.graph.get("read_attributes", ()))


def link(graph: nx.DiGraph, pending_calls: list[PendingCall], callees: Callees) -> None:
    """Connect what single modules could not: calls with the repo functions they call (arguments into parameters,
    returns into the call's value), names with the module-level values they refer to, then settle tentative
    stages and give returned pipelines that no visible caller consumes their end.

    ``callees`` maps a call's qualified names to the repo functions it may call, each with the number of leading
    parameters a call does not pass (1 for ``self`` of a method or a constructor's ``__init__``).
    """
    _link_calls(graph, pending_calls, callees)
    _link_references(graph)
    _settle_tentative_stages(graph)
    _link_functions_passed(graph, callees)
    _end_returned_pipelines(graph)
    _end_distributed_pipelines(graph)


def _link_calls(graph: nx.DiGraph, pending_calls: list[PendingCall], callees: Callees) -> None:
    returns_by_function: dict[str, list[tuple]] = {}
    for node in graph.nodes:
        if node[0] == "return":
            returns_by_function.setdefault(node[1], []).append(node)
    for call in pending_calls:
        for callee, skipped in callees(call.names):
            for ret in returns_by_function.get(callee.key, ()):
                target = ("call", id(call.node)) if ret[2] is None else ("item", id(call.node), ret[2])
                if target not in graph:
                    graph.add_node(target, kind="opaque" if ret[2] is None else "item", node=call.node,
                                   module=call.module)
                graph.add_edge(ret, target, passed=decided_parameters(callee, skipped, call.truths, call.spread))
            for position_or_name, value in call.arguments:
                if isinstance(position_or_name, int):
                    position = position_or_name + skipped
                    if position >= len(callee.params):  # into *args: no named parameter to follow
                        continue
                    name = callee.params[position]
                else:
                    name = position_or_name
                graph.add_node(("param", callee.key, name), kind="param")
                graph.add_edge(value, ("param", callee.key, name))


def _link_references(graph: nx.DiGraph) -> None:
    """A name used where nothing binds it (``train_ds`` from ``from data import *``, or a global assigned below the
    function that reads it) takes the value of the module-level name it resolves to, by any suffix of its dotted
    name (repos are run from different roots)."""
    by_name: dict[str, list[tuple]] = {}
    for node in graph.nodes:
        if node[0] == "global":
            for name in import_names(f"{node[1]}.{node[2]}"):
                by_name.setdefault(name, []).append(node)
    for node, data in list(graph.nodes(data=True)):
        if data["kind"] == "ref":
            for name in data["names"]:
                for target in by_name.get(name, ()):
                    graph.add_edge(target, node)


def _settle_tentative_stages(graph: nx.DiGraph) -> None:
    """A tentative stage is a real one when a real stage flows into it, or when it flows into one (`builder.
    as_dataset()["train"].take(100).map(f).shuffle(64)`: no other library's `map` result has a `shuffle`);
    otherwise the call is just a call."""
    real = [n for n, d in graph.nodes(data=True) if d["kind"] == "stage" and not d["tentative"]]
    fed = set().union(*(nx.descendants(graph, n) | nx.ancestors(graph, n) for n in real)) if real else set()
    for node, data in graph.nodes(data=True):
        if data["kind"] == "stage" and data["tentative"]:
            if node in fed:
                data["tentative"] = False
            else:
                stage = data.pop("stage")
                data.update(kind="opaque", node=stage.node, module=stage.module, tentative=False)


def _link_functions_passed(graph: nx.DiGraph, callees: Callees) -> None:
    """What a function handed to a consumer returns flows where that consumer puts it: an Estimator's ``train``
    makes it a training pipeline; ``interleave`` consumes it as an inner dataset (it needs no prefetch)."""
    returns_by_function: dict[str, list[tuple]] = {}
    for node in graph.nodes:
        if node[0] == "return":
            returns_by_function.setdefault(node[1], []).append(node)
    for names, role, call, module, truths in graph.graph.get("passed_functions", ()):
        for function, skipped in callees(names):
            for ret in returns_by_function.get(function.key, ()):
                # (the consumer calls it with nothing a parameter test reads: a partial's arguments or the defaults)
                graph.add_edge(ret, _consumer(graph, role, call, module),
                               passed=decided_parameters(function, skipped, truths, spread=False))


def _consumer(graph: nx.DiGraph, role: str, call: cst.Call, module: ModuleInfo) -> tuple:
    """The node for the consumer ``call`` of a function's datasets: a sink of ``role``, or for an inner dataset of
    an interleave a node that ends the flow without a pipeline end of its own."""
    key = ("sink", id(call), role)
    if key not in graph:
        if role == "inner":
            graph.add_node(key, kind="consumed")
        else:
            graph.add_node(key, kind="sink", sink=Sink(role, call, module))
    return key


def _end_returned_pipelines(graph: nx.DiGraph) -> None:
    """A dataset a function returns to no caller the repo shows (an Estimator's input function, a library
    function, a method called on an object of unknown type) is consumed out of sight: its pipeline ends at the
    ``return``, where the findings about its last stages can go; that caller may still add a stage, which the
    source does not show. No end at a property whose name the repo reads (``self.source``, then ``.map(...)`` of
    what it holds): reading it continues the pipeline."""
    read_attributes = graph.graph.get("read_attributes", set())
    for node, data in list(graph.nodes(data=True)):
        if data["kind"] == "return" and graph.out_degree(node) == 0 and _is_dataset(graph, node) \
                and not (data.get("accessor") and data["function"] in read_attributes):
            role = "returned_eval" if named_for_evaluation([data["function"], *data["around"]]) else "returned"
            sink = ("sink", id(data["node"]), role)
            graph.add_node(sink, kind="sink", sink=Sink(role, data["node"], data["module"], data["function"]))
            graph.add_edge(node, sink)


def _end_distributed_pipelines(graph: nx.DiGraph) -> None:
    """A strategy's distributed dataset that no code is seen reading (handed to a function of another library, an
    iterator made out of sight) is consumed by the strategy: its pipeline ends at the distributing call."""
    for node, data in list(graph.nodes(data=True)):
        if data["kind"] == "distributed" and not any(graph.nodes[d]["kind"] == "sink"
                                                      for d in nx.descendants(graph, node)):
            sink = ("sink", id(data["node"]), "distribute")
            graph.add_node(sink, kind="sink", sink=Sink("distribute", data["node"], data["module"]))
            graph.add_edge(node, sink)


def pipelines(graph: nx.DiGraph) -> Iterator[Pipeline]:
    """Every source-to-sink path that passes through at least one dataset stage."""
    sinks = [n for n, d in graph.nodes(data=True) if d["kind"] == "sink"]
    roots = [n for n in graph.nodes if graph.in_degree(n) == 0]
    for sink_key in sinks:
        ancestors = nx.ancestors(graph, sink_key)
        for root in roots:
            if root not in ancestors:
                continue
            for path in nx.all_simple_paths(graph, root, sink_key, cutoff=64):
                if not _feasible(graph, path):
                    continue
                stages = tuple(graph.nodes[n]["stage"] for n in path if graph.nodes[n]["kind"] == "stage")
                if not stages:
                    continue
                options: dict[str, object] = {}
                for n in path:
                    options.update(graph.nodes[n].get("options", {}))
                yield Pipeline(stages, graph.nodes[sink_key]["sink"], options)


def _feasible(graph: nx.DiGraph, path: list[tuple]) -> bool:
    """Whether every branch the path takes can run for the call its function returns to: the branch a parameter
    test leaves the dataset in (``if shuffle_and_repeat: ds = ds.shuffle(n).repeat()``) against what that call
    passes for the parameter (``functools.partial(input_fn, files, shuffle_and_repeat=True)``, or the default)."""
    for place, (value, join) in enumerate(zip(path, path[1:])):
        test: ParameterTest | None = graph.edges[value, join].get("when")
        if test is None:
            continue
        for node, after in zip(path[place + 1:], path[place + 2:]):
            if node[0] == "return" and node[1] == test.function:
                if graph.edges[node, after].get("passed", {}).get(test.parameter, test.truth) != test.truth:
                    return False
                break
    return True


def discarded_successors(graph: nx.DiGraph, stage_node: cst.Call) -> list[Stage]:
    """Stages applied to ``stage_node``'s dataset whose results were thrown away."""
    key = ("call", id(stage_node))
    if key not in graph:
        return []
    return [graph.nodes[s]["stage"] for s in graph.successors(key)
            if graph.nodes[s]["kind"] == "stage" and graph.nodes[s]["stage"].discarded]
