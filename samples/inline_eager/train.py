"""MNIST-style classifier trained with a hand-written loop (GradientTape), written out inside main().

Run: python train.py [--epochs N] [--steps N] [--batch-size N]
"""

import argparse

import numpy as np
import tensorflow as tf
from tensorflow import keras

IMAGE_SIZE = 28
NUM_CLASSES = 10


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    args = parser.parse_args()

    tf.random.set_seed(0)
    rng = np.random.default_rng(0)
    count = args.steps * args.batch_size
    images = rng.random((count, IMAGE_SIZE, IMAGE_SIZE), dtype=np.float32)
    labels = rng.integers(0, NUM_CLASSES, size=count)
    train_ds = (
        tf.data.Dataset.from_tensor_slices((images, labels))
        .shuffle(4096, seed=0)
        .batch(args.batch_size, drop_remainder=True)
        .prefetch(tf.data.AUTOTUNE)
    )

    model = keras.Sequential([
        keras.Input(shape=(IMAGE_SIZE, IMAGE_SIZE)),
        keras.layers.Flatten(),
        keras.layers.Dense(128, activation="relu"),
        keras.layers.Dropout(0.2),
        keras.layers.Dense(NUM_CLASSES),
    ])
    optimizer = keras.optimizers.Adam(args.learning_rate)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    train_loss = keras.metrics.Mean()
    train_accuracy = keras.metrics.SparseCategoricalAccuracy()

    for epoch in range(args.epochs):
        train_loss.reset_state()
        train_accuracy.reset_state()
        for step, (x, y) in enumerate(train_ds):
            with tf.GradientTape() as tape:
                logits = model(x, training=True)
                loss = loss_fn(y, logits)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            train_loss.update_state(loss)
            train_accuracy.update_state(y, logits)
            if step % 20 == 0:
                print(f"epoch {epoch} step {step}: loss {float(train_loss.result()):.4f}")
        print(f"epoch {epoch}: loss {float(train_loss.result()):.4f}, accuracy {float(train_accuracy.result()):.3f}")


if __name__ == "__main__":
    main()
