"""Which files git tracks under a folder, read from the work tree's index file (git itself is never run: a hostile
repo's config can make git commands execute programs).

``.gitignore`` says which *untracked* files git leaves out; a file committed in spite of a pattern (``*.ipynb`` in
``.gitignore``, the notebooks force-added) is part of the repo, and a snapshot with no ``.git`` (an archive, a
"Download ZIP") holds only files that were committed. So the walk needs to know both whether there is a work tree and
what it tracks.
"""

from __future__ import annotations

import os
import re
import struct
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..files import read_regular_file

MAX_INDEX_BYTES = 512 * 1024 * 1024
_HEADER = struct.Struct(">4sLL")
_STAT_BYTES = 40  # ctime, mtime (8 each), dev, ino, mode, uid, gid, size (4 each)
_EXTENDED = 0x4000
_SHA256 = re.compile(r"^\s*objectformat\s*=\s*sha256\s*$", re.MULTILINE | re.IGNORECASE)


@dataclass(frozen=True)
class TrackedFiles:
    """The files git tracks under a folder (paths relative to it), the folders that hold them, and the work tree's top
    folder (resolved)."""

    top: Path
    files: frozenset[PurePosixPath]
    folders: frozenset[PurePosixPath]


def tracked_files(folder: Path) -> TrackedFiles | None:
    """What git tracks under ``folder``; None when ``folder`` is in no git work tree. A work tree whose index cannot
    be read or understood (none yet, a newer format) tracks nothing here, so its ``.gitignore`` applies in full."""
    located = _git_dir(folder.resolve())
    if located is None:
        return None
    top, git_dir = located
    try:
        paths = _index_paths(read_regular_file(git_dir / "index", MAX_INDEX_BYTES), _hash_size(git_dir))
    except (OSError, ValueError, IndexError, struct.error):
        paths = []
    prefix = PurePosixPath(folder.resolve().relative_to(top).as_posix())
    files = frozenset(path.relative_to(prefix) for path in paths
                      if prefix == PurePosixPath(".") or prefix in path.parents)
    return TrackedFiles(top, files, frozenset(parent for path in files for parent in path.parents))


def _git_dir(folder: Path) -> tuple[Path, Path] | None:
    """The top of the work tree holding ``folder`` and its git directory (``.git``, or where a ``.git`` file of a
    linked work tree or submodule points)."""
    for top in (folder, *folder.parents):
        dot_git = top / ".git"
        if dot_git.is_dir():
            return top, dot_git
        if dot_git.is_file():
            try:
                line = read_regular_file(dot_git, 4096).decode("utf-8", errors="replace").strip()
            except OSError:
                return None
            if not line.startswith("gitdir:"):
                return None
            return top, (top / line.removeprefix("gitdir:").strip()).resolve()
    return None


def _hash_size(git_dir: Path) -> int:
    """Bytes per object name: 32 in a SHA-256 repository, else 20."""
    try:
        config = read_regular_file(git_dir / "config", 1024 * 1024).decode("utf-8", errors="replace")
    except OSError:
        return 20
    return 32 if _SHA256.search(config) else 20


def _index_paths(data: bytes, hash_size: int) -> list[PurePosixPath]:
    """The paths of a git index (format versions 2 to 4, see git's Documentation/gitformat-index.txt)."""
    signature, version, count = _HEADER.unpack_from(data, 0)
    if signature != b"DIRC" or version not in (2, 3, 4):
        raise ValueError("not a git index of a known version")
    offset, previous, paths = _HEADER.size, b"", []
    for _ in range(count):
        start = offset
        flags_at = offset + _STAT_BYTES + hash_size
        (flags,) = struct.unpack_from(">H", data, flags_at)
        offset = flags_at + 2 + (2 if version >= 3 and flags & _EXTENDED else 0)
        if version == 4:  # the name drops a number of bytes from the previous one's end, then adds its own
            strip, offset = _varint(data, offset)
            end = data.index(b"\0", offset)
            if strip > len(previous):
                raise ValueError("corrupt git index")
            name = previous[:len(previous) - strip] + data[offset:end]
            offset = end + 1
        else:  # NUL-terminated, then padded with NULs to a multiple of eight bytes from the entry's start
            end = data.index(b"\0", offset)
            name = data[offset:end]
            offset = start + (end - start + 8) // 8 * 8
        previous = name
        paths.append(PurePosixPath(os.fsdecode(name)))
    return paths


def _varint(data: bytes, offset: int) -> tuple[int, int]:
    """git's offset encoding: seven bits a byte, high bit set on all but the last, each continuation adding one."""
    byte = data[offset]
    value = byte & 0x7F
    while byte & 0x80:
        offset += 1
        byte = data[offset]
        value = ((value + 1) << 7) | (byte & 0x7F)
    return value, offset + 1
