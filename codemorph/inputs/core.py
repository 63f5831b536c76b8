"""Argument-list literals: parsing, formatting and type-preserving mutation.

An *argument list* is the text between the parentheses of a call, as in CRUXEval's
``input`` field: ``"'abc', [1, 2]"`` means ``f('abc', [1, 2])``.  Keyword arguments
(``"3, sep='-'"``) are accepted too.

Values are literals: ``None``, ``bool``, ``int``, ``float``, ``complex``, ``str``,
``bytes``, and ``tuple``/``list``/``dict``/``set``/``frozenset`` of literals.  Besides what
:func:`ast.literal_eval` accepts, :func:`parse_args` accepts the few call forms that
:func:`format_args` writes for values without a literal ``repr``: ``float('nan')``,
``float('inf')``, ``float('-inf')``, ``complex(<float>, <float>)``, ``set()`` and
``frozenset(<literal>)``.

Mutation operators of :func:`mutate_args` (each mutant starts from the seed and changes one
argument, sometimes two; a changed container may have one of its elements changed in turn,
down to depth 3).  Every operator keeps the exact type of the value it changes, and new
container elements are copies or mutants of elements already in that container, so
containers keep the element types seen in the seed (an empty seed container stays empty):

* ``bool``: negation.
* ``int``: 0, 1, -1, ``v±1``, ``v±2..5``, ``-v``, ``v*2``, ``v//2``, and the program's integer
  literals ``c``, ``c+1`` and ``c-1``.
* ``float``: 0.0, 1.0, -1.0, ``v±0.5``, ``v±1``, ``-v``, ``v*2``, ``v/2``, and the program's
  numeric literals.
* ``complex``: one of the two parts changed as a float.
* ``str`` (and ``bytes`` alike): empty; one character inserted, deleted, replaced or
  duplicated; two neighbours swapped; reversed; case changed (upper, lower, swapcase,
  capitalize); whitespace inserted or put at either end, or a character replaced by a
  space; a single character; the program's string literals inserted, or replacing the
  whole value; resized to a length ``c-1``, ``c`` or ``c+1`` for a program integer literal
  ``c`` (reaches branches such as ``len(s) > 3``).  Characters come from the seed's strings, the program's literals and a few
  letters, digits and punctuation.
* ``list`` (and ``tuple`` whose elements all have one type): an element changed, deleted,
  inserted (a copy or mutant of an existing element), two elements swapped, truncated,
  grown by 1-4 elements, emptied, reduced to one element, resized to a length taken from
  the program's integer literals (as for strings).  A tuple of mixed types (a
  record) only gets its elements changed, or two of the same type swapped.
* ``dict``: a value changed, a key deleted, a new key added (mutant of an existing key with
  a copy or mutant of an existing value), a key renamed, two items swapped in order,
  emptied, reduced to one item.
* ``set``/``frozenset``: an element deleted, added or replaced, emptied, one element.
* ``None``: unchanged.

Cross-argument operators (a share :data:`CROSS_SHARE` of the mutants of a seed with two or
more arguments, sometimes after one ordinary mutation): bugs such as an off-by-one index,
a missed key or a wrong search direction only show on inputs whose arguments are related,
which independent mutation of each argument rarely produces.  An ``int`` argument becomes
a boundary index of another argument (``-n-1``, ``-n``, ``-1``, ``0``, ``n//2``, ``n-1``,
``n``, ``n+1`` for its length ``n``); an argument becomes a value of its exact type taken
from inside another one (a dict key, a list element); a ``str``/``bytes`` argument becomes
a substring of another, or of a string inside another (a prefix of a list element); another argument's value is planted inside a container or string
argument (so the needle is in the haystack); two arguments of one type are made equal.
The same type and size rules hold (:func:`type_paths` of the result within the seed's).

Systematic edge cases (:func:`edge_cases`): a share :data:`EDGE_SHARE` of the mutants
of a request for at least :data:`EDGE_MIN_REQUEST` is drawn, round-robin over categories, from a
deterministic list of inputs that random edits reach only by chance: case variants, a
character repeated, a space at either end, digits or spaces only, a character of a class the
program's calls test (``hints``: a digit for ``isdecimal``, a letter of the other case for
``lower``) at the start, middle or end, a program literal alone, at either end, at both ends
or in the middle, prefixes and suffixes of another argument, boundary indices of another
argument and arguments equal to another or one character away from it (taken in ranked
order, :data:`RANKED`), two arguments changed at once (an empty ``chars`` with a trailing
space in ``text``); a short seed (``'ru'``) also gets edge cases of its edge cases.

Sizes stay small: a mutant container or string is never longer than its seed plus 4.
A mutant never equals the seed (compared by its canonical text, which is type-exact), and
mutants are distinct.  Mutation is deterministic for a given state of ``rng`` and does not
depend on ``PYTHONHASHSEED`` (sets are visited in a canonical order).
"""

from __future__ import annotations

import ast
import itertools
import math
import random
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from codemorph.errors import InputError

__all__ = ["parse_args", "format_args", "format_value", "mutate_args", "type_paths", "MAX_GROWTH", "CROSS_SHARE",
           "coverage_additions", "GuidedResult", "GUIDED_MAX", "GUIDED_EXECUTIONS", "edge_cases", "EDGE_SHARE",
           "EDGE_MIN_REQUEST", "EDGE_FILL", "CLASS_CALLS", "RANKED"]

#: A mutant container or string is at most this much longer than its seed.
MAX_GROWTH = 4
#: Share of the mutants of a multi-argument seed made by a cross-argument operator.
CROSS_SHARE = 0.35
_MAX_DEPTH = 3
_DEFAULT_CHARS = "aZ0 _-.,!x9"
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
        raise InputError(f"not a valid argument list: {text!r} ({exc.msg})") from None
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


# ------------------------------------------------------------------------------ mutation
def _canon_key(v: Any) -> tuple:
    return (type(v).__name__, _fmt(v, 0))


class _Pool:
    """Constants a mutant may draw from: the program's literals and the seed's characters."""

    def __init__(self, literals: Iterable[Any], seed_values: Iterable[Any], hints: Iterable[str] = ()) -> None:
        #: names of the methods and functions the program calls (:func:`_class_chars`)
        self.hints = frozenset(h for h in hints if isinstance(h, str))
        lits = []
        for x in literals:
            if type(x) in (int, float, str, bytes, bool):
                lits.append(x)
        # in order of appearance (edge cases use the first few), deduplicated by exact type
        self.ordered = list({_canon_key(x): x for x in lits}.values())
        lits = sorted({_canon_key(x): x for x in lits}.items())
        self.ints = [x for _, x in lits if type(x) is int]
        self.floats = [x for _, x in lits if type(x) is float and math.isfinite(x)] + [float(i) for i in self.ints]
        self.strs = [x for _, x in lits if type(x) is str]
        self.bytes = [x for _, x in lits if type(x) is bytes]
        chars: dict[str, None] = {}
        for s in self.strs:
            chars.update(dict.fromkeys(s))
        for s in _strings_in(seed_values):
            chars.update(dict.fromkeys(s))
        chars.update(dict.fromkeys(_DEFAULT_CHARS))
        self.chars = list(chars)
        byts: dict[int, None] = {}
        for b in self.bytes:
            byts.update(dict.fromkeys(b))
        byts.update(dict.fromkeys(_DEFAULT_CHARS.encode()))
        self.byte_values = list(byts)


def _strings_in(values: Iterable[Any], depth: int = 0) -> Iterable[str]:
    for v in values:
        t = type(v)
        if t is str:
            yield v
        elif depth < 20:
            if t in (list, tuple):
                yield from _strings_in(v, depth + 1)
            elif t in (set, frozenset):
                yield from _strings_in(sorted(v, key=_canon_key), depth + 1)
            elif t is dict:
                yield from _strings_in(list(v.keys()) + list(v.values()), depth + 1)


def _literal_lengths(pool: _Pool, n: int) -> list[int]:
    """Lengths ``c-1, c, c+1`` for the program's integer literals ``c``, other than ``n``
    and within ``0..n + MAX_GROWTH`` (to reach branches such as ``len(x) > 3``)."""
    out = {c + d for c in pool.ints for d in (-1, 0, 1)}
    return sorted(k for k in out if 0 <= k <= n + MAX_GROWTH and k != n)


def _mut_int(v: int, rng: random.Random, pool: _Pool) -> int:
    ops = [0, 1, -1, v + 1, v - 1, v + rng.randint(2, 5), v - rng.randint(2, 5), -v, v * 2, v // 2]
    for c in pool.ints:
        ops += [c, c + 1, c - 1]
    return rng.choice(ops)


def _mut_float(v: float, rng: random.Random, pool: _Pool) -> float:
    ops = [0.0, 1.0, -1.0, v + 0.5, v - 0.5, v + 1.0, v - 1.0, -v, v * 2.0, v / 2.0]
    # IEEE-754 specials: a rewrite of a comparison (`a < b` -> `not a >= b`) is wrong only on NaN
    ops += [math.nan, math.inf, -math.inf, -0.0]
    ops += pool.floats
    return float(rng.choice(ops))


def _mut_seq_text(v, rng: random.Random, alphabet: list, literals: list, empty, limit: int,
                  lengths: list[int]):
    """Edits shared by str and bytes; ``alphabet`` holds one-element values of v's type."""
    n = len(v)
    ops = ["empty", "insert", "single", "space_end", "space_insert"]
    if n:
        ops += ["delete", "replace", "dup", "case", "space_replace"]
    if n >= 2:
        ops += ["swap", "reverse"]
    fitting = [s for s in literals if len(s) <= limit]
    if fitting:
        ops += ["lit_insert", "lit_whole"]
    lengths = [k for k in lengths if k <= limit]
    if lengths:
        ops.append("resize")
    op = rng.choice(ops)
    whitespace = [" ", "  ", "\t", "\n"] if isinstance(v, str) else [b" ", b"  ", b"\t", b"\n"]
    space = whitespace[0]
    if op == "empty":
        return empty
    if op == "insert" and n < limit:
        i = rng.randint(0, n)
        return v[:i] + rng.choice(alphabet) + v[i:]
    if op == "single":
        if not n or rng.random() < 0.5:
            return rng.choice(alphabet)
        i = rng.randrange(n)
        return v[i:i + 1]  # a slice: indexing bytes would give an int
    if op == "space_end" and n < limit:
        return space + v if rng.random() < 0.5 else v + space
    if op == "space_insert" and n < limit:
        i = rng.randint(0, n)
        return v[:i] + rng.choice(whitespace)[:limit - n] + v[i:]
    if op == "delete":
        i = rng.randrange(n)
        return v[:i] + v[i + 1:]
    if op == "replace":
        i = rng.randrange(n)
        return v[:i] + rng.choice(alphabet) + v[i + 1:]
    if op == "dup" and n < limit:
        i = rng.randrange(n)
        return v[:i + 1] + v[i:]
    if op == "case":
        return rng.choice([v.upper(), v.lower(), v.swapcase(), v.capitalize()])
    if op == "space_replace":
        i = rng.randrange(n)
        return v[:i] + space + v[i + 1:]
    if op == "swap":
        i = rng.randrange(n - 1)
        return v[:i] + v[i + 1:i + 2] + v[i:i + 1] + v[i + 2:]
    if op == "reverse":
        return v[::-1]
    if op == "resize":
        k = rng.choice(lengths)
        if k <= n:
            return v[:k]
        grown = v
        while len(grown) < k:
            grown += v[rng.randrange(n):][:1] if n and rng.random() < 0.5 else rng.choice(alphabet)
        return grown
    if op == "lit_whole":
        return rng.choice(fitting)
    if op == "lit_insert":
        lit = rng.choice(fitting)
        room = limit - len(lit)
        if room >= 0:
            # keep as much of the seed as fits around the literal
            keep = v[:room] if n > room else v
            i = rng.randint(0, len(keep))
            return keep[:i] + lit + keep[i:]
    return v  # an operator that could not apply (size limit): the caller retries


def _mut_str(v: str, rng: random.Random, pool: _Pool, limit: int) -> str:
    return _mut_seq_text(v, rng, pool.chars, pool.strs, "", limit, _literal_lengths(pool, len(v)))


def _mut_bytes(v: bytes, rng: random.Random, pool: _Pool, limit: int) -> bytes:
    alphabet = [bytes([b]) for b in pool.byte_values]
    return _mut_seq_text(v, rng, alphabet, pool.bytes, b"", limit, _literal_lengths(pool, len(v)))


def _new_element(elems: list, rng: random.Random, pool: _Pool, depth: int) -> Any:
    e = rng.choice(elems)
    return e if rng.random() < 0.3 else _mutate(e, rng, pool, depth + 1)


def _mut_list(v: list, rng: random.Random, pool: _Pool, depth: int, resizable: bool = True) -> list:
    n = len(v)
    if not n:
        return []
    limit = n + MAX_GROWTH
    ops = ["elem", "elem"]
    lengths = _literal_lengths(pool, n) if resizable else []
    if resizable:
        ops += ["delete", "insert", "truncate", "grow", "empty", "single"]
        if n >= 2:
            ops.append("swap")
        if lengths:
            ops.append("resize")
    elif n >= 2:
        # records: swap only positions holding the same type
        same = [(i, j) for i in range(n) for j in range(i + 1, n) if type(v[i]) is type(v[j])]
        if same:
            ops.append("swap")
    op = rng.choice(ops)
    out = list(v)
    if op == "elem":
        i = rng.randrange(n)
        out[i] = _mutate(out[i], rng, pool, depth + 1)
    elif op == "delete":
        del out[rng.randrange(n)]
    elif op == "insert":
        out.insert(rng.randint(0, n), _new_element(v, rng, pool, depth))
    elif op == "swap":
        if resizable:
            i, j = rng.sample(range(n), 2)
        else:
            i, j = rng.choice([(i, j) for i in range(n) for j in range(i + 1, n) if type(v[i]) is type(v[j])])
        out[i], out[j] = out[j], out[i]
    elif op == "truncate":
        out = out[:rng.randrange(n)]
    elif op == "grow":
        for _ in range(rng.randint(1, MAX_GROWTH)):
            out.append(_new_element(v, rng, pool, depth))
    elif op == "empty":
        out = []
    elif op == "single":
        out = [rng.choice(v)]
    elif op == "resize":
        k = rng.choice(lengths)
        out = out[:k]
        while len(out) < k:
            out.append(_new_element(v, rng, pool, depth))
    return out[:limit]


def _mut_dict(v: dict, rng: random.Random, pool: _Pool, depth: int) -> dict:
    n = len(v)
    if not n:
        return {}
    items = list(v.items())
    ops = ["value", "value", "delete", "new_key", "rename", "empty", "single"]
    if n >= 2:
        ops.append("reorder")
    op = rng.choice(ops)
    if op == "value":
        i = rng.randrange(n)
        k, x = items[i]
        items[i] = (k, _mutate(x, rng, pool, depth + 1))
    elif op == "delete":
        del items[rng.randrange(n)]
    elif op in ("new_key", "rename"):
        keys = [k for k, _ in items]
        for _ in range(8):
            k = _mutate(rng.choice(keys), rng, pool, depth + 1)
            if _is_hashable(k) and k not in v:
                break
        else:
            return dict(items)
        if op == "new_key":
            items.insert(rng.randint(0, n), (k, _new_element([x for _, x in items], rng, pool, depth)))
        else:
            i = rng.randrange(n)
            items[i] = (k, items[i][1])
    elif op == "reorder":
        i, j = rng.sample(range(n), 2)
        items[i], items[j] = items[j], items[i]
    elif op == "empty":
        items = []
    elif op == "single":
        items = [rng.choice(items)]
    return dict(items[:n + MAX_GROWTH])


def _mut_set(v: Any, rng: random.Random, pool: _Pool, depth: int) -> Any:
    t = type(v)
    elems = sorted(v, key=_canon_key)
    n = len(elems)
    if not n:
        return t()
    op = rng.choice(["delete", "add", "replace", "empty", "single"])
    out = list(elems)
    if op in ("add", "replace"):
        for _ in range(8):
            e = _mutate(rng.choice(elems), rng, pool, depth + 1)
            if _is_hashable(e) and e not in v:
                break
        else:
            return t(out)
        if op == "replace":
            del out[rng.randrange(n)]
        out.append(e)
    elif op == "delete":
        del out[rng.randrange(n)]
    elif op == "empty":
        out = []
    elif op == "single":
        out = [rng.choice(elems)]
    return t(out)


def _is_hashable(x: Any) -> bool:
    try:
        hash(x)
    except TypeError:
        return False
    return True


def _mutate(v: Any, rng: random.Random, pool: _Pool, depth: int) -> Any:
    """A value of exactly ``type(v)``, usually different from ``v``."""
    t = type(v)
    if t is bool:
        return not v
    if t is int:
        return _mut_int(v, rng, pool)
    if t is float:
        return _mut_float(v, rng, pool)
    if t is complex:
        if rng.random() < 0.5:
            return complex(_mut_float(v.real, rng, pool), v.imag)
        return complex(v.real, _mut_float(v.imag, rng, pool))
    if t is str:
        return _mut_str(v, rng, pool, len(v) + MAX_GROWTH)
    if t is bytes:
        return _mut_bytes(v, rng, pool, len(v) + MAX_GROWTH)
    if depth >= _MAX_DEPTH:
        return v
    if t is list:
        return _mut_list(v, rng, pool, depth)
    if t is tuple:
        homogeneous = len({type(e) for e in v}) == 1
        return tuple(_mut_list(list(v), rng, pool, depth, resizable=homogeneous))
    if t is dict:
        return _mut_dict(v, rng, pool, depth)
    if t in (set, frozenset):
        return _mut_set(v, rng, pool, depth)
    return v


# ------------------------------------------------------------------ cross-argument mutation
def type_paths(v: Any, prefix: tuple = (), depth: int = 0) -> frozenset:
    """Every root-to-node path of type names in ``v``, e.g. ``[1, 'a']`` gives
    ``{('list',), ('list', 'int'), ('list', 'str')}`` (dict keys and values are marked
    ``'key'``/``'value'``).  A mutant is type-preserving when its paths are a subset of the
    seed's: it has the seed's type and only element types seen in the seed."""
    p = prefix + (type(v).__name__,)
    out = {p}
    if depth < 20:
        t = type(v)
        if t in (list, tuple, set, frozenset):
            for e in v:
                out |= type_paths(e, p, depth + 1)
        elif t is dict:
            for k, x in v.items():
                out |= type_paths(k, p + ("key",), depth + 1)
                out |= type_paths(x, p + ("value",), depth + 1)
    return frozenset(out)


_SIZED = (str, bytes, list, tuple, dict, set, frozenset)


def _atoms_of(v: Any, depth: int = 0) -> list:
    """Values nested in ``v`` (elements, dict keys and values, recursively to depth 2),
    in a canonical order; ``v`` itself is not included."""
    out: list = []
    if depth >= 2:
        return out
    t = type(v)
    if t in (list, tuple):
        items = list(v)
    elif t in (set, frozenset):
        items = sorted(v, key=_canon_key)
    elif t is dict:
        items = [x for kv in v.items() for x in kv]
    else:
        return out
    for e in items:
        out.append(e)
        out += _atoms_of(e, depth + 1)
    return out


def _substrings(s: Any, rng: random.Random, limit: int) -> Any:
    """A random non-empty substring of ``s`` (str or bytes) no longer than ``limit``:
    one element, a prefix, a suffix or a slice; ``None`` when none fits."""
    n = len(s)
    if not n or limit <= 0:
        return None
    op = rng.choice(["one", "prefix", "suffix", "slice", "slice"])
    k = rng.randint(1, min(n, limit))
    if op == "one":
        i = rng.randrange(n)
        return s[i:i + 1]
    if op == "prefix":
        return s[:k]
    if op == "suffix":
        return s[n - k:]
    i = rng.randint(0, n - k)
    return s[i:i + k]


def _cross(values: list, seeds: list, rng: random.Random) -> tuple[int, Any] | None:
    """One cross-argument operator applied to the argument values ``values`` (the seed
    values are ``seeds``, same order): returns ``(index of the changed argument, its new
    value)`` or ``None`` when the chosen operator does not apply.

    Operators (the bugs they expose need arguments that are related to each other):

    * ``index``: an ``int`` argument set to ``-n-1``, ``-n``, ``-1``, ``0``, ``n-1``, ``n``
      or ``n+1`` where ``n`` is the length of another argument (``xs[i]`` on its last
      element, ``s[:i]`` at the edges);
    * ``pick``: an argument set to a value of exactly its type found inside another
      argument (a key of a dict argument, an element of a list argument);
    * ``substring``: a ``str``/``bytes`` argument set to a substring (a prefix, a suffix, a
      slice, one character) of another one or of a string inside another one;
    * ``plant``: another argument made to contain this argument's value (inserted into
      a list, added as a dict key or set element, inserted into a string);
    * ``equal``: an argument set to a copy of another argument of the same type.
    """
    n = len(values)
    i, j = rng.sample(range(n), 2)  # i changes, j is the reference
    vi, vj = values[i], values[j]
    ti, tj = type(vi), type(vj)
    ops = []
    if ti is int and tj in _SIZED:
        ops.append("index")
    if tj in (list, tuple, set, frozenset, dict) and any(type(a) is ti for a in _atoms_of(vj)):
        ops.append("pick")
    texts = [a for a in ([vj] + _atoms_of(vj)) if type(a) is ti and a] if ti in (str, bytes) else []
    if texts:
        ops.append("substring")
    if ti in (list, tuple, set, frozenset, dict, str, bytes) and vi:
        ops.append("plant")
    if ti is tj:
        ops.append("equal")
    if not ops:
        return None
    op = rng.choice(ops)
    if op == "index":
        m = len(vj)
        return i, rng.choice([-m - 1, -m, -1, 0, m - 1, m, m + 1, m // 2])
    if op == "pick":
        return i, rng.choice([a for a in _atoms_of(vj) if type(a) is ti])
    if op == "substring":
        sub = _substrings(rng.choice(texts), rng, len(seeds[i]) + MAX_GROWTH)
        return None if sub is None else (i, sub)
    if op == "equal":
        return i, vj
    # plant: put vj (or, for strings, a part of it) inside vi
    if ti in (str, bytes):
        if tj is not ti:
            return None
        room = len(seeds[i]) + MAX_GROWTH - len(vi)
        part = vj if 0 < len(vj) <= room else _substrings(vj, rng, room)
        if part is None:
            return None
        k = rng.randint(0, len(vi))
        return i, vi[:k] + part + vi[k:]
    if ti in (list, tuple):
        if not any(type(e) is tj for e in vi):
            return None
        out = list(vi)
        k = rng.randrange(len(out))
        if rng.random() < 0.5:
            out[k] = vj
        else:
            out.insert(k, vj)
        return i, ti(out)
    if ti in (set, frozenset):
        if not _is_hashable(vj) or vj in vi or not any(type(e) is tj for e in vi):
            return None
        return i, ti(list(vi) + [vj])
    # dict: vj becomes a key (with a copy of an existing value) when keys have its type
    if not _is_hashable(vj) or not any(type(k) is tj for k in vi):
        return None
    items = list(vi.items())
    if vj in vi:
        return None
    items.insert(rng.randint(0, len(items)), (vj, rng.choice(items)[1]))
    return i, dict(items)


def _fits(new: Any, seed: Any) -> bool:
    """Type-preserving (paths within the seed's) and at most :data:`MAX_GROWTH` longer."""
    if type(new) is not type(seed) or not type_paths(new) <= type_paths(seed):
        return False
    return not isinstance(seed, _SIZED) or len(new) <= len(seed) + MAX_GROWTH



# ------------------------------------------------------------------ systematic edge cases
#: Share of the mutants of :func:`mutate_args` taken from :func:`edge_cases` (the rest are
#: random), for requests of at least :data:`EDGE_MIN_REQUEST` mutants.
EDGE_SHARE = 0.7
#: Smallest request of :func:`mutate_args` that gets edge cases (coverage-guided rounds ask
#: for one mutant at a time: random ones).
EDGE_MIN_REQUEST = 5
#: A short seed (:func:`_short`) with fewer edge cases than this gets edge cases of its edge
#: cases up to this many (:func:`_second_generation`): the edge-case share of the default
#: request (49 mutants).  A larger request (the mutation benchmark's oracle asks for 499) gets
#: no more of them than that: its extra room stays with random mutants.
EDGE_FILL = 34
#: A seed is short when every string (bytes) argument has at most this many characters and
#: every container argument at most :data:`SHORT_ELEMENTS` elements.
SHORT_CHARS = 3
SHORT_ELEMENTS = 2


def _short(values: list) -> bool:
    """Every argument is short (see :data:`SHORT_CHARS`): a seed such as ``'ru'`` or
    ``'!?', ''``, whose one-step neighbours are few.  For a longer seed measurement showed no
    gain from the second generation: it takes the room of random mutants, which find as much
    there (on CRUXEval, tuples of pairs and 6-element lists lost a mutant each)."""
    for v in values:
        if isinstance(v, (str, bytes)) and len(v) > SHORT_CHARS:
            return False
        if isinstance(v, (list, tuple, dict, set, frozenset)) and len(v) > SHORT_ELEMENTS:
            return False
    return True
_EDGE_LITERALS = 6  # program string literals used per string value
_EDGE_CHARS = 3  # distinct characters of a string doubled ('gg')


def _text_edges(v: Any, pool: _Pool, limit: int) -> list[tuple[str, Any]]:
    """``(category, value)`` edge cases of one ``str``/``bytes`` value ``v``, at most
    ``limit`` long (see :func:`edge_cases`)."""
    is_str = type(v) is str
    sp = " " if is_str else b" "
    empty = "" if is_str else b""
    lits = [x for x in pool.ordered if type(x) is type(v) and x][:_EDGE_LITERALS]
    n = len(v)
    out: list[tuple[str, Any]] = [("empty", empty)]
    if n:
        out += [("empty", v[:1]), ("empty", v[-1:])]
    out += [("case", v.upper()), ("case", v.lower()), ("case", v.swapcase()), ("case", v.title()),
            ("case", v.capitalize())]
    chars = list(dict.fromkeys(v[i:i + 1] for i in range(n)))[:_EDGE_CHARS]
    one_char_lits = [x for x in lits if len(x) == 1]
    for c in chars + [sp] + one_char_lits:
        out.append(("repeat", c * 2))
    if n:
        # the most frequent character alone and doubled at the start (what count/replace/split see)
        top = max(chars, key=lambda c: (v.count(c), -v.index(c)))
        out.append(("repeat", top * 3))
        # the first or the last character doubled in place (two equal neighbours)
        out += [("repeat", v[:1] + v), ("repeat", v + v[-1:])]
    out += [("space", v + sp), ("space", sp + v), ("space", sp), ("space", sp + v + sp)]
    digits = "0123456789" if is_str else b"0123456789"
    if n:
        out += [("class", (digits * (n // 10 + 1))[:n]), ("class", sp * n)]
    out.append(("class", digits[9:10]))
    out += [("directed", x) for x in _directed_edges(v, pool.hints)]
    for lit in lits:
        room = limit - len(lit)
        if room < 0:
            continue
        keep = v[:room]
        half = len(keep) // 2
        out += [("literal", lit), ("literal", lit + keep), ("literal", keep + lit),
                ("literal", keep[:half] + lit + keep[half:])]
        if room >= len(lit):
            out.append(("literal", lit * 2))
            both = v[:room - len(lit)]
            out.append(("literal", lit + both + lit))
    return [(c, x) for c, x in out if len(x) <= limit]


#: character classes that a program's calls test (``isdecimal``, ``strip``...), by class:
#: the calls that test it (see :func:`_class_chars`)
CLASS_CALLS: dict[str, frozenset[str]] = {
    "digit": frozenset({"isdecimal", "isdigit", "isnumeric"}),
    "case": frozenset({"isupper", "islower", "istitle", "upper", "lower", "capitalize", "swapcase", "title",
                       "casefold"}),
    "space": frozenset({"isspace", "strip", "lstrip", "rstrip", "split", "rsplit", "splitlines", "expandtabs"}),
    "symbol": frozenset({"isalpha", "isalnum", "isidentifier"}),
    "ascii": frozenset({"isascii"}),
}


def _class_chars(v: Any, hints: frozenset[str]) -> list[Any]:
    """One-character values (of ``v``'s type, str or bytes) of the character classes that
    the program's calls ``hints`` test and that ``v`` lacks: a digit for ``isdecimal``/
    ``isdigit``/``isnumeric`` when ``v`` has none; for case methods (``isupper``, ``lower``,
    ``capitalize``...) the first two distinct cased characters of ``v`` with their case
    swapped (``'a'`` and ``'A'`` when ``v`` has none); for ``isspace``/``strip``/``split``/
    ``splitlines``... a space and a newline when ``v`` has none; for ``isalpha``/``isalnum``/
    ``isidentifier`` ``'!'`` and ``'_'`` when every character of ``v`` is alphanumeric; for
    ``isascii`` ``'é'`` when ``v`` is ASCII (str only)."""
    if not hints:
        return []
    text = v if type(v) is str else v.decode("latin-1")
    out: list[str] = []
    if hints & CLASS_CALLS["digit"] and not any(c.isdigit() for c in text):
        out.append("5")
    if hints & CLASS_CALLS["case"]:
        cased = list(dict.fromkeys(c for c in text if c.swapcase() != c and len(c.swapcase()) == 1))[:2]
        out += [c.swapcase() for c in cased] if cased else ["a", "A"]
    if hints & CLASS_CALLS["space"]:
        out += [c for c in (" ", "\n") if c not in text]
    if hints & CLASS_CALLS["symbol"] and all(c.isalnum() for c in text):
        out += ["!", "_"]
    if hints & CLASS_CALLS["ascii"] and type(v) is str and text.isascii():
        out.append("\u00e9")
    if type(v) is bytes:
        return [c.encode("latin-1") for c in out if ord(c) < 128]
    return out


def _directed_edges(v: Any, hints: frozenset[str]) -> list[Any]:
    """Program-directed edge cases of a str/bytes ``v``: each character of
    :func:`_class_chars` put at the start, in the middle and at the end of ``v`` (a seed
    text without a digit for a program that tests ``isdecimal``; an upper-case letter in a
    lower-case text for one that compares ``ch == ch.lower()``)."""
    out = []
    half = len(v) // 2
    for c in _class_chars(v, hints):
        out += [c + v, v[:half] + c + v[half:], v + c]
    return out


def _value_edges(v: Any, pool: _Pool, limit_extra: int = MAX_GROWTH, depth: int = 0) -> list[tuple[str, Any]]:
    """``(category, value)`` edge cases of one argument value (see :func:`edge_cases`)."""
    t = type(v)
    if t is bool:
        return [("bool", not v)]
    if t is int:
        out = [("int", x) for x in (0, 1, -1, v - 1, v + 1)]
        for c in [x for x in pool.ordered if type(x) is int][:8]:
            out += [("literal", c - 1), ("literal", c), ("literal", c + 1)]
        return out
    if t is float:
        return [("float", x) for x in (0.0, 1.0, -1.0, v - 1.0, v + 1.0, -v, math.nan, math.inf)]
    if t in (str, bytes):
        return _text_edges(v, pool, len(v) + limit_extra)
    if depth >= 1:
        return []
    if t in (list, tuple):
        n = len(v)
        if not n:
            return []
        items = list(v)
        homogeneous = len({type(e) for e in items}) == 1
        out = []
        if homogeneous:
            out += [("empty", []), ("empty", items[:1]), ("empty", items[-1:]), ("list", items[:2]),
                    ("list", items[::-1]), ("list", items + items[-1:]), ("list", items[:1] + items)]
            try:
                out.append(("list", sorted(items)))
            except TypeError:
                pass
            if type(items[0]) is int:
                out.append(("list", [items[0], items[0] + 1]))
                out.append(("list", [items[0], items[0] + 1] + items[1:]))
        # the edge cases of the first, the last and the longest element (in place)
        longest = max(range(n), key=lambda k: (len(items[k]) if type(items[k]) in _SIZED else 0, -k))
        for k in dict.fromkeys((0, n - 1, longest)):
            for cat, x in _value_edges(items[k], pool, limit_extra, depth + 1):
                out.append((cat, items[:k] + [x] + items[k + 1:]))
        return [(c, t(x)) for c, x in out]
    if t is dict:
        items = list(v.items())
        if not items:
            return []
        out = [("empty", {}), ("empty", dict(items[:1])), ("empty", dict(items[-1:]))]
        k0, x0 = items[0]
        for cat, x in _value_edges(x0, pool, limit_extra, depth + 1):
            out.append((cat, {**v, k0: x}))
        return out
    if t in (set, frozenset):
        elems = sorted(v, key=_canon_key)
        if not elems:
            return []
        return [("empty", t()), ("empty", t(elems[:1])), ("empty", t(elems[-1:]))]
    return []


def _cross_edges(vi: Any, vj: Any, seed_i: Any) -> list[tuple[str, Any]]:
    """``(category, value)`` for an argument ``vi`` related to another argument ``vj``.

    ``cross``: prefixes, suffixes, the most frequent character and the whole of a string
    ``vj`` (or of a string inside it); an element of ``vj``; ``vj`` planted at either end of
    a container or string ``vi``.  ``index``: boundary indices ``len-1``, ``len``,
    ``len+1``, ``-len``, ``-len-1``, ``-1``, ``0``, ``len//2`` for an ``int`` and a sized
    ``vj``.  ``relate`` (:func:`_relation_edges`): ``vi`` equal to ``vj`` or one step from
    it."""
    ti, tj = type(vi), type(vj)
    out: list[tuple[str, Any]] = []
    if ti in (str, bytes):
        texts = [a for a in [vj] + _atoms_of(vj) if type(a) is ti and a][:4]
        limit = len(seed_i) + MAX_GROWTH
        for s in texts:
            n = len(s)
            if s is not vj or ti is not tj:
                out.append(("cross", s))
            for k in (1, 2, 3, max(1, len(vi)), limit):  # limit: the longest prefix that fits
                if k < n:
                    out += [("cross", s[:k]), ("cross", s[n - k:])]
            chars = list(dict.fromkeys(s[i:i + 1] for i in range(n)))
            top = max(chars, key=lambda c: (s.count(c), -s.index(c)))
            out.append(("cross", top))
        if tj is ti and vj and vi:
            part = vj[:max(1, limit - len(vi))]
            out += [("cross", part + vi), ("cross", vi + part)]
        out = [(c, x) for c, x in out if len(x) <= limit]
    elif ti is int and tj in _SIZED:
        m = len(vj)
        out += [("index", x) for x in (m - 1, m, m + 1, -m, -m - 1, -1, 0, m // 2)]
    if tj in (list, tuple, set, frozenset, dict):
        atoms = [a for a in _atoms_of(vj) if type(a) is ti]
        out += [("cross", x) for x in atoms[:1] + atoms[-1:]]
    if ti in (list, tuple) and vi and any(type(e) is tj for e in vi):
        out += [("cross", x) for x in (ti([vj] + list(vi)), ti(list(vi) + [vj]), ti([vj] + list(vi[1:])))]
    out += [("relate", x) for x in _relation_edges(vi, vj, seed_i)]
    return out


def _relation_edges(vi: Any, vj: Any, seed_i: Any) -> list[Any]:
    """Values of ``vi``'s type equal to another argument ``vj`` or one step from it: ``vj``
    itself; for two strings (or bytes) ``vj`` with its last character doubled, ``vj`` with
    its first character appended, ``vj`` without its last or first character (``s, x =
    'Daniell', 'Daniel'``: a loop that strips ``x`` from ``s`` stops one character before
    the end); for two ints ``vj - 1`` and ``vj + 1``.  At most :data:`MAX_GROWTH` longer
    than ``seed_i``."""
    ti = type(vi)
    if ti is not type(vj):
        return []
    out = [vj]
    if ti in (str, bytes) and vj:
        out += [vj + vj[-1:], vj + vj[:1], vj[:-1], vj[1:]]
        out = [x for x in out if len(x) <= len(seed_i) + MAX_GROWTH]
    elif ti is int:
        out += [vj - 1, vj + 1]
    return [x for x in out if x != vi or type(x) is not type(vi)]


def _small(v: Any) -> list[Any]:
    """The few values of ``v``'s type combined across two arguments by :func:`edge_cases`."""
    t = type(v)
    if t in (str, bytes):
        sp = " " if t is str else b" "
        return [v[:0], v[:1], v + sp] if v else [sp]
    if t in (list, tuple):
        if v and type(v[0]) is int and all(type(e) is int for e in v):
            return [v[:0], v[:1], t([v[0], v[0] + 1])]
        return [v[:0], v[:1]] if v else []
    if t is int:
        return [0, 1, 2, 3]
    if t is bool:
        return [not v]
    return []


def edge_cases(text: str, literals: Iterable[Any] = (), hints: Iterable[str] = (), fill: int = 0
               ) -> dict[str, list[str]]:
    """Systematic edge cases of an argument list, by category (deterministic, no randomness).

    Random one-step mutation (:func:`mutate_args`) reaches some inputs that expose common
    bugs only with small probability: an all-capitals text (``upper()`` is one of about 60
    string edits), a two-character string of one repeated letter (``'gg'``), a program
    literal at both ends of the text (what tells ``find`` from ``rfind``), an empty argument
    together with a trailing space in another one.  The categories:

    * ``empty``: an empty string or container, its first or last element alone;
    * ``case``: ``upper()``, ``lower()``, ``swapcase()``, ``title()``, ``capitalize()``;
    * ``repeat``: a character of the value (its first three distinct ones, a space, a
      one-character program literal) twice, the most frequent character three times, the
      first or the last character doubled in place;
    * ``space``: a space appended, prepended, at both ends, alone;
    * ``class``: only digits or only spaces (same length), ``'9'``;
    * ``directed``: a character of a class the program tests (its calls ``hints``) and the
      value lacks, at the start, in the middle and at the end (:func:`_directed_edges`: a
      digit for ``isdecimal``, a letter of the other case for ``lower``...);
    * ``literal``: a program string literal alone, prepended, appended, in the middle, at
      both ends, doubled; a program integer literal ``c`` as ``c-1``, ``c``, ``c+1``;
    * ``int``/``float``/``bool``: 0, 1, -1, ``v±1`` (floats also ``-v``, NaN, infinity),
      negation;
    * ``list``: the first two elements, reversed, sorted, first or last element doubled,
      two consecutive integers; for containers, the edge cases of the first and last
      element (of the first value of a dict) in place;
    * ``cross``, ``index``, ``relate``: one argument related to another
      (:func:`_cross_edges`): a part of it, a boundary index of it, equal to it or one
      character or one unit away from it;
    * ``pairs``: two arguments changed at once, each to an empty or one-element value or a
      value with a trailing space (``text.rstrip(chars or ' ')`` needs both);
    * ``second``: only when the categories above hold fewer than ``fill`` values (a short
      seed such as ``'ru'``): edge cases of those edge cases (:func:`_second_generation`),
      up to ``fill`` in all.

    Every value keeps its argument's type, the element types seen in the seed and the size
    limit (at most :data:`MAX_GROWTH` longer); the seed itself and duplicates are dropped
    (a value is listed under its first category).

    Args:
        text: the seed argument list, e.g. ``"'abc', [1, 2]"``.
        literals: the program's constants (see :func:`mutate_args`).
        hints: names of the functions and methods the program calls (see
            :func:`mutate_args`).
        fill: how many edge cases the caller will use at most (``second`` tops the list up
            to it); 0: no second generation.

    Returns:
        ``{category: [argument-list text, ...]}``, categories in the order above (empty
        categories are left out).

    Raises:
        InputError: when ``text`` is not an argument-list literal.
    """
    args, kwargs = parse_args(text)
    return _edge_cases(args, kwargs, _Pool(literals, list(args) + list(kwargs.values()), hints), fill)


#: edge cases relating two arguments (``cross``, ``pairs``) are made among the first this
#: many arguments, edge cases of one argument among the first :data:`EDGE_MAX_ARGS`: each
#: candidate formats every argument, so a 250-argument row would otherwise cost minutes of
#: host time (random mutants still reach every argument)
EDGE_MAX_RELATED = 8
EDGE_MAX_ARGS = 32


def _edge_cases(args: list, kwargs: dict, pool: _Pool, fill: int = 0) -> dict[str, list[str]]:
    keys = list(kwargs)
    seeds = list(args) + [kwargs[k] for k in keys]
    seen = {format_args(args, kwargs)}
    out: dict[str, list[str]] = {}

    def put(cat: str, values: list) -> None:
        if not all(_fits(x, s) for x, s in zip(values, seeds)):
            return
        try:
            t = format_args(values[:len(args)], dict(zip(keys, values[len(args):])))
        except InputError:
            return
        if t not in seen:
            seen.add(t)
            out.setdefault(cat, []).append(t)

    for i, v in enumerate(seeds[:EDGE_MAX_ARGS]):
        for cat, x in _value_edges(v, pool):
            put(cat, seeds[:i] + [x] + seeds[i + 1:])
    # relations between arguments: the first EDGE_MAX_RELATED arguments only (the pairs grow
    # with the square of the argument count, each formatting every argument)
    related = range(min(len(seeds), EDGE_MAX_RELATED))
    ranked: dict[str, list[list[list]]] = {c: [] for c in RANKED}
    unranked: list[tuple[str, list]] = []
    for i in related:
        for j in related:
            if i != j:
                mine: dict[str, list[list]] = {c: [] for c in RANKED}
                for cat, x in _cross_edges(seeds[i], seeds[j], seeds[i]):
                    values = seeds[:i] + [x] + seeds[i + 1:]
                    if cat in mine:
                        mine[cat].append(values)
                    else:
                        unranked.append((cat, values))
                for c in RANKED:
                    ranked[c].append(mine[c])
    for c in RANKED:  # rank-major: the first (strongest) relation of every pair of arguments first
        for rank in range(max(map(len, ranked[c]), default=0)):
            for per_pair in ranked[c]:
                if rank < len(per_pair):
                    put(c, per_pair[rank])
    for cat, values in unranked:
        put(cat, values)
    for i, j in itertools.combinations(related, 2):
        for a in _small(seeds[i]):
            for b in _small(seeds[j]):
                vals = list(seeds)
                vals[i], vals[j] = a, b
                put("pairs", vals)
    order = ["empty", "case", "repeat", "space", "class", "directed", "literal", "int", "float", "bool", "list",
             "cross", "index", "relate", "pairs"]
    first = {c: out[c] for c in order if c in out}
    count = sum(map(len, first.values()))
    if count < fill:
        second = _second_generation(first, seeds, len(args), keys, pool, seen, fill - count)
        if second:
            first["second"] = second
    return first


def _second_generation(first: dict[str, list[str]], seeds: list, n_args: int, keys: list, pool: _Pool,
                       seen: set[str], want: int) -> list[str]:
    """Edge cases of the edge cases ``first`` (one argument changed by :func:`_value_edges`:
    ``'('`` -> ``'( '``; ``'ru'`` -> ``'RU'`` -> ``'RU '``), for a seed with fewer
    first-generation edge cases than the request has room for (``'ru'`` has about 20).  The
    first-generation edge cases are visited round-robin over their categories, each one's
    edge cases in :func:`_value_edges` order; every value must fit the *seed's* types and
    size limit (:func:`_fits`); at most ``want`` new texts are returned (``seen`` is
    updated)."""
    queues = [list(v) for v in first.values()]
    parents: list[str] = []
    while any(queues):
        for q in queues:
            if q:
                parents.append(q.pop(0))
    out: list[str] = []
    for text in parents:
        try:
            args, kwargs = parse_args(text)
        except InputError:
            continue
        values = list(args) + [kwargs[k] for k in keys if k in kwargs]
        if len(values) != len(seeds):
            continue
        for i, v in enumerate(values[:EDGE_MAX_ARGS]):
            for _cat, x in _value_edges(v, pool):
                new = values[:i] + [x] + values[i + 1:]
                if not all(_fits(a, b) for a, b in zip(new, seeds)):
                    continue
                try:
                    t = format_args(new[:n_args], dict(zip(keys, new[n_args:])))
                except InputError:
                    continue
                if t not in seen:
                    seen.add(t)
                    out.append(t)
                    if len(out) >= want:
                        return out
    return out


#: categories of :func:`edge_cases` listed strongest first (for every pair of arguments, its
#: first relation before any pair's second: ``len - 1`` before ``len``, an equal argument
#: before one a character longer); :func:`mutate_args` takes them in that order, the other
#: categories in a random order
RANKED = ("index", "relate")


def _pick_edges(edges: dict[str, list[str]], k: int, rng: random.Random) -> list[str]:
    """``k`` edge cases drawn round-robin over the categories (in a random order), from each
    category in a random order, except the :data:`RANKED` ones, which give their values in
    listed order."""
    queues = [list(v) if c not in RANKED else list(reversed(v)) for c, v in edges.items()]
    for c, q in zip(edges, queues):
        if c not in RANKED:
            rng.shuffle(q)
    rng.shuffle(queues)
    picked: list[str] = []
    while len(picked) < k and any(queues):
        for q in queues:
            if q and len(picked) < k:
                picked.append(q.pop())
    return picked


def mutate_args(text: str, n: int, rng: random.Random, literals: Iterable[Any] = (),
                hints: Iterable[str] = ()) -> list[str]:
    """Up to ``n`` distinct type-preserving mutants of an argument list.

    Args:
        text: the seed argument list, e.g. ``"'abc', [1, 2]"``.
        n: how many mutants to return at most (fewer when the seed has few neighbours,
            e.g. ``"None"`` has none).
        rng: the only source of randomness; the same state gives the same mutants.
        literals: the program's own constants (ints, floats, strings, bytes), which make
            mutants reach branches that compare against them; see
            :func:`codemorph.verification.program_literals`.
        hints: names of the functions and methods the program calls
            (:func:`codemorph.verification.program_calls`): edge cases then put characters
            of the classes those calls test into strings (``isdecimal``: a digit).

    Returns:
        Argument-list texts (formatted by :func:`format_args`), none equal to the seed.
        The operators are listed in this module's docstring.  When ``n`` is at least
        :data:`EDGE_MIN_REQUEST`, the first ``round(n * EDGE_SHARE)`` are edge cases of
        :func:`edge_cases` (fewer when there are fewer; a short seed (:func:`_short`) with
        fewer than :data:`EDGE_FILL` first-generation edge cases is topped up to that many
        with edge cases of its edge cases), picked with ``rng`` round-robin over their categories; the
        rest are random mutants.

    Raises:
        InputError: when ``text`` is not an argument-list literal.
    """
    args, kwargs = parse_args(text)
    if n <= 0:
        return []
    pool = _Pool(literals, list(args) + list(kwargs.values()), hints)
    slots: list[tuple[str, Any]] = [("pos", i) for i in range(len(args))] + [("kw", k) for k in kwargs]
    if not slots:
        return []
    seen = {format_args(args, kwargs)}
    out: list[str] = []
    if n >= EDGE_MIN_REQUEST:
        # a share of systematic edge cases first, then random mutants
        k = round(n * EDGE_SHARE)
        fill = min(k, EDGE_FILL) if _short(list(args) + list(kwargs.values())) else 0
        picked = _pick_edges(_edge_cases(args, kwargs, pool, fill=fill), k,
                             random.Random(rng.getrandbits(64)))
        seen.update(picked)
        out += picked
    attempts = 0
    while len(out) < n and attempts < 30 * n + 50:
        attempts += 1
        new_args, new_kwargs = list(args), dict(kwargs)
        if len(slots) > 1 and rng.random() < CROSS_SHARE:
            # a cross-argument mutant, sometimes after one ordinary mutation (the relation
            # is made last, so it holds in the mutant)
            if rng.random() < 0.4:
                kind, key = rng.choice(slots)
                if kind == "pos":
                    new_args[key] = _mutate(new_args[key], rng, pool, 0)
                else:
                    new_kwargs[key] = _mutate(new_kwargs[key], rng, pool, 0)
            values = new_args + [new_kwargs[k] for k in kwargs]
            seeds = list(args) + [kwargs[k] for k in kwargs]
            change = _cross(values, seeds, rng)
            if change is None or not _fits(change[1], seeds[change[0]]):
                continue
            at, value = change
            if at < len(new_args):
                new_args[at] = value
            else:
                new_kwargs[slots[at][1]] = value
            if not all(_fits(v, s) for v, s in zip(new_args + [new_kwargs[k] for k in kwargs], seeds)):
                continue
        else:
            k = 2 if len(slots) > 1 and rng.random() < 0.3 else 1
            for kind, key in rng.sample(slots, k):
                if kind == "pos":
                    new_args[key] = _mutate(new_args[key], rng, pool, 0)
                else:
                    new_kwargs[key] = _mutate(new_kwargs[key], rng, pool, 0)
        try:
            mutant = format_args(new_args, new_kwargs)
        except InputError:
            continue
        if mutant in seen:
            continue
        seen.add(mutant)
        out.append(mutant)
    return out


# -------------------------------------------------------------- coverage-guided additions
#: At most this many of a baseline's inputs are replaced by coverage-guided additions.
GUIDED_MAX = 10
#: Executions one coverage-guided round may spend on candidates (two rounds at most).
GUIDED_EXECUTIONS = 24


def _function_lines(source: str) -> tuple[set[int], dict[int, list[int]]]:
    """Executable statement lines inside the functions of ``source`` (docstrings, ``global``
    and ``nonlocal`` excluded: they report no line event), and for each such line the lines
    of its enclosing statements, innermost first (analysis with :mod:`ast` only)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set(), {}
    lines: set[int] = set()
    parents: dict[int, list[int]] = {}

    def visit(body: list, chain: list[int], in_function: bool) -> None:
        for k, stmt in enumerate(body):
            if k == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) \
                    and isinstance(stmt.value.value, str):
                continue  # a docstring (or a bare string) compiles to no line event
            if in_function and not isinstance(stmt, (ast.Global, ast.Nonlocal)):
                lines.add(stmt.lineno)
                parents.setdefault(stmt.lineno, list(chain))
            inner = in_function or isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))
            for field_name in ("body", "orelse", "finalbody"):
                sub = getattr(stmt, field_name, None)
                if isinstance(sub, list) and sub and isinstance(sub[0], ast.stmt):
                    visit(sub, [stmt.lineno] + chain, inner)
            for h in getattr(stmt, "handlers", ()) or ():
                visit(h.body, [stmt.lineno] + chain, inner)
            for case in getattr(stmt, "cases", ()) or ():
                visit(case.body, [stmt.lineno] + chain, inner)

    visit(tree.body, [], False)
    return lines, parents


def coverage_additions(sandbox: Any, program: Any, inputs: Sequence[str], outcomes: Sequence[Any], seed_count: int,
                       *, seed: int = 0, literals: Iterable[Any] = (), timeout: float | None = 1.0,
                       max_added: int = GUIDED_MAX, executions: int = GUIDED_EXECUTIONS) -> "GuidedResult":
    """Coverage-guided additions to a differential-testing input set.

    When the traced ``outcomes`` of the original ``program`` on ``inputs`` leave some
    statement of its functions unexecuted, candidates are made from the inputs that reached
    the nearest executed enclosing statement (the ``if``, loop or ``try`` around the missed
    code): first (up to half of a round) those inputs with one constant of the guarding
    conditions put in place of an argument or element of its type (``if c in ['p', 'C']``
    needs a ``c`` equal to ``'p'``), then random 1-3 step mutants from the perturbation engine
    (:class:`codemorph.perturb.mutation.MutationSpace`, the program's constants as values),
    systematic one-step neighbours from the same engine (boundary lengths, the program's
    literals...), and cross-argument mutants (:func:`mutate_args`), a third each.  They run traced in one sandbox batch;
    those that execute a missed line are kept (greedily, each must add a line), and a second
    round (run whenever lines are still missed) mutates the kept ones, or tries the same
    parents again when nothing was kept.  This is coverage feedback as
    in AFL (Zalewski 2014), aimed at the code a rewrite may change.

    The additions *replace* mutants (never seed inputs), so the number of inputs stays
    the same: a replaced mutant is one whose executed lines the other inputs also
    executed, taken from the end of the list.

    When every statement was executed, or the outcomes carry no trace, nothing is run (the
    common case costs nothing).

    Args:
        sandbox: a :class:`codemorph.sandbox.Sandbox`.
        program: the original :class:`codemorph.program.Program`.
        inputs: argument-list literals, the ``seed_count`` seed inputs first.
        outcomes: the traced outcomes of ``program`` on ``inputs`` (same order).
        seed_count: how many leading ``inputs`` are seeds (never replaced).
        seed: seed of the candidates' randomness (deterministic for equal arguments).
        literals: the program's constants (:func:`codemorph.verification.program_literals`).
        timeout: seconds per candidate execution (``None``: the sandbox's limit).
        max_added: most inputs added (replaced).
        executions: candidate executions per round (two rounds at most).

    Returns:
        A :class:`GuidedResult`: the new input list and outcomes, how many inputs were
        added, the candidate executions spent, and the lines still missed.
    """
    from codemorph.inputs.mutation import MutationSpace
    from codemorph.sandbox.pool import ExecRequest

    inputs, outcomes = list(inputs), list(outcomes)
    lines, parents = _function_lines(program.source)
    guards = _guard_constants(program.source)
    if not any(o.lines for o in outcomes):
        return GuidedResult(tuple(inputs), tuple(outcomes), 0, 0, ())
    covered: set[int] = set()
    for o in outcomes:
        covered.update(o.lines or ())
    missed = lines - covered
    replaceable = len(inputs) - seed_count
    if not missed or replaceable <= 0 or max_added <= 0 or executions <= 0:
        return GuidedResult(tuple(inputs), tuple(outcomes), 0, 0, tuple(sorted(missed)))
    rng = random.Random(f"{seed}:coverage-additions:{program.source}:{inputs[0] if inputs else ''}")
    try:
        seeds = [parse_args(t) for t in inputs[:seed_count]]
    except InputError:
        return GuidedResult(tuple(inputs), tuple(outcomes), 0, 0, tuple(sorted(missed)))
    literals = list(literals)
    added: list[tuple[str, Any]] = []
    spent = 0
    taken = set(inputs)
    parents_pool = list(zip(inputs, outcomes))
    neighbours: dict[str, list] = {}
    for _round in range(2):
        if not missed or len(added) >= min(max_added, replaceable):
            break
        # parents: inputs that executed the nearest executed statement around a missed line
        near = set()
        for ln in missed:
            near.update(p for p in parents.get(ln, [])[:1] if p in covered)
        pool = [(t, o) for t, o in parents_pool if o.lines and near.intersection(o.lines)] or parents_pool
        cands: list[str] = []
        # first, the constants of the conditions guarding the missed lines put into the
        # arguments of the parents (``if c in ['p', 'C']`` needs an argument equal to 'p')
        for c in _planted(pool, [guards.get(ln, set()) for ln in sorted(missed)], seeds, rng, executions // 2):
            if c not in taken:
                taken.add(c)
                cands.append(c)
        tries = 0
        while len(cands) < executions and tries < executions * 20:
            tries += 1
            text, _ = rng.choice(pool)
            try:
                args, kwargs = parse_args(text)
            except InputError:
                continue
            r = rng.random()
            if r < 0.67:
                space = MutationSpace((args, kwargs), literals)
                if r < 0.33:  # a systematic one-step neighbour (boundary lengths, literals...)
                    if text not in neighbours:
                        neighbours[text] = list(itertools.islice(space.neighbours((args, kwargs)), 400))
                    near_ = neighbours[text]
                    if not near_:
                        continue
                    m_args, m_kwargs = rng.choice(near_)
                else:
                    m_args, m_kwargs = space.mutate((args, kwargs), rng, steps=rng.randint(1, 3))
                if not _fits_any(m_args, m_kwargs, seeds):
                    continue
                try:
                    cand = format_args(m_args, m_kwargs)
                except InputError:
                    continue
            else:
                ms = mutate_args(text, 1, random.Random(rng.getrandbits(64)), literals)
                if not ms:
                    continue
                cand = ms[0]
            if cand not in taken:
                taken.add(cand)
                cands.append(cand)
        if not cands:
            break
        outs = sandbox.run_batch([ExecRequest(program.source, program.entry_point, c, trace=True, timeout=timeout)
                                  for c in cands])
        spent += len(cands)
        found = []
        for c, o in zip(cands, outs):
            if len(added) >= min(max_added, replaceable):
                break
            new = missed.intersection(o.lines or ())
            if new and o.completed:
                added.append((c, o))
                found.append((c, o))
                missed -= new
                covered |= new
        if found:  # the next round mutates what reached new code; else it tries again
            parents_pool = found
    if not added:
        return GuidedResult(tuple(inputs), tuple(outcomes), 0, spent, tuple(sorted(missed)))
    # replace mutants from the end whose lines the remaining inputs also execute
    keep = list(range(len(inputs)))
    drop: list[int] = []
    count = {}
    for o in outcomes:
        for ln in set(o.lines or ()):
            count[ln] = count.get(ln, 0) + 1
    for k in range(len(inputs) - 1, seed_count - 1, -1):
        if len(drop) == len(added):
            break
        mine = set(outcomes[k].lines or ())
        if all(count.get(ln, 0) > 1 for ln in mine):
            drop.append(k)
            for ln in mine:
                count[ln] -= 1
    for k in range(len(inputs) - 1, seed_count - 1, -1):  # not enough redundant ones: the last
        if len(drop) == len(added):
            break
        if k not in drop:
            drop.append(k)
    keep = [k for k in keep if k not in set(drop)]
    new_inputs = [inputs[k] for k in keep] + [c for c, _ in added]
    new_outcomes = [outcomes[k] for k in keep] + [o for _, o in added]
    return GuidedResult(tuple(new_inputs), tuple(new_outcomes), len(added), spent, tuple(sorted(missed)))


def _guard_constants(source: str) -> dict[int, set]:
    """For each statement line inside a function, the constants (numbers, strings, bytes)
    in the tests of the ``if``/``while`` statements and the iterables of the ``for``
    statements enclosing it (analysis with :mod:`ast` only)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    out: dict[int, set] = {}

    def consts(node: ast.AST) -> set:
        found = set()
        for n in ast.walk(node):
            if isinstance(n, ast.Constant) and type(n.value) in (int, float, str, bytes) \
                    and not (isinstance(n.value, (str, bytes)) and len(n.value) > 40):
                found.add(n.value)
        return found

    def visit(body: list, inherited: set) -> None:
        for stmt in body:
            out.setdefault(stmt.lineno, set()).update(inherited)
            own = set(inherited)
            if isinstance(stmt, (ast.If, ast.While)):
                own |= consts(stmt.test)
            elif isinstance(stmt, (ast.For, ast.AsyncFor)):
                own |= consts(stmt.iter)
            for field_name in ("body", "orelse", "finalbody"):
                sub = getattr(stmt, field_name, None)
                if isinstance(sub, list) and sub and isinstance(sub[0], ast.stmt):
                    visit(sub, own)
            for h in getattr(stmt, "handlers", ()) or ():
                visit(h.body, own)

    visit(tree.body, set())
    return out


def _planted(pool: list, guard_sets: list, seeds: list, rng: random.Random, limit: int) -> list[str]:
    """Argument lists made from the inputs of ``pool`` by putting one guard constant in
    place of an argument of its exact type, of an element of a list/tuple/set argument of
    its type, or (a string) at either end of a string argument; type-preserving only."""
    constants = sorted({(type(c).__name__, repr(c)): c for g in guard_sets for c in g}.items())
    if not constants or limit <= 0:
        return []
    out: list[str] = []
    parents = [t for t, _ in pool[:3]]
    for text in parents:
        try:
            args, kwargs = parse_args(text)
        except InputError:
            continue
        values = list(args) + [kwargs[k] for k in kwargs]
        for _, c in constants:
            for i, v in enumerate(values):
                options = []
                if type(v) is type(c):
                    options.append(c)
                    if isinstance(v, (str, bytes)):
                        options += [c + v, v + c]
                elif type(v) in (list, tuple) and any(type(e) is type(c) for e in v):
                    k = [j for j, e in enumerate(v) if type(e) is type(c)][0]
                    options.append(type(v)(list(v[:k]) + [c] + list(v[k + 1:])))
                elif type(v) in (set, frozenset) and any(type(e) is type(c) for e in v):
                    options.append(type(v)(list(v) + [c]))
                for o in options:
                    new = values[:i] + [o] + values[i + 1:]
                    n_args, n_kwargs = new[:len(args)], dict(zip(kwargs, new[len(args):]))
                    if not _fits_any(n_args, n_kwargs, seeds):
                        continue
                    try:
                        out.append(format_args(n_args, n_kwargs))
                    except InputError:
                        continue
    out = list(dict.fromkeys(out))
    if len(out) > limit:
        out = rng.sample(out, limit)
    return out


def _fits_any(args: list, kwargs: dict, seeds: list[tuple[list, dict]]) -> bool:
    """The argument list has the shape of one of the seeds and every argument fits it
    (:func:`_fits`)."""
    for s_args, s_kwargs in seeds:
        if len(s_args) == len(args) and list(s_kwargs) == list(kwargs) \
                and all(_fits(v, s) for v, s in zip(args, s_args)) \
                and all(_fits(kwargs[k], s_kwargs[k]) for k in kwargs):
            return True
    return False


@dataclass(frozen=True)
class GuidedResult:
    """What :func:`coverage_additions` did.

    Attributes:
        inputs: the input list after the additions (same length as before).
        outcomes: the traced outcomes of the original program on ``inputs``.
        added: how many inputs were added (as many mutants were replaced).
        executions: candidate executions spent (0 when nothing was missed).
        missed: executable lines of the program's functions no input executed.
    """

    inputs: tuple[str, ...]
    outcomes: tuple[Any, ...]
    added: int
    executions: int
    missed: tuple[int, ...]
