"""What the dead-code transforms share: an insertion position, the opaque condition and
body chosen for it, the statement inserter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import libcst as cst

from codemorph.engine import DYNAMIC_SCOPE_BUILTINS, NotApplicable, RewriteContext
from codemorph.engine.transform import identifiers_in
from codemorph.authoring.facts import FunctionFacts, ProgramFacts
from codemorph.authoring.hazards import (BUILTINS_HAZARDS, FRAME_HAZARDS, LINE_HAZARDS, hazard_identifiers,
                                         rebindable_builtins)
from codemorph.transforms.deadcode.predicates import Body, CONST_HINTS, FRESH_HINTS, proved_predicates
from codemorph.transforms.deadcode.checks import ValueFact, bound_names_in, value_facts
from codemorph.transforms.deadcode.blocks import (
    bound_at, definitely_bound_params, function_locals, function_qualnames, function_symbol_tables,
    insertion_blocks, never_falls_through, observed_types,
)

__all__ = [
    "InsertStatements", "Position", "choose_position", "choose_natural_site", "observed_int_locals",
    "opaque_condition", "dead_body", "NO_NATURAL_SITE",
]


class InsertStatements(cst.CSTTransformer):
    """Transformer inserting ``stmts`` at ``index`` of the block ``suite`` (matched by
    identity; the module itself for a script's module-level position)."""
    # it looks nodes up by original_node only: an unchanged subtree is not rebuilt
    # (codemorph.engine.visiting; performance only)
    reuse_unchanged_nodes = True

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


def _positions(module: cst.Module, ctx: RewriteContext, scripts: bool = False
               ) -> tuple[ProgramFacts, frozenset[str], list[tuple[cst.FunctionDef | None, cst.BaseSuite | cst.Module, int]]]:
    """Every eligible insertion position (see :func:`choose_position`), in source order,
    with the program's facts and identifiers; with ``scripts``, a script's module body too."""
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
    return facts, frozenset(names), positions


def choose_position(module: cst.Module, ctx: RewriteContext, scripts: bool = False) -> Position:
    """Choose, with ``ctx.rng``, a statement position in a function body where code may be
    inserted (see :func:`insertion_blocks`): uniformly over every position of every
    function that does not use ``eval``/``exec``/``locals``/``globals``/``vars``/``dir()``
    -- and, with runtime observations, that ran on the observed inputs (when one did).

    Raises:
        NotApplicable: no function; the program inspects frames, code objects or line
            numbers; no eligible function or position.

    With ``scripts``, a script's (:attr:`RewriteContext.script`) module body is a position
    too, unless the program lists or reads its namespace by name.
    """
    facts, names, positions = _positions(module, ctx, scripts)
    func, suite, index = ctx.rng.choice(positions)
    return Position(func, suite, index, None if func is None else facts.functions[func], names)


#: identifiers through which a script can reach its module namespace other than by plain
#: names (``sys.modules[__name__].x = ...``, ``setattr(module, 'x', ...)``)
_MODULE_NAMESPACE_HAZARDS = frozenset({"__main__", "__dict__", "modules", "setattr", "__import__",
                                       "import_module", "delattr"})


class _ModuleUnbinders(cst.CSTVisitor):
    """Names any code of the module declares ``global``/``nonlocal``, deletes or catches
    with ``except ... as``: a module-level fact never holds for them."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Global(self, node: cst.Global) -> None:
        self.names.update(item.name.value for item in node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.names.update(item.name.value for item in node.names)

    def visit_Del(self, node: cst.Del) -> None:
        self.names |= bound_names_in(node)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            self.names |= bound_names_in(node.name)


def _module_blocks(module: cst.Module) -> list[tuple[cst.Module | cst.IndentedBlock, int, cst.For | None]]:
    """The blocks of a script's module scope: ``(block, first position, the for loop whose
    body it is)`` for the module body and the bodies of its ``if``/``for``/``while``/
    ``with``/``try`` statements at any depth (never inside a ``def`` or ``class``)."""
    out: list[tuple[cst.Module | cst.IndentedBlock, int, cst.For | None]] = [
        (module, _module_positions(module)[0], None)]

    def walk(stmts: Sequence[cst.BaseStatement]) -> None:
        for stmt in stmts:
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) or not isinstance(stmt, cst.BaseCompoundStatement):
                continue
            suites: list[tuple[cst.BaseSuite, cst.For | None]] = [(stmt.body, stmt if isinstance(stmt, cst.For) else None)]
            if isinstance(stmt, cst.Try):
                suites += [(h.body, None) for h in stmt.handlers]
            orelse = getattr(stmt, "orelse", None)
            while isinstance(orelse, cst.If):  # elif chain
                suites.append((orelse.body, None))
                orelse = orelse.orelse
            if isinstance(orelse, cst.Else):
                suites.append((orelse.body, None))
            final = getattr(stmt, "finalbody", None)
            if isinstance(final, cst.Finally):
                suites.append((final.body, None))
            if not isinstance(stmt, (cst.If, cst.For, cst.While, cst.With, cst.Try)):
                continue  # match, try*: left out
            for suite, loop in suites:
                if isinstance(suite, cst.IndentedBlock):
                    out.append((suite, 0, loop))
                    walk(suite.body)

    walk(module.body)
    return out


def _module_sites(module: cst.Module, names: frozenset[str]
                  ) -> list[tuple[tuple[None, cst.Module | cst.IndentedBlock, int], list[ValueFact]]]:
    """The positions of a script's module scope with the facts that hold there
    (:func:`value_facts` with ``no_calls``): the name is bound by the nearest assignment
    before the position in the same block (or is the block's ``for`` counter), no statement
    in between contains a call or binds it, and no code of the module declares it
    ``global``/``nonlocal``, deletes it or catches into it.  None when the program can
    reach its module namespace otherwise (:data:`_MODULE_NAMESPACE_HAZARDS`)."""
    if names & (DYNAMIC_SCOPE_BUILTINS | _MODULE_NAMESPACE_HAZARDS):
        return []
    v = _ModuleUnbinders()
    module.visit(v)
    out = []
    for suite, first, loop in _module_blocks(module):
        body = list(suite.body)
        last = next((i for i, stmt in enumerate(body) if never_falls_through(stmt)), len(body))
        for index in range(first, last + 1):
            found = value_facts(suite, index, v.names, loop, no_calls=True)
            if found:
                out.append(((None, suite, index), found))
    return out


#: the refusal where no position has a fact the transform wants
NO_NATURAL_SITE = ("no natural site: no value computed from the program's variables (n = len(xs), "
                   "out = list(xs)...) with a proved fact right after its assignment (a check over a "
                   "literal, a fresh local or a loop counter is what no person writes)")


def choose_natural_site(module: cst.Module, ctx: RewriteContext, want: Callable[[ValueFact], bool],
                        scripts: bool = False) -> tuple[Position, list[ValueFact]]:
    """Choose, with ``ctx.rng``, a position as :func:`choose_position` does, among the
    positions where a fact about a program value holds (:func:`value_facts`) that ``want``
    accepts and whose builtins the program does not rebind; uniformly among those.

    With ``scripts``, in a script (:attr:`RewriteContext.script`) whose module namespace
    nothing lists or reaches by name, the module scope's positions with facts count too
    (:func:`_module_sites`: stricter rules, since any called function could rebind a
    global); a site without a fact is only ever chosen in a function.

    Returns:
        ``(position, the accepted facts there)``; the list is never empty.

    Raises:
        NotApplicable: as :func:`choose_position`; when no position has an accepted fact
            (:data:`NO_NATURAL_SITE`).
    """
    facts, names, positions = _positions(module, ctx, scripts)
    module_sites = [] if not any(func is None for func, _s, _i in positions) else _module_sites(module, names)
    positions = [pos for pos in positions if pos[0] is not None]
    builtins_ok = not hazard_identifiers(module, BUILTINS_HAZARDS, names=names)
    loops = {id(loop.body): loop for loop, _owner in facts.loops}
    with_facts: list[tuple[tuple[cst.FunctionDef | None, cst.BaseSuite | cst.Module, int], list[ValueFact]]] = []
    for pos, found in module_sites:
        ok = [fact for fact in found if want(fact) and (
            not fact.builtins or (builtins_ok and not rebindable_builtins(ctx, *fact.builtins)))]
        if ok:
            with_facts.append((pos, ok))
    for pos in positions:
        func, suite, index = pos
        found = value_facts(suite, index, facts.functions[func].unbinders, loops.get(id(suite)))
        ok = [fact for fact in found if want(fact) and (
            not fact.builtins or (builtins_ok and not rebindable_builtins(ctx, *fact.builtins)))]
        if ok:
            with_facts.append((pos, ok))
    if not with_facts:
        raise NotApplicable(NO_NATURAL_SITE)
    (func, suite, index), ok = ctx.rng.choice(with_facts)
    return Position(func, suite, index, None if func is None else facts.functions[func], names), ok


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
              and builtins_ok and not rebindable_builtins(ctx, *pred.builtins)]
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
