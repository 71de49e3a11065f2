"""The README's two set-up commands are what a newcomer runs: CI must run the same test command."""

from __future__ import annotations

import re
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


def quick_start_commands() -> list[str]:
    readme = (REPO_ROOT / "README.md").read_text()
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", section, re.DOTALL)]


def test_readme_has_exactly_two_setup_commands():
    analyze, test = quick_start_commands()
    assert "advisor analyze samples/" in analyze
    assert "pytest" in test


def test_ci_runs_the_readme_test_command():
    ci_lines = (REPO_ROOT / ".ci" / "run").read_text().splitlines()
    assert quick_start_commands()[1] in ci_lines


def test_readme_sample_paths_exist():
    analyze = quick_start_commands()[0]
    for path in re.findall(r"samples/\S+", analyze):
        assert (REPO_ROOT / path).exists(), path
