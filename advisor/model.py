"""The data that flows through advisor: findings, their evidence, speedup estimates, fixes and the report.

Everything here is plain data with a ``to_json`` that produces the documented JSON contract, so every report format
renders from the same objects; ``Finding.to_state``/``from_state`` is the codec of the saved analysis and the result
cache. A leaf: it imports nothing of advisor's but the profile's plain data (``advisor.profile.facts``).
"""

from __future__ import annotations

import enum
import hashlib
import importlib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Mapping

from . import __version__
from .profile.facts import ProfileFindings

# Codemods are restored by the name stored in a saved analysis; only advisor's own may be named, so a crafted
# state file cannot make advisor import arbitrary code.
CODEMOD_PACKAGE = "advisor.codemods."


class Confidence(str, enum.Enum):
    """How sure advisor is that a finding costs time in this program.

    ``confirmed``: the profile shows the cost. ``likely``: the source shows the problem and nothing contradicts
    it. ``possible``: the source shows a pattern that the runtime may already handle, or the profile contradicts it.
    """

    CONFIRMED = "confirmed"
    LIKELY = "likely"
    POSSIBLE = "possible"

    @property
    def rank(self) -> int:
        return {"confirmed": 0, "likely": 1, "possible": 2}[self.value]


class Reach(str, enum.Enum):
    """Whether a training run reaches the code a finding is about. ``other``: the repo trains, but not through
    this code (an inference, evaluation or visualization script): such findings are hidden unless the user asks for
    everything or a profile shows the code running. ``unknown``: the repo shows no training at all (a library)."""

    TRAINING = "training"
    UNKNOWN = "unknown"
    OTHER = "other"

    @property
    def rank(self) -> int:
        return {"training": 0, "unknown": 1, "other": 2}[self.value]


class Applicability(str, enum.Enum):
    """Ruff's distinction: a safe fix keeps the program's meaning; an unsafe one may change it."""

    SAFE = "safe"
    UNSAFE = "unsafe"


class FixAvailability(str, enum.Enum):
    """Whether a rule's findings come with a fix (Ruff's ``FixAvailability``): ``always``, ``sometimes`` (the
    finding says why not when it has none) or ``never``."""

    ALWAYS = "always"
    SOMETIMES = "sometimes"
    NEVER = "never"


class EvidenceKind(str, enum.Enum):
    """Where a fact comes from: the source, the profile, or the profile speaking against the finding (a
    contradicted finding is hidden unless the user asks for everything)."""

    SOURCE = "source"
    PROFILE = "profile"
    CONTRADICTION = "contradiction"

    def __str__(self) -> str:  # reports print the kind as users read it: "profile", not "EvidenceKind.PROFILE"
        return self.value


@dataclass(frozen=True)
class Evidence:
    """One fact behind a finding: where it comes from and what it says, with the numbers it rests on in ``data``.

    Build one with :meth:`source`, :meth:`profile` or :meth:`contradiction`.
    """

    kind: EvidenceKind
    message: str
    data: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def source(cls, message: str, data: Mapping[str, Any] | None = None) -> "Evidence":
        return cls(EvidenceKind.SOURCE, message, data or {})

    @classmethod
    def profile(cls, message: str, data: Mapping[str, Any] | None = None) -> "Evidence":
        return cls(EvidenceKind.PROFILE, message, data or {})

    @classmethod
    def contradiction(cls, message: str, data: Mapping[str, Any] | None = None) -> "Evidence":
        return cls(EvidenceKind.CONTRADICTION, message, data or {})

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "message": self.message, "data": dict(self.data)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Evidence":
        return cls(EvidenceKind(data["kind"]), data["message"], data.get("data") or {})


@dataclass(frozen=True)
class SpeedupEstimate:
    """An expected whole-step speedup range, e.g. 1.3x-1.8x, and how it was computed."""

    low: float
    high: float
    basis: str

    def __post_init__(self) -> None:
        if not (1.0 <= self.low <= self.high):
            raise ValueError(f"speedup range must satisfy 1 <= low <= high, got {self.low}..{self.high}")

    @property
    def midpoint(self) -> float:
        return (self.low + self.high) / 2

    def to_json(self) -> dict[str, Any]:
        return {"low": round(self.low, 3), "high": round(self.high, 3), "basis": self.basis}


@dataclass(frozen=True)
class FixRef:
    """What a rule asks a codemod to do: the codemod class and its keyword arguments.

    Rules never build diffs; the engine runs the codemod on the already-parsed module to make a :class:`Patch`.
    """

    codemod: type
    args: Mapping[str, Any]
    description: str
    applicability: Applicability
    why_unsafe: str | None = None

    @property
    def codemod_name(self) -> str:
        return f"{self.codemod.__module__}:{self.codemod.__qualname__}"


def load_codemod(name: str) -> type:
    """The codemod class a saved analysis names (``advisor.codemods.parallel_map:AddNumParallelCalls``)."""
    from libcst.codemod import Codemod

    module_name, _, class_name = name.partition(":")
    if not module_name.startswith(CODEMOD_PACKAGE) or not class_name:
        raise ValueError(f"codemod {name!r} is not one of advisor's")
    codemod = getattr(importlib.import_module(module_name), class_name, None)
    if not (isinstance(codemod, type) and issubclass(codemod, Codemod)):
        raise ValueError(f"{name!r} is not a codemod")
    return codemod


@dataclass(frozen=True)
class Patch:
    """A fix rendered against a file: the unified diff (``git apply``-able from the repo root) and the new text.

    For a notebook ``diff`` is the diff of the notebook's file (its JSON), which ``git apply`` takes, and
    ``cell_diff`` the diff of the changed cells' source, which people read.
    """

    description: str
    applicability: Applicability
    why_unsafe: str | None
    diff: str
    new_code: str = field(repr=False, compare=False)
    cell_diff: str | None = None

    @property
    def shown_diff(self) -> str:
        """The diff reports show: a notebook's cells, another file's text."""
        return self.cell_diff if self.cell_diff is not None else self.diff

    def to_json(self) -> dict[str, Any]:
        return {
            "description": self.description,
            "applicability": self.applicability.value,
            "why_unsafe": self.why_unsafe,
            "diff": self.diff,
            "cell_diff": self.cell_diff,
        }


@dataclass(frozen=True)
class CellSpan:
    """Where a span of a notebook's code is, as people and tools see it.

    ``cell`` counts all of the notebook's cells from 1, markdown included (as VS Code and Ruff number them);
    ``line``/``end_line`` are lines in that cell. ``file_*`` is the same span in the ``.ipynb`` file's own text
    (its JSON), where code-scanning UIs and pull-request annotations point.
    """

    cell: int
    line: int
    end_line: int
    file_line: int
    file_column: int
    file_end_line: int
    file_end_column: int


@dataclass(frozen=True)
class Location:
    """A span in a repo file. Lines and columns are 1-based (``column`` points at the first character).

    In a notebook, lines are those of the module its code cells make (what codemods and suppressions use) and
    ``cell`` says where that is in the notebook; columns are the same in both.
    """

    path: Path  # relative to the analysed repo
    line: int
    column: int
    end_line: int
    end_column: int
    cell: CellSpan | None = None

    @property
    def display(self) -> str:
        """``data.py:37:13``; in a notebook ``train.ipynb:cell 3:2:13``."""
        if self.cell is not None:
            return f"{self.path.as_posix()}:cell {self.cell.cell}:{self.cell.line}:{self.column}"
        return f"{self.path.as_posix()}:{self.line}:{self.column}"

    @property
    def line_label(self) -> str:
        """The line as messages name it: "line 37"; in a notebook "cell 3, line 2"."""
        return f"cell {self.cell.cell}, line {self.cell.line}" if self.cell is not None else f"line {self.line}"

    @property
    def shown_lines(self) -> tuple[int, int]:
        """The first and last line as people see them: in the file, or in the notebook's cell."""
        return (self.cell.line, self.cell.end_line) if self.cell is not None else (self.line, self.end_line)

    def to_state(self) -> dict[str, Any]:
        return {"line": self.line, "column": self.column, "end_line": self.end_line, "end_column": self.end_column,
                "cell": asdict(self.cell) if self.cell is not None else None}

    @classmethod
    def from_state(cls, path: Path, data: Mapping[str, Any]) -> "Location":
        return cls(path, data["line"], data["column"], data["end_line"], data["end_column"],
                   CellSpan(**data["cell"]) if data["cell"] is not None else None)


@dataclass
class Finding:
    """One problem in the user's code, with what backs it and what fixes it."""

    code: str
    name: str
    location: Location
    message: str
    confidence: Confidence
    evidence: list[Evidence] = field(default_factory=list)
    speedup: SpeedupEstimate | None = None
    fix: FixRef | None = None
    patch: Patch | None = None
    # Ordering hint inside one confidence level: validation pipelines matter less than training ones, etc.
    priority: int = 0
    reach: Reach = Reach.UNKNOWN

    @property
    def contradicted(self) -> bool:
        """The profile contradicts this finding: it is hidden unless the user asks for everything."""
        return any(e.kind is EvidenceKind.CONTRADICTION for e in self.evidence)

    @property
    def id(self) -> str:
        """A short id that stays the same across runs while the finding's code and place stay the same."""
        key = f"{self.code}:{self.location.path.as_posix()}:{self.location.line}:{self.location.column}"
        return hashlib.sha1(key.encode()).hexdigest()[:8]

    @property
    def off_training(self) -> bool:
        """The repo trains elsewhere and no capture shows this code running: hidden unless the user asks."""
        return self.reach is Reach.OTHER and self.confidence is not Confidence.CONFIRMED

    def sort_key(self) -> tuple:
        """Surest first, code a training run reaches before the rest, then by the gain the finding can promise: the
        low end of its range, not the midpoint, which would favour wide speculative ranges over certain ones. Equal
        promises keep source order."""
        promised = -(self.speedup.low if self.speedup else 1.0)
        return (self.confidence.rank, self.reach.rank, self.priority, promised, self.location.path.as_posix(),
                self.location.line, self.code)

    def to_json(self) -> dict[str, Any]:
        loc = self.location
        line, end_line = loc.shown_lines
        return {
            "id": self.id,
            "code": self.code,
            "name": self.name,
            "path": loc.path.as_posix(),
            "cell": loc.cell.cell if loc.cell is not None else None,
            "line": line,
            "column": loc.column,
            "end_line": end_line,
            "message": self.message,
            "confidence": self.confidence.value,
            "reach": self.reach.value,
            "evidence": [e.to_json() for e in self.evidence],
            "speedup": self.speedup.to_json() if self.speedup else None,
            "fix": self.patch.to_json() if self.patch else None,
        }

    def to_state(self) -> dict[str, Any]:
        """The JSON contract plus what restoring the finding needs: the full span, and the fix as a codemod
        reference with the rendered patch."""
        data = self.to_json()
        data["location"] = self.location.to_state()
        data["priority"] = self.priority
        if self.fix is not None and self.patch is not None:
            data["fix"].update(codemod=self.fix.codemod_name, args=dict(self.fix.args), new_code=self.patch.new_code)
        return data

    @classmethod
    def from_state(cls, data: Mapping[str, Any]) -> "Finding":
        """The finding :meth:`to_state` wrote. Raises KeyError, TypeError, ValueError or ImportError on an entry
        of another shape, or one naming a codemod that is not advisor's."""
        location = Location.from_state(Path(data["path"]), data["location"])
        speedup = SpeedupEstimate(**data["speedup"]) if data["speedup"] else None
        fix = patch = None
        if data["fix"]:
            fix_data = data["fix"]
            applicability = Applicability(fix_data["applicability"])
            fix = FixRef(load_codemod(fix_data["codemod"]), fix_data["args"], fix_data["description"], applicability,
                         fix_data["why_unsafe"])
            patch = Patch(fix_data["description"], applicability, fix_data["why_unsafe"], fix_data["diff"],
                          fix_data["new_code"], fix_data["cell_diff"])
        return cls(data["code"], data["name"], location, data["message"], Confidence(data["confidence"]),
                   [Evidence.from_json(e) for e in data["evidence"]], speedup, fix, patch, priority=data["priority"],
                   reach=Reach(data["reach"]))


@dataclass
class Report:
    """The result of one run, rendered by every output format."""

    repo: Path
    findings: list[Finding]
    profile: ProfileFindings | None = None
    warnings: list[str] = field(default_factory=list)
    files_seen: int = 0
    files_analyzed: int = 0
    files_excluded: int = 0  # left out by the `exclude` patterns (test code, by default)
    hidden: int = 0  # findings the profile contradicts, left out unless --show-all
    off_training: int = 0  # findings on code no training run reaches, left out unless --show-all
    less_sure: int = 0  # findings below min-confidence (by default: possible), left out unless --show-all
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
