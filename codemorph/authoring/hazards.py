"""Hazard word lists: identifiers whose mere spelling in a program shows that it can
observe an edit that is otherwise invisible (new locals, moved lines, longer-lived
references, rebound builtins), and the checks built on them.

* :data:`FRAME_HAZARDS`, :data:`LINE_HAZARDS`, :data:`STRICT_LINE_HAZARDS`,
  :data:`LIFETIME_HAZARDS`, :data:`BUILTINS_HAZARDS` -- the word lists;
* :func:`hazard_identifiers` -- which of them a module spells;
* :func:`dynamic_scope_uses` -- does code read its namespace by name (``eval``,
  ``locals()``...)?
"""

from __future__ import annotations

from typing import Iterable

import libcst as cst

from codemorph.engine.transform import DYNAMIC_SCOPE_BUILTINS, identifiers_in

__all__ = ["FRAME_HAZARDS", "LINE_HAZARDS", "STRICT_LINE_HAZARDS", "LIFETIME_HAZARDS", "BUILTINS_HAZARDS",
           "hazard_identifiers", "dynamic_scope_uses"]

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
#: lookups.  Not ``getattr`` (``getattr(g, '__glo' + 'bals__')`` reaches a namespace by a
#: computed name, but programs read attributes by name often): code that relies on a
#: builtin's result type adds it (:data:`~codemorph.authoring.BUILTIN_REBINDING_HAZARDS`).
BUILTINS_HAZARDS: frozenset[str] = frozenset({
    "builtins", "__builtins__", "__import__", "importlib", "modules", "__self__", "__globals__", "f_globals",
    "f_builtins", "__subclasses__", "meta_path", "load_module", "_frozen_importlib", "_imp", "gc", "ctypes",
    "pickle", "_pickle"})


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
