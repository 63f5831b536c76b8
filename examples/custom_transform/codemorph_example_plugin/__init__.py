"""An example third-party codemorph transform.

``double-negation`` rewrites ``if c:`` / ``elif c:`` / ``while c:`` as ``if not not c:``.
It is sound for every value of ``c``: both forms call ``bool(c)`` exactly once.
"""

from __future__ import annotations

import libcst as cst

from codemorph import NotApplicable, RewriteContext, Transform


class DoubleNegation(Transform):
    """Wrap ``if``/``elif``/``while`` conditions in ``not not (...)``.

    Options:
        which: ``"all"`` (default) or ``"one"`` (a single condition chosen with the rng).
    """

    name = "double-negation"
    family = "branches"
    description = "Wrap if/elif/while conditions in `not not (...)` (example plugin)."
    preconditions = ("none: `not not c` and `c` call bool(c) once each",)

    def __init__(self, which: str = "all") -> None:
        if which not in ("all", "one"):
            raise ValueError(f"which must be 'all' or 'one', got {which!r}")
        self.which = which

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        finder = _Conditions()
        module.visit(finder)
        if not finder.tests:
            raise NotApplicable("no if/elif/while condition")
        chosen = finder.tests if self.which == "all" else [ctx.rng.choice(finder.tests)]
        for test in chosen:
            ctx.record(test, "c -> not not c")
        return module.visit(_Wrap({id(t) for t in chosen}))


class _Conditions(cst.CSTVisitor):
    def __init__(self) -> None:
        self.tests: list[cst.BaseExpression] = []

    def visit_If(self, node: cst.If) -> None:
        self.tests.append(node.test)

    def visit_While(self, node: cst.While) -> None:
        self.tests.append(node.test)


class _Wrap(cst.CSTTransformer):
    def __init__(self, ids: set[int]) -> None:
        self.ids = ids

    def _wrap(self, test: cst.BaseExpression) -> cst.BaseExpression:
        atom = isinstance(test, (cst.Name, cst.Call, cst.Attribute, cst.Subscript)) or test.lpar
        inner = test if atom else test.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        return cst.UnaryOperation(cst.Not(), cst.UnaryOperation(cst.Not(), inner))

    def leave_If(self, original: cst.If, updated: cst.If) -> cst.If:
        if id(original.test) in self.ids:
            return updated.with_changes(test=self._wrap(updated.test))
        return updated

    def leave_While(self, original: cst.While, updated: cst.While) -> cst.While:
        if id(original.test) in self.ids:
            return updated.with_changes(test=self._wrap(updated.test))
        return updated
