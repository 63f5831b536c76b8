"""Tests of the ``expressions`` family: swap-operands, expand-augassign, unfold-constant
(codemorph.transforms.expressions).

Fixture cases live in tests/transforms/fixtures/<transform>/: ``NAME.py`` is the input,
``NAME.expected.py`` the exact expected output, and ``NAME.json`` holds ``inputs`` (the
harness inputs: runtime types are observed on them in the sandbox, and the expected
rewrite is verified on them plus mutants), optionally ``seed`` and ``options``, or
``refused`` (a substring of the expected reason).  Set CODEMORPH_UPDATE_FIXTURES=1 to
rewrite the expected files (then review the diff).

Programs run only in the sandbox.  ``compile()`` (no execution) is used to compare code
objects and qualified names.
"""

from __future__ import annotations

import ast
import types
import warnings

import libcst as cst
import pytest
from conftest import FULL, cruxeval_sample

from codemorph import Program
from codemorph.testing import assert_preserves, assert_refuses, observe_types
from codemorph.engine.transform import RewriteContext
from codemorph.transforms.expressions import (ExpandAugAssign, FunctionIndex, SwapOperands, UnfoldConstant,
                                              literal_type)
from codemorph.transforms.expressions.unfold_constant import natural_forms

FAMILY = ("swap-operands", "expand-augassign", "unfold-constant")


# -- swap-operands -------------------------------------------------------------------

def test_swap_sites_are_recorded_with_positions(sandbox) -> None:
    code = "def f(a, b):\n    return a + b, a * 3\n"
    res = assert_preserves(SwapOperands(), code, ["2, 5"], sandbox=sandbox)
    assert res.source == "def f(a, b):\n    return b + a, 3 * a\n"
    assert [(s.line, s.column, s.description) for s in res.sites] == [
        (2, 12, "a + b -> b + a"), (2, 19, "a * 3 -> 3 * a")]


def test_naive_string_swap_would_differ(sandbox) -> None:
    """Why str + str is refused: the swapped program returns another value."""
    from codemorph.verification.differential import verify
    code = "def f(s, t):\n    return s + t\n"
    verdict = verify(code, "def f(s, t):\n    return t + s\n", inputs=["'ab', 'cd'"], sandbox=sandbox)
    assert verdict.status == "differs"
    assert verdict.counterexample.original.value_repr == "'abcd'"
    assert_refuses(SwapOperands(), code, "observed as str", inputs=["'ab', 'cd'"], sandbox=sandbox)


def test_nan_sign_depends_on_operand_order(sandbox) -> None:
    """Why floats are excluded by default: with two NaNs the sign of the sum comes from
    one operand (observable with math.copysign)."""
    from codemorph.verification.differential import verify
    code = ("import math\n\ndef f(k):\n    a = -float('nan')\n    b = float('nan') * k\n"
            "    return math.copysign(1.0, a + b)\n")
    swapped = code.replace("a + b", "b + a")
    verdict = verify(code, swapped, inputs=["1"], extra_inputs=0, sandbox=sandbox)
    assert verdict.status == "differs"
    assert_refuses(SwapOperands(), code, "observed as float", inputs=["1"], sandbox=sandbox)
    # the documented opt-in does swap it
    res = SwapOperands(floats=True).apply(Program(code), 0, observations=observe_types(code, ["1"], sandbox=sandbox))
    assert res.applied and "b + a" in res.source


def test_swap_leaves_equality_to_mirror_comparison(sandbox) -> None:
    """``==``/``!=`` are mirror-comparison's sites: swapping them here too gave duplicate variants."""
    code = "def f(x, s):\n    return x == 0.5, s != 'a', x != s\n"
    assert_refuses(SwapOperands(), code, "no + * & | ^ operation to swap", inputs=["0.5, 'a'"], sandbox=sandbox)


def test_swap_never_moves_a_literal_left_of_plus(sandbox) -> None:
    """``n + 1`` stays (no ``range(1, 1 + n)``, ``xs[1 + n]``), ``1 + n`` becomes ``n + 1``,
    and ``n * 2`` -> ``2 * n`` (a form people write) is kept."""
    code = "def f(n, xs):\n    return list(range(1, n + 1)), xs[n + 1], 1 + n, n * 2, n | 4\n"
    res = assert_preserves(SwapOperands(), code, ["0, [1, 2]", "1, [3, 4, 5]"], sandbox=sandbox)
    assert res.source == "def f(n, xs):\n    return list(range(1, n + 1)), xs[n + 1], n + 1, 2 * n, n | 4\n"
    assert [s.description for s in res.sites] == ["1 + n -> n + 1", "n * 2 -> 2 * n"]


def test_swap_keeps_a_slice_that_adds_its_length_to_its_start(sandbox) -> None:
    """CRUXEval: ``nums[start:start+k]`` became ``nums[start:k+start]``; a slice whose end
    adds to its start keeps the start first, other sums are swapped."""
    code = "def f(xs, i, k):\n    return xs[i:i + k], xs[i + k:], xs[k:i + k], xs[i + k]\n"
    res = assert_preserves(SwapOperands(), code, ["[1, 2, 3, 4], 1, 2", "[5, 6], 0, 1"], sandbox=sandbox)
    assert res.source == "def f(xs, i, k):\n    return xs[i:i + k], xs[k + i:], xs[k:k + i], xs[k + i]\n"


def test_swap_keeps_products_of_one_literal_parallel(sandbox) -> None:
    """CRUXEval sample_183: ``ln[3 * i:3 * (i + 1)]`` became ``ln[i * 3:3 * (i + 1)]``; a
    product is not swapped when its statement has another product of that literal on the
    same side (``3 * (i + 1)`` is no site), so the two stay parallel; elsewhere it is."""
    code = "def f(ln, i):\n    if 3 * i + 1 < len(ln):\n        return ln[3 * i:3 * (i + 1)]\n    return ln\n"
    res = assert_preserves(SwapOperands(), code, ["[1, 2, 3, 4, 5, 6, 7], 1", "[1], 0"], sandbox=sandbox)
    assert res.source == ("def f(ln, i):\n    if i * 3 + 1 < len(ln):\n        return ln[3 * i:3 * (i + 1)]\n"
                          "    return ln\n")
    # both products are sites (CRUXEval sample_667): both are swapped, still parallel
    code = "def f(text, i):\n    return text[i * 3:i * 3 + 3]\n"
    res = assert_preserves(SwapOperands(), code, ["'abcdefgh', 1", "'', 0"], sandbox=sandbox)
    assert res.source == "def f(text, i):\n    return text[3 * i:3 * i + 3]\n"


def test_swap_bool_operands(sandbox) -> None:
    code = "def f(p, q):\n    r = p > q\n    return True & r, False | r, r ^ p, r + r\n"
    res = assert_preserves(SwapOperands(), code, ["1, 2", "3, 2"], sandbox=sandbox)
    assert res.source == "def f(p, q):\n    r = p > q\n    return r & True, r | False, p ^ r, r + r\n"


def test_swap_which_one_is_deterministic(sandbox) -> None:
    code = "def f(a, b):\n    return 1 + a, 2 + b, a * b\n"
    obs = observe_types(code, ["1, 2"], sandbox=sandbox)
    results = [SwapOperands(which="one").apply(Program(code), seed, observations=obs) for seed in range(12)]
    assert all(len(r.sites) == 1 for r in results)
    assert len({r.source for r in results}) == 3  # each site is chosen for some seed
    again = SwapOperands(which="one").apply(Program(code), 4, observations=obs).source
    assert again == SwapOperands(which="one").apply(Program(code), 4, observations=obs).source


def test_swap_needs_observations() -> None:
    res = SwapOperands().apply(Program("def f(a):\n    return a + 1\n"), 0)
    assert not res.applied and "observations" in res.reason


def test_swap_user_class_named_int_is_refused(sandbox) -> None:
    code = ("class int:\n    def __init__(self, v):\n        self.v = v\n"
            "    def __add__(self, o):\n        return 'left'\n    def __radd__(self, o):\n        return 'right'\n\n"
            "def f(a):\n    x = int(a)\n    return x + 1\n")
    assert_refuses(SwapOperands(), code, "builtins.int", inputs=["1"], sandbox=sandbox)


def test_swap_refuses_keywords_and_attributes_named_like_locals(sandbox) -> None:
    code = ("class P:\n    a = 5\n\ndef g(a):\n    return a\n\n"
            "def f(a):\n    p = P()\n    return g(a=a) + p.a, p.a + a\n")
    assert_refuses(SwapOperands(), code, "not a simple name", inputs=["1"], sandbox=sandbox)


def test_literal_type() -> None:
    cases = {"3": "int", "-3": "int", "+2.5": "float", "True": "bool", "None": "NoneType", "'x'": "str",
             "b'x'": "bytes", "rb'x'": "bytes", "x": None, "f'x'": None, "-(3)": None, "~3": None}
    for text, expected in cases.items():
        assert literal_type(cst.parse_expression(text)) == expected, text


# -- qualified names agree with CPython ------------------------------------------------

def _code_qualnames(source: str) -> set[str]:
    out: set[str] = set()

    def walk(code: types.CodeType) -> None:
        if code.co_name != "<module>":
            out.add(code.co_qualname)
        for c in code.co_consts:
            if isinstance(c, types.CodeType):
                walk(c)

    walk(compile(source, "<program>", "exec"))
    return out


def _our_qualnames(source: str) -> set[str]:
    program = Program(source)
    ctx = RewriteContext(program, None)
    return set(FunctionIndex(ctx).qualnames.values())


def test_qualnames_match_compiler_on_tricky_program() -> None:
    source = ("class A:\n    def m(self):\n        return [lambda: x for x in range(3)]\n"
              "    class B:\n        def n(self):\n            def inner():\n                return {k: v for k, v in []}\n"
              "            return inner\n"
              "@(lambda d: d)\ndef deco(k=lambda: 0, *, j=[v for v in 'ab']) -> (lambda: 1):\n    return k\n"
              "class C(type(lambda: 0)(lambda: 1) and object):\n    pass\n"
              "def f(xs):\n    g = (y for y in xs)\n    s = {z for z in [[w for w in xs]]}\n    h = lambda q: lambda r: r\n"
              "    return g, s, h\n")
    assert _our_qualnames(source) == _code_qualnames(source)


def test_qualnames_match_compiler_with_global_declarations() -> None:
    """A ``def``/``class`` whose name its enclosing function or class declares ``global``
    is named by CPython without its parents (``g``, ``C.m``), private names mangled alike;
    runtime types are keyed by that name, so an index naming it ``f.<locals>.g`` would read
    another function's types."""
    source = ("def f():\n    global g, C\n    def g(y):\n        return y\n    class C:\n"
              "        def m(self):\n            return 1\n    def h():\n        return 2\n    return g, C, h\n"
              "class K:\n    global k\n    def k(self):\n        return 3\n"
              "    def n(self):\n        global _K__p\n        def __p():\n            return 4\n"
              "        def __q():\n            return 5\n        return __p, __q\n"
              "def outer():\n    def inner():\n        global deep\n        def deep():\n            return 6\n"
              "        return deep\n    def deep():\n        return 7\n    return inner, deep\n")
    ours = _our_qualnames(source)
    assert ours == _code_qualnames(source)
    assert {"g", "C", "C.m", "f.<locals>.h", "k", "__p", "K.n.<locals>.__q", "deep",
            "outer.<locals>.deep"} <= ours


def test_qualnames_match_compiler_on_cruxeval() -> None:
    for row in cruxeval_sample(3):
        assert _our_qualnames(row["code"]) == _code_qualnames(row["code"]), row["id"]


# -- expand-augassign ------------------------------------------------------------------

def test_naive_list_expansion_would_differ(sandbox) -> None:
    """Why ``ys += [1]`` is refused on lists: it mutates the list that ``xs`` also names."""
    from codemorph.verification.differential import verify
    code = "def f(xs):\n    ys = xs\n    ys += [1]\n    return xs\n"
    verdict = verify(code, code.replace("ys += [1]", "ys = ys + [1]"), inputs=["[0]"], sandbox=sandbox)
    assert verdict.status == "differs"
    assert verdict.counterexample.original.value_repr == "[0, 1]"
    assert verdict.counterexample.rewritten.value_repr == "[0]"
    assert_refuses(ExpandAugAssign(), code, "may be mutable", inputs=["[0]"], sandbox=sandbox)


def test_expand_refuses_mutable_arguments_even_when_types_mix(sandbox) -> None:
    code = "def f(x):\n    x += x\n    return x\n"
    assert_refuses(ExpandAugAssign(), code, "observed types: int, list", inputs=["1", "[1]"], sandbox=sandbox)


def test_expand_refuses_module_level_and_class_body() -> None:
    code = "n = 1\nn += 1\nclass K:\n    a = 1\n    a += 1\ndef f():\n    return n\n"
    assert_refuses(ExpandAugAssign(), code, "not in a function body", observations={"K": {"a": ["int"]}})


def test_expand_keeps_comments(sandbox) -> None:
    code = "def f(a, b):\n    a += 1  # one\n    b -= a  # two\n    return a, b\n"
    res = assert_preserves(ExpandAugAssign(), code, ["1, 2"], sandbox=sandbox)
    assert res.source == "def f(a, b):\n    a = a + 1  # one\n    b = b - a  # two\n    return a, b\n"


def test_values_living_within_one_line_are_not_trusted(sandbox) -> None:
    """``y`` is a list only between two statements of one line, so no line event ever
    observes it as a list; expanding ``x += [1]`` there would break the alias ``y``."""
    code = "def f(a):\n    y = x = [a]; x += [1]; x = 0\n    return y\n"
    assert_refuses(ExpandAugAssign(), code, "shares its line", inputs=["1"], sandbox=sandbox)
    code = "def f(a):\n    n = 'a'; s = n + 'b'; n = a\n    return s\n"
    assert_refuses(SwapOperands(), code, "shares its line", inputs=["1"], sandbox=sandbox)
    code = "def f(a):\n    if a: return a + 1\n    return 0\n"
    assert_refuses(SwapOperands(), code, "shares its line", inputs=["1"], sandbox=sandbox)


def test_swap_refuses_names_written_by_nested_functions_or_walrus(sandbox) -> None:
    code = "def f(n):\n    def g():\n        nonlocal n\n        n = 2\n\n    g()\n    return n + 1\n"
    assert_refuses(SwapOperands(), code, "nested function assigns it", inputs=["1"], sandbox=sandbox)
    code = "def f(n):\n    return [n + 1 for _ in range(2) if (n := 'a')]\n"
    assert_refuses(SwapOperands(), code, "bound by :=", inputs=["1"], sandbox=sandbox)


@pytest.mark.parametrize("aug, expanded", [
    # parentheses only where precedence needs them
    ("x -= a * b", "x = x - a * b"), ("x *= -1", "x = x * -1"), ("x += a ** 2", "x = x + a ** 2"),
    ("x -= a - b", "x = x - (a - b)"), ("x *= a + b", "x = x * (a + b)"),
    ("x //= a * b", "x = x // (a * b)"), ("x **= -a", "x = x ** -a"), ("x **= a ** b", "x = x ** a ** b"),
    ("x <<= a + b", "x = x << a + b"), ("x |= a & b", "x = x | a & b"), ("x &= a | b", "x = x & (a | b)"),
    ("x += a if b else 1", "x = x + (a if b else 1)"), ("x -= not a", "x = x - (not a)"),
    ("x += (a * b)", "x = x + (a * b)"),
    # the operator spaced as the author spaced the augmented operator, ``=`` spaced on both
    # sides when the author spaced either (CRUXEval sample_145: ``price *=.85`` gave
    # ``price =price *.85``)
    ("x+=1", "x=x+1"), ("x -=a*b", "x = x -a*b"), ("x *=.85", "x = x *.85"), ("x+= 1", "x = x+ 1"),
])
def test_expand_writes_the_form_a_person_writes(sandbox, aug: str, expanded: str) -> None:
    code = f"def f(x, a, b):\n    {aug}\n    return x\n"
    res = assert_preserves(ExpandAugAssign(), code, ["5, 3, 2", "-4, 2, 3", "7, -1, 1"], sandbox=sandbox)
    assert res.source == f"def f(x, a, b):\n    {expanded}\n    return x\n"


@pytest.mark.parametrize("aug", ["o += t.upper() + s", "x += a - b", "x *= a * b", "x *= a / b"])
def test_expand_leaves_a_site_that_would_need_parentheses_of_its_own_level(sandbox, aug: str) -> None:
    """``o = o + (t.upper() + s)`` (CRUXEval ``sample_124``) is no form a person writes, and
    ``o + t + s`` differs for floats: such a site stays ``+=``."""
    code = f"def f(x, o, a, b, t, s):\n    {aug}\n    return x, o\n"
    assert_refuses(ExpandAugAssign(), code, "a form no person writes",
                   inputs=["1.5, 'o', 3, 2, 'ab', 'c'", "2, 'p', 5, 4, 'x', 'y'"], sandbox=sandbox)


def test_expand_writes_the_other_sites_of_a_program_with_one_left_alone(sandbox) -> None:
    code = "def f(b, n):\n    for _ in range(2):\n        b += str(1) + '0'\n    b += str(n)\n    return b\n"
    res = assert_preserves(ExpandAugAssign(), code, ["'a', 3", "'', 0"], sandbox=sandbox)
    assert res.source == code.replace("b += str(n)", "b = b + str(n)")


def test_expand_which_one(sandbox) -> None:
    code = "def f(a, b):\n    a += 1\n    b += 2\n    return a, b\n"
    res = assert_preserves(ExpandAugAssign(which="one"), code, ["1, 2"], sandbox=sandbox)
    assert len(res.sites) == 1
    assert res.source.count(" += ") == 1


# -- unfold-constant -------------------------------------------------------------------

def _code_fingerprint(code: types.CodeType) -> tuple:
    consts = tuple(_code_fingerprint(c) if isinstance(c, types.CodeType) else (type(c).__name__, repr(c))
                   for c in code.co_consts)
    return (code.co_code, consts, code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars)


def _compiled(source: str) -> tuple:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _code_fingerprint(compile(source, "<program>", "exec"))


def test_unfold_compiles_to_the_same_bytecode_on_cruxeval() -> None:
    """CPython folds ``60 * 60``, ``2 ** 10`` and ``'-' * 3`` back to their constants: a
    program whose sites are all arithmetic compiles to exactly the original bytecode and
    constants, a proof of equivalence that needs no execution.  The other rows get a named
    module constant (or ``len(...)``), checked by their own tests, or are refused when their
    only literals are ones a person writes as they are (0, 1, -1, 2, ``''``, ``' '``)."""
    applied = folded = 0
    # the sample plus rows whose every site folds (1000 -> 10 ** 3, '---' -> '-' * 3)
    rows = cruxeval_sample(4)
    rows += [row for row in cruxeval_sample(0, 1) if row["id"] in ("sample_167", "sample_297") and row not in rows]
    for row in rows:
        res = UnfoldConstant().apply(Program(row["code"]), 0)
        if not res.applied:
            assert "no int literal" in res.reason or "none a person would make a named constant" in res.reason \
                or "the name would not fit" in res.reason, \
                (row["id"], res.reason)
            continue
        applied += 1
        if all(" ** " in s.description.split(" -> ")[1] or " * " in s.description.split(" -> ")[1]
               for s in res.sites):
            folded += 1
            assert _compiled(res.source) == _compiled(row["code"]), row["id"]
            assert res.source.count("\n") == row["code"].count("\n")
    # 148 of 800 since no argument of replace is named and no repetition needs parentheses
    # (158 before: 15 NEW = 'haystacks' / OLD = '/', sample_99's ('_' * 3).join);
    # 158 since no literal is named beside another in the same role (177 before:
    # sample_213's OLD = '(' beside .replace(')', ']'), sample_73's TARGET = '0' beside
    # count('1')...); 177 since a literal a local names is no INITIAL_ constant (178 before: sample_774's
    # ``f_str = '...'``); 178 since a literal returned early is no DEFAULT_RESULT (193 before; 194 before
    # only forms people write were arithmetic: sample_154's ``(" " * 2).join``; 203 before a
    # name replaced every use of its literal in the function; 514 before natural forms, 610
    # before plain literals were no longer named: STEP = 1...)
    assert applied >= (148 if FULL else 0.15 * len(rows))
    assert folded >= 2


def test_unfold_leaves_identity_comparisons_alone() -> None:
    code = "def f(x):\n    return x is 3600, x == 3600\n"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        res = UnfoldConstant().apply(Program(code), 0)
    assert res.applied
    assert "x is 3600" in res.source and "x == 60 * 60" in res.source
    assert len(res.sites) == 1


def test_unfold_keeps_parentheses_of_the_literal() -> None:
    res = UnfoldConstant().apply(Program("def f():\n    return (3600), ('===').join('ab')\n"), 0)
    assert res.source == "def f():\n    return (60 * 60), ('=' * 3).join('ab')\n"
    assert [s.description for s in res.sites] == ["3600 -> 60 * 60", "'===' -> '=' * 3"]


@pytest.mark.parametrize("code, expected", [
    # parentheses only where precedence needs them
    ("x / 3600", "x / (60 * 60)"), ("3600 / x", "60 * 60 / x"), ("x - 3600", "x - 60 * 60"),
    ("x % 3600", "x % (60 * 60)"), ("3600 .real", "(60 * 60) .real"), ("-3600", "-(60 * 60)"),
    ("-1024", "-2 ** 10"), ("x ** 256", "x ** (2 ** 8)"), ("256 ** x", "(2 ** 8) ** x"),
    ("1024 * x", "2 ** 10 * x"), ("x < 1000", "x < 10 ** 3"), ("'===' * x", "'=' * 3 * x"),
    ("[86400, 1440]", "[24 * 60 * 60, 24 * 60]"), ("not 3600", "not 60 * 60"),
])
def test_unfold_parenthesises_by_precedence(code: str, expected: str) -> None:
    res = UnfoldConstant().apply(Program(f"def f(x):\n    return {code}\n"), 0)
    assert res.source == f"def f(x):\n    return {expected}\n"


def test_unfold_values_are_exact() -> None:
    """Each arithmetic form folds, at compile time (nothing runs), to the literal's value and
    type; each ``len(...)`` form's literal has that length."""
    code = ("def f(s):\n    return 12, 16, 60, 99, 100, 1024, 10**30, 6174, 3600, 604800, 'ab', '---', b'===', "
            "'key' + s, s[3]\n")
    for seed in range(6):
        res = UnfoldConstant().apply(Program(code), seed)
        assert res.sites
        for site in res.sites:
            before, after = site.description.split(" -> ")
            if after.startswith("len("):
                assert len(ast.literal_eval(after[4:-1])) == ast.literal_eval(before)
                continue
            folded = compile(after, "<form>", "eval").co_consts
            value = ast.literal_eval(before)
            assert any(type(c) is type(value) and c == value for c in folded), (site, folded)


@pytest.mark.parametrize("value", [12, 16, 30, 42, 60, 64, 100, 128, 1900, 6174, 2 * 3 * 5 * 7 * 11])
def test_unfold_writes_no_product_of_unrelated_factors(value: int) -> None:
    """A number is arithmetic only in the forms people write for it (powers of two from 256,
    of ten from 1000, products of time units): no ``x <= 38 * 50`` for 1900 (CRUXEval), no
    ``% (6 * 7)`` for 42 (``sample_65``), no ``lowest = 10 ** 2`` (``sample_111``), no
    ``2 ** 4`` for 16; such a literal is left alone or named by its place."""
    assert natural_forms(value) == []
    res = UnfoldConstant().apply(Program(f"def f(x):\n    return x <= {value}\n"), 0)
    assert res.source == f"LIMIT = {value}\n\n\ndef f(x):\n    return x <= LIMIT\n"


@pytest.mark.parametrize("value, form", [
    (256, "2 ** 8"), (1024, "2 ** 10"), (2 ** 32, "2 ** 32"), (1000, "10 ** 3"), (10 ** 9, "10 ** 9"),
    (3600, "60 * 60"), (1440, "24 * 60"), (86400, "24 * 60 * 60"), (604800, "7 * 24 * 60 * 60"),
])
def test_unfold_natural_forms_are_powers_and_time_units(value: int, form: str) -> None:
    assert [text for text, _level in natural_forms(value)] == [form]
    assert eval(form) == value  # noqa: S307 -- the form is a constant expression written here


def test_unfold_leaves_two_character_repetitions_alone() -> None:
    """``'  '`` and ``'=='`` stay (CRUXEval ``sample_154`` had ``(" " * 2).join(...)``);
    three or more characters are a repetition."""
    code = "def f(s):\n    return '  '.join(s) + '==' + '----'\n"
    res = UnfoldConstant().apply(Program(code), 0)
    assert res.source == "def f(s):\n    return '  '.join(s) + '==' + '-' * 4\n"


def test_unfold_never_writes_small_numbers_as_arithmetic() -> None:
    """0, 1, primes and numbers below 12 have no arithmetic form; a program with nothing
    else but a literal a person would name gets that one as a named module constant."""
    code = "def f(xs):\n    count = 0\n    for x in xs:\n        if x % 7 == 1:\n            count += 1\n    return count\n"
    for seed in range(8):
        res = UnfoldConstant().apply(Program(code), seed)
        assert res.source == ("MODULUS = 7\n\n\ndef f(xs):\n    count = 0\n    for x in xs:\n"
                              "        if x % MODULUS == 1:\n            count += 1\n    return count\n")


@pytest.mark.parametrize("code", [
    # 0, 1, -1, 2 and empty or blank strings: no STEP = 1, FIRST = 0, LAST = -1, MODULUS = 2,
    # SEPARATOR = '' or ' ', INITIAL_RESULT = ''
    "def f(xs):\n    count = 0\n    for x in xs:\n        if x % 2 == 1:\n            count += 1\n    return count\n",
    "def f(xs):\n    return xs[0] + xs[-1]\n",
    "def f(xs):\n    result = ''\n    return result + ' '.join(xs) + ''.join(xs)\n",
    "def f(xs):\n    return xs[1:], '\\n'.join(xs)\n",
    # a literal whose place suggests no name: no DEFAULT_VALUE = 3
    "def f(xs):\n    return [3, xs]\n",
])
def test_unfold_never_names_plain_literals(code: str) -> None:
    for seed in range(4):
        res = UnfoldConstant().apply(Program(code), seed)
        assert not res.applied and "none a person would make a named constant" in res.reason, res.source


@pytest.mark.parametrize("code", [
    # a module or class variable's literal has its name already: no INITIAL_COUNT = 3 / COUNT = INITIAL_COUNT
    "COUNT = 3\n\ndef f(xs):\n    return [x * COUNT for x in xs]\n",
    "count: int = 3\n\ndef f(xs):\n    return count\n",
    "class K:\n    size = 7\n    name = 'box'\n\ndef f(xs):\n    return K.name\n",
])
def test_unfold_never_renames_a_named_variable(code: str) -> None:
    for seed in range(4):
        res = UnfoldConstant().apply(Program(code), seed)
        assert not res.applied and "none a person would make a named constant" in res.reason, res.source


def test_unfold_names_a_literal_inside_a_function_next_to_a_module_constant() -> None:
    code = "COUNT = 3\n\ndef f(xs):\n    return [x * COUNT for x in xs if len(x) > 5]\n"
    res = UnfoldConstant().apply(Program(code), 0)
    assert res.source == ("LIMIT = 5\nCOUNT = 3\n\ndef f(xs):\n"
                          "    return [x * COUNT for x in xs if len(x) > LIMIT]\n")


def test_unfold_names_a_string_suffix_not_a_step() -> None:
    code = "def f(xs):\n    out = ''\n    for x in xs:\n        out += '; '\n    return out\n"
    res = UnfoldConstant().apply(Program(code), 0)
    assert res.source == ("SUFFIX = '; '\n\n\ndef f(xs):\n    out = ''\n    for x in xs:\n"
                          "        out += SUFFIX\n    return out\n")


@pytest.mark.parametrize("code, expected", [
    # the prefix a slice skips, tested in the same statement or the test of its branch
    ("def f(s):\n    if s.startswith('Nuva'):\n        return s[4:]\n    return s\n",
     "def f(s):\n    if s.startswith('Nuva'):\n        return s[len('Nuva'):]\n    return s\n"),
    ("def f(s):\n    return s[3:] if s.startswith('abc') else s\n",
     "def f(s):\n    return s[len('abc'):] if s.startswith('abc') else s\n"),
    # a suffix, cut from the end
    ("def f(s):\n    if s.endswith('ing'):\n        s = s[:-3]\n    return s\n",
     "def f(s):\n    if s.endswith('ing'):\n        s = s[:-len('ing')]\n    return s\n"),
    # the slice compared with the literal (sample_122), and the body of that test
    ("def f(string):\n    if string[:4] != 'Nuva':\n        return 'no'\n    return string\n",
     "def f(string):\n    if string[:len('Nuva')] != 'Nuva':\n        return 'no'\n    return string\n"),
    ("def f(s):\n    if s[-2:] == 'ly':\n        s = s[:-2]\n    return s\n",
     "def f(s):\n    if s[-len('ly'):] == 'ly':\n        s = s[:-len('ly')]\n    return s\n"),
    # skipping the text found: after its position, directly or through a variable
    ("def f(s):\n    return s[s.find('key=') + 4:]\n",
     "def f(s):\n    return s[s.find('key=') + len('key='):]\n"),
    ("def f(s):\n    i = s.index('--')\n    return s[i + 2:]\n",
     "def f(s):\n    i = s.index('--')\n    return s[i + len('--'):]\n"),
])
def test_unfold_writes_len_of_the_text_the_number_measures(sandbox, code: str, expected: str) -> None:
    res = assert_preserves(UnfoldConstant(), code, ["'Nuvaki key=1--ing ly'", "''", "'abcly'"], sandbox=sandbox)
    assert res.source == expected


@pytest.mark.parametrize("code, expected", [
    # 'small' is a result, not what 5 measures: the 5 is named instead
    ("def f(x):\n    if x < 0:\n        return 'neg'\n    elif x > 5:\n        return 'small'\n    return 'ok'\n",
     None),
    # CRUXEval sample_393: the 3 is a chunk size, not the length of the separator '---'
    ("def f(text):\n    ls = text[::-1]\n    text2 = ''\n    for i in range(len(ls) - 3, 0, -3):\n"
     "        text2 += '---'.join(ls[i:i + 3]) + '---'\n    return text2[:-3]\n",
     "SEPARATOR = '---'\n\n\ndef f(text):\n    ls = text[::-1]\n    text2 = ''\n    for i in range(len(ls) - 3, 0, -3):\n"
     "        text2 += SEPARATOR.join(ls[i:i + 3]) + SEPARATOR\n    return text2[:-3]\n"),
    # a prefix tested is not cut from the end, nor a suffix from the start
    ("def f(s):\n    if s.startswith('abc'):\n        return s[:-3]\n    return s\n", None),
    ("def f(s):\n    if s.endswith('abc'):\n        return s[3:]\n    return s\n", None),
    # another object's prefix; two texts of that length in the statement: neither is meant
    ("def f(s, t):\n    if t.startswith('abc'):\n        return s[3:]\n    return s\n", None),
    ("def f(s):\n    return s.endswith('ing') and s.find('xyz') > 0 and s[:-3]\n", None),
    # a suffix compared is not cut from the start
    ("def f(s):\n    if s[-3:] == 'ing':\n        s = s[3:]\n    return s\n",
     "def f(s):\n    if s[-len('ing'):] == 'ing':\n        s = s[3:]\n    return s\n"),
    # a position variable bound again: no longer the position of '--'
    ("def f(s):\n    i = s.find('--')\n    i += 1\n    return s[i + 2:]\n", None),
    # a length of one is never written as len('-')
    ("def f(s):\n    if s.startswith('-'):\n        return s[1:]\n    return s\n", None),
])
def test_unfold_never_writes_len_of_an_unrelated_literal(code: str, expected: str | None) -> None:
    for seed in range(4):
        res = UnfoldConstant().apply(Program(code), seed)
        assert res.source.count("len('") == (expected or "").count("len('"), res.source
        if expected is not None:
            assert res.source == expected


def test_unfold_names_every_use_of_the_literal_in_the_program(sandbox) -> None:
    code = ("def f(items):\n    out = []\n    for item in items:\n        if item != '+':\n"
            "            out.insert(0, '+')\n    return '+'.join(out)\n\n\ndef g(s):\n    return s + '+'\n")
    res = assert_preserves(UnfoldConstant(), code, ["['a', '+', 'b']", "[]"], sandbox=sandbox)
    assert res.source == ("SEPARATOR = '+'\n\n\ndef f(items):\n    out = []\n    for item in items:\n"
                          "        if item != SEPARATOR:\n            out.insert(0, SEPARATOR)\n"
                          "    return SEPARATOR.join(out)\n\n\n"
                          "def g(s):\n    return s + SEPARATOR\n")
    assert len(res.sites) == 4


def test_unfold_never_names_a_literal_with_uses_in_other_roles() -> None:
    """CRUXEval sample_26: ``'.'`` is searched for twice and returned once; naming one use
    (``i.index(TARGET) == 0`` next to ``i.index('.')``), or all of them (``return TARGET``),
    reads wrong; the ``'error'`` returned early is no default result either (it was named
    ``DEFAULT_RESULT``): the program gets no named constant."""
    code = ("def f(items, target):\n    for i in items.split():\n        if i in target:\n"
            "            return items.index(i)+1\n        if i.index('.') == len(i)-1 or i.index('.') == 0:\n"
            "            return 'error'\n    return '.'\n")
    for seed in range(6):
        res = UnfoldConstant().apply(Program(code), seed)
        assert not res.applied and "used where the name would not fit" in res.reason, res.source


@pytest.mark.parametrize("code", [
    # an error value returned early (CRUXEval sample_26, sample_57: ``return 'no'``)
    "def f(text):\n    if not text.isalpha():\n        return 'error'\n    return text.upper()\n",
    "def f(xs):\n    for x in xs:\n        if x < 0:\n            return 'negative'\n    return sum(xs)\n",
    "def f(n):\n    try:\n        return 10 // n\n    except ZeroDivisionError:\n        return 'undefined'\n",
])
def test_unfold_names_no_early_return_a_default_result(code: str) -> None:
    """A literal returned from inside an ``if``, a loop or a handler is a special case's
    answer, not the function's default result: no ``DEFAULT_RESULT = 'error'``."""
    for seed in range(4):
        res = UnfoldConstant().apply(Program(code), seed)
        assert not res.applied, res.source


@pytest.mark.parametrize("code", [
    # CRUXEval sample_251, HumanEval_93: the local names the literal already
    "def f(number):\n    phone_code = '+353'\n    return phone_code + number\n",
    "def f(s):\n    vowels = 'aeiouAEIOU'\n    return [c for c in s if c in vowels]\n",
    "def f(s):\n    t = 'abc'\n    return s + t\n",
])
def test_unfold_gives_no_initial_name_to_a_literal_its_local_names_already(code: str) -> None:
    """``vowels = 'aeiouAEIOU'`` is the constant's name: no ``INITIAL_VOWELS = 'aeiouAEIOU'`` /
    ``vowels = INITIAL_VOWELS``; an initial value is one of a variable bound again later."""
    for seed in range(4):
        res = UnfoldConstant().apply(Program(code), seed)
        assert not res.applied, res.source


def test_unfold_names_the_initial_value_of_a_variable_bound_again() -> None:
    """CRUXEval sample_111: ``lowest = 100`` is lowered in the loop, so 100 is its initial value."""
    code = ("def f(xs):\n    lowest = 100\n    for x in xs:\n        if x < lowest:\n"
            "            lowest = x\n    return lowest\n")
    res = UnfoldConstant().apply(Program(code), 0)
    assert res.source == "INITIAL_LOWEST = 100\n\n\n" + code.replace("lowest = 100", "lowest = INITIAL_LOWEST")


def test_unfold_names_a_literal_in_every_function_that_uses_it() -> None:
    """ClassEval_17: ``KEY = 'start_time'`` replaced the literal in one method while another
    kept ``event['start_time']``; a module constant replaces every use in the program."""
    code = ("class Cal:\n    def first(self, events):\n        return [e['start_time'] for e in events]\n\n"
            "    def later(self, events, now):\n        return [e for e in events if e['start_time'] > now]\n")
    for seed in range(4):
        res = UnfoldConstant().apply(Program(code), seed)
        assert res.source == "KEY = 'start_time'\n\n\n" + code.replace("'start_time'", "KEY"), res.source


def test_unfold_names_no_literal_another_function_uses_in_another_role() -> None:
    code = "def f(key):\n    return key.split('_')\n\n\ndef g(parts):\n    return parts.count('_')\n"
    res = UnfoldConstant().apply(Program(code), 0)
    assert not res.applied and "used where the name would not fit" in res.reason, res.source


def test_unfold_leaves_the_harness_literals_alone_when_naming() -> None:
    """A ``call`` row's harness class (read-only) keeps its literals; the code under test gets the name."""
    code = ("class Box:\n    def label(self, parts):\n        return '_'.join(parts)\n\n\n"
            "class Test:\n    def test(self):\n        return Box().label(['a', 'b']) == 'a_b', '_'.join('xy')\n")
    res = UnfoldConstant().apply(Program(code, "Test", read_only=frozenset({"Test"})), 0,
                                 inputs=["Test().test()"], harness=True)
    assert res.source == "SEPARATOR = '_'\n\n\n" + code.replace("return '_'.join", "return SEPARATOR.join"), res.source


@pytest.mark.parametrize("code", [
    # CRUXEval sample_213, sample_188, sample_73: another literal plays the same role
    "def f(s):\n    return s.replace('(', '[').replace(')', ']')\n",
    "def f(w):\n    return w.startswith('a') or w.startswith('p')\n",
    "def f(row):\n    return (row.count('1'), row.count('0'))\n",
])
def test_unfold_names_no_literal_beside_another_in_the_same_role(code: str) -> None:
    """``OLD = '('`` next to ``.replace(')', ']')`` names one of two parallel literals; a
    person names both or neither."""
    for seed in range(4):
        res = UnfoldConstant().apply(Program(code), seed)
        assert not res.applied, res.source


def test_unfold_names_the_result_the_function_falls_back_to() -> None:
    code = "def f(xs):\n    for x in xs:\n        if x.isupper():\n            return x\n    return 'none found'\n"
    res = UnfoldConstant().apply(Program(code), 0)
    assert res.source == "DEFAULT_RESULT = 'none found'\n\n\n" + code.replace("return 'none found'",
                                                                                 "return DEFAULT_RESULT")


@pytest.mark.parametrize("code", [
    # a name the program spells already in another case: no LIMIT next to a parameter limit
    "def f(text, limit):\n    return len(text) > 5 and limit\n",
    "def f(text, Limit):\n    return len(text) > 5 and Limit\n",
    # a use that must stay a literal (in an f-string): naming the others leaves it behind
    "def f(x):\n    if x > 5:\n        return f'{5}'\n    return x\n",
    # the 10 of % 10 and // 10: MODULUS and DIVISOR disagree
    "def f(a):\n    digits = []\n    while a > 0:\n        digits.append(a % 10)\n        a = a // 10\n"
    "    return digits\n",
])
def test_unfold_refuses_a_name_that_would_not_fit_every_use(code: str) -> None:
    for seed in range(4):
        res = UnfoldConstant().apply(Program(code), seed)
        assert not res.applied and "used where the name would not fit" in res.reason, res.source


def test_unfold_names_the_5_of_minus_5_by_the_place_of_minus_5() -> None:
    """The 5 of ``s[-5:]`` is part of a start where the 5 of ``s[:5]`` is a stop: naming 5
    ``STOP`` would write ``s[-STOP:]``; the -5 is named as a whole instead."""
    code = "def f(s):\n    return s[-5:], s[:5]\n"
    for seed in range(6):
        res = UnfoldConstant().apply(Program(code), seed)
        assert res.source == "START = -5\n\n\ndef f(s):\n    return s[START:], s[:5]\n"


def test_unfold_is_deterministic() -> None:
    code = "def f(x):\n    return x + 12, 'hello' * 3\n"
    a = UnfoldConstant().apply(Program(code), 9).source
    assert a == UnfoldConstant().apply(Program(code), 9).source
    assert len({UnfoldConstant().apply(Program(code), s).source for s in range(10)}) > 1


def test_options_are_validated() -> None:
    with pytest.raises(ValueError):
        SwapOperands(which="some")
    with pytest.raises(TypeError):
        UnfoldConstant(colour="red")


@pytest.mark.parametrize("code, expected", [
    # the constant is defined before the first statement that uses it
    ("import os; big = len(os.sep) > 5\ndef f():\n    return big\n",
     "LIMIT = 5\nimport os; big = len(os.sep) > LIMIT\ndef f():\n    return big\n"),
    ('"""Doc."""\nfrom __future__ import annotations\n\ndef f(a):\n    return a[-3]\n',
     '"""Doc."""\nfrom __future__ import annotations\n\nINDEX = -3\n\n\ndef f(a):\n    return a[INDEX]\n'),
])
def test_named_constant_is_defined_before_its_use(sandbox, code: str, expected: str) -> None:
    res = UnfoldConstant().apply(Program(code), 0)
    assert res.source == expected
    inputs = ["[1, 2]"] if "def f(a)" in code else [""]
    assert_preserves(UnfoldConstant(), code, inputs, sandbox=sandbox)


@pytest.mark.parametrize("code", [
    # CRUXEval sample_302, sample_425: OLD/NEW named one half of a replacement
    "def f(string):\n    return string.replace('needles', 'haystacks')\n",
    "def f(a):\n    a = a.replace('/', ':')\n    return a\n",
])
def test_unfold_names_no_argument_of_replace(code: str) -> None:
    """``NEW = 'haystacks'`` / ``string.replace('needles', NEW)`` is no constant a person
    names: the arguments of a one-off ``replace`` stay literals."""
    for seed in range(4):
        res = UnfoldConstant().apply(Program(code), seed)
        assert not res.applied, res.source


@pytest.mark.parametrize("code", [
    # CRUXEval sample_99, sample_547: ('_' * 3).join(...)
    "def f(text, sep, num):\n    return '___'.join(text.rsplit(sep, num))\n",
    "def f(s):\n    return \"....\".join(s.split(\" \"))\n",
])
def test_unfold_writes_no_parenthesised_repetition(code: str) -> None:
    """``('_' * 3).join(xs)`` reads as no person writes it: the separator is named instead."""
    res = UnfoldConstant().apply(Program(code), 0)
    assert "*" not in res.source, res.source
    assert res.source.startswith("SEPARATOR = "), res.source
    assert "return SEPARATOR.join(" in res.source, res.source


def test_unfold_leaves_a_repetition_that_needs_parentheses_as_written() -> None:
    code = "def f(x):\n    return x * '==='\n"
    res = UnfoldConstant().apply(Program(code), 0)
    assert not res.applied and res.source == code, res.source
