"""Keras' whole-dataset methods against their one-batch methods on one sample, in one run (the basis of TFH007).

A reinforcement-learning agent that calls `model.predict(state[np.newaxis])` to act and `model.fit(state, target)`
per replayed transition pays each call's set-up (an iterator over the data, the callbacks, a progress bar) for one
row of work. This times, alternating rounds and taking medians, a small Keras MLP (the DQN shape: 4 -> 24 -> 24 -> 2)
on one sample:
- predict(x, verbose=0) against predict_on_batch(x), and calling the model, model(x, training=False);
- fit(x, y, epochs=1, verbose=0) against train_on_batch(x, y).
It prints each median in milliseconds and the ratios whole-dataset / one-batch.

Run: python benchmarks/keras_call_overhead.py [--calls 100] [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=100, help="calls timed per round and method")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds; the median round is reported")
    args = parser.parse_args()

    import keras
    import numpy as np

    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(24, activation="relu"),
                              keras.layers.Dense(24, activation="relu"), keras.layers.Dense(2)])
    model.compile(optimizer="adam", loss="mse")
    x, y = np.zeros((1, 4), "float32"), np.zeros((1, 2), "float32")
    methods = {
        "predict": lambda: model.predict(x, verbose=0),
        "predict_on_batch": lambda: model.predict_on_batch(x),
        "model(x)": lambda: model(x, training=False),
        "fit": lambda: model.fit(x, y, epochs=1, verbose=0),
        "train_on_batch": lambda: model.train_on_batch(x, y),
    }
    for call in methods.values():  # traced and warmed before timing
        call(), call()
    times: dict[str, list[float]] = {name: [] for name in methods}
    for _ in range(args.rounds):
        for name, call in methods.items():
            start = time.perf_counter()
            for _ in range(args.calls):
                call()
            times[name].append((time.perf_counter() - start) / args.calls * 1e3)
    median = {name: statistics.median(values) for name, values in times.items()}
    for name, value in median.items():
        print(f"{name:>17}: {value:7.2f} ms a call (median of {args.rounds} rounds of {args.calls})")
    print(f"predict / predict_on_batch: {median['predict'] / median['predict_on_batch']:.0f}x; "
          f"predict / model(x): {median['predict'] / median['model(x)']:.0f}x; "
          f"fit / train_on_batch: {median['fit'] / median['train_on_batch']:.0f}x")


if __name__ == "__main__":
    main()
