"""Argument-list literals: parsing and canonical formatting.

An *argument list* is the text between the parentheses of a call, as in CRUXEval's
``input`` field: ``"'abc', [1, 2]"`` means ``f('abc', [1, 2])``.  Keyword arguments
(``"3, sep='-'"``) are accepted too.

Values are literals: ``None``, ``bool``, ``int``, ``float``, ``complex``, ``str``,
``bytes``, and ``tuple``/``list``/``dict``/``set``/``frozenset`` of literals.  Besides what
:func:`ast.literal_eval` accepts, :func:`parse_args` accepts the few call forms that
:func:`format_args` writes for values without a literal ``repr``: ``float('nan')``,
``float('inf')``, ``float('-inf')``, ``complex(<float>, <float>)``, ``set()`` and
``frozenset(<literal>)``.  The text :func:`format_args` writes is canonical and type-exact
(``1`` and ``True`` and ``1.0`` differ; set elements in a canonical order), so two argument
lists are equal values of equal types exactly when their texts are equal.
"""

from __future__ import annotations

import ast
import math
import re
from typing import Any, Iterable

from codemorph.errors import InputError

__all__ = ["parse_args", "format_args", "format_value", "canonical_key"]

_SPECIAL_FLOATS = {"nan", "inf", "-inf", "+inf", "infinity", "-infinity", "+infinity", "+nan", "-nan"}

# ------------------------------------------------------------------------------ parsing
def parse_args(text: str) -> tuple[list, dict]:
    """Parse an argument-list literal.

    Args:
        text: e.g. ``"'abc', [1, 2], sep='-'"`` (the text between the call's parentheses).

    Returns:
        ``(positional values, {keyword: value})``.

    Raises:
        InputError: when ``text`` is not a syntactically valid argument list, or an
            argument is not a literal (the message names the argument and why).
    """
    if not isinstance(text, str):
        raise InputError(f"argument list must be a string, got {type(text).__name__}")
    try:
        tree = ast.parse(f"f({text}\n)", mode="eval")
    except SyntaxError as exc:
        raise InputError(f"not a valid argument list: {text!r}{_own_syntax_error(text, exc)}") from None
    except (ValueError, MemoryError, RecursionError) as exc:
        raise InputError(f"not a valid argument list: {text!r} ({exc})") from None
    call = tree.body
    if not isinstance(call, ast.Call) or not (isinstance(call.func, ast.Name) and call.func.id == "f"):
        raise InputError(f"not a valid argument list: {text!r}")
    args: list = []
    for i, node in enumerate(call.args, 1):
        if isinstance(node, ast.Starred):
            raise InputError(f"argument {i} of {text!r} is unpacked with '*'; only literal arguments are supported")
        args.append(_literal(node, text, f"argument {i}"))
    kwargs: dict = {}
    for kw in call.keywords:
        if kw.arg is None:
            raise InputError(f"{text!r} unpacks keywords with '**'; only literal arguments are supported")
        kwargs[kw.arg] = _literal(kw.value, text, f"keyword argument {kw.arg!r}")
    return args, kwargs


def _own_syntax_error(text: str, exc: SyntaxError) -> str:
    """What the parser's error ``exc`` on ``f(<text>\\n)`` (how :func:`parse_args` parses an
    argument list) says about ``text`` itself, as `` ('[' was never closed)``.

    The wrapping call's ``)`` comes after all of ``text``, so when the parser reports it as
    ``closing parenthesis ')' does not match opening parenthesis '['``, the user's ``[`` is
    still open at the end of ``text``: the message says so, in Python's own words for an
    unclosed bracket, instead of speaking of a parenthesis the user never wrote (unless
    ``text`` alone has such a mismatch, ``[1)``, whose message is then the parser's own).
    ``on line N`` is kept for a text of several lines.  Other messages (``positional
    argument follows keyword argument``, ``unterminated string literal``) are about the
    text as written and are kept."""
    msg = exc.msg
    m = re.fullmatch(r"closing parenthesis '\)' does not match opening parenthesis '(.)'( on line (\d+))?", msg)
    if m is None:
        return f" ({msg})"
    try:
        ast.parse(text, mode="eval")
    except SyntaxError as own:
        if own.msg.startswith("closing parenthesis"):
            return f" ({own.msg})"
    except (ValueError, MemoryError, RecursionError):
        pass
    line = f" on line {m.group(3)}" if m.group(3) and "\n" in text.strip() else ""
    return f" ('{m.group(1)}' was never closed{line})"


def _literal(node: ast.AST, text: str, where: str) -> Any:
    try:
        return _eval_literal(node)
    except _NotLiteral as exc:
        seg = ast.get_source_segment(f"f({text}\n)", exc.node) or ast.dump(exc.node)
        raise InputError(f"{where} of {text!r} is not a literal: {seg!r} ({exc.why})") from None
    except (ValueError, TypeError, RecursionError, MemoryError) as exc:
        raise InputError(f"{where} of {text!r} is not a literal ({exc})") from None


class _NotLiteral(Exception):
    def __init__(self, node: ast.AST, why: str) -> None:
        self.node = node
        self.why = why


def _eval_literal(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant):
        if node.value is Ellipsis:
            raise _NotLiteral(node, "Ellipsis is not supported")
        return node.value
    if isinstance(node, ast.Tuple):
        return tuple(_eval_literal(e) for e in _no_star(node.elts))
    if isinstance(node, ast.List):
        return [_eval_literal(e) for e in _no_star(node.elts)]
    if isinstance(node, ast.Set):
        return {_hashable(_eval_literal(e), e) for e in _no_star(node.elts)}
    if isinstance(node, ast.Dict):
        out = {}
        for k, v in zip(node.keys, node.values):
            if k is None:
                raise _NotLiteral(v, "'**' in a dict display")
            out[_hashable(_eval_literal(k), k)] = _eval_literal(v)
        return out
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _eval_literal(node.operand)
        if type(v) not in (int, float, complex):
            raise _NotLiteral(node, "sign applied to a non-number")
        return -v if isinstance(node.op, ast.USub) else +v
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        left, right = _eval_literal(node.left), _eval_literal(node.right)
        if type(left) in (int, float) and type(right) is complex:
            return left + right if isinstance(node.op, ast.Add) else left - right
        raise _NotLiteral(node, "only complex literals such as 1+2j may use + or -")
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        name, cargs = node.func.id, node.args
        if name == "float" and len(cargs) == 1 and isinstance(cargs[0], ast.Constant) \
                and isinstance(cargs[0].value, str) and cargs[0].value.strip().lower() in _SPECIAL_FLOATS:
            return float(cargs[0].value)
        if name == "set" and not cargs:
            return set()
        if name == "frozenset" and len(cargs) <= 1:
            return frozenset(_eval_literal(cargs[0])) if cargs else frozenset()
        if name == "complex" and len(cargs) == 2:
            re_, im = _eval_literal(cargs[0]), _eval_literal(cargs[1])
            if type(re_) in (int, float) and type(im) in (int, float):
                return complex(re_, im)
        raise _NotLiteral(node, "calls are not allowed except float('nan'/'inf'), set(), frozenset(...), "
                                "complex(x, y)")
    kind = type(node).__name__
    raise _NotLiteral(node, {"Name": "a name", "Attribute": "an attribute", "Lambda": "a lambda"}.get(
        kind, f"a {kind} expression") + " is not a literal")


def _no_star(elts: list) -> list:
    for e in elts:
        if isinstance(e, ast.Starred):
            raise _NotLiteral(e, "'*' unpacking")
    return elts


def _hashable(v: Any, node: ast.AST) -> Any:
    try:
        hash(v)
    except TypeError:
        raise _NotLiteral(node, f"unhashable {type(v).__name__} used as a set element or dict key") from None
    return v


# ---------------------------------------------------------------------------- formatting
def format_value(v: Any) -> str:
    """Source text of one literal value that :func:`parse_args` reads back to an equal
    value of the same types (``float('nan')``, ``set()``, ``frozenset({...})``...).

    Set elements are written in a canonical order, so the text does not depend on
    ``PYTHONHASHSEED``.

    Raises:
        InputError: for a value that is not a literal (e.g. an object).
    """
    return _fmt(v, 0)


def _fmt(v: Any, depth: int) -> str:
    if depth > 200:
        raise InputError("value nests too deeply to format")
    t = type(v)
    if v is None or t in (bool, int, str, bytes):
        return repr(v)
    if t is float:
        if math.isnan(v):
            return "float('nan')"
        if math.isinf(v):
            return "float('inf')" if v > 0 else "float('-inf')"
        return repr(v)
    if t is complex:
        text = repr(v)
        if all(math.isfinite(p) for p in (v.real, v.imag)) and _same_complex(text, v):
            return text
        # e.g. complex(0.0, -1.0), whose repr '-1j' reads back with real part -0.0
        return f"complex({_fmt(v.real, depth + 1)}, {_fmt(v.imag, depth + 1)})"
    if t is tuple:
        if len(v) == 1:
            return f"({_fmt(v[0], depth + 1)},)"
        return "(" + ", ".join(_fmt(e, depth + 1) for e in v) + ")"
    if t is list:
        return "[" + ", ".join(_fmt(e, depth + 1) for e in v) + "]"
    if t is dict:
        return "{" + ", ".join(f"{_fmt(k, depth + 1)}: {_fmt(x, depth + 1)}" for k, x in v.items()) + "}"
    if t is set:
        return "{" + ", ".join(_canonical_elements(v, depth)) + "}" if v else "set()"
    if t is frozenset:
        return "frozenset({" + ", ".join(_canonical_elements(v, depth)) + "})" if v else "frozenset()"
    raise InputError(f"cannot write a {t.__name__} value as a literal")


def _same_complex(text: str, v: complex) -> bool:
    try:
        back = _eval_literal(ast.parse(text, mode="eval").body)
    except (_NotLiteral, SyntaxError, ValueError, TypeError):
        return False
    return type(back) is complex and all(
        a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
        for a, b in ((back.real, v.real), (back.imag, v.imag)))


def _canonical_elements(s: Any, depth: int) -> list[str]:
    # a total order that does not depend on hashing: numbers by value, all else by text
    # (not by value: frozensets compare by inclusion, a partial order)
    def key(p: tuple[str, Any]) -> tuple:
        text, e = p
        num = e if type(e) in (int, float, bool) and e == e else 0
        return (type(e).__name__, num, text)

    return [t for t, _ in sorted(((_fmt(e, depth + 1), e) for e in s), key=key)]


def format_args(args: Iterable[Any], kwargs: dict | None = None) -> str:
    """Inverse of :func:`parse_args`: ``format_args([1, 'a'], {'sep': '-'}) == "1, 'a', sep='-'"``.

    Round-trips non-literal-repr floats (``float('nan')``, ``float('inf')``), empty sets
    (``set()``) and nested containers.

    Raises:
        InputError: for a value that is not a literal, or a keyword that is not an identifier.
    """
    parts = [_fmt(a, 0) for a in args]
    for k, v in (kwargs or {}).items():
        if not isinstance(k, str) or not k.isidentifier():
            raise InputError(f"keyword {k!r} is not an identifier")
        parts.append(f"{k}={_fmt(v, 0)}")
    return ", ".join(parts)


def canonical_key(v: Any) -> tuple[str, str]:
    """``(type name, canonical text)`` of a literal value: a sort key that orders the
    elements of a set the same way in every process (independent of ``PYTHONHASHSEED``),
    and tells values of different types apart (``1``, ``1.0``, ``True``)."""
    return (type(v).__name__, _fmt(v, 0))
