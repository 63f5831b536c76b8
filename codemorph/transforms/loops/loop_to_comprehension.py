"""``loop-to-comprehension``: accumulation loops as comprehensions.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from codemorph.engine import NotApplicable, RewriteContext, Transform
from codemorph.authoring.facts import FunctionFacts
from codemorph.authoring.hazards import rebindable_builtins
from codemorph.authoring.sites import SiteChoice
from codemorph.transforms.loops.common import (
    BlockRewriter, Plan, assign, block_statements, choose_loop_sites, comment_lines, find, for_loop_facts,
    lazy_scopes, name_nodes, owner_refusal, refuse_program, simple_line, statement_comments,
    target_names,
)
from codemorph.transforms.loops.comprehensions import (
    inside_try_or_with, is_literal, paren, recursion_hazard, scope_hazards, unbound_local_hazard,
)

__all__ = ["LoopToComprehension"]

#: the longest line a comprehension is written on, unless the program has longer lines (black's default)
LINE_LIMIT = 88

#: methods that change their receiver: a comprehension whose element or condition calls one
#: is written for its effect, which a person writes as a loop (no ``[xs.pop() for i in range(n)]``)
MUTATING_METHODS = frozenset({
    "pop", "popitem", "append", "extend", "insert", "remove", "clear", "update", "add", "discard",
    "setdefault", "sort", "reverse",
})


def _mutating_call(exprs: list[cst.BaseExpression]) -> str | None:
    """The name of the first method in :data:`MUTATING_METHODS` that ``exprs`` call, else ``None``."""
    for e in exprs:
        for call in find(e, cst.Call):
            if isinstance(call.func, cst.Attribute) and call.func.attr.value in MUTATING_METHODS:
                return call.func.attr.value
    return None


@dataclass
class _Accumulation:
    init: cst.SimpleStatementLine
    loop: cst.For
    acc: str
    kind: str  # "list" | "set" | "dict"
    conds: list[cst.BaseExpression]
    parts: list[cst.BaseExpression]  # [elt] or [key, value]
    comment_above: bool = False  # `acc = []  # note`: the note above the comprehension, not after it


def _acc_init(stmt: cst.BaseStatement) -> tuple[str, str] | None:
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Assign)):
        return None
    a = stmt.body[0]
    if len(a.targets) != 1 or not isinstance(a.targets[0].target, cst.Name):
        return None
    v = a.value
    if isinstance(v, cst.List) and not v.elements:
        kind = "list"
    elif isinstance(v, cst.Dict) and not v.elements:
        kind = "dict"
    elif isinstance(v, cst.Call) and isinstance(v.func, cst.Name) and v.func.value == "set" and not v.args:
        kind = "set"
    else:
        return None
    return a.targets[0].target.value, kind


def _accumulate(suite: cst.BaseSuite, acc: str, kind: str,
                conds: list[cst.BaseExpression]) -> list[cst.BaseExpression] | None:
    """The element (``[e]``) or ``[key, value]`` of a loop body that only accumulates
    into ``acc`` (possibly under ``if`` statements without ``else``, whose tests are
    appended to ``conds``), else ``None``."""
    stmts, _ = block_statements(suite)
    if len(stmts) != 1:
        return None
    s = stmts[0]
    if isinstance(s, cst.If):
        if s.orelse is not None:
            return None
        conds.append(s.test)
        return _accumulate(s.body, acc, kind, conds)
    if not (isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1):
        return None
    small = s.body[0]
    if kind in ("list", "set") and isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
        call = small.value
        f = call.func
        if isinstance(f, cst.Attribute) and isinstance(f.value, cst.Name) and f.value.value == acc \
                and f.attr.value == ("append" if kind == "list" else "add") and len(call.args) == 1 \
                and call.args[0].keyword is None and not call.args[0].star:
            return [call.args[0].value]
    if kind == "dict" and isinstance(small, cst.Assign) and len(small.targets) == 1:
        t = small.targets[0].target
        if isinstance(t, cst.Subscript) and isinstance(t.value, cst.Name) and t.value.value == acc \
                and len(t.slice) == 1 and isinstance(t.slice[0].slice, cst.Index) \
                and t.slice[0].slice.star is None:
            return [t.slice[0].slice.value, small.value]
    return None


class LoopToComprehension(SiteChoice, Transform):
    """Rewrite accumulation loops as comprehensions.

    ``acc = []`` immediately followed by ``for T in XS: [if C: ...] acc.append(E)``
    becomes ``acc = [E for T in XS if C ...]``; likewise ``acc = set()`` / ``acc.add(E)``
    (set comprehension) and ``acc = {}`` / ``acc[K] = V`` (dict comprehension).

    Preconditions (each refused with a reason when not established):

    * the loop has no ``else``, the body is only the accumulation (under ``if``\\ s without
      ``else``), so there is no ``break``/``continue``; the target is made of names;
    * ``acc`` is spelled nowhere else in the loop (so ``acc.append`` is the method of the
      list just built, with no alias), no closure reads it, and no ``try``/``with``
      encloses the loop (an exception mid-loop would leave the partial ``acc`` visible);
    * the loop variables are dead after the loop (a comprehension does not bind them in
      the function): spelled nowhere else in the function except in the target or body of
      other ``for`` loops over the same name (which rebind it before any read), read by
      no closure, plain locals;
    * the element and conditions call no method that changes its object
      (:data:`MUTATING_METHODS`: no ``[nums.pop() for i in range(n)]``, CRUXEval
      ``sample_133``, ``sample_173``);
    * the moved code has no walrus, ``yield``, ``await``, ``super()``, and no lambda or
      generator reading a loop variable later; locals it reads are surely bound (an
      unbound local read from a comprehension raises ``NameError``, not
      ``UnboundLocalError``);
    * ``acc[K] = V`` evaluates ``V`` before ``K``, a dict comprehension ``K`` first: one of
      them must be a loop variable or a literal;
    * the comprehension's line is at most 88 characters long, or no longer than the
      program's longest line (a person keeps a longer one as a loop);
    * ``set`` unshadowed (for ``set()``); no recursion in the program (comprehension frames
      change the recursion depth); no frame, line or object-lifetime introspection; the
      function does not use ``eval``/``exec``/``locals``/``globals``/``vars``/``dir()``.

    Args:
        which: ``"all"`` (default) or ``"one"`` (one eligible loop chosen with ``ctx.rng``).

    Raises:
        ValueError: on construction, when ``which`` is not ``"all"`` or ``"one"``.
    """

    name = "loop-to-comprehension"
    family = "loops"
    description = "Rewrite accumulation loops (acc = []; for ...: acc.append(e)) as list/set/dict comprehensions."
    preconditions = (
        "acc = [] / set() / {} immediately before a for loop whose body only appends/adds/stores into acc",
        "acc spelled nowhere else in the loop, not read by closures, no try/with around the loop",
        "loop variables dead after the loop (only re-bound by other for loops); no for-else/break/continue",
        "no walrus/yield/await/super() in the loop; no late-binding lambda or generator over loop variables",
        "locals read in the loop are surely bound; dict key or value is a loop variable or literal",
        "the comprehension's line is at most 88 characters, or no longer than the program's longest line",
        "set unshadowed; no recursion; no frame/line/lifetime introspection; no eval/exec/locals/...",
    )

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        facts = for_loop_facts(module, ctx)
        refuse_program(module, ctx, facts, frozenset(facts.names))
        pairs = [(func, ff, prev, stmt) for func, ff in facts.functions.items() for block in ff.blocks
                 for prev, stmt in zip(block.body, block.body[1:])
                 if isinstance(stmt, cst.For) and _acc_init(prev) is not None]
        if not pairs:
            raise NotApplicable("no accumulation loop (acc = [] / set() / {} right before a for loop)")
        from libcst.metadata import ParentNodeProvider, ScopeProvider
        parents = ctx.metadata(ParentNodeProvider)
        scopes = ctx.metadata(ScopeProvider)
        eligible: list[_Accumulation] = []
        reasons: list[str] = []
        for func, ff, prev, stmt in pairs:
            why = owner_refusal(func, facts, "loop")
            found = why or self._analyse(prev, stmt, _acc_init(prev), func, ff, parents, scopes, ctx)
            if isinstance(found, _Accumulation):
                eligible.append(found)
            else:
                reasons.append(f"line {ctx.position(stmt)[0]}: {found}")
        if eligible:
            hazard = recursion_hazard(module, facts)
            if hazard:
                raise NotApplicable(hazard)
        chosen = choose_loop_sites(self.which, ctx, eligible, reasons, "accumulation loop (acc = []; for ...: acc.append(...))")
        plans: dict[cst.CSTNode, Plan] = {}
        for a in chosen:
            ctx.record(a.loop, f"{a.kind} accumulation loop -> {a.kind} comprehension assigned to {a.acc}")
            plans[a.loop] = self._plan(a)
            # `acc = []` leaves its lines above to the comprehension; its own comment ends that line
            plans[a.init] = lambda node: ([], list(node.leading_lines))
        return module.visit(BlockRewriter(plans))

    def _analyse(self, init: cst.SimpleStatementLine, loop: cst.For, acc_kind: tuple[str, str],
                 func: cst.FunctionDef, ff: FunctionFacts, parents, scopes,
                 ctx: RewriteContext) -> _Accumulation | str:
        acc, kind = acc_kind
        if loop.asynchronous is not None:
            return "async for"
        if loop.orelse is not None:
            return "loop has else"
        conds: list[cst.BaseExpression] = []
        parts = _accumulate(loop.body, acc, kind, conds)
        if parts is None:
            return f"body does more than accumulate into {acc}"
        if kind == "set" and rebindable_builtins(ctx, "set"):
            return "builtin set may be rebound by the program"
        targets = target_names(loop.target)
        if targets is None:
            return "loop target is not made of names"
        if len(name_nodes(loop, acc)) != 1:
            return f"{acc} is used in the loop other than to accumulate"
        if acc in ff.unbinders:
            return f"{acc} may be global, nonlocal, deleted or bound by except-as"
        if any(name_nodes(lazy, acc) for lazy in lazy_scopes(func.body)):
            return f"a nested function or lambda reads {acc}"
        if inside_try_or_with(loop, func, parents):
            return "loop inside try/with (a partial result could be observed after an exception)"
        lazy = lazy_scopes(func.body)
        for t in targets:
            if t in ff.unbinders:
                return f"loop variable {t} may be global, nonlocal, deleted or bound by except-as"
            if any(name_nodes(part, t) for part in lazy):
                return f"loop variable {t} is read by a nested function or lambda"
            covered = {id(n) for n in name_nodes(loop)}
            for other in find(func.body, cst.For):
                if other is not loop and t in (target_names(other.target) or ()):
                    # uses inside another loop over the same name run after that loop rebinds it
                    covered |= {id(n) for part in (other.target, other.body) for n in name_nodes(part)}
            if any(id(n) not in covered for n in name_nodes(func, t)):
                return f"loop variable {t} is used outside the loop (a comprehension would not bind it)"
        why = scope_hazards([*parts, *conds], targets)
        if why is None:
            why = scope_hazards([loop.iter], ())
        if why is None:
            why = unbound_local_hazard([*parts, *conds], targets, func, loop, ff, scopes, parents)
        if why:
            return why
        if kind == "dict":
            k, v = parts
            pure = lambda e: is_literal(e) or (isinstance(e, cst.Name) and e.value in targets)  # noqa: E731
            if not (pure(k) or pure(v)):
                return "dict key and value both have effects (the evaluation order would change)"
        mutator = _mutating_call([*parts, *conds])
        if mutator is not None:
            return (f"the accumulated value calls .{mutator}(), which changes its object "
                    f"(a comprehension run for its effects is no form a person writes)")
        found = _Accumulation(init, loop, acc, kind, conds, parts, comment_above=True)
        # a person keeps a comprehension this long as a loop (or splits it over lines)
        line = cst.Module([]).code_for_node(_statement(found).with_changes(leading_lines=[])).rstrip("\n")
        width = ctx.position(loop)[1] - 1 + len(line)
        longest = max((len(x) for x in ctx.program.source.splitlines()), default=0)
        if "\n" not in line and width > max(LINE_LIMIT, longest):
            return (f"the comprehension would make a line of {width} characters (longer than {LINE_LIMIT} "
                    f"and than every line of the program)")
        # the comment of `acc = []` ends the comprehension's line when it fits there
        comment = init.trailing_whitespace.comment
        found.comment_above = comment is not None and "\n" not in line \
            and width + 2 + len(comment.value) > max(LINE_LIMIT, longest)
        return found

    @staticmethod
    def _plan(a: _Accumulation) -> Plan:
        def plan(node: cst.BaseStatement) -> tuple[list[cst.BaseStatement], list[cst.EmptyLine]]:
            return [_statement(a)], []
        return plan


def _statement(a: _Accumulation) -> cst.SimpleStatementLine:
    """``acc = [E for T in XS if C]`` (set or dict likewise) for the accumulation ``a``."""
    loop = a.loop  # the original loop: nothing inside it was rewritten
    for_in = cst.CompFor(target=loop.target, iter=paren(loop.iter),
                         ifs=[cst.CompIf(paren(c)) for c in a.conds])
    if a.kind == "list":
        comp: cst.BaseExpression = cst.ListComp(elt=paren(a.parts[0]), for_in=for_in)
    elif a.kind == "set":
        comp = cst.SetComp(elt=paren(a.parts[0]), for_in=for_in)
    else:
        comp = cst.DictComp(key=paren(a.parts[0]), value=paren(a.parts[1]), for_in=for_in)
    moved = {id(n) for part in [*a.parts, *a.conds, loop.iter, loop.target] for n in find(part, cst.CSTNode)}
    comments = statement_comments(loop.body, moved)
    # the statement takes the place of ``acc = []`` (whose own leading lines it keeps): a blank line
    # that separated the loop from ``acc = []`` would now open the block or follow the line before
    above = [ln for ln in loop.leading_lines if ln.comment is not None]
    if a.comment_above:
        return simple_line(assign(cst.Name(a.acc), comp), leading=[*comment_lines(a.init.trailing_whitespace), *above,
                                                                    *comments])
    return simple_line(assign(cst.Name(a.acc), comp), leading=[*above, *comments],
                       trailing=a.init.trailing_whitespace)
