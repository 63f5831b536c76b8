"""What the expression transforms share: the operand type sets and refusal helpers.
"""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

import libcst as cst

from codemorph.engine import NotApplicable, RewriteContext

__all__ = [
    "SWAP_ARITHMETIC_TYPES", "SWAP_EQUALITY_TYPES", "IMMUTABLE_TYPES", "require_observations",
    "summarise", "ReplaceNodes",
]


#: Types whose ``+``, ``*``, ``&``, ``|``, ``^`` are commutative in value and type, with no
#: side effect, for every pair of values (``bool`` op ``int`` gives the same ``int`` either
#: way round; ``bool & bool`` is ``bool`` either way round).
SWAP_ARITHMETIC_TYPES: frozenset[str] = frozenset({"int", "bool"})

#: Types whose ``==`` / ``!=`` are symmetric for every pair of values drawn from the set:
#: the numeric tower compares exactly (``1 == 1.0`` both ways, NaN unequal both ways), ``str``
#: compares with ``str``, and any other pair falls back to identity, which is symmetric.
#: ``bytes`` is left out: ``bytes == str`` warns under ``python -b`` on one side only.
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
