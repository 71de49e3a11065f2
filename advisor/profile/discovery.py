"""Finding captures: a logdir, a run directory, or one ``.xplane.pb`` file.

TensorBoard's layout is ``<logdir>/plugins/profile/<run>/<host>.xplane.pb``; Keras' TensorBoard callback puts it
under ``<logdir>/train/``, so runs are looked for at any depth. Runs are named after their start time, so the
newest is the one whose name sorts last (ties, e.g. custom names, go to the newest modification time).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from advisor.errors import InputError

XPLANE_SUFFIX = ".xplane.pb"


@dataclass(frozen=True)
class RunFiles:
    """One profiling run: its name, its directory and one ``.xplane.pb`` per host, sorted by host name;
    ``unreadable``: directories under the path searched that could not be read (they may hold other runs)."""

    name: str
    directory: Path
    hosts: tuple[Path, ...]
    unreadable: tuple[Path, ...] = ()


def find_run(path: Path, run: str | None = None) -> RunFiles:
    """The run to analyse under ``path``: ``run`` by name, else the newest. Raises InputError naming ``path``, or
    the directory that could not be read when no capture was found."""
    try:
        path.stat()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file or directory") from None
    except OSError as error:  # a symbolic link loop, a permission denied on the way
        raise InputError(f"{path}: cannot open it ({error.strerror})") from None
    if path.is_file():
        if not path.name.endswith(XPLANE_SUFFIX):
            raise InputError(f"{path}: not a profile capture (expected a logdir or a *{XPLANE_SUFFIX} file)")
        return RunFiles(name=path.parent.name, directory=path.parent, hosts=(path,))

    runs, unreadable = _runs_under(path)
    if not runs:
        if unreadable:
            error = unreadable[0]
            raise InputError(f"{error.filename}: cannot read it ({error.strerror}); no profile captures found "
                             f"under {path}")
        raise InputError(f"{path}: no profile captures found (looked for plugins/profile/<run>/*{XPLANE_SUFFIX})")
    if run is None:
        return max(runs, key=lambda r: (r.name, r.directory.stat().st_mtime))
    matching = [r for r in runs if r.name == run]
    if not matching:
        names = ", ".join(sorted({r.name for r in runs}))
        raise InputError(f"{path}: no run named {run!r} (runs: {names})")
    if len(matching) > 1:
        dirs = ", ".join(str(r.directory) for r in matching)
        raise InputError(f"{path}: run name {run!r} is ambiguous ({dirs}); pass the run directory instead")
    return matching[0]


def _runs_under(path: Path) -> tuple[list[RunFiles], list[OSError]]:
    """The runs at any depth under ``path`` (symbolic links to directories are not followed, so no loop), and the
    errors of the directories that could not be read."""
    unreadable: list[OSError] = []
    by_directory: dict[Path, list[Path]] = {}
    for directory, _, files in os.walk(path, onerror=unreadable.append):
        captures = [Path(directory, name) for name in files if name.endswith(XPLANE_SUFFIX)]
        captures = [capture for capture in captures if capture.is_file()]
        if captures:
            by_directory[Path(directory)] = captures
    skipped = tuple(Path(error.filename) for error in unreadable)
    return [RunFiles(name=d.name, directory=d, hosts=tuple(sorted(files)), unreadable=skipped)
            for d, files in by_directory.items()], unreadable
