"""A budgeted run (``ExecRequest(max_lines=...)``, ``generate``'s mutant runs) that goes round
in a cycle -- the program's only frame comes back to the same instruction with the same
immutable locals and globals -- is ended where its line budget would end it
(``Tracer.look_for_cycle``): the same outcome (status, note, lines, arcs, types of locals)
as the run to the budget.  Each program runs as written and with a trailing comment that
spells ``print``, which makes the child never look for a cycle (same line numbers)."""

from __future__ import annotations

import pytest

from codemorph.sandbox import ExecRequest, Limits, Sandbox
from codemorph.sandbox._workerlib.child import cycle_functions

BUDGET = 50_000


@pytest.fixture(scope="module")
def box():
    with Sandbox(Limits(timeout=20)) as sandbox:
        yield sandbox


def _unlooked(code: str) -> str:
    """``code`` with a comment spelling ``print`` on its last line (same line numbers)."""
    return code.rstrip("\n") + "  # print\n"


def _both(box, code: str, args: str, **kw):
    reqs = [ExecRequest(c, "f", args, trace=True, types=True, max_lines=BUDGET, timeout=10, cpu_timeout=5, **kw)
            for c in (code, _unlooked(code))]
    a, b = box.run_batch(reqs)
    return a, b


def _same(a, b) -> None:
    fields = {k: v for k, v in vars(a).items() if k != "duration"}
    assert fields == {k: v for k, v in vars(b).items() if k != "duration"}


STRIP = ("def f(text, prefix):\n"
         "    while text.startswith(prefix):\n"
         "        text = text[len(prefix):] or text\n"
         "    return text\n")


def test_a_cycle_ends_as_the_budget_would_end_it(box):
    a, b = _both(box, STRIP, "'ab', ''")
    _same(a, b)
    assert a.status == "timeout"
    assert a.note == f"stopped after {BUDGET} traced lines (the request's line budget)"
    assert a.lines == (1, 2, 3)
    assert a.arcs == ((2, 3), (3, 2))
    assert a.types == {"f": {"prefix": ["str"], "text": ["str"]}}


def test_a_cycle_of_two_locals_with_an_int_ends_as_the_budget_would(box):
    code = ("def f(s, x):\n"
            "    count = 0\n"
            "    while s[:len(x)] == x and count < len(s)-len(x):\n"
            "        s = s[len(x):]\n"
            "        count += len(x)\n"
            "    return s\n")
    a, b = _both(box, code, "'happy life', ''")
    _same(a, b)
    assert a.status == "timeout" and a.types == {"f": {"count": ["int"], "s": ["str"], "x": ["str"]}}


def test_a_loop_whose_counter_changes_runs_to_its_end(box):
    code = ("def f(n):\n"
            "    total = 0\n"
            "    while n > 0:\n"
            "        n -= 1\n"
            "        total += 2\n"
            "    return total\n")
    a, b = _both(box, code, "5000")
    _same(a, b)
    assert (a.status, a.value_repr) == ("returned", "10000")


def test_a_loop_that_fills_a_global_list_is_not_a_cycle(box):
    # the locals repeat, the module's list grows: the run returns
    code = ("seen = []\n"
            "def f(x):\n"
            "    while len(seen) < 4000:\n"
            "        seen.append(x)\n"
            "    return len(seen)\n")
    a, b = _both(box, code, "'a'")
    _same(a, b)
    assert (a.status, a.value_repr) == ("returned", "4000")


def test_a_helper_with_a_mutable_default_is_not_a_cycle(box):
    code = ("def g(acc=[]):\n"
            "    acc.append(1)\n"
            "    return len(acc) >= 3000\n"
            "def f(x):\n"
            "    done = False\n"
            "    while not done:\n"
            "        done = g()\n"
            "    return x\n")
    a, b = _both(box, code, "7")
    _same(a, b)
    assert (a.status, a.value_repr) == ("returned", "7")


def test_a_loop_over_an_iterator_is_never_looked_at(box):
    # at `k = 1` the locals repeat while the `for` loop's iterator (on the value stack) moves on
    code = ("def f(s):\n"
            "    k = 0\n"
            "    c = ''\n"
            "    while not k:\n"
            "        for c in s * 3000:\n"
            "            k = 1\n"
            "    return k\n")
    a, b = _both(box, code, "'ab'")
    _same(a, b)
    assert (a.status, a.value_repr) == ("returned", "1")
    assert cycle_functions(code) == {}


def test_a_list_local_is_not_compared(box):
    code = ("def f(xs):\n"
            "    n = 0\n"
            "    while n < 3:\n"
            "        xs.append(n)\n"
            "        n = 0 if len(xs) < 5000 else 3\n"
            "    return len(xs)\n")
    a, b = _both(box, code, "[]")
    _same(a, b)
    assert (a.status, a.value_repr) == ("returned", "5000")


def test_which_functions_may_be_looked_at():
    assert cycle_functions(STRIP) == {("f", 1): frozenset()}
    # a statement over two lines: a line event may find values on the stack
    assert cycle_functions("def f(x):\n    y = (x +\n         1)\n    return y\n") == {}
    assert cycle_functions("def f(x):\n    while (x >\n           0):\n        x = x\n") == {}
    # state outside the frame, identities, output
    for body in ("global g\n    g = 1", "print(x)", "y = id(x)", "y = x is x", "g.a = 1", "yield x"):
        assert cycle_functions(f"g = 0\ndef f(x):\n    {body}\n    return x\n") == {}, body
    assert cycle_functions("def f(x):\n    y = x is None\n    return y\n") == {("f", 1): frozenset()}
    # try, with, nested code, decorators
    assert cycle_functions("def f(x):\n    try:\n        x = 1\n    except E:\n        x = 2\n") == {}
    assert cycle_functions("def f(x):\n    g = lambda: x\n    return g\n") == {}
    assert cycle_functions("@d\ndef f(x):\n    return x\n") == {}
    assert cycle_functions("def f(x):\n    return x\ndef h(y):\n    for c in y:\n        pass\n") \
        == {("f", 1): frozenset()}


COUNT = ("def f(text):\n"
         "    a = len(text)\n"
         "    count = 0\n"
         "    while text:\n"
         "        if text.startswith('a'):\n"
         "            count += text.find(' ')\n"
         "        else:\n"
         "            count -= text.find('\\n')\n"
         "        text = text[text.find('\\n')+1:text.find('\\n')+a+1]\n"
         "    return count\n")


def test_accumulators_are_locals_only_added_to_and_returned():
    assert cycle_functions(COUNT) == {("f", 1): frozenset({"count"})}
    # read elsewhere (the loop's test, another local's value, a call): compared by value
    for line in ("    while count < 9: pass", "    y = count", "    g(count)", "    count *= 2", "    count = a"):
        src = COUNT.replace("    return count\n", f"{line}\n    return count\n")
        assert cycle_functions(src) == {("f", 1): frozenset()}, line
    # t is read by s's addition: compared by value, s may be an accumulator
    assert cycle_functions("def f(x):\n    s = 0\n    t = 0\n    while x:\n        s += t\n        t += 1\n"
                           "    return s\n") == {("f", 1): frozenset({"s"})}
    # what is added reads an accumulator
    assert cycle_functions("def f(x):\n    s = 0\n    while x:\n        s += s\n    return s\n") \
        == {("f", 1): frozenset()}
    # a parameter comes from the call
    assert cycle_functions("def f(x, n):\n    while x:\n        n += 1\n    return n\n") \
        == {("f", 1): frozenset()}


def test_a_cycle_with_an_accumulator_ends_as_the_budget_would(box):
    a, b = _both(box, COUNT, "'9'")
    _same(a, b)
    assert a.status == "timeout" and a.types == {"f": {"a": ["int"], "count": ["int"], "text": ["str"]}}
    # the same program ends where the text runs out
    a, b = _both(box, COUNT, "'ab\\n'")
    _same(a, b)
    assert a.status == "returned"


def test_a_float_accumulator_that_becomes_infinite_keeps_its_type(box):
    code = ("def f(s):\n"
            "    total = 1e300\n"
            "    while s:\n"
            "        total += 1e300 * len(s)\n"
            "    return total\n")
    a, b = _both(box, code, "'xy'")
    _same(a, b)
    assert a.status == "timeout" and a.types == {"f": {"s": ["str"], "total": ["float"]}}


def test_the_next_requests_of_the_batch_are_unaffected(box):
    code2 = "def f(x):\n    return x * 2\n"
    reqs = [ExecRequest(STRIP, "f", "'ab', ''", trace=True, max_lines=BUDGET, timeout=10, cpu_timeout=5),
            ExecRequest(code2, "f", "21", trace=True, max_lines=BUDGET),
            ExecRequest(STRIP, "f", "'ab', 'a'", trace=True, max_lines=BUDGET)]
    a, b, c = box.run_batch(reqs)
    assert a.status == "timeout"
    assert (b.status, b.value_repr, b.lines) == ("returned", "42", (1, 2))
    assert (c.status, c.value_repr) == ("returned", "'b'")
