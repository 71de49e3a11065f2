from __future__ import annotations

import io
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from advisor import cli

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
# Whatever runs of advisor left in the samples (a saved analysis, caches) is not part of them.
NOT_SOURCES = shutil.ignore_patterns(".advisor", "__pycache__")


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


@pytest.fixture
def repo(tmp_path) -> Path:
    """A copy of the input-bound sample: data.py gets a TFD002 and a TFD001 fix."""
    root = tmp_path / "repo"
    shutil.copytree(SAMPLES / "input_bound", root, ignore=NOT_SOURCES)
    return root
