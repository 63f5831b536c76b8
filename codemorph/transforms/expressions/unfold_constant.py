"""``unfold-constant``: ``3`` -> ``(1 + 2)``, ``'ab'`` -> ``('a' + 'b')``.
"""

from __future__ import annotations

import ast

import libcst as cst

from codemorph.engine import NotApplicable, RewriteContext, Transform
from codemorph.authoring.scopes import FunctionIndex
from codemorph.authoring.sites import SiteChoice
from codemorph.transforms.expressions.common import ReplaceNodes, summarise

__all__ = ["UnfoldConstant"]


class _UnfoldCandidates(cst.CSTVisitor):
    """Integer and string literals that may be replaced by an equal constant expression."""

    def __init__(self, index: FunctionIndex) -> None:
        self.index = index
        self.sites: list[cst.CSTNode] = []
        self.skip_depth = 0
        self.reasons: list[str] = []

    # regions where a literal must stay a literal (or where its text is observable)
    def _skip(self, node) -> bool:
        self.skip_depth += 1
        return True

    def _unskip(self, node) -> None:
        self.skip_depth -= 1

    visit_Annotation = visit_FormattedString = visit_ConcatenatedString = visit_MatchCase = _skip
    leave_Annotation = leave_FormattedString = leave_ConcatenatedString = leave_MatchCase = _unskip

    def visit_MatchCase_body(self, node: cst.MatchCase) -> None:
        self.skip_depth -= 1  # the body of a case is ordinary code

    def leave_MatchCase_body(self, node: cst.MatchCase) -> None:
        self.skip_depth += 1

    def visit_MatchCase_guard(self, node: cst.MatchCase) -> None:
        self.skip_depth -= 1

    def leave_MatchCase_guard(self, node: cst.MatchCase) -> None:
        self.skip_depth += 1

    def visit_Expr(self, node: cst.Expr) -> bool:
        # a bare string statement (docstring or comment-like string) stays as it is
        return not isinstance(node.value, (cst.SimpleString, cst.ConcatenatedString))

    def visit_Comparison(self, node: cst.Comparison) -> None:
        # operands of ``is`` / ``is not`` compare identity: leave literal operands alone
        operands = [node.left] + [t.comparator for t in node.comparisons]
        for i, t in enumerate(node.comparisons):
            if isinstance(t.operator, (cst.Is, cst.IsNot)):
                self._no_touch.update({id(operands[i]), id(operands[i + 1])})

    def visit_Param(self, node: cst.Param) -> None:
        # string defaults keep their literal (their identity could be compared); int defaults are fine
        if node.default is not None and not isinstance(node.default, cst.Integer):
            self._no_touch.add(id(node.default))

    def visit_Module(self, node) -> None:
        self._no_touch: set[int] = set()

    def _literal(self, node: cst.CSTNode) -> None:
        if self.skip_depth or id(node) in self._no_touch:
            return
        if self.index.in_dynamic_scope(node):
            self.reasons.append("in a function using eval/exec/locals/globals/vars/dir")
            return
        try:
            value = ast.literal_eval(node.value)
        except (ValueError, SyntaxError):
            return
        if isinstance(node, cst.Integer):
            self.sites.append(node)
        elif isinstance(value, (str, bytes)) and len(value) >= 2:
            self.sites.append(node)

    def visit_Integer(self, node: cst.Integer) -> None:
        self._literal(node)

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        self._literal(node)


def _unfolded(node: cst.CSTNode, rng) -> tuple[cst.BaseExpression, str]:
    value = ast.literal_eval(node.value)
    if isinstance(value, int):
        if value == 0:
            k = rng.randint(1, 9)
            a, op, b = k, "-", k
        elif value == 1:
            k = rng.randint(2, 9)
            a, op, b = k, "-", k - 1
        else:
            a = rng.randint(1, value - 1)
            op, b = "+", value - a
        text = f"{a} {op} {b}"
    else:
        cut = rng.randint(1, len(value) - 1)
        text = f"{value[:cut]!r} + {value[cut:]!r}"
    expr = cst.parse_expression(text)
    expr = expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return expr, f"{node.value} -> ({text})"


class UnfoldConstant(SiteChoice, Transform):
    """Replace a literal by a constant expression of equal value: ``3`` -> ``(1 + 2)``,
    ``'ab'`` -> ``('a' + 'b')``, ``b'xy'`` -> ``(b'x' + b'y')``.

    The replacement is always parenthesised, so precedence never changes (``3 ** 2`` ->
    ``(1 + 2) ** 2``, ``3 .real`` -> ``(1 + 2).real``).  ``0`` becomes ``(k - k)`` and ``1``
    ``(k - (k-1))``.  Pure syntax, no runtime types.  Left alone: floats (their sums are
    not exact), strings shorter than 2 characters, anything inside f-strings (including
    format specs), implicitly concatenated strings (``'a' 'b'``), docstrings and other bare
    string statements, ``match`` patterns (which must be literals), annotations (their text
    may be observable), literal operands of ``is``/``is not`` (identity), string default
    values of parameters (identity), and code in functions using ``eval``/``exec``/
    ``locals``/``globals``/``vars``/``dir``.

    Options:
        which: ``"all"`` (default) unfolds every qualifying literal; ``"one"`` one literal
            chosen with the context's rng.
    """

    name = "unfold-constant"
    family = "expressions"
    description = "replace a literal by an equal constant expression: 3 -> (1 + 2)"
    preconditions = ("int or str/bytes literal outside patterns, annotations, f-strings, docstrings",)

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        index = FunctionIndex(ctx)
        finder = _UnfoldCandidates(index)
        module.visit(finder)
        if not finder.sites:
            why = summarise(finder.reasons) if finder.reasons else \
                "no int literal or string literal of 2+ characters outside docstrings, patterns and annotations"
            raise NotApplicable(why)
        chosen = self.choose(ctx, finder.sites)
        replacements: dict[int, cst.BaseExpression] = {}
        for node in chosen:
            new, desc = _unfolded(node, ctx.rng)
            replacements[id(node)] = new
            ctx.record(node, desc)

        def unfold(original, updated):
            new = replacements[id(original)]
            if original.lpar:  # keep the literal's own parentheses around the new expression
                return new.with_changes(lpar=[*original.lpar, *new.lpar], rpar=[*new.rpar, *original.rpar])
            return new

        return module.visit(ReplaceNodes(chosen, unfold))
