"""A tutorial-style custom training loop whose train_step runs eagerly, op by op, from Python.

The input pipeline is already tuned (parallel map, prefetch), so the one problem left is the step itself: without
`tf.function` every op of the forward pass, the gradient and the optimizer update is dispatched from Python.
samples/eager_loop_tuned is the same program with the step compiled.

Run: python train.py [--epochs N] [--steps N] [--batch-size N]
Prints the loss of every step (after the loop, so printing costs no host sync inside it) and the time per epoch.
"""

import argparse
import time

import numpy as np
import tensorflow as tf

FEATURES = 64
NUM_CLASSES = 10
AUTOTUNE = tf.data.AUTOTUNE


def scale(features, label):
    return features * 0.5, label


def make_dataset(num_examples, batch_size):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(num_examples, FEATURES)).astype(np.float32)
    y = rng.integers(0, NUM_CLASSES, size=(num_examples,))
    return (
        tf.data.Dataset.from_tensor_slices((x, y))
        .map(scale, num_parallel_calls=AUTOTUNE)
        .batch(batch_size, drop_remainder=True)
        .prefetch(AUTOTUNE)
    )


tf.keras.utils.set_random_seed(0)
model = tf.keras.Sequential([
    tf.keras.layers.Input(shape=(FEATURES,)),
    tf.keras.layers.Dense(64, activation="relu"),
    tf.keras.layers.Dense(64, activation="relu"),
    tf.keras.layers.Dense(NUM_CLASSES),
])
optimizer = tf.keras.optimizers.Adam(1e-3)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def train_step(features, labels):
    with tf.GradientTape() as tape:
        logits = model(features, training=True)
        loss = loss_fn(labels, logits)
    gradients = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    return loss


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--batch-size", type=int, default=32)
    args = parser.parse_args()

    dataset = make_dataset(args.steps * args.batch_size, args.batch_size)
    for epoch in range(args.epochs):
        start = time.perf_counter()
        losses = []
        for features, labels in dataset:
            losses.append(train_step(features, labels))
        elapsed = time.perf_counter() - start
        print(f"epoch {epoch}: {elapsed:.3f} s, {1000 * elapsed / len(losses):.2f} ms/step")
        print("losses", " ".join(f"{float(loss):.6f}" for loss in losses))


if __name__ == "__main__":
    main()
