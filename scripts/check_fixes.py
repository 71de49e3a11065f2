"""Safe means safe, checked on any repo: apply every fix advisor offers to a copy and report what went wrong.

``python scripts/check_fixes.py REPO[=LOGDIR] ...`` copies each repo to a temporary folder (the repo itself is never
written), runs ``advisor analyze`` (with the capture LOGDIR when given) and ``advisor apply --all --unsafe-fixes``
(which applies to a fixpoint), then checks the result: apply exits 0; ``analyze`` finds nothing fixable left; a
second ``apply`` changes nothing; every changed file passes ``git diff --check`` and binds every name it used to
what it was bound to before. Prints one line per repo and the problems; exits 1 when there are any.
tests/fixes/test_fixes_keep_training.py runs the same checks on the samples and on realistic modules, and also runs
the patched modules with TensorFlow.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst
from click.testing import CliRunner

from advisor import cli
from advisor.source.names import rebound_names

NOT_SOURCES = shutil.ignore_patterns(".advisor", "__pycache__", ".git")


@dataclass
class FixRun:
    """One repo fixed in a copy: which fixes were applied, and what the checks found wrong."""

    source: Path
    copy: Path
    logdir: Path | None
    applied: list[str] = field(default_factory=list)  # rule codes, one per fix applied
    problems: list[str] = field(default_factory=list)

    @property
    def changed(self) -> list[str]:
        """The Python files the fixes changed, relative to the repo."""
        return [p.relative_to(self.source).as_posix() for p in sorted(self.source.rglob("*.py"))
                if (self.copy / p.relative_to(self.source)).is_file()
                and (self.copy / p.relative_to(self.source)).read_bytes() != p.read_bytes()]


def advisor(*args: str) -> tuple[int, str]:
    """Run the command line in-process: its exit code and what it printed (stdout and stderr)."""
    result = CliRunner().invoke(cli.cli, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def fix_everything(source: Path, copy: Path, logdir: Path | None = None) -> FixRun:
    """Copy ``source`` to ``copy``, apply every fix there, and check the result (see the module doc)."""
    # Contents only: a read-only snapshot gives a writable copy.
    shutil.copytree(source, copy, ignore=NOT_SOURCES, symlinks=True, copy_function=shutil.copyfile)
    run = FixRun(source, copy, logdir)
    profile = [str(logdir)] if logdir else []
    advisor("analyze", str(copy), *profile, "--select", "ALL", "--min-confidence", "possible", "--no-cache")
    code, output = advisor("apply", "--repo", str(copy), "--all", "--unsafe-fixes")
    run.applied = re.findall(r"^applied (TF[A-Z]\d+) ", output, re.MULTILINE)
    if code != 0 and output.strip() != "nothing to apply":
        run.problems.append(f"apply exited {code}: " + " | ".join(line for line in output.splitlines()
                                                                   if line.startswith("advisor:")))
    if not run.applied:
        return run
    _, output = advisor("analyze", str(copy), *profile, "--select", "ALL", "--min-confidence", "possible", "--no-cache",
                        "--format", "json")
    left = [f"{f['code']} {f['path']}:{f['line']}" for f in json.loads(output)["findings"] if f["fix"]]
    if left:
        run.problems.append(f"fixable after apply: {', '.join(left)}")
    files = {p: p.read_bytes() for p in copy.rglob("*.py")}
    code, output = advisor("apply", "--repo", str(copy), "--all", "--unsafe-fixes")
    if {p: p.read_bytes() for p in copy.rglob("*.py")} != files:
        run.problems.append("a second apply changed files")
    for path in run.changed:
        before, after = source / path, copy / path
        check = subprocess.run(["git", "diff", "--no-index", "--check", str(before), str(after)],
                               capture_output=True, text=True)
        if check.stdout:
            run.problems.append(f"{path}: git diff --check: {check.stdout.strip()}")
        rebound = rebound_names(cst.parse_module(before.read_bytes()), cst.parse_module(after.read_bytes()))
        if rebound:
            run.problems.append(f"{path}: {'; '.join(rebound)}")
    return run


def main(arguments: list[str]) -> int:
    failed = False
    with tempfile.TemporaryDirectory() as scratch:
        for number, argument in enumerate(arguments):
            repo, _, logdir = argument.partition("=")
            run = fix_everything(Path(repo), Path(scratch) / str(number), Path(logdir) if logdir else None)
            print(f"{repo}: {len(run.applied)} fixes applied ({', '.join(sorted(set(run.applied))) or '-'}), "
                  f"{len(run.changed)} files changed, {len(run.problems)} problems")
            for problem in run.problems:
                print(f"    {problem}")
            failed |= bool(run.problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
