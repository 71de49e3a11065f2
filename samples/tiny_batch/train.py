"""Keras fit with a batch of 4 on a small model: every step pays Keras' and TensorFlow's fixed per-step overhead
(the step call, callbacks, the progress bar) for very little arithmetic, so most of the step is overhead.

Run: python train.py [--epochs N] [--steps N] [--batch-size N]
"""

import argparse

import numpy as np
import tensorflow as tf
from tensorflow import keras

FEATURES = 32
NUM_CLASSES = 10


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--batch-size", type=int, default=4)
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    x = rng.normal(size=(args.steps * args.batch_size, FEATURES)).astype(np.float32)
    y = rng.integers(0, NUM_CLASSES, size=(len(x),))
    train_ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(args.batch_size).prefetch(tf.data.AUTOTUNE)

    model = keras.Sequential([
        keras.Input(shape=(FEATURES,)),
        keras.layers.Dense(32, activation="relu"),
        keras.layers.Dense(NUM_CLASSES),
    ])
    model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.fit(train_ds, epochs=args.epochs)


if __name__ == "__main__":
    main()
