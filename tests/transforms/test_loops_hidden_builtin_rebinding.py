"""The loop transforms refuse a program that may rebind a builtin the rewrite emits or
relies on without an assignment the scope analysis sees (found by adversarial testing:
each program below made the named transform write a variant whose stdout differed from
the original's, run in the sandbox).

A module-level ``globals()['len'] = f``, ``vars()[...]``, ``exec('len = ...')``,
``getattr(g, '__glo' + 'bals__')[...]``, ``setattr(getattr(abs, '__se' + 'lf__'), ...)``
or ``pydoc.locate('built' + 'ins')`` rebinds ``len``/``range``/``enumerate``/``set``: the
index form of ``for-to-while`` then wrote ``while i < len(xs)`` over the rebound ``len``,
``while-to-for`` wrote ``for i in range(3)``, ``unroll-loop`` dropped a call of the
rebound ``range``, ``comprehension-to-loop`` wrote ``set()``.  The one check is the
authoring kit's :func:`~codemorph.authoring.rebindable_builtins` (``invert-if``'s
expression types use it too).
"""

from __future__ import annotations

import random

import pytest

from codemorph.authoring import builtin_rebinding_refusal, rebindable_builtins
from codemorph.engine import Program, RewriteContext, get_transform
from codemorph.testing import assert_preserves, observe_types

FAKE = """def _fake(real):
    def fake(*a, **k):
        print('fake', real.__name__)
        return real(*a, **k)
    return fake
"""

SUM = "def f(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return total\n"
COUNTER = "def f(xs):\n    out = []\n    i = 0\n    while i < 3:\n        out.append(i)\n        i += 1\n    return out\n"
UNROLL = "def f(xs):\n    t = 0\n    for k in range(3):\n        t += k\n    return t + len(xs)\n"
SETCOMP = "def f(xs):\n    return {x for x in xs}\n"
ENUM = "def f(xs):\n    out = []\n    for i, x in enumerate(xs):\n        out.append(i + x)\n    return out\n"

# (rebinding at module level, program, transform, the reason's words)
CASES = [
    ("globals()['len'] = _fake(len)", SUM, "for-to-while",
     "no eligible for loop (line 8: program may rebind builtins through globals)"),
    ("globals()['len'] = _fake(len)", SUM, "peel-loop",
     "no eligible for loop (line 8: program may rebind builtins through globals)"),
    ("globals().update({'range': _fake(range)})", COUNTER, "while-to-for",
     "program may rebind builtins through globals"),
    ("vars()['range'] = _fake(range)", UNROLL, "unroll-loop", "program may rebind builtins through vars"),
    ("exec('set = _fake(set)')", SETCOMP, "comprehension-to-loop",
     "no eligible comprehension in a hoistable position (line 7: program may rebind builtins through exec)"),
    ("def _g():\n    pass\ngetattr(_g, '__glo' + 'bals__')['len'] = _fake(len)", SUM, "for-to-while",
     "no eligible for loop (line 8: program may rebind builtins through getattr)"),
    ("setattr(getattr(abs, '__se' + 'lf__'), 'enumerate', _fake(enumerate))", ENUM, "for-to-while",
     "no eligible for loop (line 8: program may rebind builtins through getattr)"),
    ("import pydoc\nsetattr(pydoc.locate('built' + 'ins'), 'len', _fake(len))", SUM, "for-to-while",
     "program may rebind builtins through pydoc"),
    ("import pkgutil\nsetattr(pkgutil.resolve_name('built' + 'ins'), 'len', _fake(len))", SUM, "for-to-while",
     "program may rebind builtins through pkgutil, resolve_name"),
    ("from unittest import mock\nmock.patch('built' + 'ins.len', _fake(len)).start()", SUM, "for-to-while",
     "program may rebind builtins through mock"),
]


@pytest.mark.parametrize("rebind, program, transform, reason", CASES,
                         ids=[f"{c[2]}-{c[0].splitlines()[-1][:30]}" for c in CASES])
def test_loop_transforms_refuse_a_builtin_rebound_unseen(sandbox, rebind, program, transform, reason):
    code = FAKE + program + rebind + "\n"
    inputs = ["[1, 2, 3]", "[]", "[4, 0, 7, 1]"]
    observations = observe_types(code, inputs, sandbox=sandbox)
    res = get_transform(transform).apply(Program(code, "f"), 0, inputs=inputs, observations=observations,
                                         harness=True)
    assert (res.applied, res.reason) == (False, reason), res.source


def _ctx(code: str) -> RewriteContext:
    return RewriteContext(Program(code, "f"), random.Random(0))


@pytest.mark.parametrize("code, expected", [
    ("def f(xs):\n    return len(xs)\n", []),
    ("def f(xs):\n    return getattr(xs, 'real', len(xs))\n", []),  # a literal name reads xs.real
    ("def f(xs, name):\n    return getattr(xs, name)\n", ["len", "iter"]),  # a computed name
    ("g = getattr\ndef f(xs):\n    return len(xs)\n", ["len", "iter"]),
    ("def f(m):\n    setattr(m, 'len', 3)\n", ["len"]),
    ("def f(m):\n    m.__setattr__('iter', 3)\n", ["iter"]),
    ("def f(m):\n    m.len = 3\n", ["len"]),
    ("def f(g):\n    return getattr(g, '__globals__')\n", ["len", "iter"]),
    ("globals()['x'] = 1\ndef f(xs):\n    return len(xs)\n", ["len", "iter"]),
    ("def f(xs):\n    return len(xs)\nlen = 3\n", ["len"]),
])
def test_rebindable_builtins_lists_the_builtins_a_program_may_rebind(code, expected):
    assert rebindable_builtins(_ctx(code), "len", "iter") == expected


def test_builtin_rebinding_refusal_names_the_words_that_reach_a_namespace():
    ctx = _ctx("def f(xs):\n    return xs\ngetattr(f, '__glo' + 'bals__')['len'] = 3\n")
    assert builtin_rebinding_refusal(ctx, "len") == "program may rebind builtins through getattr"
    assert builtin_rebinding_refusal(_ctx("def f(m):\n    m.len = 1\n"), "len", "iter") == \
        "program sets or reads an attribute named len (it may rebind the builtin through a module)"
    assert builtin_rebinding_refusal(_ctx("def f(xs):\n    return xs\n"), "len") is None


def test_a_getattr_naming_a_literal_attribute_does_not_block_for_to_while(sandbox):
    code = "def f(xs):\n    total = 0\n    for x in xs:\n        total += getattr(x, 'real')\n    return total\n"
    res = assert_preserves(get_transform("for-to-while"), code, ["[1, 2, 3]", "[]"], sandbox=sandbox)
    assert "while True:" in res.source and "x = next(it)" in res.source  # iter and next: surely the builtins


# dead-code and dead-loop rely on len(xs) >= 0 to prove their check false; unfold-constant
# writes len('abc') for 3: a len rebound unseen (returning -5 here) ran the dead block or
# changed the constant (the rewrites returned [1, 2, 3, 4] or raised where the original
# returns [-4, -3, -2, -1])
NEGATIVE_LEN = [
    "globals()['len'] = lambda s: -5\n",
    "exec('len = lambda s: -5')\n",
    "def _g():\n    pass\ngetattr(_g, '__glo' + 'bals__')['len'] = lambda s: -5\n",
    "from unittest import mock\nmock.patch('built' + 'ins.len', lambda s: -5).start()\n",
]
USES_LEN = "\n\ndef f(xs):\n    n = len(xs)\n    out = []\n    for x in xs:\n        out.append(x + n)\n    return out\n"


@pytest.mark.parametrize("rebind", NEGATIVE_LEN, ids=["globals", "exec", "getattr", "mock"])
@pytest.mark.parametrize("transform", ["dead-code", "dead-loop"])
def test_dead_code_does_not_rely_on_a_len_rebound_unseen(sandbox, rebind, transform):
    code = rebind + USES_LEN
    inputs = ["[1, 2, 3, 4]", "[]"]
    observations = observe_types(code, inputs, sandbox=sandbox)
    for seed in range(3):
        res = get_transform(transform).apply(Program(code, "f"), seed, inputs=inputs, observations=observations,
                                             harness=True)
        assert not res.applied and res.reason.startswith("no natural site"), res.source


#: a 3 that is the length of the prefix it skips: unfold-constant writes it len('abc')
SKIPS_PREFIX = "\n\ndef f(s):\n    if s.startswith('abc'):\n        return s[3:]\n    return s\n"


def test_unfold_constant_writes_len_of_a_prefix_skipped(sandbox):
    res = assert_preserves(get_transform("unfold-constant"), SKIPS_PREFIX.lstrip(), ["'abcd'", "''"],
                           sandbox=sandbox)
    assert "return s[len('abc'):]" in res.source


@pytest.mark.parametrize("rebind", NEGATIVE_LEN[2:], ids=["getattr", "mock"])
def test_unfold_constant_does_not_write_a_len_rebound_unseen(sandbox, rebind):
    code = rebind + SKIPS_PREFIX
    for seed in range(3):
        res = assert_preserves(get_transform("unfold-constant"), code, ["'abcd'", "''"], seed=seed,
                               sandbox=sandbox, must_apply=False)
        assert "len('" not in res.source
