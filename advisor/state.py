"""What outlives one run: the saved analysis ``apply`` works from (``.advisor/last.json``).

The saved analysis holds everything ``apply`` needs without analysing again: each finding with its span and its
fix as a codemod reference (``"advisor.codemods.parallel_map:AddNumParallelCalls"`` + keyword arguments), and the
content hash of every file the analysis read, so a file edited since is refused instead of patched blindly.

It lives inside the repo (``.advisor/`` leading out of it through a symlink is refused), and is read only as a
regular file of bounded size. Its contents are not trusted: ``apply`` checks every path in it (see
:func:`advisor.apply.apply_to_file`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from . import __version__
from .errors import InputError
from .files import is_inside, read_regular_file, write_atomically
from .model import Finding, Report

STATE_FORMAT = 2
# Far above any real analysis (findings, file hashes and a few verifications: kilobytes to a few megabytes).
MAX_STATE_BYTES = 256 * 1024 * 1024

OPEN, APPLIED, OUTDATED = "open", "applied", "outdated"


# -- the saved analysis ---------------------------------------------------------------------------------------


@dataclass
class SavedAnalysis:
    """``last.json``: one analysis of a repo, and which of its fixes ``apply`` has applied since."""

    path: Path  # the state file itself
    repo: Path  # resolved
    version: str
    created: str
    logdir: Path | None  # the profile it was gated by, so --reanalyze can do the same analysis again
    run: str | None
    options: dict[str, Any]  # the command-line options of that analysis (select, ignore, show_all, min_confidence)
    files: dict[str, str]  # repo-relative posix path -> content hash of the text analysed
    findings: list[Finding]
    status: dict[str, str] = field(default_factory=dict)  # finding id -> OPEN / APPLIED / OUTDATED
    # `advisor verify` results (advisor.verify.Verification.to_json()), one per patch set, oldest first.
    verifications: list[dict[str, Any]] = field(default_factory=list)

    def status_of(self, finding: Finding) -> str:
        return self.status.get(finding.id, OPEN)

    def record_apply(self, applied: list[Finding], rewritten: set[str]) -> None:
        """Mark ``applied`` fixes done, and the other open fixes of the ``rewritten`` files outdated: their
        positions refer to the text before this apply."""
        for finding in applied:
            self.status[finding.id] = APPLIED
        for finding in self.findings:
            if finding.location.path.as_posix() in rewritten and self.status_of(finding) == OPEN:
                self.status[finding.id] = OUTDATED
        self.save()

    def record_verification(self, verification: dict[str, Any]) -> None:
        """Keep ``verification``, replacing an earlier one of the same patch set."""
        patches = set(verification["patches"])
        self.verifications = [v for v in self.verifications if set(v["patches"]) != patches] + [verification]
        self.save()

    def verification_of(self, finding_id: str) -> dict[str, Any] | None:
        """The measurement of the finding's fix alone, else the latest verification whose patch set includes it."""
        return self.verification_alone(finding_id) or next(
            (v for v in reversed(self.verifications) if finding_id in v["patches"]), None)

    def verification_alone(self, finding_id: str) -> dict[str, Any] | None:
        """The latest verification of the finding's fix and no other."""
        return next((v for v in reversed(self.verifications) if v["patches"] == [finding_id]), None)

    def save(self) -> None:
        document = {
            "format": STATE_FORMAT,
            "tool": "advisor",
            "version": self.version,
            "created": self.created,
            "repo": str(self.repo),
            "logdir": str(self.logdir) if self.logdir is not None else None,
            "run": self.run,
            "options": self.options,
            "files": self.files,
            "findings": [{**f.to_state(), "status": self.status_of(f)} for f in self.findings],
            "verifications": self.verifications,
        }
        if not self.path.parent.is_dir():
            self.path.parent.mkdir(parents=True)
            # The folder is advisor's own: keep it out of the user's commits.
            (self.path.parent / ".gitignore").write_text("*\n", encoding="utf-8")
        write_atomically(self.path, json.dumps(document, indent=1).encode())


def state_path(repo: Path, state_file: Path) -> Path:
    """Where the saved analysis of ``repo`` lives. A configured ``state-file`` is absolute, already held inside its
    project by :func:`advisor.config.load_settings`; the default is inside the repo and must stay there (a
    committed ``.advisor`` symlink could lead the writes anywhere)."""
    if state_file.is_absolute():
        return state_file
    path = repo / state_file
    if not is_inside(path, repo):
        raise InputError(f"{path} leads outside the repository {repo} (a symlink?); advisor keeps its saved analysis "
                         f"inside the repository")
    return path


def save_analysis(report: Report, state_file: Path, logdir: Path | None, run: str | None,
                  options: dict[str, Any]) -> SavedAnalysis:
    path = state_path(report.repo, state_file)
    saved = SavedAnalysis(
        path=path, repo=report.repo.resolve(), version=__version__,
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        logdir=logdir.resolve() if logdir is not None else None, run=run, options=options,
        files=dict(report.file_hashes), findings=list(report.findings),
        verifications=_verifications_still_valid(path, report))
    saved.save()
    return saved


def _verifications_still_valid(path: Path, report: Report) -> list[dict[str, Any]]:
    """The previous analysis' verifications whose fixes are still found in files that have not changed since they
    were measured: analysing the same code again keeps them, editing it drops them."""
    try:
        previous = json.loads(read_regular_file(path, MAX_STATE_BYTES)).get("verifications", [])
    except (OSError, ValueError, AttributeError):
        return []
    ids = {f.id for f in report.findings}
    return [v for v in previous if isinstance(v, dict) and set(v.get("patches", ())) <= ids
            and all(report.file_hashes.get(name) == digest for name, digest in v.get("files", {}).items())]


def load_analysis(repo: Path, state_file: Path) -> SavedAnalysis:
    """The saved analysis of ``repo``; any reason it cannot be used is an :class:`InputError` saying what to do."""
    path = state_path(repo, state_file)
    redo = f"run `advisor analyze {repo}` (or `advisor apply --reanalyze`)"
    try:
        document = json.loads(read_regular_file(path, MAX_STATE_BYTES))
    except FileNotFoundError:
        raise InputError(f"no saved analysis at {path}: {redo} first") from None
    except OSError as exc:
        raise InputError(f"{path}: unreadable saved analysis ({exc.strerror}): {redo}") from None
    except ValueError as exc:
        raise InputError(f"{path}: unreadable saved analysis ({exc}): {redo}") from None
    if not isinstance(document, dict) or document.get("tool") != "advisor" or document.get("format") != STATE_FORMAT:
        raise InputError(f"{path}: not a saved analysis of this advisor: {redo}")
    if document.get("version") != __version__:
        raise InputError(f"{path} was saved by advisor {document.get('version')}, this is {__version__}: {redo}")
    if document.get("repo") != str(repo.resolve()):
        raise InputError(f"{path} is the analysis of {document.get('repo')}, not of {repo.resolve()}: {redo}")
    try:
        findings = [Finding.from_state(f) for f in document["findings"]]
        logdir = document["logdir"]
        return SavedAnalysis(path, repo.resolve(), document["version"], document["created"],
                             Path(logdir) if logdir else None, document["run"], document["options"],
                             document["files"], findings,
                             {f.id: entry["status"] for f, entry in zip(findings, document["findings"])},
                             document.get("verifications", []))
    except (KeyError, TypeError, ValueError, ImportError) as exc:
        raise InputError(f"{path}: damaged saved analysis ({type(exc).__name__}: {exc}): {redo}") from None


def previous_analysis_options(repo: Path, state_file: Path) -> tuple[Path | None, str | None, dict[str, Any]]:
    """The profile and options of the last analysis, for doing it again; nothing when there is none usable."""
    try:
        saved = load_analysis(repo, state_file)
    except InputError:
        return None, None, {}
    return saved.logdir, saved.run, saved.options
