"""Evaluates a checkpoint written by train.py on held-out images.

Run: python evaluate.py CHECKPOINT [--count N]
"""

import argparse

from common import *


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("checkpoint")
    parser.add_argument("--count", type=int, default=1024)
    args = parser.parse_args()

    images, labels = load_images(args.count, seed=1)
    model = keras.models.load_model(args.checkpoint)
    model.evaluate(get_eval_dataset(images, labels))


if __name__ == "__main__":
    main()
