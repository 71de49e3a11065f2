"""Jupyter notebooks end to end: analysed like scripts, reported at cell and line in every format, fixed in place.

The notebooks are real: written by nbformat (as Jupyter saves them) or by other tools' JSON layouts, with magics,
markdown and raw cells, a model built over two cells, and outputs; patched notebooks are validated by nbformat.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import jsonschema
import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell

from notebook_helpers import BATCH_AT, CELLS, ROOT, advisor, analyze_json, notebook, write_notebook

REPRO = ROOT.parent / "shared" / "repros" / "notebook" / "train.ipynb"
SARIF_SCHEMA = ROOT.parent / "shared" / "schemas" / "sarif-schema-2.1.0.json"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    write_notebook(tmp_path / "repo" / "training.ipynb")
    return tmp_path / "repo"


def _cell_line(cell: int, line: int) -> str:
    return CELLS[cell - 1].source.splitlines()[line - 1]


def _by_code(report: dict) -> dict[str, dict]:
    return {f["code"]: f for f in report["findings"]}


def test_findings_are_reported_at_cell_and_line_of_a_notebook_built_over_several_cells(repo: Path):
    report = analyze_json(repo)
    findings = _by_code(report)
    serial_map, prefetch = findings["TFD002"], findings["TFD001"]
    map_line = _cell_line(3, 4)
    assert (serial_map["path"], serial_map["cell"], serial_map["line"], serial_map["column"]) == \
        ("training.ipynb", 3, 4, map_line.index("map(") + 1)
    assert (prefetch["cell"], prefetch["line"], prefetch["column"]) == BATCH_AT
    # The dataset built in cell 3 is consumed by `fit` in cell 7, under %%time, after a shell assignment.
    assert "training.ipynb:cell 7:3:11" in prefetch["evidence"][0]["message"]
    # The model begun in cell 5 and finished in cell 6 is one model.
    assert findings["TFC001"]["cell"] == 5
    # What was not analysed is said once: the %%bash cell, and the cells whose magics were replaced.
    assert report["warnings"] == ["training.ipynb: analysed without cell 8 (%%bash), IPython magic or shell lines "
                                  "in cells 2, 7"]
    text = advisor("analyze", str(repo), "--select", "TFD002").stdout
    assert f"training.ipynb:cell 3:4:{map_line.index('map(') + 1}: TFD002" in text
    assert "--- a/training.ipynb:cell 3\n+++ b/training.ipynb:cell 3\n" in text  # the diff people read: the cell's


def test_apply_rewrites_only_the_fixed_cells_source_and_keeps_the_rest_byte_for_byte(repo: Path):
    path = repo / "training.ipynb"
    before = path.read_text()
    analyze_json(repo)
    result = advisor("apply", "--repo", str(repo), "--all")
    assert result.returncode == 0, result.stderr
    assert "Applied 2 fixes to 1 file." in result.stdout
    after = nbformat.read(path, as_version=4)
    nbformat.validate(after)
    original = notebook()
    changed = [n for n, (old, new) in enumerate(zip(original.cells, after.cells), start=1) if old != new]
    assert changed == [3]
    assert after.cells[2].source == CELLS[2].source.replace(
        "(x * 2.0, y))", "(x * 2.0, y), num_parallel_calls=tf.data.AUTOTUNE)").replace(
        "ds.batch(32)", "ds.batch(32).prefetch(tf.data.AUTOTUNE)")
    assert {k: v for k, v in after.cells[2].items() if k != "source"} == \
        {k: v for k, v in original.cells[2].items() if k != "source"}  # id, outputs, execution count, metadata
    # Byte for byte outside the source value: the two source lines that changed are the only lines that differ.
    differing = [(a, b) for a, b in zip(before.splitlines(), path.read_text().splitlines()) if a != b]
    assert len(differing) == 2 and len(before.splitlines()) == len(path.read_text().splitlines())
    assert path.read_text().endswith("}\n")
    assert advisor("apply", "--repo", str(repo), "--all").stdout.strip() == "nothing to apply"


def test_the_json_diff_applies_with_git(repo: Path):
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    for finding in analyze_json(repo)["findings"]:
        diff = finding["fix"]["diff"]
        assert diff.startswith("--- a/training.ipynb\n+++ b/training.ipynb\n")
        assert finding["fix"]["cell_diff"].startswith(f"--- a/training.ipynb:cell {finding['cell']}\n")
        check = subprocess.run(["git", "apply", "--check", "-"], input=diff, text=True, cwd=repo,
                               capture_output=True)
        assert check.returncode == 0, check.stderr


def test_a_statement_inserted_before_a_cells_first_line_goes_into_that_cell(repo: Path):
    """The mixed-precision fix sets the policy just before the model's first line, the top of cell 5: it must not
    land at the end of cell 3, the code cell before it."""
    analyze_json(repo)
    mixed = [f for f in analyze_json(repo)["findings"] if f["code"] == "TFC001"][0]
    assert "+++ b/training.ipynb:cell 3" not in mixed["fix"]["cell_diff"]
    assert advisor("apply", "--repo", str(repo), "--unsafe-fixes", mixed["id"]).returncode == 0
    cells = nbformat.read(repo / "training.ipynb", as_version=4).cells
    assert cells[4].source.startswith('tf.keras.mixed_precision.set_global_policy("mixed_float16")\nmodel = ')


def test_the_repro_notebook_gets_its_findings_and_fixes_in_place(tmp_path: Path):
    if not REPRO.is_file():
        pytest.skip(f"{REPRO} not found (the shared/ folder beside the repo checkout)")
    repo = tmp_path / "repo"
    repo.mkdir()
    shutil.copyfile(REPRO, repo / "train.ipynb")
    findings = _by_code(analyze_json(repo))
    assert (findings["TFD002"]["cell"], findings["TFD002"]["line"]) == (1, 2)
    assert (findings["TFD001"]["cell"], findings["TFD001"]["line"]) == (1, 2)
    assert advisor("apply", "--repo", str(repo), "--all").returncode == 0
    original, patched = json.loads(REPRO.read_text()), json.loads((repo / "train.ipynb").read_text())
    nbformat.validate(nbformat.from_dict(patched))
    source = "".join(patched["cells"][0].pop("source"))
    original["cells"][0].pop("source")
    assert patched == original  # only the fixed cell's source differs
    assert "map(lambda x: x * 2, num_parallel_calls=tf.data.AUTOTUNE).batch(8).prefetch(tf.data.AUTOTUNE)" in source
    # The repro is one line of JSON, written by json.dumps: the result is too.
    assert (repo / "train.ipynb").read_text().count("\n") == REPRO.read_text().count("\n")


def test_sarif_and_github_annotations_point_at_the_line_in_the_notebook_file(repo: Path):
    path = repo / "training.ipynb"
    file_lines = path.read_text().splitlines()
    log = json.loads(advisor("analyze", str(repo), "--format", "sarif", "--select", "TFD").stdout)
    if SARIF_SCHEMA.is_file():
        jsonschema.validate(log, json.loads(SARIF_SCHEMA.read_text()))
    for result in log["runs"][0]["results"]:
        region = result["locations"][0]["physicalLocation"]["region"]
        properties = result["properties"]
        line = file_lines[region["startLine"] - 1]
        # The region is the finding's text inside the JSON string of its line.
        code_line = _cell_line(properties["cell"], properties["cellLine"])
        assert json.dumps(code_line)[1:-1] in line
        marked = line[region["startColumn"] - 1:region["endColumn"] - 1]
        assert marked and marked in code_line
    annotations = advisor("analyze", ".", "--format", "github", "--select", "TFD002", cwd=repo).stdout
    map_line = next(n for n, text in enumerate(file_lines, start=1) if ".map(lambda" in text)
    assert f"file=training.ipynb,line={map_line}," in annotations
    assert "::cell 3, line 4: " in annotations


def test_html_and_markdown_show_the_cell(repo: Path):
    html = advisor("analyze", str(repo), "--format", "html", "--select", "TFD002").stdout
    assert "training.ipynb:cell 3:4:" in html
    assert '<span class="ln">4</span>ds = ds.shuffle(256).map(' in html  # the snippet is the cell's, numbered so
    assert "+++ b/training.ipynb:cell 3" in html
    markdown = advisor("analyze", str(repo), "--format", "markdown", "--select", "TFD002").stdout
    assert "`training.ipynb:cell 3:4:" in markdown and "--- a/training.ipynb:cell 3" in markdown


def test_bad_notebooks_get_one_warning_line_and_the_rest_is_analysed(tmp_path: Path):
    repo = tmp_path / "repo"
    write_notebook(repo / "good.ipynb")
    (repo / "not_json.ipynb").write_text("import tensorflow as tf  # saved as .ipynb by mistake\n")
    (repo / "v3.ipynb").write_text(json.dumps({"nbformat": 3, "nbformat_minor": 0, "metadata": {},
                                               "worksheets": [{"cells": [{"cell_type": "code", "language": "python",
                                                                          "input": "import tensorflow"}]}]}))
    broken = notebook([new_code_cell("import tensorflow as tf"), new_markdown_cell("## broken below"),
                       new_code_cell("def f(:\n    pass"),
                       new_code_cell("ds = tf.data.Dataset.range(8).map(lambda x: x * 2).batch(2)\n"
                                     "tf.keras.Sequential().fit(ds)")])
    write_notebook(repo / "broken.ipynb", broken)
    report = analyze_json(repo, "--select", "TFD002")
    warnings = report["warnings"]
    assert len(warnings) == 4, warnings
    assert any(w.startswith("not_json.ipynb: skipped, not a notebook: not JSON (Expecting value at line 1 column 1")
               for w in warnings)
    assert any(w.startswith("v3.ipynb: skipped, an nbformat 3 notebook") for w in warnings)
    assert any(w.startswith("broken.ipynb:cell 3: cell skipped, syntax error") for w in warnings)
    where = {(f["path"], f["cell"], f["line"]) for f in report["findings"]}
    assert where == {("good.ipynb", 3, 4), ("broken.ipynb", 4, 1)}  # the cells after the broken one still count


def test_a_python_2_notebook_is_read_as_python_3_with_its_findings_where_its_cells_have_them(tmp_path: Path):
    # Old tutorials' notebooks: `print "..."` statements in the training loop's cell.
    document = notebook([new_code_cell("import tensorflow as tf"), new_markdown_cell("## train"), new_code_cell(
        "train_op = tf.train.AdamOptimizer(1e-3).minimize(cost)\n"
        "with tf.Session() as sess:\n"
        "    for i in range(1000):\n"
        "        sess.run(train_op, feed_dict={x: batch_xs[i], y: batch_ys[i]})\n"
        "        avg_cost = sess.run(cost, feed_dict={x: batch_xs[i], y: batch_ys[i]})\n"
        "        print \"step %d cost %.3f\" % (i, avg_cost)")])
    write_notebook(tmp_path / "repo" / "old.ipynb", document)
    report = analyze_json(tmp_path / "repo", "--select", "TFH004", "--min-confidence", "possible")
    assert report["warnings"] == ["old.ipynb: Python 2, read as Python 3 (its print, except and raise statements "
                                  "rewritten; no fixes offered)"]
    assert [(f["cell"], f["line"], f["fix"]) for f in report["findings"]] == [(3, 5, None)]


def test_check_takes_notebooks(repo: Path):
    result = advisor("check", "training.ipynb", "--select", "TFD002", cwd=repo)
    assert result.returncode == 1
    assert "training.ipynb:cell 3:4:" in result.stdout
    fixed = advisor("check", "training.ipynb", "--select", "TFD", "--fix", cwd=repo)
    assert fixed.returncode == 1 and "fixed TFD002" in fixed.stderr
    nbformat.validate(nbformat.read(repo / "training.ipynb", as_version=4))
    assert advisor("check", "training.ipynb", "--select", "TFD", cwd=repo).returncode == 0


def test_a_notebook_in_another_language_is_skipped_saying_so(tmp_path: Path):
    document = notebook([new_code_cell("library(tensorflow)")],
                        kernelspec={"name": "ir", "display_name": "R", "language": "R"})
    write_notebook(tmp_path / "repo" / "r.ipynb", document)
    (tmp_path / "repo" / "r.ipynb").write_text((tmp_path / "repo" / "r.ipynb").read_text())
    report = analyze_json(tmp_path / "repo")
    assert report["warnings"] == ["r.ipynb: skipped, a r notebook, not Python"]
