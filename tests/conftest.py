"""Every test (and every advisor process a test starts) uses its own cache folder, never the user's; ``advisor``
runs the real command line in-process."""

from __future__ import annotations

import io
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from advisor import cli


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
        monkeypatch.setattr(sys, "argv", ["advisor", *args])
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        capsys.readouterr()
        with pytest.raises(SystemExit) as done:
            cli.main()
        captured = capsys.readouterr()
        return Result(done.value.code or 0, captured.out, captured.err)

    return run
