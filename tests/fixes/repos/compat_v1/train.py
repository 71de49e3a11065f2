"""Keras training on the compat.v1 input function.

Run: python train.py [--steps N]
"""

import argparse
import os
import tempfile

import tensorflow as tf

from records import input_fn, write_records


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()

    path = os.path.join(tempfile.mkdtemp(), "train.tfrecord")
    write_records(path, 64)
    model = tf.keras.Sequential([
        tf.keras.Input(shape=(8,)),
        tf.keras.layers.Dense(30, activation="relu"),
        tf.keras.layers.Dense(4),
    ])
    model.compile(optimizer="adam", loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.fit(input_fn(path, 16), epochs=1, steps_per_epoch=args.steps)


if __name__ == "__main__":
    main()
