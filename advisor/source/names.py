"""Canonical qualified names for the many spellings of the TensorFlow and Keras APIs.

libcst's ``QualifiedNameProvider`` already follows imports and aliases (``import tensorflow as tf`` makes
``tf.data.Dataset`` resolve to ``tensorflow.data.Dataset``). What it cannot know is that ``tensorflow.keras``,
``tf_keras`` and ``keras`` are one API, or that ``tf.compat.v2`` is plain ``tf``. Rules compare canonical names only.
"""

from __future__ import annotations

import builtins

import libcst as cst
import libcst.helpers

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
}


def canonical(qualified_name: str) -> str:
    """One qualified name in the spelling rules use (``tensorflow.keras.layers.Dense`` -> ``keras.layers.Dense``)."""
    if qualified_name in _EXACT_ALIASES:
        return _EXACT_ALIASES[qualified_name]
    for prefix, replacement in _PREFIX_ALIASES:
        if qualified_name.startswith(prefix) or qualified_name == prefix.rstrip("."):
            return replacement + qualified_name[len(prefix):]
    return qualified_name


# Canonical names of the APIs advisor reasons about in several places.
TF_FUNCTION = "tensorflow.function"
GRADIENT_TAPE = "tensorflow.GradientTape"

# A file that mentions none of these cannot use TensorFlow or Keras; it is not parsed at all.
PREFILTER_WORDS = (b"tensorflow", b"keras", b"tf_keras")


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
        self.top_level: set[str] = set()  # names defined at module level: resolve to ``module.name``
        self.star_imports: list[str] = []  # modules imported with ``from X import *``, in import order
        # functions defined inside other functions (closures like a `train_step` in `main`): name -> their keys
        self.nested_functions: dict[str, set[str]] = {}
        self._classes: list[str] = []
        self._depth = 0

    @classmethod
    def of(cls, tree: cst.Module, module_name: str, package: str) -> "ModuleNames":
        names = cls(module_name, package)
        tree.visit(names)
        return names

    # Only statements are walked: expressions hold no imports or definitions.
    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> bool:
        for statement in node.body:
            if isinstance(statement, cst.Import):
                self._import(statement)
            elif isinstance(statement, cst.ImportFrom):
                self._import_from(statement)
            elif isinstance(statement, (cst.Assign, cst.AnnAssign)) and self._depth == 0:
                targets = statement.targets if isinstance(statement, cst.Assign) else [statement]
                for target in targets:
                    for name in _bound_names(target.target):
                        self.top_level.add(name)
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if self._depth == 0:
            self.top_level.add(node.name.value)
        elif self._depth > len(self._classes):  # inside a function: a closure, known by the key the index gives it
            key = ".".join(filter(None, [self.module_name, *self._classes, node.name.value]))
            self.nested_functions.setdefault(node.name.value, set()).add(key)
        self._depth += 1

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._depth -= 1

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        if self._depth == 0:
            self.top_level.add(node.name.value)
        self._classes.append(node.name.value)
        self._depth += 1

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._classes.pop()
        self._depth -= 1

    def _import(self, node: cst.Import) -> None:
        for alias in node.names:
            full = cst.helpers.get_full_name_for_node(alias.name) or ""
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self.aliases[alias.asname.name.value] = full
            else:  # ``import a.b`` binds ``a``
                head = full.split(".")[0]
                self.aliases[head] = head

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
            self.aliases[bound] = f"{module}.{name}" if module else name

    def resolve(self, expr: cst.CSTNode, class_key: str | None = None) -> frozenset[str]:
        """The canonical dotted names ``expr`` (a Name or an Attribute chain on a Name) may refer to.

        One name when an import or a top-level definition binds its head; one per ``from X import *`` module when
        nothing else does (which of them defines it is known only across modules); with ``class_key`` (the
        enclosing class), ``self.method`` is that class's method.
        """
        dotted = cst.helpers.get_full_name_for_node(expr) if isinstance(expr, (cst.Name, cst.Attribute)) else None
        if not dotted:
            return frozenset()
        head, _, rest = dotted.partition(".")
        if head in self.aliases:
            full = self.aliases[head] + ("." + rest if rest else "")
        elif head in self.top_level:
            full = f"{self.module_name}.{dotted}" if self.module_name else dotted
        elif head in _BUILTINS:
            full = f"builtins.{dotted}"
        elif head in ("self", "cls") and class_key is not None and rest and "." not in rest:
            full = f"{class_key}.{rest}"
        elif head in self.nested_functions and not rest:
            return frozenset(self.nested_functions[head])
        elif self.star_imports:
            return frozenset(canonical(f"{module}.{dotted}") for module in self.star_imports)
        else:
            return frozenset()
        return frozenset({canonical(full)})


def _bound_names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for element in target.elements for n in _bound_names(element.value)]
    return []


_BUILTINS = frozenset(dir(builtins))
