"""samples/slow_callback tuned by hand: Keras runs LOG_EVERY batches per call (steps_per_execution), so the batch
logger, which keeps its records, takes one every LOG_EVERY batches; flushing is left to the OS. The model, data and
optimizer are unchanged.

Run: python train.py [--epochs N] [--steps N]
"""

import argparse
import json
import os
import tempfile
import time

import numpy as np
import tensorflow as tf
from tensorflow import keras

LOG_EVERY = 50


class BatchLogger(keras.callbacks.Callback):
    """Appends the metrics of the batch that ends each Keras call to a JSON-lines file."""

    def __init__(self, path):
        super().__init__()
        self.path = path

    def on_train_batch_end(self, batch, logs=None):  # once per LOG_EVERY batches: see compile()
        record = {"batch": batch, "time": time.time()}
        record.update({k: float(v) for k, v in (logs or {}).items()})
        weights = self.model.layers[-1].get_weights()[0]
        record["last_layer_norm"] = float(np.linalg.norm(weights))
        with open(self.path, "a") as f:
            f.write(json.dumps(record) + "\n")
        time.sleep(0.005)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    x = rng.normal(size=(args.steps * args.batch_size, 64)).astype(np.float32)
    y = rng.integers(0, 10, size=(len(x),))
    train_ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(args.batch_size).prefetch(tf.data.AUTOTUNE)

    model = keras.Sequential([
        keras.Input(shape=(64,)),
        keras.layers.Dense(128, activation="relu"),
        keras.layers.Dense(10),
    ])
    model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  steps_per_execution=LOG_EVERY)
    log_path = os.path.join(tempfile.mkdtemp(), "batches.jsonl")
    model.fit(train_ds, epochs=args.epochs, callbacks=[BatchLogger(log_path)])


if __name__ == "__main__":
    main()
