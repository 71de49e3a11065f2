"""Keras fit with the usual callbacks, plus a per-batch weight-statistics log that is switched on for debugging
runs only (--log-every-batch).

Run: python train.py [--epochs N] [--steps N] [--batch-size N] [--log-every-batch] [--log-dir DIR]
"""

import argparse
import csv
import os
import tempfile
import time

import numpy as np
import tensorflow as tf
from tensorflow import keras

FEATURES = 64
NUM_CLASSES = 10


class WeightStatsLogger(keras.callbacks.Callback):
    """Writes the norm and a histogram of every weight tensor to a CSV file after each batch."""

    def __init__(self, path):
        super().__init__()
        self.path = path

    def on_train_batch_end(self, batch, logs=None):
        row = [batch, float(logs["loss"])]
        for weights in self.model.get_weights():
            counts, _ = np.histogram(weights, bins=32)
            row += [float(np.linalg.norm(weights)), *counts.tolist()]
        with open(self.path, "a", newline="") as f:
            csv.writer(f).writerow(row)
            f.flush()
            os.fsync(f.fileno())


class EpochTimer(keras.callbacks.Callback):
    def on_epoch_begin(self, epoch, logs=None):
        self.start = time.perf_counter()

    def on_epoch_end(self, epoch, logs=None):
        print(f"epoch {epoch} took {time.perf_counter() - self.start:.1f} s")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--log-every-batch", action="store_true")
    parser.add_argument("--log-dir", default=None)
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    x = rng.normal(size=(args.steps * args.batch_size, FEATURES)).astype(np.float32)
    y = rng.integers(0, NUM_CLASSES, size=len(x))
    train_ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(4096, seed=0).batch(args.batch_size)
    train_ds = train_ds.prefetch(tf.data.AUTOTUNE)

    model = keras.Sequential([
        keras.Input(shape=(FEATURES,)),
        keras.layers.Dense(512, activation="relu"),
        keras.layers.Dense(512, activation="relu"),
        keras.layers.Dense(NUM_CLASSES),
    ])
    model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))

    log_dir = args.log_dir or tempfile.mkdtemp()
    callbacks = [EpochTimer(), keras.callbacks.TerminateOnNaN()]
    if args.log_every_batch:
        callbacks.append(WeightStatsLogger(os.path.join(log_dir, "weights.csv")))
    model.fit(train_ds, epochs=args.epochs, callbacks=callbacks)


if __name__ == "__main__":
    main()
