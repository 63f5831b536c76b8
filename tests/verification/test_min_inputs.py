"""The evidence rule of verification: ``equivalent``/``proved`` need at least 20 distinct
inputs that ran both programs to the end; seeds that mutation alone cannot vary (empty
containers, calls, no usable argument) are varied through sandbox-evaluated proxies."""

from __future__ import annotations

from codemorph.inputs import cross_shape, element_evidence, filled_shapes, parse_args, plan_seed
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


# ------------------------------------------------------------- shapes of a filled container
def test_filled_shapes_cover_lengths_equal_elements_and_the_empty_element():
    assert filled_shapes(["b", "a", "ab"]) == [["b"], ["b", "a"], ["b", "b", "a"], ["ab", "a", "b"],
                                               ["b", "a", ""], ["b", "a", "ab", "b", "a"]]
    # as long as another argument (an int between 4 and 8 here)
    assert filled_shapes([3, 1, 2], [6]) == [[3], [3, 1], [3, 3, 1], [2, 1, 3], [3, 1, 0], [3, 1, 2, 3, 1, 2]]
    assert filled_shapes({"b": 3, "a": 1, "ab": 2}) == [{"b": 3}, {"b": 3, "a": 1}, {"b": 3, "a": 3},
                                                        {"b": 3, "a": 1, "": 3},
                                                        {"b": 3, "a": 1, "ab": 2, "c": 3, "d": 1}]
    assert filled_shapes({3: "b", 1: "a"})[-1] == {3: "b", 1: "a", 4: "b", 5: "a"}
    # a set never repeats an element, and its order does not depend on the hash seed
    assert filled_shapes({"b", "a", "ab"}) == [{"a"}, {"a", "ab"}, {"a", "ab", ""}]
    assert filled_shapes([]) == []


def test_empty_list_seed_gets_shapes_with_two_equal_elements(sandbox):
    plan = plan_seed(sandbox, "def f(xs):\n    return sorted(set(xs))\n", "f", "[]")
    assert plan.proxies == ("[3, 1, 2]", "['b', 'a', 'ab']")
    assert plan.shapes == ("[3]", "[3, 1]", "[3, 3, 1]", "[2, 1, 3]", "[3, 1, 0]", "[3, 1, 2, 3, 1]")


def test_shapes_keep_the_other_arguments_and_cross_with_their_mutants(sandbox):
    code = "def f(numbers, num, val):\n    numbers.insert(num, val)\n    return numbers\n"
    plan = plan_seed(sandbox, code, "f", "[], 0, 1")
    assert plan.shapes[:3] == ("[3], 0, 1", "[3, 1], 0, 1", "[3, 3, 1], 0, 1")
    assert cross_shape("[3, 1], 0, 1", plan.base, "[], 3, 4") == "[3, 1], 3, 4"
    assert cross_shape("[3, 1], 0, 1", plan.base, "[], 3") is None


def test_strings_of_other_containers_fill_an_empty_dict(sandbox):
    # a key of the other dict among the filled keys: the ``else`` branch runs on the proxy
    code = ("def f(a, b):\n    for key, value in b.items():\n        if key not in a:\n"
            "            a[key] = [value]\n        else:\n            a[key].append(value)\n    return a\n")
    plan = plan_seed(sandbox, code, "f", "{}, {'foo': 'bar'}")
    assert plan.proxies[0] == "{'b': [2, 1], 'a': [3], 'ab': [], 'foo': [2, 1]}, {'foo': 'bar'}"


def test_verifier_rejects_a_wrong_bound_on_the_size_of_an_empty_dict_seed(sandbox):
    # only a dict of exactly six items tells ``> 5`` from ``> 6``: the longer shape has six
    code = "def f(cart):\n    while len(cart) > 5:\n        cart.popitem()\n    return cart\n"
    verdict = verify(code, code.replace("> 5", "> 6"), inputs=["{}"], sandbox=sandbox)
    assert verdict.status == "differs"
    assert len(parse_args(verdict.counterexample.args)[0][0]) == 6


def test_key_strings_start_and_end_with_the_other_argument(sandbox):
    code = ("def f(query, base):\n    net = 0\n    for key, val in base.items():\n"
            "        if len(key) == 3 and key[-1] == query:\n            net += val\n    return net\n")
    plan = plan_seed(sandbox, code, "f", "'a', {}")
    assert plan.proxies[0] == "'a', {'b': 3, 'a': 1, 'ab': 2, 'aaa': 3, 'abb': 1, 'bba': 2}"


def test_verifier_rejects_a_wrong_last_letter_test_on_an_empty_dict_seed(sandbox):
    # the wrong rewrite tests the first letter where the original tests the last: only a
    # key of length 3 that ends with the query and starts otherwise tells them apart
    code = ("def f(query, base):\n    net = 0\n    for key, val in base.items():\n"
            "        if key[0] == query and len(key) == 3:\n            net -= val\n"
            "        elif key[-1] == query and len(key) == 3:\n            net += val\n    return net\n")
    wrong = code.replace("key[-1] == query", "key[-1 + 1] == query")
    verdict = verify(code, wrong, inputs=["'a', {}"], sandbox=sandbox)
    assert verdict.status == "differs"
    query, base = parse_args(verdict.counterexample.args)[0]
    assert any(len(k) == 3 and k[-1] == query != k[0] for k in base)


def test_verifier_rejects_a_wrong_insert_position_on_an_empty_list_seed(sandbox):
    # the positions differ only when the list holds two elements or more while it is
    # filled up to ``num``: a short shape crossed with a larger ``num``
    code = ("def f(numbers, num, val):\n    while len(numbers) < num:\n"
            "        numbers.insert(len(numbers) // 2, val)\n    return ' '.join(numbers)\n")
    wrong = code.replace("// 2", "// 3")
    verdict = verify(code, wrong, inputs=["[], 0, 1"], sandbox=sandbox)
    assert verdict.status == "differs"
    numbers, num, _ = parse_args(verdict.counterexample.args)[0]
    assert 2 <= len(numbers) < num
