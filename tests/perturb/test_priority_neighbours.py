"""Tests of the priority neighbours added to reach CRUXEval's remaining exception sites:
template tokens (a string argument used as a ``str.format`` template) and cross-argument
values (one argument takes a value from another).

Each operator is shown finding, on a small program written for it, what the search without
it does not find at the same budget.  Programs run only in the sandbox.
"""

from __future__ import annotations

import importlib

import pytest

from codemorph.inputs import parse_args
from codemorph.perturb import Budget, search
from codemorph.inputs.mutation import MutationSpace, is_type_changing
from codemorph.perturb.search import FORMAT_TOKENS, PERCENT_TOKENS, program_tokens, search_limits
from codemorph.engine.program import Program
from codemorph.sandbox.pool import Sandbox

# the module (``codemorph.perturb.search`` the attribute is the function)
search_mod = importlib.import_module("codemorph.perturb.search")


@pytest.fixture(scope="module")
def sandbox():
    with Sandbox(search_limits()) as sb:
        yield sb


def _priority(seed: str, tokens=()) -> list:
    args = parse_args(seed)
    return list(MutationSpace(args, (), tokens=tokens).priority_neighbours(args))


# -- which programs get template tokens ---------------------------------------------------

def test_program_tokens_only_for_non_literal_templates():
    assert program_tokens(Program("def f(t, n):\n    return t.format(n)\n").module) == list(FORMAT_TOKENS)
    assert program_tokens(Program("def f(n):\n    return '{}'.format(n)\n").module) == []
    assert program_tokens(Program("def f(t, d):\n    return t % d\n").module) == list(PERCENT_TOKENS)
    assert program_tokens(Program("def f(n):\n    return n % 2\n").module) == []   # arithmetic


def test_priority_neighbours_are_type_preserving():
    seed = "'kiwi', {'apple': 0, 'pear': 3}, ['ab', 'kiwi'], 4"
    ns = _priority(seed, tokens=FORMAT_TOKENS)
    args = parse_args(seed)
    assert ns and not any(is_type_changing(args, n) for n in ns)
    assert (["apple", {"apple": 0, "pear": 3}, ["ab", "kiwi"], 4], {}) in ns      # a key of the dict
    assert (["kiwi", {"apple": 0, "pear": 3}, ["ab"], 4], {}) in ns               # 'kiwi' removed from the list
    assert (["kiwi", {"apple": 0, "pear": 3, "kiwi": 3}, ["ab", "kiwi"], 4], {}) in ns  # 'kiwi' as a key
    assert (["kiwi{a}", {"apple": 0, "pear": 3}, ["ab", "kiwi"], 4], {}) in ns    # a template token
    assert (["kiwi", {"apple": 0, "pear": 3}, ["ab", "kiwi"], -3], {}) in ns      # -len(list) - 1


# -- each operator finds what the search without it does not ------------------------------

FORMAT_CODE = ("def f(text, n):\n"
               "    return text.format(n).upper()\n")


@pytest.mark.parametrize("target, expected_input, message", [
    ("KeyError", "'abc{a}', 3", "'a'"),
    ("IndexError", "'abc{9}', 3", "Replacement index 9 out of range for positional args tuple"),
    ("ValueError", "'abc{', 3", "Single '{' encountered in format string"),
])
def test_template_tokens_reach_format_errors(sandbox, monkeypatch, target, expected_input, message):
    budget = Budget(executions=300, seconds=60)
    found = search(FORMAT_CODE, "'abc', 3", target, budget, sandbox=sandbox, max_results=1)
    assert found, target
    p = found[0]
    assert (p.input, p.exception.type, p.exception.message, p.exception.line) == (expected_input, target, message, 2)
    assert p.strategy == "mutation" and not p.type_changing
    # without the tokens no character of the seed or the program is a brace: nothing found
    monkeypatch.setattr(search_mod, "program_tokens", lambda module: [])
    assert search(FORMAT_CODE, "'abc', 3", target, budget, sandbox=sandbox, max_results=1) == []


CROSS_CODE = ("def f(item, prices):\n"
              "    if item in prices:\n"
              "        return 100 // prices[item]\n"
              "    return -1\n")


def test_cross_argument_value_reaches_a_guarded_division(sandbox, monkeypatch):
    # only an ``item`` that is a key of ``prices`` passes the guard, and only 'apple' has a
    # zero price: 'kiwi' -> 'apple' is five character edits away; the cross-argument step
    # that adds ``item`` as a key with the first value is one edit
    budget = Budget(executions=300, seconds=60)
    seed = "'kiwi', {'apple': 0, 'pear': 4}"
    found = search(CROSS_CODE, seed, "ZeroDivisionError", budget, sandbox=sandbox, max_results=1)
    assert found
    p = found[0]
    assert (p.input, p.exception.type, p.exception.message, p.exception.line) == \
        ("'kiwi', {'apple': 0, 'pear': 4, 'kiwi': 0}", "ZeroDivisionError", "integer division or modulo by zero", 3)
    assert p.distance == 1 and not p.type_changing
    out = search(CROSS_CODE, seed, "output-change", budget, sandbox=sandbox, max_results=20)
    assert ("'pear', {'apple': 0, 'pear': 4}", "25") in [(x.input, x.output) for x in out]
    # without cross-argument values: at best the chance find of an empty item and an
    # added empty key (distance 5), late in the budget
    monkeypatch.setattr(MutationSpace, "priority_neighbours", lambda self, args: iter(()))
    old = search(CROSS_CODE, seed, "ZeroDivisionError", budget, sandbox=sandbox, max_results=1)
    assert old == [] or (old[0].distance > 1 and old[0].executions > 100)


# -- dict singleton -----------------------------------------------------------------------

SINGLE_CODE = ("def f(stock, item):\n"
               "    del stock[item]\n"
               "    return min(stock)\n")


def test_dict_singleton_reaches_an_empty_min(sandbox):
    # ``min`` of the dict left after the deletion raises only when ``item`` was the only
    # key: three deletions away from the seed, one singleton step
    seed = "{'b': 1, 'a': 2, 'c': 3, 'd': 4}, 'a'"
    args = parse_args(seed)
    singles = [n for n in MutationSpace(args, ()).neighbours(args) if len(n[0][0]) == 1]
    assert [n[0][0] for n in singles] == [{"b": 1}, {"a": 2}, {"c": 3}, {"d": 4}]
    found = search(SINGLE_CODE, seed, "ValueError", Budget(executions=120, seconds=60), sandbox=sandbox,
                   max_results=1)
    assert found
    p = found[0]
    assert (p.input, p.exception.type, p.exception.message, p.exception.line, p.distance) == \
        ("{'a': 2}, 'a'", "ValueError", "min() arg is an empty sequence", 3, 3)
