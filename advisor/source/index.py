"""The source index: every relevant file of a repo parsed once, with the facts rules query.

Each kept file is parsed once with libcst and visited once by a batch of collectors (calls, definitions, the
tf.data dataflow). Rules never parse: they read :class:`SourceIndex` and the metadata it resolved.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable, Iterator

import libcst as cst
import networkx as nx

from . import pipelines as pl
from .facts import CallSite, ClassInfo, Constant, FunctionInfo, ModuleInfo, Pipeline, Stage
from .names import TF_FUNCTION
from .syntax import parameter_names
from .visitors import CollectorVisitor
from .walk import SourceFile, relevant_sources

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
_FILE_NOQA = re.compile(r"#\s*advisor:\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?",
                        re.IGNORECASE)
ALL_CODES = frozenset({"*"})


def _codes(match: re.Match) -> frozenset[str]:
    codes = match.group("codes")
    return frozenset(c.upper() for c in re.split(r"[\s,]+", codes) if c) if codes else ALL_CODES


class _DefinitionCollector(CollectorVisitor):
    """Records calls, functions and classes with their canonical names and enclosing definitions."""

    def __init__(self, module: ModuleInfo, index: "SourceIndex") -> None:
        super().__init__()
        self.module = module
        self.index = index
        self.classes: list[ClassInfo] = []
        self.functions: list[FunctionInfo] = []
        self.scopes: list[cst.CSTNode] = []  # enclosing classes and functions, innermost last
        self._names = module.names.resolve

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        key = self.module.function_key([c.name for c in self.classes], node.name.value)
        info = ClassInfo(key, node.name.value, frozenset().union(*(self._names(b.value) for b in node.bases)),
                         node, self.module)
        self.classes.append(info)
        self.scopes.append(node)
        self.index.classes.append(info)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.classes.pop()
        self.scopes.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        params = parameter_names(node)
        decorators = frozenset().union(*(self._names(d.decorator.func if isinstance(d.decorator, cst.Call)
                                                     else d.decorator) for d in node.decorators))
        directly_in_class = bool(self.scopes) and isinstance(self.scopes[-1], cst.ClassDef)
        class_key = self.classes[-1].key if directly_in_class else None
        info = FunctionInfo(self.module.function_key([c.name for c in self.classes], node.name.value),
                            node.name.value, params, node, self.module, class_key, decorators,
                            self.functions[-1] if self.functions else None)
        self.functions.append(info)
        self.scopes.append(node)
        self.index.functions.append(info)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.functions.pop()
        self.scopes.pop()

    def visit_Call(self, node: cst.Call) -> None:
        class_key = self.classes[-1].key if self.classes else None  # `self.step(...)` is that class's method
        self.index.calls.append(CallSite(node, self._names(node.func, class_key), self.module,
                                         self.functions[-1] if self.functions else None))


class SourceIndex:
    """Everything rules know about the repo's source: modules, calls, definitions and the tf.data dataflow graph."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.modules: list[ModuleInfo] = []
        self.calls: list[CallSite] = []
        self.functions: list[FunctionInfo] = []
        self.classes: list[ClassInfo] = []
        self.dataflow = nx.DiGraph()
        self.warnings: list[str] = []
        self.files_seen = 0
        self._pending_calls: list[pl.PendingCall] = []
        self._pipelines: list[Pipeline] | None = None
        self._calls_by_name: dict[str, list[CallSite]] | None = None
        self._noqa: dict[Path, tuple[frozenset[str], dict[int, frozenset[str]]]] = {}
        self._by_import_name: dict[str, list[FunctionInfo]] | None = None
        self._constants: dict[Path, dict[str, Constant]] = {}

    # -- building -----------------------------------------------------------------------------------------------
    @classmethod
    def read(cls, root: Path, paths: list[Path] | None = None) -> "SourceIndex":
        """The index of the repo at ``root`` (or of ``paths`` in it), read from disk."""
        sources, files_seen = relevant_sources(root, paths)
        return cls.build(root, sources, files_seen)

    @classmethod
    def build(cls, root: Path, sources: Iterable[SourceFile], files_seen: int) -> "SourceIndex":
        index = cls(root)
        index.files_seen = files_seen
        for source in sources:
            index._add(source)
        pl.link(index.dataflow, index._pending_calls, index.callees)
        return index

    def _add(self, source: SourceFile) -> None:
        try:
            tree = cst.parse_module(source.data)
        except cst.ParserSyntaxError as exc:
            self.warnings.append(f"{source.path.as_posix()}:{exc.raw_line}: skipped, syntax error: {exc.message}")
            return
        except (UnicodeDecodeError, LookupError, SyntaxError) as exc:
            self.warnings.append(f"{source.path.as_posix()}: skipped, cannot decode: {exc}")
            return
        module = ModuleInfo.of(source.path, source.absolute, tree, source.data)
        module.wrapper.visit_batched([_DefinitionCollector(module, self),
                                      pl.PipelineCollector(module, self.dataflow, self._pending_calls)])
        self.modules.append(module)
        self._noqa[module.path] = self._read_noqa(module.code)

    def _functions_by_import_name(self) -> dict[str, list[FunctionInfo]]:
        """Every dotted name a function can be reached by from some module: ``pkg.data.f``, ``data.f`` and so on.

        Repos are run from different roots (``src/``, the package folder itself), so each suffix of the module's
        dotted path is a plausible import name.
        """
        by_name: dict[str, list[FunctionInfo]] = {}
        for function in self.functions:
            parts = function.key.split(".")
            for start in range(len(parts) - 1):
                by_name.setdefault(".".join(parts[start:]), []).append(function)
        return by_name

    @staticmethod
    def _read_noqa(code: str) -> tuple[frozenset[str], dict[int, frozenset[str]]]:
        file_codes: set[str] = set()
        by_line: dict[int, frozenset[str]] = {}
        for number, line in enumerate(code.splitlines(), start=1):
            if "#" not in line or "noqa" not in line.lower():
                continue
            file_match = _FILE_NOQA.search(line)
            if file_match:
                file_codes |= _codes(file_match)
                continue
            match = _NOQA.search(line)
            if match:
                by_line[number] = _codes(match)
        return frozenset(file_codes), by_line

    # -- queries ------------------------------------------------------------------------------------------------
    def pipelines(self) -> list[Pipeline]:
        """Every source-to-sink pipeline path (computed once: the graph does not change after the build)."""
        if self._pipelines is None:
            self._pipelines = list(pl.pipelines(self.dataflow))
        return self._pipelines

    def stages(self) -> Iterator[Stage]:
        """Every dataset source and transformation found, whether or not it reaches a sink."""
        return (d["stage"] for _, d in self.dataflow.nodes(data=True) if d["kind"] == "stage")

    def discarded_after(self, stage: Stage) -> list[Stage]:
        return pl.discarded_successors(self.dataflow, stage.node)

    def calls_to(self, *names: str) -> list[CallSite]:
        """Calls whose callee's canonical qualified name is one of ``names``, in source order."""
        if self._calls_by_name is None:  # rules ask per function and per layer: index the calls once
            self._calls_by_name = {}
            for call in self.calls:
                for name in call.names:
                    self._calls_by_name.setdefault(name, []).append(call)
        if len(names) == 1:
            return self._calls_by_name.get(names[0], [])
        found = {id(c): c for name in names for c in self._calls_by_name.get(name, ())}
        return [c for c in self.calls if id(c) in found] if found else []

    def subclasses_of(self, *bases: str) -> Iterator[ClassInfo]:
        """Classes of the repo deriving, directly or through other repo classes, from one of ``bases``."""
        wanted = set(bases)
        by_key = {c.key: c for c in self.classes}
        for cls_info in self.classes:
            seen: set[str] = set()
            stack = [cls_info]
            while stack:
                current = stack.pop()
                if current.bases & wanted:
                    yield cls_info
                    break
                for base in current.bases:
                    parent = by_key.get(base)
                    if parent is not None and base not in seen:
                        seen.add(base)
                        stack.append(parent)

    def methods_of(self, cls_info: ClassInfo) -> list[FunctionInfo]:
        return [f for f in self.functions if f.class_key == cls_info.key]

    def functions_named(self, *names: str) -> list[FunctionInfo]:
        """Repo functions that one of these canonical dotted names (a callee's, a decorator's) may refer to."""
        if self._by_import_name is None:
            self._by_import_name = self._functions_by_import_name()
        found = {id(f): f for name in names for f in self._by_import_name.get(name, ())}
        return list(found.values())

    def callees(self, names: Iterable[str]) -> list[tuple[FunctionInfo, int]]:
        """The repo functions a call of one of ``names`` runs, each with how many leading parameters the call does
        not pass: ``self`` of a method called through ``self.f(...)``, and ``__init__`` of a class instantiated."""
        found = [(f, 1 if f.class_key is not None else 0) for f in self.functions_named(*names)]
        found += [(f, 1) for f in self.functions_named(*(f"{name}.__init__" for name in names))]
        return found

    def calls_of(self, function: FunctionInfo) -> list[CallSite]:
        """Calls of a repo function by name, from any module (``train_step(x)``, ``helpers.train_step(x)``)."""
        return [c for c in self.calls if any(f is function for f in self.functions_named(*c.names))]

    def function_of(self, node: cst.FunctionDef) -> FunctionInfo | None:
        return next((f for f in self.functions if f.node is node), None)

    def is_compiled(self, function: FunctionInfo) -> bool:
        """Whether ``function`` runs as a TensorFlow graph rather than eagerly from Python.

        It does when decorated with ``tf.function``, when the repo wraps it (``step = tf.function(train_step)``), and
        when it is defined inside a function that does (it is traced with it).
        """
        if TF_FUNCTION in function.decorators:
            return True
        for wrapper in self.calls_to(TF_FUNCTION):
            argument = wrapper.node.args[0].value if wrapper.node.args else None
            if isinstance(argument, (cst.Name, cst.Attribute)) and \
                    any(f is function for f in self.functions_named(*wrapper.module.qualified_names(argument))):
                return True
        return function.outer is not None and self.is_compiled(function.outer)

    def constant(self, module: ModuleInfo, name: cst.Name | cst.Attribute) -> Constant | None:
        """The module-level constant ``name`` (``UNITS``, ``config.UNITS``) stands for, in its own module or in
        another repo module."""
        for qualified in module.qualified_names(name):
            owner_name, _, attribute = qualified.rpartition(".")
            for owner in self.modules:
                # A suffix match, as for functions: the repo may be run from a folder above its packages.
                if owner.name == owner_name or owner.name.endswith("." + owner_name):
                    if owner.path not in self._constants:
                        self._constants[owner.path] = _module_constants(owner)
                    found = self._constants[owner.path].get(attribute)
                    if found is not None:
                        return found
        return None

    def is_suppressed(self, path: Path, line: int, end_line: int, code: str) -> bool:
        file_codes, by_line = self._noqa.get(path, (frozenset(), {}))
        if self._matches(file_codes, code):
            return True
        return any(self._matches(by_line.get(n, frozenset()), code) for n in {line, end_line})

    @staticmethod
    def _matches(codes: frozenset[str], code: str) -> bool:
        return codes == ALL_CODES or any(code.startswith(c) for c in codes)


def _module_constants(module: ModuleInfo) -> dict[str, Constant]:
    """Names bound exactly once at the top level of ``module``, by ``NAME = value``; rebinding disqualifies a name."""
    bound: dict[str, list[cst.BaseExpression | None]] = {}
    for statement in module.tree.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.Assign):
                for target in small.targets:
                    if isinstance(target.target, cst.Name):
                        single = len(small.targets) == 1
                        bound.setdefault(target.target.value, []).append(small.value if single else None)
            elif isinstance(small, (cst.AugAssign, cst.AnnAssign)) and isinstance(small.target, cst.Name):
                bound.setdefault(small.target.value, []).append(None)
    return {name: Constant(name, values[0], module) for name, values in bound.items()
            if len(values) == 1 and values[0] is not None}
