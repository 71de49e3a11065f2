"""The per-user cache of ``advisor check`` and ``advisor analyze`` results: unchanged files cost no parsing.

An entry is the result of one run over a set of files, keyed by their paths and content hashes, the tool, the
settings and the run's context (the working directory for ``check``; the repo and the profile for ``analyze``).
The key covers the whole set, not each file: rules follow datasets across modules (a pipeline built in
``data.py`` and consumed in ``train.py``), so one file's findings depend on which other files were read with it.
The engine is handed a :class:`ResultCache` (or None) and asks it; the cache knows nothing of the engine.

Layout: ``<cache root>/<kind>/<key[:2]>/<key>.json`` with kind ``check`` or ``analyze``; the profile cache shares
the root under ``profile/``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
from functools import cache
from pathlib import Path

from . import __version__
from .config import Settings
from .files import cache_root, read_regular_file, write_atomically
from .model import Finding, Report
from .profile.facts import ProfileFindings

CACHE_FORMAT = 5
MAX_ENTRY_BYTES = 256 * 1024 * 1024  # an entry holds one report's findings: far below this


@cache
def _tool_fingerprint() -> str:
    """The version, plus the size and mtime of advisor's own modules: an editable install changes rules without
    changing the version, and a cached result of the old rules would be wrong."""
    package = Path(__file__).parent
    folders = [package]
    for subpackage in ("rules", "codemods"):  # shipped inside advisor; top-level folders in a checkout
        spec = importlib.util.find_spec(f"advisor.{subpackage}")
        folders.extend(Path(p) for p in spec.submodule_search_locations or () if Path(p).parent != package)
    digest = hashlib.sha256(__version__.encode())
    for folder in folders:
        for path in sorted(folder.rglob("*.py")):
            info = path.stat()
            digest.update(f"{path}:{info.st_size}:{info.st_mtime_ns}\n".encode())
    return digest.hexdigest()


class ResultCache:
    """Results of ``kind`` runs (``check`` or ``analyze``) under the per-user cache root."""

    def __init__(self, kind: str, settings: Settings) -> None:
        self.folder = cache_root(settings.cache_dir) / kind
        self.settings = settings

    def key(self, files: dict[str, bytes], context: str) -> str:
        """``files``: path as reported -> content; ``context``: what else the findings depend on."""
        digest = hashlib.sha256(f"{CACHE_FORMAT}\n{_tool_fingerprint()}\n{self.settings.fingerprint()}\n"
                                f"{context}\n".encode())
        for path in sorted(files):
            digest.update(f"{path}\0{hashlib.sha256(files[path]).hexdigest()}\n".encode())
        return digest.hexdigest()

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def load(self, key: str, root: Path, profile: ProfileFindings | None = None) -> Report | None:
        """The cached report, or None on a miss or an entry that cannot be read (it is rebuilt)."""
        try:
            entry = json.loads(read_regular_file(self._path(key), MAX_ENTRY_BYTES))
            return Report(root, [Finding.from_state(f) for f in entry["findings"]], profile, entry["warnings"],
                          entry["files_seen"], entry["files_analyzed"], entry["files_excluded"],
                          hidden=entry["hidden"], off_training=entry["off_training"], less_sure=entry["less_sure"],
                          file_hashes=entry["file_hashes"])
        except (OSError, ValueError, KeyError, TypeError, ImportError):
            return None

    def store(self, key: str, report: Report) -> None:
        """Save ``report``; a cache that cannot be written only makes the next run slower."""
        entry = {"findings": [f.to_state() for f in report.findings], "warnings": report.warnings,
                 "files_seen": report.files_seen, "files_analyzed": report.files_analyzed,
                 "files_excluded": report.files_excluded, "hidden": report.hidden,
                 "off_training": report.off_training, "less_sure": report.less_sure,
                 "file_hashes": report.file_hashes}
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(path, json.dumps(entry).encode())
        except OSError:
            pass
