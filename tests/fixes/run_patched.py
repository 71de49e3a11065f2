"""Import and run patched training scripts with TensorFlow on CPU, all in this one process, and print what happened
as JSON. Started by test_fixes_keep_training.py; reads a JSON list of {"name", "original", "patched", "args"}.

For each script: the names its module binds to modules, functions and classes must be the same before and after
the patch (imported side by side; a function a fix compiled with tf.function counts as itself), and the patched script, run as ``__main__`` with ``args``, must train: some Keras
optimizer takes steps and every variable it updates stays finite. The global dtype policy in force afterwards is
reported too (a mixed-precision fix must have set it).
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import runpy
import sys
import time
import traceback
import types
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402
from keras.src.optimizers.base_optimizer import BaseOptimizer  # noqa: E402

OPTIMIZERS: list[BaseOptimizer] = []
_original_init = BaseOptimizer.__init__


def _recording_init(self, *args, **kwargs):
    _original_init(self, *args, **kwargs)
    OPTIMIZERS.append(self)


BaseOptimizer.__init__ = _recording_init


@contextlib.contextmanager
def _in_folder(folder: Path, argv: list[str]):
    """Run as ``python SCRIPT ARGS`` from the script's folder; forget the folder's modules afterwards."""
    cwd, path, old_argv = os.getcwd(), list(sys.path), list(sys.argv)
    os.chdir(folder)
    sys.path.insert(0, str(folder))
    sys.argv = argv
    try:
        yield
    finally:
        os.chdir(cwd)
        sys.path[:] = path
        sys.argv = old_argv
        for name, module in list(sys.modules.items()):
            if str(getattr(module, "__file__", "") or "").startswith(str(folder) + os.sep):
                del sys.modules[name]
        keras.mixed_precision.set_global_policy("float32")
        keras.backend.clear_session()


def _bindings(script: Path) -> dict[str, str]:
    """What the script's module binds to modules, functions and classes, by what they are (not instances)."""
    spec = importlib.util.spec_from_file_location("probe", script)
    module = importlib.util.module_from_spec(spec)
    with _in_folder(script.parent, [str(script)]), contextlib.redirect_stdout(io.StringIO()):
        spec.loader.exec_module(module)
    found = {}
    for name, value in vars(module).items():
        if name.startswith("__"):
            continue
        value = getattr(value, "python_function", value)  # a tf.function: the Python function it compiles
        if isinstance(value, types.ModuleType):
            found[name] = f"module {value.__name__}"
        elif isinstance(value, (types.FunctionType, types.BuiltinFunctionType, type)):
            owner = getattr(value, "__module__", "?")
            found[name] = f"{type(value).__name__} {'defined here' if owner == 'probe' else owner}.{value.__qualname__}"
    return found


def _trains(script: Path, args: list[str]) -> dict:
    OPTIMIZERS.clear()
    with _in_folder(script.parent, [str(script), *args]), contextlib.redirect_stdout(io.StringIO()):
        runpy.run_path(str(script), run_name="__main__")
        policy = keras.mixed_precision.global_policy().name
        steps = max((int(o.iterations.numpy()) for o in OPTIMIZERS), default=0)
        finite = all(np.isfinite(v.numpy()).all() for o in OPTIMIZERS
                     for v in getattr(o, "_trainable_variables", ()))
    return {"steps": steps, "finite": bool(finite), "policy": policy}


def main() -> None:
    report = {}
    for case in json.load(sys.stdin):
        original, patched = Path(case["original"]), Path(case["patched"])
        started = time.perf_counter()
        try:
            before, after = _bindings(original), _bindings(patched)
            result = {"rebound": sorted(n for n in before if after.get(n) != before[n])}
            result.update(_trains(patched, case["args"]))
        except BaseException as exc:  # noqa: BLE001 - a patched script that fails is the finding
            result = {"error": "".join(traceback.format_exception_only(type(exc), exc)).strip()[-2000:]}
        report[case["name"]] = {**result, "seconds": round(time.perf_counter() - started, 1)}
    json.dump(report, sys.stdout)


if __name__ == "__main__":
    main()
