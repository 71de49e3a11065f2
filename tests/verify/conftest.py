"""Fixtures: tiny analysed repos (see verify_helpers)."""

from __future__ import annotations

from pathlib import Path

import pytest

from verify_helpers import GUARD, READS, TRAIN, make_repo


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", TRAIN.format(guard=""))


@pytest.fixture
def guarded_repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "guarded", TRAIN.format(guard=GUARD))


@pytest.fixture
def reads_repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "reads", READS)
