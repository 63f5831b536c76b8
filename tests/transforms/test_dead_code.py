"""Tests of the ``dead-code`` transform (codemorph.transforms.deadcode.DeadCode).

* every opaque predicate of the catalogue is proved false with z3: the emitted condition
  text itself is parsed and translated to z3 (unbounded integers / strings / sequences);
* fixture pairs in tests/transforms/fixtures/dead-code/ (``NAME.py``, ``NAME.expected.py``, optional
  ``NAME.json`` with ``seed``, ``inputs``, ``refused``), each also run in the sandbox, where
  the inserted block must never execute (line tracing) and behaviour must not change;
* properties over many seeds: scoping unchanged (symtable), docstrings and class bodies
  untouched, unbound parameters never used, determinism.
Set CODEMORPH_UPDATE_FIXTURES=1 to rewrite the expected files (then review the diff).
"""

from __future__ import annotations

import ast

import pytest
import z3
from conftest import (dead_lines, FIXTURES, cruxeval_sample, function_symbols, run_both, run_pairs)

from codemorph import Program, get_transform
from codemorph.transforms.deadcode import BODY_TEMPLATES, PREDICATES, DeadPredicate

NAME = "dead-code"


# ---------------------------------------------------------------------------------------
# z3 proofs of the catalogue


class Untranslatable(Exception):
    pass


def _z3_of(node: ast.AST, var: str, model):
    """Translate a Python expression over ``var`` into z3.  ``model`` is ("int", x) for
    an exact int, ("seq", s) for an exact str/list/tuple (z3 String / Sequence) or
    ("sized", n) for an exact dict (only len() allowed, n >= 0)."""
    kind, sym = model
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return z3.IntVal(node.value)
    if isinstance(node, ast.Name) and node.id == var and kind == "int":
        return sym
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" \
            and len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.Name) \
            and node.args[0].id == var and kind in ("seq", "sized"):
        return z3.Length(sym) if kind == "seq" else sym
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_z3_of(node.operand, var, model)
    if isinstance(node, ast.BinOp):
        left, right = _z3_of(node.left, var, model), _z3_of(node.right, var, model)
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
        if isinstance(node.op, ast.Mult):
            return left * right
        if isinstance(node.op, ast.Mod):
            # SMT-LIB mod equals Python's % only for a positive constant divisor
            if not (isinstance(node.right, ast.Constant) and type(node.right.value) is int and node.right.value > 0):
                raise Untranslatable("% by a non-constant")
            return left % right
        raise Untranslatable(ast.dump(node.op))
    if isinstance(node, ast.Compare):
        ops = {ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b,
               ast.GtE: lambda a, b: a >= b, ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b}
        parts, left = [], _z3_of(node.left, var, model)
        for op, comp in zip(node.ops, node.comparators):
            if type(op) not in ops:
                raise Untranslatable(ast.dump(op))
            right = _z3_of(comp, var, model)
            parts.append(ops[type(op)](left, right))
            left = right
        return z3.And(*parts)
    raise Untranslatable(ast.dump(node))


def prove_never_true(condition: str, var: str = "x") -> z3.CheckSatResult:
    """z3's verdict on ``condition`` (emitted text) being true for some value of ``var``:
    ``unsat`` means false for every value."""
    tree = ast.parse(condition, mode="eval").body
    model = ("int", z3.Int(var))
    constraints = []
    if isinstance(tree, ast.BoolOp) and isinstance(tree.op, ast.And):
        guard, *rest = tree.values
        # the guard must be exactly ``type(var) is T``: T an exact builtin type
        assert isinstance(guard, ast.Compare) and len(guard.ops) == 1 and isinstance(guard.ops[0], ast.Is)
        call, (typ,) = guard.left, guard.comparators
        assert isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "type"
        assert [a.id for a in call.args] == [var] and isinstance(typ, ast.Name)
        if typ.id == "int":
            model = ("int", z3.Int(var))
        elif typ.id == "str":
            model = ("seq", z3.String(var))
        elif typ.id in ("list", "tuple"):
            model = ("seq", z3.Const(var, z3.SeqSort(z3.IntSort())))
        elif typ.id == "dict":
            n = z3.Int("len_" + var)
            model = ("sized", n)
            constraints.append(n >= 0)
        else:
            raise Untranslatable(typ.id)
        fact = z3.And(*[_z3_of(r, var, model) for r in rest])
    else:
        fact = _z3_of(tree, var, model)
    solver = z3.Solver()
    solver.set("timeout", 10_000)
    solver.add(*constraints, fact)
    return solver.check()


@pytest.mark.parametrize("pred", PREDICATES, ids=lambda p: f"{p.guard}:{p.fact}")
def test_predicate_is_false_for_every_value(pred: DeadPredicate) -> None:
    assert prove_never_true(pred.render("x")) == z3.unsat


@pytest.mark.parametrize("condition", [
    "type(x) is int and x * x == 4",
    "type(x) is int and (x * x + x) % 3 == 2",
    "type(x) is str and len(x) == 1",
    "type(x) is list and len(x) * len(x) < len(x) + 1",
    "x * x % 4 == 1",
])
def test_z3_translation_can_find_counterexamples(condition: str) -> None:
    """The proof above is not vacuous: satisfiable conditions are reported sat."""
    assert prove_never_true(condition) == z3.sat


def test_catalogue_shape() -> None:
    assert {p.guard for p in PREDICATES} == {None, "int", "str", "list", "tuple", "dict"}
    for p in PREDICATES:
        text = p.render("v")
        ast.parse(text, mode="eval")
        if p.guard is None:
            assert "type(" not in text and "len(" not in text and p.builtins == ()
        else:
            assert text.startswith(f"type(v) is {p.guard} and ")
            assert set(p.builtins) <= {"type", "len", p.guard}
    for body in BODY_TEMPLATES:
        text = "\n".join(body.lines)
        for banned in ("yield", "await", "global", "nonlocal", "break", "continue", "lambda", "import"):
            assert banned not in text
        assert body.returns == ("return" in text)


# ---------------------------------------------------------------------------------------
# sandbox helpers


def assert_dead_and_equivalent(sandbox, original: str, rewritten: str, inputs, entry: str = "f") -> None:
    dead = dead_lines(original, rewritten)
    assert dead
    for args, o, r in run_both(sandbox, original, rewritten, inputs, entry, trace=True):
        assert o.status in ("returned", "raised"), (args, o)
        assert o.behaviour() == r.behaviour(), f"input {args}: {o.behaviour()} != {r.behaviour()}"
        assert r.lines is not None
        assert not set(dead) & set(r.lines), f"dead block ran on input {args}"


# ---------------------------------------------------------------------------------------
# fixtures


# ---------------------------------------------------------------------------------------
# properties over many seeds

TRICKY = '''
import re

LIMIT = 10
counter = 0


def helper(a, *args, key=None, **kw):
    """Helper doc."""
    global counter
    counter += 1
    size = len(args)
    total = LIMIT + size

    def inner(b):
        nonlocal total
        total += b
        return [total for total in range(b)]

    squares = [n * n for n in args if (m := n)]
    for i, *rest in [args]:
        print(f"{i!r:>{3}}", rest)
    try:
        total += int(key or 0)
    except ValueError as err:
        print("bad", err)
    match kw:
        case {"x": x}:
            total += x
        case _:
            pass
    del squares
    return inner(total % 5), dict(key=key), re.escape(str(a)), size


class Box:
    size = 3

    def grow(self, by):
        self.size += by
        return self.size


async def later(x):
    return x


def gen(xs):
    for x in xs:
        yield x


def f(a, b):
    return helper(a, b, 1, key="2", x=3), Box().grow(b), list(gen([a]))
'''


TRICKY2 = '''
from typing import List


class Point:
    def __init__(self, x, y=0):
        self.x = x
        self.y = y


def f(xs, x=1):
    """Walk xs."""
    count = len(xs)
    found: "List[int]" = []
    for item in xs:
        try:
            if item == 0:
                continue
            if item < 0:
                break
            found.append(Point(x=item, y=x).x)
        finally:
            x += 1
    else:
        found.append(-1)
    first, *rest = found or [None]
    return found, x, first, rest, f"{x!r}", dict(x=x), count
'''


@pytest.mark.parametrize("program", ["TRICKY", "TRICKY2"])
@pytest.mark.parametrize("seed", range(10))
def test_scoping_docstrings_and_classes_unchanged(program: str, seed: int) -> None:
    source = globals()[program]
    result = get_transform(NAME).apply(Program(source), seed, inputs=["1, 2"])
    assert result.applied
    before, after = function_symbols(source), function_symbols(result.source)
    assert len(before) == len(after)
    for old, new in zip(before, after):
        for name, flags in old.items():
            assert new[name] == flags, (name, flags, new[name])
        for name in set(new) - set(old):  # new names are plain locals (or read builtins)
            param, glob, declared, local, free, nonlocal_, imported = new[name]
            assert not (param or declared or free or nonlocal_ or imported)
            assert local or glob
    old_tree, new_tree = ast.parse(source), ast.parse(result.source)
    old_defs = [n for n in ast.walk(old_tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    new_defs = [n for n in ast.walk(new_tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    for o, n in zip(old_defs, new_defs):
        assert ast.get_docstring(o) == ast.get_docstring(n)
        if isinstance(o, ast.ClassDef):  # the class body itself gets nothing
            assert [type(s) for s in o.body] == [type(s) for s in n.body]
            assert [ast.dump(s) for s in o.body if not isinstance(s, ast.FunctionDef)] == \
                [ast.dump(s) for s in n.body if not isinstance(s, ast.FunctionDef)]
    # generators stay generators, coroutines stay coroutines, no yield/await/return added to them
    for o, n in zip(old_defs, new_defs):
        kinds = lambda d: sorted({type(x).__name__ for x in ast.walk(d) if isinstance(x, (ast.Yield, ast.Await))})
        assert kinds(o) == kinds(n)
    if program == "TRICKY":
        gen_new = next(n for n in new_defs if getattr(n, "name", "") == "gen")
        later_new = next(n for n in new_defs if getattr(n, "name", "") == "later")
        assert sum(isinstance(x, ast.Return) for x in ast.walk(gen_new)) == 0
        assert sum(isinstance(x, ast.Return) for x in ast.walk(later_new)) == 1


def test_tricky_program_behaviour_over_seeds(sandbox) -> None:
    for seed in range(0, 40, 3):
        result = get_transform(NAME).apply(Program(TRICKY), seed, inputs=["1, 2"])
        assert_dead_and_equivalent(sandbox, TRICKY, result.source, ["1, 2", "'x', 0", "[], -3"])
    for seed in range(0, 40, 4):
        result = get_transform(NAME).apply(Program(TRICKY2), seed, inputs=["[1, 2]"])
        assert_dead_and_equivalent(sandbox, TRICKY2, result.source, ["[1, 2]", "[3, 0, -1, 4], 5", "[]"])


def test_positions_cover_the_program_and_are_deterministic() -> None:
    """The opaque style inserts anywhere (the natural one only after a computed value)."""
    seen = set()
    for seed in range(24):
        a = get_transform(NAME, style="opaque").apply(Program(TRICKY), seed)
        if seed < 4:
            b = get_transform(NAME, style="opaque").apply(Program(TRICKY), seed)
            assert a.source == b.source and a.sites == b.sites
        seen.add(a.sites[0].line)
    # positions all over helper, inner, grow, later, gen and f get chosen
    assert len(seen) >= 10


def test_unbound_parameters_are_never_the_predicate_variable() -> None:
    src = (FIXTURES / NAME / "unbinding.py").read_text()
    for seed in range(12):
        result = get_transform(NAME, style="opaque").apply(Program(src), seed)
        cond = [line for line in result.source.splitlines() if line.strip().startswith("if ")][0]
        # x is deleted, y is an except-as target: only z may be guarded
        assert "type(z)" in cond, cond


@pytest.mark.parametrize("src, banned", [
    ("def type(o):\n    return 1\n\n\ndef f(a):\n    return a\n", ("type(", "len(")),
    ("int = float\n\n\ndef f(a):\n    return a\n", (" is int",)),
    ("def f(a):\n    len = 3\n    return a\n", ("len(",)),
    ("import builtins\n\n\ndef f(a):\n    return a\n", ("type(", "len(")),
    ("from os import *\n\n\ndef f(a):\n    return a\n", ("type(", "len(")),
])
def test_shadowed_or_reachable_builtins_are_not_used(src: str, banned: tuple[str, ...]) -> None:
    """A builtin the program may rebind is never read by the predicate; when no guarded
    predicate is usable, the predicate is over a fresh int constant (opaque style; the
    natural style refuses these programs: no value is computed in them)."""
    assert not get_transform(NAME).apply(Program(src), 0).applied
    for seed in range(8):
        result = get_transform(NAME, style="opaque").apply(Program(src), seed)
        assert result.applied
        lines = result.source.splitlines()
        i = next(i for i, line in enumerate(lines) if line.strip().startswith("if "))
        cond = lines[i]
        for b in banned:
            assert b not in cond, (src, cond)
        if "type(" in banned:  # fallback: `k = 42` right before `if <fact over k>:`
            const = lines[i - 1].strip()
            var, _, value = const.partition(" = ")
            assert value.isdigit() and var in cond


def test_observed_argument_type_selects_the_guard() -> None:
    src = "def f(text):\n    return text.upper()\n"
    for seed in range(10):
        result = get_transform(NAME, style="opaque").apply(Program(src), seed, inputs=["'abc'"])
        assert "type(text) is str and " in result.source
        result = get_transform(NAME, style="opaque").apply(Program(src), seed, inputs=["[1, 2]"])
        assert "type(text) is list and " in result.source


def test_options_are_validated() -> None:
    with pytest.raises(TypeError):
        get_transform(NAME, where="top")
    with pytest.raises(ValueError, match="style must be"):
        get_transform(NAME, style="clever")


def test_reading_a_global_elsewhere_stays_a_global(sandbox) -> None:
    """The dead body never assigns a name that is global elsewhere in the function (that
    would make every read of it an UnboundLocalError)."""
    src = "count = 5\n\n\ndef f(x):\n    y = sorted([x, count])\n    return y * count\n"
    for seed in range(20):
        result = get_transform(NAME).apply(Program(src), seed)
        func = ast.parse(result.source).body[1]
        stores = {n.id for n in ast.walk(func) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}
        assert "count" not in stores
        assert function_symbols(result.source)[0]["count"][1]  # still global in f
    assert_dead_and_equivalent(sandbox, src, result.source, ["1", "-2"])


# ---------------------------------------------------------------------------------------
# CRUXEval


def test_cruxeval_sample(sandbox) -> None:
    """The default CRUXEval sample (all 800 rows with CODEMORPH_FULL=1): applied on every
    row with a value just computed from its variables (refused elsewhere), same behaviour on the row's input, and the dead block never runs (line tracing);
    ``codemorph generate`` verifies every variant on 50 inputs."""
    rows = cruxeval_sample(3)
    t = get_transform(NAME)
    refused, pairs = [], []
    for row in rows:
        result = t.apply(Program(row["code"]), 0, inputs=[row["input"]])
        if not result.applied:
            refused.append((row["id"], result.reason))
        else:
            pairs.append((NAME, row, result.source))
    # refused only where no value is computed from the program's variables
    assert all(reason.startswith("no natural site") for _, reason in refused), refused
    assert pairs
    done = run_pairs(sandbox, pairs, trace=True)
    ran = [row["id"] for _, row, new, _, r in done if r.lines and set(dead_lines(row["code"], new)) & set(r.lines)]
    assert ran == []
