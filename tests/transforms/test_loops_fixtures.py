"""Fixture tests of the grown ``loops`` family: while-to-for, comprehension-to-loop,
loop-to-comprehension, peel-loop, unroll-loop (codemorph.transforms.loops).

Fixture cases live in tests/transforms/fixtures/<transform>/: ``NAME.py`` is the input,
``NAME.expected.py`` the exact expected output, and ``NAME.json`` holds ``inputs`` (the
harness inputs: runtime types are observed on them in the sandbox when the transform needs
them, and the rewrite is verified on them plus type-preserving mutants with
:func:`codemorph.testing.assert_preserves`), optionally ``seed`` and ``options``, or
``refused`` (a substring of the expected reason).  Set CODEMORPH_UPDATE_FIXTURES=1 to
rewrite the expected files (then review the diff).

Programs run only in the sandbox.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import assert_fixtures_covered, assert_matches_expected, case_id, fixture_cases, fixture_spec

from codemorph import get_transform
from codemorph.testing import assert_preserves, assert_refuses

FAMILY = ("while-to-for", "comprehension-to-loop", "loop-to-comprehension", "peel-loop", "unroll-loop")


@pytest.mark.parametrize("name, path", fixture_cases(*FAMILY), ids=case_id)
def test_fixture(name: str, path: Path, sandbox) -> None:
    spec = fixture_spec(path)
    transform = get_transform(name, **spec.get("options", {}))
    source = path.read_text()
    inputs = spec.get("inputs", [])
    seed = spec.get("seed", 0)
    if "refused" in spec:
        result = assert_refuses(transform, source, spec["refused"], inputs=inputs, seed=seed, sandbox=sandbox)
        assert result.source == source
        return
    assert inputs, f"{path.name}: a rewritten fixture needs inputs to verify it on"
    result = assert_preserves(transform, source, inputs, seed=seed, extra_inputs=spec.get("extra_inputs", 8),
                              sandbox=sandbox)
    assert_matches_expected(path, result.source)
    assert result.sites


def test_every_fixture_is_covered() -> None:
    assert_fixtures_covered(*FAMILY)
    for _, path in fixture_cases(*FAMILY):
        spec = fixture_spec(path)
        assert "refused" in spec or spec.get("inputs"), path
