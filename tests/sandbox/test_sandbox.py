"""Tests of codemorph.sandbox: every program runs inside worker processes, never here."""

from __future__ import annotations

import json
import os

import pytest

from codemorph.sandbox.pool import ExecRequest, Limits, Outcome, Sandbox
from paths import CRUXEVAL, needs_shared

R = ExecRequest
# generous limits (the machine may be loaded); requests meant to hang get SHORT seconds
FAST = Limits(timeout=5.0, grace=0.3, memory=512 * 1024**2, output=4096)
SHORT = 0.4
CRUX = CRUXEVAL


@pytest.fixture(scope="module")
def sb():
    with Sandbox(FAST) as box:
        yield box


def run(sb, code, args="", **kw) -> Outcome:
    return sb.run(R(code, args=args, **kw))


# ---------------------------------------------------------------- returns and raises
def test_returns_value_repr_and_fingerprint(sb):
    o = run(sb, "def f(x, y):\n    return [x * 2, y]\n", "3, 'a'")
    assert o.status == "returned"
    assert o.value_repr == "[6, 'a']"
    assert o.fingerprint == ["list", [["int", "6"], ["str", "a"]]]
    assert o.literal_ok is True
    assert o.exception is None
    assert o.args_fingerprint == ["list", [["list", [["int", "3"], ["str", "a"]]], ["dict", []]]]


def test_raises_with_class_message_and_line(sb):
    o = run(sb, "def f(xs):\n    y = 1\n    return xs[y + 5]\n", "[1, 2]")
    assert o.status == "raised"
    assert o.exception.type == "IndexError"
    assert o.exception.message == "list index out of range"
    assert o.exception.line == 3
    assert o.behaviour() == ("raised", "IndexError", o.args_fingerprint, "")


def test_exception_line_is_innermost_program_frame(sb):
    code = "def g(d):\n    return d['k']\n\ndef f(d):\n    return g(d)\n"
    o = run(sb, code, "{}")
    assert (o.status, o.exception.type, o.exception.message, o.exception.line) == \
        ("raised", "KeyError", "'k'", 2)


def test_keyword_arguments_and_generator_argument(sb):
    assert run(sb, "def f(a, b=0):\n    return a - b\n", "1, b=5").value_repr == "-4"
    assert run(sb, "def f(it):\n    return sum(it)\n", "x * x for x in range(4)").value_repr == "14"


def test_bad_input_bad_code_and_missing_entry_point(sb):
    o = run(sb, "def f(a):\n    return a\n", "1 +")
    assert o.status == "bad-input" and o.exception.type == "SyntaxError"
    o = run(sb, "def f(a):\n    return a\n", "undefined_name")
    assert o.status == "bad-input" and o.exception.type == "NameError"
    o = run(sb, "def f(a:\n    pass\n", "1")
    assert o.status == "bad-code" and o.exception.type == "SyntaxError" and o.exception.line == 1
    o = run(sb, "x = 1 / 0\ndef f():\n    return 1\n")
    assert o.status == "bad-code" and o.exception.type == "ZeroDivisionError" and o.exception.line == 1
    o = run(sb, "def g():\n    return 1\n")
    assert o.status == "bad-code" and o.exception.type == "NameError"
    o = run(sb, "def g():\n    return 1\n", entry_point="g")
    assert o.status == "returned" and o.value_repr == "1"


# ------------------------------------------------------------- faults do not stop runs
def test_timeout_then_next_request_runs(sb):
    outs = sb.run_batch([R("def f():\n    while True:\n        pass\n", timeout=SHORT), R("def f():\n    return 7\n")])
    assert outs[0].status == "timeout"
    assert outs[0].exception is None
    assert SHORT - 0.05 < outs[0].duration < 3.0
    assert (outs[1].status, outs[1].value_repr) == ("returned", "7")


def test_a_timer_left_running_after_its_step_is_not_a_timeout():
    # disarm() leaves the wall-clock timer running (no program could have replaced the
    # handler): its signal, after the step or while the next step is armed, is ignored,
    # and the next step's own limit still stops it
    import signal
    import time

    from codemorph.sandbox._workerlib import execution as ex

    before = signal.getsignal(signal.SIGALRM)
    try:
        ex.arm(0.001)
        ex.disarm()
        time.sleep(0.05)  # the timer fires here: nothing is raised
        ex.arm(5.0)
        os.kill(os.getpid(), signal.SIGALRM)  # an earlier step's signal, late
        time.sleep(0.01)
        assert ex.STATE.timed_out is False
        ex.arm(0.02)
        with pytest.raises(ex.Timeout):
            time.sleep(2.0)
        assert ex.STATE.timed_out is True
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        ex.STATE.alarm_deadline = float("inf")
        signal.signal(signal.SIGALRM, before)



# a program that signals itself SIGALRM before its time limit (the sandbox's handler in place)
SELF_ALARM = [
    "import signal\ndef f():\n    signal.raise_signal(signal.SIGALRM)\n    return 1\n",
    "import os, signal\ndef f():\n    os.kill(os.getpid(), signal.SIGALRM)\n    return 1\n",
]


def test_a_sigalrm_a_program_sends_itself_is_its_time_limit_as_before():
    # the first requests spell no reach word (their steps' timers are left running); a
    # program that can reach a module and raises SIGALRM early is stopped as a timeout
    # untraced, and traced its tracing stops, as before timers were left running (it was
    # ignored as an earlier step's signal, and f returned 1: plain Python dies of SIGALRM)
    ret = "def f(n):\n    return n\n"
    with Sandbox(Limits(timeout=5)) as box:
        outs = box.run_batch([ExecRequest(ret, "f", "1"), ExecRequest(ret, "f", "2", trace=True)]
                             + [ExecRequest(c, "f", "", trace=t) for c in SELF_ALARM for t in (False, True)]
                             + [ExecRequest(ret, "f", "3")])
    assert [o.value_repr for o in outs[:2]] == ["1", "2"]
    for untraced, traced in (outs[2:4], outs[4:6]):
        assert (untraced.status, untraced.value_repr) == ("timeout", None)
        assert traced.status == "returned" and traced.note.startswith("tracing stopped when the time limit")
    assert (outs[6].status, outs[6].value_repr) == ("returned", "3")


def test_programs_may_signal_stops_the_timer_left_running_and_takes_early_signals():
    import signal
    import time

    from codemorph.sandbox._workerlib import execution as ex

    before = signal.getsignal(signal.SIGALRM)
    try:
        ex.arm(5.0)
        ex.disarm()  # left running: no program could reach a module yet
        assert signal.getitimer(signal.ITIMER_REAL)[0] > 0
        ex.programs_may_signal()
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
        assert ex.STATE.handlers_ours is False
        ex.arm(5.0)
        with pytest.raises(ex.Timeout):
            os.kill(os.getpid(), signal.SIGALRM)  # the program's own, long before the limit
            time.sleep(1.0)
        assert ex.STATE.timed_out is True
        ex.disarm()
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)  # stopped at every step now
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        ex.STATE.alarm_deadline = float("inf")
        ex.STATE.handlers_ours = True
        ex.STATE.timed_out = False
        signal.signal(signal.SIGALRM, before)

def test_per_request_timeout_overrides_limit(sb):
    loop = "def f():\n    while True:\n        pass\n"
    outs = sb.run_batch([R(loop, timeout=0.1), R(loop, timeout=0.6)])
    assert [o.status for o in outs] == ["timeout", "timeout"]
    assert 0.05 < outs[0].duration < 0.5 < outs[1].duration
    with pytest.raises(ValueError):
        sb.run(R(loop, timeout=0))


def test_timeout_swallowed_by_program_is_still_timeout(sb):
    code = ("def f():\n    try:\n        while True:\n            pass\n    except BaseException:\n"
            "        return 'caught'\n")
    o = run(sb, code, timeout=SHORT)
    assert o.status == "timeout"
    assert o.value_repr is None


def test_program_with_own_sigalrm_handler_is_killed(sb):
    code = ("import signal\ndef f():\n    signal.signal(signal.SIGALRM, lambda *a: None)\n"
            "    while True:\n        pass\n")
    outs = sb.run_batch([R(code, timeout=SHORT), R("def f():\n    return 'next'\n")])
    assert outs[0].status == "timeout"
    assert "killed" in outs[0].note
    assert outs[1].value_repr == "'next'"


def test_memory_bomb():
    bomb = "def f():\n    xs = []\n    while True:\n        xs.append(bytearray(10**7))\n"
    with Sandbox(Limits(timeout=10, memory=256 * 1024**2)) as box:
        outs = box.run_batch([R(bomb), R("def f():\n    return 'a' * 10**11\n"),
                              R("def f():\n    return 1\n")])
    assert [o.status for o in outs] == ["memory", "memory", "returned"]
    assert outs[0].exception.type == "MemoryError"


def test_sys_exit_is_raised_systemexit(sb):
    o = run(sb, "import sys\ndef f():\n    sys.exit(3)\n")
    assert o.status == "raised"
    assert (o.exception.type, o.exception.message, o.exception.line) == ("SystemExit", "3", 3)


def test_os_exit_crashes_and_next_request_in_batch_runs(sb):
    outs = sb.run_batch([R("def f():\n    return 1\n"), R("import os\ndef f():\n    os._exit(0)\n"),
                         R("def f(x):\n    return x + 1\n", args="41")])
    assert [o.status for o in outs] == ["returned", "crashed", "returned"]
    assert outs[2].value_repr == "42"


def test_a_program_that_sends_itself_sigkill_is_reported_killed_by_itself_not_memory(sb):
    outs = sb.run_batch([R("import os\ndef f():\n    os.kill(os.getpid(), 9)\n"),
                         R("import os\ndef f():\n    os.kill(0, 9)\n"),
                         R("def f():\n    return 2\n")])
    assert [(o.status, o.note) for o in outs[:2]] == [
        ("crashed", "killed by SIGKILL, which the program sent itself (os.kill)")] * 2
    assert outs[2].value_repr == "2"


def test_a_sigkill_the_guard_did_not_see_is_reported_as_memory_or_the_program(sb):
    # signal.raise_signal raises no audit event: the death looks like the out-of-memory killer's
    outs = sb.run_batch([R("import signal\ndef f():\n    signal.raise_signal(signal.SIGKILL)\n"),
                         R("import os, signal\ndef f():\n    os.kill(os.getpid(), signal.SIGUSR1)\n")])
    assert (outs[0].status, outs[0].note) == ("memory", "killed (SIGKILL: memory limit or the program itself)")
    assert (outs[1].status, outs[1].note) == ("crashed", "killed by signal SIGUSR1")


def test_an_expected_output_check_whose_eq_raises_reports_the_exception(sb):
    code = ("class A:\n    def __eq__(self, o):\n        raise ValueError('no compare')\n"
            "    def __repr__(self):\n        return 'A()'\ndef f():\n    return A()\n")
    o = sb.run(R(code, expected_output="A()"))
    assert (o.status, o.output_matches, o.compare_error) == ("returned", False, "ValueError: no compare")
    # an expected output that does not evaluate is no comparison error
    o = sb.run(R(code, expected_output="B()"))
    assert (o.output_matches, o.compare_error) == (False, None)


def test_segfault_crashes(sb):
    outs = sb.run_batch([R("import os, signal\ndef f():\n    os.kill(os.getpid(), signal.SIGSEGV)\n"),
                         R("def f():\n    return 2\n")])
    assert outs[0].status == "crashed" and "SIGSEGV" in outs[0].note
    assert outs[1].value_repr == "2"


def test_infinite_recursion_is_recursion_error(sb):
    o = run(sb, "def f(n=0):\n    return f(n + 1)\n")
    assert o.status == "raised"
    assert o.exception.type == "RecursionError"


def test_recursion_limit_is_the_checkers(sb):
    code = "def g(n):\n    return 0 if n == 0 else 1 + g(n - 1)\ndef f(n):\n    return g(n)\n"
    assert run(sb, code, "9000").value_repr == "9000"
    assert run(sb, code, "10500").exception.type == "RecursionError"


def test_program_killing_its_worker_does_not_stop_the_sandbox():
    with Sandbox(FAST) as box:
        outs = box.run_batch([R("def f():\n    return 1\n"),
                              R("import os, signal\ndef f():\n    os.kill(os.getppid(), signal.SIGKILL)\n"
                                "    while True:\n        pass\n", timeout=SHORT),
                              R("def f():\n    return 3\n")])
        assert [o.status for o in outs] == ["returned", "crashed", "crashed"]
        assert box.started_workers == 2  # the batch was run again once, on a second worker
        assert box.retried_batches == 1
        assert box.run(R("def f():\n    return 'alive'\n")).value_repr == "'alive'"
        assert box.started_workers == 3


# -------------------------------------------------------------------------- output
def test_stdout_captured_in_order_including_raw_fd_writes(sb):
    code = ("import os, sys\ndef f():\n    print('a')\n    os.write(1, b'raw\\n')\n"
            "    print('err', file=sys.stderr)\n    os.write(2, b'fd2\\n')\n    return {'ok': 1}\n")
    o = run(sb, code)
    assert o.status == "returned"
    assert o.value_repr == "{'ok': 1}"
    assert o.stdout == "a\nraw\nerr\nfd2\n"
    assert o.behaviour()[3] == "a\nraw\nerr\nfd2\n"


def test_stdout_buffer_and_restored_sys_state(sb):
    code = ("import sys\ndef f():\n    sys.stdout.buffer.write(b'bin ')\n    print('text')\n"
            "    sys.excepthook = None\n    sys.argv.append('x')\n    return len(sys.argv)\n")
    a, b = sb.run_batch([R(code), R(code)])
    assert a.stdout == b.stdout == "bin text\n"
    assert a.value_repr == b.value_repr


def test_exceptions_ignored_in_finalizers_are_not_output(sb):
    code = ("class A:\n    def __del__(self):\n        raise ValueError('x')\n"
            "def f():\n    A()\n    print('ok')\n    return 1\n")
    a, b = sb.run_batch([R(code), R(code)])
    assert a.stdout == b.stdout == "ok\n"
    assert "1 exception(s) ignored in finalizers (ValueError)" in a.note
    assert a.behaviour() == b.behaviour()


def test_output_limit(sb):
    o = run(sb, "def f():\n    while True:\n        print('spam')\n")
    assert o.status == "output-limit"
    assert o.output_truncated is True
    assert len(o.stdout.encode()) == FAST.output
    o = run(sb, "import os\ndef f():\n    for _ in range(100):\n        os.write(1, b'x' * 1000)\n")
    assert o.status == "output-limit" and len(o.stdout) == FAST.output


def test_print_of_lone_surrogate_raises_like_python(sb):
    o = run(sb, "def f():\n    print('\\ud800')\n")
    assert o.status == "raised" and o.exception.type == "UnicodeEncodeError"


# ----------------------------------------------------------------------- isolation
def test_builtins_monkeypatch_not_visible_in_next_batch_or_request(sb):
    patch = "import builtins\ndef f():\n    builtins.len = lambda x: 42\n    return len([])\n"
    plain = "def f():\n    return len([])\n"
    outs = sb.run_batch([R(patch), R(plain)])
    assert [o.value_repr for o in outs] == ["42", "0"]
    assert run(sb, plain).value_repr == "0"


def test_fresh_globals_per_request(sb):
    code = "counter = []\ndef f():\n    counter.append(1)\n    return len(counter)\n"
    assert [o.value_repr for o in sb.run_batch([R(code)] * 3)] == ["1", "1", "1"]


def test_files_written_by_a_program_do_not_outlive_its_execution(sb):
    # a fresh interpreter in an empty directory would not see the file either
    write = "def f():\n    open('note.txt', 'w').write('x')\n    return 1\n"
    exists = "import os\ndef f():\n    return os.path.exists('note.txt')\n"
    assert [o.value_repr for o in sb.run_batch([R(exists), R(write), R(exists)])] == ["False", "1", "False"]
    assert run(sb, exists).value_repr == "False"


def test_program_does_not_see_codemorph_modules(sb):
    o = run(sb, "def f():\n    import sandbox\n")
    assert o.status == "raised" and o.exception.type == "ModuleNotFoundError"


# -------------------------------------------------------------------- arguments
def test_argument_mutation_visible_in_args_fingerprint(sb):
    a = run(sb, "def f(xs):\n    xs.append(9)\n    return len(xs)\n", "[1]")
    b = run(sb, "def f(xs):\n    return len(xs) + 1\n", "[1]")
    assert a.fingerprint == b.fingerprint == ["int", "2"]
    assert a.args_fingerprint == ["list", [["list", [["list", [["int", "1"], ["int", "9"]]]]], ["dict", []]]]
    assert a.args_fingerprint != b.args_fingerprint
    assert a.behaviour() != b.behaviour()


# ------------------------------------------------------------------- fingerprints
def fp(sb, expr):
    o = run(sb, f"def f():\n    return {expr}\n")
    assert o.status == "returned", o
    return o.fingerprint


def test_fingerprint_types_are_exact(sb):
    one, true, fone = fp(sb, "1"), fp(sb, "True"), fp(sb, "1.0")
    assert one == ["int", "1"] and true == ["bool", "True"] and fone == ["float", "1.0"]
    assert len({json.dumps(x) for x in (one, true, fone)}) == 3
    assert fp(sb, "[1, 2]") != fp(sb, "(1, 2)")
    assert fp(sb, "{1}") != fp(sb, "frozenset({1})")
    assert fp(sb, "'1'") != fp(sb, "b'1'")


def test_fingerprint_nan_and_signed_zero(sb):
    assert fp(sb, "float('nan')") == fp(sb, "float('inf') - float('inf')") == ["float", "nan"]
    assert fp(sb, "-0.0") == fp(sb, "0.0")
    assert fp(sb, "[float('nan')]") == fp(sb, "[float('nan')]")


def test_fingerprint_set_order_ignored_dict_order_not(sb):
    assert fp(sb, "{3, 1, 2}") == fp(sb, "set([2, 3, 1])")
    assert fp(sb, "{'b', 'a', 'xyz', 'q'}") == fp(sb, "{'q', 'xyz', 'a', 'b'}")
    assert fp(sb, "{'a': 1, 'b': 2}") != fp(sb, "{'b': 2, 'a': 1}")


def test_fingerprint_big_int_cycles_and_objects(sb):
    assert fp(sb, "2 ** 100") == ["int", str(2 ** 100)]
    big = fp(sb, "3 ** 50000")
    assert big[0].startswith("int") and big == fp(sb, "3 ** 50000") and big != fp(sb, "3 ** 50000 + 1")
    cyc = fp(sb, "(lambda x: (x.append(x), x)[1])([])")
    assert cyc == ["list", [["cycle", 1]]]
    code = ("class P:\n    def __init__(self, x):\n        self.x = x\n"
            "def f(v):\n    return P(v)\n")
    a, b, c = (run(sb, code, v) for v in ("1", "1", "2"))
    assert a.fingerprint == b.fingerprint == ["object", "builtins.P", [["dict", [[["str", "x"], ["int", "1"]]]]]]
    assert a.fingerprint != c.fingerprint
    # the default repr (<__codemorph_program__.P object at 0x...>) shows the sandbox's module
    # name (and an address): not kept; the fingerprint never has an address
    assert a.literal_ok is False and a.value_repr is None and "sandbox's module name" in a.repr_error
    assert a.status == "returned" and "0x" not in json.dumps(a.fingerprint)


def test_fingerprint_of_huge_value_is_summarised(sb):
    a = fp(sb, "list(range(50000))")
    assert a[0] == "#" and a[1] == "list" and len(a[2]) == 64
    assert a == fp(sb, "list(range(50000))")
    assert a != fp(sb, "list(range(1, 50001))")
    s = fp(sb, "'x' * 5000")
    assert s[0] == "str#" and s[1] == 5000 and s != fp(sb, "'x' * 4999 + 'y'")


def test_deeply_nested_result_is_fingerprinted(sb):
    code = "def f(n):\n    x = []\n    for _ in range(n):\n        x = [x]\n    return x\n"
    a, b, c = sb.run_batch([R(code, args="15000"), R(code, args="15000"), R(code, args="15001")])
    assert a.status == "returned" and a.comparable and not a.incomplete
    assert a.fingerprint == b.fingerprint != c.fingerprint
    assert len(json.dumps(a.fingerprint)) < 10000


def test_literal_ok(sb):
    assert run(sb, "def f():\n    return {'a': [1, (2.5, None)], 'b': {1}}\n").literal_ok is True
    assert run(sb, "def f():\n    return set()\n").literal_ok is True
    assert run(sb, "def f():\n    return float('nan')\n").literal_ok is False


def test_unreprable_result_keeps_status_returned(sb):
    code = "class A:\n    def __repr__(self):\n        raise ValueError('no')\ndef f():\n    return A()\n"
    o = run(sb, code)
    assert o.status == "returned" and o.value_repr is None and o.repr_error == "ValueError: no"
    assert o.fingerprint == ["object", "builtins.A", None]


# ---------------------------------------------------------- script mode and checks
def test_script_mode(sb):
    ok = sb.run(R("def f(x):\n    return x + 1\nassert f(1) == 2\n", args=None))
    bad = sb.run(R("def f(x):\n    return x + 1\nassert f(1) == 3\n", args=None))
    assert ok.status == "returned" and ok.args_fingerprint is None
    assert bad.status == "raised" and bad.exception.type == "AssertionError" and bad.exception.line == 3


def test_output_matches(sb):
    code = "def f(s):\n    return s.upper(), len(s)\n"
    assert run(sb, code, "'ab'", expected_output="('AB', 2)").output_matches is True
    assert run(sb, code, "'ab'", expected_output="('AB', 3)").output_matches is False
    assert run(sb, code, "'ab'").output_matches is None
    assert run(sb, "def f():\n    1/0\n", expected_output="None").output_matches is False


def test_trace_lines_arcs_and_types(sb):
    code = ("def f(xs):\n"            # 1
            "    total = 0\n"         # 2
            "    for x in xs:\n"      # 3
            "        if x > 1:\n"     # 4
            "            total += x\n"  # 5
            "    return str(total)\n")  # 6
    o = run(sb, code, "[1, 2]", trace=True)
    assert o.value_repr == "'2'"
    assert o.lines == (1, 2, 3, 4, 5, 6)
    assert (4, 5) in o.arcs and (4, 3) in o.arcs and (3, 6) in o.arcs and (2, 3) in o.arcs
    assert (5, 6) not in o.arcs
    assert o.types == {"f": {"total": ["int"], "x": ["int"], "xs": ["list"]}}
    assert run(sb, code, "[1, 2]").lines is None
    o = run(sb, code, "[]", trace=True)
    assert 4 not in o.lines and 5 not in o.lines
    # a trace of lines and arcs only: the same coverage, no types
    full = run(sb, code, "[1, 2]", trace=True)
    cheap = run(sb, code, "[1, 2]", trace=True, types=False)
    assert (cheap.lines, cheap.arcs) == (full.lines, full.arcs)
    assert cheap.value_repr == "'2'" and not cheap.types


# ------------------------------------------------------------------- pool behaviour
def test_map_keeps_order_across_workers():
    batches = [[R(f"def f(x):\n    return x * {k}\n", args=str(i)) for i in range(3)] for k in range(8)]
    with Sandbox(FAST, workers=2) as box:
        got = [[o.value_repr for o in outs] for outs in box.map(iter(batches))]
    assert got == [[str(i * k) for i in range(3)] for k in range(8)]


def test_more_threads_than_workers_with_worker_deaths():
    from concurrent.futures import ThreadPoolExecutor
    killer = R("import os, signal\ndef f():\n    os.kill(os.getppid(), signal.SIGKILL)\n")
    ok = R("def f():\n    return 1\n")
    with Sandbox(FAST, workers=2) as box, ThreadPoolExecutor(6) as ex:
        outs = list(ex.map(box.run_batch, [[killer] if i % 3 == 0 else [ok] for i in range(18)], timeout=60))
    assert [o[0].status for o in outs] == ["crashed" if i % 3 == 0 else "returned" for i in range(18)]


def test_hash_seed_is_fixed_and_selectable():
    code = "def f():\n    return ''.join(set('abcdefghijklmnop'))\n"
    with Sandbox(FAST) as box:
        a = box.run(R(code)).value_repr
        assert box.run(R(code)).value_repr == a
        others = {box.run_batch([R(code)], hash_seed=s)[0].value_repr for s in (1, 2, 3)}
        assert others - {a}


def test_close_kills_workers():
    box = Sandbox(FAST)
    box.run(R("def f():\n    return 1\n"))
    pids = [w.proc.pid for w in box._all]
    assert pids
    box.close()
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    with pytest.raises(RuntimeError):
        box.run(R("def f():\n    return 1\n"))


@needs_shared("cruxeval", "cruxeval.jsonl")
def test_cruxeval_ground_truth_reproduces(sb):
    rows = [json.loads(line) for line in CRUX.open()][::8]
    with Sandbox(Limits(), workers=2) as box:
        outs = [o for outs in box.map([[R(r["code"], args=r["input"], expected_output=r["output"])] for r in rows])
                for o in outs]
    bad = [(r["id"], o.status, o.value_repr) for r, o in zip(rows, outs) if not o.output_matches]
    assert not bad
    assert all(o.value_repr == r["output"] for r, o in zip(rows, outs) if o.literal_ok)


# ------------------------------------------- fingerprint function on host-made values
def test_fingerprint_function_on_containers_and_objects():
    import collections

    from codemorph.sandbox._worker import fingerprint

    assert fingerprint(collections.OrderedDict(a=1)) == ["collections.OrderedDict", [[["str", "a"], ["int", "1"]]]]
    assert fingerprint(collections.defaultdict(list)) == ["collections.defaultdict", [], ["type", "list"]]
    assert fingerprint(collections.deque([1], maxlen=3)) == ["collections.deque", [["int", "1"]], 3]
    assert fingerprint(collections.Counter("aab")) == \
        ["collections.Counter", [[["str", "a"], ["int", "2"]], [["str", "b"], ["int", "1"]]]]

    class Slotted:
        __slots__ = ("x",)

        def __init__(self):
            self.x = 1.5

    name = f"{__name__}.test_fingerprint_function_on_containers_and_objects.<locals>.Slotted"
    assert fingerprint(Slotted()) == ["object", name, [["slots", [["x", ["float", "1.5"]]]]]]
    assert fingerprint(ValueError("bad", 2)) == ["exception", "ValueError", ["tuple", [["str", "bad"], ["int", "2"]]]]
    assert fingerprint(len) == ["function", "len"]
    assert fingerprint(range(0, 5, 2)) == ["range", ["0", "5", "2"]]
    assert fingerprint(complex(float("nan"), -0.0)) == ["complex", ["nan", "0.0"]]


def test_plain_values_get_the_general_encoding():
    # fingerprint() encodes plain values (str, int, bool, None, float and exact containers
    # of them, up to 2,000 nodes and 40 levels) on a shorter path: the encoding must be the
    # general one, at the size and depth limits too, where the general one summarizes
    from codemorph.sandbox._workerlib.fingerprint import _Fingerprinter, fingerprint

    assert fingerprint([1, "a", (True, None), {"k": -0.0}, {2, "b"}, frozenset()]) == \
        ["list", [["int", "1"], ["str", "a"], ["tuple", [["bool", "True"], ["NoneType", None]]],
                  ["dict", [[["str", "k"], ["float", "0.0"]]]], ["set", [["int", "2"], ["str", "b"]]],
                  ["frozenset", []]]]

    def deep(n):
        x = [1]
        for _ in range(n):
            x = [x]
        return x

    shared = [1, 2]
    cyclic = [1]
    cyclic.append(cyclic)
    values = [list(range(n)) for n in (1998, 1999, 2000, 2001, 2500)]
    values += [deep(n) for n in (38, 39, 40, 41, 46, 47, 48, 60)]
    values += [10**18 - 1, 10**18, -10**18, 2**100, "x" * 1024, "x" * 1025, "\ud800", float("nan"), float("-inf"),
               [shared, shared, (shared,)], cyclic, {(1, 2): {None: [1.5]}, True: "t"}, {("a", 1), (0.5,), None},
               [{i: str(i)} for i in range(700)], [1j, b"x"], range(3)]
    for v in values:
        assert fingerprint(v) == _Fingerprinter().enc(v), repr(v)[:80]
    assert fingerprint(list(range(2001)))[0] == "#"  # summarized, as the general path does



def test_plain_path_leaves_a_container_larger_than_its_budget_unwalked():
    # a returned list of a million ints is more than the plain path's 2,000 nodes: it goes to
    # the general path at once, without first encoding every item (which cost ~100 bytes an
    # item and more time than the general path: 4.7 vs 1.8 s for 3 million ints)
    import tracemalloc

    from codemorph.sandbox._workerlib.fingerprint import _NotPlain, _plain

    for big in ([0] * 100_000, tuple(range(100_000)), set(range(100_000)), dict.fromkeys(range(100_000), 0),
                [[0] * 1999, [0] * 1999]):
        tracemalloc.start()
        try:
            with pytest.raises(_NotPlain):
                _plain(big, [2000], 0)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 400_000, (type(big), peak)

def test_fingerprint_too_large_is_not_comparable():
    from codemorph.sandbox._worker import fingerprint

    x = []
    for _ in range(40):
        x = [x, x]  # a DAG: 2**40 paths
    fp = fingerprint(x)
    assert fp == ["too-large", "list"]
    assert Outcome(status="returned", fingerprint=fp).comparable is False
    assert Outcome(status="returned", fingerprint=["int", "1"]).comparable is True
    assert Outcome(status="returned", fingerprint=["int", "1"], incomplete=True).comparable is False


def test_trace_generators_nested_functions_and_comprehensions(sb):
    code = ("def gen(n):\n"                     # 1
            "    for i in range(n):\n"          # 2
            "        yield i * 1.5\n"           # 3
            "def f(n):\n"                       # 4
            "    def inner(v):\n"               # 5
            "        return str(v)\n"           # 6
            "    ys = [inner(x) for x in gen(n)]\n"  # 7
            "    return ys\n")                  # 8
    o = run(sb, code, "2", trace=True)
    assert o.value_repr == "['0.0', '1.5']"
    assert o.lines == (1, 2, 3, 4, 5, 6, 7, 8)
    # a generator resumed after a yield, or a function called again, starts without a
    # previous line: arcs only join consecutive lines of one activation
    assert o.arcs == ((1, 4), (2, 3), (5, 7), (7, 7), (7, 8))
    assert o.types == {"f": {"inner": ["builtins.function"], "n": ["int"], "ys": ["list"]},
                       "f.<locals>.<listcomp>": {".0": ["builtins.generator"], "inner": ["builtins.function"],
                                                 "x": ["float"]},
                       "f.<locals>.inner": {"v": ["float"]},
                       "gen": {"i": ["int"], "n": ["int"]}}


def test_trace_types_of_program_classes_and_rebinding(sb):
    code = ("class Box:\n"
            "    pass\n"
            "def f(x):\n"
            "    y = x\n"
            "    y = Box()\n"
            "    y = [y]\n"
            "    return len(y)\n")
    o = run(sb, code, "'a'", trace=True)
    assert o.types == {"Box": {"__module__": ["str"], "__qualname__": ["str"]},
                       "f": {"x": ["str"], "y": ["builtins.Box", "list", "str"]}}


def test_cpu_time_limit_stops_busy_loop_but_not_sleep(sb):
    busy = "def f():\n    while True:\n        pass\n"
    sleepy = "import time\ndef f():\n    time.sleep(0.3)\n    return 'slept'\n"
    outs = sb.run_batch([R(busy, timeout=30, cpu_timeout=0.2), R(sleepy, cpu_timeout=0.05),
                         R("def f():\n    return 'next'\n")])
    assert outs[0].status == "timeout" and outs[0].duration < 30
    assert outs[0].note is None  # stopped by its own timer, not killed
    assert outs[1].status == "returned" and outs[1].value_repr == "'slept'"
    assert outs[2].value_repr == "'next'"
    with pytest.raises(ValueError):
        R(busy, cpu_timeout=0).to_wire()


def test_line_budget_is_a_deterministic_timeout(sb):
    loop = "def f(n):\n    i = 0\n    while i < n:\n        i += 1\n    return i\n"
    outs = sb.run_batch([R(loop, args="10**9", trace=True, max_lines=1000),
                         R(loop, args="10", trace=True, max_lines=1000),
                         R(loop, args="10**4", max_lines=1000)])  # untraced: no budget
    assert outs[0].status == "timeout"
    assert outs[0].note == "stopped after 1000 traced lines (the request's line budget)"
    assert outs[0].lines == (1, 2, 3, 4)  # what ran before the stop is reported
    assert outs[1].value_repr == "10" and outs[2].value_repr == "10000"
    swallow = ("def f():\n    try:\n        while True:\n            x = 1\n    except BaseException:\n"
               "        return 'caught'\n")
    o = sb.run(R(swallow, trace=True, max_lines=500))
    assert o.status == "timeout" and o.value_repr is None
    with pytest.raises(ValueError):
        R(loop, max_lines=0).to_wire()


def test_large_batch_outcomes_arrive_complete_and_in_order(sb):
    # many outcomes wait in the pipe between two looks of the zygote; each must come back once
    reqs = [R("def f(i):\n    print(i)\n    return [i] * 50\n", args=str(i)) for i in range(400)]
    outs = sb.run_batch(reqs)
    assert [o.value_repr for o in outs] == [repr([i] * 50) for i in range(400)]
    assert [o.stdout for o in outs] == [f"{i}\n" for i in range(400)]


def test_outcomes_before_a_hang_in_post_processing_are_kept():
    # the repr hangs in C code (ignores the timer): the zygote kills the child after the
    # budget; the outcomes written before are relayed, the rest of the batch runs afresh
    hang = ("import signal\nclass H:\n    def __repr__(self):\n        signal.signal(signal.SIGALRM, lambda *a: None)\n"
            "        while True:\n            pass\ndef f():\n    return H()\n")
    with Sandbox(Limits(timeout=0.5, grace=0.3)) as box:
        outs = box.run_batch([R("def f():\n    return 1\n"), R(hang), R("def f():\n    return 3\n")])
    assert [o.status for o in outs] == ["returned", "timeout", "returned"]
    assert outs[0].value_repr == "1" and outs[2].value_repr == "3"
    assert "while post-processing the result; process killed" in outs[1].note
