"""samples/input_bound's pipeline tuned by hand: the same augmentation, vectorized over whole batches (batch first,
then one parallel map per batch), with prefetching. Each image still gets its own stateless random seed."""

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


def augment_one(image, seed):
    image = tf.image.stateless_random_crop(image, (IMAGE_SIZE, IMAGE_SIZE, 3), seed=seed)
    image = tf.image.stateless_random_flip_left_right(image, seed=seed)
    image = tf.image.stateless_random_brightness(image, 0.2, seed=seed)
    image = tf.image.stateless_random_contrast(image, 0.8, 1.2, seed=seed)
    return tf.image.stateless_random_saturation(image, 0.8, 1.2, seed=seed)


def augment_batch(images, labels, seeds):
    # Dtype conversion and resize run once per batch; vectorized_map turns the per-image random ops into batched
    # ops (it loops only over ops it cannot vectorize).
    images = tf.image.convert_image_dtype(images, tf.float32)
    images = tf.image.resize(images, (IMAGE_SIZE + 16, IMAGE_SIZE + 16), method="bicubic")
    images = tf.vectorized_map(lambda args: augment_one(*args), (images, seeds))
    return images, labels


def make_dataset(images, labels, batch_size: int, training: bool = True):
    seeds = tf.random.experimental.stateless_split([123, 0], num=len(images))
    ds = tf.data.Dataset.from_tensor_slices((images, labels, seeds))
    if training:
        ds = ds.shuffle(1024, seed=0)
    ds = ds.batch(batch_size)
    ds = ds.map(augment_batch, num_parallel_calls=AUTOTUNE)
    return ds.prefetch(AUTOTUNE)
