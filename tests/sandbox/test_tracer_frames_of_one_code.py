"""Frames of one code object share the Python tracer's per-code set-up (``Tracer._glob``'s makers:
the snapshot set, the binding lines), not their state: each frame's arcs start from its own
previous line, and the types of locals are those every frame held, in recursions, mutual
recursions and recursions that end at the recursion limit; an exception's line is its innermost program
frame's."""

from __future__ import annotations

import pytest

from codemorph.sandbox import ExecRequest, Limits, Sandbox


@pytest.fixture(scope="module")
def box():
    with Sandbox(Limits(timeout=20)) as sandbox:
        yield sandbox


RECURSION = ("def f(n):\n"          # 1
             "    if n == 0:\n"     # 2
             "        return 0\n"   # 3
             "    r = f(n - 1)\n"   # 4
             "    return r + 1\n")  # 5


@pytest.mark.parametrize("budget", [None, 50000])
def test_a_frame_resumed_after_a_recursive_call_continues_from_its_own_line(box, budget):
    out = box.run_batch([ExecRequest(RECURSION, "f", "3", trace=True, types=True, max_lines=budget)])[0]
    assert out.status == "returned" and out.value_repr == "3"
    # (4, 5): each frame goes on from line 4 after its call returns; a shared previous
    # line would give (3, 5) or (5, 5)
    assert sorted(map(tuple, out.arcs)) == [(2, 3), (2, 4), (4, 5)]
    assert tuple(out.lines) == (1, 2, 3, 4, 5)  # 1: the module's def
    assert out.types == {"f": {"n": ["int"], "r": ["int"]}}


def test_each_depth_of_a_recursion_records_the_types_its_frame_held(box):
    code = ("def f(x, n):\n"
            "    if n == 0:\n"
            "        return x\n"
            "    y = x if n % 2 else str(x)\n"
            "    return f(y, n - 1)\n")
    out = box.run_batch([ExecRequest(code, "f", "1.5, 3", trace=True, types=True, max_lines=50000)])[0]
    assert out.status == "returned" and out.value_repr == "'1.5'"
    assert out.types == {"f": {"n": ["int"], "x": ["float", "str"], "y": ["float", "str"]}}


def test_mutually_recursive_functions_keep_their_own_types_and_arcs(box):
    code = ("def f(n):\n"              # 1
            "    if n <= 0:\n"         # 2
            "        return 'f'\n"     # 3
            "    a = g(n - 1)\n"       # 4
            "    return a\n"           # 5
            "def g(m):\n"              # 6
            "    b = [m]\n"            # 7
            "    return f(m - 1)\n")   # 8
    out = box.run_batch([ExecRequest(code, "f", "5", trace=True, types=True, max_lines=50000)])[0]
    assert out.status == "returned" and out.value_repr == "'f'"
    assert out.types == {"f": {"a": ["str"], "n": ["int"]}, "g": {"b": ["list"], "m": ["int"]}}
    assert sorted(map(tuple, out.arcs)) == [(1, 6), (2, 3), (2, 4), (4, 5), (7, 8)]  # (1, 6): the module's defs


def test_a_recursion_that_reaches_the_limit_is_traced_to_its_recursion_error(box):
    code = ("def f(text, x):\n"
            "    if text.removeprefix(x) == text:\n"
            "        return f(text[1:], x)\n"
            "    return text\n")
    out = box.run_batch([ExecRequest(code, "f", "'abc', 'zz'", trace=True, types=True, max_lines=50000)])[0]
    assert out.status == "raised" and out.exception.type == "RecursionError"
    assert out.exception.line == 1  # the innermost program frame's (entered at its def line), of some 10,000
    assert sorted(map(tuple, out.arcs)) == [(2, 3)]
    assert out.types == {"f": {"text": ["str"], "x": ["str"]}}


def test_an_exception_raised_in_a_library_frame_has_the_calling_program_line(box):
    code = ("def f(s):\n"
            "    import json\n"
            "    def g(t):\n"
            "        return json.loads(t)\n"
            "    return g(s)\n")
    out = box.run_batch([ExecRequest(code, "f", "'{'", trace=True, types=True)])[0]
    assert (out.status, out.exception.type, out.exception.line) == ("raised", "JSONDecodeError", 4)
