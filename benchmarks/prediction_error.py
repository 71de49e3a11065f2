"""Prediction error: how far advisor's predicted speedup is from the measured one, per problem sample.

Run from the repo root (needs TensorFlow; a few minutes on 2 cores): ``python benchmarks/prediction_error.py
[SAMPLE ...] [--repeats K]``. Each sample is profiled and analysed, every fix applied (unsafe included), and the
original and patched versions run alternately. Error = |predicted midpoint - measured median| / measured median,
the prediction of several fixes combined by advisor.speedup.combine. Target: <= 20%.
"""

from __future__ import annotations

from sample_runs import ORIGINAL, PATCHED, arguments, machine_line, measure_sample

from advisor.measure import speedup

TARGET = 0.20


def main() -> None:
    args = arguments(__doc__.splitlines()[0])
    met = measured_count = 0
    for name in args.samples:
        result = measure_sample(name, args, with_expert=False)
        if result.predicted is None:
            print(f"{name}: no fix with a predicted speedup; nothing to compare")
            continue
        measured = speedup(result.runs, ORIGINAL, PATCHED)
        predicted = result.predicted
        error = abs(predicted.midpoint - measured.median) / measured.median
        inside = predicted.low <= measured.median <= predicted.high
        measured_count += 1
        met += error <= TARGET
        print(f"{name}: predicted {predicted.low:.2f}-{predicted.high:.2f}x (midpoint {predicted.midpoint:.2f}), "
              f"measured {measured.median:.2f}x ({measured.min:.2f}-{measured.max:.2f}), error {error:.0%} "
              f"(target <= {TARGET:.0%}), {'inside' if inside else 'outside'} the range; "
              f"fixes: {', '.join(result.fixes)}")
    print(f"summary: {met}/{measured_count} samples within {TARGET:.0%} prediction error; {machine_line()}")


if __name__ == "__main__":
    main()
