"""Fixture tests of the naming family: ``rename-functions``, ``rename-classes`` and the
naming schemes and options of ``rename-locals``.

Each case is three files under ``tests/transforms/fixtures/<dir>/``: ``NAME.py`` (the program),
``NAME.expected.py`` (the exact rewrite) and ``NAME.json`` with ``options`` (transform
options), ``seed`` (default 0), ``inputs`` (argument lists for the entry point) and,
when the entry point is renamed, ``entry_point`` (its expected new name).  Every rewrite
is also run in codemorph's sandbox on the inputs plus mutants of them and must behave
like the original (value, exception class, argument state, stdout).  Program code never
runs in this process.  Set ``CODEMORPH_UPDATE_FIXTURES=1`` to rewrite the expected files
after an intended change (then review the diff).
"""

from __future__ import annotations

import pytest
from conftest import FIXTURES, assert_matches_expected, fixture_spec

from codemorph import Program
from codemorph.transforms.naming import RenameClasses, RenameFunctions, RenameLocals, check_renaming

DIRS = {
    "rename-functions": RenameFunctions,
    "rename-classes": RenameClasses,
    "rename-locals/schemes": RenameLocals,
}
CASES = [(d, p.stem) for d in DIRS for p in sorted((FIXTURES / d).glob("*.py"))
         if not p.name.endswith(".expected.py")]


def _apply(folder: str, case: str):
    spec = fixture_spec(FIXTURES / folder / f"{case}.py")
    source = (FIXTURES / folder / f"{case}.py").read_text()
    transform = DIRS[folder](**spec.get("options", {}))
    return source, spec, transform.apply(Program(source), spec.get("seed", 0), inputs=spec["inputs"])


def test_every_directory_has_cases() -> None:
    for folder in DIRS:
        assert any(d == folder for d, _ in CASES), folder


@pytest.mark.parametrize("folder, case", CASES, ids=[f"{d}:{c}" for d, c in CASES])
def test_fixture_exact_output(folder: str, case: str) -> None:
    source, spec, result = _apply(folder, case)
    assert result.applied, result.reason
    assert_matches_expected(FIXTURES / folder / f"{case}.py", result.source)
    assert result.source != source
    assert result.program.entry_point == spec.get("entry_point", "f")
    # comments survive every rewrite
    assert [line.split("#", 1)[1] for line in source.splitlines() if "#" in line] == \
        [line.split("#", 1)[1] for line in result.source.splitlines() if "#" in line]


@pytest.mark.parametrize("folder, case", CASES, ids=[f"{d}:{c}" for d, c in CASES])
def test_fixture_is_deterministic(folder: str, case: str) -> None:
    _source, _spec_, a = _apply(folder, case)
    _source, _spec_, b = _apply(folder, case)
    assert a.source == b.source and a.sites == b.sites and a.program.entry_point == b.program.entry_point


# --------------------------------------------------------------------------------------
# behaviour, in the sandbox
# --------------------------------------------------------------------------------------

verification = pytest.importorskip("codemorph.verification")


@pytest.mark.parametrize("folder, case", CASES, ids=[f"{d}:{c}" for d, c in CASES])
def test_fixture_behaviour(sandbox, folder: str, case: str) -> None:
    source, spec, result = _apply(folder, case)
    assert result.applied, result.reason
    base = verification.make_baseline(sandbox, Program(source), spec["inputs"], extra_inputs=6,
                                      check_hash_seed=False)
    assert all(o.status in ("returned", "raised") for o in base.outcomes[:len(spec["inputs"])])
    verdict = verification.check(sandbox, base, result.program)  # runs the new entry point
    assert verdict.status == "equivalent", verdict.reason
    assert verdict.inputs_checked >= len(spec["inputs"])


def test_behaviour_check_can_fail(sandbox) -> None:
    # the comparison above must be able to fail: calling the wrong function is caught
    source = "def inc(x):\n    return x + 1\n\ndef dec(x):\n    return x - 1\n\ndef f(x):\n    return inc(x)\n"
    wrong = Program(source.replace("return inc(x)", "return dec(x)"))
    base = verification.make_baseline(sandbox, Program(source), ["1"], extra_inputs=2, check_hash_seed=False)
    assert verification.check(sandbox, base, wrong).status == "differs"


def test_fixture_rewrites_pass_the_symbol_table_check() -> None:
    # an independent re-check of every fixture: the rewrite is a consistent renaming
    for folder, case in CASES:
        source, _spec_, result = _apply(folder, case)
        back = {}
        for site in result.sites:
            if site.description.startswith("keyword "):
                continue
            old, new = site.description.split(" -> ")
            back[new] = old
        check_renaming(source, result.source, back)
