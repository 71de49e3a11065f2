"""Paths and inputs the report tests share (a uniquely named module: tests/ has no packages, so plain `conftest`
imports could collide)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
# shared/ sits beside the repo checkout (CI clones it there too).
SARIF_SCHEMA = REPO_ROOT.parent / "shared" / "schemas" / "sarif-schema-2.1.0.json"
CONSTRUCTED_PROFILE = Path(__file__).parent / "constructed_profile.json"

# A line with markup in the code and in a comment: every format must show it as text.
MARKUP_SOURCE = textwrap.dedent('''
    import tensorflow as tf
    # <script>alert("comment")</script> & <b>bold</b>
    ds = tf.data.Dataset.range(10).map(lambda x: x * 2)  # </code></pre><script>alert(1)</script>
    model.fit(ds.batch(2))
    ''').lstrip()


def constructed_profile_json() -> dict:
    """A hand-written profile in the report's JSON shape (not captured), without its comment."""
    document = json.loads(CONSTRUCTED_PROFILE.read_text())
    document.pop("_comment")
    return document

