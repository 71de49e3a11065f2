"""`--format` and `--output` through the command line: every format to stdout or to a file, written atomically."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from advisor.cli import FORMATS, cli

from every_finding import every_finding
from report_helpers import REPO_ROOT


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, every_finding(args), catch_exceptions=False)
    return result.exit_code, result.stdout


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    """A copy of the input-bound sample: `analyze` saves its analysis into the repo it reads."""
    copy = tmp_path / "samples" / "input_bound"
    shutil.copytree(REPO_ROOT / "samples" / "input_bound", copy, ignore=shutil.ignore_patterns(".advisor"))
    return copy


@pytest.mark.parametrize("output_format", FORMATS)
def test_each_format_to_stdout_and_to_a_file_is_the_same_report(output_format, sample, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # stable paths in the GitHub annotations
    code, stdout = run("analyze", "samples/input_bound", "--format", output_format)
    assert code == 1, "findings still exit 1"
    reports = tmp_path / "reports"
    reports.mkdir()
    target = reports / f"report.{output_format}"
    code, nothing = run("analyze", "samples/input_bound", "--format", output_format, "--output", str(target))
    assert (code, nothing) == (1, "")
    assert target.read_text() == stdout
    assert os.listdir(reports) == [target.name], "no temporary file left behind"
    if output_format == "text":
        assert "\x1b[" not in stdout and "TFD001" in stdout
        assert "\n    source: " in stdout, "evidence is labelled as users read it"
    if output_format in ("json", "sarif"):
        json.loads(stdout)


def test_output_replaces_a_file_keeping_its_mode(sample, tmp_path, monkeypatch):
    target = tmp_path / "report.sarif"
    target.write_text("old")
    target.chmod(0o640)
    code, _ = run("analyze", str(sample), "--format", "sarif", "--output", str(target),
                  "--exit-zero")
    assert code == 0
    assert json.loads(target.read_text())["version"] == "2.1.0"
    assert target.stat().st_mode & 0o777 == 0o640


def test_output_onto_a_fifo_or_a_symlink_writes_through_and_keeps_it(sample, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    code, _ = run("analyze", str(sample), "--format", "json", "--output", str(fifo), "--exit-zero")
    reader.join(timeout=60)
    assert code == 0 and stat.S_ISFIFO(fifo.stat().st_mode)
    assert json.loads(received[0])["findings"]
    real, link = tmp_path / "real.json", tmp_path / "link.json"
    real.write_text("old")
    link.symlink_to(real)
    code, _ = run("analyze", str(sample), "--format", "json", "--output", str(link), "--exit-zero")
    assert code == 0 and link.is_symlink() and json.loads(real.read_text())["findings"]


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_output_onto_a_device_node_leaves_it_a_device(sample, tmp_path):
    null = tmp_path / "null"
    os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a /dev/null of our own
    code, _ = run("analyze", str(sample), "--format", "json", "--output", str(null), "--exit-zero")
    assert code == 0 and stat.S_ISCHR(null.stat().st_mode)


def test_check_writes_its_report_too(markup_repo, tmp_path, monkeypatch):
    monkeypatch.chdir(markup_repo)
    target = tmp_path / "check.md"
    code, _ = run("check", "train.py", "--format", "markdown", "--output", str(target))
    assert code == 1
    assert "`train.py:3:" in target.read_text()


def test_output_into_a_missing_directory_is_an_input_error(sample, tmp_path):
    result = subprocess.run([sys.executable, "-m", "advisor", "analyze", "--min-confidence", "possible", str(sample),
                             "--format", "json", "--output", str(tmp_path / "missing" / "r.json")],
                            capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stderr.startswith("advisor: error:") and "does not exist" in result.stderr
    assert not (tmp_path / "missing").exists()
