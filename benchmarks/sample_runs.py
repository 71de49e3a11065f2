"""What realized_vs_ceiling.py and prediction_error.py share: each problem sample profiled, analysed and patched the
way a user would (``advisor profile``, ``advisor analyze``, every fix including the unsafe ones), then measured with
advisor's paired method (advisor/measure.py) against the original and, when asked, the expert's version.

Nothing in samples/ is written: captures, copies and patched files live in a temporary directory.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from advisor.config import Settings  # noqa: E402
from advisor.engine import analyze  # noqa: E402
from advisor.measure import Run, Variant, machine, paired_runs  # noqa: E402
from advisor.model import SpeedupEstimate  # noqa: E402
from advisor.profile.capture import capture  # noqa: E402
from advisor.verify import ORIGINAL, PATCHED, apply_in_copy, copy_repo, predicted_speedup  # noqa: E402

SAMPLES = REPO / "samples"
EXPERT = "expert"
# The problem samples that have an expert version beside them (samples/<name>_expert).
PROBLEM_SAMPLES = ("input_bound", "io_bound", "slow_callback", "custom_loop")
CAPTURE_WARMUP, CAPTURE_STEPS = 10, 20


@dataclass
class SampleResult:
    name: str
    fixes: list[str]  # "CODE [id]" of the fixes applied
    predicted: SpeedupEstimate | None
    runs: list[Run]


def arguments(description: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("samples", nargs="*", default=list(PROBLEM_SAMPLES))
    parser.add_argument("--repeats", type=int, default=5, help="rounds of alternating runs")
    parser.add_argument("--warmup", type=int, default=5, help="steps discarded at the start of each run")
    parser.add_argument("--steps", type=int, default=20, help="steps measured per run")
    return parser.parse_args()


def measure_sample(name: str, args: argparse.Namespace, *, with_expert: bool) -> SampleResult:
    """Profile, analyse and patch samples/<name> in a scratch copy, then run the variants alternately."""
    with tempfile.TemporaryDirectory(prefix=f"advisor-bench-{name}-") as scratch:
        root = Path(scratch)
        copies = {ORIGINAL: root / ORIGINAL / name, PATCHED: root / PATCHED / name}
        for copy in copies.values():
            copy_repo(SAMPLES / name, copy)
        if with_expert:
            copies[EXPERT] = root / EXPERT / name
            copy_repo(SAMPLES / f"{name}_expert", copies[EXPERT])
        # Enough steps for the capture window and for the measured runs, whatever the script's default.
        length = ["--steps", str(max(CAPTURE_WARMUP + CAPTURE_STEPS, args.warmup + args.steps) + 5)]
        logdir = root / "profile"
        with _stdout_to_stderr():
            capture([sys.executable, str(copies[ORIGINAL] / "train.py"), *length], logdir, CAPTURE_WARMUP,
                    CAPTURE_STEPS, python_tracer=False)
        report = analyze(copies[PATCHED], logdir, Settings())
        fixable = [f for f in report.findings if f.patch is not None]
        applied, _ = apply_in_copy(copies[PATCHED], fixable, report.file_hashes) if fixable else ([], [])
        variants = [Variant(variant, [sys.executable, "train.py", *length], copy) for variant, copy in copies.items()]
        runs = paired_runs(variants, repeats=args.repeats, warmup=args.warmup, steps=args.steps,
                           progress=lambda run: print(f"#   {name} round {run.round + 1} {run.variant}: "
                                                      f"{run.median_ms:.1f} ms/step", file=sys.stderr))
    return SampleResult(name, [f"{f.code} [{f.id}]" for f in applied], predicted_speedup(applied), runs)


@contextmanager
def _stdout_to_stderr():
    """The captured script inherits our stdout and prints Keras' progress bar on it; stdout is for the figures."""
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    try:
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def machine_line() -> str:
    m = machine()
    return f"machine: {m['cores']} cores, load average {m['load_avg_1m']} (1 min), {m['platform']}"
