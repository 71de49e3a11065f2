"""The data that flows through advisor: findings, their evidence, speedup estimates and fixes.

Everything here is plain data with a ``to_json`` that produces the documented JSON contract, so every
report format renders from the same objects.
"""

from __future__ import annotations

import enum
import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping


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


class Applicability(str, enum.Enum):
    """Ruff's distinction: a safe fix keeps the program's meaning; an unsafe one may change it."""

    SAFE = "safe"
    UNSAFE = "unsafe"


# Evidence kinds: what the source shows, what the profile shows, and what the profile shows against a finding.
SOURCE, PROFILE, CONTRADICTION = "source", "profile", "contradiction"


@dataclass(frozen=True)
class Evidence:
    """One fact behind a finding: where it comes from (:data:`SOURCE`, :data:`PROFILE`, or
    :data:`CONTRADICTION` when the profile speaks against it) and what it says."""

    kind: str
    message: str
    data: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "message": self.message, "data": dict(self.data)}


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


@dataclass(frozen=True)
class Patch:
    """A fix rendered against a file: the unified diff (``git apply``-able from the repo root) and the new text."""

    description: str
    applicability: Applicability
    why_unsafe: str | None
    diff: str
    new_code: str = field(repr=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "description": self.description,
            "applicability": self.applicability.value,
            "why_unsafe": self.why_unsafe,
            "diff": self.diff,
        }


@dataclass(frozen=True)
class Location:
    """A span in a repo file. Lines and columns are 1-based (``column`` points at the first character)."""

    path: Path  # relative to the analysed repo
    line: int
    column: int
    end_line: int
    end_column: int

    @property
    def display(self) -> str:
        return f"{self.path.as_posix()}:{self.line}:{self.column}"


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

    @property
    def contradicted(self) -> bool:
        """The profile contradicts this finding: it is hidden unless the user asks for everything."""
        return any(e.kind == CONTRADICTION for e in self.evidence)

    @property
    def id(self) -> str:
        """A short id that stays the same across runs while the finding's code and place stay the same."""
        key = f"{self.code}:{self.location.path.as_posix()}:{self.location.line}:{self.location.column}"
        return hashlib.sha1(key.encode()).hexdigest()[:8]

    def sort_key(self) -> tuple:
        """Surest first, then by the gain the finding can promise: the low end of its range, not the midpoint,
        which would favour wide speculative ranges over certain ones. Equal promises keep source order."""
        promised = -(self.speedup.low if self.speedup else 1.0)
        return (self.confidence.rank, self.priority, promised, self.location.path.as_posix(), self.location.line,
                self.code)

    def to_json(self) -> dict[str, Any]:
        loc = self.location
        return {
            "id": self.id,
            "code": self.code,
            "name": self.name,
            "path": loc.path.as_posix(),
            "line": loc.line,
            "column": loc.column,
            "end_line": loc.end_line,
            "message": self.message,
            "confidence": self.confidence.value,
            "evidence": [e.to_json() for e in self.evidence],
            "speedup": self.speedup.to_json() if self.speedup else None,
            "fix": self.patch.to_json() if self.patch else None,
        }
