"""The TensorFlow a repo declares it runs on: requirement files, ``setup.py``, ``pyproject.toml``, conda environments,
Dockerfiles.

A fix is only as safe as the TensorFlow it runs on: ``tf.data.AUTOTUNE`` and Keras' ``set_global_policy`` exist
from 2.4, ``tf.numpy_function`` from 1.14. A repo that pins ``tensorflow-gpu==1.12.0`` runs none of them. What a
declaration allows is read here; which API needs what is the rules' and codemods' business.

A declaration covers the modules in its folder and below; the nearest folder that declares TensorFlow wins (a
sub-project with its own ``requirements.txt``). Of several declarations in one folder (``requirements.txt`` and
``requirements-gpu.txt``) the most permissive counts, and one without an upper bound leaves the version open. A
Dockerfile counts like the other declarations of its folder; one in a ``docker/`` folder of its own may build an
image for tooling the code beside it never runs in (a TPU repo's utilities next to its Colab notebooks): no code is
in that folder, so it declares nothing.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from ..files import read_regular_file

TENSORFLOW_DISTRIBUTIONS = frozenset({"tensorflow", "tensorflow-gpu", "tensorflow-cpu", "tensorflow-macos",
                                      "tensorflow-intel", "intel-tensorflow"})
MAX_DECLARATION_BYTES = 1024 * 1024
ANY_MINOR = 999  # `<3`, `==2.*`: whatever minor release comes
# ``tensorflow = "^2.10.1"`` (Poetry), ``tensorflow=1.15`` (conda); the name, then what constrains it.
_POETRY_CARET = re.compile(r"^\^\s*(\d+)((?:\.\d+)*)$")
_POETRY_TILDE = re.compile(r"^~\s*(\d+)\.(\d+)((?:\.\d+)*)$")
# Conda's `name=version` (`tensorflow=1.15`, `tensorflow-gpu=1.0*`), in an environment's list or a `conda install`.
_CONDA_PIN = r"(?:conda-forge::)?(?P<name>[A-Za-z0-9_.-]+)\s*=\s*(?P<version>[0-9][0-9.*]*)"
_CONDA_LINE = re.compile(rf"^\s*-\s*{_CONDA_PIN}\s*$")
# A requirement written as a string in setup.py or pyproject.toml: `"tensorflow-gpu>=1.15,<2.0"`.
_QUOTED_REQUIREMENT = re.compile(r"""["'](?P<text>(?:tensorflow|intel-tensorflow)[A-Za-z0-9_-]*\s*[<>=~!][^"']*)["']""")
_TOML_ENTRY = re.compile(r"""^\s*["']?(?P<name>tensorflow[A-Za-z0-9_-]*)["']?\s*=\s*["'](?P<spec>[^"']+)["']""")
# In a Dockerfile: the TensorFlow image it starts from (`FROM tensorflow/tensorflow:1.12.0-gpu-py3`), a wheel it
# installs (`.../tensorflow_gpu-1.0.0-cp35-cp35m-linux_x86_64.whl`), and what `pip`/`conda install` name, quoted
# (`'tensorflow < 2'`, `'tensorflow=1.0*'`) or not (`tensorflow-gpu==1.2`).
_DOCKER_IMAGE = re.compile(r"^FROM\s+(?:--\S+\s+)?(?:[\w.:-]+/)?tensorflow/tensorflow:(?P<tag>\S+)", re.IGNORECASE)
_DOCKER_IMAGE_VERSION = re.compile(r"^(\d+\.\d+(?:\.\d+)?)(?:$|-)")
_WHEEL = re.compile(r"/(?P<name>tensorflow(?:_gpu|_cpu)?)-(?P<version>\d+\.\d+(?:\.\d+)?)(?:rc\d+)?-\S*\.whl")
_QUOTED = re.compile(r"""["']([^"']*)["']""")
_INSTALL = re.compile(r"\b(?:pip3?|conda)\s+install\b")
_LICENSE_FILE = re.compile(r"(licen[cs]e|copying)(\.(txt|md|rst))?", re.IGNORECASE)
_CONDA_WORD = re.compile(rf"^{_CONDA_PIN}$")


@dataclass(frozen=True)
class TensorflowPin:
    """A declaration that caps TensorFlow: the newest release it allows, as (major, minor)."""

    newest: tuple[int, int]
    requirement: str  # as written: ``tensorflow-gpu==1.12.0``
    path: Path  # the declaring file, relative to the repo root

    def predates(self, version: tuple[int, int]) -> bool:
        """Whether every TensorFlow the declaration allows is older than ``version``."""
        return self.newest < version

    def describe(self) -> str:
        return f"`{self.requirement}` ({self.path.as_posix()})"


def is_declaration(name: str) -> bool:
    """Whether a file named ``name`` declares something about the project of its folder: its dependencies
    (``req.txt`` and ``REQUIREMENTS.txt`` too) or its license."""
    return _declares_dependencies(name) or is_license(name)


def _declares_dependencies(name: str) -> bool:
    return (name.lower().startswith("req") and name.endswith(".txt")) or _is_dockerfile(name) or name in (
        "setup.py", "setup.cfg", "pyproject.toml", "Pipfile", "environment.yml", "environment.yaml")


def is_license(name: str) -> bool:
    """Whether a file named ``name`` is a license (``LICENSE``, ``LICENCE.txt``, ``COPYING``): the project of its
    folder has one of its own."""
    return _LICENSE_FILE.fullmatch(name) is not None


def _is_dockerfile(name: str) -> bool:
    """``Dockerfile``, ``Dockerfile.gpu``, ``Dockerfile-gpu``, ``train.Dockerfile`` (any case)."""
    lowered = name.lower()
    return lowered == "dockerfile" or lowered.startswith(("dockerfile.", "dockerfile-")) or \
        lowered.endswith(".dockerfile")


def declaration_files(root: Path, sources: Iterable[Path]) -> dict[Path, bytes]:
    """The declarations in the folders of ``sources`` (paths relative to ``root``) and their parents up to the root:
    relative path -> contents. Unreadable or oversized files are left out: a missing pin only withholds nothing."""
    folders: set[Path] = set()
    for source in sources:
        folders.update(source.parents)
    found: dict[Path, bytes] = {}
    for folder in sorted(folders):
        try:
            entries = sorted(os.scandir(root / folder), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if is_declaration(entry.name) and entry.is_file(follow_symlinks=False):
                try:
                    found[folder / entry.name] = read_regular_file(Path(entry.path), MAX_DECLARATION_BYTES)
                except OSError:
                    continue
    return found


def tensorflow_pins(declarations: dict[Path, bytes]) -> dict[Path, TensorflowPin | None]:
    """For each folder that declares TensorFlow: the pin its declarations agree on, or None where one of them leaves
    the version open."""
    by_folder: dict[Path, list[TensorflowPin | None]] = {}
    for path, data in declarations.items():
        if not _declares_dependencies(path.name):
            continue
        for requirement, specifier in _tensorflow_requirements(path.name, data.decode("utf-8", errors="replace")):
            newest = _newest_allowed(specifier)
            by_folder.setdefault(path.parent, []).append(
                TensorflowPin(newest, requirement, path) if newest is not None else None)
    return {folder: None if None in pins else max(pins, key=lambda p: p.newest)
            for folder, pins in by_folder.items()}


def _newest_allowed(specifier: SpecifierSet) -> tuple[int, int] | None:
    """The newest TensorFlow release (major, minor) ``specifier`` allows; None when it sets no upper bound."""
    bounds = [bound for clause in specifier if (bound := _upper_bound(clause.operator, clause.version)) is not None]
    return min(bounds) if bounds else None


def _upper_bound(operator: str, written: str) -> tuple[int, int] | None:
    """The newest (major, minor) one clause allows (``<2.4`` allows 2.3, ``~=2.3.1`` and ``==2.3.*`` 2.3)."""
    wildcard = written.endswith(".*")
    try:
        version = Version(written[:-2] if wildcard else written)
    except InvalidVersion:
        return None
    release = version.release + (0, 0)
    major, minor = release[0], release[1]
    if operator in ("==", "===") and not (wildcard and len(version.release) == 1):
        return major, minor
    if operator == "==" or (operator == "~=" and len(version.release) == 2):
        return major, ANY_MINOR  # `==2.*`, `~=2.3`: any 2.x
    if operator == "~=" or operator == "<=":
        return major, minor
    if operator == "<":
        exclusive = len(version.release) < 3 or release[2] == 0  # `<2.4`, `<2.4.0`: 2.4 itself is excluded
        if not exclusive:
            return major, minor
        return (major, minor - 1) if minor > 0 else (major - 1, ANY_MINOR)
    return None


def _tensorflow_requirements(name: str, text: str) -> Iterable[tuple[str, SpecifierSet]]:
    """Each TensorFlow requirement the file declares, as written and as a specifier set."""
    if _is_dockerfile(name):
        yield from _dockerfile_requirements(text)
        return
    for line in text.splitlines():
        line = line.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        candidates: list[str] = []
        if name.endswith(".txt"):
            candidates.append(line)
        elif name in ("environment.yml", "environment.yaml"):
            conda = _CONDA_LINE.match(line)
            if conda is not None:
                candidates.append(_conda_requirement(conda["name"], conda["version"]))
            elif line.startswith("- "):
                candidates.append(line[2:].strip())  # a pip requirement listed under `pip:`
        else:
            candidates += [match["text"] for match in _QUOTED_REQUIREMENT.finditer(line)]
            entry = _TOML_ENTRY.match(line) if name in ("pyproject.toml", "Pipfile") else None
            if entry is not None:
                candidates.append(f"{entry['name']}{_poetry_specifier(entry['spec'])}")
        for candidate in candidates:
            parsed = _parse(candidate)
            if parsed is not None:
                yield parsed


def _dockerfile_requirements(text: str) -> Iterable[tuple[str, SpecifierSet]]:
    """The TensorFlow versions a Dockerfile's image starts from or installs (see ``_DOCKER_IMAGE``). Only versions
    count: an image built from `latest`, or a plain `pip install tensorflow` next to the repo's pinned
    requirements, builds whatever was newest the day it was built, which declares nothing; nor does a version held
    in a build argument (``tensorflow:${TF_VERSION}``, ``tensorflow-gpu==$VERSION``)."""
    for instruction in re.sub(r"\\\s*\n", " ", text).splitlines():
        instruction = instruction.strip()
        if not instruction or instruction.startswith("#"):
            continue
        candidates: list[str] = []
        image = _DOCKER_IMAGE.match(instruction)
        if image is not None:
            tag = _DOCKER_IMAGE_VERSION.match(image["tag"])
            if tag is not None:
                candidates.append(f"tensorflow=={tag[1]}" if tag[1].count(".") == 2 else f"tensorflow=={tag[1]}.*")
        candidates += [f"{wheel['name']}=={wheel['version']}" for wheel in _WHEEL.finditer(instruction)]
        if _INSTALL.search(instruction):
            quoted = _QUOTED.findall(instruction)
            words = quoted + _QUOTED.sub(" ", instruction).split()
            for word in map(str.strip, words):
                conda = _CONDA_WORD.match(word)
                candidates.append(_conda_requirement(conda["name"], conda["version"]) if conda is not None else word)
        for candidate in candidates:
            parsed = _parse(candidate)
            if parsed is not None and parsed[1]:
                yield parsed


def _conda_requirement(name: str, version: str) -> str:
    """Conda's ``name=1.15`` (any 1.15 release), ``name=1.0*`` and ``name=1.15.2`` as PEP 440 requirements."""
    if version.endswith("*"):
        return f"{name}=={version.rstrip('.*')}.*"
    return f"{name}=={version}" if version.count(".") > 1 else f"{name}=={version}.*"


def _poetry_specifier(spec: str) -> str:
    """Poetry's ``^2.10.1`` and ``~1.15`` as PEP 440 ranges; anything else as written (``*`` allows all)."""
    spec = spec.strip()
    caret = _POETRY_CARET.match(spec)
    if caret is not None:
        return f">={caret[1]}{caret[2]},<{int(caret[1]) + 1}"
    tilde = _POETRY_TILDE.match(spec)
    if tilde is not None:
        return f">={tilde[1]}.{tilde[2]}{tilde[3]},<{tilde[1]}.{int(tilde[2]) + 1}"
    return "" if spec == "*" else spec if spec[:1] in "<>=~!" else f"=={spec}"


def _parse(text: str) -> tuple[str, SpecifierSet] | None:
    try:
        requirement = Requirement(text)
    except (InvalidRequirement, InvalidSpecifier):
        return None
    if requirement.name.lower().replace("_", "-") not in TENSORFLOW_DISTRIBUTIONS:
        return None
    return text.strip(), requirement.specifier
