"""samples/input_bound's pipeline tuned by hand: the same augmentation, vectorized over whole batches (batch first,
then one parallel map per batch), with prefetching."""

import numpy as np
import tensorflow as tf

IMAGE_SIZE = 64
NUM_CLASSES = 10
AUTOTUNE = tf.data.AUTOTUNE


def synthetic_images(count: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    images = rng.integers(0, 256, size=(count, IMAGE_SIZE, IMAGE_SIZE, 3), dtype=np.uint8)
    labels = rng.integers(0, NUM_CLASSES, size=(count,), dtype=np.int64)
    return images, labels


def augment_batch(images, labels):
    """The input_bound augmentation as whole-batch ops: one kernel call per batch instead of one per image.

    Crop offsets are drawn per batch; flips, brightness, contrast and saturation per image (saturation as a blend
    with the grey image, which matches HSV saturation scaling closely and vectorizes)."""
    batch = tf.shape(images)[0]
    per_image = lambda low, high: tf.random.uniform([batch, 1, 1, 1], low, high)  # noqa: E731
    images = tf.image.convert_image_dtype(images, tf.float32)
    images = tf.image.resize(images, (IMAGE_SIZE + 16, IMAGE_SIZE + 16), method="bicubic")
    images = tf.image.random_crop(images, (batch, IMAGE_SIZE, IMAGE_SIZE, 3))
    images = tf.image.random_flip_left_right(images)
    images = images + per_image(-0.2, 0.2)
    mean = tf.reduce_mean(images, axis=(1, 2, 3), keepdims=True)
    images = (images - mean) * per_image(0.8, 1.2) + mean
    grey = tf.image.rgb_to_grayscale(images)
    images = grey + (images - grey) * per_image(0.8, 1.2)
    return images, labels


def make_dataset(images, labels, batch_size: int, training: bool = True):
    ds = tf.data.Dataset.from_tensor_slices((images, labels))
    if training:
        ds = ds.shuffle(1024, seed=0)
    ds = ds.batch(batch_size)
    ds = ds.map(augment_batch, num_parallel_calls=AUTOTUNE)
    return ds.prefetch(AUTOTUNE)
