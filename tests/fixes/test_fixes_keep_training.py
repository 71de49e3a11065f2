"""Safe means safe: every fix of every rule, applied to realistic modules (compat.v1 input functions, subclassed and
functional models, custom loops, multi-line calls: tests/fixes/repos/), to the samples (with their captures, for
the rules a capture gates) and to ../shared/repros when present, leaves modules that import with the same names,
pass `git diff --check`, leave no fixable finding behind, and still train with TensorFlow on CPU (mixed policies
included)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from advisor.catalogue import all_rules

HERE = Path(__file__).parent
REPO_ROOT = HERE.parents[1]
SAMPLES = REPO_ROOT / "samples"
REPROS = REPO_ROOT.parent / "shared" / "repros"  # beside the checkout when present (scripts/snapshot_outputs.py)
TRAIN_ARGS = ["--steps", "3"]

sys.path.insert(0, str(REPO_ROOT / "scripts"))
from check_fixes import FixRun, fix_everything  # noqa: E402


def _cases() -> dict[str, tuple[Path, Path | None]]:
    """name -> (the repo, its capture or None)."""
    cases = {f"repos/{p.name}": (p, None) for p in sorted((HERE / "repos").iterdir()) if p.is_dir()}
    for sample in sorted(p for p in SAMPLES.iterdir() if (p / "train.py").is_file()):
        capture = SAMPLES / "profiles" / sample.name
        cases[f"samples/{sample.name}"] = (sample, capture if capture.is_dir() else None)
    if REPROS.is_dir():
        cases.update({f"repros/{p.name}": (p, None) for p in sorted(REPROS.iterdir()) if p.is_dir()})
    return cases


@pytest.fixture(scope="module")
def patched(tmp_path_factory) -> dict[str, FixRun]:
    """Each case copied, analysed (with its capture when it has one) and fixed with every fix, safe or not."""
    root = tmp_path_factory.mktemp("patched")
    return {name: fix_everything(source, root / name.replace("/", "-"), logdir)
            for name, (source, logdir) in _cases().items()}


def test_every_rule_with_a_fix_has_it_applied_somewhere(patched):
    applied = {code for run in patched.values() for code in run.applied}
    with_fix = {rule.code for rule in all_rules() if rule.fix is not None}
    assert with_fix - applied == set()


def test_fixes_apply_to_a_fixpoint_pass_git_diff_check_and_rebind_nothing(patched):
    """Apply exits 0, nothing fixable is left, a second apply changes nothing, `git diff --check` passes, and every
    name a changed module used is bound as before (scripts/check_fixes.py)."""
    assert {name: run.problems for name, run in patched.items() if run.problems} == {}


@pytest.mark.slow
def test_patched_modules_import_with_the_same_names_and_still_train(patched):
    pytest.importorskip("tensorflow")
    scripts = [{"name": f"{name}/{path}", "original": str(run.source / path), "patched": str(run.copy / path),
                "args": TRAIN_ARGS} for name, run in patched.items() if not name.startswith("repros/")
               for path in run.changed if path.endswith("train.py")]
    assert len(scripts) >= 10
    done = subprocess.run([sys.executable, str(HERE / "run_patched.py")], input=json.dumps(scripts),
                          capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-3000:]
    outcome = json.loads(done.stdout)
    broken = {name: result for name, result in outcome.items()
              if "error" in result or result["rebound"] or not result["steps"] or not result["finite"]}
    assert broken == {}
    mixed = {f"{name}/{path}" for name, run in patched.items() if "TFC001" in run.applied
             and not name.startswith("repros/") for path in run.changed if path.endswith("train.py")}
    assert mixed and {name for name in mixed if outcome[name]["policy"] != "mixed_float16"} == set()
