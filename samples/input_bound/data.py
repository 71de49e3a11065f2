"""Input pipeline for the input-bound sample: an expensive per-image augmentation, mapped serially."""

import numpy as np
import tensorflow as tf

IMAGE_SIZE = 64
NUM_CLASSES = 10


def synthetic_images(count: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    images = rng.integers(0, 256, size=(count, IMAGE_SIZE, IMAGE_SIZE, 3), dtype=np.uint8)
    labels = rng.integers(0, NUM_CLASSES, size=(count,), dtype=np.int64)
    return images, labels


# Reproducible augmentation, as the TF data-augmentation tutorial recommends: one generator, a fresh seed per image.
rng = tf.random.Generator.from_seed(123, alg="philox")


def augment(image, label):
    seed = rng.make_seeds(1)[:, 0]
    image = tf.image.convert_image_dtype(image, tf.float32)
    image = tf.image.resize(image, (IMAGE_SIZE + 16, IMAGE_SIZE + 16), method="bicubic")
    image = tf.image.stateless_random_crop(image, (IMAGE_SIZE, IMAGE_SIZE, 3), seed=seed)
    image = tf.image.stateless_random_flip_left_right(image, seed=seed)
    image = tf.image.stateless_random_brightness(image, 0.2, seed=seed)
    image = tf.image.stateless_random_contrast(image, 0.8, 1.2, seed=seed)
    image = tf.image.stateless_random_saturation(image, 0.8, 1.2, seed=seed)
    return image, label


def make_dataset(images, labels, batch_size: int, training: bool = True):
    ds = tf.data.Dataset.from_tensor_slices((images, labels))
    if training:
        ds = ds.shuffle(1024, seed=0)
    ds = ds.map(augment)
    ds = ds.batch(batch_size)
    return ds
