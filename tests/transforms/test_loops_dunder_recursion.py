"""comprehension-to-loop and loop-to-comprehension refuse programs that may recurse through
a dunder method Python calls implicitly: ``__len__`` returning ``sum([len(k)
for k in self.kids])`` recurses through ``len`` without spelling its own name, and a
comprehension frame changes the depth at which ``RecursionError`` comes (a variant returned
601 where its original raised at CPython's default limit).  Only rewrites; a sandboxed run
shows the depth difference the refusal avoids."""

from __future__ import annotations

import libcst as cst
import pytest

from codemorph import Program
from codemorph.sandbox.pool import ExecRequest, Limits, Sandbox
from codemorph.transforms.loops import ComprehensionToLoop, LoopToComprehension, recursion_hazard

RD_LEN = ("class Node:\n    def __init__(self, kids):\n        self.kids = kids\n    def __len__(self):\n"
          "        return sum([len(k) for k in self.kids]) + 1\ndef f(n):\n    t = Node([])\n    for i in range(n):\n"
          "        t = Node([t])\n    return len(t)\n")
RD_EQ = ("class Node:\n    def __init__(self, kid):\n        self.kid = kid\n    def __eq__(self, other):\n"
         "        return all([a == b for a, b in [(self.kid, other.kid)]])\ndef f(n):\n    a = Node(None)\n"
         "    b = Node(None)\n    for i in range(n):\n        a = Node(a)\n        b = Node(b)\n    return a == b\n")
RD_LEN_LOOP = ("class Node:\n    def __init__(self, kids):\n        self.kids = kids\n    def __len__(self):\n"
               "        acc = []\n        for k in self.kids:\n            acc.append(len(k))\n        return sum(acc) + 1\n"
               "def f(n):\n    t = Node([])\n    for i in range(n):\n        t = Node([t])\n    return len(t)\n")
# __init__ recursing through the class name
RD_INIT = ("class T:\n    def __init__(self, n):\n        self.kids = [T(n - 1) for _ in range(1)] if n else []\n"
           "def f(n):\n    return len(T(n).kids)\n")
# a plain class whose dunder methods cannot recurse: still rewritten
PLAIN = ("class P:\n    def __init__(self, v):\n        self.v = v\n    def __repr__(self):\n        return 'P'\n"
         "def f(xs):\n    return [x * 2 for x in xs]\n")


@pytest.mark.parametrize("code,transform,why", [
    (RD_LEN, ComprehensionToLoop, "program may recurse (__len__); comprehension frames change the recursion depth"),
    (RD_EQ, ComprehensionToLoop, "program may recurse (__eq__); comprehension frames change the recursion depth"),
    (RD_LEN_LOOP, LoopToComprehension,
     "program may recurse (__len__); comprehension frames change the recursion depth"),
])
def test_recursion_through_dunder_methods_is_refused(code, transform, why):
    res = transform().apply(Program(code), 0)
    assert res.applied is False and res.reason is not None and why in res.reason


def test_init_recursing_through_its_class_name_is_a_hazard():
    assert recursion_hazard(cst.parse_module(RD_INIT)) == \
        "program may recurse (__init__); comprehension frames change the recursion depth"


def test_plain_class_is_still_rewritten():
    assert recursion_hazard(cst.parse_module(PLAIN)) is None
    res = ComprehensionToLoop().apply(Program(PLAIN), 0)
    assert res.applied and res.program.source == (
        "class P:\n    def __init__(self, v):\n        self.v = v\n    def __repr__(self):\n        return 'P'\n"
        "def f(xs):\n    acc = []\n    for x in xs:\n        acc.append(x * 2)\n    return acc\n")


def test_the_depth_difference_is_real():
    """Why: at CPython's default stack the comprehension form raises where a loop form returns."""
    loop = RD_LEN.replace("return sum([len(k) for k in self.kids]) + 1",
                          "acc = 0\n        for k in self.kids:\n            acc += len(k)\n        return acc + 1")
    with Sandbox(Limits(timeout=10.0)) as sb:
        a, b = sb.run_batch([ExecRequest(RD_LEN, "f", "600", recursion_limit=1000),
                             ExecRequest(loop, "f", "600", recursion_limit=1000)])
    assert a.status == "raised" and a.exception.type == "RecursionError"
    assert (b.status, b.value_repr) == ("returned", "601")
