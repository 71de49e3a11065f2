"""The per-user cache of ``advisor check`` and ``advisor analyze`` results: unchanged files cost no parsing.

An entry is the result of one run over a set of files, keyed by their paths and content hashes, the tool, the
settings and the run's context (the working directory for ``check``; the repo and the profile for ``analyze``).
The key covers the whole set, not each file: rules follow datasets across modules (a pipeline built in
``data.py`` and consumed in ``train.py``), so one file's findings depend on which other files were read with it.

Layout: ``<cache root>/<kind>/<key[:2]>/<key>.json`` with kind ``check`` or ``analyze``; the profile cache shares
the root under ``profile/``.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import __version__
from .state import finding_from_dict, finding_to_dict, write_atomically

if TYPE_CHECKING:
    from .config import Settings
    from .engine import Report

CACHE_FORMAT = 1


def cache_root(configured: Path | None = None) -> Path:
    """$ADVISOR_CACHE_DIR, else the configured ``cache-dir``, else $XDG_CACHE_HOME/advisor, else ~/.cache/advisor."""
    if os.environ.get("ADVISOR_CACHE_DIR"):
        return Path(os.environ["ADVISOR_CACHE_DIR"])
    if configured is not None:
        return configured
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "advisor"


def _tool_fingerprint() -> str:
    """The version, plus the size and mtime of advisor's own modules: an editable install changes rules without
    changing the version, and a cached result of the old rules would be wrong."""
    import advisor
    from advisor import codemods, rules

    folders = [Path(advisor.__file__).parent, *map(Path, rules.__path__), *map(Path, codemods.__path__)]
    digest = hashlib.sha256(__version__.encode())
    for folder in folders:
        for path in sorted(folder.rglob("*.py")):
            info = path.stat()
            digest.update(f"{path}:{info.st_size}:{info.st_mtime_ns}\n".encode())
    return digest.hexdigest()


class ResultCache:
    def __init__(self, root: Path, kind: str) -> None:
        self.folder = root / kind

    @staticmethod
    def key(files: dict[str, bytes], settings: "Settings", context: str) -> str:
        """``files``: path as reported -> content; ``context``: what else the findings depend on."""
        digest = hashlib.sha256(f"{CACHE_FORMAT}\n{_tool_fingerprint()}\n{settings.fingerprint()}\n"
                                f"{context}\n".encode())
        for path in sorted(files):
            digest.update(f"{path}\0{hashlib.sha256(files[path]).hexdigest()}\n".encode())
        return digest.hexdigest()

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def load(self, key: str, root: Path, profile: Any = None) -> "Report | None":
        """The cached report, or None on a miss or an entry that cannot be read (it is rebuilt)."""
        from .engine import Report

        try:
            entry = json.loads(self._path(key).read_bytes())
            return Report(root, [finding_from_dict(f) for f in entry["findings"]], profile, entry["warnings"],
                          entry["files_seen"], entry["files_analyzed"], hidden=entry["hidden"],
                          file_hashes=entry["file_hashes"])
        except (OSError, ValueError, KeyError, TypeError, ImportError):
            return None

    def store(self, key: str, report: "Report") -> None:
        """Save ``report``; a cache that cannot be written only makes the next run slower."""
        entry = {"findings": [finding_to_dict(f) for f in report.findings], "warnings": report.warnings,
                 "files_seen": report.files_seen, "files_analyzed": report.files_analyzed, "hidden": report.hidden,
                 "file_hashes": report.file_hashes}
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(path, json.dumps(entry).encode())
        except OSError:
            pass


def cached_check(files: list[Path], settings: "Settings", use_cache: bool = True) -> "Report":
    """``engine.check`` through the cache."""
    from .engine import check

    if not use_cache:
        return check(files, settings)
    try:
        contents = {file.as_posix(): file.read_bytes() for file in files}
    except OSError:
        return check(files, settings)  # let check report the missing file
    cache = ResultCache(cache_root(settings.cache_dir), "check")
    # The working directory is part of the key: findings name files relative to it.
    key = cache.key(contents, settings, str(Path.cwd().resolve()))
    report = cache.load(key, Path.cwd())
    if report is None:
        report = check(files, settings)
        cache.store(key, report)
    return report
