"""Fixture tests of the ``branches`` transforms (``if-to-ternary``, ``ternary-to-if``,
``elif-to-nested``, ``nested-to-elif``, ``mirror-comparison``; ``invert-if`` has its own).

Fixture files live in tests/fixtures/<transform>/: ``NAME.py`` is the input,
``NAME.expected.py`` the exact expected output, and ``NAME.json`` (optional) holds
``seed``, ``options``, the harness ``inputs`` (both versions run on each in the sandbox and
must behave identically), ``refused`` (a substring of the expected refusal reason), and
``no_observations`` (apply without runtime observations even if the transform wants them).
Runtime observations are collected in the sandbox over ``inputs`` for transforms that
need them (``codemorph.testing.observe_types``).
Set CODEMORPH_UPDATE_FIXTURES=1 to rewrite the expected files (then review the diff).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from codemorph import Program, get_transform
from codemorph.testing import observe_types

FIXTURES = Path(__file__).parent / "fixtures"
TRANSFORMS = ("if-to-ternary", "ternary-to-if", "elif-to-nested", "nested-to-elif", "mirror-comparison")


def _cases() -> list[tuple[str, Path]]:
    out = []
    for name in TRANSFORMS:
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


def assert_same_behaviour(sandbox, original: str, rewritten: str, inputs, entry: str = "f") -> None:
    """Run both programs on every input in the sandbox: same result/exception class,
    argument state and stdout."""
    from codemorph.sandbox import ExecRequest
    reqs = [ExecRequest(src, entry, args) for args in inputs for src in (original, rewritten)]
    outs = sandbox.run_batch(reqs)
    for i, args in enumerate(inputs):
        o, r = outs[2 * i], outs[2 * i + 1]
        assert o.status in ("returned", "raised"), (args, o)
        assert o.behaviour() == r.behaviour(), f"input {args}: {o.behaviour()} != {r.behaviour()}"


@pytest.mark.parametrize("name, path", _cases(), ids=lambda v: v if isinstance(v, str) else v.stem)
def test_fixture(name: str, path: Path, sandbox) -> None:
    spec = _spec(path)
    transform = get_transform(name, **spec.get("options", {}))
    source = path.read_text()
    inputs = spec.get("inputs", [])
    observations = None
    if transform.needs_runtime_types and not spec.get("no_observations"):
        observations = observe_types(source, inputs, sandbox=sandbox)
    result = transform.apply(Program(source), spec.get("seed", 0), inputs=inputs, observations=observations)
    if "refused" in spec:
        assert not result.applied, result.source
        assert spec["refused"] in result.reason
        return
    assert result.applied, result.reason
    expected = path.with_name(path.stem + ".expected.py")
    if os.environ.get("CODEMORPH_UPDATE_FIXTURES"):
        expected.write_text(result.source)
    assert result.source == expected.read_text()
    assert result.sites
    assert inputs, "a rewritten fixture must be executed"
    assert_same_behaviour(sandbox, source, result.source, inputs)


def test_every_fixture_is_covered() -> None:
    for name in TRANSFORMS:
        cases = [p for p in (FIXTURES / name).glob("*.py") if not p.name.endswith(".expected.py")]
        assert cases, name
        for path in cases:
            assert "refused" in _spec(path) or path.with_name(path.stem + ".expected.py").exists(), path
