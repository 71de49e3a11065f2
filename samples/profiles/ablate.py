"""Measures what one source line costs by changing it: the ablations that truth.json's verdicts cite.

``python samples/profiles/ablate.py [ID ...]`` (from the repo root, needs TensorFlow) runs the ablations of
ablations.json (all, or those whose id starts with one of the IDs) and writes what it measured into that file.

An ablation is a sample program (``sample`` run with ``args``) and ``edits`` to its files, each replacing text that
occurs exactly once (``old``) with ``new``: removing a line's work shows what the line costs, fixing it shows what a
fix recovers.

How it is measured. On a shared 2-core machine whose load swings 4x within a minute, runs one after the other (the
method of ``advisor.measure``) gave per-round ratios from 0.3x to 4.5x for one ablation. So the unchanged program
and every edited copy of it run at the same time, but only one at a time is let on the CPU: each runs for
a slice in turn while the others are stopped (SIGSTOP), so a burst of load from elsewhere falls on all of them
alike. Each runs in advisor's measure mode (``advisor/profile/bootstrap.py``: the step counting of ``advisor
profile``, the same seeds, per-step wall times). A step that spans a stop is inflated; the median of a program's
steps ignores those. An ablation's ratio in a round compares the two programs' median steps over the time both were
still running (the faster one ends first; the slower one's later steps ran alone and are left out, unless too few
steps were paired, which happens only for large effects, where load matters least). Each ablation's ``measured``
holds its speedup over the unchanged program (median, min and max over the rounds), both programs' median step per
round, the steps paired, the machine and its load, and a digest of the sample's source (a measurement holds only for
the source it was made on).
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from advisor import measure  # noqa: E402

ABLATIONS = Path(__file__).resolve().parent / "ablations.json"
ORIGINAL = "original"
REPEATS, WARMUP, STEPS = 5, 10, 100
# A slice holds ~15 steps of the program or more (an ablation sets its own "slice_s" for slow steps), so that few steps
# span a stop, and the measured steps span many slices, so that no single burst of load decides a run.
SLICE_S = 0.25
MIN_PAIRED_STEPS = 5
ROUND_TIMEOUT_S = 900


class EditError(Exception):
    pass


def apply_edits(root: Path, edits: list[dict[str, str]]) -> None:
    """Apply ``edits`` to the copy of a sample at ``root``; each ``old`` must occur exactly once in its file."""
    for edit in edits:
        path = root / edit["path"]
        text = path.read_text()
        if text.count(edit["old"]) != 1:
            raise EditError(f"{edit['path']}: {edit['old']!r} occurs {text.count(edit['old'])} times, not once")
        path.write_text(text.replace(edit["old"], edit["new"]))


def sample_digest(sample: str) -> str:
    """A digest of the sample's Python files: a measurement holds only for the source it was made on."""
    digest = hashlib.sha256()
    for path in sorted((REPO / "samples" / sample).glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


@dataclass
class _Run:
    """One program running under the measure-mode bootstrap, stopped except during its slices."""

    variant: measure.Variant
    result: Path
    log: Path
    process: subprocess.Popen
    exited_at: float | None = None
    step_ends: list[tuple[float, float]] = field(default_factory=list)  # (monotonic end time, ms) after warm-up

    def read_steps(self, warmup: int) -> None:
        """Each measured step with the time it ended, counted back from the process' exit (steps are contiguous)."""
        step_ms = json.loads(self.result.read_text())["step_ms"] if self.result.exists() else []
        end = self.exited_at
        ends = []
        for ms in reversed(step_ms):
            ends.append((end, ms))
            end -= ms / 1000
        self.step_ends = list(reversed(ends))[warmup:]


def time_sliced_round(variants: list[measure.Variant], scratch: Path, *, warmup: int, steps: int, slice_s: float,
                      first: int) -> list[_Run]:
    """Run ``variants`` together, one at a time for ``slice_s`` each (starting with ``first``), until all ended."""
    config = {"warmup": warmup, "steps": steps, "seed": 0, "markers": False, "remote": False}
    runs = []
    for index, variant in enumerate(variants):
        result, log = scratch / f"{index}.json", scratch / f"{index}.log"
        env = dict(os.environ, ADVISOR_CAPTURE=json.dumps({**config, "measure": str(result)}))
        with log.open("wb") as out:
            process = subprocess.Popen([variant.command[0], str(measure.BOOTSTRAP), *variant.command[1:]],
                                       cwd=variant.cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
        process.send_signal(signal.SIGSTOP)
        runs.append(_Run(variant, result, log, process))
    deadline = time.monotonic() + ROUND_TIMEOUT_S
    turn = first
    try:
        while any(run.exited_at is None for run in runs):
            if time.monotonic() > deadline:
                raise measure.RunFailed("round", f"not done within {ROUND_TIMEOUT_S} s")
            run = runs[turn % len(runs)]
            turn += 1
            if run.exited_at is not None:
                continue
            run.process.send_signal(signal.SIGCONT)
            try:
                run.process.wait(timeout=slice_s)
                run.exited_at = time.monotonic()
            except subprocess.TimeoutExpired:
                run.process.send_signal(signal.SIGSTOP)
    finally:
        for run in runs:
            if run.exited_at is None:
                run.process.kill()
                run.process.wait()
    for run in runs:
        if run.process.returncode != 0:
            tail = run.log.read_text(errors="replace").strip().splitlines()[-measure.ERROR_TAIL_LINES:]
            raise measure.RunFailed(run.variant.name, "\n".join(tail))
        run.read_steps(warmup)
    return runs


def paired_medians(a: _Run, b: _Run) -> tuple[float, float, int]:
    """Both runs' median step over the time both were running, and how many steps of the slower one that was."""
    until = min(a.exited_at, b.exited_at)
    paired = [[ms for end, ms in run.step_ends if end <= until] for run in (a, b)]
    if min(len(steps) for steps in paired) < MIN_PAIRED_STEPS:
        paired = [[ms for _, ms in run.step_ends] for run in (a, b)]
    return statistics.median(paired[0]), statistics.median(paired[1]), min(len(steps) for steps in paired)


def measure_program(sample: str, args: list[str], ablations: dict[str, dict], repeats: int) -> None:
    """Measure ``ablations`` (id -> entry, all of one program) against the unchanged program; fill in ``measured``."""
    warmup = max(entry.get("warmup", WARMUP) for entry in ablations.values())
    steps = max(entry.get("steps", STEPS) for entry in ablations.values())
    slice_s = max(entry.get("slice_s", SLICE_S) for entry in ablations.values())
    command = [sys.executable, "train.py", *args, "--steps", str(warmup + steps + 5)]
    per_round: dict[str, list[tuple[float, float, int]]] = defaultdict(list)
    with tempfile.TemporaryDirectory(prefix="ablate-") as scratch:
        variants = [measure.Variant(ORIGINAL, command, REPO / "samples" / sample)]
        for ablation_id, entry in ablations.items():
            copy = Path(scratch) / ablation_id.replace("/", "_")
            shutil.copytree(REPO / "samples" / sample, copy, ignore=shutil.ignore_patterns(".advisor", "__pycache__"))
            apply_edits(copy, entry["edits"])
            variants.append(measure.Variant(ablation_id, command, copy))
        for round_number in range(repeats):
            round_dir = Path(scratch) / f"round{round_number}"
            round_dir.mkdir()
            original, *ablated = time_sliced_round(variants, round_dir, warmup=warmup, steps=steps, slice_s=slice_s,
                                                   first=round_number)
            for run in ablated:
                medians = paired_medians(original, run)
                per_round[run.variant.name].append(medians)
                print(f"  round {round_number} {run.variant.name}: {medians[0]:.2f} -> {medians[1]:.2f} ms/step "
                      f"({medians[2]} steps paired)", file=sys.stderr)
    machine = measure.machine()
    for ablation_id, entry in ablations.items():
        rounds = per_round[ablation_id]
        entry["measured"] = {
            "speedup": measure.Spread.of([before / after for before, after, _ in rounds]).to_json(),
            "original_ms_per_step": [round(before, 2) for before, _, _ in rounds],
            "ablated_ms_per_step": [round(after, 2) for _, after, _ in rounds],
            "paired_steps": [paired for _, _, paired in rounds],
            "rounds": repeats, "warmup": warmup, "steps": steps, "slice_s": slice_s,
            "sample_digest": sample_digest(sample),
            "cores": machine["cores"], "load_avg_1m": machine["load_avg_1m"],
            "date": datetime.date.today().isoformat(),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ids", nargs="*", help="ablation ids or prefixes (default: all)")
    parser.add_argument("--repeats", type=int, default=REPEATS)
    options = parser.parse_args()
    # Stopped children must not outlive this process: a plain kill still unwinds through time_sliced_round's cleanup.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))

    document = json.loads(ABLATIONS.read_text())
    programs: dict[tuple[str, tuple[str, ...]], dict[str, dict]] = defaultdict(dict)
    for ablation_id, entry in document["ablations"].items():
        if not options.ids or any(ablation_id.startswith(prefix) for prefix in options.ids):
            programs[entry["sample"], tuple(entry["args"])][ablation_id] = entry
    for (sample, args), ablations in programs.items():
        print(f"{sample} {' '.join(args)}: {', '.join(ablations)}", file=sys.stderr)
        measure_program(sample, list(args), ablations, options.repeats)
        # Written after every program: a long session that fails later keeps what it measured.
        ABLATIONS.write_text(json.dumps(document, indent=1) + "\n")
        for ablation_id, entry in ablations.items():
            speedup = entry["measured"]["speedup"]
            print(f"  {ablation_id}: {speedup['median']:.2f}x ({speedup['min']:.2f}-{speedup['max']:.2f}), "
                  f"original {statistics.median(entry['measured']['original_ms_per_step']):.1f} ms/step",
                  file=sys.stderr)


if __name__ == "__main__":
    main()
