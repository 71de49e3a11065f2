"""The command line as a user meets it: exit codes, the JSON contract, bad input, and no writes into the repo."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from every_finding import every_finding

REPO_ROOT = Path(__file__).resolve().parents[1]
SAMPLES = REPO_ROOT / "samples"


def advisor(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "advisor", *every_finding(args)], capture_output=True, text=True,
                          cwd=cwd, timeout=120)


def snapshot(tree: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(tree)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in sorted(tree.rglob("*")) if p.is_file() and ".advisor" not in p.parts}


@pytest.fixture
def problem_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(SAMPLES / "input_bound", repo)
    return repo


def test_analyze_problem_sample_reports_findings_with_patches(problem_repo: Path):
    result = advisor("analyze", str(problem_repo))
    assert result.returncode == 1, result.stderr
    assert "data.py:" in result.stdout and "TFD001" in result.stdout and "TFD002" in result.stdout
    assert "+    ds = ds.map(augment, num_parallel_calls=tf.data.AUTOTUNE)" in result.stdout
    assert "static analysis only" in result.stdout


def test_analyze_tuned_sample_is_clean(tmp_path: Path):
    tuned = tmp_path / "tuned"
    shutil.copytree(SAMPLES / "tuned", tuned, ignore=shutil.ignore_patterns(".advisor"))
    result = advisor("analyze", str(tuned))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "No findings" in result.stdout


def test_json_output_follows_the_contract_and_diffs_apply_with_git(problem_repo: Path):
    result = advisor("analyze", str(problem_repo), "--format", "json", "--select", "TFD")
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert set(report) == {"version", "repo", "profile", "findings", "warnings"}
    assert report["profile"] is None
    finding_keys = {"id", "code", "name", "path", "cell", "line", "column", "end_line", "message", "confidence",
                    "reach", "evidence", "speedup", "fix"}
    assert report["findings"]
    for finding in report["findings"]:
        assert set(finding) == finding_keys
        assert finding["confidence"] in {"confirmed", "likely", "possible"}
        assert not Path(finding["path"]).is_absolute()
        assert finding["cell"] is None  # a Python file's finding: no notebook cell
        fix = finding["fix"]
        assert set(fix) == {"description", "applicability", "why_unsafe", "diff", "cell_diff"}
        assert fix["cell_diff"] is None
        assert fix["applicability"] in {"safe", "unsafe"}
    subprocess.run(["git", "init", "-q"], cwd=problem_repo, check=True)
    for finding in report["findings"]:  # each patch alone applies to the analysed tree
        check = subprocess.run(["git", "apply", "--check", "-"], input=finding["fix"]["diff"], text=True,
                               cwd=problem_repo, capture_output=True)
        assert check.returncode == 0, check.stderr


def test_select_ignore_and_exit_zero(problem_repo: Path):
    only_prefetch = json.loads(advisor("analyze", str(problem_repo), "--format", "json", "--select", "TFD001").stdout)
    assert {f["code"] for f in only_prefetch["findings"]} == {"TFD001"}
    ignored = json.loads(advisor("analyze", str(problem_repo), "--format", "json", "--select", "TFD",
                                 "--ignore", "TFD001").stdout)
    assert "TFD001" not in {f["code"] for f in ignored["findings"]}
    assert advisor("analyze", str(problem_repo), "--exit-zero").returncode == 0


def test_analyze_and_check_write_nothing_into_the_repo(problem_repo: Path):
    before = snapshot(problem_repo)
    advisor("analyze", str(problem_repo))
    advisor("check", "data.py", "train.py", cwd=problem_repo)
    assert snapshot(problem_repo) == before


def test_check_reports_given_files(problem_repo: Path):
    result = advisor("check", "data.py", cwd=problem_repo)
    assert result.returncode == 1
    assert "data.py:" in result.stdout
    # check reads [tool.advisor] from the nearest pyproject.toml above the working directory, as pre-commit runs it
    assert advisor("check", "train.py", cwd=SAMPLES / "tuned").returncode == 0


@pytest.mark.parametrize("args,message", [
    (["analyze", "does-not-exist"], "no such directory"),
    (["analyze", "README.md"], "is a file"),
    (["check", "missing.py"], "no such file"),
    (["analyze", ".", "--select", "NOPE"], "unknown rule code"),
    (["rules", "XYZ999"], "unknown rule"),
])
def test_bad_input_gives_one_line_and_exit_2(args, message):
    result = advisor(*args, cwd=REPO_ROOT)
    assert result.returncode == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "Traceback" not in result.stderr


def test_empty_repo_and_non_python_repo_have_nothing_to_analyze(tmp_path: Path):
    assert "Nothing to analyze" in advisor("analyze", str(tmp_path)).stdout
    (tmp_path / "notes.txt").write_text("tensorflow")
    result = advisor("analyze", str(tmp_path))
    assert result.returncode == 0 and "Nothing to analyze" in result.stdout


def test_unparsable_and_undecodable_files_are_skipped_with_a_warning(problem_repo: Path):
    (problem_repo / "broken.py").write_text("import tensorflow as tf\ndef f(:\n")
    (problem_repo / "latin.py").write_bytes(b"# -*- coding: utf-8 -*-\nimport tensorflow\nx = '\xff\xfe'\n")
    result = advisor("analyze", str(problem_repo))
    assert result.returncode == 1
    assert "broken.py" in result.stdout and "syntax error" in result.stdout
    assert "latin.py" in result.stdout and "cannot decode" in result.stdout
    assert "TFD002" in result.stdout  # the run went on


def test_rules_list_and_explain():
    listing = advisor("rules")
    assert listing.returncode == 0 and "TFD001" in listing.stdout and "missing-prefetch" in listing.stdout
    explained = advisor("rules", "TFD002")
    assert explained.returncode == 0 and "num_parallel_calls" in explained.stdout and "Fixed" in explained.stdout


def test_possible_findings_are_hidden_by_default_and_counted(tmp_path):
    """The default min-confidence is likely: without a profile, a stateless map and a missing prefetch (TensorFlow
    may handle both at run time) and a float32 model (the hardware is unknown) are only possible: counted, not
    shown."""
    repo = tmp_path / "input_bound"
    shutil.copytree(SAMPLES / "input_bound", repo)
    default = subprocess.run([sys.executable, "-m", "advisor", "analyze", str(repo), "--no-cache"],
                             capture_output=True, text=True, timeout=120)
    assert default.returncode == 0 and "TFD00" not in default.stdout
    assert "3 less sure than min-confidence hidden (--show-all)" in default.stdout
    shown = advisor("analyze", str(repo), "--no-cache", "--min-confidence", "possible")
    assert shown.returncode == 1 and "TFD001 possible" in shown.stdout and "TFD002 possible" in shown.stdout
