"""Find the Python files and Jupyter notebooks of a repo that can involve TensorFlow or Keras.

Skips version-control, virtualenv, build and cache folders and whatever the repo's ``.gitignore`` files ignore;
never follows a directory symlink (so a symlink loop cannot trap the walk).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pathspec

from .names import PREFILTER_WORDS
from .notebook import NOTEBOOK_SUFFIX

SOURCE_SUFFIXES = (".py", NOTEBOOK_SUFFIX)

SKIPPED_DIRS = frozenset({
    ".git", ".hg", ".svn", ".tox", ".nox", ".venv", "venv", "env", ".env", "__pycache__", ".mypy_cache",
    ".pytest_cache", ".ruff_cache", ".hypothesis", "build", "dist", "site-packages", "node_modules", ".eggs",
    ".advisor", ".ipynb_checkpoints",
})


@dataclass(frozen=True)
class SourceFile:
    path: Path  # relative to the repo root
    absolute: Path
    data: bytes


def _is_virtualenv(directory: Path) -> bool:
    return (directory / "pyvenv.cfg").is_file()


def _gitignore_spec(directory: Path) -> pathspec.PathSpec | None:
    ignore_file = directory / ".gitignore"
    if not ignore_file.is_file():
        return None
    try:
        lines = ignore_file.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return pathspec.GitIgnoreSpec.from_lines(lines)


def _ignored(specs: list[tuple[Path, pathspec.PathSpec]], path: Path, is_dir: bool) -> bool:
    for spec_dir, spec in specs:
        rel = path.relative_to(spec_dir).as_posix() + ("/" if is_dir else "")
        if spec.match_file(rel):
            return True
    return False


def source_files(root: Path) -> list[Path]:
    """Every ``.py`` and ``.ipynb`` file under ``root`` (relative paths, sorted), honouring the skip rules above."""
    found: list[Path] = []
    stack: list[tuple[Path, list[tuple[Path, pathspec.PathSpec]]]] = [(root, [])]
    while stack:
        directory, inherited = stack.pop()
        specs = list(inherited)
        spec = _gitignore_spec(directory)
        if spec is not None:
            specs.append((directory, spec))
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            path = Path(entry.path)
            if entry.is_dir(follow_symlinks=False):
                if entry.name in SKIPPED_DIRS or entry.name.endswith(".egg-info") or _is_virtualenv(path):
                    continue
                if not _ignored(specs, path, is_dir=True):
                    stack.append((path, specs))
            elif entry.name.endswith(SOURCE_SUFFIXES) and entry.is_file():
                if not _ignored(specs, path, is_dir=False):
                    found.append(path.relative_to(root))
    return sorted(found)


def relevant_sources(root: Path, paths: list[Path] | None = None) -> tuple[list[SourceFile], int]:
    """Read the candidate files and keep those that mention TensorFlow or Keras.

    Returns the kept files and how many files were looked at in all. A notebook is kept as it is (its JSON): the
    index reads its cells.
    """
    relative = paths if paths is not None else source_files(root)
    kept = []
    for rel in relative:
        absolute = root / rel
        try:
            data = absolute.read_bytes()
        except OSError:
            continue
        if any(word in data for word in PREFILTER_WORDS):
            kept.append(SourceFile(rel, absolute, data))
    return kept, len(relative)
