"""The ``dead-code`` family: insertion of code that never runs, or whose result is never read.

* ``dead-code`` (:class:`DeadCode`) inserts, inside a function body, an ``if`` block whose
  condition is false for every possible execution: by default a defensive check over a
  value the program has just computed from its variables, right after its assignment
  (:mod:`.checks`: ``n = len(xs)`` / ``if n < 0:``; refused where there is none), with
  ``style="opaque"`` an *opaque predicate* (Collberg, Thomborson and Low, "Manufacturing
  cheap, resilient, and stealthy opaque constructs", POPL 1998); the body is ordinary code
  over the names in scope;
* ``dead-store`` (:class:`DeadStore`): ``fresh = <side-effect-free value>``, never read;
* ``dead-loop`` (:class:`DeadLoop`): a loop that runs zero times (``while n < 0:`` right
  after ``n = len(xs)``; opaque style: ``for x in ():`` or ``while <opaque predicate>:``);
* ``unused-function`` (:class:`UnusedFunction`): a module-level helper never called.

The natural checks (:data:`CHECKS`, :func:`value_facts`, :func:`proved_checks`) are in
:mod:`.checks` and the blocks built from them in :mod:`.guards`.  The catalogue of opaque
predicates (:data:`PREDICATES`) is the other shared piece of the family: each
entry is a guard on the exact type of a variable (``type(x) is int``: no subclass with odd
operators, no user ``__len__``) followed by an arithmetic fact that is false for every
value of that type.  The transforms use only the facts z3 proves false over unbounded
integers (:func:`proved_predicates`, run once per process); the test suite also translates
the emitted text itself into z3.

One transform per module: :mod:`.dead_code`, :mod:`.dead_store`, :mod:`.dead_loop`,
:mod:`.unused_function`; shared parts in :mod:`.predicates`, :mod:`.checks`, :mod:`.guards`,
:mod:`.blocks` and :mod:`.positions`.
"""

from codemorph.transforms.deadcode.predicates import (
    DeadPredicate, INT_FACTS, LEN_FACTS, PREDICATES, prove_predicate, proved_predicates,
    BODY_TEMPLATES,
)
from codemorph.transforms.deadcode.blocks import (
    insertion_blocks, definitely_bound_params, function_symbol_tables, function_locals,
    function_qualnames, bound_at,
)
from codemorph.transforms.deadcode.checks import (
    CHECKS, ValueCheck, ValueFact, prove_check, proved_checks, value_facts,
)
from codemorph.transforms.deadcode.positions import (
    Position, choose_natural_site, choose_position, observed_int_locals, opaque_condition,
)
from codemorph.transforms.deadcode.dead_code import DeadCode
from codemorph.transforms.deadcode.dead_store import STORE_LITERALS, STORE_INT_TEMPLATES, DeadStore
from codemorph.transforms.deadcode.dead_loop import LOOP_BODY_TEMPLATES, DeadLoop
from codemorph.transforms.deadcode.unused_function import (
    HelperTemplate, HELPER_TEMPLATES, GLOBALS_HAZARDS, UnusedFunction,
)

__all__ = [
    "DeadCode", "DeadStore", "DeadLoop", "UnusedFunction", "DeadPredicate", "PREDICATES",
    "INT_FACTS", "LEN_FACTS", "BODY_TEMPLATES", "LOOP_BODY_TEMPLATES", "HELPER_TEMPLATES",
    "HelperTemplate", "STORE_LITERALS", "STORE_INT_TEMPLATES", "GLOBALS_HAZARDS", "prove_predicate",
    "proved_predicates", "Position", "choose_position", "opaque_condition", "observed_int_locals",
    "bound_at", "function_qualnames", "function_locals", "function_symbol_tables",
    "insertion_blocks", "definitely_bound_params", "CHECKS", "ValueCheck", "ValueFact", "prove_check",
    "proved_checks", "value_facts", "choose_natural_site",
]
