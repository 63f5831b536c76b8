"""Program facts: one libcst pass over a module that learns, per function, what the
loop, branch and dead-code transforms need (own blocks, dynamic-scope uses,
generator-ness, try/with, names that may become unbound), and every ``for`` / ``while``
with its owner.

* :class:`ProgramFacts` / :class:`FunctionFacts` -- the pass and its per-function result;
* :func:`is_generator_function`, :func:`function_nodes` -- shortcuts over it;
* :func:`finalisation_hazard` -- may the program observe when an iterator is released?
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from codemorph.engine.transform import DYNAMIC_SCOPE_BUILTINS
from codemorph.authoring.hazards import LIFETIME_HAZARDS, hazard_identifiers

__all__ = ["FunctionFacts", "ProgramFacts", "is_generator_function", "function_nodes", "finalisation_hazard"]


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
      ``FunctionDef`` or ``ClassDef``, ``None`` at module level), in source order;
    * ``whiles``: every ``while`` statement with its owner, likewise;
    * ``names``: every identifier spelled in the module (as :func:`identifiers_in`).
    """

    def __init__(self) -> None:
        self.functions: dict[cst.FunctionDef, FunctionFacts] = {}
        self.loops: list[tuple[cst.For, cst.FunctionDef | cst.ClassDef | None]] = []
        self.whiles: list[tuple[cst.While, cst.FunctionDef | cst.ClassDef | None]] = []
        self.names: set[str] = set()
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

    def visit_While(self, node: cst.While) -> None:
        owner = self._owners[-1]
        self.whiles.append((node, owner if not isinstance(owner, cst.Lambda) else None))

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
        self.names.add(node.value)
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
