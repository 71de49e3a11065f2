"""`advisor verify --each` on every problem sample: per fix and for all of them together, the measured interval,
the prediction, whether the measurement fell inside it, and the prediction error.

Run from the repo root (needs TensorFlow; 10-30 minutes per sample on a loaded 2-core machine):
``python benchmarks/verify_samples.py [SAMPLE ...] [--warmup W --steps S] [--max-rounds N] [--output FILE]``.
Each sample is copied, analysed with its profile (sample_runs.py), and verified with every fix, unsafe included:
``advisor verify --each --all --unsafe-fixes``. Prediction error = |predicted midpoint - measured| / measured, on
the wall time per step (what predictions are of); target <= 20% for the fixes together.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from sample_runs import advisor, analysed_copy, arguments, machine_line, script_steps

TARGET = 0.20


def describe(record: dict) -> str:
    measured, wall, predicted = record["measured_speedup"], record["wall_speedup"], record["predicted"]
    if record["error"]:
        return f"failed: {record['error'].splitlines()[-1]}"
    text = f"{measured['verdict']} {_interval(measured)} on {measured['figure']}"
    if measured["figure"] != wall["figure"]:
        text += f", wall {_interval(wall)}"
    if predicted is not None:
        text += (f"; predicted {predicted['low']:.2f}-{predicted['high']:.2f}x, "
                 f"{'inside' if record['inside'] else 'outside'}, error {record['prediction_error']:.0%}")
    if record["code_ran"] is False:
        text += "; its code never ran"
    parity = record["parity"]
    if parity["ok"] is not None:
        text += f"; loss diff {parity['max_rel_loss_diff']:.1e}{'' if parity['ok'] else ' DIVERGES'}"
    return text


def _interval(estimate: dict) -> str:
    interval = f" ({estimate['low']:.2f}-{estimate['high']:.2f})" if estimate["low"] is not None else ""
    return f"{estimate['median']:.2f}x{interval} [{estimate['rounds']} rounds]"


def main() -> None:
    args = arguments(__doc__.splitlines()[0])
    met = measured = 0
    for name in args.samples:
        with tempfile.TemporaryDirectory(prefix=f"advisor-bench-{name}-") as scratch:
            copy = analysed_copy(name, Path(scratch) / name, args)
            done = advisor("verify", "--each", "--all", "--unsafe-fixes", "--format", "json",
                           "--warmup", str(args.warmup), "--steps", str(args.steps),
                           "--min-rounds", str(args.min_rounds), "--max-rounds", str(args.max_rounds),
                           "--precision", str(args.precision), "--confidence", str(args.confidence),
                           "--", sys.executable, "train.py", *script_steps(args), cwd=copy)
        if not done.stdout:
            print(f"{name}: verify failed (exit {done.returncode}); see its error above")
            continue
        result = json.loads(done.stdout)
        together, *alone = result["verifications"]
        m = result["machine"]
        print(f"{name}: {result['rounds']} rounds, {m['cores']} cores, load {m['load_avg_1m_start']} -> "
              f"{m['load_avg_1m_end']}")
        for record in result["verifications"]:
            label = "together" if record is together and alone else "alone"
            print(f"  {label} {', '.join(record['codes'])}: {describe(record)}")
        if together["prediction_error"] is not None:
            measured += 1
            met += together["prediction_error"] <= TARGET
        if args.output:
            with args.output.open("a") as out:
                out.write(json.dumps({"sample": name, "warmup": args.warmup, "steps": args.steps, **result}) + "\n")
    print(f"summary: {met}/{measured} samples within {TARGET:.0%} prediction error (all fixes together); "
          f"{machine_line()}")


if __name__ == "__main__":
    main()
