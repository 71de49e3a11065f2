"""Converter facts that advisor reads from the raw trace itself: always the memory peaks, and the iterator times of
captures too big to convert.

The converters build their tables from every event of a capture and need 30-60 times its size in memory; for the
tables below the trace holds the same numbers, so advisor reads them in its own streaming pass (``trace.py``) and
returns them in the shape of the conversion's facts:

- ``iterators`` (input_pipeline_analyzer): per tf.data iterator, its calls, total time and self time, where self time
  is the time not spent in the iterator events nested in it on the same thread (work that an iterator does in other
  ops, e.g. a ``py_function`` a generator calls, stays its own, as in the converter).
- ``memory`` (memory_profile): per allocator, the peak of bytes allocated plus bytes reserved, over the
  ``MemoryAllocation`` / ``MemoryDeallocation`` events' stats. Read here even when the converter runs: its
  memory_profile tool costs a quarter of a conversion.

Both equal the converter's figures on every committed sample capture (tests/profile/test_tool_facts.py).
The op table (framework_op_stats) is not derived: the converter's op names, occurrences and totals follow rules
(which events count as ops and how memory events count) that advisor does not reproduce exactly.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

ITERATOR_PREFIX = "Iterator::"
MEMORY_EVENTS = frozenset({"MemoryAllocation", "MemoryDeallocation"})
MEMORY_STATS = ("allocator_name", "bytes_allocated", "bytes_reserved")
PS_PER_MS = 1e9


class ToolFacts:
    """Accumulates the derived facts line by line: ``wanted`` names the events it reads, :meth:`add` takes one,
    :meth:`end_line` closes the line (self times need a line's nesting), :meth:`facts` gives the result."""

    def __init__(self) -> None:
        self._line_iterators: list[tuple[int, int, str]] = []
        self._iterators: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # calls, total ps, self ps
        self._memory_peaks: dict[str, int] = {}

    @staticmethod
    def wanted(name: str) -> bool:
        return name.startswith(ITERATOR_PREFIX) or name in MEMORY_EVENTS

    def add(self, name: str, start_ps: int, duration_ps: int, stats: dict[str, Any]) -> None:
        """One wanted event; ``stats`` holds its MEMORY_STATS (unused for iterators)."""
        if name.startswith(ITERATOR_PREFIX):
            self._line_iterators.append((start_ps, start_ps + duration_ps, name))
            return
        allocator = str(stats.get("allocator_name", ""))
        in_use = int(stats.get("bytes_allocated", 0)) + int(stats.get("bytes_reserved", 0))
        self._memory_peaks[allocator] = max(self._memory_peaks.get(allocator, 0), in_use)

    def end_line(self) -> None:
        """Self times of the line's iterator events: an event's time less its direct children's (nested events)."""
        open_events: list[list[Any]] = []  # [end, name, duration, children's time]
        for start, end, name in sorted(self._line_iterators, key=lambda e: (e[0], -e[1])):
            while open_events and open_events[-1][0] <= start:
                self._close(*open_events.pop())
            if open_events:
                open_events[-1][3] += end - start
            open_events.append([end, name, end - start, 0])
        while open_events:
            self._close(*open_events.pop())
        self._line_iterators.clear()

    def _close(self, end: int, name: str, duration: int, children: int) -> None:
        totals = self._iterators[name]
        totals[0] += 1
        totals[1] += duration
        totals[2] += duration - children

    def facts(self) -> dict[str, Any]:
        return self.combined([self])

    @staticmethod
    def combined(hosts: list[ToolFacts]) -> dict[str, Any]:
        """The facts of a run's hosts together, as the converter combines them: iterator calls and times add up,
        and each allocator's peak is the highest of any host."""
        iterators: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
        memory: dict[str, int] = {}
        for host in hosts:
            for name, totals in host._iterators.items():
                iterators[name] = [a + b for a, b in zip(iterators[name], totals)]
            for allocator, peak in host._memory_peaks.items():
                memory[allocator] = max(memory.get(allocator, 0), peak)
        return {
            "iterators": [{"name": name, "count": calls, "time_ms": total / PS_PER_MS, "self_time_ms": own / PS_PER_MS}
                          for name, (calls, total, own) in iterators.items()],
            "memory": memory,
        }
