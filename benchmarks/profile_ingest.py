"""Ingest time and peak memory of load_profile against the profiler plugin's own overview_page conversion.

Run from the repo root: ``python benchmarks/profile_ingest.py [--keep DIR]``. Uses the committed ~2 MB capture and
captures ~10 MB and ~50 MB ones of samples/input_bound into a temporary directory (needs TensorFlow; about a minute).
Every figure is measured in a fresh subprocess (time inside it, peak RSS from ru_maxrss), so imports and caches of
one measurement never help another. Targets: cold ingest <= 1.5x the converter's overview_page; cached <= 0.1 s.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

COLD_RATIO_TARGET, CACHED_TARGET_S = 1.5, 0.1
# Steps of samples/input_bound per capture size (about 70 KB per step).
LARGER_CAPTURES = {"10MB": 140, "50MB": 700}

# Each measurement: a snippet run in a fresh interpreter that prints {"seconds": ...}; ru_maxrss is added after.
CONVERTER = """
import json, shutil, sys, tempfile, time
from xprof.convert import _pywrap_profiler_plugin
with tempfile.TemporaryDirectory() as scratch:
    copy = shutil.copy(sys.argv[1], scratch)
    started = time.perf_counter()
    _, ok = _pywrap_profiler_plugin.xspace_to_tools_data([copy], "overview_page", {})
    print(json.dumps({"seconds": time.perf_counter() - started, "ok": ok}))
"""
INGEST = """
import json, sys, time
from pathlib import Path
from advisor.profile.loader import load_profile
started = time.perf_counter()
load_profile(Path(sys.argv[1]))
print(json.dumps({"seconds": time.perf_counter() - started}))
"""
PEAK_RSS = """
import json, resource, subprocess, sys
out = subprocess.run(sys.argv[1:], capture_output=True, text=True, check=True).stdout
result = json.loads(out.strip().splitlines()[-1])
result["peak_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(json.dumps(result))
"""


def measure(snippet: str, capture: Path, cache_dir: Path) -> dict[str, float]:
    env = dict(os.environ, ADVISOR_CACHE_DIR=str(cache_dir), PYTHONPATH=str(REPO))
    out = subprocess.run([sys.executable, "-c", PEAK_RSS, sys.executable, "-c", snippet, str(capture)], env=env,
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def make_capture(steps: int, logdir: Path) -> Path:
    from advisor.profile.capture import capture

    os.chdir(REPO / "samples" / "input_bound")
    with open(os.devnull, "w") as quiet:  # the training script's progress bar and TF's logs
        saved = [os.dup(1), os.dup(2)]
        os.dup2(quiet.fileno(), 1)
        os.dup2(quiet.fileno(), 2)
        try:
            run = capture([sys.executable, "train.py", "--steps", str(steps + 12)], logdir, 10, steps, False)
        finally:
            for fd, copy in zip((1, 2), saved):
                os.dup2(copy, fd)
    (found,) = run.glob("*.xplane.pb")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="put the generated captures here (default: a temp dir)")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="advisor-bench-"))
    captures = {"2MB": next((REPO / "samples" / "profiles" / "input_bound_markers").rglob("*.xplane.pb"))}
    for label, steps in LARGER_CAPTURES.items():
        captures[label] = make_capture(steps, work / label)

    failures = 0
    for label, capture in captures.items():
        size_mb = capture.stat().st_size / 1e6
        cache_dir = Path(tempfile.mkdtemp(prefix="advisor-bench-cache-"))
        converter = measure(CONVERTER, capture, cache_dir)
        cold = measure(INGEST, capture, cache_dir)
        cached = measure(INGEST, capture, cache_dir)
        ratio = cold["seconds"] / converter["seconds"]
        ok = ratio <= COLD_RATIO_TARGET and cached["seconds"] <= CACHED_TARGET_S
        failures += not ok
        print(f"{label} ({size_mb:.1f} MB): overview_page {converter['seconds']:.3f} s / {converter['peak_mb']:.0f} MB")
        print(f"{label} ({size_mb:.1f} MB): cold ingest {cold['seconds']:.3f} s / {cold['peak_mb']:.0f} MB "
              f"= {ratio:.2f}x overview_page (target <= {COLD_RATIO_TARGET}x)")
        print(f"{label} ({size_mb:.1f} MB): cached ingest {cached['seconds']:.3f} s / {cached['peak_mb']:.0f} MB "
              f"(target <= {CACHED_TARGET_S} s)")
    print(f"summary: {len(captures) - failures}/{len(captures)} capture sizes within targets")


if __name__ == "__main__":
    main()
