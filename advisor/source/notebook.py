"""Jupyter notebooks (nbformat 4) as modules: read one, map positions both ways, write fixes back into it.

A notebook becomes one module: its code cells in order, joined, as its kernel runs them (a name one cell defines is
used in the next). Whatever IPython would not run as Python keeps its lines, so every position maps back 1:1: line
magics, shell escapes and help requests (``%time f()``, ``!pip install x``, ``files = !ls``, ``model.fit?``) become
comments (``pass`` inside a block); a ``%%time``-like cell magic line becomes a comment and its body is analysed;
cells in another language and cell magics whose body is not Python (``%%bash``, ``%%writefile``) are left out, and
:attr:`Notebook.left_out` says so.

Cells are numbered from 1 among all of the notebook's cells, markdown included: the numbering VS Code shows and
Ruff reports (``train.ipynb:cell 3:2:13``).

Fixes are composed on the module; :meth:`Notebook.with_code` maps the new module back onto the cells it changed
and splices each changed cell's new ``source`` into the file's own text, in the layout the file uses (indentation,
separators, ASCII escaping): every other byte stays as it was (outputs, metadata, ids, execution counts).
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from bisect import bisect_right
from dataclasses import dataclass, replace
from functools import cached_property
from json.decoder import scanstring
from pathlib import Path
from typing import Iterable

from ..files import unified_diff
from ..model import CellSpan

NOTEBOOK_SUFFIX = ".ipynb"
# Cell magics that run their body as Python in the kernel; any other cell magic's body is left out.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun"})
# ipykernel (6 and later) names the code of a cell after a murmur2 hash of its source, with this seed
# (ipykernel.compiler.get_tmp_hash_seed); IPython before it, `<ipython-input-N-HASH>` with a SHA-1 prefix.
IPYKERNEL_HASH_SEED = 0xC70F6907
IPYTHON_INPUT = re.compile(r"<ipython-input-\d+-(?P<digest>[0-9a-f]{12})>")

_LINE = re.compile(r".*?(?:\r\n|\r|\n)|.+", re.DOTALL)  # Python's line ends: not str.splitlines' \f, \x1c, \u2028...
_MAGIC_ASSIGNMENT = re.compile(r"[ \t]*[A-Za-z_][\w.\[\], ]*=(?!=)[ \t]*[%!]")
_CELL_MAGIC = re.compile(r"%%(?P<name>\w*)")
# IPython's help syntax, a line of its own: `datagen.flow?`, `??model.fit` (no Python line ends or starts with `?`).
_HELP_REQUEST = re.compile(r"[ \t]*(?:\?{1,2}[\w.*\[\]]+|[\w.*\[\]]+\?{1,2})[ \t]*(?:#.*)?[\r\n]*")
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_SEPARATOR = re.compile(r',[ \t]*(?=")')  # between two members written on one line
_DECODER = json.JSONDecoder()


class NotebookError(ValueError):
    """A file advisor cannot read as a notebook, or a fix it cannot write back into one; the message says why."""


def source_lines(text: str) -> list[str]:
    """``text``'s lines with their line ends, split where Python's tokenizer splits them."""
    return _LINE.findall(text)


@dataclass(frozen=True)
class Cell:
    """One code cell that the module holds."""

    number: int  # 1-based among all cells
    source: str  # as the notebook stores it
    placeholders: frozenset[int]  # 0-based lines of magics and shell escapes, replaced in the module

    @cached_property
    def lines(self) -> list[str]:
        return source_lines(self.source)

    @property
    def code(self) -> str:
        """The cell's code as the module holds it."""
        return "".join(self.module_lines())

    @cached_property
    def indent(self) -> str:
        """The indentation of the cell's first written line, which IPython takes off every line starting with it
        (a cell pasted indented as a whole runs as if it were not)."""
        found = _INDENT.match(self.lines[_first_written(self.lines)]) if self.lines else None
        return found.group(0) if found else ""

    def indent_removed(self, number: int) -> int:
        """How many characters of line ``number`` (0-based) the module leaves out at its start (:attr:`indent`)."""
        return len(self.indent) if self.indent and self.lines[number].startswith(self.indent) else 0

    def module_lines(self) -> list[str]:
        """The cell's lines as the module holds them: the cell's indentation taken off, magics replaced, each line
        ended."""
        lines = []
        first = _first_written(self.lines)
        for number, line in enumerate(self.lines):
            line = line[self.indent_removed(number):]
            if number in self.placeholders:
                # The lines a magic continues onto (with a backslash) stay blank.
                continued = number - 1 in self.placeholders and self.lines[number - 1].rstrip("\r\n").endswith("\\")
                # IPython takes the indentation off a cell's first line (` %%time`): a magic there is top level.
                line = line[len(line.rstrip("\r\n")):] if continued else _placeholder(
                    line.lstrip(" \t") if number == first else line)
            lines.append(line if line.endswith(("\n", "\r")) else line + "\n")
        return lines

    def code_names(self) -> tuple[str, ...]:
        """The file names a kernel gives this cell's code, which Python frames (tracebacks, the python tracer) show:
        ipykernel's ``<tmp>/ipykernel_<pid>/<murmur2>.py`` (the base name is what is stable) and, before ipykernel 6,
        IPython's ``<ipython-input-<n>-<sha1>>`` (the execution count varies; the digest is what is stable)."""
        # IPython hashes the code it runs: a cell without magics, ended with a newline.
        return (f"{murmur2(self.source.encode(), IPYKERNEL_HASH_SEED)}.py",
                hashlib.sha1(_ended(self.source).encode()).hexdigest()[:12])


@dataclass(frozen=True)
class _Layout:
    """Where each cell's ``source`` value is in the file's text, and how the file writes JSON."""

    sources: dict[int, tuple[int, int]]  # cell number -> span of its `source` value
    pieces: dict[int, list[tuple[int, int]]]  # cell number -> (offset in the source, offset of the string's quote)
    line_starts: list[int]  # offsets in the file's text where its lines start
    ensure_ascii: bool
    inline_separator: str  # between items written on one line: ", " (json.dumps) or "," (compact)


@dataclass(frozen=True)
class Notebook:
    """A notebook file and the module its analysed code cells make."""

    text: str  # the file, decoded
    cells: tuple[Cell, ...]  # the code cells the module holds, in order
    cells_left_out: tuple[str, ...]  # code cells not analysed, as people read them: "cell 4 (%%bash)"

    @property
    def left_out(self) -> list[str]:
        """What of the notebook's code is not analysed, as people read it."""
        with_magics = [str(cell.number) for cell in self.cells if cell.placeholders]
        magics = [f"IPython magic or shell lines in cell{'s' * (len(with_magics) > 1)} {', '.join(with_magics)}"]
        return [*self.cells_left_out, *(magics if with_magics else [])]

    # -- reading -------------------------------------------------------------------------------------------------
    @classmethod
    def parse(cls, data: bytes) -> "Notebook":
        """Read an nbformat 4 notebook; :class:`NotebookError` says why a file is not one."""
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise NotebookError(f"not a notebook: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
        try:
            document = json.loads(text)
        except ValueError as exc:
            where = f" at line {exc.lineno} column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else ""
            raise NotebookError(f"not a notebook: not JSON ({getattr(exc, 'msg', exc)}{where})") from None
        if not isinstance(document, dict):
            raise NotebookError("not a notebook: the JSON is not an object")
        version = document.get("nbformat")
        if "worksheets" in document or (isinstance(version, int) and version < 4):
            raise NotebookError(f"an nbformat {version or 3} notebook; advisor reads version 4 "
                                f"(convert it: `jupyter nbconvert --to notebook --nbformat 4`)")
        if version != 4 or not isinstance(document.get("cells"), list):
            raise NotebookError("not an nbformat 4 notebook (no `nbformat: 4` and `cells` list)")
        language = _notebook_language(document.get("metadata"))
        if language not in (None, "python"):
            raise NotebookError(f"a {language} notebook, not Python")
        cells: list[Cell] = []
        left_out: list[str] = []
        for number, raw in enumerate(document["cells"], start=1):
            if not isinstance(raw, dict) or raw.get("cell_type") != "code":
                continue
            source = raw.get("source", "")
            if isinstance(source, list) and all(isinstance(piece, str) for piece in source):
                source = "".join(source)
            if not isinstance(source, str):
                raise NotebookError(f"cell {number}: its source is not text")
            cell_language = _cell_language(raw.get("metadata"))
            if cell_language not in (None, "python"):
                left_out.append(f"cell {number} ({cell_language})")
                continue
            lines = source_lines(source)
            magic = _CELL_MAGIC.match(lines[_first_written(lines)].lstrip(" \t")) if source.strip() else None
            if magic and magic.group("name") not in PYTHON_CELL_MAGICS:
                left_out.append(f"cell {number} (%%{magic.group('name')})")
                continue
            cells.append(Cell(number, source, _magic_lines(lines)))
        return cls(text, tuple(cells), tuple(left_out))

    def without(self, cell: Cell) -> "Notebook":
        """This notebook with ``cell`` left out of the module (it does not parse)."""
        return replace(self, cells=tuple(c for c in self.cells if c is not cell))

    # -- the module ----------------------------------------------------------------------------------------------
    @cached_property
    def _module_lines(self) -> list[tuple[Cell, int, str]]:
        """(cell, 0-based line in the cell, text) of each module line."""
        return [(cell, number, text) for cell in self.cells for number, text in enumerate(cell.module_lines())]

    @cached_property
    def code(self) -> str:
        """The module: the analysed cells' lines, in order."""
        return "".join(text for _, _, text in self._module_lines)

    @cached_property
    def _first_lines(self) -> list[int]:
        """The module line (1-based) each cell starts at; an empty cell starts where the next one does."""
        starts, line = [], 1
        for cell in self.cells:
            starts.append(line)
            line += len(cell.lines)
        return starts

    def cell_at(self, line: int) -> tuple[Cell, int]:
        """The cell holding module line ``line`` (1-based) and the line in it (1-based). A line past the end is the
        last cell's last line."""
        if not self.cells:
            raise ValueError("the notebook has no code cells")
        line = max(1, min(line, len(self._module_lines)))
        # Empty cells start where the next one does: the last cell starting at or before the line holds it.
        index = max(0, bisect_right(self._first_lines, line) - 1)
        return self.cells[index], line - self._first_lines[index] + 1

    def frame_offset(self, file_name: str) -> int | None:
        """What to add to a line of a Python frame in ``file_name`` (a path or base name) to get the module line,
        when the frame ran one of these cells in a kernel; None when it did not."""
        base = file_name.replace("\\", "/").rsplit("/", 1)[-1]
        digest = IPYTHON_INPUT.fullmatch(base)
        for cell, first in zip(self.cells, self._first_lines):
            murmur, sha1 = cell.code_names()
            if base == murmur or (digest is not None and digest.group("digest") == sha1):
                return first - 1
        return None

    def span(self, line: int, column: int, end_line: int, end_column: int) -> CellSpan:
        """A module span (1-based lines and columns, end exclusive) as its cell shows it and as the file holds it.
        A span running into a later cell is cut at the end of its first cell."""
        cell, cell_line = self.cell_at(line)
        end_cell, cell_end_line = self.cell_at(end_line)
        if end_cell is not cell:
            cell_end_line = len(cell.lines)
            end_column = len(cell.lines[-1].rstrip("\r\n")) + 1 - cell.indent_removed(cell_end_line - 1)
        file_line, file_column = self._file_position(cell, cell_line, column)
        file_end_line, file_end_column = self._file_position(cell, cell_end_line, end_column)
        return CellSpan(cell.number, cell_line, cell_end_line, file_line, file_column, file_end_line,
                        file_end_column)

    # -- the file's text ----------------------------------------------------------------------------------------
    @cached_property
    def _layout(self) -> _Layout:
        """Scanned when first needed: only notebooks with findings or fixes pay for it."""
        text = self.text
        top = _members(text, _skip(text, 0))
        cells = _elements(text, top["cells"][0])
        sources: dict[int, tuple[int, int]] = {}
        pieces: dict[int, list[tuple[int, int]]] = {}
        for cell in self.cells:
            start, end = _members(text, cells[cell.number - 1][0])["source"]
            sources[cell.number] = (start, end)
            strings = [(start, end)] if text[start] == '"' else _elements(text, start)
            offset, found = 0, []
            for string_start, _ in strings:
                found.append((offset, string_start))
                offset += len(_DECODER.raw_decode(text, string_start)[0])
            pieces[cell.number] = found
        line_starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]
        return _Layout(sources, pieces, line_starts, _ensure_ascii(text), _inline_separator(text, top))

    def _file_position(self, cell: Cell, line: int, column: int) -> tuple[int, int]:
        """Where (1-based line, column) the file's text holds column ``column`` of line ``line`` of ``cell``."""
        layout = self._layout
        removed = cell.indent_removed(line - 1) if line <= len(cell.lines) else 0
        offset = sum(len(text) for text in cell.lines[:line - 1]) + removed + column - 1
        pieces = layout.pieces[cell.number]
        index = max(0, bisect_right([start for start, _ in pieces], offset) - 1)
        piece_start, quote = pieces[index] if pieces else (0, layout.sources[cell.number][0])
        piece = _DECODER.raw_decode(self.text, quote)[0] if pieces else ""
        escaped = json.dumps(piece[:offset - piece_start], ensure_ascii=layout.ensure_ascii)
        position = quote + 1 + len(escaped) - 2
        file_line = bisect_right(layout.line_starts, position)
        return file_line, position - layout.line_starts[file_line - 1] + 1

    # -- writing fixes back ------------------------------------------------------------------------------------
    def changed_sources(self, code: str, targets: Iterable[int] = ()) -> dict[int, str]:
        """Cell number -> new source, for each cell whose source ``code`` (a new text of the module) changes.

        New module lines are matched to the old ones (difflib); unchanged lines keep the cell's own text (so magics
        come back), changed ones go to the cell of the lines they replace. Lines inserted between two cells go to the
        one that a fix targets (``targets``: module lines), else to the one before them (the first cell at the very
        top): a statement put before the target goes to the top of its cell, one appended after it to the end of its
        cell. Raises :class:`NotebookError` for a change this cannot place: one to a magic line, or one that replaces
        lines of several cells with a different number of lines.
        """
        old = self._module_lines
        new = source_lines(code)
        if not old:
            raise NotebookError("the notebook has no code cells to change")
        targeted = {self.cell_at(line)[0].number for line in targets}
        rebuilt: dict[int, list[str]] = {cell.number: [] for cell in self.cells}
        matcher = difflib.SequenceMatcher(None, [text for _, _, text in old], new, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                for cell, number, _ in old[i1:i2]:
                    rebuilt[cell.number].append(_ended(cell.lines[number]))
                continue
            touched = old[i1:i2]
            if any(number in cell.placeholders for cell, number, _ in touched):
                raise NotebookError("the change would rewrite an IPython magic or shell line")
            neighbours = [old[i][0] for i in (i1 - 1, i1) if 0 <= i < len(old)] if not touched else []
            indented = next((cell for cell, _, _ in touched if cell.indent), None) or next(
                (cell for cell in neighbours if cell.indent), None)
            if indented is not None:
                raise NotebookError(f"cell {indented.number} is indented as a whole, which IPython undoes: a change "
                                    "written back could not keep its indentation")
            owners = list(dict.fromkeys(cell.number for cell, _, _ in touched))
            if len(owners) > 1:
                if i2 - i1 != j2 - j1:
                    raise NotebookError(f"the change spans cells {', '.join(map(str, owners))}")
                for (cell, _, _), text in zip(touched, new[j1:j2]):
                    rebuilt[cell.number].append(text)
                continue
            if owners:
                owner = owners[0]
            else:
                before = old[i1 - 1][0].number if i1 > 0 else None
                after = old[i1][0].number if i1 < len(old) else None
                owner = after if after in targeted and before not in targeted or before is None else before
            rebuilt[owner].extend(new[j1:j2])
        changed = {}
        for cell in self.cells:
            source = "".join(rebuilt[cell.number])
            if source.endswith("\n") and not cell.source.endswith("\n"):
                source = source[:-1]  # notebooks store a cell's last line without its newline
            if source != cell.source:
                changed[cell.number] = source
        return changed

    def with_code(self, code: str, targets: Iterable[int] = ()) -> str:
        """The file's new text with the cells that ``code`` (a new text of the module, made by fixes that target
        module lines ``targets``) changes rewritten; every other byte is the file's own. Raises
        :class:`NotebookError` when the change cannot be written back."""
        changed = self.changed_sources(code, targets)
        layout = self._layout
        text = self.text
        for number in sorted(changed, key=lambda n: -layout.sources[n][0]):  # from the end: offsets stay valid
            start, end = layout.sources[number]
            text = text[:start] + self._source_value(text[start:end], changed[number]) + text[end:]
        written = json.loads(text)["cells"]  # the result must be the notebook intended, still JSON
        by_number = {cell.number: cell.source for cell in self.cells} | changed
        for number, source in by_number.items():
            stored = written[number - 1]["source"]
            if ("".join(stored) if isinstance(stored, list) else stored) != source:
                raise NotebookError(f"cell {number} could not be written back")
        return text

    def cell_diff(self, path: Path, code: str, targets: Iterable[int] = ()) -> str:
        """The change ``code`` makes (see :meth:`with_code`), as a unified diff of each changed cell's source
        (``a/train.ipynb:cell 3``)."""
        sources = {cell.number: cell.source for cell in self.cells}
        return "".join(unified_diff(f"{path.as_posix()}:cell {number}", _ended(sources[number]), _ended(source))
                       for number, source in sorted(self.changed_sources(code, targets).items()))

    def _source_value(self, old: str, source: str) -> str:
        """``source`` as JSON in the layout of the value ``old`` it replaces: a string, or a list of lines on one line
        or one per line with the same indentation (nbformat's own layout)."""
        def dumps(value: str) -> str:
            return json.dumps(value, ensure_ascii=self._layout.ensure_ascii)

        if old.startswith('"'):
            return dumps(source)
        items = [dumps(line) for line in source.splitlines(keepends=True)]  # nbformat splits with splitlines
        layout = re.fullmatch(r"\[(?P<newline>\r?\n)(?P<indent>[ \t]*)[\s\S]*\n(?P<closing>[ \t]*)\]", old)
        if not items:
            return "[]"
        if layout is None:
            return "[" + self._layout.inline_separator.join(items) + "]"
        newline, indent = layout.group("newline"), layout.group("indent")
        return f"[{newline}{indent}" + f",{newline}{indent}".join(items) + f"{newline}{layout.group('closing')}]"


def murmur2(data: bytes, seed: int) -> int:
    """MurmurHash2, 32-bit (Austin Appleby's public-domain algorithm), as ipykernel names cells with it."""
    multiplier, mask = 0x5BD1E995, 0xFFFFFFFF
    length = len(data)
    hashed = (seed ^ length) & mask
    whole = length - length % 4
    for start in range(0, whole, 4):
        k = int.from_bytes(data[start:start + 4], "little")
        k = (k * multiplier) & mask
        k ^= k >> 24
        k = (k * multiplier) & mask
        hashed = ((hashed * multiplier) & mask) ^ k
    tail = data[whole:]
    if tail:
        hashed ^= int.from_bytes(tail, "little")
        hashed = (hashed * multiplier) & mask
    hashed ^= hashed >> 13
    hashed = (hashed * multiplier) & mask
    return hashed ^ (hashed >> 15)


# -- reading cells ------------------------------------------------------------------------------------------------


def _notebook_language(metadata: object) -> str | None:
    if not isinstance(metadata, dict):
        return None
    for key, field in (("kernelspec", "language"), ("language_info", "name")):
        value = metadata.get(key)
        if isinstance(value, dict) and isinstance(value.get(field), str):
            return value[field].lower()
    return None


def _cell_language(metadata: object) -> str | None:
    """The language an editor marks a cell with (VS Code's ``vscode.languageId``), if any."""
    vscode = metadata.get("vscode") if isinstance(metadata, dict) else None
    language = vscode.get("languageId") if isinstance(vscode, dict) else None
    return language.lower() if isinstance(language, str) else None


def _magic_lines(lines: list[str]) -> frozenset[int]:
    """The lines IPython runs as magics, shell commands or help requests: at the start of a logical line (not
    inside brackets, a string or a backslash continuation), starting with ``%`` or ``!`` or assigning one
    (``x = !ls``), or a name asked about (``model.fit?``); a magic continued with a backslash takes the next line
    with it."""
    found: set[int] = set()
    depth, quote, continued, in_magic = 0, "", False, False
    for number, line in enumerate(lines):
        starts = depth == 0 and not quote and not continued
        continued = False
        if in_magic or (starts and (line.lstrip().startswith(("%", "!")) or _MAGIC_ASSIGNMENT.match(line)
                                    or _HELP_REQUEST.fullmatch(line))):
            found.add(number)
            in_magic = line.rstrip("\r\n").endswith("\\")
            continue
        index = 0
        while index < len(line):
            char = line[index]
            if quote:
                if char == "\\":
                    index += 2
                    continue
                if line.startswith(quote, index):
                    index += len(quote)
                    quote = ""
                    continue
            elif char == "#":
                break
            elif char in "\"'":
                quote = line[index:index + 3] if line[index:index + 3] in ('"""', "'''") else char
                index += len(quote)
                continue
            elif char in "([{":
                depth += 1
            elif char in ")]}":
                depth = max(0, depth - 1)
            elif char == "\\" and not line[index + 1:].strip("\r\n"):
                continued = True
            index += 1
        if len(quote) == 1 and not continued and not line.rstrip("\r\n").endswith("\\"):
            quote = ""  # an unterminated one-line string ends with its line (a syntax error Python reports)
    return frozenset(found)


_INDENT = re.compile(r"[ \t]+")


def _first_written(lines: list[str]) -> int:
    """The index of a cell's first line that is not blank (IPython drops the blank lines before it), or 0."""
    return next((number for number, line in enumerate(lines) if line.strip()), 0)


def _placeholder(line: str) -> str:
    """What the module holds where a magic was: inside a block, ``pass`` at its indentation (a block whose only
    statement it is stays a block); at the top level, the magic as a comment, so that no statement comes before a
    cell's imports (an import a fix adds goes after them, not above a ``!pip install``)."""
    body = line.rstrip("\r\n")
    indent = body[:len(body) - len(body.lstrip())]
    return (indent + "pass" if indent else "# " + body) + line[len(body):]


def _ended(text: str) -> str:
    return text if not text or text.endswith(("\n", "\r")) else text + "\n"


# -- the file's JSON, with positions (the text is known to be valid JSON) -----------------------------------------


def _skip(text: str, index: int) -> int:
    return _WHITESPACE.match(text, index).end()


def _value_end(text: str, index: int) -> int:
    return _DECODER.raw_decode(text, index)[1]


def _members(text: str, start: int) -> dict[str, tuple[int, int]]:
    """The span of each member's value of the JSON object at ``start``."""
    spans = {}
    index = _skip(text, start + 1)
    while text[index] == '"':
        key, index = scanstring(text, index + 1)
        index = _skip(text, _skip(text, index) + 1)  # past the colon
        end = _value_end(text, index)
        spans[key] = (index, end)
        index = _skip(text, end)
        if text[index] == ",":
            index = _skip(text, index + 1)
    return spans


def _elements(text: str, start: int) -> list[tuple[int, int]]:
    """The span of each element of the JSON array at ``start``."""
    spans = []
    index = _skip(text, start + 1)
    while text[index] != "]":
        end = _value_end(text, index)
        spans.append((index, end))
        index = _skip(text, end)
        if text[index] == ",":
            index = _skip(text, index + 1)
    return spans


def _inline_separator(text: str, members: dict[str, tuple[int, int]]) -> str:
    """What the file writes between items on one line: ``", "`` (``json.dumps``' default) or ``","`` (compact),
    read after the top-level object's first value; ``", "`` when it writes one item per line."""
    separator = _SEPARATOR.match(text, min(end for _, end in members.values()))
    return separator.group() if separator else ", "


def _ensure_ascii(text: str) -> bool:
    """Whether the file escapes non-ASCII characters (``json.dumps``' default; nbformat writes them as they are)."""
    return text.isascii() and re.search(r"\\u(?:00[89a-fA-F]|0[1-9a-fA-F]|[1-9a-fA-F])", text) is not None
