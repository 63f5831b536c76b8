"""for-to-while and peel-loop on a script's module-level loops (``stdin`` rows,
``Program(script=True)``): the exact forms, with the loop forms' proofs extended to module
scope (functions that read or rebind a module-level name make the counter and index forms
give way to the general one), a non-script module's module-level loops left alone, and
every rewrite printing what its original prints on several standard inputs (run in the
sandbox)."""

from __future__ import annotations

import pytest

from codemorph.engine import Program, get_transform
from codemorph.sandbox import request_for
from codemorph.testing import observe_types

COUNTER = """s = input()
zeros = 0
for i in range(len(s)):
    if s[i] == "0":
        zeros += 1
print(zeros)
"""
COUNTER_WHILE = """s = input()
zeros = 0
i = 0
while i < len(s):
    if s[i] == "0":
        zeros += 1
    i += 1
print(zeros)
"""
COUNTER_STDINS = ["0101\n", "\n", "000\n", "12a0\n"]

LIST = """n = int(input())
xs = list(map(int, input().split()))
total = 0
for x in xs:
    if x % 2:
        continue
    total += x
print(total)
"""
LIST_WHILE = """n = int(input())
xs = list(map(int, input().split()))
total = 0
i = 0
while i < len(xs):
    x = xs[i]
    if x % 2:
        i += 1
        continue
    total += x
    i += 1
print(total)
"""
LIST_STDINS = ["3\n1 2 4\n", "0\n\n", "2\n-6 7\n", "4\n8 8 8 1\n"]

BREAK_ELSE = """xs = input().split()
for w in xs:
    if w == "stop":
        print("stopped")
        break
    print(w.upper())
else:
    print("no stop")
"""
BREAK_ELSE_WHILE = """xs = input().split()
i = 0
while i < len(xs):
    w = xs[i]
    if w == "stop":
        print("stopped")
        break
    print(w.upper())
    i += 1
else:
    print("no stop")
"""
WORD_STDINS = ["a b stop c\n", "a b\n", "\n", "stop\n"]

# drop() rebinds the module-level xs while the loop runs: the index form would read the new
# list; the general form iterates the list the loop started with, as the for loop does
REBINDS = """xs = list(map(int, input().split()))
def drop():
    global xs
    xs = xs[1:]
for x in xs:
    if x == 0:
        drop()
    print(x, len(xs))
"""
REBINDS_WHILE = """xs = list(map(int, input().split()))
def drop():
    global xs
    xs = xs[1:]
it = iter(xs)
while True:
    try:
        x = next(it)
    except StopIteration:
        break
    if x == 0:
        drop()
    print(x, len(xs))
"""
NUMBERS_STDINS = ["1 0 2 0 3\n", "0\n", "\n", "5 6\n"]

# i is read after the loop: a counter ends one step past the last value (and is bound after
# zero iterations), so no counter form is proved, and iter()/next() over a range is no form
# people write: the loop is refused
READ_AFTER = """n = int(input())
total = 0
for i in range(n):
    total += i
print(total, i)
"""
COUNT_STDINS = ["3\n", "0\n", "1\n", "-2\n", "7\n"]

# show() reads the module-level i: a function may run at any time, so i is no counter
FUNCTION_READS = """n = int(input())
def show():
    print("at", i)
for i in range(n):
    show()
"""

CASES = [
    (COUNTER, COUNTER_WHILE, COUNTER_STDINS, "counter loop over i"),
    (LIST, LIST_WHILE, LIST_STDINS, "index loop over xs (counter i)"),
    (BREAK_ELSE, BREAK_ELSE_WHILE, WORD_STDINS, "index loop over xs (counter i)"),
    (REBINDS, REBINDS_WHILE, NUMBERS_STDINS, "while loop over it = iter(...)"),
]
IDS = ["counter", "list", "break-else", "global-rebinds-sequence"]


def _observations(sandbox, code: str, stdins: list[str]):
    return observe_types(code, stdins, input_kind="stdin", sandbox=sandbox)


def _same_stdout(sandbox, a: str, b: str, stdins: list[str]) -> None:
    outs = sandbox.run_batch([request_for(code, "f", "stdin", t) for t in stdins for code in (a, b)])
    for k, text in enumerate(stdins):
        x, y = outs[2 * k], outs[2 * k + 1]
        assert x.status in ("returned", "raised"), (text, x.status)
        assert (x.status, x.stdout, x.exception and x.exception.type) == \
            (y.status, y.stdout, y.exception and y.exception.type), text


@pytest.mark.parametrize("source, expected, stdins, form", CASES, ids=IDS)
def test_for_to_while_rewrites_a_scripts_module_level_loop(sandbox, source, expected, stdins, form):
    observations = _observations(sandbox, source, stdins)
    res = get_transform("for-to-while").apply(Program(source, script=True), 0, observations=observations,
                                             harness=True)
    assert res.applied, res.reason
    assert res.source == expected
    assert [s.description for s in res.sites] == [f"for loop -> {form}"]
    _same_stdout(sandbox, source, res.source, stdins)


@pytest.mark.parametrize("source, expected, stdins, form", CASES, ids=IDS)
def test_peel_loop_peels_a_scripts_module_level_loop(sandbox, source, expected, stdins, form):
    observations = _observations(sandbox, source, stdins)
    res = get_transform("peel-loop").apply(Program(source, script=True), 0, observations=observations,
                                          harness=True)
    if "break" in source or "continue" in source:
        assert not res.applied and "for this loop" in res.reason
        return
    assert res.applied, res.reason
    _same_stdout(sandbox, source, res.source, stdins)


@pytest.mark.parametrize("source, why", [(READ_AFTER, "i is read after the loop"),
                                         (FUNCTION_READS, "i is a global show() uses")],
                         ids=["read-after-loop", "function-reads-counter"])
def test_a_scripts_range_loop_without_a_counter_form_is_refused(sandbox, source, why):
    res = get_transform("for-to-while").apply(Program(source, script=True), 0,
                                              observations=_observations(sandbox, source, COUNT_STDINS), harness=True)
    assert not res.applied
    assert why in res.reason and "iter()/next() over a range is not a form people write" in res.reason


@pytest.mark.parametrize("source, expected", [
    (READ_AFTER, "n = int(input())\ntotal = 0\nif n > 0:\n    i = 0\n    total += i\n    for i in range(1, n):\n"
                 "        total += i\nprint(total, i)\n"),
    (FUNCTION_READS, 'n = int(input())\ndef show():\n    print("at", i)\nif n > 0:\n    i = 0\n    show()\n'
                     "    for i in range(1, n):\n        show()\n"),
], ids=["read-after-loop", "function-reads-counter"])
def test_a_scripts_range_loop_whose_variable_is_read_elsewhere_is_peeled_as_a_for_loop(sandbox, source, expected):
    """``for i in range(1, n)`` leaves ``i`` (and every value a function reads) as the loop
    did, also for ``n`` of 0 (unbound: both raise NameError) and 1."""
    res = get_transform("peel-loop").apply(Program(source, script=True), 0,
                                           observations=_observations(sandbox, source, COUNT_STDINS), harness=True)
    assert res.source == expected
    _same_stdout(sandbox, source, res.source, COUNT_STDINS)


def test_peeled_counter_loop_of_a_script_is_exact(sandbox):
    res = get_transform("peel-loop").apply(Program(COUNTER, script=True), 0,
                                          observations=_observations(sandbox, COUNTER, COUNTER_STDINS))
    assert res.source == ('s = input()\nzeros = 0\nif s:\n    i = 0\n    if s[i] == "0":\n        zeros += 1\n'
                          '    for i in range(1, len(s)):\n        if s[i] == "0":\n            zeros += 1\nprint(zeros)\n')
    _same_stdout(sandbox, COUNTER, res.source, COUNTER_STDINS)


def test_module_level_names_are_observed_where_a_scripts_loop_starts(sandbox):
    observations = _observations(sandbox, LIST, LIST_STDINS)
    module = observations["<module>"]
    assert module["xs"] == ["list"] and module["total"] == ["int"] and module["n"] == ["int"]
    assert "x" not in module  # bound only inside the loop, after its start


def test_a_non_script_modules_module_level_loop_stays_a_for_loop(sandbox):
    observations = _observations(sandbox, COUNTER, COUNTER_STDINS)
    for name in ("for-to-while", "peel-loop"):
        res = get_transform(name).apply(Program(COUNTER), 0, observations=observations)
        assert not res.applied and "loop at module level" in res.reason
        assert res.source == COUNTER


def test_a_script_reading_its_namespace_by_name_keeps_its_module_level_loops():
    code = "n = int(input())\nfor i in range(n):\n    print(globals()['i'])\n"
    res = get_transform("for-to-while").apply(Program(code, script=True), 0)
    assert not res.applied and "may read its namespace by name (globals)" in res.reason


def test_a_function_rebinding_the_counter_makes_the_counter_loop_give_way(sandbox):
    """No counter form (skip() would step the counter), and no iter()/next() over the range."""
    code = ("n = int(input())\ndef skip():\n    global i\n    i = i + 1\nfor i in range(n):\n"
            "    if i == 1:\n        skip()\n    print(i)\n")
    stdins = ["3\n", "0\n", "5\n"]
    res = get_transform("for-to-while").apply(Program(code, script=True), 0,
                                             observations=_observations(sandbox, code, stdins))
    assert not res.applied and "i is a global skip() uses" in res.reason


def test_loops_in_a_scripts_functions_and_module_share_fresh_names_soundly(sandbox):
    code = ("def total(xs):\n    t = 0\n    for x in xs:\n        t += x\n    return t\n"
            "ys = list(map(int, input().split()))\nfor y in ys:\n    print(y, total(ys))\n")
    stdins = ["1 2 3\n", "\n", "4\n"]
    res = get_transform("for-to-while").apply(Program(code, script=True), 0,
                                             observations=_observations(sandbox, code, stdins))
    assert res.source == ("def total(xs):\n    t = 0\n    i = 0\n    while i < len(xs):\n        x = xs[i]\n"
                          "        t += x\n        i += 1\n    return t\n"
                          "ys = list(map(int, input().split()))\ni = 0\nwhile i < len(ys):\n    y = ys[i]\n"
                          "    print(y, total(ys))\n    i += 1\n")
    _same_stdout(sandbox, code, res.source, stdins)
