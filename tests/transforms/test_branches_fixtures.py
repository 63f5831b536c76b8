"""Fixture tests of the ``branches`` transforms (``if-to-ternary``, ``ternary-to-if``,
``elif-to-nested``, ``nested-to-elif``, ``mirror-comparison``; ``invert-if`` has its own).

Fixture files live in tests/transforms/fixtures/<transform>/: ``NAME.py`` is the input,
``NAME.expected.py`` the exact expected output, and ``NAME.json`` (optional) holds
``seed``, ``options``, the harness ``inputs`` (both versions run on each in the sandbox and
must behave identically), ``refused`` (a substring of the expected refusal reason), and
``no_observations`` (apply without runtime observations even if the transform wants them).
Runtime observations are collected in the sandbox over ``inputs`` for transforms that
need them (``codemorph.testing.observe_types``).
Set CODEMORPH_UPDATE_FIXTURES=1 to rewrite the expected files (then review the diff).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import (apply_fixture, assert_fixtures_covered, assert_same_behaviour, case_id, fixture_cases,
                      fixture_spec)

from codemorph import get_transform

TRANSFORMS = ("if-to-ternary", "ternary-to-if", "elif-to-nested", "nested-to-elif", "mirror-comparison")


@pytest.mark.parametrize("name, path", fixture_cases(*TRANSFORMS), ids=case_id)
def test_fixture(name: str, path: Path, sandbox) -> None:
    observe = get_transform(name).needs_runtime_types and not fixture_spec(path).get("no_observations")
    spec, source, result = apply_fixture(name, path, sandbox=sandbox, observe=observe)
    if result is None:
        return
    assert result.sites
    inputs = spec.get("inputs", [])
    assert inputs, "a rewritten fixture must be executed"
    assert_same_behaviour(sandbox, source, result.source, inputs)


def test_every_fixture_is_covered() -> None:
    assert_fixtures_covered(*TRANSFORMS)
