"""samples/io_bound tuned by hand: reads are waits, not work, so an expert issues many at once (more than the
cores: AUTOTUNE caps a map's parallelism at the CPU budget) and prefetches batches. Same data, same order.
Run: python train.py [--epochs N] [--steps N] [--batch-size N]
"""

import argparse
import time

import numpy as np
import tensorflow as tf
from tensorflow import keras

FEATURES = 64
NUM_CLASSES = 10
READ_LATENCY_S = 0.001


def read_record(index):
    time.sleep(READ_LATENCY_S)  # the storage round trip
    rng = np.random.default_rng(int(index))
    return rng.normal(size=FEATURES).astype(np.float32), np.int64(index % NUM_CLASSES)


def load(index):
    features, label = tf.numpy_function(read_record, [index], [tf.float32, tf.int64])
    features.set_shape((FEATURES,))
    label.set_shape(())
    return features, label


def make_dataset(count, batch_size):
    ds = tf.data.Dataset.range(count)
    ds = ds.map(load, num_parallel_calls=16)  # 16 reads in flight; deterministic order is kept
    return ds.batch(batch_size).prefetch(tf.data.AUTOTUNE)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--batch-size", type=int, default=32)
    args = parser.parse_args()

    tf.random.set_seed(0)
    model = keras.Sequential([
        keras.Input(shape=(FEATURES,)),
        keras.layers.Dense(128, activation="relu"),
        keras.layers.Dense(NUM_CLASSES),
    ])
    model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.fit(make_dataset(args.steps * args.batch_size, args.batch_size), epochs=args.epochs)


if __name__ == "__main__":
    main()
