"""A pipeline never hands a later step runtime types observed under names an earlier step
changed: after a renaming step, type-needing transforms refuse (observations are keyed by
name, and the `misleading` scheme swaps names between variables)."""

from __future__ import annotations

from codemorph import Pipeline, Program, Repeat, SomeOf
from codemorph.engine.pipeline import renames_bindings
from codemorph.engine.registry import default_registry

CODE = """def f(text, word):
    n = len(text)
    k = len(word)
    total = n + k
    joined = text + word
    return total, joined
"""
# what the sandbox observes for f('ab', 'cd') (codemorph.testing.observe_types's shape)
OBS = {"f": {"text": ["str"], "word": ["str"], "n": ["int"], "k": ["int"], "total": ["int"],
             "joined": ["str"]}}


def _t(name, **options):
    return default_registry().create(name, **options)


def test_swap_operands_alone_uses_the_observations():
    res = _t("swap-operands").apply(Program(CODE), 0, inputs=["'ab', 'cd'"], observations=OBS)
    assert res.applied
    assert "total = k + n" in res.source
    assert "joined = text + word" in res.source  # str + is not commutative


def test_after_a_renaming_step_type_needing_steps_get_no_observations():
    rename = _t("rename-locals", scheme="misleading")
    swap = _t("swap-operands")
    assert renames_bindings(rename) and not renames_bindings(swap)
    for pipe in (Pipeline.of(rename, swap), SomeOf(2, rename, swap), Repeat(Pipeline.of(rename, swap), 1)):
        for seed in range(5):
            res = pipe.apply(Program(CODE), seed, inputs=["'ab', 'cd'"], observations=OBS)
            by_name = {r.transform: r for r in res.results}
            if by_name["rename-locals"].applied and res.results.index(by_name["rename-locals"]) < \
                    res.results.index(by_name["swap-operands"]):
                assert not by_name["swap-operands"].applied, res.program.source
                assert "runtime type" in by_name["swap-operands"].reason
