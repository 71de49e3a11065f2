"""Notebooks with profiles: a capture taken from a real Jupyter kernel (samples/profiles/notebook, made by
samples/profiles/regenerate_notebook.py) links to cell lines, and a patched notebook still runs in a kernel."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from notebook_helpers import ROOT, advisor, analyze_json

SAMPLE = ROOT / "samples" / "notebook"
CAPTURE = ROOT / "samples" / "profiles" / "notebook"


def _cell_line(cell: int, line: int) -> str:
    return nbformat.read(SAMPLE / "train.ipynb", as_version=4).cells[cell - 1].source.splitlines()[line - 1]


def test_a_kernel_capture_confirms_findings_at_their_cells(tmp_path: Path):
    shutil.copytree(SAMPLE, tmp_path / "repo")  # analyze saves its state in the repo: not in the samples
    report = analyze_json(tmp_path / "repo", str(CAPTURE))
    findings = {f["code"]: f for f in report["findings"]}
    # The serial map of cell 4, confirmed by the iterators the kernel ran; its missing prefetch is likely (a CPU
    # capture cannot show what overlap gains).
    for code, confidence in (("TFD002", "confirmed"), ("TFD001", "likely")):
        assert findings[code]["confidence"] == confidence
        assert (findings[code]["cell"], findings[code]["line"]) == (4, 19)
    assert "train_ds.map(augment).batch(BATCH_SIZE)" in _cell_line(4, 19)
    # The callback defined in cell 8: the python tracer named the cell's code as ipykernel does (<hash>.py),
    # and the frame's line is the line in the cell.
    callback = findings["TFH001"]
    assert callback["confidence"] == "confirmed" and callback["cell"] == 8
    frames = [e for e in callback["evidence"] if e["message"].startswith("python tracer:")]
    assert frames and frames[0]["data"]["frame"].endswith(".py:8 on_train_batch_end")
    assert _cell_line(8, 8).lstrip().startswith("def on_train_batch_end")


@pytest.mark.slow
def test_the_fixed_notebook_still_runs_in_a_kernel(tmp_path: Path):
    """The safe fixes of the sample notebook, applied in place, then the whole notebook run as Jupyter runs it."""
    repo = tmp_path / "repo"
    shutil.copytree(SAMPLE, repo)
    analyze_json(repo)
    applied = advisor("apply", "--repo", str(repo), "--all")
    assert applied.returncode == 0, applied.stderr
    patched = nbformat.read(repo / "train.ipynb", as_version=4)
    nbformat.validate(patched)
    assert "num_parallel_calls=tf.data.AUTOTUNE" in patched.cells[3].source
    assert ".prefetch(tf.data.AUTOTUNE)" in patched.cells[3].source
    for cell in patched.cells:  # a shorter run: the point is that every cell still works
        cell.source = cell.source.replace("epochs=3", "epochs=1")
    NotebookClient(patched, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(repo)}}).execute()
    assert patched.cells[-1].outputs[-1]["data"]["text/plain"] == "40"  # one epoch: a loss per batch
