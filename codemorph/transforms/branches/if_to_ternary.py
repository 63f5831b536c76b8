"""``if-to-ternary``: an ``if``/``else`` of two single assignments (or returns) as a
conditional expression.
"""

from __future__ import annotations

import libcst as cst
from codemorph.transforms.branches.statements import (
    Collect, StatementRewrite, comment_lines, comments_in, if_to_ternary_kind, make_ifexp,
    single_small, with_value,
)

__all__ = ["IfToTernary"]


def _make_ternary(original: cst.If, updated: cst.If) -> tuple[cst.SimpleStatementLine, str]:
    kind, name = if_to_ternary_kind(updated)
    a, b = single_small(updated.body), single_small(updated.orelse.body)
    value = make_ifexp(updated.test, a.value, b.value)
    comments = comments_in(updated.body, a.value) + comments_in(updated.orelse, b.value)
    small = with_value(a, value)
    if kind == "assign":
        what = f"if/else assigning {name} -> {name} = ... if ... else ..."
    else:
        what = "if/else returning -> return ... if ... else ..."
    line = cst.SimpleStatementLine([small], leading_lines=[*updated.leading_lines, *comment_lines(comments)])
    return line, what


class IfToTernary(StatementRewrite):
    """Rewrite an ``if``/``else`` whose branches assign one name, or return, as a
    conditional expression.

    * ``if c: x = a`` / ``else: x = b`` -> ``x = a if c else b`` (one plain ``=`` to the
      same simple name in both branches, one statement each);
    * ``if c: return a`` / ``else: return b`` -> ``return a if c else b``.

    Exact for every value: ``c`` is evaluated and its truth tested once, then only the
    chosen branch's expression is evaluated and stored/returned, as before.  Operands that
    would parse differently inside a conditional expression (lambda, walrus, yield,
    conditional expression, bare tuple) are parenthesised.  ``elif`` clauses are left
    alone (they are not statements).  Comments of the removed lines (after ``if c:``,
    ``else:``, on the branch lines) are kept on their own lines above the new statement.

    Args:
        which: ``"all"`` (default) or ``"one"`` (one site chosen with ``ctx.rng``).

    Refuses when no such ``if`` exists or the program observes line numbers or source
    text (the statement shrinks to one line).
    """

    name = "if-to-ternary"
    family = "branches"
    description = "Turn if/else that assigns one name (or returns) in both branches into a conditional expression."
    preconditions = (
        "both branches are a single `name = value` to the same simple name, or a single `return value`",
        "the if is a statement, not an elif clause",
        "the program does not observe line numbers or source text",
    )

    _keyword = "else"
    _nothing = "no if/else whose branches assign the same name or both return a value"
    _make = staticmethod(_make_ternary)

    def _sites(self, found: Collect) -> list[cst.CSTNode]:
        return [n for n in found.ifs if n not in found.elifs and if_to_ternary_kind(n) is not None]
