"""The pipeline of one run: repo -> SourceIndex, logdir -> ProfileFindings, rules -> Findings, codemods -> Patches.

A :class:`~advisor.cache.ResultCache` handed to :func:`analyze` or :func:`check` answers runs over unchanged files.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING

import libcst as cst
from libcst.codemod import CodemodContext, SkipFile

from .catalogue import all_rules
from .config import Settings
from .errors import InputError
from .files import content_hash, unified_diff
from .model import Finding, FixRef, Patch, Report
from .profile.facts import ProfileFindings
from .rule import RuleContext
from .source.facts import ModuleInfo
from .source.index import SourceIndex
from .source.names import rebound_names
from .source.notebook import NotebookError
from .source.requirements import declaration_files, is_declaration
from .source.walk import SOURCE_SUFFIXES, SourceFile, relevant_sources, source_files

if TYPE_CHECKING:
    from .cache import ResultCache


class FixRefused(Exception):
    """A fix that would break the module (or cannot be written in it); the message says why, to the user."""


def render_fix(module: ModuleInfo, fix: FixRef, target_line: int) -> Patch | None:
    """Run a rule's codemod, which targets module line ``target_line``, on the module the index already parsed; None
    if it changes nothing, or if the module is nested too deeply for the codemod's recursion (the index admits files
    up to MAX_NESTING levels, and a codemod may need more stack than the visit that read them): the finding then
    comes without a fix.

    Raises FixRefused when the codemod declines, or when its result binds a name the module uses to something else.
    """
    context = CodemodContext(filename=str(module.absolute), full_module_name=module.name, wrapper=module.wrapper)
    try:
        new_tree = fix.codemod(context, **fix.args).transform_module(module.tree)
    except SkipFile as declined:
        if str(declined):
            raise FixRefused(str(declined)) from None
        return None
    except RecursionError:
        return None
    new_code = new_tree.code
    if new_code == module.code:
        return None
    cst.parse_module(new_code)  # a codemod that produces unparsable code is a bug: fail loudly, in tests too
    rebound = rebound_names(module.tree, new_tree)
    if rebound:
        raise FixRefused("; ".join(rebound))
    notebook = module.notebook
    if notebook is None:
        return Patch(fix.description, fix.applicability, fix.why_unsafe,
                     unified_diff(module.path, module.code, new_code), new_code)
    try:
        new_text = notebook.with_code(new_code, [target_line])
    except NotebookError:
        return None  # a change the notebook cannot take (it would rewrite a magic line): no fix rather than a wrong one
    return Patch(fix.description, fix.applicability, fix.why_unsafe, unified_diff(module.path, notebook.text, new_text),
                 new_code, notebook.cell_diff(module.path, new_code, [target_line]))


def file_hashes(index: SourceIndex) -> dict[str, str]:
    return {m.path.as_posix(): content_hash(m.file_bytes) for m in index.modules}


def run_rules(index: SourceIndex, settings: Settings,
              profile: ProfileFindings | None = None) -> tuple[list[Finding], dict[str, int]]:
    """Run every selected rule, drop suppressed and duplicate findings, attach patches, rank.

    Returns the findings, and how many were hidden by reason (all shown with ``show_all``), by the names of the
    Report's counts: ``hidden`` (the profile contradicts them), ``off_training`` (no training run reaches their
    code), ``less_sure`` (below ``min_confidence``).
    """
    context = RuleContext(index, profile, settings)
    modules = {m.path: m for m in index.modules}
    seen: set[str] = set()
    findings: list[Finding] = []
    hidden = {"hidden": 0, "off_training": 0, "less_sure": 0}
    for rule_class in all_rules():
        if not settings.is_selected(rule_class.code, rule_class.enabled_by_default):
            continue
        for finding in rule_class().check(context):
            loc = finding.location
            finding = context.verdicts.runs_as_written(finding, modules[loc.path])
            if finding.id in seen or index.is_suppressed(loc.path, loc.line, loc.end_line, finding.code):
                continue
            if not (settings.reports_in(index.root / loc.path, finding.code) and settings.meets_min_speedup(finding)):
                continue
            seen.add(finding.id)
            reason = None if settings.show_all else "hidden" if finding.contradicted else \
                "off_training" if finding.off_training else "less_sure" if not settings.is_sure_enough(finding) \
                else None
            if reason is not None:
                hidden[reason] += 1
                continue
            if finding.fix is not None and modules[loc.path].as_read is None:
                try:
                    finding.patch = render_fix(modules[loc.path], finding.fix, loc.line)
                except FixRefused as refused:
                    finding.message += f" No automatic patch: {refused}."
            findings.append(finding)
    return sorted(findings, key=Finding.sort_key), hidden


def analyze_texts(files: dict[str, str], settings: Settings | None = None,
                  profile: ProfileFindings | None = None) -> list[Finding]:
    """Run the rules on in-memory files (path -> text): rule examples and tests use this."""
    root = Path("/nonexistent-example-repo")
    declarations = {Path(path): text.encode() for path, text in files.items() if is_declaration(Path(path).name)}
    sources = [SourceFile(Path(path), root / path, text.encode()) for path, text in files.items()
               if Path(path) not in declarations]
    index = SourceIndex.build(root, sources, len(sources), declarations)
    return run_rules(index, settings or Settings(), profile)[0]


def _key_files(sources: list[SourceFile], declarations: dict[Path, bytes]) -> dict[str, bytes]:
    """What a cached result depends on in the repo: its sources and the TensorFlow it declares."""
    return {**{path.as_posix(): data for path, data in declarations.items()},
            **{source.path.as_posix(): source.data for source in sources}}


def analyze(repo: Path, logdir: Path | None, settings: Settings, run: str | None = None,
            cache: ResultCache | None = None) -> Report:
    """Analyze a repo, gated by the profile in ``logdir`` when given; ``cache`` answers a run seen before."""
    if not repo.exists():
        raise InputError(f"{repo}: no such directory")
    if not repo.is_dir():
        raise InputError(f"{repo}: is a file; `advisor analyze` takes the repository's directory "
                         f"(use `advisor check FILE` for single files)")
    profile = None
    warnings: list[str] = []
    if logdir is not None:
        from .profile.loader import load_profile  # the converters load only when a profile is given

        profile = load_profile(logdir, run=run, use_cache=cache is not None)  # --no-cache reads captures again
        warnings.extend(profile.warnings)
    candidates = source_files(repo, warnings)
    included = [path for path in candidates if not settings.is_excluded(path)]
    named_like_tests = {path for path in candidates if settings.named_like_a_test(path)}
    sources = relevant_sources(repo, included, warnings, sorted(named_like_tests))
    declarations = declaration_files(repo, included)
    # (a file only its name marks as a test that the program imports is not left out)
    files_seen = len(candidates)
    excluded = files_seen - len(included) - sum(source.path in named_like_tests for source in sources)
    key = ""
    if cache is not None:
        profile_digest = hashlib.sha256(json.dumps(profile.to_json(), sort_keys=True).encode()).hexdigest() \
            if profile is not None else "static"
        key = cache.key(_key_files(sources, declarations), f"{repo.resolve()}\n{files_seen}\n{profile_digest}")
        cached = cache.load(key, repo, profile)
        if cached is not None:
            return cached
    index = SourceIndex.build(repo, sources, files_seen, declarations, listed=candidates)
    findings, hidden = run_rules(index, settings, profile)
    report = Report(repo, findings, profile, warnings + index.warnings, files_seen, len(index.modules), excluded,
                    **hidden, file_hashes=file_hashes(index))
    if cache is not None:
        cache.store(key, report)
    return report


def check(files: list[Path], settings: Settings, cache: ResultCache | None = None) -> Report:
    """Static rules on the given files, relative to the current directory (the pre-commit hook's view)."""
    root = Path.cwd().resolve()
    relative = []
    for file in files:
        if file.is_dir():
            raise InputError(f"{file}: is a directory; `advisor check` takes files (use `advisor analyze {file}` for "
                             f"a whole repository)")
        if not file.exists():
            raise InputError(f"{file}: no such file")
        try:
            relative.append(file.resolve().relative_to(root))
        except ValueError:
            raise InputError(f"{file}: outside the current directory {root}") from None
    candidates = [p for p in relative if p.suffix in SOURCE_SUFFIXES]
    included = [path for path in candidates if not settings.is_excluded(path)]
    warnings: list[str] = []
    sources = relevant_sources(root, included, warnings)
    declarations = declaration_files(root, included)
    files_seen, excluded = len(candidates), len(candidates) - len(included)
    key = ""
    if cache is not None:
        # The working directory is part of the key: findings name files relative to it.
        key = cache.key(_key_files(sources, declarations), f"{root}\n{files_seen}")
        cached = cache.load(key, Path.cwd())
        if cached is not None:
            return cached
    index = SourceIndex.build(root, sources, files_seen, declarations, listed=candidates)
    findings, hidden = run_rules(index, settings)  # no profile: nothing can be contradicted
    report = Report(Path.cwd(), findings, None, warnings + index.warnings, files_seen, len(index.modules), excluded,
                    **hidden, file_hashes=file_hashes(index))
    if cache is not None:
        cache.store(key, report)
    return report
