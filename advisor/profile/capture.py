"""``advisor profile``: run a training script unmodified in a child process and capture a profile of it.

The child runs ``bootstrap.py`` (see there for how the step window works and why there are two modes). The result
is a standard TensorBoard logdir: ``<logdir>/plugins/profile/<run>/<host>.xplane.pb``. A capture that did not cover
all requested steps (the script ended, crashed or was interrupted inside the window) has its run directory renamed
to ``<run>.partial`` so nobody mistakes it for a complete one.
"""

from __future__ import annotations

import collections
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO

from advisor.errors import InputError

BOOTSTRAP = Path(__file__).with_name("bootstrap.py")
# The python tracer slows steps down a lot; the time-based remote capture is sized for that.
PYTHON_TRACER_SLOWDOWN = 3.0
REMOTE_MIN_MS, REMOTE_MAX_MS = 1_000, 120_000
# How long a child may take to end after Ctrl-C (it exports a partial capture) before it is killed.
INTERRUPT_GRACE_S = 20.0
ERROR_LINE_BYTES = 300
READ_PIECE_BYTES = 64 * 1024
# Log lines of TensorFlow and absl (C++ and Python): `I0000 00:00:1796131853.234878   17120 cpu_feature_guard.cc:227]
# ...`, TF's older `2024-05-01 12:00:00.123456: W tensorflow/...] ...`, and absl's note that it was not initialised.
LIBRARY_LOG_LINE = re.compile(r"[IWEF]\d{4} [\d:.]+\s+\d+ \S+:\d+\] "
                              r"|\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+: [IWEF] \S+:\d+\] "
                              r"|WARNING: All log messages before absl::InitializeLog\(\) is called")
# Of those, the ones that are only noise around the script's output: INFO lines, and absl's note. TensorFlow builds
# that log through absl print the INFO lines of their import (oneDNN, CPU features) even under TF_CPP_MIN_LOG_LEVEL=1
# (TF 2.21 on an AVX-512 CPU); warnings and errors still pass.
LIBRARY_INFO_LINE = re.compile(r"I\d{4} [\d:.]+\s+\d+ \S+:\d+\] "
                               r"|\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+: I \S+:\d+\] "
                               r"|WARNING: All log messages before absl::InitializeLog\(\) is called")


def capture(command: list[str], logdir: Path, warmup: int, steps: int, python_tracer: bool,
            *, step_markers: bool = True) -> Path:
    """Run ``command`` (``python script.py ARGS`` or ``python -m module ARGS``) and profile ``steps`` steps.

    ``warmup`` steps run first unprofiled. ``step_markers`` wraps Keras ``fit`` batches in TraceMe step markers
    (custom loops get none; their steps are recovered from the trace). ``python_tracer`` records Python frames,
    through the remote profiler server; that capture is time-based and covers about ``steps`` steps.
    Returns the run directory; raises :class:`InputError` when the script fails or no capture was written.
    """
    check_python_command(command, "advisor profile")
    if warmup < 0 or steps < 1:
        raise InputError(f"--warmup must be >= 0 and --steps >= 1, got {warmup} and {steps}")
    existing = next(p for p in (logdir, *logdir.absolute().parents) if p.exists())
    if not existing.is_dir():
        raise InputError(f"{existing}: not a directory (--logdir {logdir} must be a directory, new or existing)")
    logdir = logdir.resolve()
    runs_dir = logdir / "plugins" / "profile"
    runs_before = set(runs_dir.iterdir()) if runs_dir.is_dir() else set()

    with tempfile.TemporaryDirectory(prefix="advisor-capture-") as control:
        port = _free_port()
        config = {
            "logdir": str(logdir), "warmup": warmup, "steps": steps, "markers": step_markers,
            "remote": python_tracer, "port": port, "control": control,
            "remote_wait_s": REMOTE_MAX_MS / 1000 + 60,
        }
        # TensorFlow's C++ INFO lines (CPU features, oneDNN) are noise around the script's own output; a level the
        # user set stays.
        env = {"TF_CPP_MIN_LOG_LEVEL": "1", **os.environ, "ADVISOR_CAPTURE": json.dumps(config)}
        child = subprocess.Popen([command[0], str(BOOTSTRAP), *command[1:]], env=env, stderr=subprocess.PIPE)
        stderr_tail, pump = _forward_stderr(child.stderr)
        try:
            if python_tracer:
                _remote_capture(child, Path(control), f"localhost:{port}", logdir, steps)
            returncode = child.wait()
            pump.join(timeout=5)
        except KeyboardInterrupt:
            _end_child(child)
            run = _new_run(runs_dir, runs_before, partial=True)
            where = f"; partial capture kept in {run}" if run else ""
            raise InputError(f"interrupted: the training script was stopped{where}") from None
        status = _read_json(Path(control) / "status")

    complete = returncode == 0 and (python_tracer or status.get("status") == "complete")
    run = _new_run(runs_dir, runs_before, partial=not complete)
    if returncode != 0:
        where = f"; partial capture kept in {run}" if run else ""
        last = stderr_tail[-1] if stderr_tail else f"exit code {returncode}, with no error message"
        raise InputError(f"the training script failed: {last}{where}")
    if run is None:
        raise InputError(f"no profile was captured: the script ran fewer than --warmup {warmup} steps, or none "
                         f"in Keras fit / a tf.data loop")
    return run


def check_python_command(command: list[str], tool: str) -> None:
    """Refuse a command that is not ``python script.py ARGS`` / ``python -m module ARGS``, or whose script is not
    there: one line now, before paying for TensorFlow's import (and not the child's traceback later)."""
    if len(command) < 2 or "python" not in Path(command[0]).name:
        raise InputError(f"{tool} runs a Python training script, e.g. `-- python train.py`; got {command!r}")
    if command[1] != "-m" and not Path(command[1]).is_file():
        raise InputError(f"{command[1]}: no such script")


def _remote_capture(child: subprocess.Popen, control: Path, address: str, logdir: Path, steps: int) -> None:
    """Wait for the child's warm-up to end, then capture through its profiler server for about ``steps`` steps."""
    from xprof.convert import _pywrap_profiler_plugin

    ready = control / "ready"
    while not ready.exists():
        if child.poll() is not None:
            return  # ended before warming up; the caller reports it
        time.sleep(0.05)
    step_ms = json.loads(ready.read_text())["step_ms"]
    duration_ms = int(min(max(steps * step_ms * PYTHON_TRACER_SLOWDOWN, REMOTE_MIN_MS), REMOTE_MAX_MS))
    try:
        _pywrap_profiler_plugin.trace(address, str(logdir), "", True, duration_ms, 2,
                                      {"python_tracer_level": 1, "host_tracer_level": 2})
    except Exception as error:  # noqa: BLE001 - the plugin raises plain exceptions carrying the server's message
        raise InputError(f"remote profile capture from {address} failed: {error}") from error
    finally:
        (control / "done").write_text("")


def _new_run(runs_dir: Path, runs_before: set[Path], partial: bool) -> Path | None:
    """The run directory this capture created (the profiler names it after the time), renamed if partial."""
    new = sorted(set(runs_dir.iterdir()) - runs_before) if runs_dir.is_dir() else []
    if not new:
        return None
    run = new[-1]
    if partial:
        run = run.rename(run.with_name(run.name + ".partial"))
    return run


def _forward_stderr(stream: IO[bytes]) -> tuple[collections.deque[str], threading.Thread]:
    """Pass the child's stderr through to ours, but for library INFO lines, and keep its last lines for the error
    message: the script's own lines (library log lines would be blamed for a script that failed silently), each cut
    to ERROR_LINE_BYTES.
    The stream is read in bounded pieces, so a line of any length costs no more memory than a piece."""
    tail: collections.deque[str] = collections.deque(maxlen=20)

    def keep(start: bytes, cut: bool) -> None:
        line = start.decode(errors="replace").strip()
        if line and not LIBRARY_LOG_LINE.match(line):
            tail.append(line + " [...]" if cut else line)

    def pump() -> None:
        start, cut = b"", False  # the current line's first ERROR_LINE_BYTES bytes, and whether it has more
        quiet = False  # the current line is a library INFO line: not passed on
        while piece := stream.readline(READ_PIECE_BYTES):
            if not start:
                quiet = bool(LIBRARY_INFO_LINE.match(piece.decode(errors="replace")))
            if not quiet:
                sys.stderr.buffer.write(piece)
                sys.stderr.flush()
            room = ERROR_LINE_BYTES - len(start)
            start, cut = start + piece[:room], cut or len(piece.rstrip(b"\n")) > room
            if piece.endswith(b"\n"):
                keep(start, cut)
                start, cut = b"", False
        keep(start, cut)

    thread = threading.Thread(target=pump, daemon=True)
    thread.start()
    return tail, thread


def _end_child(child: subprocess.Popen) -> None:
    """The terminal's Ctrl-C reached the child too; give it time to export, then make sure it is gone."""
    try:
        child.wait(timeout=INTERRUPT_GRACE_S)
    except subprocess.TimeoutExpired:
        child.send_signal(signal.SIGKILL)
        child.wait()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


def _read_json(path: Path) -> dict:
    return json.loads(path.read_text()) if path.exists() else {}
