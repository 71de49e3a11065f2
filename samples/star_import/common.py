"""Settings and data helpers shared by train.py and evaluate.py."""

import numpy as np
import tensorflow as tf
from tensorflow import keras

IMAGE_SIZE = 48
NUM_CLASSES = 10
BATCH_SIZE = 32
LEARNING_RATE = 1e-3


def load_images(count, seed=0):
    rng = np.random.default_rng(seed)
    images = rng.integers(0, 256, size=(count, IMAGE_SIZE + 8, IMAGE_SIZE + 8, 3), dtype=np.uint8)
    labels = rng.integers(0, NUM_CLASSES, size=count)
    return images, labels


def preprocess(image, label):
    image = tf.image.convert_image_dtype(image, tf.float32)
    image = tf.image.resize(image, (IMAGE_SIZE + 16, IMAGE_SIZE + 16), method="bicubic")
    image = tf.image.central_crop(image, IMAGE_SIZE / (IMAGE_SIZE + 16))
    image = tf.image.adjust_contrast(image, 1.2)
    image = tf.image.per_image_standardization(image)
    return image, label


def get_dataset(images, labels, batch_size=BATCH_SIZE):
    options = tf.data.Options()
    # Keep the pipeline exactly as written (no automatic rewrites), so runs compare across TensorFlow versions.
    options.experimental_optimization.apply_default_optimizations = False
    ds = tf.data.Dataset.from_tensor_slices((images, labels))
    ds = ds.map(preprocess)
    ds = ds.batch(batch_size)
    return ds.with_options(options)


def get_eval_dataset(images, labels, batch_size=BATCH_SIZE):
    ds = tf.data.Dataset.from_tensor_slices((images, labels))
    ds = ds.map(preprocess, num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch_size)


def build_model():
    inputs = keras.Input(shape=(IMAGE_SIZE, IMAGE_SIZE, 3))
    x = keras.layers.Conv2D(16, 3, strides=2, activation="relu")(inputs)
    x = keras.layers.Conv2D(32, 3, strides=2, activation="relu")(x)
    x = keras.layers.GlobalAveragePooling2D()(x)
    outputs = keras.layers.Dense(NUM_CLASSES)(x)
    return keras.Model(inputs, outputs)
