"""Tests of the dead-code family beyond ``dead-code`` itself: the z3 check of the predicate
catalogue inside the library, observed-int predicate variables, :func:`bound_at`, and the
``dead-store``, ``dead-loop`` and ``unused-function`` transforms.

Fixture files live in tests/transforms/fixtures/<transform>/ (``NAME.py``, ``NAME.expected.py``,
``NAME.json`` with ``seed``, ``inputs``, ``observe`` -- collect runtime observations over
the inputs in the sandbox -- or ``refused``).  Every rewritten fixture is run in the
sandbox on its inputs: same behaviour, and the inserted dead lines never execute (line
tracing).  Set CODEMORPH_UPDATE_FIXTURES=1 to rewrite the expected files (then review).
"""

from __future__ import annotations

import ast
import re

import libcst as cst
import pytest
from conftest import (never_run_lines, FIXTURES, cruxeval_sample, function_symbols, inserted_lines, run_both,
                      run_pairs)

from codemorph import Program, get_transform
from codemorph.testing import observe_types
from codemorph.engine.transform import identifiers_in
from codemorph.transforms.deadcode import predicates as deadcode  # the module whose catalogue the transforms read
from codemorph.transforms.deadcode import (PREDICATES, DeadPredicate, bound_at, function_qualnames,
                                           insertion_blocks, prove_predicate, proved_predicates)

TRANSFORMS = ("dead-store", "dead-loop", "unused-function")


# ---------------------------------------------------------------------------------------
# the catalogue is checked by z3 in the library


def test_builtin_catalogue_is_proved() -> None:
    assert proved_predicates() == PREDICATES


@pytest.mark.parametrize("pred, why", [
    (DeadPredicate("int", "{x} * {x} == 4", ""), "true for x = "),
    (DeadPredicate(None, "({x} * {x} + {x}) % 3 == 2", ""), "true for x = "),
    (DeadPredicate("str", "len({x}) * 2 == 6", ""), "true for len(x) = 3"),
    # floor division is in the kit translator's fragment (Python semantics): 14 // 2 == 7
    (DeadPredicate("int", "{x} // 2 == 7", ""), "true for x = 1"),
    (DeadPredicate("int", "{x} % {x} == 1", ""), "cannot be translated"),
])
def test_non_constant_predicates_are_refused_by_z3(pred: DeadPredicate, why: str) -> None:
    ok, reason = prove_predicate(pred)
    assert not ok and why in reason
    assert proved_predicates((pred, PREDICATES[0])) == (PREDICATES[0],)


def test_transforms_never_emit_an_unproved_predicate(monkeypatch) -> None:
    bogus = (DeadPredicate("int", "{x} * {x} == 4", "wrong"), DeadPredicate("str", "len({x}) == 3", "wrong"),
             DeadPredicate(None, "{x} * {x} == 4", "wrong"))
    monkeypatch.setattr(deadcode, "PREDICATES", bogus + (PREDICATES[1],))
    src = "def f(a, b):\n    c = a + 1\n    return a, b, c\n"
    for seed in range(12):
        for name in ("dead-code", "dead-loop"):
            result = get_transform(name, style="opaque").apply(Program(src), seed, inputs=["2, 'abc'"])
            assert result.applied
            assert "== 4" not in result.source and "== 3" not in result.source
            assert re.search(r"type\((\w+)\) is int and \1 \* \1 < 0:", result.source) \
                or "in ():" in result.source, result.source
    # with only unproved predicates left, a predicate-guarded insertion is refused
    monkeypatch.setattr(deadcode, "PREDICATES", bogus)
    result = get_transform("dead-code", style="opaque").apply(Program("def f():\n    return 1\n"), 0)
    assert not result.applied and "proved" in result.reason


# ---------------------------------------------------------------------------------------
# bound_at and observed ints

BOUND = '''def f(a, b=1, *args, key=None, **kw):
    x = 1
    y, (z, *w) = 2, (3, 4)
    import os.path as p, re
    from math import pi
    def g():
        pass
    if a:
        q = 1
        s0 = 0
    for i in args:
        s1 = 0
    with open(a) as fh:
        s2 = 0
    try:
        t = 1
        s3 = 0
    except KeyError as e:
        s4 = 0
    match a:
        case [m]:
            s5 = 0
    del y
    s6 = 0
'''


@pytest.mark.parametrize("marker, expected", [
    ("s0", {"q"}),
    ("s1", {"i"}),
    ("s2", {"fh"}),
    ("s3", {"t"}),
    ("s4", set()),
    ("s5", set()),
    ("s6", set()),
])
def test_bound_at(marker: str, expected: set[str]) -> None:
    module = cst.parse_module(BOUND)
    func = module.body[0]
    common = {"a", "b", "args", "key", "kw", "x", "z", "w", "p", "re", "pi", "g"}  # y is deleted later
    for suite, first, last in insertion_blocks(func):
        for i, stmt in enumerate(suite.body):
            if isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.Assign) \
                    and getattr(stmt.body[0].targets[0].target, "value", None) == marker:
                assert bound_at(func, suite, i) == frozenset(common | expected)
                return
    raise AssertionError(marker)


def test_function_qualnames() -> None:
    src = "def f():\n    def g():\n        pass\n\n\nclass C:\n    def m(self):\n        class D:\n" \
          "            def n(self):\n                pass\n"
    assert sorted(function_qualnames(cst.parse_module(src)).values()) == \
        ["C.m", "C.m.<locals>.D.n", "f", "f.<locals>.g"]


OBSERVED = '''def f(text, limit):
    """Count."""
    out = []
    n = len(text)
    for ch in text:
        out.append(ch * n)
    return out, limit
'''


def test_observed_int_local_is_the_predicate_variable(sandbox) -> None:
    inputs = ["'ab', 'x'", "'', 'y'"]
    obs = observe_types(OBSERVED, inputs, sandbox=sandbox)
    assert obs["f"]["n"] == ["int"] and obs["f"]["limit"] == ["str"]
    chosen = set()
    for seed in range(16):
        result = get_transform("dead-code", style="opaque").apply(Program(OBSERVED), seed, inputs=inputs,
                                                                  observations=obs)
        cond = next(line for line in result.source.splitlines() if line.strip().startswith("if type("))
        line = result.sites[0].line
        if line > 4:  # after `n = len(text)`: n is bound on every path and observed as int
            assert cond.strip().startswith("if type(n) is int and ")
            chosen.add("n")
        else:  # n is not bound yet: a parameter (guard from the harness input types)
            assert "type(n)" not in cond
            chosen.add(cond.split("(")[1].split(")")[0])
    assert "n" in chosen and chosen & {"text", "limit"}


# ---------------------------------------------------------------------------------------
# fixtures


def assert_equivalent_and_dead(sandbox, name: str, original: str, rewritten: str, inputs) -> None:
    dead = set(never_run_lines(name, original, rewritten))
    for args, o, r in run_both(sandbox, original, rewritten, inputs, trace=True):
        assert o.status in ("returned", "raised"), (args, o)
        assert o.behaviour() == r.behaviour(), f"input {args}: {o.behaviour()} != {r.behaviour()}"
        assert r.lines is not None and not dead & set(r.lines), f"dead code ran on input {args}"


# ---------------------------------------------------------------------------------------
# properties over many seeds

TRICKY = (FIXTURES / "dead-store" / "tricky.py").read_text()
TRICKY_LOOP = (FIXTURES / "dead-loop" / "tricky.py").read_text()
TRICKY_INPUTS = ["1, 2", "0, 6", "-3, 0", "'x', 1"]
TRICKY_NAMES = identifiers_in(cst.parse_module(TRICKY))


def _allowed_store_value(node: ast.AST) -> bool:
    """Values a dead store may assign: literals, names, tuples of names, +,-,* and unary -."""
    if isinstance(node, (ast.Constant, ast.Name)):
        return True
    if isinstance(node, (ast.Tuple, ast.List, ast.Dict)):
        return all(_allowed_store_value(e) for e in ast.iter_child_nodes(node) if not isinstance(e, ast.expr_context))
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)) and _allowed_store_value(node.left) \
            and _allowed_store_value(node.right)
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.op, ast.USub) and _allowed_store_value(node.operand)
    return False


@pytest.mark.parametrize("name", TRANSFORMS)
def test_tricky_program_over_seeds(name: str, sandbox) -> None:
    # dead-loop needs a length just computed: its fixture adds `size = len(args)` to helper
    program = TRICKY_LOOP if name == "dead-loop" else TRICKY
    obs = observe_types(program, TRICKY_INPUTS, sandbox=sandbox)
    before = function_symbols(program)
    sources = set()
    for seed in range(8):
        result = get_transform(name).apply(Program(program), seed, inputs=TRICKY_INPUTS, observations=obs)
        assert result.applied, result.reason
        again = get_transform(name).apply(Program(program), seed, inputs=TRICKY_INPUTS, observations=obs)
        assert again.source == result.source and again.sites == result.sites  # deterministic
        sources.add(result.source)
        after = function_symbols(result.source)
        if name == "unused-function":
            assert len(after) > len(before)  # the helper (and its comprehension, if any)
            tree = ast.parse(result.source)
            new_defs = [d.name for d in tree.body if isinstance(d, ast.FunctionDef)] 
            fresh = set(new_defs) - {"helper", "f"}
            assert len(fresh) == 1 and next(iter(fresh)) not in TRICKY_NAMES
            assert ast.dump(ast.parse(TRICKY)) == ast.dump(ast.Module(
                body=[s for s in tree.body if getattr(s, "name", None) not in fresh], type_ignores=[]))
        else:
            assert len(after) == len(before)
            for old, new in zip(before, after):
                for sym, flags in old.items():
                    assert new[sym] == flags, (sym, flags, new[sym])
                for sym in set(new) - set(old):  # only fresh plain locals (or builtins read)
                    assert sym not in TRICKY_NAMES or not new[sym][3]
        if name == "dead-store":
            new = inserted_lines(TRICKY, result.source)
            assert len(new) == 1
            stmt = ast.parse(result.source.splitlines()[new[0] - 1].strip()).body[0]
            assert isinstance(stmt, ast.Assign) and _allowed_store_value(stmt.value), ast.dump(stmt)
            assert stmt.targets[0].id not in TRICKY_NAMES
        if name == "dead-loop":
            new_lines = [result.source.splitlines()[i - 1].strip() for i in inserted_lines(program, result.source)]
            assert new_lines == ["while size < 0:", "size += 1"]
        assert_equivalent_and_dead(sandbox, name, program, result.source, TRICKY_INPUTS)
    # dead-loop inserts only right after a length is computed (one place in its program)
    assert len(sources) == 1 if name == "dead-loop" else len(sources) >= 5


def _dead_stores(src: str, seeds: int = 60, **kwargs) -> set[str]:
    out = set()
    for seed in range(seeds):
        result = get_transform("dead-store").apply(Program(src), seed, **kwargs)
        [line] = inserted_lines(src, result.source)
        out.add(result.source.splitlines()[line - 1].strip())
    return out


def test_dead_store_arithmetic_is_a_next_or_last_index_of_a_proved_int() -> None:
    """CRUXEval variants had ``size = index + index``, ``bound = -n``, ``bound = _ + 1`` and
    ``offset = -x`` over a parameter observed as int (a TypeError for a str caller): the
    only arithmetic stores are the next index after a range/enumerate counter and the last
    index of a length just computed, with or without observations."""
    src = "def f(n, s):\n    m = n * 2\n    return m, s\n"
    obs = {"f": {"n": ["int"], "m": ["int"], "s": ["str"]}}
    for stores in (_dead_stores(src), _dead_stores(src, observations=obs)):
        assert not any(op in store for store in stores for op in ("+", " - ", "*", "= -n", "= -m")), stores
    src = "def f(text):\n    n = len(text)\n    out = []\n    for i in range(n):\n        out.append(i)\n    return out\n"
    stores = _dead_stores(src, seeds=120)
    arithmetic = {s for s in stores if "+" in s or " - " in s}
    assert arithmetic == {"last_index = n - 1", "next_i = i + 1"}


def test_dead_store_never_reads_the_throwaway_loop_variable() -> None:
    """sample_454: ``bound = _ + 1`` read ``_``; no store reads it (nor copies it)."""
    src = "def f(d, count):\n    new_dict = {}\n    for _ in range(count):\n        d = d.copy()\n" \
          "        new_dict = {**d, **new_dict}\n    return new_dict\n"
    stores = _dead_stores(src, seeds=80, observations={"f": {"_": ["int"], "count": ["int"]}})
    assert not any(re.search(r"\b_\b", s.split("=", 1)[1]) for s in stores), stores
    assert "state = ()" not in stores


def test_dead_loop_in_generator_has_no_return() -> None:
    src = (FIXTURES / "dead-loop" / "generator.py").read_text()
    for seed in range(12):
        result = get_transform("dead-loop").apply(Program(src), seed)
        tree = ast.parse(result.source)
        gen = tree.body[0]
        assert not any(isinstance(n, ast.Return) for n in ast.walk(gen))


def test_unused_function_keeps_blank_lines_and_comments() -> None:
    src = (FIXTURES / "unused-function" / "basic.py").read_text()
    for seed in range(6):
        out = get_transform("unused-function").apply(Program(src), seed).source
        assert "# the entry point\ndef f(" in out
        assert "\n\n\n\n" not in out
        assert out.startswith('"""Module doc."""\nfrom __future__ import annotations\n')


# ---------------------------------------------------------------------------------------
# CRUXEval sample


def test_cruxeval_sample(sandbox) -> None:
    """Each transform on every 12th CRUXEval row (offsets 0, 1, 2: 200 programs in all; all
    800 rows for each with CODEMORPH_FULL=1): at most 2 refusals (dead-code and dead-loop:
    only for want of a natural site), each transform applied somewhere, same behaviour on the
    row's input, and the inserted loop / helper body never runs (line tracing)."""
    pairs, refused = [], []
    for k, name in enumerate(TRANSFORMS):
        t = get_transform(name)
        for row in cruxeval_sample(k, step=12):
            result = t.apply(Program(row["code"]), 0, inputs=[row["input"]])
            if result.applied:
                pairs.append((name, row, result.source))
            else:
                refused.append((name, row["id"], result.reason))
    # dead-code and dead-loop refuse a program with no value just computed from its
    # variables (no check over an invented local); the others apply almost everywhere
    natural = ("dead-code", "dead-loop")
    assert all(reason.startswith("no natural site") for name, _, reason in refused if name in natural), refused
    assert len([r for r in refused if r[0] not in natural]) <= 2, refused
    assert {name for name, _, _ in pairs} == set(TRANSFORMS)
    done = run_pairs(sandbox, pairs, trace=True)
    ran = [(name, row["id"]) for name, row, new, _, r in done
           if r.lines and set(never_run_lines(name, row["code"], new)) & set(r.lines)]
    assert ran == []


def test_dead_store_never_extends_an_observable_lifetime(sandbox) -> None:
    """``saved = obj`` would keep ``obj`` alive until the function returns: with a
    ``__del__`` in the program only literals (and ints) are stored."""
    src = ('class Noisy:\n    def __del__(self):\n        print("gone")\n\n\n'
           'def f(n):\n    obj = Noisy()\n    obj = None\n    print("after")\n    return n\n')
    naive = src.replace("    obj = None\n", "    saved = obj\n    obj = None\n")
    from codemorph.sandbox.pool import ExecRequest
    o, r = sandbox.run_batch([ExecRequest(src, "f", "1"), ExecRequest(naive, "f", "1")])
    assert o.stdout == "gone\nafter\n" and r.stdout == "after\ngone\n"  # the hazard is real
    for seed in range(20):
        result = get_transform("dead-store").apply(Program(src), seed)
        value = result.sites[0].description.split(" = ", 1)[1].split("`")[0]
        assert "obj" not in value and "n" != value and "(" not in value.replace("()", ""), value
        assert_equivalent_and_dead(sandbox, "dead-store", src, result.source, ["1"])


def test_with_observations_positions_are_in_functions_that_ran(sandbox) -> None:
    src = ("def never(x):\n    y = len(x)\n    return y\n\n\n"
           "def f(a):\n    b = len(a)\n    return b\n")
    obs = observe_types(src, ["[1]", "[2, 3]"], sandbox=sandbox)
    assert "never" not in obs
    for name in ("dead-code", "dead-store", "dead-loop"):
        lines_without, lines_with = set(), set()
        for seed in range(10):
            lines_without.add(get_transform(name).apply(Program(src), seed).sites[0].line)
            lines_with.add(get_transform(name).apply(Program(src), seed, observations=obs).sites[0].line)
        assert lines_with <= {7, 8} and lines_without & {2, 3}, (name, lines_with, lines_without)


def test_unused_function_is_private_outside_the_harness_contract() -> None:
    # a library module's API (star imports, __all__ checks) must not grow: `apply FILE` adds `_name`
    src = "def f(x):\n    return x\n"
    outside = get_transform("unused-function").apply(Program(src), 0)
    inside = get_transform("unused-function").apply(Program(src), 0, harness=True)
    new_outside = {d.name for d in ast.parse(outside.source).body if isinstance(d, ast.FunctionDef)} - {"f"}
    new_inside = {d.name for d in ast.parse(inside.source).body if isinstance(d, ast.FunctionDef)} - {"f"}
    assert [n.startswith("_") for n in new_outside] == [True]
    assert [n.startswith("_") for n in new_inside] == [False]
    assert {n.lstrip("_") for n in new_outside} == new_inside


#: the names a dead store of each literal may get: a name that fits the value (CRUXEval
#: variants had ``marker = {}``, ``flag = 0``, ``flag = 'done'``, ``last = False``)
FITTING_LITERAL_NAMES = {
    "0": {"count", "total"}, "1": {"step", "count"}, "-1": {"last_index", "found_at"},
    "None": {"prev", "result", "last"}, "''": {"prefix", "buffer"}, "[]": {"seen", "pending"},
    "{}": {"cache", "counts"}, "True": {"found", "changed"}, "False": {"found", "done"},
    "'done'": {"status"},
}


def test_dead_store_gives_a_literal_a_name_that_fits_it() -> None:
    src = "def f(xs):\n    n = len(xs)\n    return n\n"
    seen = set()
    for seed in range(60):
        result = get_transform("dead-store").apply(Program(src), seed)
        stmt = ast.parse(result.source.splitlines()[inserted_lines(src, result.source)[0] - 1].strip()).body[0]
        value = ast.unparse(stmt.value)
        if isinstance(stmt.value, (ast.Name, ast.BinOp)) or (isinstance(stmt.value, ast.Tuple) and stmt.value.elts):
            continue  # a copy of locals: prev = xs, pair = (n, xs); last_index = n - 1
        name = stmt.targets[0].id
        assert name in FITTING_LITERAL_NAMES[value], (name, value)
        seen.add(value)
    assert len(seen) >= 6


def test_dead_store_stores_no_tuple_of_two_unrelated_locals() -> None:
    """``both = (total, out)`` / ``pair = (item, items)`` is no value a person stores: with no
    loop over pairs around the position, no tuple is written (a copy of one local still is)."""
    src = "def f(text, chars):\n    out = text + chars\n    for c in chars:\n        out += c\n    return out\n"
    kinds = set()
    for seed in range(80):
        result = get_transform("dead-store").apply(Program(src), seed)
        stmt = ast.parse(result.source.splitlines()[inserted_lines(src, result.source)[0] - 1].strip()).body[0]
        assert not (isinstance(stmt.value, ast.Tuple) and stmt.value.elts), result.source
        kinds.add(type(stmt.value).__name__)
    assert "Name" in kinds  # copies are still written


def test_dead_store_pairs_only_the_key_and_value_of_the_loop_around_it() -> None:
    """Inside ``for k, v in d.items()`` the loop's own pair may be stored, in its order, as
    ``pair`` or ``entry``; outside that loop's body no tuple is written."""
    src = ("def f(d):\n    total = 0\n    for k, v in d.items():\n        total += v\n"
           "        total -= len(k)\n    return total\n")
    pairs = []
    for seed in range(120):
        result = get_transform("dead-store").apply(Program(src), seed)
        line_no = inserted_lines(src, result.source)[0]
        line = result.source.splitlines()[line_no - 1]
        stmt = ast.parse(line.strip()).body[0]
        if isinstance(stmt.value, ast.Tuple) and stmt.value.elts:
            pairs.append((stmt.targets[0].id, ast.unparse(stmt.value), line[:len(line) - len(line.lstrip())]))
    assert pairs
    assert {value for _, value, _ in pairs} == {"(k, v)"}
    assert {name for name, _, _ in pairs} <= {"pair", "entry"}
    assert {indent for _, _, indent in pairs} == {" " * 8}  # inside the loop's body only


@pytest.mark.parametrize("src, head", [
    # a script without a def: the helper goes before its code, after its imports (Avatar
    # scripts had it at the end, after the code that reads the input and prints)
    ("n = int(input())\nprint(n * 2)\n", ""),
    ("import sys\n\nn = int(sys.stdin.readline())\nprint(n * 2)\n", "import sys\n"),
    ('"""Doc."""\nimport sys\nn = int(sys.stdin.readline())\nprint(n)\n', '"""Doc."""\nimport sys\n'),
    # module code after the last def (a main guard): the helper goes before a def
    ("def main():\n    print(1)\n\n\nif __name__ == '__main__':\n    main()\n", ""),
])
def test_unused_function_goes_before_module_code_never_after_it(src: str, head: str) -> None:
    for seed in range(8):
        out = get_transform("unused-function").apply(Program(src, script=True), seed, harness=True).source
        tree = ast.parse(out)
        helper = next(i for i, s in enumerate(tree.body) if isinstance(s, ast.FunctionDef) and s.name != "main")
        after = tree.body[helper + 1:]
        assert after and not isinstance(tree.body[-1], ast.FunctionDef), out
        assert out.startswith(head + ("\n\n" if head else "") + "def "), out
        assert "\n\n\n\n" not in out


def test_unused_function_goes_neither_next_to_nor_after_a_read_only_harness() -> None:
    """ClassEval: a helper inserted before ``class Test`` (read-only, put back as written,
    blank lines included) was glued to it (``return count`` / ``class Test(...)``); the
    helper goes before the code under test."""
    src = ("import unittest\n\n\nclass Box:\n    def size(self):\n        return 3\n"
           "class Test(unittest.TestCase):\n    def test(self):\n        return Box().size()\n")
    for seed in range(8):
        res = get_transform("unused-function").apply(Program(src, "Test", read_only=frozenset({"Test"})), seed,
                                                     inputs=["Test().test()"], harness=True)
        assert res.applied, res.reason
        tree = ast.parse(res.source)
        assert [type(s).__name__ for s in tree.body] == ["Import", "FunctionDef", "ClassDef", "ClassDef"], res.source
        assert res.source.startswith("import unittest\n\n\ndef "), res.source
