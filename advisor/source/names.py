"""Canonical qualified names for the many spellings of the TensorFlow and Keras APIs.

libcst's ``QualifiedNameProvider`` already follows imports and aliases (``import tensorflow as tf`` makes
``tf.data.Dataset`` resolve to ``tensorflow.data.Dataset``). What it cannot know is that ``tensorflow.keras``,
``tf_keras`` and ``keras`` are one API, or that ``tf.compat.v2`` is plain ``tf``. Rules compare canonical names only.
"""

from __future__ import annotations

import builtins
from collections import Counter
from collections.abc import Sequence

import libcst as cst
import libcst.helpers

from .tf1_api import TF1_ONLY_API
from .visitors import visit_reading

_PREFIX_ALIASES = (
    ("tensorflow.python.keras.", "keras."),
    ("tensorflow.keras.", "keras."),
    ("tf_keras.", "keras."),
    ("keras.src.", "keras."),
    ("tensorflow.compat.v2.", "tensorflow."),
    # TF1 code through compat.v1: the APIs rules reason about (tf.data, py_func, tf.function...) are the same ones.
    ("tensorflow.compat.v1.", "tensorflow."),
    ("tensorflow.data.experimental.AUTOTUNE", "tensorflow.data.AUTOTUNE"),
)

_EXACT_ALIASES = {
    "tensorflow.keras": "keras",
    "tf_keras": "keras",
    # Python 2's lazy builtins, and their compatibility spellings, are Python 3's.
    "itertools.izip": "builtins.zip", "itertools.imap": "builtins.map", "itertools.ifilter": "builtins.filter",
    "six.moves.zip": "builtins.zip", "six.moves.map": "builtins.map", "six.moves.filter": "builtins.filter",
}


def canonical(qualified_name: str) -> str:
    """One qualified name in the spelling rules use (``tensorflow.keras.layers.Dense`` -> ``keras.layers.Dense``)."""
    if qualified_name in _EXACT_ALIASES:
        return _EXACT_ALIASES[qualified_name]
    for prefix, replacement in _PREFIX_ALIASES:
        if qualified_name.startswith(prefix) or qualified_name == prefix.rstrip("."):
            # `tensorflow.compat.v2.keras.Model` is `tensorflow.keras.Model`, which is `keras.Model`
            return canonical((replacement + qualified_name[len(prefix):]).rstrip("."))
    return qualified_name


# Canonical names of the APIs advisor reasons about in several places.
TF_FUNCTION = "tensorflow.function"
# Library functions that return ``tf.function(...)`` of their arguments (the repo's own such wrappers are found).
TF_FUNCTION_WRAPPERS = frozenset({TF_FUNCTION, "tf_agents.utils.common.function"})
GRADIENT_TAPE = "tensorflow.GradientTape"

# How many repo modules that pass on an import (`from .backend import keras`) a name is followed through.
REEXPORT_DEPTH = 3
STAR_DEPTH = 3  # star imports followed through star imports: a script's helpers' helpers

# A file that mentions none of these cannot use TensorFlow or Keras; it is not parsed at all.
PREFILTER_WORDS = (b"tensorflow", b"keras", b"tf_keras")


def is_tf2_api(imported: str, api: str) -> bool:
    """Whether a module imported as ``imported`` is TensorFlow 2's ``api`` (``tensorflow``, ``keras``): through
    ``tensorflow.compat.v1`` it is TensorFlow 1.x's, where some names a fix writes are spelled otherwise."""
    return canonical(imported) == api and not imported.startswith("tensorflow.compat.v1")


def import_names(key: str, shortest: int = 2) -> list[str]:
    """The dotted names ``key`` (``pkg.data.load``) may be imported by: each suffix of at least ``shortest`` parts
    (``pkg.data.load``, ``data.load``), since repos are run from different roots (``src/``, a package folder)."""
    parts = key.split(".")
    return [".".join(parts[start:]) for start in range(len(parts) - shortest + 1)]


def tf1_only(imported: str) -> bool:
    """Whether ``imported`` (a dotted name as the module imports it: ``tensorflow.Session``, ``tensorflow.contrib.
    slim.conv2d``) is TensorFlow 1.x API that TensorFlow 2 lacks; through ``tensorflow.compat.v1`` it is not."""
    parts = imported.split(".")
    return parts[0] == "tensorflow" and any(".".join(parts[1:end]) in TF1_ONLY_API for end in range(2, len(parts) + 1))


class ModuleNames(cst.CSTVisitor):
    """Resolves the dotted names of one module through its imports, without a scope analysis.

    libcst's ``QualifiedNameProvider`` runs a full scope analysis, which costs six times the parse on large
    files; rules only need to know what ``tf.data.Dataset`` or ``make_dataset`` refer to, which the module's
    imports and top-level definitions answer. Imports anywhere in the module count (function-level imports of
    TensorFlow are common); a local variable that shadows an import is the price of that speed.
    """

    def __init__(self, module_name: str, package: str) -> None:
        super().__init__()
        self.module_name = module_name
        self.package = package
        self.aliases: dict[str, str] = {}  # bound name -> dotted name it refers to
        self.global_aliases: dict[str, str] = {}  # the same, for imports outside any def or class: visible everywhere
        # every dotted name a module-level import binds to each name, in both branches of `if backend: ... else:`
        self.module_bindings: dict[str, set[str]] = {}
        self.top_level: set[str] = set()  # names defined at module level: resolve to ``module.name``
        self.star_imports: list[str] = []  # modules imported with ``from X import *``, in import order
        self.imported_modules: set[str] = set()  # names ``import X`` / ``import X as Y`` bind: modules
        # functions defined inside other functions (closures like a `train_step` in `main`): name -> their keys
        self.nested_functions: dict[str, set[str]] = {}
        self._renames: dict[str, str] = {}  # `name = other.name`: name -> the dotted name assigned
        # The repo's modules by the names they are imported as (set by the index; several where copies in several
        # folders share one): what a star import brings in, and what a module that only passes on an import binds
        # the name to.
        self.repo_modules: dict[str, list[ModuleNames]] = {}
        self._assignments: Counter[str] = Counter()  # assignments to each name, at any level
        self._renamed: set[str] = set()  # names bound to another name by their one assignment (`FLAGS = flags.FLAGS`)
        self._path: list[tuple[str, bool]] = []  # enclosing classes and functions: (name, is a function)

    @classmethod
    def of(cls, tree: cst.Module, module_name: str, package: str) -> "ModuleNames":
        names = cls(module_name, package)
        visit_reading(tree, names)
        names.bind_renames()
        return names

    def bind_renames(self) -> None:
        """``generator = models.generator``, ``relu = tf.nn.relu`` at module level, or ``f = absl.flags`` in the
        function that defines the flags, the one assignment to the name in the module: the name is another name for
        what it is assigned (a function called through it runs that function). Run again once the repo's modules
        are known (:attr:`repo_modules`): what a star import brings in is known only then."""
        for name, value in self._renames.items():
            if self._assignments[name] == 1 and name not in self.aliases:
                target = self.imported(value)
                if target is not None:
                    self._bind(name, target)
                    self._renamed.add(name)

    # Only statements are walked: expressions hold no imports or definitions.
    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> bool:
        for statement in node.body:
            if isinstance(statement, cst.Import):
                self._import(statement)
            elif isinstance(statement, cst.ImportFrom):
                self._import_from(statement)
            elif isinstance(statement, (cst.Assign, cst.AnnAssign)):
                targets = statement.targets if isinstance(statement, cst.Assign) else [statement]
                for target in targets:
                    for name in _bound_names(target.target):
                        if not self._path:
                            self.top_level.add(name)
                        self._assignments[name] += 1
                    dotted = cst.helpers.get_full_name_for_node(statement.value) \
                        if isinstance(statement.value, (cst.Name, cst.Attribute)) else None
                    in_class = bool(self._path) and not self._path[-1][1]  # a class attribute is no name
                    if isinstance(target.target, cst.Name) and dotted and not in_class:
                        self._renames[target.target.value] = dotted
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if not self._path:
            self.top_level.add(node.name.value)
        elif any(is_function for _, is_function in self._path):  # a closure, known by the key the index gives it
            key = ".".join(filter(None, [self.module_name, *(name for name, _ in self._path), node.name.value]))
            self.nested_functions.setdefault(node.name.value, set()).add(key)
        self._path.append((node.name.value, True))

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._path.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        if not self._path:
            self.top_level.add(node.name.value)
        self._path.append((node.name.value, False))

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._path.pop()

    def _bind(self, name: str, target: str) -> None:
        self.aliases[name] = target
        if not self._path:
            self.global_aliases[name] = target
            self.module_bindings.setdefault(name, set()).add(target)

    def _import(self, node: cst.Import) -> None:
        for alias in node.names:
            full = cst.helpers.get_full_name_for_node(alias.name) or ""
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self._bind(alias.asname.name.value, full)
                self.imported_modules.add(alias.asname.name.value)
            else:  # ``import a.b`` binds ``a``
                head = full.split(".")[0]
                self._bind(head, head)
                self.imported_modules.add(head)

    def _import_from(self, node: cst.ImportFrom) -> None:
        module = cst.helpers.get_full_name_for_node(node.module) if node.module is not None else ""
        if node.relative:
            base = self.package.split(".") if self.package else []
            levels = len(node.relative)
            base = base[: len(base) - (levels - 1)] if levels > 1 else base
            module = ".".join(filter(None, [*base, module]))
        if isinstance(node.names, cst.ImportStar):
            self.star_imports.append(module)
            return
        for alias in node.names:
            name = cst.helpers.get_full_name_for_node(alias.name) or ""
            bound = alias.asname.name.value if alias.asname is not None and isinstance(alias.asname.name, cst.Name) \
                else name
            self._bind(bound, f"{module}.{name}" if module else name)

    def read_root_package(self, package: str) -> None:
        """Read the imports that name the repo's root by its package name (``from albert import modeling`` in the
        ``albert`` repo, whose root holds ``__init__.py``) as imports of the root's own modules (``modeling``): the
        repo's modules are named from its root."""
        prefix = package + "."

        def from_root(target: str) -> str:
            return target[len(prefix):] if target.startswith(prefix) else target

        self.aliases = {name: from_root(target) for name, target in self.aliases.items()}
        self.global_aliases = {name: from_root(target) for name, target in self.global_aliases.items()}
        self.module_bindings = {name: {from_root(t) for t in targets} for name, targets in self.module_bindings.items()}
        self.star_imports = [from_root(module) for module in self.star_imports]

    def resolve(self, expr: cst.CSTNode, class_key: str | None = None, scopes: Sequence[str] = ()) -> frozenset[str]:
        """The canonical dotted names ``expr`` (a Name or an Attribute chain on a Name) may refer to.

        One name when an import or a top-level definition binds its head; one per ``from X import *`` module when
        nothing else does (which of them defines it is known only across modules); with ``class_key`` (the
        enclosing class), ``self.method`` is that class's method; with ``scopes`` (the classes and functions
        ``expr`` is in, outermost first), a function defined in one of them hides a module's of that name.
        """
        dotted = cst.helpers.get_full_name_for_node(expr) if isinstance(expr, (cst.Name, cst.Attribute)) else None
        if not dotted:
            return frozenset()
        head, _, rest = dotted.partition(".")
        if not rest and scopes and head in self.nested_functions:
            for depth in range(len(scopes), 0, -1):
                key = ".".join(filter(None, [self.module_name, *scopes[:depth], head]))
                if key in self.nested_functions[head]:
                    return frozenset({key})
        if head in self.aliases:
            full = self.imported(dotted)
        elif head in self.top_level:
            full = f"{self.module_name}.{dotted}" if self.module_name else dotted
        elif head in _BUILTINS:
            full = f"builtins.{dotted}"
        elif head in ("self", "cls") and class_key is not None and rest and "." not in rest:
            full = f"{class_key}.{rest}"
        elif head in self.nested_functions and not rest:
            return frozenset(self.nested_functions[head])
        elif self.star_imports and head not in ("self", "cls"):  # `self.im.get_batch` is no star-imported name
            found, guessed = self._through_star_imports(dotted, STAR_DEPTH)
            return frozenset(found or guessed)
        else:
            return frozenset()
        return frozenset({canonical(full)})


    def _through_star_imports(self, dotted: str, depth: int) -> tuple[set[str], set[str]]:
        """What ``dotted`` names if a ``from module import *`` brought its head: the names of the star-imported repo
        modules that import it (their ``tf``) or define it, also through their own star imports (``depth`` levels:
        a script star-importing a helper that star-imports the module importing TensorFlow); and, where none
        does, a guess per star import (``module.dotted``, a module the repo does not hold)."""
        head = dotted.partition(".")[0]
        found: set[str] = set()
        guessed: set[str] = set()
        for module in self.star_imports:
            exporter = self._repo_module(module)
            imported = exporter.imported(dotted, depth - 1) if exporter is not None else None
            if imported is not None:
                found.add(canonical(imported))
            elif exporter is not None and head in exporter.top_level:
                found.add(canonical(f"{module}.{dotted}"))
            elif exporter is not None and exporter.star_imports and depth > 1:
                found |= exporter._through_star_imports(dotted, depth - 1)[0]
            else:
                guessed.add(canonical(f"{module}.{dotted}"))
        return found, guessed

    def imported(self, dotted: str, depth: int = STAR_DEPTH) -> str | None:
        """The dotted name ``dotted`` (``tf.Session``) spells through the module's imports, as imported
        (``tensorflow.Session``, not canonical: ``tensorflow.compat.v1.Session`` stays what it is), or through
        those of the repo modules it star-imports (``depth`` levels: star imports may import each other); None when
        no import binds its head."""
        head, _, rest = dotted.partition(".")
        if head in self.aliases:
            # and what the module it names passes on: `data.make_dataset`, `from mycnn import data` importing a
            # package whose `__init__` imports `make_dataset` from its `classification` module
            module = self._reexported(self.aliases[head])
            return self._reexported(f"{module}.{rest}") if rest else module
        exporters = [self._repo_module(module) for module in self.star_imports] if depth > 0 else []
        return next((found for exporter in exporters if exporter is not None
                     and (found := exporter.imported(dotted, depth - 1))), None)

    def _repo_module(self, name: str, binding: str | None = None) -> ModuleNames | None:
        """The repo module imported as ``name``: of several (a ``models`` package in each of two projects), the
        only one that binds ``binding`` where one is asked for (what ``from models import FastStyleTransfer`` can
        import), else the first."""
        modules = self.repo_modules.get(name, [])
        binds = [module for module in modules if binding in module.module_bindings] if binding is not None else []
        return binds[0] if len(binds) == 1 else modules[0] if modules else None

    def _reexported(self, target: str) -> str:
        """What ``target`` (``bert4keras.backend.keras``) is when a repo module only passes on a name it imports
        itself, one import for the name (bert4keras/backend.py's ``import keras``) or one assignment of an imported
        name (``FLAGS = absl.flags.FLAGS``): that name (``keras``), followed through such modules a few levels; else
        ``target``."""
        for _ in range(REEXPORT_DEPTH):
            module, _, name = target.rpartition(".")
            exporter = self._repo_module(module, binding=name)
            bound = exporter.module_bindings.get(name, set()) if exporter not in (None, self) else set()
            if len(bound) != 1 or name in exporter.top_level and name not in exporter._renamed:
                # defined there, or imported in branches: not followed
                break
            target = next(iter(bound))
        return target

    def names_repo_module(self, name: str) -> bool:
        """Whether an import binds ``name`` to a module of the repo (``from mrtoct import data``)."""
        return name in self.aliases and self._repo_module(self.aliases[name]) is not None

    def binding(self, name: str) -> str | None:
        """What ``name`` is bound to at module level as far as imports and definitions say, in words (None: not
        bound by either)."""
        bound = [f"`{self.aliases[name]}`"] if name in self.aliases else []
        if name in self.top_level:
            bound.append("its definition in this module")
        return " or ".join(bound) or None


class _UsedNames(cst.CSTVisitor):
    """Identifiers the module binds or reads; attribute names, keywords and imported module paths are not."""

    def __init__(self) -> None:
        super().__init__()
        self.found: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.found.add(node.value)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)
        return False

    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            self.found.add(alias.evaluated_alias or alias.evaluated_name.split(".")[0])
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        if not isinstance(node.names, cst.ImportStar):
            self.found.update(alias.evaluated_alias or alias.evaluated_name for alias in node.names)
        return False


def used_names(tree: cst.Module) -> set[str]:
    """Every identifier written in the module: a name that is not among them is free to bind."""
    visitor = _UsedNames()
    tree.visit(visitor)
    return visitor.found


def rebound_names(before: cst.Module, after: cst.Module) -> list[str]:
    """How ``after`` (a rewrite of ``before``) binds differently a name ``before`` uses, one sentence per name:
    e.g. an ``import tensorflow as tf`` added to a module that did ``import tensorflow.compat.v1 as tf``.

    Every patch is checked with this: a fix that makes ``tf.to_float`` stop existing breaks the module."""
    old, new = ModuleNames.of(before, "", ""), ModuleNames.of(after, "", "")
    changed = sorted(name for name in {*old.aliases, *old.top_level, *new.aliases, *new.top_level}
                     if old.binding(name) != new.binding(name))
    if any(old.binding(name) is None for name in changed):
        used = used_names(before)  # a name bound anew matters only if the module already used it
        changed = [name for name in changed if old.binding(name) is not None or name in used]
    unbound = "a local or unbound name"
    return [f"`{name}` would change from {old.binding(name) or unbound} to {new.binding(name) or unbound}"
            for name in changed]


def _bound_names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for element in target.elements for n in _bound_names(element.value)]
    return []


_BUILTINS = frozenset(dir(builtins))
