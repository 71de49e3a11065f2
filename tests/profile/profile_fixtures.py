"""Helpers for the profile tests: the committed captures in samples/profiles/."""

from __future__ import annotations

from pathlib import Path

from advisor.profile.facts import ProfileFindings
from advisor.profile.loader import load_profile

PROFILES = Path(__file__).resolve().parents[2] / "samples" / "profiles"


def capture_file(name: str) -> Path:
    """The one .xplane.pb of a committed capture."""
    (found,) = (PROFILES / name).rglob("*.xplane.pb")
    return found


def load_sample(name: str) -> ProfileFindings:
    return load_profile(PROFILES / name)
