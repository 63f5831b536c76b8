"""Where the dead-code family writes its code, and where it refuses to.

A dead check or loop reads like one a person writes only over a value the program has
just computed from its variables (``n = len(xs)`` / ``if n < 0:``).  These programs (from
CRUXEval, HumanEval and Avatar rows) used to get checks no person writes, and are now
refused with a reason (exact source kept):

* a fresh invented literal then a check: ``limit = 6`` / ``if limit < 0:``;
* a check or loop right after a literal assignment: ``output = []`` / ``if output is None:``
  or ``for item in output:``; ``prod_value = 1`` / ``if prod_value < 0:``;
* a ``range`` loop counter (``_`` too) checked as the first statement of its loop:
  ``if i < 0: i = 0``, ``while _ < 0:``;
* in a script, an opaque predicate on a fresh literal: ``k = 54`` / ``if (k * k + k) % 2 == 1:``.

No statement is inserted after one that never falls through (``return``, ``raise``,
``break``, ``continue``, an ``if``/``else`` whose branches all exit).
"""

from __future__ import annotations

import libcst as cst
import pytest

from conftest import inserted_lines
from codemorph import Program, get_transform
from codemorph.transforms.deadcode.blocks import insertion_blocks, never_falls_through

SAMPLE_15 = "def f(text, wrong, right):\n    new_text = text.replace(wrong, right)\n    return new_text.upper()\n"
SAMPLE_0 = ("def f(nums):\n    output = []\n    for n in nums:\n        output.append((nums.count(n), n))\n"
            "    output.sort(reverse=True)\n    return output\n")
HUMANEVAL_8 = ("from typing import *\ndef sum_product(numbers: List[int]) -> Tuple[int, int]:\n    sum_value = 0\n"
               "    prod_value = 1\n\n    for n in numbers:\n        sum_value += n\n        prod_value *= n\n"
               "    return sum_value, prod_value\n")
SAMPLE_52 = ("def f(text):\n    a = []\n    for i in range(len(text)):\n        if not text[i].isdecimal():\n"
             "            a.append(text[i])\n    return ''.join(a)\n")
SAMPLE_212 = "def f(nums):\n    for _ in range(len(nums) - 1):\n        nums.reverse()\n    return nums\n"
SAMPLE_171 = "def f(nums):\n    count = len(nums) // 2\n    for _ in range(count):\n        nums.pop(0)\n    return nums\n"
ABC108_B = ("x1 , y1 , x2 , y2 = map (int , input ( ) . split ( ))\na = x2 - x1\nb = y2 - y1\n"
            "print ( x2 - b , y2 + a , x1 - b , y1 + a )\n")


@pytest.mark.parametrize("name", ["dead-code", "dead-loop"])
@pytest.mark.parametrize("src, entry, script", [
    (SAMPLE_15, "f", False), (SAMPLE_0, "f", False), (HUMANEVAL_8, "sum_product", False),
    (SAMPLE_52, "f", False), (SAMPLE_212, "f", False), (SAMPLE_171, "f", False), (ABC108_B, "f", True),
])
def test_programs_without_a_computed_value_are_refused(name: str, src: str, entry: str, script: bool) -> None:
    for seed in range(6):
        result = get_transform(name).apply(Program(src, entry_point=entry, script=script), seed)
        assert not result.applied
        if script and name == "dead-loop":  # dead-loop writes only in functions
            assert result.reason == "no function"
        else:
            assert result.reason.startswith("no natural site: no value computed from the program's variables")
        assert result.source == src


def test_check_goes_right_after_the_computed_value() -> None:
    src = ("def f(text, y):\n    a = []\n    n = len(text)\n    for i in range(n):\n        a.append(i)\n"
           "    return a, y\n")
    bodies = set()
    for seed in range(80):
        result = get_transform("dead-code").apply(Program(src), seed)
        lines = result.source.splitlines()
        assert lines[:4] == ["def f(text, y):", "    a = []", "    n = len(text)", "    if n < 0:"]
        assert lines[5:] == src.splitlines()[3:]
        bodies.add(lines[4].strip())
    # no early return: the function returns the pair (a, y), and neither a local it does not
    # return (`return text`) nor `return ()` is its result
    assert bodies == {"raise ValueError('n must be non-negative')", "n = 0"}
    result = get_transform("dead-loop").apply(Program(src), 0)
    assert result.source == src.replace("    n = len(text)\n", "    n = len(text)\n    while n < 0:\n        n += 1\n")


def test_the_check_comes_before_the_first_use_of_the_value() -> None:
    """``n = len(xs)`` / ``print(n)`` / ``if n < 0:`` would check too late: only the position
    right after the assignment counts, on every seed."""
    src = "def f(xs):\n    n = len(xs)\n    print(n)\n    return n\n"
    for seed in range(8):
        result = get_transform("dead-code").apply(Program(src), seed)
        assert result.source.splitlines()[:3] == ["def f(xs):", "    n = len(xs)", "    if n < 0:"]
    assert get_transform("dead-code").apply(Program(src), 3).source == \
        "def f(xs):\n    n = len(xs)\n    if n < 0:\n        n = 0\n    print(n)\n    return n\n"


def _dead_bodies(src: str, seeds: int = 60, **kwargs) -> set[str]:
    bodies = set()
    for seed in range(seeds):
        result = get_transform("dead-code").apply(Program(src), seed, **kwargs)
        new = inserted_lines(src, result.source)
        bodies.add("; ".join(result.source.splitlines()[n - 1].strip() for n in new[1:]))
    return bodies


def test_early_return_gives_the_functions_own_result() -> None:
    """CRUXEval sample_403: ``if length < 0: return part`` in a function returning a count
    (sample_460: ``return amount``, an int, where a str is returned) read as mistakes; the
    early return gives a name the function returns, bound there."""
    src = ("def f(full, part):\n    length = len(part)\n    index = full.find(part)\n    count = 0\n"
           "    while index >= 0:\n        full = full[index + length:]\n        index = full.find(part)\n"
           "        count += 1\n    return count\n")
    assert _dead_bodies(src) == {"raise ValueError('length must be non-negative')", "length = 0"}
    src = ("def f(text, amount):\n    length = len(text)\n    pre_text = '|'\n    if amount >= length:\n"
           "        return pre_text + text + pre_text\n    return text\n")
    assert _dead_bodies(src) == {"raise ValueError('length must be non-negative')", "length = 0", "return text"}


def test_early_return_gives_an_empty_result_of_the_functions_type() -> None:
    src = "def f(text):\n    words = sorted(text.split())\n    return ' '.join(words)\n"
    assert "return ''" in _dead_bodies(src)
    assert not any(b.startswith("return") and b != "return ''" for b in _dead_bodies(src))
    # a name observed only as a list: `return []`
    src = "def f(xs):\n    n = len(xs)\n    out = xs[:n]\n    return out\n"
    bodies = _dead_bodies(src, observations={"f": {"out": ["list"], "n": ["int"], "xs": ["list"]}})
    assert bodies == {"raise ValueError('n must be non-negative')", "n = 0", "return []"}
    # a function returning nothing: a bare return
    src = "def f(xs):\n    n = len(xs)\n    print(n)\n"
    assert "return" in _dead_bodies(src)


def test_no_type_check_of_a_value_the_line_above_builds() -> None:
    """restructure on sample_1: ``v4 = v0, v1, v2`` / ``if not isinstance(v4, tuple):``
    checks what the line above spells: a display gets no check; a comprehension gets no
    ``isinstance`` check."""
    src = "def f(a, b, c):\n    items = a, b, c\n    return len(items)\n"
    result = get_transform("dead-code").apply(Program(src), 0)
    assert not result.applied and result.reason.startswith("no natural site")
    src = "def f(text):\n    chars = [c for c in text if c.isalpha()]\n    return chars\n"
    bodies = _dead_bodies(src, seeds=30)
    assert bodies == {"chars = []", "raise ValueError('chars must not be None')"}


@pytest.mark.parametrize("stmt, expected", [
    ("return x", True),
    ("x = 1; raise E", True),
    ("if a:\n    return 1\nelse:\n    return 2", True),
    ("if a:\n    return 1\nelif b:\n    raise E\nelse:\n    continue", True),
    ("if a:\n    return 1\nelif b:\n    pass\nelse:\n    return 2", False),
    ("if a:\n    return 1", False),
    ("if a: return 1\nelse: break", True),
    ("while True:\n    x += 1", True),
    ("while True:\n    if x:\n        break", False),
    ("while True:\n    for y in x:\n        break", True),
    ("try:\n    return f()\nexcept E:\n    return 0", True),
    ("try:\n    return f()\nexcept E:\n    pass", False),
    ("try:\n    x = 1\nfinally:\n    return x", True),
    ("with m:\n    return x", False),
    ("for y in x:\n    return y", False),
])
def test_never_falls_through(stmt: str, expected: bool) -> None:
    assert never_falls_through(cst.parse_module(stmt + "\n").body[0]) is expected


SAMPLE_49 = ("def f(text):\n    if text.isidentifier():\n        return ''.join(c for c in text if c.isdigit())\n"
             "    else:\n        return ''.join(text)\n")
SAMPLE_56 = ("def f(sentence):\n    for c in sentence:\n        if c.isascii() is False:\n            return False\n"
             "        else:\n            continue\n    return True\n")


@pytest.mark.parametrize("src, expected", [
    # before the if, and first in each branch; never after the if/else (line 6)
    (SAMPLE_49, {2, 3, 5}),
    # before the for, first in its body and in each branch, before `return True`; never
    # after the if/else in the loop body
    (SAMPLE_56, {2, 3, 4, 6, 7}),
])
def test_dead_store_is_never_placed_after_a_statement_that_always_exits(src: str, expected: set[int]) -> None:
    func = cst.parse_module(src).body[0]
    assert isinstance(func, cst.FunctionDef)
    lines = set()
    for seed in range(40):
        result = get_transform("dead-store").apply(Program(src), seed)
        new = [i + 1 for i, line in enumerate(result.source.splitlines()) if line not in src.splitlines()]
        assert len(new) == 1
        lines.add(new[0])
    assert lines == expected
    assert sum(last - first + 1 for _s, first, last in insertion_blocks(func)) == len(expected)
