"""``if-to-ternary``: an ``if``/``else`` of two single assignments (or returns) as a
conditional expression.
"""

from __future__ import annotations

import libcst as cst
from codemorph.engine import NotApplicable, RewriteContext
from codemorph.transforms.branches.conditions import source_of, strip_parentheses
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


#: the longest line a ternary is written on, unless the program has longer lines (black's default)
LINE_LIMIT = 88


def _unnatural(node: cst.If, ctx: RewriteContext | None = None) -> str | None:
    """Why the ternary of ``node`` would be a form people do not write, or ``None``:
    ``True if c else False`` (people write ``c`` or ``bool(c)``, which is another rewrite:
    ``c`` may not be a bool), nested conditional expressions, a test or branch value that
    spans several lines (``return text[i:`` / ``j] if c else text``), and (with ``ctx``) a line
    longer than :data:`LINE_LIMIT` characters and than every line of the program (a person
    keeps such an ``if``/``else`` on several lines)."""
    a, b = single_small(node.body).value, single_small(node.orelse.body).value
    bools = [isinstance(v, cst.Name) and v.value in ("True", "False") for v in (a, b)]
    if all(bools):
        return "both branches give a bool literal (True if c else False is not a form people write)"
    if isinstance(a, cst.IfExp) or isinstance(b, cst.IfExp):
        return "a branch is already a conditional expression (a nested ternary is not a form people write)"
    if any("\n" in source_of(e) for e in (strip_parentheses(node.test), a, b)):
        # ``return text[i:`` / ``j] if c else text``: a person keeps such an if/else on its lines
        return "the test or a branch value spans several lines (a conditional expression over lines is not a form " \
               "people write)"
    if ctx is not None:
        line = cst.Module([]).code_for_node(_make_ternary(node, node)[0]).splitlines()[-1]
        width = ctx.position(node)[1] - 1 + len(line)
        longest = max((len(x) for x in ctx.program.source.splitlines()), default=0)
        if width > max(LINE_LIMIT, longest):
            return (f"the conditional expression would make a line of {width} characters (longer than "
                    f"{LINE_LIMIT} and than every line of the program)")
    return None


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
    alone (they are not statements).  Natural forms only: an ``if``/``else`` giving ``True``
    and ``False`` (``return True if c else False``) and one whose branch value is already a
    conditional expression (a nested ternary) are left alone, and so are one whose test or
    branch value spans several lines and one whose line would be longer than 88 characters
    and than every line of the program (a person keeps it on several lines).  Comments of the removed lines (after ``if c:``,
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
        "not True/False in both branches, no conditional expression in a branch (no nested ternary)",
        "the test and both branch values each fit on one line",
        "the new line is at most 88 characters long, or no longer than the program's longest line",
        "the program does not observe line numbers or source text",
    )

    _keyword = "else"
    _nothing = "no if/else whose branches assign the same name or both return a value"
    _make = staticmethod(_make_ternary)

    def _sites(self, found: Collect, ctx: RewriteContext) -> list[cst.CSTNode]:
        candidates = [n for n in found.ifs if n not in found.elifs and if_to_ternary_kind(n) is not None]
        sites = [n for n in candidates if _unnatural(n, ctx) is None]
        if candidates and not sites:
            raise NotApplicable("; ".join(dict.fromkeys(_unnatural(n, ctx) for n in candidates)))
        return sites
