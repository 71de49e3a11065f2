"""advisor.source.notebook against the tools that define notebooks: IPython says which lines are magics, ipykernel
how it names a cell's code, nbformat and json how notebooks are written."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import nbformat
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from IPython.core.inputtransformer2 import TransformerManager
from ipykernel.compiler import get_tmp_hash_seed, murmur2_x86
from nbformat.v4 import new_code_cell, new_markdown_cell

from advisor.source.notebook import Notebook, NotebookError, murmur2
from notebook_helpers import notebook

MAGIC_CELLS = [
    "%matplotlib inline\nimport tensorflow as tf",
    "!pip install -q tensorflow \\\n    keras\nx = 1",
    "files = !ls\nresult = %timeit -o sum(range(9))",
    "for i in range(3):\n    %time f(i)\n    !echo $i",
    "total = (a\n         % b)\ntext = '''\n%not a magic\n'''",
    "if ready:\n    value = x[\n        1]\n!echo done",
    "%%time\nmodel.fit(ds)",
    " %%time\nmodel.fit(ds)",  # IPython takes the first line's indentation off
    "\n\n%%time\nmodel.fit(ds)",  # and the blank lines before it
    "s = 'it''s'  # %comment\nprint(s)",
    "# the docstring of a method:\ndatagen.flow_from_directory?\nx = 1",  # help requests
    "??model.fit\nif ready:\n    layers[0].call??\n    y = 2",
]


@pytest.mark.parametrize("source", MAGIC_CELLS)
def test_magic_lines_are_those_ipython_transforms(source: str):
    """IPython's own transformer is the oracle: the lines it rewrites are the lines advisor replaces with `pass`."""
    (cell,) = Notebook.parse(nbformat.writes(notebook([new_code_cell(source)])).encode()).cells
    original = source.splitlines()
    code = cell.code.splitlines()
    assert len(code) == len(original)  # every position maps back 1:1
    ast_of_cell = compile(cell.code, "<cell>", "exec", flags=0x400)  # PyCF_ONLY_AST: the module parses
    assert ast_of_cell is not None
    first = next(number for number, line in enumerate(original) if line.strip())
    if original[first].lstrip().startswith("%%"):  # a cell magic: IPython hands the cell to it; advisor keeps the body
        assert cell.placeholders == {first}
        return
    ipython = TransformerManager().transform_cell(source).splitlines()
    kept = difflib.SequenceMatcher(None, original, ipython, autojunk=False).get_matching_blocks()
    unchanged = {block.a + k for block in kept for k in range(block.size)}
    assert cell.placeholders == set(range(len(original))) - unchanged
    assert all(code[n].strip() in ("pass", "") or code[n].startswith("# ") for n in cell.placeholders)


@given(st.text(max_size=200))
@settings(max_examples=200, deadline=None)
def test_cells_are_named_as_ipykernel_names_them(source: str):
    assert murmur2(source.encode(), get_tmp_hash_seed()) == murmur2_x86(source, get_tmp_hash_seed())


def _cells(sources: list[str]):
    return [new_markdown_cell("notes")] + [new_code_cell(s) for s in sources]


LAYOUTS = {
    # What Jupyter saves: indent 1, sorted keys, a final newline.
    "nbformat": lambda document: nbformat.writes(nbformat.from_dict(document)) + "\n",
    "json.dumps": lambda document: json.dumps(document),  # one line, `, ` separators
    "compact": lambda document: json.dumps(document, separators=(",", ":")),
    "indent 2, ASCII": lambda document: json.dumps(document, indent=2, ensure_ascii=True),
    "string sources": lambda document: json.dumps(
        {**document, "cells": [{**c, "source": "".join(c["source"]) if isinstance(c["source"], list) else c["source"]}
                               for c in document["cells"]]}, indent=4, ensure_ascii=False),
}
SOURCES = ["import tensorflow as tf\nds = tf.data.Dataset.range(8)  # é ✓ \"quoted\"",
           "%time x = 1\nds = ds.map(lambda x: x)\n\n",
           "ds = ds.batch(2)\nmodel.fit(ds)"]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_changed_cell_is_written_in_the_files_layout_and_nothing_else_changes(layout: str):
    document = json.loads(nbformat.writes(notebook(_cells(SOURCES))))
    document["cells"][2]["source"] = ["%time x = 1\n", "ds = ds.map(lambda x: x)\n", "\n"]  # lines, as nbformat
    text = LAYOUTS[layout](document)
    parsed = Notebook.parse(text.encode())
    assert parsed.with_code(parsed.code) == text  # no change: the very same text
    new_code = parsed.code.replace("ds.map(lambda x: x)", "ds.map(lambda x: x, num_parallel_calls=2)")
    written = parsed.with_code(new_code)
    expected = json.loads(text)
    changed = "".join(expected["cells"][2]["source"]).replace("x: x)", "x: x, num_parallel_calls=2)")
    cells = json.loads(written)["cells"]
    assert "".join(cells[2]["source"]) == changed
    expected["cells"][2]["source"] = cells[2]["source"]
    assert json.loads(written) == expected
    assert type(cells[2]["source"]) is type(json.loads(text)["cells"][2]["source"])
    # Byte for byte elsewhere: what precedes and follows the cell's source value is untouched.
    head = text[:text.index("ds.map(")]
    assert written.startswith(head[:head.rindex('"source"')])
    assert written.endswith(text[text.index("ds.batch(2)"):])
    nbformat.validate(nbformat.reads(written, as_version=4))
    assert parsed.cell_diff(Path("nb.ipynb"), new_code) == (
        "--- a/nb.ipynb:cell 3\n+++ b/nb.ipynb:cell 3\n@@ -1,3 +1,3 @@\n %time x = 1\n"
        "-ds = ds.map(lambda x: x)\n+ds = ds.map(lambda x: x, num_parallel_calls=2)\n \n")


def test_positions_map_to_the_cell_and_to_the_file():
    text = nbformat.writes(notebook(_cells(SOURCES)))
    parsed = Notebook.parse(text.encode())
    line = parsed.code.splitlines().index("ds = ds.batch(2)") + 1
    column = len("ds = ds.") + 1
    span = parsed.span(line, column, line, column + len("batch(2)"))
    assert (span.cell, span.line, span.end_line) == (4, 1, 1)
    file_line = text.splitlines()[span.file_line - 1]
    assert file_line[span.file_column - 1:span.file_end_column - 1] == "batch(2)"
    # A non-ASCII character before the span counts as one column, as SARIF's unicodeCodePoints say.
    first = parsed.span(2, len("ds = tf.data.Dataset.range(8)  # é ✓ ") + 1, 2, 50)
    assert text.splitlines()[first.file_line - 1][first.file_column - 1:].startswith('\\"quoted')


def test_changes_a_notebook_cannot_take_are_refused():
    parsed = Notebook.parse(nbformat.writes(notebook(_cells(SOURCES))).encode())
    with pytest.raises(NotebookError, match="magic"):
        parsed.with_code(parsed.code.replace("# %time x = 1\n", "x = 2\n"))


@pytest.mark.parametrize("data, message", [
    (b"\xff\xfe{}", "not UTF-8"),
    (b"{\"cells\": [", "not JSON"),
    (b"[]", "not an object"),
    (b"{\"nbformat\": 4}", "not an nbformat 4 notebook"),
    (b"{\"nbformat\": 4, \"nbformat_minor\": 5, \"metadata\": {}, \"cells\": [{\"cell_type\": \"code\", "
     b"\"source\": 3}]}", "cell 1: its source is not text"),
])
def test_files_that_are_not_notebooks_say_why(data: bytes, message: str):
    with pytest.raises(NotebookError, match=message):
        Notebook.parse(data)



def test_a_cell_indented_as_a_whole_is_analysed_as_ipython_runs_it():
    """IPython takes the indentation of a cell's first line off every line starting with it: a cell pasted with a
    leading space (` def get_classifier():`) runs, and its findings are placed in it; a fix cannot be written back
    into it with its indentation, so it is refused there."""
    source = " def build():\n     return tf.ones(3)\n # a comment\n"
    text = nbformat.writes(notebook([new_code_cell(source), new_code_cell("x = build()")]))
    parsed = Notebook.parse(text.encode())
    assert parsed.cells[0].code == TransformerManager().transform_cell(source)
    column = len("    return ") + 1
    span = parsed.span(2, column, 2, column + len("tf.ones(3)"))
    file_line = text.splitlines()[span.file_line - 1]
    assert file_line[span.file_column - 1:span.file_end_column - 1] == "tf.ones(3)"
    with pytest.raises(NotebookError, match="indented as a whole"):
        parsed.with_code(parsed.code.replace("tf.ones(3)", "tf.zeros(3)"))
    assert json.loads(parsed.with_code(parsed.code.replace("x = build()", "x = build(2)")))["cells"][1]["source"] == \
        ["x = build(2)"]
