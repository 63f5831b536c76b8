"""``misleading-io-comment``: a comment on the entry function's ``def`` line stating a wrong
output for the row's input, checked wrong by execution.
"""

from __future__ import annotations

import ast
import math
from typing import Any

import libcst as cst

from codemorph.engine import NotApplicable, RewriteContext, Transform
from codemorph.engine.transform import Claim
from codemorph.transforms.distractors.claims import SOURCE_HAZARDS, check_hazards, make_comment, same_ast

__all__ = ["MisleadingIOComment", "wrong_output"]

#: longest comment written (characters after ``# ``)
MAX_COMMENT = 100


def _same_literal(value: Any, text: str) -> bool:
    try:
        back = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return type(back) is type(value) and back == value


def wrong_output(output: str, rng) -> str | None:
    """A plausible wrong result literal of the same type as ``output`` (a result literal
    such as ``"[1, 2]"``), or ``None`` when none is made (``None``, sets, nested or
    non-literal results, non-finite floats): ``True`` <-> ``False``, an int or float one
    or two away, a string with its last character dropped or doubled or its case swapped, a
    list or tuple without its last element or reversed, a dict without its last item, and
    ``"a"``, ``[0]`` or ``{0: 0}`` for an empty one.  The literal reads back
    (``ast.literal_eval``) to a value of the same type that differs from the output."""
    try:
        v = ast.literal_eval(output)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    t = type(v)
    options: list[Any] = []
    if t is bool:
        options = [not v]
    elif t is int:
        options = [v + 1, v - 1, v + 2]
    elif t is float and math.isfinite(v):
        options = [v + 1.0, v - 1.0]
    elif t is str:
        options = [v[:-1], v + v[-1], v.swapcase(), v[::-1]] if v else ["a"]
    elif t in (list, tuple):
        if not v:
            options = [t([0])]
        elif all(type(x) in (int, str, bool) for x in v):
            options = [v[:-1], v[::-1]]
    elif t is dict:
        if not v:
            options = [{0: 0}]
        elif all(type(k) in (int, str) and type(x) in (int, str, bool, float) for k, x in v.items()):
            options = [dict(list(v.items())[:-1])]
    candidates = [repr(w) for w in options if type(w) is t and w != v]
    candidates = [c for c in candidates if "\n" not in c and _same_literal(ast.literal_eval(c), c)]
    return rng.choice(candidates) if candidates else None


class MisleadingIOComment(Transform):
    """Add a comment to the entry function's ``def`` line that states a wrong result for
    the row's input: ``def f(nums):  # f([1, 2]) == 3``.

    The misleading hint comments of CodeCrash (Lam et al., "CodeCrash: Stress Testing LLM
    Reasoning under Structural and Semantic Perturbations", 2025): an input/output pair in a
    comment that a model may trust instead of executing the code.  The stated output is made
    from the row's recorded output (:attr:`~codemorph.engine.RewriteContext.outputs`; see
    :func:`wrong_output`) and declared as a :class:`~codemorph.engine.transform.Claim`: the
    program is executed on the stated input in the sandbox and must return a value not equal
    to the stated output, else the variant is not written.

    The comment names the row's input, so such rows suit output prediction; in input
    prediction it gives the input away.  The code is unchanged (a comment at the end of the
    ``def`` line: ``ast.dump`` with positions equal).  Refused when the program may read its
    own source (:data:`~codemorph.transforms.distractors.SOURCE_HAZARDS`), when the recorded
    output is not known, when no wrong output of the same type is made, and when the comment
    would be longer than :data:`MAX_COMMENT` characters.
    """

    name = "misleading-io-comment"
    family = "distractors"
    description = "comment a wrong output for the row's input on the def line (shown wrong by execution)"
    preconditions = ("the program does not read its own source", "the row's recorded output is known",
                     "the stated output shown wrong by execution", "AST (with positions) unchanged")

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        check_hazards(module, SOURCE_HAZARDS, "read its own source text")
        if not ctx.inputs or not ctx.outputs:
            raise NotApplicable("the row's input and recorded output are needed to state a wrong pair")
        args, output = ctx.inputs[0], ctx.outputs[0]
        entry = None
        for stmt in module.body:
            if isinstance(stmt, cst.FunctionDef) and stmt.name.value == ctx.entry_point:
                entry = stmt
        if entry is None:
            raise NotApplicable(f"no top-level function {ctx.entry_point!r}")
        if not isinstance(entry.body, cst.IndentedBlock) or entry.body.header.comment is not None:
            raise NotApplicable("the def line already has a comment or holds the body")
        wrong = wrong_output(output, ctx.rng)
        if wrong is None:
            raise NotApplicable(f"no wrong output of the same type is made for {output[:40]!r}")
        text = f"{ctx.entry_point}({' '.join(args.split())}) == {wrong}"
        if len(text) > MAX_COMMENT or "\n" in args:
            raise NotApplicable(f"the input/output pair is longer than {MAX_COMMENT} characters")
        ctx.claim(Claim(text, ctx.program.source, ctx.entry_point, args, expected=wrong))
        ctx.record(entry, f"comment: {text}")
        header = entry.body.header
        new_entry = entry.with_changes(body=entry.body.with_changes(header=header.with_changes(
            whitespace=cst.SimpleWhitespace("  "), comment=make_comment(text))))
        new = module.with_changes(body=[new_entry if s is entry else s for s in module.body])
        same_ast(ctx.program.source, new.code, positions=True)
        return new
