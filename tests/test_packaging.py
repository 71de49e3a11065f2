"""The wheel must contain every package folder: rules/ and codemods/ ship as advisor.rules / advisor.codemods."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
TOP_LEVEL_IMPORT = re.compile(r"^\s*(from|import)\s+(rules|codemods)\b", re.MULTILINE)


def test_package_dir_mapping_lists_every_package_folder():
    setuptools_config = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    mapping = setuptools_config["package-dir"]
    assert mapping["advisor.rules"] == "rules" and mapping["advisor.codemods"] == "codemods"
    declared = set(setuptools_config["packages"])
    on_disk = set()
    for package, folder in mapping.items():
        for init in (REPO_ROOT / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(REPO_ROOT / folder)
            on_disk.add(".".join([package, *relative.parts]))
    # advisor's own subpackages are found under the "advisor" mapping; rules/codemods under theirs.
    assert on_disk - declared == set(), "add these packages to [tool.setuptools] packages"
    assert declared - on_disk == set(), "these declared packages have no folder"


def test_rules_and_codemods_import_only_as_advisor_subpackages():
    import advisor.codemods
    import advisor.rules

    assert Path(advisor.rules.__file__).parent == REPO_ROOT / "rules"
    assert Path(advisor.codemods.__file__).parent == REPO_ROOT / "codemods"
    for folder in ("rules", "codemods", "advisor"):
        for source in (REPO_ROOT / folder).rglob("*.py"):
            assert not TOP_LEVEL_IMPORT.search(source.read_text()), source
