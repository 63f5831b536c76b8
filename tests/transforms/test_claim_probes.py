"""The probe programs of ``misleading-comment``/``misleading-docstring`` claims built
together (``claim_checks``: one rewrite and one code generation for all the claims of a
variant) are, byte for byte, those built one claim at a time (``claim_check``)."""

from __future__ import annotations

from types import SimpleNamespace

import libcst as cst
import pytest

from codemorph.transforms.distractors.claims import REACHED, Check
from codemorph.transforms.distractors.misleading_comment import claim_check, claim_checks

CTX = SimpleNamespace(inputs=["'abc', 2"], entry_point="f")

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
    together = claim_checks(module, CTX, items)
    alone = [claim_check(module, CTX, node, check, text) for node, check, text in items]
    assert [c.code for c in together] == [c.code for c in alone]
    assert [c.text for c in together] == [text for _, _, text in items]
    assert {(c.entry, c.args) for c in together} == {("_codemorph_claim_probe", "'abc', 2")}


def test_each_probe_holds_its_own_note_only() -> None:
    module = cst.parse_module(PROGRAM)
    items = _claims(module)
    codes = [c.code for c in claim_checks(module, CTX, items)]
    program = codes[1].split("\n\nimport builtins as _codemorph_b\n")[0]
    assert program == PROGRAM.replace("    # the words\n", "    _codemorph_claim_differs.append(1)\n    # the words\n")
    program = codes[4].split("\n\nimport builtins as _codemorph_b\n")[0]
    assert program == PROGRAM.replace(
        "        if len(w) > n:\n", "        if len(w) > n:\n            _codemorph_claim_differs.append(1)\n").replace(
        "        else:\n", "        else:\n            _codemorph_claim_differs.append(1)\n")
    # a body on its header's line gets no note (its claim is then never shown false)
    assert codes[6].split("\n\nimport builtins as _codemorph_b\n")[0] == PROGRAM
    assert all(code.count("_codemorph_mark") == 0 for code in codes)


def test_a_body_claim_about_a_statement_line_is_refused() -> None:
    module = cst.parse_module(PROGRAM)
    words = module.body[0].body.body[0]
    with pytest.raises(ValueError, match="a statement line has no body"):
        claim_checks(module, CTX, [(words, Check("before", REACHED), "a"), (words, Check("body", REACHED), "b")])
