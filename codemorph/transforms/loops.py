"""The ``loops`` family: rewrites of loop statements and comprehensions.

* ``for-to-while`` (:class:`ForToWhile`): ``for`` loops as ``while`` loops driven by an
  explicit iterator;
* ``while-to-for`` (:class:`WhileToFor`): counting ``while`` loops as ``for ... in range``
  (needs runtime type observations);
* ``comprehension-to-loop`` (:class:`ComprehensionToLoop`): comprehensions (and generator
  expressions consumed at once by a builtin) as explicit loops, hoisted before their
  statement;
* ``loop-to-comprehension`` (:class:`LoopToComprehension`): accumulation loops as
  comprehensions;
* ``peel-loop`` (:class:`PeelLoop`): the first iteration of a ``for`` loop peeled off;
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
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, Sequence

import libcst as cst

from codemorph.engine import NotApplicable, RewriteContext, Transform
from codemorph.engine.transform import BUILTIN_NAMES, bound_names, identifiers_in

from codemorph.authoring.facts import FunctionFacts, ProgramFacts, finalisation_hazard, function_nodes, is_generator_function
from codemorph.authoring.hazards import (BUILTINS_HAZARDS, FRAME_HAZARDS, LIFETIME_HAZARDS, LINE_HAZARDS,
                                         dynamic_scope_uses, hazard_identifiers)
from codemorph.authoring.sites import SiteChoice, choose_sites
from codemorph.authoring.syntax import parenthesize_if_bare_tuple

__all__ = [
    "ForToWhile",
    "WhileToFor",
    "ComprehensionToLoop",
    "LoopToComprehension",
    "PeelLoop",
    "UnrollLoop",
    "loop_jumps",
    "recursion_hazard",
    "FRAME_HAZARDS",
    "LINE_HAZARDS",
    "LIFETIME_HAZARDS",
    "BUILTINS_HAZARDS",
    "hazard_identifiers",
    "dynamic_scope_uses",
    "is_generator_function",
    "finalisation_hazard",
    "function_nodes",
    "ProgramFacts",
    "FunctionFacts",
    "parenthesize_if_bare_tuple",
]

# ---------------------------------------------------------------------------------------
# for-to-while


@dataclass(frozen=True)
class _LoopNames:
    iterator: str
    sentinel: str
    item: str


class _ForToWhileRewriter(cst.CSTTransformer):
    def __init__(self, ctx: RewriteContext, chosen: Sequence[cst.For], names: dict[cst.For, _LoopNames]) -> None:
        super().__init__()
        self.ctx = ctx
        self.chosen = set(map(id, chosen))
        self.names = names

    def leave_For(self, original_node: cst.For, updated_node: cst.For):
        if id(original_node) not in self.chosen:
            return updated_node
        n = self.names[original_node]
        self.ctx.record(original_node, f"for loop -> while loop over {n.iterator} = iter(...)")
        node = updated_node
        iterator = cst.SimpleStatementLine(
            [cst.Assign([cst.AssignTarget(cst.Name(n.iterator))],
                        cst.Call(cst.Name("iter"), [cst.Arg(parenthesize_if_bare_tuple(node.iter))]))],
            leading_lines=node.leading_lines)
        sentinel = cst.SimpleStatementLine(
            [cst.Assign([cst.AssignTarget(cst.Name(n.sentinel))], cst.Call(cst.Name("object")))])
        fetch = cst.NamedExpr(
            target=cst.Name(n.item),
            value=cst.Call(cst.Name("next"), [cst.Arg(cst.Name(n.iterator)), cst.Arg(cst.Name(n.sentinel))]),
            lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        test = cst.Comparison(fetch, [cst.ComparisonTarget(cst.IsNot(), cst.Name(n.sentinel))])
        bind = cst.Assign([cst.AssignTarget(node.target)], cst.Name(n.item))
        body = node.body
        if isinstance(body, cst.IndentedBlock):
            body = body.with_changes(body=[cst.SimpleStatementLine([bind]), *body.body])
        else:  # ``for x in xs: stmt`` on one line
            body = body.with_changes(body=[bind, *body.body])
        loop = cst.While(test=test, body=body, orelse=node.orelse)
        return cst.FlattenSentinel([iterator, sentinel, loop])


class ForToWhile(SiteChoice, Transform):
    """Rewrite ``for`` loops in function bodies as equivalent ``while`` loops.

    Each selected loop ``for TARGET in ITERABLE: BODY else: ELSE`` becomes::

        it = iter(ITERABLE)
        end = object()
        while (item := next(it, end)) is not end:
            TARGET = item
            BODY
        else:
            ELSE

    with fresh names for ``it``, ``end`` and ``item`` (``_it``, ``_end``, ``_item`` unless
    taken).  This is exact for every iterable: ``iter`` is what a ``for`` statement calls,
    ``next(it, end)`` stops on ``StopIteration`` exactly where the loop would, ``continue``
    re-evaluates the condition (fetches the next item), ``break`` skips ``else``, and the
    target is assigned only when an item was produced, so the loop variable keeps its value
    after the loop and stays unbound after zero iterations.

    Args:
        which: ``"all"`` (default) rewrites every eligible loop; ``"one"`` rewrites one
            eligible loop chosen with ``ctx.rng`` (uniformly, over loops in source order).

    Refuses (``NotApplicable``) when ``iter``, ``next`` or ``object`` may be rebound
    (anywhere in the program, or through ``builtins``), when the program can observe when
    the iterator is released (see :func:`finalisation_hazard`) or inspects frames/lines,
    and skips loops that are ``async for``, at module level, directly in a class body, or
    in a function using ``eval``/``exec``/``locals``/``globals``/``vars``/``dir()``.

    Raises:
        ValueError: on construction, when ``which`` is not ``"all"`` or ``"one"``.
    """

    name = "for-to-while"
    family = "loops"
    description = "Rewrite for loops as while loops over an explicit iterator (next with a sentinel)."
    preconditions = (
        "iter, next and object are the builtins (not rebound anywhere, no builtins-module access)",
        "no generator with try/with, no __del__, no weakref/gc: iterator lifetime is unobservable",
        "no frame or line introspection (new locals, moved lines are unobservable)",
        "loop is a plain `for` directly in a function body (not module level, not a class body)",
        "the function does not use eval/exec/locals/globals/vars/dir()",
    )

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        facts = ProgramFacts.of(module)
        if not facts.loops:
            raise NotApplicable("no for loop")
        shadowed = ctx.shadowed("iter", "next", "object")
        if shadowed:
            raise NotApplicable(f"builtin {', '.join(shadowed)} may be rebound by the program")
        names = identifiers_in(module)
        found = hazard_identifiers(module, BUILTINS_HAZARDS, names=names)
        if found:
            raise NotApplicable(f"program may rebind builtins through {', '.join(found)}")
        hazard = finalisation_hazard(module, names=names, facts=facts)
        if hazard:
            raise NotApplicable(hazard)
        found = hazard_identifiers(module, FRAME_HAZARDS, LINE_HAZARDS, names=names)
        if found:
            raise NotApplicable(f"program inspects frames, code or line numbers ({', '.join(found)})")

        eligible: list[cst.For] = []
        reasons: list[str] = []
        for loop, owner in facts.loops:
            line = ctx.position(loop)[0]
            if loop.asynchronous is not None:
                reasons.append(f"line {line}: async for")
            elif owner is None:
                reasons.append(f"line {line}: loop at module level")
            elif isinstance(owner, cst.ClassDef):
                reasons.append(f"line {line}: loop in a class body")
            elif facts.functions[owner].dynamic:
                uses = ", ".join(sorted(facts.functions[owner].dynamic))
                reasons.append(f"line {line}: {owner.name.value}() uses {uses}")
            else:
                eligible.append(loop)
        if not eligible:
            raise NotApplicable("no eligible for loop (" + "; ".join(reasons) + ")")
        chosen = self.choose(ctx, eligible)
        loop_names = {loop: _LoopNames(ctx.fresh_name("_it"), ctx.fresh_name("_end"), ctx.fresh_name("_item"))
                      for loop in chosen}  # source order: outer loops get the plain names
        return module.visit(_ForToWhileRewriter(ctx, chosen, loop_names))


# ---------------------------------------------------------------------------------------
# helpers of the loop transforms below (unroll-loop, peel-loop, while-to-for,
# loop-to-comprehension, comprehension-to-loop)

class _LoopJumps(cst.CSTVisitor):
    """``break`` / ``continue`` statements that belong to the loop whose body is visited
    (not to loops, functions or classes nested in it; the ``else`` of a nested loop
    belongs to the outer loop and is visited)."""

    def __init__(self) -> None:
        self.found: list[cst.CSTNode] = []

    def visit_Break(self, node: cst.Break) -> None:
        self.found.append(node)

    def visit_Continue(self, node: cst.Continue) -> None:
        self.found.append(node)

    def _nested_loop(self, node: cst.For | cst.While) -> bool:
        if node.orelse is not None:
            node.orelse.visit(self)
        return False

    def visit_For(self, node: cst.For) -> bool:
        return self._nested_loop(node)

    def visit_While(self, node: cst.While) -> bool:
        return self._nested_loop(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


def loop_jumps(body: cst.BaseSuite) -> list[str]:
    """Kinds (``"break"`` / ``"continue"``) of the jumps in a loop ``body`` that target
    that loop, in source order (empty when the body never leaves or restarts the loop
    early)."""
    v = _LoopJumps()
    body.visit(v)
    return ["break" if isinstance(n, cst.Break) else "continue" for n in v.found]


class _Finder(cst.CSTVisitor):
    """Collects nodes of the given classes (all depths, nested scopes included)."""

    def __init__(self, classes: tuple[type, ...]) -> None:
        self.classes = classes
        self.found: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, self.classes):
            self.found.append(node)
        return True


def _find(node: cst.CSTNode, *classes: type) -> list[cst.CSTNode]:
    v = _Finder(classes)
    node.visit(v)
    return v.found


def _name_nodes(node: cst.CSTNode, value: str | None = None) -> list[cst.Name]:
    """Every ``Name`` node in ``node`` (spelled ``value`` when given), any scope, including
    attribute names and keyword names (an over-approximation of the variable uses)."""
    return [n for n in _find(node, cst.Name) if value is None or n.value == value]  # type: ignore[misc]


def _lazy_scopes(node: cst.CSTNode) -> list[cst.CSTNode]:
    """Code in ``node`` that may run later than where it is written: lambdas, nested
    ``def``/``class``, and the parts of generator expressions after their first iterable
    (which is evaluated at once)."""
    out: list[cst.CSTNode] = []
    for n in _find(node, cst.Lambda, cst.FunctionDef, cst.ClassDef, cst.GeneratorExp):
        if isinstance(n, cst.GeneratorExp):
            out += [n.elt, *n.for_in.ifs]
            if n.for_in.inner_for_in is not None:
                out.append(n.for_in.inner_for_in)
            out.append(n.for_in.target)
        else:
            out.append(n)
    return out


def _block_statements(suite: cst.BaseSuite) -> tuple[list[cst.BaseStatement], list[cst.EmptyLine]]:
    """The statements of a suite as block statements, and the comment lines that follow
    them at the end of the block (its footer)."""
    if isinstance(suite, cst.IndentedBlock):
        return list(suite.body), list(suite.footer)
    assert isinstance(suite, cst.SimpleStatementSuite)
    return [cst.SimpleStatementLine(body=list(suite.body), trailing_whitespace=suite.trailing_whitespace)], []


def _prepend_lines(stmt: cst.BaseStatement, lines: Sequence[cst.EmptyLine]) -> cst.BaseStatement:
    if not lines:
        return stmt
    return stmt.with_changes(leading_lines=[*lines, *stmt.leading_lines])


def _comment_lines(ws: cst.TrailingWhitespace | None) -> list[cst.EmptyLine]:
    """A trailing comment (``x = 1  # note``) as a comment line of its own."""
    if ws is None or ws.comment is None:
        return []
    return [cst.EmptyLine(comment=ws.comment)]


def _statement_comments(stmt: cst.CSTNode, exclude: frozenset[int] | set[int] = frozenset()) -> list[cst.EmptyLine]:
    """Every comment in ``stmt`` (leading lines, trailing comments, block headers and
    footers), as comment lines, in source order; nodes whose ``id`` is in ``exclude``
    (comments inside code that is kept) are skipped."""
    out: list[cst.EmptyLine] = []
    for n in _find(stmt, cst.EmptyLine, cst.TrailingWhitespace):
        if n.comment is not None and id(n) not in exclude:
            out.append(n if isinstance(n, cst.EmptyLine) else cst.EmptyLine(comment=n.comment))
    return out


def _simple_line(*small: cst.BaseSmallStatement, leading: Sequence[cst.EmptyLine] = (),
                 trailing: cst.TrailingWhitespace | None = None) -> cst.SimpleStatementLine:
    kw = {"trailing_whitespace": trailing} if trailing is not None else {}
    return cst.SimpleStatementLine(body=list(small), leading_lines=list(leading), **kw)


def _assign(target: cst.BaseAssignTargetExpression, value: cst.BaseExpression) -> cst.Assign:
    return cst.Assign([cst.AssignTarget(target)], value)


def _int_literal(node: cst.BaseExpression) -> int | None:
    """The value of an int literal (``3``, ``-3``, ``0x10``), else ``None``."""
    if isinstance(node, cst.Integer) and not node.lpar:
        return node.evaluated_value
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) \
            and isinstance(node.expression, cst.Integer) and not node.expression.lpar:
        return -node.expression.evaluated_value
    return None


def _int_node(value: int) -> cst.BaseExpression:
    if value < 0:
        return cst.UnaryOperation(cst.Minus(), cst.Integer(str(-value)))
    return cst.Integer(str(value))


def _qualname(func: cst.FunctionDef, parents: Mapping[cst.CSTNode, cst.CSTNode]) -> str:
    """``__qualname__`` of ``func`` (``f``, ``f.<locals>.g``, ``C.m``), as the sandbox's
    runtime observations name functions."""
    parts = [func.name.value]
    node = parents.get(func)
    while node is not None:
        if isinstance(node, cst.FunctionDef):
            parts += ["<locals>", node.name.value]
        elif isinstance(node, cst.ClassDef):
            parts.append(node.name.value)
        elif isinstance(node, cst.Lambda):
            parts += ["<locals>", "<lambda>"]
        node = parents.get(node)
    return ".".join(reversed(parts))


def _param_names(func: cst.FunctionDef) -> set[str]:
    p = func.params
    names = {x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params)}
    if isinstance(p.star_arg, cst.Param):
        names.add(p.star_arg.name.value)
    if p.star_kwarg is not None:
        names.add(p.star_kwarg.name.value)
    return names


def _binds_unconditionally(stmt: cst.BaseStatement, name: str) -> bool:
    """Whether completing ``stmt`` normally always leaves ``name`` bound (simple
    statements only: assignments, annotated assignments with a value, augmented
    assignments, imports; ``def`` / ``class``)."""
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return stmt.name.value == name
    if not isinstance(stmt, cst.SimpleStatementLine):
        return False
    for small in stmt.body:
        targets: list[cst.BaseExpression] = []
        if isinstance(small, cst.Assign):
            targets = [t.target for t in small.targets]
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            targets = [small.target]
        elif isinstance(small, cst.AugAssign):
            targets = [small.target]
        elif isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar):
            for alias in small.names:
                if alias.evaluated_alias == name or (alias.asname is None and
                                                     alias.evaluated_name.split(".")[0] == name):
                    return True
        while targets:
            t = targets.pop()
            if isinstance(t, cst.Name) and t.value == name:
                return True
            if isinstance(t, (cst.Tuple, cst.List)):
                targets += [el.value for el in t.elements]
            elif isinstance(t, cst.StarredElement):
                targets.append(t.value)
    return False


def _definitely_bound(name: str, stmt: cst.CSTNode, func: cst.FunctionDef,
                      parents: Mapping[cst.CSTNode, cst.CSTNode]) -> bool:
    """Whether the local ``name`` of ``func`` is surely bound when ``stmt`` (a statement
    of ``func``'s own blocks) starts: a parameter, or bound by a simple statement that
    precedes ``stmt`` in its block or precedes an enclosing statement in an enclosing
    block, or the target of an enclosing ``for`` / ``with ... as`` whose body holds
    ``stmt``.  The caller must separately exclude ``del`` / ``except ... as`` / ``global`` /
    ``nonlocal`` of ``name`` (:attr:`FunctionFacts.unbinders`)."""
    if name in _param_names(func):
        return True
    node: cst.CSTNode = stmt
    while node is not func:
        parent = parents.get(node)
        if parent is None:
            return False
        if isinstance(parent, (cst.IndentedBlock, cst.Module)):
            for prev in parent.body:
                if prev is node:
                    break
                if _binds_unconditionally(prev, name):
                    return True
        elif isinstance(parent, cst.For) and node is parent.body and name in (_target_names(parent.target) or ()):
            return True  # inside the loop body, after the target was assigned
        elif isinstance(parent, cst.With) and node is parent.body and any(
                item.asname is not None and name in (_target_names(item.asname.name) or ()) for item in parent.items):
            return True
        node = parent
    return False


def _function_of(node: cst.CSTNode, parents: Mapping[cst.CSTNode, cst.CSTNode]) -> cst.CSTNode | None:
    """The nearest enclosing ``def``, ``class`` or ``lambda`` of ``node`` (``None`` at
    module level)."""
    p = parents.get(node)
    while p is not None and not isinstance(p, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        p = parents.get(p)
    return p


def _refuse_program(module: cst.Module, ctx: RewriteContext, facts: ProgramFacts, names: frozenset[str],
                    emits: Sequence[str] = (), lifetime: bool = True) -> None:
    """Program-wide refusals shared by the loop transforms: builtins the rewrite emits (or
    relies on) may be rebound; builtins may be rebound through the ``builtins`` module;
    object lifetimes are observable (``lifetime``); frames, code objects or line numbers
    are inspected."""
    shadowed = ctx.shadowed(*emits) if emits else []
    if shadowed:
        raise NotApplicable(f"builtin {', '.join(shadowed)} may be rebound by the program")
    found = hazard_identifiers(module, BUILTINS_HAZARDS, names=names)
    if found:
        raise NotApplicable(f"program may rebind builtins through {', '.join(found)}")
    if lifetime:
        hazard = finalisation_hazard(module, names=names, facts=facts)
        if hazard:
            raise NotApplicable(hazard)
    found = hazard_identifiers(module, FRAME_HAZARDS, LINE_HAZARDS, names=names)
    if found:
        raise NotApplicable(f"program inspects frames, code or line numbers ({', '.join(found)})")


def _owner_refusal(owner: cst.CSTNode | None, facts: ProgramFacts, what: str) -> str | None:
    """Why a site owned by ``owner`` cannot be rewritten (module level, class body,
    dynamic-scope function), or ``None``."""
    if owner is None:
        return f"{what} at module level"
    if isinstance(owner, cst.ClassDef):
        return f"{what} in a class body"
    if isinstance(owner, cst.Lambda):
        return f"{what} in a lambda"
    ff = facts.functions[owner]
    if ff.dynamic:
        return f"{owner.name.value}() uses {', '.join(sorted(ff.dynamic))}"
    return None


_Plan = Callable[[cst.BaseStatement], tuple[list[cst.BaseStatement], list[cst.EmptyLine]]]


class _BlockRewriter(cst.CSTTransformer):
    """Replaces chosen statements of indented blocks by lists of statements.

    ``plans`` maps an original statement to a function of its updated node returning the
    replacement statements and comment lines left over (a flattened block's footer);
    statements in ``drop`` are removed.  Left-over and dropped comment lines are moved to
    the next statement of the block, or to the block's footer."""

    def __init__(self, plans: dict[cst.CSTNode, _Plan], drop: Iterable[cst.CSTNode] = ()) -> None:
        super().__init__()
        self.plans = {id(k): v for k, v in plans.items()}
        self.drop = {id(n) for n in drop}

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock,
                            updated_node: cst.IndentedBlock) -> cst.IndentedBlock:
        if not any(id(s) in self.plans or id(s) in self.drop for s in original_node.body):
            return updated_node
        out: list[cst.BaseStatement] = []
        pending: list[cst.EmptyLine] = []
        for orig, new in zip(original_node.body, updated_node.body):
            if id(orig) in self.drop:
                pending += list(new.leading_lines)
                if isinstance(new, cst.SimpleStatementLine):
                    pending += _comment_lines(new.trailing_whitespace)
                continue
            stmts, left = self.plans[id(orig)](new) if id(orig) in self.plans else ([new], [])
            if stmts:
                stmts[0] = _prepend_lines(stmts[0], pending)
                pending = []
            out += stmts
            pending += left
        if not out:
            out = [cst.SimpleStatementLine([cst.Pass()])]
        return updated_node.with_changes(body=out, footer=[*pending, *updated_node.footer])


def _for_sites(ctx: RewriteContext, facts: ProgramFacts, what: str,
               check: Callable[[cst.For], str | None]) -> tuple[list[cst.For], list[str]]:
    """The ``for`` loops in function bodies that pass ``check`` (a reason or ``None``),
    and the reasons of the others (``"line N: ..."``)."""
    eligible: list[cst.For] = []
    reasons: list[str] = []
    for loop, owner in facts.loops:
        line = ctx.position(loop)[0]
        why = "async for" if loop.asynchronous is not None else _owner_refusal(owner, facts, what)
        if why is None:
            why = check(loop)
        if why is None:
            eligible.append(loop)
        else:
            reasons.append(f"line {line}: {why}")
    return eligible, reasons


def _for_loop_facts(module: cst.Module, ctx: RewriteContext) -> ProgramFacts:
    """:class:`ProgramFacts` of a program that has a ``for`` loop (checked on the source
    text first, the cheap common refusal); ``NotApplicable("no for loop")`` otherwise."""
    if "for" not in ctx.program.source:
        raise NotApplicable("no for loop")
    facts = ProgramFacts.of(module)
    if not facts.loops:
        raise NotApplicable("no for loop")
    return facts


def _choose(which: str, ctx: RewriteContext, eligible: list, reasons: list[str], what: str) -> list:
    """The sites to rewrite (:func:`choose_sites`); ``NotApplicable`` naming ``what`` and
    the ``reasons`` sites were refused when none is eligible."""
    if not eligible:
        raise NotApplicable(f"no eligible {what}" + (" (" + "; ".join(reasons) + ")" if reasons else ""))
    return choose_sites(ctx, eligible, which)


# ---------------------------------------------------------------------------------------
# unroll-loop


def _range_values(node: cst.BaseExpression, limit: int) -> tuple[list[int] | None, str | None]:
    """The values of ``range(<int literals>)`` when there are 1..``limit`` of them, else
    ``(None, reason)``.  The literals are evaluated by libcst, never executed."""
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "range"):
        return None, "not a loop over range(...)"
    if not 1 <= len(node.args) <= 3 or any(a.keyword is not None or a.star for a in node.args):
        return None, "range(...) with keyword or starred arguments"
    bounds = [_int_literal(a.value) for a in node.args]
    if any(b is None for b in bounds):
        return None, "range(...) bounds are not int literals"
    if len(bounds) == 3 and bounds[2] == 0:
        return None, "range(...) step is 0 (raises)"
    r = range(*bounds)  # type: ignore[arg-type]
    if len(r) == 0:
        return None, "range(...) is empty (the loop variable would stay unbound)"
    if len(r) > limit:
        return None, f"range(...) has {len(r)} values (more than {limit})"
    return list(r), None


class UnrollLoop(SiteChoice, Transform):
    """Unroll ``for i in range(K)`` loops with a small constant trip count.

    ``for i in range(3): BODY`` becomes ``i = 0``, ``BODY``, ``i = 1``, ``BODY``, ``i = 2``,
    ``BODY``; the ``range`` arguments must be int literals (``range(K)``, ``range(a, b)``,
    ``range(a, b, s)``, negative literals allowed) giving 1 to ``max_iterations`` values.
    The loop variable holds the last value after the unrolled code, as after the loop.  A
    loop ``else`` (which always runs, the body having no ``break``) follows the copies.

    Args:
        which: ``"all"`` (default) or ``"one"`` (one eligible loop chosen with ``ctx.rng``).
        max_iterations: largest trip count unrolled (1 to 4; default 4).

    Refuses (``NotApplicable``) loops whose body has ``break`` or ``continue`` (they would
    no longer be in a loop), whose target is not a plain name, empty ranges (the variable
    would be bound where the loop leaves it unbound), ``async for``, loops outside
    functions and in functions using ``eval``/``exec``/``locals``/``globals``/``vars``/
    ``dir()``, and programs that may rebind ``range`` or inspect frames or line numbers.

    Raises:
        ValueError: on construction, for a bad ``which`` or ``max_iterations``.
    """

    name = "unroll-loop"
    family = "loops"
    description = "Unroll for loops over range(K) with K <= 4 literal iterations into K copies of the body."
    preconditions = (
        "range is the builtin (not rebound anywhere, no builtins-module access)",
        "range arguments are int literals giving 1..max_iterations values",
        "the loop target is a plain name; the body has no break/continue for this loop",
        "loop is a plain `for` in a function that does not use eval/exec/locals/globals/vars/dir()",
        "no frame or line introspection (duplicated and moved lines are unobservable)",
    )

    def __init__(self, which: str = "all", max_iterations: int = 4) -> None:
        SiteChoice.__init__(self, which)
        if not isinstance(max_iterations, int) or not 1 <= max_iterations <= 4:
            raise ValueError(f"{self.name}: option max_iterations must be an int from 1 to 4, got {max_iterations!r}")
        self.max_iterations = max_iterations

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        facts = _for_loop_facts(module, ctx)
        found = [_range_values(loop.iter, self.max_iterations) for loop, _ in facts.loops]
        if not any(vals for vals, _ in found):
            whys = "; ".join(dict.fromkeys(why for _, why in found if why))
            raise NotApplicable(f"no for loop over a small constant range ({whys})")
        _refuse_program(module, ctx, facts, frozenset(facts.names), emits=("range",), lifetime=False)
        values: dict[cst.For, list[int]] = {}

        def check(loop: cst.For) -> str | None:
            vals, why = _range_values(loop.iter, self.max_iterations)
            if vals is None:
                return why
            if not isinstance(loop.target, cst.Name):
                return "loop target is not a plain name"
            jumps = loop_jumps(loop.body)
            if jumps:
                return f"body has {jumps[0]} for this loop"
            values[loop] = vals
            return None

        eligible, reasons = _for_sites(ctx, facts, "loop", check)
        chosen = _choose(self.which, ctx, eligible, reasons, "for loop over a small constant range")
        plans: dict[cst.CSTNode, _Plan] = {}
        for loop in chosen:
            ctx.record(loop, f"for loop over range(...) unrolled into {len(values[loop])} copies")
            plans[loop] = self._plan(values[loop])
        return module.visit(_BlockRewriter(plans))

    @staticmethod
    def _plan(vals: list[int]) -> _Plan:
        def plan(node: cst.BaseStatement) -> tuple[list[cst.BaseStatement], list[cst.EmptyLine]]:
            assert isinstance(node, cst.For)
            body, footer = _block_statements(node.body)
            header = node.body.header if isinstance(node.body, cst.IndentedBlock) else None
            out: list[cst.BaseStatement] = []
            left: list[cst.EmptyLine] = []
            for k, v in enumerate(vals):
                first = k == 0
                line = _simple_line(_assign(node.target.deep_clone(), _int_node(v)),
                                    leading=[*(node.leading_lines if first else []),
                                             *(_statement_comments(node.iter) if first else []), *left],
                                    trailing=header if first and header is not None and header.comment else None)
                out += [line, *body]
                left = list(footer)
            if node.orelse is not None:
                stmts, else_footer = _block_statements(node.orelse.body)
                stmts[0] = _prepend_lines(stmts[0], [*left, *node.orelse.leading_lines])
                out += stmts
                left = else_footer
            return out, left
        return plan


# ---------------------------------------------------------------------------------------
# peel-loop


class PeelLoop(SiteChoice, Transform):
    """Peel the first iteration off ``for`` loops.

    ``for TARGET in ITERABLE: BODY else: ELSE`` becomes::

        it = iter(ITERABLE)
        end = object()
        if (item := next(it, end)) is not end:
            TARGET = item
            BODY
            while (item := next(it, end)) is not end:
                TARGET = item
                BODY
        ELSE

    with fresh names for ``it``, ``end`` and ``item``.  The iterator protocol is exactly
    the ``for`` statement's (as in :class:`ForToWhile`): ``iter`` once, ``next`` until the
    first ``StopIteration`` and never after it, the target assigned only when an item
    came.  The body has no ``break`` for this loop, so ``else`` always runs after the last
    iteration and becomes plain statements after the loop.

    Args:
        which: ``"all"`` (default) or ``"one"`` (one eligible loop chosen with ``ctx.rng``).

    Refuses (``NotApplicable``) loops whose body has ``break``/``continue`` for this loop
    (the peeled copy is not inside a loop), ``async for``, loops outside functions or in
    functions using ``eval``/``exec``/``locals``/``globals``/``vars``/``dir()``, and
    programs that may rebind ``iter``/``next``/``object``, observe object lifetimes (see
    :func:`finalisation_hazard`) or inspect frames or line numbers.

    Raises:
        ValueError: on construction, when ``which`` is not ``"all"`` or ``"one"``.
    """

    name = "peel-loop"
    family = "loops"
    description = "Peel the first iteration off for loops (explicit iterator, next with a sentinel)."
    preconditions = (
        "iter, next and object are the builtins (not rebound anywhere, no builtins-module access)",
        "no generator with try/with, no __del__, no weakref/gc: iterator lifetime is unobservable",
        "no frame or line introspection (new locals, duplicated lines are unobservable)",
        "the body has no break/continue for this loop",
        "loop is a plain `for` in a function that does not use eval/exec/locals/globals/vars/dir()",
    )

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        facts = _for_loop_facts(module, ctx)
        _refuse_program(module, ctx, facts, frozenset(facts.names), emits=("iter", "next", "object"))

        def check(loop: cst.For) -> str | None:
            jumps = loop_jumps(loop.body)
            return f"body has {jumps[0]} for this loop" if jumps else None

        eligible, reasons = _for_sites(ctx, facts, "loop", check)
        chosen = _choose(self.which, ctx, eligible, reasons, "for loop")
        plans: dict[cst.CSTNode, _Plan] = {}
        for loop in chosen:  # source order: outer loops get the plain names
            names = _LoopNames(ctx.fresh_name("_it"), ctx.fresh_name("_end"), ctx.fresh_name("_item"))
            ctx.record(loop, f"first iteration peeled (iterator {names.iterator})")
            plans[loop] = self._plan(names)
        return module.visit(_BlockRewriter(plans))

    @staticmethod
    def _plan(n: _LoopNames) -> _Plan:
        def fetch_test() -> cst.Comparison:
            fetch = cst.NamedExpr(
                target=cst.Name(n.item),
                value=cst.Call(cst.Name("next"), [cst.Arg(cst.Name(n.iterator)), cst.Arg(cst.Name(n.sentinel))]),
                lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            return cst.Comparison(fetch, [cst.ComparisonTarget(cst.IsNot(), cst.Name(n.sentinel))])

        def plan(node: cst.BaseStatement) -> tuple[list[cst.BaseStatement], list[cst.EmptyLine]]:
            assert isinstance(node, cst.For)
            first = cst.Call(cst.Name("iter"), [cst.Arg(parenthesize_if_bare_tuple(node.iter))])
            iterator = _simple_line(_assign(cst.Name(n.iterator), first), leading=node.leading_lines)
            sentinel = _simple_line(_assign(cst.Name(n.sentinel), cst.Call(cst.Name("object"))))
            bind = _simple_line(_assign(node.target, cst.Name(n.item)))
            body, footer = _block_statements(node.body)
            header = node.body.header if isinstance(node.body, cst.IndentedBlock) else cst.TrailingWhitespace()
            rest = cst.While(test=fetch_test(), body=cst.IndentedBlock(body=[bind, *body], footer=footer))
            peeled = cst.If(test=fetch_test(), body=cst.IndentedBlock(body=[bind, *body, rest], header=header))
            out: list[cst.BaseStatement] = [iterator, sentinel, peeled]
            left: list[cst.EmptyLine] = []
            if node.orelse is not None:
                stmts, left = _block_statements(node.orelse.body)
                stmts[0] = _prepend_lines(stmts[0], node.orelse.leading_lines)
                out += stmts
            return out, left
        return plan


# ---------------------------------------------------------------------------------------
# while-to-for

#: types whose ``len()`` cannot change while the object lives
_IMMUTABLE_SIZED = frozenset({"str", "tuple", "bytes", "frozenset", "range"})
_FLIP = {cst.LessThan: cst.GreaterThan, cst.LessThanEqual: cst.GreaterThanEqual,
         cst.GreaterThan: cst.LessThan, cst.GreaterThanEqual: cst.LessThanEqual}


@dataclass
class _Counting:
    """A counting ``while`` loop found by :class:`WhileToFor`."""

    loop: cst.While
    var: str
    bound: cst.BaseExpression
    op: type
    step: int  # signed
    increment: cst.BaseSmallStatement
    start: cst.BaseExpression  # range start (a literal or the variable itself)
    drop_init: cst.BaseStatement | None
    fixup: bool


def _increment_of(small: cst.BaseSmallStatement) -> tuple[str, int] | None:
    """``(name, signed step)`` of ``i += k`` / ``i -= k`` / ``i = i + k`` / ``i = i - k``
    with a positive int literal ``k``, else ``None``."""
    if isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name) \
            and isinstance(small.operator, (cst.AddAssign, cst.SubtractAssign)):
        k = _int_literal(small.value)
        if isinstance(small.value, cst.Integer) and k is not None and k > 0:
            return small.target.value, k if isinstance(small.operator, cst.AddAssign) else -k
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
        name = small.targets[0].target.value
        v = small.value
        if isinstance(v, cst.BinaryOperation) and isinstance(v.operator, (cst.Add, cst.Subtract)) \
                and isinstance(v.left, cst.Name) and v.left.value == name and isinstance(v.right, cst.Integer) \
                and not v.lpar:
            k = v.right.evaluated_value
            if k > 0:
                return name, k if isinstance(v.operator, cst.Add) else -k
    return None


class WhileToFor(SiteChoice, Transform):
    """Rewrite counting ``while`` loops as ``for`` loops over ``range``.

    ``i = A`` ... ``while i < B: BODY; i += k`` (also ``<=``, and ``i > B`` / ``i >= B``
    with ``i -= k``; ``i = i + k`` spellings; ``k`` a positive int literal) becomes
    ``for i in range(A, B, k): BODY``.  The value of ``i`` after the loop is kept: when
    ``i`` may be read after the loop (or by a closure), the loop's normal exit re-applies
    the increment once if the original test still holds (``if i < B: i += k``), in the
    loop's ``else`` when the body may ``break`` (a ``break`` leaves ``i`` alike in both).
    When ``i`` is read nowhere else, a literal or adjacent ``i = A`` initialisation is
    folded into ``range``.

    Preconditions (each refused with a reason when not established):

    * the increment is the body's last statement; the body has no ``continue`` (which
      would skip it) and binds ``i`` nowhere else; ``i`` is a true local (no ``global``,
      ``nonlocal``, ``del``, ``except ... as``);
    * ``B`` is a bound built only of int literals, local names, ``len(name)`` and
      ``+ - * // %`` / unary minus, none of its names rebound in the body, not mentioning
      ``i``; ``len(x)`` only when ``x`` was only ever seen holding an immutable sized type
      (``str``, ``tuple``, ``bytes``, ``frozenset``, ``range``), so its length is invariant;
    * ints: ``i`` is an int at the loop (an int-valued initialisation, or only ``int`` ever
      observed for it), and every name in ``B`` was only ever observed holding ``int``
      (or ``bool``), in ``RewriteContext.observations`` (``needs_runtime_types``);
    * ``range`` unshadowed; the function does not use ``eval``/``exec``/``locals``/
      ``globals``/``vars``/``dir()``; no frame or line introspection.

    Names in ``B`` are checked on the observed runs only: on an input where such a name
    holds a float, ``range`` would raise where the ``while`` loop ran.

    Args:
        which: ``"all"`` (default) or ``"one"`` (one eligible loop chosen with ``ctx.rng``).

    Raises:
        ValueError: on construction, when ``which`` is not ``"all"`` or ``"one"``.
    """

    name = "while-to-for"
    family = "loops"
    description = "Rewrite counting while loops (i = a; while i < b: ...; i += 1) as for loops over range."
    preconditions = (
        "range is the builtin (not rebound anywhere, no builtins-module access)",
        "the loop counts: last statement i += k / i -= k (k a positive literal), no continue, i bound nowhere else",
        "i is a plain local (no global/nonlocal/del/except-as of it)",
        "the bound is built of int literals, local names, len(name), + - * // %; invariant in the body",
        "runtime types: i and the bound's names only ever held ints; len() only of immutable sized values",
        "the function does not use eval/exec/locals/globals/vars/dir(); no frame or line introspection",
    )
    needs_runtime_types = True

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        if "while" not in ctx.program.source:
            raise NotApplicable("no while loop")
        facts = ProgramFacts.of(module)
        if not facts.whiles:
            raise NotApplicable("no while loop")
        loops = [(s, func, block) for func, ff in facts.functions.items() for block in ff.blocks
                 for s in block.body if isinstance(s, cst.While)]
        _refuse_program(module, ctx, facts, frozenset(facts.names), emits=("range",), lifetime=False)
        from libcst.metadata import ParentNodeProvider, ScopeProvider
        parents = ctx.metadata(ParentNodeProvider)
        scopes = ctx.metadata(ScopeProvider)
        eligible: list[_Counting] = []
        reasons: list[str] = []
        for w, func, block in loops:
            why = _owner_refusal(func, facts, "loop")
            found = None if why else self._analyse(w, func, block, facts, parents, scopes, ctx)
            if isinstance(found, _Counting):
                eligible.append(found)
            else:
                reasons.append(f"line {ctx.position(w)[0]}: {why or found}")
        if not loops:
            reasons.append("while loops only outside function bodies")
        chosen = _choose(self.which, ctx, eligible, reasons, "counting while loop")
        plans: dict[cst.CSTNode, _Plan] = {}
        drop = []
        for c in chosen:
            ctx.record(c.loop, f"while loop counting {c.var} -> for {c.var} in range(...)")
            plans[c.loop] = self._plan(c)
            if c.drop_init is not None:
                drop.append(c.drop_init)
        return module.visit(_BlockRewriter(plans, drop))

    # -- analysis ---------------------------------------------------------------------
    def _analyse(self, w: cst.While, func: cst.FunctionDef, block: cst.IndentedBlock, facts: ProgramFacts,
                 parents, scopes, ctx: RewriteContext) -> _Counting | str:
        test = w.test
        if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1
                and type(test.comparisons[0].operator) in _FLIP):
            return "test is not a single <, <=, > or >= comparison"
        if isinstance(w.body, cst.IndentedBlock) and not isinstance(w.body.body[-1], cst.SimpleStatementLine):
            return "last statement of the body is not an increment"
        smalls = list(w.body.body[-1].body) if isinstance(w.body, cst.IndentedBlock) else list(w.body.body)
        inc = _increment_of(smalls[-1])
        if inc is None:
            return "last statement of the body is not an increment by an int literal"
        var, step = inc
        left, op, right = test.left, type(test.comparisons[0].operator), test.comparisons[0].comparator
        if isinstance(left, cst.Name) and left.value == var and not left.lpar:
            bound = right
        elif isinstance(right, cst.Name) and right.value == var and not right.lpar:
            bound, op = left, _FLIP[op]
        else:
            return f"test does not compare {var} with a bound"
        if (step > 0) != (op in (cst.LessThan, cst.LessThanEqual)):
            return f"{var} moves away from its bound"
        if "continue" in loop_jumps(w.body):
            return "body has continue (it would skip the increment)"
        ff = facts.functions[func]
        if var in ff.unbinders:
            return f"{var} may be global, nonlocal, deleted or bound by except-as"
        rest_bound: set[str] = set()
        body_stmts = list(w.body.body) if isinstance(w.body, cst.IndentedBlock) else []
        for s in body_stmts[:-1]:
            rest_bound |= bound_names(s)[0]
        for small in smalls[:-1]:
            rest_bound |= bound_names(small)[0]
        if var in rest_bound:
            return f"{var} is also bound inside the body"
        if ctx.shadowed("len") and any(_name_nodes(part, "len") for part in (test, *smalls)):
            return "builtin len may be rebound by the program"
        qual = _qualname(func, parents)
        observed: dict[str, list[str]] = (ctx.observations or {}).get(qual, {})
        why = self._bound_ok(bound, var, func, ff, scopes, observed, rest_bound)
        if why:
            return why
        # i is an int when the loop starts
        init = None
        idx = next(k for k, s in enumerate(block.body) if s is w)
        for prev in reversed(block.body[:idx]):
            if isinstance(prev, cst.SimpleStatementLine) and len(prev.body) == 1 \
                    and isinstance(prev.body[0], cst.Assign) and len(prev.body[0].targets) == 1 \
                    and isinstance(prev.body[0].targets[0].target, cst.Name) \
                    and prev.body[0].targets[0].target.value == var:
                init = prev
                break
            if var in bound_names(prev)[0]:
                break
        init_value = init.body[0].value if init is not None else None
        if init_value is not None and _name_nodes(init_value, "len") and ctx.shadowed("len"):
            init_value = None  # len(...) is not known to give an int
        if not ((init_value is not None and self._int_expr(init_value, observed, allow_bool=False))
                or observed.get(var) == ["int"]):
            return f"{var} is not known to be an int (observed {observed.get(var, 'nothing')})"
        # is i read anywhere else (after the loop, in its else clause, by a closure)?
        inside = {id(n) for part in (w.test, w.body) for n in _name_nodes(part, var)}
        if init is not None:
            inside |= {id(n) for n in _name_nodes(init, var)}
        elsewhere = [n for n in _name_nodes(func, var) if id(n) not in inside]
        lazy = any(_name_nodes(s, var) for s in _lazy_scopes(w))
        dead = not elsewhere and not lazy
        start: cst.BaseExpression = cst.Name(var)
        drop_init = None
        if init is not None:
            literal = _int_literal(init_value) is not None
            adjacent = idx > 0 and block.body[idx - 1] is init
            if dead and (literal or adjacent):
                start, drop_init = init_value, init
            elif literal:
                start = init_value
        return _Counting(w, var, bound, op, step, smalls[-1], start, drop_init, not dead)

    def _int_expr(self, e: cst.BaseExpression, observed: Mapping[str, list[str]], allow_bool: bool = True) -> bool:
        """Whether ``e`` always evaluates to an int: literals, ``len(...)``, arithmetic of
        ints, names only ever observed holding ints (or bools, with ``allow_bool``)."""
        if isinstance(e, cst.Integer):
            return True
        if isinstance(e, cst.Name):
            ok = {"int", "bool"} if allow_bool else {"int"}
            types = observed.get(e.value)
            return bool(types) and set(types) <= ok
        if isinstance(e, cst.Call) and isinstance(e.func, cst.Name) and e.func.value == "len" \
                and len(e.args) == 1 and e.args[0].keyword is None and not e.args[0].star:
            return True
        if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, (cst.Minus, cst.Plus)):
            return self._int_expr(e.expression, observed)
        if isinstance(e, cst.BinaryOperation) and isinstance(
                e.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo)):
            return self._int_expr(e.left, observed) and self._int_expr(e.right, observed)
        return False

    def _bound_ok(self, bound: cst.BaseExpression, var: str, func: cst.FunctionDef, ff: FunctionFacts, scopes,
                  observed: Mapping[str, list[str]], body_bound: set[str]) -> str | None:
        """Why ``bound`` is not an invariant int bound, or ``None``."""
        if not self._int_expr(bound, observed):
            return "bound is not an int expression of literals, len() and names observed as int"
        for call in _find(bound, cst.Call):
            arg = call.args[0].value
            if not isinstance(arg, cst.Name):
                return "len() of something other than a name"
            types = observed.get(arg.value)
            if not types or not set(types) <= _IMMUTABLE_SIZED:
                return f"len({arg.value}): {arg.value} may change size (observed {types or 'nothing'})"
        for n in _name_nodes(bound):
            if any(n is c.func for c in _find(bound, cst.Call)):
                continue
            if n.value == var:
                return f"bound depends on {var}"
            if n.value in body_bound or n.value in ff.unbinders:
                return f"bound's name {n.value} may change in the loop"
            scope = scopes.get(n)
            if scope is None or getattr(scope, "node", None) is not func \
                    or not any(a.scope is scope for a in scope[n.value]):
                return f"bound's name {n.value} is not a local of {func.name.value}()"
        return None

    # -- rewrite ----------------------------------------------------------------------
    @staticmethod
    def _plan(c: _Counting) -> _Plan:
        def plan(node: cst.BaseStatement) -> tuple[list[cst.BaseStatement], list[cst.EmptyLine]]:
            assert isinstance(node, cst.While)
            lit = _int_literal(c.bound)
            adjust = {cst.LessThanEqual: 1, cst.GreaterThanEqual: -1}.get(c.op, 0)
            if not adjust:
                end = c.bound
            elif lit is not None:
                end = _int_node(lit + adjust)
            else:
                end = cst.BinaryOperation(c.bound, cst.Add() if adjust > 0 else cst.Subtract(), cst.Integer("1"))
            args = [end]
            if not (_int_literal(c.start) == 0 and c.step == 1):
                args.insert(0, c.start)
            if c.step != 1:
                args.append(_int_node(c.step))
            rng = cst.Call(cst.Name("range"), [cst.Arg(a) for a in args])
            body = node.body
            if isinstance(body, cst.IndentedBlock):
                last = body.body[-1]
                assert isinstance(last, cst.SimpleStatementLine)
                if len(last.body) > 1:
                    kept = list(last.body[:-1])
                    kept[-1] = kept[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
                    stmts = [*body.body[:-1], last.with_changes(body=kept)]
                    footer = list(body.footer)
                else:
                    stmts = list(body.body[:-1])
                    footer = [*last.leading_lines, *_comment_lines(last.trailing_whitespace), *body.footer]
                body = body.with_changes(body=stmts or [cst.SimpleStatementLine([cst.Pass()])], footer=footer)
            else:
                kept = list(body.body[:-1]) or [cst.Pass()]
                kept[-1] = kept[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
                body = body.with_changes(body=kept)
            after: list[cst.BaseStatement] = []
            orelse = node.orelse
            if c.fixup:
                inc = c.increment.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
                fix = cst.If(test=node.test.deep_clone(), body=cst.IndentedBlock([_simple_line(inc)]))
                if orelse is not None:
                    stmts, _ = _block_statements(orelse.body)
                    orelse = orelse.with_changes(body=cst.IndentedBlock(
                        [fix, *stmts], header=orelse.body.header if isinstance(orelse.body, cst.IndentedBlock)
                        else orelse.body.trailing_whitespace,
                        footer=orelse.body.footer if isinstance(orelse.body, cst.IndentedBlock) else ()))
                elif "break" in loop_jumps(node.body):
                    orelse = cst.Else(cst.IndentedBlock([fix]))
                else:
                    after = [fix]
            loop = cst.For(target=cst.Name(c.var), iter=rng, body=body, orelse=orelse,
                           leading_lines=[*node.leading_lines, *_statement_comments(node.test)])
            return [loop, *after], []
        return plan


# ---------------------------------------------------------------------------------------
# helpers of the comprehension transforms


def recursion_hazard(module: cst.Module, facts: ProgramFacts | None = None) -> str | None:
    """A reason why the program may recurse, or ``None``.

    Comprehensions run in a frame of their own (Python 3.11; inlined from 3.12 on, PEP
    709), so turning a loop into a comprehension or back changes the call depth at which
    a recursive program hits ``RecursionError``.  A function ``g`` is taken to call ``h``
    when ``h``'s name is spelled anywhere in ``g`` (as a variable, attribute or keyword),
    and to call every dunder method the program defines that Python may call implicitly
    from ``g``'s code: ``__init__``-like ones (:data:`_CONSTRUCTION`) when ``g`` spells a
    class of the program, ``type``, ``super``, ``__class__`` or ``copy``; the others
    (``__len__``, ``__eq__``, ``__iter__``, ``__repr__``...) when ``g`` has any operator,
    call, subscript, loop, truth test or display (:func:`_may_run_code`).  A cycle in that
    graph (networkx) is a possible recursion: ``__len__`` returning ``sum([len(k) for k
    in self.kids])`` recurses through ``len`` without spelling its own name."""
    import networkx as nx

    facts = facts or ProgramFacts.of(module)
    graph = nx.DiGraph()
    by_name: dict[str, list[cst.FunctionDef]] = {}
    for fn in facts.functions:
        by_name.setdefault(fn.name.value, []).append(fn)
    # methods Python calls implicitly (``len(x)`` -> ``__len__``, ``a == b`` -> ``__eq__``,
    # ``C(...)`` -> ``__init__``): their names are never spelled by their callers
    dunders = {name for name in by_name if len(name) > 4 and name.startswith("__") and name.endswith("__")}
    hooks = bool(dunders & _ATTRIBUTE_HOOKS)
    classes = {n.name.value for n in _walk_nodes(module) if isinstance(n, cst.ClassDef)}
    for fn in facts.functions:
        spelled = identifiers_in(fn.body)
        for other in set(by_name) & spelled:
            graph.add_edge(fn.name.value, other)
        if not dunders:
            continue
        constructs = bool(spelled & (classes | _CONSTRUCTORS))
        runs = _may_run_code(fn.body, hooks)
        for d in dunders:
            if constructs if d in _CONSTRUCTION else runs:
                graph.add_edge(fn.name.value, d)
    try:
        cycle = nx.find_cycle(graph)
    except nx.NetworkXNoCycle:
        return None
    names = sorted({a for a, _ in cycle})
    return f"program may recurse ({' -> '.join(names)}); comprehension frames change the recursion depth"


#: dunder methods run when an instance is made (``C(...)``, ``type(self)(...)``, a copy)
_CONSTRUCTION = frozenset({"__init__", "__new__", "__post_init__", "__init_subclass__", "__set_name__",
                           "__class_getitem__", "__copy__", "__deepcopy__", "__reduce__", "__reduce_ex__",
                           "__getstate__", "__setstate__", "__getnewargs__", "__getnewargs_ex__"})
#: names through which a function may make an instance of a class it does not spell
_CONSTRUCTORS = frozenset({"type", "__class__", "super", "copy", "deepcopy", "__new__", "__init__"})
#: dunder methods that make plain attribute access run code
_ATTRIBUTE_HOOKS = frozenset({"__getattr__", "__getattribute__", "__setattr__", "__delattr__", "__get__", "__set__",
                              "__delete__"})
#: syntax that may call a dunder method implicitly (operators, calls, subscripts, iteration,
#: truth tests, hashing in displays, formatting, context managers...)
_RUNS_CODE = (cst.Call, cst.BinaryOperation, cst.UnaryOperation, cst.BooleanOperation, cst.Comparison,
              cst.Subscript, cst.For, cst.While, cst.If, cst.IfExp, cst.ListComp, cst.SetComp, cst.DictComp,
              cst.GeneratorExp, cst.With, cst.FormattedString, cst.Await, cst.Yield, cst.AugAssign, cst.Del,
              cst.Raise, cst.Assert, cst.Tuple, cst.List, cst.Set, cst.Dict, cst.StarredElement, cst.Try,
              cst.Match, cst.Import, cst.ImportFrom, cst.Decorator)


def _walk_nodes(node: cst.CSTNode) -> Iterable[cst.CSTNode]:
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.children)


def _may_run_code(body: cst.CSTNode, attribute_hooks: bool) -> bool:
    """Whether ``body`` may call a dunder method implicitly (conservative: any operator,
    call, subscript, loop, truth test, display...; attribute access too when the program
    defines ``__getattr__``, ``__setattr__``, a descriptor...)."""
    for n in _walk_nodes(body):
        if isinstance(n, _RUNS_CODE) or attribute_hooks and isinstance(n, cst.Attribute):
            return True
    return False


def _needs_parens_in_comp(e: cst.BaseExpression) -> bool:
    """Whether ``e`` must be parenthesised as a comprehension iterable, condition, element
    or key (a bare tuple, conditional expression, lambda, walrus, yield, genexp)."""
    if getattr(e, "lpar", None):
        return False
    return isinstance(e, (cst.Tuple, cst.IfExp, cst.Lambda, cst.NamedExpr, cst.Yield, cst.GeneratorExp))


def _paren(e: cst.BaseExpression) -> cst.BaseExpression:
    if _needs_parens_in_comp(e):
        return e.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return e


def _target_names(t: cst.BaseExpression) -> list[str] | None:
    """Names bound by a ``for`` / comprehension target made only of names (``x``,
    ``a, b``, ``(a, *rest)``), else ``None`` (attributes, subscripts)."""
    if isinstance(t, cst.Name):
        return [t.value]
    if isinstance(t, (cst.Tuple, cst.List)):
        out: list[str] = []
        for el in t.elements:
            sub = _target_names(el.value)
            if sub is None:
                return None
            out += sub
        return out
    if isinstance(t, cst.StarredElement):
        return _target_names(t.value)
    return None


def _is_literal(e: cst.BaseExpression) -> bool:
    return isinstance(e, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)) or _int_literal(e) is not None


def _inside_try_or_with(node: cst.CSTNode, func: cst.CSTNode, parents) -> bool:
    p = parents.get(node)
    while p is not None and p is not func:
        if isinstance(p, (cst.Try, cst.TryStar, cst.With)):
            return True
        p = parents.get(p)
    return False


def _scope_hazards(parts: Sequence[cst.CSTNode], bound: Sequence[str]) -> str | None:
    """Why the expression ``parts`` cannot move between a function's scope and a
    comprehension's scope: a walrus (binds in the function), ``yield`` / ``await``,
    zero-argument ``super()`` / ``__class__``, or code that may run later (lambda,
    generator expression) reading one of the ``bound`` loop variables."""
    for part in parts:
        for n in _find(part, cst.NamedExpr, cst.Yield, cst.Await):
            return {cst.NamedExpr: "walrus", cst.Yield: "yield", cst.Await: "await"}[type(n)] \
                + " inside the loop (binds or suspends in the function)"
        if _name_nodes(part, "super") or _name_nodes(part, "__class__"):
            return "super()/__class__ inside the loop (needs the function's frame)"
        for lazy in _lazy_scopes(part):
            late = sorted({n.value for n in _name_nodes(lazy) if n.value in bound})
            if late:
                return f"a lambda or generator reads loop variable {late[0]} later (late binding)"
    return None


def _unbound_local_hazard(parts: Sequence[cst.CSTNode], skip: Sequence[str], func: cst.FunctionDef,
                          stmt: cst.CSTNode, ff: FunctionFacts, scopes, parents) -> str | None:
    """Why a local of ``func`` read directly in ``parts`` (names in ``skip`` aside) might be
    unbound at ``stmt``.  Read from a comprehension an unbound local raises ``NameError``;
    read from the function itself, ``UnboundLocalError``: the exception class differs."""
    ids: set[int] = set()
    for part in parts:
        ids |= {id(n) for n in _name_nodes(part)}
    fscope = scopes.get(func.body)
    if fscope is None:
        return "no scope information"
    seen: set[str] = set()
    for scope in {scopes.get(n) for part in parts for n in _name_nodes(part)} - {None}:
        for access in scope.accesses:
            node = access.node
            if id(node) not in ids or not isinstance(node, cst.Name) or node.value in skip or node.value in seen:
                continue
            seen.add(node.value)
            if not any(a.scope is fscope for a in fscope[node.value]):
                continue  # a global or builtin: NameError either way
            if node.value in ff.unbinders or not _definitely_bound(node.value, stmt, func, parents):
                return f"local {node.value} may be unbound there (NameError vs UnboundLocalError)"
    return None


# ---------------------------------------------------------------------------------------
# loop-to-comprehension


@dataclass
class _Accumulation:
    init: cst.SimpleStatementLine
    loop: cst.For
    acc: str
    kind: str  # "list" | "set" | "dict"
    conds: list[cst.BaseExpression]
    parts: list[cst.BaseExpression]  # [elt] or [key, value]


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
    stmts, _ = _block_statements(suite)
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
    * the moved code has no walrus, ``yield``, ``await``, ``super()``, and no lambda or
      generator reading a loop variable later; locals it reads are surely bound (an
      unbound local read from a comprehension raises ``NameError``, not
      ``UnboundLocalError``);
    * ``acc[K] = V`` evaluates ``V`` before ``K``, a dict comprehension ``K`` first: one of
      them must be a loop variable or a literal;
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
        "set unshadowed; no recursion; no frame/line/lifetime introspection; no eval/exec/locals/...",
    )

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        facts = _for_loop_facts(module, ctx)
        _refuse_program(module, ctx, facts, frozenset(facts.names))
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
            why = _owner_refusal(func, facts, "loop")
            found = why or self._analyse(prev, stmt, _acc_init(prev), func, ff, parents, scopes, ctx)
            if isinstance(found, _Accumulation):
                eligible.append(found)
            else:
                reasons.append(f"line {ctx.position(stmt)[0]}: {found}")
        if eligible:
            hazard = recursion_hazard(module, facts)
            if hazard:
                raise NotApplicable(hazard)
        chosen = _choose(self.which, ctx, eligible, reasons, "accumulation loop (acc = []; for ...: acc.append(...))")
        plans: dict[cst.CSTNode, _Plan] = {}
        for a in chosen:
            ctx.record(a.loop, f"{a.kind} accumulation loop -> {a.kind} comprehension assigned to {a.acc}")
            plans[a.loop] = self._plan(a)
        return module.visit(_BlockRewriter(plans, [a.init for a in chosen]))

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
        if kind == "set" and ctx.shadowed("set"):
            return "builtin set may be rebound by the program"
        targets = _target_names(loop.target)
        if targets is None:
            return "loop target is not made of names"
        if len(_name_nodes(loop, acc)) != 1:
            return f"{acc} is used in the loop other than to accumulate"
        if acc in ff.unbinders:
            return f"{acc} may be global, nonlocal, deleted or bound by except-as"
        if any(_name_nodes(lazy, acc) for lazy in _lazy_scopes(func.body)):
            return f"a nested function or lambda reads {acc}"
        if _inside_try_or_with(loop, func, parents):
            return "loop inside try/with (a partial result could be observed after an exception)"
        lazy = _lazy_scopes(func.body)
        for t in targets:
            if t in ff.unbinders:
                return f"loop variable {t} may be global, nonlocal, deleted or bound by except-as"
            if any(_name_nodes(part, t) for part in lazy):
                return f"loop variable {t} is read by a nested function or lambda"
            covered = {id(n) for n in _name_nodes(loop)}
            for other in _find(func.body, cst.For):
                if other is not loop and t in (_target_names(other.target) or ()):
                    # uses inside another loop over the same name run after that loop rebinds it
                    covered |= {id(n) for part in (other.target, other.body) for n in _name_nodes(part)}
            if any(id(n) not in covered for n in _name_nodes(func, t)):
                return f"loop variable {t} is used outside the loop (a comprehension would not bind it)"
        why = _scope_hazards([*parts, *conds], targets)
        if why is None:
            why = _scope_hazards([loop.iter], ())
        if why is None:
            why = _unbound_local_hazard([*parts, *conds], targets, func, loop, ff, scopes, parents)
        if why:
            return why
        if kind == "dict":
            k, v = parts
            pure = lambda e: _is_literal(e) or (isinstance(e, cst.Name) and e.value in targets)  # noqa: E731
            if not (pure(k) or pure(v)):
                return "dict key and value both have effects (the evaluation order would change)"
        return _Accumulation(init, loop, acc, kind, conds, parts)

    @staticmethod
    def _plan(a: _Accumulation) -> _Plan:
        def plan(node: cst.BaseStatement) -> tuple[list[cst.BaseStatement], list[cst.EmptyLine]]:
            loop = a.loop  # the original loop: nothing inside it was rewritten
            for_in = cst.CompFor(target=loop.target, iter=_paren(loop.iter),
                                 ifs=[cst.CompIf(_paren(c)) for c in a.conds])
            if a.kind == "list":
                comp: cst.BaseExpression = cst.ListComp(elt=_paren(a.parts[0]), for_in=for_in)
            elif a.kind == "set":
                comp = cst.SetComp(elt=_paren(a.parts[0]), for_in=for_in)
            else:
                comp = cst.DictComp(key=_paren(a.parts[0]), value=_paren(a.parts[1]), for_in=for_in)
            moved = {id(n) for part in [*a.parts, *a.conds, loop.iter, loop.target] for n in _find(part, cst.CSTNode)}
            comments = _statement_comments(loop.body, moved)
            stmt = _simple_line(_assign(cst.Name(a.acc), comp), leading=[*loop.leading_lines, *comments])
            return [stmt], []
        return plan


# ---------------------------------------------------------------------------------------
# comprehension-to-loop

#: builtins that consume a generator argument completely before doing anything else with
#: its items, mapped to the accumulator they are rewritten over ("list" or "set") and
#: whether the call stays (``tuple(acc)``) or is replaced by the accumulator itself
_CONSUMERS: dict[str, tuple[str, bool]] = {
    "list": ("list", False), "set": ("set", False), "tuple": ("list", True), "sorted": ("list", True),
    "frozenset": ("set", True), "sum": ("list", True), "min": ("list", True), "max": ("list", True),
}
#: consumers that work item by item (additions / comparisons): only for items that are
#: surely ints, where those steps cannot fail or run code
_ITEMWISE = frozenset({"sum", "min", "max"})
#: identifiers through which an expression can raise StopIteration (inside a generator
#: expression it becomes RuntimeError, PEP 479; inside a loop it would not)
_STOPITERATION_SOURCES = frozenset({"next", "__next__", "StopIteration", "send", "throw", "anext", "__anext__"})
_INT_CALLS = frozenset({"len", "int", "ord", "bool", "hash", "abs"})


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
    targets = {n for f in _comp_chain(comp) for n in (_target_names(f.target) or [])}
    nodes = [n for part in _comp_parts(comp) for n in _name_nodes(part) if n.value in targets]
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
            return n.value not in self.ff.unbinders and _definitely_bound(n.value, self.stmt, self.func,
                                                                          self.env["parents"])
        return n.value in BUILTIN_NAMES and not ctx.shadowed(n.value) and n.value not in self.ff.unbinders

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
        if kind == "set" and self.env["ctx"].shadowed("set"):
            self.reasons.append(f"line {self.env['ctx'].position(node)[0]}: builtin set may be rebound by the program")
            return False
        targets = [n for f in _comp_chain(comp) for n in (_target_names(f.target) or [])]
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

        y = [f(x) for x in xs if x]      acc = []
                                         for x_1 in xs:
                                             if x_1:
                                                 acc.append(f(x_1))
                                         y = acc

    Comprehension scoping is kept: the loop variables get fresh names (nothing leaks into
    or out of the function), nested comprehensions keep their own variables (libcst
    ``ScopeProvider``), and the first iterable stays where it was evaluated.  Only
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
        if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star \
                or not isinstance(call.args[0].value, cst.GeneratorExp):
            return None
        f = call.func
        if isinstance(f, cst.Name) and f.value in _CONSUMERS and not ctx.shadowed(f.value):
            return f.value
        if isinstance(f, cst.Attribute) and f.attr.value == "join" \
                and isinstance(f.value, (cst.SimpleString, cst.ConcatenatedString)) \
                and not _find(f.value, cst.FormattedString):
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
                and not ctx.shadowed(e.func.value) and len(e.args) >= 1 and not any(a.star for a in e.args):
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
            names = _target_names(f.target)
            if names is None:
                return "comprehension target is not made of names"
            targets += names
        parts = _comp_parts(comp)
        why = _scope_hazards(parts, targets) or _scope_hazards([chain[0].iter], ())
        if why:
            return why.replace("inside the loop", "inside the comprehension")
        if consumer is not None and env["stop_sources"]:
            return f"the generator's code may raise StopIteration (program uses {', '.join(env['stop_sources'])})"
        if consumer in _ITEMWISE and not self._int_item(comp.elt, ctx):
            return f"{consumer}() of items not known to be ints (adding/comparing them could fail midway)"
        why = _unbound_local_hazard(parts, targets, scan.func, scan.stmt, scan.ff, scopes, env["parents"])
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
        comps = _find(module, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
        if not comps:
            raise NotApplicable("no comprehension")
        facts = ProgramFacts.of(module)
        names = frozenset(facts.names)
        _refuse_program(module, ctx, facts, names)
        from libcst.metadata import ParentNodeProvider, ScopeProvider
        env = {"ctx": ctx, "scopes": ctx.metadata(ScopeProvider), "parents": ctx.metadata(ParentNodeProvider),
               "stop_sources": sorted(names & _STOPITERATION_SOURCES)}
        by_stmt: dict[cst.BaseStatement, list[_CompSite]] = {}
        reasons: list[str] = []
        for comp in comps:
            owner = _function_of(comp, env["parents"])
            if not isinstance(owner, cst.FunctionDef):
                why = _owner_refusal(owner, facts, "comprehension")
                reasons.append(f"line {ctx.position(comp)[0]}: {why}")
        for func, ff in facts.functions.items():
            why = _owner_refusal(func, facts, "comprehension")
            if why:
                if _find(func.body, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp):
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
        chosen_stmts = _choose(self.which, ctx, list(by_stmt), reasons, "comprehension in a hoistable position")
        plans: dict[cst.CSTNode, _Plan] = {}
        for stmt in chosen_stmts:
            sites = by_stmt[stmt]
            func = next(f for f in facts.functions if any(stmt in b.body for b in facts.functions[f].blocks))
            for s in sites:
                self._names(s, func, facts.functions[func], env)
                ctx.record(s.node, f"{'generator expression' if s.consumer else type(s.comp).__name__} "
                                   f"-> loop building {s.acc}")
            plans[stmt] = self._plan(stmt, sites)
        return module.visit(_BlockRewriter(plans))

    def _names(self, s: _CompSite, func: cst.FunctionDef, ff: FunctionFacts, env: dict) -> None:
        ctx, scopes, parents = env["ctx"], env["scopes"], env["parents"]
        fresh = {t: ctx.fresh_name(t) for t in dict.fromkeys(s.targets)}
        for node in _comp_variable_uses(s.comp, scopes):
            s.renames[id(node)] = fresh[node.value]
        comp = s.comp
        if isinstance(comp, cst.DictComp) and not any(
                _is_literal(e) or (isinstance(e, cst.Name) and e.value in s.targets) for e in (comp.key, comp.value)):
            s.key = ctx.fresh_name("key")
        # build the statement's own target directly?
        stmt = s.stmt
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) else None
        if isinstance(small, cst.Assign) and small.value is s.node and len(small.targets) == 1 \
                and isinstance(small.targets[0].target, cst.Name) and s.consumer in (None, "list", "set"):
            t = small.targets[0].target.value
            if t not in ff.unbinders and not _name_nodes(s.node, t) \
                    and not any(_name_nodes(lazy, t) for lazy in _lazy_scopes(func.body)) \
                    and not _inside_try_or_with(stmt, func, parents):
                s.acc, s.direct = t, True
                return
        s.acc = ctx.fresh_name("acc")

    @staticmethod
    def _loop(s: _CompSite) -> list[cst.BaseStatement]:
        """The statements computing ``s`` into ``s.acc``."""
        rn = _Renamer(s.renames)
        comp = s.comp
        acc = cst.Name(s.acc)
        if s.kind == "list":
            init: cst.BaseExpression = cst.List([])
        elif s.kind == "set":
            init = cst.Call(cst.Name("set"))
        else:
            init = cst.Dict([])
        if isinstance(comp, cst.DictComp):
            key, value = comp.key.visit(rn), comp.value.visit(rn)
            inner: list[cst.BaseStatement] = []
            if s.key is not None:  # the key is evaluated before the value, as in the comprehension
                inner.append(_simple_line(_assign(cst.Name(s.key), key)))
                key = cst.Name(s.key)
            store = _assign(cst.Subscript(acc, [cst.SubscriptElement(cst.Index(key))]), value)
            inner.append(_simple_line(store))
        else:
            method = "append" if s.kind == "list" else "add"
            elt = comp.elt.visit(rn)
            if isinstance(elt, cst.Tuple) and not elt.lpar:
                elt = elt.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            inner = [_simple_line(cst.Expr(cst.Call(cst.Attribute(acc, cst.Name(method)), [cst.Arg(elt)])))]
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
        moved = {id(n) for part in kept for n in _find(part, cst.CSTNode)}
        body[0] = _prepend_lines(body[0], _statement_comments(comp, moved))
        return [_simple_line(_assign(acc, init)), *body]

    def _plan(self, stmt: cst.BaseStatement, sites: list[_CompSite]) -> _Plan:
        def plan(node: cst.BaseStatement) -> tuple[list[cst.BaseStatement], list[cst.EmptyLine]]:
            hoisted: list[cst.BaseStatement] = []
            replace: dict[int, cst.BaseExpression] = {}
            for s in sites:
                hoisted += self._loop(s)
                if s.consumer is None or not _CONSUMERS.get(s.consumer, ("", True))[1]:
                    replace[id(s.node)] = cst.Name(s.acc)
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
            hoisted[0] = _prepend_lines(hoisted[0], stmt.leading_lines)
            if new is None and isinstance(stmt, cst.SimpleStatementLine):
                hoisted[0] = hoisted[0].with_changes(trailing_whitespace=stmt.trailing_whitespace)
                return hoisted, []
            return [*hoisted, new], []
        return plan
