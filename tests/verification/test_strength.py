"""Strength of differential verification: changed-region coverage, nondeterminism,
argument mutation, stdout, exception policy (programs run only in the sandbox)."""

from __future__ import annotations

import pytest

from codemorph import Program
from codemorph.inputs import parse_args
from codemorph.sandbox.pool import ExecRequest, Limits, Sandbox
from codemorph.verification.differential import (DEFAULT_INPUTS, Coverage, Region, changed_region, check, make_baseline,
                                    verify)

LIM = Limits(timeout=5.0, grace=0.3, memory=512 * 1024**2)


@pytest.fixture(scope="module")
def sb():
    with Sandbox(LIM) as box:
        yield box


def v(sb, original, rewritten, inputs=("3",), **kw):
    return verify(original, rewritten, inputs=inputs, sandbox=sb, **kw)


# ------------------------------------------------------------------------- changed region
def test_changed_region_maps_lines_to_statements():
    orig = "def f(x):\n    y = x + 1\n    return y\n"
    new = "def f(x):\n    y = (x +\n         1 + 0)\n    return y\n"
    # both changed lines belong to the assignment starting on line 2
    assert changed_region(orig, new) == Region(lines=(2,), branch_lines=())


def test_changed_region_branches_deletion_and_comments():
    orig = "def f(x):\n    if x > 0:\n        x = 1\n    x = 2\n    return x\n"
    new = "def f(x):\n    if x >= 1:\n        x = 1\n    return x\n"
    # line 2 changed (an if: a branch line); the deleted 'x = 2' is anchored at 'return x' (line 4)
    assert changed_region(orig, new) == Region(lines=(2, 4), branch_lines=(2,))
    assert changed_region(orig, orig.replace("    return x\n", "    # note\n    return x\n")) == Region((), ())
    assert changed_region(orig, "def f(:\n") is None


def test_changed_region_takes_the_innermost_statement_of_each_line():
    orig = ("def f(xs):\n    out = []\n    for x in xs:\n        if x > 0:\n            out.append(x)\n"
            "        else:\n            out.append(\n                -x)\n    return out\n")
    new = orig.replace("out.append(x)", "out.append(x + 0)").replace("                -x)", "                0 - x)")
    # line 5 is the call inside the if (not the if, the for or the def); line 8 belongs to
    # the two-line statement starting on line 7; neither is a branch line
    assert changed_region(orig, new) == Region(lines=(5, 7), branch_lines=())
    moved = orig.replace("        if x > 0:", "        if 0 < x:")
    assert changed_region(orig, moved) == Region(lines=(4,), branch_lines=(4,))


def test_default_budget_is_fifty_inputs(sb):
    base = make_baseline(sb, Program("def f(x):\n    return x * 2\n", "f"), ["12345"])
    assert DEFAULT_INPUTS == 50
    assert len(base.inputs) == 50 and base.inputs[0] == "12345"


# ---------------------------------------------------------------------------------- coverage
def test_unreached_change_is_inconclusive_never_equivalent(sb):
    orig = "def f(x):\n    if x == 'zzz-unreachable':\n        return 'a'\n    return x\n"
    new = "def f(x):\n    if x == 'zzz-unreachable':\n        return 'b'\n    return x\n"
    verdict = v(sb, orig, new, inputs=("5",), extra_inputs=10)  # int inputs never equal the string
    assert verdict.status == "inconclusive" and not verdict.ok
    assert verdict.reason == "no input executed the changed code (rewritten lines 3)"
    assert verdict.coverage == Coverage(lines_total=1, lines_hit=0, branches_total=0, branches_hit=0)
    assert verdict.inputs_checked == 11


def test_reached_change_reports_line_and_branch_coverage(sb):
    orig = "def f(x):\n    if x > 3:\n        return 1\n    return 0\n"
    new = "def f(x):\n    if 3 < x:\n        return 1\n    return 0\n"
    verdict = v(sb, orig, new, inputs=("10",), extra_inputs=0, min_inputs=1)
    assert verdict.status == "equivalent"
    # only the 'taken' outcome of the changed if was seen with the single input 10
    assert verdict.coverage == Coverage(1, 1, 2, 1)
    both = v(sb, orig, new, inputs=("10", "-10"), extra_inputs=0, min_inputs=1)
    assert both.coverage == Coverage(1, 1, 2, 2)
    assert both.coverage.line_ratio == 1.0 and both.coverage.branch_ratio == 1.0


# --------------------------------------------------------------------------- nondeterminism
@pytest.mark.parametrize("body", [
    "    import random\n    return random.random() + x\n",
    "    import time\n    return time.perf_counter_ns() + x\n",
    "    class A:\n        pass\n    return repr(A())\n",   # repr shows id()
])
def test_nondeterministic_original_is_inconclusive(sb, body):
    code = "def f(x):\n" + body
    rewritten = code.replace("return", "result = (", 1).rstrip("\n") + ")\n    return result\n"
    verdict = v(sb, code, rewritten, inputs=("1",), extra_inputs=2)
    assert verdict.status == "inconclusive"
    # the reason may name the nondeterminism source first ("it reads the clock (import time); ...")
    assert "nondeterministic on input 1" in verdict.reason


# ------------------------------------------------------------------------------ observables
def test_argument_mutation_difference_is_caught(sb):
    orig = "def f(xs):\n    xs.sort()\n    return len(xs)\n"
    new = "def f(xs):\n    xs = sorted(xs)\n    return len(xs)\n"
    verdict = v(sb, orig, new, inputs=("[3, 1, 2]",))
    assert verdict.status == "differs"
    assert verdict.counterexample.args == "[3, 1, 2]"
    assert verdict.reason == "on input [3, 1, 2]: final state of the arguments (in-place mutation) differs"


def test_augmented_list_assignment_is_caught_through_the_argument(sb):
    orig = "def f(a, b):\n    a += b\n    return len(a)\n"
    new = "def f(a, b):\n    a = a + b\n    return len(a)\n"
    verdict = v(sb, orig, new, inputs=("[1], [2]",))
    assert verdict.status == "differs"
    assert "in-place mutation" in verdict.reason


def test_stdout_difference_is_caught(sb):
    orig = "def f(x):\n    print('x is', x)\n    return x\n"
    new = "def f(x):\n    print('x =', x)\n    return x\n"
    verdict = v(sb, orig, new, inputs=("7",))
    assert verdict.status == "differs"
    assert verdict.reason == "on input 7: stdout: original 'x is 7\\n', rewritten 'x = 7\\n'"


def test_exception_policy(sb):
    orig = "def f(x):\n    raise ValueError('bad ' + str(x))\n"
    new = "def f(x):\n    raise ValueError('wrong ' + str(x))\n"
    assert v(sb, orig, new, extra_inputs=3, min_inputs=1).status == "equivalent"
    strict = v(sb, orig, new, extra_inputs=3, exception_policy="same-class-and-message")
    assert strict.status == "differs"
    assert strict.reason == "on input 3: exception message: original 'bad 3', rewritten 'wrong 3'"
    other_class = v(sb, orig, new.replace("ValueError", "TypeError"), extra_inputs=3)
    assert other_class.status == "differs"
    with pytest.raises(ValueError):
        v(sb, orig, new, exception_policy="same-everything")


def test_check_reuses_baseline_with_policy(sb):
    prog = Program("def f(s):\n    return s.upper()\n", "f")
    base = make_baseline(sb, prog, ["'ab'"], extra_inputs=5)
    same = check(sb, base, Program("def f(s):\n    # same\n    return s.upper()\n", "f"), min_inputs=1)
    assert same.status == "equivalent" and same.coverage is None  # only a comment changed
    wrong = check(sb, base, Program("def f(s):\n    return s.lower()\n", "f"))
    assert wrong.status == "differs" and wrong.counterexample.args == "'ab'"


def test_docstring_change_is_not_executable_code(sb):
    orig = "def f(x):\n    return x\n"
    new = "def f(x):\n    \"\"\"Returns x squared.\"\"\"\n    return x\n"
    assert changed_region(orig, new) == Region((), ())
    verdict = v(sb, orig, new, extra_inputs=3, min_inputs=1)
    assert verdict.status == "equivalent" and verdict.coverage is None


# --------------------------------------------------------------------- CrossHair backend
def test_crosshair_backend_finds_and_confirms_a_difference(sb):
    pytest.importorskip("crosshair")
    orig = "def f(x):\n    if x * 7 == 864199:\n        return 1\n    return 0\n"
    new = "def f(x):\n    return 0\n"
    tested = v(sb, orig, new, inputs=("5",), extra_inputs=10)
    assert tested.status == "equivalent"  # no mutant of 5 hits x == 123457
    found = v(sb, orig, new, inputs=("5",), extra_inputs=10, backend="crosshair", crosshair_seconds=20)
    assert found.status == "differs"
    assert found.counterexample.args == "123457"
    assert found.reason.startswith("CrossHair counterexample confirmed in the sandbox: on input 123457")
    same = v(sb, orig, orig.replace("return 0", "return 1 - 1"), inputs=("5",), extra_inputs=3,
             backend="crosshair", crosshair_seconds=20)
    assert same.status == "equivalent" and "CrossHair found no confirmed difference" in same.reason


# ------------------------------------------------------------- coverage-guided additions
GUARDED = "def f(s, k):\n    if len(s) > 3:\n        return s[k:]\n    return s\n"


def test_coverage_additions_reach_missed_code_and_keep_the_budget(sb):
    from dataclasses import replace

    from codemorph.inputs import coverage_additions
    from codemorph.verification.differential import program_literals

    prog = Program(GUARDED, "f")
    inputs = ["'abc', 1", "'b', 1", "'ab', 0", "'', 1", "'a', 2"]
    base = make_baseline(sb, prog, inputs[:1], extra_inputs=0)
    outs = base.outcomes + tuple(sb.run_batch([ExecRequest(GUARDED, "f", t, trace=True) for t in inputs[1:]]))
    assert not any(3 in o.lines for o in outs)  # no input has len(s) > 3
    g = coverage_additions(sb, prog, inputs, outs, 1, literals=program_literals(prog))
    assert g.added >= 1 and g.missed == () and 0 < g.executions <= 48
    assert len(g.inputs) == len(inputs) and g.inputs[0] == "'abc', 1"  # the seed is never replaced
    new = [t for t in g.inputs if t not in inputs]
    assert len(new) == g.added
    for t in new:
        (s, k), _ = parse_args(t)
        assert type(s) is str and type(k) is int and len(s) > 3
    # the wrong rewrite of the guarded line: inconclusive on the mutants, caught with the additions
    wrong = Program(GUARDED.replace("s[k:]", "s[k + 1:]"), "f")
    full = replace(base, inputs=tuple(inputs), outcomes=outs)
    assert check(sb, full, wrong).status == "inconclusive"
    guided = replace(full, inputs=g.inputs, outcomes=g.outcomes)
    caught = check(sb, guided, wrong)
    assert caught.status == "differs" and caught.counterexample.args in new


def test_coverage_additions_cost_nothing_when_everything_ran(sb):
    from codemorph.inputs import coverage_additions

    prog = Program(GUARDED, "f")
    base = make_baseline(sb, prog, ["'abcdefgh', 2", "'ab', 1"], extra_inputs=3)
    g = coverage_additions(sb, prog, base.inputs, base.outcomes, base.seed_count)
    assert (g.added, g.executions, g.missed) == (0, 0, ())
    assert g.inputs == base.inputs and g.outcomes == base.outcomes
    untraced = make_baseline(sb, prog, ["'ab', 1"], extra_inputs=3, trace=False)
    g = coverage_additions(sb, prog, untraced.inputs, untraced.outcomes, 1)
    assert (g.added, g.executions) == (0, 0)  # no trace: no guidance


# a loop that ends only for short strings: a candidate that reaches the guarded branch
# with a long string never returns
ENDLESS = ("def f(s, k):\n    if len(s) > 3:\n        while True:\n            k += 1\n"
           "    return s\n")


def test_coverage_candidates_run_under_the_mutants_limits(sb):
    from codemorph.inputs import coverage_additions

    prog = Program(ENDLESS, "f")
    inputs = ["'abc', 1", "'b', 1", "'ab', 0"]
    outs = tuple(sb.run_batch([ExecRequest(ENDLESS, "f", t, trace=True) for t in inputs]))
    seen = []

    class Recording:
        def run_batch(self, requests, **kw):
            seen.extend(requests)
            return sb.run_batch(requests, **kw)

    g = coverage_additions(Recording(), prog, inputs, outs, 1, timeout=1.0, cpu_timeout=0.25, max_lines=50_000,
                           types=False)
    assert seen and {(r.timeout, r.cpu_timeout, r.max_lines, r.types) for r in seen} == {(1.0, 0.25, 50_000, False)}
    # the candidates that reach the endless loop stop at the line budget, so none is added
    assert g.added == 0 and g.missed == (3, 4)


# ------------------------------------------------------------ cross-argument inputs
@pytest.mark.parametrize("orig, wrong, seed_input, related, only_related", [
    # a key argument that is in the dict argument
    ("def f(d, k):\n    if k in d:\n        return d[k] * 2\n    return 0\n",
     "def f(d, k):\n    if k in d:\n        return d[k] * 3\n    return 0\n",
     "{'apple': 1, 'pear': 2}, 'kiwi'", lambda d, k: k in d, True),
    # a prefix (not a suffix) of an element of the list argument (CRUXEval sample_516)
    ("def f(strings, substr):\n    return [s for s in strings if s.startswith(substr)]\n",
     "def f(strings, substr):\n    return [s for s in strings if s.endswith(substr)]\n",
     "['condor', 'eyes', 'gay', 'isa'], 'd'", lambda xs, t: any(x.startswith(t) != x.endswith(t) for x in xs),
     False),
])
def test_related_arguments_expose_the_wrong_rewrite(sb, monkeypatch, orig, wrong, seed_input, related, only_related):
    import codemorph.inputs.edges as edges
    import codemorph.inputs.mutation as inputs

    verdict = v(sb, orig, wrong, inputs=(seed_input,))
    assert verdict.status == "differs"
    args, _ = parse_args(verdict.counterexample.args)
    assert related(*args)
    if only_related:  # independent random mutation of each argument misses it
        monkeypatch.setattr(inputs, "CROSS_SHARE", 0.0)
        monkeypatch.setattr(edges, "EDGE_SHARE", 0.0)  # edge cases relate arguments too
        assert v(sb, orig, wrong, inputs=(seed_input,)).status != "differs"


def test_index_at_the_last_position_is_found_under_most_seeds(sb):
    # an index argument at the last position of the list argument: ``len(xs) - 1`` is the
    # first of the ranked 'index' edge cases (and one of the random cross-argument mutants),
    # so the default budget finds it under every mutation seed 0-9 (8 of 10 when the index
    # edge cases were sampled in a random order)
    orig = "def f(xs, i):\n    if i == len(xs) - 1:\n        return xs[i]\n    return None\n"
    wrong = "def f(xs, i):\n    if i == len(xs) - 1:\n        return xs[0]\n    return None\n"
    verdicts = [v(sb, orig, wrong, inputs=("[10, 20, 30, 40, 50, 60, 70], 100",), seed=s) for s in range(10)]
    found = [parse_args(x.counterexample.args)[0] for x in verdicts if x.status == "differs"]
    assert len(found) == 10 and all(i == len(xs) - 1 for xs, i in found)


def test_coverage_additions_plant_the_guard_constants(sb):
    from codemorph.inputs import coverage_additions

    # CRUXEval sample_5: 'count += 1' runs only when an argument is 'p' or 'C'
    code = ("def f(text, lower, upper):\n    count = 0\n    new_text = list()\n    for char in text:\n"
            "        char = lower if char.isdecimal() else upper\n        if char in ['p', 'C']:\n"
            "            count += 1\n        new_text.append(char)\n    return count, ''.join(new_text)\n")
    prog = Program(code, "f")
    inputs = ["'DSUWeqExTQdCMGpqur', 'a', 'x'", "'DSU', 'a', 'x'", "'12', 'b', 'y'"]
    outs = sb.run_batch([ExecRequest(code, "f", t, trace=True) for t in inputs])
    g = coverage_additions(sb, prog, inputs, outs, 1)
    assert g.added == 1 and g.missed == ()
    (text, lower, upper), _ = parse_args(g.inputs[-1])
    assert any(c in v for v in (lower, upper) for c in "pC")
    assert g.inputs[:2] == tuple(inputs[:2])  # the seed and the mutant that adds lines stay
