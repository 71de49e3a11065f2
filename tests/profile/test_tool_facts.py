"""Advisor's own reading of the converter facts it needs for captures too big to convert, against the converter."""

from __future__ import annotations

import pytest

from advisor.profile import convert, trace
from advisor.profile.tool_facts import ToolFacts
from advisor.profile.xspace_reader import CaptureFile
from profile_fixtures import PROFILES, capture_file

SAMPLES = sorted(p.name for p in PROFILES.iterdir() if p.is_dir())


def _by_name(iterators: list[dict]) -> dict[str, tuple]:
    return {it["name"]: (it["count"], round(it["time_ms"], 6), round(it["self_time_ms"], 6)) for it in iterators}


@pytest.mark.parametrize("name", SAMPLES)
def test_iterator_times_and_memory_peaks_equal_the_converters(name):
    path = capture_file(name)
    with convert.Conversion([path], device=False, memory_limit=convert.memory_limit()[0]) as conversion:
        converted = conversion.result()
    tools = ToolFacts()
    with CaptureFile(path) as capture:
        trace.read_trace_facts(capture, tools)
    derived = tools.facts()
    assert converted["iterators"], "every sample runs a tf.data pipeline"
    assert _by_name(derived["iterators"]) == _by_name(converted["iterators"])
    assert derived["memory"] == converted["memory"]


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
