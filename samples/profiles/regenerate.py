"""Regenerates the committed captures in samples/profiles/ with advisor's own capture().

Run from the repo root (needs TensorFlow): ``python samples/profiles/regenerate.py [NAME ...]``.
Each capture profiles STEPS steps after WARMUP warm-up steps of one sample script, run with the capture's own
arguments (a variant flag, for instance); the tests in tests/profile/ read these files and assert on what they show,
and samples/profiles/truth.json records which source lines cost time in each, so after regenerating a capture rerun
the tests and re-measure its truth entry.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import NamedTuple

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from advisor.profile.capture import capture  # noqa: E402

WARMUP, STEPS = 20, 20


class Capture(NamedTuple):
    sample: str  # directory under samples/ whose train.py is run
    markers: bool = False  # step markers around Keras fit batches
    python_tracer: bool = False
    args: tuple[str, ...] = ()  # script arguments besides --steps
    # The interpreter's name as the user types it: it names the main thread in the trace ("python3").
    interpreter: str = "python"


CAPTURES = {
    "input_bound": Capture("input_bound"),
    "input_bound_markers": Capture("input_bound", markers=True),
    "custom_loop": Capture("custom_loop"),
    "slow_callback": Capture("slow_callback"),
    "slow_callback_python_tracer": Capture("slow_callback", markers=True, python_tracer=True),
    "tuned": Capture("tuned"),
    "tuned_markers": Capture("tuned", markers=True),
    # Custom loops (no step markers): a step dispatched op by op, its compiled twin, and a step that retraces.
    "eager_loop": Capture("eager_loop"),
    "eager_loop_tuned": Capture("eager_loop_tuned"),
    "retracing": Capture("retracing"),
    # Shaped like real scripts (issue #12); truth.json says which lines cost time in each. One file with four input
    # pipelines chosen by a flag: each capture ran one of them.
    "pipelines_serial": Capture("pipelines", args=("--pipeline", "serial")),
    "pipelines_pyfunc": Capture("pipelines", args=("--pipeline", "pyfunc")),
    "pipelines_numpyfunc": Capture("pipelines", args=("--pipeline", "numpyfunc")),
    "pipelines_io": Capture("pipelines", args=("--pipeline", "io")),
    # The pipeline is built in common.py and reaches train.py through `from common import *`.
    "star_import": Capture("star_import"),
    # A slow per-batch callback registered only under a flag: captured without it and with it.
    "conditional_callback": Capture("conditional_callback"),
    "conditional_callback_on": Capture("conditional_callback", args=("--log-every-batch",)),
    "conditional_callback_on_python_tracer": Capture("conditional_callback", markers=True, python_tracer=True,
                                                     args=("--log-every-batch",)),
    # A GradientTape loop written inline in main(), no train_step function.
    "inline_eager": Capture("inline_eager"),
    # The same program started as `python3 train.py`: the trace names the main thread "python3", not "python".
    "inline_eager_python3": Capture("inline_eager", interpreter="python3"),
    # Batches of 2 in Keras fit; a slow callback class is defined but never registered.
    "tiny_batch_unused_callback": Capture("tiny_batch_unused_callback"),
}
# name -> sample directory, for captures of a notebook run in a Jupyter kernel (see regenerate_notebook.py).
NOTEBOOK_CAPTURES = {"notebook": "notebook"}


def main(names: list[str]) -> None:
    for name in names or CAPTURES:
        sample, markers, python_tracer, args, interpreter = CAPTURES[name]
        logdir = REPO / "samples" / "profiles" / name
        shutil.rmtree(logdir, ignore_errors=True)
        os.chdir(REPO / "samples" / sample)
        # The link of that name beside this interpreter (a virtualenv has python, python3 and python3.X).
        python = str(Path(sys.executable).with_name(interpreter))
        # A few steps more than the window, so the script is still training when the window closes.
        command = [python, "train.py", *args, "--steps", str(WARMUP + STEPS + 5)]
        run = capture(command, logdir, WARMUP, STEPS, python_tracer, step_markers=markers)
        print(f"{name}: {run.relative_to(REPO)}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
