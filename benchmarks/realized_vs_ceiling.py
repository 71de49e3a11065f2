"""Realized vs ceiling: how much of an expert's hand-tuning advisor's fixes deliver, and what each of the expert's
changes contributes (ablation), per problem sample.

Run from the repo root (needs TensorFlow; 20-40 minutes per sample on a loaded 2-core machine):
``python benchmarks/realized_vs_ceiling.py [SAMPLE ...] [--warmup W --steps S] [--max-rounds N]``.
The original, advisor's patched version (every fix, unsafe included: ``advisor apply --all --unsafe-fixes``), the
expert version beside the sample (samples/<name>_expert) and the expert version with one of its changes undone
(ABLATIONS) run in alternating rounds (advisor/measure.py) until every interval is settled or --max-rounds.
Realized = (speedup of the patched version) / (speedup of the expert) = expert step time / patched step time, per
round; target: median >= 0.95.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path

from sample_runs import SAMPLES, advisor, analysed_copy, arguments, machine_line, script_steps, stopping_rule

from advisor.measure import STEP, Estimate, Variant, alternate, estimate

TARGET = 0.95
ORIGINAL, PATCHED, EXPERT = "original", "advisor", "expert"
# What each expert did, undone one change at a time: variant name -> (file, text of the expert, text instead).
ABLATIONS = {
    "input_bound": {
        "expert, serial map": [("data.py", "ds.map(augment_batch, num_parallel_calls=AUTOTUNE)",
                                "ds.map(augment_batch)")],
        "expert, no prefetch": [("data.py", "return ds.prefetch(AUTOTUNE)", "return ds")],
    },
    "io_bound": {
        "expert, AUTOTUNE reads": [("train.py", "num_parallel_calls=16", "num_parallel_calls=tf.data.AUTOTUNE")],
        "expert, no prefetch": [("train.py", ".prefetch(tf.data.AUTOTUNE)", "")],
    },
    "custom_loop": {
        "expert, eager step": [("train.py", "@tf.function\ndef train_step", "def train_step")],
        "expert, serial map, no prefetch": [
            ("train.py", "ds.map(tf_normalize, num_parallel_calls=tf.data.AUTOTUNE)", "ds.map(tf_normalize)"),
            ("train.py", "ds.batch(batch_size).prefetch(tf.data.AUTOTUNE)", "ds.batch(batch_size)")],
        "expert, py_function normalization": [("train.py", '''def tf_normalize(features, label):
    mean = tf.reduce_mean(features)
    std = tf.math.reduce_std(features)
    return (features - mean) / (std + 1e-6), label''', '''def normalize(features, label):
    features = features.numpy()
    features = (features - features.mean()) / (features.std() + 1e-6)
    return features.astype(np.float32), label


def tf_normalize(features, label):
    features, label = tf.py_function(normalize, [features, label], [tf.float32, tf.int64])
    features.set_shape((FEATURES,))
    label.set_shape(())
    return features, label''')],
    },
    "slow_callback": {
        # One batch per call: the logger then records every batch, without the fsync.
        "expert, one batch per call": [("train.py", ",\n                  steps_per_execution=LOG_EVERY)", ")")],
    },
}


def ablated_copy(expert: Path, destination: Path, edits: list[tuple[str, str, str]]) -> Path:
    shutil.copytree(expert, destination)
    for file, old, new in edits:
        text = (destination / file).read_text()
        if old not in text:
            raise SystemExit(f"ablation of {expert.name}: {old!r} is not in {file} any more; update ABLATIONS")
        (destination / file).write_text(text.replace(old, new))
    return destination


def show(estimate_: Estimate) -> str:
    interval = estimate_.interval
    between = f" ({interval[0]:.2f}-{interval[1]:.2f})" if interval else ""
    return f"{estimate_.median:.2f}x{between} {estimate_.verdict}"


def main() -> None:
    args = arguments(__doc__.splitlines()[0])
    met = 0
    for name in args.samples:
        with tempfile.TemporaryDirectory(prefix=f"advisor-bench-{name}-") as scratch:
            root = Path(scratch)
            copies = {ORIGINAL: root / ORIGINAL / name, PATCHED: analysed_copy(name, root / PATCHED / name, args)}
            shutil.copytree(SAMPLES / name, copies[ORIGINAL])
            applied = advisor("apply", "--all", "--unsafe-fixes", "--repo", str(copies[PATCHED]))
            if applied.returncode != 0:
                raise SystemExit(f"{name}: advisor apply failed (exit {applied.returncode})")
            fixes = [line for line in applied.stdout.splitlines() if line.startswith("applied")]
            expert = SAMPLES / f"{name}_expert"
            copies[EXPERT] = root / EXPERT / name
            shutil.copytree(expert, copies[EXPERT])
            for index, (ablation, edits) in enumerate(ABLATIONS.get(name, {}).items()):
                copies[ablation] = ablated_copy(expert, root / f"ablation{index}" / name, edits)
            variants = [Variant(v, [sys.executable, "train.py", *script_steps(args)], c) for v, c in copies.items()]
            rule = stopping_rule(args)
            runs, failures = alternate(variants, ORIGINAL, {v.name: STEP for v in variants[1:]}, rule,
                                       warmup=args.warmup, steps=args.steps,
                                       progress=lambda run: print(f"#   {name} round {run.round + 1} {run.variant}: "
                                                                  f"{run.median_ms:.1f} ms/step", file=sys.stderr))
        speedups = {v.name: estimate(runs, ORIGINAL, v.name, STEP, rule.confidence)
                    for v in variants[1:] if v.name not in failures}
        realized = estimate(runs, PATCHED, EXPERT, STEP, rule.confidence).inverse()
        met += realized.median >= TARGET
        print(f"{name}: realized {show(realized)} of the expert's speedup (target >= {TARGET}); "
              f"{len(speedups[EXPERT].ratios)} rounds; fixes: {'; '.join(fixes) or 'none'}")
        for variant, speedup in speedups.items():
            print(f"  {variant}: {show(speedup)}")
        for variant, failure in failures.items():
            print(f"  {variant}: FAILED {failure.splitlines()[-1]}")
        if args.output:
            with args.output.open("a") as out:
                out.write(json.dumps({"sample": name, "realized": realized.to_json(), "fixes": fixes,
                                      "speedups": {k: v.to_json() for k, v in speedups.items()},
                                      "failures": failures, "runs": [r.to_json() for r in runs]}) + "\n")
    print(f"summary: {met}/{len(args.samples)} samples realize >= {TARGET} of the expert's speedup; {machine_line()}")


if __name__ == "__main__":
    main()
