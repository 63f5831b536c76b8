"""The natural forms of ``for-to-while`` (codemorph.transforms.loops.forms) for loops people
write, each as exact code, and run against its original in the sandbox:

* ``for _ in range(int(input())):`` gets the counter form (``int(...)`` is an int bound,
  evaluated once before the loop as ``range`` does);
* an iterable that already is an iterator (``zip``, ``map``, ``enumerate``, ``filter``,
  ``reversed`` of a sequence, a generator expression) is not wrapped in ``iter``;
* ``range(1, n + 1)`` with an int name ``n`` nothing rebinds is tested as ``i <= n``;
* a ``continue`` that ends the body is dropped once the increment precedes it;

and the soundness limit of the counter and index forms: a ``continue`` inside ``try`` /
``finally`` or ``with`` in a function's loop takes the general form (the ``finally`` block
would see the incremented counter).
"""

from __future__ import annotations

import pytest

from codemorph.engine import Program, get_transform
from codemorph.sandbox import request_for
from codemorph.testing import observe_types


def _same_stdout(sandbox, a: str, b: str, stdins: list[str]) -> None:
    outs = sandbox.run_batch([request_for(code, "f", "stdin", t) for t in stdins for code in (a, b)])
    for k, text in enumerate(stdins):
        x, y = outs[2 * k], outs[2 * k + 1]
        assert x.status in ("returned", "raised"), (text, x.status)
        assert (x.status, x.stdout, x.exception and x.exception.type) == \
            (y.status, y.stdout, y.exception and y.exception.type), text


def _rewrite(sandbox, code: str, stdins: list[str]):
    observations = observe_types(code, stdins, input_kind="stdin", sandbox=sandbox)
    res = get_transform("for-to-while").apply(Program(code, script=True), 0, observations=observations,
                                             harness=True)
    assert res.applied, res.reason
    _same_stdout(sandbox, code, res.source, stdins)
    return res


INT_INPUT = """t = 0
for _ in range(int(input())):
    t += len(input())
print(t)
"""
INT_INPUT_WHILE = """t = 0
n = int(input())
i = 0
while i < n:
    t += len(input())
    i += 1
print(t)
"""

ZIP = """a = input().split()
for x, y in zip(a, a[1:]):
    if x == y:
        break
    print(x, y)
"""
ZIP_WHILE = """a = input().split()
it = zip(a, a[1:])
while True:
    try:
        x, y = next(it)
    except StopIteration:
        break
    if x == y:
        break
    print(x, y)
"""

GENERATOR = """words = input().split()
for w in (x.upper() for x in words if x):
    print(w)
"""
GENERATOR_WHILE = """words = input().split()
it = (x.upper() for x in words if x)
while True:
    try:
        w = next(it)
    except StopIteration:
        break
    print(w)
"""

INCLUSIVE = """n = int(input())
total = 0
for i in range(1, n + 1):
    total += i * i
print(total)
"""
INCLUSIVE_WHILE = """n = int(input())
total = 0
i = 1
while i <= n:
    total += i * i
    i += 1
print(total)
"""

TRAILING_CONTINUE = """xs = input().split()
for k in range(len(xs)):
    if xs[k] == "a":
        print(k)
    continue
"""
TRAILING_CONTINUE_WHILE = """xs = input().split()
n = len(xs)
k = 0
while k < n:
    if xs[k] == "a":
        print(k)
    k += 1
"""


@pytest.mark.parametrize("code, expected, stdins, form", [
    (INT_INPUT, INT_INPUT_WHILE, ["2\nab\nc\n", "0\n", "1\n\n"], "counter loop over i"),
    (ZIP, ZIP_WHILE, ["a b b c\n", "q\n", "\n"], "while loop over it = zip(...)"),
    (GENERATOR, GENERATOR_WHILE, ["a b\n", "\n"], "while loop over it = (... for ...)"),
    (INCLUSIVE, INCLUSIVE_WHILE, ["3\n", "0\n", "-2\n"], "counter loop over i"),
    (TRAILING_CONTINUE, TRAILING_CONTINUE_WHILE, ["a b a\n", "\n"], "counter loop over k"),
], ids=["range-int-input", "zip-not-wrapped-in-iter", "generator-not-wrapped-in-iter", "range-to-n-inclusive",
        "trailing-continue-dropped"])
def test_for_to_while_writes_the_form_people_write(sandbox, code, expected, stdins, form):
    res = _rewrite(sandbox, code, stdins)
    assert res.source == expected
    assert [s.description for s in res.sites] == [f"for loop -> {form}"]


def test_inclusive_bound_gives_way_when_the_body_rebinds_it(sandbox):
    code = "n = int(input())\nfor i in range(1, n + 1):\n    n -= 1\n    print(i, n)\n"
    res = _rewrite(sandbox, code, ["3\n", "0\n"])
    assert res.source == ("n = int(input())\nsize = n + 1\ni = 1\nwhile i < size:\n    n -= 1\n"
                          "    print(i, n)\n    i += 1\n")


def test_reversed_of_a_class_is_still_wrapped_in_iter(sandbox):
    code = ("class Back:\n    def __reversed__(self):\n        return [3, 2]\n"
            "for v in reversed(Back()):\n    print(v)\n")
    res = _rewrite(sandbox, code, ["\n"])
    assert "it = iter(reversed(Back()))\n" in res.source


FUNCTION_CONTINUE_IN_FINALLY = """def f(n):
    done = []
    for i in range(n):
        try:
            if i % 2:
                continue
        finally:
            done.append(i)
    return done
"""
FUNCTION_CONTINUE_IN_WITH = """import contextlib


def f(xs):
    out = []
    for x in xs:
        with contextlib.suppress(ValueError):
            if x < 0:
                continue
            out.append(x)
    return out
"""


def test_continue_in_finally_of_a_functions_range_loop_is_refused(sandbox):
    """No counter form (the finally block would see the next value), and iter()/next() over
    a range is not a form people write."""
    res = get_transform("for-to-while").apply(Program(FUNCTION_CONTINUE_IN_FINALLY), 0, inputs=["4", "1"],
                                             observations=observe_types(FUNCTION_CONTINUE_IN_FINALLY, ["4", "1"],
                                                                        sandbox=sandbox))
    assert not res.applied
    assert "a range loop with a continue inside with/try-finally" in res.reason


def test_continue_in_with_of_a_functions_index_loop_takes_the_general_form(sandbox):
    inputs = ["[1, -2, 3]", "[]"]
    res = get_transform("for-to-while").apply(Program(FUNCTION_CONTINUE_IN_WITH), 0, inputs=inputs,
                                             observations=observe_types(FUNCTION_CONTINUE_IN_WITH, inputs,
                                                                        sandbox=sandbox))
    assert [s.description for s in res.sites] == ["for loop -> while loop over it = iter(...)"]
    outs = sandbox.run_batch([request_for(c, "f", "args", inputs[0]) for c in (FUNCTION_CONTINUE_IN_WITH, res.source)])
    assert outs[0].value_repr == outs[1].value_repr == "[1, 3]"


EXIT_RAISES_AFTER_CONTINUE = """class Guard:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        raise ValueError


def f(xs):
    out = []
    for x in xs:
        try:
            with Guard():
                if x < 0:
                    continue
                out.append(x)
        except ValueError:
            out.append('exit')
    return out
"""


def test_exit_raising_after_a_continue_does_not_step_the_index_twice(sandbox):
    """``__exit__`` raises after the ``continue`` and the body catches it: the body then runs
    to its end, so an increment before the ``continue`` would skip the next item."""
    inputs = ["[-1, 5]", "[]", "[2, -3, -4, 6]"]
    res = get_transform("for-to-while").apply(Program(EXIT_RAISES_AFTER_CONTINUE), 0, inputs=inputs,
                                             observations=observe_types(EXIT_RAISES_AFTER_CONTINUE, inputs,
                                                                        sandbox=sandbox))
    assert [s.description for s in res.sites] == ["for loop -> while loop over it = iter(...)"]
    outs = sandbox.run_batch([request_for(c, "f", "args", inputs[0]) for c in (EXIT_RAISES_AFTER_CONTINUE, res.source)])
    assert outs[0].value_repr == outs[1].value_repr == "['exit', 5, 'exit']"
