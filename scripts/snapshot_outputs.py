"""Snapshot advisor's JSON output on every sample and committed capture, to compare before and after a change.

``python scripts/snapshot_outputs.py OUT.json`` analyses each sample statically and with every committed capture
of it (``--select ALL --show-all --no-cache``, no state written into the samples: they are analysed in a copy),
and the repros of ``../shared/repros`` when they exist. Compare two snapshots with
``python scripts/snapshot_outputs.py --diff BEFORE.json AFTER.json``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "samples"
REPROS = REPO.parent / "shared" / "repros"
# capture -> the sample it was taken of (samples/profiles/regenerate.py is the source of truth)
sys.path.insert(0, str(SAMPLES / "profiles"))
from regenerate import CAPTURES, NOTEBOOK_CAPTURES  # noqa: E402


def _analyze(repo: Path, logdir: Path | None) -> object:
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / repo.name
        shutil.copytree(repo, copy)
        command = [sys.executable, "-m", "advisor", "analyze", str(copy), *([str(logdir)] if logdir else []),
                   "--select", "ALL", "--show-all", "--no-cache", "--format", "json", "--exit-zero"]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            return {"error": done.stderr.strip().splitlines()[-1:] or [f"exit {done.returncode}"]}
        document = json.loads(done.stdout)
        document["repo"] = repo.name  # the copy's temporary path differs per run
        return document


def snapshot() -> dict[str, object]:
    runs: dict[str, object] = {}
    for sample in sorted(p for p in SAMPLES.iterdir() if p.is_dir() and p.name != "profiles"):
        runs[f"{sample.name} (static)"] = _analyze(sample, None)
    captures = {name: capture.sample for name, capture in CAPTURES.items()} | NOTEBOOK_CAPTURES
    for capture, sample in sorted(captures.items()):
        runs[f"{sample} + {capture}"] = _analyze(SAMPLES / sample, SAMPLES / "profiles" / capture)
    if REPROS.is_dir():
        for repro in sorted(p for p in REPROS.iterdir() if p.is_dir()):
            runs[f"repro {repro.name} (static)"] = _analyze(repro, None)
    return runs


def diff(before: dict, after: dict) -> int:
    changed = 0
    for key in sorted(set(before) | set(after)):
        if before.get(key) != after.get(key):
            changed += 1
            print(f"--- {key}")
            old = json.dumps(before.get(key), indent=1, sort_keys=True).splitlines()
            new = json.dumps(after.get(key), indent=1, sort_keys=True).splitlines()
            import difflib

            print("\n".join(difflib.unified_diff(old, new, "before", "after", lineterm="", n=2)))
    print(f"{changed} of {len(set(before) | set(after))} runs differ")
    return 1 if changed else 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--diff"]:
        sys.exit(diff(json.loads(Path(sys.argv[2]).read_text()), json.loads(Path(sys.argv[3]).read_text())))
    Path(sys.argv[1]).write_text(json.dumps(snapshot(), indent=1, sort_keys=True))
