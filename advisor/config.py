"""Settings of one run: which rules to run and what hardware advice should assume."""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import InputError


@dataclass(frozen=True)
class Settings:
    select: tuple[str, ...] = ("ALL",)
    ignore: tuple[str, ...] = ()
    show_all: bool = False
    target_device: str | None = None  # "gpu", "tpu" or "cpu"; None: unknown (static) or from the profile
    extra: dict = field(default_factory=dict)

    def is_selected(self, code: str) -> bool:
        return _matches(self.select, code) and not _matches(self.ignore, code)


def _matches(selectors: tuple[str, ...], code: str) -> bool:
    return any(s == "ALL" or code.startswith(s) for s in selectors)


def parse_selectors(value: str | None, known_codes: list[str]) -> tuple[str, ...]:
    """``"TFD,TFH001"`` -> ("TFD", "TFH001"); an entry matching no rule code is an input error."""
    if not value:
        return ()
    selectors = tuple(s.strip().upper() for s in value.split(",") if s.strip())
    for selector in selectors:
        if selector != "ALL" and not any(code.startswith(selector) for code in known_codes):
            raise InputError(f"unknown rule code or prefix {selector!r} (see `advisor rules`)")
    return selectors
