"""A per-user cache of what advisor read from a capture, so that loading the same capture again is near-instant.

Entries are keyed by the captures' content (SHA-256), the converter's version, how the captures were read (by the
converter, or by advisor alone when too big to convert) and advisor's cache format, so an edited capture or an
upgraded converter never hits a stale entry. An entry is only trusted as far as it builds: the loader reads the
captures again when one does not (an older format, a damaged file). The directory is ``profile/`` under the
per-user cache root (:func:`advisor.files.cache_root`).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from advisor.files import cache_root, write_atomically

# Bump when what is cached (the converter's facts / trace.read_trace_facts output) changes shape.
CACHE_FORMAT = 4
_CHUNK = 1 << 20


def cache_dir() -> Path:
    return cache_root() / "profile"


def file_digest(path: Path, trust_stamp: bool = True) -> str:
    """The SHA-256 of a capture, remembered by the file's stamp: path, inode, size, modification and change times.

    Hashing a capture of hundreds of MB takes longer than the whole cached load should, so a file whose stamp is
    unchanged is taken to be unchanged, as git's index does. The change time (ctime) is in the stamp because no one
    can set it: a file rewritten with other bytes of the same size, its mtime put back, still gets a new one.
    ``trust_stamp=False`` hashes the file again (and remembers the new digest).
    """
    info = path.stat()
    stamp = f"{path.resolve()}\0{info.st_ino}\0{info.st_size}\0{info.st_mtime_ns}\0{info.st_ctime_ns}"
    remembered = cache_dir() / "digests" / f"{hashlib.sha256(stamp.encode()).hexdigest()}.txt"
    if trust_stamp:
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


def cache_key(digests: list[str], converter_version: str, reading: str) -> str:
    """The key of the entry for captures with these ``digests``, read by ``reading`` ("converter" or "own")."""
    text = json.dumps({"format": CACHE_FORMAT, "converter": converter_version, "reading": reading,
                       "captures": digests})
    return hashlib.sha256(text.encode()).hexdigest()


def load(key: str) -> dict[str, Any] | None:
    """The cached entry, or None (also for an unreadable entry, or one that is not a JSON object: it is simply
    recomputed and overwritten)."""
    try:
        entry = json.loads((cache_dir() / f"{key}.json").read_text())
    except (OSError, ValueError):
        return None
    return entry if isinstance(entry, dict) else None


def store(key: str, entry: dict[str, Any]) -> None:
    """Write atomically; a cache that cannot be written (read-only home) only costs speed, never a failure."""
    directory = cache_dir()
    try:
        directory.mkdir(parents=True, exist_ok=True)
        write_atomically(directory / f"{key}.json", json.dumps(entry).encode())
    except OSError:
        pass
