"""What the dead-code transforms share: an insertion position, the opaque condition and
body chosen for it, the statement inserter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import libcst as cst

from codemorph.engine import DYNAMIC_SCOPE_BUILTINS, NotApplicable, RewriteContext
from codemorph.engine.transform import identifiers_in
from codemorph.authoring.facts import FunctionFacts, ProgramFacts
from codemorph.authoring.hazards import BUILTINS_HAZARDS, FRAME_HAZARDS, LINE_HAZARDS, hazard_identifiers
from codemorph.transforms.deadcode.predicates import Body, CONST_HINTS, FRESH_HINTS, proved_predicates
from codemorph.transforms.deadcode.blocks import (
    bound_at, definitely_bound_params, function_locals, function_qualnames, function_symbol_tables,
    insertion_blocks, observed_types,
)

__all__ = [
    "InsertStatements", "Position", "choose_position", "observed_int_locals", "opaque_condition",
    "dead_body",
]


class InsertStatements(cst.CSTTransformer):
    """Transformer inserting ``stmts`` at ``index`` of the block ``suite`` (matched by
    identity; the module itself for a script's module-level position)."""
    def __init__(self, suite: cst.BaseSuite | cst.Module, index: int, stmts: Sequence[cst.BaseStatement]) -> None:
        super().__init__()
        self.suite = suite
        self.index = index
        self.stmts = list(stmts)

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module):
        if original_node is not self.suite:
            return updated_node
        body = list(updated_node.body)
        return updated_node.with_changes(body=[*body[:self.index], *self.stmts, *body[self.index:]])

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


# ---------------------------------------------------------------------------------------
# shared pieces: positions, predicate choice, bodies


@dataclass(frozen=True)
class Position:
    """A statement position chosen for inserted code: before statement ``index`` of
    ``suite`` (a block of ``func``); ``facts`` are the function's facts, ``names`` every
    identifier of the module."""

    func: cst.FunctionDef | None
    suite: cst.BaseSuite | cst.Module
    index: int
    facts: FunctionFacts | None
    names: frozenset[str]

    @property
    def anchor(self) -> cst.CSTNode:
        """The input-tree node the site is reported at."""
        return _anchor(self.func, self.suite, self.index)

    @property
    def where(self) -> str:
        """``"f()"``, or ``"the module"`` for a script's module-level position."""
        return "the module" if self.func is None else f"{self.func.name.value}()"


def _module_positions(module: cst.Module) -> list[int]:
    """Statement positions of a script's module body: after its docstring and
    ``from __future__`` imports (which must stay first)."""
    body = list(module.body)
    first = 0
    while first < len(body):
        stmt = body[first]
        small = stmt.body if isinstance(stmt, cst.SimpleStatementLine) else []
        if small and all(isinstance(x, cst.ImportFrom) and isinstance(x.module, cst.Name)
                         and x.module.value == "__future__" for x in small):
            first += 1
        elif first == 0 and small and isinstance(small[0], cst.Expr) \
                and isinstance(small[0].value, (cst.SimpleString, cst.ConcatenatedString)):
            first += 1
        else:
            break
    return list(range(first, len(body) + 1))


def choose_position(module: cst.Module, ctx: RewriteContext, scripts: bool = False) -> Position:
    """Choose, with ``ctx.rng``, a statement position in a function body where code may be
    inserted (see :func:`insertion_blocks`): uniformly over every position of every
    function that does not use ``eval``/``exec``/``locals``/``globals``/``vars``/``dir()``
    -- and, with runtime observations, that ran on the observed inputs (when one did).

    Raises:
        NotApplicable: no function; the program inspects frames, code objects or line
            numbers; no eligible function or position.
    """
    facts = ProgramFacts.of(module)
    # a script (ctx.script) owns its module namespace: its module body is a position too,
    # unless something lists or reads that namespace by name
    at_module = scripts and ctx.script and not (identifiers_in(module) & DYNAMIC_SCOPE_BUILTINS)
    if not facts.functions and not at_module:
        raise NotApplicable("no function")
    names = identifiers_in(module)
    found = hazard_identifiers(module, FRAME_HAZARDS, LINE_HAZARDS, names=names)
    if found:
        raise NotApplicable(f"program inspects frames, code or line numbers ({', '.join(found)})")
    if not facts.functions:
        return Position(None, module, ctx.rng.choice(_module_positions(module)), None, names)
    eligible: list[cst.FunctionDef] = []
    reasons: list[str] = []
    for func, f in facts.functions.items():
        if f.dynamic:
            reasons.append(f"{func.name.value}() uses {', '.join(sorted(f.dynamic))}")
        else:
            eligible.append(func)
    if not eligible and not at_module:
        raise NotApplicable("no eligible function (" + "; ".join(reasons) + ")")
    if isinstance(ctx.observations, Mapping):
        # prefer functions that ran on the observed inputs (code that never runs cannot be verified)
        qualnames = function_qualnames(module)
        ran = [func for func in eligible if qualnames.get(func) in ctx.observations]
        eligible = ran or eligible
    positions: list[tuple[cst.FunctionDef | None, cst.BaseSuite | cst.Module, int]] = []
    if at_module:
        positions += [(None, module, i) for i in _module_positions(module)]
    for func in eligible:
        for suite, first, last in insertion_blocks(func, facts.functions[func]):
            positions += [(func, suite, i) for i in range(first, last + 1)]
    if not positions:
        raise NotApplicable("no statement position in a function body")
    func, suite, index = ctx.rng.choice(positions)
    return Position(func, suite, index, None if func is None else facts.functions[func], names)


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
    ints = observed_int_locals(module, ctx, site) if site.func is not None else []
    int_preds = [p for p in usable if p.guard == "int"]
    if ints and int_preds:
        var = ctx.rng.choice(ints)
        pred = ctx.rng.choice(int_preds)
        return [], var, pred.render(var)
    params = definitely_bound_params(site.func, site.facts) if site.func is not None else []
    if params and usable:
        var = ctx.rng.choice(params)
        func = site.func
        observed = observed_types(func, ctx.inputs) if (
            any(stmt is func for stmt in module.body) and func.name.value == ctx.entry_point) else {}
        guards = sorted({p.guard for p in usable if p.guard is not None})
        kind = observed.get(var)
        guard = kind if kind in guards else ctx.rng.choice(guards)
        pred = ctx.rng.choice([p for p in usable if p.guard == guard])
        return [], var, pred.render(var)
    bare = [p for p in proved if p.guard is None]
    if not bare:
        raise NotApplicable("no predicate of the catalogue is proved false by z3")
    var = ctx.fresh_name(ctx.rng.choice(CONST_HINTS))
    pred = ctx.rng.choice(bare)
    stmts = [cst.parse_statement(f"{var} = {ctx.rng.randint(2, 99)}\n")]
    return stmts, var, pred.render(var)


def dead_body(ctx: RewriteContext, site: Position, var: str, templates: Sequence["Body"]) -> list[str]:
    """Lines of a plausible dead body (unindented) from ``templates``, chosen with
    ``ctx.rng``; ``{p}`` is ``var``, ``{v}`` a local of the function, ``{t}``/``{u}``
    fresh names."""
    if site.func is None:
        # a script's module level: the body reads only the predicate's own fresh variable,
        # and cannot return
        local_names = [var]
        templates = tuple(b for b in templates if not b.returns)
    else:
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
        fills["t"] = ctx.fresh_name(ctx.rng.choice(FRESH_HINTS))
    if "{u}" in text_all:
        fills["u"] = ctx.fresh_name(ctx.rng.choice(("i", "j", "pos", "step_i")))
    return [line.format(**fills) for line in body.lines]


def _anchor(func: cst.FunctionDef | None, suite: cst.BaseSuite | cst.Module, index: int) -> cst.CSTNode:
    """The input-tree node a site is reported at: the statement the block goes before,
    else the one it goes after, else the function."""
    stmts = list(suite.body)
    if index < len(stmts):
        return stmts[index]
    if stmts:
        return stmts[-1]
    return func if func is not None else suite
