"""The sandbox's tracer with ``counts``: line events per line and the deepest call nesting,
during the call of the entry point only (what ``codemorph analyze`` measures)."""

from __future__ import annotations

import pytest

from codemorph.sandbox import ExecRequest, Limits, Sandbox

PROGRAM = (
    "X = sum(i for i in range(3))\n"        # 1: module body, not counted
    "def g(n):\n"                           # 2
    "    if n <= 1:\n"                      # 3
    "        return 1\n"                    # 4
    "    return n * g(n - 1)\n"             # 5
    "def f(k):\n"                           # 6
    "    total = 0\n"                       # 7
    "    for i in range(k):\n"              # 8
    "        total += g(3)\n"               # 9
    "    return [j for j in range(2)], total\n"  # 10
)


@pytest.fixture(scope="module")
def box():
    with Sandbox(Limits(timeout=10)) as sandbox:
        yield sandbox


def test_counts_are_line_events_of_the_call_only(box):
    out = box.run(ExecRequest(PROGRAM, "f", "2", trace=True, types=False, counts=True))
    assert out.status == "returned" and out.value_repr == "([0, 1], 12)"
    # g(3) -> g(2) -> g(1): lines 3 x3, 4 x1, 5 x2 per call of g(3), two calls; the
    # comprehension's line 10 counts its own frame's line events too (3 iterations + 1 exit)
    counts = dict(out.line_counts)
    assert counts == {3: 6, 4: 2, 5: 4, 7: 1, 8: 3, 9: 2, 10: 4}
    assert 1 not in counts
    # f -> g(3) -> g(2) -> g(1); the comprehension is no call
    assert out.max_call_depth == 4


def test_without_counts_the_outcome_has_none(box):
    out = box.run(ExecRequest(PROGRAM, "f", "2", trace=True, types=False))
    assert out.line_counts is None and out.max_call_depth is None
    assert out.status == "returned" and 1 in out.lines


def test_counts_of_a_raising_call_stop_at_the_raise(box):
    code = "def f(x):\n    y = x + 1\n    return 1 // (y - y)\n"
    out = box.run(ExecRequest(code, "f", "0", trace=True, types=False, counts=True))
    assert out.status == "raised" and out.exception.type == "ZeroDivisionError"
    assert dict(out.line_counts) == {2: 1, 3: 1}
    assert out.max_call_depth == 1
