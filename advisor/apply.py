"""Applying fixes to the user's files: compose every chosen fix of a file in one pass, check, write atomically.

Composition re-runs each fix's codemod (its ``FixRef``: class + line/column target) on one tree of the file, from
the bottom of the file upward: a codemod only rewrites text at or after its target, so the targets above stay
where the analysis saw them. Imports the codemods ask for are added once, after the last fix, because an import
added at the top would shift every target below it. When two fixes' spans overlap, the outer one is applied and
the inner one skipped (and reported): the outer rewrite may have moved or replaced the inner target. Fixes with
the very same span target the same call and are both applied.

A file is only written when its content is still what the analysis read, the composed result parses, and it can
be replaced atomically with its mode, encoding, newline style and trailing newline kept.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from itertools import groupby
from pathlib import Path
from typing import Callable

import click
import libcst as cst
from libcst.codemod import Codemod, CodemodContext, SkipFile
from libcst.codemod.visitors import AddImportsVisitor, RemoveImportsVisitor

from .cache import ResultCache
from .catalogue import all_rules
from .config import load_settings
from .engine import analyze
from .errors import InputError
from .files import content_hash, unified_diff, write_atomically
from .model import Applicability, Finding, Report
from .source.facts import ModuleInfo
from .state import OPEN, OUTDATED, SavedAnalysis, load_analysis, previous_analysis_options, save_analysis

# The helper transforms libcst's CodemodCommand runs after a codemod, from what the codemod put in the context.
DEFERRED_TRANSFORMS = ((AddImportsVisitor.CONTEXT_KEY, AddImportsVisitor),
                       (RemoveImportsVisitor.CONTEXT_KEY, RemoveImportsVisitor))


@dataclass(frozen=True)
class Skipped:
    finding: Finding
    reason: str


@dataclass
class FileResult:
    """What happened to one file: the fixes applied and skipped, the diff, or why the whole file was refused."""

    path: Path  # relative to the repo
    applied: list[Finding] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    diff: str = ""
    error: str | None = None  # the file was left as it was, for this reason
    written: bool = False


def _span(finding: Finding) -> tuple[tuple[int, int], tuple[int, int]]:
    loc = finding.location
    return (loc.line, loc.column), (loc.end_line, loc.end_column)


def _overlaps(a: Finding, b: Finding) -> bool:
    (a_start, a_end), (b_start, b_end) = _span(a), _span(b)
    return a_start < b_end and b_start < a_end  # spans are half-open: end_column is one past the last character


def resolve_overlaps(findings: list[Finding]) -> tuple[list[Finding], list[Skipped]]:
    """Keep the outermost of overlapping fixes; identical spans (one call, several fixes) all stay."""
    kept: list[Finding] = []
    skipped: list[Skipped] = []
    # Outer spans first: the earlier start, and for one start the later end.
    for finding in sorted(findings, key=lambda f: (_span(f)[0], tuple(-n for n in _span(f)[1]))):
        outer = next((k for k in kept if _overlaps(k, finding) and _span(k) != _span(finding)), None)
        if outer is None:
            kept.append(finding)
        else:
            skipped.append(Skipped(finding, f"overlaps the {outer.code} fix [{outer.id}] at "
                                            f"{outer.location.display}, which was applied instead; run "
                                            f"`advisor apply --reanalyze` for it"))
    return kept, skipped


def compose(module: ModuleInfo, findings: list[Finding]) -> tuple[str, list[Finding], list[Skipped]]:
    """The module's code with every fix in ``findings`` applied, the fixes applied, and those skipped."""
    kept, skipped = resolve_overlaps(findings)
    context = CodemodContext(filename=str(module.absolute), full_module_name=module.name)
    tree = module.tree
    applied = []
    for finding in sorted(kept, key=lambda f: _span(f)[0], reverse=True):
        command = finding.fix.codemod(context, **finding.fix.args)
        try:
            # Codemod.transform_module, not the command's own: that would add the imports now (see the module doc).
            updated = Codemod.transform_module(command, tree)
        except SkipFile:
            updated = tree
        except Exception as exc:  # a codemod that breaks on this text leaves the tree as it was: report, go on
            skipped.append(Skipped(finding, f"the fix failed on this file: {type(exc).__name__}: {exc}"))
            continue
        if updated.code == tree.code:
            skipped.append(Skipped(finding, "the fix no longer applies: its target is not in the file as analysed"))
            continue
        tree = updated
        applied.append(finding)
    for key, transform in DEFERRED_TRANSFORMS:
        if applied and key in context.scratch:
            tree = transform(context).transform_module(tree)
    return tree.code, sorted(applied, key=lambda f: _span(f)[0]), skipped


def _read_only_reason(path: Path) -> str | None:
    mode = path.stat().st_mode
    # Mode bits first: root may write anywhere, but a file marked read-only was marked so for a reason.
    if not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or not os.access(path, os.W_OK):
        return f"{path.name} is read-only (mode {stat.S_IMODE(mode):04o}); not changed"
    return None


def apply_to_file(root: Path, path: Path, expected_hash: str | None, findings: list[Finding], *,
                  write: bool) -> FileResult:
    """Apply ``findings``' fixes to ``root / path`` if its content hash is still ``expected_hash``."""
    result = FileResult(path)
    absolute = root / path
    try:
        data = absolute.read_bytes()
    except FileNotFoundError:
        result.error = "deleted since the analysis; not changed"
        return result
    except OSError as exc:
        result.error = f"cannot read: {exc.strerror}"
        return result
    if content_hash(data) != expected_hash:
        result.error = "changed since the analysis; not changed (run `advisor apply --reanalyze`)"
        return result
    tree = cst.parse_module(data)  # it parsed when analysed, and it has not changed
    module = ModuleInfo.of(path, absolute, tree, data)
    new_code, result.applied, result.skipped = compose(module, findings)
    if not result.applied:
        return result
    try:
        new_data = new_code.encode(module.encoding)
        cst.parse_module(new_data)
    except (cst.ParserSyntaxError, UnicodeEncodeError) as exc:
        result.error = f"the fixes produce a file that does not parse ({type(exc).__name__}); not changed"
        result.applied = []
        return result
    result.diff = unified_diff(path, module.code, new_code)
    if not write:
        return result
    reason = _read_only_reason(absolute)
    if reason is None:
        try:
            write_atomically(absolute, new_data, stat.S_IMODE(absolute.stat().st_mode))
            result.written = True
        except OSError as exc:
            reason = f"cannot write: {exc.strerror or exc}; not changed"
    if reason is not None:
        result.error, result.applied = reason, []
    return result


def apply_fixes(root: Path, findings: list[Finding], hashes: dict[str, str], *, write: bool = True) \
        -> list[FileResult]:
    """Apply the fixes of ``findings`` (all of which must have one), file by file, in path order.

    ``hashes`` are the content hashes of the files as analysed (repo-relative posix path -> hash).
    """
    def path_of(finding: Finding) -> str:
        return finding.location.path.as_posix()

    return [apply_to_file(root, Path(path), hashes.get(path), list(group), write=write)
            for path, group in groupby(sorted(findings, key=path_of), key=path_of)]


def split_by_safety(findings: list[Finding], unsafe_fixes: bool) -> tuple[list[Finding], list[Finding]]:
    """(the findings whose fix may be applied, the unsafe ones held back without ``--unsafe-fixes``)."""
    allowed: list[Finding] = []
    held_back: list[Finding] = []
    for finding in findings:
        safe = finding.fix.applicability == Applicability.SAFE
        (allowed if safe or unsafe_fixes else held_back).append(finding)
    return allowed, held_back


# -- the `apply` command ----------------------------------------------------------------------------------------


def describe(finding: Finding) -> str:
    # Descriptions are sentences; a reason may follow after a colon, so the full stop goes.
    return f"{finding.code} [{finding.id}] {finding.location.display}: {finding.patch.description.rstrip('.')}"


def report_results(results: list[FileResult], *, show_diff: bool, verb: str | None) -> int:
    """Print what happened, file by file (``verb`` None: the diff alone, for ``git apply``); problems go to stderr.

    Returns how many fixes or files could not be applied.
    """
    problems = 0
    for result in results:
        if show_diff and result.diff:
            click.echo(result.diff, nl=False)
        for finding in result.applied if verb else ():
            click.echo(f"{verb} {describe(finding)}")
            if finding.fix.applicability == Applicability.UNSAFE:
                click.echo(f"    unsafe: {finding.fix.why_unsafe}")
        for skip in result.skipped:
            click.echo(f"advisor: skipped {describe(skip.finding)}: {skip.reason}", err=True)
        if result.error:
            click.echo(f"advisor: {result.path.as_posix()}: {result.error}", err=True)
        problems += len(result.skipped) + bool(result.error)
    return problems


def fix_report(report: Report, reanalyze: Callable[[], Report]) -> tuple[Report, bool]:
    """``--fix`` of analyze and check: apply the report's safe fixes, then analyze again for what remains.

    Returns the new report (the same one when nothing changed) and whether files changed. What was fixed goes to
    stderr, so stdout stays the report in the format asked for.
    """
    fixable, _ = split_by_safety([f for f in report.findings if f.patch is not None], unsafe_fixes=False)
    results = apply_fixes(report.repo, fixable, report.file_hashes)
    changed = any(r.written for r in results)
    for result in results:
        for finding in result.applied:
            click.echo(f"fixed {describe(finding)}", err=True)
        for skip in result.skipped:
            click.echo(f"advisor: not fixed {describe(skip.finding)}: {skip.reason}", err=True)
        if result.error:
            click.echo(f"advisor: {result.path.as_posix()}: {result.error}", err=True)
    return (reanalyze() if changed else report), changed


def _choose_interactively(findings: list[Finding]) -> list[Finding]:
    chosen = []
    for number, finding in enumerate(findings):
        click.echo(describe(finding))
        if finding.fix.applicability == Applicability.UNSAFE:
            click.echo(f"    unsafe: {finding.fix.why_unsafe}")
        click.echo(finding.patch.diff, nl=False)
        answer = click.prompt("Apply this fix? [y]es, [n]o, [a]ll remaining, [q]uit", default="y",
                              type=click.Choice(["y", "n", "a", "q"]), show_choices=False)
        if answer == "q":
            break
        if answer == "a":
            return chosen + findings[number:]
        if answer == "y":
            chosen.append(finding)
    return chosen


def _reanalyze(repo: Path, state_file: Path) -> SavedAnalysis:
    """Analyze ``repo`` again with the profile and options of the last analysis, and save the result."""
    logdir, run, options = previous_analysis_options(repo, state_file)
    settings = load_settings(repo, [r.code for r in all_rules()], **options)
    report = analyze(repo, logdir, settings, run=run, cache=ResultCache("analyze", settings))
    return save_analysis(report, settings.state_file, logdir, run, options)


def _select(saved: SavedAnalysis, ids: list[str]) -> list[Finding]:
    """The fixable findings ``ids`` names (all of them without ids), in file order."""
    fixable = {f.id: f for f in saved.findings if f.patch is not None}
    if not ids:
        chosen = list(fixable.values())
    else:
        everything = {f.id for f in saved.findings}
        for finding_id in ids:
            if finding_id not in everything:
                raise InputError(f"no finding {finding_id!r} in the saved analysis {saved.path} "
                                 f"(ids are shown by `advisor analyze`)")
            if finding_id not in fixable:
                raise InputError(f"finding {finding_id} has no fix to apply")
        chosen = [fixable[i] for i in dict.fromkeys(ids)]
    return sorted(chosen, key=lambda f: (f.location.path.as_posix(), f.location.line, f.location.column))


def run_apply(repo: Path, ids: list[str], *, apply_all: bool, unsafe_fixes: bool, mode: str, interactive: bool,
              reanalyze: bool) -> int:
    """The ``advisor apply`` command; ``mode`` is "write", "diff" or "dry-run". Returns the exit code."""
    if not repo.is_dir():
        raise InputError(f"{repo}: no such directory")
    if not (ids or apply_all or interactive):
        raise InputError("name the fixes to apply by id (shown by `advisor analyze`), or pass --all")
    state_file = load_settings(repo, [r.code for r in all_rules()]).state_file
    saved = _reanalyze(repo, state_file) if reanalyze else load_analysis(repo, state_file)
    explicit = bool(ids)
    problems = 0
    wanted, held_back = split_by_safety(_select(saved, ids), unsafe_fixes)
    for finding in held_back:
        click.echo(f"advisor: not applied {describe(finding)}: unsafe ({finding.fix.why_unsafe}); "
                   f"pass --unsafe-fixes to apply it", err=True)
    problems += len(held_back) if explicit else 0  # --all means "what is safe": holding back is no failure
    pending = []
    for finding in wanted:
        status = saved.status_of(finding)
        if status == OUTDATED:
            click.echo(f"advisor: not applied {describe(finding)}: its file was rewritten by an earlier apply; "
                       f"run `advisor apply --reanalyze`", err=True)
            problems += 1
        elif status == OPEN:
            pending.append(finding)
    if interactive:
        pending = _choose_interactively(pending)
    if not pending:
        click.echo("nothing to apply")
        return 1 if problems else 0
    results = apply_fixes(repo, pending, saved.files, write=mode == "write")
    verb = {"write": "applied", "diff": None, "dry-run": "would apply"}[mode]
    problems += report_results(results, show_diff=mode != "dry-run", verb=verb)
    if mode == "write":
        applied = [f for r in results if r.written for f in r.applied]
        saved.record_apply(applied, {r.path.as_posix() for r in results if r.written})
        files = sum(1 for r in results if r.written)
        click.echo(f"Applied {len(applied)} fix{'es' * (len(applied) != 1)} to {files} file{'s' * (files != 1)}.")
    return 1 if problems else 0
