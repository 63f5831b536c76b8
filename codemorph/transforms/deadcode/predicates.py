"""The dead-code catalogue: opaque predicates (facts false for every value, proved with z3
by the kit's translator), and the bodies inserted under them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import libcst as cst

from codemorph.authoring.z3terms import Untranslatable, Z3Terms, load_z3

__all__ = [
    "DeadPredicate", "INT_FACTS", "LEN_FACTS", "PREDICATES", "prove_predicate", "proved_predicates",
    "Body", "BODY_TEMPLATES", "FRESH_HINTS", "CONST_HINTS",
]


@dataclass(frozen=True)
class DeadPredicate:
    """One opaque predicate, false for every value of the variable it is applied to.

    Attributes:
        guard: the exact type the variable must have for the fact to be evaluated
            (``"int"``, ``"str"``, ``"list"``, ``"tuple"``, ``"dict"``), or ``None`` when
            the variable is known to hold an ``int`` (a fresh local assigned an int literal).
        fact: the claim, a template over ``{x}``; it is false for every value of the guard
            type (for ``len`` facts: every non-negative length).
        why: a one-line proof sketch, for readers; the test suite proves it with z3.

    ``render("n")`` gives the condition text, e.g. ``type(n) is int and n * n < 0``.
    Because ``and`` short-circuits, the fact is evaluated only on an exact ``int`` (or
    ``str``/``list``/...), whose operators cannot raise, print or be overridden.
    """

    guard: str | None
    fact: str
    why: str

    @property
    def builtins(self) -> tuple[str, ...]:
        """The builtin names the condition reads (must not be rebound by the program)."""
        names: list[str] = []
        if self.guard is not None:
            names += ["type", self.guard]
        if "len(" in self.fact:
            names.append("len")
        return tuple(names)

    def render(self, var: str) -> str:
        """The condition text over the variable ``var`` (an identifier)."""
        fact = self.fact.format(x=var)
        return fact if self.guard is None else f"type({var}) is {self.guard} and {fact}"


#: Facts over an int ``x`` that are false for every int (z3 proves each one).
INT_FACTS: tuple[tuple[str, str], ...] = (
    ("({x} * {x} + {x}) % 2 == 1", "x*x + x = x(x+1) is a product of consecutive integers, so even"),
    ("{x} * {x} < 0", "a square is never negative"),
    ("{x} * {x} % 4 == 2", "squares are 0 or 1 modulo 4"),
    ("{x} * {x} % 4 == 3", "squares are 0 or 1 modulo 4"),
    ("({x} * {x} - {x}) % 2 != 0", "x*x - x = x(x-1) is even"),
    ("({x} * {x} * {x} - {x}) % 3 != 0", "x^3 - x = (x-1)x(x+1) holds a multiple of 3"),
    ("{x} * {x} + {x} < 0", "x(x+1) >= 0: no integer lies strictly between -1 and 0"),
    ("{x} * {x} + 1 == 0", "x*x + 1 >= 1"),
    ("{x} * {x} == 2", "the square root of 2 is irrational"),
    ("2 * {x} + 1 == 0", "2x + 1 is odd, never 0"),
)

#: Facts over ``len(x)`` (a non-negative int for an exact str/list/tuple/dict).
LEN_FACTS: tuple[tuple[str, str], ...] = (
    ("len({x}) < 0", "a length is never negative"),
    ("len({x}) + 1 <= 0", "a length is never negative"),
    ("-len({x}) > 0", "a length is never negative"),
    ("len({x}) * len({x}) < len({x}) - 1", "n*n - n + 1 > 0 for every n"),
)

#: Guard types for the length facts.
LEN_GUARDS: tuple[str, ...] = ("str", "list", "tuple", "dict")

#: The whole catalogue: int facts under ``type(x) is int``, length facts under each
#: sized type, and int facts without guard (for a fresh local holding an int).
PREDICATES: tuple[DeadPredicate, ...] = (
    *(DeadPredicate("int", fact, why) for fact, why in INT_FACTS),
    *(DeadPredicate(g, fact, why) for g in LEN_GUARDS for fact, why in LEN_FACTS),
    *(DeadPredicate(None, fact, why) for fact, why in INT_FACTS),
)


# ---------------------------------------------------------------------------------------
# z3 proofs of the catalogue


class _FactTerms(Z3Terms):
    """The kit's :class:`~codemorph.authoring.Z3Terms` over one fact: its variable ``var``
    is ``sym`` (an int), or, with ``is_len``, ``len(var)`` is ``sym`` (a length)."""

    def __init__(self, z3, var: str, sym, is_len: bool) -> None:
        super().__init__(z3, division="literal", booleans=True, strings=False)
        self.var, self.sym, self.is_len = var, sym, is_len

    def name(self, node: cst.Name):
        if node.value == self.var and not self.is_len:
            return self.sym
        raise Untranslatable(f"name {node.value!r}")

    def call(self, node: cst.Call):
        if isinstance(node.func, cst.Name) and node.func.value == "len" and self.is_len and len(node.args) == 1 \
                and node.args[0].keyword is None and not node.args[0].star \
                and isinstance(node.args[0].value, cst.Name) and node.args[0].value.value == self.var:
            return self.sym
        raise Untranslatable("call outside the fragment")


def prove_predicate(pred: DeadPredicate) -> tuple[bool, str | None]:
    """Check with z3 that ``pred``'s fact is false for every value of its variable.

    The fact text (``pred.fact`` over ``x``) is parsed and translated to z3: an integer
    variable for ``int`` guards and guard-free facts (Python ints are unbounded, as z3's),
    a non-negative integer for ``len(x)`` under ``str``/``list``/``tuple``/``dict`` guards.
    Translated by the kit's :class:`~codemorph.authoring.Z3Terms` (integer literals,
    ``+ - *``, ``//`` and ``%`` by a nonzero literal with Python's floor semantics, unary
    ``-``, comparisons, chains too).

    Returns:
        ``(True, None)`` when z3 proves the fact unsatisfiable; ``(False, why)`` when it is
        satisfiable (``why`` names a value making it true), undecided, or cannot be
        translated.
    """
    z3 = load_z3()
    is_len = pred.guard is not None and pred.guard != "int"
    try:
        tree = cst.parse_expression(pred.fact.format(x="x"))
        sym = z3.Int("x")
        fact = _FactTerms(z3, "x", sym, is_len).condition(tree)
    except (Untranslatable, cst.ParserSyntaxError, KeyError, IndexError, ValueError) as exc:
        return False, f"cannot be translated to z3 ({exc})"
    solver = z3.Solver()
    solver.set("timeout", 5_000)
    if is_len:
        solver.add(sym >= 0)
    solver.add(fact)
    verdict = solver.check()
    if verdict == z3.unsat:
        return True, None
    if verdict == z3.sat:
        what = "len(x)" if is_len else "x"
        return False, f"true for {what} = {solver.model()[sym]}"
    return False, f"z3 could not decide ({solver.reason_unknown()})"


_PROOFS: dict[DeadPredicate, tuple[bool, str | None]] = {}


def proved_predicates(catalogue: Sequence[DeadPredicate] | None = None) -> tuple[DeadPredicate, ...]:
    """The predicates of ``catalogue`` (default: the module's :data:`PREDICATES`, read at
    call time) that :func:`prove_predicate` proves false, in catalogue order.  Proofs are
    cached per process (the built-in catalogue takes a fraction of a second)."""
    if catalogue is None:
        catalogue = PREDICATES
    out = []
    for pred in catalogue:
        if pred not in _PROOFS:
            _PROOFS[pred] = prove_predicate(pred)
        if _PROOFS[pred][0]:
            out.append(pred)
    return tuple(out)


@dataclass(frozen=True)
class Body:
    """A template of dead code: its source lines (``{var}``/``{fresh}``/``{const}``
    placeholders) and whether it contains ``return``."""
    lines: tuple[str, ...]
    returns: bool = False  # contains ``return`` (not allowed in generators / except*)


#: Plausible bodies of the dead block.  Placeholders: ``{p}`` the predicate's variable,
#: ``{v}`` a local of the function (parameter or assigned name, possibly ``{p}``),
#: ``{t}``/``{u}`` fresh names.  Bodies only assign to fresh names and to names that are
#: already local; they never ``yield``, ``await``, ``break``, ``continue`` or declare
#: ``global``/``nonlocal``.
BODY_TEMPLATES: tuple[Body, ...] = (
    Body(("{t} = {v}", "print({t})")),
    Body(("{t} = []", "for {u} in range(3):", "    {t}.append({u})", "return {t}"), returns=True),
    Body(("raise ValueError({v})",)),
    Body(("return {v}",), returns=True),
    Body(("{t} = {p}", "{p} = {v}", "{v} = {t}")),
    Body(("{t} = len({v})", "print({t} * 2)")),
    Body(("{t} = 0", "while {t} < 10:", "    {t} += 1", "{v} = {t}")),
    Body(("{v} = None",)),
    Body(("{t} = str({v})", "{t} = {t}.strip()", "return {t}"), returns=True),
    Body(("{t} = {p}", "{u} = [{t}, {v}]", "print(*{u})")),
)

FRESH_HINTS = ("tmp", "acc", "value", "result", "total", "buf", "item", "count", "idx", "temp")
CONST_HINTS = ("k", "n", "step", "base", "limit")
