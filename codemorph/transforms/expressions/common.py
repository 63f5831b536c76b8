"""What the expression transforms share: the operand type sets and refusal helpers.
"""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

import libcst as cst

from codemorph.engine import NotApplicable, RewriteContext

__all__ = [
    "SWAP_ARITHMETIC_TYPES", "SWAP_EQUALITY_TYPES", "IMMUTABLE_TYPES", "require_observations",
    "summarise", "ReplaceNodes", "bound_anywhere",
]


#: Types whose ``+``, ``*``, ``&``, ``|``, ``^`` are commutative in value and type, with no
#: side effect, for every pair of values (``bool`` op ``int`` gives the same ``int`` either
#: way round; ``bool & bool`` is ``bool`` either way round).
SWAP_ARITHMETIC_TYPES: frozenset[str] = frozenset({"int", "bool"})

#: Types whose ``==`` / ``!=`` are symmetric for every pair of values drawn from the set:
#: the numeric tower compares exactly (``1 == 1.0`` both ways, NaN unequal both ways), ``str``
#: compares with ``str``, and any other pair falls back to identity, which is symmetric.
#: ``bytes`` is left out: ``bytes == str`` warns under ``python -b`` on one side only.
#: (Public for callers; ``swap-operands`` no longer swaps ``==``/``!=``: ``mirror-comparison`` does.)
SWAP_EQUALITY_TYPES: frozenset[str] = frozenset({"int", "bool", "float", "str", "NoneType"})

#: Types without in-place operators (``__iadd__``...): for them ``x op= e`` and
#: ``x = x op (e)`` run the same methods on the same objects.
IMMUTABLE_TYPES: frozenset[str] = frozenset({"int", "bool", "float", "complex", "str", "bytes", "tuple",
                                             "frozenset"})

def require_observations(ctx: RewriteContext) -> None:
    """Raise ``NotApplicable`` when the context has no runtime type observations."""
    if not isinstance(ctx.observations, Mapping):
        raise NotApplicable("needs runtime type observations ({function: {local: [types]}}), none given")


def summarise(reasons: Sequence[str], limit: int = 3) -> str:
    """The distinct ``reasons``, at most ``limit`` of them, joined by ``; ``."""
    uniq: list[str] = []
    for r in reasons:
        if r not in uniq:
            uniq.append(r)
    more = len(uniq) - limit
    text = "; ".join(uniq[:limit])
    return text + (f"; and {more} more" if more > 0 else "")


class ReplaceNodes(cst.CSTTransformer):
    """Replaces chosen nodes (by identity) with ``fn(original, updated)``."""

    def __init__(self, chosen: Iterable[cst.CSTNode], fn) -> None:
        self.chosen = {id(n): n for n in chosen}
        self.fn = fn

    def on_leave(self, original_node, updated_node):
        if id(original_node) in self.chosen and self.chosen[id(original_node)] is original_node:
            return self.fn(original_node, updated_node)
        return updated_node


class _BindingCounter(cst.CSTVisitor):
    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def _add(self, node: cst.CSTNode) -> None:
        if isinstance(node, cst.Name):
            self.counts[node.value] = self.counts.get(node.value, 0) + 1
        elif isinstance(node, (cst.Tuple, cst.List)):
            for el in node.elements:
                self._add(el.value)
        elif isinstance(node, cst.StarredElement):
            self._add(node.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._add(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._add(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._add(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._add(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._add(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._add(node.name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._add(node.target)

    def visit_Del(self, node: cst.Del) -> None:
        self._add(node.target)

    def visit_Param(self, node: cst.Param) -> None:
        self._add(node.name)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        if node.asname is None:
            name = node.name
            while isinstance(name, cst.Attribute):
                name = name.value
            self._add(name)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._add(node.name)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._add(node.name)

    def visit_Global(self, node: cst.Global) -> None:
        for n in node.names:
            self._add(n.name)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        for n in node.names:
            self._add(n.name)

    def visit_MatchAs(self, node: cst.MatchAs) -> None:
        if node.name is not None:
            self._add(node.name)

    def visit_MatchStar(self, node: cst.MatchStar) -> None:
        if node.name is not None:
            self._add(node.name)

    def visit_MatchMapping(self, node: cst.MatchMapping) -> None:
        if node.rest is not None:
            self._add(node.rest)


def bound_anywhere(module: cst.Module) -> dict[str, int]:
    """How many places in ``module`` (any scope) bind each name: assignment targets of every
    kind, ``for``/comprehension/``with``/``except`` targets, walrus, parameters, imports,
    ``def``/``class`` names, ``del``, ``match`` captures; a ``global``/``nonlocal``
    declaration counts as one more (it lets another scope rebind the name)."""
    v = _BindingCounter()
    module.visit(v)
    return v.counts
