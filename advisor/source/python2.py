"""Python 2 scripts read as Python 3: the statements Python 3 no longer parses, rewritten in place.

Old TensorFlow 1.x repos are often Python 2 (``print loss``, ``except IOError, e:``): libcst parses only Python 3,
so without this their training scripts would be skipped whole. Only the statements that stop the parse are
rewritten, each on its own lines (line numbers stay those of the file): ``print x, y`` -> ``print(x, y)`` (a
``>>stream,`` target dropped), ``except E, e:`` -> ``except E as e:``, ``raise E, "text"`` -> ``raise E("text")``.
What else Python 2 allows (backticks, ``<>``, ``exec`` statements) still fails the parse, and the file is skipped.

The same era's indentation mixes tabs and spaces (``" \tfor i in ..."``), which CPython reads (a tab to the next
multiple of 8 columns) and libcst's tokenizer misreads: such indentation is expanded first, as CPython counts it.
"""

from __future__ import annotations

import io
import re
import tokenize

# Tokens after which a new statement starts (`if ready: print x` starts one after the colon).
_STATEMENT_BREAKS = frozenset({tokenize.NEWLINE, tokenize.NL, tokenize.INDENT, tokenize.DEDENT})
_NOT_CODE = frozenset({tokenize.COMMENT, tokenize.NL})
_INDENTATION_WITH_TAB = re.compile(r"^[ \t]*\t[ \t]*", re.MULTILINE)


def libcst_reading(text: str, python3_parses: bool) -> tuple[str, str] | None:
    """The reading of an old script to parse where libcst fails on ``text``, and what it changed: tabs in the
    indentation expanded as Python counts them, Python 2 statements rewritten (:func:`as_python3`); None when
    neither applies. Lines keep their numbers. Tabs alone are expanded only where CPython (``python3_parses``)
    reads the file: mixing them inconsistently is an error Python 3 reports, which Python 2 did not."""
    expanded = _INDENTATION_WITH_TAB.sub(lambda tabbed: tabbed.group().expandtabs(8), text)
    tabs = ", tabs in its indentation expanded" if expanded != text else ""
    python3 = as_python3(expanded)
    if python3 is not None:
        return python3, f"Python 2, read as Python 3 (its print, except and raise statements rewritten{tabs}; " \
            "no fixes offered)"
    return (expanded, "tabs and spaces mixed in its indentation, read with the tabs expanded as Python counts them "
            "(no fixes offered)") if tabs and python3_parses else None


def as_python3(text: str) -> str | None:
    """``text`` with its Python 2 print, except and raise statements rewritten for Python 3; None when it has none
    or does not tokenize."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
    edits: list[tuple[tuple[int, int], tuple[int, int], str]] = []  # (start, end, replacement), positions in text
    depth = 0
    starts_statement = True
    for index, token in enumerate(tokens):
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth = max(depth - 1, 0)
        if starts_statement and token.type == tokenize.NAME and depth == 0:
            edits += _rewrite(tokens, index)
        starts_statement = token.type in _STATEMENT_BREAKS or (
            token.type == tokenize.OP and token.string in (";", ":") and depth == 0)
    if not edits:
        return None
    lines = text.splitlines(keepends=True)
    for (start_row, start_col), (end_row, end_col), replacement in sorted(edits, reverse=True):
        if start_row != end_row:  # every edit stays on one line: positions elsewhere do not move
            return None
        line = lines[start_row - 1]
        lines[start_row - 1] = line[:start_col] + replacement + line[end_col:]
    return "".join(lines)


def _rewrite(tokens: list[tokenize.TokenInfo], index: int) -> list[tuple[tuple[int, int], tuple[int, int], str]]:
    """The edits that make the statement starting at ``tokens[index]`` Python 3, if it is a Python 2 one."""
    keyword = tokens[index]
    statement = _statement(tokens, index)
    if not statement:
        if keyword.string == "print":  # a bare `print`: an empty line
            return [(keyword.end, keyword.end, "()")]
        return []
    first, last = statement[0], statement[-1]
    if keyword.string == "print":
        if first.type == tokenize.OP and first.string in ("(", "=", ".", ",", "[", "+=", ")"):
            return []  # already a call (`print(x)`, `print ("x")`), or print used as a name
        edits = [(keyword.end, first.start, "("), (last.end, last.end, ")")]
        if first.string == ">>":  # `print >>sys.stderr, x`: the stream is no part of what is analysed
            comma = _top_level_comma(statement)
            edits[0] = (keyword.end, statement[comma + 1].start if comma is not None and comma + 1 < len(
                statement) else last.end, "(")
        return edits
    comma = _top_level_comma(statement)
    if comma is None:
        return []
    if keyword.string == "except" and last.string == ":":
        return [(statement[comma].start, statement[comma].end, " as")]
    if keyword.string == "raise":
        return [(statement[comma].start, statement[comma + 1].start if comma + 1 < len(statement)
                 else statement[comma].end, "("), (last.end, last.end, ")")]
    return []


def _statement(tokens: list[tokenize.TokenInfo], index: int) -> list[tokenize.TokenInfo]:
    """The code tokens after ``tokens[index]`` up to the end of its simple statement (a newline or ``;`` outside
    brackets; for ``except``, through its colon)."""
    found: list[tokenize.TokenInfo] = []
    depth = 0
    for token in tokens[index + 1:]:
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth -= 1
        if token.type in (tokenize.NEWLINE, tokenize.ENDMARKER) or (
                depth == 0 and token.type == tokenize.OP and token.string == ";"):
            break
        if token.type in _NOT_CODE:
            continue
        found.append(token)
        if depth == 0 and token.type == tokenize.OP and token.string == ":" and tokens[index].string == "except":
            break
    return found


def _top_level_comma(statement: list[tokenize.TokenInfo]) -> int | None:
    """The position in ``statement`` of its first comma outside brackets."""
    depth = 0
    for position, token in enumerate(statement):
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth -= 1
        elif depth == 0 and token.type == tokenize.OP and token.string == ",":
            return position
    return None
