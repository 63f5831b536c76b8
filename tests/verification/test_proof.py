"""Proof mode: Z3 proofs of changed regions (codemorph.proof) and verify(..., prove=True)."""

from __future__ import annotations

import libcst as cst
import pytest

from codemorph import Program
from codemorph.verification.proof import ProofResult, prove_equal, prove_rewrite
from codemorph.sandbox.pool import Limits, Sandbox
from codemorph.verification.differential import verify

LIM = Limits(timeout=5.0, grace=0.3, memory=512 * 1024**2)
INT_X = {"x": {"int"}}


@pytest.fixture(scope="module")
def sb():
    with Sandbox(LIM) as box:
        yield box


def e(text: str) -> cst.BaseExpression:
    return cst.parse_expression(text)


# ------------------------------------------------------------------------------ prove_equal
def test_simplified_condition_is_proved():
    r = prove_equal(e("x > 3 and not x > 10"), e("3 < x <= 10"), INT_X)
    assert r == ProofResult(True, "Z3 proved x > 3 and not x > 10 == (3 < x <= 10) under the observed types (x: int)")


def test_condition_that_does_not_hold_is_refused_with_a_counter_model():
    r = prove_equal(e("x > 3"), e("x >= 3"), INT_X)
    assert not r.proved
    assert r.reason == "Z3 did not prove x > 3 == (x >= 3): counter-model [x = 3]"


@pytest.mark.parametrize("a, b, types", [
    ("(2 - 2)", "0", {}),
    ("a < b", "b > a", {"a": {"int"}, "b": {"int"}}),
    ("len(s + t)", "len(s) + len(t)", {"s": {"str"}, "t": {"str"}}),
    ("x // 2 * 2 + x % 2", "x", INT_X),  # Python floor division by a positive literal
    ("x // -2 * -2 + x % -2", "x", INT_X),  # and by a negative one (floor, not Euclidean)
    ("not (p and q)", "not p or not q", {"p": {"bool"}, "q": {"bool"}}),
    ("1 if x > 0 else 2", "2 if x <= 0 else 1", INT_X),
])
def test_equalities_in_the_fragment(a, b, types):
    assert prove_equal(e(a), e(b), types).proved


@pytest.mark.parametrize("a, b, types, why", [
    ("x", "x + 0", {"x": {"int", "bool"}}, "no single observed type for 'x' (['bool', 'int'])"),
    ("x * 1.0", "x", INT_X, "Float is outside the Z3 fragment"),
    ("x // y", "x // y", {"x": {"int"}, "y": {"int"}}, "// or % by something other than a nonzero integer literal"),
    ("len(xs)", "len(xs)", {"xs": {"list"}}, None),  # proved: same opaque length
    ("x > 0", "x", INT_X, "the two expressions have different types (Bool vs Int)"),
])
def test_fragment_limits(a, b, types, why):
    r = prove_equal(e(a), e(b), types)
    if why is None:
        assert r.proved
    else:
        assert r == ProofResult(False, why)


def test_rebound_builtin_is_refused():
    r = prove_equal(e("len(s)"), e("len(s) + 0"), {"s": {"str"}}, shadowed={"len"})
    assert r == ProofResult(False, "the program rebinds the builtin 'len'")


# ---------------------------------------------------------------------------- prove_rewrite
def test_exchanged_branches_with_negated_test():
    orig = Program("def f(t):\n    if 'a' in t:\n        return 1\n    else:\n        return 2\n", "f")
    new = Program("def f(t):\n    if 'a' not in t:\n        return 2\n    else:\n        return 1\n", "f")
    r = prove_rewrite(orig, new, {"f": {"t": {"str"}}})
    assert r.proved and r.reason.startswith("Z3 proved 'a' in t == not ('a' not in t)")
    wrong = Program("def f(t):\n    if 'a' in t:\n        return 2\n    else:\n        return 1\n", "f")
    assert not prove_rewrite(orig, wrong, {"f": {"t": {"str"}}}).proved


def test_inserted_opaque_predicate_is_proved_dead():
    orig = Program("def f(nums):\n    out = []\n    for n in nums:\n        out.append(n)\n    return out\n", "f")
    new = Program("def f(nums):\n    out = []\n    for n in nums:\n        if type(nums) is list and len(nums) < 0:\n"
                  "            out = None\n        out.append(n)\n    return out\n", "f")
    r = prove_rewrite(orig, new, {"f": {"nums": {"list"}, "out": {"list"}, "n": {"int"}}})
    assert r.proved
    assert "type(nums) is list and len(nums) < 0 is always false" in r.reason
    live = Program(new.source.replace("len(nums) < 0", "len(nums) < 2"), "f")
    r2 = prove_rewrite(orig, live, {"f": {"nums": {"list"}}})
    assert not r2.proved and "constantly false" in r2.reason


def test_names_that_may_be_unbound_under_short_circuit_are_refused():
    orig = Program("def f(x):\n    if x > 0:\n        y = 1\n    return x > 0 and y > 0\n", "f")
    new = Program("def f(x):\n    if x > 0:\n        y = 1\n    return y > 0 and x > 0\n", "f")
    r = prove_rewrite(orig, new, {"f": {"x": {"int"}, "y": {"int"}}})
    assert not r.proved and "short-circuit" in r.reason


# ------------------------------------------------------------------------ verify(prove=True)
def test_verify_proved_and_fallback(sb):
    orig = "def f(x):\n    if x > 3 and not x > 10:\n        return 1\n    return 0\n"
    proved = verify(orig, orig.replace("x > 3 and not x > 10", "3 < x <= 10"), inputs=["5"], sandbox=sb,
                    extra_inputs=5, prove=True, min_inputs=1)
    assert proved.status == "proved" and proved.proved and proved.ok
    assert proved.reason.startswith("Z3 proved")
    # the same pair without proof mode is only tested
    assert verify(orig, orig.replace("x > 3 and not x > 10", "3 < x <= 10"), inputs=["5"], sandbox=sb,
                  extra_inputs=5, min_inputs=1).status == "equivalent"
    # on 6 inputs, fewer than the default minimum of 20: weak, and a proof does not lift it
    few = verify(orig, orig.replace("x > 3 and not x > 10", "3 < x <= 10"), inputs=["5"], sandbox=sb,
                 extra_inputs=5, prove=True)
    assert few.status == "weak" and not few.ok and few.inputs_checked == 6
    # outside the fragment: testing verdict, and the reason says the proof fell back
    other = "def f(x):\n    if x > 3 and not x > 10:\n        return 1.0 * 1\n    return 0\n"
    fb = verify(orig, other.replace("1.0 * 1", "int(1.0)"), inputs=["5"], sandbox=sb, extra_inputs=5, prove=True,
                min_inputs=1)
    assert fb.status == "equivalent" and not fb.proved
    assert fb.reason.startswith("not proved, fell back to testing: ")
    # a real difference stays a difference in proof mode
    bad = verify(orig, orig.replace("x > 3", "x >= 3"), inputs=["5"], sandbox=sb, extra_inputs=20, prove=True)
    assert bad.status == "differs"


def test_proof_upgrades_an_unreached_change(sb):
    orig = "def f(x):\n    if x == 'zz':\n        return 2 - 2\n    return x\n"
    new = "def f(x):\n    if x == 'zz':\n        return 0\n    return x\n"
    tested = verify(orig, new, inputs=["5"], sandbox=sb, extra_inputs=5)
    assert tested.status == "inconclusive"
    proved = verify(orig, new, inputs=["5"], sandbox=sb, extra_inputs=5, prove=True, min_inputs=1)
    assert proved.status == "proved" and proved.coverage.lines_hit == 0
    # fewer inputs than the minimum: the unreached change stays unproved
    assert verify(orig, new, inputs=["5"], sandbox=sb, extra_inputs=5, prove=True).status == "inconclusive"


def test_inverted_if_without_else_and_empty_loop():
    orig = Program("def f(d):\n    for k in d:\n        if k % 2 != 0:\n            d[k] = 0\n    return d\n", "f")
    new = Program("def f(d):\n    for k in d:\n        if not k % 2 != 0:\n            pass\n        else:\n"
                  "            d[k] = 0\n    return d\n", "f")
    r = prove_rewrite(orig, new, {"f": {"d": {"dict"}, "k": {"int"}}})
    assert r.proved and r.reason.startswith("Z3 proved k % 2 != 0 == not (not k % 2 != 0)")
    loop = Program("def f(d):\n    for k in d:\n        for part in ():\n            d = part\n"
                   "        if k % 2 != 0:\n            d[k] = 0\n    return d\n", "f")
    r2 = prove_rewrite(orig, loop, {"f": {"d": {"dict"}, "k": {"int"}}})
    assert r2.proved and "the loop over () never iterates" in r2.reason
    assert not prove_rewrite(orig, Program(loop.source.replace("()", "(1,)"), "f"), {"f": {}}).proved


def test_guard_clause_at_the_end_of_a_loop_body_or_function():
    """invert-if's guard clauses: ``if c: A`` ending a loop body as ``if c2: continue`` then
    ``A``, ending a function as ``if c2: return`` then ``A``; proved when ``c == not c2``."""
    types = {"f": {"d": {"dict"}, "k": {"int"}}}
    orig = Program("def f(d):\n    for k in d:\n        if k % 2 != 0:\n            d[k] = 0\n    return d\n", "f")
    new = Program("def f(d):\n    for k in d:\n        if k % 2 == 0:\n            continue\n        d[k] = 0\n"
                  "    return d\n", "f")
    r = prove_rewrite(orig, new, types)
    assert r.proved and r.reason.startswith("Z3 proved k % 2 != 0 == not (k % 2 == 0)")
    # the same test (not negated), a return where continue belongs, A changed: not proved
    for wrong in (new.source.replace("k % 2 == 0", "k % 2 != 0"), new.source.replace("continue", "return"),
                  new.source.replace("d[k] = 0", "d[k] = 1")):
        assert not prove_rewrite(orig, Program(wrong, "f"), types).proved
    one_line = Program("def f(d):\n    for k in d:\n        if k % 2 == 0: continue\n        d[k] = 0\n"
                       "    return d\n", "f")
    assert prove_rewrite(orig, one_line, types).proved
    orig_fn = Program("def f(k):\n    if k > 3:\n        print(k)\n        return k\n", "f")
    new_fn = Program("def f(k):\n    if k <= 3:\n        return\n    print(k)\n    return k\n", "f")
    assert prove_rewrite(orig_fn, new_fn, {"f": {"k": {"int"}}}).proved
    assert not prove_rewrite(orig_fn, Program(new_fn.source.replace("return\n", "return 0\n", 1), "f"),
                             {"f": {"k": {"int"}}}).proved
