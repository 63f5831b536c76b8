"""misleading-docstring refuses programs that can read a docstring without spelling
``__doc__`` (``getattr(f, '__d' + 'oc__')`` behind a branch no verification
input reached returned the invented docstring).  Only rewrites."""

from __future__ import annotations

import pytest

from codemorph import Program
from codemorph.transforms.distractors import MisleadingDocstring

BASE = "def f(x):\n    if len(x) * 7919 % 10007 == 1234:\n        return {read}\n    return sorted(x)\n"


@pytest.mark.parametrize("read,why", [
    ("getattr(f, '__d' + 'oc__')", "the program may read docstrings (getattr with a computed attribute name)"),
    ("vars(f)", "the program may read docstrings (it uses vars)"),
    ("f.__dict__", "the program may read docstrings (it uses __dict__)"),
])
def test_dynamic_docstring_reads_are_refused(read, why):
    res = MisleadingDocstring().apply(Program(BASE.format(read=read)), 0)
    assert res.applied is False and res.reason == why


def test_literal_getattr_is_still_rewritten():
    res = MisleadingDocstring().apply(Program(BASE.format(read="getattr(x, 'real')")), 0)
    assert res.applied and res.program.source.splitlines()[1] == '    """Return x sorted from largest to smallest."""'
