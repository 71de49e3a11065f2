from __future__ import annotations

import shutil
from pathlib import Path

import pytest

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
# Whatever runs of advisor left in the samples (a saved analysis, caches) is not part of them.
NOT_SOURCES = shutil.ignore_patterns(".advisor", "__pycache__")


@pytest.fixture
def repo(tmp_path) -> Path:
    """A copy of the input-bound sample: data.py gets a TFD002 and a TFD001 fix."""
    root = tmp_path / "repo"
    shutil.copytree(SAMPLES / "input_bound", root, ignore=NOT_SOURCES)
    return root
