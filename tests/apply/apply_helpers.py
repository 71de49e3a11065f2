"""Helpers of the apply tests (imported by module name: conftest modules are not importable by name)."""

from __future__ import annotations

from pathlib import Path


def listing(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` with its bytes: two listings are equal when nothing was changed or added."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
