"""The authoring kit's Z3 translator (codemorph.authoring.Z3Terms) gives ``//`` and ``%``
Python's floor semantics for every sign of the operands (Z3's own div/mod are Euclidean),
and proof mode and the perturbation search's Z3 strategy, which use it, are right on
negative divisors."""

from __future__ import annotations

import itertools

import libcst as cst
import pytest

z3 = pytest.importorskip("z3")

from codemorph.authoring import Untranslatable, Z3Terms, floor_div, floor_mod  # noqa: E402
from codemorph.engine.program import Program  # noqa: E402
from codemorph.perturb.symbolic import z3_candidates  # noqa: E402
from codemorph.verification.proof import prove_equal  # noqa: E402

GRID = list(itertools.product(range(-9, 10), [b for b in range(-4, 5) if b != 0]))


class _Ints(Z3Terms):
    """Every name is a Z3 integer of that name."""

    def name(self, node: cst.Name):
        return self.z3.Int(node.value)


def _value(term, **values) -> int:
    subs = [(z3.Int(k), z3.IntVal(v)) for k, v in values.items()]
    return z3.simplify(z3.substitute(term, *subs)).as_long()


@pytest.mark.parametrize("op", ["//", "%"])
def test_variable_operands_follow_python_floor_semantics(op):
    term = _Ints(z3, division="any").term(cst.parse_expression(f"a {op} b"))
    for a, b in GRID:
        expected = a // b if op == "//" else a % b
        assert _value(term, a=a, b=b) == expected, (a, op, b)


@pytest.mark.parametrize("op", ["//", "%"])
def test_literal_operands_follow_python_floor_semantics(op):
    for a, b in GRID:
        term = _Ints(z3).term(cst.parse_expression(f"{a} {op} {b}"))
        expected = a // b if op == "//" else a % b
        assert z3.simplify(term).as_long() == expected, (a, op, b)


def test_floor_helpers_on_a_negative_literal_divisor():
    a = z3.Int("a")
    for x in range(-7, 8):
        assert _value(floor_div(z3, a, z3.IntVal(-2), -2), a=x) == x // -2
        assert _value(floor_mod(z3, a, z3.IntVal(-2), -2), a=x) == x % -2


def test_literal_division_refuses_a_variable_or_zero_divisor():
    for text in ("a // b", "a % b", "a % 0"):
        with pytest.raises(Untranslatable, match="nonzero integer literal"):
            _Ints(z3, division="literal").term(cst.parse_expression(text))


def test_proof_of_a_negative_modulo_uses_python_semantics():
    types = {"x": {"int"}}
    # Python: x % -3 is in {-2, -1, 0}; Euclidean mod would make it non-negative
    always = prove_equal(cst.parse_expression("x % -3 <= 0"), cst.parse_expression("True"), types)
    assert always.proved, always.reason
    never = prove_equal(cst.parse_expression("x % -3 >= 1"), cst.parse_expression("False"), types)
    assert never.proved, never.reason
    wrong = prove_equal(cst.parse_expression("x % -3"), cst.parse_expression("x % 3"), types)
    assert not wrong.proved


def test_perturbation_candidates_for_a_negative_modulo_index_raise_index_error():
    # "abc"[a % -5] raises IndexError only when a % -5 == -4 (Python), i.e. a = 1 (mod 5)
    program = Program('def f(a):\n    return "abc"[a % -5]\n', "f")
    candidates = z3_candidates(program, ([0], {}))
    assert candidates
    for args, kwargs in candidates:
        (a,) = args
        assert a % -5 == -4, a
