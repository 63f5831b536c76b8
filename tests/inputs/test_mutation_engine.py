"""The one input-mutation engine (codemorph.inputs.mutation.MutationSpace): verification
mutants (mutate_args) and the perturbation search's steps and neighbours come from the same
space, and the split of codemorph.inputs by concern kept every seeded sequence.

The pinned lists below are what the tree before the merge (the separate ``_Pool``/``_mut_*``
engine of ``codemorph.inputs`` and ``codemorph.perturb.mutation.MutationSpace``) returned for
the same calls; ``benchmarks/characterize_inputs.py`` compares all 800 CRUXEval inputs."""

from __future__ import annotations

import itertools
import random

import codemorph.inputs as inputs
from codemorph.inputs import MutationSpace, mutate_args, parse_args, type_paths


def test_mutate_args_draws_the_same_edge_cases_and_mutants_as_before_the_merge():
    got = mutate_args("'ab', [1, 2]", 6, random.Random(3), [3, "x"], ["isdecimal"])
    assert got == ["'x', [1, 2]", "'  ', [1, 2]", "'a', [1]", "'01', [1, 2]", "'ab', [1, 2, 2]", "'ba', [0, 2]"]
    # below EDGE_MIN_REQUEST: random exact mutants only
    assert mutate_args("'ab', [1, 2]", 3, random.Random(3), [3, "x"]) == ["'ab', []", "'ab', [1]", "'ab', [1, 2, 1]"]


def test_mutate_args_is_the_spaces_mutants():
    seed = "'hello', 3, ['a', 'b']"
    space = MutationSpace(parse_args(seed), ["l", 2], hints=["isupper"])
    assert space.mutants(40, random.Random(8)) == mutate_args(seed, 40, random.Random(8), ["l", 2], ["isupper"])


def test_search_steps_and_neighbours_are_the_same_as_before_the_merge():
    seed = parse_args("'ab', 2")
    space = MutationSpace(seed, [3, "x"])
    assert space.mutate(seed, random.Random(1)) == (["x", 2], {})
    assert list(itertools.islice(space.neighbours(seed), 6)) == [
        (["", 2], {}), (["AB", 2], {}), ([" ab", 2], {}), (["ab ", 2], {}), (["a", 2], {}), (["b", 2], {})]
    assert list(itertools.islice(space.priority_neighbours(seed), 3)) == [
        (["ab2", 2], {}), (["ab", 1], {}), (["ab", -3], {})]


def test_exact_edits_keep_the_type_and_element_types_of_the_value():
    space = MutationSpace(parse_args("[[1, 2], [3]], {'k': (1.5, 'x')}, b'ab'"), [7, "q"])
    rng = random.Random(0)
    for v in space.seed[0]:
        for _ in range(200):
            m = space.mutate_value(v, rng)
            assert type(m) is type(v) and type_paths(m) <= type_paths(v)


def test_verification_mutants_do_not_build_the_search_tables():
    space = MutationSpace(parse_args("'abc', [1, 2]"), [3])
    space.mutants(49, random.Random(0))
    assert "_ints" not in vars(space) and "_chars" not in vars(space)
    list(itertools.islice(space.neighbours(space.seed), 5))
    assert 3 in vars(space)["_ints"] and "a" in vars(space)["_chars"]


def test_literals_given_as_a_generator_serve_both_users():
    space = MutationSpace(parse_args("'abc'"), (x for x in ["zz", 5]))
    assert space.constants.strs == ["zz"] and space.constants.ints == [5]
    assert "zz" in [a[0][0] for a in space.neighbours(space.seed)]


def test_public_names_of_the_inputs_package():
    assert inputs.edge_cases("'a'")["case"] == ["'A'"]
    for name in inputs.__all__:
        assert getattr(inputs, name) is not None
    assert inputs.parse_args("1, k='x'") == ([1], {"k": "x"})
