"""The pipeline of one run: repo -> SourceIndex, logdir -> ProfileFindings, rules -> Findings, codemods -> Patches."""

from __future__ import annotations

import difflib
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import libcst as cst
from libcst.codemod import CodemodContext, SkipFile

from . import __version__
from .config import Settings
from .errors import InputError
from .model import Finding, FixRef, Patch
from .rule import RuleContext, all_rules
from .source.index import ModuleInfo, SourceIndex
from .source.walk import SourceFile, relevant_sources
from .state import content_hash



@dataclass
class Report:
    """The result of one run, rendered by every output format."""

    repo: Path
    findings: list[Finding]
    profile: Any = None  # advisor.profile.ProfileFindings | None
    warnings: list[str] = field(default_factory=list)
    files_seen: int = 0
    files_analyzed: int = 0
    hidden: int = 0  # findings the profile contradicts, left out unless --show-all
    # repo-relative posix path -> content hash of the text analysed: `apply` refuses files changed since
    file_hashes: dict[str, str] = field(default_factory=dict)
    # finding id -> the latest `advisor verify` measurement of it (kept in the saved analysis)
    verifications: dict[str, dict[str, Any]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": __version__,
            "repo": str(self.repo),
            "profile": self.profile.to_json() if self.profile is not None else None,
            "findings": [f.to_json() for f in self.findings],
            "warnings": list(self.warnings),
        }


def unified_diff(path: Path, old: str, new: str) -> str:
    """A unified diff that ``git apply`` accepts from the repo root."""
    old_lines = old.splitlines(keepends=True)
    new_lines = new.splitlines(keepends=True)
    lines = []
    for line in difflib.unified_diff(old_lines, new_lines, f"a/{path.as_posix()}", f"b/{path.as_posix()}"):
        lines.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(lines)


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


def build_index(root: Path, paths: list[Path] | None = None) -> SourceIndex:
    sources, files_seen = relevant_sources(root, paths)
    return SourceIndex.build(root, sources, files_seen)


def file_hashes(index: SourceIndex) -> dict[str, str]:
    return {m.path.as_posix(): content_hash(m.tree.bytes) for m in index.modules}


def run_rules(index: SourceIndex, settings: Settings, profile: Any = None) -> tuple[list[Finding], int]:
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


def analyze_texts(files: dict[str, str], settings: Settings | None = None, profile: Any = None) -> list[Finding]:
    """Run the rules on in-memory files (path -> text): rule examples and tests use this."""
    root = Path("/nonexistent-example-repo")
    sources = [SourceFile(Path(path), root / path, text.encode()) for path, text in files.items()]
    index = SourceIndex.build(root, sources, len(sources))
    return run_rules(index, settings or Settings(), profile)[0]


def analyze(repo: Path, logdir: Path | None, settings: Settings, run: str | None = None,
            use_cache: bool = True) -> Report:
    """Analyze a repo, through the per-user result cache unless ``use_cache`` is off."""
    if not repo.exists():
        raise InputError(f"{repo}: no such directory")
    if not repo.is_dir():
        raise InputError(f"{repo}: is a file; `advisor analyze` takes the repository's directory "
                         f"(use `advisor check FILE` for single files)")
    profile = None
    warnings: list[str] = []
    if logdir is not None:
        from .profile import load_profile  # the converters load only when a profile is given

        profile = load_profile(logdir, run=run, use_cache=use_cache)
        warnings.extend(profile.warnings)
    sources, files_seen = relevant_sources(repo)
    cache, key = None, ""
    if use_cache:
        from .cache import ResultCache, cache_root

        cache = ResultCache(cache_root(settings.cache_dir), "analyze")
        profile_digest = hashlib.sha256(json.dumps(profile.to_json(), sort_keys=True).encode()).hexdigest() \
            if profile is not None else "static"
        key = cache.key({s.path.as_posix(): s.data for s in sources}, settings,
                        f"{repo.resolve()}\n{files_seen}\n{profile_digest}")
        cached = cache.load(key, repo, profile)
        if cached is not None:
            return cached
    index = SourceIndex.build(repo, sources, files_seen)
    findings, hidden = run_rules(index, settings, profile)
    report = Report(repo, findings, profile, warnings + index.warnings, index.files_seen, len(index.modules),
                    hidden=hidden, file_hashes=file_hashes(index))
    if cache is not None:
        cache.store(key, report)
    return report


def check(files: list[Path], settings: Settings) -> Report:
    """Static rules on the given files, relative to the current directory (the pre-commit hook's view)."""
    root = Path.cwd()
    relative = []
    for file in files:
        if not file.is_file():
            raise InputError(f"{file}: no such file")
        absolute = file.resolve()
        try:
            relative.append(absolute.relative_to(root.resolve()))
        except ValueError:
            raise InputError(f"{file}: outside the current directory {root}") from None
    python_files = [p for p in relative if p.suffix == ".py"]
    index = build_index(root.resolve(), python_files)
    findings, _ = run_rules(index, settings)  # no profile: nothing can be contradicted
    return Report(root, findings, None, index.warnings, index.files_seen, len(index.modules),
                  file_hashes=file_hashes(index))
