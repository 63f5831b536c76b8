"""``ternary-to-if``: a statement whose value is a conditional expression as an
``if``/``else``.
"""

from __future__ import annotations

import libcst as cst
from codemorph.engine import RewriteContext
from codemorph.transforms.branches.conditions import source_of
from codemorph.transforms.branches.statements import (
    Collect, ReplaceStatements, StatementRewrite, assigned_name, comment_lines, comments_in, make_elif,
    nested_inner, with_value, without_parentheses,
)

__all__ = ["TernaryToIf"]


def _ternary_stmt(line: cst.SimpleStatementLine) -> tuple[cst.BaseSmallStatement, cst.IfExp] | None:
    if len(line.body) != 1:
        return None
    small = line.body[0]
    value = None
    if isinstance(small, cst.Assign) and assigned_name(small) is not None:
        value = small.value
    elif isinstance(small, cst.Return):
        value = small.value
    if isinstance(value, cst.IfExp):
        return small, value
    return None


def _branch(small: cst.BaseSmallStatement, value: cst.BaseExpression) -> cst.IndentedBlock:
    return cst.IndentedBlock([cst.SimpleStatementLine([with_value(small, without_parentheses(value))])])


def _is_name(value: cst.BaseExpression, name: str | None) -> bool:
    """``value`` is the plain name ``name`` (``x`` in ``x = a if c else x``)."""
    return name is not None and isinstance(value, cst.Name) and value.value == name and not value.lpar


def _make_if(original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine,
             bound: frozenset[str] = frozenset()) -> tuple[cst.If, str]:
    small, value = _ternary_stmt(updated)
    comments = comments_in(value, value.test, value.body, value.orelse)
    # ``x = -x if x < 0 else x``: the last branch would be ``else: x = x``, which nobody
    # writes; for ``x`` a parameter in ``bound`` (surely bound, never deleted or declared
    # global/nonlocal) it does nothing (read, stored back) and is left out: ``if x < 0: x = -x``.
    # Elsewhere ``x = x`` may raise (an unbound local) or copy a global (a class body)
    target = assigned_name(small) if isinstance(small, cst.Assign) else None
    target = target if target in bound else None

    def chain(v: cst.IfExp) -> cst.If:
        orelse_value = v.orelse
        inner = orelse_value.with_changes(lpar=[], rpar=[]) if isinstance(orelse_value, cst.IfExp) else None
        if inner is not None and "\n" not in source_of(inner):
            orelse: cst.If | cst.Else | None = chain(inner)
        elif _is_name(orelse_value, target):
            orelse = None
        else:
            orelse = cst.Else(body=_branch(small, orelse_value))
        test = without_parentheses(v.test)
        return cst.If(test=test, body=_branch(small, v.body), orelse=orelse)

    new = chain(value.with_changes(lpar=[], rpar=[]))
    header = cst.TrailingWhitespace(whitespace=updated.trailing_whitespace.whitespace,
                                    comment=updated.trailing_whitespace.comment)
    new = new.with_changes(body=new.body.with_changes(header=header),
                           leading_lines=[*updated.leading_lines, *comment_lines(comments)])
    what = "return" if isinstance(small, cst.Return) else f"{assigned_name(small)} ="
    return new, f"{what} ... if ... else ... -> if/else statement"


class TernaryToIf(StatementRewrite):
    """Rewrite a statement-level conditional expression as an ``if``/``else`` statement.

    * ``x = a if c else b`` -> ``if c: x = a`` / ``else: x = b`` (one plain ``=`` to a
      simple name);
    * ``return a if c else b`` -> ``if c: return a`` / ``else: return b``;
    * a conditional expression in the ``else`` part becomes an ``elif``:
      ``x = a if c else b if d else e`` -> ``if c: ... elif d: ... else: ...``.

    Exact for every value (same evaluations in the same order, one truth test of ``c``).
    A last branch that gives the target itself is left out when the target is a parameter
    of the function that nothing deletes or declares ``global``/``nonlocal`` (so ``x = x``
    does nothing): ``x = -x if x < 0 else x`` -> ``if x < 0: x = -x``, not ``else: x = x``;
    elsewhere ``x = x`` may raise (an unbound local) or copy a global (a class body) and is
    written.
    Only statements alone on their line are rewritten (not ``a = 1; x = p if c else q``,
    nor the body of a one-line ``if``/``for``).  A statement that is the whole ``else:``
    block of an ``if`` becomes an ``elif`` of it, as people write it: ``if a: c = 1`` /
    ``else: c = 2 if d else 3`` -> ``if a: c = 1`` / ``elif d: c = 2`` / ``else: c = 3``
    (the ``else:`` block ending with a comment stays a block).  The comment at the end of the line moves
    to the ``if c:`` line.

    Args:
        which: ``"all"`` (default) or ``"one"`` (one site chosen with ``ctx.rng``).

    Refuses when there is no such statement or the program observes line numbers or
    source text.
    """

    name = "ternary-to-if"
    family = "branches"
    description = "Turn `x = a if c else b` / `return a if c else b` statements into if/else statements."
    preconditions = (
        "the statement is alone on its line: `name = a if c else b` (one simple-name target) "
        "or `return a if c else b`",
        "the program does not observe line numbers or source text",
    )

    _keyword = "else"
    _nothing = "no statement `name = a if c else b` or `return a if c else b` alone on its line"
    _make = staticmethod(_make_if)

    def _sites(self, found: Collect, ctx: RewriteContext) -> list[cst.CSTNode]:
        return [ln for ln in found.lines if _ternary_stmt(ln) is not None]

    def _make_for(self, found: Collect):
        # `else: x = x` is left out for a parameter x that is surely bound (see _make_if)
        return lambda original, updated: _make_if(original, updated, found.bound_parameters.get(original, frozenset()))

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        """As :meth:`StatementRewrite.rewrite`; then an ``else:`` block whose only statement
        became an ``if`` statement is written as ``elif`` (``else: c = a if d else b`` gives
        ``elif d: c = a`` / ``else: c = b``, as people write it, never ``else:`` / ``if d:``)."""
        found, sites = self._found_sites(module, ctx)
        make = self._make_for(found)
        made: set[int] = set()

        def recording(original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine) -> tuple[cst.If, str]:
            new, what = make(original, updated)
            made.add(id(new))
            return new, what

        out = module.visit(ReplaceStatements(ctx, self.choose(ctx, sites), recording))
        return out.visit(_ElseIfToElif(made))


class _ElseIfToElif(cst.CSTTransformer):
    """``else:`` blocks holding only one of the ``if`` statements ``made`` (ids) become
    ``elif`` clauses (comments before and after ``else:`` move before the ``elif``, as in
    ``nested-to-elif``; a block ending with a comment stays)."""

    def __init__(self, made: set[int]) -> None:
        super().__init__()
        self.made = made

    def leave_If(self, original_node: cst.If, updated_node: cst.If) -> cst.If:
        inner = nested_inner(original_node)  # the nodes of this pass's input tree are the ones made
        if inner is None or id(inner) not in self.made or nested_inner(updated_node) is None:
            return updated_node
        return make_elif(updated_node, updated_node)[0]
