"""What the source index knows, as data: parsed modules, call sites, functions, classes, module constants, and the
tf.data pipelines (stages, sinks, source-to-sink paths) read from them.

Built by :mod:`advisor.source.index` (and its dataflow collector :mod:`advisor.source.pipelines`); read by queries,
verdicts and rules. Nothing here parses or walks: the nodes are the index's own parsed trees.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path, PurePosixPath
from typing import Mapping

import libcst as cst
import libcst.matchers as m
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from ..model import Location
from .names import ModuleNames
from .notebook import NOTEBOOK_SUFFIX, Notebook
from .python2 import libcst_reading
from .syntax import superseded_definitions
from .visitors import parents

# Calls that wrap a dataset without adding a stage of the input pipeline.
DISTRIBUTE_METHODS = frozenset({"experimental_distribute_dataset", "distribute_datasets_from_function"})
# Operations that change no element of the data: they add no stage of work.
PASS_THROUGH_OPS = frozenset({"with_options"}) | DISTRIBUTE_METHODS
# Stages whose function makes a whole dataset per element it is given (a file's records): it runs per file.
DATASET_FACTORY_OPS = frozenset({"interleave", "flat_map", "parallel_interleave"})

@dataclass
class ModuleInfo:
    """One parsed file: its text, its tree (shared by all rules and codemods), and its resolved metadata."""

    path: Path  # relative to the repo root
    absolute: Path
    code: str
    wrapper: MetadataWrapper = field(repr=False)
    names: ModuleNames = field(repr=False)
    encoding: str = "utf-8"
    newline: str = "\n"
    notebook: Notebook | None = field(default=None, repr=False)  # the notebook whose code cells this module is
    # The file as read, when the code is a reading of it libcst parses (python2.py: Python 2 statements, tabs in the
    # indentation): no fix may rewrite that file.
    as_read: bytes | None = field(default=None, repr=False)

    @classmethod
    def of(cls, path: Path, absolute: Path, tree: cst.Module, data: bytes,
           notebook: Notebook | None = None, as_read: bytes | None = None) -> "ModuleInfo":
        """Wrap a tree freshly parsed from ``data`` (the wrapper may share it: nobody else holds it).

        libcst reproduces its input exactly, so the text is the decoded input: no code generation needed.
        """
        return cls(path, absolute, data.decode(tree.encoding), MetadataWrapper(tree, unsafe_skip_copy=True),
                   ModuleNames.of(tree, *module_and_package(path)), tree.encoding, tree.default_newline, notebook,
                   as_read)

    @classmethod
    def of_notebook(cls, path: Path, absolute: Path, data: bytes,
                    python3_parses: bool = True) -> tuple["ModuleInfo", list[str]]:
        """The module of a notebook file's code cells, and what of it was left out (one line each, with ``path``):
        cells in other languages, and cells that do not parse (Jupyter runs each cell on its own, so the others
        are still analysed); ``python3_parses``: whether CPython reads its code. Raises :class:`NotebookError` for
        a file that is not a notebook advisor reads, and ``ParserSyntaxError`` when the cells parse one by one but
        not together."""
        notebook = Notebook.parse(data)
        where = path.as_posix()
        # The rest of the notebook is analysed: the note says so, or a reader takes the whole notebook for skipped.
        notes = [f"{where}: analysed without {', '.join(notebook.left_out)}"] if notebook.left_out else []
        try:
            # From text, not bytes: a coding cookie in a cell says nothing about the notebook's encoding.
            tree = cst.parse_module(notebook.code)
        except cst.ParserSyntaxError:
            # An old notebook's cells, read as libcst parses them (Python 2 statements, tabs in the indentation):
            # their lines stay where they are, so findings map back to them; fixes don't (columns moved).
            reading = libcst_reading(notebook.code, python3_parses)
            try:
                tree = cst.parse_module(reading[0]) if reading is not None else None
            except cst.ParserSyntaxError:
                tree = None
            if tree is not None:
                notes.append(f"{where}: {reading[1]}")
                return cls.of(path, absolute, tree, reading[0].encode(tree.encoding), notebook, as_read=data), notes
            # The error's position is not always where the error is: find the cells that do not parse alone.
            for cell in notebook.cells:
                try:
                    cst.parse_module(cell.code)
                except cst.ParserSyntaxError as exc:
                    notes.append(f"{where}:cell {cell.number}: cell skipped, syntax error: {exc.message}")
                    notebook = notebook.without(cell)
            tree = cst.parse_module(notebook.code)
        return cls.of(path, absolute, tree, notebook.code.encode(tree.encoding), notebook), notes

    @property
    def file_bytes(self) -> bytes:
        """The file as read: the module's text, or the notebook's JSON. Encoded from the text, which is the tree's
        code exactly (libcst's ``Module.bytes`` would generate it again from the tree, a pass over every node)."""
        if self.as_read is not None:
            return self.as_read
        return self.notebook.text.encode("utf-8") if self.notebook is not None else self.code.encode(self.encoding)

    def frame_offset(self, file_name: str) -> int | None:
        """What to add to the line of a Python frame in ``file_name`` to get this module's line; None when the frame
        is not this module's code (a notebook's frames name its cells the way its kernel does)."""
        if self.notebook is not None:
            return self.notebook.frame_offset(file_name)
        return 0 if file_name.replace("\\", "/").rsplit("/", 1)[-1] == self.path.name else None

    @property
    def tree(self) -> cst.Module:
        return self.wrapper.module

    @property
    def name(self) -> str:
        """The dotted module name the file would be imported as from the repo root (``pkg/data.py`` -> ``pkg.data``)."""
        return self.names.module_name

    @property
    def package(self) -> str:
        return self.names.package

    def function_key(self, scope_names: list[str], name: str) -> str:
        """The key of a definition: the module, the classes and functions it is defined in, its name
        (``train.Trainer.fit``; a closure ``step`` in ``main``: ``train.main.step``)."""
        return ".".join(filter(None, [self.name, *scope_names, name]))

    def position(self, node: cst.CSTNode) -> CodeRange:
        return self._positions[node]

    @cached_property
    def _positions(self) -> Mapping[cst.CSTNode, CodeRange]:
        """``PositionProvider``'s metadata, computed once and kept in the wrapper, where codemods read it too.

        Not ``wrapper.resolve(PositionProvider)``: after a provider that is not batchable, libcst runs one batched
        visit for the batchable providers left, even when none is, and that visit rebuilds every node of the tree;
        it cost as much as the positions themselves.
        """
        metadata = self.wrapper._metadata  # private, but what the resolver reads first: a provider there is done
        if PositionProvider not in metadata:
            metadata[PositionProvider] = PositionProvider()._gen(self.wrapper)
        return metadata[PositionProvider]

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self._parents.get(node)

    @cached_property
    def _parents(self) -> dict[cst.CSTNode, cst.CSTNode]:
        return parents(self.tree)

    @cached_property
    def superseded_functions(self) -> frozenset[int]:
        """``id``s of the module-level functions defined again before anything names them
        (:func:`superseded_definitions`): no call runs them."""
        return frozenset(map(id, superseded_definitions(self.tree)))

    def enclosing_loop(self, node: cst.CSTNode) -> cst.For | cst.While | None:
        """The innermost ``for``/``while`` whose body runs ``node`` once per iteration, in ``node``'s own scope.

        A definition (function, lambda, class) between the two ends the search: its body runs when it is called.
        A ``def``'s own name is where the definition runs: a function defined anew in each iteration.
        """
        child, parent = node, self.parent(node)
        if isinstance(parent, cst.FunctionDef) and parent.name is node:
            child, parent = parent, self.parent(parent)
        while parent is not None and not isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            if isinstance(parent, (cst.For, cst.While)) and child is parent.body:
                return parent
            child, parent = parent, self.parent(parent)
        return None

    def binding_loop(self, name: cst.Name) -> cst.For | cst.CompFor | None:
        """The innermost ``for`` or comprehension around ``name``, in its own scope, that binds it to each value it
        runs over (see :func:`loop_iterable`): a counter ``for i in range(n)``, an element ``for i, filters in
        enumerate(sizes)`` or ``for filters, kernel in zip(num_filters, kernel_sizes)``."""
        child, parent = name, self.parent(name)
        while parent is not None and not isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            if isinstance(parent, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
                loops, loop = [], parent.for_in
                while loop is not None:
                    loops.append(loop)
                    loop = loop.inner_for_in
            else:
                loops = [parent] if isinstance(parent, cst.For) and child is parent.body else []
            binding = next((loop for loop in reversed(loops) if loop_iterable(loop, name.value) is not None), None)
            if binding is not None:
                return binding
            child, parent = parent, self.parent(parent)
        return None

    def range_stop(self, name: cst.Name) -> cst.BaseExpression | None:
        """The stop of ``range(...)`` where the loop that binds ``name`` counts it (``Conv1D(filters=i + 1) for i
        in range(n)``): ``name`` is below that stop."""
        binding = self.binding_loop(name)
        return counted_stop(binding) if binding is not None else None

    def qualified_names(self, node: cst.CSTNode) -> frozenset[str]:
        """Canonical dotted names that ``node`` (a Name or Attribute) refers to, through the module's imports; a
        bare name, to the function of that name defined in a function around it, if any (a closure)."""
        if not (isinstance(node, cst.Name) and node.value in self.names.nested_functions):
            return self.names.resolve(node)
        scopes, parent = [], self.parent(node)
        while parent is not None:
            if isinstance(parent, (cst.FunctionDef, cst.ClassDef)):
                scopes.append(parent.name.value)
            parent = self.parent(parent)
        return self.names.resolve(node, scopes=scopes[::-1])

    def location(self, node: cst.CSTNode, end_node: cst.CSTNode | None = None) -> Location:
        start = self.position(node)
        end = self.position(end_node) if end_node is not None else start
        span = (start.start.line, start.start.column + 1, end.end.line, end.end.column + 1)
        return Location(self.path, *span, cell=self.notebook.span(*span) if self.notebook is not None else None)

    def node_code(self, node: cst.CSTNode) -> str:
        return self.tree.code_for_node(node)

    def line_text(self, line: int) -> str:
        lines = self.code.splitlines()
        return lines[line - 1] if 0 < line <= len(lines) else ""


def module_and_package(path: Path) -> tuple[str, str]:
    """``pkg/data.py`` -> (``pkg.data``, ``pkg``); ``pkg/__init__.py`` -> (``pkg``, ``pkg``); a notebook
    ``pkg/data.ipynb`` -> (``pkg.data[ipynb]``, ``pkg``): no import reaches a notebook, and its definitions are not
    those of the script exported beside it (``pkg/data.py``, whose ``Agent`` is another class than the notebook's)."""
    parts = list(PurePosixPath(path.as_posix()).with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts.pop()
        return ".".join(parts), ".".join(parts)
    if parts and path.suffix == NOTEBOOK_SUFFIX:
        parts[-1] += "[ipynb]"
    return ".".join(parts), ".".join(parts[:-1])


@dataclass(frozen=True)
class CallSite:
    node: cst.Call
    names: frozenset[str]  # canonical qualified names of the callee
    module: ModuleInfo
    function: "FunctionInfo | None"  # the innermost enclosing function


@dataclass(frozen=True)
class FunctionInfo:
    key: str  # "pkg.module.Class.method"
    name: str
    params: tuple[str, ...]
    node: cst.FunctionDef
    module: ModuleInfo
    class_key: str | None
    decorators: frozenset[str]  # canonical qualified names of the decorators
    outer: "FunctionInfo | None" = field(default=None, repr=False)  # the function this one is defined in


@dataclass(frozen=True)
class Constant:
    """A module-level name bound exactly once, by a plain ``NAME = value`` statement."""

    name: str
    value: cst.BaseExpression
    module: ModuleInfo


@dataclass(frozen=True)
class ClassInfo:
    key: str
    name: str
    bases: frozenset[str]  # canonical qualified names of the base classes
    node: cst.ClassDef
    module: ModuleInfo


@dataclass(frozen=True)
class Stage:
    """One dataset-producing call of a pipeline (a source or a transformation)."""

    op: str  # "from_tensor_slices", "map", "prefetch", ...
    is_source: bool
    node: cst.Call
    module: "ModuleInfo"
    discarded: bool  # the call's result is thrown away (``ds.prefetch(2)`` as a statement)

    @property
    def makes_datasets(self) -> bool:
        """Its function returns a dataset per element it is given (``files.interleave(tf.data.TFRecordDataset)``)."""
        return self.op in DATASET_FACTORY_OPS

    @property
    def anchor(self) -> cst.CSTNode:
        """The node findings point at: the method name of ``ds.map(...)``, so the report names the ``.map(`` line."""
        func = self.node.func
        return func.attr if isinstance(func, cst.Attribute) else func


@dataclass(frozen=True)
class Sink:
    """Where a pipeline is consumed."""

    # "train", "validation", "evaluate", "predict", "loop", "iter", "distribute"; "returned" / "returned_eval": a
    # function returns it to a consumer the repo does not show (named like evaluation code: "returned_eval")
    role: str
    node: cst.CSTNode
    module: "ModuleInfo"
    function: str | None = None  # for returned pipelines: the function that returns it

    @property
    def is_training(self) -> bool:
        return self.role in ("train", "loop", "iter", "distribute", "returned")

    @property
    def described(self) -> str:
        """The role in words: "returned evaluation" for "returned_eval"."""
        return "returned evaluation" if self.role == "returned_eval" else self.role

    @property
    def evaluation_use(self) -> str | None:
        """"validation", "evaluation" or "prediction" where the consumer is evaluation code for certain (not the
        input training steps wait for); None otherwise."""
        return {"validation": "validation", "evaluate": "evaluation", "predict": "prediction",
                "returned_eval": "evaluation"}.get(self.role)


@dataclass(frozen=True)
class Pipeline:
    """One path through the dataflow graph from where a dataset starts to where it is consumed."""

    stages: tuple[Stage, ...]
    sink: Sink
    options: dict[str, object] = field(default_factory=dict, compare=False, hash=False)

    @property
    def last_stage(self) -> Stage:
        return self.stages[-1]

    @property
    def working_stages(self) -> list[Stage]:
        """The stages that do work on the elements (``with_options`` and distribution wrappers left out)."""
        return [s for s in self.stages if s.op not in PASS_THROUGH_OPS]

    def ops(self) -> list[str]:
        return [s.op for s in self.stages]

    @property
    def modules(self) -> list[ModuleInfo]:
        """The modules that build or consume the pipeline."""
        return [*(s.module for s in self.stages), self.sink.module]

    def runtime_optimization(self, name: str) -> bool | None:
        """Whether tf.data's run-time rewrite ``name`` (``map_parallelization``, ``inject_prefetch``) is on.

        True or False when the pipeline's ``tf.data.Options`` say so (``apply_default_optimizations = False``
        turns the default rewrites off); None when the options leave TensorFlow's default in force.
        """
        explicit = self.options.get(f"experimental_optimization.{name}")
        if isinstance(explicit, bool):
            return explicit
        if self.options.get("experimental_optimization.apply_default_optimizations") is False:
            return False
        return None


def counted_stop(loop: cst.For | cst.CompFor) -> cst.BaseExpression | None:
    """The stop of the ``range(stop)`` or ``range(start, stop)`` that ``loop`` counts over, if it does."""
    counted = m.matches(loop.iter, m.Call(func=m.Name("range"))) and len(loop.iter.args) in (1, 2) and all(
        arg.keyword is None and not arg.star for arg in loop.iter.args)
    return loop.iter.args[-1].value if counted else None


def loop_iterable(loop: cst.For | cst.CompFor, name: str) -> cst.BaseExpression | None:
    """What the loop takes the values of ``name`` from: its iterable for ``for name in ...``, followed through
    ``enumerate`` and ``zip`` as the target unpacks them (``for i, (filters, kernel) in enumerate(zip(num_filters,
    kernel_sizes))``: ``num_filters`` for ``filters``); None where the loop does not bind ``name`` to an item (an
    ``enumerate`` index)."""
    def through(target: cst.BaseExpression, iterable: cst.BaseExpression) -> cst.BaseExpression | None:
        if isinstance(target, cst.Name):
            return iterable if target.value == name else None
        if not isinstance(target, (cst.Tuple, cst.List)) or not isinstance(iterable, cst.Call):
            return None
        parts = [element.value for element in target.elements]
        if m.matches(iterable.func, m.Name("enumerate")) and len(parts) == 2 and iterable.args:
            return through(parts[1], iterable.args[0].value)
        if m.matches(iterable.func, m.Name("zip")) and len(parts) == len(iterable.args) and \
                not any(arg.star for arg in iterable.args):
            return next((found for part, arg in zip(parts, iterable.args)
                         if (found := through(part, arg.value)) is not None), None)
        return None
    return through(loop.target, loop.iter)


def loop_element(loop: cst.For | cst.CompFor) -> str | None:
    """The name a loop binds each value it runs over to: ``for filters in ...``, ``for i, filters in
    enumerate(...)``."""
    if isinstance(loop.target, cst.Name):
        return loop.target.value
    if m.matches(loop.iter, m.Call(func=m.Name("enumerate"))) and m.matches(
            loop.target, m.Tuple(elements=[m.DoNotCare(), m.Element(value=m.Name())])):
        return loop.target.elements[1].value.value
    return None
