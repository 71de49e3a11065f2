"""Measures what one source line costs by changing it: the ablations that truth.json's verdicts cite.

``python samples/profiles/ablate.py [ID ...]`` (from the repo root, needs TensorFlow) runs the ablations of
ablations.json (all, or those whose id starts with one of the IDs) and writes what it measured into that file.

An ablation is a sample program (``sample`` run with ``args``) and ``edits`` to its files, each replacing text that
occurs exactly once (``old``) with ``new``: removing a line's work shows what the line costs, fixing it shows what a
fix recovers. The ablations of one program are measured together with advisor's paired method
(``advisor.measure``: the unchanged program and every edited copy run alternately, the order flipped every round,
a run's figure the median of its steps after the warm-up) and each gets ``measured``: its speedup over the unchanged
program (median, min and max of the rounds' ratios), both programs' median step time per round, the machine and load
it was measured on, and a digest of the sample's source (a measurement holds only for the source it was made on).
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import shutil
import statistics
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from advisor import measure  # noqa: E402

ABLATIONS = Path(__file__).resolve().parent / "ablations.json"
ORIGINAL = "original"
REPEATS, WARMUP, STEPS = 5, 10, 30


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


def measure_program(sample: str, args: list[str], ablations: dict[str, dict], repeats: int) -> None:
    """Measure ``ablations`` (id -> entry, all of one program) against the unchanged program; fill in ``measured``."""
    warmup = max(entry.get("warmup", WARMUP) for entry in ablations.values())
    steps = max(entry.get("steps", STEPS) for entry in ablations.values())
    command = [sys.executable, "train.py", *args, "--steps", str(warmup + steps + 5)]
    with tempfile.TemporaryDirectory(prefix="ablate-") as scratch:
        variants = [measure.Variant(ORIGINAL, command, REPO / "samples" / sample)]
        for ablation_id, entry in ablations.items():
            copy = Path(scratch) / ablation_id.replace("/", "_")
            shutil.copytree(REPO / "samples" / sample, copy, ignore=shutil.ignore_patterns(".advisor", "__pycache__"))
            apply_edits(copy, entry["edits"])
            variants.append(measure.Variant(ablation_id, command, copy))
        runs = measure.paired_runs(variants, repeats=repeats, warmup=warmup, steps=steps,
                                   progress=lambda run: print(f"  {run.variant} round {run.round}: "
                                                              f"{run.median_ms:.2f} ms/step", file=sys.stderr))
    machine = measure.machine()
    baseline = measure.by_round(runs, ORIGINAL)
    for ablation_id, entry in ablations.items():
        ablated = measure.by_round(runs, ablation_id)
        entry["measured"] = {
            "speedup": measure.speedup(runs, ORIGINAL, ablation_id).to_json(),
            "original_ms_per_step": [round(baseline[r].median_ms, 2) for r in sorted(baseline)],
            "ablated_ms_per_step": [round(ablated[r].median_ms, 2) for r in sorted(ablated)],
            "rounds": repeats, "warmup": warmup, "steps": steps, "sample_digest": sample_digest(sample),
            "cores": machine["cores"], "load_avg_1m": machine["load_avg_1m"],
            "date": datetime.date.today().isoformat(),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ids", nargs="*", help="ablation ids or prefixes (default: all)")
    parser.add_argument("--repeats", type=int, default=REPEATS)
    options = parser.parse_args()

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
