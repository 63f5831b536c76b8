"""``invert-if``: ``if c: A else: B`` -> ``if not c: B else: A``, the negated condition
simplified where z3 proves it.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import libcst as cst

from codemorph.engine import NotApplicable, RewriteContext, Transform
from codemorph.authoring.sites import SiteChoice
from codemorph.authoring.hazards import LINE_HAZARDS, hazard_identifiers
from codemorph.transforms.branches.conditions import TypeOracle, negate, pass_suite, with_leading_comments

__all__ = ["InvertIf"]


def _invert(node: cst.If, original_test: cst.BaseExpression | None = None,
            oracle: "TypeOracle | None" = None) -> tuple[cst.If, str]:
    """Invert one ``if``/``elif`` node whose ``orelse`` is an ``else`` or nothing.

    ``original_test`` is the test as a node of the input tree (a test holds no statement,
    so it equals ``node.test``); the ``oracle`` looks its names up."""
    test, rule = negate(original_test if original_test is not None else node.test, oracle)
    ws = node.whitespace_before_test
    if isinstance(ws, cst.SimpleWhitespace) and ws.value == "":
        ws = cst.SimpleWhitespace(" ")  # ``if(x):`` -> ``if not (x):``
    if node.orelse is None:
        new_body = pass_suite(node.body)
        new_else = cst.Else(body=node.body)
        kind = "if without else"
    else:
        assert isinstance(node.orelse, cst.Else)
        old_else = node.orelse
        moved = with_leading_comments(old_else.body, old_else.leading_lines)
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
    # it looks nodes up by original_node only: an unchanged subtree is not rebuilt
    # (codemorph.engine.visiting; performance only)
    reuse_unchanged_nodes = True

    def __init__(self, ctx: RewriteContext, chosen: Sequence[cst.If], oracle: "TypeOracle | None" = None) -> None:
        super().__init__()
        self.ctx = ctx
        self.chosen = set(chosen)
        self.oracle = oracle

    def leave_If(self, original_node: cst.If, updated_node: cst.If) -> cst.If:
        if original_node not in self.chosen:
            return updated_node
        new, description = _invert(updated_node, original_node.test, self.oracle)
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


class InvertIf(SiteChoice, Transform):
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

    With runtime observations (``ctx.observations``) and ``simplify`` on, the negated test
    is simplified where z3 proves it valid for every value of the operands' observed types
    (see :func:`negate`): ``not (a < b)`` -> ``a >= b`` on ints and strings,
    ``not (a == b)`` -> ``a != b``, De Morgan over comparisons and bools.  Without
    observations the plain rules apply.

    Args:
        which: ``"all"`` (default) inverts every chain; ``"one"`` inverts one chain chosen
            with ``ctx.rng`` (uniformly, chains in source order).
        simplify: ``True`` (default) simplifies negated tests when observations are
            given; ``False`` never does.

    Refuses (``NotApplicable``) when the program has no ``if`` statement, or when it looks
    at line numbers or source text (tracebacks, warnings, ``inspect``), since the swapped
    branches change the line numbers of the statements they hold.

    Raises:
        ValueError: on construction, when ``which`` is not ``"all"`` or ``"one"``, or
            ``simplify`` is not a bool.
    """

    uses_runtime_types = True
    name = "invert-if"
    family = "branches"
    description = "Swap if/else branches under the negated condition (keeps elif chains, truthiness, short-circuiting)."
    preconditions = (
        "the program does not observe line numbers or source text",
        "simplified comparisons: operands are names/literals whose observed types lie in a domain "
        "where z3 proves the negation identity",
        "De Morgan: every operand is a comparison, `not`, or observed only as bool",
    )

    def __init__(self, which: str = "all", simplify: bool = True) -> None:
        SiteChoice.__init__(self, which)
        if not isinstance(simplify, bool):
            raise ValueError(f"invert-if: option simplify must be true or false, got {simplify!r}")
        self.simplify = simplify

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        finder = _IfSites()
        module.visit(finder)
        if not finder.sites:
            raise NotApplicable("no if statement")
        found = hazard_identifiers(module, LINE_HAZARDS)
        if found:
            raise NotApplicable(f"program observes line numbers or source text ({', '.join(found)})")
        chosen = self.choose(ctx, finder.sites)
        oracle = TypeOracle(ctx) if self.simplify and isinstance(ctx.observations, Mapping) else None
        return module.visit(_InvertRewriter(ctx, chosen, oracle))
