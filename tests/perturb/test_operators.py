"""Tests of the perturbation operators added for CRUXEval's hard cases, of the cost of the
instrumented copy in the sandbox, and of the per-row API used by ``generate``.

Programs run only in the sandbox.
"""

from __future__ import annotations

import json

import pytest

from codemorph.rows.dataset import SourceRow
from codemorph.perturb import Budget, search
from codemorph.perturb.guided import PREFIX, instrument, read_probes
from codemorph.jobs.perturb import PerturbConfig, perturb_dataset, perturb_row, search_row
from codemorph.inputs.mutation import BIG_INTS, MAX_GROWTH, MutationSpace, is_type_changing
from codemorph.perturb.search import search_limits
from codemorph.engine.program import Program
from codemorph.sandbox.pool import ExecRequest, Sandbox

# the words that make the sandbox child check every loaded module after each request
# (``_REACH_WORDS`` in codemorph/sandbox/_worker.py); the instrumentation must add none of them
REACH_WORDS = ("import", "__", "exec", "eval", "compile", "getattr", "setattr", "delattr", "vars", "globals",
               "locals", "breakpoint", "help", "sys")


@pytest.fixture(scope="module")
def sandbox():
    with Sandbox(search_limits()) as sb:
        yield sb


def _neighbours(seed: str, literals=()) -> list:
    from codemorph.inputs import parse_args
    args = parse_args(seed)
    space = MutationSpace(args, list(literals))
    return list(space.neighbours(args))


# -- operators ------------------------------------------------------------------------

def test_digits_of_numbers_are_string_characters():
    # ``text.endswith(suffix + str(num))``: the digit 3 must be insertable into the text
    ns = _neighbours("'friends and love', 'and', 3")
    assert (["friends and love3", "and", 3], {}) in ns


def test_literal_length_strings_fill_an_empty_seed_dict():
    # ``len(key) == 3`` in the program: an empty seed dict may receive a 3-character key
    ns = _neighbours("'a', {}", literals=[3, 0])
    assert (["a", {"aaa": 0}], {}) in ns
    assert not any(is_type_changing((["a", {}], {}), n) for n in ns)


def test_resize_to_a_program_length_may_pass_the_growth_limit():
    # ``len(first) < 10``: the 3-element seed list can be repeated up to 10 elements
    ns = _neighbours("[1, 2, 1]", literals=[10])
    sizes = {len(n[0][0]) for n in ns}
    assert 10 in sizes and 11 in sizes
    assert 3 + MAX_GROWTH < 10


def test_big_integers_only_for_whole_integer_arguments():
    ns = _neighbours("[5], 5")
    assert ([[5], BIG_INTS[0]], {}) in ns and ([[5], BIG_INTS[1]], {}) in ns
    assert not any(abs(n[0][0][0]) >= 2**63 for n in ns if n[0][0])   # not inside the list


def test_big_integer_reaches_overflow_error(sandbox):
    code = "def f(text, n):\n    return text.ljust(n, '*')[:3]\n"
    found = search(code, "'ab', 4", "OverflowError", Budget(executions=200, seconds=60), sandbox=sandbox)
    assert found and found[0].input == f"'ab', {BIG_INTS[0]}"
    assert found[0].exception.type == "OverflowError" and found[0].distance == 1


def test_big_integer_timeouts_do_not_end_the_search(sandbox):
    # both integers are loop bounds: their big neighbours time out, the search goes on
    code = ("def f(a, b, c, xs):\n"
            "    t = 0\n"
            "    for i in range(a):\n"
            "        t += i\n"
            "    for j in range(b):\n"
            "        t += j\n"
            "    for k in range(c):\n"
            "        t += k\n"
            "    return xs[t]\n")
    found = search(code, "1, 1, 1, [1, 2]", "IndexError", Budget(executions=120, seconds=60), sandbox=sandbox)
    assert found and found[0].distance == 1


# -- instrumentation cost -------------------------------------------------------------

def test_instrumentation_adds_no_module_reaching_words():
    code = ("def f(xs, d, s):\n"
            "    a = xs.pop(0) + xs[1] // len(s)\n"
            "    d.popitem()\n"
            "    s.remove(1)\n"
            "    return xs.index(a) % 2\n")
    inst = instrument(Program(code).module, "f")
    assert inst is not None
    added = inst.code[len(code):]
    assert [w for w in REACH_WORDS if w in added] == []
    for line in inst.code.splitlines()[1:5]:
        assert [w for w in REACH_WORDS if w in line] == []
    assert PREFIX + "pop(xs, " in inst.code and PREFIX + "popitem(d, " in inst.code


def test_instrumented_methods_probe_and_behave_like_the_originals(sandbox):
    code = ("def f(xs, d, s):\n"
            "    out = [xs.pop(), d.pop('k'), d.popitem()]\n"
            "    s.remove(3)\n"
            "    return out, xs.index(2), sorted(s)\n")
    inst = instrument(Program(code).module, "f")
    args = "[1, 2, 5], {'k': 1, 'j': 2}, {3, 4}"
    o = sandbox.run(ExecRequest(inst.code, inst.entry_point, args))
    plain = sandbox.run(ExecRequest(code, "f", args))
    probes, rest = read_probes(o.stdout)
    assert rest == "" and o.value_repr == plain.value_repr == "([5, 1, ('j', 2)], 1, [4])"
    assert min(probes["IndexError"].values()) == 3      # pop() on 3 elements
    assert min(probes["ValueError"].values()) == 1      # one 2 in xs
    assert sorted(probes["KeyError"].values()) == [1, 1, 3]   # popitem on 1 key, 3 in s, 'k' present
    bad = sandbox.run(ExecRequest(inst.code, inst.entry_point, "[1], {'j': 2}, {3}"))
    assert bad.status == "raised" and bad.exception.type == "KeyError"
    assert read_probes(bad.stdout)[0]["KeyError"] and min(read_probes(bad.stdout)[0]["KeyError"].values()) == 0


# -- per-row API ----------------------------------------------------------------------

def test_perturb_row_gives_the_rows_the_job_writes(tmp_path):
    rows = [{"id": "a", "code": "def f(xs, i):\n    return xs[i] * 2\n", "input": "[1, 2, 3], 1", "output": "4"},
            {"id": "b", "code": "def f(:\n", "input": "1", "output": "1"}]
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    cfg = PerturbConfig(exceptions=("IndexError", "any-exception"), output_changes=1,
                        budget=Budget(executions=150, seconds=60), workers=1, seed=3)
    perturb_dataset(src, tmp_path / "out.jsonl", cfg)
    written = [json.loads(x) for x in (tmp_path / "out.jsonl").read_text().splitlines()]
    a = SourceRow("a", rows[0]["code"], rows[0]["input"], rows[0]["output"], "f", 1)
    with Sandbox(search_limits()) as sb:
        got = perturb_row(a, cfg, sb)
        bad = search_row(SourceRow("b", "def f(:\n", "1", "1", "f", 2), cfg, sb)
    assert got == [r for r in written if r["original_id"] == "a"]
    assert {r["target"] for r in got} == {"IndexError", "output-change"}
    assert bad.rows == [] and bad.rejects and bad.rejects[0].stage == "parse" and not bad.searched


# -- non-literal arguments ------------------------------------------------------------

def test_non_literal_arguments_are_kept_verbatim(sandbox):
    # CRUXEval sample_364: the predicate is a lambda; only the list is perturbed
    code = ("def f(nums, verdict):\n"
            "    res = [x for x in nums if x != 0]\n"
            "    result = [[x, verdict(x)] for x in res]\n"
            "    if result:\n"
            "        return result\n"
            "    return 'error - no numbers or all zeros!'\n")
    found = search(code, "[0, 3, 0, 1], lambda x: x < 2", "output-change", Budget(executions=80, seconds=60),
                   sandbox=sandbox, max_results=3)
    assert found and all(p.input.endswith(", (lambda x: x < 2)") for p in found)
    assert found[0].distance == 1 and not found[0].type_changing
    assert (found[0].input, found[0].output) == ("[0, 3, 0], (lambda x: x < 2)", "[[3, False]]")


def test_an_input_without_any_literal_is_still_rejected(sandbox):
    from codemorph.errors import InputError
    with pytest.raises(InputError):
        search("def f(xs):\n    return list(xs)\n", "range(3)", "output-change", 50, sandbox=sandbox)
