"""Tests of codemorph.inputs: parsing, formatting and type-preserving mutation."""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codemorph import InputError
from codemorph.inputs import MAX_GROWTH, format_args, format_value, mutate_args, parse_args
from codemorph.inputs import type_paths as module_type_paths
from paths import CRUXEVAL, needs_shared

CRUX = CRUXEVAL


# ------------------------------------------------------------------------- helpers
def same(a, b) -> bool:
    """Type-exact structural equality, NaN equal to NaN, signed zeros distinct."""
    if type(a) is not type(b):
        return False
    if type(a) is float:
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    if type(a) is complex:
        return same(a.real, b.real) and same(a.imag, b.imag)
    if type(a) in (list, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if type(a) is dict:
        return len(a) == len(b) and all(same(k1, k2) and same(v1, v2)
                                        for (k1, v1), (k2, v2) in zip(a.items(), b.items()))
    if type(a) in (set, frozenset):
        return sorted(map(format_value, a)) == sorted(map(format_value, b))
    return a == b


def type_paths(v, prefix=()) -> set:
    """Every root-to-node path of type names, e.g. {("list",), ("list", "int")}."""
    p = prefix + (type(v).__name__,)
    out = {p}
    if type(v) in (list, tuple, set, frozenset):
        for e in v:
            out |= type_paths(e, p)
    elif type(v) is dict:
        for k, x in v.items():
            out |= type_paths(k, p + ("key",))
            out |= type_paths(x, p + ("value",))
    return out


hashable = st.recursive(
    st.none() | st.booleans() | st.integers(-10**30, 10**30) | st.floats() | st.text(max_size=6)
    | st.binary(max_size=4),
    lambda c: st.tuples(c, c) | st.frozensets(c, max_size=3), max_leaves=5)
values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**30, 10**30) | st.floats() | st.text(max_size=8)
    | st.binary(max_size=6) | st.complex_numbers(),
    lambda c: st.lists(c, max_size=4) | st.tuples(c, c) | st.tuples(c)
    | st.dictionaries(hashable, c, max_size=3) | st.sets(hashable, max_size=3)
    | st.frozensets(hashable, max_size=3),
    max_leaves=8)
kwnames = st.sampled_from(["sep", "key", "n", "reverse"])


# ------------------------------------------------------------------------- parsing
def test_parse_args_positional_and_keyword():
    assert parse_args("'abc', [1, 2]") == (["abc", [1, 2]], {})
    assert parse_args("3, sep='-'") == ([3], {"sep": "-"})
    assert parse_args("") == ([], {})
    assert parse_args("(1, ), (1, ), (1, 2)") == ([(1,), (1,), (1, 2)], {})
    args, _ = parse_args("True, 1, 1.0, -0.0, None, b'x', 1+2j, {1: {2}}")
    assert [type(a) for a in args] == [bool, int, float, float, type(None), bytes, complex, dict]
    assert math.copysign(1, args[3]) == -1


def test_parse_args_special_forms():
    args, _ = parse_args("float('nan'), float('inf'), float('-inf'), set(), frozenset({1}), frozenset()")
    assert math.isnan(args[0]) and args[1] == math.inf and args[2] == -math.inf
    assert args[3] == set() and type(args[3]) is set
    assert args[4] == frozenset({1}) and type(args[4]) is frozenset and args[5] == frozenset()


@pytest.mark.parametrize("text, fragment", [
    ("1 +", "not a valid argument list"),
    ("x", "argument 1 of 'x' is not a literal: 'x' (a name is not a literal)"),
    ("1, os.name", "argument 2 of '1, os.name' is not a literal: 'os.name' (an attribute is not a literal)"),
    ("''.join('ab')", "argument 1 of \"''.join('ab')\" is not a literal"),
    ("print(1)", "calls are not allowed"),
    ("*[1, 2]", "unpacked with '*'"),
    ("**{'a': 1}", "unpacks keywords with '**'"),
    ("{[1]: 2}", "unhashable list used as a set element or dict key"),
    ("lambda: 1", "a lambda is not a literal"),
    ("1, key=[x]", "keyword argument 'key' of '1, key=[x]' is not a literal: 'x'"),
    ("1)", "not a valid argument list"),
    ("'a' + 'b'", "only complex literals"),
])
def test_input_error_messages(text, fragment):
    with pytest.raises(InputError) as info:
        parse_args(text)
    assert fragment in str(info.value)


def test_input_error_on_non_string():
    with pytest.raises(InputError, match="must be a string"):
        parse_args(3)  # type: ignore[arg-type]


# ---------------------------------------------------------------------- formatting
def test_format_args_special_values():
    text = format_args([float("nan"), float("inf"), -math.inf, set(), frozenset(), [set(), {1: (2,)}]],
                       {"k": (1,)})
    assert text == ("float('nan'), float('inf'), float('-inf'), set(), frozenset(), "
                    "[set(), {1: (2,)}], k=(1,)")
    args, kwargs = parse_args(text)
    assert same(args, [float("nan"), math.inf, -math.inf, set(), frozenset(), [set(), {1: (2,)}]])
    assert kwargs == {"k": (1,)}


def test_format_sets_canonically():
    assert format_value({"b", "a", "c"}) == "{'a', 'b', 'c'}"
    assert format_value({10, 9, 1}) == "{1, 9, 10}"
    assert format_value({1, "a", (2,)}) == "{1, 'a', (2,)}"


def test_format_rejects_non_literals():
    with pytest.raises(InputError, match="cannot write a object value"):
        format_args([object()])
    with pytest.raises(InputError, match="not an identifier"):
        format_args([], {"not valid": 1})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(values, max_size=4), st.dictionaries(kwnames, values, max_size=2))
def test_format_parse_round_trip(args, kwargs):
    text = format_args(args, kwargs)
    back_args, back_kwargs = parse_args(text)
    assert same(back_args, args)
    assert same(back_kwargs, kwargs)
    assert format_args(back_args, back_kwargs) == text


# ------------------------------------------------------------------------ mutation
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(values, min_size=1, max_size=3), st.dictionaries(kwnames, values, max_size=1),
       st.integers(0, 2**32), st.lists(st.integers(-5, 50) | st.text(max_size=5), max_size=3))
def test_mutants_preserve_types_and_sizes(args, kwargs, seed, literals):
    text = format_args(args, kwargs)
    mutants = mutate_args(text, 8, random.Random(seed), literals)
    assert len(mutants) == len(set(mutants)) <= 8
    assert text not in mutants
    for m in mutants:
        m_args, m_kwargs = parse_args(m)
        assert format_args(m_args, m_kwargs) == m and m != text
        assert len(m_args) == len(args) and list(m_kwargs) == list(kwargs)
        for seed_value, value in list(zip(args, m_args)) + [(kwargs[k], m_kwargs[k]) for k in kwargs]:
            assert type(value) is type(seed_value)
            assert type_paths(value) <= type_paths(seed_value), (seed_value, value)
            if hasattr(seed_value, "__len__"):
                assert len(value) <= len(seed_value) + MAX_GROWTH


def test_mutants_are_deterministic():
    text = "'hello world', [1, 2, 3], {'a': 1.5}, {'x', 'y', 'z'}"
    a = mutate_args(text, 20, random.Random(42), ["lo", 7])
    b = mutate_args(text, 20, random.Random(42), ["lo", 7])
    c = mutate_args(text, 20, random.Random(43), ["lo", 7])
    assert a == b and len(a) == 20
    assert a != c


def test_mutants_do_not_depend_on_hash_seed():
    code = ("import random; from codemorph.inputs import mutate_args; "
            "print(mutate_args(\"{'x', 'y', 'z', 'w'}, {'k', 'j'}\", 15, random.Random(5), {'ab', 'cd', 'ef'}))")
    outs = set()
    for hs in ("1", "2", "3"):
        env = dict(os.environ, PYTHONHASHSEED=hs)
        outs.add(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                check=True).stdout)
    assert len(outs) == 1


def test_mutant_operators_reach_expected_neighbours():
    ints = set(mutate_args("7", 50, random.Random(0), [100]))
    assert {"0", "1", "-1", "6", "8", "-7", "100", "99", "101"} <= ints
    strs = set(mutate_args("'ab'", 200, random.Random(0), ["needle"]))
    assert {"''", "'AB'", "'ba'", "'b'", "'a'"} <= strs
    assert any("needle" in s for s in strs)
    assert any(" " in s for s in strs)
    assert all(len(parse_args(s)[0][0]) <= len("ab") + MAX_GROWTH for s in strs)
    lists = {m for m in mutate_args("[1, 2]", 200, random.Random(0))}
    assert {"[]", "[2, 1]", "[1]", "[2]"} <= lists
    dicts = set(mutate_args("{'a': 1, 'b': 2}", 200, random.Random(0)))
    assert {"{}", "{'b': 2, 'a': 1}", "{'a': 1}", "{'b': 2}"} <= dicts
    assert "True" in mutate_args("False", 5, random.Random(0))


def test_lengths_from_program_literals():
    lengths = {len(parse_args(m)[0][0]) for m in mutate_args("'abcdefgh'", 200, random.Random(0), [3])}
    assert {2, 3, 4} <= lengths
    lengths = {len(parse_args(m)[0][0]) for m in mutate_args("[1, 2, 3, 4, 5, 6]", 200, random.Random(0), [9])}
    assert {8, 9, 10} <= lengths and max(lengths) <= 6 + MAX_GROWTH


def test_records_keep_their_shape():
    for m in mutate_args("(1, 'a', [2.5])", 60, random.Random(1)):
        (t,), _ = parse_args(m)
        assert [type(x) for x in t] == [int, str, list]


def test_no_mutants_for_values_without_neighbours():
    assert mutate_args("None", 10, random.Random(0)) == []
    assert mutate_args("[]", 10, random.Random(0)) == []
    assert mutate_args("", 10, random.Random(0)) == []
    assert mutate_args("[1]", 0, random.Random(0)) == []
    with pytest.raises(InputError):
        mutate_args("x", 3, random.Random(0))


@needs_shared("cruxeval", "cruxeval.jsonl")
def test_cruxeval_inputs_mutate():
    rows = [json.loads(line) for line in CRUX.open()]
    literal_rows = 0
    full = 0
    for row in rows:
        try:
            seed_args, seed_kwargs = parse_args(row["input"])
        except InputError:
            continue
        literal_rows += 1
        mutants = mutate_args(row["input"], 20, random.Random(0))
        full += len(mutants) == 20
        for m in mutants[:3]:
            m_args, _ = parse_args(m)
            assert [type(a) for a in m_args] == [type(a) for a in seed_args]
    assert literal_rows >= 780
    assert full >= 0.9 * literal_rows


# ------------------------------------------------------------- cross-argument mutation
def _mutant_values(text, n=300, seed=0, literals=()):
    return [parse_args(m)[0] for m in mutate_args(text, n, random.Random(seed), literals)]


def test_cross_index_boundaries_relative_to_another_argument():
    # ordinary int mutation of 100 gives 0, 1, -1, 95..105, -100, 200, 50: never 8, 9, -9, 10
    seed_list = list(range(9))
    indices = {i for xs, i in _mutant_values(f"{seed_list}, 100") if xs == seed_list}
    assert {-10, -9, -1, 0, 4, 8, 9, 10} <= indices
    # the boundary follows the container as mutated in the same mutant
    related = [(xs, i) for xs, i in _mutant_values(f"{seed_list}, 100") if xs != seed_list and i == len(xs) - 1]
    assert related


def test_cross_pick_key_substring_plant_and_equal():
    picked = {k for d, k in _mutant_values("{'alpha': 1, 'beta': 2}, 'zeta'") if d == {'alpha': 1, 'beta': 2}}
    assert {"alpha", "beta"} <= picked
    pairs = _mutant_values("'the quick fox', 'zz'")
    subs = {t for s, t in pairs if s == "the quick fox" and t and t in s}
    assert len(subs) >= 5 and all(len(t) <= len("zz") + MAX_GROWTH for t in subs)
    assert any(s != "the quick fox" and "zz" in s for s, t in pairs if t == "zz")  # planted
    assert ["abc", "abc"] in _mutant_values("'abc', 'xyz'") or ["xyz", "xyz"] in _mutant_values("'abc', 'xyz'")
    planted = [xs for xs, x in _mutant_values("[5, 6, 7], 42") if x == 42 and 42 in xs]
    assert planted and all(len(xs) <= 3 + MAX_GROWTH for xs in planted)
    in_dict = [d for d, k in _mutant_values("{'a': [1], 'b': [2]}, 'q'") if k == "q" and "q" in d]
    assert in_dict and all(type(v) is list for d in in_dict for v in d.values())


def test_cross_mutants_keep_types_for_nested_sources():
    # an element picked from a list of lists has the type paths of the seed's list argument only
    for xs, ys in _mutant_values("[[1, 2], [3]], [4]", 200, 3):
        assert type_paths(ys) <= type_paths([4]) and len(ys) <= 1 + MAX_GROWTH
        assert type_paths(xs) <= type_paths([[1, 2], [3]])
    # a str argument never receives a list element of another type
    for s, xs in _mutant_values("'ab', [1, 2]", 200, 4):
        assert type(s) is str and all(type(x) is int for x in xs)


def test_cross_share_applies_to_multi_argument_seeds_only(monkeypatch):
    import codemorph.inputs.mutation as inputs
    normal = mutate_args("[1, 2, 3]", 30, random.Random(9))
    pair = mutate_args("[1, 2, 3], 7", 30, random.Random(9))
    monkeypatch.setattr(inputs, "CROSS_SHARE", 1.0)
    # one argument: no cross operator, the same stream of ordinary mutants
    assert mutate_args("[1, 2, 3]", 30, random.Random(9)) == normal
    only_cross = mutate_args("[1, 2, 3], 7", 30, random.Random(9))
    assert only_cross != pair
    monkeypatch.setattr(inputs, "CROSS_SHARE", 0.0)
    assert mutate_args("[1, 2, 3], 7", 30, random.Random(9)) != pair


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values)
def test_module_type_paths_agree(v):
    assert module_type_paths(v) == type_paths(v)


def test_cross_substring_of_an_element():
    # startswith/endswith bugs need a prefix (not a suffix) of an element of the list argument
    pairs = _mutant_values("['condor', 'eyes'], 'q'")
    prefixes = {t for xs, t in pairs if xs == ["condor", "eyes"] and any(x.startswith(t) for x in xs)}
    assert any(not any(x.endswith(t) for x in ["condor", "eyes"]) for t in prefixes)


def test_edge_cases_of_a_row_with_many_arguments_stay_bounded():
    # edge cases relate the first 8 arguments only and vary the first 32: a 250-argument row
    # gets the same cross/pairs candidates as an 8-argument one (without the bound, their
    # number grew with the square of the argument count and generate spent minutes here)
    import random

    from codemorph.inputs import edge_cases, mutate_args

    def cands(n):
        text = ", ".join(f"'a{i}'" if i % 2 else str(i) for i in range(n))
        return text, {c: len(v) for c, v in edge_cases(text, ["x", 3]).items()}

    _, eight = cands(8)
    text, many = cands(250)
    assert all(many[c] == eight[c] for c in ("cross", "index", "relate", "pairs"))
    # the per-argument categories grow at most linearly with the argument count
    assert all(many[c] <= 250 / 8 * eight[c] * 2 for c in many if c not in ("cross", "index", "relate", "pairs"))
    out = mutate_args(text, 49, random.Random(0), ["x", 3])
    assert len(out) == 49 and len(set(out)) == 49 and text not in out
