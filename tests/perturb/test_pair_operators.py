"""Tests of the operators added to reach what single-edit and random mutation missed on
CRUXEval: two-edit mutants (a priority neighbour combined with the simplest neighbour of
another argument), coordinated resizes and copies of same-typed arguments, containers and
template characters given to arguments that are empty in the seed, the null character in
a codec name, and template fields supplied by a mapping argument.

Each is shown, on a small program written for it, finding an input that the search without
it does not find at the same budget.  Programs run only in the sandbox.
"""

from __future__ import annotations

import importlib

import pytest

from codemorph.inputs import parse_args
from codemorph.perturb import Budget, search
from codemorph.inputs import mutation as mutation_mod
from codemorph.inputs.mutation import MutationSpace, is_type_changing
from codemorph.perturb.search import CODEC_TOKENS, program_elements, program_tokens, search_limits
from codemorph.engine.program import Program
from codemorph.sandbox.pool import Sandbox

search_mod = importlib.import_module("codemorph.perturb.search")

BUDGET = Budget(executions=300, seconds=60)


@pytest.fixture(scope="module")
def sandbox():
    with Sandbox(search_limits()) as sb:
        yield sb


def _found(sandbox, code: str, seed: str, target: str) -> list:
    return search(code, seed, target, BUDGET, sandbox=sandbox, max_results=1)


def _summary(p) -> tuple:
    outcome = p.output if p.status == "returned" else (p.exception.type, p.exception.message, p.exception.line)
    return p.input, outcome, p.distance, p.type_changing


# -- which programs get which tokens -------------------------------------------------------

def test_codec_tokens_and_percent_elements_only_where_the_program_needs_them():
    assert program_tokens(Program("def f(t, e):\n    return t.encode(e)\n").module) == list(CODEC_TOKENS)
    assert program_tokens(Program("def f(t):\n    return t.encode('ascii')\n").module) == []
    assert program_tokens(Program("def f(b, e):\n    return b.decode(errors=e)\n").module) == list(CODEC_TOKENS)
    assert program_elements(Program("def f(d):\n    return [k % 2 for k in d]\n").module) == ["%"]
    assert program_elements(Program("def f(n):\n    return 7 % n\n").module) == []


# -- an element container for an argument that is empty in the seed ------------------------

NESTED_CODE = ("def f(vectors):\n"
               "    out = []\n"
               "    for vec in vectors:\n"
               "        vec.sort()\n"
               "        out.append(vec)\n"
               "    return out\n")


def test_empty_list_gets_a_list_element(sandbox, monkeypatch):
    # an int or str element raises AttributeError (no ``sort``); only a container element
    # returns normally with another output
    found = _found(sandbox, NESTED_CODE, "[]", "output-change")
    assert [_summary(p) for p in found] == [("[[]]", "[[]]", 1, False)]
    monkeypatch.setattr(mutation_mod, "NESTED_FILL", ())
    assert _found(sandbox, NESTED_CODE, "[]", "output-change") == []


# -- coordinated resize and copy ----------------------------------------------------------

COORD_CODE = ("def f(a, b):\n"
              "    if len(a) < 6 or len(b) < 6:\n"
              "        return 'short'\n"
              "    for i in range(4):\n"
              "        if a[i] != b[i]:\n"
              "            return 'short'\n"
              "    return a + b\n")


def test_coordinated_resize_and_copy(sandbox, monkeypatch):
    # both lists must reach the length the program names and agree on their first four
    # items: ``b`` becomes ``a`` resized to 6, ``a`` too (shrunk toward the seed afterwards)
    seed = "[1, 2, 3], [3, 2, 1]"
    args = parse_args(seed)
    coord = list(MutationSpace(args, [6, 4]).priority_neighbours(args))
    assert ([1, 2, 3, 1, 2, 3], [1, 2, 3, 1, 2, 3]) in [tuple(c[0]) for c in coord]
    assert not any(is_type_changing(args, c) for c in coord)
    found = _found(sandbox, COORD_CODE, seed, "output-change")
    assert [_summary(p) for p in found] == [
        ("[1, 2, 3, 1, 2, 3], [1, 2, 3, 1, 2, 1]", "[1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 1]", 6, False)]
    monkeypatch.setattr(MutationSpace, "_coordinated", lambda self, *a: iter(()))
    assert _found(sandbox, COORD_CODE, seed, "output-change") == []


# -- two-edit mutants ---------------------------------------------------------------------

PAIR_CODE = ("def f(text, suffix, num):\n"
             "    return text.endswith(suffix + str(num))\n")


def test_two_edit_mutant_passes_a_guard_over_two_arguments(sandbox, monkeypatch):
    # ``text`` must end with ``suffix + str(num)``: ``text + str(num)`` (a cross-argument
    # value) together with an empty ``suffix`` (its first neighbour)
    seed = "'hello world', 'ab', 7"
    args = parse_args(seed)
    space = MutationSpace(args, ())
    pairs = list(space.paired_neighbours(args, space.priority_neighbours(args)))
    assert (["hello world7", "", 7], {}) in pairs
    found = _found(sandbox, PAIR_CODE, seed, "output-change")
    assert [_summary(p) for p in found] == [("'hello world7', '', 7", "True", 3, False)]
    monkeypatch.setattr(search_mod, "PAIR_SHARE", 0.0)
    assert _found(sandbox, PAIR_CODE, seed, "output-change") == []


# -- null character in a codec name -------------------------------------------------------

CODEC_CODE = ("def f(text, enc):\n"
              "    try:\n"
              "        return text.encode(enc)\n"
              "    except LookupError:\n"
              "        return b''\n")


def test_null_character_in_a_codec_name_raises_value_error(sandbox, monkeypatch):
    # any other misspelt codec name raises LookupError, which the program catches
    found = _found(sandbox, CODEC_CODE, "'abc', 'ascii'", "ValueError")
    assert [_summary(p) for p in found] == [("'abc', '\\x00ascii'", ("ValueError", "embedded null character", 3), 1,
                                             False)]
    monkeypatch.setattr(search_mod, "CODEC_TOKENS", ())
    assert _found(sandbox, CODEC_CODE, "'abc', 'ascii'", "ValueError") == []


# -- '%' as the key of a dict that is empty in the seed -----------------------------------

PERCENT_CODE = ("def f(d):\n"
                "    out = {}\n"
                "    for k in d:\n"
                "        out[k] = k % 3\n"
                "    return out\n")


def test_percent_key_formats_instead_of_dividing(sandbox, monkeypatch):
    # the seed shows no key type: a str key turns ``k % 3`` into string formatting ('a'
    # raises TypeError, '%' ValueError)
    found = _found(sandbox, PERCENT_CODE, "{}", "ValueError")
    assert [_summary(p) for p in found] == [("{'%': 0}", ("ValueError", "incomplete format", 4), 1, False)]
    monkeypatch.setattr(search_mod, "program_elements", lambda module: [])
    assert _found(sandbox, PERCENT_CODE, "{}", "ValueError") == []


# -- a template field supplied by a mapping argument --------------------------------------

FIELD_CODE = ("def f(t, m):\n"
              "    for k in m:\n"
              "        return t.format_map(m)\n"
              "    return t\n")


def test_mapping_supplies_the_template_field(sandbox, monkeypatch):
    # ``'{a[9]}'`` in the template and a short value under ``'a'`` in the mapping: two
    # coordinated edits on two arguments
    found = _found(sandbox, FIELD_CODE, "'x', {}", "IndexError")
    assert [_summary(p) for p in found] == [("'x{a[9]}', {'a': []}", ("IndexError", "list index out of range", 3), 7,
                                             False)]
    monkeypatch.setattr(mutation_mod, "_field_names", lambda template: [])
    assert _found(sandbox, FIELD_CODE, "'x', {}", "IndexError") == []


# -- coordinated fills of arguments that are all empty in the seed ------------------------

FILL_CODE = ("def f(names, order):\n"
             "    out = []\n"
             "    for n in order:\n"
             "        partner = order[names.index(n)]\n"
             "        if partner != n:\n"
             "            out.append(partner)\n"
             "    return out\n")


def test_coordinated_fills_of_empty_seed_lists():
    args = parse_args("[], []")
    fills = [tuple(c[0]) for c in MutationSpace(args, ()).priority_neighbours(args)]
    # fill values 0, 1, 'a' (one str: its successor 'b' is the second value)
    assert fills == [
        ([0], [0]), ([0, 1], [0, 1]), ([1, 0], [0, 1]), ([0, 1], [1, 0]), ([0], [1]), ([1], [0]),
        (["a"], ["a"]), (["a", "b"], ["a", "b"]), (["b", "a"], ["a", "b"]), (["a", "b"], ["b", "a"]),
        (["a"], ["b"]), (["b"], ["a"])]
    assert not any(is_type_changing(args, (list(c), {})) for c in fills)
    # one empty list (or a non-empty one) has no partner to be filled with
    one = parse_args("[], [1]")
    assert list(MutationSpace(one, ()).priority_neighbours(one)) == [([[1], [1]], {})]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_coordinated_fills_reach_a_permutation(sandbox, monkeypatch, seed):
    # every element of ``order`` must be in ``names`` (else ValueError) and sit at another
    # position there (else ``partner == n``): both lists filled, one permuted
    budget = Budget(executions=300, seconds=60)
    found = search(FILL_CODE, "[], []", "output-change", budget, seed, sandbox=sandbox, max_results=1)
    assert [_summary(p) for p in found] == [("[0, 1], [1, 0]", "[0, 1]", 4, False)]
    monkeypatch.setattr(MutationSpace, "_coordinated_fills", lambda self, *a: iter(()))
    assert search(FILL_CODE, "[], []", "output-change", budget, seed, sandbox=sandbox, max_results=1) == []
