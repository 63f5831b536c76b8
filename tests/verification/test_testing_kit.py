"""Tests of the authoring kit codemorph.testing (observe_types, assert_preserves,
assert_refuses), with small transforms written here the way a plugin author would."""

from __future__ import annotations

import libcst as cst
import pytest

from codemorph import NotApplicable, Program, Transform
from codemorph.testing import assert_preserves, assert_refuses, describe_outcome, observe_types


class AddZero(Transform):
    """``return E`` -> ``return E + 0``: sound for numbers, wrong for strings (TypeError)."""

    name = "add-zero"
    family = "test"

    def rewrite(self, module, ctx):
        class T(cst.CSTTransformer):
            def leave_Return(self, original, updated):
                if updated.value is None:
                    return updated
                ctx.record(original, "E -> E + 0")
                return updated.with_changes(value=cst.BinaryOperation(updated.value, cst.Add(), cst.Integer("0")))
        return module.visit(T())


class AppendToArgument(Transform):
    """Inserts ``xs.append(0)`` as the entry function's first statement: changes the
    caller's list but not the return value when the function only returns ``len(xs) > -1``."""

    name = "append-arg"
    family = "test"

    def rewrite(self, module, ctx):
        fn = module.body[0]
        ctx.record(fn, "append")
        body = [cst.parse_statement("xs.append(0)"), *fn.body.body]
        return module.with_changes(body=[fn.with_changes(body=fn.body.with_changes(body=body))])


class NeedsTypes(Transform):
    """Refuses unless ``x`` in ``f`` was observed only as int; then adds ``+ 0``."""

    name = "needs-types"
    family = "test"
    needs_runtime_types = True

    def rewrite(self, module, ctx):
        seen = ctx.observations.get("f", {}).get("x")
        if seen != ["int"]:
            raise NotApplicable(f"x observed as {seen}")
        return AddZero().rewrite(module, ctx)


class Never(Transform):
    name = "never"
    family = "test"

    def rewrite(self, module, ctx):
        raise NotApplicable("this transform never applies")


def test_observe_types_merges_inputs_and_scopes(sandbox) -> None:
    code = "def f(x):\n    ys = [c * 2 for c in x]\n    n = len(ys)\n    return n\n"
    obs = observe_types(code, ["'ab'", "[1, 2]"], sandbox=sandbox)
    assert obs["f"]["x"] == ["list", "str"]
    assert obs["f"]["n"] == ["int"]
    assert obs["f.<locals>.<listcomp>"]["c"] == ["int", "str"]


def test_observe_types_names_program_classes_by_module_and_qualname() -> None:
    code = "class int:\n    pass\n\ndef f(a):\n    b = int()\n    return a\n"
    obs = observe_types(code, ["True"])  # temporary sandbox
    assert obs["f"] == {"a": ["bool"], "b": ["builtins.int"]}


def test_assert_preserves_accepts_a_sound_rewrite(sandbox) -> None:
    res = assert_preserves(AddZero(), "def f(a, b):\n    return a * b\n", ["2, 3"], sandbox=sandbox)
    assert res.source == "def f(a, b):\n    return a * b + 0\n"


def test_assert_preserves_explains_a_difference(sandbox) -> None:
    with pytest.raises(AssertionError) as info:
        assert_preserves(AddZero(), "def f(s):\n    return s * 2\n", ["'ab'"], sandbox=sandbox)
    msg = str(info.value)
    assert "add-zero changed behaviour: verification says differs" in msg
    assert "      2 |     return s * 2 + 0" in msg  # the rewritten code, numbered
    assert "counterexample: f('ab')" in msg
    assert "original:  returned 'abab'" in msg
    assert "rewritten: raised: TypeError: can only concatenate str (not \"int\") to str" in msg


def test_assert_preserves_reports_argument_mutation(sandbox) -> None:
    code = "def f(xs):\n    return len(xs) > -1\n"
    with pytest.raises(AssertionError, match="the arguments were left in different states"):
        assert_preserves(AppendToArgument(), code, ["[1]"], sandbox=sandbox)


def test_assert_preserves_must_apply(sandbox) -> None:
    with pytest.raises(AssertionError, match="never did not apply: this transform never applies"):
        assert_preserves(Never(), "def f(x):\n    return x\n", ["1"], sandbox=sandbox)
    res = assert_preserves(Never(), "def f(x):\n    return x\n", ["1"], must_apply=False, sandbox=sandbox)
    assert not res.applied and res.reason == "this transform never applies"


def test_assert_preserves_collects_observations_for_transforms_that_need_them(sandbox) -> None:
    res = assert_preserves(NeedsTypes(), "def f(x):\n    return x\n", ["3"], sandbox=sandbox)
    assert res.source == "def f(x):\n    return x + 0\n"
    # the mutants keep the argument's type, so observations stay ["int"]; a str input refuses
    with pytest.raises(AssertionError, match=r"x observed as \['str'\]"):
        assert_preserves(NeedsTypes(), "def f(x):\n    return x\n", ["'a'"], sandbox=sandbox)


def test_assert_preserves_rejects_nondeterministic_programs(sandbox) -> None:
    code = "import random\n\ndef f(x):\n    return x + random.random()\n"
    with pytest.raises(AssertionError, match="nondeterministic"):
        assert_preserves(AddZero(), code, ["1"], sandbox=sandbox)


def test_assert_refuses(sandbox) -> None:
    res = assert_refuses(Never(), "def f(x):\n    return x\n", "never applies")
    assert res.reason == "this transform never applies"
    with pytest.raises(AssertionError, match="does not contain 'something else'"):
        assert_refuses(Never(), "def f(x):\n    return x\n", "something else")
    with pytest.raises(AssertionError, match="add-zero applied but was expected to refuse"):
        assert_refuses(AddZero(), "def f(x):\n    return x\n")
    assert_refuses(NeedsTypes(), "def f(x):\n    return x\n", "x observed as ['str']", inputs=["'a'"],
                   sandbox=sandbox)
    assert_refuses(NeedsTypes(), "def f(x):\n    return x\n", "x observed as None")  # no inputs: {}


def test_describe_outcome(sandbox) -> None:
    from codemorph.sandbox.pool import ExecRequest
    ok, bad = sandbox.run_batch([ExecRequest("def f(x):\n    print('hi')\n    return x\n", "f", "1"),
                                 ExecRequest("def f(x):\n    return [][x]\n", "f", "1")])
    assert describe_outcome(ok) == "returned 1; stdout 'hi\\n'"
    assert describe_outcome(bad) == "raised: IndexError: list index out of range (line 2)"


def test_assert_preserves_needs_an_input() -> None:
    with pytest.raises(ValueError):
        assert_preserves(AddZero(), "def f():\n    return 1\n", [])
    assert Program("def f():\n    return 1\n").has_entry_point()
