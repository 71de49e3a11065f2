"""Activity recognition on synthetic accelerometer windows, with the input pipeline picked by a flag (the way an
experiment script keeps every loader it was tried with):

  --pipeline serial     band energies in TensorFlow ops, with random gain and noise
  --pipeline pyfunc     band energies computed in Python, through tf.py_function
  --pipeline numpyfunc  the same Python features, through tf.numpy_function
  --pipeline io         precomputed features read back from .npy files on (slow) network storage

Run: python train.py [--pipeline NAME] [--epochs N] [--steps N] [--batch-size N]
"""

import argparse
import os
import tempfile
import time

import numpy as np
import tensorflow as tf
from tensorflow import keras

WINDOW = 2048  # samples per window
BANDS = 32  # features per window: the mean energy of each of BANDS equal slices
NUM_CLASSES = 6
STORAGE_LATENCY_S = 0.002  # one round trip to the file server


def synthetic_windows(count, seed=0):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, NUM_CLASSES, size=count)
    windows = rng.normal(size=(count, WINDOW)) * (1 + labels[:, None] / NUM_CLASSES)
    return windows.astype(np.float32), labels


def band_energies(window):
    """Mean squared amplitude of each band, written as a plain loop."""
    samples = window.tolist()
    width = len(samples) // BANDS
    energies = []
    for band in range(BANDS):
        total = 0.0
        for value in samples[band * width:(band + 1) * width]:
            total += value * value
        energies.append(total / width)
    return np.array(energies, dtype=np.float32)


def py_features(window, label):
    features = tf.py_function(lambda w: band_energies(w.numpy()), [window], tf.float32)
    features.set_shape((BANDS,))
    return features, label


def np_features(window, label):
    features = tf.numpy_function(band_energies, [window], tf.float32)
    features.set_shape((BANDS,))
    return features, label


def augmented_features(window, label):
    gain = tf.random.uniform([], 0.8, 1.2)
    noisy = window * gain + tf.random.normal(tf.shape(window), stddev=0.1)
    energies = tf.reduce_mean(tf.reshape(noisy, (BANDS, -1)) ** 2, axis=1)
    return energies, label


def write_shards(directory, count):
    """Stores each window's features and label in its own file, as the feature-extraction job left them."""
    windows, labels = synthetic_windows(count)
    for index, (window, label) in enumerate(zip(windows, labels)):
        np.save(os.path.join(directory, f"{index:06d}.npy"), np.append(band_energies(window), label))


def read_shard(path):
    time.sleep(STORAGE_LATENCY_S)
    record = np.load(path.decode())
    return record[:BANDS].astype(np.float32), record[BANDS].astype(np.int64)


def load_shard(path):
    features, label = tf.numpy_function(read_shard, [path], [tf.float32, tf.int64])
    features.set_shape((BANDS,))
    label.set_shape(())
    return features, label


def make_dataset(pipeline, count, batch_size, shard_dir):
    if pipeline == "io":
        write_shards(shard_dir, count)
        ds = tf.data.Dataset.list_files(os.path.join(shard_dir, "*.npy"), seed=0)
        ds = ds.map(load_shard)
    else:
        windows, labels = synthetic_windows(count)
        ds = tf.data.Dataset.from_tensor_slices((windows, labels))
        if pipeline == "serial":
            ds = ds.map(augmented_features)
        elif pipeline == "pyfunc":
            ds = ds.map(py_features)
        else:
            ds = ds.map(np_features)
    return ds.batch(batch_size)


def build_model():
    return keras.Sequential([
        keras.Input(shape=(BANDS,)),
        keras.layers.Normalization(mean=1.5, variance=1.0),
        keras.layers.Dense(128, activation="relu"),
        keras.layers.Dense(128, activation="relu"),
        keras.layers.Dense(NUM_CLASSES),
    ])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pipeline", choices=["serial", "pyfunc", "numpyfunc", "io"], default="serial")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--batch-size", type=int, default=32)
    args = parser.parse_args()

    tf.random.set_seed(0)
    with tempfile.TemporaryDirectory() as shard_dir:
        train_ds = make_dataset(args.pipeline, args.steps * args.batch_size, args.batch_size, shard_dir)
        model = build_model()
        model.compile(
            optimizer="adam",
            loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
            metrics=["accuracy"],
        )
        model.fit(train_ds, epochs=args.epochs)


if __name__ == "__main__":
    main()
