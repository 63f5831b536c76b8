"""Float arguments are mutated to IEEE-754 specials too, so a comparison rewrite that is
wrong only on NaN is caught (both programs run in the sandbox)."""

from __future__ import annotations

from codemorph import Program
from codemorph.verification.differential import verify

LT = "def f(a, b):\n    if a < b:\n        return 1\n    return 0\n"
NGE = "def f(a, b):\n    if not (a >= b):\n        return 1\n    return 0\n"
GT = "def f(a, b):\n    if b > a:\n        return 1\n    return 0\n"


def test_negated_comparison_differs_on_nan():
    v = verify(Program(LT), Program(NGE), "f", ["1.0, 2.0"])
    assert v.status == "differs"
    assert "nan" in v.counterexample.args
    assert v.counterexample.original.value_repr == "0" and v.counterexample.rewritten.value_repr == "1"


def test_mirrored_comparison_stays_equivalent_with_nan_inputs():
    v = verify(Program(LT), Program(GT), "f", ["1.0, 2.0"])
    assert v.status == "equivalent"
