"""Program model, Transform base class, registry and pipelines (no program is executed here)."""

from __future__ import annotations

import libcst as cst
import pytest

from codemorph import (NotApplicable, OneOf, ParseError, Pipeline, Program, Registry, Repeat, SomeOf, Transform,
                       UnknownTransformError, default_registry, get_transform)
from codemorph.errors import CodemorphError
from codemorph.engine.transform import derive_seed


class AppendComment(Transform):
    """Test transform: appends a numbered comment chosen with the rng to the first statement."""

    name = "append-comment"
    family = "test"
    description = "append a random comment"

    def rewrite(self, module, ctx):
        if not module.body:
            raise NotApplicable("empty module")
        n = ctx.rng.randrange(1000)
        first = module.body[0]
        ctx.record(first, f"comment {n}")
        return module.with_changes(footer=[*module.footer, cst.EmptyLine(comment=cst.Comment(f"# c{n}"))])


class Broken(Transform):
    name = "broken"
    family = "test"
    description = "emits code that does not compile"

    def rewrite(self, module, ctx):
        ctx.record(None, "breaks")
        return module.with_changes(body=[cst.parse_statement("return 1")])  # return outside a function


def test_parse_error_has_line_and_column():
    with pytest.raises(ParseError) as info:
        Program("def f(x):\n    return x +\n")
    assert info.value.line == 2
    assert info.value.column is not None
    assert "line 2" in str(info.value)


def test_python2_print_is_a_parse_error():
    with pytest.raises(ParseError) as info:
        Program('print "hello"\n')
    assert info.value.line == 1
    assert "print" in info.value.message


def test_symbol_table_errors_are_parse_errors():
    with pytest.raises(ParseError):
        Program("def f():\n    nonlocal x\n")


def test_program_functions_and_entry_point():
    p = Program("import os\ndef g():\n    pass\ndef f(x):\n    return x\n")
    assert p.functions == ("g", "f")
    assert p.has_entry_point()
    assert not Program("def g():\n    pass\n").has_entry_point()


def test_derive_seed_is_stable_across_processes():
    # fixed value: sha256-based, independent of PYTHONHASHSEED
    assert derive_seed(0, "sample_0", "rename-locals") == derive_seed(0, "sample_0", "rename-locals")
    assert derive_seed(0, "a") != derive_seed(1, "a")
    assert derive_seed(3, "x", "y") == 0x259DF01576C5EA9D  # the same on every machine and run


def test_transform_apply_records_sites_and_is_deterministic():
    prog = Program("def f(x):\n    return x\n")
    a = AppendComment().apply(prog, 5)
    b = AppendComment().apply(prog, 5)
    assert a.applied and a.source == b.source
    assert a.source.startswith("def f(x):\n    return x\n# c")
    assert a.sites[0].line == 1
    assert a.program.entry_point == "f"


def test_not_applicable_becomes_reason():
    r = AppendComment().apply(Program(""), 0)
    assert not r.applied
    assert r.reason == "empty module"
    assert r.source == ""


def test_rewrite_that_does_not_compile_is_refused():
    r = Broken().apply(Program("x = 1\n"), 0)
    assert not r.applied
    assert "did not compile" in r.reason
    assert r.source == "x = 1\n"


def test_unknown_option_is_a_type_error():
    with pytest.raises(TypeError):
        AppendComment(colour="red")


def test_registry_loads_builtins_through_entry_points():
    reg = default_registry()
    for name in ("rename-locals", "dead-code", "for-to-while", "invert-if"):
        assert name in reg
        assert reg.origin(name) == "codemorph"
        assert reg.cls(name).name == name


def test_unknown_transform_suggests_close_names():
    with pytest.raises(UnknownTransformError) as info:
        get_transform("rename-local")
    assert "did you mean rename-locals" in str(info.value)


def test_registry_rejects_duplicate_names():
    reg = Registry([AppendComment])

    class Other(AppendComment):
        pass

    with pytest.raises(CodemorphError):
        reg.register(Other)
    assert reg.names() == ["append-comment"]


def test_pipeline_sequence_repeat_and_choices_are_deterministic():
    prog = Program("def f(x):\n    return x\n")
    pipe = Pipeline.of(AppendComment(), Repeat(AppendComment(), 2), SomeOf(1, AppendComment(), AppendComment()),
                       OneOf(AppendComment(), AppendComment()))
    r1 = pipe.apply(prog, 11)
    r2 = pipe.apply(prog, 11)
    r3 = pipe.apply(prog, 12)
    assert r1.program.source == r2.program.source
    assert r1.program.source.count("# c") == 5
    assert r1.applied == ["append-comment"] * 5
    assert r3.program.source != r1.program.source


def test_one_of_falls_back_to_an_applicable_step():
    prog = Program("")  # AppendComment refuses an empty module

    class Always(Transform):
        name = "always"
        family = "test"
        description = "adds x = 1"

        def rewrite(self, module, ctx):
            ctx.record(None, "x = 1")
            return cst.parse_module("x = 1\n")

    for seed in range(5):
        res = OneOf(AppendComment(), Always()).apply(prog, seed)
        assert res.applied == ["always"]
        assert res.program.source == "x = 1\n"


@pytest.mark.parametrize("exc", [RuntimeError("kaboom"), SystemExit(3), RecursionError("bug")])
def test_a_transform_that_raises_is_an_error_result_not_a_crash(exc):
    class Raises(Transform):
        name = "raises"
        family = "test"
        description = "raises in rewrite"

        def rewrite(self, module, ctx):
            raise exc

    program = Program("def f(x):\n    return x\n")
    result = Raises().apply(program, 0)
    assert result.applied is False
    assert result.source == program.source
    assert result.error is not None and result.error.exception == type(exc).__name__
    assert result.reason == f"raised {type(exc).__name__}: {exc}"
    piped = Pipeline.of(Raises(), Raises()).apply(program, 0)
    assert piped.program.source == program.source and len(piped.errors) == 2


# ``y = len(x)`` gives dead-code a natural site (a check after a computed length), so the
# refusal below comes from the depth, not from a program without sites
DEEP = "def f(x):\n    y = len(x)\n    return y + " + " + ".join(["1"] * 900) + "\n"


@pytest.mark.parametrize("name", ["rename-locals", "dead-code"])
def test_a_900_term_expression_is_refused_as_too_deep_not_an_error(name):
    result = get_transform(name).apply(Program(DEEP), 0, inputs=["[1]"], harness=True)
    assert (result.applied, result.error, result.source) == (False, None, DEEP)
    assert result.reason.startswith("expression nesting too deep for the rewriter: the syntax tree is 907 levels "
                                    "deep (RecursionError: maximum recursion depth exceeded")


def test_generate_counts_a_too_deep_program_not_applicable_not_an_error(tmp_path):
    import json
    from codemorph.jobs.generate import GenerateConfig, generate
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"id": "deep", "code": DEEP, "input": "[1]", "output": "901"}) + "\n")
    summary = generate(src, tmp_path / "out.jsonl", GenerateConfig.from_transforms(("rename-locals",),
                                                                                    extra_inputs=4))
    assert summary.per_transform["rename-locals"]["not-applicable"] == 1
    assert summary.per_transform["rename-locals"]["error"] == 0
    assert not (tmp_path / "out.rejects.jsonl").exists() or "RecursionError" not in (
        tmp_path / "out.rejects.jsonl").read_text()


def test_registry_says_a_transform_without_options_takes_none():
    reg = Registry([AppendComment])
    with pytest.raises(TypeError) as info:
        reg.create("append-comment", colour="red")
    assert str(info.value) == "unknown option 'colour'; append-comment takes no options"


def test_option_names_follow_options_passed_on_to_the_base_class():
    from codemorph.engine.registry import option_names

    class Base(AppendComment):
        def __init__(self, size: int = 1, **options) -> None:
            super().__init__(**options)

    class Child(Base):
        def __init__(self, colour: str = "red", *, size: int = 2, **options) -> None:
            super().__init__(size=size, **options)

    assert option_names(AppendComment) == []
    assert option_names(Child) == ["colour", "size"]
    reg = Registry()
    Child.name = "child"
    reg.register(Child)
    with pytest.raises(TypeError) as info:
        reg.create("child", colur="blue")
    assert str(info.value) == "unknown option 'colur' (did you mean 'colour'?); child takes: colour, size"


# a 500-term ``and`` chain: libcst's scope analysis fails half-way on it (a KeyError whose
# message, a syntax node, recursed in its repr and escaped the transform as an internal error);
# its literal 5 is one unfold-constant would name (LIMIT), so that transform reaches the deep tree too
AND_CHAIN = "def f(x):\n    if " + " and ".join(["x > 5"] * 500) + ":\n        return 1\n    return 0\n"


@pytest.mark.parametrize("name", ["rename-locals", "unfold-constant", "misleading-comment"])
def test_a_500_term_and_chain_is_refused_as_too_deep_not_an_error(name):
    result = get_transform(name).apply(Program(AND_CHAIN), 0, inputs=["6"], harness=True)
    assert (result.applied, result.error, result.source) == (False, None, AND_CHAIN)
    assert result.reason.startswith("expression nesting too deep for the rewriter: the syntax tree is ")


def test_generate_writes_the_original_of_a_500_term_and_chain_with_no_internal_reject(tmp_path):
    import json
    from codemorph.jobs.generate import GenerateConfig, generate
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"id": "and", "code": AND_CHAIN, "input": "6", "output": "1"}) + "\n")
    summary = generate(src, tmp_path / "out.jsonl", GenerateConfig.from_transforms(
        ("rename-locals", "unfold-constant", "misleading-comment"), extra_inputs=4))
    written = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [r["id"] for r in written] == ["and"]
    assert all(summary.per_transform[t]["error"] == 0 for t in ("rename-locals", "unfold-constant",
                                                                 "misleading-comment"))
    rejects = tmp_path / "out.rejects.jsonl"
    assert not rejects.exists() or rejects.read_text() == ""


def test_a_failure_whose_message_cannot_be_rendered_is_still_an_error_result():
    class Unprintable(Exception):
        def __str__(self):
            raise RecursionError("maximum recursion depth exceeded")

    class Raises(Transform):
        name = "raises-unprintable"
        family = "test"
        description = "raises an exception whose str() fails"

        def rewrite(self, module, ctx):
            raise Unprintable()

    result = Raises().apply(Program("def f(x):\n    return x\n"), 0)
    assert result.applied is False and result.error is not None
    assert result.reason == "raised Unprintable: <the Unprintable's message could not be rendered>"


def test_generate_rejects_a_999_term_sum_as_too_deep_not_as_an_internal_error(tmp_path):
    # 999 terms exhaust the recursion of an analysis outside the transforms (the input seeds'
    # literal scan): the row costs itself, with the depth named, never an `internal` reject
    import json
    from codemorph.jobs.generate import GenerateConfig, generate
    code = "def f(x):\n    y = " + " + ".join(["x"] * 999) + "\n    if y > 0:\n        return 1\n    return 0\n"
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"id": "plus999", "code": code, "input": "1", "output": "1"}) + "\n")
    generate(src, tmp_path / "out.jsonl", GenerateConfig.from_transforms(("rename-locals",), extra_inputs=4))
    (reject,) = [json.loads(line) for line in (tmp_path / "out.rejects.jsonl").read_text().splitlines()]
    assert reject["stage"] == "parse"
    assert reject["reason"].startswith("row 'plus999' (line 1): expression nesting too deep for codemorph's "
                                       "analyses: the syntax tree is 1005 levels deep (RecursionError: ")
