"""Identifiers Python folds to another spelling (NFKC, PEP 3131): ``ａ`` is ``a`` to the
interpreter but another name to libcst, so every transform refuses such a program instead of
analysing its scopes under the wrong names."""

from __future__ import annotations

import pytest

from codemorph.engine import Program, get_transform
from codemorph.engine.transform import unnormalized_identifier

# ``ａ`` (fullwidth) and ``a`` are one local: g rebinds it through ``nonlocal a``
FOLDED = "def f(x):\n    ａ = 1\n    def g():\n        nonlocal a\n        a += x\n    g()\n    return ａ\n"


def test_the_folded_spelling_is_found():
    assert unnormalized_identifier(FOLDED) == ("ａ", "a")
    assert unnormalized_identifier("def f(x):\n    return x  # ａ in a comment\n") is None
    assert unnormalized_identifier("def f(x):\n    return 'ａ' + x\n") is None  # a string, not a name
    assert unnormalized_identifier("def f(é):\n    return é\n") is None  # already NFKC


@pytest.mark.parametrize("name", ["dead-code", "rename-locals", "for-to-while", "invert-if", "unused-function"])
def test_every_transform_refuses_a_program_with_a_folded_identifier(name):
    res = get_transform(name).apply(Program(FOLDED), 0)
    assert not res.applied and res.source == FOLDED
    assert res.reason == ("the program spells identifier 'ａ', which Python reads as 'a' (NFKC): "
                          "scopes are not analysed under that folding")


def test_a_program_with_plain_non_ascii_names_is_still_rewritten():
    res = get_transform("rename-locals").apply(Program("def f(x):\n    é = x\n    return é\n"), 0)
    assert res.applied and "é" not in res.source


def test_an_entry_point_spelled_in_a_folded_form_is_found():
    # Python defines f for ``def ｆ``: the row is the program's own (its original row is
    # written), while transforms refuse it as above
    wide = Program("def ｆ(x):\n    return x + 1\n", "f")
    assert wide.functions == ("ｆ",) and wide.has_entry_point()
    assert not Program("def g(x):\n    return x\n", "f").has_entry_point()
    assert not Program("def ｇ(x):\n    return x\n", "f").has_entry_point()
