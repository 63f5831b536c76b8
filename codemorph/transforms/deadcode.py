"""The ``dead-code`` family: insertion of code that never runs, or whose result is never read.

* ``dead-code`` (:class:`DeadCode`) inserts, inside a function body, an ``if`` block whose
  condition is false for every possible execution (an *opaque predicate*, Collberg,
  Thomborson and Low, "Manufacturing cheap, resilient, and stealthy opaque constructs",
  POPL 1998) and whose body is plausible code over the names in scope;
* ``dead-store`` (:class:`DeadStore`): ``fresh = <side-effect-free value>``, never read;
* ``dead-loop`` (:class:`DeadLoop`): a loop that runs zero times (``for x in ():`` or
  ``while <opaque predicate>:``);
* ``unused-function`` (:class:`UnusedFunction`): a module-level helper never called.

The catalogue of predicates (:data:`PREDICATES`) is the shared piece of the family: each
entry is a guard on the exact type of a variable (``type(x) is int``: no subclass with odd
operators, no user ``__len__``) followed by an arithmetic fact that is false for every
value of that type.  The transforms use only the facts z3 proves false over unbounded
integers (:func:`proved_predicates`, run once per process); the test suite also translates
the emitted text itself into z3.
"""

from __future__ import annotations

import ast
import symtable
from dataclasses import dataclass
from typing import Mapping, Sequence

import libcst as cst

from codemorph.engine import NotApplicable, RewriteContext, Transform
from codemorph.engine.transform import identifiers_in

from codemorph.authoring.z3terms import Untranslatable, Z3Terms
from codemorph.authoring.facts import FunctionFacts, ProgramFacts, finalisation_hazard
from codemorph.authoring.hazards import (BUILTINS_HAZARDS, FRAME_HAZARDS, LIFETIME_HAZARDS, LINE_HAZARDS,
                                         hazard_identifiers)

__all__ = ["DeadCode", "DeadStore", "DeadLoop", "UnusedFunction", "DeadPredicate", "PREDICATES", "INT_FACTS",
           "LEN_FACTS", "BODY_TEMPLATES", "LOOP_BODY_TEMPLATES", "HELPER_TEMPLATES", "HelperTemplate",
           "STORE_LITERALS", "STORE_INT_TEMPLATES", "GLOBALS_HAZARDS", "prove_predicate", "proved_predicates",
           "Position", "choose_position", "opaque_condition", "observed_int_locals", "bound_at",
           "function_qualnames", "function_locals", "function_symbol_tables", "insertion_blocks",
           "definitely_bound_params"]


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
    import z3
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
class _Body:
    lines: tuple[str, ...]
    returns: bool = False  # contains ``return`` (not allowed in generators / except*)


#: Plausible bodies of the dead block.  Placeholders: ``{p}`` the predicate's variable,
#: ``{v}`` a local of the function (parameter or assigned name, possibly ``{p}``),
#: ``{t}``/``{u}`` fresh names.  Bodies only assign to fresh names and to names that are
#: already local; they never ``yield``, ``await``, ``break``, ``continue`` or declare
#: ``global``/``nonlocal``.
BODY_TEMPLATES: tuple[_Body, ...] = (
    _Body(("{t} = {v}", "print({t})")),
    _Body(("{t} = []", "for {u} in range(3):", "    {t}.append({u})", "return {t}"), returns=True),
    _Body(("raise ValueError({v})",)),
    _Body(("return {v}",), returns=True),
    _Body(("{t} = {p}", "{p} = {v}", "{v} = {t}")),
    _Body(("{t} = len({v})", "print({t} * 2)")),
    _Body(("{t} = 0", "while {t} < 10:", "    {t} += 1", "{v} = {t}")),
    _Body(("{v} = None",)),
    _Body(("{t} = str({v})", "{t} = {t}.strip()", "return {t}"), returns=True),
    _Body(("{t} = {p}", "{u} = [{t}, {v}]", "print(*{u})")),
)

_FRESH_HINTS = ("tmp", "acc", "value", "result", "total", "buf", "item", "count", "idx", "temp")
_CONST_HINTS = ("k", "n", "step", "base", "limit")


# ---------------------------------------------------------------------------------------
# analysis helpers


def _is_docstring(stmt: cst.BaseStatement | cst.BaseSmallStatement) -> bool:
    if isinstance(stmt, cst.SimpleStatementLine):
        if not stmt.body:
            return False
        stmt = stmt.body[0]
    return isinstance(stmt, cst.Expr) and isinstance(stmt.value, (cst.SimpleString, cst.ConcatenatedString))


def _is_scope_declaration(stmt: cst.CSTNode) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and any(
        isinstance(s, (cst.Global, cst.Nonlocal)) for s in stmt.body)


_JUMPS = (cst.Return, cst.Raise, cst.Break, cst.Continue)


def _jumps(stmt: cst.CSTNode) -> bool:
    if isinstance(stmt, cst.SimpleStatementLine):
        return any(isinstance(s, _JUMPS) for s in stmt.body)
    return isinstance(stmt, _JUMPS)


def _span(stmts: Sequence[cst.CSTNode], function_body: bool) -> tuple[int, int]:
    first = 1 if function_body and stmts and _is_docstring(stmts[0]) else 0
    last = len(stmts)
    for i, s in enumerate(stmts):
        if _is_scope_declaration(s) or isinstance(s, (cst.Global, cst.Nonlocal)):
            first = max(first, i + 1)
    for i, s in enumerate(stmts):
        if _jumps(s):
            last = i  # before the first return/raise/break/continue, not after it
            break
    return first, last


def insertion_blocks(func: cst.FunctionDef, facts: FunctionFacts | None = None
                     ) -> list[tuple[cst.BaseSuite, int, int]]:
    """Where a statement may be inserted in ``func``: ``(suite, first, last)`` triples,
    meaning positions ``first..last`` (inclusive) of ``suite``'s statements.

    Suites are ``func``'s own body and every block nested in it (if/else, loops, try,
    with, match), but not nested functions or class bodies.  In the function body the
    first position is after the docstring; in every block, after the last
    ``global``/``nonlocal`` statement of that block.  The last position is before the
    block's first ``return``/``raise``/``break``/``continue`` (code after those is
    trivially unreachable; the predicate itself should be evaluated).  Blocks without a
    position (``first > last``) are left out.  Order: source order.  ``facts`` (from
    :class:`~codemorph.authoring.ProgramFacts`) may be passed when computed.
    """
    body = func.body
    if isinstance(body, cst.SimpleStatementSuite):
        first, last = _span(list(body.body), True)
        return [(body, first, last)] if first <= last else []
    if facts is None:
        facts = ProgramFacts.of(cst.Module(body=[func])).functions[func]
    out: list[tuple[cst.BaseSuite, int, int]] = []
    for block in facts.blocks:
        first, last = _span(list(block.body), block is body)
        if first <= last:
            out.append((block, first, last))
    return out


def _params(func: cst.FunctionDef) -> list[cst.Param]:
    p = func.params
    out = [*p.posonly_params, *p.params]
    if isinstance(p.star_arg, cst.Param):
        out.append(p.star_arg)
    out += list(p.kwonly_params)
    if p.star_kwarg is not None:
        out.append(p.star_kwarg)
    return out


def definitely_bound_params(func: cst.FunctionDef, facts: FunctionFacts | None = None) -> list[str]:
    """Parameters of ``func`` bound at every point of its body: never ``del``eted, never an
    ``except ... as`` name, never named in ``global``/``nonlocal`` -- checked anywhere in
    ``func`` including nested functions (conservative).  In declaration order.
    ``facts`` (from :class:`~codemorph.authoring.ProgramFacts`) may be passed."""
    if facts is None:
        facts = ProgramFacts.of(cst.Module(body=[func])).functions[func]
    return [p.name.value for p in _params(func) if p.name.value not in facts.unbinders]


def function_symbol_tables(source: str) -> dict[tuple[str, int], symtable.SymbolTable]:
    """The compiler's symbol table of every function in ``source``, keyed by
    ``(name, line of the def keyword)``.

    Python's own :mod:`symtable` is exact (it is what the compiler uses to decide local /
    global / free / cell) and costs a fraction of a millisecond, against ~10 ms for a
    libcst ScopeProvider pass over a CRUXEval-sized program.

    Raises:
        SyntaxError: when ``source`` does not compile (never for a :class:`Program`).
    """
    out: dict[tuple[str, int], symtable.SymbolTable] = {}
    stack = [symtable.symtable(source, "<program>", "exec")]
    while stack:
        table = stack.pop()
        if table.get_type() == "function":
            out[(table.get_name(), table.get_lineno())] = table
        stack.extend(table.get_children())
    return out


def function_locals(table: symtable.SymbolTable | None, func: cst.FunctionDef) -> list[str]:
    """Names local to one function (parameters, assigned names, imports, nested ``def``
    names: what the compiler stores in the function's frame; never ``global``/
    ``nonlocal`` names), sorted; names with ``__`` (private, mangled) are left out.

    Args:
        table: the function's table from :func:`function_symbol_tables`, or ``None``
            when unknown (then only the parameters of ``func`` are returned).
        func: the function's libcst node.
    """
    if table is None:
        return sorted(p.name.value for p in _params(func))
    return sorted(sym.get_name() for sym in table.get_symbols()
                  if sym.is_local() and "__" not in sym.get_name())


class _Qualnames(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: dict[cst.FunctionDef, str] = {}
        self.stack: list[tuple[str, bool]] = []  # (qualname, is a function)

    def _qual(self, name: str) -> str:
        if not self.stack:
            return name
        parent, is_function = self.stack[-1]
        return f"{parent}.<locals>.{name}" if is_function else f"{parent}.{name}"

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        qn = self._qual(node.name.value)
        self.names[node] = qn
        self.stack.append((qn, True))

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.stack.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.stack.append((self._qual(node.name.value), False))

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.stack.pop()


def function_qualnames(module: cst.Module) -> dict[cst.FunctionDef, str]:
    """CPython's ``__qualname__`` of every ``def`` in ``module`` (``f``, ``Box.grow``,
    ``outer.<locals>.inner``): the keys of runtime type observations."""
    v = _Qualnames()
    module.visit(v)
    return v.names


def _target_names(target: cst.BaseExpression, out: set[str]) -> None:
    if isinstance(target, cst.Name):
        out.add(target.value)
    elif isinstance(target, (cst.Tuple, cst.List)):
        for el in target.elements:
            _target_names(el.value, out)
    elif isinstance(target, cst.StarredElement):
        _target_names(target.value, out)


def _binds(stmt: cst.CSTNode, out: set[str]) -> None:
    """Names that statement ``stmt`` binds when it completes normally (conservative:
    assignments, imports, ``def``/``class``; never names bound only on some paths)."""
    smalls: Sequence[cst.CSTNode]
    if isinstance(stmt, cst.SimpleStatementLine):
        smalls = stmt.body
    elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        out.add(stmt.name.value)
        return
    else:
        smalls = [stmt]
    for s in smalls:
        if isinstance(s, cst.Assign):
            for t in s.targets:
                _target_names(t.target, out)
        elif isinstance(s, cst.AnnAssign) and s.value is not None:
            _target_names(s.target, out)
        elif isinstance(s, cst.AugAssign):
            _target_names(s.target, out)
        elif isinstance(s, cst.Import):
            for alias in s.names:
                if alias.asname is not None:
                    _target_names(alias.asname.name, out)
                else:
                    name = alias.name
                    while isinstance(name, cst.Attribute):
                        name = name.value
                    if isinstance(name, cst.Name):
                        out.add(name.value)
        elif isinstance(s, cst.ImportFrom) and not isinstance(s.names, cst.ImportStar):
            for alias in s.names:
                if alias.asname is not None:
                    _target_names(alias.asname.name, out)
                elif isinstance(alias.name, cst.Name):
                    out.add(alias.name.value)


def _child_suites(stmt: cst.CSTNode) -> list[tuple[cst.BaseSuite, frozenset[str]]]:
    """The blocks directly inside a compound statement (not a nested ``def``/``class``),
    each with the names bound on entering it (a ``for`` target in the loop body, ``with``
    targets in its body)."""
    out: list[tuple[cst.BaseSuite, frozenset[str]]] = []
    if isinstance(stmt, cst.If):
        out.append((stmt.body, frozenset()))
        if isinstance(stmt.orelse, cst.If):
            out += _child_suites(stmt.orelse)
        elif isinstance(stmt.orelse, cst.Else):
            out.append((stmt.orelse.body, frozenset()))
    elif isinstance(stmt, (cst.For, cst.While)):
        bound: set[str] = set()
        if isinstance(stmt, cst.For):
            _target_names(stmt.target, bound)
        out.append((stmt.body, frozenset(bound)))
        if stmt.orelse is not None:
            out.append((stmt.orelse.body, frozenset()))
    elif isinstance(stmt, (cst.Try, cst.TryStar)):
        out.append((stmt.body, frozenset()))
        out += [(h.body, frozenset()) for h in stmt.handlers]
        if stmt.orelse is not None:
            out.append((stmt.orelse.body, frozenset()))
        if stmt.finalbody is not None:
            out.append((stmt.finalbody.body, frozenset()))
    elif isinstance(stmt, cst.With):
        bound = set()
        for item in stmt.items:
            if item.asname is not None:
                _target_names(item.asname.name, bound)
        out.append((stmt.body, frozenset(bound)))
    elif isinstance(stmt, cst.Match):
        out += [(case.body, frozenset()) for case in stmt.cases]
    return out


def _path(block: cst.BaseSuite, target: cst.BaseSuite) -> list[tuple[cst.BaseSuite, int, frozenset[str]]] | None:
    if block is target:
        return []
    if not isinstance(block, cst.IndentedBlock):
        return None
    for i, stmt in enumerate(block.body):
        for child, entry in _child_suites(stmt):
            rest = _path(child, target)
            if rest is not None:
                return [(block, i, entry), *rest]
    return None


def bound_at(func: cst.FunctionDef, suite: cst.BaseSuite, index: int, facts: FunctionFacts | None = None
             ) -> frozenset[str]:
    """Local names of ``func`` bound on every path that reaches the position before
    statement ``index`` of ``suite`` (a block of ``func``): the parameters of
    :func:`definitely_bound_params`, names assigned by the simple statements (and
    ``def``/``class`` statements) that precede the position in its block and in every
    enclosing block, ``for`` targets inside their loop body and ``with`` targets inside
    their block.  Names that a ``del``, ``except ... as``, ``global`` or ``nonlocal``
    anywhere in ``func`` may unbind or rebind are left out.  Conservative: a name bound
    only inside an ``if``, a loop or a ``try`` before the position is not counted.

    Returns an empty set when ``suite`` is not a block of ``func``.
    """
    if facts is None:
        facts = ProgramFacts.of(cst.Module(body=[func])).functions[func]
    path = _path(func.body, suite)
    if path is None:
        return frozenset()
    names: set[str] = set(definitely_bound_params(func, facts))
    for block, i, entry in path:
        for stmt in list(block.body)[:i]:
            _binds(stmt, names)
        names |= entry
    for stmt in list(suite.body)[:index]:
        _binds(stmt, names)
    return frozenset(names - facts.unbinders)


def _observed_types(func: cst.FunctionDef, inputs: Sequence[str]) -> dict[str, str]:
    """Type names of the entry point's arguments in the first harness input that parses
    as literals (``{param: "int"}``); empty when unknown."""
    params = _params(func)
    positional = [p.name.value for p in [*func.params.posonly_params, *func.params.params]]
    for text in inputs:
        try:
            call = ast.parse(f"f({text})", mode="eval").body
            assert isinstance(call, ast.Call)
            if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
                continue
            args = [ast.literal_eval(a) for a in call.args]
            kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
        except (SyntaxError, ValueError, TypeError, AssertionError, MemoryError, RecursionError):
            continue
        out = {name: type(value).__name__ for name, value in zip(positional, args)}
        known = {p.name.value for p in params}
        out.update({k: type(v).__name__ for k, v in kwargs.items() if k in known})
        return out
    return {}


# ---------------------------------------------------------------------------------------
# the transform


class _Insert(cst.CSTTransformer):
    def __init__(self, suite: cst.BaseSuite, index: int, stmts: Sequence[cst.BaseStatement]) -> None:
        super().__init__()
        self.suite = suite
        self.index = index
        self.stmts = list(stmts)

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock):
        if original_node is not self.suite:
            return updated_node
        body = list(updated_node.body)
        return updated_node.with_changes(body=[*body[:self.index], *self.stmts, *body[self.index:]])

    def leave_SimpleStatementSuite(self, original_node: cst.SimpleStatementSuite,
                                   updated_node: cst.SimpleStatementSuite):
        if original_node is not self.suite:
            return updated_node
        # ``def f(x): return x`` -> an indented block, one statement per line
        lines = [cst.SimpleStatementLine([s.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)])
                 for s in updated_node.body]
        return cst.IndentedBlock(body=[*lines[:self.index], *self.stmts, *lines[self.index:]],
                                 header=updated_node.trailing_whitespace)


class DeadCode(Transform):
    """Insert an unreachable ``if`` block, guarded by an opaque predicate, into a function.

    A statement position inside a function body (any nesting depth, after the docstring
    and ``global``/``nonlocal`` declarations, never in a class body) is chosen with
    ``ctx.rng``, uniformly over all positions of all eligible functions in source order.
    There an ``if`` is inserted whose condition (see :data:`PREDICATES`) is false for every
    value, e.g. ``if type(text) is str and len(text) < 0:``.  Only predicates that z3
    proves false for every value of their variable are used (:func:`proved_predicates`,
    checked once per process; a catalogue entry that is not constant is never emitted).

    The predicate's variable, in order of preference:

    1. with runtime observations (``ctx.observations``): a local that is bound at the
       position on every path (:func:`bound_at`) and was observed only as ``int`` in
       that function, under ``type(x) is int and <integer fact>`` -- the guard holds, so
       the arithmetic fact is evaluated (and proved false) at run time;
    2. a parameter that is bound at every point of the function; when the entry point's
       harness inputs are known the guard type is the argument's type;
    3. without a usable parameter (or when ``type``/``int``/``len``... may be rebound), a
       fresh local assigned an int literal just before the ``if`` (``k = 7`` /
       ``if k * k < 0:``).

    The guard ``type(x) is T`` is always kept for program variables: it makes the
    predicate false for every input, observed or not.  The body (see
    :data:`BODY_TEMPLATES`) reads locals and assigns only fresh names or names already
    local, so scoping is unchanged.

    Functions using ``eval``/``exec``/``locals``/``globals``/``vars``/``dir()`` are skipped;
    programs inspecting frames, code objects or line numbers are refused.

    Takes no options.  Deterministic for a given rng.
    """

    uses_runtime_types = True
    name = "dead-code"
    family = "dead-code"
    description = "Insert an unreachable if-block guarded by a provably false predicate into a function."
    preconditions = (
        "the predicate is false for every value (catalogue proved by z3 in the transform, exact-type guards)",
        "the predicate's variable is bound at the position on every path, never deleted / except-as / "
        "global / nonlocal",
        "builtins the predicate calls are not rebound (else a fresh int local is used)",
        "the dead body assigns only fresh names or existing locals; no yield/await/global/nonlocal",
        "the function does not use eval/exec/locals/globals/vars/dir(); no frame/line introspection",
    )

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        site = choose_position(module, ctx)
        stmts, var, condition = opaque_condition(module, ctx, site)
        body = _dead_body(ctx, site, var, BODY_TEMPLATES)
        source = f"if {condition}:\n" + "".join(f"    {line}\n" for line in body)
        stmts.append(cst.parse_statement(source))
        ctx.record(site.anchor, f"unreachable `if {condition}:` inserted in {site.func.name.value}()")
        return module.visit(_Insert(site.suite, site.index, stmts))


# ---------------------------------------------------------------------------------------
# shared pieces: positions, predicate choice, bodies


@dataclass(frozen=True)
class Position:
    """A statement position chosen for inserted code: before statement ``index`` of
    ``suite`` (a block of ``func``); ``facts`` are the function's facts, ``names`` every
    identifier of the module."""

    func: cst.FunctionDef
    suite: cst.BaseSuite
    index: int
    facts: FunctionFacts
    names: frozenset[str]

    @property
    def anchor(self) -> cst.CSTNode:
        """The input-tree node the site is reported at."""
        return _anchor(self.func, self.suite, self.index)


def choose_position(module: cst.Module, ctx: RewriteContext) -> Position:
    """Choose, with ``ctx.rng``, a statement position in a function body where code may be
    inserted (see :func:`insertion_blocks`): uniformly over every position of every
    function that does not use ``eval``/``exec``/``locals``/``globals``/``vars``/``dir()``
    -- and, with runtime observations, that ran on the observed inputs (when one did).

    Raises:
        NotApplicable: no function; the program inspects frames, code objects or line
            numbers; no eligible function or position.
    """
    facts = ProgramFacts.of(module)
    if not facts.functions:
        raise NotApplicable("no function")
    names = identifiers_in(module)
    found = hazard_identifiers(module, FRAME_HAZARDS, LINE_HAZARDS, names=names)
    if found:
        raise NotApplicable(f"program inspects frames, code or line numbers ({', '.join(found)})")
    eligible: list[cst.FunctionDef] = []
    reasons: list[str] = []
    for func, f in facts.functions.items():
        if f.dynamic:
            reasons.append(f"{func.name.value}() uses {', '.join(sorted(f.dynamic))}")
        else:
            eligible.append(func)
    if not eligible:
        raise NotApplicable("no eligible function (" + "; ".join(reasons) + ")")
    if isinstance(ctx.observations, Mapping):
        # prefer functions that ran on the observed inputs (code that never runs cannot be verified)
        qualnames = function_qualnames(module)
        ran = [func for func in eligible if qualnames.get(func) in ctx.observations]
        eligible = ran or eligible
    positions: list[tuple[cst.FunctionDef, cst.BaseSuite, int]] = []
    for func in eligible:
        for suite, first, last in insertion_blocks(func, facts.functions[func]):
            positions += [(func, suite, i) for i in range(first, last + 1)]
    if not positions:
        raise NotApplicable("no statement position in a function body")
    func, suite, index = ctx.rng.choice(positions)
    return Position(func, suite, index, facts.functions[func], names)


def observed_int_locals(module: cst.Module, ctx: RewriteContext, site: Position) -> list[str]:
    """Locals bound at ``site`` on every path (:func:`bound_at`) whose every observed type
    in the function (``ctx.observations[qualname][name]``) is ``int``; sorted.  Empty
    without observations."""
    obs = ctx.observations
    if not isinstance(obs, Mapping):
        return []
    qualname = function_qualnames(module).get(site.func)
    table = obs.get(qualname) if qualname is not None else None
    if not isinstance(table, Mapping):
        return []
    bound = bound_at(site.func, site.suite, site.index, site.facts)
    return sorted(n for n in bound if list(table.get(n) or ()) == ["int"])


def opaque_condition(module: cst.Module, ctx: RewriteContext, site: Position
                     ) -> tuple[list[cst.BaseStatement], str, str]:
    """Choose an opaque predicate for ``site`` (see :class:`DeadCode` for the order of
    preference) with ``ctx.rng``.

    Returns:
        ``(statements to insert before the condition's user, the predicate's variable,
        the condition text)``; the statements are ``[k = <int literal>]`` when the
        predicate is over a fresh local, else empty.

    Raises:
        NotApplicable: no catalogue predicate is proved (never for the built-in catalogue).
    """
    proved = proved_predicates()
    builtins_ok = not hazard_identifiers(module, BUILTINS_HAZARDS, names=site.names)
    usable = [pred for pred in proved if pred.guard is not None
              and builtins_ok and not ctx.shadowed(*pred.builtins)]
    ints = observed_int_locals(module, ctx, site)
    int_preds = [p for p in usable if p.guard == "int"]
    if ints and int_preds:
        var = ctx.rng.choice(ints)
        pred = ctx.rng.choice(int_preds)
        return [], var, pred.render(var)
    params = definitely_bound_params(site.func, site.facts)
    if params and usable:
        var = ctx.rng.choice(params)
        func = site.func
        observed = _observed_types(func, ctx.inputs) if (
            any(stmt is func for stmt in module.body) and func.name.value == ctx.entry_point) else {}
        guards = sorted({p.guard for p in usable if p.guard is not None})
        kind = observed.get(var)
        guard = kind if kind in guards else ctx.rng.choice(guards)
        pred = ctx.rng.choice([p for p in usable if p.guard == guard])
        return [], var, pred.render(var)
    bare = [p for p in proved if p.guard is None]
    if not bare:
        raise NotApplicable("no predicate of the catalogue is proved false by z3")
    var = ctx.fresh_name(ctx.rng.choice(_CONST_HINTS))
    pred = ctx.rng.choice(bare)
    stmts = [cst.parse_statement(f"{var} = {ctx.rng.randint(2, 99)}\n")]
    return stmts, var, pred.render(var)


def _dead_body(ctx: RewriteContext, site: Position, var: str, templates: Sequence["_Body"]) -> list[str]:
    """Lines of a plausible dead body (unindented) from ``templates``, chosen with
    ``ctx.rng``; ``{p}`` is ``var``, ``{v}`` a local of the function, ``{t}``/``{u}``
    fresh names."""
    tables = function_symbol_tables(ctx.program.source)
    table = tables.get((site.func.name.value, ctx.position(site.func.name)[0]))
    local_names = function_locals(table, site.func)
    if var not in local_names:
        local_names = sorted({*local_names, var})
    f = site.facts
    if f.is_generator or site.func.asynchronous is not None or f.has_try_star:
        templates = tuple(b for b in templates if not b.returns)
    body = ctx.rng.choice(templates)
    others = [n for n in local_names if n != var]
    fills = {"p": var, "v": ctx.rng.choice(others or local_names), "t": "", "u": ""}
    text_all = "\n".join(body.lines)
    if "{t}" in text_all:
        fills["t"] = ctx.fresh_name(ctx.rng.choice(_FRESH_HINTS))
    if "{u}" in text_all:
        fills["u"] = ctx.fresh_name(ctx.rng.choice(("i", "j", "pos", "step_i")))
    return [line.format(**fills) for line in body.lines]


def _anchor(func: cst.FunctionDef, suite: cst.BaseSuite, index: int) -> cst.CSTNode:
    """The input-tree node a site is reported at: the statement the block goes before,
    else the one it goes after, else the function."""
    stmts = list(suite.body)
    if index < len(stmts):
        return stmts[index]
    if stmts:
        return stmts[-1]
    return func


# ---------------------------------------------------------------------------------------
# dead-store

_STORE_HINTS = {"literal": ("marker", "last", "state", "flag", "default"), "copy": ("prev", "snapshot", "saved", "orig"),
                "pair": ("pair", "both", "key_pair"), "int": ("offset", "size", "bound", "width")}

#: Literal values a dead store may assign (can never raise).
STORE_LITERALS: tuple[str, ...] = ("0", "1", "-1", "None", "''", "[]", "()", "{}", "True", "False", "'done'")

#: Arithmetic templates over ``{n}``, a local observed only as ``int``: linear (no
#: division, no power, no shift), so they cannot raise and cost time linear in the size of
#: the integer.
STORE_INT_TEMPLATES: tuple[str, ...] = ("{n} + 1", "{n} - 1", "{n} * 2", "2 * {n} + 1", "{n} + {n}", "-{n}")


class DeadStore(Transform):
    """Insert an assignment to a fresh, never-read local of a side-effect-free value.

    At a statement position inside a function (chosen as for ``dead-code``), one of:

    * a literal (``prev = 0``, ``saved = []``, ...: :data:`STORE_LITERALS`);
    * a copy of a local bound at that point on every path (``snapshot = text``), or a
      tuple of two such locals (``pair = (a, b)``) -- only when the program cannot observe
      that the object now lives until the function returns (no ``__del__``, ``weakref``,
      ``gc``, reference counts, generators with ``try``/``with``:
      :func:`~codemorph.authoring.finalisation_hazard`);
    * with runtime observations, arithmetic on a local bound at that point and observed
      only as ``int`` in that function (:data:`STORE_INT_TEMPLATES`, e.g. ``offset = n + 1``).

    None of these can raise or run user code: no call, attribute access, indexing,
    division or comparison; names read are bound on every path to the position
    (:func:`bound_at`), so reading them cannot fail.  The new name is spelled nowhere in the
    program, so nothing reads it.  Functions using ``eval``/``exec``/``locals``/
    ``globals``/``vars``/``dir()`` are skipped; programs inspecting frames or line numbers
    are refused.

    Takes no options.  Deterministic for a given rng.
    """

    uses_runtime_types = True
    name = "dead-store"
    family = "dead-code"
    description = "Insert an assignment of a side-effect-free value to a fresh, never-read local."
    preconditions = (
        "the value is a literal, a tuple of locals bound on every path, or +,-,* on a local observed as int",
        "copies only when object lifetimes are unobservable (no __del__, weakref, gc, generator try/with)",
        "the target is a fresh name spelled nowhere in the program",
        "the function does not use eval/exec/locals/globals/vars/dir(); no frame/line introspection",
    )

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        site = choose_position(module, ctx)
        bound = sorted(bound_at(site.func, site.suite, site.index, site.facts))
        ints = observed_int_locals(module, ctx, site)
        kinds = ["literal"]
        # a copy keeps the object alive until the function returns: only when that is unobservable
        if bound and finalisation_hazard(module, names=site.names) is None:
            kinds += ["copy", "pair"] if len(bound) > 1 else ["copy"]
        if ints:
            kinds.append("int")
        kind = ctx.rng.choice(kinds)
        if kind == "literal":
            value = ctx.rng.choice(STORE_LITERALS)
        elif kind == "copy":
            value = ctx.rng.choice(bound)
        elif kind == "pair":
            a, b = ctx.rng.sample(bound, 2)
            value = f"({a}, {b})"
        else:
            value = ctx.rng.choice(STORE_INT_TEMPLATES).format(n=ctx.rng.choice(ints))
        target = ctx.fresh_name(ctx.rng.choice(_STORE_HINTS[kind]))
        stmt = cst.parse_statement(f"{target} = {value}\n")
        ctx.record(site.anchor, f"dead store `{target} = {value}` inserted in {site.func.name.value}()")
        return module.visit(_Insert(site.suite, site.index, [stmt]))


# ---------------------------------------------------------------------------------------
# dead-loop

#: Bodies only a loop can hold (``break``/``continue`` bind to the dead loop itself).
LOOP_BODY_TEMPLATES: tuple[_Body, ...] = (
    _Body(("if {v} is None:", "    break", "{t} = {p}", "print({t})")),
    _Body(("{t} = {p}", "if not {t}:", "    continue", "{v} = {t}")),
    _Body(("{t} = [{p}, {v}]", "if len({t}) > 1:", "    break")),
)

_LOOP_HINTS = ("item", "entry", "elem", "row", "part", "ch")


class DeadLoop(Transform):
    """Insert a loop that runs zero times, with a plausible body, into a function.

    Two forms, chosen with ``ctx.rng``:

    * ``for item in ():`` -- iterating the empty tuple literal (no name lookup, no call);
      the target is a fresh name;
    * ``while <opaque predicate>:`` -- a predicate of the z3-proved ``dead-code``
      catalogue (:func:`opaque_condition`: ``type(x) is int and x * x < 0`` over a local
      observed as int, a bound parameter, or a fresh int constant), evaluated once.

    The body comes from :data:`BODY_TEMPLATES` and :data:`LOOP_BODY_TEMPLATES` (the latter
    may ``break``/``continue``, which bind to the dead loop); it assigns only fresh names
    or names already local.  No ``else`` clause (it would run).  Positions, skipped
    functions and refusals are those of ``dead-code``.

    Takes no options.  Deterministic for a given rng.
    """

    uses_runtime_types = True
    name = "dead-loop"
    family = "dead-code"
    description = "Insert a loop that runs zero times (for over an empty tuple, or while under a false predicate)."
    preconditions = (
        "the loop iterates the literal () or is guarded by a z3-proved false predicate; no else clause",
        "the body assigns only fresh names or existing locals; no yield/await/global/nonlocal",
        "the function does not use eval/exec/locals/globals/vars/dir(); no frame/line introspection",
    )

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        site = choose_position(module, ctx)
        form = ctx.rng.choice(("for", "while"))
        if form == "for":
            stmts: list[cst.BaseStatement] = []
            var = ctx.fresh_name(ctx.rng.choice(_LOOP_HINTS))
            header = f"for {var} in ():"
        else:
            stmts, var, condition = opaque_condition(module, ctx, site)
            header = f"while {condition}:"
        body = _dead_body(ctx, site, var, BODY_TEMPLATES + LOOP_BODY_TEMPLATES)
        stmts.append(cst.parse_statement(f"{header}\n" + "".join(f"    {line}\n" for line in body)))
        ctx.record(site.anchor, f"zero-iteration loop `{header}` inserted in {site.func.name.value}()")
        return module.visit(_Insert(site.suite, site.index, stmts))


# ---------------------------------------------------------------------------------------
# unused-function


@dataclass(frozen=True)
class HelperTemplate:
    """A plausible module-level helper: ``hint`` for its (fresh) name and its source with
    ``{name}`` for the name.  Its parameters and locals are its own; it reads only
    builtins (never called, so what they are bound to does not matter)."""

    hint: str
    source: str


#: The helpers ``unused-function`` may insert.
HELPER_TEMPLATES: tuple[HelperTemplate, ...] = (
    HelperTemplate("dedupe", "def {name}(items):\n    seen = []\n    for item in items:\n"
                             "        if item not in seen:\n            seen.append(item)\n    return seen\n"),
    HelperTemplate("count_matches", "def {name}(items, target):\n    count = 0\n    for item in items:\n"
                                    "        if item == target:\n            count += 1\n    return count\n"),
    HelperTemplate("normalize", "def {name}(text):\n    return text.strip().lower()\n"),
    HelperTemplate("clamp", "def {name}(value, low=0, high=100):\n    return max(low, min(value, high))\n"),
    HelperTemplate("index_items", "def {name}(items):\n    table = {{}}\n    for pos, item in enumerate(items):\n"
                                  "        table[item] = pos\n    return table\n"),
    HelperTemplate("split_fields", "def {name}(text, sep=','):\n"
                                   "    return [part.strip() for part in text.split(sep) if part]\n"),
    HelperTemplate("is_sorted", "def {name}(items):\n    for i in range(1, len(items)):\n"
                                "        if items[i - 1] > items[i]:\n            return False\n    return True\n"),
)

#: Identifiers of code that can enumerate or look up module globals by name (a new
#: global function would be visible to it).
GLOBALS_HAZARDS: frozenset[str] = frozenset({
    "globals", "vars", "dir", "locals", "eval", "exec", "__dict__", "modules", "__main__", "__globals__",
    "f_globals", "getmembers", "getattr", "hasattr", "__getattr__", "__dir__",
})


class UnusedFunction(Transform):
    """Insert a plausible module-level helper function that is never called.

    The helper (:data:`HELPER_TEMPLATES`, e.g. ``def dedupe(items): ...``) gets a fresh
    name (spelled nowhere in the program) and goes before a top-level ``def``/``class``
    or at the end of the module (position chosen with ``ctx.rng``).  Defining it only binds
    that new global: it has no decorators, and its defaults are literals.

    Refused when the program could see the new global: it spells any of
    :data:`GLOBALS_HAZARDS` (``globals()``, ``vars()``, ``dir()``, ``eval``,
    ``sys.modules``, ``__dict__``, ``getattr``...), reaches builtins/imports dynamically,
    inspects frames or line numbers (lines below the helper move), or uses ``gc``/``weakref``.

    Takes no options.  Deterministic for a given rng.
    """

    name = "unused-function"
    family = "dead-code"
    description = "Insert a plausible module-level helper function that is never called."
    preconditions = (
        "the helper's name is fresh (spelled nowhere in the program)",
        "the program cannot enumerate or look up globals by name (globals, vars, dir, eval, __dict__, "
        "sys.modules, getattr)",
        "no frame/line introspection, no gc/weakref",
    )

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        names = identifiers_in(module)
        found = hazard_identifiers(module, GLOBALS_HAZARDS, BUILTINS_HAZARDS, FRAME_HAZARDS, LINE_HAZARDS,
                                   LIFETIME_HAZARDS, names=names)
        if found:
            raise NotApplicable(f"program may observe a new global or its line numbers ({', '.join(found)})")
        body = list(module.body)
        positions = [i for i, s in enumerate(body) if isinstance(s, (cst.FunctionDef, cst.ClassDef))]
        positions.append(len(body))
        index = ctx.rng.choice(positions)
        template = ctx.rng.choice(HELPER_TEMPLATES)
        fname = ctx.fresh_name(template.hint)
        helper = cst.parse_statement(template.source.format(name=fname))
        two = [cst.EmptyLine(indent=False), cst.EmptyLine(indent=False)]
        if index > 0:
            helper = helper.with_changes(leading_lines=two)
        new_body = [*body[:index], helper]
        if index < len(body):
            following = body[index]
            lines = list(following.leading_lines)
            blank = 0
            while blank < len(lines) and lines[blank].comment is None:
                blank += 1
            if blank < 2:
                following = following.with_changes(leading_lines=[*two[:2 - blank], *lines])
            new_body.append(following)
            new_body += body[index + 1:]
            anchor: cst.CSTNode = body[index]
            where = f"before {getattr(body[index], 'name').value}"
        else:
            anchor = body[-1] if body else module
            where = "at the end of the module"
        ctx.record(anchor if body else None, f"unused helper {fname}() inserted {where}")
        return module.with_changes(body=new_body)
