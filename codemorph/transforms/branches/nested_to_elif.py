"""``nested-to-elif``: an ``else`` holding only an ``if`` as ``elif``.
"""

from __future__ import annotations

import libcst as cst
from codemorph.engine import RewriteContext
from codemorph.transforms.branches.statements import Collect, StatementRewrite, make_elif, nested_inner

__all__ = ["NestedToElif"]


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
    _make = staticmethod(make_elif)

    def _sites(self, found: Collect, ctx: RewriteContext) -> list[cst.CSTNode]:
        return [n for n in found.ifs if nested_inner(n) is not None]
