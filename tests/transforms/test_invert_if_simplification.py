"""``invert-if`` condition simplification with runtime types, and the z3 proofs behind it
(codemorph.transforms.branches: negate, TypeOracle, prove_identity, proved_identities).

"The proofs are real": the identity table is computed by z3 from a model of each domain
(floats with NaN, sets under inclusion), and the tests show both a proved and a refuted
identity being used / refused by the transform, with behaviour checked in the sandbox on
the inputs that break a naive rewrite (NaN, incomparable sets, user classes).
"""

from __future__ import annotations

import pytest
from conftest import assert_same_behaviour, run_both

from codemorph import Program, get_transform
from codemorph.testing import observe_types
from codemorph.transforms.branches import DOMAINS, prove_identity, proved_identities


def invert(sandbox, src: str, inputs, **options):
    """Apply invert-if with types observed over ``inputs`` and check behaviour on them.
    Unless ``empty_branch`` is given, every ``if`` is inverted (``empty_branch=True``), so
    that each condition below is negated wherever it stands."""
    options.setdefault("empty_branch", True)
    obs = observe_types(src, inputs, sandbox=sandbox)
    result = get_transform("invert-if", **options).apply(Program(src), 0, inputs=inputs, observations=obs)
    assert result.applied, result.reason
    assert_same_behaviour(sandbox, src, result.source, inputs)
    return result


# ---------------------------------------------------------------------------------------
# the z3 table


def test_negation_table_is_what_z3_proves() -> None:
    table = proved_identities("negation")
    ordering, equality = ("<", "<=", ">", ">="), ("==", "!=")
    for op in ordering + equality:
        assert table[("int", op)] and table[("str", op)]
        assert table[("float", op)] == (op in equality)  # NaN breaks the order, not equality
        assert table[("set", op)] == (op in equality)  # the subset order is partial
    assert {d.name for d in DOMAINS} == {"int", "str", "float", "set"}


def test_refuted_identities_come_with_counterexamples() -> None:
    floats = next(d for d in DOMAINS if d.name == "float")
    sets = next(d for d in DOMAINS if d.name == "set")
    ok, why = prove_identity(floats, "negation", "<")
    assert not ok and "NaN" in why
    ok, why = prove_identity(sets, "negation", "<=")
    assert not ok and why.startswith("counterexample")
    assert prove_identity(floats, "mirror", "<") == (True, None)  # NaN compares false both ways
    with pytest.raises(ValueError):
        prove_identity(floats, "inverse", "<")


def test_mirror_table() -> None:
    table = proved_identities("mirror")
    assert all(table[(d, op)] for d in ("int", "str", "float") for op in ("<", "<=", ">", ">=", "==", "!="))


# ---------------------------------------------------------------------------------------
# invert-if with observations

SIMPLE = '''def f(a, b, s, x, ok, xs):
    out = []
    other = {1}
    if a < b:
        out.append(1)
    if s == "q":
        out.append(2)
    if x < 1.5:  # floats: NaN makes not (x < 1.5) differ from x >= 1.5
        out.append(3)
    if x == 2.0:
        out.append(4)
    if a <= b and (ok or s != "z"):
        out.append(5)
    if xs < other:  # sets: a partial order
        out.append(6)
    if xs == other:
        out.append(7)
    if a > 2 or ok:
        out.append(8)
    if a < b < 9:
        out.append(9)
    if ok and xs:  # xs is not a bool: no De Morgan
        out.append(10)
    return out
'''

SIMPLE_INPUTS = ["1, 2, 'q', 1.0, True, {2}", "3, 1, 'z', float('nan'), False, {3}",
                 "2, 2, '', 2.0, True, set()", "5, 7, 'q', -0.0, False, {1, 2}"]


def test_simplification_on_observed_types(sandbox) -> None:
    result = invert(sandbox, SIMPLE, SIMPLE_INPUTS)
    tests = [line.split("#")[0].strip() for line in result.source.splitlines() if line.strip().startswith("if ")]
    assert tests == [
        "if a >= b:",
        'if s != "q":',
        "if x < 1.5:",  # left alone: `not x < 1.5` is not `x >= 1.5` (NaN), and nobody writes it
        "if x != 2.0:",
        'if a > b or (not ok and s == "z"):',
        "if xs < other:",  # left alone: the subset order is partial
        "if xs != other:",
        "if a <= 2 and not ok:",
        "if not a < b < 9:",
        "if not (ok and xs):",
    ]
    assert [s.description.split("negated test ")[1] for s in result.sites] == [
        "(< -> >= (int))", "(== -> != (str))", "(== -> != (float))", "(De Morgan)",
        "(== -> != (set))", "(De Morgan)", "(not)", "(not)"]
    # the inputs that break naive flips are among those checked: NaN, incomparable sets
    naive = SIMPLE.replace("if x < 1.5:", "if not x >= 1.5:").replace("if xs < other:", "if not xs >= other:")
    diffs = [args for args, o, r in run_both(sandbox, SIMPLE, naive, SIMPLE_INPUTS) if o.behaviour() != r.behaviour()]
    assert diffs == SIMPLE_INPUTS[:2]


def test_simplify_off_and_without_observations() -> None:
    plain = get_transform("invert-if", simplify=False, empty_branch=True).apply(
        Program(SIMPLE), 0, observations={"f": {"a": ["int"], "b": ["int"]}})
    assert "if not a < b:" in plain.source  # simplify off: the plain `not` everywhere
    # without observations no name has a type: such comparisons are left alone (never `not a < b`)
    bare = get_transform("invert-if", empty_branch=True).apply(Program(SIMPLE), 0)
    tests = [line.split("#")[0].strip() for line in bare.source.splitlines() if line.strip().startswith("if ")]
    assert tests == ["if a < b:", 'if s == "q":', "if x < 1.5:", "if x == 2.0:", 'if not (a <= b and (ok or s != "z")):',
                     "if xs < other:", "if xs == other:", "if not (a > 2 or ok):", "if not a < b < 9:",
                     "if not (ok and xs):"]
    with pytest.raises(ValueError, match="simplify"):
        get_transform("invert-if", simplify="yes")


GUARDS = '''def f(a, b, s, xs):
    out = []
    for x in xs:
        if x < a:
            out.append(x)
    for t in s:
        if t == "q" and a <= b:  # both
            out.append(t)
    n = 0
    while n < len(xs):
        n += 1
        if xs[n - 1] < a:
            out.append(-n)

    def g(k, m):
        if k != m:
            out.append(k * 2)

    return out, g(a, b), g(b, b)
'''


def test_guard_clauses_are_simplified_too(sandbox) -> None:
    """The guard clause of an ``if`` without ``else`` takes the same simplified negation
    (names observed as int/str); an ``if`` whose comparison has an operand of unknown type
    (an element of a list) is left alone rather than guarded by ``if not xs[n - 1] < a``."""
    result = invert(sandbox, GUARDS, ["1, 2, 'qq', [0, 1, 2]", "2, 2, 'aq', []", "3, 0, '', [5, -1]"],
                    empty_branch=False)
    assert result.source == '''def f(a, b, s, xs):
    out = []
    for x in xs:
        if x >= a:
            continue
        out.append(x)
    for t in s:
        if t != "q" or a > b:
            continue
        # both
        out.append(t)
    n = 0
    while n < len(xs):
        n += 1
        if xs[n - 1] < a:
            out.append(-n)

    def g(k, m):
        if k == m:
            return
        out.append(k * 2)

    return out, g(a, b), g(b, b)
'''
    assert [s.description.split("negated test ")[1] for s in result.sites] == [
        "(< -> >= (int))", "(De Morgan)", "(!= -> == (int))"]


SCOPES = '''LIMIT = 3
shared = 0


def f(a, b):
    global shared
    shared = a
    if shared < b:  # a global: unknown type at this point
        a += 1
    if a < LIMIT:  # a module constant: not a local
        a += 2
    if (c := a * 2) < b:  # walrus operand
        a += 3
    if c < b:  # c is bound by := somewhere: its type may change within a line
        a += 4

    def inner(k):
        if k < b:  # b is free in inner
            return k
        return -k

    total = [n for n in range(a) if not n < 2]
    if a < b: a -= 1
    return a, inner(b - 1), total
'''


def test_names_whose_type_is_not_known_at_the_test(sandbox) -> None:
    result = invert(sandbox, SCOPES, ["1, 5", "4, 2", "0, 0"])
    tests = [line.split("#")[0].strip() for line in result.source.splitlines() if line.strip().startswith("if ")]
    assert tests == [  # each left alone rather than negated as `not x < y` (but the walrus)
        "if shared < b:",
        "if a < LIMIT:",
        "if (c := a * 2) >= b:",  # the walrus's value: int * int
        "if c < b:",
        "if k < b:",
        "if a >= b: pass",  # one-line suite: the test is the first thing on its line
    ]


def test_dynamic_scope_is_not_simplified(sandbox) -> None:
    src = "def f(a, b):\n    if a < b:\n        return eval('a')\n    return b\n"
    obs = observe_types(src, ["1, 2", "3, 1"], sandbox=sandbox)
    assert obs["f"]["a"] == ["int"]
    result = get_transform("invert-if", empty_branch=True).apply(Program(src), 0, observations=obs)
    assert not result.applied and result.source == src
    assert result.reason == ("line 2: negating `a < b` needs both operands' types (NaN, sets and user classes "
                             "break `not a < b` == `a >= b`); left alone rather than write `not a < b`")


BOOLS = '''class Flag:
    def __init__(self, name, value):
        self.name = name
        self.value = value

    def __bool__(self):
        print("bool", self.name)
        return self.value


class Num:
    def __init__(self, v):
        self.v = v

    def __lt__(self, other):
        print("lt", self.v)
        return Flag(f"{self.v}<{other.v}", self.v < other.v)

    def __ge__(self, other):  # inconsistent on purpose: never called by the rewrite
        return Flag("ge", True)


def f(a, b, c, p, q):
    x, y, z = Num(a), Num(b), Num(c)
    out = []
    if x < y and y < z:
        out.append(1)
    if not (x < y or p) and q:
        out.append(2)
    if p and q and not p == q:
        out.append(3)
    return out
'''


def test_de_morgan_keeps_bool_calls_and_short_circuits(sandbox) -> None:
    inputs = [f"{a}, {b}, {c}, {p}, {q}" for a, b, c in ((1, 2, 3), (2, 1, 3), (1, 3, 2))
              for p in (True, False) for q in (True, False)]
    result = invert(sandbox, BOOLS, inputs)
    tests = [line.split("#")[0].strip() for line in result.source.splitlines() if line.strip().startswith("if ")]
    # De Morgan would give `not x < y or not y < z` (user classes: no flip): not (...) instead
    assert tests == ["if not (x < y and y < z):", "if (x < y or p) or not q:",
                     "if not p or not q or p == q:"]
    # the stdout (order of __lt__ and __bool__ calls) differs between inputs: it is compared
    outs = [o.stdout for _, o, _ in run_both(sandbox, BOOLS, result.source, inputs[::4])]
    assert len(set(outs)) == 3
