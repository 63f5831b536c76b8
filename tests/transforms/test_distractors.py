"""Tests of the ``distractors`` family: misleading-comment and misleading-docstring
(codemorph.transforms.distractors).

Fixture cases live in tests/transforms/fixtures/<transform>/ (``NAME.py``, ``NAME.expected.py``,
``NAME.json`` with ``inputs`` and optionally ``seed``, ``options`` or ``refused``), in the
same format as tests/transforms/test_expressions.py; the expected rewrite is verified in the sandbox.
Set CODEMORPH_UPDATE_FIXTURES=1 to rewrite the expected files (then review the diff).
"""

from __future__ import annotations

import ast
import io
import tokenize
import types

import pytest
from conftest import FIXTURES, FULL, cruxeval_sample

from codemorph import NotApplicable, Program
from codemorph.sandbox import request_for
from codemorph.testing import assert_preserves, assert_refuses
from codemorph.transforms.distractors import MisleadingComment, MisleadingDocstring
from codemorph.transforms.distractors.claims import make_comment as _comment
from codemorph.transforms.distractors.claims import one_line

FAMILY = ("misleading-comment", "misleading-docstring")


# -- misleading-comment ----------------------------------------------------------------

def _bytecode(source: str) -> tuple:
    def fp(code: types.CodeType) -> tuple:
        return (code.co_code, code.co_firstlineno, code.co_linetable,
                tuple(fp(c) if isinstance(c, types.CodeType) else repr(c) for c in code.co_consts))
    return fp(compile(source, "<program>", "exec"))


def _comments(source: str) -> int:
    return sum(tok.type == tokenize.COMMENT for tok in tokenize.generate_tokens(io.StringIO(source).readline))


def test_comments_change_nothing_on_cruxeval() -> None:
    """Independent of the transform's own check: same AST with positions, and the same
    bytecode *and line table* (no line moved), on every CRUXEval program."""
    applied = 0
    rows = cruxeval_sample(5)
    for row in rows:
        res = MisleadingComment(count=None).apply(Program(row["code"]), 0)
        if not res.applied:
            continue
        applied += 1
        assert ast.dump(ast.parse(res.source), include_attributes=True) == \
            ast.dump(ast.parse(row["code"]), include_attributes=True), row["id"]
        assert _bytecode(res.source) == _bytecode(row["code"]), row["id"]
        assert _comments(res.source) == _comments(row["code"]) + len(res.sites), row["id"]
    assert applied >= (640 if FULL else 0.75 * len(rows))


def test_comment_count_and_determinism() -> None:
    code = (FIXTURES / "misleading-comment" / "all_sites.py").read_text()
    a = MisleadingComment(count=2).apply(Program(code), 11)
    assert len(a.sites) == 2
    assert a.source == MisleadingComment(count=2).apply(Program(code), 11).source
    sources = {MisleadingComment(count=2).apply(Program(code), s).source for s in range(8)}
    assert len(sources) > 1


def test_comment_never_declares_an_encoding() -> None:
    """PEP 263: ``# ... coding: latin-1`` on line 1 or 2 would change how the file decodes."""
    with pytest.raises(ValueError, match="one-line comment"):
        _comment("x is the coding: latin-1 value")
    with pytest.raises(ValueError, match="one-line comment"):
        _comment("coding=utf-8")
    code = "def f(coding, text):\n    coding = text.upper()\n    return coding\n"
    res = MisleadingComment().apply(Program(code), 0)
    assert res.applied
    assert "coding" in res.source.splitlines()[1]
    assert "coding:" not in res.source and "coding=" not in res.source.split("#", 1)[1]


def test_comment_text_is_written_exactly_or_refused() -> None:
    """A comment is never collapsed or rewritten: the text quoted is the text checked."""
    assert _comment("s is '  ' here").value == "# s is '  ' here"
    assert _comment("x is 'a\tb' here").value == "# x is 'a\tb' here"
    for text in ("a\nb", "a\rb", "a\x0cb", "a\x0bb", "a\u2028b", "", "   "):
        with pytest.raises(ValueError):
            _comment(text)


def test_comment_states_no_value_of_a_literal_on_its_line(sandbox) -> None:
    """CRUXEval sample_4: ``s = ' '  # s is '  ' here`` is contradicted by its own line (as
    are ``count = 0  # count is 1 here``, ``result = []  # result starts as an empty tuple``):
    no claim is made about an assignment or return of a literal or a display of literals."""
    code = "def f(array):\n    s = ' '\n    s += ''.join(array)\n    return s\n"
    res = assert_preserves(MisleadingComment(count=None), code, ["['a']"], sandbox=sandbox)
    assert res.source == ("def f(array):\n    s = ' '\n"
                          "    s += ''.join(array)  # s is overwritten with ''.join(array)\n    return s\n")
    for line in ("count = 0", "n = -1", "s = 'ab'", "ok = True", "result = []", "seen = {}", "pair = (1, 'a')",
                 "z = 1 + 2j", "return False", "return []", "return {'a': [1, 2]}", "return None"):
        assert_refuses(MisleadingComment(), f"def f(x):\n    {line}\n", "no line inside a function, without a comment")


def test_quoted_code_keeps_the_spaces_inside_its_string_literals() -> None:
    code = 'def f(c, s):\n    return (c + "  a  " +  s)[::-1]\n'
    res = MisleadingComment(count=None).apply(Program(code), 0)
    assert res.source.splitlines()[1] == \
        '    return (c + "  a  " +  s)[::-1]  # returns (c + "  a  " + s) unchanged'


def test_one_line_joins_lines_outside_string_literals_only() -> None:
    assert one_line("[1,\n   2,   'a  b']") == "[1, 2, 'a  b']"
    assert one_line("f'{x}  y'") == "f'{x}  y'"
    assert one_line("(a +\\\n  b)") == "(a + b)"
    assert one_line('x + """a\nb"""') is None  # a string literal spanning lines
    assert one_line("(a +  # note\n b)") is None  # a comment inside
    assert one_line("'a\x0cb'") is None  # a form feed inside a literal


def test_comment_keeps_existing_comments_and_lines(sandbox) -> None:
    code = "def f(x):\n    y = x + 1  # plus one\n    z = 0\n    w = str(x)[::-1]\n    return y, z, w, 1 // x\n"
    res = assert_preserves(MisleadingComment(count=None), code, ["12", "0"], sandbox=sandbox)
    assert res.source == ("def f(x):\n    y = x + 1  # plus one\n    z = 0\n"
                          "    w = str(x)[::-1]  # w is str(x) unchanged\n    return y, z, w, 1 // x\n")


def test_exception_lines_are_unchanged(sandbox) -> None:
    """Comments go at line ends, so the line an exception reports is unchanged."""
    from codemorph.sandbox.pool import ExecRequest
    code = "def f(xs):\n    total = 0\n    for x in xs:\n        total += 10 // x\n    return total\n"
    res = MisleadingComment(count=None).apply(Program(code), 0)
    assert res.applied and len(res.sites) == 2  # the loop header and the += line (total = 0 shows its value)
    a, b = sandbox.run_batch([ExecRequest(code, "f", "[1, 0]"), ExecRequest(res.source, "f", "[1, 0]")])
    assert a.exception.type == b.exception.type == "ZeroDivisionError"
    assert a.exception.line == b.exception.line == 4


def test_comment_claims_are_wrong_for_their_statements() -> None:
    cases = {
        "    n = xs[0]\n": "n is the last element of xs",
        "    for i in range(n):\n        pass\n": "i runs from 1 to n",
        "    xs.append(n)\n": "n is inserted at the front of xs",
        "    m = len(xs)\n": "m is the last index of xs",
        "    s = t.upper()\n": "s is t in lower case",
        "    if n > 2:\n        pass\n": "taken when n <= 2",
        "    return sorted(xs)\n": "returns xs sorted from largest to smallest",
        "    xs.sort(reverse=True)\n": "sorts xs from smallest to largest",
    }
    for body, claim in cases.items():
        code = f"def f(n, xs, t):\n{body}"
        claims = set()
        for seed in range(6):
            res = MisleadingComment(count=None).apply(Program(code), seed)
            assert res.applied, (body, res.reason)
            claims.update(s.description.removeprefix("comment: ") for s in res.sites)
        assert claim in claims, (body, claims)


@pytest.mark.parametrize("line", ["count += 1", "n -= 2", "k *= 3", "s += 'ab'", "total += -1"])
def test_no_claim_contradicts_an_augmented_assignment_of_a_literal(line: str) -> None:
    """CRUXEval sample_5: ``count += 1  # count goes down by 1`` (or "grows by 2", "is
    divided by 3", "'ab' is put in front of s") contradicts the operator and the literal the
    line itself shows: no person writes it, so such a line gets no claim."""
    code = f"def f(count, n, k, s, total):\n    {line}\n    return count, n, k, s, total\n"
    assert_refuses(MisleadingComment(), code, "no line inside a function, without a comment, about which a wrong claim")
    assert_refuses(MisleadingDocstring(), code, "no wrong claim is known")
    # an augmented assignment of a computed value keeps its claim: += read as =
    res = MisleadingComment(count=None).apply(Program(code.replace(line, "count += n")), 0)
    assert res.source.splitlines()[1] == "    count += n  # count is overwritten with n"


@pytest.mark.parametrize("line", [
    # "i runs from -1 back to len(text)-1" (CRUXEval sample_20), "i runs from len(digits) back to 0"
    "for i in range(len(text)-1, -1, -1):", "for i in range(0, len(text), 2):",
    # "loops until True holds" (sample_210)
    "while True:",
])
def test_no_odd_loop_header_claim(line: str) -> None:
    code = f"def f(text):\n    {line}\n        break\n    return text\n"
    assert_refuses(MisleadingComment(), code, "no line inside a function, without a comment, about which a wrong claim")
    assert_refuses(MisleadingDocstring(), code, "no wrong claim is known")


@pytest.mark.parametrize("line, comment", [
    # sample_1: "walks a, b, c from its last element to its first" read as three things
    ("for d in a, b, c:", "walks (a, b, c) from its last element to its first"),
    # sample_25: "d is the very same object as d"
    ("d = d.copy()", None),
    ("e = d.copy()", "e is the very same object as d"),
    # sample_53: "name raises KeyError when ch is not a key of name"
    ("v = d.get(a, b)", "raises KeyError when a is not a key of d"),
    # sample_163: "spaces joins the items of c for i in range(b) with a space" (a generator's
    # items cannot be checked again: no claim about them; sorted's value can)
    ("v = ''.join(c for i in range(b))", None),
    ("v = sorted(c for c in a)", "v holds (c for c in a) sorted from largest to smallest"),
    ("return ','.join(a)", "returns the items of a joined with no separator"),
    # sample_161, 185: the line's own expression with its operator or operands changed
    ("return b + a", None), ("v = a - 1", None), ("m = len(a)", "m is the last index of a"),
    # was "a[b] is replaced by c": after the insert a[b] is c, so half of it is true
    ("a.insert(b, c)", "c is added at the end of a"), ("a.insert(len(a), c)", None),
])
def test_claims_read_as_a_person_writes_them(line: str, comment: str | None) -> None:
    code = f"def f(a, b, c, d):\n    {line}\n        pass\n" if line.endswith(":") \
        else f"def f(a, b, c, d):\n    {line}\n"
    seen = {MisleadingComment(count=None).apply(Program(code), seed).source.splitlines()[1] for seed in range(6)}
    if comment is None:
        assert seen == {f"    {line}"}
    else:
        assert f"    {line}  # {comment}" in seen, seen


def test_reverse_claim_reads_in_a_comment_and_in_a_docstring() -> None:
    """CRUXEval sample_14, sample_28: "arr is sorted here." in a docstring points nowhere."""
    code = "def f(arr):\n    arr.reverse()\n    return arr\n"
    res = MisleadingComment(count=None).apply(Program(code), 0)
    assert res.source.splitlines()[1] == "    arr.reverse()  # leaves arr sorted from smallest to largest"
    # (a body sentence: "Leave arr sorted." says nothing of what the function is for)
    res = MisleadingDocstring().apply(Program(code), 0, observations={"f": {"arr": ["list"]}})
    assert res.source.splitlines()[1:4] == ['    """Update arr in place and return it.', '', '    Leaves arr sorted from smallest to largest.']


def test_no_skip_claim_is_made_of_a_loop_over_a_slice() -> None:
    """"skips the first element of xs[1:]" reads as what the slice does to xs, which is true."""
    code = "def f(xs):\n    out = []\n    for x in xs[1:]:\n        out.append(x)\n    return out\n"
    lines = {MisleadingComment(count=None).apply(Program(code), seed).source.splitlines()[2] for seed in range(8)}
    assert lines == {"    for x in xs[1:]:  # walks xs[1:] from its last element to its first"}


def test_front_insertion_is_claimed_only_of_a_named_list() -> None:
    # "w is inserted at the front of groups.setdefault(len(w), [])" is no claim a person makes
    for line in ("groups.setdefault(len(w), []).append(w)", "groups[len(w)].append(w)", "make().append(w)"):
        code = f"def f(groups, w):\n    {line}\n    return groups\n"
        assert_refuses(MisleadingComment(), code, "no line inside a function, without a comment, about which a wrong claim")
    for line in ("items.append(w)", "self.items.append(w)"):
        code = f"def f(self, items, w):\n    {line}\n    return items\n"
        res = MisleadingComment(count=None).apply(Program(code), 0)
        target = line.removesuffix(".append(w)")
        assert res.source == code.replace(line, f"{line}  # w is inserted at the front of {target}")


@pytest.mark.parametrize("line", [
    # each true of the real result on most inputs: one match (find/index), a value found at
    # most once (count: ``True == 1``), strings all digits or all letters (isdigit/isalpha)
    "i = text.find(t)", "i = text.rfind(t)", "i = text.index(t)", "i = text.rindex(t)", "k = text.count(t)",
    "ok = text.isdigit()", "ok = text.isalpha()", "ok = text.isupper()",
])
def test_no_comment_claims_what_holds_on_most_inputs(line: str) -> None:
    code = f"def f(text, t):\n    {line}\n    return text\n"
    assert_refuses(MisleadingComment(), code, "no line inside a function, without a comment, about which a wrong claim")
    # what the dropped claims would have said held on ordinary rows: CRUXEval sample_331
    # (strand '', 'abc') got "returns the index of the first match in strand, or -1" for rfind
    assert "".rfind("abc") == "".find("abc") and "apple".find("l") == "apple".rfind("l")
    assert ("abc".count("b") == True) and "abc".isalpha() == any(c.isalpha() for c in "abc")  # noqa: E712


def test_comment_states_no_value_of_a_returned_literal(sandbox) -> None:
    """CRUXEval sample_9 and 81 more: ``return True  # returns False`` is contradicted by its
    own line; a return of a literal gets no claim, with or without the row's output."""
    code = "def f(xs):\n    for x in xs:\n        if x < 0:\n            return True\n    return False\n"
    for outputs in ([], ["False"]):
        for seed in range(8):
            res = MisleadingComment(count=None).apply(Program(code), seed, inputs=["[1, 2]"], outputs=outputs)
            assert res.source.splitlines()[3:] == ["            return True", "    return False"], res.source
    out = sandbox.run_batch([request_for(res.source, "f", "args", "[1, 2]")])[0]
    assert out.value_repr == "False"
    code = "def f(xs):\n    return True\n"
    res = MisleadingComment(count=None).apply(Program(code), 0, inputs=["[]"], outputs=["False"])
    assert (res.applied, res.reason) == (
        False, "no line inside a function, without a comment, about which a wrong claim is known")


def test_no_claims_about_shadowed_builtins() -> None:
    code = "def sorted(xs):\n    return xs[::-1]\n\ndef f(xs):\n    ys = sorted(xs)\n    return ys\n"
    res = MisleadingComment(count=None).apply(Program(code), 0)
    assert res.source.splitlines()[4] == "    ys = sorted(xs)"
    res = MisleadingComment(count=None).apply(Program(code.replace("sorted", "mysort", 1)), 0)
    assert res.source.splitlines()[4] == "    ys = sorted(xs)  # ys holds xs sorted from largest to smallest"


def test_comment_refusals() -> None:
    assert_refuses(MisleadingComment(), "def f(x):\n    return x\n", "no line inside a function")
    assert_refuses(MisleadingComment(), "n = 3\n\ndef f(x):\n    return x\n", "no line inside a function")
    code = "import linecache\n\ndef f(n):\n    k = 3\n    return k\n"
    assert_refuses(MisleadingComment(), code, "linecache")
    with pytest.raises(ValueError):
        MisleadingComment(count=0)


# -- misleading-docstring -------------------------------------------------------------

def _without_entry_docstring(source: str) -> str:
    tree = ast.parse(source)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "f" and ast.get_docstring(node) is not None:
            node.body = node.body[1:]
    return ast.dump(tree)


def test_docstrings_change_only_the_docstring_on_cruxeval(sandbox) -> None:
    from codemorph.testing import observe_types
    applied = 0
    rows = cruxeval_sample(6)
    for row in rows:
        # the summary line names the result's type, known from the syntax or the runtime types
        obs = observe_types(row["code"], [row["input"]], sandbox=sandbox)
        res = MisleadingDocstring().apply(Program(row["code"]), 0, observations=obs)
        if not res.applied:
            assert "no wrong claim" in res.reason or "__doc__" in res.reason or "no summary line" in res.reason, \
                (row["id"], res.reason)
            continue
        applied += 1
        assert _without_entry_docstring(res.source) == _without_entry_docstring(row["code"]), row["id"]
        tree = ast.parse(res.source)
        entry = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "f"][-1]
        assert ast.get_docstring(entry), row["id"]
    assert applied >= (500 if FULL else 0.6 * len(rows))


def test_docstring_with_observations_describes_parameters_wrongly(sandbox) -> None:
    from codemorph.testing import observe_types
    code = "def f(text, n):\n    return text * n\n"
    obs = observe_types(code, ["'ab', 2"], sandbox=sandbox)
    res = MisleadingDocstring().apply(Program(code), 0, observations=obs)
    assert res.source == ('def f(text, n):\n    """Return a string built from text and n.\n\n    Args:\n'
                          '        text: a list of strings.\n        n: a string of digits.\n    """\n'
                          '    return text * n\n')


def test_docstring_states_no_value_of_a_returned_literal(sandbox) -> None:
    """CRUXEval sample_56: "Return True." (made from ``return False``) is given away by the
    ``return`` it describes; a return of a literal gives no summary, so the summary is another
    claim of the same catalogue (here the loop's)."""
    code = ("def f(sentence):\n    for c in sentence:\n        if c.isascii() is False:\n"
            "            return False\n    return True\n")
    docs = {MisleadingDocstring(claims=1).apply(Program(code), seed, inputs=["'1z1z1'"], outputs=["True"])
            .source.split('"""')[1] for seed in range(8)}
    # (not "skips the first element": the body is an ``if``, which may pass over an element)
    assert docs == {"Return True or False depending on sentence.\n\n"
                    "    The loop walks sentence from its last element to its first.\n    "}
    res = MisleadingDocstring(claims=1).apply(Program(code), 0, inputs=["'1z1z1'"], outputs=["True"])
    out = sandbox.run_batch([request_for(res.source, "f", "args", "'1z1z1'")])[0]
    assert out.value_repr == "True"
    # nor a claim about a literal assignment: ``count = 0`` is not "count is 1 here"
    code = "def f(n):\n    count = 0\n    if n > 5:\n        return 0\n    return 1\n"
    assert_refuses(MisleadingDocstring(claims=2), code, "no wrong claim is known")


def test_docstring_summary_names_no_local_variable() -> None:
    """CRUXEval sample_15: "Return new_text in lower case." named a local a caller never
    sees; a return claim naming a local gives no summary, which is then the true line from
    the result's type and the parameters (the claim about ``new_text`` may follow it)."""
    code = "def f(text, wrong, right):\n    new_text = text.replace(wrong, right)\n    return new_text.upper()\n"
    obs = {"f": {"text": ["str"], "wrong": ["str"], "right": ["str"]}}
    res = MisleadingDocstring().apply(Program(code), 0, observations=obs)
    assert res.source.split('"""')[1] == (
        "Return a string built from text, wrong and right.\n\n    new_text is text with only the first wrong "
        "replaced.\n\n    Args:\n        text: a list of strings.\n        wrong: a list of strings.\n"
        "        right: a list of strings.\n    ")
    # a return claim about a parameter is still the summary
    code = "def f(text):\n    return text.upper()\n"
    res = MisleadingDocstring(claims=0).apply(Program(code), 0)
    assert res.source.split('"""')[1] == "Return text in lower case."
    # no claim but the one about a local's result, and no type for a true summary: refused
    code = "def f(text):\n    new_text = text\n    return new_text.upper()\n"
    assert_refuses(MisleadingDocstring(claims=0), code, "no wrong claim is known")


def test_docstring_states_at_most_one_claim_per_variable() -> None:
    """HumanEval_8: "prod_value is 2 here. prod_value is 0 at this point." contradicted itself."""
    code = ("def f(numbers):\n    sum_value = 0\n    prod_value = 1\n    for n in numbers:\n"
            "        sum_value += n\n        prod_value *= n\n    return sum_value, prod_value\n")
    for seed in range(12):
        res = MisleadingDocstring(claims=5).apply(Program(code), seed)
        doc = ast.get_docstring(ast.parse(res.source).body[0])
        subjects = [line.split(" ", 1)[0] for line in doc.splitlines() if line.endswith(".")]
        named = [w for w in subjects if w in ("sum_value", "prod_value", "n")]
        assert len(named) == len(set(named)), (seed, doc)
    res = MisleadingDocstring(claims=5).apply(Program(code), 1)
    assert ast.get_docstring(ast.parse(res.source).body[0]) == (
        "Return a tuple built from numbers.\n\nThe loop skips the first element of numbers.\n"
        "sum_value is overwritten with n.")


def test_docstring_describes_no_annotated_parameter(sandbox) -> None:
    """``numbers: List[int]`` is never described as "a string": the annotation states the type."""
    from codemorph.testing import observe_types
    code = "def f(text: str, n):\n    return text * n\n"
    obs = observe_types(code, ["'ab', 2"], sandbox=sandbox)
    res = MisleadingDocstring().apply(Program(code), 0, observations=obs)
    assert res.source == ('def f(text: str, n):\n    """Return a string built from text and n.\n\n    Args:\n'
                          '        n: a string of digits.\n    """\n    return text * n\n')


def test_docstring_refusals() -> None:
    assert_refuses(MisleadingDocstring(), "def f(x):\n    return getattr(f, '__doc__')\n", "__doc__")
    assert_refuses(MisleadingDocstring(), "def f(x):\n    help(f)\n    return sorted(x)\n", "read docstrings")
    assert_refuses(MisleadingDocstring(), "def f(x): return sorted(x)\n", "on the line of its def")
    assert_refuses(MisleadingDocstring(), "def g(x):\n    return sorted(x)\n", "no top-level function 'f'")
    assert_refuses(MisleadingDocstring(), "def f(x):\n    return eval('sorted(x)')\n", "eval/exec")


def test_docstring_internal_check_rejects_other_changes() -> None:
    with pytest.raises(NotApplicable, match="more than the docstring"):
        MisleadingDocstring._check("def f(x):\n    return x\n", 'def f(x):\n    """D."""\n    return x + 1\n',
                                   "f", '"""D."""')
    with pytest.raises(NotApplicable, match="not the function's docstring"):
        MisleadingDocstring._check("def f(x):\n    return x\n", "def f(x):\n    return x\n", "f", '"""D."""')


def test_docstring_behaviour_is_preserved(sandbox) -> None:
    code = "def f(xs):\n    xs.append(len(xs))\n    return xs[::-1]\n"
    res = assert_preserves(MisleadingDocstring(), code, ["[1, 2]", "[]"], sandbox=sandbox)
    assert res.source.startswith('def f(xs):\n    """Return xs unchanged.')


@pytest.mark.parametrize("code, obs, doc", [
    # the result's type from the runtime types (a local built by a loop)
    ("def f(nums):\n    out = []\n    for n in nums:\n        out.append(n * 2)\n    return out\n",
     {"f": {"nums": ["list"], "out": ["list"], "n": ["int"]}},
     '"""Return a list built from nums.\n\n    Args:\n        nums: a string.\n    """'),
    # a parameter changed and returned
    ("def f(d, k):\n    d[k] = 1\n    return d\n", {"f": {"d": ["dict"], "k": ["str"]}},
     '"""Update d in place and return it.\n\n    Args:\n        d: a list of (key, value) pairs.\n'
     '        k: a list of strings.\n    """'),
    ("def f(s):\n    return s.isdigit() or s == ''\n", {"f": {"s": ["str"]}},
     '"""Return True or False depending on s.\n\n    Args:\n        s: a list of strings.\n    """'),
    # a claim about what the function does to a value is the summary, in the imperative
    ("def f(xs):\n    xs.sort()\n    return xs\n", None, '"""Sort xs from largest to smallest."""'),
])
def test_docstring_summary_says_what_the_function_does(code, obs, doc) -> None:
    """About half of the docstrings were "Transform the arguments." (a line that fits any
    function, which no person writes) over the wrong parameter types; the summary now names
    what the function returns, from its parameters' names and its result's type."""
    res = MisleadingDocstring(claims=0).apply(Program(code), 0, observations=obs)
    assert res.source.split("\n", 1)[1].startswith("    " + doc + "\n")


def test_docstring_without_a_summary_a_person_writes_is_refused() -> None:
    # a function returning a str or an int: no one type to name; no claim to summarise
    code = "def f(n):\n    if n:\n        return 'a'\n    return n\n"
    assert_refuses(MisleadingDocstring(claims=0), code, "no summary line a person would write",
                   observations={"f": {"n": ["int"]}})
    # nothing but a true summary: no docstring (it would mislead nobody)
    code = "def f(s):\n    out = ''\n    for c in s:\n        out = c + out\n    return out\n"
    assert_refuses(MisleadingDocstring(claims=0), code, "claims=0", observations={"f": {"out": ["str"]}})


def test_a_claim_quotes_a_test_without_its_own_parentheses() -> None:
    """CRUXEval sample_19: ``else:  # reached when (x.isnumeric() and y.isnumeric())``."""
    code = "def f(x, y):\n    if (x.isnumeric() and y.isnumeric()):\n        return 1\n    else:\n        return 2\n"
    res = MisleadingComment(count=None).apply(Program(code), 0)
    assert res.source.splitlines()[3] == "    else:  # reached when x.isnumeric() and y.isnumeric()"
    code = "def f(x):\n    while (x > 0):\n        x -= 1\n    return x\n"
    res = MisleadingComment(count=None).apply(Program(code), 0)
    assert res.source.splitlines()[1] == "    while (x > 0):  # loops until x > 0 holds"


def test_a_claim_writes_a_bool_compared_with_true_or_false_as_a_person_does() -> None:
    """CRUXEval sample_56: ``if c.isascii() is False:  # taken when c.isascii() is not False``;
    a claim says ``c.isascii()`` / ``not c.isascii()``, and none is made of a value that may be
    no bool (``x is False`` is not ``not x`` for ``x = 0``)."""
    code = ("def f(s):\n    for c in s:\n        if c.isascii() is False:\n            return 1\n"
            "        else:\n            return 2\n    return 0\n")
    lines = MisleadingComment(count=None).apply(Program(code), 0).source.splitlines()
    assert lines[2] in ("        if c.isascii() is False:  # taken when c.isascii()",
                        "        if c.isascii() is False:  # runs when c.isascii()")
    assert lines[4] == "        else:  # reached when not c.isascii()"
    code = "def f(s):\n    while s.endswith('a') == True:\n        s = s[:-1]\n    return s\n"
    res = MisleadingComment(count=None).apply(Program(code), 0)
    assert res.source.splitlines()[1] == "    while s.endswith('a') == True:  # loops until s.endswith('a') holds"
    code = "def f(x):\n    if x is False:\n        return 1\n    else:\n        return 2\n"
    assert_refuses(MisleadingComment(count=None), code, "")


def test_a_claim_longer_than_a_comment_a_person_writes_is_not_made() -> None:
    """CRUXEval sample_472: ``# walks text.replace('-', '').lower() from its last element to its
    first`` (70 characters); a claim is at most MAX_CLAIM (64) characters, a longer one is
    not made (not cut)."""
    from codemorph.transforms.distractors.claims import MAX_CLAIM
    assert MAX_CLAIM == 64
    code = "def f(text):\n    for c in {}:\n        if c.isdigit():\n            return c\n    return ''\n"
    lines = MisleadingComment(count=None).apply(Program(code.format("text.replace('-', '').lower()")), 0) \
        .source.splitlines()
    assert lines[1:3] == ["    for c in text.replace('-', '').lower():",
                          "        if c.isdigit():  # runs when not c.isdigit()"]
    lines = MisleadingComment(count=None).apply(Program(code.format("text.lower()")), 0).source.splitlines()
    assert lines[1] == "    for c in text.lower():  # walks text.lower() from its last element to its first"


@pytest.mark.parametrize("test, negation", [
    # De Morgan, with each part's operator flipped: was "not (n not in '012' and n not in xs)"
    ("n not in '012' and n not in xs", "n in '012' or n in xs"),
    ("not n or n > 3", "n and n <= 3"),
    ("not (n in xs or n < 0)", "n in xs or n < 0"),
    ("xs and xs[0] == n", "not xs or xs[0] != n"),
    # no negation a person writes: no claim on the ``if``
    ("n and (n > 3 or n in xs)", None),
    ("0 < n < 3", None),
    ("n % 2", None),
])
def test_branch_claim_negates_its_test_as_a_person_writes_it(test: str, negation: str | None) -> None:
    code = f"def f(n, xs):\n    if {test}:\n        return 1\n    return 0\n"
    lines = {MisleadingComment(count=None).apply(Program(code), seed).source.splitlines()[1] for seed in range(6)}
    if negation is None:
        assert lines == {f"    if {test}:"}
    else:
        assert lines == {f"    if {test}:  # taken when {negation}", f"    if {test}:  # runs when {negation}"}
