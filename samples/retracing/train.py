"""A compiled training step that retraces: the loop passes its Python step counter to the tf.function (a new
trace every step), and the pipeline pads each batch to its own longest sequence (a new shape per length).

Run: python train.py [--steps N]
Prints how many times the step was traced and the time per step.
"""

import argparse
import time

import numpy as np
import tensorflow as tf

VOCAB = 1000
NUM_CLASSES = 4
AUTOTUNE = tf.data.AUTOTUNE


def make_dataset(num_examples, batch_size):
    rng = np.random.default_rng(0)
    lengths = rng.integers(5, 60, size=num_examples)
    sequences = [rng.integers(1, VOCAB, size=n) for n in lengths]
    labels = rng.integers(0, NUM_CLASSES, size=num_examples)
    ds = tf.data.Dataset.from_generator(
        lambda: zip(sequences, labels),
        output_signature=(tf.TensorSpec((None,), tf.int64), tf.TensorSpec((), tf.int64)),
    )
    return ds.padded_batch(batch_size, drop_remainder=True).prefetch(AUTOTUNE)


tf.keras.utils.set_random_seed(0)
model = tf.keras.Sequential([
    tf.keras.layers.Embedding(VOCAB, 32),
    tf.keras.layers.GlobalAveragePooling1D(),
    tf.keras.layers.Dense(NUM_CLASSES),
])
optimizer = tf.keras.optimizers.Adam(1e-3)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
traces = []


@tf.function
def train_step(tokens, labels, step):
    traces.append(step)  # Python: runs once per trace, which is what this sample counts
    with tf.GradientTape() as tape:
        loss = loss_fn(labels, model(tokens, training=True))
    gradients = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    return loss


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--batch-size", type=int, default=16)
    args = parser.parse_args()

    dataset = make_dataset(args.steps * args.batch_size, args.batch_size)
    start = time.perf_counter()
    losses = []
    for step, (tokens, labels) in enumerate(dataset):
        losses.append(train_step(tokens, labels, step))
    elapsed = time.perf_counter() - start
    print(f"{len(traces)} traces for {len(losses)} steps; {1000 * elapsed / len(losses):.1f} ms/step")
    print("losses", " ".join(f"{float(loss):.6f}" for loss in losses))


if __name__ == "__main__":
    main()
