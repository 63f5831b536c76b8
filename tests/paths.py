"""Where the tests find things: the one place that knows the layout around the tests.

* :data:`REPO` -- the checkout (the folder holding ``pyproject.toml``);
* :data:`PACKAGE_DATA` -- ``codemorph/data`` in the checkout;
* :data:`SHARED_DATA` -- the read-only shared data next to the checkout,
  ``<repo>/../shared/data`` (CRUXEval rows, the CodeMind layout, prediction files);
* the test data folders: :data:`TRANSFORM_FIXTURES`, :data:`SCORING_FIXTURES`, :data:`HOSTILE`.

Tests that need shared data call :func:`shared` (skips the test, naming the missing path)
or decorate with :func:`needs_shared` (the same skip as a marker).  Test files import this
module as ``from paths import ...`` (tests/ is on ``sys.path`` through tests/conftest.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TESTS = REPO / "tests"
PACKAGE_DATA = REPO / "codemorph" / "data"
SHARED_DATA = REPO.parent / "shared" / "data"
CRUXEVAL = SHARED_DATA / "cruxeval" / "cruxeval.jsonl"
CODEMIND_LAYOUT = SHARED_DATA / "codemind-layout"
TRANSFORM_FIXTURES = TESTS / "transforms" / "fixtures"
SCORING_FIXTURES = TESTS / "scoring" / "fixtures"
HOSTILE = TESTS / "sandbox" / "hostile"


def _skip_reason(path: Path) -> str:
    return f"shared data not available: {path} (expected at <repo>/../shared/data)"


def shared(*parts: str) -> Path:
    """The path ``SHARED_DATA / parts...``; skips the calling test (with the missing path
    as the visible reason) when it does not exist."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(_skip_reason(path))
    return path


def needs_shared(*parts: str) -> pytest.MarkDecorator:
    """A ``skipif`` marker: skip the test when ``SHARED_DATA / parts...`` is absent."""
    path = SHARED_DATA.joinpath(*parts)
    return pytest.mark.skipif(not path.exists(), reason=_skip_reason(path))
