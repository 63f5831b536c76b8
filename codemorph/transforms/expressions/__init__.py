"""The ``expressions`` family: local rewrites of expressions whose value is unchanged.

* ``swap-operands`` (:class:`SwapOperands`): ``a + b`` -> ``b + a`` for operators that are
  commutative *for the operand types observed at run time*;
* ``expand-augassign`` (:class:`ExpandAugAssign`): ``x += e`` -> ``x = x + e`` (parentheses
  only where precedence needs them) for names that only ever hold immutable values;
* ``unfold-constant`` (:class:`UnfoldConstant`): ``3600`` -> ``60 * 60``, ``1024`` ->
  ``2 ** 10``, ``'---'`` -> ``'-' * 3``, a program's own constant or ``len('...')``; else
  one literal made a named module constant (``LIMIT = 5``; never ``STEP = 1``).

The first two need runtime type observations (``needs_runtime_types = True``): a mapping
``{function qualname: {local name: [type names]}}`` collected in the sandbox over the
row's input and its verification inputs (the ``generate`` job and
:func:`codemorph.testing.observe_types` collect it).  Type names are those of
``codemorph._worker.type_name``: builtins by bare name (``"int"``, ``"bool"``), every other
class as ``module.qualname`` -- so an ``int`` subclass, or a class a program happens to call
``int``, never passes for ``int``.

What runtime observation can and cannot prove: types are recorded at every line and
return event of every frame of the program, so every value a local holds at a line
boundary *on the observed inputs* is seen.  On inputs never observed a variable may hold
another type; the verification step runs the same inputs, so the rewrite is checked
exactly where its precondition was established.

The scope facts these transforms share with other families (:class:`FunctionIndex`:
qualified names of scopes, functions that use ``eval``/``locals``/..., observed types) and
:func:`code_of` / :func:`literal_type` live in the authoring kit (:mod:`codemorph.authoring`)
and are re-exported here for compatibility.

One transform per module: :mod:`.swap_operands`, :mod:`.expand_augassign`,
:mod:`.unfold_constant`; shared parts in :mod:`.common`.
"""

from codemorph.transforms.expressions.common import (
    SWAP_ARITHMETIC_TYPES, SWAP_EQUALITY_TYPES, IMMUTABLE_TYPES,
)
from codemorph.transforms.expressions.swap_operands import SwapOperands
from codemorph.transforms.expressions.expand_augassign import ExpandAugAssign
from codemorph.transforms.expressions.unfold_constant import UnfoldConstant
from codemorph.authoring import FunctionIndex, literal_type, code_of

__all__ = [
    "SwapOperands", "ExpandAugAssign", "UnfoldConstant", "FunctionIndex", "IMMUTABLE_TYPES",
    "SWAP_ARITHMETIC_TYPES", "SWAP_EQUALITY_TYPES", "literal_type", "code_of",
]
