"""Fixture tests of the grown ``loops`` family: while-to-for, comprehension-to-loop,
loop-to-comprehension, peel-loop, unroll-loop (codemorph.transforms.loops).

Fixture cases live in tests/fixtures/<transform>/: ``NAME.py`` is the input,
``NAME.expected.py`` the exact expected output, and ``NAME.json`` holds ``inputs`` (the
harness inputs: runtime types are observed on them in the sandbox when the transform needs
them, and the rewrite is verified on them plus type-preserving mutants with
:func:`codemorph.testing.assert_preserves`), optionally ``seed`` and ``options``, or
``refused`` (a substring of the expected reason).  Set CODEMORPH_UPDATE_FIXTURES=1 to
rewrite the expected files (then review the diff).

Programs run only in the sandbox.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from codemorph import Program, get_transform
from codemorph.testing import assert_preserves, assert_refuses

FAMILY = ("while-to-for", "comprehension-to-loop", "loop-to-comprehension", "peel-loop", "unroll-loop")
FIXTURES = Path(__file__).parent / "fixtures"


def _cases() -> list[tuple[str, Path]]:
    out = []
    for name in FAMILY:
        out += [(name, p) for p in sorted((FIXTURES / name).glob("*.py")) if not p.name.endswith(".expected.py")]
    return out


def _spec(path: Path) -> dict:
    side = path.with_suffix(".json")
    return json.loads(side.read_text()) if side.exists() else {}


@pytest.fixture(scope="module")
def sandbox():
    from codemorph.sandbox import Sandbox
    with Sandbox() as sb:
        yield sb


@pytest.mark.parametrize("name, path", _cases(), ids=lambda v: v if isinstance(v, str) else v.stem)
def test_fixture(name: str, path: Path, sandbox) -> None:
    spec = _spec(path)
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
    expected = path.with_name(path.stem + ".expected.py")
    if os.environ.get("CODEMORPH_UPDATE_FIXTURES"):
        expected.write_text(result.source)
    assert result.source == expected.read_text()
    assert result.sites


def test_every_fixture_is_covered() -> None:
    cases = _cases()
    assert {name for name, _ in cases} == set(FAMILY)
    for name, path in cases:
        spec = _spec(path)
        assert "refused" in spec or path.with_name(path.stem + ".expected.py").exists(), path
        assert "refused" in spec or spec.get("inputs"), path
