"""Bad input, the cache, and the promise never to write into the user's logdir."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from advisor.errors import InputError
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
