"""A rewrite's program is compiled when it is made and parsed by libcst only when its tree
is read: ``generate`` parses each row once (no program is executed here)."""

from __future__ import annotations

import pytest

import codemorph.engine.program as program_module
from codemorph import ParseError, Program, get_transform

SOURCE = "def f(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return total\n"


@pytest.fixture()
def parses(monkeypatch):
    """The source texts libcst parses, in order."""
    seen: list[str] = []
    real = program_module._parse_cst

    def counting(source, filename):
        seen.append(source)
        return real(source, filename)

    monkeypatch.setattr(program_module, "_parse_cst", counting)
    return seen


def test_rewritten_program_is_parsed_only_when_its_tree_is_read(parses):
    program = Program(SOURCE)
    assert parses == [SOURCE]
    result = get_transform("for-to-while").apply(program, 0)
    assert result.applied and parses == [SOURCE]  # the rewrite's text was compiled, not parsed
    assert result.source.startswith("def f(xs):\n    total = 0\n")
    module = result.program.module  # first read: parsed now, once
    assert module.code == result.source and parses == [SOURCE, result.source]
    assert result.program.module is module and len(parses) == 2


def test_pipeline_step_reads_the_previous_rewrite_tree(parses):
    program = Program(SOURCE)
    first = get_transform("for-to-while").apply(program, 0)
    second = get_transform("rename-locals").apply(first.program, 0)
    assert second.applied
    assert parses == [SOURCE, first.source]  # the second step parsed the first's text


def test_compiled_program_rejects_text_that_does_not_compile():
    with pytest.raises(ParseError) as err:
        Program.compiled("def f(:\n    return 1\n")
    assert err.value.line == 1
    with pytest.raises(ParseError):
        Program.compiled("def f():\n    nonlocal x\n")  # a symbol-table error, as the constructor finds


def test_compiled_program_equals_constructed_one():
    made = Program.compiled(SOURCE, "f", "row-1", script=False)
    assert made == Program(SOURCE, "f", "row-1")
    assert made.functions == ("f",) and made.has_entry_point()
