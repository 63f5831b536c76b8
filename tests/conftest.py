"""Shared scaffolding of the transform tests: fixture files, one sandbox, CRUXEval rows.

Fixture cases (in the style of Black/Ruff) live in ``tests/transforms/fixtures/<transform>/``:
``NAME.py`` is the input, ``NAME.expected.py`` the exact expected output and ``NAME.json``
the case's settings; tests/transforms/test_fixtures.py runs every case and documents the keys.
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

from paths import CRUXEVAL, TRANSFORM_FIXTURES

FIXTURES = TRANSFORM_FIXTURES

#: whether the CRUXEval-wide tests run on all 800 rows (``CODEMORPH_FULL=1``) instead of
#: the default sample
FULL: bool = os.environ.get("CODEMORPH_FULL", "") not in ("", "0")
#: the default sample is every SAMPLE_STEP-th row (100 of 800 rows)
SAMPLE_STEP = 8


# ---------------------------------------------------------------------------------------
# fixture files


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
        pytest.skip(f"shared data not available: {CRUXEVAL} (expected at <repo>/../shared/data)")
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


# ---------------------------------------------------------------------------------------
# lines a dead-code rewrite inserts that must never run


def dead_lines(original: str, rewritten: str) -> list[int]:
    """Line numbers of the inserted ``if``'s body (the lines that must never run): the
    lines indented deeper than the first inserted ``if`` line, right after it."""
    lines = rewritten.splitlines()
    new = inserted_lines(original, rewritten)
    ifs = [n for n in new if lines[n - 1].lstrip().startswith("if ")]
    assert ifs, (original, rewritten)
    return block_after(lines, ifs[0])


def never_run_lines(name: str, original: str, rewritten: str) -> list[int]:
    """Inserted lines that must never execute for the dead-code transform ``name``: the
    body of the inserted ``if`` (``dead-code``), of the dead loop (``dead-loop``) or of
    the unused helper (``unused-function``); none for ``dead-store`` (its store runs)."""
    if name == "dead-code":
        return dead_lines(original, rewritten)
    if name == "dead-store":
        return []
    lines = rewritten.splitlines()
    new = inserted_lines(original, rewritten)
    head = "def " if name == "unused-function" else ("for ", "while ")
    heads = [n for n in new if lines[n - 1].lstrip().startswith(head)]
    assert heads, rewritten
    body = block_after(lines, heads[0], skip_blank=True)
    assert body
    return body
