"""for-to-while and peel-loop on a script's module-level loops, on programs found by
adversarial testing (breakcases/) where a rewrite printed something else than its original:
each test applies the transform as test_script_loops.py does (``Program(script=True)``, types
observed on the standard inputs) and requires the rewrite, when one is made, to print what
the original prints on every input (run in the sandbox).

* a ``continue`` inside ``try``/``finally``: the counter form (and the ``enumerate`` index form)
  inserts ``i += 1`` before the ``continue``, so the ``finally`` block sees the next value;
* a class body reads a module-level name through the globals whenever its own binding of
  the name has not run (a class body looks names up in its namespace, then the globals):
  the counter ends one step further (or is bound after zero iterations);
* ``typing.get_type_hints`` evaluates a string annotation in the module's namespace;
* a star import in the loop's body binds a name chosen as fresh (``from operator import *``
  binds ``index``).
"""

from __future__ import annotations

import pytest

from codemorph.engine import Program, get_transform
from codemorph.sandbox import request_for
from codemorph.testing import observe_types


def _rewrite_prints_the_same(sandbox, transform: str, code: str, stdins: list[str]) -> None:
    observations = observe_types(code, stdins, input_kind="stdin", sandbox=sandbox)
    res = get_transform(transform).apply(Program(code, script=True), 0, observations=observations, harness=True)
    if not res.applied:
        return
    outs = sandbox.run_batch([request_for(c, "f", "stdin", t) for t in stdins for c in (code, res.source)])
    for k, text in enumerate(stdins):
        x, y = outs[2 * k], outs[2 * k + 1]
        assert x.status in ("returned", "raised"), (text, x.status)
        assert (x.status, x.stdout, x.exception and x.exception.type) == \
            (y.status, y.stdout, y.exception and y.exception.type), (text, res.source)


CONTINUE_IN_TRY_FINALLY = """n = int(input())
done = []
for i in range(n):
    try:
        if i % 2:
            continue
        print("even", i)
    finally:
        done.append(i)
print(done)
"""

ENUMERATE_CONTINUE_IN_TRY_FINALLY = """words = input().split()
seen = []
for i, w in enumerate(words):
    try:
        if w.startswith("#"):
            continue
        print(i, w)
    finally:
        seen.append(i)
print(seen)
"""

CLASS_BODY_READS_COUNTER = """n = int(input())
for i in range(n):
    print(i)
class Stats:
    for i in []:
        pass
    last = i
print(Stats.last)
"""

CLASS_BODY_READS_COUNTER_CONDITIONALLY = """words = input().split()
for i in range(len(words)):
    print(words[i])
class Summary:
    if len(words) < 8:
        i = -1
    last = i
print(Summary.last)
"""

TYPE_HINTS_READ_COUNTER = """import typing
n = int(input())
for i in range(n):
    print(i)
def f(x: "tuple[i]"):
    return x
print(typing.get_type_hints(f))
"""


@pytest.mark.parametrize("code, stdins", [
    (CONTINUE_IN_TRY_FINALLY, ["4\n", "1\n", "5\n"]),
    (ENUMERATE_CONTINUE_IN_TRY_FINALLY, ["a #b c\n", "#x\n", "p q\n"]),
], ids=["counter", "enumerate"])
def test_finally_block_sees_the_loop_variable_of_the_iteration_a_continue_leaves(sandbox, code, stdins):
    _rewrite_prints_the_same(sandbox, "for-to-while", code, stdins)  # peel-loop refuses a continue


@pytest.mark.parametrize("transform", ["for-to-while", "peel-loop"])
@pytest.mark.parametrize("code, stdins", [
    (CLASS_BODY_READS_COUNTER, ["3\n", "1\n", "5\n"]),
    (CLASS_BODY_READS_COUNTER_CONDITIONALLY, ["a b c\n", "a b c d e f g h\n"]),
], ids=["empty-for-in-class", "conditional-assignment-in-class"])
def test_class_body_reading_the_global_loop_variable_sees_its_last_value(sandbox, transform, code, stdins):
    _rewrite_prints_the_same(sandbox, transform, code, stdins)


@pytest.mark.parametrize("transform", ["for-to-while", "peel-loop"])
def test_string_annotation_evaluated_in_the_module_sees_the_loop_variable(sandbox, transform):
    _rewrite_prints_the_same(sandbox, transform, TYPE_HINTS_READ_COUNTER, ["3\n", "1\n"])


# the names i, j, k and idx are taken, so the index form's counter would be `index`, which
# `from operator import *` in the loop's body rebinds (operator exports index and pos)
STAR_IMPORT_IN_BODY = """i = j = k = idx = 0
xs = input().split()
for x in xs:
    from operator import *
    print(x, i, j, k, idx)
"""


@pytest.mark.parametrize("transform", ["for-to-while", "peel-loop"])
def test_fresh_counter_is_no_name_a_star_import_in_the_body_binds(sandbox, transform):
    _rewrite_prints_the_same(sandbox, transform, STAR_IMPORT_IN_BODY, ["a b c\n", "q\n"])
