"""The one runner of every transform fixture (tests/transforms/fixtures/<transform>/).

A case is ``NAME.py`` (the program, entry point ``f``) with ``NAME.json``:

* ``options`` -- transform options (``get_transform(name, **options)``); ``seed`` (default 0);
* ``inputs`` -- argument-list literals of the entry point (the harness inputs);
* ``harness`` -- apply under the harness contract, as ``generate`` does (default ``true``);
  ``false`` applies as ``codemorph apply FILE`` does (public names and parameters kept);
* ``refused`` -- a substring of the expected refusal reason (then no ``NAME.expected.py``);
* ``observe`` / ``no_observations`` -- collect runtime types over ``inputs`` in the sandbox
  even though / although the transform does not / does declare ``needs_runtime_types``;
* ``extra_inputs`` -- type-preserving mutants added to ``inputs`` for verification (default 8);
* ``entry_point`` -- the expected entry-point name after the rewrite (default ``f``);
* ``outputs`` -- the recorded result literal on each input (``RewriteContext.outputs``);
* ``inconclusive`` -- the verifier may not vouch for this program (e.g. an event loop): the
  verdict must be ``inconclusive`` with a reason starting so, instead of ``equivalent``.

and, unless refused, ``NAME.expected.py``, the exact rewrite.  For every case the runner
applies the transform and asserts the refusal (reason substring, source unchanged) or the
exact expected code, a reported site, the expected entry point, and that a second
application gives the same result.  When ``inputs`` are given it then runs both programs in
the sandbox: on each input both finish with the same behaviour (return value, exception
class, final argument state, stdout -- which may gain exactly the lines a rewrite declares,
``stdout_lines``); the verifier (:mod:`codemorph.verification`) finds the rewrite equivalent
on the inputs plus mutants; every claim a distractor declares runs false in the sandbox.  Families add their own property:

* dead-code family: one site; the inserted dead block never executes (line tracing);
* naming family: comments survive, and the rewrite is a consistent renaming by the
  compiler's symbol tables (:func:`codemorph.transforms.naming.check_renaming`).

Set ``CODEMORPH_UPDATE_FIXTURES=1`` to rewrite the expected files (then review the diff).
Programs run only in the sandbox.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import (FIXTURES, assert_matches_expected, expected_path, fixture_spec, never_run_lines,
                      run_both)

from codemorph import Program, get_transform
from codemorph.testing import observe_types
from codemorph.transforms.naming import check_renaming
from codemorph.verification.claims import claim_requests, refutation, stdout_gains
from codemorph.verification.differential import check, make_baseline

#: every fixture folder: one per transform, plus the naming schemes of rename-locals
FOLDERS = sorted(str(d.relative_to(FIXTURES)) for d in FIXTURES.rglob("*")
                 if d.is_dir() and any(p.suffix == ".py" for p in d.iterdir()))
CASES = [(folder, p) for folder in FOLDERS for p in sorted((FIXTURES / folder).glob("*.py"))
         if not p.name.endswith(".expected.py")]

DEAD_CODE = {"dead-code", "dead-store", "dead-loop", "unused-function"}
NAMING = {"rename-locals", "rename-functions", "rename-classes"}
#: transforms whose rewritten fixtures may leave out ``inputs`` (exact code only)
INPUTS_OPTIONAL = {"for-to-while", "invert-if"}


def transform_name(folder: str) -> str:
    """The transform a fixture folder is for: its first path component."""
    return folder.split("/")[0]


def _apply(folder: str, path: Path, sandbox):
    spec = fixture_spec(path)
    name = transform_name(folder)
    transform = get_transform(name, **spec.get("options", {}))
    source = path.read_text()
    inputs = spec.get("inputs", [])
    observe = spec.get("observe") or (transform.needs_runtime_types and not spec.get("no_observations"))
    observations = (observe_types(source, inputs, sandbox=sandbox) if inputs else {}) if observe else None
    result = transform.apply(Program(source), spec.get("seed", 0), inputs=inputs, observations=observations,
                             outputs=spec.get("outputs", []), harness=spec.get("harness", True))
    return spec, source, result


@pytest.mark.parametrize("folder, path", CASES, ids=[f"{f}:{p.stem}" for f, p in CASES])
def test_fixture(folder: str, path: Path, sandbox) -> None:
    name = transform_name(folder)
    spec, source, result = _apply(folder, path, sandbox)
    if "refused" in spec:
        assert not result.applied, result.source
        assert spec["refused"] in result.reason
        assert result.source == source
        return
    assert result.applied, result.reason
    assert_matches_expected(path, result.source)
    assert result.source != source
    assert result.sites
    assert result.program.entry_point == spec.get("entry_point", "f")
    _spec, _source, again = _apply(folder, path, sandbox)
    assert (again.source, again.sites, again.program.entry_point) == \
        (result.source, result.sites, result.program.entry_point)
    if name in DEAD_CODE:
        assert len(result.sites) == 1
    if name in NAMING:
        _assert_consistent_renaming(source, result)
    inputs = spec.get("inputs", [])
    if not inputs:
        return
    # the inputs themselves, both programs run directly (traced, for the dead-code family)
    dead = set(never_run_lines(name, source, result.source)) if name in DEAD_CODE else set()
    for args, o, r in _run_both(sandbox, source, result, inputs, trace=name in DEAD_CODE):
        assert o.status in ("returned", "raised"), (args, o)
        if result.stdout_lines:
            assert o.behaviour()[:3] == r.behaviour()[:3], f"input {args}: {o.behaviour()} != {r.behaviour()}"
            assert stdout_gains(o.stdout, r.stdout, result.stdout_lines) is None, (args, o.stdout, r.stdout)
        else:
            assert o.behaviour() == r.behaviour(), f"input {args}: {o.behaviour()} != {r.behaviour()}"
        if name in DEAD_CODE:
            assert r.lines is not None and not dead & set(r.lines), f"dead code ran on input {args}"
    # the verifier: the inputs plus type-preserving mutants, outcomes compared type-exactly
    base = make_baseline(sandbox, Program(source), inputs, extra_inputs=spec.get("extra_inputs", 8),
                         seed=spec.get("seed", 0), check_hash_seed=False)
    assert "inconclusive" in spec or not base.nondeterministic, "the fixture program must be deterministic"
    assert all(o.status in ("returned", "raised") for o in base.outcomes[:len(inputs)])
    # a fixture's few inputs test for differences; the 20-input minimum of "equivalent" is
    # generate's and verify's evidence rule, tested in tests/verification
    verdict = check(sandbox, base, result.program, stdout_lines=result.stdout_lines, min_inputs=1)
    outs = sandbox.run_batch(claim_requests(result.claims, 5.0))
    assert [refutation(c, o) for c, o in zip(result.claims, outs)] == [None] * len(result.claims)
    if "inconclusive" in spec:
        assert verdict.status == "inconclusive" and verdict.reason.startswith(spec["inconclusive"]), verdict.reason
        return
    assert verdict.status in ("equivalent", "proved"), verdict.reason
    assert verdict.inputs_checked >= len(inputs)


def _run_both(sandbox, source: str, result, inputs, *, trace: bool) -> list[tuple]:
    """``[(args, original outcome, rewritten outcome)]``: ``f(args)`` of the original and the
    rewrite's own entry point (renamed by rename-functions) on each input, in one batch."""
    from codemorph.sandbox.pool import ExecRequest
    reqs = [req for args in inputs for req in (ExecRequest(source, "f", args),
                                               ExecRequest(result.source, result.program.entry_point, args,
                                                           trace=trace))]
    outs = sandbox.run_batch(reqs)
    return [(args, outs[2 * i], outs[2 * i + 1]) for i, args in enumerate(inputs)]


def _assert_consistent_renaming(source: str, result) -> None:
    back = {}
    for site in result.sites:
        if site.description.startswith("keyword "):
            continue
        old, new = site.description.split(" -> ")
        back[new] = old
    # comments survive every rename: the same comments, but for words that name renamed
    # variables (new names are fresh, so spelling them the old way again gives the original)
    words = re.compile(r"\b(" + "|".join(map(re.escape, back)) + r")\b") if back else None

    def comments(code: str, undo: bool) -> list[str]:
        out = [line.split("#", 1)[1] for line in code.splitlines() if "#" in line]
        return [words.sub(lambda m: back[m.group(1)], c) for c in out] if undo and words else out

    # (the misleading scheme leaves comments as they were, so the exchanged names mislead)
    assert comments(source, False) in (comments(result.source, False), comments(result.source, True))
    # an independent re-check: every reported renaming is consistent by the symbol tables
    check_renaming(source, result.source, back, docstrings=True)


def test_every_transform_has_fixtures() -> None:
    from codemorph.engine.registry import default_registry
    assert {transform_name(f) for f in FOLDERS} == set(default_registry().names())


@pytest.mark.parametrize("folder, path", CASES, ids=[f"{f}:{p.stem}" for f, p in CASES])
def test_fixture_is_complete(folder: str, path: Path) -> None:
    """Each case has its settings, and either a refusal reason or the exact expected code;
    rewritten cases list the inputs they are executed on."""
    assert path.with_suffix(".json").exists(), f"{path.name} has no {path.stem}.json"
    spec = fixture_spec(path)
    if "refused" in spec:
        assert not expected_path(path).exists(), "a refused case has no expected rewrite"
        return
    assert expected_path(path).exists(), path
    if transform_name(folder) not in INPUTS_OPTIONAL:
        assert spec.get("inputs"), f"{path.name}: a rewritten fixture needs inputs to run it on"


def test_behaviour_check_can_fail(sandbox) -> None:
    # the comparisons above must be able to fail: calling the wrong function is caught
    source = "def inc(x):\n    return x + 1\n\ndef dec(x):\n    return x - 1\n\ndef f(x):\n    return inc(x)\n"
    wrong = source.replace("return inc(x)", "return dec(x)")
    [(_args, o, r)] = run_both(sandbox, source, wrong, ["1"])
    assert o.behaviour() != r.behaviour()
    base = make_baseline(sandbox, Program(source), ["1"], extra_inputs=2, check_hash_seed=False)
    assert check(sandbox, base, Program(wrong)).status == "differs"
