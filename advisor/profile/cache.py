"""A per-user cache of what advisor read from a capture, so that loading the same capture again is near-instant.

Entries are keyed by the captures' content (SHA-256), the converter's version and advisor's cache format, so an
edited capture or an upgraded converter never hits a stale entry. The directory is ``profile/`` under the
per-user cache root (:func:`advisor.files.cache_root`).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from advisor.files import cache_root, write_atomically

# Bump when what is cached (convert.convert / trace.read_trace_facts output) changes shape.
CACHE_FORMAT = 2
_CHUNK = 1 << 20


def cache_dir() -> Path:
    return cache_root() / "profile"


def file_digest(path: Path) -> str:
    """The SHA-256 of a capture, remembered by path, size and modification time.

    Hashing a capture of hundreds of MB takes longer than the whole cached load should; a file whose size and
    mtime are unchanged is taken to be unchanged (what make and git's index assume too).
    """
    info = path.stat()
    stamp = f"{path.resolve()}\0{info.st_size}\0{info.st_mtime_ns}"
    remembered = cache_dir() / "digests" / f"{hashlib.sha256(stamp.encode()).hexdigest()}.txt"
    try:
        return remembered.read_text().strip()
    except OSError:
        pass
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(_CHUNK):
            digest.update(chunk)
    try:  # atomically: a torn digest would miss the cache forever
        remembered.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(remembered, digest.hexdigest().encode())
    except OSError:
        pass  # only costs speed next time
    return digest.hexdigest()


def cache_key(digests: list[str], converter_version: str) -> str:
    text = json.dumps({"format": CACHE_FORMAT, "converter": converter_version, "captures": digests})
    return hashlib.sha256(text.encode()).hexdigest()


def load(key: str) -> dict[str, Any] | None:
    """The cached entry, or None (also for an unreadable entry: it is simply recomputed and overwritten)."""
    try:
        return json.loads((cache_dir() / f"{key}.json").read_text())
    except (OSError, ValueError):
        return None


def store(key: str, entry: dict[str, Any]) -> None:
    """Write atomically; a cache that cannot be written (read-only home) only costs speed, never a failure."""
    directory = cache_dir()
    try:
        directory.mkdir(parents=True, exist_ok=True)
        write_atomically(directory / f"{key}.json", json.dumps(entry).encode())
    except OSError:
        pass
