"""Run the ``step(x)`` of each module in a folder (argv[1]; the modules use ``tf``, ``state`` and ``weights`` from
the module namespace) eagerly and under ``tf.function``, in this one process, and print as JSON, per module name,
whether the compiled step failed and whether it returned and left behind the same values as the eager one. Started
by test_graph_compatibility.py (TensorFlow loads once). The steps are real files: AutoGraph converts a function only
when it can read its source."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402


def _plain(value):
    """A step's result or state as comparable Python data; None for a value that is no concrete number."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if tf.is_tensor(value) and not hasattr(value, "numpy"):
        return None  # a symbolic tensor that escaped the trace
    return np.asarray(value).tolist()


def _run(path: Path, compiled: bool) -> dict:
    spec = importlib.util.spec_from_file_location(f"{path.stem}_{compiled}", path)
    module = importlib.util.module_from_spec(spec)
    module.state, module.weights = {}, tf.Variable(tf.ones((3,)))
    spec.loader.exec_module(module)
    step = tf.function(module.step) if compiled else module.step
    try:
        results = [_plain(step(tf.constant(values))) for values in ([1.0, 2.0, 3.0], [-4.0, 5.0, 0.5])]
    except Exception as exc:  # noqa: BLE001 - any failure of the compiled step is the answer
        return {"error": f"{type(exc).__name__}: {str(exc).strip().splitlines()[-1][:200]}"}
    return {"results": results, "state": _plain(module.state)}


def main() -> None:
    report = {}
    for path in sorted(Path(sys.argv[1]).glob("*.py")):
        eager, graph = _run(path, False), _run(path, True)
        assert "error" not in eager, f"{path.stem} fails eagerly: {eager['error']}"
        report[path.stem] = {"error": graph.get("error"), "same": graph == eager}
    json.dump(report, sys.stdout)


if __name__ == "__main__":
    main()
