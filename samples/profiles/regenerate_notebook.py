"""Regenerates samples/profiles/notebook: samples/notebook/train.ipynb run in a real Jupyter kernel, captured.

The notebook runs in ipykernel (through nbclient), as Jupyter runs it. The kernel starts TensorFlow's profiler
server before the first cell; while the training cell runs, a remote capture with the python tracer records the
kernel's Python frames, which name each cell's code the way ipykernel does (``<tmp>/ipykernel_<pid>/<hash>.py``).
The notebook is saved back with the outputs of that run.

Run from the repo root (needs TensorFlow, nbclient and ipykernel): ``python samples/profiles/regenerate_notebook.py``.
"""

from __future__ import annotations

import os
import shutil
import socket
import sys
import threading
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from xprof.convert import _pywrap_profiler_plugin

REPO = Path(__file__).resolve().parents[2]
NOTEBOOK = REPO / "samples" / "notebook" / "train.ipynb"
LOGDIR = REPO / "samples" / "profiles" / "notebook"  # regenerate.NOTEBOOK_CAPTURES names it
TRAINING_CELL = "model.fit("
# The first epoch warms up (tracing, autotuning); the capture covers part of the second, python tracer included.
WARMUP_S, CAPTURE_MS = 6.0, 2000


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


def _capture(port: int) -> None:
    time.sleep(WARMUP_S)
    _pywrap_profiler_plugin.trace(f"localhost:{port}", str(LOGDIR), "", True, CAPTURE_MS, 2,
                                  {"python_tracer_level": 1, "host_tracer_level": 2})


def main() -> None:
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    port = _free_port()
    startup = f"['import tensorflow as tf', 'tf.profiler.experimental.server.start({port})']"
    client = NotebookClient(notebook, timeout=600, kernel_name="python3", record_timing=False,
                            resources={"metadata": {"path": str(NOTEBOOK.parent)}},
                            extra_arguments=[f"--IPKernelApp.exec_lines={startup}"])
    shutil.rmtree(LOGDIR, ignore_errors=True)
    capture = threading.Thread(target=_capture, args=(port,))
    # The kernel's TensorFlow logs would land in the notebook's outputs.
    with client.setup_kernel(env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")):
        for index, cell in enumerate(notebook.cells):
            if cell.cell_type == "code" and TRAINING_CELL in cell.source:
                capture.start()
            client.execute_cell(cell, index)
    capture.join()
    nbformat.validate(notebook)
    nbformat.write(notebook, NOTEBOOK)
    print(f"notebook: {next(LOGDIR.rglob('*.xplane.pb')).relative_to(REPO)}", file=sys.stderr)


if __name__ == "__main__":
    main()
