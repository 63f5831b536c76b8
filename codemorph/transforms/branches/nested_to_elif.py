"""``nested-to-elif``: an ``else`` holding only an ``if`` as ``elif``.
"""

from __future__ import annotations

import libcst as cst
from codemorph.engine import RewriteContext
from codemorph.transforms.branches.statements import Collect, StatementRewrite

__all__ = ["NestedToElif"]


def _nested_inner(node: cst.If) -> cst.If | None:
    """The ``if`` that is the whole ``else`` block of ``node``, when it can become an
    ``elif`` without losing a comment; else ``None``."""
    if not isinstance(node.orelse, cst.Else):
        return None
    body = node.orelse.body
    if not isinstance(body, cst.IndentedBlock) or len(body.body) != 1 or not isinstance(body.body[0], cst.If):
        return None
    if any(line.comment is not None for line in body.footer):
        return None
    return body.body[0]


def _make_elif(original: cst.If, updated: cst.If) -> tuple[cst.If, str]:
    old_else = updated.orelse
    inner = old_else.body.body[0]
    lines = list(old_else.leading_lines)
    if old_else.body.header.comment is not None:
        lines.append(cst.EmptyLine(indent=True, comment=old_else.body.header.comment))
    lines += inner.leading_lines
    return updated.with_changes(orelse=inner.with_changes(leading_lines=lines)), "else: if -> elif"


class NestedToElif(StatementRewrite):
    """Rewrite an ``else`` block that holds only an ``if`` statement as an ``elif``:
    ``if a: A else: (if b: B else: C)`` -> ``if a: A elif b: B else: C``.

    Exact (the inverse of ``elif-to-nested``).  Comments before ``else:``, after
    ``else:`` and before the inner ``if`` move before the ``elif`` line; an ``else``
    block ending with a comment is left alone.

    Args:
        which: ``"all"`` (default) or ``"one"`` (one site chosen with ``ctx.rng``).

    Refuses when there is no such ``else`` block or the program observes line numbers or
    source text.
    """

    name = "nested-to-elif"
    family = "branches"
    description = "Turn an else block holding only an if statement into an elif clause."
    preconditions = ("the else block holds exactly one statement, an if, and no trailing comment",
                     "the program does not observe line numbers or source text")

    _keyword = "else"
    _nothing = "no else block holding only an if statement"
    _make = staticmethod(_make_elif)

    def _sites(self, found: Collect, ctx: RewriteContext) -> list[cst.CSTNode]:
        return [n for n in found.ifs if _nested_inner(n) is not None]
