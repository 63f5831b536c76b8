"""Strength of differential verification: changed-region coverage, nondeterminism,
argument mutation, stdout, exception policy (programs run only in the sandbox)."""

from __future__ import annotations

import pytest

from codemorph import Program
from codemorph.sandbox import Limits, Sandbox
from codemorph.verification import (DEFAULT_INPUTS, Coverage, Region, changed_region, check, make_baseline,
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
    verdict = v(sb, orig, new, inputs=("10",), extra_inputs=0)
    assert verdict.status == "equivalent"
    # only the 'taken' outcome of the changed if was seen with the single input 10
    assert verdict.coverage == Coverage(1, 1, 2, 1)
    both = v(sb, orig, new, inputs=("10", "-10"), extra_inputs=0)
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
    assert verdict.reason.startswith("nondeterministic on input 1")


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
    assert v(sb, orig, new, extra_inputs=3).status == "equivalent"
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
    same = check(sb, base, Program("def f(s):\n    # same\n    return s.upper()\n", "f"))
    assert same.status == "equivalent" and same.coverage is None  # only a comment changed
    wrong = check(sb, base, Program("def f(s):\n    return s.lower()\n", "f"))
    assert wrong.status == "differs" and wrong.counterexample.args == "'ab'"


def test_docstring_change_is_not_executable_code(sb):
    orig = "def f(x):\n    return x\n"
    new = "def f(x):\n    \"\"\"Returns x squared.\"\"\"\n    return x\n"
    assert changed_region(orig, new) == Region((), ())
    verdict = v(sb, orig, new, extra_inputs=3)
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
