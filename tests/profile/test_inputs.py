"""Bad input, the cache, and the promise never to write into the user's logdir."""

from __future__ import annotations

import gzip
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from advisor.errors import InputError
from advisor.profile import convert
from advisor.profile.loader import load_profile
from advisor.profile.xplane_pb import XSpace
from profile_fixtures import capture_file


def _single_line(error: pytest.ExceptionInfo) -> str:
    message = str(error.value)
    assert "\n" not in message
    return message


def test_missing_path(tmp_path):
    with pytest.raises(InputError) as error:
        load_profile(tmp_path / "nowhere")
    assert "nowhere: no such file" in _single_line(error)


def test_directory_without_captures(tmp_path):
    (tmp_path / "plugins" / "profile" / "run").mkdir(parents=True)
    with pytest.raises(InputError) as error:
        load_profile(tmp_path)
    assert "no profile captures found" in _single_line(error)


def test_unknown_run_lists_the_runs(copied_capture, tmp_path):
    capture = copied_capture("input_bound")
    with pytest.raises(InputError) as error:
        load_profile(tmp_path / "logdir", run="nope")
    assert capture.parent.name in _single_line(error)


@pytest.mark.parametrize("mangle, expected", [
    (lambda data: b"", "empty file"),
    (lambda data: data[: len(data) // 2], "not a valid XSpace capture"),
    (lambda data: os.urandom(4096), "not a valid XSpace capture"),
    (lambda data: data.replace(b"\n", b"\r\n"), "text conversion"),
    (lambda data: data.decode("latin-1").encode("utf-8"), "not a valid XSpace capture"),
    (lambda data: data.decode("utf-8", errors="replace").encode("utf-8"), "text conversion"),
])
def test_broken_capture_is_an_input_error_naming_the_file(copied_capture, mangle, expected):
    capture = copied_capture("input_bound")
    capture.write_bytes(mangle(capture.read_bytes()))
    with pytest.raises(InputError) as error:
        load_profile(capture)
    message = _single_line(error)
    assert str(capture) in message and expected in message


def test_truncated_capture_reports_the_converter_text(copied_capture):
    capture = copied_capture("input_bound")
    capture.write_bytes(capture.read_bytes()[:-1000])
    with pytest.raises(InputError) as error:
        load_profile(capture)
    assert "converter:" in _single_line(error)


def test_a_broken_host_is_skipped_with_a_warning_when_another_is_usable(copied_capture):
    good = copied_capture("input_bound_markers")
    broken = good.with_name("zz-second-host.xplane.pb")
    broken.write_bytes(good.read_bytes()[:5000])
    findings = load_profile(good.parent)
    assert findings.hosts == [good.name]
    assert any(w.startswith("capture zz-second-host.xplane.pb skipped: ") for w in findings.warnings)
    assert findings.steps.count > 10


def test_two_usable_hosts_are_both_used_and_counted(copied_capture):
    first = copied_capture("input_bound_markers")
    second = first.with_name("worker-1.xplane.pb")
    second.write_bytes(first.read_bytes())
    findings = load_profile(first.parent)
    assert len(findings.hosts) == 2
    assert any(w.startswith("2 hosts in run ") for w in findings.warnings)


def test_capture_without_steps(tmp_path):
    # A real but stepless capture: only a host plane with no training activity in it.
    xspace = XSpace()
    xspace.hostnames.append("idle")
    plane = xspace.planes.add(name="/host:CPU")
    plane.lines.add(name="python", timestamp_ns=1)
    capture = tmp_path / "plugins" / "profile" / "run" / "idle.xplane.pb"
    capture.parent.mkdir(parents=True)
    capture.write_bytes(xspace.SerializeToString())
    with pytest.raises(InputError) as error:
        load_profile(tmp_path)
    message = _single_line(error)
    assert str(capture) in message and "no training steps found" in message


def _snapshot(directory: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(directory)): (p.stat().st_size, p.stat().st_mtime_ns) for p in directory.rglob("*")}


def test_loading_never_writes_into_the_logdir(copied_capture, tmp_path):
    copied_capture("input_bound")
    logdir = tmp_path / "logdir"
    before = _snapshot(logdir)
    load_profile(logdir)
    load_profile(logdir)  # cached
    assert _snapshot(logdir) == before


def test_second_load_is_served_from_the_cache(isolated_cache):
    capture = capture_file("input_bound_markers")
    first = load_profile(capture)
    assert list((isolated_cache / "profile").glob("*.json"))
    started = time.perf_counter()
    second = load_profile(capture)
    assert time.perf_counter() - started < 0.1
    assert second.to_json() == first.to_json()


def test_a_changed_capture_misses_the_cache(copied_capture, isolated_cache):
    capture = copied_capture("input_bound_markers")
    load_profile(capture)
    capture.write_bytes(capture_file("tuned_markers").read_bytes())
    assert load_profile(capture).input_pipeline.has_prefetch
    assert len(list((isolated_cache / "profile").glob("*.json"))) == 2


# --- Hostile captures: each is built here from a committed one. -------------------------------------------------


@pytest.fixture
def temp_dir(tmp_path, monkeypatch) -> Path:
    """The temporary directory the converter's copies go to, to see that nothing is left there."""
    directory = tmp_path / "tmp"
    directory.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(directory))
    return directory


def _rewritten(source: str, target: Path, change) -> Path:
    """A committed capture with ``change(line)`` applied to every line of its host plane."""
    xspace = XSpace.FromString(capture_file(source).read_bytes())
    for line in xspace.planes[0].lines:
        change(line)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(xspace.SerializeToString())
    return target


def _negative_python_durations(line) -> None:
    if line.name == "python":
        for event in line.events:
            event.duration_ps = -event.duration_ps - 1


def _no_times(line) -> None:
    line.timestamp_ns = 0
    for event in line.events:
        event.offset_ps = event.duration_ps = 0


def test_a_capture_that_crashes_the_converter_is_one_error_line(tmp_path, temp_dir):
    capture = _rewritten("input_bound_markers", tmp_path / "crafted.xplane.pb", _negative_python_durations)
    with pytest.raises(InputError) as error:
        load_profile(capture)
    message = _single_line(error)
    assert str(capture) in message and "negative duration" in message
    assert not list(temp_dir.iterdir())


def test_a_converter_crash_is_a_conversion_error_and_its_copy_is_removed(tmp_path, temp_dir):
    capture = _rewritten("input_bound_markers", tmp_path / "crafted.xplane.pb", _negative_python_durations)
    with pytest.raises(convert.ConversionError, match=r"the converter crashed \(SIGSEGV\)"):
        with convert.Conversion([capture], device=False, memory_limit=convert.memory_limit()[0]) as conversion:
            conversion.result()
    assert not list(temp_dir.iterdir())


def test_a_capture_without_times_is_refused_before_the_converter_runs_away(tmp_path, temp_dir):
    capture = _rewritten("input_bound_markers", tmp_path / "zero.xplane.pb", _no_times)
    with pytest.raises(InputError) as error:
        load_profile(capture)
    message = _single_line(error)
    assert str(capture) in message and "carry no times" in message
    assert not list(temp_dir.iterdir())


def test_a_converter_past_its_time_is_stopped(tmp_path, temp_dir):
    capture = _rewritten("input_bound_markers", tmp_path / "zero.xplane.pb", _no_times)  # 30 s+ in the converter
    with pytest.raises(convert.ConversionError, match="did not finish within 2 s"):
        with convert.Conversion([capture], False, convert.memory_limit()[0], timeout_s=2) as conversion:
            conversion.result()
    assert not list(temp_dir.iterdir())


def test_a_converter_past_its_memory_limit_is_stopped(temp_dir):
    with pytest.raises(convert.OverMemoryLimit, match="memory limit"):
        with convert.Conversion([capture_file("input_bound_markers")], False, memory_limit=8 << 20) as conversion:
            conversion.result()
    assert not list(temp_dir.iterdir())


def test_a_capture_joined_to_itself_is_refused(copied_capture):
    capture = copied_capture("input_bound_markers")
    capture.write_bytes(capture.read_bytes() * 2)  # protobuf parses it: every repeated field twice
    with pytest.raises(InputError) as error:
        load_profile(capture)
    message = _single_line(error)
    assert str(capture) in message and "plane /host:CPU more than once" in message


def test_a_gzipped_capture_says_so(copied_capture):
    capture = copied_capture("input_bound_markers")
    capture.write_bytes(gzip.compress(capture.read_bytes()))
    with pytest.raises(InputError) as error:
        load_profile(capture)
    assert "gzip-compressed" in _single_line(error)


def test_random_bytes_are_not_taken_for_a_text_conversion(copied_capture):
    capture = copied_capture("input_bound_markers")
    data = bytearray(random.Random(0).randbytes(4096))
    data[100:102] = b"\r\n"
    data[200:203] = b"\xef\xbf\xbd"
    capture.write_bytes(bytes(data))
    with pytest.raises(InputError) as error:
        load_profile(capture)
    message = _single_line(error)
    assert "not a valid XSpace capture" in message and "text conversion" not in message


def test_messages_never_name_the_temporary_copy(copied_capture, temp_dir):
    capture = copied_capture("input_bound")
    capture.write_bytes(capture.read_bytes()[:-1000])
    with pytest.raises(InputError) as error:
        load_profile(capture)
    message = _single_line(error)
    assert "converter: " in message and str(capture) in message
    assert str(temp_dir) not in message and "advisor-convert" not in message


def test_a_symlink_loop_is_named_as_such(tmp_path):
    loop = tmp_path / "logdir"
    loop.symlink_to(loop)
    with pytest.raises(InputError) as error:
        load_profile(loop)
    assert _single_line(error) == f"{loop}: cannot open it (Too many levels of symbolic links)"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads directories whatever their permissions")
def test_an_unreadable_run_directory_is_named(copied_capture, tmp_path):
    run_directory = copied_capture("input_bound").parent
    run_directory.chmod(0)
    try:
        with pytest.raises(InputError) as error:
            load_profile(tmp_path / "logdir")
    finally:
        run_directory.chmod(0o755)
    assert _single_line(error).startswith(f"{run_directory}: cannot read it (Permission denied)")


# --- Captures too big to convert. -------------------------------------------------------------------------------


def test_a_run_too_big_to_convert_is_read_by_advisor_alone(copied_capture, tmp_path, monkeypatch):
    capture = copied_capture("input_bound_markers")
    converted = load_profile(capture)
    monkeypatch.setenv(convert.MEMORY_LIMIT_VARIABLE, "10")  # MiB: less than the estimate for 1.5 MB
    logdir = tmp_path / "logdir"
    before = _snapshot(logdir)
    own = load_profile(logdir)
    assert _snapshot(logdir) == before
    assert own.warnings[0].startswith(f"{capture.name} is too big to convert: the converter would need about ")
    assert "Advisor read it alone" in own.warnings[0] and "no top ops table" in own.warnings[0]
    # What advisor reads itself is the converter's figure; what it cannot read is missing, never made up.
    assert own.input_pipeline == converted.input_pipeline and own.memory == converted.memory
    assert own.top_ops == [] and own.breakdown_source == "trace" and own.steps.source == "markers"
    assert own.steps.step_time_ms.avg == pytest.approx(converted.steps.step_time_ms.avg, rel=0.1)


def test_a_converter_over_its_limit_midway_leaves_the_run_to_advisor(copied_capture, monkeypatch):
    capture = copied_capture("input_bound_markers")
    monkeypatch.setattr(convert, "MEMORY_BASE_BYTES", 0)  # estimates that let it start...
    monkeypatch.setattr(convert, "MEMORY_PER_CAPTURE_BYTE", 1)
    monkeypatch.setenv(convert.MEMORY_LIMIT_VARIABLE, "20")  # ...and a limit its interpreter alone nearly fills
    findings = load_profile(capture)
    assert findings.warnings[0].startswith(f"{capture.name}: the converter went over its memory limit (0.0 GiB)")
    assert findings.input_pipeline.iterators and findings.top_ops == []


def test_a_malformed_memory_limit_is_an_input_error(monkeypatch):
    monkeypatch.setenv(convert.MEMORY_LIMIT_VARIABLE, "lots")
    with pytest.raises(InputError, match="ADVISOR_CONVERTER_MEMORY_MB must be a positive number of MiB"):
        load_profile(capture_file("input_bound"))


# --- The cache. --------------------------------------------------------------------------------------------------


def test_a_capture_rewritten_with_its_size_and_mtime_misses_the_cache(copied_capture):
    capture = copied_capture("input_bound_markers")
    assert load_profile(capture).hardware.devices == ["vm"]  # a CPU-only capture names its host
    stamp = capture.stat()
    hostname = b"\x22\x02vm"  # XSpace.hostnames: field 4, 2 bytes
    assert capture.read_bytes().endswith(hostname)
    capture.write_bytes(capture.read_bytes()[:-len(hostname)] + b"\x22\x02wm")  # same size, other bytes
    os.utime(capture, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    assert (capture.stat().st_size, capture.stat().st_mtime_ns) == (stamp.st_size, stamp.st_mtime_ns)
    assert load_profile(capture).hardware.devices == ["wm"]


def test_no_cache_reads_the_capture_again(isolated_cache):
    capture = capture_file("input_bound_markers")
    truth = load_profile(capture).to_json()
    (entry,) = (isolated_cache / "profile").glob("*.json")
    planted = json.loads(entry.read_text())
    planted["trace"]["markers"] = planted["trace"]["markers"][:5]  # a well-formed entry that tells another story
    entry.write_text(json.dumps(planted))
    assert load_profile(capture).to_json() != truth  # the cache is trusted...
    assert load_profile(capture, use_cache=False).to_json() == truth  # ...unless told not to
    assert load_profile(capture).to_json() == truth  # and the entry was refreshed


def test_no_cache_reaches_the_profile_from_the_command_line(isolated_cache, tmp_path):
    capture = capture_file("input_bound_markers")
    load_profile(capture)
    (entry,) = (isolated_cache / "profile").glob("*.json")
    planted = json.loads(entry.read_text())
    planted["warnings"] = ["planted in the cache"]
    entry.write_text(json.dumps(planted))
    repo = tmp_path / "repo"
    repo.mkdir()
    runs = {flag: subprocess.run([sys.executable, "-m", "advisor", "analyze", "--min-confidence", "possible", str(repo),
                                  str(capture), "--format", "json", *flag], capture_output=True, text=True, timeout=300)
            for flag in ((), ("--no-cache",))}
    assert json.loads(runs[()].stdout)["profile"]["warnings"] == ["planted in the cache"]
    assert json.loads(runs[("--no-cache",)].stdout)["profile"]["warnings"] == []


@pytest.mark.parametrize("entry", [[], {}, {"hosts": 3}, {"hosts": ["vm.xplane.pb"], "tools": [], "trace": {},
                                                           "warnings": []}, "text"])
def test_a_wrong_shaped_cache_entry_is_replaced(isolated_cache, entry):
    capture = capture_file("input_bound_markers")
    truth = load_profile(capture).to_json()
    (path,) = (isolated_cache / "profile").glob("*.json")
    path.write_text(json.dumps(entry))
    assert load_profile(capture).to_json() == truth
    assert json.loads(path.read_text()) != entry
