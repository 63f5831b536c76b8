"""``peel-loop`` writes the peeled loop as people write it (codemorph.transforms.loops.peeling):
``if xs:`` / ``x = xs[0]`` / body / ``for x in xs[1:]:`` where the body cannot change the
sequence, ``if n > 0:`` / ``i = 0`` / body / ``for i in range(1, n):`` for a range, and an
index ``while`` loop from 1 where the body may change the list.  Each case checks the exact
rewritten code and runs original and rewrite in the sandbox on inputs that tell the forms
apart (empty, one item, several; mutation in the body; the loop variable after the loop).
"""

from __future__ import annotations

import pytest
from conftest import assert_same_behaviour, run_both

from codemorph import Program, get_transform
from codemorph.testing import observe_types


def _peel(sandbox, src: str, inputs: list[str]):
    return get_transform("peel-loop").apply(Program(src), 0, inputs=inputs,
                                            observations=observe_types(src, inputs, sandbox=sandbox))


CASES = [
    # a str the body rebinds: `s[1:]` would slice the new string (the iterator form instead);
    # the variable after the loop (unbound when empty)
    ("str-rebound",
     "def f(s):\n    out = []\n    for c in s:\n        out.append(c.upper())\n        s = s[::-1]\n    return out, c, s\n",
     None, ["'abc'", "''", "'x'"]),
    ("str-slice-read-after",
     "def f(s):\n    c = '-'\n    for c in s:\n        print(c)\n    return c\n",
     "def f(s):\n    c = '-'\n    if s:\n        c = s[0]\n        print(c)\n        for c in s[1:]:\n"
     "            print(c)\n    return c\n", ["'abc'", "''", "'x'"]),
    # a tuple: the body may call anything, the tuple cannot change
    ("tuple-slice",
     "def g(x):\n    return x * 2\n\n\ndef f(t):\n    total = 0\n    for a, b in t:\n        total += g(a) - b\n"
     "    return total\n",
     "def g(x):\n    return x * 2\n\n\ndef f(t):\n    total = 0\n    if t:\n        a, b = t[0]\n"
     "        total += g(a) - b\n        for a, b in t[1:]:\n            total += g(a) - b\n    return total\n",
     ["((1, 2), (3, 4))", "()", "((5, 1),)", "((1, 2), (3,))"]),
    # a list the body only reads, with a fresh accumulator and a dict of counts
    ("list-slice",
     "def f(nums):\n    seen = {}\n    out = []\n    for n in nums:\n        seen[n] = seen.get(n, 0) + 1\n"
     "        out.append((nums.count(n), n))\n    else:\n        out.append(len(seen))\n    return out\n",
     "def f(nums):\n    seen = {}\n    out = []\n    if nums:\n        n = nums[0]\n        seen[n] = seen.get(n, 0) + 1\n"
     "        out.append((nums.count(n), n))\n        for n in nums[1:]:\n            seen[n] = seen.get(n, 0) + 1\n"
     "            out.append((nums.count(n), n))\n    out.append(len(seen))\n    return out\n",
     ["[1, 1, 3]", "[]", "[7]"]),
    # enumerate: the counter and item after the loop too
    ("enumerate-slice",
     "def f(s):\n    out = ''\n    for i, ch in enumerate(s):\n        out += ch * i\n    return out, i\n",
     "def f(s):\n    out = ''\n    if s:\n        i = 0\n        ch = s[0]\n        out += ch * i\n"
     "        for i, ch in enumerate(s[1:], start=1):\n            out += ch * i\n    return out, i\n",
     ["'abc'", "''", "'z'"]),
    # items deleted from a copy (`d.copy()`, a new dict), never from the iterated list
    ("copy-slice",
     "def f(d, rm):\n    res = d.copy()\n    for k in rm:\n        if k in res:\n            del res[k]\n    return res\n",
     "def f(d, rm):\n    res = d.copy()\n    if rm:\n        k = rm[0]\n        if k in res:\n            del res[k]\n"
     "        for k in rm[1:]:\n            if k in res:\n                del res[k]\n    return res\n",
     ["{'a': 1, 'b': 2}, ['a', 'c']", "{}, []", "{'x': 0}, ['x']"]),
    # ... but from the very list (`res = rm`): the index form
    ("list-alias-del",
     "def f(rm):\n    res = rm\n    out = []\n    for k in rm:\n        out.append(k)\n        if len(res) > 1:\n"
     "            del res[-1]\n    return out\n", None, ["[1, 2, 3]", "[]", "[4]"]),
    # the list grows in the body: the loop sees the new items, so the index form from 1
    ("list-mutated",
     "def f(xs):\n    for x in xs:\n        if x > 0 and len(xs) < 6:\n            xs.append(x - 1)\n    return xs\n",
     "def f(xs):\n    if xs:\n        x = xs[0]\n        if x > 0 and len(xs) < 6:\n            xs.append(x - 1)\n"
     "        i = 1\n        while i < len(xs):\n            x = xs[i]\n            if x > 0 and len(xs) < 6:\n"
     "                xs.append(x - 1)\n            i += 1\n    return xs\n",
     ["[2, 1]", "[]", "[3]", "[0, 5]"]),
    # the list shrinks through an alias made before the loop
    ("list-alias",
     "def f(xs):\n    ys = xs\n    out = []\n    for x in xs:\n        out.append(x)\n        if ys:\n"
     "            ys.pop()\n    return out\n", None, ["[1, 2, 3, 4]", "[]", "[1]"]),
    # a function of the program runs in the body: it could reach the list
    ("list-call",
     "def g(v):\n    return v + 1\n\n\ndef f(xs):\n    out = []\n    for x in xs:\n        out.append(g(x))\n"
     "    return out\n", None, ["[1, 2]", "[]"]),
    # range(n): `if n > 0:`; the variable is read after the loop
    ("range-n",
     "def f(n):\n    total = 0\n    for i in range(n):\n        total += i * i\n    return total, i\n",
     "def f(n):\n    total = 0\n    if n > 0:\n        i = 0\n        total += i * i\n        for i in range(1, n):\n"
     "            total += i * i\n    return total, i\n", ["3", "0", "1", "-4"]),
    # range(1, n + 1): `if n >= 1:`; the body rebinds the variable (the next value wins in both)
    ("range-inclusive",
     "def f(n):\n    out = []\n    for k in range(1, n + 1):\n        k = k * 10\n        out.append(k)\n"
     "    return out, k\n",
     "def f(n):\n    out = []\n    if n >= 1:\n        k = 1\n        k = k * 10\n        out.append(k)\n"
     "        for k in range(2, n + 1):\n            k = k * 10\n            out.append(k)\n    return out, k\n",
     ["3", "0", "1"]),
    # range(len(s)) of a str: `if s:`
    ("range-len",
     "def f(s):\n    out = []\n    for i in range(len(s)):\n        out.append(s[i] * i)\n    return out\n",
     "def f(s):\n    out = []\n    if s:\n        i = 0\n        out.append(s[i] * i)\n        for i in range(1, len(s)):\n"
     "            out.append(s[i] * i)\n    return out\n", ["'abc'", "''", "'q'"]),
    # range(len(xs)) of a list the body grows: len(xs) is taken once, bound to a fresh name first
    ("range-len-mutated",
     "def f(xs):\n    for i in range(len(xs)):\n        xs.append(xs[i] * 2)\n    return xs\n",
     "def f(xs):\n    n = len(xs)\n    if n > 0:\n        i = 0\n        xs.append(xs[i] * 2)\n        for i in range(1, n):\n"
     "            xs.append(xs[i] * 2)\n    return xs\n", ["[1, 2]", "[]", "[5]"]),
    # literal bounds: no `if`; `for _ in` with `_` unread: no `_ = 0`
    ("range-literal",
     "def f(s):\n    for _ in range(3):\n        s += '!'\n    return s\n",
     "def f(s):\n    s += '!'\n    for _ in range(1, 3):\n        s += '!'\n    return s\n", ["'a'", "''"]),
    # a bound of literal arithmetic is a constant: no `n = 10 ** 2 + 1`, no `if`
    ("range-constant",
     "def f(k):\n    total = k\n    for i in range(10 ** 2 + 1):\n        total += i\n    return total\n",
     "def f(k):\n    total = k\n    i = 0\n    total += i\n    for i in range(1, 10 ** 2 + 1):\n        total += i\n"
     "    return total\n", ["3", "0"]),
    # a negative step down to 0: `len(xs) - 1 > -1` is `if xs:`
    ("range-down",
     "def f(xs):\n    out = []\n    for i in range(len(xs) - 1, -1, -1):\n        out.append(xs[i])\n    return out\n",
     "def f(xs):\n    out = []\n    if xs:\n        i = len(xs) - 1\n        out.append(xs[i])\n"
     "        for i in range(len(xs) - 2, -1, -1):\n            out.append(xs[i])\n    return out\n",
     ["[1, 2, 3]", "[]", "[4]"]),
    # `-len(nums) < 0` is `if nums:`; `-len(nums) + 1` needs no parentheses
    ("range-negative-start",
     "def f(nums):\n    res = nums.copy()\n    for i in range(-len(nums), 0):\n        res.append(res[i])\n    return res\n",
     "def f(nums):\n    res = nums.copy()\n    if nums:\n        i = -len(nums)\n        res.append(res[i])\n"
     "        for i in range(-len(nums) + 1, 0):\n            res.append(res[i])\n    return res\n",
     ["[1, 2, 3]", "[]", "[7]"]),
    # the start reads a list the body changes: taken once, into the loop variable (which
    # nothing reads after the loop), as people count down
    ("range-start-bound",
     "def f(nums):\n    for i in range(len(nums) - 1, -1, -1):\n        if nums[i] % 2 == 1:\n"
     "            nums.insert(i + 1, nums[i])\n    return nums\n",
     "def f(nums):\n    i = len(nums) - 1\n    if i >= 0:\n        if nums[i] % 2 == 1:\n"
     "            nums.insert(i + 1, nums[i])\n        for i in range(i - 1, -1, -1):\n"
     "            if nums[i] % 2 == 1:\n                nums.insert(i + 1, nums[i])\n    return nums\n",
     ["[1, 2, 3]", "[]", "[5]", "[2, 4]"]),
    # a loop over an expression: bound to a fresh name, then sliced
    ("sorted-slice",
     "def f(d):\n    out = []\n    for k in sorted(d):\n        out.append(k + d[k])\n    return out\n",
     "def f(d):\n    out = []\n    items = sorted(d)\n    if items:\n        k = items[0]\n        out.append(k + d[k])\n"
     "        for k in items[1:]:\n            out.append(k + d[k])\n    return out\n",
     ["{'b': 'x', 'a': 'y'}", "{}", "{'c': ''}"]),
]


@pytest.mark.parametrize("name, src, expected, inputs", CASES, ids=[c[0] for c in CASES])
def test_peeled_loop_is_written_as_people_write_it_and_behaves_the_same(sandbox, name, src, expected, inputs):
    result = _peel(sandbox, src, inputs)
    assert result.applied, result.reason
    if expected is not None:
        assert result.source == expected
    assert "i = 0\n    if i <" not in result.source and "if i < len(" not in result.source
    if name == "str-rebound":
        assert "[1:]" not in result.source and "next(it)" in result.source
    assert_same_behaviour(sandbox, src, result.source, inputs)


@pytest.mark.parametrize("name", ["list-mutated", "list-alias", "list-alias-del", "list-call"])
def test_a_list_the_body_may_change_is_not_sliced(sandbox, name):
    """``xs[1:]`` is taken after the first iteration; where the body may change the list (a
    method call on it or on an alias, a call of the program's own function) the index form
    reads the current length at each test, as the loop's iterator does."""
    _, src, _, inputs = next(c for c in CASES if c[0] == name)
    result = _peel(sandbox, src, inputs)
    assert "[1:]" not in result.source and "while i < len(" in result.source
    assert "then index loop" in result.sites[0].description


def test_the_slice_form_would_change_a_loop_whose_body_grows_the_list(sandbox):
    """Why the precondition matters: sliced by hand, the growing list of ``list-mutated``
    gives another result."""
    _, src, _, inputs = next(c for c in CASES if c[0] == "list-mutated")
    sliced = ("def f(xs):\n    if xs:\n        x = xs[0]\n        if x > 0 and len(xs) < 6:\n            xs.append(x - 1)\n"
              "        for x in xs[1:]:\n            if x > 0 and len(xs) < 6:\n                xs.append(x - 1)\n"
              "    return xs\n")
    assert any(o.behaviour() != r.behaviour() for _, o, r in run_both(sandbox, src, sliced, inputs))


def test_a_generator_over_a_list_is_not_sliced(sandbox):
    """Between two items the caller may grow the list: the generator must see it."""
    src = ("def gen(xs):\n    for x in xs:\n        yield x\n\n\ndef f(xs):\n    out = []\n    for v in gen(xs):\n"
           "        if v == 1:\n            xs.append(9)\n        out.append(v)\n    return out\n")
    inputs = ["[1, 2]", "[]", "[0]"]
    result = get_transform("peel-loop").apply(Program(src), 0, inputs=inputs,
                                              observations=observe_types(src, inputs, sandbox=sandbox))
    assert "xs[1:]" not in result.source
    assert_same_behaviour(sandbox, src, result.source, inputs)


def test_a_list_parameter_the_body_appends_to_may_be_the_iterated_list(sandbox):
    """``out`` is the caller's object, which may be ``xs`` itself (``h(xs, xs)``): the loop sees
    what the body appends, so the list is not sliced."""
    src = ("def h(xs, out):\n    for x in xs:\n        if len(out) < 5:\n            out.append(x + 1)\n    return out\n\n\n"
           "def f(n):\n    xs = list(range(n))\n    return h(xs, xs)\n")
    inputs = ["2", "0", "1"]
    result = _peel(sandbox, src, inputs)
    assert "xs[1:]" not in result.source and "while i < len(xs):" in result.source
    assert_same_behaviour(sandbox, src, result.source, inputs)


@pytest.mark.parametrize("jump", ["break", "continue"])
def test_a_loop_with_break_or_continue_is_not_peeled(sandbox, jump):
    src = f"def f(xs):\n    out = []\n    for x in xs:\n        if x < 0:\n            {jump}\n        out.append(x)\n    return out\n"
    result = _peel(sandbox, src, ["[1, -1, 2]", "[]"])
    assert not result.applied and f"body has {jump} for this loop" in result.reason


def test_an_empty_literal_range_is_not_peeled(sandbox):
    src = "def f(s):\n    for i in range(3, 0):\n        s += '!'\n    return s\n"
    result = _peel(sandbox, src, ["'a'"])
    assert not result.applied and "the range is empty" in result.reason


@pytest.mark.parametrize("body", [
    "        out += [x]\n",  # `out` is the caller's list, maybe xs itself
    "        handlers[0](x)\n",  # a call of an item: any code
    "        sorted([x], key=out.append)\n",  # a method passed on, called by sorted
])
def test_a_list_the_body_may_reach_through_another_name_is_not_sliced(sandbox, body):
    src = ("def h(xs, out, handlers):\n    for x in xs:\n" + body + "        if len(xs) > 4:\n            return xs\n"
           "    return xs\n\n\ndef f(n):\n    xs = list(range(n))\n    return h(xs, xs, [xs.append])\n")
    inputs = ["2", "0", "1"]
    result = _peel(sandbox, src, inputs)
    assert result.applied and "xs[1:]" not in result.source and "while i < len(xs):" in result.source
    assert_same_behaviour(sandbox, src, result.source, inputs)


def test_a_range_start_the_body_changes_is_refused_when_the_variable_is_read_after_the_loop(sandbox):
    """``i = len(nums) - 1`` before the test would bind ``i`` for an empty range, where the
    loop leaves it as it was."""
    src = ("def f(nums):\n    i = -9\n    for i in range(len(nums) - 1, -1, -1):\n        nums.append(i)\n"
           "        nums.pop()\n    return nums, i\n")
    result = _peel(sandbox, src, ["[1, 2]", "[]"])
    assert not result.applied and "the range's start may change in the loop, and i is read after the loop" in result.reason


def test_a_loop_whose_body_always_returns_is_not_peeled(sandbox):
    """The first copy would always return: a loop over the rest after it never runs."""
    src = "def f(xs):\n    for x in xs:\n        if x:\n            return x\n        else:\n            return -1\n    return 0\n"
    result = _peel(sandbox, src, ["[1, 2]", "[]", "[0]"])
    assert not result.applied and "the body always returns or raises" in result.reason
