"""Helpers for the profile tests: the committed captures in samples/profiles/."""

from __future__ import annotations

from pathlib import Path

from advisor.profile import ProfileFindings, load_profile

PROFILES = Path(__file__).resolve().parents[2] / "samples" / "profiles"


def capture_file(name: str) -> Path:
    """The one .xplane.pb of a committed capture."""
    (found,) = (PROFILES / name).rglob("*.xplane.pb")
    return found


def load_sample(name: str) -> ProfileFindings:
    return load_profile(PROFILES / name)
