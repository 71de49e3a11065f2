"""Runs the user's training script unmodified, with the profiler switched on around a window of steps.

``capture()`` starts this file as a script in a child process: ``python bootstrap.py train.py ARGS``. It imports
only the standard library and TensorFlow (never advisor), so it runs in whatever interpreter the user's command
names. Its settings come in the ``ADVISOR_CAPTURE`` environment variable (JSON):

``logdir``      where the capture goes (a standard ``<logdir>/plugins/profile/<run>/<host>.xplane.pb``)
``warmup``      steps to run before profiling starts (tracing, autotuning and caches settle in them)
``steps``       steps to profile
``markers``     wrap each Keras ``fit`` batch in a ``train`` step marker (TraceMe ``step_num``, ``_r=1``)
``remote``      profile through the profiler server (needed for the python tracer) instead of an in-process session
``control``     directory the child and parent signal each other through (files ``ready``, ``done``, ``status``)
``measure``     optional: a JSON file path. Measure mode (``advisor verify``) profiles nothing: it records each step's
                wall time and the losses and metrics Keras logs, writes them to this file, and ends the process
                (exit code 0) after ``warmup + steps`` steps, so a long training run is measured in seconds
``seed``        measure mode: seed Python, NumPy and TensorFlow before the script runs (a script that seeds itself
                overrides it), so an original and a patched run draw the same random numbers
``lines``       measure mode, optional: {file path: [line numbers]}; the run records which of these lines execute
                (in Python threads), so ``advisor verify`` can tell a fix whose code never ran. The line tracer
                slows the program: such a run is a check, never timed

Steps are counted by a Keras callback appended last to every ``fit`` call, or, outside ``fit``, by ``next()`` on a
``tf.data`` iterator (a custom loop's ``for batch in dataset``).

In-process mode (default) starts ``tf.profiler.experimental.start`` at step ``warmup`` and stops after exactly
``steps`` steps: deterministic, no ports, no timing guesses. It cannot record Python frames: TF 2.21 drops the
session options in-process (``python_tracer_level expects an i value``). Remote mode therefore starts the profiler
server, writes ``ready`` with the warm-up step time, and leaves the (time-based) capture to the parent, which
writes ``done`` when its trace returned; the child waits for ``done`` before exiting so the server outlives it.
"""

from __future__ import annotations

import atexit
import json
import os
import runpy
import sys
import threading
import time

CONFIG = json.loads(os.environ.pop("ADVISOR_CAPTURE"))
CONTROL_DIR = CONFIG.get("control")  # measure mode signals nothing


def _write_control(name: str, text: str) -> None:
    tmp = os.path.join(CONTROL_DIR, name + ".tmp")
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, os.path.join(CONTROL_DIR, name))


class _Window:
    """Counts training steps and switches the profiler on and off around the profiled window."""

    def __init__(self) -> None:
        self.step = 0  # steps completed so far, all epochs and fit calls together
        self.step_started_at: float | None = None
        self.warmup_step_ms: list[float] = []
        self.profiling = False
        self.finished = False
        self.signalled_ready = False

    def begin_step(self) -> None:
        self.step_started_at = time.perf_counter()
        if self.step == CONFIG["warmup"] and not self.profiling and not self.finished:
            self._start()

    def end_step(self, logs: dict | None = None, batches: int = 1) -> None:  # noqa: ARG002 - for _Measurement
        if self.step_started_at is not None and self.step < CONFIG["warmup"]:
            self.warmup_step_ms.append((time.perf_counter() - self.step_started_at) * 1000)
        self.step += 1
        if self.profiling and self.step >= CONFIG["warmup"] + CONFIG["steps"]:
            self._stop(status="complete")

    def _start(self) -> None:
        import tensorflow as tf

        if CONFIG["remote"]:
            tf.profiler.experimental.server.start(CONFIG["port"])
            # The median warm-up step (the first ones include tracing) sizes the parent's time-based capture.
            times = sorted(self.warmup_step_ms[1:] or self.warmup_step_ms or [100.0])
            _write_control("ready", json.dumps({"step_ms": times[len(times) // 2]}))
            self.signalled_ready = True
            self.finished = True  # the parent owns the capture window from here
        else:
            tf.profiler.experimental.start(CONFIG["logdir"])
            self.profiling = True

    def _stop(self, status: str) -> None:
        import tensorflow as tf

        tf.profiler.experimental.stop()
        self.profiling = False
        self.finished = True
        _write_control("status", json.dumps({"status": status, "profiled_steps": self.step - CONFIG["warmup"]}))

    def at_exit(self) -> None:
        """A script that ends (or crashes) inside the window still leaves its partial capture behind."""
        if self.profiling:
            self._stop(status="partial")
        if self.signalled_ready:
            deadline = time.monotonic() + CONFIG["remote_wait_s"]
            while not os.path.exists(os.path.join(CONTROL_DIR, "done")) and time.monotonic() < deadline:
                time.sleep(0.05)


class _Measurement:
    """Measure mode: a step's time is the time between consecutive step ends, so it covers the input wait, the
    step itself and every callback; the first step's time starts at its beginning.

    A step is one batch. Keras with ``steps_per_execution=k`` calls the batch callbacks once per k batches; such a
    call counts as k steps of a k-th of its time each, and its logs belong to its last batch.

    The process's CPU time (user + system, every thread) is read at the first step's start and at every step end
    (``cpu_marks``: [batches completed, seconds]), so the parent can take the CPU time of exactly the measured
    steps."""

    def __init__(self) -> None:
        self.step = 0  # batches completed
        self.step_started_at: float | None = None
        self.last_end: float | None = None
        self.step_ms: list[float] = []
        self.logs: list[dict[str, float]] = []  # {"step": batch index, loss and metrics} per callback call
        self.cpu_marks: list[tuple[int, float]] = []
        self.written = False

    def begin_step(self) -> None:
        self.step_started_at = time.perf_counter()
        if self.last_end is None:
            self.last_end = self.step_started_at
            self.cpu_marks.append((0, time.process_time()))

    def end_step(self, logs: dict | None = None, batches: int = 1) -> None:
        now = time.perf_counter()
        self.cpu_marks.append((self.step + batches, time.process_time()))
        self.step_ms.extend([(now - self.last_end) * 1000 / batches] * batches)
        self.last_end = now
        if logs is not None:
            self.logs.append({"step": self.step + batches - 1,
                              **{k: float(v) for k, v in logs.items() if _is_number(v)}})
        self.step += batches
        if self.step >= CONFIG["warmup"] + CONFIG["steps"]:
            self._write(complete=True)
            # Exit at once. Unwinding with SystemExit would be gentler, but interpreter shutdown deadlocks while
            # tf.data threads still run Python (numpy_function / py_function maps hold or wait for the GIL), and
            # nothing the script would still do matters to the measurement.
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(0)

    def _write(self, complete: bool) -> None:
        if self.written:
            return
        self.written = True
        result = {"complete": complete, "warmup": CONFIG["warmup"], "step_ms": self.step_ms, "logs": self.logs,
                  "cpu_marks": self.cpu_marks}
        if LINES is not None:
            result["executed"] = {path: sorted(lines) for path, lines in LINES.executed.items()}
        tmp = CONFIG["measure"] + ".tmp"
        with open(tmp, "w") as f:
            json.dump(result, f)
        os.replace(tmp, CONFIG["measure"])

    def at_exit(self) -> None:
        self._write(complete=False)  # the script ended (or crashed) before the last measured step


def _is_number(value) -> bool:
    try:
        float(value)
        return True
    except (TypeError, ValueError):
        return False


class _LineProbe:
    """Records which of some lines of some files execute: a trace function on every Python thread that follows
    only the frames of those files."""

    def __init__(self, wanted: dict[str, list[int]]) -> None:
        self.wanted = {os.path.realpath(path): set(lines) for path, lines in wanted.items()}
        self.executed: dict[str, set[int]] = {path: set() for path in self.wanted}
        self._file_of: dict[str, str | None] = {}  # code file name -> the wanted path it is, or None
        sys.settrace(self._call)
        threading.settrace(self._call)

    def _call(self, frame, event, arg):  # noqa: ARG002 - the trace function signature
        name = frame.f_code.co_filename
        if name not in self._file_of:
            real = os.path.realpath(name)
            self._file_of[name] = real if real in self.wanted else None
        path = self._file_of[name]
        if path is None:
            return None
        lines, executed = self.wanted[path], self.executed[path]

        def line(frame, event, arg):  # noqa: ARG001
            if event == "line" and frame.f_lineno in lines:
                executed.add(frame.f_lineno)
            return line

        return line


MEASURE = bool(CONFIG.get("measure"))
WINDOW = _Measurement() if MEASURE else _Window()
atexit.register(WINDOW.at_exit)
LINES = _LineProbe(CONFIG["lines"]) if CONFIG.get("lines") else None


def _patch_keras_fit() -> None:
    """Append a last callback to every ``fit`` call: it counts batches and, if asked, marks them as steps."""
    try:
        import keras
        import tensorflow as tf
    except ImportError:
        return

    class _StepWindowCallback(keras.callbacks.Callback):
        def __init__(self) -> None:
            super().__init__()
            self._marker = None
            self._first_batch = 0

        def on_train_batch_begin(self, batch, logs=None):
            self._first_batch = batch  # with steps_per_execution, one call spans several batches
            WINDOW.begin_step()
            if CONFIG["markers"]:
                self._marker = tf.profiler.experimental.Trace("train", step_num=WINDOW.step, _r=1)
                self._marker.__enter__()

        def on_train_batch_end(self, batch, logs=None):
            if self._marker is not None:
                self._marker.__exit__(None, None, None)
                self._marker = None
            WINDOW.end_step(logs or {}, batches=batch - self._first_batch + 1)

    original_fit = keras.Model.fit

    def fit(self, *args, callbacks=None, **kwargs):
        callbacks = list(callbacks or []) + [_StepWindowCallback()]
        _in_fit[0] += 1
        try:
            return original_fit(self, *args, callbacks=callbacks, **kwargs)
        finally:
            _in_fit[0] -= 1

    keras.Model.fit = fit

    # Outside fit, a step is the time from one dataset iterator next() to the following one.
    from tensorflow.python.data.ops import iterator_ops

    original_next = iterator_ops.OwnedIterator.__next__

    def __next__(self):
        if _in_fit[0]:
            return original_next(self)
        if WINDOW.step_started_at is not None:
            WINDOW.end_step()
        WINDOW.begin_step()
        return original_next(self)

    iterator_ops.OwnedIterator.__next__ = __next__


_in_fit = [0]


def _seed(seed: int) -> None:
    """Python's, NumPy's and TensorFlow's global seeds, all set by Keras' one call."""
    try:
        import keras
    except ImportError:
        import random

        random.seed(seed)
        return
    keras.utils.set_random_seed(seed)


def main() -> None:
    _patch_keras_fit()
    if MEASURE:
        _seed(CONFIG["seed"])
    args = sys.argv[1:]
    if args[0] == "-m":
        sys.argv = args[1:]
        runpy.run_module(args[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = args
        sys.path[0] = os.path.dirname(os.path.abspath(args[0]))
        runpy.run_path(args[0], run_name="__main__")


if __name__ == "__main__":
    main()
