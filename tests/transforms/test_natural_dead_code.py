"""The natural style of ``dead-code`` and ``dead-loop`` (codemorph.transforms.deadcode.checks):
defensive checks over program values, proved false for every input.

* the checks catalogue is proved by z3, and a satisfiable check is refused (never emitted);
* :func:`value_facts` establishes a fact only where it holds for every input: programs with
  a trap at every place an unsound analysis would accept (a rebinding in between, a walrus,
  ``enumerate(..., -3)``, ``range(-2, 2)``, a value appended to on the same line, a
  rebound ``len``/``isinstance``) are rewritten over many seeds and run in the sandbox on
  inputs that make each trap fire: the inserted code never runs (line tracing) and
  behaviour is unchanged.
"""

from __future__ import annotations

import libcst as cst
import pytest
from conftest import inserted_lines, never_run_lines, run_both

from codemorph import Program, get_transform
from codemorph.transforms.deadcode import checks
from codemorph.transforms.deadcode.checks import CHECKS, ValueCheck, proved_checks, prove_check, value_facts


def test_builtin_checks_are_all_proved() -> None:
    assert proved_checks() == CHECKS


@pytest.mark.parametrize("check, why", [
    (ValueCheck("length", "{x} < 1"), "true for x = 0"),
    (ValueCheck("int", "{x} < 0"), "true for x = "),
    (ValueCheck("list", "isinstance({x}, list)"), "true for"),
    (ValueCheck("length", "not isinstance({x}, bool)"), "true for"),
    (ValueCheck("str", "len({x}) < 0"), "cannot be translated"),
])
def test_satisfiable_or_unknown_checks_are_refused(check: ValueCheck, why: str) -> None:
    ok, reason = prove_check(check)
    assert not ok and why in reason
    assert proved_checks((check, CHECKS[0])) == (CHECKS[0],)


def test_transforms_never_emit_an_unproved_check(monkeypatch) -> None:
    bogus = (ValueCheck("length", "{x} < 1"), ValueCheck("list", "isinstance({x}, list)"))
    monkeypatch.setattr(checks, "CHECKS", bogus + (CHECKS[0],))
    src = "def f(xs):\n    n = len(xs)\n    out = []\n    return n, out\n"
    for seed in range(12):
        result = get_transform("dead-code").apply(Program(src), seed)
        assert " < 1" not in result.source and "if isinstance" not in result.source
        assert "if n < 0:" in result.source or "< 0:" in result.source, result.source


def _facts(src: str, marker: str = "# here") -> dict[str, tuple[str, bool, bool]]:
    """``{name: (kind, empty, loop_target)}`` at the line holding ``marker``."""
    module = cst.parse_module(src)
    from codemorph.authoring.facts import ProgramFacts
    pf = ProgramFacts.of(module)
    loops = {id(loop.body): loop for loop, _ in pf.loops}
    for func, facts in pf.functions.items():
        for block in facts.blocks:
            for i, stmt in enumerate(block.body):
                if marker in module.code_for_node(stmt).splitlines()[0] or marker in "".join(
                        line.comment.value for line in stmt.leading_lines if line.comment):
                    return {f.name: (f.kind, f.empty, f.loop_target)
                            for f in value_facts(block, i, facts.unbinders, loops.get(id(block)))}
    raise AssertionError("marker not found")


@pytest.mark.parametrize("src, expected", [
    ("def f(xs):\n    n = len(xs)\n    out = []\n    # here\n    pass\n",
     {"n": ("length", False, False), "out": ("list", True, False)}),
    ("def f(xs):\n    out = []\n    out.append(1)\n    # here\n    pass\n", {"out": ("list", False, False)}),
    ("def f(xs):\n    n = len(xs)\n    n = n - 10\n    # here\n    pass\n", {}),
    ("def f(xs):\n    n = len(xs)\n    if xs:\n        n = -1\n    # here\n    pass\n", {}),
    ("def f(xs):\n    n = len(xs)\n    print((n := -1))\n    # here\n    pass\n", {}),
    ("def f(xs):\n    buf = []; buf.append(1)\n    # here\n    pass\n", {}),
    ("def f(xs):\n    s = str(xs)\n    t = ', '.join(xs)\n    # here\n    pass\n", {"t": ("str", False, False)}),
    ("def f(xs):\n    d = {k: 1 for k in xs}\n    e = {}\n    del e\n    # here\n    pass\n",
     {"d": ("dict", False, False)}),
    ("def f(xs):\n    n = len(xs)\n    def g():\n        nonlocal n\n        n = -1\n    # here\n    pass\n", {}),
    ("def f(xs):\n    for i, x in enumerate(xs):\n        # here\n        pass\n", {"i": ("length", False, True)}),
    ("def f(xs):\n    for i, x in enumerate(xs, -3):\n        # here\n        pass\n", {}),
    ("def f(xs):\n    for j in range(-2, 2):\n        # here\n        pass\n", {}),
    ("def f(xs):\n    for j in range(len(xs)):\n        j -= 5\n        # here\n        pass\n", {}),
    ("def f(xs):\n    for j in range(len(xs)):\n        # here\n        j -= 5\n", {"j": ("length", False, True)}),
    ("def f(xs):\n    k = -4\n    m = 0\n    # here\n    pass\n", {"k": ("int", False, False),
                                                           "m": ("length", False, False)}),
])
def test_value_facts_hold_for_every_input(src: str, expected: dict) -> None:
    assert _facts(src) == expected


TRAPS = '''def f(xs, flag):
    n = len(xs)
    n = n - 2
    out = []
    out.append(n)
    buf = []; buf.append(1)
    label = ", ".join(str(x) for x in xs)
    label = None if flag else label
    total = 0
    if xs:
        total = -len(xs)
    for i, x in enumerate(xs, -3):
        total += i
    for j in range(-2, 2):
        total += j
    for k in range(len(xs)):
        k -= 9
        total += k
    return n, out, buf, label, total
'''

SHADOWED = '''def isinstance(obj, cls):
    return False


def len(obj):
    return -1


def f(xs):
    n = len(xs)
    out = list(xs)
    items = []
    return n, out, items
'''


@pytest.mark.parametrize("program, inputs", [
    (TRAPS, ["[], True", "[], False", "[1, 2, 3], True", "[4], False"]),
    (SHADOWED, ["[]", "[1, 2]"]),
])
@pytest.mark.parametrize("name", ["dead-code", "dead-loop"])
def test_inserted_code_never_runs_on_trap_inputs(sandbox, program: str, inputs: list[str], name: str) -> None:
    transform = get_transform(name)
    seen = set()
    for seed in range(16):
        result = transform.apply(Program(program), seed, inputs=inputs)
        if program is SHADOWED and name == "dead-loop":  # len is rebound: no length is known
            assert not result.applied and result.reason.startswith("no natural site"), result.source
            return
        assert result.applied, result.reason
        seen.add(result.source)
        new = "\n".join(result.source.splitlines()[n - 1] for n in inserted_lines(program, result.source))
        if program is SHADOWED:  # the program's own len/isinstance say nothing about its values
            assert "isinstance(" not in new and "n < 0" not in new, new
        dead = set(never_run_lines(name, program, result.source))
        for args, o, r in run_both(sandbox, program, result.source, inputs, trace=True):
            assert o.status in ("returned", "raised"), (args, o)
            assert o.behaviour() == r.behaviour(), (args, result.source)
            assert r.lines is not None and not dead & set(r.lines), f"dead code ran on {args}:\n{result.source}"
    # dead-loop: only `while n < 0: n += 1` right after `n = len(xs)`, the one computed length
    assert len(seen) == 1 if name == "dead-loop" else len(seen) >= 2


def test_natural_checks_read_the_program_values() -> None:
    """Where the program has a value with a fact, the check is over it, not over a fresh
    local."""
    src = "def f(text):\n    words = text.split()\n    n = len(words)\n    return words[:n]\n"
    for seed in range(10):
        result = get_transform("dead-code").apply(Program(src), seed)
        head = next(line.strip() for line in result.source.splitlines() if line.strip().startswith("if "))
        assert head == "if n < 0:"
        result = get_transform("dead-loop").apply(Program(src), seed)
        assert "while n < 0:\n        n += 1\n" in result.source
