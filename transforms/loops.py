"""The ``loops`` family: rewrites of loop statements.

``for-to-while`` (:class:`ForToWhile`) rewrites ``for`` loops in function bodies as
``while`` loops driven by an explicit iterator.  The family will grow (``while-to-for``,
comprehension-to-loop, ...); the helpers below are written against codemorph's public API
only and are shared by the other built-in families (``dead-code``, ``branches``):

* :func:`dynamic_scope_uses` -- does a function read its own local namespace
  (``eval``, ``exec``, ``locals()``, ``globals()``, ``vars()``, ``dir()``)?
* :func:`hazard_identifiers` -- identifiers showing that a program inspects frames,
  source lines, reference counts or the ``builtins`` module, which makes otherwise
  invisible edits (new locals, moved lines, longer-lived references) observable.
* :class:`ProgramFacts` -- one pass over a module: per function, its own blocks,
  dynamic-scope uses, generator-ness, try/with, names that may become unbound; every
  ``for`` statement with its owner (function, class body or module).
* :func:`finalisation_hazard` -- may the program observe when an iterator is released?
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

import libcst as cst

from codemorph import NotApplicable, RewriteContext, Transform
from codemorph.transform import DYNAMIC_SCOPE_BUILTINS, identifiers_in

__all__ = [
    "ForToWhile",
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

#: Identifiers of code that reads the local variables of running frames.  Adding a local
#: (a fresh name) to a function is observable by such code.
FRAME_HAZARDS: frozenset[str] = frozenset({
    "_getframe", "currentframe", "f_locals", "f_back", "f_code", "tb_frame", "co_varnames",
    "co_nlocals", "co_cellvars", "co_freevars", "co_names", "co_consts", "co_code", "settrace",
    "setprofile", "gettrace", "getprofile", "inspect", "__code__", "pdb", "breakpoint",
})

#: Identifiers of code that observes source text or line numbers (tracebacks, warnings,
#: logging records, ``inspect.getsource``).  Any transform that moves, adds or removes
#: lines changes what such code prints.
LINE_HAZARDS: frozenset[str] = frozenset({
    "traceback", "__traceback__", "tb_lineno", "f_lineno", "co_firstlineno", "co_lines",
    "co_positions", "lineno", "linecache", "getsource", "getsourcelines", "dis", "warnings",
    "warn", "logging", "_getframe", "currentframe", "inspect", "settrace", "__code__",
})

#: Identifiers of code that observes when objects die or how many references they have.
#: Keeping an iterator in a local variable until the function returns is observable by
#: such code.
LIFETIME_HAZARDS: frozenset[str] = frozenset({
    "__del__", "weakref", "_weakref", "gc", "get_referrers", "get_referents", "getrefcount",
})

#: Identifiers of code that may rebind a builtin without a visible assignment
#: (``builtins.iter = ...``, ``__builtins__['len'] = ...``).
BUILTINS_HAZARDS: frozenset[str] = frozenset({"builtins", "__builtins__", "__import__", "importlib"})


def hazard_identifiers(module: cst.Module, *groups: Iterable[str],
                       names: frozenset[str] | None = None) -> list[str]:
    """The identifiers of ``groups`` (e.g. :data:`FRAME_HAZARDS`) spelled anywhere in
    ``module`` (as a variable, attribute, parameter, keyword or import), sorted.

    Spelling is enough: an attribute ``x.lineno`` counts, so this over-approximates
    (a transform refuses a few harmless programs rather than emit a wrong rewrite).
    ``names`` may pass ``identifiers_in(module)`` when already computed.
    """
    if names is None:
        names = identifiers_in(module)
    wanted: set[str] = set()
    for g in groups:
        wanted.update(g)
    return sorted(names & wanted)


class _DynamicScope(cst.CSTVisitor):
    """Collects uses of :data:`~codemorph.transform.DYNAMIC_SCOPE_BUILTINS` as variables."""

    def __init__(self) -> None:
        self.found: list[str] = []

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)  # ``obj.eval`` is an attribute, not the builtin
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)  # ``g(locals=1)`` names a keyword, not the builtin
        return False

    def visit_Param(self, node: cst.Param) -> bool:
        if node.annotation is not None:
            node.annotation.visit(self)
        if node.default is not None:
            node.default.visit(self)
        return False

    def visit_Call(self, node: cst.Call) -> bool:
        # dir(x) / vars(x) with an argument do not read the caller's namespace
        func = node.func
        if isinstance(func, cst.Name) and func.value in ("dir", "vars") and any(
                a.keyword is None and not a.star for a in node.args):
            for a in node.args:
                a.visit(self)
            return False
        return True

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in DYNAMIC_SCOPE_BUILTINS:
            self.found.append(node.value)


def dynamic_scope_uses(node: cst.CSTNode) -> list[str]:
    """Names of the builtins in ``node`` (a function, or any subtree) that read or write
    a namespace by name: ``eval``, ``exec``, ``locals``, ``globals``, no-argument
    ``vars()`` / ``dir()``, or any of them used as a value (``g = locals``).

    Returns the sorted distinct names found (empty list when none).  A function for
    which this is non-empty must not gain new local variables.
    """
    v = _DynamicScope()
    node.visit(v)
    return sorted(set(v.found))


@dataclass
class FunctionFacts:
    """What one pass of :class:`ProgramFacts` learns about one ``def``.

    Attributes:
        node: the function.
        dynamic: dynamic-scope builtins used in it or in code nested in it
            (see :func:`dynamic_scope_uses`).
        blocks: the indented blocks that belong to the function itself, in source order,
            starting with its body (not blocks of nested functions or class bodies).
        is_generator: its own code (not nested functions/lambdas/classes) has ``yield``.
        has_try_or_with: its own code has ``try`` / ``try*`` / ``with``.
        has_try_star: ``try ... except*`` anywhere in it (``return`` is banned there).
        unbinders: names that a ``del``, an ``except ... as``, a ``global`` or a
            ``nonlocal`` anywhere in it (nested code included) may unbind or rebind.
    """

    node: cst.FunctionDef
    dynamic: set[str] = field(default_factory=set)
    blocks: list[cst.IndentedBlock] = field(default_factory=list)
    is_generator: bool = False
    has_try_or_with: bool = False
    has_try_star: bool = False
    unbinders: set[str] = field(default_factory=set)


class ProgramFacts(cst.CSTVisitor):
    """One pass over a module collecting the facts the loops / dead-code / branches
    transforms need (libcst visits are the main cost of a rewrite, so they share one).

    After ``ProgramFacts.of(module)``:

    * ``functions``: a :class:`FunctionFacts` per ``def`` / ``async def``, in source order;
    * ``loops``: every ``for`` statement with its owner (the nearest enclosing
      ``FunctionDef`` or ``ClassDef``, ``None`` at module level), in source order.
    """

    def __init__(self) -> None:
        self.functions: dict[cst.FunctionDef, FunctionFacts] = {}
        self.loops: list[tuple[cst.For, cst.FunctionDef | cst.ClassDef | None]] = []
        self._owners: list[cst.FunctionDef | cst.ClassDef | cst.Lambda | None] = [None]
        self._funcs: list[FunctionFacts] = []  # enclosing defs, innermost last
        self._not_builtin: set[int] = set()  # ids of Name nodes that are not variable reads

    @classmethod
    def of(cls, module: cst.Module) -> "ProgramFacts":
        facts = cls()
        module.visit(facts)
        return facts

    def _own(self) -> FunctionFacts | None:
        owner = self._owners[-1]
        return self.functions.get(owner) if isinstance(owner, cst.FunctionDef) else None

    # scopes
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        facts = FunctionFacts(node)
        self.functions[node] = facts
        self._funcs.append(facts)
        self._owners.append(node)
        self._not_builtin.add(id(node.name))

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._funcs.pop()
        self._owners.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._owners.append(node)
        self._not_builtin.add(id(node.name))

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._owners.pop()

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._owners.append(node)

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self._owners.pop()

    # statements
    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        own = self._own()
        if own is not None:
            own.blocks.append(node)

    def visit_For(self, node: cst.For) -> None:
        owner = self._owners[-1]
        self.loops.append((node, owner if not isinstance(owner, cst.Lambda) else None))

    def visit_Yield(self, node: cst.Yield) -> None:
        own = self._own()
        if own is not None:
            own.is_generator = True

    def _try_or_with(self) -> None:
        own = self._own()
        if own is not None:
            own.has_try_or_with = True

    def visit_Try(self, node: cst.Try) -> None:
        self._try_or_with()

    def visit_With(self, node: cst.With) -> None:
        self._try_or_with()

    def visit_TryStar(self, node: cst.TryStar) -> None:
        self._try_or_with()
        for f in self._funcs:
            f.has_try_star = True

    # names that may be unbound / rebound
    def _unbind(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            for f in self._funcs:
                f.unbinders.add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for el in target.elements:
                self._unbind(el.value)

    def visit_Del(self, node: cst.Del) -> None:
        self._unbind(node.target)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            self._unbind(node.name.name)

    def visit_ExceptStarHandler(self, node: cst.ExceptStarHandler) -> None:
        if node.name is not None:
            self._unbind(node.name.name)

    def visit_Global(self, node: cst.Global) -> None:
        for n in node.names:
            self._unbind(n.name)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        for n in node.names:
            self._unbind(n.name)

    # dynamic-scope builtins (same rules as dynamic_scope_uses)
    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._not_builtin.add(id(node.attr))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self._not_builtin.add(id(node.keyword))

    def visit_Param(self, node: cst.Param) -> None:
        self._not_builtin.add(id(node.name))

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Name) and func.value in ("dir", "vars") and any(
                a.keyword is None and not a.star for a in node.args):
            self._not_builtin.add(id(func))

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in DYNAMIC_SCOPE_BUILTINS and id(node) not in self._not_builtin:
            for f in self._funcs:
                f.dynamic.add(node.value)


def is_generator_function(func: cst.FunctionDef) -> bool:
    """Whether ``func``'s own body (not nested functions, lambdas or classes) contains
    ``yield`` / ``yield from``, i.e. calling it returns a generator."""
    return ProgramFacts.of(cst.Module(body=[func])).functions[func].is_generator


def function_nodes(module: cst.Module) -> list[cst.FunctionDef]:
    """Every ``def`` / ``async def`` in ``module`` (any depth), in source order."""
    return list(ProgramFacts.of(module).functions)


def finalisation_hazard(module: cst.Module, names: frozenset[str] | None = None,
                        facts: ProgramFacts | None = None) -> str | None:
    """A reason why the program may observe *when* an iterator or generator is released,
    or ``None``.

    A ``for`` loop drops its iterator as soon as the loop ends; an explicit iterator in a
    local variable lives until the function returns.  The difference is visible when a
    generator runs code on close (``try``/``finally``, ``with``, ``except`` around a
    ``yield``: conservatively, any ``try``/``with`` in a generator function), when a
    class defines ``__del__``, or through weak references / the ``gc`` module.
    ``names`` (``identifiers_in(module)``) and ``facts`` (``ProgramFacts.of(module)``)
    may be passed when already computed.
    """
    facts = facts or ProgramFacts.of(module)
    for func, f in facts.functions.items():
        if f.is_generator and f.has_try_or_with:
            return (f"generator {func.name.value}() has try/with code that runs when it is closed; "
                    "keeping its iterator alive longer would change when that code runs")
    found = hazard_identifiers(module, LIFETIME_HAZARDS, names=names)
    if found:
        return f"program observes object lifetimes ({', '.join(found)})"
    return None


def parenthesize_if_bare_tuple(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``expr`` with parentheses added when it is a tuple written without them
    (``for d in a, b, c:``), so that it can be used as a single call argument."""
    if isinstance(expr, cst.Tuple) and not expr.lpar:
        return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return expr


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


class ForToWhile(Transform):
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

    def __init__(self, which: str = "all") -> None:
        if which not in ("all", "one"):
            raise ValueError(f"for-to-while: option which must be 'all' or 'one', got {which!r}")
        self.which = which

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
        chosen = eligible if self.which == "all" else [ctx.rng.choice(eligible)]
        loop_names = {loop: _LoopNames(ctx.fresh_name("_it"), ctx.fresh_name("_end"), ctx.fresh_name("_item"))
                      for loop in chosen}  # source order: outer loops get the plain names
        return module.visit(_ForToWhileRewriter(ctx, chosen, loop_names))
