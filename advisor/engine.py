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
from .source.walk import SourceFile, python_files, relevant_sources

if TYPE_CHECKING:
    from .cache import ResultCache



def render_fix(module: ModuleInfo, fix: FixRef) -> Patch | None:
    """Run a rule's codemod on the module the index already parsed; None if it changes nothing."""
    context = CodemodContext(filename=str(module.absolute), full_module_name=module.name, wrapper=module.wrapper)
    try:
        new_tree = fix.codemod(context, **fix.args).transform_module(module.tree)
    except SkipFile:
        return None
    new_code = new_tree.code
    if new_code == module.code:
        return None
    cst.parse_module(new_code)  # a codemod that produces unparsable code is a bug: fail loudly, in tests too
    return Patch(fix.description, fix.applicability, fix.why_unsafe, unified_diff(module.path, module.code, new_code),
                 new_code)


def file_hashes(index: SourceIndex) -> dict[str, str]:
    return {m.path.as_posix(): content_hash(m.tree.bytes) for m in index.modules}


def run_rules(index: SourceIndex, settings: Settings,
              profile: ProfileFindings | None = None) -> tuple[list[Finding], int]:
    """Run every selected rule, drop suppressed and duplicate findings, attach patches, rank.

    Returns the findings and how many the profile contradicted and were hidden (shown with ``show_all``).
    """
    context = RuleContext(index, profile, settings)
    modules = {m.path: m for m in index.modules}
    seen: set[str] = set()
    findings: list[Finding] = []
    hidden = 0
    for rule_class in all_rules():
        if not settings.is_selected(rule_class.code):
            continue
        for finding in rule_class().check(context):
            loc = finding.location
            if finding.id in seen or index.is_suppressed(loc.path, loc.line, loc.end_line, finding.code):
                continue
            if not (settings.is_selected_for(index.root / loc.path, finding.code)
                    and settings.meets_thresholds(finding)):
                continue
            seen.add(finding.id)
            if finding.contradicted and not settings.show_all:
                hidden += 1
                continue
            if finding.fix is not None:
                finding.patch = render_fix(modules[loc.path], finding.fix)
            findings.append(finding)
    return sorted(findings, key=Finding.sort_key), hidden


def analyze_texts(files: dict[str, str], settings: Settings | None = None,
                  profile: ProfileFindings | None = None) -> list[Finding]:
    """Run the rules on in-memory files (path -> text): rule examples and tests use this."""
    root = Path("/nonexistent-example-repo")
    sources = [SourceFile(Path(path), root / path, text.encode()) for path, text in files.items()]
    index = SourceIndex.build(root, sources, len(sources))
    return run_rules(index, settings or Settings(), profile)[0]


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

        profile = load_profile(logdir, run=run)
        warnings.extend(profile.warnings)
    candidates = python_files(repo)
    included = [path for path in candidates if not settings.is_excluded(path)]
    sources, _ = relevant_sources(repo, included)
    files_seen, excluded = len(candidates), len(candidates) - len(included)
    key = ""
    if cache is not None:
        profile_digest = hashlib.sha256(json.dumps(profile.to_json(), sort_keys=True).encode()).hexdigest() \
            if profile is not None else "static"
        key = cache.key({s.path.as_posix(): s.data for s in sources}, f"{repo.resolve()}\n{files_seen}\n"
                                                                        f"{profile_digest}")
        cached = cache.load(key, repo, profile)
        if cached is not None:
            return cached
    index = SourceIndex.build(repo, sources, files_seen)
    findings, hidden = run_rules(index, settings, profile)
    report = Report(repo, findings, profile, warnings + index.warnings, files_seen, len(index.modules), excluded,
                    hidden=hidden, file_hashes=file_hashes(index))
    if cache is not None:
        cache.store(key, report)
    return report


def check(files: list[Path], settings: Settings, cache: ResultCache | None = None) -> Report:
    """Static rules on the given files, relative to the current directory (the pre-commit hook's view)."""
    root = Path.cwd().resolve()
    relative = []
    for file in files:
        if not file.is_file():
            raise InputError(f"{file}: no such file")
        try:
            relative.append(file.resolve().relative_to(root))
        except ValueError:
            raise InputError(f"{file}: outside the current directory {root}") from None
    candidates = [p for p in relative if p.suffix == ".py"]
    included = [path for path in candidates if not settings.is_excluded(path)]
    sources, _ = relevant_sources(root, included)
    files_seen, excluded = len(candidates), len(candidates) - len(included)
    key = ""
    if cache is not None:
        # The working directory is part of the key: findings name files relative to it.
        key = cache.key({s.path.as_posix(): s.data for s in sources}, f"{root}\n{files_seen}")
        cached = cache.load(key, Path.cwd())
        if cached is not None:
            return cached
    index = SourceIndex.build(root, sources, files_seen)
    findings, _ = run_rules(index, settings)  # no profile: nothing can be contradicted
    report = Report(Path.cwd(), findings, None, index.warnings, files_seen, len(index.modules), excluded,
                    file_hashes=file_hashes(index))
    if cache is not None:
        cache.store(key, report)
    return report
