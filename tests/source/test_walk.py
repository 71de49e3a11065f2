"""Which files of a repo are analysed: ``.gitignore`` leaves out what git leaves out, untracked files of a work tree,
and nothing of a snapshot (an archive holds only committed files). Real git makes the work trees and their index."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from advisor.source.walk import source_files

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git to make a work tree")


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "init.defaultBranch=main", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repo whose .gitignore leaves out notebooks and a folder, with files in both."""
    root = tmp_path / "repo"
    for path in ("train.py", "examples/demo.ipynb", "examples/scratch.ipynb", "configs/base.py",
                 "configs/local.py", "data/cache.py"):
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("import tensorflow as tf\n" if path.endswith(".py") else "{}")
    (root / ".gitignore").write_text("*.ipynb\nconfigs/\ndata/\n")
    return root


def analysed(root: Path) -> list[str]:
    return [path.as_posix() for path in source_files(root, [])]


def test_a_snapshot_without_git_holds_only_committed_files_and_all_are_analysed(repo: Path):
    assert analysed(repo) == ["configs/base.py", "configs/local.py", "data/cache.py", "examples/demo.ipynb",
                              "examples/scratch.ipynb", "train.py"]


@pytest.mark.parametrize("index_version", ["2", "3", "4"])
def test_in_a_work_tree_ignored_files_are_left_out_unless_tracked(repo: Path, index_version: str):
    git(repo, "init", "-q")
    git(repo, "add", "train.py", ".gitignore")
    git(repo, "add", "-f", "examples/demo.ipynb", "configs/base.py")  # committed in spite of the patterns
    git(repo, "update-index", "--index-version", index_version)
    if index_version == "3":  # an extended entry: its flags take two more bytes
        git(repo, "update-index", "--skip-worktree", "configs/base.py")
    assert analysed(repo) == ["configs/base.py", "examples/demo.ipynb", "train.py"]
    # Analysing a folder of the work tree reads the same index, relative to that folder.
    assert analysed(repo / "configs") == ["base.py"]


def test_a_work_tree_whose_index_cannot_be_read_honours_its_gitignore_in_full(repo: Path):
    git(repo, "init", "-q")
    assert analysed(repo) == ["train.py"]  # nothing tracked yet: git ignores every match
    (repo / ".git" / "index").write_bytes(b"DIRC\x00\x00\x00\x02\x00\x00\x00\x09" + b"\xff" * 30)  # truncated
    assert analysed(repo) == ["train.py"]


def test_a_linked_work_tree_reads_the_index_its_git_file_points_to(repo: Path, tmp_path: Path):
    git(repo, "init", "-q")
    git(repo, "add", "-f", ".")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "all")
    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", str(linked))
    git(linked, "rm", "-q", "--cached", "configs/local.py")
    assert (linked / ".git").is_file()
    assert "configs/local.py" not in analysed(linked) and "configs/local.py" in analysed(repo)


def test_a_virtualenv_s_packages_are_skipped_but_a_script_written_beside_them_is_read(tmp_path: Path):
    root = tmp_path / "repo"
    for path in ("mmnist/pyvenv.cfg", "mmnist/mmnist.py", "mmnist/Lib/site-packages/keras/engine.py",
                 "mmnist/Scripts/activate_this.py", "mmnist/lib/python3.11/site-packages/tf/core.py",
                 "mmnist/bin/pip.py", "mmnist/Data/prepare.py"):
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("import tensorflow as tf\n")
    assert analysed(root) == ["mmnist/Data/prepare.py", "mmnist/mmnist.py"]
