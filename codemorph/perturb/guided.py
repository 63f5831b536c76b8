"""Feedback for the guided search: coverage and distance-to-raise probes.

The guided strategy runs an *instrumented* copy of the program in the sandbox.  The copy
is made with libcst and keeps every original line where it was (the helpers are appended
after the last line), so the sandbox's line/arc trace of the copy is the coverage of the
original.  Inside function bodies it wraps the operations that raise the common exception
classes with probe helpers that do the operation unchanged (same evaluation order, same
result, same exception) and record how far the operands were from raising:

============================  ====================  ======================================
operation                      target class          gap recorded (0 = raises)
============================  ====================  ======================================
``seq[i]`` (load)              IndexError            ``len(seq) - i`` for ``i >= 0``,
                                                     ``i + len(seq) + 1`` for ``i < 0``
``d[k]`` (load, dict)          KeyError              0 when absent, else 1 + number of keys
``a / b``, ``a // b``,         ZeroDivisionError     ``abs(b)`` (numbers only)
``a % b``
``x.index(v)``, ``x.remove(v)``  ValueError          occurrences of ``v`` in ``x``
``lst.pop(i)`` / ``lst.pop()``   IndexError          as for ``seq[i]``; ``len(lst)`` for ``pop()``
``d.pop(k)``                   KeyError              as for ``d[k]``
``d.popitem()``, ``s.pop()``     KeyError              ``len(d)``
``s.remove(v)`` (set)          KeyError              0 when absent, else 1
============================  ====================  ======================================

This is the branch-distance idea of search-based test generation (Korel 1990,
"Automated software test data generation"; McMinn 2004, "Search-based software test data
generation: a survey"): an input whose smallest gap for a class is smaller is "closer" to
raising it, and the guided search keeps mutating the closest inputs.  The copy is used
for guidance only: every input the search reports is re-run on the *original* program.

The probe results reach the host through the captured stdout: the copy's entry point is a
wrapper that calls the original entry point and, in a ``finally`` block, writes one line
``<MARKER>{repr of the gaps}``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

__all__ = ["Instrumented", "instrument", "read_probes", "MARKER", "ENTRY", "PREFIX", "CoverageMap"]

MARKER = "\x1e_cmq_probe_"
ENTRY = "_cmq_entry"
#: prefix of every name the instrumentation adds; a program that already uses it is not
#: instrumented
PREFIX = "_cmq_"

# The helpers avoid every word that sends the sandbox child down its slow path (it checks
# loaded modules after each request of a program that names ``import``, ``sys``, dunders,
# ``getattr``...; see ``_REACH_WORDS`` in codemorph/sandbox/_worker.py): with them the instrumented
# copy costs about twice the original per execution, without them about the same.  So no
# json (the gaps are written with ``repr`` and read back with ``ast.literal_eval``), no
# ``sys.stdout`` (``print``), one helper per probed method (no ``getattr``).
_HELPERS = '''

def _cmq_note(cls, site, gap):
    if gap != gap:
        return
    if gap > 1e300:
        gap = 1e300
    d = _cmq_p.get(cls)
    if d is None:
        d = _cmq_p[cls] = {}
    old = d.get(site)
    if old is None or gap < old:
        d[site] = gap

def _cmq_gap(n, i):
    return n - i if i >= 0 else i + n + 1

def _cmq_sub(obj, key, site):
    t = type(obj)
    if t in (list, tuple, str, bytes) and type(key) is int:
        _cmq_note("IndexError", site, _cmq_gap(len(obj), key))
    elif t is dict:
        try:
            _cmq_note("KeyError", site, (1 + len(obj)) if key in obj else 0)
        except Exception:
            pass
    return obj[key]

def _cmq_div(a, b, op, site):
    if type(b) in (int, float, bool) and type(a) in (int, float, bool):
        _cmq_note("ZeroDivisionError", site, abs(b))
    if op == 0:
        return a / b
    if op == 1:
        return a // b
    return a % b

def _cmq_index(obj, site):
    meth = obj.index
    if type(obj) not in (list, str, tuple, bytes):
        return meth
    def _cmq_call(*args, **kwargs):
        if args:
            try:
                _cmq_note("ValueError", site, obj.count(args[0]))
            except Exception:
                pass
        return meth(*args, **kwargs)
    return _cmq_call

def _cmq_remove(obj, site):
    meth = obj.remove
    t = type(obj)
    if t is not list and t is not set:
        return meth
    def _cmq_call(*args, **kwargs):
        if args:
            try:
                if t is list:
                    _cmq_note("ValueError", site, obj.count(args[0]))
                else:
                    _cmq_note("KeyError", site, 1 if args[0] in obj else 0)
            except Exception:
                pass
        return meth(*args, **kwargs)
    return _cmq_call

def _cmq_pop(obj, site):
    meth = obj.pop
    t = type(obj)
    if t is not list and t is not dict and t is not set:
        return meth
    def _cmq_call(*args, **kwargs):
        try:
            if t is list:
                if args and type(args[0]) is int:
                    _cmq_note("IndexError", site, _cmq_gap(len(obj), args[0]))
                elif not args:
                    _cmq_note("IndexError", site, len(obj))
            elif t is dict:
                if len(args) == 1:
                    _cmq_note("KeyError", site, (1 + len(obj)) if args[0] in obj else 0)
            elif not args:
                _cmq_note("KeyError", site, len(obj))
        except Exception:
            pass
        return meth(*args, **kwargs)
    return _cmq_call

def _cmq_popitem(obj, site):
    meth = obj.popitem
    if type(obj) is not dict:
        return meth
    def _cmq_call(*args, **kwargs):
        _cmq_note("KeyError", site, len(obj))
        return meth(*args, **kwargs)
    return _cmq_call

def _cmq_entry(*args, **kwargs):
    try:
        return __ENTRY__(*args, **kwargs)
    finally:
        try:
            _cmq_print(__MARKER__ + repr(_cmq_p))
        except Exception:
            pass

_cmq_print = print
_cmq_p = {}
'''

_DIVOPS = {cst.Divide: 0, cst.FloorDivide: 1, cst.Modulo: 2}
_METHODS = frozenset({"index", "remove", "pop", "popitem"})


class _Targets(cst.CSTVisitor):
    """Collects subscripts that are assignment/deletion targets (not loads)."""

    def __init__(self) -> None:
        self.stores: set[int] = set()

    def _mark(self, node: cst.CSTNode) -> None:
        if isinstance(node, cst.Subscript):
            self.stores.add(id(node))
        elif isinstance(node, (cst.Tuple, cst.List)):
            for el in node.elements:
                self._mark(el.value)
        elif isinstance(node, cst.StarredElement):
            self._mark(node.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._mark(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._mark(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._mark(node.target)

    def visit_Del(self, node: cst.Del) -> None:
        self._mark(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._mark(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._mark(node.target)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._mark(node.asname.name)


def _call(name: str, *args: cst.BaseExpression) -> cst.Call:
    return cst.Call(cst.Name(name), [cst.Arg(a) for a in args])


class _Probe(cst.CSTTransformer):
    def __init__(self, stores: set[int]) -> None:
        self.stores = stores
        self.depth = 0
        self.sites: dict[str, str] = {}

    def _site(self, kind: str) -> cst.SimpleString:
        sid = f"s{len(self.sites)}"
        self.sites[sid] = kind
        return cst.SimpleString(repr(sid))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.depth += 1

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        self.depth -= 1
        return updated

    def leave_Decorator(self, original: cst.Decorator, updated: cst.Decorator) -> cst.Decorator:
        return original  # decorators run at import time, before the helpers exist

    def leave_Parameters(self, original: cst.Parameters, updated: cst.Parameters) -> cst.Parameters:
        return original  # defaults are evaluated at import time

    def leave_Annotation(self, original: cst.Annotation, updated: cst.Annotation) -> cst.Annotation:
        return original  # annotations too

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        if self.depth == 0 or id(original) in self.stores or len(updated.slice) != 1:
            return updated
        el = updated.slice[0].slice
        if not isinstance(el, cst.Index) or el.star is not None:
            return updated
        return _call(PREFIX + "sub", updated.value, el.value, self._site("subscript"))

    def leave_BinaryOperation(self, original: cst.BinaryOperation, updated: cst.BinaryOperation) -> cst.BaseExpression:
        op = _DIVOPS.get(type(updated.operator))
        if self.depth == 0 or op is None:
            return updated
        if isinstance(updated.left, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
            return updated
        return _call(PREFIX + "div", updated.left, updated.right, cst.Integer(str(op)), self._site("division"))

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        f = updated.func
        if self.depth == 0 or not isinstance(f, cst.Attribute) or f.attr.value not in _METHODS:
            return updated
        # ``x.pop(i)`` -> ``_cmq_pop(x, 's3')(i)``: the receiver is evaluated once, first
        name = f.attr.value
        return updated.with_changes(func=_call(PREFIX + name, f.value, self._site(name)))


@dataclass(frozen=True)
class Instrumented:
    """An instrumented copy of a program.

    Attributes:
        code: the copy's source; its lines ``1..original_lines`` are the original's lines
            (the probes are inline), helpers follow.
        entry_point: the wrapper to call (:data:`ENTRY`).
        original_lines: number of lines of the original program.
        sites: probe site id -> kind (``subscript``, ``division``, ``index``...).
    """

    code: str
    entry_point: str
    original_lines: int
    sites: dict[str, str] = field(default_factory=dict)


def instrument(module: cst.Module, entry_point: str) -> Instrumented | None:
    """Instrument a parsed program (see the module docstring).  Returns ``None`` when the
    program already uses the helper names or the copy cannot be produced."""
    source = module.code
    if PREFIX in source:
        return None
    try:
        t = _Targets()
        module.visit(t)
        p = _Probe(t.stores)
        new = module.visit(p)
        code = new.code
    except Exception:  # pragma: no cover - libcst refuses a construct
        return None
    original_lines = source.count("\n") + (0 if source.endswith("\n") else 1)
    if code.count("\n") != source.count("\n"):
        return None  # a probe would have moved lines: keep coverage exact
    if not code.endswith("\n"):
        code += "\n"
    code += _HELPERS.replace("__ENTRY__", entry_point).replace("__MARKER__", repr(MARKER))
    return Instrumented(code, ENTRY, original_lines, p.sites)


def read_probes(stdout: str) -> tuple[dict[str, dict[str, float]], str]:
    """Split the captured stdout of an instrumented run into (probe gaps, program output).

    Returns ``({class name: {site: smallest gap}}, stdout without the probe line)``; the
    gaps are empty when the probe line is missing (output limit, crash)."""
    k = stdout.rfind(MARKER)
    if k < 0:
        return {}, stdout
    end = stdout.find("\n", k)
    line = stdout[k + len(MARKER): end if end >= 0 else len(stdout)]
    rest = stdout[:k] + (stdout[end + 1:] if end >= 0 else "")
    try:
        data = ast.literal_eval(line)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return {}, rest
    if not isinstance(data, dict):
        return {}, rest
    return data, rest


@dataclass
class CoverageMap:
    """Line/arc coverage seen so far (of the original lines only).

    :meth:`add` returns how many new arcs and lines an execution covered, which decides
    whether its input joins the guided search's corpus (as in AFL's coverage feedback,
    Zalewski 2014)."""

    original_lines: int = 10**9
    arcs: set = field(default_factory=set)
    lines: set = field(default_factory=set)

    def add(self, lines: Any, arcs: Any) -> int:
        new = 0
        for ln in lines or ():
            if ln <= self.original_lines and ln not in self.lines:
                self.lines.add(ln)
                new += 1
        for a in arcs or ():
            a = tuple(a)
            if a[0] <= self.original_lines and a[1] <= self.original_lines and a not in self.arcs:
                self.arcs.add(a)
                new += 1
        return new
