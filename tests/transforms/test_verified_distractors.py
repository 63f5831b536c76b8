"""The distractors whose falsehood is checked by execution: ``misleading-print``,
``misleading-io-comment``, ``misleading-value-comment``.

Each test shows the exact rewrite, and that every claim written is false by running it in
the sandbox -- both through codemorph's own rule (:mod:`codemorph.verification.claims`) and,
for the CRUXEval sample, through a probe rebuilt here from the written row's text alone.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys

import pytest
from paths import CRUXEVAL, SHARED_DATA, needs_shared

from codemorph import NotApplicable, Program
from codemorph.engine.transform import Claim
from codemorph.sandbox.pool import ExecRequest
from codemorph.testing import assert_refuses, observe_types
from codemorph.transforms.distractors import (
    MisleadingComment, MisleadingDocstring, MisleadingIOComment, MisleadingPrint, MisleadingValueComment,
)
from codemorph.transforms.distractors.io_comment import nearby_input, wrong_output
from codemorph.verification.claims import claim_requests, refutation, stdout_gains
from codemorph.verification.differential import check, make_baseline


def _apply(sandbox, transform, code: str, args: str, output: str, seed: int = 0):
    program = Program(code)
    obs = observe_types(program, [args], sandbox=sandbox)
    return transform.apply(program, seed, inputs=[args], observations=obs, outputs=[output])


def _claims_false(sandbox, result) -> list[str | None]:
    outs = sandbox.run_batch(claim_requests(result.claims, 5.0))
    return [refutation(c, o) for c, o in zip(result.claims, outs)]


def test_print_states_a_wrong_value_and_stdout_gains_only_that_line(sandbox) -> None:
    code = "def f(xs):\n    n = len(xs)\n    return n * 2\n"
    res = _apply(sandbox, MisleadingPrint(), code, "[1, 2, 3]", "6")
    assert res.source == "def f(xs):\n    n = len(xs)\n    print('n = 6')\n    return n * 2\n"
    assert res.stdout_lines == ("n = 6",)
    assert [c.text for c in res.claims] == ["n = 6"]
    assert _claims_false(sandbox, res) == [None]
    a, b = sandbox.run_batch([ExecRequest(code, "f", "[1, 2, 3]"), ExecRequest(res.source, "f", "[1, 2, 3]")])
    assert (a.status, a.value_repr, a.stdout) == ("returned", "6", "")
    assert (b.status, b.value_repr, b.stdout) == ("returned", "6", "n = 6\n")
    base = make_baseline(sandbox, Program(code), ["[1, 2, 3]"], extra_inputs=24)
    assert check(sandbox, base, res.program, stdout_lines=res.stdout_lines).status == "equivalent"
    # without the declared line the same stdout is a difference
    assert check(sandbox, base, res.program).status == "differs"


def test_print_is_written_after_a_computed_value_never_after_a_literal_the_line_shows(sandbox) -> None:
    # ``count = 0`` / ``print('count = 2')`` and ``out = []`` / ``print('len(out) = 1')`` are
    # contradicted by the line before them: only ``n = count * 2`` gets a print
    code = ("def f(text):\n    count = 0\n    out = []\n    for ch in text:\n        if ch == 'a':\n"
            "            count += 1\n            out.append(ch)\n    n = count * 2\n    return n + len(out)\n")
    for seed in range(4):
        res = _apply(sandbox, MisleadingPrint(), code, "'banana'", "9", seed=seed)
        (line,) = [ln for ln in res.source.splitlines() if "print(" in ln]
        assert res.source == code.replace("    n = count * 2\n", f"    n = count * 2\n{line}\n")
        assert re.fullmatch(r"    print\('n = -?\d+'\)", line)
        # a drawn value that holds (n is 6 on 'banana') is caught by the claim's check
        assert (_claims_false(sandbox, res) == [None]) is (line != "    print('n = 6')")


def test_a_length_is_never_stated_as_minus_one(sandbox) -> None:
    code = "def f(xs):\n    n = len(xs)\n    m = len(xs) - 1\n    return n + m\n"
    program = Program(code)
    obs = observe_types(program, ["[1, 2]"], sandbox=sandbox)
    stated = {(ln.split("  # ")[0].strip(), ln.split("  # ")[1])
              for seed in range(40)
              for ln in MisleadingValueComment(count=2).apply(program, seed, inputs=["[1, 2]"],
                                                              observations=obs).source.splitlines() if "  # " in ln}
    assert {text for line, text in stated if line == "n = len(xs)"} <= {f"n == {v} here" for v in (2, 3, 5, 6, 7, 8, 9, 11, 12)}
    assert ("m = len(xs) - 1", "m == -1 here") in stated  # len(xs) - 1 may be -1


def test_value_distractors_refuse_a_program_whose_values_are_all_literals() -> None:
    code = "def f(text):\n    count = 0\n    count += 1\n    out = []\n    pair = [text, text]\n    return count, out, pair\n"
    for transform in (MisleadingPrint(), MisleadingValueComment()):
        assert_refuses(transform, code, "computed from the program's variables", inputs=["'ab'"])


def test_value_comment_follows_an_augmented_assignment_of_a_computed_value(sandbox) -> None:
    # ``total += x`` in a loop is a site; ``total = 0`` is not
    code = "def f(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return total\n"
    res = _apply(sandbox, MisleadingValueComment(count=3), code, "[1, 4, 8]", "13")
    assert res.source == ("def f(xs):\n    total = 0\n    for x in xs:\n        total += x  # total == 3 here\n"
                          "    return total\n")
    assert _claims_false(sandbox, res) == [None]


def test_print_that_adds_another_line_differs(sandbox) -> None:
    code = "def f(xs):\n    n = len(xs)\n    return n * 2\n"
    base = make_baseline(sandbox, Program(code), ["[1, 2, 3]"], extra_inputs=5)
    extra = "def f(xs):\n    n = len(xs)\n    print('n = 12')\n    print(xs)\n    return n * 2\n"
    verdict = check(sandbox, base, Program(extra), stdout_lines=("n = 12",))
    assert verdict.status == "differs" and "stdout" in verdict.reason


def test_stdout_gains_accepts_exactly_the_declared_lines() -> None:
    assert stdout_gains("a\nb\n", "a\nx = 1\nb\nx = 1\n", ["x = 1"]) is None
    assert stdout_gains("", "x = 1\n", ["x = 1"]) is None
    assert stdout_gains("a\n", "a\nx = 2\n", ["x = 1"]) is not None
    assert stdout_gains("a\n", "", ["x = 1"]) is not None
    # a line the original prints itself cannot be told from an added one
    assert "itself prints" in stdout_gains("x = 1\n", "x = 1\nx = 1\n", ["x = 1"])


def test_a_true_claim_is_caught(sandbox) -> None:
    code = "def f(xs):\n    n = len(xs)\n    return n * 2\n"
    probe = "def f(xs):\n    n = len(xs)\n    if n == 3:\n        raise AssertionError('holds')\n    return n * 2\n"
    true_value = Claim("n = 3", probe, "f", "[1, 2, 3]")
    true_pair = Claim("f([1, 2, 3]) == 6", code, "f", "[1, 2, 3]", expected="6")
    false_pair = Claim("f([1, 2, 3]) == 7", code, "f", "[1, 2, 3]", expected="7")
    outs = sandbox.run_batch(claim_requests([true_value, true_pair, false_pair], 5.0))
    assert "holds" in refutation(true_value, outs[0])
    assert "is true" in refutation(true_pair, outs[1])
    assert refutation(false_pair, outs[2]) is None


@pytest.mark.parametrize("line, text, holds, shown_false", [
    # replace with one occurrence: "only the first replaced" is the value; with two it is not
    ("out = text.replace(old, '-')", "out is text with only the first old replaced", "'abc', 'b'", "'abcb', 'b'"),
    # upper on a string without letters is its lower case too
    ("out = text.upper()", "out is text in lower case", "'12', 'b'", "'ab', 'b'"),
    # lstrip of a string without whitespace at either end equals its rstrip
    ("out = text.lstrip()", "out is text with its trailing whitespace removed", "'ab', 'b'", "' ab', 'b'"),
    ("out = text.split()", "out is text split at every comma", "'abc', 'b'", "'a b', 'b'"),
])
def test_comment_stating_a_value_is_checked_false_on_the_rows_input(sandbox, line, text, holds, shown_false) -> None:
    """A string-method lie states the real value when lie and truth agree on the input
    (``'abc'.replace('b', '-')`` has one occurrence): it is checked by execution and a claim
    that held at every execution of its line is not written."""
    from codemorph.transforms.distractors import MisleadingComment
    code = f"def f(text, old):\n    {line}\n    return out\n"
    for args, false in ((holds, False), (shown_false, True)):
        res = MisleadingComment(count=None).apply(Program(code), 0, inputs=[args])
        assert res.source == f"def f(text, old):\n    {line}  # {text}\n    return out\n"
        assert [c.text for c in res.claims] == [text]
        out = sandbox.run_batch(claim_requests(res.claims, 5.0))[0]
        assert (refutation(res.claims[0], out) is None) is false, refutation(res.claims[0], out)
    # a claim whose value the line's own target feeds (text = text.upper()) or a call computes is not checked
    res = MisleadingComment(count=None).apply(Program("def f(text):\n    text = text.upper()\n    return text\n"),
                                              0, inputs=["'12'"])
    assert res.claims == ()


def test_docstring_stating_a_value_is_checked_false_on_the_rows_input(sandbox) -> None:
    from codemorph.transforms.distractors import MisleadingDocstring
    from codemorph.testing import observe_types
    code = "def f(text):\n    out = text.upper()\n    return out\n"
    for args, false in (("'12'", False), ("'ab'", True)):
        obs = observe_types(code, [args], sandbox=sandbox)
        res = MisleadingDocstring(claims=2).apply(Program(code), 0, inputs=[args], observations=obs)
        assert res.source == ('def f(text):\n    """Return a string built from text.\n\n    out is text in lower case.\n\n'
                              '    Args:\n        text: a list of strings.\n    """\n    out = text.upper()\n    return out\n')
        assert [c.text for c in res.claims] == ["out is text in lower case"]
        out = sandbox.run_batch(claim_requests(res.claims, 5.0))[0]
        assert (refutation(res.claims[0], out) is None) is false


def test_generate_writes_no_comment_that_held_on_the_rows_input(tmp_path) -> None:
    from codemorph.jobs.generate import GenerateConfig, generate
    code = "def f(text):\n    out = text.upper()\n    return out\n"
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"id": "digits", "code": code, "input": "'12'", "output": "'12'"}) + "\n"
                   + json.dumps({"id": "letters", "code": code, "input": "'ab'", "output": "'AB'"}) + "\n")
    generate(src, tmp_path / "out.jsonl", GenerateConfig.from_transforms(("misleading-comment",), extra_inputs=4))
    rows = {json.loads(line)["id"]: json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()}
    assert sorted(rows) == ["digits", "letters", "letters:misleading-comment"]
    assert rows["letters:misleading-comment"]["code"] == code.replace("text.upper()", "text.upper()  # out is text in lower case")


def test_generate_keeps_the_claims_shown_false_and_drops_the_others(tmp_path) -> None:
    """A variant one of whose claims held on the row's input was not written at all; it is
    now made again with only the claims execution showed false (``keep_claims``) and checked
    again, so it keeps those: here "out is text in lower case" holds of ``'12'`` and goes,
    "n is the last index of xs" (false wherever its line runs) stays."""
    from codemorph.jobs.generate import GenerateConfig, generate
    code = "def f(text, xs):\n    out = text.upper()\n    n = len(xs)\n    return out, n\n"
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"id": "r", "code": code, "input": "'12', [1]", "output": "('12', 1)"}) + "\n")
    generate(src, tmp_path / "out.jsonl", GenerateConfig.from_transforms(
        ("misleading-comment", "misleading-docstring"), extra_inputs=4))
    rows = {json.loads(line)["id"]: json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()}
    assert rows["r:misleading-comment"]["code"] == code.replace("len(xs)", "len(xs)  # n is the last index of xs")
    assert rows["r:misleading-docstring"]["code"] == code.replace(
        "xs):\n", 'xs):\n    """Return a tuple built from text and xs.\n\n    n is the last index of xs.\n\n    Args:\n'
        '        text: a list of strings.\n        xs: a string.\n    """\n')


@pytest.mark.parametrize("transform", [MisleadingComment(count=None), MisleadingDocstring(claims=3)])
def test_a_distractor_given_claims_to_keep_makes_only_those(transform) -> None:
    code = "def f(text, xs):\n    out = text.upper()\n    n = len(xs)\n    return out, n\n"
    made = {c.text for seed in range(6) for c in transform.apply(
        Program(code), seed, inputs=["'ab', [1]"], observations={"f": {"out": ["str"], "n": ["int"]}}).claims}
    assert made == {"out is text in lower case", "n is the last index of xs"}
    for seed in range(6):
        res = transform.apply(Program(code), seed, inputs=["'ab', [1]"], observations={"f": {"out": ["str"], "n": ["int"]}},
                              keep_claims={"n is the last index of xs"})
        assert [c.text for c in res.claims] == ["n is the last index of xs"]
        assert "lower case" not in res.source
    res = transform.apply(Program(code), 0, inputs=["'ab', [1]"], keep_claims={"no such claim"})
    assert not res.applied


def test_a_transform_that_makes_a_claim_not_to_keep_is_refused() -> None:
    """A distractor that does not read ``keep_claims`` (a plugin's) cannot slip another claim
    into a variant made again to keep only claims shown false."""
    from codemorph.transforms.distractors import MisleadingIOComment
    res = MisleadingIOComment().apply(Program("def f(n):\n    return n + 1\n"), 0, inputs=["3"], outputs=["4"],
                                      keep_claims=())
    assert (res.applied, res.reason) == (False, "the rewrite makes a claim that is not among the claims to keep")


def test_io_comment_states_a_wrong_output_for_a_nearby_input(sandbox) -> None:
    code = "def f(nums):\n    return sum(nums)\n"
    res = _apply(sandbox, MisleadingIOComment(), code, "[1, 2]", "3", seed=2)
    assert res.source == "def f(nums):  # f([1]) == 4\n    return sum(nums)\n"
    assert [(c.args, c.expected) for c in res.claims] == [("[1]", "4")]
    assert _claims_false(sandbox, res) == [None]
    assert ast.dump(ast.parse(res.source), include_attributes=True) == \
        ast.dump(ast.parse(code), include_attributes=True)
    # a stated pair that happens to hold is caught by its run (the variant is not written)
    held = _apply(sandbox, MisleadingIOComment(), code, "[1, 2]", "3", seed=0)
    assert held.source == "def f(nums):  # f([1, 2, 2]) == 5\n    return sum(nums)\n"
    assert "is true" in _claims_false(sandbox, held)[0]


def test_claim_on_a_stated_input_gets_a_mutants_limits_and_one_on_a_baseline_input_a_checks(sandbox) -> None:
    # the row's own input runs to an end in the baseline; the stated input [1] is new: the
    # program may never end there (it does: n stays 1), so its run gets the mutants' 1 s and
    # 0.25 CPU s instead of the sandbox's 5 s, and the claim is not shown false
    code = "def f(nums):\n    n = len(nums)\n    while n == 1:\n        pass\n    return n\n"
    base = make_baseline(sandbox, Program(code), ["[1, 2]"], extra_inputs=0, check_hash_seed=False)
    stated = Claim("f([1]) == 2", code, "f", "[1]", expected="2")
    own = Claim("f([1, 2]) == 3", code, "f", "[1, 2]", expected="3")
    reqs = claim_requests([stated, own], 5.0, baseline=base)
    assert (reqs[0].timeout, reqs[0].cpu_timeout) == (1.0, 0.25)
    assert reqs[1].timeout == max(0.5, 10 * base.outcomes[0].duration) and reqs[1].cpu_timeout is None
    assert [r.timeout for r in claim_requests([stated, own], 5.0)] == [5.0, 5.0]  # no baseline: the cap
    outs = sandbox.run_batch(reqs)
    assert outs[0].status == "timeout"
    assert refutation(stated, outs[0]) == "the claim 'f([1]) == 2' could not be shown false: its run on '[1]' " \
                                          "ended with timeout"
    assert refutation(own, outs[1]) is None  # f([1, 2]) is 2, not 3


def test_a_claim_on_a_baseline_input_gets_the_limit_the_check_of_a_rewrite_gets(sandbox) -> None:
    # one rule (verification.timeouts.check_timeout) for both, with the same slowdown and floor
    from codemorph.verification.differential import check_requests
    from codemorph.verification.timeouts import check_timeout

    code = "def f(n):\n    s = 0\n    for i in range(n):\n        s += i\n    return s\n"
    base = make_baseline(sandbox, Program(code), ["300000", "3"], extra_inputs=0, check_hash_seed=False)
    claims = [Claim("f(300000) == 1", code, "f", "300000", expected="1"), Claim("f(3) == 1", code, "f", "3", expected="1")]
    for cap, kw in ((5.0, {}), (0.7, {}), (5.0, {"slowdown": 3.0, "min_timeout": 0.01})):
        from_claims = [r.timeout for r in claim_requests(claims, cap, baseline=base, **kw)]
        from_check = [r.timeout for r in check_requests(base, Program(code), cap, **kw)][:2]
        assert from_claims == from_check == [check_timeout(o.duration, cap, **kw) for o in base.outcomes[:2]]
    assert check_timeout(0.01, 5.0) == 0.5 and check_timeout(0.2, 5.0) == 2.0 and check_timeout(1.0, 5.0) == 5.0


@pytest.mark.parametrize("args,output", [("[1, 2]", "3"), ("[5, 1, 4, 2], 2", "[4, 5]"), ("'hello', 3", "'HEL'"),
                                         ("{'a': 1, 'b': 2}", "3"), ("True, 0", "1")])
def test_io_comment_never_states_the_rows_input_and_its_claim_is_false_by_execution(sandbox, args, output) -> None:
    codes = {"[1, 2]": "def f(nums):\n    return sum(nums)\n",
             "[5, 1, 4, 2], 2": "def f(nums, k):\n    return sorted(nums)[-k:]\n",
             "'hello', 3": "def f(text, n):\n    return text[:n].upper()\n",
             "{'a': 1, 'b': 2}": "def f(d):\n    return sum(d.values())\n",
             "True, 0": "def f(flag, n):\n    return n + 1 if flag else n\n"}
    row = tuple(ast.literal_eval(f"({args},)"))
    seen = set()
    for seed in range(8):
        res = _apply(sandbox, MisleadingIOComment(), codes[args], args, output, seed)
        assert res.applied, res.reason
        (claim,) = res.claims
        stated = tuple(ast.literal_eval(f"({claim.args},)"))
        assert len(stated) == len(row) and [type(v) for v in stated] == [type(v) for v in row]
        assert stated != row, (seed, claim.args)
        assert claim.expected != output and type(ast.literal_eval(claim.expected)) is type(ast.literal_eval(output))
        assert res.source.splitlines()[0].endswith(f"  # f({claim.args}) == {claim.expected}")
        # executed on the stated input, the program returns; a pair that holds by chance is
        # reported by the claim's own check (and then not written), every other one is false
        (out,) = sandbox.run_batch([ExecRequest(codes[args], "f", claim.args, expected_output=claim.expected)])
        assert out.status == "returned", (claim.args, out.exception)
        (why,) = _claims_false(sandbox, res)
        if out.output_matches:
            assert "is true" in why
        else:
            assert out.output_matches is False and why is None, (claim.args, out.value_repr)
            seen.add(claim.args)
    assert seen


def test_nearby_input_changes_one_argument_in_its_type() -> None:
    import random

    assert [nearby_input("[1, 2]", random.Random(s)) for s in range(3)] == ["[1]", "[1, 2, 2]", "[1, 2, 2]"]
    assert nearby_input("'abc', 0", random.Random(0)) == "'abc', 2"
    assert nearby_input("'abc', 0", random.Random(1)) == "'aba', 0"
    assert nearby_input('"a"', random.Random(0)) == "'b'"
    assert nearby_input("True, 2.5", random.Random(1)) == "False, 2.5"
    assert nearby_input("{'a': 1}", random.Random(0)) == "{'a': 0}"
    assert nearby_input("(1,)", random.Random(0)) == "(1, 1)"
    for args in ["[]", "None", "x=1", "*[1]", "''.join", "[1,"]:
        assert nearby_input(args, random.Random(0)) is None, args


def test_wrong_output_keeps_the_type_and_differs() -> None:
    import random

    for text in ["3", "-1", "True", "False", "2.5", "'abc'", "''", "[1, 2]", "[]", "(1, 'a')", "{'a': 1, 'b': 2}",
                 "{}", "'x'"]:
        value = ast.literal_eval(text)
        for seed in range(5):
            wrong = wrong_output(text, random.Random(seed))
            assert wrong is not None, text
            w = ast.literal_eval(wrong)
            assert type(w) is type(value) and w != value, (text, wrong)
    for text in ["None", "{1, 2}", "[[1], [2]]", "float('inf')"]:
        assert wrong_output(text, random.Random(0)) is None


def test_value_comment_states_a_wrong_length_and_changes_no_code(sandbox) -> None:
    code = "def f(text):\n    words = text.split()\n    words.append('x')\n    return words\n"
    res = _apply(sandbox, MisleadingValueComment(), code, "'a b'", "['a', 'b', 'x']")
    assert res.source == ("def f(text):\n    words = text.split()  # len(words) == 3 here\n"
                          "    words.append('x')\n    return words\n")
    assert _claims_false(sandbox, res) == [None]
    assert res.stdout_lines == ()


def test_value_claim_is_checked_in_every_iteration(sandbox) -> None:
    # ``total`` is 3 after the second iteration: a probe checks every execution of the line
    code = "def f(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return total\n"
    probe = ("def f(xs):\n    total = 0\n    for x in xs:\n        total += x\n        if total == 3:\n"
             "            raise AssertionError('holds')\n    return total\n")
    claim = Claim("total == 3 here", probe, "f", "[1, 2, 4]")
    (out,) = sandbox.run_batch(claim_requests([claim], 5.0))
    assert refutation(claim, out) is not None


def test_refusals() -> None:
    assert_refuses(MisleadingPrint(), "import sys\n\ndef f(xs):\n    n = len(xs)\n    return n\n",
                   "redirect what print writes", inputs=["[1]"])
    assert_refuses(MisleadingPrint(), "def f(xs):\n    try:\n        n = len(xs)\n    except ValueError:\n"
                   "        n = 0\n    return n\n", "try/with", inputs=["[1]"])
    assert_refuses(MisleadingPrint(), "print = len\n\ndef f(xs):\n    n = len(xs)\n    return n\n",
                   "rebind print", inputs=["[1]"])
    assert_refuses(MisleadingPrint(), "def f(xs):\n    for x in xs:\n        n = x\n    return xs\n",
                   "no assignment", inputs=["[1]"])
    assert_refuses(MisleadingValueComment(), "def f(xs):\n    n = len(xs)\n    yield n\n", "generator",
                   inputs=["[1]"])
    assert_refuses(MisleadingValueComment(), "def f(x):\n    y = x * 0.5\n    return y\n", "no assignment",
                   inputs=["3.0"])
    assert_refuses(MisleadingIOComment(), "def f(x):\n    return x\n", "recorded output")
    program = Program("def f(x):\n    return None\n")
    res = MisleadingIOComment().apply(program, 0, inputs=["1"], outputs=["None"])
    assert not res.applied and "no wrong output" in res.reason


# -- every written variant on a CRUXEval sample ------------------------------------------------
_PRINT = re.compile(r"^(\s*)print\('(len\((\w+)\)|(\w+)) = (-?\d+)'\)$")
_COMMENT = re.compile(r"^(\s*)(.*?)  # ((?:len\(\w+\)|\w+) == -?\d+) here$")
_IO = re.compile(r"^def (\w+)\(.*\):  # (.*)$")


def _probe_of(row: dict) -> tuple[str, str | None] | None:
    """An independent check of the claim written in ``row``: ``(program, expected, args)``,
    the program to run on ``args`` (returning shows a value claim false) -- the row's input,
    or for an input/output comment the stated input, which must differ from the row's --
    and, for an input/output comment, the stated output."""
    lines = row["code"].split("\n")
    for i, line in enumerate(lines):
        m = _PRINT.match(line)
        if m and row["id"].endswith(":misleading-print"):
            cond = (f"len({m.group(3)})" if m.group(3) else m.group(4)) + f" == {m.group(5)}"
            lines[i] = f"{m.group(1)}if {cond}:\n{m.group(1)}    raise AssertionError('claim holds')"
            return "\n".join(lines), None, row["input"]
        m = _COMMENT.match(line)
        if m and row["id"].endswith(":misleading-value-comment"):
            lines.insert(i + 1, f"{m.group(1)}if {m.group(3)}:\n{m.group(1)}    raise AssertionError('claim holds')")
            return "\n".join(lines), None, row["input"]
        m = _IO.match(line)
        if m and row["id"].endswith(":misleading-io-comment"):
            call, _, stated = m.group(2).rpartition(" == ")
            assert call.startswith(m.group(1) + "(") and call.endswith(")")
            args = call[len(m.group(1)) + 1:-1]
            assert args != row["input"], row["id"]  # never the row's own input
            try:
                stated_values, row_values = ast.literal_eval(f"({args},)"), ast.literal_eval(f"({row['input']},)")
            except ValueError:  # an input written as an expression: its text differs
                assert args.split() != row["input"].split(), row["id"]
            else:
                assert stated_values != row_values, row["id"]
            return row["code"], stated, args
    return None


@needs_shared("cruxeval", "cruxeval.jsonl")
def test_cruxeval_sample_variants_pass_the_checker_and_every_claim_is_false(tmp_path, sandbox) -> None:
    from codemorph.jobs.generate import GenerateConfig, generate

    rows = [json.loads(line) for line in CRUXEVAL.read_text().splitlines()][::20]
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out.jsonl"
    names = ("misleading-print", "misleading-io-comment", "misleading-value-comment")
    # a few inputs per row keep the test short; the 20-input minimum of "equivalent" is tested
    # in tests/verification, so it is lowered to what these inputs give
    summary = generate(src, out, GenerateConfig.from_transforms(names, workers=1, extra_inputs=9, min_inputs=5))
    written = [json.loads(line) for line in out.read_text().splitlines()]
    variants = [r for r in written if r["kind"] == "code-transform"]
    for name in names:  # each applies to part of the sample and none is rejected
        c = summary.per_transform[name]
        assert c["written"] + c["written-unreached"] > 5, (name, c)
        assert c["rejected"] == 0 and c["inconclusive"] == 0, (name, c)
    checker = SHARED_DATA.parent / "checks" / "check_dataset.py"
    if checker.exists():
        done = subprocess.run([sys.executable, str(checker), str(out)], capture_output=True, text=True)
        assert done.returncode == 0, done.stdout[-2000:]
        assert done.stdout.strip().splitlines()[-1] == f"{len(written)} passed, 0 failed"
    requests, stated = [], []
    for r in variants:
        probe = _probe_of(r)
        assert probe is not None, r["code"]
        code, expected, args = probe
        requests.append(ExecRequest(code, r["entry_point"], args, expected_output=expected))
        stated.append(expected)
    outs = sandbox.run_batch(requests)
    for r, o, expected in zip(variants, outs, stated):
        assert o.status == "returned", (r["id"], r["code"], o.status, o.exception)
        if expected is not None:
            assert o.output_matches is False, (r["id"], expected)
        # the original's output is the row's, whatever the distractor prints
        assert r["output"] == next(w["output"] for w in written if w["id"] == r["original_id"])


def _claim_about(code: str, args: str, text: str):
    """The claim ``text`` misleading-comment makes on ``code`` for the row input ``args``
    (over a few seeds: a line may have several claims)."""
    from codemorph.transforms.distractors import MisleadingComment
    for seed in range(12):
        res = MisleadingComment(count=None).apply(Program(code), seed, inputs=[args])
        found = [c for c in res.claims if c.text == text]
        if found:
            assert f"# {text}" in res.source
            return found[0]
    raise AssertionError(f"no claim {text!r} made on\n{code}")


@pytest.mark.parametrize("code, text, holds, shown_false", [
    # a loop over a palindrome walks it the same either way
    ("def f(s):\n    out = ''\n    for c in s:\n        out = c + out\n    return out\n",
     "walks s from its last element to its first", "'aba'", "'abc'"),
    # sorting one element (or none) from largest to smallest is sorting it
    ("def f(xs):\n    xs.sort()\n    return xs\n", "sorts xs from largest to smallest", "[3]", "[2, 1]"),
    # appending to an empty list is inserting at its front
    ("def f(xs):\n    out = []\n    for x in xs:\n        out.append(x)\n    return out\n",
     "x is inserted at the front of out", "[5]", "[1, 2]"),
    # a claim on a line the row's input never reaches is shown false by nothing
    ("def f(xs, n):\n    if n > 100:\n        m = len(xs)\n        return m\n    return n\n",
     "m is the last index of xs", "[1], 3", "[1], 300"),
    ("def f(x, n):\n    if n > 100:\n        if x:\n            return x\n    return n\n", "taken when not x", "'a', 3",
     "'a', 300"),
    # a returned string method's value: "every word capitalised" is true of one word
    ("def f(x):\n    return x.capitalize()\n", "returns x with every word capitalised", "'r'", "'ab cd'"),
    # the first and the last element of a list are equal
    ("def f(xs):\n    n = xs[0]\n    return n\n", "n is the last element of xs", "[4, 2, 4]", "[4, 2]"),
    # max of equal elements is their min
    ("def f(xs):\n    return max(xs)\n", "returns the smallest element of xs", "[2, 2]", "[1, 2]"),
    # a dict whose keys are its values (a view is compared as the list it walks)
    ("def f(d):\n    y = d.keys()\n    return list(y)\n", "y holds the values of d", "{1: 1}", "{1: 2}"),
    ("def f(d):\n    return d.items()\n", "returns (value, key) pairs of d", "{2: 2}", "{1: 2}"),
    # dict.update with every key of d already in e drops nothing
    ("def f(d, e):\n    d.update(e)\n    return d\n", "keys of d that are not in e are dropped",
     "{'a': 1}, {'a': 2}", "{'a': 1}, {'b': 2}"),
    # frozenset.copy() returns the frozenset itself
    ("def f(fs):\n    g = fs.copy()\n    return len(g)\n", "g is the very same object as fs",
     "frozenset({1, 2})", "{1, 2}"),
    # extending by a one-character string adds that string as one element
    ("def f(xs, s):\n    xs.extend(s)\n    return xs\n", "s is added to xs as one element", "[1], 'z'",
     "[1], 'yz'"),
    ("def f(text):\n    out = []\n    for c in text:\n        out.extend(c)\n    return out\n",
     "c is added to out as one element", "'abc'", "['ab', 'c']"),
    # an insert at an index past the end (or into an empty list) does add at the end; it was
    # "xs[i] is replaced by v", true of xs[i] after the line
    ("def f(xs, i, v):\n    xs.insert(i, v)\n    return xs\n", "v is added at the end of xs", "[1, 2], 5, 0",
     "[1, 2], 1, 0"),
    ("def f(xs, i, v):\n    xs.insert(i, v)\n    return xs\n", "v is added at the end of xs", "[], -3, 0",
     "[1, 2], -1, 0"),
    ("def f(xs, v):\n    xs.insert(0, v)\n    return xs\n", "v is added at the end of xs", "[7, 7], 7", "[7, 7], 6"),
])
def test_comment_claim_true_on_the_rows_data_is_not_written(sandbox, code, text, holds, shown_false) -> None:
    """A claim about a value or an order can be true because of the data (a palindrome, one
    element, an empty list, a line never run): every misleading-comment claim is checked by
    execution on the row's input and must come out false at least once where its line runs."""
    for args, false in ((holds, False), (shown_false, True)):
        claim = _claim_about(code, args, text)
        out = sandbox.run_batch(claim_requests([claim], 5.0))[0]
        assert (refutation(claim, out) is None) is false, (args, refutation(claim, out))


def test_a_check_that_raises_changes_nothing_the_program_sees(sandbox) -> None:
    """A check evaluates code again (``xs != sorted(xs)``); its exceptions are ignored, so a
    program catching exceptions takes no other path in the probe, and a claim whose check
    cannot be evaluated is not shown false."""
    code = "def f(xs):\n    xs.reverse()\n    try:\n        return sorted(xs)\n    except TypeError:\n        return 'mixed'\n"
    claim = _claim_about(code, "[1, 'a']", "leaves xs sorted from smallest to largest")
    out = sandbox.run_batch(claim_requests([claim], 5.0))[0]
    assert "holds" in refutation(claim, out)
    claim = _claim_about(code, "[1, 2]", "leaves xs sorted from smallest to largest")
    assert refutation(claim, sandbox.run_batch(claim_requests([claim], 5.0))[0]) is None


def test_docstring_claims_are_checked_on_the_rows_input(sandbox) -> None:
    from codemorph.transforms.distractors import MisleadingDocstring
    code = "def f(s):\n    out = ''\n    for c in s:\n        out = c + out\n    return out\n"
    for args, false in (("'aba'", False), ("'abc'", True)):
        # the summary line: true, from the returned value's type (observed: a ``str``)
        obs = {"f": {"s": ["str"], "out": ["str"], "c": ["str"]}}
        res = MisleadingDocstring(claims=1).apply(Program(code), 0, inputs=[args], observations=obs)
        assert res.source.startswith('def f(s):\n    """Return a string built from s.\n\n'
                                     '    The loop walks s from its last element to its first.\n')
        assert [c.text for c in res.claims] == ["the loop walks s from its last element to its first"]
        out = sandbox.run_batch(claim_requests(res.claims, 5.0))[0]
        assert (refutation(res.claims[0], out) is None) is false


@pytest.mark.parametrize("code, text", [
    ("def f(n):\n    if n > 100:\n        return 1\n    return n\n", "taken when n <= 100"),
    ("def f(n):\n    if n > 100:\n        return 1\n    else:\n        return n\n", "reached when n > 100"),
    ("def f(n):\n    if n > 100:\n        return 1\n    elif n > 5:\n        return 2\n    else:\n        return n\n",
     "taken when n <= 5"),
    ("def f(n):\n    if n > 100:\n        return 1\n    elif n > 5:\n        return 2\n    else:\n        return n\n",
     "reached when n > 5"),
])
def test_a_branch_claim_is_false_wherever_its_if_runs(sandbox, code, text) -> None:
    """"taken when n <= 100" for ``if n > 100:`` (the branch runs exactly when its test
    holds) is shown false whether the branch is taken or not, once the ``if`` runs; an
    ``elif`` is checked in either of its branches."""
    for args in ("300", "50", "3"):
        claim = _claim_about(code, args, text)
        out = sandbox.run_batch(claim_requests([claim], 5.0))[0]
        reached = not (args == "300" and "elif" in code)
        assert (refutation(claim, out) is None) is reached, (args, refutation(claim, out))


@pytest.mark.parametrize("transform", [MisleadingValueComment(), MisleadingPrint()])
def test_value_claim_on_a_line_the_rows_input_never_reaches_is_not_written(sandbox, transform) -> None:
    """CRUXEval sample_10 (``IN=''``): ``new_text += ch  # len(new_text) == 3 here`` in a
    loop that never runs was "shown false" because the probe never raised; a value claim
    must now also be reached on the row's input (the types come from other inputs, as in
    ``generate``)."""
    code = "def f(text, n):\n    if n > 100:\n        k = len(text)\n        return k\n    return n\n"
    program = Program(code)
    obs = observe_types(program, ["'abc', 3", "'abc', 300"], sandbox=sandbox)
    for args, reached in (("'abc', 3", False), ("'abc', 300", True)):
        res = transform.apply(program, 0, inputs=[args], observations=obs)
        (claim,) = res.claims
        assert claim.text.startswith(("k ", "k =")), claim.text
        out = sandbox.run_batch(claim_requests([claim], 5.0))[0]
        assert (refutation(claim, out) is None) is reached, (args, refutation(claim, out))


def test_a_check_never_reads_an_iterator_again(sandbox) -> None:
    """``s += ''.join(it)  # s is overwritten with ''.join(it)`` is true when ``s`` was empty;
    evaluating ``''.join(it)`` again in the check would see the exhausted iterator ('' !=
    'ab') and "show" the claim false: a check reads no value that is an iterator."""
    code = "def f(xs, s):\n    it = iter(xs)\n    s += ''.join(it)\n    return s\n"
    claim = _claim_about(code, "['a', 'b'], ''", "s is overwritten with ''.join(it)")
    assert "holds" in refutation(claim, sandbox.run_batch(claim_requests([claim], 5.0))[0])
    code = "def f(xs, s):\n    s += ''.join(xs)\n    return s\n"
    for args, false in (("['a', 'b'], ''", False), ("['a', 'b'], 'x'", True)):
        claim = _claim_about(code, args, "s is overwritten with ''.join(xs)")
        assert (refutation(claim, sandbox.run_batch(claim_requests([claim], 5.0))[0]) is None) is false


@pytest.mark.parametrize("code, args, text", [
    # rebound later to the value the claim states: at the end y is the first element
    ("def f(xs):\n    y = xs[-1]\n    n = len(xs)\n    y = xs[0]\n    return y + n\n", "[1, 2, 3]",
     "y is the first element of xs"),
    # rebound later: t ends as s in lower case
    ("def f(s):\n    t = s.upper()\n    t = t.lower()\n    return t\n", "'aBc'", "t is s in lower case"),
    # changed later: ys ends sorted from largest to smallest
    ("def f(xs):\n    ys = sorted(xs)\n    ys.reverse()\n    return ys\n", "[1, 3, 2]",
     "ys holds xs sorted from largest to smallest"),
])
def test_docstring_makes_no_claim_about_a_variable_changed_elsewhere(code, args, text) -> None:
    """A docstring names no line: "t is s in lower case." reads as a statement about ``t``
    in the function, and is true of ``t = s.upper()`` followed by ``t = t.lower()``, though
    false right after the first line, where the check runs.  A docstring claim about a
    variable is made only when one statement in the function binds or changes it."""
    from codemorph.transforms.distractors import MisleadingDocstring
    for seed in range(12):
        try:
            res = MisleadingDocstring(claims=3).apply(Program(code), seed, inputs=[args])
        except NotApplicable:
            continue
        assert text not in [c.text for c in res.claims], res.source


@pytest.mark.parametrize("code, args, text", [
    # the second loop walks text from its last element to its first
    ("def f(text):\n    a = ''\n    for c in text:\n        a += c\n    b = ''\n    for c in reversed(text):\n"
     "        b += c\n    return a + b\n", "'abc'", "the loop walks text from its last element to its first"),
    # the second loop stops as soon as i < n holds
    ("def f(n):\n    i = 0\n    while i < n:\n        i += 2\n    while i >= n:\n        i -= 3\n    return i\n",
     "5", "the loop stops as soon as i < n holds"),
])
def test_docstring_makes_no_loop_claim_when_the_function_has_another_loop(code, args, text) -> None:
    """"The loop walks text from its last element to its first." names no loop: with a second
    loop over ``reversed(text)`` it is true of the function, though false of the loop it was
    made about.  A docstring's loop claim is made only of a function with one loop."""
    from codemorph.transforms.distractors import MisleadingDocstring
    for seed in range(12):
        try:
            res = MisleadingDocstring(claims=3).apply(Program(code), seed, inputs=[args])
        except NotApplicable:
            continue
        assert text not in [c.text for c in res.claims], res.source


def test_no_skips_the_first_element_claim_when_the_body_may_skip_it() -> None:
    """"The loop skips the first element of xs." of a loop whose body starts with ``if first:
    ... continue`` is what a reader takes the loop to do, though the loop visits the element:
    the claim is made only of a body of plain statements (no ``if`` or other compound
    statement, no ``continue``, ``pass`` or ``break``), which does the same with every element."""
    from codemorph.transforms.distractors import MisleadingComment, MisleadingDocstring
    code = ("def f(xs):\n    first = True\n    out = []\n    for x in xs:\n        if first:\n"
            "            first = False\n            continue\n        out.append(x)\n    return out\n")
    counted = ("def f(xs):\n    i = 0\n    out = []\n    for x in xs:\n        i += 1\n        if i > 1:\n"
               "            out.append(x)\n    return out\n")
    plain = "def f(xs):\n    out = []\n    for x in xs:\n        out.append(x)\n    return out\n"
    made = {True: set(), False: set()}
    for seed in range(12):
        for src in (code, counted, plain):
            for t in (MisleadingComment(count=None), MisleadingDocstring(claims=3)):
                res = t.apply(Program(src), seed, inputs=["[3, 1, 2]"])
                made[src == plain].update(c.text for c in res.claims)
    assert "skips the first element of xs" not in made[False]
    assert "the loop skips the first element of xs" not in made[False]
    assert "skips the first element of xs" in made[True]


def test_generate_writes_no_claim_that_holds_under_another_hash_seed(tmp_path, sandbox) -> None:
    """``''.join(set(s)).find('b')`` on the row's ``'aa'`` (a one-element set) is the same
    under every hash seed, but on ``misleading-io-comment``'s stated input ``'ab'`` it is 0
    under half of them: ``# f('ab') == 0`` was shown false under the sandbox's seed only and
    written, true for a harness with another ``PYTHONHASHSEED``.  A claim whose program or
    input may see hash order must be false under every seed the hash check runs."""
    from codemorph.jobs.generate import GenerateConfig, generate
    code = "def f(s):\n    return ''.join(set(s)).find('b')\n"
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"id": "r", "code": code, "input": "'aa'", "output": "-1"}) + "\n")
    stated = []
    for seed in range(8):  # seed 6 stated f('ab') == 0
        out = tmp_path / f"out{seed}.jsonl"
        generate(src, out, GenerateConfig.from_transforms(("misleading-io-comment",), seed=seed))
        stated += [json.loads(line)["code"].splitlines()[0] for line in out.read_text().splitlines()
                   if json.loads(line)["id"] == "r:misleading-io-comment"]
    assert stated, "no variant written"
    for line in stated:
        claim = line.split("# ", 1)[1]
        call, value = claim.split(" == ")
        args = call.removeprefix("f(").removesuffix(")")
        seen = {sandbox.run_batch([ExecRequest(code, "f", args)], hash_seed=h)[0].value_repr for h in range(16)}
        assert value not in seen, (line, seen)


def test_no_order_claim_when_the_rows_output_reads_the_same_reversed() -> None:
    """CRUXEval sample_545: "array.pop() is inserted at the front of result" is false while
    the function runs, but its output ``[8, -1, 8]`` reads the same reversed, so a reader who
    believes it gives the right answer: no order claim is made then."""
    code = ("def f(array):\n    result = []\n    index = 0\n    while index < len(array):\n"
            "        result.append(array.pop())\n        index += 2\n    return result\n")
    args = "[8, 8, -4, -9, 2, 8, -1, 8]"
    for transform in (MisleadingComment(count=None), MisleadingDocstring(claims=3)):
        made = {c.text for seed in range(6) for c in transform.apply(
            Program(code), seed, inputs=[args], outputs=["[8, -1, 8]"], observations={}).claims}
        assert not any("front" in t for t in made), made
        made = {c.text for seed in range(6) for c in transform.apply(
            Program(code), seed, inputs=["[1, 2, 3]"], outputs=["[3, 1]"], observations={}).claims}
        assert any("front" in t for t in made), made
