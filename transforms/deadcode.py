"""The ``dead-code`` family: insertion of code that never runs.

``dead-code`` (:class:`DeadCode`) inserts, inside a function body, an ``if`` block whose
condition is false for every possible execution (an *opaque predicate*, Collberg,
Thomborson and Low, "Manufacturing cheap, resilient, and stealthy opaque constructs",
POPL 1998) and whose body is plausible code over the names in scope.

The catalogue of predicates (:data:`PREDICATES`) is the shared piece of the family: each
entry is a guard on the exact type of a variable (``type(x) is int``: no subclass with odd
operators, no user ``__len__``) followed by an arithmetic fact that is false for every
value of that type.  Every fact is proved false over unbounded integers with z3 by the
test suite (tests/test_dead_code.py translates the emitted text itself into z3).
"""

from __future__ import annotations

import ast
import symtable
from dataclasses import dataclass
from typing import Any, Sequence

import libcst as cst

from codemorph import NotApplicable, RewriteContext, Transform
from codemorph.transform import identifiers_in

from .loops import (BUILTINS_HAZARDS, FRAME_HAZARDS, LINE_HAZARDS, FunctionFacts, ProgramFacts,
                    hazard_identifiers)

__all__ = ["DeadCode", "DeadPredicate", "PREDICATES", "INT_FACTS", "LEN_FACTS", "BODY_TEMPLATES",
           "function_locals", "function_symbol_tables", "insertion_blocks", "definitely_bound_params"]


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
    :class:`~codemorph.transforms.loops.ProgramFacts`) may be passed when computed.
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
    ``facts`` (from :class:`~codemorph.transforms.loops.ProgramFacts`) may be passed."""
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
    value, e.g. ``if type(text) is str and len(text) < 0:``, over a parameter that is
    bound at every point of the function; when the entry point's harness inputs are known
    the guard type is the argument's type, so the guard holds and the fact is evaluated.
    Without a usable parameter (or when ``type``/``int``/``len``... may be rebound) the
    predicate is over a fresh local assigned an int literal just before the ``if``
    (``k = 7`` / ``if k * k < 0:``).  The body (see :data:`BODY_TEMPLATES`) reads locals and
    assigns only fresh names or names already local, so scoping is unchanged.

    Functions using ``eval``/``exec``/``locals``/``globals``/``vars``/``dir()`` are skipped;
    programs inspecting frames, code objects or line numbers are refused.

    Takes no options.  Deterministic for a given rng.
    """

    name = "dead-code"
    family = "dead-code"
    description = "Insert an unreachable if-block guarded by a provably false predicate into a function."
    preconditions = (
        "the predicate is false for every value (z3-proved catalogue, exact-type guards)",
        "the predicate's variable is a parameter never deleted / except-as / global / nonlocal",
        "builtins the predicate calls are not rebound (else a fresh int local is used)",
        "the dead body assigns only fresh names or existing locals; no yield/await/global/nonlocal",
        "the function does not use eval/exec/locals/globals/vars/dir(); no frame/line introspection",
    )

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
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

        positions: list[tuple[cst.FunctionDef, cst.BaseSuite, int]] = []
        for func in eligible:
            for suite, first, last in insertion_blocks(func, facts.functions[func]):
                positions += [(func, suite, i) for i in range(first, last + 1)]
        if not positions:
            raise NotApplicable("no statement position in a function body")
        func, suite, index = ctx.rng.choice(positions)
        ffacts = facts.functions[func]

        builtins_ok = not hazard_identifiers(module, BUILTINS_HAZARDS, names=names)
        params = definitely_bound_params(func, ffacts)
        stmts: list[cst.BaseStatement] = []
        usable = [pred for pred in PREDICATES if pred.guard is not None
                  and builtins_ok and not ctx.shadowed(*pred.builtins)]
        if params and usable:
            var = ctx.rng.choice(params)
            observed = _observed_types(func, ctx.inputs) if (
                any(stmt is func for stmt in module.body) and func.name.value == ctx.entry_point) else {}
            guards = sorted({p.guard for p in usable if p.guard is not None})
            kind = observed.get(var)
            guard = kind if kind in guards else ctx.rng.choice(guards)
            pred = ctx.rng.choice([p for p in usable if p.guard == guard])
        else:
            var = ctx.fresh_name(ctx.rng.choice(_CONST_HINTS))
            pred = ctx.rng.choice([p for p in PREDICATES if p.guard is None])
            stmts.append(cst.parse_statement(f"{var} = {ctx.rng.randint(2, 99)}\n"))

        tables = function_symbol_tables(ctx.program.source)
        table = tables.get((func.name.value, ctx.position(func.name)[0]))
        local_names = function_locals(table, func)
        if var not in local_names:
            local_names = sorted({*local_names, var})
        templates = BODY_TEMPLATES
        if ffacts.is_generator or func.asynchronous is not None or ffacts.has_try_star:
            templates = tuple(b for b in BODY_TEMPLATES if not b.returns)
        body = ctx.rng.choice(templates)
        others = [n for n in local_names if n != var]
        fills = {"p": var, "v": ctx.rng.choice(others or local_names), "t": "", "u": ""}
        text_all = "\n".join(body.lines)
        if "{t}" in text_all:
            fills["t"] = ctx.fresh_name(ctx.rng.choice(_FRESH_HINTS))
        if "{u}" in text_all:
            fills["u"] = ctx.fresh_name(ctx.rng.choice(("i", "j", "pos", "step_i")))
        condition = pred.render(var)
        source = f"if {condition}:\n" + "".join(f"    {line.format(**fills)}\n" for line in body.lines)
        stmts.append(cst.parse_statement(source))

        anchor = _anchor(func, suite, index)
        ctx.record(anchor, f"unreachable `if {condition}:` inserted in {func.name.value}()")
        return module.visit(_Insert(suite, index, stmts))


def _anchor(func: cst.FunctionDef, suite: cst.BaseSuite, index: int) -> cst.CSTNode:
    """The input-tree node a site is reported at: the statement the block goes before,
    else the one it goes after, else the function."""
    stmts = list(suite.body)
    if index < len(stmts):
        return stmts[index]
    if stmts:
        return stmts[-1]
    return func
