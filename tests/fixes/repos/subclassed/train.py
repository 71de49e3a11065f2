"""A subclassed Keras model trained with fit.

Run: python train.py [--steps N]
"""

import argparse

import numpy as np
import tensorflow as tf


class Classifier(tf.keras.Model):
    def __init__(self, classes):
        super().__init__()
        self.features = tf.keras.layers.Conv2D(30, 3, activation="relu")
        self.pool = tf.keras.layers.GlobalAveragePooling2D()
        self.head = tf.keras.layers.Dense(classes)

    def call(self, images, training=False):
        hidden = self.pool(self.features(images))
        return self.head(hidden)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    images = rng.normal(size=(args.steps * 8, 16, 16, 3)).astype(np.float32)
    labels = rng.integers(0, 10, size=len(images))
    dataset = tf.data.Dataset.from_tensor_slices((images, labels)).shuffle(64).batch(8)
    model = Classifier(10)
    model.compile(optimizer=tf.keras.optimizers.Adam(1e-3),
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.fit(dataset, epochs=1)


if __name__ == "__main__":
    main()
