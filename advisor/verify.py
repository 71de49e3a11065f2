"""``advisor verify``: measure whether fixes keep their predicted speedup, and what they do to the losses.

The user's tree is never written: the repo is copied into a temporary directory once per variant (the original,
the chosen fixes together and, with ``--each``, every fix alone), the fixes are applied to their copies, and the
same command runs in every copy, in alternating rounds (the method of :mod:`advisor.measure`), until each variant's
speedup interval decides a verdict or a bound is hit. All runs get the same seeds, so their per-step losses can be
compared: a fix that makes training faster but changes what the model learns is a regression, which matters most
for the unsafe fixes.

Each measured patch set is saved in the repo's saved analysis (``.advisor/last.json``) next to the findings it
measured; ``advisor apply --verified`` applies the fixes whose own measurement says they are faster
(:func:`verified_fixes`).
"""

from __future__ import annotations

import ast
import difflib
import math
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
from .measure import CPU, FASTER, FIGURE_NAMES, STEP, Estimate, Run, RunFailed, StoppingRule, Variant, \
    WindowTooShort, alternate, estimate, load_average, log_differences, machine, run_once
from .model import Applicability, Finding, SpeedupEstimate
from .profile.capture import check_python_command
from .speedup import combine
from .state import OPEN, SavedAnalysis, load_analysis

ORIGINAL, TOGETHER = "original", "patched"
ALONE = "alone:"  # + a finding id: the variant with that fix alone
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


# Fixes that only remove Python and dispatch work from the training thread: they start no thread, overlap nothing
# and remove no wait, so the CPU time they save is the time they save, and CPU time moves far less with the
# machine's load than wall time (docs/benchmarks.md). Every other fix is judged on wall time: a parallel map or a
# prefetch raises CPU time while cutting wall time, and a throttled callback or host sync also removes waits
# (sleeps, fsync, device round trips) that CPU time does not see.
TRAINING_THREAD_WORK = {"TFH002": "compiles the eager step", "TFH003": "stops retracing",
                        "TFH005": "runs several steps per call"}


def verdict_figure(patches: list[Finding]) -> tuple[str, str]:
    """The figure a patch set's verdict is taken on (see :mod:`advisor.measure`), and why."""
    if all(f.code in TRAINING_THREAD_WORK for f in patches):
        what = "; ".join(dict.fromkeys(TRAINING_THREAD_WORK[f.code] for f in patches))
        return CPU, f"the fix only removes work from the training thread ({what}), which CPU time measures " \
                    f"with less noise from other load"
    return STEP, "the fixes change parallelism, overlap or waits, which only wall time shows"


@dataclass
class PatchSet:
    """One set of fixes measured against the original program: the chosen fixes together, or one of them alone."""

    variant: str  # TOGETHER or ALONE + id
    patches: list[Finding]
    predicted: SpeedupEstimate | None
    figure: str  # the figure the verdict is taken on
    figure_reason: str
    files: dict[str, str]  # the patched files' content hashes as analysed
    skipped: list[str] = field(default_factory=list)  # fixes that could not be applied, and why
    wall: Estimate | None = None  # the speedup on each figure
    cpu: Estimate | None = None
    max_rel_loss_diff: float | None = None  # None: nothing logged a loss (custom loops log nothing)
    metric_diffs: dict[str, float] = field(default_factory=dict)
    rtol: float = DEFAULT_RTOL
    error: str | None = None  # the patched script failed: the end of its output
    # Whether the statements the fix changed executed in a check run (one fix only; None: not checked).
    ran: bool | None = None

    @property
    def measured(self) -> Estimate | None:
        """The estimate the verdict is taken on."""
        return self.cpu if self.figure == CPU else self.wall

    # Predictions are of the wall time per step: they are compared with that figure, whatever the verdict's.
    @property
    def inside(self) -> bool | None:
        if self.wall is None or self.predicted is None:
            return None
        return self.predicted.low <= self.wall.median <= self.predicted.high

    @property
    def prediction_error(self) -> float | None:
        """|predicted midpoint - measured| / measured, on the wall time per step."""
        if self.wall is None or self.predicted is None:
            return None
        return abs(self.predicted.midpoint - self.wall.median) / self.wall.median

    @property
    def verdict(self) -> str:
        return "failed" if self.error is not None else self.measured.verdict if self.measured else "not measured"

    @property
    def watched(self) -> bool:
        """Whether a check run looks for the fix's code executing: only a single fix's code is its own, and only
        Python files run as such (a notebook's cells do not)."""
        return len(self.patches) == 1 and all(path.endswith(".py") for path in self.files)

    @property
    def unsafe(self) -> list[Finding]:
        return [f for f in self.patches if f.fix.applicability == Applicability.UNSAFE]

    @property
    def ok(self) -> bool:
        return self.error is None and self.parity_ok is not False

    @property
    def parity_ok(self) -> bool | None:
        return None if self.max_rel_loss_diff is None else self.max_rel_loss_diff <= self.rtol

    def to_json(self, runs: list[Run], machine_at: dict[str, Any], held_back: list[str]) -> dict[str, Any]:
        """The record saved in the analysis state (self-contained: its runs and the machine they ran on)."""
        return {
            "patches": [f.id for f in self.patches],
            "codes": [f.code for f in self.patches],
            "verdict": self.verdict,
            "figure": self.figure,
            "figure_reason": self.figure_reason,
            "measured_speedup": self.measured.to_json() if self.measured else None,
            "wall_speedup": self.wall.to_json() if self.wall else None,
            "cpu_speedup": self.cpu.to_json() if self.cpu else None,
            "predicted": self.predicted.to_json() if self.predicted else None,
            "inside": self.inside,
            "prediction_error": None if self.prediction_error is None else round(self.prediction_error, 3),
            "parity": {"max_rel_loss_diff": self.max_rel_loss_diff, "ok": self.parity_ok, "rtol": self.rtol,
                       "metrics": {k: round(v, 6) for k, v in self.metric_diffs.items()}},
            "unsafe": [f.id for f in self.unsafe],
            "error": self.error,
            "code_ran": self.ran,
            "skipped": self.skipped,
            "held_back": held_back,
            "files": self.files,
            "machine": machine_at,
            "runs": [r.to_json() for r in runs if r.variant in (ORIGINAL, self.variant)],
        }


@dataclass
class Verification:
    """One ``advisor verify``: the chosen fixes together and, with ``--each``, every one alone, measured in the
    same alternating rounds against the original."""

    sets: list[PatchSet]  # the chosen fixes together first
    rule: StoppingRule
    held_back: list[str] = field(default_factory=list)  # unsafe fixes left out of --all without --unsafe-fixes
    runs: list[Run] = field(default_factory=list)
    machine: dict[str, Any] = field(default_factory=dict)  # cores; the load at the start and at the end

    @property
    def rounds(self) -> int:
        return len({r.round for r in self.runs if r.variant == ORIGINAL})

    @property
    def ok(self) -> bool:
        return all(s.ok for s in self.sets)

    def records(self) -> list[dict[str, Any]]:
        return [s.to_json(self.runs, self.machine, self.held_back) for s in self.sets]


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


def run_verify(repo: Path, ids: list[str], command: list[str], *, unsafe_fixes: bool, each: bool, steps: int,
               warmup: int, rule: StoppingRule, rtol: float = DEFAULT_RTOL, timeout_s: float | None = None,
               progress: Callable[[Run], None] | None = None) -> Verification:
    """Verify the chosen fixes of ``repo``'s saved analysis on ``command`` (with ``each``, every one alone too)
    and record each measured patch set there."""
    if steps < 1 or warmup < 0:
        raise InputError(f"--steps must be >= 1 and --warmup >= 0, got {steps}, {warmup}")
    if not (math.isfinite(rtol) and rtol >= 0):
        raise InputError(f"--rtol must be a number >= 0, got {rtol}")
    if timeout_s is not None and not (math.isfinite(timeout_s) and timeout_s > 0):
        raise InputError(f"--timeout must be a number of seconds > 0, got {timeout_s}")
    check_python_command(command, "advisor verify")
    repo = repo.resolve()
    saved = load_analysis(repo, load_settings(repo, [r.code for r in all_rules()]).state_file)
    chosen, held_back = choose(saved, ids, unsafe_fixes=unsafe_fixes)
    wanted = {TOGETHER: chosen}
    if each and len(chosen) > 1:
        wanted.update({ALONE + f.id: [f] for f in chosen})
    with tempfile.TemporaryDirectory(prefix="advisor-verify-") as scratch:
        copies = {name: Path(scratch) / name.replace(":", "-") / repo.name for name in (ORIGINAL, *wanted)}
        for copy in copies.values():
            copy_repo(repo, copy)
        sets = []
        for name, fixes in wanted.items():
            applied, skipped = apply_in_copy(copies[name], fixes, saved.files)
            figure, reason = verdict_figure(applied)
            sets.append(PatchSet(name, applied, predicted_speedup(applied), figure, reason,
                                 {p: saved.files[p] for p in {f.location.path.as_posix() for f in applied}},
                                 skipped, rtol=rtol))
        verification = Verification(sets, rule, held_back=[describe(f) for f in held_back],
                                    machine={**machine(), "load_avg_1m_start": load_average()})
        variants = {name: Variant(name, *relocate(command, Path.cwd(), repo, copy)) for name, copy in copies.items()}
        failures = check_runs(sets, variants, copies, warmup=warmup, steps=steps, timeout_s=timeout_s)
        measuring = {s.variant: s.figure for s in sets if s.variant not in failures}
        if measuring:
            try:
                verification.runs, failed_later = alternate(
                    [variants[ORIGINAL], *(variants[name] for name in measuring)], ORIGINAL, measuring, rule,
                    warmup=warmup, steps=steps, timeout_s=timeout_s, progress=progress)
            except WindowTooShort as short:
                raise InputError(f"cannot measure the original: {short.message}") from None
            except RunFailed as failure:  # only the original's failure ends the measurement
                raise InputError(f"the original script fails, so there is nothing to compare: {failure.message}") \
                    from None
            failures.update(failed_later)
        verification.machine["load_avg_1m_end"] = load_average()
    for patch_set in sets:
        patch_set.error = failures.get(patch_set.variant)
        if patch_set.error is None:
            measure_set(patch_set, verification.runs, rule.confidence)
    for record in verification.records():
        saved.record_verification(record)
    return verification


def check_runs(sets: list[PatchSet], variants: dict[str, Variant], copies: dict[str, Path], *, warmup: int,
               steps: int, timeout_s: float | None) -> dict[str, str]:
    """One untimed run of every patched variant before the rounds: a variant that fails leaves early, a window too
    short for the program is an input error, and a single fix's run goes under a line probe that sets ``ran``
    (did the statements the fix changed execute?). Returns the variants that failed, with the end of their output."""
    failures = {}
    for patch_set in sets:
        copy = copies[patch_set.variant]
        lines = {str(copy / path): changed_statements((copies[ORIGINAL] / path).read_text(encoding="utf-8"),
                                                      (copy / path).read_text(encoding="utf-8"))
                 for path in patch_set.files} if patch_set.watched else None
        try:
            run = run_once(variants[patch_set.variant], warmup=warmup, steps=steps, seed=0, round_number=-1,
                           timeout_s=timeout_s, lines=lines)
        except WindowTooShort as short:
            raise InputError(f"cannot measure the fixes {', '.join(f.id for f in patch_set.patches)}: "
                             f"{short.message}") from None
        except RunFailed as failure:
            failures[patch_set.variant] = failure.message
            continue
        if lines is not None:
            patch_set.ran = any(run.executed.values())
    return failures


def changed_statements(original: str, patched: str) -> list[int]:
    """The lines of ``patched``'s statements that differ from ``original`` (each changed line widened to the
    innermost statement holding it; imports left out): if none of them executes, the fix's code never ran."""
    new_lines = patched.splitlines()
    matcher = difflib.SequenceMatcher(None, original.splitlines(), new_lines, autojunk=False)
    changed = {line + 1 for tag, _, _, j1, j2 in matcher.get_opcodes() if tag != "equal" for line in range(j1, j2)}
    # A definition starts at its first decorator (ast's lineno is the `def` line): an added `@tf.function` is part
    # of the definition it decorates.
    spans = [(min([n.lineno, *(d.lineno for d in getattr(n, "decorator_list", ()))]), n.end_lineno or n.lineno, n)
             for n in ast.walk(ast.parse(patched)) if isinstance(n, ast.stmt)]
    watched: set[int] = set()
    for line in changed:
        holding = [(start, end, n) for start, end, n in spans if start <= line <= end]
        innermost = min(holding, key=lambda span: span[1] - span[0], default=None)
        if innermost is not None and not isinstance(innermost[2], (ast.Import, ast.ImportFrom)):
            watched.update(range(innermost[0], innermost[1] + 1))
    return sorted(watched)


def measure_set(patch_set: PatchSet, runs: list[Run], confidence: float) -> None:
    patch_set.wall = estimate(runs, ORIGINAL, patch_set.variant, STEP, confidence)
    patch_set.cpu = estimate(runs, ORIGINAL, patch_set.variant, CPU, confidence)
    differences = log_differences(runs, ORIGINAL, patch_set.variant)
    patch_set.max_rel_loss_diff = differences.pop("loss", None)
    patch_set.metric_diffs = differences


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


# -- what `advisor apply --verified` may apply --------------------------------------------------------------------


def verified_fixes(saved: SavedAnalysis, findings: list[Finding]) -> tuple[list[Finding], list[tuple[Finding, str]]]:
    """Of ``findings``, those whose own measurement (the fix alone: ``verify ID`` or ``verify --each``) found them
    faster with matching losses; the others with the reason each is held back."""
    accepted, held = [], []
    for finding in findings:
        record = saved.verification_alone(finding.id)
        reason = hold_back_reason(finding, record)
        if reason is None:
            accepted.append(finding)
        else:
            held.append((finding, reason))
    return accepted, held


def hold_back_reason(finding: Finding, record: dict[str, Any] | None) -> str | None:
    if record is None:
        return f"not measured alone: run `advisor verify --each --all -- COMMAND` (or `advisor verify {finding.id}`)"
    if record.get("error"):
        return "the program failed with it: " + record["error"].splitlines()[-1]
    if record.get("code_ran") is False:
        return "its code never ran in the measured program"
    measured = record["measured_speedup"]
    shown = f"{measured['median']:.2f}x" + (f" ({measured['low']:.2f}x-{measured['high']:.2f}x)"
                                            if measured["low"] is not None else "")
    if measured["verdict"] != FASTER:
        return f"measured {measured['verdict']}: {shown} on {FIGURE_NAMES[measured['figure']]}"
    parity = record["parity"]
    if parity["ok"] is False:
        return f"losses diverge (max relative difference {parity['max_rel_loss_diff']:.2e} > {parity['rtol']:g})"
    if parity["ok"] is None and finding.fix.applicability == Applicability.UNSAFE:
        return "unsafe, and the program logs no loss to compare (only Keras fit logs per-step losses)"
    return None
