"""The source index: every relevant file of a repo parsed once, with the facts rules query.

Each kept file is parsed once with libcst and visited once by a batch of collectors (calls, definitions, the
tf.data dataflow). Rules never parse: they read :class:`SourceIndex` and the metadata it resolved.

A file that cannot be analysed is skipped with a warning, and the rest of the repo is analysed (see
:meth:`SourceIndex._add`, the one gate every file passes).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator, TypeVar

import libcst as cst
import libcst.matchers as m
import networkx as nx

from . import pipelines as pl
from .facts import CallSite, ClassInfo, Constant, FunctionInfo, ModuleInfo, Pipeline, Stage, module_and_package
from .names import import_names
from .notebook import NOTEBOOK_SUFFIX, Notebook, NotebookError
from .python2 import libcst_reading
from .requirements import TensorflowPin, declaration_files, is_license, tensorflow_pins
from .syntax import parameter_names
from .visitors import CollectorVisitor, visit_batched, visit_reading
from .walk import SourceFile, relevant_sources, source_files

# Folders named for code a project keeps but no longer runs (not `legacy/`: model gardens train from there).
ARCHIVE_FOLDER = re.compile(r"~?old|trash|backups?|deprecated|obsolete|unused|attic|archived?", re.IGNORECASE)
_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
_FILE_NOQA = re.compile(r"#\s*advisor:\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?",
                        re.IGNORECASE)
ALL_CODES = frozenset({"*"})
# Deepest syntax tree (Python's ast levels) a file may have. libcst's visitors recurse a few frames per level and
# exceed Python's default recursion limit from about 300 levels (`a+a+...` of 330 terms, 200 chained `.map()`
# calls), and its parser takes seconds from about 400 chained calls and minutes at a few thousand. The deepest of
# the 3,535 files of TensorFlow, Keras, NumPy and libcst is 46 levels.
MAX_NESTING = 100

T = TypeVar("T")


def _codes(match: re.Match) -> frozenset[str]:
    codes = match.group("codes")
    return frozenset(c.upper() for c in re.split(r"[\s,]+", codes) if c) if codes else ALL_CODES


def _common_parts(folder: Path, other: Path) -> int:
    """How many leading folders two relative folders share."""
    count = 0
    for mine, theirs in zip(folder.parts, other.parts):
        if mine != theirs:
            break
        count += 1
    return count


@dataclass
class _FileFacts:
    """What the collectors find in one file, kept apart until the whole file has been read: a file that fails
    halfway adds nothing to the index."""

    calls: list[CallSite] = field(default_factory=list)
    functions: list[FunctionInfo] = field(default_factory=list)
    classes: list[ClassInfo] = field(default_factory=list)
    dataflow: nx.DiGraph = field(default_factory=nx.DiGraph)
    pending_calls: list[pl.PendingCall] = field(default_factory=list)
    assignments: dict[int, cst.Assign] = field(default_factory=dict)


class _DefinitionCollector(CollectorVisitor):
    """Records calls, functions and classes with their canonical names and enclosing definitions."""

    def __init__(self, module: ModuleInfo, facts: _FileFacts) -> None:
        super().__init__()
        self.module = module
        self.facts = facts
        self.classes: list[ClassInfo] = []
        self.functions: list[FunctionInfo] = []
        self.scopes: list[cst.CSTNode] = []  # enclosing classes and functions, innermost last
        self._names = module.names.resolve
        # Tables of callables by key (`models = {"lenet": LeNet, "resnet": ResNet}`), by scope and name: a call
        # through one (`models[name](...)`) calls one of its values.
        self._tables: dict[tuple[int, str], frozenset[str]] = {}

    def _key(self, name: str) -> str:
        return self.module.function_key([scope.name.value for scope in self.scopes], name)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        key = self._key(node.name.value)
        info = ClassInfo(key, node.name.value, frozenset().union(*(self._names(b.value) for b in node.bases)),
                         node, self.module)
        self.classes.append(info)
        self.scopes.append(node)
        self.facts.classes.append(info)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.classes.pop()
        self.scopes.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        params = parameter_names(node)
        decorators = frozenset().union(*(self._names(d.decorator.func if isinstance(d.decorator, cst.Call)
                                                     else d.decorator) for d in node.decorators))
        directly_in_class = bool(self.scopes) and isinstance(self.scopes[-1], cst.ClassDef)
        class_key = self.classes[-1].key if directly_in_class else None
        info = FunctionInfo(self._key(node.name.value), node.name.value, params, node, self.module, class_key,
                            decorators, self.functions[-1] if self.functions else None)
        self.functions.append(info)
        self.scopes.append(node)
        self.facts.functions.append(info)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.functions.pop()
        self.scopes.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        if isinstance(node.value, cst.Call):
            self.facts.assignments[id(node.value)] = node
        elif isinstance(node.value, cst.Dict) and len(node.targets) == 1 and isinstance(node.targets[0].target,
                                                                                         cst.Name):
            values = [element.value for element in node.value.elements if isinstance(element, cst.DictElement)]
            if values and all(isinstance(value, (cst.Name, cst.Attribute)) for value in values):
                key = (id(self.scopes[-1]) if self.scopes else 0, node.targets[0].target.value)
                self._tables[key] = frozenset().union(*(self._names(value) for value in values))

    def visit_Call(self, node: cst.Call) -> None:
        class_key = self.classes[-1].key if self.classes else None  # `self.step(...)` is that class's method
        scopes = [scope.name.value for scope in self.scopes]  # a closure of that name hides the module's
        names = self._names(node.func, class_key, scopes)
        if m.matches(node.func, m.Subscript(value=m.Name())):  # a table of the scope's or of one around it
            table = node.func.value.value
            names = next((self._tables[(scope, table)] for scope in [*map(id, self.scopes[::-1]), 0]
                          if (scope, table) in self._tables), names)
        self.facts.calls.append(CallSite(node, names, self.module, self.functions[-1] if self.functions else None))


# Import names of third-party libraries a repo may keep a copy of at its root, for `import tensorflow_probability` to
# find (PEARL's port ships all of TensorFlow Probability beside its own code).
VENDORED_LIBRARIES = frozenset({
    "tensorflow", "tensorflow_probability", "tensorflow_addons", "tensorflow_datasets", "tensorflow_hub",
    "tensorflow_text", "tensorflow_model_optimization", "tf_agents", "keras", "tf_keras", "keras_applications",
    "keras_preprocessing", "keras_cv", "keras_nlp", "tf_slim", "gym", "gymnasium", "baselines", "stable_baselines",
    "stable_baselines3", "dopamine", "transformers", "tensor2tensor", "sonnet", "trax", "tensorlayer", "tflearn",
    "edward2"})
# Declarations that make the repo a distribution of its own: its root packages are its own code, not copies.
PACKAGING_FILES = frozenset({"setup.py", "setup.cfg", "pyproject.toml"})


def _vendored_packages(root: Path, sources: list[SourceFile], declarations: dict[Path, bytes]) -> frozenset[str]:
    """The root packages of a repo that are copies of a third-party library (a ``tensorflow_probability/`` folder
    with its ``__init__.py``), where the repo is no distribution of its own (no ``setup.py``, ``setup.cfg`` or
    ``pyproject.toml`` at its root: TF-Agents' own repo holds ``tf_agents/``)."""
    if any(path.parent == Path(".") and path.name in PACKAGING_FILES for path in declarations):
        return frozenset()
    named = {source.path.parts[0] for source in sources
             if len(source.path.parts) > 1 and source.path.parts[0] in VENDORED_LIBRARIES}
    packages = {source.path.parts[0] for source in sources if source.path.parts[1:] == ("__init__.py",)}
    return frozenset(name for name in named if name in packages or (root / name / "__init__.py").is_file())


# Imports naming a root module through one package name, at least this often: the name the repo's root package is
# imported by (a checkout's folder is named anything).
ROOT_PACKAGE_IMPORTS = 2


def _root_package_name(modules: list[ModuleInfo]) -> str | None:
    """The name the repo's modules import its root package by, when its root holds ``__init__.py``: the head of
    imports that name only modules and packages at the root (``from albert import modeling``), which is no module of
    the repo itself (``keras``, whose ``keras.models`` shares a name with ssd_keras's `models/`, also names
    ``keras.layers``); the most common, if it is used often enough to tell."""
    at_root = {module.name.split(".")[0] for module in modules if module.name}
    heads: dict[str, int] = {}
    elsewhere: set[str] = set()  # heads that also name something not at the root
    for module in modules:
        for target in module.names.aliases.values():
            head, _, rest = target.partition(".")
            if rest and head not in at_root:
                if rest.split(".")[0] in at_root:
                    heads[head] = heads.get(head, 0) + 1
                else:
                    elsewhere.add(head)
    head, count = max(((h, n) for h, n in heads.items() if h not in elsewhere), key=lambda item: item[1],
                      default=(None, 0))
    return head if count >= ROOT_PACKAGE_IMPORTS else None


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
        self._inserted_arguments: dict[int, int] = {}  # by decorator node: see _arguments_inserted_by
        self._constants: dict[Path, dict[str, Constant]] = {}
        self._settings_set: dict[str, bool] = {}  # by `Class.attribute`
        self._containers_written: dict[str, bool] = {}  # by the name holding the container
        self._assignments: dict[int, cst.Assign] = {}
        self._modules_by_import_name: dict[str, list[ModuleInfo]] = {}  # each suffix of a module's dotted name
        self._tensorflow_pins: dict[Path, TensorflowPin | None] = {}  # by declaring folder
        self._unread: set[Path] = set()  # files skipped: a syntax error, too deep
        self._listed: frozenset[Path] = frozenset()  # see build
        self._vendored: frozenset[str] = frozenset()  # root packages copied from a third-party library
        self._licensed: frozenset[Path] = frozenset()  # folders below the root with a license of their own

    # -- building -----------------------------------------------------------------------------------------------
    @classmethod
    def read(cls, root: Path, paths: list[Path] | None = None) -> "SourceIndex":
        """The index of the repo at ``root`` (or of ``paths`` in it), read from disk."""
        warnings: list[str] = []
        relative = paths if paths is not None else source_files(root, warnings)
        index = cls.build(root, relevant_sources(root, relative, warnings), len(relative),
                          declaration_files(root, relative))
        index.warnings[:0] = warnings
        return index

    @classmethod
    def build(cls, root: Path, sources: Iterable[SourceFile], files_seen: int,
              declarations: dict[Path, bytes] | None = None, listed: Iterable[Path] | None = None) -> "SourceIndex":
        """The index of ``sources``; ``declarations``: the repo's dependency files (relative path -> contents), for
        the TensorFlow it declares; ``listed``: every source file of the repo, parsed or not, excluded or not (by
        default, the sources): where an import finds its module."""
        index = cls(root)
        index.files_seen = files_seen
        index._tensorflow_pins = tensorflow_pins(declarations or {})
        sources = list(sources)
        index._listed = frozenset(listed if listed is not None else (source.path for source in sources))
        index._vendored = _vendored_packages(root, sources, declarations or {})
        index._licensed = frozenset(path.parent for path in declarations or {}
                                    if is_license(path.name) and path.parent != Path("."))
        parsed = [(source, module) for source in sources if (module := index._parsed(source)) is not None]
        root_is_package = any(source.path == Path("__init__.py") for source in sources) or (
            root / "__init__.py").is_file()
        root_package = _root_package_name([module for _, module in parsed]) if root_is_package else None
        if root_package is not None:
            for _, module in parsed:
                module.names.read_root_package(root_package)
        for _, module in parsed:
            for name in import_names(module.name, shortest=1):
                index._modules_by_import_name.setdefault(name, []).append(module)
        # `from ops import *` brings in what ops.py imports too (its `tf`): every module's imports are known first.
        repo_modules = {name: [module.names for module in modules]
                        for name, modules in index._modules_by_import_name.items()}
        for _, module in parsed:  # all before any visit: a star import's exporter may star-import in turn
            module.names.repo_modules = repo_modules
        for _, module in parsed:  # `flags = tf.app.flags` where `from model import *` brought `tf`
            if module.names.star_imports:
                module.names.bind_renames()
        for source, module in parsed:
            index._add(source, module)
        pl.link(index.dataflow, index._pending_calls, index.callees)
        return index

    def _parsed(self, source: SourceFile) -> ModuleInfo | None:
        """The parsed module of one file (a notebook: the module of its code cells), or None when it is skipped
        (a warning says why)."""
        try:
            module = self._module(source)
        except RecursionError:  # under the nesting limit, but deeper than this interpreter's stack allows
            self.warnings.append(f"{source.path.as_posix()}: skipped, nested too deeply to analyze")
            module = None
        if module is None:
            self._unread.add(source.path)
        return module

    def _add(self, source: SourceFile, module: ModuleInfo) -> None:
        """Visit one parsed file, or skip it with a warning saying why. Every file passes here or through
        :meth:`_parsed`: a per-file limit (nesting, and any further budget) belongs in these methods."""
        facts = _FileFacts()
        try:
            visit_batched(module.tree, [_DefinitionCollector(module, facts),
                                        pl.PipelineCollector(module, facts.dataflow, facts.pending_calls)])
            noqa = _read_noqa(module)
        except RecursionError:  # under the nesting limit, but deeper than this interpreter's stack allows
            self.warnings.append(f"{source.path.as_posix()}: skipped, nested too deeply to analyze")
            self._unread.add(source.path)
            return
        self.modules.append(module)
        self.calls.extend(facts.calls)
        self.functions.extend(facts.functions)
        self.classes.extend(facts.classes)
        pl.merge(self.dataflow, facts.dataflow)
        self._pending_calls.extend(facts.pending_calls)
        self._assignments.update(facts.assignments)
        self._noqa[module.path] = noqa

    def _module(self, source: SourceFile) -> ModuleInfo | None:
        """The parsed module of ``source``, or None when it is skipped (a warning says why)."""
        name = source.path.as_posix()
        is_notebook = source.path.suffix == NOTEBOOK_SUFFIX
        try:
            code = Notebook.parse(source.data).code.encode("utf-8") if is_notebook else source.data
        except NotebookError as exc:
            self.warnings.append(f"{name}: skipped, {exc}")
            return None
        python_error, nesting = _python_syntax(code)
        if nesting > MAX_NESTING:
            self.warnings.append(f"{name}: skipped, its code nests more than {MAX_NESTING} levels deep: too deep to "
                                 f"analyze")
            return None
        if is_notebook:
            try:
                module, notes = ModuleInfo.of_notebook(source.path, source.absolute, source.data,
                                                       python3_parses=python_error is None)
            except cst.ParserSyntaxError as exc:
                self.warnings.append(f"{name}: skipped, its cells parse one by one but not together: {exc.message}")
                return None
            self.warnings.extend(notes)
            return module
        try:
            tree = cst.parse_module(source.data)
        except cst.ParserSyntaxError as exc:
            reading = _libcst_reading(source.data, python_error is None)
            if reading is not None:
                tree, text, changes = reading
                self.warnings.append(f"{name}: {changes}")
                return ModuleInfo.of(source.path, source.absolute, tree, text, as_read=source.data)
            # CPython's own message when it has one: libcst places some errors (mixed tabs and spaces) on line 1.
            line, message = (python_error.lineno, python_error.msg) if python_error else (exc.raw_line, exc.message)
            self.warnings.append(f"{name}:{line}: skipped, syntax error: {message}")
            return None
        except (UnicodeDecodeError, LookupError, SyntaxError) as exc:
            self.warnings.append(f"{name}: skipped, cannot decode: {exc}")
            return None
        return ModuleInfo.of(source.path, source.absolute, tree, source.data)

    def _functions_by_import_name(self) -> dict[str, list[FunctionInfo]]:
        """Every dotted name a function can be reached by from some module: ``pkg.data.f``, ``data.f`` and so on.

        Repos are run from different roots (``src/``, the package folder itself), so each suffix of the module's
        dotted path is a plausible import name.
        """
        by_name: dict[str, list[FunctionInfo]] = {}
        aliases = self._package_aliases()
        for key, function in [*((f.key, f) for f in self.functions), *self._dispatched_methods()]:
            if id(function.node) in function.module.superseded_functions:
                continue
            module = module_and_package(function.module.path)[0]
            keys = [key] + [alias + key[len(module):] for alias in aliases.get(module, ()) if key.startswith(module)]
            for name in (name for each in keys for name in import_names(each)):
                by_name.setdefault(name, []).append(function)
        return by_name

    def _package_aliases(self) -> dict[str, list[str]]:
        """The other names a package's ``__init__`` gives repo modules (``from pkg.coco import tf_data as data``
        makes ``pkg.coco.data`` the module ``pkg.coco.tf_data``): module dotted name -> those names."""
        by_suffix = {suffix: name for name in (module_and_package(m.path)[0] for m in self.modules)
                     for suffix in import_names(name, shortest=1)}
        found: dict[str, list[str]] = {}
        for module in self.modules:
            if module.path.name != "__init__.py":
                continue
            package = module_and_package(module.path)[0]
            for alias, targets in module.names.module_bindings.items():
                for target in targets:
                    if target in by_suffix and target.rsplit(".", 1)[-1] != alias:
                        found.setdefault(by_suffix[target], []).append(f"{package}.{alias}")
        return found

    def _dispatched_methods(self) -> Iterator[tuple[str, FunctionInfo]]:
        """Methods a call through a repo class may run besides its own, each under the name ``Class.method``: what
        it inherits from its nearest repo base that defines it, and its subclasses' overrides (``self.
        make_source_dataset()`` in a base class runs the subclass's). Constructors are inherited, not dispatched."""
        by_key = {c.key: c for c in self.classes}
        methods: dict[str, dict[str, FunctionInfo]] = {}
        for function in self.functions:
            if function.class_key is not None:
                methods.setdefault(function.class_key, {}).setdefault(function.name, function)
        live = self._live_classes(by_key)
        for cls_info in self.classes:
            defined = methods.get(cls_info.key, {})
            overrides = defined if cls_info.key in live else {}
            resolved = set(defined)
            seen, queue = {cls_info.key}, [b for b in cls_info.bases if b in by_key]
            while queue:  # the repo bases, nearest first
                base = queue.pop(0)
                if base in seen:
                    continue
                seen.add(base)
                for name, function in methods.get(base, {}).items():
                    if name not in resolved:
                        resolved.add(name)
                        yield f"{cls_info.key}.{name}", function
                for name, function in overrides.items():
                    if not name.startswith("__"):
                        yield f"{base}.{name}", function
                queue += [b for b in by_key[base].bases if b in by_key]

    def _live_classes(self, by_key: dict[str, ClassInfo]) -> set[str]:
        """Keys of the repo classes whose methods a call through a base class may run: those the repo instantiates
        (``ImageNetInput(...)``), and their repo bases. A subclass nothing instantiates overrides nothing."""
        by_name: dict[str, list[str]] = {}
        for key in by_key:
            for name in import_names(key):
                by_name.setdefault(name, []).append(key)
        queue = [key for site in self.calls for name in site.names for key in by_name.get(name, ())]
        live: set[str] = set()
        while queue:
            key = queue.pop()
            if key not in live:
                live.add(key)
                queue += [b for b in by_key[key].bases if b in by_key]
        return live

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

    def modules_imported_by(self, dotted: str) -> list[ModuleInfo]:
        """The repo modules an import of ``dotted`` (``pkg.data``, ``pkg.data.load``, a name the module defines)
        brings in: those the longest prefix of it names."""
        parts = dotted.split(".")
        return next((self._modules_by_import_name[prefix] for end in range(len(parts), 0, -1)
                     if (prefix := ".".join(parts[:end])) in self._modules_by_import_name), [])

    def in_unread_module(self, module: ModuleInfo, names: Iterable[str]) -> bool:
        """Whether a name among ``names`` (as ``module`` resolves them: ``rnn_model.RNN_Model``) is of a file in its
        folder that advisor could not read (a syntax error): what it defines, and does, is unknown."""
        unread = {path.stem for path in self._unread if path.parent == module.path.parent}
        return bool(unread) and any(name.split(".", 1)[0] in unread for name in names)

    def holds_module(self, stem: Path) -> bool:
        """Whether the repo has a module or a package at ``stem`` (``pkg/data``: ``pkg/data.py``, a ``pkg/data/``
        folder of modules), or a file an import may load there that is no source (a Cython ``pkg/nms.pyx`` built
        into ``pkg/nms.so``)."""
        return stem.with_suffix(".py") in self._listed or any(stem in path.parents for path in self._listed) or \
            (self.root / stem).is_dir() or any((self.root / stem.parent).glob(f"{stem.name}.*"))

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

    def tensorflow_pin(self, module: ModuleInfo) -> TensorflowPin | None:
        """The TensorFlow the repo declares for ``module``: the pin of the nearest folder (the module's, then its
        parents') that declares TensorFlow; None where none does or where that folder leaves the version open."""
        return next((self._tensorflow_pins[folder] for folder in module.path.parents
                     if folder in self._tensorflow_pins), None)

    def is_vendored(self, module: ModuleInfo) -> bool:
        """Whether ``module`` is part of a third-party library the repo keeps a copy of (``tensorflow_probability/``
        at its root): the library's own examples and scripts are not this repo's training."""
        return len(module.path.parts) > 1 and module.path.parts[0] in self._vendored

    @staticmethod
    def archive_folder(module: ModuleInfo) -> str | None:
        """The folder ``module`` is kept in that is named for code a project keeps but no longer runs (``old/``,
        ``~old/``, ``Trash/``, ``deprecated/``, ``archive/``), if any."""
        return next((part for part in module.path.parts[:-1] if ARCHIVE_FOLDER.fullmatch(part)), None)

    def licensed_folder(self, module: ModuleInfo) -> Path | None:
        """The innermost folder below the root around ``module`` that holds a license of its own (``LICENSE``,
        ``COPYING``), if any: a project of its own inside the repo."""
        return next((folder for folder in module.path.parents if folder in self._licensed), None)

    def assignment_of(self, call: cst.Call) -> cst.Assign | None:
        """The assignment whose value is ``call`` (``ds = make_dataset()``), if any."""
        return self._assignments.get(id(call))

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

    def class_of(self, method: FunctionInfo) -> ClassInfo:
        """The class a method is defined in."""
        return next(c for c in self.classes if c.key == method.class_key)

    def methods_of(self, cls_info: ClassInfo) -> list[FunctionInfo]:
        return [f for f in self.functions if f.class_key == cls_info.key]

    def functions_named(self, *names: str) -> list[FunctionInfo]:
        """Repo functions that one of these canonical dotted names (a callee's, a decorator's) may refer to."""
        if self._by_import_name is None:
            self._by_import_name = self._functions_by_import_name()
        found = {id(f): f for name in names for f in self._by_import_name.get(name, ())}
        return list(found.values())

    def nearest(self, module: ModuleInfo, names: Iterable[str], found: list[T],
                module_of: Callable[[T], ModuleInfo]) -> list[T]:
        """Of the repo definitions ``found`` that a name among ``names`` used in ``module`` may refer to (copies of a
        module in several folders share its import names: a tutorial's lessons each have their ``resnet.py``), those
        Python imports there: its own module's, else its folder's (a script's folder comes first on the import
        path); none when its folder holds a file of that name advisor could not read (a syntax error): that file is
        what runs. Else those of the project ``module`` is in: the ones whose folders share the most of its path
        (a repo of several projects, each with its own ``trainer/task.py``)."""
        folder = module.path.parent
        for nearby in (lambda owner: owner is module, lambda owner: owner.path.parent == folder):
            chosen = [item for item in found if nearby(module_of(item))]
            if chosen:
                return chosen
        if self.in_unread_module(module, names):
            return []
        if len(found) < 2:
            return found
        shared = [_common_parts(folder, module_of(item).path.parent) for item in found]
        return [item for item, length in zip(found, shared) if length == max(shared)]

    def functions_near(self, module: ModuleInfo, names: Iterable[str]) -> list[FunctionInfo]:
        """The repo functions ``names``, used in ``module``, refer to there (:meth:`functions_named`, then
        :meth:`nearest`: a notebook and the script exported from it define functions of the same names)."""
        names = list(names)
        return self.nearest(module, names, self.functions_named(*names), lambda f: f.module)

    def callees(self, names: Iterable[str]) -> list[tuple[FunctionInfo, int]]:
        """The repo functions a call of one of ``names`` runs, each with how many leading parameters the call does
        not pass (:meth:`unpassed_parameters`; ``self`` of ``__init__`` of a class instantiated)."""
        found = [(f, self.unpassed_parameters(f)) for f in self.functions_named(*names)]
        found += [(f, 1) for f in self.functions_named(*(f"{name}.__init__" for name in names))]
        return found

    def unpassed_parameters(self, function: FunctionInfo) -> int:
        """How many leading parameters of ``function`` a call of it does not pass: ``self`` of a method, and the
        arguments a repo decorator's wrapper passes before the caller's (Caffe-TensorFlow's ``@layer``, whose
        ``layer_decorated(self, *args, **kwargs)`` runs ``op(self, layer_input, *args, **kwargs)``)."""
        return (function.class_key is not None) + sum(
            self._arguments_inserted_by(decorator) for decorator in self.functions_named(*function.decorators))

    def _arguments_inserted_by(self, decorator: FunctionInfo) -> int:
        """How many positional arguments the wrapper ``decorator`` returns passes to the decorated function before
        those it was called with, beyond its own leading parameters."""
        if id(decorator.node) not in self._inserted_arguments:
            inserted = 0
            decorated = decorator.params[0] if decorator.params else None
            for wrapper in m.findall(decorator.node.body, m.FunctionDef()):
                if wrapper.params.star_arg is None:
                    continue
                own = len(wrapper.params.posonly_params) + len(wrapper.params.params)
                for call in m.findall(wrapper.body, m.Call(func=m.Name(decorated))):
                    leading = next((place for place, arg in enumerate(call.args) if arg.star or arg.keyword), None)
                    if leading is not None and call.args[leading].star == "*":
                        inserted = max(inserted, leading - own)
            self._inserted_arguments[id(decorator.node)] = inserted
        return self._inserted_arguments[id(decorator.node)]

    def calls_of(self, function: FunctionInfo) -> list[CallSite]:
        """Calls of a repo function by name, from any module (``train_step(x)``, ``helpers.train_step(x)``)."""
        return [c for c in self.calls if any(f is function for f in self.functions_named(*c.names))]

    def function_of(self, node: cst.FunctionDef) -> FunctionInfo | None:
        return next((f for f in self.functions if f.node is node), None)

    def constant(self, module: ModuleInfo, name: cst.Name | cst.Attribute) -> Constant | None:
        """The module-level constant ``name`` (``UNITS``, ``config.UNITS``) stands for, in its own module or in
        another repo module."""
        for qualified in module.qualified_names(name):
            owner_name, _, attribute = qualified.rpartition(".")
            # A class's setting, read off the class (`Config.BATCH_SIZE`), is `Config.BATCH_SIZE` of its module.
            module_name, _, class_name = owner_name.rpartition(".")
            for where, key in ((owner_name, attribute), (module_name, f"{class_name}.{attribute}")):
                for owner in self.modules:
                    # A suffix match, as for functions: the repo may be run from a folder above its packages.
                    if where and (owner.name == where or owner.name.endswith("." + where)):
                        if owner.path not in self._constants:
                            self._constants[owner.path] = _module_constants(owner)
                        found = self._constants[owner.path].get(key)
                        if found is not None and ("." not in key or not self._set_elsewhere(key)):
                            return found
        return None

    def written_into(self, name: str) -> bool:
        """Whether some module writes into the container a name holds (``config["lr"] = args.lr``,
        ``config.update(...)``, ``del config["x"]``): what its literal holds is then only where the run starts."""
        if name not in self._containers_written:
            written = re.compile(rf"\b{re.escape(name)}\s*\[[^\]]*\]\s*(=(?!=)|[-+*/]=)|"
                                 rf"\b{re.escape(name)}\.(update|setdefault|pop|popitem|clear)\(|"
                                 rf"\bdel\s+{re.escape(name)}\s*\[")
            self._containers_written[name] = any(written.search(module.code) for module in self.modules)
        return self._containers_written[name]

    def _set_elsewhere(self, setting: str) -> bool:
        """Whether some module assigns a class's setting (``Config.structure = args.structure``): what the class
        body writes is then only where the run starts."""
        if setting not in self._settings_set:
            written = re.compile(rf"\b{re.escape(setting)}\s*(=(?!=)|[-+*/]=)")
            self._settings_set[setting] = any(written.search(module.code) for module in self.modules)
        return self._settings_set[setting]

    def is_suppressed(self, path: Path, line: int, end_line: int, code: str) -> bool:
        file_codes, by_line = self._noqa.get(path, (frozenset(), {}))
        if self._matches(file_codes, code):
            return True
        return any(self._matches(by_line.get(n, frozenset()), code) for n in {line, end_line})

    @staticmethod
    def _matches(codes: frozenset[str], code: str) -> bool:
        return codes == ALL_CODES or any(code.startswith(c) for c in codes)


def _libcst_reading(data: bytes, python3_parses: bool) -> tuple[cst.Module, bytes, str] | None:
    """The tree and text of an old script's reading (:func:`libcst_reading`: Python 2 statements, tabs in the
    indentation), with what it changed, when that parses and nests no deeper than :data:`MAX_NESTING`."""
    try:
        reading = libcst_reading(data.decode("utf-8"), python3_parses)
    except UnicodeDecodeError:
        return None
    if reading is None:
        return None
    text, changes = reading
    converted = text.encode("utf-8")
    error, nesting = _python_syntax(converted)
    if error is not None or nesting > MAX_NESTING:
        return None
    try:
        return cst.parse_module(converted), converted, changes
    except cst.ParserSyntaxError:
        return None


def _python_syntax(data: bytes) -> tuple[SyntaxError | None, int]:
    """CPython's verdict on a file before libcst parses it: its syntax error if any, and how deep its tree is
    (MAX_NESTING + 1 for anything deeper). CPython parses in C, a small fraction of libcst's time, and fails fast
    on the depths that would keep libcst busy for minutes. A file CPython cannot parse (newer syntax than this
    interpreter's) is left to libcst."""
    try:
        with warnings.catch_warnings():  # invalid escape sequences and the like are the file's business
            warnings.simplefilter("ignore")
            tree = ast.parse(data)
    except SyntaxError as exc:
        return exc, 0
    except (RecursionError, MemoryError):
        return None, MAX_NESTING + 1
    except ValueError:  # null bytes: libcst reports it
        return None, 0
    level, depth = [tree], 0
    while level and depth <= MAX_NESTING:
        depth += 1
        level = [child for node in level for child in ast.iter_child_nodes(node)]
    return None, depth


class _Comments(cst.CSTVisitor):
    """The comment nodes of a module, in libcst's reading."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[cst.Comment] = []

    def visit_Comment(self, node: cst.Comment) -> None:
        self.found.append(node)


def _comments(module: ModuleInfo) -> list[tuple[int, str]]:
    """The comments of a module with their lines: real comments, not text in a string that looks like one.

    Python's tokenizer finds them without libcst's positions, which cost a code generation of the whole module; code
    it cannot read (syntax newer than this interpreter's, which libcst parses) is left to libcst.
    """
    try:
        return [(token.start[0], token.string) for token in tokenize.generate_tokens(io.StringIO(module.code).readline)
                if token.type == tokenize.COMMENT]
    except (tokenize.TokenError, SyntaxError):
        comments = _Comments()
        visit_reading(module.tree, comments)
        return [(module.position(node).start.line, node.value) for node in comments.found]


def _read_noqa(module: ModuleInfo) -> tuple[frozenset[str], dict[int, frozenset[str]]]:
    """The codes ``# advisor: noqa`` suppresses in the whole file, and those ``# noqa`` suppresses per line."""
    file_codes: set[str] = set()
    by_line: dict[int, frozenset[str]] = {}
    if "noqa" not in module.code.lower():  # most files: no need to find the comments
        return frozenset(), by_line
    for line, comment in _comments(module):
        file_match = _FILE_NOQA.search(comment)
        if file_match:
            file_codes |= _codes(file_match)
            continue
        match = _NOQA.search(comment)
        if match:
            by_line[line] = _codes(match)
    return frozenset(file_codes), by_line


# A script's `if __name__ == "__main__":` block (either quoting), whose body runs at the top level.
MAIN_BLOCK = m.If(test=m.Comparison(left=m.Name("__name__"), comparisons=[m.ComparisonTarget(
    operator=m.Equal(), comparator=m.SimpleString(value=m.MatchIfTrue(lambda v: v.strip("'\"") == "__main__")))]),
    body=m.IndentedBlock())


def _module_constants(module: ModuleInfo) -> dict[str, Constant]:
    """Names bound exactly once at the top level of ``module`` (a script's ``if __name__ == "__main__":`` block
    included: its settings are module names too), by ``NAME = value``, and the settings of its top-level classes
    (``Config.BATCH_SIZE`` for ``class Config: BATCH_SIZE = 32``); rebinding disqualifies a name."""
    bound: dict[str, list[cst.BaseExpression | None]] = {}
    statements = [*module.tree.body, *(inner for block in module.tree.body if m.matches(block, MAIN_BLOCK)
                                       for inner in block.body.body)]
    for prefix, body in [("", statements), *((f"{c.name.value}.", c.body.body) for c in module.tree.body
                                             if isinstance(c, cst.ClassDef))]:
        for statement in body:
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if isinstance(small, cst.Assign):
                    for target in small.targets:
                        if isinstance(target.target, cst.Name):
                            single = len(small.targets) == 1
                            bound.setdefault(prefix + target.target.value, []).append(small.value if single else None)
                elif isinstance(small, (cst.AugAssign, cst.AnnAssign)) and isinstance(small.target, cst.Name):
                    value = small.value if isinstance(small, cst.AnnAssign) and prefix else None
                    bound.setdefault(prefix + small.target.value, []).append(value)
    return {name: Constant(name, values[0], module) for name, values in bound.items()
            if len(values) == 1 and values[0] is not None}
