"""Renaming keeps what a harness reaches: the class and the names its test method reads
(``run_view`` hands them to the transforms as harness inputs), and the called function."""

from __future__ import annotations

from codemorph.engine import Program, get_transform
from codemorph.rows import SourceRow
from codemorph.sandbox import run_view

CODE = """import unittest


class Box:
    def __init__(self, n):
        self.n = n


class Spare:
    pass


def double(x):
    return 2 * x


class Test(unittest.TestCase):
    def test(self):
        return double(Box(3).n)
"""


def _view(code, text):
    row = SourceRow("r", code, text, "6", "f", 1, input_kind="call")
    return run_view(row, Program(code))


def test_a_harness_call_hands_the_names_of_its_method_to_the_renamers():
    view = _view(CODE, "Test().test()")
    assert view.kind == "call" and view.harness_inputs == ("Test().test()", "Box, double")
    classes = get_transform("rename-classes").apply(Program(CODE), 0, inputs=view.harness_inputs, harness=True)
    assert classes.applied and "class Box:" in classes.source and "class Test(" in classes.source
    assert "class Spare:" not in classes.source  # what the harness does not reach may be renamed
    funcs = get_transform("rename-functions").apply(Program(CODE), 0, inputs=view.harness_inputs, harness=True)
    assert "def double(" in funcs.source


def test_a_plain_call_runs_as_its_functions_arguments():
    view = _view(CODE, "double(4)")
    assert (view.kind, view.entry_point, view.input, view.harness_inputs) == ("args", "double", "4", ("4",))
    assert _view(CODE, "Box(4).n").kind == "call"
    stdin = run_view(SourceRow("s", "print(input())\n", "x\n", "x\n", "f", 1, input_kind="stdin"),
                     Program("print(input())\n"))
    assert (stdin.kind, stdin.input, stdin.harness_inputs) == ("stdin", "x\n", ())
