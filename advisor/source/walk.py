"""Find the Python files and Jupyter notebooks of a repo that can involve TensorFlow or Keras.

Skips version-control, build and cache folders, a virtualenv's packages and interpreters and, in a git work tree,
the untracked files its ``.gitignore`` files ignore (as git does: a file committed in spite of a pattern is part of
the repo, and so is every file of a snapshot with no ``.git``); never follows a directory symlink (so a symlink loop
cannot trap the walk).
Reads only regular files, up to a size bound (a FIFO named ``x.py`` cannot hang the run, nor a huge generated file
stall it). A folder or file that cannot be read is skipped with a warning, and the rest is analysed.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Callable, NamedTuple, Sequence

import pathspec

from ..files import read_regular_file
from .facts import module_and_package
from .git_tracked import TrackedFiles, tracked_files
from .names import PREFILTER_WORDS, import_names
from .notebook import NOTEBOOK_SUFFIX, Notebook, NotebookError

SOURCE_SUFFIXES = (".py", NOTEBOOK_SUFFIX)

SKIPPED_DIRS = frozenset({
    ".git", ".hg", ".svn", ".tox", ".nox", ".venv", "venv", "env", ".env", "__pycache__", ".mypy_cache",
    ".pytest_cache", ".ruff_cache", ".hypothesis", "build", "dist", "site-packages", "node_modules", ".eggs",
    ".advisor", ".ipynb_checkpoints",
})
# Larger files are skipped: no hand-written module comes near, and libcst would spend minutes on one. A notebook
# may hold large outputs (images, tables) besides its code, which alone is parsed.
MAX_SOURCE_BYTES = 10 * 1024 * 1024
MAX_NOTEBOOK_BYTES = 256 * 1024 * 1024
MAX_GITIGNORE_BYTES = 1024 * 1024


@dataclass(frozen=True)
class SourceFile:
    path: Path  # relative to the repo root
    absolute: Path
    data: bytes


def read_source(path: Path) -> bytes:
    """The bytes of a source file: a regular file, up to the size bound of its kind (a notebook's is larger)."""
    return read_regular_file(path, MAX_NOTEBOOK_BYTES if path.suffix == NOTEBOOK_SUFFIX else MAX_SOURCE_BYTES)


# What `python -m venv` makes in a virtual environment's folder (POSIX and Windows layouts): the installed packages
# and interpreters. Whatever else the folder holds is the user's (a training script written beside `pyvenv.cfg`).
VIRTUALENV_DIRS = frozenset({"bin", "Scripts", "lib", "lib64", "Lib", "include", "Include", "share"})


def _is_virtualenv(directory: Path) -> bool:
    return os.path.isfile(directory / "pyvenv.cfg")  # False, not an error, in a folder we may not read


def _gitignore_spec(directory: Path, root: Path, warnings: list[str]) -> pathspec.PathSpec | None:
    ignore_file = directory / ".gitignore"
    try:
        data = read_regular_file(ignore_file, MAX_GITIGNORE_BYTES)
    except FileNotFoundError:
        return None
    except OSError as exc:
        warnings.append(f"{_relative(ignore_file, root)}: not used, cannot read: {exc.strerror}")
        return None
    return pathspec.GitIgnoreSpec.from_lines(data.decode("utf-8", errors="replace").splitlines())


def _relative(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix()


class _IgnoreFile(NamedTuple):
    """A ``.gitignore``'s patterns: they match paths under ``folder`` written relative to the file's own folder, which
    is ``folder`` itself, or above it (a work tree's files when a folder of it is analysed) with ``prefix`` between."""

    folder: Path
    prefix: str
    spec: pathspec.PathSpec


def _ignored(ignore_files: list[_IgnoreFile], path: Path, is_dir: bool) -> bool:
    for folder, prefix, spec in ignore_files:
        if spec.match_file(prefix + path.relative_to(folder).as_posix() + ("/" if is_dir else "")):
            return True
    return False


def _ancestor_ignore_files(root: Path, tracked: TrackedFiles, warnings: list[str]) -> list[_IgnoreFile]:
    """The ``.gitignore`` files of the work tree above ``root``, outermost first, as they apply under ``root``."""
    resolved = root.resolve()
    found = []
    for folder in reversed(resolved.relative_to(tracked.top).parents):
        spec = _gitignore_spec(tracked.top / folder, tracked.top, warnings)
        if spec is not None:
            found.append(_IgnoreFile(root, resolved.relative_to(tracked.top / folder).as_posix() + "/", spec))
    return found


def _left_out(path: Path, root: Path, ignore_files: list[_IgnoreFile], tracked: TrackedFiles | None,
              is_dir: bool) -> bool:
    """Whether git ignores ``path``: a ``.gitignore`` pattern matches it and it is no tracked file (or folder holding
    one). Without a work tree (``tracked`` None) there are no ``ignore_files``."""
    if not _ignored(ignore_files, path, is_dir):
        return False
    relative = PurePosixPath(path.relative_to(root).as_posix())
    return tracked is None or relative not in (tracked.folders if is_dir else tracked.files)


def source_files(root: Path, warnings: list[str]) -> list[Path]:
    """Every ``.py`` and ``.ipynb`` file under ``root`` (relative paths, sorted), honouring the skip rules above; a
    folder that cannot be read adds a line to ``warnings`` (``root`` itself raises the OSError)."""
    tracked = tracked_files(root)
    found: list[Path] = []
    stack = [(root, _ancestor_ignore_files(root, tracked, warnings) if tracked is not None else [])]
    while stack:
        directory, inherited = stack.pop()
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as exc:
            if directory == root:
                raise
            warnings.append(f"{_relative(directory, root)}/: skipped, cannot read the folder: {exc.strerror}")
            continue
        ignore_files = list(inherited)
        spec = _gitignore_spec(directory, root, warnings) if tracked is not None else None
        if spec is not None:
            ignore_files.append(_IgnoreFile(directory, "", spec))
        environment = _is_virtualenv(directory)
        for entry in entries:
            path = Path(entry.path)
            if entry.is_dir(follow_symlinks=False):
                if entry.name in SKIPPED_DIRS or entry.name.endswith(".egg-info") or \
                        environment and entry.name in VIRTUALENV_DIRS:
                    continue
                if not _left_out(path, root, ignore_files, tracked, is_dir=True):
                    stack.append((path, ignore_files))
            elif entry.name.endswith(SOURCE_SUFFIXES):  # whatever it is: reading it says why it cannot be (a FIFO)
                if not _left_out(path, root, ignore_files, tracked, is_dir=False):
                    found.append(path.relative_to(root))
    return sorted(found)


# How far imports are followed from the files that use TensorFlow into plain Python helpers.
HELPER_DEPTH = 2
# `import a.b as c`, `from a.b import c, d`, `from . import c`, `from .a import (c,\n d)`, `from a import *`: what a
# file imports.
_IMPORT = re.compile(rb"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(?:\(([^)]*)\)|([\w., \t*]+))"
                     rb"|import[ \t]+([\w., \t]+))", re.MULTILINE)


def relevant_sources(root: Path, paths: list[Path], warnings: list[str],
                     named_like_tests: Sequence[Path] = ()) -> list[SourceFile]:
    """Read the candidate files ``paths`` (relative to ``root``) and keep those that mention TensorFlow or Keras, the
    scripts that import those (an entry point may name neither), and the Python modules they import (a data loader
    written in NumPy and PIL makes the batches the training consumes: what it does per batch is evidence); a file
    that cannot be read adds a line to ``warnings``. A notebook is kept as it is (its JSON): the index reads its
    cells. Of ``named_like_tests``, files only their name marks as tests, those a file of ``paths`` imports are
    candidates too: ``from build_eval_test import train`` in a training script makes ``build_eval_test.py`` part of
    the program, whatever its name says.
    """
    read = [source for rel in paths if (source := _read(root, rel, warnings)) is not None]
    if named_like_tests:
        imported = {name for source in read for name in _imported_names(_code_of(source))}
        read += [source for rel in named_like_tests if rel.suffix == ".py" and imported.intersection(
            import_names(module_and_package(rel)[0], shortest=1))
                 and (source := _read(root, rel, warnings)) is not None]
    kept, others = _partition(read, lambda source: any(word in source.data for word in PREFILTER_WORDS))
    # Scripts and notebooks that run the TensorFlow code without naming TensorFlow themselves (`from model import
    # *`, then `model.fit_generator(...)`; `from train import Trainer` in a notebook): the entry points that train.
    # Through a package's `__init__.py` that imports it too (`python -m bidaf` runs `bidaf/__main__.py`, whose
    # `from .models import BidirectionalAttentionFlow` names the package that re-exports the Keras model).
    users = list(kept)
    using: set[str] = set()
    for _ in range(HELPER_DEPTH):
        using |= {name for source in users if source.path.suffix == ".py"
                  for name in import_names(module_and_package(source.path)[0], shortest=1)}
        users, others = _partition(others, lambda source: bool(using.intersection(_imported_names(_code_of(source)))))
        if not users:
            break
        kept += users
    others = [source for source in others if source.path.suffix == ".py"]  # nothing imports a notebook
    # Helpers of helpers too (a loader importing its image utilities), a bounded number of rounds.
    imported = {name for source in kept for name in _imported_names(_code_of(source))}
    for _ in range(HELPER_DEPTH):
        helpers, others = _partition(others, lambda source: bool(imported.intersection(
            import_names(module_and_package(source.path)[0], shortest=1))))
        if not helpers:
            break
        kept += helpers
        imported |= {name for source in helpers for name in _imported_names(source.data)}
    return sorted(kept, key=lambda source: source.path)


def _read(root: Path, rel: Path, warnings: list[str]) -> SourceFile | None:
    """The file ``rel`` (relative to ``root``), or None with a line in ``warnings`` saying why it cannot be read."""
    try:
        return SourceFile(rel, root / rel, read_source(root / rel))
    except OSError as exc:
        warnings.append(f"{rel.as_posix()}: skipped, cannot read: {exc.strerror}")
        return None


def _partition(sources: list[SourceFile], chosen: Callable[[SourceFile], bool]) -> tuple[list[SourceFile],
                                                                                         list[SourceFile]]:
    """``sources`` split into those ``chosen`` and the rest, in order."""
    picked = [chosen(source) for source in sources]
    return ([s for s, p in zip(sources, picked) if p], [s for s, p in zip(sources, picked) if not p])


def _code_of(source: SourceFile) -> bytes:
    """The Python a file holds: a notebook's code cells (its JSON quotes each line), a module as it is."""
    if source.path.suffix != NOTEBOOK_SUFFIX:
        return source.data
    try:
        return Notebook.parse(source.data).code.encode()
    except NotebookError:
        return b""  # the index says why it cannot read it


def _imported_names(data: bytes) -> set[str]:
    """The dotted module names a file's import statements may name (``from a import b``: ``a`` and ``a.b``)."""
    names: set[str] = set()
    for match in _IMPORT.finditer(data):
        module, parenthesized, listed, plain = match.groups()
        listed = parenthesized if parenthesized is not None else listed
        if plain is not None:
            names |= {part.split()[0] for part in plain.decode(errors="replace").split(",") if part.strip()}
            continue
        base = module.decode(errors="replace").lstrip(".")
        for part in listed.decode(errors="replace").split(","):
            words = part.split()
            if words:
                names.add(f"{base}.{words[0]}" if base else words[0])
        if base:
            names.add(base)
    return names
