"""Keras fit on a small tabular problem with a batch of 2 (the batch size the original experiment was tuned with).
A throttling callback kept from a profiling session is still defined here, but no run registers it any more.

Run: python train.py [--epochs N] [--steps N] [--batch-size N]
"""

import argparse
import time

import numpy as np
import tensorflow as tf
from tensorflow import keras

FEATURES = 16
NUM_CLASSES = 3


class SlowDown(keras.callbacks.Callback):
    """Sleeps after every batch, to imitate a slower machine (kept for profiling sessions)."""

    def __init__(self, seconds=0.02):
        super().__init__()
        self.seconds = seconds

    def on_train_batch_end(self, batch, logs=None):
        time.sleep(self.seconds)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--batch-size", type=int, default=2)
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    x = rng.normal(size=(args.steps * args.batch_size, FEATURES)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int64) + (x[:, 1] > 1).astype(np.int64)
    train_ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(args.batch_size).prefetch(tf.data.AUTOTUNE)

    model = keras.Sequential([
        keras.Input(shape=(FEATURES,)),
        keras.layers.Dense(16, activation="relu"),
        keras.layers.Dense(NUM_CLASSES),
    ])
    model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    model.fit(train_ds, epochs=args.epochs, verbose=2)


if __name__ == "__main__":
    main()
