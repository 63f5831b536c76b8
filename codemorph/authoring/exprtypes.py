"""Types of expressions: :class:`ExpressionTypes` gives the runtime type names an
expression's value may have, from literals, the observed types of locals
(:meth:`FunctionIndex.observed <codemorph.authoring.scopes.FunctionIndex.observed>`) and a
few rules that hold for every value the operands can take (``len(...)`` is an ``int``,
``int + int`` is an ``int``, a slice of a ``str`` is a ``str``, ``s.lower()`` of a ``str``
is a ``str``...).  Unknown is ``None``; a rule never guesses.

Type names are those the sandbox's tracer records (exact types: ``"int"``, ``"str"``; a
subclass of ``str`` a program defines is ``"builtins.MyStr"``, never ``"str"``), so a rule
for ``"str"`` is a rule for the exact builtin type, whose methods a program cannot change.
"""

from __future__ import annotations

from typing import Callable, Iterable

import libcst as cst
from libcst.metadata import BuiltinAssignment

from codemorph.authoring.hazards import BUILTIN_REBINDING_HAZARDS, rebindable_builtins
from codemorph.authoring.scopes import FunctionIndex
from codemorph.authoring.syntax import literal_type

__all__ = ["ExpressionTypes", "BUILTIN_REBINDING_HAZARDS"]

_INT = frozenset({"int"})
_STR = frozenset({"str"})
_BOOL = frozenset({"bool"})
_FLOAT = frozenset({"float"})
_INTLIKE = frozenset({"int", "bool"})
_NUMBERS = frozenset({"int", "bool", "float"})
#: builtin types whose ``str()`` is an exact ``str`` (their ``__str__`` is builtin)
_STR_OF = frozenset({"int", "bool", "float", "str"})

#: builtins whose result has one exact type for every argument (when the call returns):
#: ``len`` (``PyLong_FromSsize_t``), ``ord``, ``int`` (a ``__int__`` returning a subclass
#: is converted), ``float`` (likewise), ``bool``, ``chr``/``hex``/``oct``/``bin`` (new
#: strings), ``isinstance``/``callable``.  ``str`` and ``repr`` are not here: a
#: ``__str__`` may return a subclass of ``str``, which ``str()`` passes on.
_FIXED_RESULT: dict[str, frozenset[str]] = {
    "len": _INT, "ord": _INT, "int": _INT, "float": _FLOAT, "bool": _BOOL, "chr": _STR, "hex": _STR,
    "oct": _STR, "bin": _STR, "isinstance": _BOOL, "callable": _BOOL,
}

#: methods of an exact ``str`` and their result types (each builds an exact ``str`` or
#: returns the receiver, itself exact).  Not ``format``: ``'{}'.format(x)`` is whatever
#: ``x.__format__`` returns when the field is the whole string (CPython's writer then
#: hands that object on), a subclass of ``str`` included.
_STR_METHODS: dict[str, frozenset[str]] = {
    **{m: _STR for m in ("lower", "upper", "strip", "lstrip", "rstrip", "replace", "title", "capitalize",
                         "casefold", "swapcase", "center", "ljust", "rjust", "zfill", "join",
                         "expandtabs", "removeprefix", "removesuffix", "translate")},
    **{m: _INT for m in ("count", "find", "rfind", "index", "rindex")},
    **{m: _BOOL for m in ("isdigit", "isalpha", "isalnum", "isspace", "isupper", "islower", "istitle",
                          "isnumeric", "isdecimal", "isidentifier", "isprintable", "isascii", "startswith",
                          "endswith")},
}

#: displays and comprehensions build a new object of one exact type
_DISPLAYS: dict[type, str] = {cst.List: "list", cst.ListComp: "list", cst.Tuple: "tuple", cst.Set: "set",
                              cst.SetComp: "set", cst.Dict: "dict", cst.DictComp: "dict"}

#: methods of an exact ``list`` or ``tuple`` with one exact result type
#: (``PyLong_FromSsize_t``)
_SEQUENCE_METHODS: dict[str, frozenset[str]] = {"count": _INT, "index": _INT}

_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo)
_BITWISE = (cst.BitAnd, cst.BitOr, cst.BitXor)
_SHIFTS = (cst.LeftShift, cst.RightShift)


def _binary(op: cst.BaseBinaryOp, left: str, right: str) -> str | None:
    """The exact result type of ``left OP right`` for two exact builtin types, or ``None``."""
    if left in _NUMBERS and right in _NUMBERS:
        if isinstance(op, _ARITHMETIC):  # bool arithmetic is int's (True + True == 2)
            return "float" if "float" in (left, right) else "int"
        if isinstance(op, cst.Divide):
            return "float"
        if left in _INTLIKE and right in _INTLIKE:
            if isinstance(op, _BITWISE):
                return "bool" if left == right == "bool" else "int"
            if isinstance(op, _SHIFTS):
                return "int"
        return None  # ** (int ** -1 is a float), @, and float bit operations (TypeError)
    if isinstance(op, cst.Add) and left == right and left in ("str", "list", "tuple"):
        return left
    if isinstance(op, cst.Multiply):
        if left in ("str", "list", "tuple") and right in _INTLIKE:
            return left
        if right in ("str", "list", "tuple") and left in _INTLIKE:
            return right
    if isinstance(op, cst.Modulo) and left == "str" and right in _STR_OF:
        # formatting one int, bool, float or exact str gives an exact str.  Not any other
        # right operand: '%s' % x is str(x) itself when the conversion is the whole format,
        # and str() of an exception or of a dict's value ('%(k)s' % d) may be a subclass
        # of str; a tuple's elements are typed by ExpressionTypes.of (a display only)
        return "str"
    return None


def _combine(left: Iterable[str], right: Iterable[str], rule: Callable[[str, str], str | None]) -> frozenset[str] | None:
    """``rule`` over every pair of types; ``None`` when any pair has no known result."""
    out: set[str] = set()
    for lt in left:
        for rt in right:
            t = rule(lt, rt)
            if t is None:
                return None
            out.add(t)
    return frozenset(out)


class ExpressionTypes:
    """The type names an expression's value may have, when every rule it needs is known.

    Args:
        index: the program's :class:`~codemorph.authoring.scopes.FunctionIndex` (its
            context's ``observations`` give the types of locals; ``None`` observations
            give none, and then only literals and the observation-free rules below apply).

    :meth:`of` knows:

    * literals (:func:`~codemorph.authoring.syntax.literal_type`);
    * a name that is a local of the function (or comprehension) where it is read, observed
      with those types, never bound by ``:=``, not in a function using ``eval``/``locals``/
      ..., not in a statement sharing its line with another (types are observed at line
      events);
    * calls of the builtins ``len``, ``ord``, ``int``, ``float``, ``bool``, ``chr``,
      ``hex``, ``oct``, ``bin``, ``isinstance``, ``callable`` (one exact result type), and
      ``abs``/``round`` of ints or floats, ``str`` of an int, bool, float or str -- only
      where the name is surely the builtin (:meth:`is_builtin`);
    * ``+ - * // %`` and unary ``- +`` of ints and bools (int), with a float (float), ``/``
      (float), ``& | ^`` (bool for two bools, else int), ``<< >>``, ``~``; ``str + str``,
      ``str * int``, ``list``/``tuple`` likewise; ``str % x`` for an exact ``str`` and an
      int, bool, float or exact str ``x``, or a tuple display of such (not a dict, an
      exception or a tuple of unknown elements: ``'%(k)s' % d`` is ``str(d['k'])``
      itself, which may be a subclass of ``str``); ``not x`` (bool);
    * an index or slice of an exact ``str`` (str), a slice of a ``list``/``tuple`` (the
      same type); an element of a list or tuple is unknown;
    * ``s.lower()``, ``s.count(...)``, ``s.isdigit()``... of an exact ``str`` (see
      ``_STR_METHODS``; not ``s.format(...)``, which is ``x.__format__``'s result itself
      for ``'{}'.format(x)``), ``xs.count(...)`` and ``xs.index(...)`` of an exact ``list`` or
      ``tuple`` (int);
    * list, tuple, set and dict displays and comprehensions (not f-strings: ``f"{x}"`` is
      whatever ``x.__format__`` returns, a subclass of ``str`` included);
    * ``(name := value)`` has the type of ``value``;
    * parentheses change nothing.
    """

    def __init__(self, index: FunctionIndex) -> None:
        self.index = index

    # -- builtins ---------------------------------------------------------------------------
    def is_builtin(self, name: cst.Name) -> bool:
        """Whether the read ``name`` (a node of the indexed tree) is surely the builtin of
        that name: nothing in the program binds the name (assignment, ``def``, ``class``,
        import, parameter, loop or comprehension target, ``global``, ``del``, ``except ...
        as``, a star import that may bind it), libcst's scope analysis resolves this read to
        the builtin scope, and nothing rebinds it unseen
        (:func:`~codemorph.authoring.hazards.rebindable_builtins`: the program spells none of
        :data:`BUILTIN_REBINDING_HAZARDS` -- ``builtins``, ``globals``, ``exec``,
        ``modules``, ``__globals__``, ``__self__``... --, reads or writes no attribute by a
        computed name -- ``getattr(g, name)``, ``setattr(m, name, f)`` -- and spells no
        attribute of that name: ``abs.__self__.len = ...`` rebinds the builtin through the
        builtins module, however that module was reached)."""
        if rebindable_builtins(self.index.ctx, name.value):
            return False
        scope = self.index.scopes.get(name)
        if scope is None:
            return False
        accesses = [a for a in scope.accesses[name.value] if a.node is name]
        if len(accesses) != 1 or not accesses[0].referents:
            return False
        return all(isinstance(r, BuiltinAssignment) for r in accesses[0].referents)

    # -- types --------------------------------------------------------------------------------
    def of(self, expr: cst.BaseExpression) -> frozenset[str] | None:
        """Type names ``expr``'s value may have (exact types, as the tracer names them), or
        ``None`` when unknown (see the class doc).  ``expr`` must be a node of the indexed
        tree (names and calls are looked up by node)."""
        lt = literal_type(expr)
        if lt is not None:
            return frozenset({lt})
        if isinstance(expr, cst.Name):
            return self._name(expr)
        if isinstance(expr, cst.Call):
            return self._call(expr)
        if isinstance(expr, cst.BinaryOperation):
            left = self.of(expr.left)
            if isinstance(expr.operator, cst.Modulo) and isinstance(expr.right, cst.Tuple) and left == _STR:
                # '%d-%s' % (n, s): each element formatted is an int, bool, float or exact str
                elements = [self.of(e.value) if not isinstance(e, cst.StarredElement) else None
                            for e in expr.right.elements]
                return _STR if all(t is not None and t <= _STR_OF for t in elements) else None
            right = self.of(expr.right)
            if left is None or right is None:
                return None
            return _combine(left, right, lambda a, b: _binary(expr.operator, a, b))
        if isinstance(expr, cst.UnaryOperation):
            if isinstance(expr.operator, cst.Not):
                return _BOOL
            inner = self.of(expr.expression)
            if inner is None:
                return None
            if isinstance(expr.operator, (cst.Minus, cst.Plus)) and inner <= _NUMBERS:
                return frozenset("float" if t == "float" else "int" for t in inner)
            if isinstance(expr.operator, cst.BitInvert) and inner <= _INTLIKE:
                return _INT
            return None
        if isinstance(expr, cst.Subscript):
            return self._subscript(expr)
        if isinstance(expr, cst.NamedExpr):  # ``(w := len(word))`` is the value it binds
            return self.of(expr.value)
        display = _DISPLAYS.get(type(expr))
        return frozenset({display}) if display is not None else None

    def _name(self, expr: cst.Name) -> frozenset[str] | None:
        index = self.index
        found = index.local_scope_of(expr)
        if found is None or expr.value in index.walrus_names:
            return None
        if index.in_dynamic_scope(expr) or index.shares_line(expr):
            return None
        types = index.observed(found[1], expr.value)
        return frozenset(types) if types else None

    def _call(self, expr: cst.Call) -> frozenset[str] | None:
        func = expr.func
        if isinstance(func, cst.Name):
            if func.value not in _FIXED_RESULT and func.value not in ("abs", "round", "str"):
                return None
            if not self.is_builtin(func):
                return None
            fixed = _FIXED_RESULT.get(func.value)
            if fixed is not None:
                return fixed
            args = expr.args
            if any(a.star or a.keyword is not None for a in args):
                return None
            if func.value == "str":
                if not args:
                    return _STR
                arg = self.of(args[0].value) if len(args) == 1 else None
                return _STR if arg is not None and arg <= _STR_OF else None
            if len(args) != 1:
                return None
            arg = self.of(args[0].value)
            if arg is None or not arg <= _NUMBERS:
                return None
            if func.value == "round":  # one argument: int.__round__ and float.__round__ give an int
                return _INT
            return frozenset("float" if t == "float" else "int" for t in arg)  # abs(True) == 1
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if method not in _STR_METHODS and method not in _SEQUENCE_METHODS:
                return None
            receiver = self.of(func.value)
            if receiver == _STR:
                return _STR_METHODS.get(method)
            if receiver is not None and receiver <= {"list", "tuple"}:
                return _SEQUENCE_METHODS.get(method)
        return None

    def _subscript(self, expr: cst.Subscript) -> frozenset[str] | None:
        if len(expr.slice) != 1:
            return None
        value = self.of(expr.value)
        if value is None:
            return None
        is_slice = isinstance(expr.slice[0].slice, cst.Slice)
        out: set[str] = set()
        for t in value:
            if t == "str":
                out.add("str")
            elif t in ("list", "tuple") and is_slice:
                out.add(t)
            else:
                return None
        return frozenset(out)
