"""The while forms of ``for-to-while`` and ``peel-loop`` (codemorph.transforms.loops.forms)
on the cases that break naive rewrites: each program is rewritten with the runtime types
observed on its inputs (as ``generate`` does), the expected form is checked from the site
description, and original and rewrite are run on the inputs in the sandbox and must behave
the same (return value, exception class, final argument state, stdout).

Exact outputs of every form are fixtures (tests/transforms/fixtures/for-to-while/,
.../peel-loop/); this file covers behaviour on inputs chosen to tell the forms apart.
"""

from __future__ import annotations

import pytest
from conftest import assert_same_behaviour, run_both

from codemorph import Program, get_transform
from codemorph.testing import observe_types

CASES = [
    # index form: the list shrinks while it is iterated (the iterator skips an item)
    ("index loop", "def f(xs):\n    out = []\n    for x in xs:\n        if x % 2 == 0:\n"
     "            xs.remove(x)\n        out.append(x)\n    return out, xs\n",
     ["[2, 4, 5, 6]", "[]", "[1, 2]", "[2]"]),
    # index form: the list grows, and break leaves the loop early
    ("index loop", "def f(xs):\n    for x in xs:\n        if len(xs) > 5:\n            break\n"
     "        xs.append(x + 1)\n    return xs, x\n", ["[1]", "[0, 0, 0, 0, 0, 0]", "[3, 3]"]),
    # the loop variable after the loop: the last item, its old value after zero iterations
    ("index loop", "def f(xs):\n    x = 'before'\n    for x in xs:\n        pass\n    return x\n",
     ["[1, 2]", "[]", "'ab'", "''"]),
    # ... and unbound after zero iterations
    ("index loop", "def f(xs):\n    for x in xs:\n        pass\n    return x\n", ["(1, 2)", "()"]),
    # tuple targets: unpacking errors are the same
    ("index loop", "def f(pairs):\n    out = []\n    for a, b in pairs:\n        out.append(b - a)\n    return out, a\n",
     ["[(1, 2), (5, 3)]", "[(1, 2), (1, 2, 3)]", "[[1, 2], (3,)]", "[]"]),
    # continue and else, nested: the outer continue sits in the inner loop's else
    ("index loop", "def f(rows):\n    out = []\n    for row in rows:\n        for x in row:\n"
     "            if x < 0:\n                break\n            if x == 0:\n                continue\n"
     "            out.append(x)\n        else:\n            out.append('all')\n            continue\n"
     "        out.append('neg')\n    else:\n        out.append('end')\n    return out\n",
     ["[[1, 0, 2], [3, -1, 4], []]", "[]", "[[0], [-1]]"]),
    # enumerate with its own counter, continue
    ("index loop", "def f(s):\n    out = []\n    for i, c in enumerate(s):\n        if c == ' ':\n"
     "            continue\n        out.append((i, c))\n    return out\n", ["'a b  c'", "''", "' '"]),
    # the iterable is evaluated once (the key function prints)
    ("index loop", "def f(xs):\n    out = []\n    for x in sorted(xs, key=lambda v: print('key', v) or -v):\n"
     "        out.append(x)\n    return out\n", ["[3, 1, 2]", "[]"]),
    # a generator suspended in an index loop while its caller grows the list
    ("index loop", "def gen(xs):\n    for x in xs:\n        yield x\n\n\ndef f(xs):\n    out = []\n"
     "    for v in gen(xs):\n        if v == 1:\n            xs.append(9)\n        out.append(v)\n    return out\n",
     ["[1, 2]", "[]", "[0]"]),
    # counter form: a StopIteration raised by the body propagates
    ("counter loop", "def f(n):\n    out = []\n    for i in range(n):\n        if i == 2:\n"
     "            raise StopIteration('body')\n        out.append(i)\n    return out\n", ["1", "3", "0"]),
    # counter form with a negative step and continue; the bound is taken once
    ("counter loop", "def f(xs):\n    out = []\n    for i in range(len(xs) - 1, -1, -2):\n        if xs[i] == 0:\n"
     "            continue\n        xs.append(i)\n        out.append(xs[i])\n    return out, xs\n",
     ["[1, 0, 3, 4]", "[]", "[5]"]),
    # general form: StopIteration from the body is not swallowed
    ("iter(", "def f(d):\n    out = []\n    for k in d:\n        if k == 'stop':\n"
     "            raise StopIteration(k)\n        out.append(k)\n    return out\n",
     ["{'a': 1, 'stop': 2}", "{}", "{'b': 0}"]),
    # general form: StopIteration raised while unpacking an item is not swallowed either
    # (a map object is its own iterator: `it = map(...)`, no `iter`)
    ("it = map(", "class Bad:\n    def __iter__(self):\n        raise StopIteration('unpack')\n\n\n"
     "def f(n):\n    out = []\n    for a, b in map(lambda k: Bad() if k == 1 else (k, k), range(n)):\n"
     "        out.append(a + b)\n    return out\n", ["1", "2", "0"]),
    # general form with break and else: else runs only when the iterator is exhausted
    ("iter(", "def f(d, stop):\n    for k in d:\n        if k == stop:\n            break\n"
     "    else:\n        return 'none'\n    return k\n", ["{'a': 1, 'b': 2}, 'b'", "{'a': 1}, 'z'", "{}, 'a'"]),
]


IDS = [f"{n}-{c[0].split()[0].strip('(')}" for n, c in enumerate(CASES)]


@pytest.mark.parametrize("form, src, inputs", CASES, ids=IDS)
def test_for_to_while_form_behaves_as_the_for_loop(sandbox, form: str, src: str, inputs: list[str]) -> None:
    observations = observe_types(src, inputs, sandbox=sandbox)
    result = get_transform("for-to-while").apply(Program(src), 0, inputs=inputs, observations=observations)
    assert result.applied, result.reason
    assert "for " not in result.source  # every loop rewritten
    assert any(form in s.description for s in result.sites), (result.sites, result.source)
    assert_same_behaviour(sandbox, src, result.source, inputs)


PEELABLE = [(c, i) for c, i in zip(CASES, IDS) if "break" not in c[1] and "continue" not in c[1]]


@pytest.mark.parametrize("form, src, inputs", [c for c, _ in PEELABLE], ids=[i for _, i in PEELABLE])
def test_peeled_form_behaves_as_the_for_loop(sandbox, form: str, src: str, inputs: list[str]) -> None:
    observations = observe_types(src, inputs, sandbox=sandbox)
    result = get_transform("peel-loop").apply(Program(src), 0, inputs=inputs, observations=observations)
    assert result.applied, result.reason
    peeled = {"index loop": "first item of", "counter loop": "first value of the range"}.get(form, form)
    assert any(peeled in s.description for s in result.sites), (result.sites, result.source)
    assert_same_behaviour(sandbox, src, result.source, inputs)


def test_a_range_counter_read_after_the_loop_is_refused(sandbox) -> None:
    """The counter would end one step past the last value; iter()/next() over the range would
    keep it, but is no form people write, so the loop is left alone."""
    src = "def f(n):\n    i = -1\n    for i in range(n, 0, -1):\n        pass\n    return i\n"
    result = get_transform("for-to-while").apply(Program(src), 0, observations=observe_types(src, ["3", "0"], sandbox=sandbox))
    assert not result.applied and result.source == src
    assert "i is read after the loop" in result.reason
    assert "iter()/next() over a range is not a form people write" in result.reason


def test_a_peeled_range_loop_leaves_its_variable_as_the_loop_does(sandbox) -> None:
    """``peel-loop`` keeps a ``for`` over the rest of the range: the variable read after the
    loop is the last value, and stays -1 for an empty range."""
    src = "def f(n):\n    i = -1\n    for i in range(n, 0, -1):\n        pass\n    return i\n"
    inputs = ["3", "0", "1", "-2"]
    result = get_transform("peel-loop").apply(Program(src), 0, observations=observe_types(src, inputs, sandbox=sandbox))
    assert result.source == ("def f(n):\n    i = -1\n    if n > 0:\n        i = n\n"
                             "        for i in range(n - 1, 0, -1):\n            pass\n    return i\n")
    assert_same_behaviour(sandbox, src, result.source, inputs)


def test_an_unobserved_type_at_run_time_is_why_the_index_form_needs_observations(sandbox) -> None:
    """The index form is exact only for the observed sequence types: given a dict the
    index form fails where the loop runs, so without observations (or with a dict seen)
    the iterator form is used."""
    src = "def f(xs):\n    out = []\n    for x in xs:\n        out.append(x)\n    return out\n"
    indexed = get_transform("for-to-while").apply(Program(src), 0, observations={"f": {"xs": ["list"]}}).source
    assert "xs[i]" in indexed
    (_, o, r), = run_both(sandbox, src, indexed, ["{'a': 1}"])
    assert o.behaviour() != r.behaviour()  # KeyError: the precondition matters
    for obs in (None, {"f": {"xs": ["dict", "list"]}}):
        general = get_transform("for-to-while").apply(Program(src), 0, observations=obs).source
        assert "next(it)" in general
        assert_same_behaviour(sandbox, src, general, ["{'a': 1}", "[1, 2]", "'ab'"])


def test_a_nested_target_is_unpacked_outside_the_try(sandbox) -> None:
    """``enumerate`` yields exact tuples, but a nested target also unpacks each item, whose
    ``__iter__`` may raise ``StopIteration``: it must not end the loop."""
    src = ("class Bad:\n    def __iter__(self):\n        raise StopIteration('inner')\n\n\n"
           "def f(n):\n    out = []\n    for i, (a, b) in enumerate(map(lambda k: Bad() if k else (k, k), range(n))):\n"
           "        out.append(i)\n    return out\n")
    result = get_transform("for-to-while").apply(Program(src), 0)
    assert "item = next(it)" in result.source and "i, (a, b) = item" in result.source
    assert_same_behaviour(sandbox, src, result.source, ["1", "2", "0"])


def _identifiers(code: str) -> set[str]:
    import ast
    return {n.id for n in ast.walk(ast.parse(code)) if isinstance(n, ast.Name)}


def test_cruxeval_rows_with_observed_types_are_rewritten_and_behave_the_same(sandbox) -> None:
    """Sampled CRUXEval rows with a ``for`` loop (all 800 with CODEMORPH_FULL=1), rewritten
    with the types observed on the row's own input: ``for-to-while`` rewrites every such
    row, no ``for`` statement is left, new names never start with an underscore unless the
    program's own names do, and both rewrites return what the original returns."""
    import ast

    from conftest import cruxeval_sample, run_pairs
    rows = [r for r in cruxeval_sample(3)
            if any(isinstance(n, ast.For) for n in ast.walk(ast.parse(r["code"])))]
    assert rows
    pairs = []
    for row in rows:
        obs = observe_types(row["code"], [row["input"]], sandbox=sandbox)
        for name in ("for-to-while", "peel-loop"):
            result = get_transform(name).apply(Program(row["code"]), 0, inputs=[row["input"]], observations=obs)
            if name == "for-to-while":
                assert result.applied, (row["id"], result.reason)
                assert not any(isinstance(n, ast.For) for n in ast.walk(ast.parse(result.source)))
            if not result.applied:
                continue
            old = _identifiers(row["code"])
            new = _identifiers(result.source) - old
            if not any(n.startswith("_") for n in old):
                assert not any(n.startswith("_") for n in new), (row["id"], new)
            pairs.append((name, row, result.source))
    run_pairs(sandbox, pairs)
