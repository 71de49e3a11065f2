"""``advisor verify``: measure whether a set of fixes keeps its predicted speedup, and what it does to the losses.

The user's tree is never written: the repo is copied twice into a temporary directory, the chosen fixes are applied
to one copy, and the same command runs in both copies, alternately (the paired method of :mod:`advisor.measure`).
Both runs get the same seeds, so their per-step losses can be compared: a fix that makes training faster but
changes what the model learns is a regression, which matters most for the unsafe fixes.

The result is saved in the repo's saved analysis (``.advisor/last.json``) next to the findings it measured.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .apply import _select, apply_fixes, describe, split_by_safety
from .catalogue import all_rules
from .config import DEFAULT_STATE_FILE, load_settings
from .errors import InputError
from .measure import RunFailed, Run, Spread, Variant, log_differences, machine, paired_runs, speedup
from .model import Applicability, Finding, SpeedupEstimate
from .speedup import combine
from .state import OPEN, SavedAnalysis, load_analysis

ORIGINAL, PATCHED = "original", "patched"
# Default tolerance on the relative difference of per-step losses. Keras logs the epoch's running mean, so the
# difference measures the whole trajectory so far. Measured over 20 steps on 2 cores (docs/benchmarks.md):
# io_bound's parallel map + prefetch 0.0 (same data, same order); input_bound's parallel map of a stateful random
# augmentation 5.5e-4-7.3e-4 (the draw order varies); mixed_float16 on slow_callback's small dense model 4.5e-6;
# io_bound with its labels shifted by one element (a broken pipeline) 2.9e-2. 1e-2 sits between the two groups.
DEFAULT_RTOL = 0.01
# The part of the step each rule family's fixes shorten (the code prefix is the family: see advisor.rule.Rule).
STEP_PART = {"TFD": "input wait", "TFH": "host time", "TFC": "device compute"}
# Copies leave out what the script cannot need and advisor's own state.
COPY_IGNORE = shutil.ignore_patterns(".git", ".advisor", "__pycache__", ".mypy_cache", ".pytest_cache")


@dataclass
class Verification:
    """One patch set measured against the original program."""

    patches: list[Finding]
    predicted: SpeedupEstimate | None
    repeats: int
    measured: Spread | None = None
    max_rel_loss_diff: float | None = None  # None: nothing logged a loss (custom loops log nothing)
    metric_diffs: dict[str, float] = field(default_factory=dict)
    rtol: float = DEFAULT_RTOL
    runs: list[Run] = field(default_factory=list)
    error: str | None = None  # the patched script failed: the end of its output
    skipped: list[str] = field(default_factory=list)  # fixes that could not be applied, and why
    held_back: list[str] = field(default_factory=list)  # unsafe fixes left out of --all without --unsafe-fixes
    files: dict[str, str] = field(default_factory=dict)  # the patched files' content hashes as analysed
    machine: dict[str, Any] = field(default_factory=dict)  # taken when the runs end: the load they ran under

    @property
    def inside(self) -> bool | None:
        if self.measured is None or self.predicted is None:
            return None
        return self.predicted.low <= self.measured.median <= self.predicted.high

    @property
    def parity_ok(self) -> bool | None:
        return None if self.max_rel_loss_diff is None else self.max_rel_loss_diff <= self.rtol

    @property
    def unsafe(self) -> list[Finding]:
        return [f for f in self.patches if f.fix.applicability == Applicability.UNSAFE]

    @property
    def ok(self) -> bool:
        return self.error is None and self.parity_ok is not False

    def to_json(self) -> dict[str, Any]:
        return {
            "patches": [f.id for f in self.patches],
            "measured_speedup": self.measured.to_json() if self.measured else None,
            "predicted": self.predicted.to_json() if self.predicted else None,
            "inside": self.inside,
            "parity": {"max_rel_loss_diff": self.max_rel_loss_diff, "ok": self.parity_ok, "rtol": self.rtol,
                       "metrics": {k: round(v, 6) for k, v in self.metric_diffs.items()}},
            "unsafe": [f.id for f in self.unsafe],
            "error": self.error,
            "skipped": self.skipped,
            "held_back": self.held_back,
            "repeats": self.repeats,
            "files": self.files,
            "machine": self.machine,
            "runs": [r.to_json() for r in self.runs],
        }


def predicted_speedup(findings: list[Finding]) -> SpeedupEstimate | None:
    estimates = [(STEP_PART.get(f.code[:3], f.code), f.speedup) for f in findings if f.speedup is not None]
    if not estimates:
        return None
    return estimates[0][1] if len(estimates) == 1 else combine(estimates)


def choose(saved: SavedAnalysis, ids: list[str], *, unsafe_fixes: bool) -> tuple[list[Finding], list[Finding]]:
    """The fixes to verify (named by id, else all that --unsafe-fixes allows) and the unsafe ones held back."""
    wanted, held_back = split_by_safety(_select(saved, ids), unsafe_fixes)
    if ids and held_back:
        names = ", ".join(f.id for f in held_back)
        raise InputError(f"fixes {names} are unsafe: pass --unsafe-fixes to verify them")
    not_open = [f for f in wanted if saved.status_of(f) != OPEN]
    if not_open:
        raise InputError(f"fixes {', '.join(f.id for f in not_open)} were applied since the analysis; run "
                         f"`advisor analyze` again to verify the code as it is now")
    if not wanted:
        raise InputError("no fix to verify" + (" (the unsafe ones need --unsafe-fixes)" if held_back else ""))
    return wanted, held_back


def relocate(command: list[str], cwd: Path, repo: Path, copy: Path) -> tuple[list[str], Path]:
    """``command`` as it would run in ``copy`` of ``repo``: arguments naming a path inside the repo name the same
    path in the copy, and a working directory inside the repo moves with it (outside, it stays)."""
    def moved(path: Path) -> Path | None:
        try:
            return copy / path.resolve().relative_to(repo)
        except ValueError:
            return None

    args = [command[0]]
    for arg in command[1:]:
        target = moved(cwd / arg) if not arg.startswith("-") and (cwd / arg).exists() else None
        args.append(str(target) if target is not None else arg)
    return args, moved(cwd) or cwd


def run_verify(repo: Path, ids: list[str], command: list[str], *, unsafe_fixes: bool, steps: int, warmup: int,
               repeats: int, rtol: float = DEFAULT_RTOL, timeout_s: float | None = None,
               progress: Callable[[Run], None] | None = None) -> Verification:
    """Verify the chosen fixes of ``repo``'s saved analysis on ``command`` and record the result there."""
    if steps < 1 or warmup < 0 or repeats < 1:
        raise InputError(f"--steps and --repeats must be >= 1 and --warmup >= 0, got {steps}, {repeats}, {warmup}")
    repo = repo.resolve()
    saved = load_analysis(repo, load_settings(repo, [r.code for r in all_rules()]).state_file)
    chosen, held_back = choose(saved, ids, unsafe_fixes=unsafe_fixes)
    with tempfile.TemporaryDirectory(prefix="advisor-verify-") as scratch:
        copies = {name: Path(scratch) / name / repo.name for name in (ORIGINAL, PATCHED)}
        for copy in copies.values():
            copy_repo(repo, copy)
        applied, skipped = apply_in_copy(copies[PATCHED], chosen, saved.files)
        verification = Verification(applied, predicted_speedup(applied), repeats, rtol=rtol, skipped=skipped,
                                    held_back=[describe(f) for f in held_back],
                                    files={p: saved.files[p] for p in {f.location.path.as_posix() for f in applied}})
        variants = [Variant(name, *relocate(command, Path.cwd(), repo, copy)) for name, copy in copies.items()]
        try:
            verification.runs = paired_runs(variants, repeats=repeats, warmup=warmup, steps=steps,
                                            timeout_s=timeout_s, progress=progress)
        except RunFailed as failure:
            if failure.variant == ORIGINAL:
                raise InputError(f"the original script fails, so there is nothing to compare: "
                                 f"{failure.message}") from None
            verification.error = failure.message
        verification.machine = machine()
    if verification.error is None:
        verification.measured = speedup(verification.runs, ORIGINAL, PATCHED)
        differences = log_differences(verification.runs, ORIGINAL, PATCHED)
        verification.max_rel_loss_diff = differences.pop("loss", None)
        verification.metric_diffs = differences
    saved.record_verification(verification.to_json())
    return verification


def copy_repo(repo: Path, destination: Path) -> None:
    shutil.copytree(repo, destination, symlinks=True, ignore=COPY_IGNORE)


def apply_in_copy(root: Path, chosen: list[Finding], hashes: dict[str, str]) -> tuple[list[Finding], list[str]]:
    """Apply ``chosen`` fixes in ``root``, a copy of the analysed repo (``hashes``: its files as analysed).
    Returns the fixes applied and why others were skipped."""
    results = apply_fixes(root, chosen, hashes)
    refused = [f"{r.path.as_posix()}: {r.error}" for r in results if r.error]
    if refused:  # the copy is the user's tree: its files no longer match the analysis
        raise InputError("cannot apply the fixes: " + "; ".join(refused))
    applied = [f for r in results for f in r.applied]
    if not applied:
        raise InputError("none of the chosen fixes applies to the code as it is now; run `advisor analyze` again")
    return applied, [f"{describe(s.finding)}: {s.reason}" for r in results for s in r.skipped]


def default_repo(command: list[str]) -> Path:
    """The repo whose saved analysis to use: the nearest folder above the script that has one, else the current
    directory (``advisor analyze DIR`` saves it in DIR/.advisor/)."""
    script = next((Path(arg) for arg in command[1:] if arg.endswith(".py")), None)
    if script is not None:
        for folder in script.resolve().parents:
            if (folder / DEFAULT_STATE_FILE).is_file():
                return folder
    return Path(os.curdir)
