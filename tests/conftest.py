"""Every test (and every advisor process a test starts) uses its own cache folder, never the user's; tests of the
source analysis build real indexes of small in-memory modules."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Callable

import pytest

from advisor.source.index import SourceIndex
from advisor.source.walk import SourceFile


@pytest.fixture(autouse=True)
def private_cache_dir(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("ADVISOR_CACHE_DIR", str(tmp_path_factory.mktemp("advisor-cache")))


@pytest.fixture
def index_of() -> Callable[..., SourceIndex]:
    """``index_of({"pkg/data.py": code, ...})``: the SourceIndex of those files (each dedented and parsed by libcst,
    as ``analyze`` does, without touching the disk); ``index_of(code=...)`` for one file, ``train.py``. Every file
    must parse."""
    root = Path("/nonexistent-repo")

    def build(files: dict[str, str] | None = None, *, code: str | None = None) -> SourceIndex:
        files = dict(files or {}, **({"train.py": code} if code is not None else {}))
        sources = [SourceFile(Path(path), root / path, textwrap.dedent(text).encode()) for path, text in files.items()]
        index = SourceIndex.build(root, sources, len(sources))
        assert not index.warnings, index.warnings  # a test module that does not parse would test nothing
        return index

    return build
