"""A custom GradientTape loop, eager, with a per-step loss printout and summary.

Run: python train.py [--steps N]
"""

import argparse
import tempfile

import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([
    tf.keras.Input(shape=(12,)),
    tf.keras.layers.Dense(64, activation="relu"),
    tf.keras.layers.Dense(1),
])
optimizer = tf.keras.optimizers.SGD(learning_rate=0.01)


def normalize(x, y):
    return (x - tf.reduce_mean(x)) / (tf.math.reduce_std(x) + 1e-6), y


def train_step(x, y):
    with tf.GradientTape() as tape:
        prediction = model(x, training=True)
        loss = tf.reduce_mean(tf.square(prediction - y))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    x = rng.normal(size=(args.steps * 16, 12)).astype(np.float32)
    y = x.sum(axis=1, keepdims=True)
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).map(normalize).batch(16)
    writer = tf.summary.create_file_writer(tempfile.mkdtemp())
    with writer.as_default():
        for step, (features, targets) in enumerate(dataset):
            loss = train_step(features, targets)
            tf.summary.write("loss", loss, step=step)
            print(f"step {step}: loss {float(loss):.4f}")


if __name__ == "__main__":
    main()
