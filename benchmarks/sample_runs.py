"""What the sample benchmarks share: each problem sample copied, profiled and analysed the way a user would
(``advisor profile``, ``advisor analyze``; the committed capture in samples/profiles/ when there is one, so the
findings do not depend on the load during a fresh capture), and the command-line options of the measurement.

Nothing in samples/ is written: captures, copies and patched files live in a temporary directory.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from advisor.measure import StoppingRule, load_average, machine  # noqa: E402

SAMPLES = REPO / "samples"
PROFILES = SAMPLES / "profiles"
# The problem samples that have an expert version beside them (samples/<name>_expert).
PROBLEM_SAMPLES = ("input_bound", "io_bound", "slow_callback", "custom_loop")
CAPTURE_WARMUP, CAPTURE_STEPS = 10, 20


def arguments(description: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("samples", nargs="*", default=list(PROBLEM_SAMPLES))
    parser.add_argument("--warmup", type=int, default=5, help="steps discarded at the start of each run")
    parser.add_argument("--steps", type=int, default=50, help="steps measured per run")
    parser.add_argument("--min-rounds", type=int, default=StoppingRule.min_rounds)
    parser.add_argument("--max-rounds", type=int, default=StoppingRule.max_rounds)
    parser.add_argument("--precision", type=float, default=StoppingRule.precision)
    parser.add_argument("--confidence", type=float, default=StoppingRule.confidence)
    parser.add_argument("--output", type=Path, help="also append every result, as JSON lines, to this file")
    return parser.parse_args()


def stopping_rule(args: argparse.Namespace) -> StoppingRule:
    return StoppingRule(args.min_rounds, args.max_rounds, args.precision, args.confidence)


def script_steps(args: argparse.Namespace) -> list[str]:
    """The sample script's own --steps: enough for the measured runs and the capture, whatever its default."""
    return ["--steps", str(max(CAPTURE_WARMUP + CAPTURE_STEPS, args.warmup + args.steps) + 5)]


def advisor(*arguments: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``advisor ARGS`` as a user runs it; its stderr (progress, Keras' output) passes through to ours."""
    return subprocess.run([sys.executable, "-m", "advisor", *arguments], cwd=cwd, stdout=subprocess.PIPE,
                          text=True, check=False)


def analysed_copy(name: str, destination: Path, args: argparse.Namespace) -> Path:
    """samples/<name> copied to ``destination`` and analysed with its committed capture, or a fresh one."""
    shutil.copytree(SAMPLES / name, destination, ignore=shutil.ignore_patterns(".advisor", "__pycache__"))
    logdir = PROFILES / name
    if not logdir.is_dir():
        logdir = destination.parent / f"{name}-profile"
        done = advisor("profile", "--warmup", str(CAPTURE_WARMUP), "--steps", str(CAPTURE_STEPS), "--logdir",
                       str(logdir), "--", sys.executable, "train.py", *script_steps(args), cwd=destination)
        if done.returncode != 0:
            raise SystemExit(f"{name}: the capture failed")
    advisor("analyze", str(destination), str(logdir), "--exit-zero")
    return destination


def machine_line() -> str:
    m = machine()
    return f"machine: {m['cores']} cores, load average {load_average()} (1 min) at the end, {m['platform']}"
