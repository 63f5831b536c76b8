"""Verification and search inputs of stdin and call rows come from the one mutation engine:
standard inputs keep their token structure, calls and harness methods change their literals."""

from __future__ import annotations

import ast
import random

from codemorph.engine import Program
from codemorph.inputs import call_mutants, harness_method, kind_mutants, parse_stdin, stdin_mutants


def _types(text):
    return [[type(t) for t in line] for line in parse_stdin(text).lines]


def test_stdin_mutants_keep_numbers_numbers_and_the_layout():
    seed = "2 3 6 6\nabc\n"
    ms = stdin_mutants(seed, 30, random.Random(1))
    assert len(ms) == len(set(ms)) == 30 and seed not in ms
    for m in ms:
        assert m.endswith("\n") and "  " not in m
        lines = parse_stdin(m).lines
        assert all(type(t) is int for t in lines[0]) and [type(t) for t in lines[1]] == [str]


def test_an_announced_count_follows_the_lines_and_tokens():
    for seed in ("3\n4 5\n6 7\n8 9\n", "4\n1 2 3 4\n"):
        shape = parse_stdin(seed)
        for m in stdin_mutants(seed, 40, random.Random(2)):
            lines = parse_stdin(m).lines
            if shape.line_count is not None:
                assert lines[0][0] == len(lines) - 1, m
            else:
                assert lines[0][0] == len(lines[1]), m


def test_digit_strings_stay_digits_and_leading_zeros_are_not_numbers():
    shape = parse_stdin("0110\n")
    assert shape.lines == (("0110",),) and shape.digits == {(0, 0)}
    for m in stdin_mutants("0110\n", 20, random.Random(3)):
        assert m[:-1].isdigit()


def test_type_changes_only_when_asked():
    plain = stdin_mutants("5 7\n", 60, random.Random(4))
    assert all(_types(m) == [[int] * len(_types(m)[0])] for m in plain)
    wide = stdin_mutants("5 7\n", 200, random.Random(4), allow_type_change=True)
    assert any(str in sum(_types(m), []) for m in wide)


def test_call_mutants_change_only_the_literals_of_the_call():
    ms = call_mutants("def count(s):\n    return len(s)\n", "count('abcde' + 'cd')", 12, random.Random(5))
    assert ms and all(m.startswith("count(") for m in ms)
    for m in ms:
        call = ast.parse(m, mode="eval").body
        assert isinstance(call.args[0], ast.BinOp)  # the expression's shape is kept


HARNESS = '''import unittest
class Calc:
    def add(self, a, b):
        """Adds."""
        return a + b
class Test(unittest.TestCase):
    def test(self):
        return Calc().add(2, 3)
'''


def test_harness_mutants_subclass_the_test_with_other_literals():
    assert harness_method(HARNESS, "Test().test()")[:2] == ("Test", "test")
    assert harness_method(HARNESS, "Test().other()") is None
    ms = call_mutants(HARNESS, "Test().test()", 5, random.Random(6))
    assert ms
    for m in ms:
        head, _, last = m.rpartition("\n")
        assert m.startswith("class Test(Test):\n    def test(self):\n") and last == "Test().test()"
        assert "Calc().add(" in head and "Calc().add(2, 3)" not in head


def test_kind_mutants_are_deterministic():
    p = Program("print(input())\n", script=True)
    assert kind_mutants(p, ["ab 1\n"], 10, 7, "stdin") == kind_mutants(p, ["ab 1\n"], 10, 7, "stdin")
    assert kind_mutants(p, ["ab 1\n"], 10, 7, "stdin") != kind_mutants(p, ["ab 1\n"], 10, 8, "stdin")


def test_a_lone_integer_gets_two_edit_mutants_once_its_one_edit_neighbours_run_out():
    ms = stdin_mutants("512\n", 49, random.Random(0))
    assert len(ms) == len(set(ms)) == 49 and "512\n" not in ms
    assert all(type(parse_stdin(m).lines[0][0]) is int and len(parse_stdin(m).lines) == 1 for m in ms)
    # the one-edit neighbours come first, as before: 512 +- 1, 2, 3, 5, its negation, double, half
    one_edit = {f"{v}\n" for v in (513, 511, 514, 510, 515, 509, 517, 507, -512, 1024, 256)}
    first = set(ms[:15])
    assert len(first & one_edit) >= 8
    assert "1026\n" in ms or "-513\n" in ms  # two edits: double then +2, negate then -1


def test_digit_runs_with_leading_zeros_get_two_edit_mutants_and_stay_ascii_digits():
    ms = stdin_mutants("0011\n", 49, random.Random(0))
    assert len(ms) == len(set(ms)) == 21  # 15 one edit from the seed (14 before "²" was dropped)
    assert {"01010\n", "1010\n", "0000\n"} <= set(ms)  # two edits
    # ASCII digits only: "²" is str.isdigit() but int() rejects it, so it would change the type
    assert all(set(m.strip()) <= set("0123456789") and m.strip() for m in ms)
