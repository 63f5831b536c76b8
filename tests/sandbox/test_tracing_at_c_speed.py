"""Traced runs: lines and arcs from coverage.py's C tracer are those of the Python tracer,
and a time limit that passes while a program is traced stops the tracing, not the program
(README, "Time limits and tracing")."""

from __future__ import annotations

import pytest

from codemorph.sandbox import ExecRequest, Limits, Sandbox

PROGRAM = (
    "class Box:\n"                               # 1
    "    def __init__(self, v):\n"               # 2
    "        self.v = v\n"                       # 3
    "def fact(n):\n"                             # 4
    "    return 1 if n <= 1 else n * fact(n - 1)\n"  # 5
    "def f(xs):\n"                               # 6
    "    total = 0\n"                            # 7
    "    for x in xs:\n"                         # 8
    "        if x % 2:\n"                        # 9
    "            total += x\n"                   # 10
    "        else:\n"                            # 11
    "            total -= 1\n"                   # 12
    "    try:\n"                                 # 13
    "        xs[99]\n"                           # 14
    "    except IndexError:\n"                   # 15
    "        total += 100\n"                     # 16
    "    sq = [y * y for y in xs if y]\n"        # 17
    "    while total > 90:\n"                    # 18
    "        total -= 7\n"                       # 19
    "    return Box(total).v, sq, fact(4)\n"     # 20
)

GENERATOR = (
    "def g(n):\n"            # 1
    "    yield n\n"          # 2
    "    yield n + 1\n"      # 3
    "def f(n):\n"            # 4
    "    return list(g(n))\n"  # 5
)

# sum(i % 7 for i in range(3_000_000)): 0.31 s in a plain interpreter on this machine, several
# times the limit of the tests below when traced with the types of locals
LOOP = "def f(n):\n    total = 0\n    for i in range(n):\n        total += i % 7\n    return total\n"


@pytest.fixture(scope="module")
def box():
    with Sandbox(Limits(timeout=10)) as sandbox:
        yield sandbox


def _both(box, code, args):
    c = box.run(ExecRequest(code, "f", args, trace=True, types=False))
    p = box.run(ExecRequest(code, "f", args, trace=True, types=False, python_tracer=True))
    assert c.status == p.status == "returned" and c.value_repr == p.value_repr
    return c, p


def test_the_c_tracer_reports_the_lines_and_arcs_of_the_python_tracer(box):
    c, p = _both(box, PROGRAM, "[1, 2, 3, 0]")
    assert c.value_repr == "(88, [1, 4, 9], 24)"
    assert c.lines == p.lines == (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 14, 15, 16, 17, 18, 19, 20)
    assert c.arcs == p.arcs
    assert (9, 12) in c.arcs and (18, 20) in c.arcs and (14, 15) in c.arcs and (5, 5) not in c.arcs
    assert not c.coverage_partial and not p.coverage_partial


def test_a_resumed_generator_adds_only_the_arc_across_its_yield(box):
    c, p = _both(box, GENERATOR, "3")
    assert c.value_repr == "[3, 4]"
    assert c.lines == p.lines == (1, 2, 3, 4, 5)
    # the Python tracer starts a resumed frame afresh; coverage.py continues from the yield
    assert set(c.arcs) - set(p.arcs) == {(2, 3)}
    assert set(p.arcs) <= set(c.arcs)


def test_a_limit_passing_while_traced_stops_the_tracing_not_the_program(box):
    # traced with types (the Python tracer: tens of times the plain run) the loop would
    # take far longer than 2 s; untraced it takes a fraction of it
    out = box.run(ExecRequest(LOOP, "f", "3000000", trace=True, types=True, timeout=2.0, python_tracer=True))
    assert out.status == "returned" and out.value_repr == "8999994"
    assert out.coverage_partial
    assert "tracing stopped when the time limit (2 s) passed" in out.note
    assert set(out.lines) <= {1, 2, 3, 4, 5} and 4 in out.lines
    assert out.types["f"]["total"] == ["int"]


def test_the_c_traced_run_goes_on_untraced_too(box):
    out = box.run(ExecRequest(LOOP, "f", "1000000000", trace=True, types=False, timeout=1.0,
                              cpu_timeout=1.0))
    # a billion iterations: tens of seconds untraced on any machine, so too slow for 1 s traced
    # or not; it is stopped by the limit that restarted for its untraced rest
    assert out.status == "timeout" and out.coverage_partial


def test_an_endless_loop_still_times_out_when_traced(box):
    out = box.run(ExecRequest("def f():\n    while True:\n        pass\n", "f", "", trace=True, types=True,
                              timeout=0.3))
    assert out.status == "timeout" and out.coverage_partial


def test_a_line_budget_stops_the_program_as_before(box):
    out = box.run(ExecRequest(LOOP, "f", "3000000", trace=True, types=False, max_lines=1000))
    assert out.status == "timeout" and not out.coverage_partial
    assert out.note == "stopped after 1000 traced lines (the request's line budget)"


def test_a_program_that_can_catch_memory_errors_keeps_its_exception_watch(box):
    code = ("def f(n):\n    try:\n        total = 0\n        for i in range(n):\n            total += i % 7\n"
            "        return total\n    except Exception:\n        return -1\n")
    out = box.run(ExecRequest(code, "f", "3000000", trace=True, types=True, timeout=2.0))
    assert out.status == "returned" and out.value_repr == "8999994" and out.coverage_partial


def test_a_run_counting_line_events_still_times_out(box):
    # counts of a run traced in part would be silently low: such a run keeps the old limit
    out = box.run(ExecRequest(LOOP, "f", "3000000", trace=True, types=False, counts=True, timeout=0.3))
    assert out.status == "timeout" and not out.coverage_partial


# a local whose type changes after the first 20,000 line events (the tracer's type sample):
# ``v`` is an int for the first 30,000 iterations, a str after them; ``s`` is bound last
SAMPLED = (
    "def g(x):\n"                                       # 1
    "    return x * 2\n"                                # 2
    "def f(n):\n"                                       # 3
    "    out = []\n"                                    # 4
    "    for i in range(n):\n"                          # 5
    "        v = g(i) if i < 30000 else str(i)\n"       # 6
    "        out.append(v)\n"                           # 7
    "    s = len(out)\n"                                # 8
    "    return s\n"                                    # 9
)


def test_a_long_run_samples_types_then_the_c_tracer_records_the_exact_lines_and_arcs(box):
    sampled = box.run(ExecRequest(SAMPLED, "f", "40000", trace=True, types=True))
    full = box.run(ExecRequest(SAMPLED, "f", "40000", trace=True, types=True, python_tracer=True))
    assert sampled.status == full.status == "returned" and sampled.value_repr == full.value_repr == "40000"
    assert sampled.types_partial and not full.types_partial and not sampled.coverage_partial
    assert sampled.lines == full.lines == (1, 2, 3, 4, 5, 6, 7, 8, 9)
    assert sampled.arcs == full.arcs
    # the sample: types of the first 20,000 line events, so v's str and s are not in it
    assert sampled.types == {"f": {"i": ["int"], "n": ["int"], "out": ["list"], "v": ["int"]}, "g": {"x": ["int"]}}
    assert full.types["f"]["v"] == ["int", "str"] and full.types["f"]["s"] == ["int"]


def test_a_short_run_keeps_every_line_events_types(box):
    a = box.run(ExecRequest(SAMPLED, "f", "100", trace=True, types=True))
    b = box.run(ExecRequest(SAMPLED, "f", "100", trace=True, types=True, python_tracer=True))
    assert not a.types_partial and (a.lines, a.arcs, a.types) == (b.lines, b.arcs, b.types)


def test_the_hand_over_keeps_the_arcs_of_callers_and_recursion(box):
    code = ("def down(k):\n"                     # 1
            "    if k == 0:\n"                   # 2
            "        return 0\n"                 # 3
            "    return 1 + down(k - 1)\n"       # 4
            "def f(n):\n"                        # 5
            "    t = 0\n"                        # 6
            "    for i in range(n):\n"           # 7
            "        t += down(i % 50)\n"        # 8
            "    return t\n")                    # 9
    a = box.run(ExecRequest(code, "f", "2000", trace=True, types=True))
    b = box.run(ExecRequest(code, "f", "2000", trace=True, types=True, python_tracer=True))
    assert a.types_partial and a.value_repr == b.value_repr
    assert (a.lines, a.arcs) == (b.lines, b.arcs)


def test_the_test_kits_observations_are_complete_past_the_sample(box):
    from codemorph.testing import observe_types

    observed = observe_types(SAMPLED, ["40000", "3"], sandbox=box)
    assert observed["f"] == {"i": ["int"], "n": ["int"], "out": ["list"], "s": ["int"], "v": ["int", "str"]}


def test_decoded_arcs_remembered_hold_a_bounded_number_of_pairs(monkeypatch):
    # a batch of a large program whose inputs take many distinct paths: each distinct set of
    # recorded pairs is decoded right, and the sets remembered hold at most DECODED_MAX_PAIRS
    # pairs in all (256 sets of 20,000 pairs would hold 1.4 GB of the child's memory limit)
    from codemorph.sandbox._workerlib import tracer as tr
    from codemorph.sandbox._workerlib.common import PROGRAM_FILE

    monkeypatch.setattr(tr, "_DECODED", {})
    monkeypatch.setattr(tr, "_DECODED_PAIRS", [0])
    monkeypatch.setattr(tr, "DECODED_MAX_PAIRS", 50_000)

    class Recorded:
        result = tr.CoverageTracer.result

        def __init__(self, pairs):
            self.data = {PROGRAM_FILE: set(pairs)}

    for k in range(8):
        arcs = [(a, a + 1 + k) for a in range(1, 20_001)]
        got = Recorded(a | (b << 28) for a, b in arcs).result()
        assert got["arcs"] == arcs
        assert got["lines"] == sorted({b for _, b in arcs})
    assert len(tr._DECODED) == 2 and tr._DECODED_PAIRS == [40_000]
    again = Recorded(a | ((a + 1) << 28) for a in range(1, 20_001)).result()  # remembered
    assert again["arcs"][:2] == [(1, 2), (2, 3)]
