"""Ingest time and peak memory of load_profile against the profiler plugin's own overview_page conversion.

Run from the repo root: ``python benchmarks/profile_ingest.py [--mb 50,200] [--gb] [--keep DIR]``. Captures: the
committed input_bound_markers (1.5 MB) and captures scaled from it by ``benchmarks/scale_capture.py`` to each size
in ``--mb`` (``--gb`` adds a 1000 MB one; about 40 s of generation per 200 MB). Every figure is measured in a fresh
subprocess (wall time inside it, and CPU time of the whole process with its children, which says more on a busy
machine; peak RSS from ru_maxrss, of the process and of its children, i.e. the converter's child), so imports and
caches of one measurement never help another. Per capture:

- ``overview_page``: the converter alone, in-process, on a copy (the baseline; under an 11 GiB address-space cap,
  and skipped for captures over 250 MB: it needs about 40 times their size);
- ``cold ingest``: load_profile with an empty cache (the converter's child when the run fits its memory limit,
  advisor's own reading otherwise), and its ratio to the baseline;
- ``cached ingest``: load_profile again;
- ``trace pass``: advisor's reading of the capture's trace alone, streamed, against google.protobuf parsing the
  whole XSpace first (the full parse is skipped over 250 MB);
- once, ``converter child``: the cost of running the converter in a child process rather than in-process, on the
  committed capture.

Targets: cold ingest <= 1.5x overview_page on captures the converter reads, and <= 1.0x with peak RSS <= 2.5 GB
(process and child together) on those it does not; cached ingest <= 0.1 s.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

from scale_capture import DEFAULT_TEMPLATE, scale  # noqa: E402

CONVERTED_RATIO_TARGET, OWN_RATIO_TARGET, OWN_PEAK_TARGET_MB, CACHED_TARGET_S = 1.5, 1.0, 2500, 0.1
CONVERTER_BASELINE_MAX_MB = 250  # above it the stock converter needs more memory than this machine should give it
CONVERTER_ADDRESS_SPACE_CAP = 11 << 30

# Each measurement: a snippet run in a fresh interpreter that prints {"seconds": ...} and its peak RSS figures.
PEAKS = """
import resource
def cpu():
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
def peaks(cpu_before):
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"peak_mb": own.ru_maxrss / 1024, "child_peak_mb": children.ru_maxrss / 1024,
            "cpu_s": cpu() - cpu_before}
"""
CONVERTER = PEAKS + """
import json, shutil, sys, tempfile, time
from xprof.convert import _pywrap_profiler_plugin
with tempfile.TemporaryDirectory() as scratch:
    copy = shutil.copy(sys.argv[1], scratch)
    cpu_before, started = cpu(), time.perf_counter()
    _, ok = _pywrap_profiler_plugin.xspace_to_tools_data([copy], "overview_page", {})
    print(json.dumps({"seconds": time.perf_counter() - started, "ok": ok, **peaks(cpu_before)}))
"""
INGEST = PEAKS + """
import json, sys, time
from pathlib import Path
from advisor.profile.loader import load_profile
cpu_before, started = cpu(), time.perf_counter()
findings = load_profile(Path(sys.argv[1]))
print(json.dumps({"seconds": time.perf_counter() - started, "steps": findings.steps.count,
                  "own_reading": any("too big to convert" in w for w in findings.warnings), **peaks(cpu_before)}))
"""
TRACE_PASS = PEAKS + """
import json, sys, time
from pathlib import Path
from advisor.profile import trace
from advisor.profile.xplane_pb import XSpace
from advisor.profile.xspace_reader import CaptureFile
cpu_before, started = cpu(), time.perf_counter()
if sys.argv[2] == "streamed":
    with CaptureFile(Path(sys.argv[1])) as capture:
        trace.read_trace_facts(capture)
else:
    trace.read_trace_facts(XSpace.FromString(Path(sys.argv[1]).read_bytes()))
print(json.dumps({"seconds": time.perf_counter() - started, **peaks(cpu_before)}))
"""
CHILD_COST = PEAKS + """
import json, sys, time
from pathlib import Path
from advisor.profile import convert
capture = Path(sys.argv[1])
cpu_before, started = cpu(), time.perf_counter()
if sys.argv[2] == "child":
    with convert.Conversion([capture], False, convert.memory_limit()[0]) as conversion:
        conversion.result()
else:
    import tempfile, shutil
    with tempfile.TemporaryDirectory() as scratch:
        convert._run_tools([shutil.copy(capture, scratch)], convert.HOST_TOOLS)
print(json.dumps({"seconds": time.perf_counter() - started, **peaks(cpu_before)}))
"""


def measure(snippet: str, *args: str, cache_dir: Path, cap: int | None = None) -> dict:
    env = dict(os.environ, ADVISOR_CACHE_DIR=str(cache_dir), PYTHONPATH=str(REPO))
    limit = (lambda: resource.setrlimit(resource.RLIMIT_AS, (cap, cap))) if cap else None
    done = subprocess.run([sys.executable, "-c", snippet, *args], env=env, capture_output=True, text=True,
                          preexec_fn=limit)
    if done.returncode != 0:
        return {"failed": (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def _figure(result: dict) -> str:
    if "failed" in result:
        return f"failed ({result['failed']})"
    child = f" + {result['child_peak_mb']:.0f} MB child" if result.get("child_peak_mb", 0) > 1 else ""
    return f"{result['seconds']:.2f} s ({result['cpu_s']:.2f} s CPU) / {result['peak_mb']:.0f} MB{child}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", default="50,200", help="sizes of the scaled captures, comma-separated (MB)")
    parser.add_argument("--gb", action="store_true", help="add a 1000 MB capture (about 3 minutes to generate)")
    parser.add_argument("--keep", type=Path, help="put the generated captures here (default: a temp dir)")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="advisor-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    template = next(DEFAULT_TEMPLATE.rglob("*.xplane.pb"))
    captures = {"1.5MB": template}
    for mb in [float(m) for m in args.mb.split(",") if m] + ([1000.0] if args.gb else []):
        path = work / f"{mb:g}MB" / "plugins" / "profile" / "scaled" / "vm.xplane.pb"
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            scale(template, path, int(mb * 1e6))
        captures[f"{mb:g}MB"] = path

    cache_dir = Path(tempfile.mkdtemp(prefix="advisor-bench-cache-"))
    child = measure(CHILD_COST, str(template), "child", cache_dir=cache_dir)
    inline = measure(CHILD_COST, str(template), "in-process", cache_dir=cache_dir)
    print(f"converter child: {_figure(child)}; in-process: {_figure(inline)}; "
          f"the child costs {child['seconds'] - inline['seconds']:+.2f} s")

    failures = 0
    for label, capture in captures.items():
        size_mb = capture.stat().st_size / 1e6
        tag = f"{label} ({size_mb:.1f} MB)"
        cache_dir = Path(tempfile.mkdtemp(prefix="advisor-bench-cache-"))
        baseline = (measure(CONVERTER, str(capture), cache_dir=cache_dir, cap=CONVERTER_ADDRESS_SPACE_CAP)
                    if size_mb <= CONVERTER_BASELINE_MAX_MB else None)
        cold = measure(INGEST, str(capture), cache_dir=cache_dir)
        cached = measure(INGEST, str(capture), cache_dir=cache_dir)
        streamed = measure(TRACE_PASS, str(capture), "streamed", cache_dir=cache_dir)
        parsed = (measure(TRACE_PASS, str(capture), "parsed", cache_dir=cache_dir)
                  if size_mb <= CONVERTER_BASELINE_MAX_MB else None)
        print(f"{tag}: overview_page {_figure(baseline) if baseline else 'not run (too big)'}")
        own = cold.get("own_reading", False)
        line = f"{tag}: cold ingest {_figure(cold)}, {'own reading' if own else 'converter'}"
        ok = "failed" not in cold and cached.get("seconds", 1e9) <= CACHED_TARGET_S
        if baseline and "failed" not in baseline and "failed" not in cold:
            ratio = cold["seconds"] / baseline["seconds"]
            target = OWN_RATIO_TARGET if own else CONVERTED_RATIO_TARGET
            line += f" = {ratio:.2f}x overview_page (target <= {target}x)"
            ok = ok and ratio <= target
        if own and "failed" not in cold:
            peak = cold["peak_mb"] + cold["child_peak_mb"]
            line += f"; peak {peak:.0f} MB (target <= {OWN_PEAK_TARGET_MB})"
            ok = ok and peak <= OWN_PEAK_TARGET_MB
        print(line)
        print(f"{tag}: cached ingest {_figure(cached)} (target <= {CACHED_TARGET_S} s)")
        print(f"{tag}: trace pass streamed {_figure(streamed)}; whole XSpace parsed first "
              f"{_figure(parsed) if parsed else 'not run (too big)'}")
        failures += not ok
    print(f"summary: {len(captures) - failures}/{len(captures)} capture sizes within targets")


if __name__ == "__main__":
    main()
