"""The import graph of advisor/, rules/ and codemods/: one way only.

Every import counts, including those inside functions and under ``TYPE_CHECKING``. The graph has no circles, each
module imports only modules of its own layer or below (LAYERS, bottom first), the plain-data leaves import nothing
of ours, and a rule imports only the rule API and codemods.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

REPO = Path(__file__).resolve().parents[1]
# Folder of the checkout -> the package it ships as (pyproject.toml's package-dir).
PACKAGES = {"advisor": "advisor", "rules": "advisor.rules", "codemods": "advisor.codemods"}

# Bottom first. A module may import modules of its own layer or a lower one (its own layer: within its package, and
# the graph must still be acyclic). Names ending in ".*" cover a package's modules.
LAYERS: list[tuple[str, ...]] = [
    # plain data and file plumbing: import nothing of ours (model: only the profile's plain data)
    ("advisor", "advisor.errors", "advisor.files", "advisor.printable", "advisor.profile", "advisor.profile.facts",
     "advisor.source.tf1_api", "advisor.source.python2"),
    ("advisor.model", "advisor.source", "advisor.source.names", "advisor.source.visitors", "advisor.source.syntax",
     "advisor.source.raising",
     "advisor.source.git_tracked",
     "advisor.profile.xplane_pb"),
    # reading source and captures
    ("advisor.config", "advisor.speedup", "advisor.source.facts", "advisor.source.notebook", "advisor.source.walk",
     "advisor.source.requirements",
     "advisor.profile.trace", "advisor.profile.tool_facts", "advisor.profile.xspace_reader", "advisor.profile.convert",
     "advisor.profile.discovery", "advisor.profile.cache", "advisor.profile.bootstrap", "advisor.profile.capture"),
    ("advisor.source.pipelines", "advisor.profile.findings", "advisor.linking"),
    ("advisor.source.index", "advisor.profile.loader"),
    # what rules share: source queries, profile verdicts; what outlives a run
    ("advisor.source.queries", "advisor.verdicts", "advisor.cache", "advisor.state"),
    # the rule API and the fixes
    ("advisor.rule", "advisor.codemods", "advisor.codemods.*"),
    ("advisor.rules", "advisor.rules.*"),
    ("advisor.catalogue",),
    ("advisor.engine",),
    ("advisor.apply", "advisor.report", "advisor.report.*", "advisor.measure"),
    ("advisor.verify",),
    ("advisor.cli", "advisor.__main__"),
]
LEAVES = frozenset(LAYERS[0])
MODEL_IMPORTS = frozenset({"advisor", "advisor.profile", "advisor.profile.facts"})


def _module_files() -> dict[str, Path]:
    modules = {}
    for folder, package in PACKAGES.items():
        for path in sorted((REPO / folder).rglob("*.py")):
            parts = path.relative_to(REPO / folder).with_suffix("").parts
            parts = parts[:-1] if parts[-1] == "__init__" else parts
            modules[".".join((package, *parts))] = path
    return modules


MODULES = _module_files()


def _imports(name: str, path: Path) -> set[str]:
    """advisor modules ``name`` imports, anywhere in the file."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            # `from advisor import rules` imports the module advisor.rules; `from .x import f` imports .x
            targets = [f"{module}.{alias.name}" if f"{module}.{alias.name}" in MODULES else module
                       for alias in node.names]
        else:
            continue
        found.update(t for t in targets if t == "advisor" or t.startswith("advisor."))
    found.discard(name)
    return found


GRAPH = nx.DiGraph((name, target) for name, path in MODULES.items() for target in _imports(name, path))
GRAPH.add_nodes_from(MODULES)


def _layer(module: str) -> int:
    for number, names in enumerate(LAYERS):
        for pattern in names:
            if module == pattern or (pattern.endswith(".*") and module.startswith(pattern[:-1])):
                return number
    raise AssertionError(f"{module} is in no layer: add it to LAYERS in {Path(__file__).name}")


def test_every_import_names_a_module_that_exists():
    unknown = {(a, b) for a, b in GRAPH.edges if b not in MODULES}
    assert unknown == set()


def test_the_import_graph_has_no_circles():
    cycles = list(nx.simple_cycles(GRAPH))
    assert cycles == [], "\n".join(" -> ".join(c + [c[0]]) for c in cycles[:10])


@pytest.mark.parametrize("module", sorted(MODULES))
def test_a_module_imports_nothing_that_stands_above_it(module):
    above = sorted(target for target in GRAPH.successors(module) if _layer(target) > _layer(module))
    assert above == [], f"{module} (layer {_layer(module)}) imports {above}"


def test_plain_data_and_file_plumbing_are_leaves():
    for leaf in LEAVES:
        assert set(GRAPH.successors(leaf)) == set(), leaf
    assert set(GRAPH.successors("advisor.model")) <= MODEL_IMPORTS


def test_a_rule_imports_only_the_rule_api_and_codemods():
    for module in (m for m in MODULES if m.startswith("advisor.rules.")):
        allowed = {t for t in GRAPH.successors(module) if t == "advisor.rule" or t.startswith("advisor.codemods.")}
        assert set(GRAPH.successors(module)) == allowed, module


def test_nothing_names_a_rule():
    """The catalogue discovers rules by importing the package's modules by name at run time; nothing else (the
    engine, reports, codemods, other rules) imports a rule module."""
    importers = {source for source, target in GRAPH.edges if target.startswith("advisor.rules")}
    assert importers == set()
