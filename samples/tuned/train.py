"""The input-bound sample done right: vectorized parallel augmentation (batch first, then map), prefetching.

Run: python train.py [--epochs N] [--steps N]
"""

import argparse

import numpy as np
import tensorflow as tf
from tensorflow import keras

IMAGE_SIZE = 64
NUM_CLASSES = 10
AUTOTUNE = tf.data.AUTOTUNE


def augment(image, label):
    # Runs on a whole batch: one op call per batch instead of one per image (tf.data guide: "vectorize").
    image = tf.image.convert_image_dtype(image, tf.float32)
    image = tf.image.resize(image, (IMAGE_SIZE + 16, IMAGE_SIZE + 16), method="bicubic")
    image = tf.image.random_crop(image, (tf.shape(image)[0], IMAGE_SIZE, IMAGE_SIZE, 3))
    image = tf.image.random_flip_left_right(image)
    image = tf.image.random_brightness(image, 0.2)
    image = tf.image.random_contrast(image, 0.8, 1.2)
    image = tf.image.random_saturation(image, 0.8, 1.2)
    return image, label


def make_dataset(images, labels, batch_size):
    return (
        tf.data.Dataset.from_tensor_slices((images, labels))
        .shuffle(1024, seed=0)
        .batch(batch_size)
        .map(augment, num_parallel_calls=AUTOTUNE)
        .prefetch(AUTOTUNE)
    )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args()

    tf.random.set_seed(0)
    rng = np.random.default_rng(0)
    count = args.steps * args.batch_size
    images = rng.integers(0, 256, size=(count, IMAGE_SIZE, IMAGE_SIZE, 3), dtype=np.uint8)
    labels = rng.integers(0, NUM_CLASSES, size=(count,), dtype=np.int64)

    inputs = keras.Input(shape=(IMAGE_SIZE, IMAGE_SIZE, 3))
    x = keras.layers.Conv2D(16, 3, strides=2, activation="relu")(inputs)
    x = keras.layers.Conv2D(32, 3, strides=2, activation="relu")(x)
    x = keras.layers.GlobalAveragePooling2D()(x)
    outputs = keras.layers.Dense(NUM_CLASSES)(x)
    model = keras.Model(inputs, outputs)
    model.compile(
        optimizer="adam",
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    model.fit(make_dataset(images, labels, args.batch_size), epochs=args.epochs)


if __name__ == "__main__":
    main()
