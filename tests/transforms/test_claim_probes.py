"""The probe programs of ``misleading-comment``/``misleading-docstring`` claims built
together (``claim_checks``: one rewrite and one code generation for all the claims of a
variant) are, byte for byte, those built one claim at a time (``claim_check``)."""

from __future__ import annotations

import random
import re

import libcst as cst
import pytest

from codemorph import Program
from codemorph.engine.transform import RewriteContext
from codemorph.transforms.distractors.claims import REACHED, Check
from codemorph.transforms.distractors.misleading_comment import claim_check, claim_checks


def _ctx(source: str) -> RewriteContext:
    return RewriteContext(Program(source), random.Random(0), inputs=["'abc', 2"])


def _program_part(probe: str) -> str:
    """The probe program without what the probe adds after the program."""
    return re.split(r"\n\n(?:import builtins as _codemorph_b|class _codemorph_b:)\n", probe)[0]

PROGRAM = (
    "def f(text, n):\n"
    "    # the words\n"
    "    words = text.split()\n"
    "\n"
    "    out = []\n"
    "    for w in words:  # each word\n"
    "        if len(w) > n:\n"
    "            out.append(w)\n"
    "        else:\n"
    "            # short\n"
    "            out.append(w.upper())\n"
    "    while n > 0: n -= 1\n"
    "    return out\n"
)


def _claims(module: cst.Module) -> list[tuple[cst.CSTNode, Check, str]]:
    f = module.body[0]
    words, out, loop, ret = f.body.body[0], f.body.body[1], f.body.body[2], f.body.body[4]
    branch = loop.body.body[0]
    suite_loop = f.body.body[3]
    return [
        (words, Check("after", "_codemorph_plain(words) and len(words) != 3"), "words holds 3 words"),
        (words, Check("before", REACHED), "before the words"),
        (out, Check("before", REACHED), "out starts full"),
        (loop, Check("body", "w != w[::-1]"), "each w is a palindrome"),
        (branch, Check("branches", REACHED), "taken when len(w) <= n"),
        (branch.orelse, Check("body", REACHED), "the else of nothing"),
        (suite_loop, Check("body", REACHED), "a body on the line of its header"),
        (ret, Check("before", "len(out) > 0"), "returns an empty list"),
    ]


@pytest.mark.parametrize("source", [
    PROGRAM,
    PROGRAM.rstrip("\n"),  # no newline at the end of the file (CRUXEval's programs)
    PROGRAM.replace("\n", "\r\n"),
    PROGRAM.replace("\n", "\r\n").rstrip("\r\n"),
    # a string holding a marker line: the probes are then built one by one, the same
    PROGRAM.replace("    return out\n", "    return out + ['''\n_codemorph_mark_0_begin()\n''']\n"),
])
def test_probes_built_together_are_those_built_one_at_a_time(source: str) -> None:
    module = cst.parse_module(source)
    items = _claims(module)
    ctx = _ctx(source)
    together = claim_checks(module, ctx, items)
    alone = [claim_check(module, ctx, node, check, text) for node, check, text in items]
    assert [c.code for c in together] == [c.code for c in alone]
    assert [c.text for c in together] == [text for _, _, text in items]
    assert {(c.entry, c.args) for c in together} == {("_codemorph_claim_probe", "'abc', 2")}


def test_each_probe_holds_its_own_note_only() -> None:
    module = cst.parse_module(PROGRAM)
    items = _claims(module)
    codes = [c.code for c in claim_checks(module, _ctx(PROGRAM), items)]
    program = _program_part(codes[1])
    assert program == PROGRAM.replace("    # the words\n", "    _codemorph_claim_differs.append(1)\n    # the words\n")
    program = _program_part(codes[4])
    assert program == PROGRAM.replace(
        "        if len(w) > n:\n", "        if len(w) > n:\n            _codemorph_claim_differs.append(1)\n").replace(
        "        else:\n", "        else:\n            _codemorph_claim_differs.append(1)\n")
    # a body on its header's line gets no note (its claim is then never shown false)
    assert _program_part(codes[6]) == PROGRAM
    assert all(code.count("_codemorph_mark") == 0 for code in codes)


def test_a_body_claim_about_a_statement_line_is_refused() -> None:
    module = cst.parse_module(PROGRAM)
    words = module.body[0].body.body[0]
    with pytest.raises(ValueError, match="a statement line has no body"):
        claim_checks(module, _ctx(PROGRAM), [(words, Check("before", REACHED), "a"), (words, Check("body", REACHED), "b")])


def test_probe_of_a_program_that_cannot_reach_the_builtins_holds_them_in_a_class_and_only_the_helpers_it_calls(
) -> None:
    module = cst.parse_module(PROGRAM)
    words = module.body[0].body.body[0]
    ctx = _ctx(PROGRAM)
    probe = claim_check(module, ctx, words, Check("after", "_codemorph_b.len(words) != 3"), "3 words").code
    assert "import" not in probe
    assert probe.split("    return out\n", 1)[1] == (
        "\n\nclass _codemorph_b:\n    AssertionError = AssertionError\n    Exception = Exception\n    len = len\n"
        "_codemorph_claim_differs = []\n\n\n"
        "def _codemorph_note(test):\n    try:\n        if test():\n            _codemorph_claim_differs.append(1)\n"
        "    except _codemorph_b.Exception:\n        pass\n\n\n"
        "def _codemorph_claim_probe(*args, **kwargs):\n    _codemorph_claim_differs.clear()\n    try:\n"
        "        f(*args, **kwargs)\n    except _codemorph_b.Exception:\n        pass\n"
        "    if not _codemorph_claim_differs:\n"
        "        raise _codemorph_b.AssertionError('codemorph claim probe: the stated value occurred')\n")
    reached = claim_check(module, ctx, words, Check("after", REACHED), "x").code
    assert "def _codemorph_note" not in reached and "def _codemorph_items" not in reached
    prod = claim_check(module, ctx, words, Check("after", "_codemorph_prod(words) != 3"), "x").code
    assert "def _codemorph_items(x):" in prod and "def _codemorph_prod(xs):" in prod
    assert "def _codemorph_plain" not in prod and "    TypeError = TypeError\n" in prod


@pytest.mark.parametrize("source", [
    PROGRAM.replace("    return out\n", "    import math\n    return out\n"),  # may reach a module
    PROGRAM.replace("    return out\n", "    return out.__len__()\n"),
    PROGRAM.replace("    out = []\n", "    len = 3\n    out = []\n"),  # binds a builtin a check uses
    PROGRAM.replace("    return out\n", "    return out + ['\u00e9']\n"),  # not ASCII
])
def test_probe_of_a_program_that_may_reach_or_rebind_the_builtins_imports_them(source: str) -> None:
    module = cst.parse_module(source)
    words = module.body[0].body.body[0] if "len = 3" not in source else module.body[0].body.body[1]
    probe = claim_check(module, _ctx(source), words, Check("after", "_codemorph_b.len(words) != 3"), "x").code
    assert "\n\nimport builtins as _codemorph_b\n_codemorph_claim_differs = []\n" in probe
    assert "class _codemorph_b" not in probe
    # every helper, as before
    assert all(f"def {h}(" in probe for h in ("_codemorph_note", "_codemorph_items", "_codemorph_prod",
                                              "_codemorph_plain"))
