"""`advisor apply` and `--fix` on real copies of the samples: composition, refusals, atomic writes."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import libcst as cst

from advisor.apply import apply_to_file, resolve_overlaps
from advisor.codemods.base import CallTargetCodemod
from advisor.files import content_hash
from advisor.model import Applicability, Confidence, Finding, FixRef, Location

from apply_helpers import listing

STATE = Path(".advisor/last.json")

FIXED_DATA_TAIL = """\
    ds = ds.map(augment, num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.batch(batch_size).prefetch(tf.data.AUTOTUNE)
    return ds
"""


def _state(repo: Path) -> dict:
    return json.loads((repo / STATE).read_text())


def _edit_state(repo: Path, edit) -> None:
    document = _state(repo)
    edit(document)
    (repo / STATE).write_text(json.dumps(document))


def _ids(repo: Path, code: str) -> list[str]:
    return [f["id"] for f in _state(repo)["findings"] if f["code"] == code]


def test_analyze_saves_state_and_writes_nothing_else(advisor, repo):
    before = listing(repo)
    result = advisor("analyze", ".", "--select", "TFD", cwd=repo)
    assert result.code == 1
    after = listing(repo)
    assert (repo / ".advisor/.gitignore").read_text() == "*\n"
    assert {k: v for k, v in after.items() if not k.startswith(".advisor/")} == before
    state = _state(repo)
    assert state["repo"] == str(repo.resolve()) and state["tool"] == "advisor"
    assert state["files"]["data.py"] == content_hash((repo / "data.py").read_bytes())
    fix = next(f["fix"] for f in state["findings"] if f["code"] == "TFD002")
    assert fix["codemod"] == "advisor.codemods.parallel_map:AddNumParallelCalls"
    assert set(fix["args"]) == {"line", "column"}


def test_check_writes_nothing_into_the_repo(advisor, repo):
    before = listing(repo)
    assert advisor("check", "data.py", "train.py", cwd=repo).code == 1
    assert listing(repo) == before


def test_apply_all_composes_two_fixes_in_one_file_and_second_apply_is_a_no_op(advisor, repo):
    advisor("analyze", ".", "--select", "TFD", cwd=repo)
    result = advisor("apply", "--all", cwd=repo)
    assert result.code == 0, result.err
    assert (repo / "data.py").read_text().endswith(FIXED_DATA_TAIL)
    assert "+    ds = ds.map(augment, num_parallel_calls=tf.data.AUTOTUNE)" in result.out
    assert "Applied 2 fixes to 1 file." in result.out
    again = advisor("apply", "--all", cwd=repo)
    assert (again.code, again.out.strip()) == (0, "nothing to apply")
    assert advisor("analyze", ".", "--select", "TFD", cwd=repo).code == 0


def test_two_fixes_on_one_line_and_one_deferred_import(advisor, tmp_path):
    repo = tmp_path / "one_line"
    repo.mkdir()
    (repo / "train.py").write_text(
        '"""Doc."""\n'
        "from tensorflow import data\n"
        "\n"
        "ds = data.Dataset.range(10).map(f).batch(2)\n"
        "model.fit(ds)\n"
        "val = data.Dataset.range(3).batch(1).map(g)\n"
        "for x in val:\n"
        "    pass\n")
    advisor("analyze", ".", "--select", "TFD", cwd=repo)
    codes = sorted(f["code"] + ":" + str(f["line"]) for f in _state(repo)["findings"])
    assert codes == ["TFD001:4", "TFD001:6", "TFD002:4", "TFD002:6"]  # line 6: both fixes target one call
    result = advisor("apply", "--all", cwd=repo)
    assert result.code == 0, result.err
    assert (repo / "train.py").read_text() == (
        '"""Doc."""\n'
        "from tensorflow import data\n"
        "import tensorflow as tf\n"
        "\n"
        "ds = data.Dataset.range(10).map(f, num_parallel_calls=tf.data.AUTOTUNE).batch(2)"
        ".prefetch(tf.data.AUTOTUNE)\n"
        "model.fit(ds)\n"
        "val = data.Dataset.range(3).batch(1).map(g, num_parallel_calls=tf.data.AUTOTUNE)"
        ".prefetch(tf.data.AUTOTUNE)\n"
        "for x in val:\n"
        "    pass\n")


def _finding(code: str, line: int, column: int, end_line: int, end_column: int) -> Finding:
    fix = FixRef(CallTargetCodemod, {"line": line, "column": column}, "fix", Applicability.SAFE)
    return Finding(code, code.lower(), Location(Path("a.py"), line, column, end_line, end_column), "m",
                   Confidence.LIKELY, fix=fix)


def test_overlap_keeps_the_outer_fix_and_reports_the_inner():
    outer = _finding("TFD002", 3, 5, 5, 2)
    inner = _finding("TFD001", 4, 9, 4, 20)
    same_as_outer = _finding("TFD001", 3, 5, 5, 2)
    after = _finding("TFD002", 5, 3, 5, 9)  # starts where outer ends: spans are half-open
    kept, skipped = resolve_overlaps([inner, after, same_as_outer, outer])
    assert {id(f) for f in kept} == {id(outer), id(same_as_outer), id(after)}
    assert [s.finding for s in skipped] == [inner]
    assert "a.py:3:5" in skipped[0].reason


def test_nested_fixes_in_one_file_apply_the_outer_and_report_the_inner(advisor, tmp_path):
    repo = tmp_path / "nested"
    repo.mkdir()
    (repo / "train.py").write_text(
        "import tensorflow as tf\n"
        "ds = tf.data.Dataset.range(4).interleave(\n"
        "    lambda x: tf.data.Dataset.range(x).map(f),\n"
        "    cycle_length=2)\n"
        "ds = ds.prefetch(1)\n"
        "model.fit(ds)\n")
    advisor("analyze", ".", "--select", "TFD002", cwd=repo)
    assert sorted(f["line"] for f in _state(repo)["findings"]) == [2, 3]
    result = advisor("apply", "--all", cwd=repo)
    assert result.code == 1
    text = (repo / "train.py").read_text()
    assert "cycle_length=2, num_parallel_calls=tf.data.AUTOTUNE)" in text
    assert ".map(f)," in text
    assert "overlaps the TFD002 fix" in result.err and "train.py:3" in result.err


def test_changed_file_is_refused_and_the_rest_applied(advisor, tmp_path):
    repo = tmp_path / "two"
    (repo / "a").mkdir(parents=True)
    for name in ("a", "b"):
        (repo / name).mkdir(exist_ok=True)
        (repo / name / "data.py").write_bytes((Path(__file__).parents[2] / "samples/input_bound/data.py")
                                              .read_bytes())
    advisor("analyze", ".", "--select", "TFD002", cwd=repo)
    edited = (repo / "b/data.py").read_bytes() + b"# edited\n"
    (repo / "b/data.py").write_bytes(edited)
    result = advisor("apply", "--all", cwd=repo)
    assert result.code == 1
    assert "b/data.py: changed since the analysis" in result.err
    assert (repo / "b/data.py").read_bytes() == edited
    assert "num_parallel_calls" in (repo / "a/data.py").read_text()


def test_deleted_file_is_reported(advisor, repo):
    advisor("analyze", ".", "--select", "TFD", cwd=repo)
    (repo / "data.py").unlink()
    result = advisor("apply", "--all", cwd=repo)
    assert result.code == 1
    assert "data.py: deleted since the analysis" in result.err
    assert not (repo / "data.py").exists()


def test_read_only_file_is_left_alone(advisor, repo):
    advisor("analyze", ".", "--select", "TFD", cwd=repo)
    target = repo / "data.py"
    before = target.read_bytes()
    target.chmod(0o444)
    result = advisor("apply", "--all", cwd=repo)
    assert result.code == 1
    assert "data.py is read-only (mode 0444)" in result.err
    assert target.read_bytes() == before and stat.S_IMODE(target.stat().st_mode) == 0o444
    assert sorted(p.name for p in repo.iterdir()) == [".advisor", "data.py", "train.py"]  # no temp file left


def test_crlf_mode_and_missing_trailing_newline_are_kept(advisor, repo):
    target = repo / "data.py"
    text = target.read_text().rstrip("\n")  # no trailing newline either
    target.write_bytes(text.replace("\n", "\r\n").encode())
    target.chmod(0o640)
    advisor("analyze", ".", "--select", "TFD", cwd=repo)
    assert advisor("apply", "--all", cwd=repo).code == 0
    data = target.read_bytes()
    assert data.count(b"\n") == data.count(b"\r\n") == text.count("\n")
    assert data.endswith(b"return ds")
    assert b"ds.batch(batch_size).prefetch(tf.data.AUTOTUNE)\r\n" in data
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_no_saved_analysis_other_version_and_other_repo(advisor, repo, tmp_path):
    missing = advisor("apply", "--all", cwd=repo)
    assert missing.code == 2 and "no saved analysis" in missing.err and len(missing.err.splitlines()) == 1
    advisor("analyze", ".", "--select", "TFD", cwd=repo)
    moved = tmp_path / "moved"
    os.rename(repo, moved)
    other = advisor("apply", "--all", cwd=moved)
    assert other.code == 2 and "is the analysis of" in other.err
    os.rename(moved, repo)
    _edit_state(repo, lambda d: d.update(version="0.0.1"))
    old = advisor("apply", "--all", cwd=repo)
    assert old.code == 2 and "saved by advisor 0.0.1" in old.err
    (repo / STATE).write_text("{not json")
    assert advisor("apply", "--all", cwd=repo).code == 2


def test_unknown_id_and_no_selection_are_usage_errors(advisor, repo):
    advisor("analyze", ".", "--select", "TFD", cwd=repo)
    assert advisor("apply", "deadbeef", cwd=repo).code == 2
    assert "--all" in advisor("apply", cwd=repo).err


def test_a_patch_that_no_longer_applies_is_skipped(advisor, repo):
    advisor("analyze", ".", "--select", "TFD002", cwd=repo)
    _edit_state(repo, lambda d: d["findings"][0]["fix"]["args"].update(line=1))
    before = (repo / "data.py").read_bytes()
    result = advisor("apply", "--all", cwd=repo)
    assert result.code == 1 and "no longer applies" in result.err
    assert (repo / "data.py").read_bytes() == before


def test_unsafe_fixes_need_the_flag_and_say_why(advisor, repo):
    advisor("analyze", ".", "--select", "TFD", cwd=repo)
    unsafe_id = _ids(repo, "TFD001")[0]

    def make_unsafe(document):
        for finding in document["findings"]:
            if finding["id"] == unsafe_id:
                finding["fix"].update(applicability="unsafe", why_unsafe="may reorder side effects")
    _edit_state(repo, make_unsafe)
    result = advisor("apply", "--all", cwd=repo)
    assert result.code == 0
    assert "may reorder side effects" in result.err and "--unsafe-fixes" in result.err
    assert ".prefetch(" not in (repo / "data.py").read_text()
    # The first apply rewrote data.py: the held-back fix's positions are stale now.
    explicit = advisor("apply", unsafe_id, "--unsafe-fixes", cwd=repo)
    assert explicit.code == 1 and "--reanalyze" in explicit.err


def test_unsafe_fix_applied_with_the_flag(advisor, repo):
    advisor("analyze", ".", "--select", "TFD001", cwd=repo)
    _edit_state(repo, lambda d: d["findings"][0]["fix"].update(applicability="unsafe", why_unsafe="because"))
    unsafe_id = _ids(repo, "TFD001")[0]
    assert advisor("apply", unsafe_id, cwd=repo).code == 1
    result = advisor("apply", unsafe_id, "--unsafe-fixes", cwd=repo)
    assert result.code == 0 and "unsafe: because" in result.out
    assert ".prefetch(tf.data.AUTOTUNE)" in (repo / "data.py").read_text()


def test_diff_and_dry_run_change_nothing_and_the_diff_applies_with_git(advisor, repo):
    advisor("analyze", ".", "--select", "TFD", cwd=repo)
    before = listing(repo)
    diff = advisor("apply", "--all", "--diff", cwd=repo)
    dry = advisor("apply", "--all", "--dry-run", cwd=repo)
    assert diff.code == dry.code == 0
    assert listing(repo) == before
    assert diff.out.startswith("--- a/data.py") and "would apply" not in diff.out
    assert dry.out.count("would apply") == 2 and "---" not in dry.out
    subprocess.run(["git", "apply", "-"], input=diff.out.encode(), cwd=repo, check=True)
    assert (repo / "data.py").read_text().endswith(FIXED_DATA_TAIL)


def test_interactive_applies_what_was_accepted(advisor, repo):
    advisor("analyze", ".", "--select", "TFD", cwd=repo)
    result = advisor("apply", "--interactive", cwd=repo, stdin="n\ny\n")
    assert result.code == 0, result.err
    text = (repo / "data.py").read_text()
    assert "num_parallel_calls" not in text and ".prefetch(tf.data.AUTOTUNE)" in text  # TFD002 is first in file


def test_check_fix_changes_files_then_passes(advisor, repo):
    first = advisor("check", "--fix", "data.py", cwd=repo)
    assert first.code == 1 and "fixed TFD002" in first.err
    assert "num_parallel_calls=tf.data.AUTOTUNE" in (repo / "data.py").read_text()
    assert advisor("check", "--fix", "data.py", cwd=repo).code == 0
    assert not (repo / ".advisor").exists()


def test_analyze_fix_reports_what_remains_and_saves_the_fixed_state(advisor, repo):
    result = advisor("analyze", ".", "--select", "TFD", "--fix", cwd=repo)
    assert result.code == 1 and result.err.count("fixed TFD") == 2
    assert (repo / "data.py").read_text().endswith(FIXED_DATA_TAIL)
    assert _state(repo)["findings"] == []
    assert advisor("apply", "--all", cwd=repo).out.strip() == "nothing to apply"


class BreakCall(CallTargetCodemod):
    """Replaces its target with ``1.real``, which libcst prints but Python cannot parse."""

    def rewrite(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        return cst.Attribute(cst.Integer("1"), cst.Name("real"))


def _data_py_finding(codemod: type, line: int = 37, column: int = 13) -> Finding:
    fix = FixRef(codemod, {"line": line, "column": column}, "break", Applicability.SAFE)
    return Finding("TFD002", "serial-map", Location(Path("data.py"), line, column, line, 30), "m",
                   Confidence.LIKELY, fix=fix)


def test_unparsable_result_leaves_the_file_byte_identical(repo):
    before = (repo / "data.py").read_bytes()
    result = apply_to_file(repo, Path("data.py"), content_hash(before), [_data_py_finding(BreakCall)], write=True)
    assert result.error and "does not parse" in result.error and not result.written
    assert (repo / "data.py").read_bytes() == before


def test_failed_replace_leaves_the_file_and_no_temporary(repo, monkeypatch):
    from advisor.codemods.parallel_map import AddNumParallelCalls

    before = (repo / "data.py").read_bytes()

    def fail(*args):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "replace", fail)
    result = apply_to_file(repo, Path("data.py"), content_hash(before), [_data_py_finding(AddNumParallelCalls)],
                           write=True)
    assert result.error == "cannot write: No space left on device; not changed"
    assert (repo / "data.py").read_bytes() == before
    assert sorted(p.name for p in repo.iterdir()) == ["data.py", "train.py"]
