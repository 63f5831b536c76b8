"""Natural dead code at a script's module level (``stdin`` rows, ``Program(script=True)``):
a defensive check over a module-level value just made, only where nothing between its
assignment and the check can rebind it."""

from __future__ import annotations

import libcst as cst
import pytest

from codemorph.engine import Program, get_transform
from codemorph.sandbox import request_for
from codemorph.transforms.deadcode import value_facts

STDINS = ["3 1 2\n", "\n", "5\n", "a b c d\n"]


def _same_output(sandbox, a: str, b: str) -> None:
    outs = sandbox.run_batch([request_for(code, "f", "stdin", t) for t in STDINS for code in (a, b)])
    for k in range(0, len(outs), 2):
        x, y = outs[k], outs[k + 1]
        assert (x.status, x.stdout, x.exception and x.exception.type) == \
            (y.status, y.stdout, y.exception and y.exception.type)


def test_script_gets_a_module_level_length_check_after_len():
    code = "xs = input().split()\nn = len(xs)\nprint(n, xs)\n"
    res = get_transform("dead-code").apply(Program(code, script=True), 0)
    assert res.applied
    assert res.source == ("xs = input().split()\nn = len(xs)\nif n < 0:\n"
                          "    n = 0\nprint(n, xs)\n")


@pytest.mark.parametrize("seed", range(4))
def test_module_level_natural_check_prints_the_same(sandbox, seed):
    code = "xs = input().split()\nn = len(xs)\nout = []\nfor i, x in enumerate(xs):\n    out.append(x * i)\nprint(n, out)\n"
    res = get_transform("dead-code").apply(Program(code, script=True), seed)
    assert res.applied and "return" not in res.source
    assert any(check in res.source for check in ("if n < 0:", "if i < 0:", "if out is None:",
                                                 "if not isinstance(out, list):"))
    _same_output(sandbox, code, res.source)


def test_a_call_between_assignment_and_position_blocks_the_module_level_fact():
    module = cst.parse_module("n = len(xs)\nshrink()\nm = 0\nprint(n)\n")
    # before shrink(): n is known; after it, only m (bound after the call) is
    assert [f.name for f in value_facts(module, 1, set(), no_calls=True)] == ["n"]
    assert [f.name for f in value_facts(module, 2, set(), no_calls=True)] == []
    assert [f.name for f in value_facts(module, 3, set(), no_calls=True)] == ["m"]
    module = cst.parse_module("n = len(xs)\nimport helper\nprint(n)\n")
    assert value_facts(module, 2, set(), no_calls=True) == []


@pytest.mark.parametrize("seed", range(4))
def test_script_never_checks_a_module_value_a_function_rebinds_or_one_after_a_call(seed):
    code = ("def report():\n    global n\n    n = -1\n"
            "xs = input().split()\nn = len(xs)\nreport()\nprint(n)\n")
    res = get_transform("dead-code").apply(Program(code, script=True), seed)
    assert "if n " not in res.source
    code = "xs = input().split()\nsize = len(xs)\nprint(xs)\nprint(size)\n"
    res = get_transform("dead-code").apply(Program(code, script=True), seed)
    # the only position where size is known is right after its assignment
    assert res.source.startswith("xs = input().split()\nsize = len(xs)\nif size ")


def test_script_checks_an_int_read_at_module_level(sandbox):
    code = "n = int(input())\nprint(n * 2)\n"
    outs = set()
    for seed in range(6):
        res = get_transform("dead-code").apply(Program(code, script=True), seed)
        assert res.source.startswith("n = int(input())\nif ")
        outs.add(res.source.splitlines()[1])
    assert outs <= {"if n is None:", "if not isinstance(n, int):"}
    stdins = ["5\n", "-3\n", "x\n", "\n"]
    batch = sandbox.run_batch([request_for(c, "f", "stdin", t) for t in stdins for c in (code, res.source)])
    assert [(o.status, o.stdout) for o in batch[0::2]] == [(o.status, o.stdout) for o in batch[1::2]]


def test_int_values_in_functions_give_no_fact():
    block = cst.parse_module("def f(s):\n    n = int(s)\n    return n\n").body[0].body
    assert value_facts(block, 1, set()) == []
