"""``misleading-io-comment``: a comment on the entry function's ``def`` line stating a wrong
output for an input near the row's (never the row's own input), checked wrong by execution.
"""

from __future__ import annotations

import ast
import math
from typing import Any

import libcst as cst

from codemorph.engine import NotApplicable, RewriteContext, Transform
from codemorph.engine.transform import Claim
from codemorph.transforms.distractors.claims import (
    SOURCE_HAZARDS, check_hazards, comment_text_ok, make_comment, same_ast,
)

__all__ = ["MisleadingIOComment", "nearby_input", "wrong_output"]

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


def _nearby_values(v: Any) -> list[Any]:
    """Values of the same type as ``v`` that differ from it by a small change (empty when
    none is made): see :func:`nearby_input`."""
    t = type(v)
    if t is bool:
        return [not v]
    if t is int:
        return [v + 1, v - 1] if v else [1, 2]
    if t is float and math.isfinite(v):
        return [v + 1.0]
    if t is str:
        if not v:
            return ["a"]
        changed = v[:-1] + ("b" if v[-1] == "a" else "a")
        return [changed] if v[-1].isspace() else [v + v[-1], changed]  # a doubled space is hard to see
    if t in (list, tuple) and v:
        return [t(list(v) + [v[-1]])] + ([t(v[:-1])] if len(v) > 1 else [])
    if t is dict and v:
        last = list(v)[-1]
        out: list[Any] = []
        for w in _nearby_values(v[last]) if type(v[last]) in (bool, int, str) else []:
            out.append({**v, last: w})
        if len(v) > 1:
            out.append(dict(list(v.items())[:-1]))
        return out
    return []


def nearby_input(args: str, rng) -> str | None:
    """An argument list near ``args`` (an argument-list literal such as ``"[1, 2], 'ab'"``)
    that is not ``args``: one positional argument, drawn with ``rng`` among those that are
    literals of a changeable type, replaced by a value of the same type -- a bool negated, an
    int one up or down (``0`` -> ``1``), a float one up, a string with its last character
    doubled (never a space: hard to see) or changed (``''`` -> ``'a'``), a non-empty list or
    tuple with its last element repeated or dropped, a non-empty dict with its last value
    changed so or its last item dropped.  The other arguments keep their text.  ``None`` when
    none is made (keyword or starred arguments, no literal argument of such a type, text that
    does not parse).

    The result reads back (``ast.literal_eval`` of the changed argument) to a value of the
    changed argument's type that differs from the original, so the argument list differs
    from ``args``."""
    try:
        call = ast.parse(f"_({args})", mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    if not isinstance(call, ast.Call) or call.keywords or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    text = f"_({args})"
    segments = [ast.get_source_segment(text, a) for a in call.args]
    if any(s is None for s in segments):
        return None
    options: list[tuple[int, str]] = []
    for i, seg in enumerate(segments):
        try:
            value = ast.literal_eval(seg)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        for w in _nearby_values(value):
            literal = repr(w)
            if type(w) is type(value) and w != value and "\n" not in literal and _same_literal(w, literal):
                options.append((i, literal))
    if not options:
        return None
    i, literal = rng.choice(options)
    return ", ".join(literal if j == i else seg for j, seg in enumerate(segments))


def _same_args(a: str, b: str) -> bool:
    """Whether the argument-list literals ``a`` and ``b`` may be the same input: equal or
    equally printed values, or (when either is not a literal) the same text but for spaces."""
    try:
        x, y = ast.literal_eval(f"({a},)"), ast.literal_eval(f"({b},)")
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return a.split() == b.split()
    return x == y or repr(x) == repr(y)


class MisleadingIOComment(Transform):
    """Add a comment to the entry function's ``def`` line that states a wrong result for an
    input near the row's: ``def f(nums):  # f([1, 2, 2]) == 4`` for the row ``f([1, 2]) == 3``.

    The misleading hint comments of CodeCrash (Lam et al., "CodeCrash: Stress Testing LLM
    Reasoning under Structural and Semantic Perturbations", 2025): an input/output pair in a
    comment that a model may trust instead of executing the code.  The stated input is the
    row's with one argument changed (:func:`nearby_input`), never the row's own input, so the
    comment gives away neither the input (input prediction) nor the output (output
    prediction).  The stated output is made from the row's recorded output
    (:attr:`~codemorph.engine.RewriteContext.outputs`; see :func:`wrong_output`), so it has
    the result's type and is not the row's output, and the pair is declared as a
    :class:`~codemorph.engine.transform.Claim`: the program is executed on the stated input in
    the sandbox and must return a value not equal to the stated output, else the variant is
    not written (a stated input on which the program raises is not used either).

    The code is unchanged (a comment at the end of the ``def`` line: ``ast.dump`` with
    positions equal).  Refused when the program may read its own source
    (:data:`~codemorph.transforms.distractors.SOURCE_HAZARDS`), when the recorded output is
    not known, when no nearby input or no wrong output of the same type is made, and when the
    comment would be longer than :data:`MAX_COMMENT` characters.
    """

    name = "misleading-io-comment"
    family = "distractors"
    description = "Comment a wrong output for an input near the row's on the def line (shown wrong by execution)."
    preconditions = ("the program does not read its own source", "the row's recorded output is known",
                     "the stated input differs from the row's",
                     "the stated output shown wrong by execution on the stated input", "AST (with positions) unchanged")

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
        stated = nearby_input(args, ctx.rng)
        if stated is None:
            raise NotApplicable(f"no nearby input of the same types is made for {args[:40]!r}")
        if _same_args(stated, args):
            raise NotApplicable("the nearby input is the row's own input")
        text = f"{ctx.entry_point}({stated}) == {wrong}"
        if len(text) > MAX_COMMENT:
            raise NotApplicable(f"the input/output pair is longer than {MAX_COMMENT} characters")
        # the comment shows exactly the pair the claim runs: spaces kept as they are, so only
        # spaces and tabs, and never a PEP 263 coding declaration
        if not comment_text_ok(text):
            raise NotApplicable("the input/output pair does not fit on one comment line as it is "
                                "(a line break or form feed, or a coding declaration)")
        comment = make_comment(text)
        ctx.claim(Claim(text, ctx.program.source, ctx.entry_point, stated, expected=wrong))
        ctx.record(entry, f"comment: {text}")
        header = entry.body.header
        new_entry = entry.with_changes(body=entry.body.with_changes(header=header.with_changes(
            whitespace=cst.SimpleWhitespace("  "), comment=comment)))
        new = module.with_changes(body=[new_entry if s is entry else s for s in module.body])
        same_ast(ctx.program.source, new.code, positions=True)
        return new
