"""Real notebooks for the tests, written by nbformat itself: several cells, magics, a model built across cells,
outputs of the kinds Jupyter stores (streams, results, errors, images)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output, new_raw_cell

from every_finding import every_finding

ROOT = Path(__file__).resolve().parents[2]
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

# The cells of training.ipynb, 1-based as Jupyter numbers them: markdown and raw cells count.
CELLS = [
    new_markdown_cell("# Training, one cell at a time\n\nData in cell 3, the model over cells 5 and 6."),
    new_code_cell("%matplotlib inline\n!pip install -q tensorflow\nimport numpy as np\nimport tensorflow as tf",
                  execution_count=1,
                  outputs=[new_output("stream", name="stdout", text="Requirement already satisfied\n")]),
    new_code_cell("features = np.zeros((256, 8), dtype=\"float32\")\n"
                  "labels = np.zeros((256,), dtype=\"int64\")\n"
                  "ds = tf.data.Dataset.from_tensor_slices((features, labels))\n"
                  "ds = ds.shuffle(256).map(lambda x, y: (x * 2.0, y))\n"
                  "ds = ds.batch(32)",
                  execution_count=2, outputs=[]),
    new_raw_cell("a raw cell: not code"),
    new_code_cell("model = tf.keras.Sequential([\n"
                  "    tf.keras.Input(shape=(8,)),\n"
                  "    tf.keras.layers.Dense(16, activation=\"relu\"),\n"
                  "])",
                  execution_count=3, outputs=[]),
    new_code_cell("model.add(tf.keras.layers.Dense(2))\n"
                  "model.compile(\"adam\", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))\n"
                  "model.summary()",
                  execution_count=4,
                  outputs=[new_output("stream", name="stdout", text="Model: \"sequential\"\n")]),
    new_code_cell("%%time\nfiles = !ls\nhistory = model.fit(ds, epochs=1)\nhistory.history[\"loss\"]",
                  execution_count=5,
                  outputs=[new_output("execute_result", data={"text/plain": "[0.69]"}, execution_count=5),
                           new_output("display_data", data={"image/png": PNG, "text/plain": "<Figure>"})]),
    new_code_cell("%%bash\necho done > done.txt", execution_count=6, outputs=[]),
    new_code_cell("1 / 0", execution_count=7,
                  outputs=[new_output("error", ename="ZeroDivisionError", evalue="division by zero",
                                      traceback=["ZeroDivisionError: division by zero"])]),
]
# Where the findings are, in (cell, line in the cell, column) of the notebook above.
MAP_AT = (3, 4, 20)  # `.map(` of the pipeline in cell 3
BATCH_AT = (3, 5, 9)  # `.batch(32)`, the pipeline's end


def notebook(cells=None, **metadata) -> nbformat.NotebookNode:
    document = new_notebook(cells=list(CELLS if cells is None else cells),
                            metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                     "language": "python"}, **metadata})
    nbformat.validate(document)
    return document


def write_notebook(path: Path, document: nbformat.NotebookNode | None = None) -> Path:
    """As Jupyter saves it (nbformat: one-space indent, sorted keys, a trailing newline)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(document if document is not None else notebook(), path)
    return path


def advisor(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "advisor", *every_finding(args)], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def analyze_json(repo: Path, *args: str) -> dict:
    result = advisor("analyze", str(repo), "--format", "json", *args)
    assert result.returncode in (0, 1), result.stderr
    return json.loads(result.stdout)
