"""Advisor's own reading of the converter facts it needs for captures too big to convert, against the converter."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from advisor.profile import convert, trace
from advisor.profile.tool_facts import ToolFacts
from advisor.profile.xspace_reader import CaptureFile
from profile_fixtures import PROFILES, capture_file

SAMPLES = sorted(p.name for p in PROFILES.iterdir() if p.is_dir())


def _by_name(iterators: list[dict]) -> dict[str, tuple]:
    return {it["name"]: (it["count"], round(it["time_ms"], 6), round(it["self_time_ms"], 6)) for it in iterators}


def _memory_profile_peaks(path: Path, scratch: Path) -> dict[str, int]:
    """The converter's memory_profile tool (which advisor no longer runs): peak bytes in use per allocator."""
    copy = scratch / path.name
    shutil.copyfile(path, copy)
    profile = convert._run_tools([str(copy)], ("memory_profile",))["memory_profile"]
    return {name: int(allocator["profileSummary"]["peakStats"].get("peakBytesInUse", 0))
            for name, allocator in profile.get("memoryProfilePerAllocator", {}).items()}


@pytest.mark.parametrize("name", SAMPLES)
def test_iterator_times_and_memory_peaks_equal_the_converters(name, tmp_path):
    path = capture_file(name)
    with convert.Conversion([path], device=False, memory_limit=convert.memory_limit()[0]) as conversion:
        converted = conversion.result()
    tools = ToolFacts()
    with CaptureFile(path) as capture:
        trace.read_trace_facts(capture, tools)
    derived = tools.facts()
    assert converted["iterators"], "every sample runs a tf.data pipeline"
    assert _by_name(derived["iterators"]) == _by_name(converted["iterators"])
    assert derived["memory"] == _memory_profile_peaks(path, tmp_path)


MS = 10**9  # ps


def test_self_time_leaves_out_nested_iterators_only():
    tools = ToolFacts()
    tools.add("Iterator::Root", 0, 100 * MS, {})
    tools.add("Iterator::Root::Map", 10 * MS, 50 * MS, {})
    tools.add("Iterator::Root::Map::Source", 20 * MS, 10 * MS, {})
    tools.add("Iterator::Root::Map", 70 * MS, 20 * MS, {})  # a second call: counted, not nested in the first
    tools.end_line()
    tools.add("Iterator::Root::Map", 0, 30 * MS, {})  # another thread: nothing nests across lines
    tools.end_line()
    assert _by_name(tools.facts()["iterators"]) == {
        "Iterator::Root": (1, 100.0, 30.0),
        "Iterator::Root::Map": (3, 100.0, 90.0),
        "Iterator::Root::Map::Source": (1, 10.0, 10.0),
    }


def test_memory_peak_is_the_largest_allocated_plus_reserved_per_allocator():
    tools = ToolFacts()
    for allocated, reserved in ((100, 0), (300, 50), (200, 0)):
        tools.add("MemoryAllocation", 0, 0, {"allocator_name": "mklcpu", "bytes_allocated": allocated,
                                            "bytes_reserved": reserved})
    tools.add("MemoryDeallocation", 0, 0, {"allocator_name": "GPU_0_bfc", "bytes_allocated": 7})
    assert tools.facts()["memory"] == {"mklcpu": 350, "GPU_0_bfc": 7}


def test_hosts_combine_as_the_converter_combines_them():
    hosts = [ToolFacts(), ToolFacts()]
    for host, (calls, peak) in zip(hosts, ((1, 10), (2, 30))):
        for call in range(calls):
            host.add("Iterator::Root", call * 10 * MS, 5 * MS, {})
        host.add("MemoryAllocation", 0, 0, {"allocator_name": "mklcpu", "bytes_allocated": peak})
        host.end_line()
    combined = ToolFacts.combined(hosts)
    assert _by_name(combined["iterators"]) == {"Iterator::Root": (3, 15.0, 15.0)}
    assert combined["memory"] == {"mklcpu": 30}
