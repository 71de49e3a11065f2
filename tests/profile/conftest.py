"""Shared fixtures: the committed captures in samples/profiles/ and an isolated cache directory."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from profile_fixtures import capture_file


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "capture: runs a sample under TensorFlow and captures a real profile")


@pytest.fixture(autouse=True)
def isolated_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path_factory.mktemp("advisor-cache")
    monkeypatch.setenv("ADVISOR_CACHE_DIR", str(directory))
    return directory


@pytest.fixture
def copied_capture(tmp_path: Path):
    """Copy a committed capture's run into tmp_path/logdir/plugins/profile/<run>/ and return the copied file."""

    def copy(name: str) -> Path:
        source = capture_file(name)
        target = tmp_path / "logdir" / "plugins" / "profile" / source.parent.name / source.name
        target.parent.mkdir(parents=True)
        shutil.copyfile(source, target)
        return target

    return copy
