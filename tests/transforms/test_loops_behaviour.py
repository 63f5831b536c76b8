"""Behaviour tests of the grown ``loops`` family (while-to-for, comprehension-to-loop,
loop-to-comprehension, peel-loop, unroll-loop) on the constructs that break rewriters,
their refusals, and their applicability on CRUXEval.

Every rewrite is checked with :func:`codemorph.testing.assert_preserves`: both programs run
in the sandbox on the given inputs plus type-preserving mutants, comparing return value,
exception class, argument mutation and stdout.  Programs never run in the test process.
"""

from __future__ import annotations

import ast

import pytest
from conftest import cruxeval_sample, run_pairs

from codemorph import Program, get_transform
from codemorph.testing import assert_preserves, assert_refuses

FAMILY = ("while-to-for", "comprehension-to-loop", "loop-to-comprehension", "peel-loop", "unroll-loop")


# -- constructs that break rewriters: each program must be rewritten, and behave the same ----

PRESERVES = [
    # global / nonlocal
    ("peel-loop", "g = 0\n\n\ndef f(xs):\n    global g\n    for g in xs:\n        g = g * 2\n    return g\n",
     ["[1, 2]", "[]"]),
    ("unroll-loop", "def f(n):\n    v = 'init'\n\n    def inner():\n        nonlocal v\n        for v in range(2):\n"
                    "            pass\n\n    inner()\n    return v, n\n", ["1"]),
    ("comprehension-to-loop", "K = 3\n\n\ndef f(xs):\n    global K\n    K = K + 1\n    return [x * K for x in xs]\n",
     ["[1, 2]"]),
    # closures: a lambda created in the loop reads the loop variable late, in both versions
    ("peel-loop", "def f(xs):\n    fs = []\n    for x in xs:\n        fs.append(lambda: x)\n"
                  "    return [g() for g in fs]\n", ["[1, 2, 3]", "[]"]),
    ("unroll-loop", "def f(n):\n    fs = []\n    for i in range(3):\n        fs.append(lambda: i + n)\n"
                    "    return [g() for g in fs]\n", ["1"]),
    ("comprehension-to-loop", "def f(xs):\n    k = 2\n\n    def scale(v):\n        return v * k\n\n"
                              "    return [scale(x) for x in xs]\n", ["[1, 2]"]),
    # walrus in a loop body (binds in the function either way)
    ("peel-loop", "def f(xs):\n    for x in xs:\n        if (y := x * 2) > 2:\n            print(y)\n"
                  "    return y if xs else None\n", ["[1, 2]", "[]"]),
    ("while-to-for", "def f(n):\n    i = 0\n    while i < n:\n        if (half := i // 2):\n            print(half)\n"
                     "        i += 1\n    return i\n", ["5", "0"]),
    # keyword calls and attributes spelled like a loop variable
    ("loop-to-comprehension", "def f(xs):\n    out = []\n    for x in xs:\n        out.append(dict(x=x))\n"
                              "    return out\n", ["[1, 2]", "[]"]),
    ("comprehension-to-loop", "class P:\n    def __init__(self, x):\n        self.x = x\n\n\ndef f(xs):\n"
                              "    return sorted(P(x=x).x for x in xs)\n", ["[3, 1]"]),
    # f-strings and string annotations
    ("loop-to-comprehension", "def f(xs: 'list[str]') -> 'list[str]':\n    out: 'list' = []\n    res = []\n"
                              "    for x in xs:\n        res.append(f'<{x!r:>5}>')\n    return res, out\n",
     ["['a', 'bc']"]),
    ("comprehension-to-loop", "def f(xs: 'list[int]') -> str:\n    w = 3\n    return ''.join([f'{x:>{w}}' for x in xs])\n",
     ["[1, 22]", "[]"]),
    # for/else, break/continue inside try/finally, generators
    ("while-to-for", "def f(xs, t):\n    i = 0\n    while i < len(xs):\n        try:\n            if xs[i] == t:\n"
                     "                break\n        finally:\n            print('visit', i)\n        i += 1\n"
                     "    else:\n        print('none')\n    return i\n", ["'abc', 'b'", "'abc', 'z'", "'', 'a'"]),
    ("peel-loop", "def f(xs):\n    out = []\n    for x in xs:\n        for y in x:\n            try:\n"
                  "                if y == 'b':\n                    break\n            finally:\n"
                  "                out.append(y)\n        else:\n            out.append('no b')\n    return out\n",
     ["['ab', 'cd']", "[]"]),
    ("while-to-for", "def gen(n):\n    i = 0\n    while i < n:\n        yield i * i\n        i += 1\n\n\n"
                     "def f(n):\n    return list(gen(n))\n", ["4", "0"]),
    ("loop-to-comprehension", "def gen(xs):\n    out = []\n    for x in xs:\n        out.append(x + 1)\n"
                              "    yield out\n\n\ndef f(xs):\n    return next(gen(xs))\n", ["[1, 2]"]),
    # del and except-as of other names
    ("peel-loop", "def f(xs):\n    for x in xs:\n        print(x)\n        del x\n    return len(xs)\n", ["[1, 2]", "[]"]),
    ("unroll-loop", "def f(s):\n    out = []\n    for i in range(2):\n        try:\n            out.append(s[i])\n"
                    "        except IndexError as e:\n            out.append(type(e).__name__)\n    return out\n",
     ["'a'", "''"]),
    # match statements
    ("peel-loop", "def f(xs):\n    out = []\n    for x in xs:\n        match x:\n            case [a, *rest]:\n"
                  "                out.append((a, rest))\n            case _:\n                out.append(x)\n"
                  "    return out\n", ["[[1, 2], 3]", "[]"]),
    ("unroll-loop", "def f(p):\n    out = []\n    for i in range(2):\n        match p:\n            case (x, y) if i:\n"
                    "                out.append(x + y)\n            case _:\n                out.append(i)\n"
                    "    return out\n", ["(1, 2)", "5"]),
    # star-unpacking
    ("loop-to-comprehension", "def f(rows):\n    out = {}\n    for k, *vs in rows:\n        out[k] = vs\n"
                              "    return out\n", ["[(1, 2, 3), (4,)]", "[]"]),
    ("comprehension-to-loop", "def f(rows):\n    return {k: [*vs, k] for k, *vs in rows}\n", ["[(1, 2, 3), (4,)]"]),
    # builtin shadowed by a local elsewhere in the function is the program's business
    ("comprehension-to-loop", "def f(xs):\n    ys = [str(x) for x in xs]\n    return ys\n", ["[1]"]),
    # mutation of the iterable and of the arguments, exceptions midway
    ("comprehension-to-loop", "def f(xs):\n    return [xs.pop() for _ in range(2)]\n", ["[1, 2, 3]", "[1]"]),
    ("loop-to-comprehension", "def f(xs):\n    out = []\n    for x in xs:\n        out.append(10 // x)\n"
                              "    return out\n", ["[1, 2]", "[1, 0, 2]"]),
    ("peel-loop", "def f(d):\n    for k in d:\n        d[k + 'x'] = 1\n    return d\n", ["{'a': 1}", "{}"]),
    ("while-to-for", "def f(xs):\n    n = len(xs)\n    i = 0\n    while i < n:\n        xs.append(xs[i])\n"
                     "        i += 1\n    return xs, i\n", ["[1, 2]", "[]"]),
]


@pytest.mark.parametrize("name, src, inputs", PRESERVES, ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(PRESERVES)])
def test_preserves_behaviour(name: str, src: str, inputs: list[str], sandbox) -> None:
    # while-to-for with its fix-up (`if i < n: i += 1` after the loop) so that the programs that
    # read the counter after the loop are rewritten too; by default they are left alone
    options = {"fix_up": True} if name == "while-to-for" else {}
    result = assert_preserves(get_transform(name, **options), src, inputs, extra_inputs=6, sandbox=sandbox)
    assert result.sites


REFUSES = [
    ("while-to-for", "def f(n):\n    i = 0\n    while i < n:\n        i += 1\n    del i\n    return n\n", ["3"],
     "i may be global, nonlocal, deleted"),
    ("while-to-for", "def f(n):\n    i = 0\n    while i < n:\n        try:\n            pass\n"
                     "        except Exception as i:\n            pass\n        i += 1\n    return n\n", ["3"],
     "i may be global, nonlocal, deleted"),
    ("while-to-for", "def f(n):\n    i = 0\n    while i < n:\n        i += 0.5\n    return i\n", ["3"],
     "not an increment by an int literal"),
    ("while-to-for", "def f(n):\n    i = 0\n    while i > n:\n        i += 1\n    return i\n", ["3"],
     "moves away from its bound"),
    ("while-to-for", "def f(x):\n    i = x\n    while i < 3:\n        i += 1\n    return i\n", ["1.5"],
     "not known to be an int"),
    ("loop-to-comprehension", "def f(xs):\n    out = []\n    for x in xs:\n        out.append(x)\n    match 1:\n"
                              "        case x:\n            pass\n    return out\n", ["[1]"],
     "loop variable x is used outside the loop"),
    ("loop-to-comprehension", "def f(xs):\n    def g():\n        nonlocal_x = 1\n        return nonlocal_x\n"
                              "    out = []\n    for x in xs:\n        out.append(lambda: x)\n    return [h() for h in out]\n",
     ["[1]"], "read by a nested function or lambda"),
    ("loop-to-comprehension", "def f(xs):\n    out = []\n    for x in xs:\n        out.append(super)\n    return out\n",
     ["[1]"], "super()"),
    # CRUXEval sample_133: a comprehension run for its effects, [nums.pop() for i in range(n)]
    ("loop-to-comprehension", "def f(nums, elements):\n    result = []\n    for i in range(len(elements)):\n"
                              "        result.append(nums.pop())\n    return nums\n", ["[1, 2, 3], [0]"],
     "calls .pop(), which changes its object"),
    ("loop-to-comprehension", "def f(xs, seen):\n    out = []\n    for x in xs:\n        if x not in seen:\n"
                              "            out.append(seen.add(x))\n    return out\n", ["[1, 1], set()"],
     "calls .add(), which changes its object"),
    ("comprehension-to-loop", "async def g(xs):\n    return [x async for x in xs]\n\n\ndef f(n):\n    return n\n",
     ["1"], "async comprehension"),
    ("comprehension-to-loop", "def f(xs):\n    y = 0\n    return y + (lambda: 1)() + len([x for x in xs])\n",
     ["[1]"], "no eligible comprehension"),
    ("comprehension-to-loop", "import weakref\n\n\ndef f(xs):\n    return [x for x in xs]\n", ["[1]"],
     "object lifetimes"),
    ("comprehension-to-loop", "import sys\n\n\ndef f(xs):\n    return [sys._getframe() is None for x in xs]\n",
     ["[1]"], "inspects frames"),
    ("peel-loop", "import builtins\n\n\ndef f(xs):\n    for x in xs:\n        pass\n    return xs\n", ["[1]"],
     "builtins"),
    ("unroll-loop", "def f(n):\n    for i in range(3):\n        continue\n    return n\n", ["1"], "body has continue"),
    ("unroll-loop", "def f(n):\n    for i in range(1, 2, 0):\n        pass\n    return n\n", ["1"], "step is 0"),
    ("unroll-loop", "class C:\n    for i in range(2):\n        pass\n\n\ndef f(n):\n    return n\n", ["1"],
     "loop in a class body"),
]


@pytest.mark.parametrize("name, src, inputs, reason", REFUSES,
                         ids=[f"{n}-{i}" for i, (n, _, _, _) in enumerate(REFUSES)])
def test_refuses(name: str, src: str, inputs: list[str], reason: str, sandbox) -> None:
    assert_refuses(get_transform(name), src, reason, inputs=inputs, sandbox=sandbox)


def test_while_to_for_needs_observations() -> None:
    result = get_transform("while-to-for").apply(Program("def f(n):\n    i = 0\n    while i < n:\n        i += 1\n"))
    assert not result.applied and "observations" in result.reason


# -- the harness can fail: naive rewrites of the same programs are caught ---------------

NAIVE = [
    # while -> for without the fix-up: i ends at n - 1 instead of n
    ("def f(n):\n    i = 0\n    while i < n:\n        i += 1\n    return i\n",
     "def f(n):\n    i = 0\n    for i in range(n):\n        pass\n    return i\n", ["3"]),
    # comprehension -> loop reusing the variable name: it leaks into the function
    ("def f(xs):\n    x = 'kept'\n    ys = [x for x in xs]\n    return x, ys\n",
     "def f(xs):\n    x = 'kept'\n    ys = []\n    for x in xs:\n        ys.append(x)\n    return x, ys\n", ["[1]"]),
    # dict comprehension -> loop storing d[k()] = v(): value evaluated before key
    ("def f(xs):\n    log = []\n    d = {log.append('k') or x: log.append('v') or x for x in xs}\n    return log\n",
     "def f(xs):\n    log = []\n    d = {}\n    for x in xs:\n        d[log.append('k') or x] = log.append('v') or x\n"
     "    return log\n", ["[1]"]),
    # loop -> comprehension although the loop variable is read afterwards
    ("def f(xs):\n    out = []\n    for x in xs:\n        out.append(x)\n    return out, x\n",
     "def f(xs):\n    out = [x for x in xs]\n    return out, x\n", ["[1]"]),
    # peeling with a second `for` over the iterator calls next() after exhaustion
    ("class Again:\n    def __init__(self):\n        self.calls = 0\n\n    def __iter__(self):\n        return self\n\n"
     "    def __next__(self):\n        self.calls += 1\n        if self.calls == 1:\n            raise StopIteration\n"
     "        return self.calls\n\n\ndef f(n):\n    seen = []\n    for x in Again():\n        seen.append(x)\n"
     "    return seen\n",
     "class Again:\n    def __init__(self):\n        self.calls = 0\n\n    def __iter__(self):\n        return self\n\n"
     "    def __next__(self):\n        self.calls += 1\n        if self.calls == 1:\n            raise StopIteration\n"
     "        return self.calls\n\n\ndef f(n):\n    seen = []\n    it = iter(Again())\n    for x in it:\n"
     "        seen.append(x)\n        break\n    for x in it:\n        seen.append(x)\n        if len(seen) > 3:\n"
     "            break\n    return seen\n", ["0"]),
]


@pytest.mark.parametrize("original, naive, inputs", NAIVE, ids=range(len(NAIVE)))
def test_verification_catches_naive_rewrites(original: str, naive: str, inputs: list[str], sandbox) -> None:
    from codemorph.verification.differential import check, make_baseline
    base = make_baseline(sandbox, Program(original), inputs, extra_inputs=0)
    assert check(sandbox, base, Program(naive)).status == "differs"


# -- options, determinism -----------------------------------------------------------------

def test_bad_options() -> None:
    for name in FAMILY:
        with pytest.raises(ValueError, match="which"):
            get_transform(name, which="some")
        with pytest.raises(TypeError):
            get_transform(name, bogus=1)
    with pytest.raises(ValueError, match="max_iterations"):
        get_transform("unroll-loop", max_iterations=5)


def test_families_and_preconditions() -> None:
    for name in FAMILY:
        cls = type(get_transform(name))
        assert cls.family == "loops" and cls.preconditions and cls.__doc__
    assert type(get_transform("while-to-for")).needs_runtime_types


def test_which_one_is_deterministic_and_covers_every_site() -> None:
    src = ("def f(xs):\n    for i in range(2):\n        pass\n    for j in range(3):\n        pass\n"
           "    for k in range(1):\n        pass\n    return [x for x in xs], {x for x in xs}\n")
    for name, n_sites in (("unroll-loop", 3), ("peel-loop", 3), ("comprehension-to-loop", 1)):
        t = get_transform(name, which="one")
        lines = set()
        for seed in range(16):
            a, b = t.apply(Program(src), seed), t.apply(Program(src), seed)
            assert a.applied and a.source == b.source
            lines.add(tuple(s.line for s in a.sites))
        assert len(lines) == n_sites or name == "comprehension-to-loop"
    t = get_transform("comprehension-to-loop", which="one")
    assert {t.apply(Program(src), s).sites[0].line for s in range(16)} == {8}


def test_transforms_compose(sandbox) -> None:
    """loop-to-comprehension then comprehension-to-loop gives the loop back, with its own names
    (the function spells x nowhere else)."""
    src = "def f(xs):\n    out = []\n    for x in xs:\n        if x:\n            out.append(x * 2)\n    return out\n"
    there = get_transform("loop-to-comprehension").apply(Program(src)).program
    assert there.source == "def f(xs):\n    out = [x * 2 for x in xs if x]\n    return out\n"
    back = get_transform("comprehension-to-loop").apply(there)
    assert back.source == src
    assert_preserves(get_transform("comprehension-to-loop"), there.source, ["[0, 1, 2]", "[]"], sandbox=sandbox)


# -- CRUXEval ----------------------------------------------------------------------------



def test_cruxeval_applicability_and_behaviour(sandbox) -> None:
    rows = cruxeval_sample(4)  # the sample holds a row for each of while-to-for and unroll-loop
    from codemorph.sandbox.pool import ExecRequest
    # runtime types of the rows with a while loop, observed in one sandbox batch (as
    # observe_types does row by row)
    with_while = [row for row in rows if any(isinstance(x, ast.While) for x in ast.walk(ast.parse(row["code"])))]
    traced = sandbox.run_batch([ExecRequest(row["code"], "f", row["input"], trace=True) for row in with_while])
    observed = {row["id"]: {fn: {v: sorted(ts) for v, ts in names.items()} for fn, names in (o.types or {}).items()}
                for row, o in zip(with_while, traced)}
    # every transform needs a `for` (loops, comprehensions) or a `while` in the text: the
    # other rows are refused before any analysis, so only these are parsed and tried
    programs = {row["id"]: Program(row["code"]) for row in rows if "for" in row["code"] or "while" in row["code"]}
    pairs = []
    applied = {}
    for name in FAMILY:
        # the sampled while loops' counters are read after the loop: while-to-for rewrites them
        # only with its fix-up (by default it leaves them alone)
        t = get_transform(name, **({"fix_up": True} if name == "while-to-for" else {}))
        n = 0
        for row in rows:
            obs = None
            if t.needs_runtime_types:
                if row["id"] not in observed:
                    continue
                obs = observed[row["id"]]
            elif "for" not in row["code"]:
                continue
            result = t.apply(programs[row["id"]], 0, inputs=[row["input"]], observations=obs)
            assert "internal error" not in (result.reason or ""), (name, row["id"], result.reason)
            if result.applied:
                n += 1
                pairs.append((name, row, result.source))
        applied[name] = n
    # every transform of the family rewrites some sampled row (the sample is chosen to hold
    # a while loop and an unrollable loop), and every rewrite behaves as the original (below)
    assert all(applied[name] > 0 for name in FAMILY), applied
    run_pairs(sandbox, pairs)
