"""Every test (and every advisor process a test starts) uses its own cache folder, never the user's; ``advisor``
runs the real command line in-process; tests of the source analysis build real indexes of small in-memory
modules."""

from __future__ import annotations

import io
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

from advisor import cli
from advisor.source.index import SourceIndex
from advisor.source.walk import SourceFile
from every_finding import every_finding


@pytest.fixture(autouse=True)
def private_cache_dir(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("ADVISOR_CACHE_DIR", str(tmp_path_factory.mktemp("advisor-cache")))


@dataclass
class Result:
    code: int
    out: str
    err: str


@pytest.fixture
def advisor(monkeypatch, capsys, tmp_path):
    """Run the real command line in-process (``advisor.cli.main``: its error handling and exit codes) from
    ``cwd``, with a private cache; ``stdin`` feeds prompts."""
    monkeypatch.setenv("ADVISOR_CACHE_DIR", str(tmp_path / "cache"))

    def run(*args: str, cwd: Path, stdin: str = "") -> Result:
        monkeypatch.chdir(cwd)
        monkeypatch.setattr(sys, "argv", ["advisor", *every_finding(args)])
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        capsys.readouterr()
        with pytest.raises(SystemExit) as done:
            cli.main()
        captured = capsys.readouterr()
        return Result(done.value.code or 0, captured.out, captured.err)

    return run


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
