"""The ``branches`` family: rewrites of conditionals and comparisons.

* ``invert-if`` (:class:`InvertIf`): swap the branches of an ``if``/``else`` under the
  negated condition, and write an ``if`` without ``else`` that ends a loop body or a
  function as a guard clause (``if not c: continue`` / ``if not c: return``); the negated
  condition simplified (``not (a < b)`` -> ``a >= b``, De Morgan) where z3 proves it for
  the operand types observed at run time;
* ``if-to-ternary`` / ``ternary-to-if`` (:class:`IfToTernary`, :class:`TernaryToIf`):
  ``if c: x = a else: x = b`` <-> ``x = a if c else b`` (and ``return``);
* ``elif-to-nested`` / ``nested-to-elif`` (:class:`ElifToNested`, :class:`NestedToElif`):
  ``elif`` <-> ``else:`` holding an ``if``;
* ``mirror-comparison`` (:class:`MirrorComparison`): ``a < b`` -> ``b > a`` for observed
  builtin numbers/strings.

Shared pieces: :func:`negate` (the negation of a condition for a boolean context), the
z3 models of comparison operators (:data:`DOMAINS`, :func:`prove_identity`,
:func:`proved_identities`) and :class:`TypeOracle` (operand types from
``ctx.observations`` and the authoring kit's :class:`~codemorph.authoring.ExpressionTypes`).

One transform per module: :mod:`.invert_if`, :mod:`.if_to_ternary`,
:mod:`.ternary_to_if`, :mod:`.elif_to_nested`, :mod:`.nested_to_elif`,
:mod:`.mirror_comparison`; shared parts in :mod:`.conditions` and :mod:`.statements`.
"""

from codemorph.transforms.branches.conditions import (
    NEGATED, MIRRORED, ComparisonDomain, DOMAINS, prove_identity, proved_identities, TypeOracle,
    needs_parentheses_under_not, strip_parentheses, negate, negated_comparison,
)
from codemorph.transforms.branches.invert_if import InvertIf
from codemorph.transforms.branches.statements import comments_in
from codemorph.transforms.branches.if_to_ternary import IfToTernary
from codemorph.transforms.branches.ternary_to_if import TernaryToIf
from codemorph.transforms.branches.elif_to_nested import ElifToNested
from codemorph.transforms.branches.nested_to_elif import NestedToElif
from codemorph.transforms.branches.mirror_comparison import MirrorComparison

__all__ = [
    "InvertIf", "IfToTernary", "TernaryToIf", "ElifToNested", "NestedToElif", "MirrorComparison",
    "negate", "negated_comparison", "needs_parentheses_under_not", "strip_parentheses", "comments_in", "ComparisonDomain",
    "DOMAINS", "NEGATED", "MIRRORED", "prove_identity", "proved_identities", "TypeOracle",
]
