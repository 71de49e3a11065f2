"""The plain-syntax side of finding code that raises whatever the data: a signature's verdict on a call is
Python's own, checked by running both."""

import libcst as cst
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.source.raising import bound_names, evaluated_every_time, rejected_arguments

NAMES = ("a", "b", "c", "d")


@st.composite
def signatures_and_calls(draw):
    positional = draw(st.integers(0, 3))
    defaults = draw(st.integers(0, positional))
    keyword_only = draw(st.integers(0, 1 if positional < 3 else 0))
    parameters = [*NAMES[:positional - defaults], *(f"{n}=0" for n in NAMES[positional - defaults:positional])]
    star = draw(st.booleans())
    if star or keyword_only:
        parameters.append("*args" if star else "*")
    parameters += [f"{n}" if draw(st.booleans()) else f"{n}=0" for n in NAMES[positional:positional + keyword_only]]
    if draw(st.booleans()):
        parameters.append("**kwargs")
    given_positional = draw(st.integers(0, 4))
    keywords = draw(st.lists(st.sampled_from([*NAMES, "zz"]), unique=True, max_size=3))
    arguments = [*(str(i) for i in range(given_positional)), *(f"{k}=1" for k in keywords)]
    return ", ".join(parameters), ", ".join(arguments), draw(st.booleans())


@settings(max_examples=300, deadline=None)
@given(signatures_and_calls())
def test_a_signature_rejects_exactly_the_calls_python_rejects(case):
    parameters, arguments, bound = case
    definition = f"def f({'self, ' if bound else ''}{parameters}):\n    pass\n"
    namespace: dict = {}
    exec(f"class C:\n    {definition.replace(chr(10), chr(10) + '    ')}\n{definition}", namespace)
    callee = namespace["C"]().f if bound else namespace["f"]
    try:
        eval(f"callee({arguments})", {"callee": callee})
        raised = False
    except TypeError:
        raised = True
    function = cst.parse_module(definition).body[0]
    call = cst.parse_expression(f"f({arguments})")
    assert (rejected_arguments(call, function.params, bound) is not None) == raised


def test_star_arguments_leave_the_call_unknown():
    function = cst.parse_module("def f(a, b):\n    pass\n").body[0]
    assert rejected_arguments(cst.parse_expression("f(*xs)"), function.params, False) is None


@pytest.mark.parametrize("expression, evaluated", [
    ("f(x).y", {"f", "x"}), ("a or b", {"a"}), ("x if c else y", {"c"}), ("[g(v) for v in items]", {"items"}),
    ("lambda q: q + z", set()), ("h(k=v)", {"h", "v"}),
])
def test_what_is_evaluated_every_time(expression, evaluated):
    names = {n.value for n in evaluated_every_time(cst.parse_expression(expression)) if isinstance(n, cst.Name)}
    assert names == evaluated


def test_bound_names_cover_every_way_to_bind():
    module = cst.parse_module(
        "import a.b\nfrom c import d as e\nf = 1\nfor g, h in x: pass\nwith y as i: pass\n"
        "try:\n    pass\nexcept E as j:\n    pass\ndef k(l, *m, n=1, **o):\n    global p\n"
        "class Q: pass\n[r for r in s]\n(t := 2)\n")
    assert set("aefghijklmnopQrt") <= bound_names(module) and not {"b", "c", "d", "x", "y", "s", "E"} & \
        bound_names(module)
