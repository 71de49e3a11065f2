"""[tool.advisor] in pyproject.toml: loading, validation, command-line overrides, per-file-ignores, the check cache."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from advisor import engine
from advisor.cache import ResultCache
from advisor.files import cache_root
from advisor.config import Settings, find_pyproject, load_settings, parse_selectors
from advisor.errors import InputError
from advisor.model import Confidence
from every_finding import every_finding

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
# Whatever runs of advisor left in the samples (a saved analysis, caches) is not part of them.
NOT_SOURCES = shutil.ignore_patterns(".advisor", "__pycache__")
CODES = ["TFD001", "TFD002", "TFH001"]


def _project(tmp_path: Path, config: str) -> Path:
    root = tmp_path / "project"
    shutil.copytree(SAMPLES / "input_bound", root / "src", ignore=NOT_SOURCES)
    (root / "pyproject.toml").write_text(f"[project]\nname = 'x'\n\n[tool.advisor]\n{config}")
    return root


def _advisor(*args: str, cwd: Path, cache: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "advisor", *every_finding(args)], cwd=cwd, capture_output=True,
                          text=True, env={"ADVISOR_CACHE_DIR": str(cache), "PATH": "/usr/bin:/bin"})


def test_every_key_is_read(tmp_path):
    root = _project(tmp_path, """
select = ["TFD"]
ignore = ["TFD001"]
target-device = "tpu"
min-confidence = "likely"
min-speedup = 1.1
show-all = true
state-file = "build/advisor.json"
cache-dir = ".cache/advisor"

[tool.advisor.per-file-ignores]
"tests/**" = ["ALL"]
""")
    settings = load_settings(root / "src", CODES)
    assert settings.select == ("TFD",) and settings.ignore == ("TFD001",)
    assert settings.per_file_ignores == (("tests/**", ("ALL",)),)
    assert settings.target_device == "tpu" and settings.shape_multiple_for() == 128
    assert settings.min_confidence is Confidence.LIKELY and settings.min_speedup == 1.1
    assert settings.show_all and settings.config_dir == root
    assert settings.state_file == root / "build/advisor.json"
    assert settings.cache_dir == root / ".cache/advisor"


def test_command_line_overrides_the_file(tmp_path):
    root = _project(tmp_path, 'select = ["TFD001"]\nignore = ["TFD002"]\n')
    settings = load_settings(root, CODES, select="TFD002", ignore="TFD001")
    assert settings.select == ("TFD002",) and settings.ignore == ("TFD001",)


def test_defaults_without_a_file(tmp_path):
    assert find_pyproject(tmp_path) is None or find_pyproject(tmp_path).parent != tmp_path
    settings = Settings()
    assert settings.shape_multiple_for() == 8 and settings.shape_multiple_for("cpu") == 1
    assert Settings(shape_multiple=16).shape_multiple_for("tpu") == 16
    assert parse_selectors("tfd, TFH001", CODES) == ("TFD", "TFH001")
    assert settings.is_selected("TFD001") and not Settings(ignore=("TFD",)).is_selected("TFD001")


@pytest.mark.parametrize("config,message", [
    ("selct = ['TFD']", "unknown key 'selct'"),
    ("select = 'TFD'", "select must be a list of strings"),
    ("select = ['NOPE']", "unknown rule code or prefix 'NOPE'"),
    ("target-device = 'npu'", "target-device must be one of gpu, tpu, cpu"),
    ("min-confidence = 3", "min-confidence must be one of confirmed, likely, possible"),
    ("min-speedup = 0.5", "min-speedup must be a number >= 1"),
    ("shape-multiple = 0", "shape-multiple must be a positive integer"),
    ("shape-multiple = true", "shape-multiple must be a positive integer"),
    ("show-all = 'yes'", "show-all must be true or false"),
    ("per-file-ignores = ['x']", "per-file-ignores must be a table"),
    ("[tool.advisor.per-file-ignores]\n'a.py' = 'TFD001'", "per-file-ignores.'a.py' must be a list of strings"),
    ("select = [", "invalid TOML"),
])
def test_bad_configuration_is_one_line_and_exit_2(tmp_path, config, message):
    root = _project(tmp_path, config)
    with pytest.raises(InputError, match="pyproject.toml") as error:
        load_settings(root, CODES)
    assert message in str(error.value)
    result = _advisor("check", "src/data.py", cwd=root, cache=tmp_path / "cache")
    assert result.returncode == 2 and message in result.stderr and len(result.stderr.splitlines()) == 1


def test_check_honours_the_nearest_pyproject_from_a_subfolder(tmp_path):
    root = _project(tmp_path, '[tool.advisor.per-file-ignores]\n"src/data.py" = ["TFD"]\n')
    result = _advisor("check", "data.py", cwd=root / "src", cache=tmp_path / "cache")
    assert result.returncode == 0, result.stdout + result.stderr
    (root / "pyproject.toml").write_text("[tool.advisor]\n")
    assert _advisor("check", "data.py", cwd=root / "src", cache=tmp_path / "cache").returncode == 1


def test_per_file_ignores_in_analyze_touch_only_matching_files(tmp_path):
    root = tmp_path / "repo"
    for name in ("a", "b"):
        shutil.copytree(SAMPLES / "input_bound", root / name, ignore=NOT_SOURCES)
    (root / "pyproject.toml").write_text('[tool.advisor.per-file-ignores]\n"a/*.py" = ["TFD002"]\n')
    report = engine.analyze(root, None, load_settings(root, CODES, select="TFD", min_confidence="possible"))
    found = sorted((f.location.path.as_posix(), f.code) for f in report.findings)
    assert found == [("a/data.py", "TFD001"), ("b/data.py", "TFD001"), ("b/data.py", "TFD002")]


def test_min_confidence_drops_less_certain_findings(tmp_path):
    root = _project(tmp_path, 'min-confidence = "confirmed"\n')
    report = engine.analyze(root, None, load_settings(root, CODES, select="TFD"))
    assert report.findings == [] and report.less_sure == 2  # without a profile nothing is confirmed
    shown = engine.analyze(root, None, load_settings(root, CODES, select="TFD", min_confidence="possible"))
    assert len(shown.findings) == 2 and {f.confidence for f in shown.findings} == {Confidence.POSSIBLE}


def test_cache_root_precedence(monkeypatch, tmp_path):
    monkeypatch.delenv("ADVISOR_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_root() == tmp_path / "xdg/advisor"
    assert cache_root(tmp_path / "configured") == tmp_path / "configured"
    monkeypatch.setenv("ADVISOR_CACHE_DIR", str(tmp_path / "env"))
    assert cache_root(tmp_path / "configured") == tmp_path / "env"
    monkeypatch.delenv("ADVISOR_CACHE_DIR")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_root() == tmp_path / "home/.cache/advisor"


def test_check_cache_hits_on_same_content_and_settings_only(monkeypatch, tmp_path):
    root = _project(tmp_path, "")
    monkeypatch.chdir(root)
    monkeypatch.setenv("ADVISOR_CACHE_DIR", str(tmp_path / "cache"))
    settings = load_settings(root, CODES, select="TFD", min_confidence="possible")
    files = [Path("src/data.py")]
    first = engine.check(files, settings, ResultCache("check", settings))
    assert [f.code for f in first.findings] == ["TFD002", "TFD001"]  # the pipeline it returns ends out of sight
    assert list((tmp_path / "cache/check").glob("*/*.json"))

    def no_analysis(*args):
        raise AssertionError("analysed although cached")
    monkeypatch.setattr(engine, "run_rules", no_analysis)
    second = engine.check(files, settings, ResultCache("check", settings))
    assert [(f.id, f.patch.diff) for f in second.findings] == [(f.id, f.patch.diff) for f in first.findings]
    assert second.file_hashes == first.file_hashes
    key = ResultCache("check", settings).key({"src/data.py": (root / "src/data.py").read_bytes()}, "context")
    other_settings = load_settings(root, CODES, select="TFD001", min_confidence="possible")
    with pytest.raises(AssertionError):  # other settings: a miss
        engine.check(files, other_settings, ResultCache("check", other_settings))
    (root / "src/data.py").write_text((root / "src/data.py").read_text() + "# changed\n")
    with pytest.raises(AssertionError):  # other content: a miss
        engine.check(files, settings, ResultCache("check", settings))
    assert key != ResultCache("check", settings).key({"src/data.py": (root / "src/data.py").read_bytes()}, "context")


def _with_test_copies(root: Path) -> None:
    """The sample's pipeline also in test code of every common shape."""
    data = (root / "src" / "data.py").read_text()
    for name in ("tests/test_pipeline.py", "src/data_test.py", "src/test_data.py", "conftest.py",
                 "src/pipeline_test_case.py", "test/fixtures.py"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(data)


def test_test_code_is_left_out_by_default_and_counted(tmp_path):
    root = _project(tmp_path, "")
    _with_test_copies(root)
    report = engine.analyze(root, None, load_settings(root, CODES, select="TFD", min_confidence="possible"))
    assert {f.location.path.as_posix() for f in report.findings} == {"src/data.py"}
    assert report.files_excluded == 6


@pytest.mark.parametrize("config, analysed", [("", True), ('extend-exclude = ["src/build_eval_test.py"]\n', False)])
def test_a_module_the_program_imports_is_analysed_whatever_its_name_says(tmp_path, config, analysed):
    """Pointer_Transformer_Generator's `main.py` runs training from `build_eval_test.py` ("build, evaluate, test"):
    named like a test, imported like a module of the program. A pattern the user writes still leaves it out."""
    root = _project(tmp_path, config)
    _with_test_copies(root)  # (test files of every shape: still left out)
    (root / "src" / "data.py").rename(root / "src" / "build_eval_test.py")
    train = root / "src" / "train.py"
    train.write_text(train.read_text().replace("from data import", "from build_eval_test import"))
    report = engine.analyze(root, None, load_settings(root, CODES, select="TFD", min_confidence="possible"))
    assert {f.location.path.as_posix() for f in report.findings} == (
        {"src/build_eval_test.py"} if analysed else set())
    assert report.files_excluded == (6 if analysed else 7)


def test_exclude_replaces_and_extend_exclude_adds_to_the_defaults(tmp_path):
    root = _project(tmp_path, "exclude = []\n")
    _with_test_copies(root)
    # Analyzed, but no training run reaches the copies: their findings show with --show-all.
    report = engine.analyze(root, None, load_settings(root, CODES, select="TFD", show_all=True))
    assert len({f.location.path for f in report.findings}) == 7 and report.files_excluded == 0
    (root / "pyproject.toml").write_text("[tool.advisor]\nextend-exclude = [\"src/data.py\"]\n")
    report = engine.analyze(root, None, load_settings(root, CODES, select="TFD", min_confidence="possible"))
    assert report.findings == [] and report.files_excluded == 7


def test_check_leaves_out_test_files_it_is_given(tmp_path, monkeypatch):
    root = _project(tmp_path, "")
    _with_test_copies(root)
    monkeypatch.chdir(root)
    report = engine.check([Path("tests/test_pipeline.py"), Path("src/data.py")],
                          load_settings(root, CODES, select="TFD", min_confidence="possible"))
    assert {f.location.path.as_posix() for f in report.findings} == {"src/data.py"}
    assert report.files_excluded == 1
