"""Snapshots of locals only after lines that bind one (``Tracer(sparse_types=True)``, for
programs that spell none of the child's reach words): the types of locals a run records are
those of a snapshot at every line event.  A program is run as written (sparse) and with a
trailing comment that spells a reach word, which makes the child take a snapshot at every
line event with the same line numbers."""

from __future__ import annotations

import json

import pytest
from paths import CRUXEVAL, needs_shared

from codemorph.sandbox import ExecRequest, Limits, Sandbox
from codemorph.sandbox._workerlib.tracer import binding_lines, binding_names


@pytest.fixture(scope="module")
def box():
    with Sandbox(Limits(timeout=20)) as sandbox:
        yield sandbox


def _every_line(code: str) -> str:
    """``code`` with a comment spelling ``__`` on its last line (same line numbers)."""
    return code.rstrip("\n") + "  # __\n"


def _types(box, code: str, args: list[str]) -> list[tuple]:
    reqs = [ExecRequest(c, "f", a, trace=True, types=True) for a in args for c in (code, _every_line(code))]
    outs = box.run_batch(reqs)
    return [(outs[k].types, outs[k + 1].types) for k in range(0, len(outs), 2)]


def test_binding_lines_are_the_lines_that_store_a_local():
    src = ("def f(n):\n"            # 1
           "    x = 1\n"            # 2
           "    while n:\n"         # 3
           "        g(x)\n"         # 4
           "        n -= 1\n"       # 5
           "    for i in []:\n"     # 6
           "        pass\n"         # 7
           "    return x\n")        # 8
    ns: dict = {}
    exec(compile(src, "<test>", "exec"), ns)  # noqa: S102 - the test's own function, not a program under test
    assert binding_lines(ns["f"].__code__) == frozenset({2, 5, 6})
    closure = "def f():\n    x = 1\n    def g():\n        return x\n    return g\n"
    exec(compile(closure, "<test>", "exec"), ns)  # noqa: S102
    assert binding_lines(ns["f"].__code__) is None  # a cell: any call may rebind it



def test_binding_names_are_the_locals_each_line_stores():
    src = ("def f(n):\n"                 # 1
           "    x, y = 1, 2\n"           # 2
           "    while n:\n"              # 3
           "        g(x)\n"              # 4
           "        n -= 1\n"            # 5
           "    for i in []:\n"          # 6
           "        pass\n"              # 7
           "    try:\n"                  # 8
           "        pass\n"              # 9
           "    except ValueError as e:\n"  # 10
           "        x = e\n"             # 11
           "    return x\n")             # 12
    ns: dict = {}
    exec(compile(src, "<test>", "exec"), ns)  # noqa: S102 - the test's own function, not a program under test
    names = binding_names(ns["f"].__code__)
    assert set(names) == binding_lines(ns["f"].__code__)
    assert names[2] == ("x", "y") and names[5] == ("n",) and names[6] == ("i",) and names[10] == ("e",)
    assert "x" in names[11]  # and the cleanup of ``e`` (None, then deleted), where CPython numbers it so
    closure = "def f():\n    x = 1\n    def g():\n        return x\n    return g\n"
    exec(compile(closure, "<test>", "exec"), ns)  # noqa: S102
    assert binding_names(ns["f"].__code__) is None  # a cell: any call may rebind it


def test_types_of_locals_bound_on_other_lines_than_the_last_one_read_are_all_seen(box):
    # a pair is read only for the locals the previous line binds: a multi-line statement,
    # an except-as name, a deleted local, a class body, an unpacking, a loop target
    code = ("def f(n):\n"
            "    a, b = n, str(n)\n"
            "    c = (\n"
            "        b +\n"
            "        'x')\n"
            "    try:\n"
            "        n / 0\n"
            "    except ZeroDivisionError as e:\n"
            "        d = e\n"
            "    del a\n"
            "    class K:\n"
            "        k = 1.5\n"
            "    for i in [None, 2]:\n"
            "        a = i\n"
            "    return K\n")
    (sparse, every), = _types(box, code, ["3"])
    assert sparse == every
    assert sparse["f"] == {"K": ["type"], "a": ["NoneType", "int"], "b": ["str"], "c": ["str"],
                           "d": ["ZeroDivisionError"], "e": ["ZeroDivisionError"], "i": ["NoneType", "int"],
                           "n": ["int"]}
    assert sparse["f.<locals>.K"] == {"__module__": ["str"], "__qualname__": ["str"], "k": ["float"]}


def test_a_type_bound_in_a_loop_after_lines_that_bind_nothing_is_seen(box):
    code = ("def f(n):\n"
            "    x = 1\n"
            "    while n:\n"
            "        n -= 1\n"
            "        if n == 2:\n"
            "            x = 'a'\n"
            "        len([x])\n"
            "    return x\n")
    (sparse, every), = _types(box, code, ["4"])
    assert sparse == every == {"f": {"n": ["int"], "x": ["int", "str"]}}


def test_a_local_rebound_by_a_closure_during_a_call_is_seen(box):
    # the line ``g()`` binds nothing in f, but g rebinds f's cell x: cells mean a snapshot
    # at every line of f
    code = ("def f(n):\n"
            "    x = 1\n"
            "    def g():\n"
            "        nonlocal x\n"
            "        x = 'a'\n"
            "    g()\n"
            "    return n\n")
    (sparse, every), = _types(box, code, ["1"])
    assert sparse == every == {"f": {"g": ["builtins.function"], "n": ["int"], "x": ["int", "str"]},
                              "f.<locals>.g": {"x": ["int", "str"]}}


def test_a_class_assigned_during_a_call_is_seen(box):
    # ``__class__`` is a reach word: this program gets a snapshot at every line
    code = ("class A:\n"
            "    pass\n"
            "class B:\n"
            "    pass\n"
            "def h(o):\n"
            "    o.__class__ = B\n"
            "def f(n):\n"
            "    o = A()\n"
            "    h(o)\n"
            "    return n\n")
    out = box.run(ExecRequest(code, "f", "1", trace=True, types=True))
    assert out.types["f"] == {"n": ["int"], "o": ["builtins.A", "builtins.B"]}


@needs_shared("cruxeval", "cruxeval.jsonl")
def test_cruxeval_types_are_those_of_a_snapshot_at_every_line(box):
    rows = [json.loads(line) for line in CRUXEVAL.read_text().splitlines()[:150]]
    differ = []
    for row in rows:
        (sparse, every), = _types(box, row["code"], [row["input"]])
        if sparse != every:
            differ.append(row["id"])
    assert differ == []
