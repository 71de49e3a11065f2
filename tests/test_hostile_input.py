"""Hostile and broken input (issue #14): each test builds the bad input, runs the real command line, and checks
that nothing outside the repo is written, no file is damaged, nothing crashes or hangs, and the user reads one
clear line.

Most runs are in-process (``advisor`` fixture: ``advisor.cli.main`` with its error handling); those that could hang
(FIFOs, /dev/zero, Ctrl-C) run in a child process with a timeout, so a regression fails instead of hanging CI.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from advisor.config import Settings
from advisor.engine import analyze, analyze_texts
from advisor.files import NotARegularFile, read_regular_file
from advisor.model import Confidence
from advisor.profile.capture import _forward_stderr
from advisor.source.index import MAX_NESTING, SourceIndex
from advisor.source.walk import SourceFile
from every_finding import every_finding

EVERY_FINDING = Settings(min_confidence=Confidence.POSSIBLE)  # the repos here are small: their findings are possible

# One function, two safe fixes: TFD002 (parallel map) on line 6, TFD001 (prefetch) on line 7.
TRAIN = """import tensorflow as tf


def make(files):
    ds = tf.data.TFRecordDataset(files)
    ds = ds.map(lambda x: x * 2)
    ds = ds.batch(32)
    return ds
"""
FIXED = "num_parallel_calls=tf.data.AUTOTUNE"
SUBPROCESS_TIMEOUT_S = 120


def contents(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def advisor_process(*args: str, cwd: Path, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "advisor", *every_finding(args)], cwd=cwd, capture_output=True,
                          text=True, timeout=SUBPROCESS_TIMEOUT_S, **kwargs)


def assert_one_error_line(code: int, err: str, *words: str) -> str:
    """Exit 2 and exactly one line on stderr, an error naming ``words``; returns it."""
    lines = err.splitlines()
    assert code == 2 and len(lines) == 1, err
    assert lines[0].startswith("advisor: error: "), lines[0]
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


@dataclass
class Sandbox:
    """A repo and, beside it, a folder of the user's other files that no run may touch."""

    repo: Path
    outside: Path

    def __post_init__(self) -> None:
        self.repo.mkdir()
        (self.repo / "train.py").write_text(TRAIN)
        self.outside.mkdir()
        (self.outside / "precious.txt").write_text("the user's own file\n")
        (self.outside / "victim.py").write_text(TRAIN)  # a fix would apply to it, were it ever reached
        self.before = contents(self.outside)

    def assert_untouched(self) -> None:
        assert contents(self.outside) == self.before
        assert sorted(p.name for p in self.outside.iterdir()) == sorted(self.before)


@pytest.fixture
def sandbox(tmp_path) -> Sandbox:
    return Sandbox(tmp_path / "repo", tmp_path / "outside")


# -- writes where they must not ---------------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["state-file", "cache-dir"])
@pytest.mark.parametrize("where", ["absolute", "../outside/precious.txt", "../../escaped"])
def test_a_repository_configuration_cannot_point_writes_outside_it(sandbox, advisor, tmp_path, key, where):
    value = str(sandbox.outside / "precious.txt") if where == "absolute" else where
    (sandbox.repo / "pyproject.toml").write_text(f'[tool.advisor]\n{key} = "{value}"\n')
    result = advisor("analyze", str(sandbox.repo), cwd=sandbox.repo)
    assert_one_error_line(result.code, result.err, "pyproject.toml", key, "outside the project folder")
    sandbox.assert_untouched()
    assert not (sandbox.repo / ".advisor").exists() and not (tmp_path.parent / "escaped").exists()


def test_a_state_file_through_a_symlink_out_of_the_project_is_refused(sandbox, advisor):
    (sandbox.repo / "state").symlink_to(sandbox.outside, target_is_directory=True)
    (sandbox.repo / "pyproject.toml").write_text('[tool.advisor]\nstate-file = "state/precious.txt"\n')
    result = advisor("analyze", str(sandbox.repo), cwd=sandbox.repo)
    assert_one_error_line(result.code, result.err, "state-file", "outside the project folder")
    sandbox.assert_untouched()


def test_a_cache_inside_the_project_is_used(sandbox, advisor, monkeypatch):
    (sandbox.repo / "pyproject.toml").write_text('[tool.advisor]\ncache-dir = ".cache/advisor"\n')
    monkeypatch.delenv("ADVISOR_CACHE_DIR")
    assert advisor("analyze", str(sandbox.repo), cwd=sandbox.repo).code == 1
    assert list((sandbox.repo / ".cache" / "advisor" / "analyze").rglob("*.json"))


def test_a_state_folder_symlinked_out_of_the_repo_is_neither_written_nor_read(sandbox, advisor):
    (sandbox.repo / ".advisor").symlink_to(sandbox.outside, target_is_directory=True)
    result = advisor("analyze", str(sandbox.repo), cwd=sandbox.repo)
    assert result.code == 1 and "TFD002" in result.out, "the analysis itself stands"
    assert "analysis not saved" in result.err and "outside the repository" in result.err
    applied = advisor("apply", "--all", cwd=sandbox.repo)
    assert_one_error_line(applied.code, applied.err, "outside the repository")
    sandbox.assert_untouched()


def test_apply_refuses_paths_of_a_tampered_saved_analysis_that_lead_out_of_the_repo(sandbox, advisor):
    (sandbox.repo / "data.py").write_text(TRAIN)
    assert advisor("analyze", str(sandbox.repo), cwd=sandbox.repo).code == 1
    state_file = sandbox.repo / ".advisor" / "last.json"
    state = json.loads(state_file.read_text())
    victim = sandbox.outside / "victim.py"
    # data.py's findings now name the victim, by ../ and by absolute path, with its true hash: only the path check
    # stands between them and the user's file.
    escapes = iter(["../outside/victim.py", str(victim)])
    redirected = {}
    for finding in state["findings"]:
        if finding["path"] == "data.py":
            finding["path"] = redirected.setdefault(finding["id"], next(escapes))
    state["files"].update({path: state["files"]["data.py"] for path in redirected.values()})
    state_file.write_text(json.dumps(state))

    result = advisor("apply", "--all", cwd=sandbox.repo)
    assert result.code == 1
    assert result.err.count("outside the repository") == 2, result.err
    sandbox.assert_untouched()
    assert FIXED in (sandbox.repo / "train.py").read_text(), "the entries inside the repo are applied"
    assert (sandbox.repo / "data.py").read_text() == TRAIN


def test_apply_edits_a_symlinked_source_at_its_target_and_refuses_a_link_out_of_the_repo(sandbox, advisor):
    (sandbox.repo / ".gitignore").write_text("vendor/\n")  # the target is analysed through the link only
    (sandbox.repo / "vendor").mkdir()
    (sandbox.repo / "vendor" / "data.py").write_text(TRAIN)
    (sandbox.repo / "data.py").symlink_to(Path("vendor") / "data.py")
    (sandbox.repo / "shared.py").symlink_to(sandbox.outside / "victim.py")
    assert advisor("analyze", str(sandbox.repo), cwd=sandbox.repo).code == 1

    result = advisor("apply", "--all", cwd=sandbox.repo)
    assert (sandbox.repo / "data.py").is_symlink(), "the link stays a link"
    assert FIXED in (sandbox.repo / "vendor" / "data.py").read_text()
    assert (sandbox.repo / "shared.py").is_symlink()
    assert "advisor: shared.py: outside the repository" in result.err
    sandbox.assert_untouched()


# -- crashes and hangs ------------------------------------------------------------------------------------------


def test_deeply_nested_files_are_skipped_with_a_warning_and_the_rest_is_analyzed(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "train.py").write_text(TRAIN)
    (repo / "sum.py").write_text("import tensorflow as tf\nx = " + "+".join(["a"] * 330) + "\n")
    for calls in (200, 3000):  # libcst alone would spend minutes parsing the longer chain
        (repo / f"chain{calls}.py").write_text("import tensorflow as tf\nds = tf.data.Dataset.range(3)"
                                               + ".map(f)" * calls + "\n")
    result = advisor_process("analyze", str(repo), "--format", "json", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert {f["path"] for f in report["findings"]} == {"train.py"}
    skipped = f"skipped, its code nests more than {MAX_NESTING} levels deep"
    assert sorted(w.split(":")[0] for w in report["warnings"] if skipped in w) == \
        ["chain200.py", "chain3000.py", "sum.py"]


def _nested(levels: int) -> str:
    lines = ["import tensorflow as tf"] + [" " * i + "if x:" for i in range(levels)]
    return "\n".join(lines + [" " * levels + "ds = tf.data.Dataset.range(3).map(f)", ""])


def test_a_file_deeper_than_the_stack_allows_is_skipped_and_adds_nothing_to_the_index():
    sources = [SourceFile(Path(name), Path("/repo") / name, text.encode())
               for name, text in (("deep.py", _nested(90)), ("train.py", TRAIN))]
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack(0)) + 150)  # room for train.py's visit, not for deep.py's
    try:
        index = SourceIndex.build(Path("/repo"), sources, len(sources))
    finally:
        sys.setrecursionlimit(limit)
    assert index.warnings == ["deep.py: skipped, nested too deeply to analyze"]
    assert [m.path for m in index.modules] == [Path("train.py")]
    assert {c.module.path for c in index.calls} == {Path("train.py")}
    assert {s.module.path for s in index.stages()} == {Path("train.py")}


def test_a_file_too_deep_for_a_codemod_keeps_its_findings_without_crashing():
    # Under the nesting bound, but `else: if` doubles libcst's depth and a codemod recurses within a visit.
    lines = ["import tensorflow as tf"]
    for level in range(80):
        lines += [" " * level + "if x:", " " * level + " pass", " " * level + "else:"]
    text = "\n".join(lines + [" " * 80 + "ds = tf.data.Dataset.range(3).map(f)", " " * 80 + "for b in ds: pass", ""])
    assert {f.code for f in analyze_texts({"deep.py": text}, EVERY_FINDING)} >= {"TFD002"}


@contextlib.contextmanager
def unreadable(*paths: Path):
    """``paths`` without permissions; for root, whom permissions do not stop, the block runs as nobody."""
    for path in paths:
        path.chmod(0)
    as_root = os.geteuid() == 0
    try:
        if as_root:
            os.seteuid(65534)
        yield
    finally:
        if as_root:
            os.seteuid(0)
        for path in paths:
            path.chmod(0o755)


@pytest.fixture
def open_folder():
    """A folder nobody may enter (for the unprivileged runs of :func:`unreadable`); pytest's tmp_path is private."""
    folder = Path(tempfile.mkdtemp(prefix="advisor-hostile-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_unreadable_folders_and_files_are_skipped_with_a_warning(open_folder):
    repo = open_folder / "repo"
    (repo / "secret").mkdir(parents=True)
    (repo / "secret" / "hidden.py").write_text(TRAIN)
    (repo / "locked.py").write_text(TRAIN)
    (repo / "train.py").write_text(TRAIN)
    for path in (open_folder, repo, repo / "train.py"):
        path.chmod(0o755)
    assert len(analyze(repo, None, EVERY_FINDING).findings) == 6  # and every module it needs is imported
    with unreadable(repo / "secret", repo / "locked.py"):
        report = analyze(repo, None, EVERY_FINDING)
    assert {f.location.path.as_posix() for f in report.findings} == {"train.py"}
    assert report.warnings == ["secret/: skipped, cannot read the folder: Permission denied",
                               "locked.py: skipped, cannot read: Permission denied"]


def test_an_unreadable_repo_is_one_line(open_folder, advisor):
    repo = open_folder / "repo"
    repo.mkdir()
    (repo / "train.py").write_text(TRAIN)
    assert advisor("analyze", str(repo), cwd=open_folder).code == 1  # every module the run needs is imported
    with unreadable(repo):
        result = advisor("analyze", str(repo), cwd=open_folder)
    assert_one_error_line(result.code, result.err, str(repo), "Permission denied")


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero"])
def test_a_saved_analysis_that_is_not_a_regular_file_is_refused_without_reading_it(sandbox, kind):
    state = sandbox.repo / ".advisor" / "last.json"
    state.parent.mkdir()
    if kind == "fifo":
        os.mkfifo(state)  # opening it to read would wait for a writer forever
    else:
        state.symlink_to("/dev/zero")  # reading it would fill memory
    result = advisor_process("apply", "--all", cwd=sandbox.repo)
    # The symlink is refused before any read, for leading out of the repo.
    assert_one_error_line(result.returncode, result.stderr, ".advisor/last.json",
                          "not a regular file" if kind == "fifo" else "leads outside the repository")


@pytest.mark.parametrize("path", ["/dev/zero", "/dev/null", "/"])
def test_reads_take_regular_files_only_and_up_to_a_bound(tmp_path, path):
    with pytest.raises(NotARegularFile):
        read_regular_file(Path(path), 1024)
    (tmp_path / "big").write_bytes(b"x" * 1025)
    with pytest.raises(NotARegularFile, match="larger than 1,024 bytes"):
        read_regular_file(tmp_path / "big", 1024)
    assert read_regular_file(tmp_path / "big", 1025) == b"x" * 1025


def test_check_skips_a_fifo_with_a_warning(sandbox):
    os.mkfifo(sandbox.repo / "pipe.py")
    result = advisor_process("check", "pipe.py", "train.py", cwd=sandbox.repo)
    assert result.returncode == 1 and "train.py:6:" in result.stdout
    assert "pipe.py: skipped, cannot read: not a regular file" in result.stdout


def test_analyze_skips_a_fifo_a_symlink_loop_and_a_dangling_link_named_py_with_a_warning(sandbox):
    os.mkfifo(sandbox.repo / "pipe.py")
    (sandbox.repo / "loop.py").symlink_to("loop.py")
    (sandbox.repo / "gone.py").symlink_to("nowhere.py")
    result = advisor_process("analyze", ".", "--format", "json", cwd=sandbox.repo)
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert {f["path"] for f in report["findings"]} == {"train.py"}
    assert report["warnings"] == ["gone.py: skipped, cannot read: No such file or directory",
                                  "loop.py: skipped, cannot read: Too many levels of symbolic links",
                                  "pipe.py: skipped, cannot read: not a regular file"]


def test_ctrl_c_during_apply_stops_lists_and_records_what_was_applied(tmp_path, advisor):
    repo = tmp_path / "repo"
    repo.mkdir()
    names = [f"m{n:02d}.py" for n in range(20)]
    for name in names:
        (repo / name).write_text(TRAIN)
    assert advisor("analyze", str(repo), cwd=repo).code == 1
    child = subprocess.Popen([sys.executable, "-m", "advisor", "apply", "--all"], cwd=repo, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + SUBPROCESS_TIMEOUT_S
    while FIXED not in (repo / names[0]).read_text():  # the first file is written: interrupt the rest
        assert child.poll() is None and time.monotonic() < deadline, "apply ended before it was interrupted"
        time.sleep(0.001)
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=SUBPROCESS_TIMEOUT_S)

    assert child.returncode == 2 and err.splitlines()[-1] == "advisor: interrupted", err
    assert "Error" not in err, "the interrupt surfaced as an error inside libcst"
    changed = [name for name in names if FIXED in (repo / name).read_text()]
    assert 0 < len(changed) < len(names), "stopped after the file in hand"
    assert sorted({line.split()[3].split(":")[0] for line in out.splitlines() if line.startswith("applied ")}) \
        == changed, "what was written is listed"

    rest = advisor("apply", "--all", cwd=repo)
    assert rest.code == 0 and "changed since the analysis" not in rest.err, "and recorded"
    assert all(FIXED in (repo / name).read_text() for name in names)


# -- wrong answers from broken input ----------------------------------------------------------------------------


def test_noqa_counts_in_comments_only():
    in_string = 'DOC = """\n# advisor: noqa\n"""\n' + TRAIN.replace("x * 2)", 'x * 2, name="# noqa")')
    assert {f.code for f in analyze_texts({"train.py": in_string}, EVERY_FINDING)} == {"TFD001", "TFD002"}
    assert analyze_texts({"train.py": "# advisor: noqa\n" + TRAIN}, EVERY_FINDING) == []
    in_comment = TRAIN.replace("x * 2)", "x * 2)  # noqa: TFD002")
    assert {f.code for f in analyze_texts({"train.py": in_comment}, EVERY_FINDING)} \
        == {"TFD001"}


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_a_speedup_threshold_that_would_hide_everything_is_refused(sandbox, advisor, value):
    (sandbox.repo / "pyproject.toml").write_text(f"[tool.advisor]\nmin-speedup = {value}\n")
    result = advisor("analyze", str(sandbox.repo), cwd=sandbox.repo)
    assert_one_error_line(result.code, result.err, "pyproject.toml", "min-speedup must be a number >= 1")


@pytest.mark.parametrize("selection", ["", " , "])
def test_an_empty_selection_is_refused_not_silently_replaced(sandbox, advisor, selection):
    result = advisor("analyze", str(sandbox.repo), "--select", selection, cwd=sandbox.repo)
    assert_one_error_line(result.code, result.err, "--select names no rule")


@pytest.mark.parametrize("option,value,message", [
    ("--rtol", "-1", "--rtol must be a number >= 0"),
    ("--rtol", "nan", "--rtol must be a number >= 0"),
    ("--timeout", "0", "--timeout must be a number of seconds > 0"),
    ("--timeout", "-5", "--timeout must be a number of seconds > 0"),
    ("--timeout", "nan", "--timeout must be a number of seconds > 0"),
])
def test_verify_refuses_tolerances_and_timeouts_that_mean_nothing(sandbox, advisor, option, value, message):
    result = advisor("verify", "--all", option, value, "--", "python", "train.py", cwd=sandbox.repo)
    assert_one_error_line(result.code, result.err, message)


def test_verify_with_a_missing_script_is_one_line(sandbox, advisor):
    result = advisor("verify", "--all", "--", "python", "nothere.py", cwd=sandbox.repo)
    assert_one_error_line(result.code, result.err, "nothere.py: no such script")


def test_terminal_escapes_and_bidi_controls_from_the_repo_are_shown_not_acted_on(sandbox, advisor):
    name = "evil\x1b]0;owned\x07\u202e.py"
    (sandbox.repo / "train.py").unlink()
    controls_in_a_comment = "    # \u2066\x1b[2J\n    ds = ds.batch(32)"
    (sandbox.repo / name).write_text(TRAIN.replace("    ds = ds.batch(32)", controls_in_a_comment))
    text = advisor("analyze", str(sandbox.repo), cwd=sandbox.repo)
    html = advisor("analyze", str(sandbox.repo), "--format", "html", cwd=sandbox.repo)
    for report in (text.out, html.out):
        assert "\x1b" not in report and "\x07" not in report and "\u202e" not in report and "\u2066" not in report
        assert "\\x1b]0;owned\\x07\\u202e.py" in report
    assert "\\u2066\\x1b[2J" in html.out, "the source snippet shows the comment's controls"


def test_text_from_the_repo_or_our_ids_is_never_read_as_rich_markup(sandbox, advisor):
    # Fix ids are hex: one starting with a letter reads as a style tag ("[c0ad4e13]") and vanished.
    for n in range(8):
        (sandbox.repo / f"m{n}[bold red]x[reverse].py").write_text(TRAIN)
    text = advisor("analyze", str(sandbox.repo), cwd=sandbox.repo).out
    findings = json.loads(advisor("analyze", str(sandbox.repo), "--format", "json", cwd=sandbox.repo).out)["findings"]
    assert any(f["id"][0].isalpha() for f in findings)
    for finding in findings:
        assert f"[{finding['id']}]" in text and f"{finding['path']}:{finding['line']}:" in text


# -- messages ---------------------------------------------------------------------------------------------------


def test_a_configuration_that_is_not_utf8_is_one_line_naming_it(sandbox, advisor):
    (sandbox.repo / "pyproject.toml").write_bytes("[tool.advisor]\n# café\n".encode("latin-1"))
    result = advisor("analyze", str(sandbox.repo), cwd=sandbox.repo)
    assert_one_error_line(result.code, result.err, str(sandbox.repo / "pyproject.toml"), "not UTF-8")


def test_a_syntax_error_names_the_line_python_names():
    mixed = b"import tensorflow\ndef f():\n\tx = 1\n        return x\n"
    index = SourceIndex.build(Path("/repo"), [SourceFile(Path("tab.py"), Path("/repo/tab.py"), mixed)], 1)
    assert index.warnings == ["tab.py:4: skipped, syntax error: inconsistent use of tabs and spaces in indentation"]


def test_check_on_a_directory_or_a_missing_file_is_one_line(sandbox, advisor):
    result = advisor("check", ".", cwd=sandbox.repo)
    assert_one_error_line(result.code, result.err, ".: is a directory", "advisor analyze")
    result = advisor("check", "nothere.py", cwd=sandbox.repo)
    assert_one_error_line(result.code, result.err, "nothere.py: no such file")


def test_system_errors_are_one_line_naming_the_file(sandbox, advisor):
    result = advisor("analyze", "x" * 300, cwd=sandbox.repo)
    assert_one_error_line(result.code, result.err, "x" * 300, "File name too long")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_disk_on_the_output_is_one_line(sandbox):
    with open("/dev/full", "w") as full:
        result = subprocess.run([sys.executable, "-m", "advisor", "analyze", "--min-confidence", "possible", "."],
                                cwd=sandbox.repo, stdout=full, stderr=subprocess.PIPE, text=True,
                                timeout=SUBPROCESS_TIMEOUT_S)
    assert_one_error_line(result.returncode, result.stderr, "No space left on device")


@pytest.mark.parametrize("args,words", [
    (["analyze", "--bogus"], ["No such option '--bogus'", "advisor analyze --help"]),
    (["analyze"], ["Missing argument 'REPO'"]),
    (["analyze", ".", "--format", "xx"], ["Invalid value for '--format'"]),
    (["nope"], ["No such command 'nope'", "advisor --help"]),
])
def test_usage_errors_are_one_line(sandbox, advisor, args, words):
    result = advisor(*args, cwd=sandbox.repo)
    assert_one_error_line(result.code, result.err, *words)


def test_profile_blames_the_scripts_own_last_line_cut_short_not_library_logs(tmp_path, capfd):
    # The pump of `advisor profile`, on a real child's stderr: TensorFlow/absl log lines around the script's own,
    # and a 20 MB line.
    script = ("import sys\n"
              "sys.stderr.write('I0000 00:00:1796131853.234878   17120 cpu_feature_guard.cc:227] CPU features\\n')\n"
              "sys.stderr.write('my own error\\n' + 'x' * 20_000_000 + '\\n')\n"
              "sys.stderr.write('2024-05-01 12:00:00.123456: W tensorflow/core/x.cc:12] chatter\\n')\n")
    child = subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.PIPE)
    tail, pump = _forward_stderr(child.stderr)
    child.wait(timeout=SUBPROCESS_TIMEOUT_S)
    pump.join(timeout=SUBPROCESS_TIMEOUT_S)
    assert list(tail)[0] == "my own error"
    assert list(tail)[-1].startswith("xxx") and list(tail)[-1].endswith(" [...]") and len(tail[-1]) < 400
    assert "x" * 20_000_000 in capfd.readouterr().err, "the user's output passes through whole"
