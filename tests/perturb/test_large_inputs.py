"""Tests of the perturbation search on inputs it used to choke on: type-changing mutation of
dict keys (unhashable keys), long sequences (neighbour generation and ranking must stay
near-linear in the input's size), and the deterministic Z3 budget.

Programs run only in the sandbox; the mutation and distance code is tested on values.
"""

from __future__ import annotations

import itertools
import random
import time

import pytest


from codemorph.inputs import parse_args
from codemorph.perturb import Budget, search_many
from codemorph.inputs.mutation import MutationSpace, is_type_changing
from codemorph.perturb.search import search_limits
from codemorph.sandbox.pool import ExecRequest, Sandbox

#: CRUXEval sample_6: a dict argument whose keys a type-changing step may turn into a list
SAMPLE_6 = ("def f(dic):\n"
            "    for k,v in sorted(dic.items(), key=lambda x: len(str(x)))[:-1]:\n"
            "        dic.pop(k)\n"
            "    return list(dic.items())")
SAMPLE_6_INPUT = "{'11': 52, '65': 34, 'a': 12, '4': 52, '74': 31}"


@pytest.fixture(scope="module")
def sandbox():
    with Sandbox(search_limits()) as sb:
        yield sb


# -- type-changing mutation of containers ------------------------------------------------

def test_type_changing_steps_on_dict_keys_and_set_elements_never_raise():
    # a key replaced by ``[]`` or ``{}`` used to be tested with ``in d`` before its
    # hashability: ``TypeError: unhashable type: 'list'`` (16 of these 2,000 draws)
    seed = ([{"11": 52, "65": 34, "a": 12, "4": 52, "74": 31}, {1, 2, 3}, [("a", 1)]], {"k": {"x": [1]}})
    space = MutationSpace(seed, (7, "z"), allow_type_change=True)
    rng = random.Random(0)
    changed = 0
    for _ in range(2000):
        m = space.mutate(seed, rng, steps=2)
        changed += is_type_changing(seed, m)
        for d in (m[0][0], m[1]["k"]):
            if isinstance(d, dict):
                assert all(isinstance(hash(k), int) for k in d)
    assert changed > 100  # the type-changing operator did run
    for m in itertools.islice(space.neighbours(seed), 3000):
        for k in (m[0][0] if isinstance(m[0][0], dict) else ()):
            hash(k)
    list(space.priority_neighbours(seed))


def test_type_changing_search_on_a_dict_input(sandbox):
    report = search_many(SAMPLE_6, SAMPLE_6_INPUT, ["output-change", "any-exception"],
                         Budget(executions=300, seconds=120), allow_type_change=True, sandbox=sandbox)
    found = report.found["any-exception"]
    assert found, "a non-dict argument makes dic.items() raise"
    for p in found:
        o = sandbox.run(ExecRequest(SAMPLE_6, "f", p.input))
        assert o.status == "raised" and o.exception.type == p.exception.type


# -- long inputs: neighbour generation and ranking --------------------------------------

def _reference_levenshtein(a, b, sub=lambda x, y: 1):
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            same = type(x) is type(y) and x == y
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (0 if same else sub(x, y))))
        prev = cur
    return prev[-1]


def test_banded_levenshtein_is_exact_on_short_pairs():
    from codemorph.perturb.distance import levenshtein, value_distance
    rng = random.Random(3)
    for _ in range(300):
        a = [rng.choice("abc") for _ in range(rng.randint(0, 70))]
        b = list(a)
        for _ in range(rng.choice((0, 1, 2, 5, 12, 30))):
            p = rng.randint(0, len(b))
            r = rng.random()
            if r < 0.3 and b:
                del b[min(p, len(b) - 1)]
            elif r < 0.6:
                b.insert(p, rng.choice("abcd"))
            elif b:
                b[min(p, len(b) - 1)] = rng.choice("abcd")
        if rng.random() < 0.2:
            b.reverse()
        assert levenshtein("".join(a), "".join(b)) == _reference_levenshtein(a, b)
        la = [[x] if i % 3 == 0 else x for i, x in enumerate(a)]
        lb = [[x] if i % 4 == 0 else x for i, x in enumerate(b)]
        assert value_distance(la, lb) == _reference_levenshtein(la, lb, lambda x, y: min(2, value_distance(x, y)))


def test_two_edits_in_a_long_list_are_distance_two():
    from codemorph.perturb.distance import value_distance
    xs = list(range(2000))
    ys = list(xs)
    ys[100], ys[1900] = -1, -2
    # before: the 1,800-element middle exceeded the alignment's cell limit and counted 1,801
    assert value_distance(xs, ys) == 2
    assert value_distance("a" * 5000, "a" * 2000 + "b" + "a" * 2999) == 1
    assert value_distance(xs, xs[::-1]) == 2000  # far pairs: an upper bound, cheaply


def test_eq_key_agrees_with_equality():
    from codemorph.inputs.mutation import _eq_key
    values = [1, True, 1.0, 0, False, "1", (1,), [1], [True], (True,), [1, [2]], [1, (2,)], {1: "a"}, {True: "a"},
              {1: ["a"]}, {1: ("a",)}, {1, 2}, frozenset({1, 2}), [], (), {}, set(), None, b"1", float("nan")]
    for a in values:
        for b in values:
            assert (_eq_key(a) == _eq_key(b)) == (a == b), (a, b)


def test_neighbours_of_a_long_list_are_capped_and_distinct():
    from codemorph.perturb.distance import args_distance
    from codemorph.inputs.mutation import LONG_NEIGHBOURS
    seed = ([list(range(2000))], {})
    space = MutationSpace(seed, (0, 1))
    t0 = time.process_time()
    nbs = list(space.neighbours(seed))
    assert len(nbs) == LONG_NEIGHBOURS
    assert len({repr(n) for n in nbs}) == len(nbs)
    # deletions at the first 16, the last 16 and 16 evenly spaced positions
    deleted = [next(i for i, (a, b) in enumerate(zip(seed[0][0], n[0][0] + [None])) if a != b)
               for n in nbs if len(n[0][0]) == 1999 and args_distance(seed, n) == 1]
    deleted = sorted(deleted)
    assert deleted[:16] == list(range(16)) and deleted[-16:] == list(range(1984, 2000)) and len(deleted) == 48
    assert time.process_time() - t0 < 30  # was minutes (a linear scan per neighbour)
    # a short list still gets every position
    short = ([list(range(10))], {})
    assert sum(1 for n in MutationSpace(short).neighbours(short) if len(n[0][0]) == 9) == 10


def test_search_on_a_2000_element_list_finishes(sandbox):
    code = "def f(xs):\n    t = 0\n    for x in xs:\n        t += x\n    return t\n"
    seed = repr(list(range(2000)))
    report = search_many(code, seed, ["output-change"], Budget(executions=120, seconds=300), sandbox=sandbox)
    found = report.found["output-change"]
    assert found and found[0].distance == 1
    assert report.executions <= 120


def test_shrinking_a_far_mutant_of_a_long_list_is_bounded():
    from codemorph.perturb.distance import args_distance
    from codemorph.perturb.shrink import LONG_EDITS, toward
    seed = ([list(range(2000))], {})
    found = ([list(range(2000))[::-1]], {})  # 2,000 replacements from the seed
    cands = toward(seed, found)
    # undo half of the edits (2), one edit at LONG_EDITS spread positions, each moved toward
    # the seed (int candidates): not one per element (was 2,000 x 4 candidates of 2,000 items)
    assert 0 < len(cands) <= 2 + 4 * LONG_EDITS
    d = args_distance(seed, found)
    assert all(args_distance(seed, c) <= d for c in cands)
    # a short list still undoes every edit
    from codemorph.perturb.shrink import alignment
    xs = list(range(60))
    edits = sum(op[0] != "keep" for op in alignment(xs, xs[::-1], nested=True))
    assert edits > LONG_EDITS
    undone = [c for c in toward(([xs], {}), ([xs[::-1]], {})) if args_distance(([xs], {}), c) == 59]
    assert len(undone) >= edits


# -- Z3: a deterministic budget ----------------------------------------------------------

LOOP_BOUND = "def f(nums, n):\n    total = 0\n    for i in range(n):\n        total += nums[i]\n    return total\n"


def test_z3_budget_is_work_not_time():
    from codemorph.perturb.symbolic import z3_candidates
    from codemorph.engine.program import Program
    seed = ([[1, 2, 3], 2], {})
    cands = z3_candidates(Program(LOOP_BOUND), seed)
    # the list shrunk below the loop bound, nearest first (the tests' loop runs past its end)
    assert cands == [([[1], 2], {}), ([[1, 2], 3], {})]
    # the resource limit bounds the solver (a wall-clock limit would make this load-dependent)
    assert z3_candidates(Program(LOOP_BOUND), seed, rlimit=1) == []
    assert z3_candidates(Program(LOOP_BOUND), seed, rlimit_total=1) == []
    assert z3_candidates(Program(LOOP_BOUND), seed, rlimit=10**9, timeout_ms=10**7) == cands


def test_z3_costliest_cruxeval_program_is_within_the_limit():
    from codemorph.perturb.symbolic import Z3_RLIMIT, z3_candidates
    from codemorph.engine.program import Program
    sample_691 = ("def f(text, suffix):\n    if suffix and suffix[-1] in text:\n"
                  "        return f(text.rstrip(suffix[-1]), suffix[:-1])\n    else:\n        return text")
    seed = parse_args("'rpyttc', 'cyt'")
    cands = z3_candidates(Program(sample_691), seed)
    assert cands and cands == z3_candidates(Program(sample_691), seed, rlimit=20 * Z3_RLIMIT, timeout_ms=10**7)
