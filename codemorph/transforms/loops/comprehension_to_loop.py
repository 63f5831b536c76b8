"""``comprehension-to-loop``: comprehensions (and generator expressions consumed at once
by a builtin) as explicit loops, hoisted before their statement.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import libcst as cst

from codemorph.engine import NotApplicable, RewriteContext, Transform
from codemorph.engine.transform import BUILTIN_NAMES
from codemorph.authoring.facts import FunctionFacts, ProgramFacts
from codemorph.authoring.hazards import builtin_rebinding_refusal, rebindable_builtins
from codemorph.authoring.sites import SiteChoice
from codemorph.transforms.loops.common import (
    BlockRewriter, Plan, assign, choose_loop_sites, definitely_bound, find, function_of,
    lazy_scopes, name_nodes, owner_refusal, prepend_lines, refuse_program, simple_line,
    statement_comments, target_names,
)
from codemorph.transforms.loops.comprehensions import (
    inside_try_or_with, is_literal, recursion_hazard, scope_hazards, unbound_local_hazard,
)

__all__ = ["ComprehensionToLoop"]


#: builtins that consume a generator argument completely before doing anything else with
#: its items, mapped to the accumulator they are rewritten over ("list" or "set") and
#: whether the call stays (``tuple(acc)``) or is replaced by the accumulator itself
_CONSUMERS: dict[str, tuple[str, bool]] = {
    "list": ("list", False), "set": ("set", False), "tuple": ("list", True), "sorted": ("list", True),
    # frozenset(acc) of a list inserts the items one by one, as frozenset(gen) does; of a set it
    # copies that set's table, whose iteration order may differ ([60, 105, 145, 146, -50, 128])
    "frozenset": ("list", True), "sum": ("list", True), "min": ("list", True), "max": ("list", True),
}
#: consumers that work item by item (additions / comparisons): only for items that are
#: surely ints, where those steps cannot fail or run code
_ITEMWISE = frozenset({"sum", "min", "max"})
#: identifiers through which an expression can raise StopIteration (inside a generator
#: expression it becomes RuntimeError, PEP 479; inside a loop it would not)
_STOPITERATION_SOURCES = frozenset({"next", "__next__", "StopIteration", "send", "throw", "anext", "__anext__"})
_INT_CALLS = frozenset({"len", "int", "ord", "bool", "hash", "abs"})
#: names of the accumulator a loop builds when the statement's own target cannot be it, first
#: free one wins (then ``acc_1``...)
_ACC_NAMES = ("acc", "result", "items", "values")


@dataclass
class _CompSite:
    """One comprehension to hoist out of a statement."""

    stmt: cst.BaseStatement
    node: cst.BaseExpression  # the comprehension, or the consuming call around a generator expression
    comp: cst.BaseExpression  # ListComp / SetComp / DictComp / GeneratorExp
    kind: str  # accumulator: "list" | "set" | "dict"
    consumer: str | None  # builtin name, "join", or None
    targets: list[str]
    renames: dict[int, str] = field(default_factory=dict)
    acc: str = ""
    direct: bool = False  # the statement's own target is the accumulator
    effects: bool = False  # a list comprehension standing as a statement for its calls: no accumulator
    key: str | None = None  # temporary holding a dict comprehension's key (evaluated first)


def _comp_chain(comp: cst.BaseExpression) -> list[cst.CompFor]:
    out = []
    f: cst.CompFor | None = comp.for_in  # type: ignore[attr-defined]
    while f is not None:
        out.append(f)
        f = f.inner_for_in
    return out


def _comp_parts(comp: cst.BaseExpression) -> list[cst.CSTNode]:
    """The parts of a comprehension evaluated in its own scope (all but the first
    iterable)."""
    chain = _comp_chain(comp)
    parts: list[cst.CSTNode] = [comp.key, comp.value] if isinstance(comp, cst.DictComp) else [comp.elt]
    for k, f in enumerate(chain):
        parts.append(f.target)
        if k:
            parts.append(f.iter)
        parts += [i.test for i in f.ifs]
    return parts


def _comp_variable_uses(comp: cst.BaseExpression, scopes) -> list[cst.Name]:
    """The ``Name`` nodes that bind or read the comprehension's own loop variables,
    nested comprehensions and lambdas included (where they do not rebind the name).

    Resolved by walking libcst scopes outwards from each name rather than through
    ``Assignment.references``, which misses reads in the condition of an inner ``for``
    clause (``[v for row in m for v in row if v]``)."""
    own = scopes.get(comp.key if isinstance(comp, cst.DictComp) else comp.elt)
    if own is None:
        return []
    targets = {n for f in _comp_chain(comp) for n in (target_names(f.target) or [])}
    nodes = [n for part in _comp_parts(comp) for n in name_nodes(part) if n.value in targets]
    real: set[int] = {id(a.node) for a in own.assignments}
    for sc in {scopes.get(n) for n in nodes} - {None}:
        real |= {id(a.node) for a in sc.accesses}
    out = []
    for n in nodes:
        if id(n) not in real:
            continue  # an attribute or keyword spelled like the variable
        sc = scopes.get(n)
        while sc is not None and sc is not own:
            if n.value in sc.assignments:
                break  # a nested scope's own variable of that name
            sc = getattr(sc, "parent", None)
        if sc is own:
            out.append(n)
    return out


def _bare(e: cst.BaseExpression) -> cst.BaseExpression:
    """``e`` without the parentheses it was written with in the comprehension, when they are
    redundant where the loop puts it (a call argument, the value of ``acc[key] =`` or ``total
    +=``): ``[(e + 1) for e in l]`` gives ``acc.append(e + 1)``, not ``acc.append((e + 1))``.
    Tuples and generator expressions keep theirs, and so does an expression spanning lines."""
    if not e.lpar or isinstance(e, (cst.Tuple, cst.GeneratorExp, cst.NamedExpr, cst.Yield)):
        return e
    bare = e.with_changes(lpar=[], rpar=[])
    if "\n" in cst.Module([]).code_for_node(bare):
        return e
    return _bare(bare)


class _Renamer(cst.CSTTransformer):
    def __init__(self, renames: Mapping[int, str], replace: Mapping[int, cst.BaseExpression] | None = None) -> None:
        super().__init__()
        self.renames = renames
        self.replace = replace or {}

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode):
        if id(original_node) in self.replace:
            return self.replace[id(original_node)]
        if isinstance(original_node, cst.Name) and id(original_node) in self.renames:
            return updated_node.with_changes(value=self.renames[id(original_node)])
        return updated_node


class _Scanner:
    """Walks a statement's expression in evaluation order, collecting the comprehensions
    that can be evaluated just before the statement: everything evaluated before them is
    side-effect free (literals, unshadowed builtins, surely-bound locals, displays of
    those, a method looked up on a string literal, other hoisted comprehensions)."""

    def __init__(self, owner: "ComprehensionToLoop", stmt: cst.BaseStatement, func: cst.FunctionDef,
                 ff: FunctionFacts, env: dict) -> None:
        self.owner, self.stmt, self.func, self.ff, self.env = owner, stmt, func, ff, env
        self.sites: list[_CompSite] = []
        self.reasons: list[str] = []

    def pure_name(self, n: cst.Name) -> bool:
        """Whether reading ``n`` has no effect and cannot fail or change value while the
        hoisted comprehensions run: a surely-bound plain local, or an unshadowed builtin."""
        scopes, ctx = self.env["scopes"], self.env["ctx"]
        fscope = scopes.get(self.func.body)
        local = fscope is not None and any(a.scope is fscope for a in fscope[n.value])
        if local:
            return n.value not in self.ff.unbinders and definitely_bound(n.value, self.stmt, self.func,
                                                                          self.env["parents"])
        return n.value in BUILTIN_NAMES and not rebindable_builtins(ctx, n.value) and n.value not in self.ff.unbinders

    def site(self, node: cst.BaseExpression, comp: cst.BaseExpression, consumer: str | None) -> bool:
        """Record ``comp`` (replacing ``node``) as hoistable, or its refusal reason; the
        return value is :meth:`scan`'s."""
        why = self.owner._comp_refusal(comp, consumer, self)
        if why:
            self.reasons.append(f"line {self.env['ctx'].position(node)[0]}: {why}")
            return False
        if consumer is None:
            kind = {cst.ListComp: "list", cst.SetComp: "set", cst.DictComp: "dict"}[type(comp)]
        else:
            kind = "list" if consumer == "join" else _CONSUMERS[consumer][0]
        refusal = builtin_rebinding_refusal(self.env["ctx"], "set") if kind == "set" else None
        if refusal:
            self.reasons.append(f"line {self.env['ctx'].position(node)[0]}: {refusal}")
            return False
        targets = [n for f in _comp_chain(comp) for n in (target_names(f.target) or [])]
        self.sites.append(_CompSite(self.stmt, node, comp, kind, consumer, targets))
        return True

    def scan(self, e: cst.CSTNode) -> bool:
        """``True`` when ``e`` is evaluated without side effects once its hoistable
        comprehensions are hoisted; ``False`` at the first thing that may have effects
        (later comprehensions cannot move before it)."""
        if isinstance(e, (cst.ListComp, cst.SetComp, cst.DictComp)):
            return self.site(e, e, None)
        if isinstance(e, cst.Call):
            consumer = self.owner._consumer(e, self.env["ctx"])
            if consumer is not None:
                return self.site(e, e.args[0].value, consumer)
            if not self.scan(e.func):
                return False
            for a in e.args:
                if a.star or not self.scan(a.value):
                    return False
            return False
        if isinstance(e, cst.Name):
            return self.pure_name(e)
        if isinstance(e, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.Ellipsis)):
            return True
        if isinstance(e, cst.ConcatenatedString):
            return self.scan(e.left) and self.scan(e.right)
        if isinstance(e, (cst.Tuple, cst.List, cst.Set)):
            for el in e.elements:
                if isinstance(el, cst.StarredElement) or not self.scan(el.value):
                    return False
            return True
        if isinstance(e, cst.Dict):
            for el in e.elements:
                if not isinstance(el, cst.DictElement) or not (self.scan(el.key) and self.scan(el.value)):
                    return False
            return True
        if isinstance(e, cst.Attribute):
            if isinstance(e.value, (cst.SimpleString, cst.ConcatenatedString)):
                return self.scan(e.value)
            self.scan(e.value)
            return False
        if isinstance(e, cst.BinaryOperation):
            if self.scan(e.left):
                self.scan(e.right)
            return False
        if isinstance(e, (cst.UnaryOperation,)):
            self.scan(e.expression)
            return False
        if isinstance(e, cst.BooleanOperation):
            self.scan(e.left)
            return False
        if isinstance(e, cst.Comparison):
            if self.scan(e.left):
                self.scan(e.comparisons[0].comparator)
            return False
        if isinstance(e, cst.IfExp):
            self.scan(e.test)
            return False
        if isinstance(e, cst.Yield):  # ``yield X`` / ``yield from X``: X first, then the suspension
            if isinstance(e.value, cst.From):
                self.scan(e.value.item)
            elif e.value is not None:
                self.scan(e.value)
            return False
        if isinstance(e, cst.Subscript):
            if not self.scan(e.value):
                return False
            for el in e.slice:
                s = el.slice
                parts = [s.value] if isinstance(s, cst.Index) else [p for p in (s.lower, s.upper, s.step) if p]
                for p in parts:
                    if not self.scan(p):
                        return False
            return False
        return False


class ComprehensionToLoop(SiteChoice, Transform):
    """Rewrite comprehensions as explicit loops building the value in a fresh name.

    In a statement of a function body, a list/set/dict comprehension, or a generator
    expression passed alone to a builtin that consumes it at once (``list``, ``set``,
    ``tuple``, ``sorted``, ``frozenset``, ``'sep'.join``; ``sum``/``min``/``max`` when the
    items are surely ints), is computed by a loop placed just before the statement::

        y = [f(x) for x in xs if x]      y = []
                                         for x in xs:
                                             if x:
                                                 y.append(f(x))

    Comprehension scoping is kept: a loop variable keeps its name unless the function
    spells that name anywhere but as a comprehension's own variable (then it gets a fresh
    name, ``x_1``, so nothing leaks into or out of the function), nested comprehensions
    keep their own variables (libcst ``ScopeProvider``), and the first iterable stays where
    it was evaluated.  ``sum(...)`` of int items becomes a running total,
    ``n = sum(1 for x in xs if x)`` (or ``sum([1 for x in xs if x])``) -> ``n = 0`` /
    ``for x in xs:`` / ``if x:`` / ``n += 1`` (``count``/``total`` when the sum is not
    assigned to a name); a
    comprehension that is a statement of its own leaves no bare ``acc`` behind, and a list
    comprehension standing as a statement for its calls builds no list at all:
    ``[out.extend(g(x)) for x in xs]`` -> ``for x in xs:`` / ``out.extend(g(x))``.  Only
    comprehensions evaluated first in their statement are hoisted (everything evaluated
    before them is side-effect free: literals, unshadowed builtins, surely-bound locals,
    other hoisted comprehensions); comprehensions in short-circuit, conditional or lazy
    positions stay.  For ``x = [...]`` with ``x`` a plain local not read by the
    comprehension, closures or an enclosing ``try``/``with``, the loop builds ``x``
    directly.  A dict comprehension's key is evaluated before its value, as in Python
    3.8+.

    Refused comprehensions (kept, with a reason): walrus (binds in the function),
    ``await``/``async for``/``yield``, ``super()``, a lambda or generator reading a loop
    variable later (late binding), targets other than names, locals that might be
    unbound (``NameError`` from a comprehension, ``UnboundLocalError`` from a loop);
    generator expressions whose code might raise ``StopIteration`` (the program spells
    ``next``, ``StopIteration``, ...: a generator turns it into ``RuntimeError``).
    Refused programs: recursion (comprehension frames change the recursion depth),
    frame/line/lifetime introspection, rebound builtins that the rewrite emits or relies
    on; functions using ``eval``/``exec``/``locals``/``globals``/``vars``/``dir()``.

    Args:
        which: ``"all"`` (default) or ``"one"`` (the comprehensions of one statement
            chosen with ``ctx.rng``).

    Raises:
        ValueError: on construction, when ``which`` is not ``"all"`` or ``"one"``.
    """

    name = "comprehension-to-loop"
    family = "loops"
    description = "Rewrite list/set/dict comprehensions (and consumed generator expressions) as explicit loops."
    preconditions = (
        "the comprehension is evaluated first in its statement (only side-effect-free code before it)",
        "no walrus/await/yield/super() in it; no lambda or generator reading a loop variable later",
        "locals it reads are surely bound; loop targets are names (renamed to fresh names)",
        "generator expressions only as the sole argument of an unshadowed consuming builtin; no StopIteration source",
        "no recursion; no frame/line/lifetime introspection; no eval/exec/locals/globals/vars/dir()",
    )

    # -- eligibility ------------------------------------------------------------------
    def _consumer(self, call: cst.Call, ctx: RewriteContext) -> str | None:
        if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
            return None
        f = call.func
        if isinstance(call.args[0].value, cst.ListComp) and isinstance(f, cst.Name) and f.value == "sum" \
                and not rebindable_builtins(ctx, "sum") and self._int_item(call.args[0].value.elt, ctx):
            # ``sum([1 for x in xs])`` of int items: a running total, as for a generator
            # (``acc.append(1)`` / ``sum(acc)`` is no loop people write); adding ints in between
            # computing them is exact.  Other items keep the list: ``sum(acc)``
            return "sum"
        if not isinstance(call.args[0].value, cst.GeneratorExp):
            return None
        if isinstance(f, cst.Name) and f.value in _CONSUMERS and not rebindable_builtins(ctx, f.value):
            return f.value
        if isinstance(f, cst.Attribute) and f.attr.value == "join" \
                and isinstance(f.value, (cst.SimpleString, cst.ConcatenatedString)) \
                and not find(f.value, cst.FormattedString):
            return "join"
        return None

    def _int_item(self, e: cst.BaseExpression, ctx: RewriteContext) -> bool:
        """Whether the item expression ``e`` always gives an int (or bool) when it does not
        raise: literals, ``len``/``int``/``ord``/``bool``/``hash``/``abs`` of anything
        (unshadowed; ``abs`` of an int), ``not``, ``+ - * // %`` of ints, conditional
        expressions of ints."""
        if isinstance(e, cst.Integer):
            return True
        if isinstance(e, cst.Call) and isinstance(e.func, cst.Name) and e.func.value in _INT_CALLS \
                and not rebindable_builtins(ctx, e.func.value) and len(e.args) >= 1 \
                and not any(a.star for a in e.args):
            if e.func.value == "abs":
                return len(e.args) == 1 and self._int_item(e.args[0].value, ctx)
            return e.func.value != "int" or len(e.args) <= 2
        if isinstance(e, cst.UnaryOperation):
            if isinstance(e.operator, cst.Not):
                return True
            return isinstance(e.operator, (cst.Minus, cst.Plus, cst.BitInvert)) and self._int_item(e.expression, ctx)
        if isinstance(e, cst.BinaryOperation) and isinstance(
                e.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo)):
            return self._int_item(e.left, ctx) and self._int_item(e.right, ctx)
        if isinstance(e, cst.IfExp):
            return self._int_item(e.body, ctx) and self._int_item(e.orelse, ctx)
        return False

    def _comp_refusal(self, comp: cst.BaseExpression, consumer: str | None, scan: _Scanner) -> str | None:
        env = scan.env
        ctx, scopes = env["ctx"], env["scopes"]
        chain = _comp_chain(comp)
        if any(f.asynchronous is not None for f in chain):
            return "async comprehension"
        targets: list[str] = []
        for f in chain:
            names = target_names(f.target)
            if names is None:
                return "comprehension target is not made of names"
            targets += names
        parts = _comp_parts(comp)
        why = scope_hazards(parts, targets) or scope_hazards([chain[0].iter], ())
        if why:
            return why.replace("inside the loop", "inside the comprehension")
        if isinstance(comp, cst.GeneratorExp) and env["stop_sources"]:  # a list comprehension lets it through
            return f"the generator's code may raise StopIteration (program uses {', '.join(env['stop_sources'])})"
        if consumer in _ITEMWISE and not self._int_item(comp.elt, ctx):
            return f"{consumer}() of items not known to be ints (adding/comparing them could fail midway)"
        why = unbound_local_hazard(parts, targets, scan.func, scan.stmt, scan.ff, scopes, env["parents"])
        if why:
            return why
        own = scopes.get(comp.key if isinstance(comp, cst.DictComp) else comp.elt)
        if own is None or type(own).__name__ != "ComprehensionScope":
            return "no comprehension scope information"
        return None

    def _statement_exprs(self, stmt: cst.BaseStatement, scan: _Scanner) -> list[cst.BaseExpression] | None:
        """The expression of ``stmt`` evaluated first (and only once) that may hold
        hoistable comprehensions, or ``None``."""
        if isinstance(stmt, cst.If):
            return [stmt.test]
        if isinstance(stmt, cst.For):
            return None if stmt.asynchronous is not None else [stmt.iter]
        if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1):
            return None
        small = stmt.body[0]
        if isinstance(small, (cst.Assign, cst.Expr)):
            return [small.value]
        if isinstance(small, (cst.Return, cst.AnnAssign)) and small.value is not None:
            return [small.value]
        if isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name) \
                and scan.pure_name(small.target):
            return [small.value]
        return None

    # -- rewrite ----------------------------------------------------------------------
    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        if "for" not in ctx.program.source:
            raise NotApplicable("no comprehension")
        comps = find(module, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
        if not comps:
            raise NotApplicable("no comprehension")
        facts = ProgramFacts.of(module)
        names = frozenset(facts.names)
        refuse_program(module, ctx, facts, names)
        from libcst.metadata import ParentNodeProvider, ScopeProvider
        env = {"ctx": ctx, "scopes": ctx.metadata(ScopeProvider), "parents": ctx.metadata(ParentNodeProvider),
               "stop_sources": sorted(names & _STOPITERATION_SOURCES)}
        by_stmt: dict[cst.BaseStatement, list[_CompSite]] = {}
        reasons: list[str] = []
        for comp in comps:
            owner = function_of(comp, env["parents"])
            if not isinstance(owner, cst.FunctionDef):
                why = owner_refusal(owner, facts, "comprehension")
                reasons.append(f"line {ctx.position(comp)[0]}: {why}")
        for func, ff in facts.functions.items():
            why = owner_refusal(func, facts, "comprehension")
            if why:
                if find(func.body, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp):
                    reasons.append(why)
                continue
            for block in ff.blocks:
                for stmt in block.body:
                    scan = _Scanner(self, stmt, func, ff, env)
                    exprs = self._statement_exprs(stmt, scan)
                    for e in exprs or ():
                        scan.scan(e)
                    reasons += scan.reasons
                    if scan.sites:
                        by_stmt[stmt] = scan.sites
        if by_stmt:
            hazard = recursion_hazard(module, facts)
            if hazard:
                raise NotApplicable(hazard)
        chosen_stmts = choose_loop_sites(self.which, ctx, list(by_stmt), reasons, "comprehension in a hoistable position")
        plans: dict[cst.CSTNode, Plan] = {}
        for stmt in chosen_stmts:
            sites = by_stmt[stmt]
            func = next(f for f in facts.functions if any(stmt in b.body for b in facts.functions[f].blocks))
            for s in sites:
                self._names(s, func, facts.functions[func], env)
                ctx.record(s.node, f"{'generator expression' if s.consumer else type(s.comp).__name__} "
                                   + ("statement -> loop making its calls" if s.effects else f"-> loop building {s.acc}"))
            plans[stmt] = self._plan(stmt, sites)
        return module.visit(BlockRewriter(plans))

    @staticmethod
    def _own_uses(func: cst.FunctionDef, env: dict) -> set[int]:
        """Ids of the ``Name`` nodes in ``func`` that are some comprehension's own loop
        variable (bound or read in that comprehension's scope)."""
        cache = env.setdefault("own_uses", {})
        if func not in cache:
            cache[func] = {id(n) for c in find(func, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
                           for n in _comp_variable_uses(c, env["scopes"])}
        return cache[func]

    def _keeps_name(self, t: str, s: _CompSite, func: cst.FunctionDef, ff: FunctionFacts, env: dict) -> bool:
        """Whether the loop of ``s`` may bind the comprehension's variable ``t`` under its own
        name in ``func``: every other spelling of ``t`` in ``func`` is another comprehension's
        own variable, a lambda's own parameter (``lambda l: l[0]``), or in the target or body
        of another ``for`` loop over ``t`` that does not hold the statement (the loop rebinds
        ``t`` before its body reads it: ``[c for c in text]`` then ``for i, c in
        enumerate(...)`` keeps ``c``, not ``c_1``); no closure reads ``t``, and no ``del``,
        ``global``, ``nonlocal`` or ``except ... as`` names it."""
        if t in ff.unbinders:
            return False
        covered = set(self._own_uses(func, env))
        for lam in find(func.body, cst.Lambda):
            p = lam.params
            if t in {x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params)}:
                covered |= {id(n) for n in name_nodes(lam, t)}
        if any(id(n) not in covered for lazy in lazy_scopes(func.body) for n in name_nodes(lazy, t)):
            return False  # a closure may read it late
        parents = env["parents"]
        holders: set[int] = set()
        node = parents.get(s.stmt)
        while node is not None and node is not func:
            holders.add(id(node))
            node = parents.get(node)
        for other in find(func.body, cst.For):
            if id(other.body) not in holders and t in (target_names(other.target) or ()):
                covered |= {id(n) for part in (other.target, other.body) for n in name_nodes(part, t)}
        return all(id(n) in covered for n in name_nodes(func, t))

    def _names(self, s: _CompSite, func: cst.FunctionDef, ff: FunctionFacts, env: dict) -> None:
        ctx, scopes, parents = env["ctx"], env["scopes"], env["parents"]
        own = self._own_uses(func, env)
        # a loop variable keeps its name unless the function spells it anywhere else than as
        # a comprehension's own variable, a lambda's own parameter or the variable of another
        # `for` loop that rebinds it first (then the loop would rebind or leak into it)
        fresh = {t: t if self._keeps_name(t, s, func, ff, env) else ctx.fresh_name(t)
                 for t in dict.fromkeys(s.targets)}
        for node in _comp_variable_uses(s.comp, scopes):
            s.renames[id(node)] = fresh[node.value]
        comp = s.comp
        if isinstance(comp, cst.DictComp) and not any(
                is_literal(e) or (isinstance(e, cst.Name) and e.value in s.targets) for e in (comp.key, comp.value)):
            s.key = ctx.fresh_name("key")
        # build the statement's own target directly?
        stmt = s.stmt
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) else None
        if isinstance(small, cst.Expr) and small.value is s.node and s.consumer is None and s.kind == "list" \
                and isinstance(_bare(comp.elt), cst.Call):
            # ``[out.extend(f(x)) for x in xs]`` run for the calls' effects: the loop makes the calls
            # as statements (``for x in xs: out.extend(f(x))``); the list the comprehension builds
            # and drops is no observable (``list.append`` cannot fail, lifetimes are refused)
            s.effects = True
            return
        if isinstance(small, cst.Assign) and small.value is s.node and len(small.targets) == 1 \
                and isinstance(small.targets[0].target, cst.Name) and s.consumer in (None, "list", "set", "sum"):
            t = small.targets[0].target.value
            if t not in ff.unbinders and not name_nodes(s.node, t) \
                    and not any(name_nodes(lazy, t) for lazy in lazy_scopes(func.body)) \
                    and not inside_try_or_with(stmt, func, parents):
                s.acc, s.direct = t, True
                return
        if s.consumer == "sum":  # a counter (sum(1 for ...)) or a running total
            hint = "count" if isinstance(comp.elt, cst.Integer) and comp.elt.value == "1" else "total"
            s.acc = hint if ctx.reserve(hint) else ctx.fresh_name(hint)
            return
        # an accumulator name this rewrite already took in another function (there it is another
        # local; the name is spelled nowhere in the program), else `acc`, then other words a
        # person uses for a list being built, before `acc_1`
        pool, used = env.setdefault("acc_pool", []), env.setdefault("acc_used", {}).setdefault(func, set())
        name = next((n for n in pool if n not in used), None)
        if name is None:
            name = next((n for n in _ACC_NAMES if ctx.reserve(n)), None) or ctx.fresh_name("acc")
            pool.append(name)
        used.add(name)
        s.acc = name

    @staticmethod
    def _loop(s: _CompSite) -> list[cst.BaseStatement]:
        """The statements computing ``s`` into ``s.acc``."""
        rn = _Renamer(s.renames)
        comp = s.comp
        acc = cst.Name(s.acc or "_")
        if s.consumer == "sum":
            init: cst.BaseExpression = cst.Integer("0")
        elif s.kind == "list":
            init = cst.List([])
        elif s.kind == "set":
            init = cst.Call(cst.Name("set"))
        else:
            init = cst.Dict([])
        if isinstance(comp, cst.DictComp):
            key, value = _bare(comp.key.visit(rn)), _bare(comp.value.visit(rn))
            inner: list[cst.BaseStatement] = []
            if s.key is not None:  # the key is evaluated before the value, as in the comprehension
                inner.append(simple_line(assign(cst.Name(s.key), key)))
                key = cst.Name(s.key)
            store = assign(cst.Subscript(acc, [cst.SubscriptElement(cst.Index(key))]), value)
            inner.append(simple_line(store))
        elif s.consumer == "sum":  # sum() of ints adds them to 0 in order: `total += item`
            inner = [simple_line(cst.AugAssign(acc, cst.AddAssign(), _bare(comp.elt.visit(rn))))]
        elif s.effects:  # the call as a statement of its own
            inner = [simple_line(cst.Expr(_bare(comp.elt.visit(rn))))]
        else:
            method = "append" if s.kind == "list" else "add"
            elt = _bare(comp.elt.visit(rn))
            if isinstance(elt, cst.Tuple) and not elt.lpar:
                elt = elt.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            inner = [simple_line(cst.Expr(cst.Call(cst.Attribute(acc, cst.Name(method)), [cst.Arg(elt)])))]
        body: list[cst.BaseStatement] = inner
        for k, f in reversed(list(enumerate(_comp_chain(comp)))):
            for cond in reversed(f.ifs):
                body = [cst.If(test=cond.test.visit(rn), body=cst.IndentedBlock(body))]
            it = f.iter if k == 0 else f.iter.visit(rn)
            body = [cst.For(target=f.target.visit(rn), iter=it, body=cst.IndentedBlock(body))]
        # comments written inside the comprehension's brackets (not inside the moved parts)
        kept = [comp.key, comp.value] if isinstance(comp, cst.DictComp) else [comp.elt]
        for f in _comp_chain(comp):
            kept += [f.target, f.iter, *(i.test for i in f.ifs)]
        moved = {id(n) for part in kept for n in find(part, cst.CSTNode)}
        body[0] = prepend_lines(body[0], statement_comments(comp, moved))
        if s.effects:
            return body
        return [simple_line(assign(acc, init)), *body]

    def _plan(self, stmt: cst.BaseStatement, sites: list[_CompSite]) -> Plan:
        def plan(node: cst.BaseStatement) -> tuple[list[cst.BaseStatement], list[cst.EmptyLine]]:
            hoisted: list[cst.BaseStatement] = []
            replace: dict[int, cst.BaseExpression] = {}
            for s in sites:
                hoisted += self._loop(s)
                if s.consumer in (None, "sum") or not _CONSUMERS.get(s.consumer, ("", True))[1]:
                    replace[id(s.node)] = cst.Name(s.acc or "_")  # an effects statement is dropped below
                else:
                    replace[id(s.node)] = s.node.with_changes(args=[cst.Arg(cst.Name(s.acc))])
            rep = _Renamer({}, replace)
            if isinstance(stmt, cst.If):
                new = node.with_changes(test=stmt.test.visit(rep), leading_lines=[])
            elif isinstance(stmt, cst.For):
                new = node.with_changes(iter=stmt.iter.visit(rep), leading_lines=[])
            else:
                new = stmt.visit(rep).with_changes(leading_lines=[])
            if len(sites) == 1 and sites[0].direct:
                new = None  # ``x = x``: the loop already built x
            small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
            if isinstance(small, cst.Expr) and any(small.value is s.node for s in sites) \
                    and isinstance(replace[id(small.value)], cst.Name):
                new = None  # ``[f(x) for x in xs]`` as a statement: a bare ``acc`` would be left
            hoisted[0] = prepend_lines(hoisted[0], stmt.leading_lines)
            if new is None and isinstance(stmt, cst.SimpleStatementLine):
                first = hoisted[0]
                if isinstance(first, cst.For):  # the loop making the calls: the comment on its header
                    hoisted[0] = first.with_changes(body=first.body.with_changes(header=stmt.trailing_whitespace))
                else:
                    hoisted[0] = first.with_changes(trailing_whitespace=stmt.trailing_whitespace)
                return hoisted, []
            return [*hoisted, new], []
        return plan
