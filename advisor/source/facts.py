"""What the source index knows, as data: parsed modules, call sites, functions, classes, module constants, and the
tf.data pipelines (stages, sinks, source-to-sink paths) read from them.

Built by :mod:`advisor.source.index` (and its dataflow collector :mod:`advisor.source.pipelines`); read by queries,
verdicts and rules. Nothing here parses or walks: the nodes are the index's own parsed trees.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, ParentNodeProvider, PositionProvider

from ..model import Location
from .names import ModuleNames

# Calls that wrap a dataset without adding a stage of the input pipeline.
DISTRIBUTE_METHODS = frozenset({"experimental_distribute_dataset", "distribute_datasets_from_function"})
# Operations that change no element of the data: they add no stage of work.
PASS_THROUGH_OPS = frozenset({"with_options"}) | DISTRIBUTE_METHODS

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

    @classmethod
    def of(cls, path: Path, absolute: Path, tree: cst.Module, data: bytes) -> "ModuleInfo":
        """Wrap a tree freshly parsed from ``data`` (the wrapper may share it: nobody else holds it).

        libcst reproduces its input exactly, so the text is the decoded input: no code generation needed.
        """
        return cls(path, absolute, data.decode(tree.encoding), MetadataWrapper(tree, unsafe_skip_copy=True),
                   ModuleNames.of(tree, *_module_and_package(path)), tree.encoding, tree.default_newline)

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

    def function_key(self, class_names: list[str], function_name: str) -> str:
        return ".".join(filter(None, [self.name, *class_names, function_name]))

    def position(self, node: cst.CSTNode) -> CodeRange:
        return self.wrapper.resolve(PositionProvider)[node]

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self.wrapper.resolve(ParentNodeProvider).get(node)

    def enclosing_loop(self, node: cst.CSTNode) -> cst.For | cst.While | None:
        """The innermost ``for``/``while`` whose body runs ``node`` once per iteration, in ``node``'s own scope.

        A definition (function, lambda, class) between the two ends the search: its body runs when it is called.
        """
        child, parent = node, self.parent(node)
        while parent is not None and not isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            if isinstance(parent, (cst.For, cst.While)) and child is parent.body:
                return parent
            child, parent = parent, self.parent(parent)
        return None

    def qualified_names(self, node: cst.CSTNode) -> frozenset[str]:
        """Canonical dotted names that ``node`` (a Name or Attribute) refers to, through the module's imports."""
        return self.names.resolve(node)

    def location(self, node: cst.CSTNode, end_node: cst.CSTNode | None = None) -> Location:
        start = self.position(node)
        end = self.position(end_node) if end_node is not None else start
        return Location(self.path, start.start.line, start.start.column + 1, end.end.line, end.end.column + 1)

    def node_code(self, node: cst.CSTNode) -> str:
        return self.tree.code_for_node(node)

    def line_text(self, line: int) -> str:
        lines = self.code.splitlines()
        return lines[line - 1] if 0 < line <= len(lines) else ""


def _module_and_package(path: Path) -> tuple[str, str]:
    """``pkg/data.py`` -> (``pkg.data``, ``pkg``); ``pkg/__init__.py`` -> (``pkg``, ``pkg``)."""
    parts = list(PurePosixPath(path.as_posix()).with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts.pop()
        return ".".join(parts), ".".join(parts)
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
