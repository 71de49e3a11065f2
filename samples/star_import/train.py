"""Trains the classifier defined in common.py.

Run: python train.py [--epochs N] [--steps N] [--checkpoint PATH]
"""

import argparse

from common import *


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--checkpoint", default=None)
    args = parser.parse_args()

    tf.random.set_seed(0)
    images, labels = load_images(args.steps * BATCH_SIZE)
    train_ds = get_dataset(images, labels)

    model = build_model()
    model.compile(
        optimizer=keras.optimizers.Adam(LEARNING_RATE),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    model.fit(train_ds, epochs=args.epochs)
    if args.checkpoint:
        model.save(args.checkpoint)


if __name__ == "__main__":
    main()
