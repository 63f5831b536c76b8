"""Helpers of the statement-level branch transforms (if-to-ternary, ternary-to-if,
elif-to-nested, nested-to-elif): comments kept, parentheses, line hazards, and their
base class.
"""

from __future__ import annotations

from typing import Any, ClassVar, Sequence

import libcst as cst

from codemorph.engine import NotApplicable, RewriteContext, Transform
from codemorph.authoring.facts import ProgramFacts
from codemorph.authoring.sites import SiteChoice
from codemorph.authoring.hazards import LINE_HAZARDS, hazard_identifiers
from codemorph.transforms.branches.conditions import source_of, strip_parentheses

__all__ = [
    "comments_in", "comment_lines", "single_small", "assigned_name", "without_parentheses",
    "Collect", "ReplaceStatements", "make_ifexp", "if_to_ternary_kind", "StatementRewrite",
    "with_value", "refuse_line_hazards", "nested_inner", "make_elif",
]


# ---------------------------------------------------------------------------------------
# shared helpers of the statement rewrites


class _Comments(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: list[cst.Comment] = []

    def visit_Comment(self, node: cst.Comment) -> None:
        self.found.append(node)


def comments_in(node: cst.CSTNode, *keep: cst.CSTNode | None) -> list[cst.Comment]:
    """The comments inside ``node`` (source order) that are not inside any of ``keep``
    (subtrees that are reused as they are, so their comments stay with them)."""
    v = _Comments()
    node.visit(v)
    kept: set[int] = set()
    for k in keep:
        if k is not None:
            w = _Comments()
            k.visit(w)
            kept.update(id(c) for c in w.found)
    return [c for c in v.found if id(c) not in kept]


def comment_lines(comments: Sequence[cst.Comment]) -> list[cst.EmptyLine]:
    """Own-line copies of ``comments``, to keep them when their statement is rewritten."""
    return [cst.EmptyLine(indent=True, comment=c) for c in comments]


def single_small(body: cst.BaseSuite) -> cst.BaseSmallStatement | None:
    """The only statement of a suite when it is one simple statement, else ``None``."""
    if isinstance(body, cst.SimpleStatementSuite):
        return body.body[0] if len(body.body) == 1 else None
    if isinstance(body, cst.IndentedBlock) and len(body.body) == 1:
        line = body.body[0]
        if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1:
            return line.body[0]
    return None


def assigned_name(stmt: cst.BaseSmallStatement) -> str | None:
    """The name ``stmt`` assigns when it is ``name = value`` (one unparenthesised target),
    else ``None``."""
    if isinstance(stmt, cst.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0].target, cst.Name) \
            and not stmt.targets[0].target.lpar:
        return stmt.targets[0].target.value
    return None


#: Expressions that need parentheses as a part of a conditional expression.
_LOOSE_IN_IFEXP = (cst.IfExp, cst.Lambda, cst.NamedExpr, cst.Yield)


def _paren(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``expr`` parenthesised when it cannot stand bare inside ``a if c else b``
    (conditional expression, lambda, walrus, yield, a tuple without parentheses)."""
    if expr.lpar:
        return expr
    if isinstance(expr, _LOOSE_IN_IFEXP) or (isinstance(expr, cst.Tuple)):
        return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return expr


def without_parentheses(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``expr`` as it can stand alone as a statement's value or test: outer parentheses
    dropped when not needed (kept on walrus, yield, generator expressions and multi-line
    expressions), added to a multi-line expression that has none (it may have relied on
    enclosing parentheses to continue its lines)."""
    if expr.lpar:
        if not isinstance(expr, (cst.NamedExpr, cst.Yield, cst.GeneratorExp, cst.Tuple)):
            bare = expr.with_changes(lpar=[], rpar=[])
            if "\n" not in source_of(bare):
                return bare
        return expr
    if "\n" in source_of(expr) or isinstance(expr, (cst.NamedExpr, cst.Yield)):
        return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return expr


def refuse_line_hazards(module: cst.Module) -> None:
    """``NotApplicable`` when the program observes line numbers or source text."""
    found = hazard_identifiers(module, LINE_HAZARDS)
    if found:
        raise NotApplicable(f"program observes line numbers or source text ({', '.join(found)})")


class Collect(cst.CSTVisitor):
    """If statements (and elif clauses), simple statement lines, and the If nodes that
    are ``elif`` clauses, in source order."""

    def __init__(self) -> None:
        self.ifs: list[cst.If] = []
        self.elifs: set[cst.If] = set()
        self.lines: list[cst.SimpleStatementLine] = []
        #: for each statement line directly in a function's body (not in a nested class),
        #: the function's parameters that are bound wherever its code runs: none is unbound or
        #: rebound elsewhere by ``del``, ``except ... as``, ``global`` or ``nonlocal`` in it
        #: (``x = x`` of such a parameter is a no-op)
        self.bound_parameters: dict[cst.SimpleStatementLine, frozenset[str]] = {}
        self._scopes: list[frozenset[str] | None] = []

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._scopes.append(None)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._scopes.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        p = node.params
        params = {x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params)}
        for star in (p.star_arg, p.star_kwarg):
            if isinstance(star, cst.Param):
                params.add(star.name.value)
        # the names a del, except ... as, global or nonlocal in it (nested code included) may
        # unbind or rebind: the kit's facts of this function
        unbound = ProgramFacts.of(cst.Module(body=[node])).functions[node].unbinders
        self._scopes.append(frozenset(params - unbound))

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._scopes.pop()

    def visit_If(self, node: cst.If) -> None:
        self.ifs.append(node)
        if isinstance(node.orelse, cst.If):
            self.elifs.add(node.orelse)

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self.lines.append(node)
        if self._scopes and self._scopes[-1] is not None:
            self.bound_parameters[node] = self._scopes[-1]


class ReplaceStatements(cst.CSTTransformer):
    """Replace chosen nodes (by identity in the input tree) with what ``make`` returns for
    the updated node; ``make(original, updated)`` returns ``(new node, description)``."""

    def __init__(self, ctx: RewriteContext, chosen: Sequence[cst.CSTNode], make) -> None:
        super().__init__()
        self.ctx = ctx
        self.chosen = set(map(id, chosen))
        self.make = make

    def on_leave(self, original_node, updated_node):
        if id(original_node) in self.chosen:
            new, description = self.make(original_node, updated_node)
            self.ctx.record(original_node, description)
            return new
        return updated_node


# ---------------------------------------------------------------------------------------
# if-to-ternary / ternary-to-if


def make_ifexp(test: cst.BaseExpression, body: cst.BaseExpression, orelse: cst.BaseExpression) -> cst.IfExp:
    """``body if test else orelse``, parenthesised where the operands need it."""
    return cst.IfExp(test=_paren(strip_parentheses(test)), body=_paren(body), orelse=_paren(orelse))


def if_to_ternary_kind(node: cst.If) -> tuple[str, str | None] | None:
    """``("assign", name)`` or ``("return", None)`` when ``node`` is an if/else whose two
    branches assign the same name / return a value; else ``None``."""
    if not isinstance(node.orelse, cst.Else):
        return None
    a, b = single_small(node.body), single_small(node.orelse.body)
    if a is None or b is None:
        return None
    na, nb = assigned_name(a), assigned_name(b)
    if na is not None and na == nb:
        return "assign", na
    if isinstance(a, cst.Return) and isinstance(b, cst.Return) and a.value is not None and b.value is not None:
        return "return", None
    return None


class StatementRewrite(SiteChoice, Transform):
    """Shared ``rewrite`` of the statement transforms (if-to-ternary, ternary-to-if,
    elif-to-nested, nested-to-elif): sites are found with :class:`Collect`, programs
    that observe line numbers or source text are refused, and each chosen site is
    replaced by :func:`_make` through :class:`ReplaceStatements`.

    A subclass sets ``_keyword`` (text every site needs in the source: a quick exit),
    ``_nothing`` (the refusal reason when there is no site), ``_make`` (a
    ``staticmethod(original, updated) -> (replacement, site description)``) and
    implements :meth:`_sites`.
    """

    _keyword: ClassVar[str] = "else"
    _nothing: ClassVar[str] = ""

    def _sites(self, found: Collect, ctx: RewriteContext) -> list[cst.CSTNode]:
        """The nodes of ``found`` this transform can rewrite, in source order."""
        raise NotImplementedError

    @staticmethod
    def _make(original: Any, updated: Any) -> tuple[cst.CSTNode, str]:
        raise NotImplementedError

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        found, sites = self._found_sites(module, ctx)
        return module.visit(ReplaceStatements(ctx, self.choose(ctx, sites), self._make_for(found)))

    def _found_sites(self, module: cst.Module, ctx: RewriteContext) -> tuple[Collect, list[cst.CSTNode]]:
        """The module's statements (:class:`Collect`) and the sites among them.

        Raises:
            NotApplicable: no site, or the module has a line this family cannot rewrite
                around (:func:`refuse_line_hazards`)."""
        if self._keyword not in ctx.program.source:  # quick exit (the common case)
            raise NotApplicable(self._nothing)
        found = Collect()
        module.visit(found)
        sites = self._sites(found, ctx)
        if not sites:
            raise NotApplicable(self._nothing)
        refuse_line_hazards(module)
        return found, sites

    def _make_for(self, found: Collect):
        """The ``make(original, updated)`` used on this program's sites (``_make``; a
        subclass may pick one that depends on what ``found`` saw)."""
        return self._make


def with_value(small: cst.BaseSmallStatement, value: cst.BaseExpression) -> cst.BaseSmallStatement:
    """``small`` (an assignment or ``return``) with another value, alone on its line
    (``return(a)`` gets a space when the new value has no parentheses of its own)."""
    changes: dict = {"value": value, "semicolon": cst.MaybeSentinel.DEFAULT}
    if isinstance(small, cst.Return) and not value.lpar:
        changes["whitespace_after_return"] = cst.SimpleWhitespace(" ")
    return small.with_changes(**changes)


def nested_inner(node: cst.If) -> cst.If | None:
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


def make_elif(original: cst.If, updated: cst.If) -> tuple[cst.If, str]:
    """``updated`` (an ``if`` whose ``else`` block :func:`nested_inner` accepts) with that block
    as an ``elif`` clause (comments before and after ``else:`` and before the inner ``if`` move
    before the ``elif`` line), and a description of the site."""
    old_else = updated.orelse
    inner = old_else.body.body[0]
    lines = list(old_else.leading_lines)
    if old_else.body.header.comment is not None:
        lines.append(cst.EmptyLine(indent=True, comment=old_else.body.header.comment))
    lines += inner.leading_lines
    return updated.with_changes(orelse=inner.with_changes(leading_lines=lines)), "else: if -> elif"
