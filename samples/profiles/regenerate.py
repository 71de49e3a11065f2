"""Regenerates the committed captures in samples/profiles/ with advisor's own capture().

Run from the repo root (needs TensorFlow): ``python samples/profiles/regenerate.py [NAME ...]``.
Each capture profiles STEPS steps after WARMUP warm-up steps of one sample script; the tests in tests/profile/ read
these files and assert on what they show, so rerun the tests after regenerating.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from advisor.profile.capture import capture  # noqa: E402

WARMUP, STEPS = 20, 20

# name -> (sample directory, step markers, python tracer)
CAPTURES = {
    "input_bound": ("input_bound", False, False),
    "input_bound_markers": ("input_bound", True, False),
    "custom_loop": ("custom_loop", False, False),
    "slow_callback": ("slow_callback", False, False),
    "slow_callback_python_tracer": ("slow_callback", True, True),
    "tuned": ("tuned", False, False),
    "tuned_markers": ("tuned", True, False),
    # Custom loops (no step markers): a step dispatched op by op, its compiled twin, and a step that retraces.
    "eager_loop": ("eager_loop", False, False),
    "eager_loop_tuned": ("eager_loop_tuned", False, False),
    "retracing": ("retracing", False, False),
}
# name -> sample directory, for captures of a notebook run in a Jupyter kernel (see regenerate_notebook.py).
NOTEBOOK_CAPTURES = {"notebook": "notebook"}


def main(names: list[str]) -> None:
    for name in names or CAPTURES:
        sample, markers, python_tracer = CAPTURES[name]
        logdir = REPO / "samples" / "profiles" / name
        shutil.rmtree(logdir, ignore_errors=True)
        os.chdir(REPO / "samples" / sample)
        # A few steps more than the window, so the script is still training when the window closes.
        command = [sys.executable, "train.py", "--steps", str(WARMUP + STEPS + 5)]
        run = capture(command, logdir, WARMUP, STEPS, python_tracer, step_markers=markers)
        print(f"{name}: {run.relative_to(REPO)}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
