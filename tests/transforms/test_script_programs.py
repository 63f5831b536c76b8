"""Scripts (``stdin`` rows, ``Program(script=True)``): nothing outside them reads their module
namespace, so rename-locals renames module-level variables, dead-code inserts at module
level and for-to-while rewrites module-level loops (tests/transforms/test_script_loops.py has
its forms); the rewrites print the same on every input."""

from __future__ import annotations

import pytest

from codemorph.engine import Program, get_transform
from codemorph.sandbox import request_for

SCRIPT = """s = input()
zeros = 0
for i in range(len(s)):
    if s[i] == "0":
        zeros += 1
print(zeros, [c for c in s if c != "0"])
"""
STDINS = ["0101\n", "\n", "000\n", "12a0\n"]


def _same_output(sandbox, a: str, b: str) -> None:
    outs = sandbox.run_batch([request_for(code, "f", "stdin", t) for t in STDINS for code in (a, b)])
    for k in range(0, len(outs), 2):
        x, y = outs[k], outs[k + 1]
        assert (x.status, x.stdout, x.exception and x.exception.type) == \
            (y.status, y.stdout, y.exception and y.exception.type)


def test_rename_locals_renames_a_scripts_module_variables(sandbox):
    res = get_transform("rename-locals", scheme="obfuscated").apply(Program(SCRIPT, script=True), 0)
    assert res.applied
    assert res.source == ("v0 = input()\nv1 = 0\nfor v2 in range(len(v0)):\n    if v0[v2] == \"0\":\n"
                          "        v1 += 1\nprint(v1, [v3 for v3 in v0 if v3 != \"0\"])\n")
    _same_output(sandbox, SCRIPT, res.source)


def test_module_variables_of_a_called_program_keep_their_names():
    res = get_transform("rename-locals").apply(Program(SCRIPT), 0)
    assert not res.applied and "no function" in res.reason


def test_module_variable_spelled_in_a_string_or_declared_global_keeps_its_name():
    code = 'n = int(input())\ntotal = 0\ndef add():\n    global total\n    total += n\nadd()\nprint("%(n)s" % {"n": n}, total)\n'
    res = get_transform("rename-locals", scheme="obfuscated").apply(Program(code, script=True), 0)
    assert "total" in res.source and '"n"' in res.source and "n = int" in res.source


def test_for_to_while_rewrites_a_scripts_module_level_loop(sandbox):
    # without observations the bound len(s) is bound once to a fresh name; i is read nowhere
    # outside the loop (the comprehension's c is its own), so it is the counter
    res = get_transform("for-to-while").apply(Program(SCRIPT, script=True), 0)
    assert res.source == ('s = input()\nzeros = 0\nn = len(s)\ni = 0\nwhile i < n:\n    if s[i] == "0":\n'
                          '        zeros += 1\n    i += 1\nprint(zeros, [c for c in s if c != "0"])\n')
    _same_output(sandbox, SCRIPT, res.source)


def test_for_to_while_keeps_a_called_programs_module_level_loop():
    res = get_transform("for-to-while").apply(Program(SCRIPT), 0)
    assert not res.applied and "loop at module level" in res.reason


@pytest.mark.parametrize("seed", range(4))
def test_opaque_dead_code_goes_into_a_scripts_module_body(sandbox, seed):
    res = get_transform("dead-code", style="opaque").apply(Program(SCRIPT, script=True), seed)
    assert res.applied and "return" not in res.source
    added = [line for line in res.source.splitlines() if line.startswith("if ")]
    assert len(added) == 1  # the program's own if is indented; the inserted one is at module level
    _same_output(sandbox, SCRIPT, res.source)


@pytest.mark.parametrize("seed", range(4))
def test_natural_dead_code_in_a_script_checks_a_module_level_computed_value(sandbox, seed):
    # zeros = 0 (a literal) and i (a range counter) are no values a person checks; n = len(s) is
    res = get_transform("dead-code").apply(Program(SCRIPT, script=True), seed)
    assert not res.applied and res.reason.startswith("no natural site") and res.source == SCRIPT
    code = SCRIPT.replace("zeros = 0\n", "zeros = 0\nn = len(s)\n")
    res = get_transform("dead-code").apply(Program(code, script=True), seed)
    assert res.applied and "return" not in res.source
    assert res.source.split("n = len(s)\n")[1].startswith("if n < 0:\n")
    _same_output(sandbox, code, res.source)


def test_dead_code_keeps_a_scripts_docstring_first():
    code = '"""Doc."""\nprint(input())\n'
    assert not get_transform("dead-code").apply(Program(code, script=True), 0).applied  # nothing computed
    for seed in range(6):
        res = get_transform("dead-code", style="opaque").apply(Program(code, script=True), seed)
        assert res.applied and res.source.startswith('"""Doc."""\n') and res.source.count("print(input())") == 1
