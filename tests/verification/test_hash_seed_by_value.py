"""The hash-seed check of a baseline compares results by value: a set of strings whose repr
lists its elements in another order under another ``PYTHONHASHSEED`` is the same result (a
harness compares with ``==``); a result whose value follows the set's order (a list, a
string, a dict, the first element), or output printed in that order, still makes the
baseline hash-sensitive; and a result that differs between any two processes (their work
directory) is called nondeterministic, not blamed on the hash seed."""

from __future__ import annotations

import pytest

from codemorph import Program
from codemorph.sandbox.kinds import request_for
from codemorph.sandbox.pool import Limits, Sandbox
from codemorph.verification import hash_stable, make_baseline

LIM = Limits(timeout=5.0, grace=0.3, memory=512 * 1024**2)
AGREED = "a run under PYTHONHASHSEED=0 in another process agreed with the first)"


@pytest.fixture(scope="module")
def sb():
    with Sandbox(LIM) as box:
        yield box


@pytest.mark.parametrize("code, text, shown", [
    ("def f(s):\n    return set(s.split())\n", "'a b c'", "{'c', 'a', 'b'}"),
    ("def f(s):\n    return frozenset(s.split()), {w: set(w) for w in s.split()}\n", "'ab cd ef'",
     "(frozenset({'ab', 'ef', 'cd'}), {'ab': {'a', 'b'}, 'cd': {'d', 'c'}, 'ef': {'e', 'f'}})"),
])
def test_a_set_of_strings_shown_in_another_order_is_the_same_result(sb, code, text, shown):
    base = make_baseline(sb, Program(code), [text], extra_inputs=2, check_hash_seed=5)
    assert (base.hash_sensitive, base.nondeterministic, base.reason) == (False, False, None)
    assert base.outcomes[0].value_repr == shown  # seed 0's text, what a row records


@pytest.mark.parametrize("code, text, why", [
    ("def f(s):\n    return list(set(s.split()))\n", "'a b c d'",
     "return value: first run ['d', 'c', 'a', 'b'], second run ['d', 'a', 'b', 'c'] (under PYTHONHASHSEED=1; "),
    ("def f(s):\n    return ''.join(set(s))\n", "'abcdef'",
     "return value: first run 'dfbcae', second run 'deabcf' (under PYTHONHASHSEED=1; "),
    ("def f(s):\n    return next(iter(set(s)))\n", "'abcdef'",
     "return value: first run 'd', second run 'b' (under PYTHONHASHSEED=2; "),
    ("def f(s):\n    return {c: 1 for c in set(s)}\n", "'abcdef'",
     "return value: first run {'d': 1, 'f': 1, 'b': 1, 'c': 1, 'a': 1, 'e': 1}, second run {'d': 1, 'e': 1, 'a': 1, "
     "'b': 1, 'c': 1, 'f': 1} (under PYTHONHASHSEED=1; "),
    ("def f(s):\n    print(set(s))\n    return 1\n", "'abcdef'",
     "stdout: first run \"{'d', 'f', 'b', 'c', 'a', 'e'}\\n\", second run \"{'d', 'e', 'a', 'b', 'c', 'f'}\\n\" "
     "(under PYTHONHASHSEED=1; "),
])
def test_a_value_that_follows_the_set_order_is_still_hash_sensitive(sb, code, text, why):
    base = make_baseline(sb, Program(code), [text], extra_inputs=2, check_hash_seed=5)
    assert (base.hash_sensitive, base.nondeterministic) == (True, False)
    assert base.reason == f"depends on PYTHONHASHSEED on input {text}: {why}{AGREED}"


def test_a_result_that_differs_between_processes_is_nondeterministic_not_hash_sensitive(sb):
    base = make_baseline(sb, Program("def f(s):\n    return s\n"), ['__import__("os").getcwd()'], extra_inputs=0,
                         check_hash_seed=5)
    assert (base.hash_sensitive, base.nondeterministic) == (False, True)
    head = 'nondeterministic on input __import__("os").getcwd(): return value: first run \'/tmp/codemorph-sandbox-'
    assert base.reason.startswith(head), base.reason
    assert base.reason.endswith("/work' (two runs under the same PYTHONHASHSEED=0 in separate processes)")


def test_hash_stable_compares_literal_results_by_value(sb):
    codes = {"set": "def f(s):\n    return set(s.split())\n", "list": "def f(s):\n    return list(set(s.split()))\n"}
    got = {}
    for name, code in codes.items():
        first = sb.run_batch([request_for(code, "f", "args", "'a b c d'")])
        got[name] = hash_stable(sb, code, "f", ["'a b c d'"], first)
    assert got == {"set": [True], "list": [False]}
