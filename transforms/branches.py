"""The ``branches`` family: rewrites of conditional statements.

``invert-if`` (:class:`InvertIf`) swaps the branches of an ``if`` under the negated
condition.  The family will grow (if-to-ternary, ...); :func:`negate` (build the negation
of a condition for a boolean context) is the shared piece.
"""

from __future__ import annotations

from typing import Sequence

import libcst as cst

from codemorph import NotApplicable, RewriteContext, Transform

from .loops import LINE_HAZARDS, hazard_identifiers

__all__ = ["InvertIf", "negate", "needs_parentheses_under_not", "strip_parentheses"]

# Expressions that bind less tightly than ``not`` and so need parentheses under it.
_LOOSER_THAN_NOT = (cst.BooleanOperation, cst.IfExp, cst.Lambda, cst.NamedExpr)

# Expressions that may stand unparenthesised as an ``if``/``elif`` test.
_SAFE_BARE_TEST = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Comparison, cst.BooleanOperation,
                   cst.UnaryOperation, cst.BinaryOperation, cst.IfExp, cst.NamedExpr, cst.Integer, cst.Float,
                   cst.Imaginary, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.List,
                   cst.Dict, cst.Set, cst.ListComp, cst.SetComp, cst.DictComp, cst.Await, cst.Ellipsis)

_FLIP = {cst.Is: cst.IsNot, cst.IsNot: cst.Is, cst.In: cst.NotIn, cst.NotIn: cst.In}


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def needs_parentheses_under_not(expr: cst.BaseExpression) -> bool:
    """Whether ``not <expr>`` would parse differently from ``not (<expr>)``: true for
    ``and``/``or``, conditional expressions, lambdas and walrus written without their own
    parentheses (everything else binds at least as tightly as ``not``)."""
    return isinstance(expr, _LOOSER_THAN_NOT) and not expr.lpar


def strip_parentheses(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``expr`` without its outer parentheses when it may stand alone as an ``if`` test
    (one line, and a kind of expression that needs no parentheses there); else ``expr``."""
    if expr.lpar and isinstance(expr, _SAFE_BARE_TEST):
        bare = expr.with_changes(lpar=[], rpar=[])
        if "\n" not in _code(bare):
            return bare
    return expr


def negate(test: cst.BaseExpression) -> tuple[cst.BaseExpression, str]:
    """The negation of ``test`` for a boolean context (an ``if``/``elif``/``while`` test),
    and a short name of the rule used.

    Rules, each valid for every value the operands can take (``__bool__`` is called exactly
    as often, in the same order, because CPython compiles a ``not`` in a test as a jump):

    * ``not E`` -> ``E`` (parentheses dropped when not needed);
    * ``a is b`` <-> ``a is not b`` and ``a in b`` <-> ``a not in b`` (a single comparison;
      ``not in`` is defined as the negation of ``in``);
    * anything else -> ``not E``, parenthesised only when ``E`` binds less tightly than
      ``not`` (``and``/``or``, conditional expression, lambda, unparenthesised walrus).

    Comparisons such as ``<`` or ``==`` are never flipped (``not (a < b)`` is not
    ``a >= b`` for NaN, sets or user classes).
    """
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        # ``not E`` or ``(not E)``: E alone (in a test, its parentheses are rarely needed)
        return strip_parentheses(test.expression), "not-elimination"
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        flip = _FLIP.get(type(target.operator))
        if flip is not None:
            op = target.operator
            new_op = flip(whitespace_before=op.whitespace_before, whitespace_after=op.whitespace_after)
            rule = {cst.IsNot: "is -> is not", cst.Is: "is not -> is",
                    cst.NotIn: "in -> not in", cst.In: "not in -> in"}[flip]
            return test.with_changes(comparisons=[target.with_changes(operator=new_op)]), rule
    operand = test
    if needs_parentheses_under_not(operand):
        operand = operand.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.UnaryOperation(cst.Not(whitespace_after=cst.SimpleWhitespace(" ")), operand), "not"


def _is_simple_suite(body: cst.BaseSuite) -> bool:
    return isinstance(body, cst.SimpleStatementSuite)


def _pass_suite(like: cst.BaseSuite) -> cst.BaseSuite:
    if isinstance(like, cst.SimpleStatementSuite):
        return cst.SimpleStatementSuite([cst.Pass()])
    return cst.IndentedBlock([cst.SimpleStatementLine([cst.Pass()])])


def _with_leading_comments(body: cst.BaseSuite, lines: Sequence[cst.EmptyLine]) -> cst.BaseSuite | None:
    """``body`` with ``lines`` put before its first statement, or ``None`` if it cannot
    hold them (a one-line suite) or they hold no comment (blank lines stay in place)."""
    if not lines:
        return body
    if not any(line.comment is not None for line in lines):
        return None
    if isinstance(body, cst.IndentedBlock) and body.body:
        first = body.body[0]
        first = first.with_changes(leading_lines=[*lines, *first.leading_lines])
        return body.with_changes(body=[first, *body.body[1:]])
    return None


def _invert(node: cst.If) -> tuple[cst.If, str]:
    """Invert one ``if``/``elif`` node whose ``orelse`` is an ``else`` or nothing."""
    test, rule = negate(node.test)
    ws = node.whitespace_before_test
    if isinstance(ws, cst.SimpleWhitespace) and ws.value == "":
        ws = cst.SimpleWhitespace(" ")  # ``if(x):`` -> ``if not (x):``
    if node.orelse is None:
        new_body = _pass_suite(node.body)
        new_else = cst.Else(body=node.body)
        kind = "if without else"
    else:
        assert isinstance(node.orelse, cst.Else)
        old_else = node.orelse
        moved = _with_leading_comments(old_else.body, old_else.leading_lines)
        if moved is None:  # blank lines / comments before ``else:`` stay before the new ``else:``
            new_body, else_lines = old_else.body, old_else.leading_lines
        else:
            new_body, else_lines = moved, ()
        new_else = cst.Else(body=node.body, leading_lines=else_lines,
                            whitespace_before_colon=old_else.whitespace_before_colon)
        kind = "if/else"
    new = node.with_changes(test=test, whitespace_before_test=ws, body=new_body, orelse=new_else)
    return new, f"{kind}: branches swapped under negated test ({rule})"


class _InvertRewriter(cst.CSTTransformer):
    def __init__(self, ctx: RewriteContext, chosen: Sequence[cst.If]) -> None:
        super().__init__()
        self.ctx = ctx
        self.chosen = set(chosen)

    def leave_If(self, original_node: cst.If, updated_node: cst.If) -> cst.If:
        if original_node not in self.chosen:
            return updated_node
        new, description = _invert(updated_node)
        self.ctx.record(original_node, description)
        return new


class _IfSites(cst.CSTVisitor):
    """The last test of every ``if``/``elif`` chain (the node whose ``orelse`` is an
    ``else`` or nothing), in source order."""

    def __init__(self) -> None:
        self.sites: list[cst.If] = []

    def visit_If(self, node: cst.If) -> None:
        if not isinstance(node.orelse, cst.If):
            self.sites.append(node)


class InvertIf(Transform):
    """Swap the branches of ``if`` statements under the negated condition.

    * ``if c: A else: B`` -> ``if not c: B else: A``;
    * ``if c: A`` -> ``if not c: pass else: A``;
    * in an ``elif`` chain the last test is inverted, so the chain stays a chain:
      ``if a: A elif b: B else: C`` -> ``if a: A elif not b: C else: B``.

    The condition is negated by :func:`negate` (``not``, parenthesised only when needed;
    ``not E`` -> ``E``; ``is``/``is not`` and ``in``/``not in`` flipped), which keeps
    truthiness (``__bool__``/``__len__`` called exactly as often), evaluation order,
    short-circuiting and walrus bindings.  Comments move with their branch: the comment
    after ``if c:`` / ``else:`` and the comments inside each body go where the body goes;
    comments on the lines just before ``else:`` move with the else branch.

    Args:
        which: ``"all"`` (default) inverts every chain; ``"one"`` inverts one chain chosen
            with ``ctx.rng`` (uniformly, chains in source order).

    Refuses (``NotApplicable``) when the program has no ``if`` statement, or when it looks
    at line numbers or source text (tracebacks, warnings, ``inspect``), since the swapped
    branches change the line numbers of the statements they hold.

    Raises:
        ValueError: on construction, when ``which`` is not ``"all"`` or ``"one"``.
    """

    name = "invert-if"
    family = "branches"
    description = "Swap if/else branches under the negated condition (keeps elif chains, truthiness, short-circuiting)."
    preconditions = (
        "the program does not observe line numbers or source text",
    )

    def __init__(self, which: str = "all") -> None:
        if which not in ("all", "one"):
            raise ValueError(f"invert-if: option which must be 'all' or 'one', got {which!r}")
        self.which = which

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        finder = _IfSites()
        module.visit(finder)
        if not finder.sites:
            raise NotApplicable("no if statement")
        found = hazard_identifiers(module, LINE_HAZARDS)
        if found:
            raise NotApplicable(f"program observes line numbers or source text ({', '.join(found)})")
        chosen = finder.sites if self.which == "all" else [ctx.rng.choice(finder.sites)]
        return module.visit(_InvertRewriter(ctx, chosen))
