"""The hand-over of a run traced with types to coverage.py's C tracer (README, "Time limits and
tracing" -> "Types of locals are sampled"), tried against programs built to break it: the
lines, arcs and results of a handed-over run are those of the same run under the Python
tracer on every line event (``ExecRequest(python_tracer=True)``), wherever the hand-over
falls, and it leaves nothing behind for the next request of the batch."""

from __future__ import annotations

import pytest

from codemorph.sandbox import ExecRequest, Limits, Sandbox
from codemorph.sandbox._workerlib.child import TYPES_SAMPLE_LINES

# ``burn(k)`` spends 2k + 1 line events: a program calls it first to put the hand-over
# where it wants it
BURN = ("def burn(k):\n"              # 1
        "    for _ in range(k):\n"    # 2
        "        pass\n")             # 3


@pytest.fixture(scope="module")
def box():
    with Sandbox(Limits(timeout=20)) as sandbox:
        yield sandbox


def _pairs(box, code, arg_lists, **kw):
    """Each argument list run with types twice in one batch: sampled (the hand-over) and
    under the Python tracer on every line event."""
    reqs = []
    for args in arg_lists:
        reqs.append(ExecRequest(code, "f", args, trace=True, types=True, **kw))
        reqs.append(ExecRequest(code, "f", args, trace=True, types=True, python_tracer=True, **kw))
    outs = box.run_batch(reqs)
    return [(outs[k], outs[k + 1]) for k in range(0, len(outs), 2)]


def _same(a, b):
    return (a.status, a.value_repr, a.stdout, a.exception, a.lines, a.arcs) == \
        (b.status, b.value_repr, b.stdout, b.exception, b.lines, b.arcs)


def _every_hand_over_point(box, tail, top_level, tail_events):
    """Run ``BURN + tail + f`` where ``f(b, pad)`` burns ``2b + pad`` line events and then
    calls ``tail()``, for every ``2b + pad`` that puts the hand-over on one of the tail's
    ``tail_events`` line events (and a few around them).  ``top_level``: the statements of
    ``tail`` run at module level (one line event each).  Returns the pairs of outcomes."""
    code = BURN + tail + (
        "def f(b, pad):\n"
        "    burn(b)\n"
        "    if pad:\n"
        "        pad = 0\n"
        "    return tail()\n")
    # line events before the tail's: the module's ``def``s, then ``burn(b)``, burn's 2b + 1,
    # ``if pad``, ``pad = 0`` when pad, ``return tail()``
    before = 2 + top_level + 4
    last = TYPES_SAMPLE_LINES + 1 - before  # 2b + pad putting the hand-over on the tail's first event
    spans = range(last - tail_events - 2, last + 3)
    return _pairs(box, code, [f"{p // 2}, {p % 2}" for p in spans])


def _assert_all_same(pairs):
    handed = 0
    for a, b in pairs:
        assert _same(a, b), (a, b)
        handed += a.types_partial
    assert 0 < handed < len(pairs)  # the span covers runs handed over before and within the tail


def test_a_frame_stopped_in_a_call_keeps_the_arc_to_its_next_line(box):
    # the hand-over comes inside burn: f's arc (7, 8) is taken once, after it; coverage.py
    # took f (stopped at CALL's cache, argument byte 0) for a new frame and lost it
    code = BURN + ("def f(n):\n"     # 4
                   "    t = 0\n"     # 5
                   "    burn(n)\n"   # 6
                   "    t += 1\n"    # 7
                   "    return t\n")  # 8
    ((a, b),) = _pairs(box, code, ["10100"])
    assert a.types_partial and not b.types_partial
    assert a.status == b.status == "returned" and a.value_repr == b.value_repr == "1"
    assert a.lines == b.lines == (1, 2, 3, 4, 5, 6, 7, 8)
    assert a.arcs == b.arcs
    assert (6, 7) in a.arcs and (7, 8) in a.arcs


def test_exceptions_in_flight_finally_and_with_at_every_hand_over_point(box):
    # (a with statement of a builtin context manager: a program with its own __exit__ may
    # catch a MemoryError and keeps the Python tracer, see README)
    tail = ("def g(i):\n"
            "    try:\n"
            "        raise KeyError(i)\n"
            "    finally:\n"
            "        x = 1\n"
            "def tail():\n"
            "    out = []\n"
            "    for i in range(2):\n"
            "        try:\n"
            "            with memoryview(b'ab') as m:\n"
            "                g(i)\n"
            "        except KeyError as e:\n"
            "            out.append(e.args[0])\n"
            "    try:\n"
            "        1 // 0\n"
            "    except ZeroDivisionError as e:\n"
            "        out.append(type(e).__name__)\n"
            "    return out\n")
    pairs = _every_hand_over_point(box, tail, top_level=2, tail_events=30)
    _assert_all_same(pairs)
    assert pairs[0][0].value_repr == "[0, 1, 'ZeroDivisionError']"


def test_program_frames_called_from_library_frames_at_every_hand_over_point(box):
    # __deepcopy__ under copy.deepcopy (Python frames of the standard library between the
    # program's), a re.sub callback, a sort key, a json object hook, a total_ordering method
    tail = ("import copy, functools, json, re\n"
            "@functools.total_ordering\n"
            "class A:\n"
            "    def __init__(self, v):\n"
            "        self.v = v\n"
            "    def __deepcopy__(self, memo):\n"
            "        return A(self.v + 1)\n"
            "    def __eq__(self, o):\n"
            "        return self.v == o.v\n"
            "    def __lt__(self, o):\n"
            "        return self.v < o.v\n"
            "def rep(m):\n"
            "    return m.group(0).upper()\n"
            "def hook(d):\n"
            "    d['n'] = len(d)\n"
            "    return d\n"
            "def tail():\n"
            "    xs = copy.deepcopy([A(2), A(1)])\n"
            "    ys = sorted(xs, key=lambda a: -a.v)\n"
            "    return [a.v for a in ys], A(1) >= A(0), re.sub('[ab]', rep, 'abc'), json.loads('[{}]', object_hook=hook)\n")
    pairs = _every_hand_over_point(box, tail, top_level=5, tail_events=30)
    _assert_all_same(pairs)
    assert pairs[0][0].value_repr == "([3, 2], True, 'ABc', [{'n': 0}])"


def test_a_program_with_generators_keeps_the_python_tracer(box):
    # coverage.py continues a resumed generator's arcs from its yield line, the Python
    # tracer starts it afresh: such a run is not handed over (arcs (7, 8) and (2, 2) would be extra)
    gen = BURN + ("def g(n):\n"          # 4
                  "    yield 1\n"        # 5
                  "    burn(n)\n"        # 6
                  "    yield 2\n"        # 7
                  "    yield 3\n"        # 8
                  "def f(n):\n"          # 9
                  "    return list(g(n)), sum(i * 2 for i in range(n))\n")  # 10
    ((a, b),) = _pairs(box, gen, ["10100"])
    assert not a.types_partial
    assert a.status == b.status == "returned" and a.value_repr == b.value_repr == "([1, 2, 3], 101999900)"
    assert (a.lines, a.arcs, a.types) == (b.lines, b.arcs, b.types)
    assert (7, 8) not in a.arcs and (10, 10) not in a.arcs


def test_a_coroutine_program_keeps_the_python_tracer(box):
    code = ("import asyncio\n"
            "async def h(i):\n"
            "    return i\n"
            "async def main(n):\n"
            "    t = 0\n"
            "    for i in range(n):\n"
            "        t += await h(i)\n"
            "        await asyncio.sleep(0)\n"
            "    return t\n"
            "def f(n):\n"
            "    return asyncio.run(main(n))\n")
    ((a, b),) = _pairs(box, code, ["8000"])
    assert not a.types_partial
    assert a.value_repr == b.value_repr == "31996000"
    assert (a.lines, a.arcs, a.types) == (b.lines, b.arcs, b.types)
    assert (8, 6) not in a.arcs  # main resumed after its sleep: coverage.py's arc from the await line


DOWN = BURN + ("def down(k):\n"               # 4
               "    if k == 0:\n"             # 5
               "        return 0\n"           # 6
               "    return 1 + down(k - 1)\n"  # 7
               "def f(n, b):\n"               # 8
               "    burn(b)\n"                # 9
               "    return down(n)\n")        # 10


def test_a_hand_over_at_the_bottom_of_a_recursion_near_the_limit_does_not_raise(box):
    # the deepest recursion the Python tracer lets this program finish, with the hand-over
    # due on its deepest frames: the hand-over needs more Python frames than the trace
    # function, so it raised a RecursionError into the program (status "raised" where the
    # Python-traced run returned); it is now tried again at a later line event
    probe = box.run_batch([ExecRequest(DOWN, "f", f"{n}, 0", trace=True, types=True, python_tracer=True)
                           for n in range(9900, 10000)])
    deepest = max(n for n, o in zip(range(9900, 10000), probe) if o.status == "returned")
    assert probe[deepest + 1 - 9900].status == "raised"
    args = []
    for n in (deepest - 1, deepest):
        # line events: 3 defs, ``burn(b)``, burn's 2b + 1, ``return down(n)``, 2 per level
        last = (TYPES_SAMPLE_LINES + 1 - 6 - 2 * (n + 1)) // 2
        args += [f"{n}, {b}" for b in range(last - 3, last + 6)]
    pairs = _pairs(box, DOWN, args)
    for a, b in pairs:
        assert _same(a, b), (a, b)
        assert a.status == "returned"
    assert any(a.types_partial for a, _ in pairs) and not all(a.types_partial for a, _ in pairs)


def test_a_program_that_rebinds_sys_settrace_or_builtins_does_not_see_the_hand_over(box):
    # the hand-over called sys.settrace and the builtin max by their names: the program's
    # own functions ran inside the tracer and the program saw them called
    rebinds = ("import builtins, sys\n"
               "calls = []\n"
               "real_settrace, real_len, real_max = sys.settrace, builtins.len, builtins.max\n"
               "def settrace(fn):\n"
               "    calls.append('settrace')\n"
               "    real_settrace(fn)\n"
               "def length(x):\n"
               "    calls.append('len')\n"
               "    return real_len(x)\n"
               "def most(*a, **k):\n"
               "    calls.append('max')\n"
               "    return real_max(*a, **k)\n" + BURN.replace("def burn", "def burn_") +
               "def f(n):\n"
               "    sys.settrace, builtins.len, builtins.max = settrace, length, most\n"
               "    burn_(n)\n"
               "    return calls[:]\n")
    ((a, b),) = _pairs(box, rebinds, ["10100"])
    assert a.types_partial
    assert a.status == b.status == "returned" and a.value_repr == b.value_repr == "[]"
    assert (a.lines, a.arcs) == (b.lines, b.arcs)


def test_a_script_looping_at_module_level_past_the_sample(box):
    script = ("n = int(input())\n"
              "t = 0\n"
              "for i in range(n):\n"
              "    if i % 3:\n"
              "        t += i\n"
              "    else:\n"
              "        t -= 1\n"
              "print(t)\n")
    ((a, b),) = _pairs(box, script, [None], input_kind="stdin", stdin="15000\n")
    assert a.types_partial and not b.types_partial
    assert a.status == b.status == "returned" and a.stdout == b.stdout == "74995000\n"
    assert a.lines == b.lines == (1, 2, 3, 4, 5, 7, 8)
    assert a.arcs == b.arcs


@pytest.mark.parametrize("program, args, status, exception", [
    ("def f(n):\n    t = 0\n    for i in range(n):\n        t += 1\n    raise ValueError(t)\n", "30000",
     "raised", "ValueError"),
    ("import sys\ndef f(n):\n    for i in range(n):\n        pass\n    sys.exit(2)\n", "30000", "raised", "SystemExit"),
    ("def f(n):\n    for i in range(n):\n        pass\n    raise KeyboardInterrupt\n", "30000", "raised",
     "KeyboardInterrupt"),
])
def test_exits_after_the_hand_over_are_the_python_tracers(box, program, args, status, exception):
    ((a, b),) = _pairs(box, program, [args])
    assert a.types_partial
    assert a.status == b.status == status and a.exception.type == b.exception.type == exception
    assert (a.lines, a.arcs) == (b.lines, b.arcs)


SHORT = ("def g(x):\n"
         "    return [x] * 2\n"
         "def f(a, b):\n"
         "    if a > b:\n"
         "        return g(a)\n"
         "    s = str(b)\n"
         "    return s\n")
LOOP = "def f(n):\n    total = 0\n    for i in range(n):\n        total += i % 7\n    return total\n"


@pytest.mark.parametrize("first", [
    ExecRequest(LOOP, "f", "30000", trace=True, types=True),
    # a billion iterations: the time limit passes after the hand-over and stops the C tracer
    ExecRequest(LOOP, "f", "1000000000", trace=True, types=True, timeout=1.0),
    ExecRequest(LOOP, "f", "1000000000", trace=True, types=True, cpu_timeout=1.0),
    ExecRequest("import sys\ndef f(n):\n    for i in range(n):\n        pass\n    sys.exit(2)\n", "f", "30000",
                trace=True, types=True),
], ids=["returned", "timeout", "cpu-timeout", "exit"])
def test_requests_after_a_handed_over_run_are_traced_as_in_a_fresh_batch(box, first):
    rest = [ExecRequest(SHORT, "f", "3, 1", trace=True, types=True),
            ExecRequest(SHORT, "f", "1, 3", trace=True, types=True),
            ExecRequest(SHORT, "f", "1, 3", trace=True, types=False),
            ExecRequest(LOOP, "f", "30", trace=True, types=True)]
    alone = box.run_batch(rest)
    after = box.run_batch([first] + rest)
    assert after[0].types_partial
    if first.timeout or first.cpu_timeout:
        assert after[0].status == "timeout" and after[0].coverage_partial
    for a, b in zip(after[1:], alone):
        assert (a.status, a.value_repr, a.lines, a.arcs, a.types, a.types_partial, a.coverage_partial) == \
            (b.status, b.value_repr, b.lines, b.arcs, b.types, b.types_partial, b.coverage_partial)
    assert alone[0].types == {"f": {"a": ["int"], "b": ["int"]}, "g": {"x": ["int"]}}
    assert alone[1].lines == (1, 3, 4, 6, 7) and alone[1].value_repr == "'3'"


def test_a_program_that_can_catch_memory_errors_keeps_the_python_tracer_with_types(box):
    code = ("def f(n):\n"
            "    try:\n"
            "        t = 0\n"
            "        for i in range(n):\n"
            "            t += i % 7\n"
            "        return t\n"
            "    except Exception:\n"
            "        return -1\n")
    ((a, b),) = _pairs(box, code, ["30000"])
    assert not a.types_partial and a.value_repr == b.value_repr == "89995"
    assert (a.lines, a.arcs, a.types) == (b.lines, b.arcs, b.types)


@pytest.mark.parametrize("code, args, kw, status, value", [
    # the hand-over inside the argument list's own call (its frame is ``<input>``'s, not the program's)
    (BURN + "    return k\ndef f(n):\n    t = 0\n    for i in range(3):\n        t += i\n    return t + n\n",
     "burn(15000)", {}, "returned", "15003"),
    # a ``call`` input: statements, then the call
    (BURN + "    return k\ndef f(n):\n    t = 0\n    for i in range(n):\n        t += i\n    return t\n",
     "x = burn(12000)\nf(x)", {"input_kind": "call"}, "returned", "71994000"),
    # past the sample in the module body, then an exception there
    ("t = 0\nfor i in range(15000):\n    t += i\nraise ValueError(t)\ndef f():\n    return 1\n", "", {}, "bad-code", None),
    # past the sample in the module body, then the call
    ("t = 0\nfor i in range(15000):\n    t += i\ndef f(k):\n    if k:\n        return t\n    return -t\n", "1", {},
     "returned", "112492500"),
], ids=["argument-list", "call-input", "module-raises", "module-then-call"])
def test_hand_overs_outside_the_entry_points_call(box, code, args, kw, status, value):
    ((a, b),) = _pairs(box, code, [args], **kw)
    assert a.types_partial
    assert a.status == b.status == status and a.value_repr == b.value_repr == value
    assert (a.lines, a.arcs, a.exception) == (b.lines, b.arcs, b.exception)
