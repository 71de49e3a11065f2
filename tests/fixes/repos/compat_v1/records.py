"""TFRecord input written for TF1 and run through tensorflow.compat.v1, as many research repos still are."""

import numpy as np
import tensorflow.compat.v1 as tf

FEATURES = {"x": tf.FixedLenFeature([8], tf.float32), "y": tf.FixedLenFeature([], tf.int64)}


def write_records(path, count):
    rng = np.random.default_rng(0)
    with tf.io.TFRecordWriter(path) as writer:
        for _ in range(count):
            example = tf.train.Example(features=tf.train.Features(feature={
                "x": tf.train.Feature(float_list=tf.train.FloatList(value=rng.normal(size=8))),
                "y": tf.train.Feature(int64_list=tf.train.Int64List(value=[int(rng.integers(0, 4))])),
            }))
            writer.write(example.SerializeToString())


def parse(record):
    example = tf.parse_single_example(record, FEATURES)
    return tf.to_float(example["x"]), example["y"]


def jitter(x, y):
    noisy = tf.py_func(lambda values: values + np.float32(0.01), [x], tf.float32)
    noisy.set_shape([8])
    return noisy, y


def input_fn(path, batch_size):
    dataset = tf.data.TFRecordDataset(path)
    dataset = dataset.map(parse)
    dataset = dataset.map(
        jitter
    )
    return dataset.repeat().batch(batch_size)
