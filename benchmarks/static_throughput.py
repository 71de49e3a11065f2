"""Static analysis throughput: `advisor analyze` against a plain libcst pass over the same files, in one run.

Figures (one line each, then a summary line):
- keras tree: the installed Keras package's own sources (every file mentions keras, so all are parsed):
  advisor cold (no cache), the baseline (libcst parse + QualifiedNameProvider over the same files), their ratio,
  and advisor's cached re-run as a share of its cold run;
- mixed tree: about 2,000 Python files of other installed packages plus a few dozen TensorFlow training files
  (copies of samples/), the shape of a real monorepo: advisor cold, against the 10 s target.

Targets: cold >= 3x the plain pass; cached re-run <= 5% of cold; 2,000-file mixed tree < 10 s.
Run: python benchmarks/static_throughput.py [--limit N]   (N: cap the keras files, for a quick look)
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import os
import shutil
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
    from advisor.config import Settings
    from advisor.engine import analyze

    start = time.perf_counter()
    report = analyze(repo, None, Settings())
    return time.perf_counter() - start, report.files_analyzed


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
        mixed = Path(scratch) / "mixed-tree"
        total = mixed_tree(mixed)
        mixed_cold, mixed_analyzed = advisor_run(mixed)
        print(f"mixed tree: {total} files, {mixed_analyzed} use TensorFlow/Keras")
        print(f"mixed tree advisor analyze, cold: {mixed_cold:.2f} s ({total / mixed_cold:.0f} files/s; target < 10 s)")
        print(f"summary: keras {baseline / cold:.2f}x the plain pass, cached {cached / cold:.1%} of cold, "
              f"{total}-file mixed tree {mixed_cold:.1f} s")


if __name__ == "__main__":
    main()
