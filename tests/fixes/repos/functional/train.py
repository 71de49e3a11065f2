"""A functional Keras model built by a builder that calls a per-layer helper, with an input pipeline written one
call per line.

Run: python train.py [--steps N]
"""

import argparse

import numpy as np
import tensorflow as tf
from tensorflow.keras import layers


def conv_block(x, filters, downsample):
    if downsample:
        x = layers.Conv2D(filters, 3, strides=2, padding="same")(x)
    return layers.Conv2D(filters, 3, padding="same", activation="relu")(x)


def build_model(classes):
    """The classifier."""
    inputs = tf.keras.Input(shape=(16, 16, 3))
    x = layers.Dense(16)(inputs)
    x = conv_block(x, 16, downsample=True)
    x = layers.GlobalAveragePooling2D()(x)
    outputs = layers.Dense(classes, activation="softmax")(x)
    return tf.keras.Model(inputs, outputs)


def augment(image, label):
    return tf.image.random_flip_left_right(image), label


def make_dataset(images, labels, batch_size):
    dataset = tf.data.Dataset.from_tensor_slices((images, labels))
    dataset = dataset.map(
        augment,
        deterministic=False,
    )
    dataset = dataset.batch(
        batch_size,
        drop_remainder=True
    )
    return dataset


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    images = rng.normal(size=(args.steps * 8, 16, 16, 3)).astype(np.float32)
    labels = rng.integers(0, 10, size=len(images))
    model = build_model(10)
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    model.fit(make_dataset(images, labels, 8), epochs=1)


if __name__ == "__main__":
    main()
