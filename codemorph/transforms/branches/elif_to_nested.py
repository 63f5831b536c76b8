"""``elif-to-nested``: ``elif`` as an ``else`` holding a nested ``if``.
"""

from __future__ import annotations

import libcst as cst
from codemorph.engine import RewriteContext
from codemorph.transforms.branches.statements import Collect, StatementRewrite

__all__ = ["ElifToNested"]


# ---------------------------------------------------------------------------------------
# elif-to-nested / nested-to-elif


def _make_nested(original: cst.If, updated: cst.If) -> tuple[cst.If, str]:
    inner = updated.orelse
    assert isinstance(inner, cst.If)
    block = cst.IndentedBlock([inner.with_changes(leading_lines=[])])
    new = updated.with_changes(orelse=cst.Else(body=block, leading_lines=inner.leading_lines))
    return new, "elif -> else: if"


class ElifToNested(StatementRewrite):
    """Rewrite the first ``elif`` of a chain as an ``if`` nested in an ``else`` block:
    ``if a: A elif b: B else: C`` -> ``if a: A else: (if b: B else: C)``.

    Exact: an ``elif`` is defined as an ``else`` holding an ``if``.  Comments before the
    ``elif`` line stay before the new ``else:``.  A chain is nested once, at its first
    ``elif``: the later ``elif`` clauses stay ``elif`` clauses of the nested ``if``
    (``if a: A elif b: B elif c: C`` -> ``if a: A`` / ``else:`` / ``if b: B elif c: C``), the
    grouping people write, never a staircase of ``else: if`` one level deeper per clause.

    Args:
        which: ``"all"`` (default) nests every chain; ``"one"`` one chain chosen with
            ``ctx.rng``.

    Refuses when there is no ``elif`` or the program observes line numbers or source text.
    """

    name = "elif-to-nested"
    family = "branches"
    description = "Turn elif clauses into an if nested in an else block."
    preconditions = ("the program does not observe line numbers or source text",
                     "only the first elif of a chain is nested (later ones stay elif clauses of the nested if)")

    _keyword = "elif"
    _nothing = "no elif clause"
    _make = staticmethod(_make_nested)

    def _sites(self, found: Collect, ctx: RewriteContext) -> list[cst.CSTNode]:
        # the head of each chain (not itself an elif clause): nesting every elif would write a
        # staircase, one `else: if` level per clause, which nobody writes
        return [n for n in found.ifs if isinstance(n.orelse, cst.If) and n not in found.elifs]
