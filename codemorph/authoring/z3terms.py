"""One translator of Python expressions (libcst nodes) into Z3 terms, with Python's semantics.

Z3 (de Moura and Bjørner, "Z3: An Efficient SMT Solver", TACAS 2008) follows SMT-LIB for
integer division: ``div`` and ``mod`` are *Euclidean* (the remainder is never negative),
while Python's ``//`` rounds toward negative infinity and ``%`` takes the divisor's sign.
The two agree when the divisor is positive and differ when it is negative
(``7 // -2 == -4`` in Python, ``div(7, -2) == -3`` in Z3).  :func:`floor_div` and
:func:`floor_mod` build Python's operators from Z3's: for a divisor ``b < 0``,
``a // b == (-a) div (-b)`` and ``a % b == -((-a) mod (-b))``; for an unknown divisor
the two cases are joined by ``If(b >= 0, ...)``.  (At ``b == 0`` Python raises
``ZeroDivisionError`` and Z3's value is unspecified; callers that must not evaluate a
failing expression translate with ``division="literal"``.)

:class:`Z3Terms` is the one translator: the proof mode (:mod:`codemorph.verification.proof`),
the perturbation search's Z3 strategy (:mod:`codemorph.perturb.symbolic`) and the dead-code
catalogue's proofs all subclass or configure it.  What a name or a call means is the
caller's business (the hooks :meth:`Z3Terms.name`, :meth:`Z3Terms.call`,
:meth:`Z3Terms.atom`, :meth:`Z3Terms.type_test`); the operators are translated here once.

:func:`load_z3` is how every part of codemorph imports ``z3``: quietly (the ``z3`` package
prints a page of advice and a raw list of loader errors to stdout when ``libz3`` cannot
be loaded, e.g. under a small address-space cap), raising :class:`Z3Unavailable` that
says why.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
from typing import Any

import libcst as cst

__all__ = ["Untranslatable", "Z3Terms", "floor_div", "floor_mod", "int_literal", "load_z3", "Z3Unavailable"]


class Z3Unavailable(ImportError):
    """The ``z3`` module could not be loaded in this process: ``libz3`` failed to load (its
    segments could not be mapped under an address-space cap, say) or the package is
    missing.  The message gives the loader's first error, e.g. ``z3 could not be loaded
    (libz3.so.5.4: failed to map segment from shared object)``."""


#: a loader error in the list the ``z3`` package prints: ``OSError('/path/libz3.so: why')``
_LOADER_ERROR = re.compile(r"OSError\((['\"])(.*?)\1\)")


def load_z3() -> Any:
    """The ``z3`` module, imported without letting it print anything.

    Returns:
        the ``z3`` module (from ``sys.modules`` after the first success).

    Raises:
        Z3Unavailable: ``z3`` could not be imported; nothing was printed (the package's
            advice and its list of loader errors are read for the message instead).
    """
    module = sys.modules.get("z3")
    if module is not None:
        return module
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
            import z3
    except Exception as exc:  # noqa: BLE001 - z3 raises its own Z3Exception, or ImportError
        errors = [m.group(2) for m in _LOADER_ERROR.finditer(printed.getvalue())]
        # the first error naming why a library file was found but not loaded
        found = [e for e in errors if "cannot open shared object file" not in e] or errors
        detail = found[0].rsplit("/", 1)[-1] if found else f"{type(exc).__name__}: {exc}"
        raise Z3Unavailable(f"z3 could not be loaded ({detail})") from None
    return z3


class Untranslatable(Exception):
    """An expression outside the fragment the translator handles; ``str(exc)`` says why."""


def int_literal(node: cst.BaseExpression) -> int | None:
    """Value of an integer literal (``3``, ``-3``, ``(3)``), else ``None``."""
    if isinstance(node, cst.Integer):
        return int(node.evaluated_value)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) \
            and isinstance(node.expression, cst.Integer):
        return -int(node.expression.evaluated_value)
    return None


def floor_div(z3: Any, a: Any, b: Any, divisor: int | None = None) -> Any:
    """Python's ``a // b`` on Z3 integer terms (floor division).

    Args:
        z3: the ``z3`` module.
        a, b: Z3 integer terms.
        divisor: ``b``'s value when it is a literal (then no ``If`` is needed), else ``None``.
    """
    if divisor is not None:
        return a / b if divisor >= 0 else (-a) / (-b)
    return z3.If(b >= 0, a / b, (-a) / (-b))


def floor_mod(z3: Any, a: Any, b: Any, divisor: int | None = None) -> Any:
    """Python's ``a % b`` on Z3 integer terms (the result has the sign of ``b``).

    Args: as :func:`floor_div`.
    """
    if divisor is not None:
        return a % b if divisor >= 0 else -((-a) % (-b))
    return z3.If(b >= 0, a % b, -((-a) % (-b)))


_ORDER = {cst.LessThan: "<", cst.LessThanEqual: "<=", cst.GreaterThan: ">", cst.GreaterThanEqual: ">="}


class Z3Terms:
    """Translate a libcst expression into a Z3 term; raise :class:`Untranslatable` outside
    the fragment.

    The fragment: integer literals, ``True``/``False``, string literals (``strings=True``),
    names and calls (through the hooks :meth:`name` and :meth:`call`, which refuse by
    default), unary ``- + not``, ``+ - *`` on integers, ``+`` on strings, ``//`` and ``%``
    with Python's floor semantics (:func:`floor_div`, :func:`floor_mod`), comparison chains
    (``< <= > >=`` on integers, ``== !=`` on terms of one sort; ``in``/``is`` through
    :meth:`atom` and :meth:`type_test`), and, with ``booleans=True``, ``and``/``or`` and
    conditional expressions over booleans.

    Args:
        z3: the ``z3`` module (imported by the caller, so that importing the kit does not
            load Z3).
        division: ``"literal"`` -- ``//`` and ``%`` only by a nonzero integer literal (the
            expression then cannot raise); ``"any"`` -- any integer divisor (``If`` on its
            sign; a zero divisor is the caller's concern).
        booleans: whether ``term`` may build boolean terms (comparisons, ``not``,
            ``and``/``or``, conditional expressions); without it they are translated only
            by :meth:`condition`, and ``True``/``False`` are the integers 1 and 0.
        strings: whether string literals and ``+`` on strings are translated.

    Attributes:
        short_circuit: set once an ``and``/``or``, a conditional expression or a comparison
            chain was translated (parts of the expression may then not be evaluated).
    """

    def __init__(self, z3: Any, *, division: str = "literal", booleans: bool = True, strings: bool = True) -> None:
        if division not in ("literal", "any"):
            raise ValueError(f"division must be 'literal' or 'any', got {division!r}")
        self.z3 = z3
        self.division = division
        self.booleans = booleans
        self.strings = strings
        self.short_circuit = False

    # -- hooks ---------------------------------------------------------------------
    def name(self, node: cst.Name) -> Any:
        """The term of a variable (``True``/``False`` never reach this); refuses by default."""
        raise Untranslatable(f"name {node.value!r}")

    def call(self, node: cst.Call) -> Any:
        """The term of a call; refuses by default."""
        raise Untranslatable("call outside the Z3 fragment")

    def atom(self, left: cst.BaseExpression, op: str, right: cst.BaseExpression) -> Any:
        """The boolean term of ``left in right`` / ``left is right`` (``op`` is ``"in"`` or
        ``"is"``; negations are taken by the caller); refuses by default."""
        raise Untranslatable(f"comparison {op}")

    def type_test(self, left: cst.BaseExpression, right: cst.BaseExpression) -> Any | None:
        """The boolean term of ``left is right`` when it is a type test the caller decides
        (``type(x) is int``), else ``None`` (then :meth:`atom` is asked)."""
        return None

    # -- entry points ----------------------------------------------------------------
    def __call__(self, node: cst.BaseExpression) -> Any:
        return self.term(node)

    def term(self, node: cst.BaseExpression) -> Any:
        """The Z3 term of ``node`` (raises :class:`Untranslatable`)."""
        z3 = self.z3
        if isinstance(node, cst.Integer):
            return z3.IntVal(int(node.evaluated_value))
        if isinstance(node, cst.SimpleString) and self.strings:
            v = node.evaluated_value
            if not isinstance(v, str):
                raise Untranslatable("bytes literal")
            return z3.StringVal(v)
        if isinstance(node, cst.Name):
            if node.value in ("True", "False"):
                if self.booleans:
                    return z3.BoolVal(node.value == "True")
                return z3.IntVal(1 if node.value == "True" else 0)
            return self.name(node)
        if isinstance(node, cst.UnaryOperation):
            if isinstance(node.operator, cst.Not):
                if not self.booleans:
                    raise Untranslatable("not outside a condition")
                x = self.term(node.expression)
                self.need(x, "bool", "not")
                return z3.Not(x)
            x = self.term(node.expression)
            self.need(x, "int", "unary + / -")
            if isinstance(node.operator, cst.Minus):
                return -x
            if isinstance(node.operator, cst.Plus):
                return x
            raise Untranslatable("operator ~")
        if isinstance(node, cst.BinaryOperation):
            return self.binary(node)
        if isinstance(node, cst.Call):
            return self.call(node)
        if self.booleans:
            if isinstance(node, cst.BooleanOperation):
                self.short_circuit = True
                a, b = self.term(node.left), self.term(node.right)
                self.need(a, "bool", "and/or")
                self.need(b, "bool", "and/or")
                return z3.And(a, b) if isinstance(node.operator, cst.And) else z3.Or(a, b)
            if isinstance(node, cst.IfExp):
                self.short_circuit = True
                t, x, y = self.term(node.test), self.term(node.body), self.term(node.orelse)
                self.need(t, "bool", "conditional test")
                if x.sort() != y.sort():
                    raise Untranslatable("conditional branches of different types")
                return z3.If(t, x, y)
            if isinstance(node, cst.Comparison):
                return self.comparison(node)
        raise Untranslatable(f"{type(node).__name__} is outside the Z3 fragment")

    def condition(self, node: cst.BaseExpression) -> Any:
        """The Z3 boolean of ``node``'s truth value, as ``if node:`` tests it: comparisons,
        ``and``/``or``/``not`` of conditions, a boolean term, or an integer ``!= 0``."""
        z3 = self.z3
        if isinstance(node, cst.Comparison):
            return self.comparison(node)
        if isinstance(node, cst.BooleanOperation):
            a, b = self.condition(node.left), self.condition(node.right)
            return z3.And(a, b) if isinstance(node.operator, cst.And) else z3.Or(a, b)
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            return z3.Not(self.condition(node.expression))
        x = self.term(node)
        if z3.is_bool(x):
            return x
        return x != 0

    # -- pieces ----------------------------------------------------------------------
    def need(self, x: Any, sort: str, what: str) -> None:
        """Refuse unless ``x`` is of ``sort`` (``"int"``, ``"bool"`` or ``"str"``)."""
        z3 = self.z3
        ok = {"int": z3.is_int, "bool": z3.is_bool, "str": z3.is_string}[sort](x)
        if not ok:
            raise Untranslatable(f"{what} on a non-{sort} operand")

    def binary(self, node: cst.BinaryOperation) -> Any:
        """``+ - * // %`` (``+`` on two strings concatenates)."""
        z3 = self.z3
        a, b = self.term(node.left), self.term(node.right)
        op = node.operator
        if isinstance(op, cst.Add) and self.strings and z3.is_string(a) and z3.is_string(b):
            return z3.Concat(a, b)
        self.need(a, "int", type(op).__name__)
        self.need(b, "int", type(op).__name__)
        if isinstance(op, cst.Add):
            return a + b
        if isinstance(op, cst.Subtract):
            return a - b
        if isinstance(op, cst.Multiply):
            return a * b
        if isinstance(op, (cst.FloorDivide, cst.Modulo)):
            divisor = int_literal(node.right)
            if self.division == "literal" and not divisor:
                raise Untranslatable("// or % by something other than a nonzero integer literal")
            return (floor_div if isinstance(op, cst.FloorDivide) else floor_mod)(z3, a, b, divisor)
        raise Untranslatable(f"operator {type(op).__name__}")

    def comparison(self, node: cst.Comparison) -> Any:
        """A comparison chain ``a < b <= c`` as the conjunction of its links (each operand
        translated once)."""
        z3 = self.z3
        parts = []
        left = node.left
        lv = None
        for i, target in enumerate(node.comparisons):
            op = target.operator
            if i > 0:
                self.short_circuit = True
            if isinstance(op, (cst.In, cst.NotIn)):
                a = self.atom(left, "in", target.comparator)
                parts.append(a if isinstance(op, cst.In) else z3.Not(a))
                lv = None
            elif isinstance(op, (cst.Is, cst.IsNot)):
                a = self.type_test(left, target.comparator)
                if a is None:
                    a = self.atom(left, "is", target.comparator)
                parts.append(a if isinstance(op, cst.Is) else z3.Not(a))
                lv = None
            else:
                a = lv if lv is not None else self.term(left)
                b = self.term(target.comparator)
                if a.sort() != b.sort():
                    raise Untranslatable("comparison of operands of different types")
                if isinstance(op, cst.Equal):
                    parts.append(a == b)
                elif isinstance(op, cst.NotEqual):
                    parts.append(a != b)
                else:
                    self.need(a, "int", "ordering comparison")
                    kind = _ORDER.get(type(op))
                    if kind == "<":
                        parts.append(a < b)
                    elif kind == "<=":
                        parts.append(a <= b)
                    elif kind == ">":
                        parts.append(a > b)
                    elif kind == ">=":
                        parts.append(a >= b)
                    else:
                        raise Untranslatable(f"comparison {type(op).__name__}")
                lv = b
            left = target.comparator
        return parts[0] if len(parts) == 1 else z3.And(*parts)
