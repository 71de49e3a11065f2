"""File plumbing every part of advisor shares: content hashes, atomic writes, the per-user cache root, unified diffs.

A leaf: it imports only the standard library.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import stat
import tempfile
from pathlib import Path


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _default_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_atomically(path: Path, data: bytes, mode: int | None = None) -> None:
    """Replace ``path`` with ``data`` in one step: readers see the old file or the new one, never a partial one.

    The temporary file sits in the same folder so ``os.replace`` is a rename on one file system. ``mode``: the
    permission bits to keep (mkstemp makes 0600); None: what a new file would get.
    """
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, _default_mode() if mode is None else mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_output(path: Path, data: bytes) -> None:
    """Write a file the user named (``--output``) the way command-line tools do.

    A new path or a regular file is replaced atomically, keeping an existing file's permission bits, so a reader
    never sees half a report. Anything else (``/dev/null``, a FIFO, a terminal, a symlink to one of them) is opened
    and written through: replacing it would turn a device node or a pipe into a regular file. A symlink to a
    regular file is replaced at its target, so the link stays a link.
    """
    target = path.resolve() if path.is_symlink() else path
    try:
        info = target.stat()
    except FileNotFoundError:
        write_atomically(target, data)
        return
    if stat.S_ISREG(info.st_mode):
        write_atomically(target, data, stat.S_IMODE(info.st_mode))
        return
    with open(target, "wb") as stream:
        stream.write(data)


def cache_root(configured: Path | None = None) -> Path:
    """$ADVISOR_CACHE_DIR, else the configured ``cache-dir``, else $XDG_CACHE_HOME/advisor, else ~/.cache/advisor."""
    if os.environ.get("ADVISOR_CACHE_DIR"):
        return Path(os.environ["ADVISOR_CACHE_DIR"])
    if configured is not None:
        return configured
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "advisor"


def unified_diff(path: Path, old: str, new: str) -> str:
    """A unified diff that ``git apply`` accepts from the repo root."""
    lines = []
    for line in difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                     f"a/{path.as_posix()}", f"b/{path.as_posix()}"):
        lines.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(lines)
