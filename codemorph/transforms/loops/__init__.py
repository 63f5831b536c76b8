"""The ``loops`` family: rewrites of loop statements and comprehensions.

* ``for-to-while`` (:class:`ForToWhile`): ``for`` loops as the ``while`` loops people write
  (counter loops over ``range``, index loops over sequences, else an explicit iterator);
* ``while-to-for`` (:class:`WhileToFor`): counting ``while`` loops as ``for ... in range``
  (needs runtime type observations);
* ``comprehension-to-loop`` (:class:`ComprehensionToLoop`): comprehensions (and generator
  expressions consumed at once by a builtin) as explicit loops, hoisted before their
  statement;
* ``loop-to-comprehension`` (:class:`LoopToComprehension`): accumulation loops as
  comprehensions;
* ``peel-loop`` (:class:`PeelLoop`): the first iteration of a ``for`` loop peeled off, as people
  write it (``if xs:`` / ``x = xs[0]`` / ... / ``for x in xs[1:]:``);
* ``unroll-loop`` (:class:`UnrollLoop`): ``for i in range(K)`` with a small literal ``K``
  unrolled.

Each refuses (``NotApplicable`` with the reason) whenever it cannot establish that the
rewrite keeps behaviour, and is deterministic for a seed.  The program facts and hazard
lists they share with other families live in the authoring kit
(:mod:`codemorph.authoring`: :class:`~codemorph.authoring.ProgramFacts`,
:func:`~codemorph.authoring.hazard_identifiers`, :func:`~codemorph.authoring.finalisation_hazard`...);
the names are re-exported here for compatibility.  Loop-specific helpers:

* :func:`loop_jumps` -- the ``break`` / ``continue`` statements that belong to a loop;
* :func:`recursion_hazard` -- may the program recurse (comprehension frames count)?

One transform per module (as LibCST keeps one codemod per file): :mod:`.for_to_while`,
:mod:`.while_to_for`, :mod:`.comprehension_to_loop`, :mod:`.loop_to_comprehension`,
:mod:`.peel_loop`, :mod:`.unroll_loop`; their shared helpers in :mod:`.common` and
:mod:`.comprehensions`, the ``while`` forms of ``for-to-while`` (and ``peel-loop``'s iterator
form) in :mod:`.forms`, and ``peel-loop``'s own forms in :mod:`.peeling`.
"""

from codemorph.transforms.loops.for_to_while import ForToWhile
from codemorph.transforms.loops.common import loop_jumps
from codemorph.transforms.loops.unroll_loop import UnrollLoop
from codemorph.transforms.loops.peel_loop import PeelLoop
from codemorph.transforms.loops.while_to_for import WhileToFor
from codemorph.transforms.loops.comprehensions import recursion_hazard
from codemorph.transforms.loops.loop_to_comprehension import LoopToComprehension
from codemorph.transforms.loops.comprehension_to_loop import ComprehensionToLoop
from codemorph.authoring import (
    FRAME_HAZARDS, LINE_HAZARDS, LIFETIME_HAZARDS, BUILTINS_HAZARDS, hazard_identifiers,
    dynamic_scope_uses, is_generator_function, finalisation_hazard, function_nodes, ProgramFacts,
    FunctionFacts, parenthesize_if_bare_tuple,
)

__all__ = [
    "ForToWhile", "WhileToFor", "ComprehensionToLoop", "LoopToComprehension", "PeelLoop",
    "UnrollLoop", "loop_jumps", "recursion_hazard", "FRAME_HAZARDS", "LINE_HAZARDS",
    "LIFETIME_HAZARDS", "BUILTINS_HAZARDS", "hazard_identifiers", "dynamic_scope_uses",
    "is_generator_function", "finalisation_hazard", "function_nodes", "ProgramFacts",
    "FunctionFacts", "parenthesize_if_bare_tuple",
]
