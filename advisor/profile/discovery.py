"""Finding captures: a logdir, a run directory, or one ``.xplane.pb`` file.

TensorBoard's layout is ``<logdir>/plugins/profile/<run>/<host>.xplane.pb``; Keras' TensorBoard callback puts it
under ``<logdir>/train/``, so runs are looked for at any depth. Runs are named after their start time, so the
newest is the one whose name sorts last (ties, e.g. custom names, go to the newest modification time).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from advisor.errors import InputError

XPLANE_SUFFIX = ".xplane.pb"


@dataclass(frozen=True)
class RunFiles:
    """One profiling run: its name, its directory and one ``.xplane.pb`` per host, sorted by host name."""

    name: str
    directory: Path
    hosts: tuple[Path, ...]


def find_run(path: Path, run: str | None = None) -> RunFiles:
    """The run to analyse under ``path``: ``run`` by name, else the newest. Raises InputError naming ``path``."""
    if not path.exists():
        raise InputError(f"{path}: no such file or directory")
    if path.is_file():
        if not path.name.endswith(XPLANE_SUFFIX):
            raise InputError(f"{path}: not a profile capture (expected a logdir or a *{XPLANE_SUFFIX} file)")
        return RunFiles(name=path.parent.name, directory=path.parent, hosts=(path,))

    runs = _runs_under(path)
    if not runs:
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


def _runs_under(path: Path) -> list[RunFiles]:
    by_directory: dict[Path, list[Path]] = {}
    for capture in path.rglob(f"*{XPLANE_SUFFIX}"):
        if capture.is_file():
            by_directory.setdefault(capture.parent, []).append(capture)
    return [RunFiles(name=d.name, directory=d, hosts=tuple(sorted(files))) for d, files in by_directory.items()]
