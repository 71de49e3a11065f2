"""Static analysis throughput: `advisor analyze` against a plain libcst pass over the same files, in one run.

Figures (one line each, then a summary line):
- keras tree: the installed Keras package's own sources (every file mentions keras, so all are parsed):
  advisor cold (no cache), the baseline (libcst parse + QualifiedNameProvider over the same files), their ratio,
  and advisor's cached re-run as a share of its cold run;
- check: `advisor check` (a fresh process, as pre-commit runs it) on 5 files just changed in a 600-file tree whose
  previous check is cached, against the 2 s target;
- mixed tree: about 2,000 Python files of other installed packages plus a few dozen TensorFlow training files
  (copies of samples/), the shape of a real monorepo: advisor cold, against the 10 s target;
- each ``--repo PATH`` (a local snapshot of a real repository, copied first: analyze writes .advisor/ into the repo
  it reads): advisor cold against the plain pass over the same files.

Targets: cold >= 3x the plain pass; cached re-run <= 5% of cold; check on 5 changed files <= 2 s; 2,000-file mixed
tree < 10 s.
Run: python benchmarks/static_throughput.py [--limit N] [--repo PATH ...]   (N: cap the keras files, for a quick look)
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, QualifiedNameProvider

REPO_ROOT = Path(__file__).resolve().parents[1]
OTHER_PACKAGES = ("pip", "setuptools", "hypothesis", "rich", "networkx", "jinja2", "click", "pygments", "docutils",
                  "_pytest", "pathspec", "markdown_it", "platformdirs", "pre_commit", "virtualenv", "jsonschema")


def package_dir(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)
    return Path(spec.origin).parent if spec and spec.origin else None


def plain_pass(files: list[Path]) -> float:
    start = time.perf_counter()
    for path in files:
        MetadataWrapper(cst.parse_module(path.read_bytes()), unsafe_skip_copy=True).resolve(QualifiedNameProvider)
    return time.perf_counter() - start


def advisor_run(repo: Path) -> tuple[float, int]:
    from advisor.cache import ResultCache
    from advisor.config import Settings
    from advisor.engine import analyze

    settings = Settings()
    start = time.perf_counter()
    report = analyze(repo, None, settings, cache=ResultCache("analyze", settings))  # as the CLI runs it
    return time.perf_counter() - start, report.files_analyzed


def versus_plain_pass(label: str, tree: Path) -> float:
    """Print advisor's cold run on ``tree`` against the plain pass over the same files; the ratio."""
    files = sorted(tree.rglob("*.py"))
    baseline = plain_pass(files)
    cold, analyzed = advisor_run(tree)
    print(f"{label}: {len(files)} files, {analyzed} analysed; plain pass {baseline:.2f} s, advisor cold {cold:.2f} s: "
          f"{baseline / cold:.2f}x faster (target >= 3x)")
    return baseline / cold


def check_changed_files(tree: Path, changed: int = 5) -> float:
    """Seconds of ``advisor check`` (a fresh process, from the tree's root) on ``changed`` files edited since the
    previous check of them, whose result is cached."""
    files = [p.relative_to(tree).as_posix() for p in sorted(tree.rglob("*.py"))[:: 97]][:changed]
    command = [sys.executable, "-m", "advisor", "check", *files, "--exit-zero"]
    subprocess.run(command, cwd=tree, capture_output=True, check=True)  # the previous commit's check
    for name in files:
        with open(tree / name, "a") as file:
            file.write("\n# edited\n")
    start = time.perf_counter()
    subprocess.run(command, cwd=tree, capture_output=True, check=True)
    return time.perf_counter() - start


def copy_tree(files: list[Path], root: Path, destination: Path) -> None:
    for path in files:
        target = destination / path.relative_to(root)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)


def mixed_tree(destination: Path, target_files: int = 2000, tf_copies: int = 3) -> int:
    """Non-TensorFlow sources of installed packages, plus the samples copied ``tf_copies`` times."""
    count = 0
    for name in OTHER_PACKAGES:
        root = package_dir(name)
        if root is None:
            continue
        files = sorted(root.rglob("*.py"))[: target_files - count]
        files = [f for f in files if b"tensorflow" not in f.read_bytes() and b"keras" not in f.read_bytes()]
        copy_tree(files, root.parent, destination / "vendor")
        count += len(files)
        if count >= target_files:
            break
    for copy in range(tf_copies):
        shutil.copytree(REPO_ROOT / "samples", destination / f"project{copy}",
                        ignore=shutil.ignore_patterns("profiles", ".advisor", "__pycache__"))
    return sum(1 for _ in destination.rglob("*.py"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, default=0, help="use only the first N keras files")
    parser.add_argument("--repo", type=Path, action="append", default=[],
                        help="also measure this repository (a copy of it)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        os.environ["ADVISOR_CACHE_DIR"] = str(Path(scratch) / "cache")  # cold means cold: a private cache
        keras_root = package_dir("keras")
        keras_files = sorted(keras_root.rglob("*.py"))
        if args.limit:
            keras_files = keras_files[: args.limit]
        keras_copy = Path(scratch) / "keras-tree"
        copy_tree(keras_files, keras_root, keras_copy)
        print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}, python {sys.version.split()[0]}, "
              f"libcst {importlib.metadata.version('libcst')}")
        baseline = plain_pass(sorted(keras_copy.rglob("*.py")))
        cold, analyzed = advisor_run(keras_copy)
        cached, _ = advisor_run(keras_copy)
        print(f"keras tree: {len(keras_files)} files, {analyzed} analysed")
        print(f"keras plain libcst parse + QualifiedNameProvider: {baseline:.2f} s ({len(keras_files) / baseline:.0f} files/s)")
        print(f"keras advisor analyze, cold: {cold:.2f} s ({len(keras_files) / cold:.0f} files/s)")
        print(f"keras advisor vs plain pass: {baseline / cold:.2f}x faster (target >= 3x)")
        print(f"keras advisor analyze, cached re-run: {cached:.3f} s = {cached / cold:.1%} of cold (target <= 5%)")
        check_tree = Path(scratch) / "check-tree"
        copy_tree(sorted(keras_root.rglob("*.py"))[:600], keras_root, check_tree)
        check_seconds = check_changed_files(check_tree)
        print(f"check on 5 changed files of a 600-file tree, cache warm: {check_seconds:.2f} s (target <= 2 s)")
        repo_ratios = []
        for repo in args.repo:
            copy = Path(scratch) / "repos" / repo.name
            shutil.copytree(repo, copy, ignore=shutil.ignore_patterns(".advisor", ".git"))
            repo_ratios.append(f"{repo.name} {versus_plain_pass(repo.name, copy):.2f}x")
        mixed = Path(scratch) / "mixed-tree"
        total = mixed_tree(mixed)
        mixed_cold, mixed_analyzed = advisor_run(mixed)
        print(f"mixed tree: {total} files, {mixed_analyzed} use TensorFlow/Keras")
        print(f"mixed tree advisor analyze, cold: {mixed_cold:.2f} s ({total / mixed_cold:.0f} files/s; target < 10 s)")
        print(f"summary: keras {baseline / cold:.2f}x the plain pass, cached {cached / cold:.1%} of cold, "
              f"check {check_seconds:.2f} s, {total}-file mixed tree {mixed_cold:.1f} s"
              + "".join(f", {ratio}" for ratio in repo_ratios))


if __name__ == "__main__":
    main()
