"""Hazard word lists: identifiers whose mere spelling in a program shows that it can
observe an edit that is otherwise invisible (new locals, moved lines, longer-lived
references, rebound builtins), and the checks built on them.

* :data:`FRAME_HAZARDS`, :data:`LINE_HAZARDS`, :data:`STRICT_LINE_HAZARDS`,
  :data:`LIFETIME_HAZARDS`, :data:`BUILTINS_HAZARDS` -- the word lists;
* :func:`hazard_identifiers` -- which of them a module spells;
* :data:`BUILTIN_REBINDING_HAZARDS`, :func:`rebindable_builtins`,
  :func:`builtin_rebinding_refusal` -- may the program rebind a builtin a transform emits
  or relies on, visibly or not (``globals()['len'] = ...``, ``setattr(m, 'len', ...)``)?
* :func:`dynamic_scope_uses` -- does code read its namespace by name (``eval``,
  ``locals()``...)?
"""

from __future__ import annotations

from typing import Iterable

import collections

import libcst as cst

from codemorph.engine.transform import DYNAMIC_SCOPE_BUILTINS, RewriteContext, identifiers_in

__all__ = ["FRAME_HAZARDS", "LINE_HAZARDS", "STRICT_LINE_HAZARDS", "LIFETIME_HAZARDS", "BUILTINS_HAZARDS",
           "BUILTIN_REBINDING_HAZARDS", "hazard_identifiers", "dynamic_scope_uses", "rebindable_builtins",
           "builtin_rebinding_refusal"]

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

#: :data:`LINE_HAZARDS` plus ``co_lnotab`` (the line table before Python 3.10) and
#: ``setprofile`` (a profiler sees every call's line).  The distractor transforms, which
#: insert comments and docstrings above code (so every line below moves), refuse on this
#: wider set; the loop, branch and dead-code transforms keep the narrower one.
STRICT_LINE_HAZARDS: frozenset[str] = LINE_HAZARDS | frozenset({"co_lnotab", "setprofile"})

#: Identifiers of code that observes when objects die or how many references they have.
#: Keeping an iterator in a local variable until the function returns is observable by
#: such code.
LIFETIME_HAZARDS: frozenset[str] = frozenset({
    "__del__", "weakref", "_weakref", "gc", "get_referrers", "get_referents", "getrefcount",
})

#: Identifiers of code that may rebind a builtin without a visible assignment
#: (``builtins.iter = ...``, ``__builtins__['len'] = ...``), or reach the builtins module or
#: a module's namespace from an object the program holds: ``abs.__self__`` is the builtins
#: module, ``g.__globals__`` and a frame's ``f_globals``/``f_builtins`` are namespaces,
#: ``sys.modules``, importers (``__subclasses__``, ``meta_path``, ``load_module``,
#: ``_frozen_importlib``, ``_imp``), ``gc.get_referents``, ``ctypes``, ``pickle``'s global
#: lookups, and the standard library's resolvers of dotted names (``pydoc.locate``,
#: ``pkgutil.resolve_name``, ``unittest.mock.patch('builtins.len', ...)``).  Not
#: ``getattr`` (``getattr(g, '__glo' + 'bals__')`` reaches a namespace by a computed name,
#: but programs read attributes by name often): code that emits or relies on a builtin
#: asks :func:`rebindable_builtins`, which adds it.
BUILTINS_HAZARDS: frozenset[str] = frozenset({
    "builtins", "__builtins__", "__import__", "importlib", "modules", "__self__", "__globals__", "f_globals",
    "f_builtins", "__subclasses__", "meta_path", "load_module", "_frozen_importlib", "_imp", "gc", "ctypes",
    "pickle", "_pickle", "pydoc", "pkgutil", "resolve_name", "mock"})

#: Identifiers of code that may rebind a builtin name without an assignment the scope
#: analysis sees: :data:`BUILTINS_HAZARDS` (the ``builtins`` module, ``abs.__self__``,
#: ``g.__globals__``...), a namespace written by name (``globals()['len'] = ...``,
#: ``vars()``, ``exec('len = ...')``), a module object's attributes (``module.__dict__``),
#: ``operator.attrgetter`` (a computed attribute name).  ``getattr``, ``setattr``,
#: ``delattr`` and ``__getattribute__``/``__setattr__``/``__delattr__`` are
#: hazards too, except in a call naming the attribute by a plain string literal
#: (``getattr(p, "x")`` reads ``p.x``): see :func:`rebindable_builtins`.
BUILTIN_REBINDING_HAZARDS: frozenset[str] = (BUILTINS_HAZARDS | DYNAMIC_SCOPE_BUILTINS | frozenset({
    "__dict__", "attrgetter"}))

#: builtins (and slot wrappers) that read or write an attribute named by a string
_BY_NAME_FUNCTIONS = frozenset({"getattr", "setattr", "delattr"})
_BY_NAME_METHODS = frozenset({"__getattribute__", "__getattr__", "__setattr__", "__delattr__"})


class _AttributeUses(cst.CSTVisitor):
    """Names a program spells as attributes (``x.len``, ``getattr(x, "len")``) and its
    attribute accesses by a computed name (``getattr(x, name)``, ``f = getattr``)."""

    def __init__(self) -> None:
        self.attributes: set[str] = set()
        self.computed: set[str] = set()
        self._literal_calls: set[int] = set()  # ids of getattr/__setattr__ nodes called with a literal

    @staticmethod
    def _literal(arg: cst.Arg | None) -> str | None:
        if arg is None or arg.star or arg.keyword is not None or not isinstance(arg.value, cst.SimpleString):
            return None
        value = arg.value.evaluated_value
        return value if isinstance(value, str) else None

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Name) and func.value in _BY_NAME_FUNCTIONS:
            position = 1
        elif isinstance(func, cst.Attribute) and func.attr.value in _BY_NAME_METHODS:
            position = 0
        else:
            return
        plain = [a for a in node.args if not a.star and a.keyword is None]
        name = self._literal(plain[position]) if len(plain) > position and len(plain) == len(node.args) else None
        if name is not None:
            self.attributes.add(name)
            self._literal_calls.add(id(func if isinstance(func, cst.Name) else func.attr))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.attributes.add(node.attr.value)
        if node.attr.value in _BY_NAME_METHODS and id(node.attr) not in self._literal_calls:
            self.computed.add(node.attr.value)

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in _BY_NAME_FUNCTIONS and id(node) not in self._literal_calls:
            self.computed.add(node.value)


_attribute_memo: "collections.OrderedDict[int, tuple[cst.CSTNode, tuple[frozenset[str], frozenset[str]]]]" = \
    collections.OrderedDict()


def _attribute_uses(module: cst.CSTNode) -> tuple[frozenset[str], frozenset[str]]:
    """``(attribute names, computed accesses)`` of ``module`` (see :class:`_AttributeUses`),
    memoized per module object (the 16 most recent)."""
    hit = _attribute_memo.get(id(module))
    if hit is not None and hit[0] is module:
        return hit[1]
    v = _AttributeUses()
    module.visit(v)
    value = (frozenset(v.attributes), frozenset(v.computed))
    _attribute_memo[id(module)] = (module, value)
    while len(_attribute_memo) > 16:
        _attribute_memo.popitem(last=False)
    return value


def _rebinding(ctx: RewriteContext, names: tuple[str, ...]) -> tuple[list[str], str | None]:
    """The builtins of ``names`` the program may rebind, and why (``None`` when none)."""
    module = ctx.program.module
    shadowed = ctx.shadowed(*names)
    if shadowed:
        return shadowed, f"builtin {', '.join(shadowed)} may be rebound by the program"
    attributes, computed = _attribute_uses(module)
    found = sorted(set(hazard_identifiers(module, BUILTIN_REBINDING_HAZARDS)) | computed
                   | (attributes & BUILTIN_REBINDING_HAZARDS))
    if found:
        return list(names), f"program may rebind builtins through {', '.join(found)}"
    named = [n for n in names if n in attributes]
    if named:
        return named, (f"program sets or reads an attribute named {', '.join(named)} "
                       f"(it may rebind the builtin through a module)")
    return [], None


def rebindable_builtins(ctx: RewriteContext, *names: str) -> list[str]:
    """Which of the builtin ``names`` (e.g. ``"len", "iter"``) the program of ``ctx`` may
    rebind, so that a transform must not emit a call to one nor rely on what one returns:

    * any it binds visibly (:meth:`RewriteContext.shadowed`: an assignment, ``def``,
      import, parameter, ``del``, ``except ... as``, a star import...);
    * all of them when it spells a word of :data:`BUILTIN_REBINDING_HAZARDS` (the
      ``builtins`` module and the ways to reach it or a module's namespace:
      ``globals()['len'] = f``, ``vars()``, ``exec``, ``g.__globals__``, ``abs.__self__``,
      ``sys.modules``, ``pydoc.locate``...), or reads or writes an attribute by a computed
      name (``getattr(g, '__glo' + 'bals__')``, ``setattr(m, name, f)``, ``f = getattr``);
    * any it spells as an attribute (``m.len = f``, ``setattr(m, 'len', f)``), whatever
      module ``m`` is.

    Returns a subset of ``names``, in their order; empty when every
    one surely is the builtin wherever the program reads it.
    """
    return _rebinding(ctx, names)[0]


def builtin_rebinding_refusal(ctx: RewriteContext, *names: str) -> str | None:
    """Why a transform that emits or relies on the builtins ``names`` must refuse the
    program of ``ctx`` (a reason for :class:`~codemorph.errors.NotApplicable`, e.g.
    ``"program may rebind builtins through globals"``), or ``None`` when none of them can
    be rebound (:func:`rebindable_builtins`)."""
    return _rebinding(ctx, names)[1]


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
