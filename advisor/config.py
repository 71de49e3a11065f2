"""Settings of one run: which rules to run, where, what hardware advice should assume, and where state lives.

Settings come from ``[tool.advisor]`` in the nearest ``pyproject.toml`` (see :func:`load_settings`), and the
command line overrides them. Everything here is validated up front, so a typo in the configuration is one clear
error line instead of a silently ignored key.
"""

from __future__ import annotations

import json
import math
import tomllib
from dataclasses import asdict, dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Any, Callable, Iterable

import pathspec

from .errors import InputError
from .files import is_inside, read_regular_file
from .model import Confidence, Finding

DEVICES = ("gpu", "tpu", "cpu")
# The multiple batch sizes and layer widths should have to fill the hardware's matrix units: Tensor Cores take
# 8 (fp16/bf16) elements per dimension, a TPU's MXU is 128 wide; a CPU has no such granularity.
DEFAULT_SHAPE_MULTIPLE = {"gpu": 8, "tpu": 128, "cpu": 1}
UNKNOWN_DEVICE_SHAPE_MULTIPLE = 8  # without a device, assume the common case: training on a GPU
DEFAULT_STATE_FILE = Path(".advisor/last.json")
MAX_PYPROJECT_BYTES = 4 * 1024 * 1024
# Test code is not where training time goes: its datasets and layers exist to check shapes and errors. Left out of
# analysis by default (gitignore-style patterns, relative to the analysed repo); `exclude = []` analyses everything.
# A file only its name marks as a test (`build_eval_test.py`, "build, evaluate, test") that the program imports is
# part of the program: see Settings.named_like_a_test.
TEST_FILE_NAMES = ("test_*.py", "*_test.py", "*_tests.py", "conftest.py", "*_test_case.py")
DEFAULT_EXCLUDE = ("tests/", "test/", *TEST_FILE_NAMES)


@dataclass(frozen=True)
class Settings:
    select: tuple[str, ...] = ()  # codes or prefixes; empty: the rules enabled by default; "ALL": every rule
    ignore: tuple[str, ...] = ()
    # (gitignore-style pattern, codes): the codes are not reported in files the pattern matches
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    show_all: bool = False
    target_device: str | None = None  # "gpu", "tpu" or "cpu"; None: unknown (static) or from the profile
    # Report nothing less sure than this. Static `possible` findings were right 19% of the time on real repos
    # (docs/accuracy.md), `likely` ones 63%: a wrong finding costs more than a missing one.
    min_confidence: Confidence = Confidence.LIKELY
    min_speedup: float | None = None  # drop findings whose estimated speedup stays below this (e.g. 1.05)
    shape_multiple: int | None = None  # None: the default for the device, see shape_multiple_for
    # Where per-file-ignores patterns and relative paths of the configuration are anchored: the folder of the
    # pyproject.toml they came from. None: the current directory.
    config_dir: Path | None = None
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE  # files left out of the analysis (gitignore-style patterns)
    state_file: Path = DEFAULT_STATE_FILE  # relative to the analysed repo unless absolute
    cache_dir: Path | None = None  # None: the per-user default (advisor.cache.cache_root)

    def is_selected(self, code: str, enabled_by_default: bool = True) -> bool:
        """Whether rule ``code`` runs: selected by a code, a prefix or ``ALL``, or (with no selection) enabled by
        default; and not ignored."""
        chosen = _matches(self.select, code) if self.select else enabled_by_default
        return chosen and not _matches(self.ignore, code)

    def reports_in(self, path: Path, code: str) -> bool:
        """Whether a finding of ``code`` in ``path`` (the file as the run sees it) is reported: not ignored there
        by per-file-ignores."""
        if not self.per_file_ignores:
            return True
        relative = self._relative_to_config(path)
        return not any(_matches(codes, code) for spec, codes in self._per_file_specs if spec.match_file(relative))

    def is_excluded(self, path: Path) -> bool:
        """Whether ``path`` (relative to the analysed repo, or to the working directory for ``check``) is left out."""
        return bool(self.exclude) and self._exclude_spec.match_file(path.as_posix())

    def named_like_a_test(self, path: Path) -> bool:
        """Whether only the default test-file name patterns leave ``path`` out: not its folder (``tests/``), not a
        pattern the user wrote."""
        others = [pattern for pattern in self.exclude if pattern not in TEST_FILE_NAMES]
        return self.is_excluded(path) and not (others and pathspec.GitIgnoreSpec.from_lines(others).match_file(
            path.as_posix()))

    @cached_property
    def _exclude_spec(self) -> pathspec.PathSpec:
        return pathspec.GitIgnoreSpec.from_lines(self.exclude)

    def is_sure_enough(self, finding: Finding) -> bool:
        return finding.confidence.rank <= self.min_confidence.rank

    def meets_min_speedup(self, finding: Finding) -> bool:
        # Static findings have no estimate: a speedup threshold cannot judge them, so they stay.
        return self.min_speedup is None or finding.speedup is None or finding.speedup.high >= self.min_speedup

    def shape_multiple_for(self, device: str | None = None) -> int:
        """The multiple to suggest for batch sizes and units on ``device`` (default: the configured device)."""
        if self.shape_multiple is not None:
            return self.shape_multiple
        return DEFAULT_SHAPE_MULTIPLE.get(device or self.target_device or "", UNKNOWN_DEVICE_SHAPE_MULTIPLE)

    def fingerprint(self) -> str:
        """A stable text of everything that can change findings: part of cache keys."""
        return json.dumps(asdict(self), sort_keys=True, default=str)

    @cached_property
    def _per_file_specs(self) -> list[tuple[pathspec.PathSpec, tuple[str, ...]]]:
        return [(pathspec.GitIgnoreSpec.from_lines([pattern]), codes) for pattern, codes in self.per_file_ignores]

    def _relative_to_config(self, path: Path) -> str:
        base = (self.config_dir or Path.cwd()).resolve()
        try:
            return path.resolve().relative_to(base).as_posix()
        except ValueError:  # outside the configured project: only patterns without a folder can match it
            return path.as_posix()


def _matches(selectors: Iterable[str], code: str) -> bool:
    return any(s == "ALL" or code.startswith(s) for s in selectors)


def parse_selectors(value: str | None, known_codes: list[str]) -> tuple[str, ...]:
    """``"TFD,TFH001"`` -> ("TFD", "TFH001"); an entry matching no rule code is an input error."""
    if not value:
        return ()
    return _check_selectors([s for s in value.split(",")], known_codes)


def _check_selectors(values: Iterable[str], known_codes: list[str], required: str | None = None) \
        -> tuple[str, ...]:
    """The selectors, checked against the rule codes; ``required``: the option that must name at least one (an
    empty ``--select ''``, from a variable left unset, would otherwise silently run the default rules)."""
    selectors = tuple(s.strip().upper() for s in values if s.strip())
    if required and not selectors:
        raise InputError(f"{required} names no rule: give rule codes or prefixes, or ALL for every rule")
    for selector in selectors:
        if selector != "ALL" and not any(code.startswith(selector) for code in known_codes):
            raise InputError(f"unknown rule code or prefix {selector!r} (see `advisor rules`)")
    return selectors


# -- pyproject.toml -------------------------------------------------------------------------------------------


def find_pyproject(start: Path) -> Path | None:
    """The nearest ``pyproject.toml`` in ``start`` or a folder above it."""
    start = start.resolve()
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def _string_list(key: str, value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{key} must be a list of strings, e.g. [\"TFD001\"]")
    return value


def _choice(choices: Iterable[str]) -> Callable[[str, Any], str]:
    choices = tuple(choices)

    def check(key: str, value: Any) -> str:
        if value not in choices:
            raise ValueError(f"{key} must be one of {', '.join(choices)}, got {value!r}")
        return value
    return check


def _positive_int(key: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{key} must be a positive integer, got {value!r}")
    return value


def _speedup(key: str, value: Any) -> float:
    # nan passes every comparison and inf none: either would hide every estimated finding
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 1:
        raise ValueError(f"{key} must be a number >= 1 (a speedup factor, e.g. 1.1), got {value!r}")
    return float(value)


def _boolean(key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{key} must be true or false, got {value!r}")
    return value


def _path(key: str, value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise ValueError(f"{key} must be a path string, got {value!r}")
    return value


def _per_file_ignores(key: str, value: Any) -> dict[str, list[str]]:
    if not isinstance(value, dict):
        raise ValueError(f"{key} must be a table of glob = [codes], e.g. \"tests/**\" = [\"ALL\"]")
    return {pattern: _string_list(f"{key}.{pattern!r}", codes) for pattern, codes in value.items()}


# key in [tool.advisor] -> validator returning the checked value
CONFIG_KEYS: dict[str, Callable[[str, Any], Any]] = {
    "select": _string_list,
    "ignore": _string_list,
    "per-file-ignores": _per_file_ignores,
    "target-device": _choice(DEVICES),
    "min-confidence": _choice(c.value for c in Confidence),
    "min-speedup": _speedup,
    "shape-multiple": _positive_int,
    "show-all": _boolean,
    "state-file": _path,
    "cache-dir": _path,
    "exclude": _string_list,
    "extend-exclude": _string_list,
}


def read_config(pyproject: Path) -> dict[str, Any]:
    """The validated ``[tool.advisor]`` table of ``pyproject`` (empty when there is none)."""
    try:
        document = tomllib.loads(read_regular_file(pyproject, MAX_PYPROJECT_BYTES).decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InputError(f"{pyproject}: not UTF-8, as TOML must be (byte {exc.start}: {exc.reason})") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{pyproject}: invalid TOML: {exc}") from None
    except OSError as exc:
        raise InputError(f"{pyproject}: cannot read: {exc.strerror}") from None
    tool = document.get("tool", {})
    table = tool.get("advisor", {}) if isinstance(tool, dict) else None
    if not isinstance(table, dict):
        raise InputError(f"{pyproject}: [tool.advisor] must be a table")
    checked = {}
    for key, value in table.items():
        validator = CONFIG_KEYS.get(key)
        if validator is None:
            raise InputError(f"{pyproject}: [tool.advisor]: unknown key {key!r} (known: {', '.join(CONFIG_KEYS)})")
        try:
            checked[key] = validator(key, value)
        except ValueError as exc:
            raise InputError(f"{pyproject}: [tool.advisor]: {exc}") from None
    return checked


def _project_path(pyproject: Path, key: str, value: str) -> Path:
    """A path of the configuration (``state-file``, ``cache-dir``), relative to the pyproject.toml's folder, which it
    may not leave.

    The file comes with the repository, so whoever wrote the repository would choose where advisor writes: an
    absolute path, ``../..`` or a symlink out of the project could overwrite any file the user may write. A cache
    elsewhere is the choice of the person running advisor, who sets $ADVISOR_CACHE_DIR.
    """
    folder = pyproject.parent
    path = folder / Path(value).expanduser()
    if not is_inside(path, folder):
        raise InputError(f"{key} = {value!r} leads outside the project folder {folder}; paths in a repository's "
                         f"configuration stay inside it (for a cache elsewhere, set $ADVISOR_CACHE_DIR)")
    return path.resolve()


def load_settings(start: Path, known_codes: list[str], *, select: str | None = None, ignore: str | None = None,
                  show_all: bool = False, min_confidence: str | None = None) -> Settings:
    """Settings for a run from ``start``: the nearest pyproject.toml's [tool.advisor], then the command line."""
    pyproject = find_pyproject(start)
    config = read_config(pyproject) if pyproject is not None else {}
    config_dir = pyproject.parent if pyproject is not None else None
    try:
        settings = Settings(
            select=_check_selectors(config.get("select", []), known_codes),
            ignore=_check_selectors(config.get("ignore", []), known_codes),
            per_file_ignores=tuple((pattern, _check_selectors(codes, known_codes))
                                   for pattern, codes in config.get("per-file-ignores", {}).items()),
            show_all=config.get("show-all", False),
            target_device=config.get("target-device"),
            min_confidence=Confidence(config.get("min-confidence", Settings.min_confidence.value)),
            min_speedup=config.get("min-speedup"),
            shape_multiple=config.get("shape-multiple"),
            config_dir=config_dir,
            exclude=tuple(config.get("exclude", DEFAULT_EXCLUDE)) + tuple(config.get("extend-exclude", ())),
            state_file=(_project_path(pyproject, "state-file", config["state-file"]) if "state-file" in config
                        else DEFAULT_STATE_FILE),
            cache_dir=_project_path(pyproject, "cache-dir", config["cache-dir"]) if "cache-dir" in config else None,
        )
    except InputError as exc:  # an unknown code or a path out of the project in the file: say which file
        raise InputError(f"{pyproject}: [tool.advisor]: {exc}") from None
    # The command line wins over the file.
    overrides: dict[str, Any] = {}
    if select is not None:
        overrides["select"] = _check_selectors(select.split(","), known_codes, "--select")
    if ignore is not None:
        overrides["ignore"] = parse_selectors(ignore, known_codes)
    if show_all:
        overrides["show_all"] = True
    if min_confidence is not None:
        overrides["min_confidence"] = Confidence(min_confidence)
    return replace(settings, **overrides)
