"""The value model of input mutation: type rules, size limits, and the constants a mutant
may draw from.  Shared by the mutation engine (:mod:`codemorph.inputs.mutation`) and the
systematic edge cases (:mod:`codemorph.inputs.edges`).

Type preservation has one rule with two readings:

* :func:`type_paths` / :func:`fits`: the exact reading that verification inputs follow (a
  mutant's root-to-node type paths are a subset of the seed's, and it is at most
  :data:`MAX_GROWTH` longer), so an empty seed container stays empty;
* :func:`type_signature` / :func:`within_signature` / :func:`is_type_changing`: the reading
  of the perturbation search, in which a container that is empty in the seed shows no
  element type and may receive elements of any type.
"""

from __future__ import annotations

import math
from typing import Any, Iterable

from codemorph.inputs.literals import canonical_key

__all__ = ["Args", "MAX_GROWTH", "SIZED", "Constants", "type_paths", "fits", "atoms_of", "is_hashable",
           "type_signature", "within_signature", "is_type_changing"]

#: a parsed argument list: (positional arguments, keyword arguments)
Args = tuple  # tuple[list, dict]

#: A mutant container or string is at most this much longer than its seed.
MAX_GROWTH = 4
#: the sized literal types (``len`` applies)
SIZED = (str, bytes, list, tuple, dict, set, frozenset)
_DEFAULT_CHARS = "aZ0 _-.,!x9"


def _tname(v: Any) -> str:
    return type(v).__name__


class Constants:
    """Constants a verification mutant or edge case may draw from: the program's literals
    and the seed's characters.

    Args:
        literals: the program's constants (ints, floats, strings, bytes, bools; other
            values are ignored), in source order.
        seed_values: the seed's argument values (their characters become insertion
            characters).
        hints: names of the methods and functions the program calls (edge cases put
            characters of the classes they test into strings).

    Attributes: ``hints`` (frozenset of str), ``ordered`` (the literals in order of
    appearance, deduplicated by exact type), ``ints``/``floats``/``strs``/``bytes`` (sorted
    by :func:`canonical_key`; ``floats`` also holds the ints as floats), ``chars`` (one-
    character strings) and ``byte_values`` (ints 0..255) for insertions.
    """

    def __init__(self, literals: Iterable[Any], seed_values: Iterable[Any], hints: Iterable[str] = ()) -> None:
        #: names of the methods and functions the program calls (:func:`_class_chars`)
        self.hints = frozenset(h for h in hints if isinstance(h, str))
        lits = []
        for x in literals:
            if type(x) in (int, float, str, bytes, bool):
                lits.append(x)
        # in order of appearance (edge cases use the first few), deduplicated by exact type
        self.ordered = list({canonical_key(x): x for x in lits}.values())
        lits = sorted({canonical_key(x): x for x in lits}.items())
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
                yield from _strings_in(sorted(v, key=canonical_key), depth + 1)
            elif t is dict:
                yield from _strings_in(list(v.keys()) + list(v.values()), depth + 1)


def type_paths(v: Any, prefix: tuple = (), depth: int = 0) -> frozenset:
    """Every root-to-node path of type names in ``v``, e.g. ``[1, 'a']`` gives
    ``{('list',), ('list', 'int'), ('list', 'str')}`` (dict keys and values are marked
    ``'key'``/``'value'``).  A mutant is type-preserving when its paths are a subset of the
    seed's: it has the seed's type and only element types seen in the seed."""
    out: set = set()
    _add_type_paths(v, prefix, depth, out)
    return frozenset(out)


_CONTAINERS = (list, tuple, set, frozenset)


def _add_type_paths(v: Any, prefix: tuple, depth: int, out: set) -> None:
    """:func:`type_paths` of ``v`` added to ``out`` (one set for the whole value, not one
    per node)."""
    t = type(v)
    p = prefix + (t.__name__,)
    out.add(p)
    if depth < 20:
        if t in _CONTAINERS:
            for e in v:
                _add_type_paths(e, p, depth + 1, out)
        elif t is dict:
            pk, pv = p + ("key",), p + ("value",)
            for k, x in v.items():
                _add_type_paths(k, pk, depth + 1, out)
                _add_type_paths(x, pv, depth + 1, out)


def fits(new: Any, seed: Any) -> bool:
    """Type-preserving (paths within the seed's) and at most :data:`MAX_GROWTH` longer."""
    if type(new) is not type(seed) or not type_paths(new) <= type_paths(seed):
        return False
    return not isinstance(seed, SIZED) or len(new) <= len(seed) + MAX_GROWTH


def atoms_of(v: Any, depth: int = 0) -> list:
    """Values nested in ``v`` (elements, dict keys and values, recursively to depth 2),
    in a canonical order; ``v`` itself is not included."""
    out: list = []
    if depth >= 2:
        return out
    t = type(v)
    if t in (list, tuple):
        items = list(v)
    elif t in (set, frozenset):
        items = sorted(v, key=canonical_key)
    elif t is dict:
        items = [x for kv in v.items() for x in kv]
    else:
        return out
    for e in items:
        out.append(e)
        out += atoms_of(e, depth + 1)
    return out


def is_hashable(x: Any) -> bool:
    """Whether ``x`` can be a set element or dict key."""
    try:
        hash(x)
    except TypeError:
        return False
    return True


def type_signature(value: Any) -> Any:
    """The type structure of a value: ``'int'``, ``('list', {element signatures})``,
    ``('dict', {key signatures}, {value signatures})``... used to decide type preservation."""
    if isinstance(value, (list, tuple, set, frozenset)):
        return (_tname(value), frozenset(type_signature(v) for v in value))
    if isinstance(value, dict):
        return ("dict", frozenset(type_signature(k) for k in value), frozenset(type_signature(v) for v in value.values()))
    return _tname(value)


def within_signature(sig: Any, allowed: Any) -> bool:
    """Whether a value of signature ``sig`` may stand where the seed had ``allowed``
    (an empty seed container allows any element type)."""
    if sig == allowed:
        return True
    if isinstance(sig, tuple) and isinstance(allowed, tuple) and sig[0] == allowed[0]:
        if sig[0] == "dict":
            if not allowed[1]:
                return True
            return all(any(within_signature(s, a) for a in allowed[1]) for s in sig[1]) and \
                all(any(within_signature(s, a) for a in allowed[2]) for s in sig[2])
        if not allowed[1]:
            return True
        return all(any(within_signature(s, a) for a in allowed[1]) for s in sig[1])
    return False


def is_type_changing(seed: Args, mutant: Args) -> bool:
    """True when ``mutant`` gives some argument, element, key or value a type the seed did
    not have at that place (see the module docstring for what preservation means)."""
    sa, sk = seed
    ma, mk = mutant
    if len(sa) != len(ma) or set(sk) != set(mk):
        return True
    for s, m in list(zip(sa, ma)) + [(sk[k], mk[k]) for k in sk]:
        if not within_signature(type_signature(m), type_signature(s)):
            return True
    return False
