"""Tests of the input perturbation search (codemorph.perturb).

Programs run only in the sandbox; the pure parts (distance, mutation operators,
shrinking) are tested on values.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

from codemorph.inputs import format_args, parse_args
from codemorph.perturb import Budget, search, search_many
from codemorph.perturb.distance import args_distance, levenshtein, value_distance
from codemorph.perturb.guided import instrument, read_probes
from codemorph.inputs.mutation import MutationSpace, is_type_changing
from codemorph.perturb.search import literal_seed, program_constants, search_limits
from codemorph.perturb.shrink import shrink, toward
from codemorph.perturb.symbolic import infer_annotation, z3_candidates
from codemorph.engine.program import Program
from codemorph.sandbox.pool import ExecRequest, Sandbox
from paths import SHARED_DATA

SHARED = SHARED_DATA.parent


@pytest.fixture(scope="module")
def sandbox():
    with Sandbox(search_limits()) as sb:
        yield sb


# -- distance -------------------------------------------------------------------------

def test_distance_counts_edit_operations():
    assert value_distance("abc", "abc") == 0
    assert value_distance("abc", "abd") == 1
    assert value_distance("abc", "") == 3
    assert levenshtein("kitten", "sitting") == 3
    assert value_distance([1, 2, 3], [1, 3]) == 1          # one element deleted
    assert value_distance([1, 2, 3], [1, 5, 3]) == 1       # one element replaced
    assert value_distance(["ab", "cd"], ["ab", "cx"]) == 1  # one character inside an element
    assert value_distance({"a": 1, "b": 2}, {"a": 1}) == 1  # missing key
    assert value_distance({"a": 1}, {"a": 2, "c": 3}) == 2
    assert value_distance({1, 2}, {1, 3}) == 1
    assert value_distance(1, True) == 1                     # type change: one replace
    assert value_distance(5, 1000) == 1
    assert args_distance(([1, "ab"], {}), ([2, "b"], {})) == 2


# -- mutation -------------------------------------------------------------------------

literals = st.recursive(
    st.one_of(st.integers(-50, 50), st.text(max_size=5), st.booleans(), st.floats(allow_nan=False, width=32)),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.tuples(inner, inner),
                            st.dictionaries(st.text(max_size=3), inner, max_size=3)),
    max_leaves=8)


@settings(max_examples=60, deadline=None)
@given(st.lists(literals, min_size=1, max_size=3), st.integers(0, 10**6))
def test_mutants_preserve_types(args, seed):
    space = MutationSpace((args, {}), literals=[7, "xy", 2.5])
    rng = random.Random(seed)
    for _ in range(20):
        m = space.mutate((args, {}), rng, steps=rng.randint(1, 3))
        assert not is_type_changing((args, {}), m), (args, m)
        # every mutant is a literal that reads back
        assert parse_args(format_args(*m)) == (m[0], m[1]) or m != m
    for n, m in enumerate(space.neighbours((args, {}))):
        if n > 200:
            break
        assert not is_type_changing((args, {}), m), (args, m)


def test_mutation_is_deterministic_and_uses_program_literals():
    space = MutationSpace((["horse"], {}), literals=["zebra", 42])
    a = [space.mutate((["horse"], {}), random.Random(3)) for _ in range(30)]
    b = [space.mutate((["horse"], {}), random.Random(3)) for _ in range(30)]
    assert a == b
    assert (["zebra"], {}) in list(space.neighbours((["horse"], {})))


def test_type_change_is_opt_in_and_detected():
    seed = ([5, ["a"]], {})
    assert is_type_changing(seed, (["5", ["a"]], {}))
    assert is_type_changing(seed, ([5, [1]], {}))
    assert not is_type_changing(seed, ([6, ["b", "c"]], {}))
    space = MutationSpace(seed, allow_type_change=True)
    assert any(is_type_changing(seed, m) for m in space.neighbours(seed))


def test_program_constants():
    p = Program("def f(x):\n    if x == 'zebra':\n        return -3\n    return x * 2.5 + 7\n")
    assert program_constants(p.module) == ["zebra", -3, 3, 2.5, 7]


# -- shrinking ------------------------------------------------------------------------

def test_shrink_returns_a_strictly_closer_input():
    seed = (["abcdefgh", 10], {})
    found = (["xbcQdeyh", 99], {})           # far from the seed; only the 'Q' matters

    def check(cands):
        return ["Q" in c[0][0] for c in cands]

    small, used = shrink(seed, found, check, budget=300)
    assert "Q" in small[0][0]
    assert args_distance(seed, small) < args_distance(seed, found)
    assert args_distance(seed, small) == 1     # only the inserted Q is left
    assert small == (["abcQdefgh", 10], {})
    assert used <= 300


def test_toward_candidates_are_closer():
    seed = ([[1, 2, 3], {"a": 1}], {})
    found = ([[9, 2], {"a": 5, "b": 2}], {})
    base = args_distance(seed, found)
    cands = toward(seed, found)
    assert cands
    assert all(args_distance(seed, c) <= base for c in cands)
    assert any(args_distance(seed, c) < base for c in cands)


def test_shrinking_in_the_search_reduces_distance(sandbox):
    # any string containing '#' raises; the seed has none.  Found inputs are shrunk to
    # one inserted or replaced character.
    code = "def f(s):\n    if '#' in s:\n        raise ValueError(s)\n    return s.upper()\n"
    found = search(code, "'abcdefghij'", "ValueError", Budget(executions=800, seconds=60), seed=1,
                   sandbox=sandbox)
    assert found
    assert found[0].distance == 1
    assert "#" in parse_args(found[0].input)[0][0]


# -- instrumentation ------------------------------------------------------------------

def test_instrumented_copy_keeps_lines_and_reports_gaps(sandbox):
    code = ("def f(xs, i, d):\n"
            "    a = xs[i]\n"
            "    b = d['k']\n"
            "    xs[0] = 1\n"
            "    return a / (i - 1) + b + xs.index(1)\n")
    inst = instrument(Program(code).module, "f")
    assert inst is not None
    assert inst.code.splitlines()[3] == "    xs[0] = 1"          # a store is left alone
    assert "_cmq_sub(xs, i, " in inst.code.splitlines()[1]
    o = sandbox.run(ExecRequest(inst.code, inst.entry_point, "[5, 6, 7], 1, {'k': 2}"))
    assert o.status == "raised" and o.exception.type == "ZeroDivisionError"
    probes, rest = read_probes(o.stdout)
    assert rest == ""
    assert min(probes["IndexError"].values()) == 2             # len 3 - index 1
    assert min(probes["ZeroDivisionError"].values()) == 0
    assert min(probes["KeyError"].values()) == 2               # present: 1 + one key
    # the original program raises the same class on the same input
    o2 = sandbox.run(ExecRequest(code, "f", "[5, 6, 7], 1, {'k': 2}"))
    assert o2.exception.type == "ZeroDivisionError" and o2.exception.line == 5


# -- each strategy finds what the others cannot ---------------------------------------

LITERAL_PROGRAM = ("def f(s):\n"
                   "    table = {'zebra': [1]}\n"
                   "    return table.get(s, [1, 2])[1]\n")
GRADIENT_PROGRAM = ("def f(s):\n"
                    "    n = s.count('a')\n"
                    "    return 'wxyz'[n]\n")  # four 'a' needed: four edits of 'bb'; no int literal
ARITH_PROGRAM = ("def f(x):\n"
                 "    return 100 / ((x * 7919) % 10007 - 1)\n")

BUDGET = Budget(executions=1000, seconds=120)


@pytest.mark.parametrize("program,seed_input,target,winner", [
    (LITERAL_PROGRAM, "'horse'", "IndexError", "mutation"),
    (GRADIENT_PROGRAM, "'bb'", "IndexError", "guided"),
    (ARITH_PROGRAM, "5", "ZeroDivisionError", "z3"),
])
def test_each_strategy_finds_what_the_others_cannot(sandbox, program, seed_input, target, winner):
    results = {}
    for strategy in ("mutation", "guided", "z3"):
        results[strategy] = search(program, seed_input, target, BUDGET, seed=0, strategies=(strategy,),
                                   sandbox=sandbox)
    assert results[winner], f"{winner} should find {target}"
    for other in set(results) - {winner}:
        assert results[other] == [], f"{other} unexpectedly found {results[other][0].input}"
    p = results[winner][0]
    assert p.strategy == winner and p.exception.type == target
    # confirmed on the original program, in the sandbox
    o = sandbox.run(ExecRequest(program, "f", p.input))
    assert o.status == "raised" and o.exception.type == target and o.exception.line == p.exception.line


def test_z3_solves_the_modular_condition():
    cands = z3_candidates(Program(ARITH_PROGRAM), ([5], {}))
    assert any((c[0][0] * 7919) % 10007 == 1 for c in cands)


def test_z3_index_against_loop_bound():
    code = "def f(nums, n):\n    total = 0\n    for i in range(n):\n        total += nums[i]\n    return total\n"
    cands = z3_candidates(Program(code), ([[1, 2, 3], 2], {}))
    assert cands
    # every candidate makes the loop run past the end of the list, at distance 2 at most
    assert all(c[0][1] > len(c[0][0]) for c in cands)
    assert all(args_distance(([[1, 2, 3], 2], {}), c) <= 2 for c in cands)


def test_annotation_inference():
    assert infer_annotation([1, 2]) == "list[int]"
    assert infer_annotation({"a": [1, "x"]}) == "dict[str, list[int | str]]"
    assert infer_annotation((1, "a")) == "tuple[int, str]"


# -- whole search ---------------------------------------------------------------------

def test_search_all_targets_and_output_change(sandbox):
    code = "def f(nums, i):\n    return nums[i] // nums[0]\n"
    rep = search_many(code, "[3, 4, 5], 1", ["IndexError", "ZeroDivisionError", "any-exception", "output-change"],
                      Budget(executions=600, seconds=60), seed=0, sandbox=sandbox)
    ie = rep.found["IndexError"][0]
    assert ie.distance == 1 and ie.exception.type == "IndexError" and ie.output is None
    zd = rep.found["ZeroDivisionError"][0]
    assert zd.distance == 1 and parse_args(zd.input)[0][0][0] == 0
    oc = rep.found["output-change"][0]
    assert oc.status == "returned" and oc.output != "1"
    o = sandbox.run(ExecRequest(code, "f", oc.input))
    assert o.value_repr == oc.output
    assert [p.distance for p in rep.found["any-exception"]] == sorted(p.distance for p in rep.found["any-exception"])


def test_search_is_deterministic(sandbox):
    code = "def f(text, k):\n    words = text.split()\n    return words[k].upper()\n"
    runs = [search_many(code, "'a bc d', 1", ["IndexError", "AttributeError", "output-change"],
                        Budget(executions=300, seconds=120), seed=7, want=3, sandbox=sandbox) for _ in range(2)]
    a = {t: [p.input for p in ps] for t, ps in runs[0].found.items()}
    b = {t: [p.input for p in ps] for t, ps in runs[1].found.items()}
    assert a == b and a["IndexError"]


def test_type_changing_inputs_only_when_asked(sandbox):
    code = "def f(x):\n    return x + 1\n"
    assert search(code, "5", "TypeError", Budget(executions=300, seconds=60), sandbox=sandbox) == []
    found = search(code, "5", "TypeError", Budget(executions=300, seconds=60), sandbox=sandbox,
                   allow_type_change=True)
    assert found and all(p.type_changing for p in found)


def test_timeouts_and_memory_are_never_exceptions(sandbox):
    loop = "def f(n):\n    while n != 0:\n        n -= 2\n    return n\n"
    assert search(loop, "4", "any-exception", Budget(executions=200, seconds=60), sandbox=sandbox) == []
    bomb = "def f(n):\n    return len('x' * (n * 10**9))\n"
    found = search_many(bomb, "0", ["any-exception", "MemoryError"], Budget(executions=100, seconds=60),
                        sandbox=sandbox).found
    assert found["MemoryError"] == []
    assert all(p.exception.type != "MemoryError" for p in found["any-exception"])


def test_recursion_error_only_when_depth_independent(sandbox):
    code = "def f(n):\n    if n == 0:\n        return 0\n    return 1 + f(n - 1)\n"
    found = search(code, "9000", "RecursionError", Budget(executions=300, seconds=60), sandbox=sandbox)
    assert found
    for p in found:
        n = parse_args(p.input)[0][0]
        assert n < 0 or n > 19990, p.input       # 10000 < n < 19990 would depend on stack depth


def test_non_literal_seed_is_evaluated_in_the_sandbox(sandbox):
    p = Program("def f(s, c):\n    return s.count(c)\n")
    assert literal_seed(sandbox, p, "''.join(['A'] * 3), 'a'.upper()") == "'AAA', 'A'"


# -- dataset job ----------------------------------------------------------------------

def test_perturb_dataset_rows(tmp_path):
    from codemorph.jobs.perturb import PerturbConfig, perturb_dataset
    src = tmp_path / "in.jsonl"
    rows = [
        {"id": "a", "code": "def f(xs):\n    return xs[2] * 2\n", "input": "[1, 2, 3]", "output": "6"},
        {"id": "b", "code": "def f(d, k):\n    return d[k]\n", "input": "{'x': 1}, 'x'", "output": "1"},
        {"id": "c", "code": "def f(:\n", "input": "1", "output": "1"},
    ]
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out.jsonl"
    cfg = PerturbConfig(exceptions=("IndexError", "KeyError"), output_changes=2,
                        budget=Budget(executions=300, seconds=60), workers=1)
    summary = perturb_dataset(src, out, cfg)
    got = [json.loads(line) for line in out.read_text().splitlines()]
    ids = [r["id"] for r in got]
    assert len(ids) == len(set(ids))
    assert "a:perturb:IndexError:0" in ids and "b:perturb:KeyError:0" in ids
    assert "a:perturb:output-change:1" in ids
    assert [r["original_id"] for r in got] == sorted(r["original_id"] for r in got)  # input order
    for r in got:
        assert r["kind"] == "input-perturbation" and r["strategy"] in ("mutation", "guided", "z3")
        assert r["type_changing"] is False
        if r["exception"]:
            assert r["output"] is None and r["exception"]["type"] == r["target"]
        else:
            assert r["output"] is not None
    rejects = [json.loads(x) for x in (tmp_path / "out.rejects.jsonl").read_text().splitlines()]
    assert [r["id"] for r in rejects] == ["c"] and rejects[0]["stage"] == "parse"
    assert summary.per_target["IndexError"].programs == 1 and summary.per_target["KeyError"].programs == 1
    assert summary.per_target["output-change"].programs == 2
    checker = SHARED / "checks" / "check_dataset.py"
    if checker.exists():  # the independent checker re-executes every row
        res = subprocess.run([sys.executable, str(checker), str(out)], capture_output=True, text=True)
        assert res.returncode == 0, res.stdout


def test_empty_seed_containers_may_receive_program_typed_elements(sandbox):
    code = "def f(nums):\n    return [n * 2 for n in nums]\n"
    found = search(code, "[]", "output-change", Budget(executions=100, seconds=60), sandbox=sandbox)
    assert found and not found[0].type_changing
    assert all(p.distance == 1 for p in found)
    assert ("[2]", "[4]") in {(p.input, p.output) for p in found}   # the program's own literal 2


def test_perturb_command(tmp_path):
    import typer
    from typer.testing import CliRunner

    from codemorph.cli.perturb import perturb_command

    app = typer.Typer()
    app.command("perturb")(perturb_command)
    app.command("noop")(lambda: None)  # a second command keeps typer's subcommand parsing
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"id": "x", "code": "def f(s):\n    return int(s)\n", "input": "'12'",
                               "output": "12"}) + "\n")
    out = tmp_path / "out.jsonl"
    res = CliRunner().invoke(app, ["perturb", str(src), "-o", str(out), "--exception", "ValueError",
                                   "--output-changes", "0", "--budget", "200", "--workers", "1"])
    assert res.exit_code == 0, res.output
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == ["x:perturb:ValueError:0"]
    assert rows[0]["exception"]["type"] == "ValueError" and rows[0]["distance"] == 1
    assert "ValueError" in res.output and "programs reached" in res.output
    bad = CliRunner().invoke(app, ["perturb", str(src), "-o", str(out), "--exception", "not a class"])
    assert bad.exit_code == 2


CROSSHAIR_PROGRAM = ("def f(s):\n"
                     "    if s[::-1] + 'x' == 'abcx':\n"
                     "        raise ValueError(s)\n"
                     "    return len(s)\n")


def test_crosshair_finds_what_the_others_cannot(sandbox):
    from codemorph.perturb.symbolic import crosshair_problem
    problem = crosshair_problem(sandbox)
    if problem:
        pytest.skip(problem)
    budget = Budget(executions=1000, seconds=120, crosshair_seconds=15.0)  # wall clock: slack for a loaded machine
    for strategy in ("mutation", "guided", "z3"):
        assert search(CROSSHAIR_PROGRAM, "'zz'", "ValueError", budget, strategies=(strategy,), sandbox=sandbox) == []
    found = search(CROSSHAIR_PROGRAM, "'zz'", "ValueError", budget, strategies=("crosshair",), sandbox=sandbox)
    assert found and found[0].input == "'cba'" and found[0].strategy == "crosshair"
    o = sandbox.run(ExecRequest(CROSSHAIR_PROGRAM, "f", found[0].input))
    assert o.status == "raised" and o.exception.type == "ValueError"


def test_type_changing_rows_are_labelled(tmp_path):
    from codemorph.jobs.perturb import PerturbConfig, perturb_dataset
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"id": "t", "code": "def f(x):\n    return x + 1\n", "input": "5", "output": "6"}) + "\n")
    out = tmp_path / "out.jsonl"
    base = dict(exceptions=("TypeError",), output_changes=0, budget=Budget(executions=200, seconds=60), workers=1)
    perturb_dataset(src, out, PerturbConfig(**base))
    assert out.read_text() == ""                      # type-preserving: 5 + 1 never raises
    perturb_dataset(src, out, PerturbConfig(**base, allow_type_change=True))
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert rows and all(r["type_changing"] is True and r["exception"]["type"] == "TypeError" for r in rows)
