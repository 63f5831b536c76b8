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
from codemorph.perturb.mutation import MutationSpace, is_type_changing
from codemorph.perturb.search import search_limits
from codemorph.sandbox import ExecRequest, Sandbox

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
    # hashability: ``TypeError: unhashable type: 'list'`` (19 of these 2,000 draws)
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
