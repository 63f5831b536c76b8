"""Shared scaffolding of the transform tests: fixture files, one sandbox, CRUXEval rows.

Fixture cases (in the style of Black/Ruff) live in ``tests/transforms/fixtures/<transform>/``:
``NAME.py`` is the input, ``NAME.expected.py`` the exact expected output and ``NAME.json``
(optional) the case's settings (``seed``, ``options``, harness ``inputs``, ``refused``: a
substring of the expected refusal reason; each test file documents the keys it reads).
Set ``CODEMORPH_UPDATE_FIXTURES=1`` to rewrite the expected files (then review the diff).

CRUXEval-wide tests run on a deterministic sample by default, every
:data:`SAMPLE_STEP`-th row of ``../shared/data/cruxeval/cruxeval.jsonl`` from a per-file
offset (100 of the 800 rows).  ``CODEMORPH_FULL=1`` runs them on all 800 rows.  They are
skipped when the data set is absent.

Programs under test run only in codemorph's sandbox (:func:`sandbox`), never in the test
process.  Test files import the helpers with ``from conftest import ...``.
"""

from __future__ import annotations

import difflib
import functools
import json
import os
import symtable
from pathlib import Path
from typing import Sequence

import pytest

from paths import CRUXEVAL, TESTS, TRANSFORM_FIXTURES

FIXTURES = TRANSFORM_FIXTURES

#: whether the CRUXEval-wide tests run on all 800 rows (``CODEMORPH_FULL=1``) instead of
#: the default sample
FULL: bool = os.environ.get("CODEMORPH_FULL", "") not in ("", "0")
#: the default sample is every SAMPLE_STEP-th row (100 of 800 rows)
SAMPLE_STEP = 8


# ---------------------------------------------------------------------------------------
# fixture files


def fixture_cases(*names: str) -> list[tuple[str, Path]]:
    """``(transform name, input path)`` of every fixture case under
    ``tests/transforms/fixtures/<name>/`` for each of ``names`` (a name may be a sub-folder such as
    ``"rename-locals/schemes"``), in name order then file-name order."""
    out = []
    for name in names:
        out += [(name, p) for p in sorted((FIXTURES / name).glob("*.py")) if not p.name.endswith(".expected.py")]
    return out


def case_id(value: object) -> str:
    """pytest id of a ``(name, path)`` parameter: the name as is, a path by its stem."""
    return value.stem if isinstance(value, Path) else str(value)


def fixture_spec(path: Path) -> dict:
    """The settings of a fixture case: ``NAME.json`` next to ``NAME.py`` (``{}`` when absent)."""
    side = path.with_suffix(".json")
    return json.loads(side.read_text()) if side.exists() else {}


def expected_path(path: Path) -> Path:
    """``NAME.expected.py`` for the fixture input ``NAME.py``."""
    return path.with_name(path.stem + ".expected.py")


def assert_matches_expected(path: Path, source: str) -> str:
    """Assert that ``source`` (a rewrite of the fixture input ``path``) equals
    ``NAME.expected.py`` exactly; with ``CODEMORPH_UPDATE_FIXTURES`` set, write it there
    first.  Returns the expected text."""
    expected = expected_path(path)
    if os.environ.get("CODEMORPH_UPDATE_FIXTURES"):
        expected.write_text(source)
    text = expected.read_text()
    assert source == text
    return text


def apply_fixture(name: str, path: Path, *, sandbox=None, observe: bool = False):
    """Apply the transform ``name`` to the fixture input ``path`` as its ``NAME.json``
    says (``options``, ``seed``, ``inputs``) and check the outcome.

    Args:
        observe: collect runtime observations of the input program over ``inputs`` in
            ``sandbox`` (:func:`codemorph.testing.observe_types`) and pass them on.

    Returns:
        ``(spec, source, result)``.  When the spec has ``refused``, asserts that the
        transform refused with a reason containing it and left the source unchanged, and
        returns ``result=None``; otherwise asserts that it applied and that the rewrite
        equals ``NAME.expected.py`` (:func:`assert_matches_expected`).
    """
    from codemorph import Program, get_transform
    from codemorph.testing import observe_types
    spec = fixture_spec(path)
    transform = get_transform(name, **spec.get("options", {}))
    source = path.read_text()
    inputs = spec.get("inputs", [])
    observations = observe_types(source, inputs, sandbox=sandbox) if observe else None
    result = transform.apply(Program(source), spec.get("seed", 0), inputs=inputs, observations=observations)
    if "refused" in spec:
        assert not result.applied, result.source
        assert spec["refused"] in result.reason
        assert result.source == source
        return spec, source, None
    assert result.applied, result.reason
    assert_matches_expected(path, result.source)
    return spec, source, result


def assert_fixtures_covered(*names: str, need_inputs: bool = False) -> None:
    """Every fixture case of ``names`` (each name has at least one) either expects a
    refusal or has its ``.expected.py``; with ``need_inputs``, every case also lists
    ``inputs`` (rewritten cases must be executed)."""
    for name in names:
        cases = fixture_cases(name)
        assert cases, name
        for _, path in cases:
            spec = fixture_spec(path)
            assert "refused" in spec or expected_path(path).exists(), path
            if need_inputs:
                assert "inputs" in spec, path


# ---------------------------------------------------------------------------------------
# the sandbox


@pytest.fixture(scope="session")
def sandbox():
    """One :class:`codemorph.sandbox.Sandbox` (default limits: 5 s per execution) shared by
    every test of the session; a test file may still define its own ``sandbox``."""
    sandbox_mod = pytest.importorskip("codemorph.sandbox")
    with sandbox_mod.Sandbox() as sb:
        yield sb


def run_both(sandbox, original: str, rewritten: str, inputs: Sequence[str], entry: str = "f", *,
             trace: bool = False) -> list[tuple]:
    """Run ``entry(<args>)`` of both programs on every argument literal in ``inputs``, in
    one sandbox batch; returns ``[(args, original outcome, rewritten outcome)]``.  With
    ``trace``, the rewritten program runs traced (its ``Outcome.lines`` are recorded)."""
    from codemorph.sandbox.pool import ExecRequest
    reqs = [ExecRequest(src, entry, args, trace=trace and k == 1)
            for args in inputs for k, src in enumerate((original, rewritten))]
    outs = sandbox.run_batch(reqs)
    return [(args, outs[2 * i], outs[2 * i + 1]) for i, args in enumerate(inputs)]


def assert_same_behaviour(sandbox, original: str, rewritten: str, inputs: Sequence[str], entry: str = "f") -> None:
    """Both programs finish (return or raise) on every input, with the same behaviour:
    return value, exception class, final argument state and stdout."""
    for args, o, r in run_both(sandbox, original, rewritten, inputs, entry):
        assert o.status in ("returned", "raised"), (args, o)
        assert o.behaviour() == r.behaviour(), f"input {args}: {o.behaviour()} != {r.behaviour()}"


# ---------------------------------------------------------------------------------------
# CRUXEval


@functools.lru_cache(maxsize=1)
def _read_cruxeval() -> tuple[dict, ...]:
    return tuple(json.loads(line) for line in CRUXEVAL.read_text().splitlines() if line.strip())


def cruxeval_rows() -> list[dict]:
    """All 800 CRUXEval rows (``id``, ``code``, ``input``, ``output``); skips the calling
    test when the data set is absent."""
    if not CRUXEVAL.exists():
        pytest.skip("CRUXEval data not available")
    return list(_read_cruxeval())


def cruxeval_sample(offset: int = 0, step: int = SAMPLE_STEP) -> list[dict]:
    """The rows a CRUXEval-wide test runs on: every ``step``-th row starting at ``offset``
    (0 <= offset < step; files use different offsets to spread coverage, and a larger step
    where each row costs several sandbox round trips), or all rows with
    ``CODEMORPH_FULL=1``."""
    rows = cruxeval_rows()
    return rows if FULL else rows[offset::step]


def run_pairs(sandbox, pairs: Sequence[tuple], *, trace: bool = False) -> list[tuple]:
    """Run CRUXEval rewrites on their row's own input.

    Args:
        pairs: ``(label, row, rewritten source)`` triples; both the row's code and the
            rewrite are run as ``f(<row input>)`` in one sandbox batch (the rewrite traced
            with ``trace``).

    Returns:
        ``[(label, row, rewritten, original outcome, rewritten outcome)]`` for the pairs
        whose two executions completed; asserts that at least 98% did (a loaded machine
        may time out a few runs) and that every completed pair behaves the same.
    """
    from codemorph.sandbox.pool import ExecRequest
    reqs = [ExecRequest(src, "f", row["input"], trace=trace and k == 1)
            for _, row, new in pairs for k, src in enumerate((row["code"], new))]
    outs = sandbox.run_batch(reqs)
    done = [(label, row, new, outs[2 * i], outs[2 * i + 1]) for i, (label, row, new) in enumerate(pairs)
            if outs[2 * i].completed and outs[2 * i + 1].completed]
    assert len(done) >= 0.98 * len(pairs)
    bad = [(label, row["id"]) for label, row, _, o, r in done if o.behaviour() != r.behaviour()]
    assert bad == []
    return done


# ---------------------------------------------------------------------------------------
# source comparisons


def inserted_lines(original: str, rewritten: str) -> list[int]:
    """1-based line numbers of ``rewritten`` that are not in ``original`` (inserted or
    replaced lines, by :class:`difflib.SequenceMatcher`)."""
    a, b = original.splitlines(), rewritten.splitlines()
    out: list[int] = []
    for tag, _i1, _i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag in ("insert", "replace"):
            out += range(j1 + 1, j2 + 1)
    return out


def block_after(lines: Sequence[str], head: int, *, skip_blank: bool = False) -> list[int]:
    """Line numbers of the block under the 1-based line ``head`` of ``lines``: the lines
    after it indented deeper than it (blank lines are in the block unless ``skip_blank``)."""
    indent = len(lines[head - 1]) - len(lines[head - 1].lstrip())
    body = []
    for n in range(head + 1, len(lines) + 1):
        text = lines[n - 1]
        if text.strip() and len(text) - len(text.lstrip()) <= indent:
            break
        if text.strip() or not skip_blank:
            body.append(n)
    return body


def function_symbols(source: str) -> list[dict[str, tuple]]:
    """Per function scope of ``source`` (compiler order): ``{name: (is_parameter,
    is_global, is_declared_global, is_local, is_free, is_nonlocal, is_imported)}`` from
    the compiler's symbol table (:mod:`symtable`; nothing is executed)."""
    out: list[dict[str, tuple]] = []

    def walk(table) -> None:
        if table.get_type() == "function":
            out.append({s.get_name(): (s.is_parameter(), s.is_global(), s.is_declared_global(), s.is_local(),
                                        s.is_free(), s.is_nonlocal(), s.is_imported())
                        for s in table.get_symbols()})
        for child in table.get_children():
            walk(child)

    walk(symtable.symtable(source, "<program>", "exec"))
    return out

