"""Text from the user's files and captures, made safe to show: control and bidirectional characters become visible
escapes instead of acting on the terminal or the page.

A file name, a source line or an op name may carry ANSI/OSC escape sequences (clear the screen, set the terminal's
title, hide text) or bidirectional controls that reorder what a reader sees (the "Trojan Source" trick). Reports
show them as ``\\x1b`` or ``\\u202e``: what is there is seen, nothing is done. A leaf: it imports nothing of ours.
"""

from __future__ import annotations

import re

from rich.markup import escape

# C0 controls but tab and newline, DEL and C1 controls; a carriage return only when it does not end a line.
_CONTROL = r"[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)"
# Bidirectional marks, embeddings, overrides and isolates, and the line and paragraph separators some terminals
# break lines at.
_BIDI = "[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]"
_UNSAFE = re.compile(f"{_CONTROL}|{_BIDI}")


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` with every control (but tab and line ends) and bidirectional character written as an escape."""
    return _UNSAFE.sub(_escape, text)


def one_line(text: str) -> str:
    """``text`` as one printable line: line ends too become escapes (error messages are one line)."""
    return printable(text).replace("\r\n", "\\n").replace("\n", "\\n")


def console_text(text: str) -> str:
    """``text`` for a rich console: printable, and its square brackets escaped so they are not read as markup."""
    return escape(printable(text))
