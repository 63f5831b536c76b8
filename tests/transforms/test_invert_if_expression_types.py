"""``invert-if`` negates comparisons of expressions whose type follows from their parts
(codemorph.authoring.ExpressionTypes behind TypeOracle), and leaves a site alone rather
than write ``not a < b`` where no type is proved.

The positive rules are in the fixture ``invert-if/expression_types`` (exact code, and both
programs run in the sandbox on its inputs); here: each place where the type is not
provable (a ``len`` the program may rebind, floats under ``<``, a receiver that is not an
exact ``str``, an element of a list, ``str()`` of an object), the reason given, and that
the program is unchanged.
"""

from __future__ import annotations

import pytest
from conftest import assert_same_behaviour, run_both

from codemorph import Program, get_transform
from codemorph.testing import observe_types


def invert(sandbox, src: str, inputs, **options):
    """invert-if with the types observed over ``inputs`` (as ``generate`` does)."""
    obs = observe_types(src, inputs, sandbox=sandbox)
    return get_transform("invert-if", **options).apply(Program(src), 0, inputs=inputs, observations=obs)


WORDS = '''def f(words):
    out = []
    for w in words:
        if len(w) < 3:
            out.append(w)
    return out
'''

LEFT_ALONE_LEN = ("line 4: negating `len(w) < 3` needs both operands' types (NaN, sets and user classes break "
                  "`not a < b` == `a >= b`); left alone rather than write `not len(w) < 3`")


def test_builtin_len_gives_an_int(sandbox) -> None:
    result = invert(sandbox, WORDS, ["['a', 'abc', '']", "[]"])
    assert result.source == WORDS.replace("        if len(w) < 3:\n            out.append(w)\n",
                                          "        if len(w) >= 3:\n            continue\n        out.append(w)\n")
    assert [s.description for s in result.sites] == [
        "if without else at the end of a loop body: guard clause with continue under negated test (< -> >= (int))"]


def test_len_needs_no_observation() -> None:
    """``len(w) < 3`` compares two ints whatever ``w`` is: no runtime type is needed (a row
    whose baseline runs were sampled gets no observations, and still this form)."""
    result = get_transform("invert-if").apply(Program(WORDS), 0)
    assert "        if len(w) >= 3:\n            continue\n" in result.source


@pytest.mark.parametrize("extra", [
    "\n\ndef len(x):\n    return 5\n",  # a def
    "\n\ndef g(len):\n    return len\n",  # a parameter anywhere
    "\n\nlen = lambda x: 0\n",  # an assignment
    "\n\n[len for len in range(2)]\n",  # a comprehension target
    "\n\nfrom helpers import *\n",  # a star import of a module codemorph does not know
    "\n\nimport builtins\n",  # builtins.len may be rebound
    "\n\ndef g():\n    globals()['len'] = abs\n",  # a namespace written by name
    "\n\ndef g():\n    global len\n    len = abs\n",  # global
    "\n\ndef g():\n    abs.__self__.len = abs\n",  # the builtins module, reached from a builtin function
    "\n\ndef g():\n    g.__globals__['len'] = abs\n",  # a function's module namespace
    "\n\ndef g():\n    getattr(g, '__glo' + 'bals__')['len'] = abs\n",  # an attribute by a computed name
    "\n\nfrom unittest import mock\nmock.patch('built' + 'ins.len', abs).start()\n",  # a patch by a dotted name
    "\n\nimport pydoc\npydoc.locate('built' + 'ins').__setattr__('l' + 'en', abs)\n",  # a module by name
    "\n\ndef g(m, name):\n    m.__setattr__(name, abs)\n",  # an attribute set by a computed name
])
def test_len_the_program_may_rebind_is_not_typed(extra: str) -> None:
    src = WORDS + extra
    result = get_transform("invert-if").apply(Program(src), 0)
    assert not result.applied and result.source == src
    assert result.reason == LEFT_ALONE_LEN


def test_len_patched_through_mock_behaves_differently_from_the_flip(sandbox) -> None:
    """``mock.patch('builtins.len', ...)`` names the builtin in a string only: ``invert-if``
    typed ``len(xs)`` as an int and flipped ``len(xs) < 3`` to ``len(xs) >= 3``, which the
    NaN the patched ``len`` returns answers otherwise (the original returns 'long', the
    flip returned 'short')."""
    src = ("from unittest import mock\nmock.patch('built' + 'ins.len', lambda s: float('nan')).start()\n\n\n"
           "def f(xs):\n    if len(xs) < 3:\n        return 'short'\n    else:\n        return 'long'\n")
    result = get_transform("invert-if").apply(Program(src), 0)
    assert not result.applied and result.source == src
    assert "negating `len(xs) < 3` needs both operands' types" in result.reason
    flipped = src.replace("len(xs) < 3:\n        return 'short'\n    else:\n        return 'long'",
                          "len(xs) >= 3:\n        return 'long'\n    else:\n        return 'short'")
    ((_, o, r),) = run_both(sandbox, src, flipped, ["[1]"])
    assert (o.value_repr, r.value_repr) == ("'long'", "'short'")


def test_rebound_len_behaves_differently_from_the_flip(sandbox) -> None:
    """Why a rebound ``len`` is not typed: here it returns NaN, where ``not len(w) < 3``
    (the original's else) and ``len(w) >= 3`` differ."""
    src = ("def f(w):\n    if len(w) < 3:\n        return 'short'\n    else:\n        return 'long'\n\n\n"
           "def len(x):\n    return float('nan')\n")
    flipped = src.replace("if len(w) < 3:\n        return 'short'\n    else:\n        return 'long'",
                          "if len(w) >= 3:\n        return 'long'\n    else:\n        return 'short'")
    (_, o, r), = run_both(sandbox, src, flipped, ["'ab'"])
    assert o.behaviour() != r.behaviour()
    result = invert(sandbox, src, ["'ab'", "'abcd'"])
    assert not result.applied and "negating `len(w) < 3`" in result.reason


FLOATS = '''def f(x, xs):
    if x * 2 < 1.5:
        return 1
    else:
        return 2
'''


def test_float_arithmetic_is_a_float_and_is_not_flipped_under_less_than(sandbox) -> None:
    result = invert(sandbox, FLOATS, ["0.5, []", "float('nan'), [1]", "1.0, []"])
    assert not result.applied and result.source == FLOATS
    assert result.reason == ("line 2: negating `x * 2 < 1.5` over float is not proved (`not a < b` == `a >= b` "
                             "holds for ints and strings; for floats and sets only with == and !=); left alone "
                             "rather than write `not x * 2 < 1.5`")
    equal = invert(sandbox, FLOATS.replace("<", "=="), ["0.5, []", "float('nan'), [1]", "0.75, []"])
    assert "    if x * 2 != 1.5:\n        return 2\n    else:\n        return 1\n" in equal.source
    assert_same_behaviour(sandbox, FLOATS.replace("<", "=="), equal.source, ["0.5, []", "float('nan'), [1]"])


RECEIVERS = '''class Bag:
    def count(self, item):
        return 1.5


class Text(str):
    def count(self, *args):
        return float("nan")


def f(kind, s, xs, obj):
    holder = [Bag(), Text(s)][kind]
    if holder.count("a") < 2:  # a Bag, or a str subclass: no rule
        a = 1
    else:
        a = 2
    if xs[0] < 3:  # an element of a list: unknown
        b = 1
    else:
        b = 2
    if str(obj) == s:  # str() of an object may be a subclass of str
        c = 1
    else:
        c = 2
    if s.count("a") < 2:  # an exact str: an int
        d = 1
    else:
        d = 2
    return a, b, c, d
'''


def test_receivers_and_elements_of_unknown_type_are_left_alone(sandbox) -> None:
    inputs = ["0, 'aa', [1], 3", "1, 'a', [5], 'a'", "1, '', [3.5], None"]
    result = invert(sandbox, RECEIVERS, inputs)
    assert result.source == RECEIVERS.replace(
        '    if s.count("a") < 2:  # an exact str: an int\n        d = 1\n    else:\n        d = 2\n',
        '    if s.count("a") >= 2:\n        d = 2\n    else:  # an exact str: an int\n        d = 1\n')
    assert_same_behaviour(sandbox, RECEIVERS, result.source, inputs)
    # with the last comparison made unprovable too, the program has no site left: each is named
    unprovable = RECEIVERS.replace('    if s.count("a") < 2:', '    if s.count("a") < 2.5:')
    alone = get_transform("invert-if").apply(Program(unprovable), 0,
                                             observations=observe_types(RECEIVERS, inputs, sandbox=sandbox))
    assert not alone.applied and alone.source == unprovable
    assert [part.split(" needs")[0].split(" over")[0] for part in alone.reason.split("; line")] == [
        'line 13: negating `holder.count("a") < 2`', ' 17: negating `xs[0] < 3`', ' 21: negating `str(obj) == s`',
        ' 25: negating `s.count("a") < 2.5`']


def test_len_rebound_through_the_builtins_module_is_not_typed(sandbox) -> None:
    """``abs.__self__`` is the builtins module: ``abs.__self__.len = ...`` rebinds ``len``
    with no assignment to the name and none of ``builtins``/``setattr`` spelled.  Here the
    new ``len`` returns NaN, under which ``not len(w) < 3`` and ``len(w) >= 3`` differ."""
    src = ("def f(w):\n    abs.__self__.len = lambda s: float('nan')\n    if len(w) < 3:\n        return 'short'\n"
           "    else:\n        return 'long'\n")
    flipped = src.replace("if len(w) < 3:\n        return 'short'\n    else:\n        return 'long'",
                          "if len(w) >= 3:\n        return 'long'\n    else:\n        return 'short'")
    (_, o, r), = run_both(sandbox, src, flipped, ["'ab'"])
    assert (o.value_repr, r.value_repr) == ("'long'", "'short'")
    result = invert(sandbox, src, ["'ab'", "'abcd'"])
    assert not result.applied and result.source == src
    assert result.reason == LEFT_ALONE_LEN.replace("line 4", "line 3")


SUBCLASS_RESULTS = '''class Text(str):
    def __lt__(self, other):
        return True

    def __ge__(self, other):
        return True


class Item:
    def __format__(self, spec):
        return Text("z")

    def __str__(self):
        return Text("z")


def f(kind):
    if "{}".format(Item()) < "y":  # x.__format__'s result itself
        a = 1
    else:
        a = 2
    if "%(k)s" % {"k": Item()} < "y":  # str() of a dict's value itself
        b = 1
    else:
        b = 2
    if "%s" % ValueError(Item()) < "y":  # str() of an exception: str() of its argument
        c = 1
    else:
        c = 2
    if "%d-%s" % (kind, "x") == "1-x":  # an int and a str formatted: a new str
        d = 1
    else:
        d = 2
    return a, b, c, d
'''


def test_format_results_that_may_be_str_subclasses_are_not_typed(sandbox) -> None:
    """``'{}'.format(x)``, ``'%(k)s' % d`` and ``'%s' % exc`` may return the very object a
    ``__format__``/``__str__`` made, a subclass of ``str`` whose ``<`` and ``>=`` are its
    own: those sites are left alone.  ``%`` of a tuple of an int and a str is a str."""
    flipped = SUBCLASS_RESULTS.replace(
        '    if "{}".format(Item()) < "y":  # x.__format__\'s result itself\n        a = 1\n    else:\n        a = 2\n',
        '    if "{}".format(Item()) >= "y":\n        a = 2\n    else:\n        a = 1\n')
    (_, o, r), = run_both(sandbox, SUBCLASS_RESULTS, flipped, ["1"])
    assert (o.value_repr, r.value_repr) == ("(1, 1, 1, 1)", "(2, 1, 1, 1)")
    inputs = ["1", "2"]
    result = invert(sandbox, SUBCLASS_RESULTS, inputs)
    assert result.source == SUBCLASS_RESULTS.replace(
        '    if "%d-%s" % (kind, "x") == "1-x":  # an int and a str formatted: a new str\n        d = 1\n'
        '    else:\n        d = 2\n',
        '    if "%d-%s" % (kind, "x") != "1-x":\n        d = 2\n'
        '    else:  # an int and a str formatted: a new str\n        d = 1\n')
    assert_same_behaviour(sandbox, SUBCLASS_RESULTS, result.source, inputs)


GLOBAL_DEF = '''def f(x):
    def g(y):
        if y < 5:
            return "small"
        else:
            return "big"
    return g(x)


first = f


def f(x):
    global g
    def g(y):
        if y < 5:
            return "small"
        else:
            return "big"
    return first(3), g(float("nan"))
'''


def test_def_declared_global_reads_its_own_types(sandbox) -> None:
    """The second ``g`` is declared ``global``: CPython names it ``g``, not
    ``f.<locals>.g`` (the first ``g``, called with ints), and its ``y`` was a float (NaN):
    its test is left alone, the first ``g``'s is flipped."""
    result = invert(sandbox, GLOBAL_DEF, ["1", "7"])
    assert result.source == GLOBAL_DEF.replace(
        '        if y < 5:\n            return "small"\n        else:\n            return "big"\n    return g(x)\n',
        '        if y >= 5:\n            return "big"\n        else:\n            return "small"\n    return g(x)\n')
    assert_same_behaviour(sandbox, GLOBAL_DEF, result.source, ["1", "7"])


MID_LINE_TEST = '''    if isinstance(poke(), int) and x < 5 or isinstance(unpoke(), int):
        return "A", x
    else:
        return "B", x
'''

#: ways to rebind ``f``'s ``x`` from elsewhere, here to NaN and back to 3 within one line
MID_LINE_REBINDS = {
    "cell_contents": '''def f(x):
    def inner():
        return x
    def poke():
        inner.__closure__[0].cell_contents = float("nan")
        return 1
    def unpoke():
        inner.__closure__[0].cell_contents = 3
        return 1
''',
    "nonlocal two functions down": '''def f(x):
    def poke():
        def h():
            nonlocal x
            x = float("nan")
        h()
        return 1
    def unpoke():
        def h():
            nonlocal x
            x = 3
        h()
        return 1
''',
    "nonlocal in a class body": '''def f(x):
    def poke():
        class C:
            nonlocal x
            x = float("nan")
        return 1
    def unpoke():
        class C:
            nonlocal x
            x = 3
        return 1
''',
}


@pytest.mark.parametrize("how", sorted(MID_LINE_REBINDS))
def test_local_rebound_in_mid_line_from_elsewhere_is_not_typed(sandbox, how: str) -> None:
    """``x`` is NaN while ``x < 5`` is evaluated and 3 again before the next line event,
    so only ints are observed; ``x >= 5`` would skip ``unpoke()`` and return NaN.  ``x``
    gets no type (a program spelling ``cell_contents``, or a ``nonlocal x`` anywhere), so
    ``x < 5`` stays under ``not``."""
    src = MID_LINE_REBINDS[how] + MID_LINE_TEST
    flipped = src.replace(MID_LINE_TEST, MID_LINE_TEST.replace(
        "if isinstance(poke(), int) and x < 5 or isinstance(unpoke(), int):",
        "if (not isinstance(poke(), int) or x >= 5) and not isinstance(unpoke(), int):").replace(
        '"A", x\n    else:\n        return "B", x', '"B", x\n    else:\n        return "A", x'))
    (_, o, r), = run_both(sandbox, src, flipped, ["3"])
    assert (o.value_repr, r.value_repr) == ("('A', 3)", "('A', nan)")
    result = invert(sandbox, src, ["3", "7"])
    assert result.source == MID_LINE_REBINDS[how] + (
        '    if not (isinstance(poke(), int) and x < 5) and not isinstance(unpoke(), int):\n        return "B", x\n'
        '    else:\n        return "A", x\n')
    assert_same_behaviour(sandbox, src, result.source, ["3", "7"])
