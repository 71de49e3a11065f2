"""The hooks of .pre-commit-hooks.yaml, run by the real pre-commit tool on a throwaway git repo.

`pre-commit try-repo` builds a virtualenv and pip-installs a snapshot of this working tree into it, so these
tests need PyPI; they are skipped, saying so, when it cannot be reached.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"

pytestmark = pytest.mark.slow


def _pypi_reachable() -> bool:
    try:
        socket.create_connection(("pypi.org", 443), timeout=5).close()
        return True
    except OSError:
        return False


@pytest.fixture(scope="module")
def environment(tmp_path_factory):
    if shutil.which("pre-commit") is None:
        pytest.skip("pre-commit is not installed")
    if not _pypi_reachable():
        pytest.skip("pypi.org unreachable: pre-commit cannot install the hook")
    home = tmp_path_factory.mktemp("pre-commit-home")
    return {**os.environ, "PRE_COMMIT_HOME": str(home), "ADVISOR_CACHE_DIR": str(home / "advisor-cache")}


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory) -> Path:
    """This working tree as one commit, untracked files included.

    try-repo on the working tree itself would commit only the tracked files' changes, so a tracked module that
    imports a new, not yet added one would not install; and one commit lets every call reuse one virtualenv.
    """
    snapshot = tmp_path_factory.mktemp("hook-repo")
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():  # a tracked file deleted in the working tree is left out
            (snapshot / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, snapshot / name)
    git = ["git", "-c", "user.name=advisor tests", "-c", "user.email=tests@advisor.invalid"]
    subprocess.run([*git, "init", "-q"], cwd=snapshot, check=True)
    subprocess.run([*git, "add", "-A"], cwd=snapshot, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "snapshot"], cwd=snapshot, check=True)
    return snapshot


def _git_repo(path: Path, files: dict[str, Path]) -> Path:
    path.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=path, check=True)
    for name, source in files.items():
        shutil.copy(source, path / name)
    # The hooks honour [tool.advisor]: only the tf.data rules, whose verdicts on these samples are the point here,
    # down to `possible` (the static verdict of a stateless map, which TensorFlow may parallelize by itself).
    (path / "pyproject.toml").write_text('[tool.advisor]\nselect = ["TFD"]\nmin-confidence = "possible"\n')
    subprocess.run(["git", "add", "pyproject.toml", *files], cwd=path, check=True)
    return path


def _try_repo(hook_repo: Path, repo: Path, env: dict, *files: str) -> subprocess.CompletedProcess:
    """Both hooks (advisor, then advisor-fix) on ``files``."""
    return subprocess.run(["pre-commit", "try-repo", str(hook_repo), "--files", *files], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=600)


def test_hooks_fail_and_fix_a_problem_file_and_pass_the_tuned_one(tmp_path, environment, hook_repo):
    repo = _git_repo(tmp_path / "repo", {"data.py": SAMPLES / "input_bound/data.py",
                                         "train.py": SAMPLES / "tuned/train.py"})
    failing = _try_repo(hook_repo, repo, environment, "data.py")
    output = failing.stdout + failing.stderr
    assert failing.returncode == 1, output
    assert "data.py:37:13: TFD002" in output  # the check hook reports it...
    assert "fixed TFD002" in output  # ...and the fix hook fixes it
    assert "num_parallel_calls=tf.data.AUTOTUNE" in (repo / "data.py").read_text()
    passing = _try_repo(hook_repo, repo, environment, "train.py")
    assert passing.returncode == 0, passing.stdout + passing.stderr
    assert passing.stdout.count("Passed") == 2


def test_hooks_take_a_staged_notebook(tmp_path, environment, hook_repo):
    """`types_or: [python, jupyter]`: pre-commit hands the hooks .ipynb files too; the fix lands in the cell."""
    import nbformat

    repo = _git_repo(tmp_path / "repo", {"train.ipynb": SAMPLES / "notebook/train.ipynb"})
    result = _try_repo(hook_repo, repo, environment, "train.ipynb")
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "train.ipynb:cell 4:19:21: TFD002" in output
    assert "fixed TFD002" in output
    fixed = nbformat.read(repo / "train.ipynb", as_version=4)
    nbformat.validate(fixed)
    assert "train_ds.map(augment, num_parallel_calls=tf.data.AUTOTUNE)" in fixed.cells[3].source
