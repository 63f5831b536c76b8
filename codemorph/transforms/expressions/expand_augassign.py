"""``expand-augassign``: ``x += e`` -> ``x = x + e`` (``e`` parenthesised where precedence
needs it) for names that only ever hold immutable values.
"""

from __future__ import annotations

import libcst as cst

from codemorph.engine import NotApplicable, RewriteContext, Transform
from codemorph.authoring.scopes import FunctionIndex
from codemorph.authoring.sites import SiteChoice
from codemorph.authoring.syntax import code_of
from codemorph.transforms.expressions.common import (
    IMMUTABLE_TYPES, ReplaceNodes, require_observations, summarise,
)

__all__ = ["ExpandAugAssign"]


_AUG_TO_BIN = {
    cst.AddAssign: cst.Add, cst.SubtractAssign: cst.Subtract, cst.MultiplyAssign: cst.Multiply,
    cst.DivideAssign: cst.Divide, cst.FloorDivideAssign: cst.FloorDivide, cst.ModuloAssign: cst.Modulo,
    cst.PowerAssign: cst.Power, cst.LeftShiftAssign: cst.LeftShift, cst.RightShiftAssign: cst.RightShift,
    cst.BitAndAssign: cst.BitAnd, cst.BitOrAssign: cst.BitOr, cst.BitXorAssign: cst.BitXor,
    cst.MatrixMultiplyAssign: cst.MatrixMultiply,
}

# expressions that bind at least as tightly as any binary operator (so ``x op E`` parses
# as intended without parentheses); everything else is parenthesised
_ATOMS = (cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString,
          cst.FormattedString, cst.Call, cst.Attribute, cst.Subscript, cst.List, cst.Dict, cst.Set,
          cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp, cst.Ellipsis)


# how tightly each binary operator binds (Python's precedence, higher binds tighter)
_LEVELS = {
    cst.BitOr: 1, cst.BitXor: 2, cst.BitAnd: 3, cst.LeftShift: 4, cst.RightShift: 4, cst.Add: 5,
    cst.Subtract: 5, cst.Multiply: 6, cst.Divide: 6, cst.FloorDivide: 6, cst.Modulo: 6, cst.MatrixMultiply: 6,
    cst.Power: 8,
}
_UNARY, _ATOM = 7, 9


def _level(expr: cst.BaseExpression) -> int:
    """How tightly ``expr`` binds as an operand (0: looser than every binary operator:
    ``not``, comparisons, ``and``/``or``, conditional expressions, lambdas...)."""
    if isinstance(expr, _ATOMS) or isinstance(expr, cst.Await):
        return _ATOM
    if isinstance(expr, cst.BinaryOperation):
        return _LEVELS[type(expr.operator)]
    if isinstance(expr, cst.UnaryOperation) and not isinstance(expr.operator, cst.Not):
        return _UNARY
    return 0


def _parenthesise(expr: cst.BaseExpression, operator: cst.BaseBinaryOp) -> cst.BaseExpression:
    """``expr`` as the right operand of ``x <operator> expr``, parenthesised only where
    precedence needs it: ``x - (a - b)``, ``x * (a + b)``, but ``x + a * b``, ``x * -1``,
    ``x ** -k``.  An operand of the operator's own level keeps its parentheses (``x + (a +
    b)`` is not ``x + a + b`` for floats or strings), except under ``**``, which groups to
    the right (``x ** a ** b`` is ``x ** (a ** b)``)."""
    if expr.lpar:
        return expr
    level, own = _level(expr), _LEVELS[type(operator)]
    if level > own or (isinstance(operator, cst.Power) and level in (_UNARY, own)):
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


class _AugCandidates(cst.CSTVisitor):
    def __init__(self, index: FunctionIndex) -> None:
        self.index = index
        self.sites: list[tuple[cst.AugAssign, str]] = []
        self.reasons: list[str] = []
        self.seen_any = False

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.seen_any = True
        target = node.target
        op = code_of(node.operator).strip()
        if not isinstance(target, cst.Name):
            self.reasons.append(f"target {code_of(target)[:40]} is an attribute or subscript "
                                f"(it would be evaluated twice)")
            return
        if self.index.in_dynamic_scope(node):
            self.reasons.append("in a function using eval/exec/locals/globals/vars/dir")
            return
        if self.index.enclosing_function(node) is None:
            self.reasons.append(f"{target.value} {op} ... is not in a function body")
            return
        if self.index.shares_line(node):
            self.reasons.append(f"{target.value} {op} ... shares its line with another statement "
                                f"(types are observed per line)")
            return
        found = self.index.assigned_scope_of(target)
        if found is None:
            self.reasons.append(f"{target.value} is not a local of its function (global or nonlocal)")
            return
        types = self.index.observed(found[1], target.value)
        if types is None:
            self.reasons.append(f"no type observed for {target.value} in {found[1]}")
            return
        bad = [t for t in types if t not in IMMUTABLE_TYPES]
        if bad:
            self.reasons.append(f"{target.value} {op} ...: {target.value} may be mutable (observed types: "
                                f"{', '.join(types)}); {op} would update it in place")
            return
        operator = _AUG_TO_BIN[type(node.operator)]
        if operator in (cst.Add, cst.Multiply) and not node.value.lpar \
                and _level(node.value) == _LEVELS[operator]:
            self.reasons.append(f"{target.value} {op} {code_of(node.value)[:40]}: the expansion needs "
                                f"{target.value} = {target.value} {op[:-1]} (...), a form no person writes "
                                f"(and without the parentheses floats may round otherwise)")
            return
        self.sites.append((node, f"{target.value} {op} ... -> {target.value} = {target.value} "
                                 f"{op[:-1]} (...)"))


class ExpandAugAssign(SiteChoice, Transform):
    """Expand an augmented assignment: ``x += e`` -> ``x = x + e``.

    Sound when ``x`` only ever holds values of types without in-place operators
    (:data:`IMMUTABLE_TYPES`: int, bool, float, complex, str, bytes, tuple, frozenset):
    then ``x op= e`` falls back to ``x.__op__(e)`` / ``e.__rop__(x)`` exactly like
    ``x = x op e``, with ``x`` read before ``e`` is evaluated in both forms.  Never applied
    to lists, dicts, sets, bytearrays or user classes (``xs += [1]`` mutates the list in
    place, visible through every other reference), nor to attribute or subscript targets
    (``a[i()] += 1`` evaluates ``a`` and ``i()`` once; the expansion would evaluate them
    twice).  ``e`` is parenthesised only where precedence needs it (``x -= a - b`` ->
    ``x = x - (a - b)``, ``x -= a * b`` -> ``x = x - a * b``, ``x *= -1`` -> ``x = x * -1``);
    a site whose expansion would read ``x = x + (a + b)`` or ``x = x * (a / b)`` is left
    alone: a person writes ``x + a + b``, which is not the same for floats (CRUXEval
    ``sample_124``'s ``o = o + (txt.rsplit(sep, 1)[0] + sep)``, ``sample_134``, ``_149``, ``_393``),
    and the new operator is spaced as the ``op=`` was (``i+=1`` -> ``i=i+1``), the ``=`` on both
    sides when the ``op=`` was on either (``price *=.85`` -> ``price = price *.85``).

    The target must be a simple name local to the enclosing function (observed at run
    time), not declared ``global``/``nonlocal``, in a statement alone on its line (the value
    ``x`` holds when ``x op= e`` starts is then exactly the one observed at that line's
    event).  One difference remains by design and is
    within the equivalence contract (return value, exception *class*, argument state,
    stdout): when the operation is unsupported, the ``TypeError`` message names ``+``
    instead of ``+=``.

    Options:
        which: ``"all"`` (default) or ``"one"`` (a site chosen with the context's rng).

    Needs runtime type observations.  Functions that use ``eval``/``exec``/``locals``/
    ``globals``/``vars``/``dir`` are left alone.
    """

    name = "expand-augassign"
    family = "expressions"
    description = "Expand x += e to x = x + e for names observed to hold only immutable values."
    preconditions = ("target is a local name", "every observed type of the target is immutable")
    needs_runtime_types = True

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        require_observations(ctx)
        index = FunctionIndex(ctx)
        finder = _AugCandidates(index)
        module.visit(finder)
        if not finder.seen_any:
            raise NotApplicable("no augmented assignment")
        if not finder.sites:
            raise NotApplicable("no augmented assignment provably safe to expand: " + summarise(finder.reasons))
        chosen = self.choose(ctx, finder.sites)
        for node, desc in chosen:
            ctx.record(node, desc)

        def expand(original: cst.AugAssign, updated: cst.AugAssign) -> cst.Assign:
            op = updated.operator
            binop = _AUG_TO_BIN[type(op)]()
            # the operator spaced as the author spaced ``+=`` (``i+=1`` -> ``i=i+1``)
            binop = binop.with_changes(whitespace_before=op.whitespace_before, whitespace_after=op.whitespace_after)
            value = cst.BinaryOperation(left=updated.target.with_changes(lpar=[], rpar=[]), operator=binop,
                                        right=_parenthesise(updated.value, binop))
            # ``=`` spaced on both sides when the author spaced either side of ``op=``
            # (``price *=.85`` -> ``price = price *.85``, never ``price =price *.85``)
            spaced = any(not isinstance(w, cst.SimpleWhitespace) or w.value
                         for w in (op.whitespace_before, op.whitespace_after))
            space = cst.SimpleWhitespace(" " if spaced else "")
            return cst.Assign(targets=[cst.AssignTarget(target=updated.target,
                                                        whitespace_before_equal=space,
                                                        whitespace_after_equal=space)],
                              value=value, semicolon=updated.semicolon)

        return module.visit(ReplaceNodes([n for n, _ in chosen], expand))
