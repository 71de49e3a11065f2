"""Real-world accuracy: advisor's static findings on public TF/Keras repos, scored against hand labels.

``benchmarks/real_world/manifest.json`` pins each repo to a commit and holds, one entry per line:
- ``repos``: owner/name, commit, why it was chosen, the training entry points read for misses;
- ``findings``: a label for every finding advisor gave (repo, path, line, rule, the confidence it got,
  ``right|debatable|wrong``, ``reached``: whether a training run executes that code, ``should_be``: the
  confidence a right or debatable finding deserves, ``cause``: why a finding is wrong or debatable, ``reason``);
- ``misses``: places a correct advisor reports and this one does not (``cell`` for notebooks: the cell's number as
  advisor reports it, from 1, markdown cells included; ``line`` inside that cell).

Their code is never committed. Checkouts live outside this repo (``--repos``, one folder per repo named
``owner+name``, with ``owner+name.commit`` beside it naming the commit); a missing one is made from a local git
snapshot (``--mirror``, the layout ``fetch`` leaves: ``owner+name/repo[/.git]``). advisor runs on a copy of each
checkout (``analyze --select ALL --format json --no-cache``: analyze saves its state into the repo it reads).

Prints per rule: findings, right/debatable/wrong, precision (right / labelled, and right+debatable / labelled,
and right / labelled on code a training run reaches), recall (expected places reported / expected places, where
expected = right labels and misses; also without notebooks), findings in test files and on code no training run
reaches; then the wrong and debatable findings and the misses by cause. Findings without a label are listed in
manifest-ready form; the run then exits 1, as it does when a labelled finding's confidence changed or advisor
crashed. ``--write-docs`` regenerates docs/accuracy.md. ``real_world_labels.py`` keeps the labels in step with a
run's findings (what changed, confidences synced, new labels added, the repos still to fetch).

Run: python benchmarks/real_world_accuracy.py [--repos DIR] [--mirror DIR] [--only OWNER/NAME ...] [--skip-missing]
[--write-docs]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field, fields
from pathlib import Path, PurePosixPath

REPO_ROOT = Path(__file__).resolve().parents[1]
MANIFEST = REPO_ROOT / "benchmarks" / "real_world" / "manifest.json"
DOCS = REPO_ROOT / "docs" / "accuracy.md"
LABELS = ("right", "debatable", "wrong")
CONFIDENCES = ("confirmed", "likely", "possible")
EXIT_OK, EXIT_FAILED, EXIT_UNUSABLE = 0, 1, 2
TEST_DIRS = frozenset({"test", "tests", "testing", "testdata"})


class ManifestError(Exception):
    """The manifest or a checkout cannot be used: one line for the user."""


@dataclass(frozen=True)
class Place:
    """Where a finding is: notebooks add the cell's number (from 1, markdown cells included), lines count inside
    the cell."""

    repo: str
    path: str
    cell: int | None
    line: int
    rule: str

    def describe(self) -> str:
        cell = f" cell {self.cell}" if self.cell is not None else ""
        return f"{self.repo} {self.path}{cell}:{self.line} {self.rule}"


@dataclass(frozen=True)
class Label:
    place: Place
    confidence: str
    label: str
    reached: bool
    should_be: str | None
    cause: str | None
    reason: str


@dataclass(frozen=True)
class Miss:
    place: Place
    cause: str
    reason: str


@dataclass(frozen=True)
class RepoEntry:
    repo: str
    commit: str
    why: str
    entry_points: tuple[str, ...]

    @property
    def folder_name(self) -> str:
        return self.repo.replace("/", "+")


@dataclass
class Manifest:
    repos: list[RepoEntry]
    labels: dict[Place, Label]
    misses: dict[Place, Miss]


def _place(entry: dict, where: str) -> Place:
    try:
        place = Place(entry["repo"], entry["path"], entry.get("cell"), entry["line"], entry["rule"])
    except KeyError as missing:
        raise ManifestError(f"{where}: no {missing.args[0]!r}") from None
    if not isinstance(place.line, int) or not (place.cell is None or isinstance(place.cell, int)):
        raise ManifestError(f"{where}: line and cell must be integers")
    return place


def _choice(entry: dict, key: str, allowed: tuple[str, ...], where: str, optional: bool = False) -> str | None:
    value = entry.get(key)
    if value is None and optional:
        return None
    if value not in allowed:
        raise ManifestError(f"{where}: {key} must be one of {', '.join(allowed)}, not {value!r}")
    return value


def load_manifest(path: Path) -> Manifest:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ManifestError(f"{path}: {exc}") from None
    repos = [RepoEntry(r["repo"], r["commit"], r.get("why", ""), tuple(r.get("entry_points", ())))
             for r in document.get("repos", [])]
    known = {r.repo for r in repos}
    labels: dict[Place, Label] = {}
    for number, entry in enumerate(document.get("findings", []), 1):
        where = f"{path.name}: finding {number}"
        place = _place(entry, where)
        if place.repo not in known or place in labels:
            raise ManifestError(f"{where}: {place.describe()} is " +
                                ("labelled twice" if place in labels else "in no listed repo"))
        label = _choice(entry, "label", LABELS, where)
        should_be = _choice(entry, "should_be", CONFIDENCES, where, optional=True)
        if label != "wrong" and should_be is None:
            raise ManifestError(f"{where}: a {label} finding needs should_be (the confidence it deserves)")
        if not isinstance(entry.get("reached"), bool) or not entry.get("reason"):
            raise ManifestError(f"{where}: needs reached (true or false) and a reason")
        labels[place] = Label(place, _choice(entry, "confidence", CONFIDENCES, where), label, entry["reached"],
                              should_be, entry.get("cause"), entry["reason"])
    misses: dict[Place, Miss] = {}
    for number, entry in enumerate(document.get("misses", []), 1):
        where = f"{path.name}: miss {number}"
        place = _place(entry, where)
        if place.repo not in known or place in misses or place in labels:
            raise ManifestError(f"{where}: {place.describe()} is in no listed repo, or recorded twice")
        if not entry.get("cause") or not entry.get("reason"):
            raise ManifestError(f"{where}: needs a cause and a reason")
        misses[place] = Miss(place, entry["cause"], entry["reason"])
    return Manifest(repos, labels, misses)


# --- checkouts ---------------------------------------------------------------------------------------------


def _snapshot_git_dir(mirror: Path, repo: RepoEntry) -> Path | None:
    """The git directory ``fetch`` left for the repo: a bare one, or the .git of a clone with a work tree."""
    base = mirror / repo.folder_name / "repo"
    for candidate in (base / ".git", base):
        if (candidate / "HEAD").is_file() and (candidate / "objects").is_dir():
            return candidate
    return None


def _git(git_dir: Path, *args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], capture_output=True, text=True, **kwargs)


def materialize(repo: RepoEntry, git_dir: Path, destination: Path) -> list[str]:
    """Write the commit's files into ``destination``, leaving the snapshot untouched (a private index file).

    Snapshots lack files of 4 MiB and more (images, weights, notebooks with outputs): returns the Python sources
    and notebooks among them, which the analysis then goes without.
    """
    sources = _git(git_dir, "ls-tree", "-r", "--name-only", repo.commit)
    if sources.returncode != 0:
        raise ManifestError(f"{repo.repo}: commit {repo.commit} is not in the snapshot {git_dir}")
    partial = destination.with_name(destination.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as scratch:
        environment = dict(os.environ, GIT_INDEX_FILE=str(Path(scratch) / "index"))
        _git(git_dir, f"--work-tree={partial}", "checkout", "-f", repo.commit, "--", ".", env=environment)
    absent = [name for name in sources.stdout.splitlines()
              if name.endswith((".py", ".ipynb")) and not (partial / name).is_file()]
    partial.rename(destination)
    return absent


def ensure_checkouts(repos: list[RepoEntry], repos_dir: Path, mirror: Path,
                     skip_missing: bool = False) -> tuple[dict[str, Path], list[str]]:
    """Each repo's checkout at its pinned commit, made from the mirror when missing, and the repos that have
    neither: one error naming every one of them, unless ``skip_missing``."""
    checkouts: dict[str, Path] = {}
    missing: list[str] = []
    for repo in repos:
        folder = repos_dir / repo.folder_name
        marker = repos_dir / f"{repo.folder_name}.commit"
        if folder.is_dir():
            pinned = marker.read_text().strip() if marker.is_file() else None
            if pinned != repo.commit:
                raise ManifestError(f"{folder} is a checkout of {pinned or 'an unrecorded commit'}, the manifest "
                                    f"pins {repo.commit}: remove it to make it again from the snapshot")
        else:
            git_dir = _snapshot_git_dir(mirror, repo)
            if git_dir is None:
                missing.append(repo.repo)
                continue
            absent = materialize(repo, git_dir, folder)
            if absent:
                print(f"{repo.repo}: the snapshot lacks {len(absent)} large source files, analysed without them: "
                      f"{', '.join(absent)}", file=sys.stderr)
            marker.write_text(repo.commit + "\n")
        checkouts[repo.repo] = folder
    if missing and not skip_missing:
        raise ManifestError(f"no checkout in {repos_dir} and no snapshot in {mirror} for: {', '.join(missing)} "
                            f"(bring them with the fetch tool, or leave them out with --skip-missing)")
    return checkouts, missing


# --- running advisor ---------------------------------------------------------------------------------------


def run_advisor(checkout: Path) -> tuple[list[dict], str | None]:
    """advisor's findings on a copy of the checkout (analyze saves state into the repo it reads), or the last
    lines of what it printed when it failed."""
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / checkout.name
        shutil.copytree(checkout, copy, symlinks=True)
        command = [sys.executable, "-m", "advisor", "analyze", str(copy), "--select", "ALL", "--no-cache",
                   "--min-confidence", "possible", "--format", "json", "--exit-zero"]
        done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        return [], "\n".join(done.stderr.strip().splitlines()[-6:]) or f"exit {done.returncode}"
    return json.loads(done.stdout)["findings"], None


def rule_codes() -> list[str]:
    """Every rule advisor has, from `advisor rules` (so that rules with no findings still get a row)."""
    listed = subprocess.run([sys.executable, "-m", "advisor", "rules", "--format", "json"], capture_output=True,
                            text=True, check=True)
    return [rule["code"] for rule in json.loads(listed.stdout)]


def finding_place(repo: str, finding: dict) -> Place:
    return Place(repo, finding["path"], finding.get("cell"), finding["line"], finding["code"])


def is_test_path(path: str) -> bool:
    """Test code by the conventions of pytest and unittest: a tests folder, test_*.py, *_test.py, conftest.py."""
    parts = PurePosixPath(path).parts
    name = parts[-1]
    return (any(part in TEST_DIRS for part in parts[:-1]) or name.startswith("test_")
            or name.endswith(("_test.py", "_tests.py")) or name == "conftest.py")


# --- scoring -----------------------------------------------------------------------------------------------


SHOWN = ("confirmed", "likely")  # advisor's default min-confidence is likely


@dataclass
class RuleScore:
    findings: int = 0
    right: int = 0
    debatable: int = 0
    wrong: int = 0
    unlabelled: int = 0
    reached_right: int = 0
    reached_labelled: int = 0
    in_tests: int = 0
    unreached: int = 0
    confidence_off: int = 0
    expected: int = 0
    found: int = 0
    expected_scripts: int = 0
    found_scripts: int = 0

    @property
    def labelled(self) -> int:
        return self.right + self.debatable + self.wrong

    def precision(self) -> float | None:
        return self.right / self.labelled if self.labelled else None

    def lenient_precision(self) -> float | None:
        return (self.right + self.debatable) / self.labelled if self.labelled else None

    def reached_precision(self) -> float | None:
        return self.reached_right / self.reached_labelled if self.reached_labelled else None

    def recall(self) -> float | None:
        return self.found / self.expected if self.expected else None

    def scripts_recall(self) -> float | None:
        return self.found_scripts / self.expected_scripts if self.expected_scripts else None

    def add(self, other: "RuleScore") -> None:
        for counter in fields(self):
            setattr(self, counter.name, getattr(self, counter.name) + getattr(other, counter.name))


@dataclass
class Evaluation:
    scores: dict[str, RuleScore]
    unlabelled: list[tuple[Place, dict]] = field(default_factory=list)
    confidence_changed: list[tuple[Label, str]] = field(default_factory=list)
    no_longer_reported: list[Label] = field(default_factory=list)
    wrong_causes: Counter = field(default_factory=Counter)
    debatable_causes: Counter = field(default_factory=Counter)
    miss_causes: Counter = field(default_factory=Counter)
    per_repo: dict[str, Counter] = field(default_factory=dict)
    crashes: dict[str, str] = field(default_factory=dict)
    # by the confidence advisor gave, and for what it shows by default (SHOWN: likely and above)
    by_confidence: dict[str, RuleScore] = field(default_factory=lambda: {c: RuleScore() for c in CONFIDENCES})
    shown: RuleScore = field(default_factory=RuleScore)
    shown_by_rule: dict[str, RuleScore] = field(default_factory=dict)

    def total(self) -> RuleScore:
        total = RuleScore()
        for score in self.scores.values():
            total.add(score)
        return total


def reported_places(findings: dict[str, list[dict]]) -> dict[Place, dict]:
    """The finding scored at each place, by repo: one label per place, so of two findings on one line
    (`ds.map(parse).map(augment)`) the surest."""
    reported: dict[Place, dict] = {}
    for repo, found in findings.items():
        for finding in found:
            place = finding_place(repo, finding)
            if place not in reported or CONFIDENCES.index(finding["confidence"]) < CONFIDENCES.index(
                    reported[place]["confidence"]):
                reported[place] = finding
    return reported


def evaluate(manifest: Manifest, findings: dict[str, list[dict]], rule_codes: list[str],
             crashes: dict[str, str] | None = None) -> Evaluation:
    """Score the findings of each analysed repo against the manifest's labels and misses; ``crashes``: the repos
    advisor failed on, with what it printed."""
    scores = {code: RuleScore() for code in rule_codes}
    result = Evaluation(scores, per_repo={repo: Counter() for repo in findings}, crashes=dict(crashes or {}))
    reported = reported_places(findings)
    for place, finding in reported.items():
        label = manifest.labels.get(place)
        levels = [result.by_confidence[finding["confidence"]]]
        if finding["confidence"] in SHOWN:
            levels += [result.shown, result.shown_by_rule.setdefault(place.rule, RuleScore())]
        for level in levels:
            level.findings += 1
            if label is None:
                level.unlabelled += 1
            else:
                setattr(level, label.label, getattr(level, label.label) + 1)
        score = scores.setdefault(place.rule, RuleScore())
        score.findings += 1
        score.in_tests += is_test_path(place.path)
        result.per_repo[place.repo]["findings"] += 1
        if label is None:
            score.unlabelled += 1
            result.unlabelled.append((place, finding))
            continue
        setattr(score, label.label, getattr(score, label.label) + 1)
        result.per_repo[place.repo][label.label] += 1
        if label.reached:
            score.reached_labelled += 1
            score.reached_right += label.label == "right"
        else:
            score.unreached += 1
        if label.label != "wrong" and label.should_be != finding["confidence"]:
            score.confidence_off += 1
        if label.confidence != finding["confidence"]:
            result.confidence_changed.append((label, finding["confidence"]))
        if label.label != "right":
            causes = result.wrong_causes if label.label == "wrong" else result.debatable_causes
            causes[(place.rule, label.cause or "unspecified")] += 1
    analysed = set(findings)
    result.no_longer_reported = [label for place, label in manifest.labels.items()
                                 if place.repo in analysed and place not in reported]
    expected = [label.place for label in manifest.labels.values() if label.label == "right"]
    expected += list(manifest.misses)
    for place in expected:
        if place.repo not in analysed:
            continue
        score = scores.setdefault(place.rule, RuleScore())
        found = place in reported
        notebook = place.path.endswith(".ipynb")
        score.expected += 1
        score.found += found
        # The default view owes a user what deserves showing: a miss, or a right finding whose deserved confidence
        # is shown by default (a right `possible` finding is where it belongs when hidden).
        label = manifest.labels.get(place)
        if label is None or label.should_be in SHOWN:
            for shown in (result.shown, result.shown_by_rule.setdefault(place.rule, RuleScore())):
                shown.expected += 1
                shown.found += found and reported[place]["confidence"] in SHOWN
        score.expected_scripts += not notebook
        score.found_scripts += found and not notebook
        if not found:
            result.per_repo[place.repo]["missed"] += 1
            miss = manifest.misses.get(place)
            result.miss_causes[(place.rule, miss.cause if miss else "right finding no longer reported")] += 1
    return result


# --- reporting ---------------------------------------------------------------------------------------------


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _fraction(numerator: int, denominator: int) -> str:
    return f"{numerator}/{denominator}" if denominator else "-"


TABLE_HEADER = ("rule", "findings", "right", "debatable", "wrong", "unlabelled", "precision", "precision (r+d)",
                "precision (reached)", "recall", "recall (no notebooks)", "in tests", "unreached",
                "confidence off")


def table_rows(evaluation: Evaluation) -> list[tuple[str, ...]]:
    rows = []
    for code, score in [*sorted(evaluation.scores.items()), ("all", evaluation.total())]:
        rows.append((code, str(score.findings), str(score.right), str(score.debatable), str(score.wrong),
                     str(score.unlabelled), _ratio(score.precision()), _ratio(score.lenient_precision()),
                     _ratio(score.reached_precision()),
                     f"{_ratio(score.recall())} ({_fraction(score.found, score.expected)})",
                     f"{_ratio(score.scripts_recall())} ({_fraction(score.found_scripts, score.expected_scripts)})",
                     str(score.in_tests), str(score.unreached), str(score.confidence_off)))
    return rows


CONFIDENCE_HEADER = ("confidence", "findings", "right", "debatable", "wrong", "unlabelled", "precision",
                     "precision (r+d)", "recall")


def confidence_rows(evaluation: Evaluation) -> list[tuple[str, ...]]:
    """Precision by the confidence advisor gave, and of what it shows by default (with the recall that leaves)."""
    rows = []
    for name, score in [*evaluation.by_confidence.items(), ("shown by default (likely and above)", evaluation.shown)]:
        recall = f"{_ratio(score.recall())} ({_fraction(score.found, score.expected)})" if score.expected else "-"
        rows.append((name, str(score.findings), str(score.right), str(score.debatable), str(score.wrong),
                     str(score.unlabelled), _ratio(score.precision()), _ratio(score.lenient_precision()), recall))
    return rows


SHOWN_HEADER = ("rule", "findings", "right", "debatable", "wrong", "unlabelled", "precision", "precision (r+d)",
                "recall")


def shown_rows(evaluation: Evaluation) -> list[tuple[str, ...]]:
    """Per rule, what advisor shows by default: likely and confirmed findings, and the recall they give."""
    rows = []
    for code, score in [*sorted(evaluation.shown_by_rule.items()), ("all", evaluation.shown)]:
        if not score.findings and not score.expected:
            continue
        rows.append((code, str(score.findings), str(score.right), str(score.debatable), str(score.wrong),
                     str(score.unlabelled), _ratio(score.precision()), _ratio(score.lenient_precision()),
                     f"{_ratio(score.recall())} ({_fraction(score.found, score.expected)})"))
    return rows


def manifest_line(place: Place, finding: dict) -> str:
    """An entry to paste into the manifest's findings once the TODO fields are filled in."""
    entry = {"repo": place.repo, "path": place.path, **({"cell": place.cell} if place.cell is not None else {}),
             "line": place.line, "rule": place.rule, "confidence": finding["confidence"], "label": "TODO",
             "reached": "TODO", "should_be": "TODO", "reason": f"TODO (advisor: {finding['message']})"}
    return json.dumps(entry, ensure_ascii=False)


def _print_table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> None:
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())


def print_report(evaluation: Evaluation, manifest: Manifest) -> None:
    _print_table(TABLE_HEADER, table_rows(evaluation))
    print()
    _print_table(CONFIDENCE_HEADER, confidence_rows(evaluation))
    print("\nshown by default (likely and above), per rule:")
    _print_table(SHOWN_HEADER, shown_rows(evaluation))
    for title, causes in (("wrong findings by cause", evaluation.wrong_causes),
                          ("debatable findings by cause", evaluation.debatable_causes),
                          ("misses by cause", evaluation.miss_causes)):
        print(f"\n{title}:")
        for (rule, cause), count in causes.most_common():
            print(f"  {count:3d}  {rule}  {cause}")
    for repo, message in evaluation.crashes.items():
        print(f"\nadvisor failed on {repo}:\n{message}")
    for label, now in evaluation.confidence_changed:
        print(f"\nconfidence changed: {label.place.describe()} was labelled {label.label} at {label.confidence}, "
              f"now {now}: relabel it")
    if evaluation.no_longer_reported:
        gone = Counter(label.label for label in evaluation.no_longer_reported)
        print(f"\nlabelled but no longer reported: {', '.join(f'{gone[k]} {k}' for k in LABELS if gone[k])} "
              f"(right ones count as misses):")
        for label in evaluation.no_longer_reported:
            if label.label != "wrong":
                print(f"  {label.label:9s} {label.place.describe()}")
    if evaluation.unlabelled:
        print(f"\n{len(evaluation.unlabelled)} findings have no label; add them to the manifest's findings:")
        for place, finding in evaluation.unlabelled:
            miss = manifest.misses.get(place)
            if miss is not None:
                print(f"# a recorded miss, now reported (move it from misses): {miss.reason}")
            print(manifest_line(place, finding))
    total = evaluation.total()
    print(f"\nsummary: {total.findings} findings, precision {_ratio(total.precision())} "
          f"(r+d {_ratio(total.lenient_precision())}), recall {_ratio(total.recall())}, "
          f"{total.in_tests} in tests, {len(evaluation.unlabelled)} unlabelled")


def _markdown_table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    return "\n".join(lines)


UNRECORDED_COMMIT = "not recorded"


@dataclass
class KeptFindings:
    """The findings a run keeps (``--findings FILE``), by repo, and the advisor commit that made each repo's."""

    findings: dict[str, list[dict]] = field(default_factory=dict)
    made_at: dict[str, str] = field(default_factory=dict)


def read_findings(path: Path) -> KeptFindings:
    """A findings file: ``{"findings": {repo: [...]}, "made_at": {repo: commit}}``, or, as older runs wrote it, the
    findings by repo alone (their commits not recorded)."""
    document = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(document.get("findings"), dict):
        return KeptFindings(document["findings"], document.get("made_at", {}))
    return KeptFindings(document)


def write_findings(kept: KeptFindings, path: Path) -> None:
    """Replaces ``path`` whole (a run stopped while writing leaves the previous file, not half of one)."""
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps({"findings": kept.findings, "made_at": kept.made_at}), encoding="utf-8")
    partial.replace(path)


def advisor_commit() -> str:
    head = subprocess.run(["git", "-C", str(REPO_ROOT), "rev-parse", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(REPO_ROOT), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True)
    commit = head.stdout.strip() or "unknown"
    return commit + (" (with uncommitted changes)" if dirty.stdout.strip() else "")


LABEL_POLICY = """\
How findings are labelled (the manifest's `reason` says why for each one):

- **right**: a real performance problem at that line, in code a training run executes, reported with the
  confidence it deserves or a more cautious one. A `possible` tf.data finding is right when the work it points
  at is real (decoding, parsing, resizing, augmentation, file reads), even though TensorFlow 2.x may parallelize
  a stateless map or inject a prefetch at run time: `possible` says exactly that.
- **debatable**: the pattern is there and the claim holds, but the gain is negligible (in-memory slices, a
  reshape map, a toy loop), or only non-training runs (evaluation) pay for it.
- **wrong**: the claim is false for this code (a Python value taken for a tensor, a prefetch the consumer adds,
  a batch that never changes shape, a data-defined output width), the code is a test, a tool, inference or
  metric/visualization code, or the finding sits where its fix would not change the trained model.
- Style notes (TFS rules) claim no time: they are right when the rewrite is correct.
- `reached`: a training run executes the line (per-epoch validation counts; tests, evaluation-only scripts and
  library code no training entry point uses do not). `should_be`: the confidence a right or debatable finding
  deserves (`confidence off` counts those whose confidence differs).
- Misses: read from each repo's training entry points against `advisor rules` (TFC001 only for models large
  enough to gain: conv nets with 64+ channels, GANs, standard architectures, transformers; not MNIST-sized
  MLPs). Notebook entries carry the cell's number (from 1, markdown cells included) and the line in it.
- recall = expected places reported / expected places, where expected = the right findings plus the misses. In
  the tables of what advisor shows by default, expected = the misses plus the right findings whose deserved
  confidence (`should_be`) is shown by default: a right `possible` finding is not missed by being hidden."""


def _vanished_sentence(evaluation: Evaluation) -> str:
    gone = Counter(label.label for label in evaluation.no_longer_reported)
    if not gone:
        return "Every labelled finding is still reported."
    return (f"{sum(gone.values())} labelled findings are no longer reported "
            f"({', '.join(f'{gone[k]} {k}' for k in LABELS if gone[k])}); their labels stay in the manifest, and "
            f"right ones count as misses.")


def render_docs(evaluation: Evaluation, manifest: Manifest, skipped: list[str] = (),
                made_at: dict[str, str] | None = None) -> str:
    """The accuracy page; ``skipped``: the repos this run could not evaluate (no checkout or snapshot); ``made_at``:
    the advisor commit that made each repo's findings (a rescored findings file may hold several)."""
    today = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    commits = Counter((made_at or {}).values()) or Counter({advisor_commit(): 1})
    made = f"advisor commit {next(iter(commits))}" if len(commits) == 1 else "advisor commits " + ", ".join(
        f"{commit} ({count} repos)" for commit, count in commits.most_common())
    causes = []
    for (rule, cause), count in evaluation.wrong_causes.most_common():
        causes.append((str(count), "wrong", rule, cause))
    for (rule, cause), count in evaluation.debatable_causes.most_common():
        causes.append((str(count), "debatable", rule, cause))
    for (rule, cause), count in evaluation.miss_causes.most_common():
        causes.append((str(count), "missed", rule, cause))
    repos = []
    for repo in manifest.repos:
        counts = evaluation.per_repo.get(repo.repo)
        outcome = ("not evaluated in this run" if repo.repo in skipped else
                   f"advisor failed: {evaluation.crashes[repo.repo].splitlines()[-1]}" if counts is None else
                   f"{counts['findings']} ({' / '.join(str(counts[k]) for k in (*LABELS, 'missed'))})")
        repos.append((repo.repo, repo.commit[:12], repo.why, ", ".join(f"`{e}`" for e in repo.entry_points),
                      outcome))
    return "\n\n".join([
        "# Real-world accuracy",
        "<!-- Generated by `python benchmarks/real_world_accuracy.py --write-docs`; do not edit by hand. -->",
        f"advisor's static findings (`advisor analyze REPO --select ALL --min-confidence possible`, no profile) on "
        f"{len(manifest.repos) - len(skipped)} public TensorFlow/Keras repos, labelled by hand. Scored {today}; the "
        f"findings were made at {made}. Labels, misses and the pinned commits: "
        f"`benchmarks/real_world/manifest.json`." + (
            f" {len(skipped)} more repos of the manifest were not evaluated in this run (no checkout or snapshot "
            f"where it ran; marked in the table of repos): their labels and misses are counted nowhere here."
            if skipped else ""),
        "## By confidence, and what advisor shows by default",
        "By default advisor reports nothing less sure than `likely` (`min-confidence`); the `possible` findings "
        "are counted in its summary and shown with `--show-all` or `--min-confidence possible`.",
        _markdown_table(CONFIDENCE_HEADER, confidence_rows(evaluation)),
        "## Per rule, as shown by default (`likely` and above)",
        _markdown_table(SHOWN_HEADER, shown_rows(evaluation)),
        "## Per rule (every finding, `possible` included)",
        _markdown_table(TABLE_HEADER, table_rows(evaluation)),
        _vanished_sentence(evaluation),
        "## Wrong and debatable findings, and misses, by cause",
        _markdown_table(("count", "kind", "rule", "cause"), causes),
        "## Repos",
        _markdown_table(("repo", "commit", "why", "training entry points",
                         "findings (right / debatable / wrong / missed)"), repos),
        "## Labelling",
        LABEL_POLICY,
    ]) + "\n"


# --- main --------------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--manifest", type=Path, default=MANIFEST)
    parser.add_argument("--repos", type=Path, default=Path("/work/eval-repos"),
                        help="folder of the checkouts (default: %(default)s)")
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror"),
                        help="folder of the git snapshots missing checkouts are made from (default: %(default)s)")
    parser.add_argument("--only", action="append", metavar="OWNER/NAME", help="evaluate only these repos")
    parser.add_argument("--write-docs", nargs="?", const=DOCS, type=Path, metavar="FILE",
                        help=f"regenerate the accuracy page (default {DOCS.relative_to(REPO_ROOT)})")
    parser.add_argument("--skip-missing", action="store_true",
                        help="leave out the repos with neither a checkout nor a snapshot (named in the report and "
                             "the accuracy page) instead of stopping")
    parser.add_argument("--findings", type=Path, metavar="FILE",
                        help="keep each repo's findings in FILE as soon as it is analysed, with the advisor commit "
                             "that made them; where FILE has a repo's findings, score those instead of running advisor "
                             "again (rescoring relabelled findings of the same code; the page names the commits)")
    args = parser.parse_args(argv)
    try:
        manifest = load_manifest(args.manifest)
        repos = manifest.repos
        if args.only:
            unknown = sorted(set(args.only) - {r.repo for r in repos})
            if unknown:
                raise ManifestError(f"not in the manifest: {', '.join(unknown)}")
            if args.write_docs:
                raise ManifestError("--write-docs needs every repo: leave out --only")
            repos = [r for r in repos if r.repo in args.only]
        checkouts, skipped = ensure_checkouts(repos, args.repos, args.mirror, args.skip_missing)
    except ManifestError as exc:
        print(f"real_world_accuracy: {exc}", file=sys.stderr)
        return EXIT_UNUSABLE
    kept = read_findings(args.findings) if args.findings is not None and args.findings.exists() else KeptFindings()
    findings: dict[str, list[dict]] = {}
    made_at: dict[str, str] = {}
    crashes: dict[str, str] = {}
    if skipped:
        print(f"not evaluated (no checkout or snapshot): {', '.join(skipped)}", file=sys.stderr)
        repos = [r for r in repos if r.repo in checkouts]
    commit = advisor_commit()
    for repo in repos:
        if repo.repo in kept.findings:
            findings[repo.repo] = kept.findings[repo.repo]
            made_at[repo.repo] = kept.made_at.get(repo.repo, UNRECORDED_COMMIT)
            continue
        print(f"analysing {repo.repo} ...", file=sys.stderr, flush=True)
        found, failure = run_advisor(checkouts[repo.repo])
        if failure is None:
            findings[repo.repo] = found
            made_at[repo.repo] = commit
            if args.findings is not None:
                # After each repo, so that a run stopped part-way resumes where it stopped (kept repos are not rerun).
                write_findings(KeptFindings({**kept.findings, **findings}, {**kept.made_at, **made_at}), args.findings)
        else:
            crashes[repo.repo] = failure
    evaluation = evaluate(manifest, findings, rule_codes(), crashes)
    print_report(evaluation, manifest)
    if args.write_docs:
        args.write_docs.write_text(render_docs(evaluation, manifest, skipped, made_at), encoding="utf-8")
        print(f"wrote {args.write_docs}")
    failed = evaluation.unlabelled or evaluation.confidence_changed or crashes
    return EXIT_FAILED if failed else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
