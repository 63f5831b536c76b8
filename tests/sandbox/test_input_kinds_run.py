"""The sandbox runs each row kind as its harness does: ``args`` calls the entry point,
``call`` evaluates a whole expression after the program's code, ``stdin`` runs the program as
``__main__`` on a standard input and its value is what it printed."""

from __future__ import annotations

import pytest

from codemorph.rows import SourceRow
from codemorph.sandbox import ExecRequest, output_of, request_for, row_request
from codemorph.sandbox.determinism import nondeterminism_source

HARNESS = """import unittest

class Counter:
    def __init__(self):
        self.n = 0

    def add(self, k):
        self.n += k
        return self.n

class Test(unittest.TestCase):
    def test(self):
        c = Counter()
        c.add(2)
        return c.add(3), c.n
"""

SCRIPT = """import sys
n = int(input())
xs = list(map(int, sys.stdin.readline().split()))
print(sum(xs[:n]))
print("debug", file=sys.stderr)
if __name__ == "__main__":
    print("main")
"""


def test_call_expression_runs_after_the_program_and_checks_the_recorded_output(sandbox):
    add = "def add(a, b):\n    return a + b\n"
    o, h, bad = sandbox.run_batch([request_for(add, "f", "call", "add(6, 8)", expected_output="14"),
                                   request_for(HARNESS, "f", "call", "Test().test()", expected_output="(5, 5)"),
                                   request_for(add, "f", "call", "add(1,")])
    assert (o.status, o.value_repr, o.output_matches) == ("returned", "14", True)
    assert (h.status, h.value_repr, h.output_matches) == ("returned", "(5, 5)", True)
    assert bad.status == "bad-input" and bad.exception.type == "SyntaxError"


def test_call_input_may_put_statements_before_its_expression(sandbox):
    block = "class Test(Test):\n    def test(self):\n        c = Counter()\n        return c.add(7)\nTest().test()"
    o = sandbox.run(request_for(HARNESS, "f", "call", block))
    assert (o.status, o.value_repr) == ("returned", "7")


def test_call_that_raises_is_the_programs_outcome_and_a_failing_module_is_bad_code(sandbox):
    raises, broken = sandbox.run_batch([
        request_for("def f(x):\n    return 1 // x\n", "f", "call", "f(0)"),
        request_for("raise ValueError('at load')\ndef f():\n    return 1\n", "f", "call", "f()")])
    assert raises.status == "raised" and raises.exception.type == "ZeroDivisionError"
    assert broken.status == "bad-code" and broken.exception.type == "ValueError"


def test_stdin_program_runs_as_main_and_its_value_is_its_standard_output(sandbox):
    o = sandbox.run(request_for(SCRIPT, "f", "stdin", "2\n5 6 7\n", expected_output="11\nmain\n"))
    assert o.status == "returned" and o.output_matches is True
    assert o.stdout == "11\nmain\n" and o.stderr == "debug\n"
    assert output_of(o, "stdin") == "11\nmain\n"
    wrong = sandbox.run(request_for(SCRIPT, "f", "stdin", "2\n5 6 7\n", expected_output="11\n"))
    assert wrong.output_matches is False


def test_stdin_errors_are_raised_by_the_program(sandbox):
    bad_int, short, empty = sandbox.run_batch([request_for(SCRIPT, "f", "stdin", "two\n1\n"),
                                               request_for("a, b = input().split()\nprint(a)\n", "f", "stdin", "1\n"),
                                               request_for(SCRIPT, "f", "stdin", "")])
    assert bad_int.status == "raised" and bad_int.exception.type == "ValueError" and bad_int.exception.line == 2
    assert short.status == "raised" and short.exception.type == "ValueError"
    assert empty.status == "raised" and empty.exception.type == "EOFError"


def test_exit_with_code_zero_ends_a_script_normally_and_others_raise(sandbox):
    ok, fail = sandbox.run_batch([
        request_for("import sys\nprint(1)\nsys.exit()\nprint(2)\n", "f", "stdin", ""),
        request_for("import sys\nprint(1)\nsys.exit(3)\n", "f", "stdin", "")])
    assert (ok.status, ok.stdout) == ("returned", "1\n")
    assert fail.status == "raised" and fail.exception.type == "SystemExit" and fail.stdout == "1\n"


def test_stdin_buffer_reads_bytes(sandbox):
    o = sandbox.run(request_for("import sys\nprint(sys.stdin.buffer.readline().split())\n", "f", "stdin", "4 5\n"))
    assert o.stdout == "[b'4', b'5']\n"


def test_row_request_follows_the_rows_kind():
    s = row_request(SourceRow("s", SCRIPT, "1\n2\n", "2\nmain\n", "f", 1, input_kind="stdin"), trace=True)
    assert (s.input_kind, s.stdin, s.expected_output, s.trace) == ("stdin", "1\n2\n", "2\nmain\n", True)
    c = row_request(SourceRow("c", HARNESS, "Test().test()", "(5, 5)", "f", 1, input_kind="call"), check_output=False)
    assert (c.input_kind, c.args, c.expected_output) == ("call", "Test().test()", None)
    a = row_request(SourceRow("a", "def f(x):\n    return x\n", "1", "1", "f", 1))
    assert (a.input_kind, a.args, a.entry_point) == ("args", "1", "f")
    assert "input_kind" not in a.to_wire()  # args requests go over the wire as before
    with pytest.raises(ValueError):
        ExecRequest("x = 1\n", input_kind="argv").to_wire()


def test_a_stdin_program_may_read_its_input_and_main_name():
    assert nondeterminism_source(SCRIPT) is not None  # as a function module it reads what the harness sets
    assert nondeterminism_source(SCRIPT, input_kind="stdin") is None
    assert nondeterminism_source("from sys import stdin\nprint(stdin.readline())\n", input_kind="stdin") is None
    assert "sys.argv" in nondeterminism_source("import sys\nprint(sys.argv)\n", input_kind="stdin")


PLAYER = """import unittest
import time


class Player:
    def __init__(self):
        self.volume = 1

    def set_volume(self, v):
        self.volume = v
        return self.volume

    def shuffle(self, items):
        import random
        random.shuffle(items)
        return items

    def stamp(self):
        return time.time()


class Test(unittest.TestCase):
    def test(self):
        return Player().set_volume(3)
"""


def test_only_what_a_harness_call_reaches_is_checked_for_nondeterminism():
    assert nondeterminism_source(PLAYER, input_kind="call") is not None
    assert nondeterminism_source(PLAYER, input_kind="call", harness=["Test().test()"]) is None
    reaching = PLAYER.replace("Player().set_volume(3)", "Player().stamp()")
    assert "clock" in nondeterminism_source(reaching, input_kind="call", harness=["Test().test()"])
    by_string = PLAYER.replace("Player().set_volume(3)", "getattr(Player(), 'shuffle')([1, 2])")
    assert "random" in nondeterminism_source(by_string, input_kind="call", harness=["Test().test()"])
