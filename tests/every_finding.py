"""Command lines for tests of the CLI: `analyze` and `check` report every finding, `possible` ones included.

The default min-confidence (likely) hides static `possible` findings; most CLI tests use small repos whose findings
are exactly those, and test something else about them (formats, errors, apply). Tests of the default itself pass
their own `--min-confidence`.
"""

from __future__ import annotations

REPORTING = ("analyze", "check")


def every_finding(args: tuple[str, ...] | list[str]) -> list[str]:
    args = list(args)
    if args and args[0] in REPORTING and "--min-confidence" not in args:
        return [args[0], "--min-confidence", "possible", *args[1:]]
    return args
