"""Helpers of the comprehension transforms (loop-to-comprehension, comprehension-to-loop):
recursion hazards (comprehension frames count), code that may run, scope hazards.
"""

from __future__ import annotations

from typing import Iterable, Sequence

import libcst as cst

from codemorph.engine.transform import identifiers_in
from codemorph.authoring.facts import FunctionFacts, ProgramFacts
from codemorph.transforms.loops.common import definitely_bound, find, int_literal, lazy_scopes, name_nodes

__all__ = [
    "recursion_hazard", "paren", "is_literal", "inside_try_or_with", "scope_hazards",
    "unbound_local_hazard",
]


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


def paren(e: cst.BaseExpression) -> cst.BaseExpression:
    """``e`` parenthesised when it cannot stand bare in a comprehension."""
    if _needs_parens_in_comp(e):
        return e.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return e


def is_literal(e: cst.BaseExpression) -> bool:
    """Whether ``e`` is a number or plain string literal (``-3`` included)."""
    return isinstance(e, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)) or int_literal(e) is not None


def inside_try_or_with(node: cst.CSTNode, func: cst.CSTNode, parents) -> bool:
    """Whether ``node`` lies in a ``try``/``try*``/``with`` inside ``func`` (``parents``:
    libcst parent links)."""
    p = parents.get(node)
    while p is not None and p is not func:
        if isinstance(p, (cst.Try, cst.TryStar, cst.With)):
            return True
        p = parents.get(p)
    return False


def scope_hazards(parts: Sequence[cst.CSTNode], bound: Sequence[str]) -> str | None:
    """Why the expression ``parts`` cannot move between a function's scope and a
    comprehension's scope: a walrus (binds in the function), ``yield`` / ``await``,
    zero-argument ``super()`` / ``__class__``, or code that may run later (lambda,
    generator expression) reading one of the ``bound`` loop variables."""
    for part in parts:
        for n in find(part, cst.NamedExpr, cst.Yield, cst.Await):
            return {cst.NamedExpr: "walrus", cst.Yield: "yield", cst.Await: "await"}[type(n)] \
                + " inside the loop (binds or suspends in the function)"
        if name_nodes(part, "super") or name_nodes(part, "__class__"):
            return "super()/__class__ inside the loop (needs the function's frame)"
        for lazy in lazy_scopes(part):
            late = sorted({n.value for n in name_nodes(lazy) if n.value in bound})
            if late:
                return f"a lambda or generator reads loop variable {late[0]} later (late binding)"
    return None


def unbound_local_hazard(parts: Sequence[cst.CSTNode], skip: Sequence[str], func: cst.FunctionDef,
                          stmt: cst.CSTNode, ff: FunctionFacts, scopes, parents) -> str | None:
    """Why a local of ``func`` read directly in ``parts`` (names in ``skip`` aside) might be
    unbound at ``stmt``.  Read from a comprehension an unbound local raises ``NameError``;
    read from the function itself, ``UnboundLocalError``: the exception class differs."""
    ids: set[int] = set()
    for part in parts:
        ids |= {id(n) for n in name_nodes(part)}
    fscope = scopes.get(func.body)
    if fscope is None:
        return "no scope information"
    seen: set[str] = set()
    for scope in {scopes.get(n) for part in parts for n in name_nodes(part)} - {None}:
        for access in scope.accesses:
            node = access.node
            if id(node) not in ids or not isinstance(node, cst.Name) or node.value in skip or node.value in seen:
                continue
            seen.add(node.value)
            if not any(a.scope is fscope for a in fscope[node.value]):
                continue  # a global or builtin: NameError either way
            if node.value in ff.unbinders or not definitely_bound(node.value, stmt, func, parents):
                return f"local {node.value} may be unbound there (NameError vs UnboundLocalError)"
    return None
