"""Tiny Keras training repos, analysed (statically) so their saved analyses hold fixes to verify (one of them in a
branch the program never takes); a snapshot of a tree. (Not in conftest.py: tests import it, and every test folder has a conftest module.)"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import textwrap
from pathlib import Path

TRAIN = '''
import numpy as np
import tensorflow as tf
from tensorflow import keras


def scale(features, label):
    return features * 0.5, label


def flip(features, label):
    return -features, label


def make_dataset(augment=False):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(512, 16)).astype(np.float32)
    y = rng.integers(0, 4, size=(512,))
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    if augment:  # off in this program: a fix of this map cannot change the run
        ds = ds.map(flip)
    ds = ds.map(scale)
    return ds.batch(16)
{guard}

model = keras.Sequential([keras.Input(shape=(16,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(4)])
model.compile(optimizer="sgd", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(make_dataset(), epochs=1, verbose=0)
'''
# Reads each element with a 2 ms wait (a storage round trip: no CPU), one element at a time: a parallel map hides
# the waits whatever else the cores are doing, so its gain is real with or without a competing load.
READS = '''
import time

import numpy as np
import tensorflow as tf
from tensorflow import keras


def read(index):
    time.sleep(0.002)
    return np.full(8, index, np.float32), np.int64(index % 2)


def load(index):
    features, label = tf.numpy_function(read, [index], [tf.float32, tf.int64])
    features.set_shape((8,))
    label.set_shape(())
    return features, label


dataset = tf.data.Dataset.range(16 * 80).map(load).batch(16)
model = keras.Sequential([keras.Input(shape=(8,)), keras.layers.Dense(2)])
model.compile(optimizer="sgd", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(dataset, epochs=1, verbose=0)
'''
# Makes the patched program fail: it refuses to run once advisor's prefetch fix is in its source.
GUARD = '''

import inspect
if "prefetch" in inspect.getsource(make_dataset):
    raise RuntimeError("this pipeline must not prefetch")
'''


def snapshot(root: Path) -> dict[str, str]:
    """Every file under ``root`` but advisor's own state, by content hash."""
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and ".advisor" not in p.parts}


def make_repo(root: Path, source: str) -> Path:
    root.mkdir()
    (root / "train.py").write_text(textwrap.dedent(source))
    analysed = subprocess.run([sys.executable, "-m", "advisor", "analyze", "--min-confidence", "possible", str(root),
                               "--format", "json"], capture_output=True, text=True)
    assert analysed.returncode == 1, analysed.stderr  # findings
    assert (root / ".advisor" / "last.json").is_file()
    return root
