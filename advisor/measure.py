"""Paired step-time measurement: the one method ``advisor verify`` and the benchmarks share.

Absolute step times on a shared machine swing 2x between runs, so no absolute time is ever reported; only ratios
of runs made back to back. The method:

- every variant (the original script, the patched one, an expert's version) runs under the capture bootstrap in
  measure mode (``advisor/profile/bootstrap.py``): the same step counting as ``advisor profile``, the same seeds,
  and a clean stop after ``warmup + steps`` steps;
- the first ``warmup`` steps of each run are discarded (tracing, autotuning, caches);
- a run's step time is the median of its measured steps (one slow step from a neighbour's burst does not move it);
- runs alternate, and the order flips every round (A B, B A, A B, ...), so a load that drifts during the
  measurement penalizes neither variant; the ratio of a round is taken between its two runs, and the speedup
  reported is the median of the rounds' ratios with their min and max;
- the core count and the load average are recorded with the figures.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

BOOTSTRAP = Path(__file__).parent / "profile" / "bootstrap.py"
# A relative difference is taken against at least this magnitude, so a loss that reaches ~0 does not blow it up.
REL_FLOOR = 1e-6
ERROR_TAIL_LINES = 12


class RunFailed(Exception):
    """A variant's script exited with an error; ``message`` is the end of its output."""

    def __init__(self, variant: str, message: str) -> None:
        super().__init__(f"{variant}: {message}")
        self.variant = variant
        self.message = message


@dataclass(frozen=True)
class Variant:
    """One version of the program: ``command`` (interpreter first) run in ``cwd``."""

    name: str
    command: list[str]
    cwd: Path


@dataclass
class Run:
    """One run of one variant: its measured steps (warm-up discarded) and the Keras logs of those steps."""

    variant: str
    round: int
    step_ms: list[float]
    logs: list[dict[str, float]]  # {"step": batch index, "loss": ..., metric: ...}
    complete: bool  # False: the script ended before warmup + steps steps

    @property
    def median_ms(self) -> float:
        return statistics.median(self.step_ms)

    def to_json(self) -> dict[str, Any]:
        return {"variant": self.variant, "round": self.round, "steps": len(self.step_ms),
                "median_step_ms": round(self.median_ms, 3), "complete": self.complete,
                "step_ms": [round(t, 3) for t in self.step_ms],
                "loss": [entry.get("loss") for entry in self.logs]}


@dataclass(frozen=True)
class Spread:
    median: float
    min: float
    max: float

    @classmethod
    def of(cls, values: list[float]) -> "Spread":
        return cls(statistics.median(values), min(values), max(values))

    def to_json(self) -> dict[str, float]:
        return {"median": round(self.median, 3), "min": round(self.min, 3), "max": round(self.max, 3)}


def run_once(variant: Variant, *, warmup: int, steps: int, seed: int, round_number: int,
             timeout_s: float | None = None) -> Run:
    """Run ``variant`` once in measure mode; raises :class:`RunFailed` when it fails or measures no step."""
    if len(variant.command) < 2 or "python" not in Path(variant.command[0]).name:
        raise RunFailed(variant.name, f"not a Python command: {variant.command!r}")
    with tempfile.TemporaryDirectory(prefix="advisor-measure-") as scratch:
        out = Path(scratch) / "measure.json"
        config = {"measure": str(out), "warmup": warmup, "steps": steps, "seed": seed, "markers": False,
                  "remote": False}
        env = dict(os.environ, ADVISOR_CAPTURE=json.dumps(config))
        try:
            done = subprocess.run([variant.command[0], str(BOOTSTRAP), *variant.command[1:]], cwd=variant.cwd,
                                  env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            raise RunFailed(variant.name, f"no result within {timeout_s:g} s") from None
        if done.returncode != 0:
            tail = done.stdout.decode(errors="replace").strip().splitlines()[-ERROR_TAIL_LINES:]
            raise RunFailed(variant.name, "\n".join(tail) or f"exit code {done.returncode}")
        result = json.loads(out.read_text()) if out.exists() else {"step_ms": [], "logs": [], "complete": False}
    measured = result["step_ms"][warmup:]
    if not measured:
        raise RunFailed(variant.name, f"the script ran {len(result['step_ms'])} steps, none after the {warmup} "
                                      f"warm-up steps (in Keras fit or a tf.data loop; with steps_per_execution, "
                                      f"the first execution's batches are all warm-up)")
    # Only Keras fit logs losses; a custom loop has none.
    return Run(variant.name, round_number, measured, [e for e in result["logs"] if e["step"] >= warmup],
               result["complete"])


def paired_runs(variants: list[Variant], *, repeats: int, warmup: int, steps: int, seed: int = 0,
                timeout_s: float | None = None, progress: Callable[[Run], None] | None = None) -> list[Run]:
    """``repeats`` rounds of one run per variant, the order flipped every round (see the module doc)."""
    runs = []
    for round_number in range(repeats):
        order = variants if round_number % 2 == 0 else variants[::-1]
        for variant in order:
            run = run_once(variant, warmup=warmup, steps=steps, seed=seed, round_number=round_number,
                           timeout_s=timeout_s)
            runs.append(run)
            if progress is not None:
                progress(run)
    return runs


def by_round(runs: list[Run], variant: str) -> dict[int, Run]:
    return {run.round: run for run in runs if run.variant == variant}


def speedup(runs: list[Run], baseline: str, variant: str) -> Spread:
    """``variant``'s speedup over ``baseline``: per round, baseline step time / variant step time."""
    base, other = by_round(runs, baseline), by_round(runs, variant)
    return Spread.of([base[r].median_ms / other[r].median_ms for r in sorted(base.keys() & other.keys())])


def max_relative_difference(a: list[dict[str, float]], b: list[dict[str, float]]) -> dict[str, float]:
    """Per logged quantity (loss, each metric): the largest relative difference over the steps both logged
    (entries carry their batch index as "step": steps_per_execution logs only some batches)."""
    worst: dict[str, float] = {}
    right_by_step = {entry["step"]: entry for entry in b}
    for left in a:
        right = right_by_step.get(left["step"])
        if right is None:
            continue
        for key in (left.keys() & right.keys()) - {"step"}:
            x, y = left[key], right[key]
            difference = abs(x - y) / max(abs(x), abs(y), REL_FLOOR)
            worst[key] = max(worst.get(key, 0.0), difference)
    return worst


def log_differences(runs: list[Run], baseline: str, variant: str) -> dict[str, float]:
    """The largest relative difference of each logged quantity between the two variants' runs of one round."""
    base, other = by_round(runs, baseline), by_round(runs, variant)
    worst: dict[str, float] = {}
    for r in sorted(base.keys() & other.keys()):
        for key, difference in max_relative_difference(base[r].logs, other[r].logs).items():
            worst[key] = max(worst.get(key, 0.0), difference)
    return worst


def machine() -> dict[str, Any]:
    """What the figures were measured on: they mean little without it."""
    return {"cores": os.cpu_count(), "load_avg_1m": round(os.getloadavg()[0], 2), "platform": platform.platform(),
            "python": platform.python_version(), "interpreter": sys.executable}
