"""Tests of the ``invert-if`` transform (codemorph.transforms.branches.InvertIf).

Fixture pairs live in tests/transforms/fixtures/invert-if/: ``NAME.py`` is the input,
``NAME.expected.py`` the exact expected output, and ``NAME.json`` (optional) holds
``seed``, ``options``, the harness ``inputs`` on which both versions are run in the
sandbox and compared, or ``refused`` (a substring of the expected reason).
Set CODEMORPH_UPDATE_FIXTURES=1 to rewrite the expected files (then review the diff).
"""

from __future__ import annotations

import ast

import libcst as cst
import pytest
from conftest import (FIXTURES, assert_same_behaviour, cruxeval_sample, run_both, run_pairs)

from codemorph import Program, get_transform
from codemorph.transforms.branches import negate

NAME = "invert-if"


def _neg(text: str) -> str:
    expr = cst.parse_expression(text)
    return cst.Module([]).code_for_node(negate(expr)[0])


@pytest.mark.parametrize("cond, negated", [
    ("x", "not x"),
    ("a is b", "a is not b"),
    ("a is not b", "a is b"),
    ("a in b", "a not in b"),
    ("a not in b", "a in b"),
    ("(a  is   b)", "(a  is not   b)"),
    ("not x", "x"),
    ("not (x)", "x"),
    ("not (a and b)", "a and b"),
    ("not (not x)", "not x"),
    ("(not x)", "x"),
    ("not (a,)", "(a,)"),
    ("a and b", "not (a and b)"),
    ("a or b and c", "not (a or b and c)"),
    ("(a or b)", "not (a or b)"),
    ("a if b else c", "not (a if b else c)"),
    ("lambda: 0", "not (lambda: 0)"),
    ("(n := f())", "not (n := f())"),
    # comparisons other than is / in are never flipped (NaN, sets, user classes)
    ("a < b", "not a < b"),
    ("a == b", "not a == b"),
    ("a != b", "not a != b"),
    ("a < b < c", "not a < b < c"),
    ("a is b is c", "not a is b is c"),
    ("a in b in c", "not a in b in c"),
    ("-x", "not -x"),
    ("f(x)", "not f(x)"),
    ("await g()", "not await g()"),
])
def test_negate(cond: str, negated: str) -> None:
    assert _neg(cond) == negated
    # the result is a valid expression
    ast.parse(f"if {negated}:\n    pass\n")


def test_harness_detects_flipped_comparisons(sandbox) -> None:
    """The sandbox comparison is able to fail: ``not (a < b)`` -> ``a >= b`` is wrong for
    NaN and sets, which is why negate() never does it."""
    original = "def f(a, b):\n    if a < b:\n        return 1\n    return 2\n"
    naive = "def f(a, b):\n    if a >= b:\n        return 2\n    return 1\n"
    inputs = ["1, 2", "float('nan'), 1.0", "{1}, {2}", "2, 1"]
    diffs = [args for args, o, r in run_both(sandbox, original, naive, inputs) if o.behaviour() != r.behaviour()]
    assert diffs == ["float('nan'), 1.0", "{1}, {2}"]
    good = get_transform(NAME).apply(Program(original)).source
    assert good == "def f(a, b):\n    if not a < b:\n        pass\n    else:\n        return 1\n    return 2\n"
    assert_same_behaviour(sandbox, original, good, inputs)


BOOL_COUNTING = '''
class Flag:
    calls = []

    def __init__(self, name, value):
        self.name = name
        self.value = value

    def __bool__(self):
        Flag.calls.append(self.name)
        print("bool", self.name)
        return self.value


def side(tag, value):
    print("eval", tag)
    return value


def f(a, b, c):
    x, y, z = Flag("x", a), Flag("y", b), Flag("z", c)
    out = []
    if x:
        out.append(1)
    if not x:
        out.append(2)
    if x and y:
        out.append(3)
    elif y or z:
        out.append(4)
    if x and (y or z):
        out.append(5)
    else:
        out.append(6)
    if side("p", x) or side("q", y) and side("r", z):
        out.append(7)
    if (w := side("w", z)) and not y:
        out.append(8)
    if not (x or y):
        out.append(9)
    if side("n", None) is None:
        out.append(10)
    if side("l", []):
        out.append(11)
    return out, Flag.calls, w.name
'''


def test_custom_bool_short_circuit_and_walrus(sandbox) -> None:
    result = get_transform(NAME).apply(Program(BOOL_COUNTING), 0)
    assert result.applied
    assert len(result.sites) == 9
    inputs = [f"{a}, {b}, {c}" for a in (True, False) for b in (True, False) for c in (True, False)]
    assert_same_behaviour(sandbox, BOOL_COUNTING, result.source, inputs)
    # the __bool__ calls are observed and are not trivially equal across inputs
    outs = [o for _, o, _ in run_both(sandbox, BOOL_COUNTING, result.source, inputs[:2])]
    assert outs[0].stdout != outs[1].stdout


def test_bool_raising_and_non_bool(sandbox) -> None:
    src = ('class Bad:\n    def __bool__(self):\n        raise KeyError("no")\n\n\n'
           'class Odd:\n    def __len__(self):\n        return 0\n\n\n'
           'def f(k):\n    obj = [Bad(), Odd(), 0][k]\n    if obj:\n        return "t"\n    return "f"\n')
    result = get_transform(NAME).apply(Program(src), 0)
    assert result.applied
    assert "if not obj:" in result.source
    assert_same_behaviour(sandbox, src, result.source, ["0", "1", "2", "3"])


def test_which_one_is_deterministic_and_covers_every_chain() -> None:
    src = (FIXTURES / NAME / "which_one.py").read_text()
    t = get_transform(NAME, which="one")
    lines = set()
    for seed in range(10):
        a, b = t.apply(Program(src), seed), t.apply(Program(src), seed)
        assert a.source == b.source and len(a.sites) == 1
        lines.add(a.sites[0].line)
    assert lines == {2, 6}  # the first if, and the last test (elif) of the second chain


def test_bad_option() -> None:
    with pytest.raises(ValueError, match="which"):
        get_transform(NAME, which="first")


def test_double_inversion_restores_behaviour(sandbox) -> None:
    src = (FIXTURES / NAME / "elif_chain.py").read_text()
    once = get_transform(NAME).apply(Program(src), 0).program
    twice = get_transform(NAME).apply(once, 0)
    assert twice.applied
    assert_same_behaviour(sandbox, src, twice.source, ["-5", "0", "3", "12", "200", "101"])


def test_cruxeval_every_row_with_an_if_is_rewritten(sandbox) -> None:
    """Every sampled row with an ``if`` (all 800 rows with CODEMORPH_FULL=1) is rewritten
    and behaves as the original on the row's own input."""
    rows = cruxeval_sample(2)
    t = get_transform(NAME)
    pairs, refused = [], []
    for row in rows:
        has_if = any(isinstance(n, ast.If) for n in ast.walk(ast.parse(row["code"])))
        result = t.apply(Program(row["code"]), 0, inputs=[row["input"]])
        if has_if and not result.applied:
            refused.append((row["id"], result.reason))
        assert result.applied or not has_if
        if result.applied:
            pairs.append((NAME, row, result.source))
    assert refused == []
    # every row with an if is rewritten (none refused, above), and only those
    assert len(pairs) == sum(any(isinstance(n, ast.If) for n in ast.walk(ast.parse(r["code"]))) for r in rows) > 0
    run_pairs(sandbox, pairs)
