"""Tests of codemorph.verification (differential testing in the sandbox)."""

from __future__ import annotations

import json

import pytest

import codemorph
from codemorph import Program
from codemorph.sandbox.pool import Limits, Sandbox
from codemorph.inputs import parse_args
from codemorph.verification import (Baseline, Verdict, check, check_requests, judge, make_baseline,
                                    program_literals, verify)
from paths import CRUXEVAL, needs_shared

LIM = Limits(timeout=5.0, grace=0.3, memory=512 * 1024**2)
CRUX = CRUXEVAL


@pytest.fixture(scope="module")
def sb():
    with Sandbox(LIM) as box:
        yield box


def v(sb, original, rewritten, inputs=("3",), **kw) -> Verdict:
    return verify(original, rewritten, inputs=inputs, sandbox=sb, **kw)


def test_lazy_exports():
    assert codemorph.verify is verify and codemorph.Verdict is Verdict


def test_equivalent_pair(sb):
    verdict = v(sb, "def f(x):\n    return x * 2\n", "def f(x):\n    # doubled\n    return x + x\n",
                inputs=("3", "[1, 'a']"))
    assert verdict.status == "equivalent" and verdict.ok
    assert verdict.inputs_checked >= 20
    assert verdict.counterexample is None and verdict.reason is None


def test_changed_constant_differs_with_counterexample(sb):
    verdict = v(sb, "def f(x):\n    return x + 1\n", "def f(x):\n    return x + 2\n")
    assert verdict.status == "differs"
    assert verdict.counterexample.args == "3"
    assert verdict.counterexample.original.value_repr == "4"
    assert verdict.counterexample.rewritten.value_repr == "5"
    assert verdict.reason == "on input 3: return value: original 4, rewritten 5"


def test_difference_found_only_by_a_mutant_from_program_literals(sb):
    orig = "def f(x):\n    if x == 57:\n        return 'hit'\n    return x\n"
    bad = "def f(x):\n    if x == 57:\n        return 'HIT'\n    return x\n"
    verdict = v(sb, orig, bad)
    assert verdict.status == "differs"
    assert verdict.counterexample.args == "57"
    alone = v(sb, orig, bad, extra_inputs=0)  # the seed alone never runs the changed line
    assert alone.status == "inconclusive" and alone.reason.startswith("no input executed the changed code")


def test_argument_mutation_difference(sb):
    verdict = v(sb, "def f(xs):\n    return len(sorted(xs))\n", "def f(xs):\n    xs.sort()\n    return len(xs)\n",
                inputs=("[3, 1, 2]",))
    assert verdict.status == "differs"
    assert "in-place mutation" in verdict.reason
    assert verdict.counterexample.original.fingerprint == verdict.counterexample.rewritten.fingerprint


def test_stdout_difference(sb):
    verdict = v(sb, "def f(x):\n    print('x is', x)\n    return x\n", "def f(x):\n    print('x =', x)\n    return x\n")
    assert verdict.status == "differs"
    assert verdict.reason == "on input 3: stdout: original 'x is 3\\n', rewritten 'x = 3\\n'"


def test_exception_class_and_type_differences(sb):
    assert v(sb, "def f(x):\n    return [][x]\n", "def f(x):\n    return {}[x]\n").reason == \
        "on input 3: exception: original IndexError, rewritten KeyError"
    assert v(sb, "def f(x):\n    return 1\n", "def f(x):\n    return True\n").status == "differs"
    assert v(sb, "def f(x):\n    return 1\n", "def f(x):\n    return 1.0\n").status == "differs"
    assert v(sb, "def f(x):\n    return float('nan')\n", "def f(x):\n    return x * float('nan')\n").ok
    assert v(sb, "def f(x):\n    return {1, 2}\n", "def f(x):\n    return {2, 1}\n").ok
    assert v(sb, "def f(x):\n    return {1: 1, 2: 2}\n", "def f(x):\n    return {2: 2, 1: 1}\n").status == "differs"


def test_raising_original_compared_by_exception_class(sb):
    orig = "def f(x):\n    return 10 // (x - 3)\n"
    assert v(sb, orig, "def f(x):\n    d = x - 3\n    return 10 // d\n").ok
    verdict = v(sb, orig, "def f(x):\n    return 10 // (x - 3) if x != 3 else 0\n")
    assert verdict.status == "differs" and verdict.reason.startswith("on input 3: status: original raised")


@pytest.mark.parametrize("body, why", [
    # sources a second run a moment later may not show are named from the code
    ("import random\ndef f(x):\n    return random.random()\n", "it uses random numbers (import random)"),
    ("import time\ndef f(x):\n    return time.time()\n", "it reads the clock (import time)"),
    ("def f(x):\n    return id([x])\n", "it "),
    # and the rest by the two runs
    ("def f(x):\n    return object()\n", "nondeterministic on input 3"),
])
def test_nondeterministic_program_is_inconclusive(sb, body, why):
    verdict = v(sb, body, body)
    assert verdict.status == "inconclusive"
    assert verdict.reason.startswith(why)


def test_rewritten_timeout_is_inconclusive(sb):
    verdict = v(sb, "def f(x):\n    return x\n", "def f(x):\n    while x:\n        pass\n    return x\n",
                extra_inputs=2)  # the rewrite gets max(0.5 s, 10 x the original's time)
    assert verdict.status == "inconclusive"
    assert verdict.reason.startswith("rewritten program: timeout (0.5s) on input 3 where the original finished")


def test_original_timeout_inputs_are_skipped():
    loop = "def f(x):\n    while x > 100:\n        pass\n    return x\n"
    with Sandbox(Limits(timeout=0.3, grace=0.3)) as box:
        verdict = verify(loop, loop.replace("return x", "return x + 0"), inputs=("3", "1000"), extra_inputs=4,
                         sandbox=box, min_inputs=1)
        assert verdict.status == "equivalent"
        assert 1 <= verdict.inputs_checked <= 5
        assert verify(loop, loop, inputs=("1000",), extra_inputs=0, sandbox=box).reason == \
            "no input on which the original program finished"


def test_timeout_where_other_input_differs_reports_difference(sb):
    orig = "def f(x):\n    return x\n"
    rew = "def f(x):\n    while x == 3:\n        pass\n    return x + 1\n"
    assert v(sb, orig, rew, extra_inputs=3).status == "differs"


def test_output_limit_in_rewrite_differs():
    with Sandbox(Limits(timeout=1.0, output=1000)) as box:
        verdict = verify("def f(x):\n    return x\n", "def f(x):\n    print('y' * 5000)\n    return x\n",
                         inputs=("3",), sandbox=box)
    assert verdict.status == "differs" and "output limit" in verdict.reason


def test_crash_in_rewrite_is_inconclusive_and_bad_code_differs(sb):
    verdict = v(sb, "def f(x):\n    return x\n", "import os\ndef f(x):\n    os._exit(1)\n")
    assert verdict.status == "inconclusive" and "crashed" in verdict.reason
    verdict = v(sb, "def f(x):\n    return x\n", "def g(x):\n    return x\n")
    assert verdict.status == "differs" and "bad-code" in verdict.reason
    verdict = v(sb, "def f(x):\n    return x\n", "def f(x:\n")
    assert verdict.status == "differs" and verdict.reason.startswith("rewritten program does not parse")


def test_rewritten_entry_point_is_used(sb):
    verdict = v(sb, Program("def f(x):\n    return -x\n"), Program("def negate(x):\n    return -x\n", "negate"))
    assert verdict.ok


def test_baseline_reused_for_several_rewrites(sb):
    prog = Program("def f(s, n):\n    return s[:n].upper()\n")
    base = make_baseline(sb, prog, ["'hello', 2"], extra_inputs=12, seed=4)
    assert isinstance(base, Baseline)
    assert base.inputs[0] == "'hello', 2" and base.seed_count == 1
    assert len(base.inputs) == 13 and len(set(base.inputs)) == 13
    assert len(base.outcomes) == 13 and base.outcomes[0].value_repr == "'HE'"
    assert not base.nondeterministic and base.hash_sensitive is False
    assert check(sb, base, Program("def f(s, n):\n    t = s[:n]\n    return t.upper()\n"), min_inputs=13).ok
    assert check(sb, base, Program("def f(s, n):\n    return s.upper()[:n]\n"), min_inputs=13).ok
    assert check(sb, base, Program("def f(s, n):\n    return s.upper()[:n]\n"), min_inputs=14).status == "weak"
    assert check(sb, base, Program("def f(s, n):\n    return s[:n + 1].upper()\n")).status == "differs"
    again = make_baseline(sb, prog, ["'hello', 2"], extra_inputs=12, seed=4)
    other = make_baseline(sb, prog, ["'hello', 2"], extra_inputs=12, seed=5)
    assert again.inputs == base.inputs and other.inputs != base.inputs


def test_several_rewrites_judged_from_one_batch(sb):
    prog = Program("def f(xs):\n    return sum(xs) * 2\n")
    base = make_baseline(sb, prog, ["[1, 2, 3]"], extra_inputs=6)
    good = check_requests(base, Program("def f(xs):\n    return 2 * sum(xs)\n"), sb.limits.timeout)
    bad = check_requests(base, Program("def f(xs):\n    return sum(xs) + 2\n"), sb.limits.timeout)
    assert len(good) == len(bad) == len(base.inputs) == 7
    outs = sb.run_batch(good + bad)
    assert judge(base, good, outs[:len(good)], min_inputs=7).ok
    verdict = judge(base, bad, outs[len(good):])
    assert verdict.status == "differs" and verdict.counterexample.args == "[1, 2, 3]"


def test_hash_sensitive_baseline(sb):
    prog = Program("def f(s):\n    return ''.join(set(s))\n")
    base = make_baseline(sb, prog, ["'abcdefghijkl'"], extra_inputs=2)
    assert base.hash_sensitive is True and base.nondeterministic is False
    assert "PYTHONHASHSEED" in base.reason
    assert check(sb, base, Program("def f(s):\n    chars = set(s)\n    return ''.join(chars)\n"), min_inputs=1).ok


def test_call_seed_is_evaluated_in_the_sandbox_and_mutated(sb):
    base = make_baseline(sb, Program("def f(s):\n    return len(s)\n"), ["''.join(['A'] * 20)"])
    assert base.inputs[0] == "''.join(['A'] * 20)" and base.outcomes[0].value_repr == "20"
    mutants = base.inputs[1:]
    assert len(mutants) == 49 and len(set(mutants)) == 49
    values = [parse_args(m) for m in mutants]
    assert all(kw == {} and len(a) == 1 and type(a[0]) is str for a, kw in values)
    # the seed's own value is not counted again: every mutant differs from 'A' * 20
    assert all(a[0] != "A" * 20 for a, _ in values)
    assert sum(len(a[0]) in (19, 21) for a, _ in values) >= 1  # one character fewer or more


def test_program_literals():
    prog = Program("def f(x, s):\n    if x > -3 and s != 'ab':\n        return 2.5, b'z', f'n{x}m'\n"
                   "    return 'ab' * 10\n")
    assert program_literals(prog) == [-3, 3, "ab", 2.5, b"z", "n", "m", 10]


@needs_shared("cruxeval", "cruxeval.jsonl")
def test_cruxeval_programs_are_equivalent_to_themselves(sb):
    rows = [json.loads(line) for line in CRUX.open()][::100]
    for row in rows:
        prog = Program(row["code"])
        base = make_baseline(sb, prog, [row["input"]], extra_inputs=8)
        assert base.outcomes[0].value_repr == row["output"]
        verdict = check(sb, base, Program("# reformatted\n" + row["code"] + "\n"), min_inputs=1)
        assert verdict.status == "equivalent", (row["id"], verdict)


def test_baseline_checks_the_recorded_output_in_both_seed_runs(sb):
    # the value's own __eq__ prints: evaluating `value == expected` must happen in both runs
    # of the seed, or the second run's stdout would differ and look nondeterministic
    code = ("class V:\n    def __repr__(self):\n        return '7'\n"
            "    def __eq__(self, other):\n        print('eq')\n        return other == 7\n"
            "def f(x):\n    return [V()][0] if x == 7 else x\n")
    base = make_baseline(sb, Program(code), ["7"], extra_inputs=3, expected_output="7")
    assert not base.nondeterministic
    assert base.outcomes[0].output_matches is True and base.outcomes[0].stdout == "eq\n"
    assert all(o.output_matches is None for o in base.outcomes[1:])
    wrong = make_baseline(sb, Program("def f(x):\n    return x + 1\n"), ["3"], extra_inputs=2, expected_output="5")
    assert wrong.outcomes[0].output_matches is False and wrong.outcomes[0].value_repr == "4"


def test_check_requests_test_the_recorded_output_on_the_seed_input_only(sb):
    orig = Program("def f(x):\n    return x * 2\n")
    base = make_baseline(sb, orig, ["3"], extra_inputs=4, expected_output="6")
    new = Program("def f(x):\n    return x + x\n")
    reqs = check_requests(base, new, 5.0, expected_output="6")
    assert [r.expected_output for r in reqs] == ["6", None, None, None, None]
    assert [r.args for r in reqs] == list(base.inputs)
    outs = sb.run_batch(reqs)
    assert outs[0].output_matches is True and outs[0].value_repr == "6"
    assert judge(base, reqs, outs, min_inputs=5).status == "equivalent"
    assert judge(base, reqs, outs).status == "weak"  # 5 inputs, fewer than the default 20
    assert all(r.expected_output is None for r in check_requests(base, new, 5.0))


def test_looping_mutants_stop_at_the_line_budget(sb):
    # every mutant other than 0 loops forever: with a 30 s wall-clock limit, each still stops
    # at the budget of 50,000 traced lines (its own tracer, no kill)
    code = "def f(x):\n    while x != 0:\n        pass\n    return x\n"
    with Sandbox(Limits(timeout=60.0, grace=0.3)) as box:
        base = make_baseline(box, Program(code), ["0"], extra_inputs=3, mutant_timeout=30.0)
        untraced = make_baseline(box, Program(code), ["0"], extra_inputs=2, mutant_timeout=30.0, trace=False,
                                 mutant_cpu_timeout=0.2)
    loops = [o for t, o in zip(base.inputs, base.outcomes) if t != "0"]
    assert len(loops) == 3 and all(o.status == "timeout" and o.duration < 30 for o in loops)
    assert {o.note for o in loops} == {"stopped after 50000 traced lines (the request's line budget)"}
    assert base.outcomes[0].status == "returned" and not base.nondeterministic
    # untraced, the budget does not apply; the CPU-time limit stops the loops instead
    assert all(o.status == "timeout" and o.note is None and o.duration < 30
               for t, o in zip(untraced.inputs, untraced.outcomes) if t != "0")
