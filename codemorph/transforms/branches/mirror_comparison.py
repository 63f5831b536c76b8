"""``mirror-comparison``: ``a < b`` -> ``b > a`` where z3 proves the mirror identity for
the operands' observed types.
"""

from __future__ import annotations

from typing import Mapping

import libcst as cst

from codemorph.engine import NotApplicable, RewriteContext, Transform
from codemorph.authoring.sites import SiteChoice
from codemorph.authoring.syntax import literal_type
from codemorph.transforms.branches.conditions import MIRRORED, OP_TEXT, TypeOracle, flip_comparison, source_of
from codemorph.transforms.branches.statements import ReplaceStatements

__all__ = ["MirrorComparison"]


# ---------------------------------------------------------------------------------------
# mirror-comparison


class _Comparisons(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: list[cst.Comparison] = []

    def visit_Comparison(self, node: cst.Comparison) -> None:
        self.found.append(node)


def _name_or_literal(expr: cst.BaseExpression) -> bool:
    """Whether ``expr`` is a name or a literal: evaluating it has no side effect, so the
    two operands may be evaluated in either order (the oracle also types expressions such
    as ``len(w)``, whose order against another call's would be observable)."""
    return isinstance(expr, cst.Name) or literal_type(expr) is not None


class MirrorComparison(SiteChoice, Transform):
    """Mirror comparisons: ``a < b`` -> ``b > a`` (``<=``/``>=`` likewise, ``==`` and
    ``!=`` swap their operands).

    Why this needs care: ``a < b`` evaluates ``a`` first and calls ``type(a).__lt__``
    first; ``b > a`` evaluates ``b`` first and calls ``type(b).__gt__`` first (the
    reflected method only when the first returns ``NotImplemented``, or first when the
    right operand's type is a subclass of the left's).  So a comparison is mirrored only
    when both operands are names or literals (reading them has no side effect, and a
    local read can only fail with ``UnboundLocalError`` whichever is read first) and
    their observed types lie in one domain of builtin types (ints/bools, floats or
    strings: builtin methods, no side effects, no user ``__lt__``) in which z3 proves
    ``a OP b == b MIRROR(OP) a`` (:func:`prove_identity`).  Two literals qualify without
    observation.  Chained comparisons are left alone.

    Natural forms only: a comparison whose right operand is a literal and left a name is
    left alone (mirroring would write ``0 == x`` / ``5 > n``, a form people do not write);
    a literal already on the left is moved right (``0 == x`` -> ``x == 0``).  ``==``/``!=``
    are swapped here only (``swap-operands`` leaves them alone, so the two transforms never
    give the same variant).

    Needs runtime type observations; names must be locals of the function (or
    comprehension) where they are read, never bound by ``:=``, in a statement alone on its
    line, in a function without ``eval``/``locals``/...

    Args:
        which: ``"all"`` (default) or ``"one"`` (one site chosen with ``ctx.rng``).
    """

    name = "mirror-comparison"
    family = "branches"
    description = "Mirror comparisons (a < b -> b > a) where operand types are observed builtin numbers/strings."
    needs_runtime_types = True
    preconditions = (
        "a single comparison (< <= > >= == !=) between names/literals",
        "no literal moved to the left (x < 5 stays; 5 > x -> x < 5)",
        "names are locals observed only with types of one domain (int/bool, float or str) "
        "where z3 proves the mirror identity",
        "no := binding of the names, not in a line shared with another statement, no eval/locals",
    )

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        if not isinstance(ctx.observations, Mapping):
            raise NotApplicable("needs runtime type observations ({function: {local: [types]}}), none given")
        found = _Comparisons()
        module.visit(found)
        if not found.found:
            raise NotApplicable("no comparison")
        oracle = TypeOracle(ctx)
        sites: list[cst.Comparison] = []
        domains: dict[int, str] = {}
        for node in found.found:
            if len(node.comparisons) != 1 or type(node.comparisons[0].operator) not in OP_TEXT:
                continue
            if not all(_name_or_literal(e) for e in (node.left, node.comparisons[0].comparator)):
                continue  # mirrored, other operands would be evaluated in the other order
            if literal_type(node.comparisons[0].comparator) is not None and literal_type(node.left) is None:
                continue  # mirrored, the literal would read on the left (``0 == x``, ``5 > n``)
            if node.left.deep_equals(node.comparisons[0].comparator) and isinstance(
                    node.comparisons[0].operator, (cst.Equal, cst.NotEqual)):
                continue  # ``x == x`` mirrors to itself
            domain = oracle.domain(node, "mirror")
            if domain is not None and domain != "set":
                sites.append(node)
                domains[id(node)] = domain
        if not sites:
            raise NotApplicable("no comparison between names/literals of one observed builtin type "
                                "(int/bool, float or str) that mirrors without a literal on the left")
        chosen = self.choose(ctx, sites)

        def make(original: cst.Comparison, updated: cst.Comparison):
            new = flip_comparison(original, MIRRORED, swap=True)
            old_op = OP_TEXT[type(original.comparisons[0].operator)]
            return new, f"{source_of(original)} -> {source_of(new)} ({domains[id(original)]}, {old_op} mirrored)"

        return module.visit(ReplaceStatements(ctx, chosen, make))
