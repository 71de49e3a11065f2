"""Every test (and every advisor process a test starts) uses its own cache folder, never the user's."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def private_cache_dir(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("ADVISOR_CACHE_DIR", str(tmp_path_factory.mktemp("advisor-cache")))
