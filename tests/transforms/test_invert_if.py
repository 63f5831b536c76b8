"""Tests of the ``invert-if`` transform (codemorph.transforms.branches.InvertIf).

Fixture pairs live in tests/transforms/fixtures/invert-if/: ``NAME.py`` is the input,
``NAME.expected.py`` the exact expected output, and ``NAME.json`` (optional) holds
``seed``, ``options``, the harness ``inputs`` on which both versions are run in the
sandbox and compared, or ``refused`` (a substring of the expected reason).
Set CODEMORPH_UPDATE_FIXTURES=1 to rewrite the expected files (then review the diff).
"""

from __future__ import annotations

import ast
import re

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
    NaN and sets, which is why negate() never does it without types; invert-if then leaves
    the site alone rather than write ``not a < b`` (``simplify=False`` writes it)."""
    original = "def f(a, b):\n    if a < b:\n        return 1\n    else:\n        return 2\n"
    naive = "def f(a, b):\n    if a >= b:\n        return 2\n    else:\n        return 1\n"
    inputs = ["1, 2", "float('nan'), 1.0", "{1}, {2}", "2, 1"]
    diffs = [args for args, o, r in run_both(sandbox, original, naive, inputs) if o.behaviour() != r.behaviour()]
    assert diffs == ["float('nan'), 1.0", "{1}, {2}"]
    refused = get_transform(NAME).apply(Program(original))
    assert not refused.applied and refused.source == original
    assert refused.reason.startswith("line 2: negating `a < b` needs both operands' types")
    plain = get_transform(NAME, simplify=False).apply(Program(original)).source
    assert plain == "def f(a, b):\n    if not a < b:\n        return 2\n    else:\n        return 1\n"
    assert_same_behaviour(sandbox, original, plain, inputs)


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
    """The negated conditions of all nine ifs (written with empty branches, the option
    that inverts every ``if``) call ``__bool__`` and the side effects as the originals."""
    result = get_transform(NAME, empty_branch=True).apply(Program(BOOL_COUNTING), 0)
    assert result.applied
    assert len(result.sites) == 9
    inputs = [f"{a}, {b}, {c}" for a in (True, False) for b in (True, False) for c in (True, False)]
    assert_same_behaviour(sandbox, BOOL_COUNTING, result.source, inputs)
    # the __bool__ calls are observed and are not trivially equal across inputs
    outs = [o for _, o, _ in run_both(sandbox, BOOL_COUNTING, result.source, inputs[:2])]
    assert outs[0].stdout != outs[1].stdout


GUARDS = BOOL_COUNTING.split("def f(")[0] + '''def f(a, b, c):
    x, y, z = Flag("x", a), Flag("y", b), Flag("z", c)
    out = []
    for tag in "pq":
        out.append(tag)
        if x and (y or z):
            out.append(5)
    for tag in "rs":
        if side(tag, x) or side("q", y) and side("r", z):
            out.append(7)
    n, v = 0, None
    while (w := side("w", z)) and n < 2:
        n += 1
        if (v := side("v", z)) and not y:
            out.append(8)

    def g():
        if not (x or y):
            out.append(9)

    def h():
        out.append(g())
        if side("n", None) is None:
            out.append(10)
            out.append("h")

    def items():
        for k in range(3):
            if side("l", []) or k:
                yield k

    return out, h(), list(items()), Flag.calls, w.name, getattr(v, "name", None)
'''


def test_guard_clauses_keep_bool_calls_short_circuits_and_walrus(sandbox) -> None:
    """An ``if`` without ``else`` ending a loop body (``for``, ``while`` under a walrus
    test, a generator's loop) or a function is written as a guard clause; ``__bool__``
    calls, side effects, bindings and the return values (``None``, a generator's end) are
    the original's on every input."""
    result = get_transform(NAME).apply(Program(GUARDS), 0)
    assert result.source.split("def f(")[1] == '''a, b, c):
    x, y, z = Flag("x", a), Flag("y", b), Flag("z", c)
    out = []
    for tag in "pq":
        out.append(tag)
        if not (x and (y or z)):
            continue
        out.append(5)
    for tag in "rs":
        if not (side(tag, x) or side("q", y) and side("r", z)):
            continue
        out.append(7)
    n, v = 0, None
    while (w := side("w", z)) and n < 2:
        n += 1
        if not ((v := side("v", z)) and not y):
            continue
        out.append(8)

    def g():
        if x or y:
            return
        out.append(9)

    def h():
        out.append(g())
        if side("n", None) is not None:
            return
        out.append(10)
        out.append("h")

    def items():
        for k in range(3):
            if not (side("l", []) or k):
                continue
            yield k

    return out, h(), list(items()), Flag.calls, w.name, getattr(v, "name", None)
'''
    assert [s.description for s in result.sites] == [
        "if without else at the end of a loop body: guard clause with continue under negated test (not)"] * 3 + [
        "if without else at the end of a function: guard clause with return under negated test (not-elimination)",
        "if without else at the end of a function: guard clause with return under negated test (is -> is not)",
        "if without else at the end of a loop body: guard clause with continue under negated test (not)"]
    inputs = [f"{a}, {b}, {c}" for a in (True, False) for b in (True, False) for c in (True, False)]
    assert_same_behaviour(sandbox, GUARDS, result.source, inputs)
    outs = [o for _, o, _ in run_both(sandbox, GUARDS, result.source, inputs[:2])]
    assert outs[0].stdout != outs[1].stdout


def test_bool_raising_and_non_bool(sandbox) -> None:
    src = ('class Bad:\n    def __bool__(self):\n        raise KeyError("no")\n\n\n'
           'class Odd:\n    def __len__(self):\n        return 0\n\n\n'
           'def f(k):\n    obj = [Bad(), Odd(), 0][k]\n    if obj:\n        print("t")\n')
    result = get_transform(NAME).apply(Program(src), 0)
    assert result.applied
    assert result.source.endswith('    if not obj:\n        return\n    print("t")\n')
    assert_same_behaviour(sandbox, src, result.source, ["0", "1", "2", "3"])


def test_which_one_is_deterministic_and_covers_every_chain() -> None:
    src = (FIXTURES / NAME / "which_one.py").read_text()
    t = get_transform(NAME, which="one")
    lines = set()
    observations = {"f": {"a": ["int"], "i": ["int"]}}
    for seed in range(10):
        a, b = (t.apply(Program(src), seed, observations=observations),
                t.apply(Program(src), seed, observations=observations))
        assert a.source == b.source and len(a.sites) == 1
        lines.add(a.sites[0].line)
    # the if/else, and the if ending the loop body; not the chain ending in elif without else
    assert lines == {2, 8}


def test_bad_option() -> None:
    with pytest.raises(ValueError, match="which"):
        get_transform(NAME, which="first")
    with pytest.raises(ValueError, match="option empty_branch must be true or false, got 'yes'"):
        get_transform(NAME, empty_branch="yes")
    with pytest.raises(ValueError, match="empty_branch"):
        get_transform(NAME, empty_branch=1)


ASYNC = """import asyncio


async def ticks(xs):
    async for x in numbers(xs):
        if x > 1:
            yield x


async def numbers(xs):
    for x in xs:
        await asyncio.sleep(0)
        yield x


async def total(xs):
    out = [x async for x in ticks(xs)]
    if out:
        print(sum(out))


def f(xs):
    return asyncio.run(total(xs))
"""


def test_async_for_and_async_def_get_guard_clauses(sandbox) -> None:
    """``async for`` ends its body with ``continue``, an ``async def`` (an async generator
    too) ends with a bare ``return``."""
    result = get_transform(NAME).apply(Program(ASYNC), 0, observations={"ticks": {"x": ["int"]}})
    assert result.source == ASYNC.replace(
        "        if x > 1:\n            yield x\n",
        "        if x <= 1:\n            continue\n        yield x\n").replace(
        "    if out:\n        print(sum(out))\n", "    if not out:\n        return\n    print(sum(out))\n")
    assert len(result.sites) == 2
    assert_same_behaviour(sandbox, ASYNC, result.source, ["[]", "[1, 2, 3]", "[0, 1]"])


def test_if_at_the_end_of_a_loop_else_or_an_elif_chain_is_not_a_site() -> None:
    """A loop's ``else:`` is not its body, and a chain ending in ``elif`` without ``else``
    has no last ``if`` to guard with: neither is a site, and the refusal says why."""
    src = ("def f(xs):\n    out = []\n    for x in xs:\n        if x > 2:\n            out.append(x)\n"
           "        elif x < 0:\n            out.append(-x)\n    else:\n        if not out:\n"
           "            out.append(0)\n    return out\n")
    result = get_transform(NAME).apply(Program(src), 0)
    assert not result.applied and result.source == src
    assert result.reason == ("no if with an else, and no if without else at the end of a loop body or function "
                             "(its inversion would need an empty branch, `if not c: pass`)")
    legacy = get_transform(NAME, empty_branch=True).apply(Program(src), 0, observations={"f": {"x": ["int"]}})
    assert legacy.source == ("def f(xs):\n    out = []\n    for x in xs:\n        if x > 2:\n"
                             "            out.append(x)\n        elif x >= 0:\n            pass\n"
                             "        else:\n            out.append(-x)\n    else:\n        if out:\n"
                             "            pass\n        else:\n            out.append(0)\n    return out\n")


def test_if_whose_body_ends_with_a_jump_is_not_a_guard_site(sandbox) -> None:
    """An ``if`` without ``else`` whose body ends with ``return``, ``raise``, ``break`` or
    ``continue`` is an early exit as written (CRUXEval sample_9's loop): its guard form would
    read backwards (``if c.isnumeric(): continue`` / ``return False``), so it is left alone
    and the refusal names the jump; an if/else elsewhere in the program is still inverted."""
    sample_9 = ("def f(text):\n    for c in text:\n        if not c.isnumeric():\n            return False\n"
                "    return True\n")
    result = get_transform(NAME).apply(Program(sample_9), 0)
    assert not result.applied and result.source == sample_9
    assert result.reason == (
        "no if with an else, and no if without else at the end of a loop body or function that can become a "
        "guard clause; left alone there: `if not c.isnumeric():` whose body ends with return (an early exit as "
        "written)")
    src = ("def f(xs):\n    seen = []\n    for x in xs:\n        seen.append(x)\n        if x < 0:\n"
           "            break\n    while seen:\n        x = seen.pop()\n        if x == 3: continue\n"
           "    check(xs)\n    if len(xs) > 5:\n        y = xs[0] * 2\n        return y\n\n\n"
           "def check(xs):\n    if 7 in xs:\n        raise ValueError(7)\n\n\n"
           "def g(x):\n    if x:\n        return 1\n    else:\n        return 2\n")
    result = get_transform(NAME).apply(Program(src), 0)
    assert result.source == src.replace("    if x:\n        return 1\n    else:\n        return 2\n",
                                        "    if not x:\n        return 2\n    else:\n        return 1\n")
    assert [s.description for s in result.sites] == ["if/else: branches swapped under negated test (not)"]
    refused = get_transform(NAME).apply(Program(src.split("\n\n\ndef g")[0] + "\n"), 0)
    assert not refused.applied
    assert refused.reason.endswith(
        "left alone there: `if x < 0:` whose body ends with break (an early exit as written); `if x == 3:` "
        "whose body ends with continue (an early exit as written); `if len(xs) > 5:` whose body ends with "
        "return (an early exit as written); `if 7 in xs:` whose body ends with raise (an early exit as written)")
    assert_same_behaviour(sandbox, src, result.source, ["[1, 2]", "[3, -1, 4]", "[7]", "[1, 2, 3, 4, 5, 6]"])


def test_guard_comment_on_the_if_line_goes_with_its_branch(sandbox) -> None:
    """The comment on ``if c:`` describes the branch ``A``: it becomes a comment line just
    before ``A``'s first statement (before the comments already there), a one-line
    ``if x: A  # note`` keeps it on ``A``'s line, and the guard line has none; comments
    before the ``if`` stay before the guard."""
    src = ("def f(d, keys):\n    out = []\n    for k in keys:\n        # keys to report\n"
           "        if k not in d:  # missing\n            # count it\n            out.append(k)\n"
           "    total = 0\n    for x in keys:\n        if x: total += x  # add it\n"
           "    g(out)\n    return out, total\n\n\n"
           "def g(out):\n    if out:    # report\n        print(len(out))\n        print(out[0])\n")
    result = get_transform(NAME).apply(Program(src), 0)
    assert result.source == (
        "def f(d, keys):\n    out = []\n    for k in keys:\n        # keys to report\n"
        "        if k in d:\n            continue\n        # missing\n        # count it\n"
        "        out.append(k)\n    total = 0\n    for x in keys:\n        if not x: continue\n"
        "        total += x  # add it\n    g(out)\n    return out, total\n\n\n"
        "def g(out):\n    if not out:\n        return\n    # report\n    print(len(out))\n    print(out[0])\n")
    assert len(result.sites) == 3
    assert_same_behaviour(sandbox, src, result.source,
                          ["{}, [1, 2]", "{1: 0}, [1, 0, 2]", "{}, []", "{3: 1}, [3]"])


def test_ifs_left_alone_at_the_end_of_a_body_are_named_in_the_refusal() -> None:
    """A block ending with a comment (the comment would have no faithful place), a body of
    only ``pass`` and a one-line ``if`` spanning lines are not guard sites."""
    src = ("def f(x):\n    for k in x:\n        if k:\n            x = k\n            # last k seen\n"
           "    g(x)\n\n\ndef g(x):\n    if x:\n        pass\n\n\n"
           "def h(x):\n    if x: y = (1 +\n                2)\n")
    result = get_transform(NAME).apply(Program(src), 0)
    assert not result.applied and result.source == src
    assert result.reason == (
        "no if with an else, and no if without else at the end of a loop body or function that can become a "
        "guard clause; left alone there: `if k:` whose block ends with a comment after its last statement; "
        "`if x:` whose body is only pass; `if x:` whose one-line body spans several lines")


def test_an_if_whose_line_holds_a_tool_directive_or_a_backslash_body_is_no_guard_site() -> None:
    """A directive (``# noqa``, ``# pragma: no cover``, ``# type: ...``) applies to its own
    line, which the guard form would change; ``if x: \\`` with the body on the next line is a
    one-line body spanning lines.  An ordinary comment still goes with its branch."""
    src = ("def f(xs):\n    out = []\n    for x in xs:\n        if x is not None:  # noqa: E711\n"
           "            out.append(x)\n    for x in xs:\n        if x: \\\n            out.append(x)\n"
           "    for x in xs:\n        if x:  # pragma: no cover\n            out.append(x)\n"
           "    for x in xs:\n        if x:  # keep the truthy ones\n            out.append(x)\n    return out\n")
    result = get_transform(NAME).apply(Program(src), 0)
    assert result.source == src.replace("        if x:  # keep the truthy ones\n            out.append(x)\n",
                                        "        if not x:\n            continue\n        # keep the truthy ones\n"
                                        "        out.append(x)\n")
    assert len(result.sites) == 1
    one = get_transform(NAME).apply(Program("def f(xs):\n    for x in xs:\n        if x:  # type: ignore\n"
                                            "            print(x)\n"), 0)
    assert not one.applied and one.reason.endswith("left alone there: `if x:` whose line carries a tool directive (# type: ignore)")


def test_double_inversion_restores_behaviour(sandbox) -> None:
    src = (FIXTURES / NAME / "elif_chain.py").read_text()
    observations = {"f": {"n": ["int"], "kind": ["str"]}}
    once = get_transform(NAME).apply(Program(src), 0, observations=observations).program
    twice = get_transform(NAME).apply(once, 0, observations=observations)
    assert twice.applied and twice.source == src
    assert_same_behaviour(sandbox, src, twice.source, ["-5", "0", "3", "12", "200", "101"])


#: an empty branch followed by ``else:`` (``if not c: pass`` / ``else: A``)
PASS_ELSE = re.compile(r"\bpass[ \t]*(#[^\n]*)?\n[ \t]*else[ \t]*:")


def negated_comparisons(code: str) -> list[ast.UnaryOp]:
    """The ``not a OP b`` expressions of ``code`` (one operator of ``< <= > >= == !=``)."""
    ops = (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)
    return [n for n in ast.walk(ast.parse(code)) if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not)
            and isinstance(n.operand, ast.Compare) and len(n.operand.ops) == 1 and isinstance(n.operand.ops[0], ops)]


#: the statements that leave a block early
JUMPS = (ast.Return, ast.Raise, ast.Break, ast.Continue)


def has_site(code: str) -> bool:
    """Whether ``code`` has an invert-if site, found with ``ast`` (independently of the
    transform): an ``if``/``elif`` chain ending with ``else``, or an ``if`` without ``else``
    as the last statement of a loop body or a function whose body does not end with a jump
    (``return``, ``raise``, ``break``, ``continue``)."""
    lines = code.splitlines()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef, ast.AsyncFunctionDef)):
            last = node.body[-1]
            if isinstance(last, ast.If) and not last.orelse and not isinstance(last.body[-1], JUMPS):
                return True
        if isinstance(node, ast.If) and node.orelse:
            first = node.orelse[0]
            is_elif = (len(node.orelse) == 1 and isinstance(first, ast.If)
                       and lines[first.lineno - 1][first.col_offset:].startswith("elif"))
            if not is_elif:
                return True
    return False


def test_cruxeval_every_row_with_a_site_is_rewritten_without_empty_branches(sandbox) -> None:
    """Every sampled row with a site (all 800 rows with CODEMORPH_FULL=1) is rewritten, no
    rewrite holds ``pass`` followed by ``else:`` or a ``not a < b`` the original did not,
    and each behaves as the original on the row's own input; a row with ``if`` statements
    but no site is refused, saying why.  Without runtime types (as here), a site whose
    negation could only read ``not a < b`` is left alone, and the refusal names it."""
    rows = cruxeval_sample(2)
    t = get_transform(NAME)
    pairs, missed, left_alone, no_site, not_negated = [], [], [], 0, 0
    for row in rows:
        code = row["code"]
        has_if = any(isinstance(n, ast.If) for n in ast.walk(ast.parse(code)))
        result = t.apply(Program(code), 0, inputs=[row["input"]])
        if not has_site(code):
            assert not result.applied, row["id"]
            if has_if:
                no_site += 1
                assert result.reason.startswith("no if with an else, and no if without else at the end of a "
                                                "loop body or function"), (row["id"], result.reason)
            continue
        if not result.applied:
            if "left alone rather than write `not " in result.reason:
                not_negated += 1
                continue
            # only an if left alone (its block ends with a comment, ...) may be refused
            (left_alone if "left alone" in result.reason else missed).append((row["id"], result.reason))
            continue
        assert not PASS_ELSE.search(result.source) or PASS_ELSE.search(code), row["id"]
        assert len(negated_comparisons(result.source)) <= len(negated_comparisons(code)), row["id"]
        pairs.append((NAME, row, result.source))
    assert missed == []
    assert len(pairs) > 0 and no_site > 0 and not_negated > 0
    assert len(left_alone) <= len(rows) // 50, left_alone
    run_pairs(sandbox, pairs)


def test_cruxeval_guard_sites_only_in_guard_positions() -> None:
    """On the sample, every ``if`` without ``else`` the transform inverts becomes a guard
    clause; the ``pass`` form appears only with ``empty_branch=True``."""
    rows = [r for r in cruxeval_sample(2) if has_site(r["code"])]
    guards = old = 0
    for row in rows:
        new = get_transform(NAME).apply(Program(row["code"]), 0)
        guards += sum("guard clause" in s.description for s in new.sites)
        assert all("if without else: branches swapped" not in s.description for s in new.sites)
        legacy = get_transform(NAME, empty_branch=True).apply(Program(row["code"]), 0)
        old += bool(PASS_ELSE.search(legacy.source))
    assert guards > 0 and old > 0
