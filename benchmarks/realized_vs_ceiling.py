"""Realized vs ceiling: how much of an expert's hand-tuning advisor's fixes deliver, per problem sample.

Run from the repo root (needs TensorFlow; several minutes on 2 cores): ``python benchmarks/realized_vs_ceiling.py
[SAMPLE ...] [--repeats K]``. For each sample the original, advisor's patched version (every fix, unsafe included)
and the expert version beside it (samples/<name>_expert) run alternately; a round's realized ratio is
(speedup of the patched version) / (speedup of the expert version) = expert step time / patched step time.
Target: median >= 0.95.
"""

from __future__ import annotations

from sample_runs import EXPERT, ORIGINAL, PATCHED, arguments, machine_line, measure_sample

from advisor.measure import speedup

TARGET = 0.95


def main() -> None:
    args = arguments(__doc__.splitlines()[0])
    met = 0
    for name in args.samples:
        result = measure_sample(name, args, with_expert=True)
        patched = speedup(result.runs, ORIGINAL, PATCHED)
        expert = speedup(result.runs, ORIGINAL, EXPERT)
        realized = speedup(result.runs, PATCHED, EXPERT)  # per round: patched step time / expert step time
        realized_share = 1 / realized.median
        met += realized_share >= TARGET
        print(f"{name}: patched {patched.median:.2f}x ({patched.min:.2f}-{patched.max:.2f}), expert "
              f"{expert.median:.2f}x ({expert.min:.2f}-{expert.max:.2f}), realized {realized_share:.2f} of the "
              f"ceiling (rounds {1 / realized.max:.2f}-{1 / realized.min:.2f}; target >= {TARGET}) "
              f"fixes: {', '.join(result.fixes) or 'none'}")
    print(f"summary: {met}/{len(args.samples)} samples realize >= {TARGET} of the expert's speedup; {machine_line()}")


if __name__ == "__main__":
    main()
