"""Tests of the ``for-to-while`` transform (codemorph.transforms.loops.ForToWhile).

Fixture pairs live in tests/transforms/fixtures/for-to-while/: ``NAME.py`` is the input,
``NAME.expected.py`` the exact expected output, and ``NAME.json`` (optional) holds
``seed``, ``options``, the harness ``inputs`` on which both versions are run in the
sandbox and compared, or ``refused`` (a substring of the expected reason).
Set CODEMORPH_UPDATE_FIXTURES=1 to rewrite the expected files (then review the diff).
"""

from __future__ import annotations

import ast

import pytest
from conftest import (FIXTURES, assert_same_behaviour, cruxeval_sample, run_both, run_pairs)

from codemorph import Program, get_transform

NAME = "for-to-while"


def test_harness_detects_a_naive_rewrite(sandbox) -> None:
    """The comparison used above is able to fail: binding the loop variable directly in
    the condition leaks the sentinel after the loop, and the sandbox sees it."""
    original = "def f(xs):\n    x = 'before'\n    for x in xs:\n        pass\n    return x\n"
    naive = ("def f(xs):\n    x = 'before'\n    it = iter(xs)\n    end = None\n"
             "    while (x := next(it, end)) is not end:\n        pass\n    return x\n")
    inputs = ["[1, 2]", "[]", "[None, 1]", "[None]"]
    diffs = [args for args, o, r in run_both(sandbox, original, naive, inputs)
             if o.behaviour() != r.behaviour()]
    assert diffs == ["[1, 2]", "[]", "[None, 1]"]  # sentinel leaks; None sentinel stops early
    good = get_transform(NAME).apply(Program(original)).source
    assert_same_behaviour(sandbox, original, good, inputs)


def test_exact_construction_without_observations_is_the_iterator_form() -> None:
    src = "def f(xs):\n    for x in xs:\n        print(x)\n    return 1\n"
    result = get_transform(NAME).apply(Program(src), 0)
    assert result.source == (
        "def f(xs):\n"
        "    it = iter(xs)\n"
        "    while True:\n"
        "        try:\n"
        "            x = next(it)\n"
        "        except StopIteration:\n"
        "            break\n"
        "        print(x)\n"
        "    return 1\n")
    assert [(s.line, s.column) for s in result.sites] == [(2, 5)]


def test_exact_construction_of_a_list_observed_at_runtime_is_the_index_form() -> None:
    src = "def f(xs):\n    for x in xs:\n        print(x)\n    return 1\n"
    result = get_transform(NAME).apply(Program(src), 0, observations={"f": {"xs": ["list"], "x": ["int"]}})
    assert result.source == (
        "def f(xs):\n"
        "    i = 0\n"
        "    while i < len(xs):\n"
        "        x = xs[i]\n"
        "        print(x)\n"
        "        i += 1\n"
        "    return 1\n")
    # a type outside list/tuple/str in any run keeps the iterator form
    mixed = get_transform(NAME).apply(Program(src), 0, observations={"f": {"xs": ["list", "set"]}})
    assert "next(it)" in mixed.source


def test_which_one_rewrites_exactly_one_loop_and_is_deterministic() -> None:
    src = (FIXTURES / NAME / "which_one.py").read_text()
    t = get_transform(NAME, which="one")
    chosen = set()
    for seed in range(12):
        a = t.apply(Program(src), seed)
        b = t.apply(Program(src), seed)
        assert a.source == b.source
        assert len(a.sites) == 1
        tree = ast.parse(a.source)
        assert sum(isinstance(n, ast.For) for n in ast.walk(tree)) == 2
        assert sum(isinstance(n, ast.While) for n in ast.walk(tree)) == 1
        chosen.add(a.sites[0].line)
    assert chosen == {3, 5, 7}  # every loop gets picked by some seed


def test_bad_option() -> None:
    with pytest.raises(ValueError, match="which"):
        get_transform(NAME, which="some")
    with pytest.raises(TypeError):
        get_transform(NAME, loops="all")


@pytest.mark.parametrize("src, args", [
    # every iterable kind, zero iterations, loop variable after the loop
    ("def f(d):\n    for k in d:\n        d[k] = 0\n    return d, k\n", ["{'a': 1, 'b': 2}", "{}"]),
    ("def f(d):\n    for k in d:\n        d.pop(k)\n    return d\n", ["{'a': 1, 'b': 2}", "{}"]),
    ("def f(s):\n    for c in s:\n        s = s + c\n    return s\n", ["'ab'", "''"]),
    ("def f(xs):\n    for i, x in enumerate(xs, 1):\n        xs.remove(x)\n    return xs, i\n", ["[1, 2, 3]", "[]"]),
    ("def f(a, b):\n    r = []\n    for p in zip(a, b):\n        r += p\n    return r\n", ["[1, 2], 'xyz'", "[], 'a'"]),
    ("def f(x):\n    for i in x:\n        print(i)\n", ["5", "None", "[1]"]),  # TypeError: not iterable
    ("def f(xs):\n    for x in xs:\n        if x:\n            return x\n    else:\n        return 'none'\n",
     ["[0, 0, 3]", "[]", "[0]"]),
    ("def f(xs):\n    out = []\n    for i in xs:\n        for j in range(3):\n"
     "            if j == i:\n                break\n            out.append(j)\n        else:\n"
     "            continue\n        out.append('b')\n    return out\n", ["[0, 5, 2]", "[]"]),
    # global / nonlocal loop variables
    ("g = 'init'\n\n\ndef f(xs):\n    global g\n    for g in xs:\n        pass\n    return g\n", ["[1, 2]", "[]"]),
    ("def f(xs):\n    v = 'init'\n\n    def inner():\n        nonlocal v\n        for v in xs:\n            pass\n\n"
     "    inner()\n    return v\n", ["[1, 2]", "[]"]),
    # evaluation order: the next item is fetched before the target expression runs
    ("def f(xs):\n    d = {}\n\n    def key():\n        print('key', len(d))\n        return len(d)\n\n"
     "    class Noisy:\n        def __init__(self, xs):\n            self.xs = list(xs)\n\n"
     "        def __iter__(self):\n            print('iter')\n            return self\n\n"
     "        def __next__(self):\n            print('next')\n            if not self.xs:\n"
     "                raise StopIteration\n            return self.xs.pop()\n\n"
     "    for d[key()] in Noisy(xs):\n        print('body')\n    return d\n", ["[1, 2]", "[]"]),
])
def test_behaviour_on_small_programs(sandbox, src: str, args: list[str]) -> None:
    result = get_transform(NAME).apply(Program(src), 0)
    assert result.applied, result.reason
    assert "for " not in result.source
    assert_same_behaviour(sandbox, src, result.source, args)


def test_cruxeval_every_row_with_a_for_loop_is_rewritten_but_unproved_range_loops(sandbox) -> None:
    """Every sampled row with a ``for`` loop (all 800 rows with CODEMORPH_FULL=1) is
    rewritten but for ``range`` loops whose counter form is not proved (here without runtime
    types: a bound such as ``range(n)``), which are left alone rather than written as
    ``iter()``/``next()`` over the range; the rewrite behaves as the original on the row's
    own input (``codemorph generate`` verifies every variant on 50 inputs)."""
    rows = cruxeval_sample(1)
    t = get_transform(NAME)
    pairs = []
    refused = []

    def range_loop(n: ast.For) -> bool:
        it = n.iter
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "reversed" and it.args:
            it = it.args[0]
        return isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"

    for row in rows:
        has_for = any(isinstance(n, ast.For) for n in ast.walk(ast.parse(row["code"])))
        result = t.apply(Program(row["code"]), 0, inputs=[row["input"]])
        if has_for and not result.applied:
            refused.append((row["id"], result.reason))
        if result.applied:
            left = [n for n in ast.walk(ast.parse(result.source)) if isinstance(n, ast.For)]
            assert all(range_loop(n) for n in left), row["id"]
            assert "iter(range(" not in result.source and "iter(reversed(range(" not in result.source
            pairs.append((NAME, row, result.source))
    assert all("iter()/next() over a range is not a form people write" in why for _, why in refused), refused
    assert len(pairs) > len(refused) > 0
    run_pairs(sandbox, pairs)
