"""Python 2 statements read as Python 3 (advisor/source/python2.py): only what stops the parse changes, on its own
lines; indentation that mixes tabs and spaces is read as CPython counts it."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from advisor.source.python2 import as_python3, libcst_reading


@pytest.mark.parametrize("python2, python3", [
    ("print x\n", "print(x)\n"),
    ("print 'loss %.3f' % loss, step\n", "print('loss %.3f' % loss, step)\n"),
    ("print\n", "print()\n"),
    ("print x,  # no newline\n", "print(x,)  # no newline\n"),
    ("print >>sys.stderr, 'bad', x\n", "print('bad', x)\n"),
    ("if done: print x; y = 1\n", "if done: print(x); y = 1\n"),
    ("try:\n    f()\nexcept (IOError, OSError), e:\n    raise ValueError, 'no %s' % e\n",
     "try:\n    f()\nexcept (IOError, OSError) as e:\n    raise ValueError('no %s' % e)\n"),
    ("print('a', 1)\nprint x\n", "print('a', 1)\nprint(x)\n"),
])
def test_python_2_statements_are_rewritten_in_place(python2: str, python3: str):
    assert as_python3(python2) == python3
    cst.parse_module(python3)


@pytest.mark.parametrize("python3", [
    "print(x)\n", "print (x)\n", "print = log\n", "except_ = 1\n", "try:\n    f()\nexcept (A, B):\n    pass\n",
    "d = {print: 1}\n", "raise ValueError('x, y')\n",
])
def test_python_3_code_has_nothing_to_rewrite(python3: str):
    assert as_python3(python3) is None


def test_lines_keep_their_numbers():
    python2 = textwrap.dedent("""\
        for step in xrange(10):
            print "step", step, \\
                "loss", loss
            run(step)
        """)
    python3 = as_python3(python2)
    assert python3 is not None and python3.count("\n") == python2.count("\n")
    assert python3.splitlines()[3] == python2.splitlines()[3]
    cst.parse_module(python3)


def test_indentation_mixing_tabs_and_spaces_is_read_as_cpython_counts_it():
    """A space then a tab is 8 columns to CPython, so the 9-space body below is inside the `for`; libcst's tokenizer
    reads the file as a dedent with no matching block."""
    script = "def select(dataset, n):\r\n \tpicked = []\r\n \tfor i in range(n):\r\n         picked.append(i)\r\n" \
        " \treturn picked\r\n"
    compile(script, "<script>", "exec")
    with pytest.raises(cst.ParserSyntaxError):
        cst.parse_module(script)
    text, changes = libcst_reading(script, python3_parses=True)
    assert text.splitlines() == [line.expandtabs(8) for line in script.splitlines()]
    assert "tabs" in changes and "no fixes offered" in changes
    loop = cst.parse_module(text).body[0].body.body[1]
    assert isinstance(loop, cst.For) and len(loop.body.body) == 1


def test_a_python_2_script_with_tabs_is_read_with_both_changes():
    text, changes = libcst_reading("for step in xrange(3):\n\tprint step\n", python3_parses=False)
    assert text == "for step in xrange(3):\n        print(step)\n"
    assert changes.startswith("Python 2, read as Python 3") and "tabs in its indentation expanded" in changes


def test_python_3_indented_with_spaces_has_no_other_reading():
    assert libcst_reading("def f():\n    return 1\n", python3_parses=True) is None


def test_tabs_python_3_rejects_are_not_read_otherwise():
    """Python 3 refuses indentation whose meaning depends on the tab size (TabError): the file does not run, and
    is not read as if it did."""
    script = "def f():\n\tx = 1\n        return x\n"
    with pytest.raises(TabError):
        compile(script, "<script>", "exec")
    assert libcst_reading(script, python3_parses=False) is None
