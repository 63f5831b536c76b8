"""A ``call`` row's harness class (``Test`` in ``Test().test()``, ClassEval) is read-only for
every transform: the engine keeps it as it was, so no variant changes only the harness."""

from __future__ import annotations

import libcst as cst

from codemorph import Program, Transform
from codemorph.rows import SourceRow
from codemorph.sandbox.kinds import run_view
from codemorph.transforms.expressions import UnfoldConstant
from codemorph.transforms.naming import RenameLocals

CODE = '''class Sieve:
    def __init__(self, n):
        self.n = n

    def primes(self):
        found = []
        for k in range(2, self.n + 1):
            if all(k % p for p in found):
                found.append(k)
        return found


class Test:
    def test(self):
        sieve = Sieve(1024)
        result = sieve.primes()
        return result
'''

HARNESS = '''class Test:
    def test(self):
        sieve = Sieve(1024)
        result = sieve.primes()
        return result
'''


def _program(code: str = CODE) -> Program:
    return Program(code, "Test", read_only=frozenset({"Test"}))


def test_rename_locals_rewrites_the_class_under_test_and_leaves_the_harness_alone() -> None:
    res = RenameLocals().apply(_program(), 0, inputs=["Test().test()"], harness=True)
    assert res.applied
    assert res.source == '''class Sieve:
    def __init__(self, n):
        self.n = n

    def primes(self):
        in_text = []
        for first_record in range(2, self.n + 1):
            if all(first_record % raw_block for raw_block in in_text):
                in_text.append(first_record)
        return in_text


''' + HARNESS
    assert [s.line for s in res.sites] == [6, 7, 8]
    # without the harness read-only, the same rewrite renames Test's locals too
    free = RenameLocals().apply(Program(CODE, "Test"), 0, inputs=["Test().test()"], harness=True)
    assert HARNESS not in free.source


def test_a_row_whose_only_sites_are_in_the_harness_is_not_rewritten() -> None:
    """ClassEval_19: unfold-constant only found ``Sieve(15)`` -> ``Sieve(3 * 5)`` inside Test (a
    form it no longer writes; here ``Sieve(1024)`` -> ``Sieve(2 ** 10)``)."""
    res = UnfoldConstant().apply(_program(), 0, inputs=["Test().test()"], harness=True)
    assert not res.applied
    assert res.reason == "every site rewritten is in Test, the harness the row's input calls (read-only)"
    assert UnfoldConstant().apply(Program(CODE, "Test"), 0, inputs=["Test().test()"], harness=True).applied


def test_rewrites_keep_the_read_only_names() -> None:
    res = RenameLocals().apply(_program(), 0, inputs=["Test().test()"], harness=True)
    assert res.program.read_only == frozenset({"Test"})
    assert _program().with_source(CODE + "\n").read_only == frozenset({"Test"})


def test_only_a_harness_class_call_makes_a_name_read_only() -> None:
    """ClassEval's ``Test().test()`` names the harness; HumanEval's ``add(6, 8)`` names the
    function under test, which stays eligible."""
    classeval = SourceRow("c", CODE, "Test().test()", "[2, 3, 5, 7, 11, 13]", "Test", 1, input_kind="call")
    assert run_view(classeval, Program(CODE, "Test")).read_only == frozenset({"Test"})
    add = "def add(a, b):\n    return a + b\n"
    humaneval = SourceRow("h", add, "add(6, 8)", "14", "add", 1, input_kind="call")
    assert run_view(humaneval, Program(add, "add")).read_only == frozenset()
    other = SourceRow("o", add, "add(6, 8) + 1", "15", "add", 1, input_kind="call")
    assert run_view(other, Program(add, "add")).read_only == frozenset()


SHARED_LOCAL = '''class Sieve:
    def primes(self, n):
        result = []
        for k in range(2, n + 1):
            result.append(k)
        return result


class Test:
    def test(self):
        result = Sieve().primes(5)
        return result
'''


def test_a_local_named_like_one_of_the_harness_is_renamed_outside_it_only() -> None:
    res = RenameLocals().apply(Program(SHARED_LOCAL, "Test", read_only=frozenset({"Test"})), 0,
                               inputs=["Test().test()"], harness=True)
    assert res.applied, res.reason
    assert res.source == '''class Sieve:
    def primes(self, n):
        in_text = []
        for first_record in range(2, n + 1):
            in_text.append(first_record)
        return in_text


class Test:
    def test(self):
        result = Sieve().primes(5)
        return result
'''


class _RenameSieve(Transform):
    """Renames the class ``Sieve`` everywhere, its use in the harness included."""

    name = "test-rename-sieve"
    family = "naming"

    def rewrite(self, module, ctx):
        class Rename(cst.CSTTransformer):
            def leave_Name(self, original, updated):
                return updated.with_changes(value="Primes") if updated.value == "Sieve" else updated

        return module.visit(Rename())


def test_a_rewrite_of_the_harness_together_with_the_code_it_calls_is_refused() -> None:
    """Putting the harness back would leave it calling a name that no longer exists."""
    res = _RenameSieve().apply(Program(SHARED_LOCAL, "Test", read_only=frozenset({"Test"})), 0)
    assert not res.applied
    assert res.reason == ("the rewrite changes Test together with the code it calls "
                          "(Test, the harness the row's input calls (read-only))")
    assert _RenameSieve().apply(Program(SHARED_LOCAL, "Test"), 0).applied
