"""The evidence rule of verification: ``equivalent``/``proved`` need at least 20 distinct
inputs that ran both programs to the end; seeds that mutation alone cannot vary (empty
containers, calls, no usable argument) are varied through sandbox-evaluated proxies."""

from __future__ import annotations

from codemorph.inputs import element_evidence, parse_args, plan_seed
from codemorph.verification import MIN_INPUTS, verify

SUM = "def f(xs):\n    return sum(xs)\n"
NEGATED = "def f(xs):\n    if len(xs) >= 3:\n        return -sum(xs)\n    return sum(xs)\n"


def test_empty_list_seed_finds_the_difference_through_element_types(sandbox):
    verdict = verify(SUM, NEGATED, inputs=["[]"], sandbox=sandbox)
    assert verdict.status == "differs"
    args, _ = parse_args(verdict.counterexample.args)
    xs = args[0]
    assert len(xs) >= 3 and sum(xs) != 0 and all(type(x) is int for x in xs)


def test_empty_list_seed_of_an_equivalent_pair_is_equivalent_on_many_inputs(sandbox):
    verdict = verify(SUM, "def f(xs):\n    return sum(xs) + 0\n", inputs=["[]"], sandbox=sandbox)
    assert verdict.status == "equivalent" and verdict.inputs_checked >= MIN_INPUTS == 20


def test_no_arguments_is_weak_and_says_why(sandbox):
    verdict = verify("def f():\n    return 1\n", "def f():\n    return 2 - 1\n", inputs=[""], sandbox=sandbox)
    assert verdict.status == "weak" and not verdict.ok and verdict.inputs_checked == 1
    assert "fewer than the 20" in verdict.reason and "called with no arguments" in verdict.reason


def test_min_inputs_is_configurable(sandbox):
    code = "def f(x):\n    return x + 1\n"
    few = verify(code, "def f(x):\n    return 1 + x\n", inputs=["3"], extra_inputs=9, sandbox=sandbox)
    assert few.status == "weak" and few.inputs_checked == 10 and "only 9 mutants asked for" in few.reason
    ok = verify(code, "def f(x):\n    return 1 + x\n", inputs=["3"], extra_inputs=9, sandbox=sandbox, min_inputs=10)
    assert ok.status == "equivalent" and ok.inputs_checked == 10


def test_inputs_that_raise_in_both_programs_count(sandbox):
    # every input raises ZeroDivisionError in both: an exception outcome both agree on is compared
    verdict = verify("def f(x):\n    return x / 0\n", "def f(x):\n    y = x\n    return y / 0\n", inputs=["3"],
                     sandbox=sandbox)
    assert verdict.status == "equivalent" and verdict.inputs_checked >= 20


def test_call_seed_is_evaluated_in_the_programs_module(sandbox):
    code = "PAIR = 'a-b'\ndef f(items, sep):\n    return sep.join(items)\n"
    plan = plan_seed(sandbox, code, "f", "PAIR.split('-'), '+'")
    assert plan.base == "['a', 'b'], '+'" and plan.proxies == () and plan.notes == ()
    verdict = verify(code, "PAIR = 'a-b'\ndef f(items, sep):\n    return ''.join(items)\n",
                     inputs=["PAIR.split('-'), '+'"], sandbox=sandbox)
    assert verdict.status == "differs"


def test_argument_that_is_no_literal_is_kept_and_the_others_vary(sandbox):
    code = "def f(xs, key):\n    return sorted(xs, key=key)\n"
    plan = plan_seed(sandbox, code, "f", "[3, 1, 2], lambda x: -x")
    assert plan.base == "[3, 1, 2]"
    assert plan.wrap("[5]") == "[5], lambda x: -x"
    assert plan.notes == ("argument 2 (lambda x: -x) is not a literal value and is kept as it is",)
    wrong = "def f(xs, key):\n    return sorted(xs, key=key)[:3]\n"
    assert verify(code, wrong, inputs=["[3, 1, 2], lambda x: -x"], sandbox=sandbox).status == "differs"


def test_empty_dict_gets_key_and_value_types_from_the_program(sandbox):
    code = "def f(d):\n    return {k: v + 1 for k, v in d.items() if k.startswith('a')}\n"
    assert element_evidence(code)["d"] == {"element": [], "key": ["str"], "value": ["int"]}
    plan = plan_seed(sandbox, code, "f", "{}")
    assert plan.proxies[0] == "{'b': 3, 'a': 1, 'ab': 2}"


def test_element_evidence_reads_methods_comparisons_and_insertions():
    code = ("def f(words, nums, out, y):\n"
            "    for w in words:\n        w.upper()\n"
            "    total = [n for n in nums if n > 0]\n"
            "    out.append(y)\n    return total\n")
    ev = element_evidence(code, seed_types={"y": "float"})
    assert ev["words"]["element"] == ["str"]
    assert ev["nums"]["element"] == ["int"]
    assert ev["out"]["element"] == ["float"]


def test_fallback_types_are_tried_in_the_sandbox(sandbox):
    # nothing in the program names an element type: int and str are tried, and both run
    code = "def f(xs):\n    return list(reversed(xs))\n"
    plan = plan_seed(sandbox, code, "f", "[]")
    assert plan.proxies == ("[3, 1, 2]", "['b', 'a', 'ab']")
    # a program that only accepts strings: the int candidate raises TypeError and is dropped
    plan = plan_seed(sandbox, "def f(xs):\n    return ''.join(x for x in xs)\n", "f", "[]")
    assert plan.proxies == ("['b', 'a', 'ab']",)


def test_only_none_arguments_get_the_types_the_program_accepts(sandbox):
    code = "def f(n):\n    return n + 1\n"
    plan = plan_seed(sandbox, code, "f", "None")
    assert plan.proxies == ("1",) and plan.base is None
    verdict = verify(code, "def f(n):\n    return n + 2 - 1\n", inputs=["None"], sandbox=sandbox)
    # None itself raises TypeError in both; the int proxies and their mutants return
    assert verdict.status == "equivalent" and verdict.inputs_checked >= 20


def test_ordinary_seeds_get_no_plan(sandbox):
    assert plan_seed(sandbox, SUM, "f", "[1, 2]") is None
