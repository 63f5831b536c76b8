"""Structural, type-preserving mutation of parsed argument lists.

An argument list is the pair ``(args, kwargs)`` that :func:`codemorph.inputs.parse_args`
returns.  A *mutation step* changes one node of that structure with one operator:

* ``int``: ``0``, ``1``, ``-1``, ``v + 1``, ``v - 1``, ``-v``, ``2 * v``, ``v // 2``, the
  program's integer literals and their neighbours, the lengths of the seed's strings and
  containers (and ``len + 1``, ``-len``, ``-len - 1``: the edges of every index range);
  for a whole integer argument also :data:`BIG_INTS` (one-step neighbours only);
* ``float``: ``0.0``, ``1.0``, ``-1.0``, ``v + 1``, ``-v``, ``v / 2``, the program's float literals;
* ``bool``: negation;
* ``str`` / ``bytes``: delete, insert or replace one character (characters of the seed,
  of the program's string literals, whitespace, digits, and a few Unicode characters whose
  behaviour differs from ASCII: ``'é'``, ``'ß'``, ``'İ'``, ``'²'``, ``'\\u00a0'``, and the
  digits of the seed's and the program's integers), empty
  string, single character, insert a program literal, replace by a program literal, case
  change, strip, truncate, delete every occurrence of one character (what makes
  ``s.index(c)`` fail or ``s.count(c)`` zero), resize to ``c - 1``, ``c`` or ``c + 1``
  characters for the program's small integer literals ``c`` (truncating, or repeating the
  string);
* ``list`` / ``tuple``: delete, insert (a copy of an element, a mutated copy, or a literal
  of an element type seen in the seed), replace (a mutated element), swap two elements,
  empty, singleton, reverse, delete every occurrence of one element, resize as for strings;
* ``dict``: delete a key (the missing-key case), add a key (a mutated copy of a key, with
  a copy of a value), mutate a value, rename a key, empty, keep a single key;
* ``set`` / ``frozenset``: remove, add (a mutated copy of an element), empty.

Every step keeps each argument's type; a container keeps the element types seen in the
seed; dicts keep their key and value types.  An empty container in the seed shows no
element type: an argument that is an empty container in the seed may receive elements of
the types of the program's own literals (``int``
and ``str`` values: the program's, then ``0``, ``1``, ``'a'``, and ``'aa'``... as long as
the program's small integer literals), or an empty list or dict
(:data:`NESTED_FILL`: ``[[]]``, ``{'a': []}``), and such a mutant still
counts as type-preserving (the argument's type is unchanged, and no element type seen in
the seed is contradicted).
Containers and strings grow by at most :data:`MAX_GROWTH` elements beyond the seed's size
(a resize to a length the program names by at most :data:`MAX_RESIZE_GROWTH`), so mutants
stay small and fast to run.  With ``allow_type_change=True`` one more operator
replaces a node by a value of another type (``None``, ``0``, ``''``, ``[]``, ``{}``...);
those mutants are labelled as type-changing by :func:`is_type_changing`.
"""

from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator

__all__ = ["MutationSpace", "MAX_GROWTH", "MAX_RESIZE_GROWTH", "BIG_INTS", "NESTED_FILL", "is_type_changing",
           "type_signature", "Args", "LONG_SEQUENCE", "LONG_POSITIONS", "LONG_NEIGHBOURS"]

#: a parsed argument list: (positional arguments, keyword arguments)
Args = tuple  # tuple[list, dict]

#: how many elements/characters a container or string may grow beyond the seed's size
MAX_GROWTH = 4
#: boundary integers just past the C ``Py_ssize_t`` range (``sys.maxsize + 1`` and
#: ``-sys.maxsize - 2`` on 64-bit builds): ``'a' * n``, ``range(n)[0]``, ``s.ljust(n)``,
#: ``chr(n)`` raise ``OverflowError`` on them.  Tried once per integer argument, in the
#: one-step neighbours only (a loop bound this large times out, and the search stops
#: after a few timeouts).
BIG_INTS = (2**63, -2**63 - 1)
#: how far a resize to a length the program names (``c - 1``, ``c``, ``c + 1`` for its
#: integer literals ``c``) may grow a string or container beyond the seed's size
MAX_RESIZE_GROWTH = 12
#: a string, bytes, list, tuple, dict, set or frozenset with more than this many
#: characters/elements is *long*: its systematic neighbours (:meth:`MutationSpace.neighbours`)
#: apply the position-wise operators (delete, insert, replace or swap at index ``i``, edit
#: of element or key ``i``) at :data:`LONG_POSITIONS` positions only, and stop after
#: :data:`LONG_NEIGHBOURS` mutants of that argument.  Without this, a 2,000-element list
#: gives some 70,000 neighbours of 2,000 elements each (gigabytes of copies before the
#: first execution).  The random steps of :meth:`MutationSpace.mutate` still reach every
#: position.  No CRUXEval input is long (its longest string or container has 54 items).
LONG_SEQUENCE = 64
#: positions used by the position-wise operators on a long value: the first 16, the
#: last 16, and 16 evenly spaced between them
LONG_POSITIONS = 48
#: most systematic neighbours of one long argument (or one long element of an argument)
LONG_NEIGHBOURS = 2000

_SPECIAL_CHARS = (" ", "a", "A", "0", "1", "-", ".", ",", "\t", "\n", "é", "ß", "İ", "²", "\u00a0")
_OTHER_TYPE_VALUES = (None, 0, "", [], {}, 1.5, (), "0")


def _tname(v: Any) -> str:
    return type(v).__name__


def type_signature(value: Any) -> Any:
    """The type structure of a value: ``'int'``, ``('list', {element signatures})``,
    ``('dict', {key signatures}, {value signatures})``... used to decide type preservation."""
    if isinstance(value, (list, tuple, set, frozenset)):
        return (_tname(value), frozenset(type_signature(v) for v in value))
    if isinstance(value, dict):
        return ("dict", frozenset(type_signature(k) for k in value), frozenset(type_signature(v) for v in value.values()))
    return _tname(value)


def _sig_within(sig: Any, allowed: Any) -> bool:
    """Whether a value of signature ``sig`` may stand where the seed had ``allowed``
    (an empty seed container allows any element type)."""
    if sig == allowed:
        return True
    if isinstance(sig, tuple) and isinstance(allowed, tuple) and sig[0] == allowed[0]:
        if sig[0] == "dict":
            if not allowed[1]:
                return True
            return all(any(_sig_within(s, a) for a in allowed[1]) for s in sig[1]) and \
                all(any(_sig_within(s, a) for a in allowed[2]) for s in sig[2])
        if not allowed[1]:
            return True
        return all(any(_sig_within(s, a) for a in allowed[1]) for s in sig[1])
    return False


def is_type_changing(seed: Args, mutant: Args) -> bool:
    """True when ``mutant`` gives some argument, element, key or value a type the seed did
    not have at that place (see the module docstring for what preservation means)."""
    sa, sk = seed
    ma, mk = mutant
    if len(sa) != len(ma) or set(sk) != set(mk):
        return True
    for s, m in list(zip(sa, ma)) + [(sk[k], mk[k]) for k in sk]:
        if not _sig_within(type_signature(m), type_signature(s)):
            return True
    return False


def _rebuild(container: Any, items: list) -> Any:
    if isinstance(container, tuple):
        return tuple(items)
    return items


def _safe_sorted_keys(values: Iterable[Any]) -> list:
    return sorted(values, key=lambda v: (type(v).__name__, repr(v)))


@dataclass
class MutationSpace:
    """Mutation operators for the argument lists of one program and one seed input.

    Args:
        seed: the parsed seed argument list ``(args, kwargs)``.
        literals: constants of the program (ints, floats, strings, bytes...), used as
            replacement and insertion values of their own type.
        allow_type_change: also replace nodes by values of other types.
        tokens: strings inserted at the ends of string arguments among the
            :meth:`priority_neighbours` (template tokens such as ``'{a}'``).
        elements: extra values (str or int) given as elements, keys and values to the
            containers that are empty in the seed, after the program's literals (``'%'``
            for a program that applies ``%`` to a name: an element of unknown type may
            be a string, and ``key % 2`` then formats it).

    All randomness comes from the ``random.Random`` passed to each method, so mutants are
    deterministic for a given generator state.
    """

    seed: Args
    literals: Iterable[Any] = ()
    allow_type_change: bool = False
    tokens: Iterable[str] = ()
    elements: Iterable[Any] = ()
    _ints: list = field(init=False, repr=False)
    _floats: list = field(init=False, repr=False)
    _strs: list = field(init=False, repr=False)
    _chars: list = field(init=False, repr=False)
    _by_type: dict = field(init=False, repr=False)
    _fill: list = field(init=False, repr=False)
    _lengths: list = field(init=False, repr=False)
    _limits: dict = field(init=False, repr=False)
    _tokens: list = field(init=False, repr=False)

    def __post_init__(self) -> None:
        lits = list(self.literals)
        self._tokens = [t for t in dict.fromkeys(self.tokens) if isinstance(t, str) and t]
        seed_atoms: list = []
        lengths: set[int] = set()

        def walk(v: Any) -> None:
            if isinstance(v, (str, bytes, list, tuple, set, frozenset, dict)):
                lengths.add(len(v))
            if isinstance(v, (list, tuple, set, frozenset)):
                for x in v:
                    walk(x)
            elif isinstance(v, dict):
                for k, x in v.items():
                    walk(k)
                    walk(x)
            else:
                seed_atoms.append(v)

        for a in list(self.seed[0]) + list(self.seed[1].values()):
            walk(a)
        ints = {0, 1, -1, 2}
        for v in lits + seed_atoms:
            if isinstance(v, int) and not isinstance(v, bool) and abs(v) < 10**6:
                ints.update((v, v + 1, v - 1))
        for n in lengths:
            ints.update((n, n - 1, n + 1, -n, -n - 1))
        self._ints = sorted(ints)
        # lengths worth resizing strings and containers to: c - 1, c, c + 1 for the program's
        # small integer literals c (they reach branches such as ``len(x) > 3``)
        self._lengths = sorted({c + d for c in lits if isinstance(c, int) and not isinstance(c, bool)
                                and 0 <= c <= 64 for d in (-1, 0, 1)} - {-1})
        self._floats = sorted({0.0, 1.0, -1.0, 0.5} | {float(v) for v in lits if isinstance(v, float) and math.isfinite(v)})
        strs = {v for v in lits if isinstance(v, str) and len(v) <= 20}
        self._strs = _safe_sorted_keys(strs)
        chars = set(_SPECIAL_CHARS)
        for v in list(strs) + [a for a in seed_atoms if isinstance(a, str)]:
            chars.update(v[:50])
        for v in lits + seed_atoms:  # digits of the numbers (what ``str(n)`` of them prints)
            if isinstance(v, int) and not isinstance(v, bool) and abs(v) < 10**6:
                chars.update(str(abs(v)))
        self._chars = sorted(chars)
        # literal pool per type name (used for insertions into containers)
        by_type: dict[str, list] = {}
        for v in lits + seed_atoms:
            if isinstance(v, (int, float, str, bytes, bool)) and not (isinstance(v, (str, bytes)) and len(v) > 40):
                by_type.setdefault(_tname(v), [])
                if v not in by_type[_tname(v)]:
                    by_type[_tname(v)].append(v)
        self._by_type = by_type
        # elements for containers that are empty in the seed
        fill: list = [v for v in lits if (isinstance(v, int) and not isinstance(v, bool) and abs(v) < 1000)
                      or (isinstance(v, str) and 0 < len(v) <= 10)][:8]
        for v in (0, 1, "a", *self.elements):
            if isinstance(v, (int, str)) and not isinstance(v, bool) \
                    and not any(type(v) is type(x) and v == x for x in fill):
                fill.append(v)
        # strings as long as the program's small integer literals say (``len(key) == 3``)
        for n in sorted({c for c in lits if isinstance(c, int) and not isinstance(c, bool) and 2 <= c <= 8})[:2]:
            fill.append("a" * n)
        self._fill = fill

    # -- size limits ------------------------------------------------------------------
    def _max_len(self, seed_len: int) -> int:
        return seed_len + MAX_GROWTH

    def _max_resize(self, seed_len: int) -> int:
        """Longest size a *resize* to a program-literal length may reach (``len(x) < 10``
        guards need more than :data:`MAX_GROWTH` elements)."""
        return seed_len + MAX_RESIZE_GROWTH

    # -- single steps -----------------------------------------------------------------
    def step(self, value: Any, rng: random.Random, seed_value: Any = None, depth: int = 0) -> Any:
        """One random mutation step somewhere inside ``value`` (a node of the argument list);
        returns a new value (the input is never modified).  ``seed_value`` is the node at
        the same place in the seed, used for the size limit."""
        if type(seed_value) is not type(value):
            seed_value = _UNKNOWN  # no counterpart of this node's type in the seed
        ref_len = len(seed_value) if isinstance(seed_value, (str, bytes, list, tuple, set, frozenset, dict)) else None
        if self.allow_type_change and rng.random() < 0.08:
            choices = [v for v in _OTHER_TYPE_VALUES if type(v) is not type(value)]
            return rng.choice(choices)
        if isinstance(value, bool):
            return not value
        if isinstance(value, int):
            return self._int_step(value, rng)
        if isinstance(value, float):
            return self._float_step(value, rng)
        if isinstance(value, str):
            return self._str_step(value, rng, ref_len)
        if isinstance(value, bytes):
            s = self._str_step(value.decode("latin-1"), rng, ref_len)
            return s.encode("latin-1", "replace") if all(ord(c) < 256 for c in s) else value[:-1]
        if isinstance(value, (list, tuple)):
            return self._seq_step(value, rng, seed_value, depth)
        if isinstance(value, dict):
            return self._dict_step(value, rng, seed_value, depth)
        if isinstance(value, (set, frozenset)):
            return self._set_step(value, rng, ref_len if depth == 0 else None)
        return value  # None, complex, Ellipsis: nothing type-preserving to do

    def _int_step(self, v: int, rng: random.Random) -> int:
        r = rng.random()
        if r < 0.45:
            return rng.choice(self._ints)
        if r < 0.75:
            return v + rng.choice((1, -1, 2, -2, 3, -3, 5, -5))
        if r < 0.85:
            return -v
        if r < 0.92:
            return v * 2 if abs(v) < 10**9 else v // 2
        return v // 2

    def _float_step(self, v: float, rng: random.Random) -> float:
        r = rng.random()
        if r < 0.5:
            return rng.choice(self._floats)
        if r < 0.8:
            return v + rng.choice((1.0, -1.0, 0.5, -0.5))
        if r < 0.9:
            return -v
        return v / 2

    def _char(self, rng: random.Random) -> str:
        return rng.choice(self._chars)

    def _str_step(self, s: str, rng: random.Random, ref_len: int | None) -> str:
        limit = self._max_len(ref_len if ref_len is not None else len(s))
        ops = ["replace", "insert", "delete", "delete", "literal", "case", "empty", "single", "strip",
               "truncate", "space", "insert-literal", "delete-all", "resize"]
        if self._tokens:
            ops.append("token")
        for _ in range(8):
            op = rng.choice(ops)
            if op == "replace" and s:
                i = rng.randrange(len(s))
                out = s[:i] + self._char(rng) + s[i + 1:]
            elif op == "insert" and len(s) < limit:
                i = rng.randrange(len(s) + 1)
                out = s[:i] + self._char(rng) + s[i:]
            elif op == "delete" and s:
                i = rng.randrange(len(s))
                out = s[:i] + s[i + 1:]
            elif op == "literal" and self._strs:
                out = rng.choice(self._strs)
            elif op == "insert-literal" and self._strs:
                lit = rng.choice(self._strs)
                if len(s) + len(lit) <= limit + 2:
                    i = rng.randrange(len(s) + 1)
                    out = s[:i] + lit + s[i:]
                else:
                    continue
            elif op == "token":
                i = rng.randrange(len(s) + 1)
                out = s[:i] + rng.choice(self._tokens) + s[i:]
            elif op == "case" and s:
                out = rng.choice((s.upper(), s.lower(), s.swapcase(), s.capitalize(), s.title()))
            elif op == "empty":
                out = ""
            elif op == "delete-all" and s:
                c = rng.choice(s)
                out = s.replace(c, "")
            elif op == "resize" and s and self._lengths:
                k = rng.choice(self._lengths)
                if k > limit - MAX_GROWTH + MAX_RESIZE_GROWTH:
                    continue
                out = s[:k] if k <= len(s) else (s * (k // len(s) + 1))[:k]
            elif op == "single" and s:
                out = rng.choice(s)
            elif op == "strip":
                out = s.strip()
            elif op == "truncate" and len(s) > 1:
                i = rng.randrange(1, len(s))
                out = s[:i] if rng.random() < 0.5 else s[i:]
            elif op == "space" and len(s) < limit:
                w = rng.choice((" ", "  ", "\t", "\n"))
                out = w + s if rng.random() < 0.5 else s + w
            else:
                continue
            if out != s:
                return out
        return s + self._char(rng) if len(s) < limit else s[:-1]

    def _element_pool(self, items: list) -> list:
        """Literals of the (atomic) types the container's current elements have; the
        elements are type-valid already, so such literals keep the container valid."""
        types = {_tname(v) for v in items if isinstance(v, (int, float, str, bytes))}
        pool: list = []
        for t in sorted(types):
            pool.extend(self._by_type.get(t, [])[:30])
        return pool

    def _seq_step(self, seq: Any, rng: random.Random, seed_value: Any, depth: int) -> Any:
        items = list(seq)
        ref = seed_value if isinstance(seed_value, (list, tuple)) else seq
        limit = self._max_len(len(ref))
        for _ in range(8):
            op = rng.choice(("mutate", "mutate", "mutate", "delete", "delete", "insert", "insert", "swap", "empty",
                             "single", "reverse", "delete-all", "resize"))
            if op == "mutate" and items:
                i = rng.randrange(len(items))
                sv = ref[i] if ref is seed_value and i < len(ref) else _UNKNOWN
                new = self.step(items[i], rng, sv, depth + 1)
                out = items[:i] + [new] + items[i + 1:]
            elif op == "delete" and items:
                i = rng.randrange(len(items))
                out = items[:i] + items[i + 1:]
            elif op == "insert" and not items and depth == 0 and _empty_seed(seed_value, (list, tuple)):
                out = [rng.choice(self._fill)]
            elif op == "insert" and items and len(items) < limit:
                i = rng.randrange(len(items) + 1)
                pool = self._element_pool(items)
                r = rng.random()
                if pool and r < 0.3:
                    new = rng.choice(pool)
                else:
                    src = rng.choice(items)
                    new = self.step(src, rng, _UNKNOWN, depth + 1) if r < 0.65 else src
                out = items[:i] + [new] + items[i:]
            elif op == "swap" and len(items) > 1:
                i, j = rng.sample(range(len(items)), 2)
                out = list(items)
                out[i], out[j] = out[j], out[i]
            elif op == "empty" and items:
                out = []
            elif op == "delete-all" and items:
                x = rng.choice(items)
                out = [y for y in items if not (type(y) is type(x) and y == x)]
            elif op == "resize" and items and self._lengths:
                k = rng.choice(self._lengths)
                if k > limit - MAX_GROWTH + MAX_RESIZE_GROWTH:
                    continue
                out = items[:k] if k <= len(items) else (items * (k // len(items) + 1))[:k]
            elif op == "single" and len(items) > 1:
                out = [rng.choice(items)]
            elif op == "reverse" and len(items) > 1:
                out = items[::-1]
            else:
                continue
            res = _rebuild(seq, out)
            if res != seq or type(res) is not type(seq):
                return res
        return seq

    def _dict_step(self, d: dict, rng: random.Random, seed_value: Any, depth: int) -> dict:
        keys = list(d)
        ref = seed_value if isinstance(seed_value, dict) else d
        limit = self._max_len(len(ref))
        for _ in range(8):
            op = rng.choice(("value", "value", "delete", "delete", "add", "rename", "empty", "single"))
            if op == "value" and keys:
                k = rng.choice(keys)
                out = dict(d)
                out[k] = self.step(d[k], rng, ref.get(k, _UNKNOWN) if ref is seed_value else _UNKNOWN,
                                   depth + 1)
            elif op == "delete" and keys:
                k = rng.choice(keys)
                out = {kk: vv for kk, vv in d.items() if kk != k}
            elif op == "add" and not keys and depth == 0 and _empty_seed(seed_value, (dict,)):
                k, v = rng.choice(self._fill), rng.choice(self._fill)
                out = {k: v}
            elif op == "add" and keys and len(keys) < limit:
                k = rng.choice(keys)
                nk = self.step(k, rng, k, depth + 1)
                if not _hashable(nk) or nk in d:  # a type-changing step may give a list
                    continue
                out = dict(d)
                out[nk] = d[rng.choice(keys)]
            elif op == "rename" and keys:
                k = rng.choice(keys)
                nk = self.step(k, rng, k, depth + 1)
                if not _hashable(nk) or nk in d:  # a type-changing step may give a list
                    continue
                out = {(nk if kk == k else kk): vv for kk, vv in d.items()}
            elif op == "empty" and keys:
                out = {}
            elif op == "single" and len(keys) > 1:
                k = rng.choice(keys)
                out = {k: d[k]}
            else:
                continue
            if out != d:
                return out
        return d

    def _set_step(self, s: Any, rng: random.Random, ref_len: int | None) -> Any:
        items = _safe_sorted_keys(s)
        limit = self._max_len(ref_len if ref_len is not None else len(s))
        kind = type(s)
        for _ in range(8):
            op = rng.choice(("remove", "add", "empty"))
            if op == "remove" and items:
                x = rng.choice(items)
                out = kind(v for v in items if v != x)
            elif op == "add" and not items and ref_len == 0:
                out = kind([rng.choice(self._fill)])
            elif op == "add" and items and len(items) < limit:
                x = self.step(rng.choice(items), rng, _UNKNOWN, 1)
                if not _hashable(x):
                    continue
                out = kind(items + [x])
            elif op == "empty" and items:
                out = kind()
            else:
                continue
            if out != s:
                return out
        return s

    # -- argument lists ---------------------------------------------------------------
    def mutate(self, args: Args, rng: random.Random, steps: int = 1) -> Args:
        """Apply ``steps`` random steps to an argument list; each step picks one argument
        (weighted by its size, so big arguments get more edits) and mutates inside it."""
        pos, kw = list(args[0]), dict(args[1])
        slots = [("p", i) for i in range(len(pos))] + [("k", k) for k in sorted(kw)]
        if not slots:
            return (pos, kw)
        seed_pos, seed_kw = self.seed
        for _ in range(steps):
            weights = [1 + min(10, _size_hint(pos[i] if t == "p" else kw[i])) for t, i in slots]
            t, i = rng.choices(slots, weights)[0]
            if t == "p":
                sv = seed_pos[i] if i < len(seed_pos) else pos[i]
                pos[i] = self.step(pos[i], rng, sv)
            else:
                kw[i] = self.step(kw[i], rng, seed_kw.get(i, kw[i]))
        return (pos, kw)

    def neighbours(self, args: Args) -> Iterator[Args]:
        """Every systematic one-step mutant of ``args`` (deterministic order): each operator
        applied at each node with each pool value.  Can be long for long strings; callers
        take a prefix or sample from it."""
        pos, kw = args
        seed_pos, seed_kw = self.seed
        for i, v in enumerate(pos):
            sv = seed_pos[i] if i < len(seed_pos) else v
            for nv in self._value_neighbours(v, sv, 0):
                yield (pos[:i] + [nv] + pos[i + 1:], kw)
        for k in sorted(kw):
            for nv in self._value_neighbours(kw[k], seed_kw.get(k, kw[k]), 0):
                yield (pos, {**kw, k: nv})

    def priority_neighbours(self, args: Args) -> Iterator[Args]:
        """A short list of one-step mutants worth running before any sampling of
        :meth:`neighbours` (deterministic order, at most a few dozen per argument):

        * *template tokens* (the ``tokens`` given to the space): each inserted at the start
          and at the end of every string argument and of every string element of a
          list/tuple argument (a string the program uses as a ``str.format`` or ``%``
          template: ``'{a}'`` raises ``KeyError``, ``'{'`` ``ValueError``, ``'{9}'``
          ``IndexError``);
        * *cross-argument values*: one argument takes a value derived from another
          argument of the same call, the coordinated edits that single-node mutation
          reaches only by chance: a string argument becomes another string argument, or
          one of the string keys or elements of a dict, list or tuple argument (a key that
          is present, an element that is found); a string argument loses every occurrence
          of another string argument or gets it appended; a list or tuple argument loses
          every element equal to an atomic argument (what ``xs.index(x)``,
          ``xs.remove(x)`` need to fail); a dict argument loses the key equal to an
          atomic argument, or an atomic argument of a key type the dict has becomes one
          of its keys with another value; an integer argument becomes the length of a
          string or container argument minus one, or its negation minus one (the first
          indices past either end); a string argument gets the decimal text of an integer
          argument appended (``str(num)`` compared with text); a list or tuple argument
          becomes another one of the same type and element types;
        * *coordinated resizes*: a string, list or tuple argument resized to a length the
          program names (``c - 1``, ``c``, ``c + 1`` for its small integer literals ``c``)
          together with every other argument of its type, each resized to the same length
          or made a copy of the resized one (what ``len(a) >= 10 and len(b) >= 10`` followed
          by ``a[i] == b[i]`` needs);
        * *coordinated fills* (:meth:`_coordinated_fills`): two or more list (or tuple)
          arguments that are all empty in the seed filled together with the same fill
          values, in the same order and permuted (``[x, y]`` with ``[y, x]``): what
          ``arr[array.index(s)]`` for ``s in arr`` needs to pick another element than ``s``.

        Every mutant keeps each argument's type and the element types seen in the seed.
        """
        pos, kw = args
        slots = [("p", i) for i in range(len(pos))] + [("k", k) for k in sorted(kw)]
        vals = [pos[i] if t == "p" else kw[i] for t, i in slots]
        out: list[Args] = []
        seen: set[str] = set()

        def put(n: int, v: Any) -> None:
            if type(v) is not type(vals[n]) or v == vals[n]:
                return
            key = f"{n}:{v!r}"
            if key in seen:
                return
            seen.add(key)
            p2, k2 = list(pos), dict(kw)
            t, i = slots[n]
            if t == "p":
                p2[i] = v
            else:
                k2[i] = v
            out.append((p2, k2))

        for n, v in enumerate(vals):
            if isinstance(v, str):
                for tok in self._tokens:
                    put(n, tok + v)
                    put(n, v + tok)
            elif isinstance(v, (list, tuple)) and self._tokens:
                for j, e in enumerate(v[:8]):
                    if isinstance(e, str):
                        for tok in self._tokens:
                            put(n, _rebuild(v, list(v[:j]) + [e + tok] + list(v[j + 1:])))
        for n, v in enumerate(vals):
            for m, w in enumerate(vals):
                if m != n:
                    for x in _cross_values(v, w):
                        put(n, x)
        yield from out
        yield from self._coordinated(pos, kw, slots, vals)
        yield from self._coordinated_fills(pos, kw, slots, vals)

    def paired_neighbours(self, args: Args, firsts: Iterable[Args], heads: int = 6) -> Iterator[Args]:
        """Two-edit mutants: each mutant of ``firsts`` (one-step neighbours of ``args``,
        typically :meth:`priority_neighbours`) combined with one of the first ``heads``
        systematic neighbours (:meth:`neighbours` order: empty, case changes, strip, first
        and last item...) of an argument the first edit left unchanged.  Round ``h`` pairs
        every first mutant with the ``h``-th neighbour of each other argument, so the
        simplest second edits come first.  Deterministic order, no repeats.

        This is the coordinated edit a guard over two arguments needs (``text.endswith(suffix
        + str(num))`` holds for ``suffix = ''`` together with ``text + str(num)``), which
        random multi-step mutation reaches only by chance."""
        pos, kw = args
        slots = [("p", i) for i in range(len(pos))] + [("k", k) for k in sorted(kw)]
        vals = [pos[i] if t == "p" else kw[i] for t, i in slots]
        seed_pos, seed_kw = self.seed
        seed_vals = [(seed_pos[i] if i < len(seed_pos) else pos[i]) if t == "p" else seed_kw.get(i, kw[i])
                     for t, i in slots]
        head: list[list] = []
        for n, v in enumerate(vals):
            h: list = []
            for nv in self._value_neighbours(v, seed_vals[n], 0):
                if type(nv) is type(v):
                    h.append(nv)
                if len(h) >= heads:
                    break
            head.append(h)
        firsts = list(firsts)
        changed: list[list[int]] = []
        for f in firsts:
            fv = [f[0][i] if t == "p" else f[1][i] for t, i in slots]
            changed.append([n for n in range(len(vals)) if not (type(fv[n]) is type(vals[n]) and fv[n] == vals[n])])
        seen: set[str] = set()
        # a template's named fields supplied by a mapping argument (``out.format_map(mapping)``
        # with ``'{a[9]}'`` in ``out`` needs ``mapping['a']``)
        for f, ch in zip(firsts, changed):
            if len(ch) != 1 or not isinstance(vals[ch[0]], str):
                continue
            names = _field_names((f[0][slots[ch[0]][1]] if slots[ch[0]][0] == "p" else f[1][slots[ch[0]][1]]))
            for m, w in enumerate(vals):
                if m == ch[0] or not isinstance(w, dict):
                    continue
                for name in names:
                    if name in w:
                        continue
                    for x in [*(e for e in self._fill if isinstance(e, str)), *NESTED_FILL[:1]]:
                        d = {**w, name: _copy(x)}
                        if not _sig_within(type_signature(d), type_signature(seed_vals[m])):
                            continue
                        p2, k2 = list(f[0]), dict(f[1])
                        t, i = slots[m]
                        if t == "p":
                            p2[i] = d
                        else:
                            k2[i] = d
                        key = repr((p2, sorted(k2.items())))
                        if key not in seen:
                            seen.add(key)
                            yield (p2, k2)
        for r in range(heads):
            for f, ch in zip(firsts, changed):
                if len(ch) != 1:
                    continue
                for m in range(len(vals)):
                    if m in ch or r >= len(head[m]):
                        continue
                    p2, k2 = list(f[0]), dict(f[1])
                    t, i = slots[m]
                    if t == "p":
                        p2[i] = head[m][r]
                    else:
                        k2[i] = head[m][r]
                    key = repr((p2, sorted(k2.items())))
                    if key not in seen:
                        seen.add(key)
                        yield (p2, k2)

    def _coordinated(self, pos: list, kw: dict, slots: list, vals: list) -> Iterator[Args]:
        """Coordinated resizes of same-typed string, list or tuple arguments (see
        :meth:`priority_neighbours`)."""
        sized = [n for n, v in enumerate(vals) if isinstance(v, (str, list, tuple)) and v]
        if len(sized) < 2:
            return
        seen: set[str] = set()

        def make(changes: dict[int, Any]) -> Args | None:
            key = repr(sorted(changes.items()))
            if key in seen:
                return None
            seen.add(key)
            p2, k2 = list(pos), dict(kw)
            for n, v in changes.items():
                t, i = slots[n]
                if t == "p":
                    p2[i] = v
                else:
                    k2[i] = v
            return (p2, k2)

        for k in self._lengths:
            for m in sized:
                w = vals[m]
                if k == len(w) or k > self._max_resize(len(w)):
                    continue
                w2 = _resize(w, k)
                peers = [n for n in sized if n != m and type(vals[n]) is type(w)
                         and _sig_within(type_signature(w2), type_signature(vals[n]))]
                if not peers:
                    continue
                # every same-typed argument resized to k (each repeating its own items)
                both = {m: w2}
                for n in peers:
                    if k <= self._max_resize(len(vals[n])):
                        both[n] = _resize(vals[n], k)
                if len(both) > 1:
                    c = make(both)
                    if c is not None:
                        yield c
                # the others a copy of the resized argument (element-wise comparisons pass)
                copy = {m: w2, **{n: w2 for n in peers}}
                c = make(copy)
                if c is not None:
                    yield c

    def _coordinated_fills(self, pos: list, kw: dict, slots: list, vals: list) -> Iterator[Args]:
        """Coordinated fills of list or tuple arguments that are empty in the seed (see
        :meth:`priority_neighbours`).

        For every group of at least two arguments of one kind (list, tuple) that are all
        empty in the seed, and for each of ``int`` and ``str`` (the first two fill values of
        that type ``x, y``; when the fill has one value of the type, ``y`` is its
        successor: ``x + 1``, or ``'a'`` -> ``'b'``), in this order: every
        argument of the group ``[x]``; every one ``[x, y]``; one argument ``[y, x]`` and
        the others ``[x, y]`` (for each argument in turn); one ``[x]`` and the others
        ``[y]``.  A group of k arguments gives at most ``2 + 2k`` mutants per type.  Only
        whole arguments empty in the seed are filled (the documented rule for element
        types the seed does not show), so every mutant is type-preserving.
        """
        seed_pos, seed_kw = self.seed
        groups: dict[type, list[int]] = {}
        for n, (t, i) in enumerate(slots):
            sv = (seed_pos[i] if i < len(seed_pos) else None) if t == "p" else seed_kw.get(i)
            v = vals[n]
            if type(v) in (list, tuple) and not v and _empty_seed(sv, (list, tuple)) and type(sv) is type(v):
                groups.setdefault(type(v), []).append(n)
        pairs: list[tuple] = []
        for kind in (int, str):
            same = [e for e in self._fill if type(e) is kind]
            if not same:
                continue
            x = same[0]
            y = same[1] if len(same) > 1 else _successor(x)
            if y is not None and y != x:
                pairs.append((x, y))
        for kind, members in groups.items():
            if len(members) < 2:
                continue
            for x, y in pairs:
                fills = [{n: [x] for n in members}, {n: [x, y] for n in members}]
                fills += [{n: ([y, x] if n == m else [x, y]) for n in members} for m in members]
                fills += [{n: ([x] if n == m else [y]) for n in members} for m in members]
                for f in fills:
                    p2, k2 = list(pos), dict(kw)
                    for n, items in f.items():
                        t, i = slots[n]
                        if t == "p":
                            p2[i] = kind(items)
                        else:
                            k2[i] = kind(items)
                    yield (p2, k2)

    def _value_neighbours(self, v: Any, sv: Any, depth: int) -> Iterator[Any]:
        """One-step neighbours of the node ``v`` (``sv``: the seed's node at this place);
        at most :data:`LONG_NEIGHBOURS` of them when ``v`` is long (:data:`LONG_SEQUENCE`)."""
        gen = self._all_value_neighbours(v, sv, depth)
        if _size_hint(v) > LONG_SEQUENCE:
            return itertools.islice(gen, LONG_NEIGHBOURS)
        return gen

    def _all_value_neighbours(self, v: Any, sv: Any, depth: int) -> Iterator[Any]:
        if self.allow_type_change and depth == 0:
            for o in _OTHER_TYPE_VALUES:
                if type(o) is not type(v):
                    yield o
        if isinstance(v, bool):
            yield not v
        elif isinstance(v, int):
            for x in self._ints + [v + 1, v - 1, -v, v * 2 if abs(v) < 10**9 else v, v // 2]:
                if x != v:
                    yield x
            if depth == 0:  # whole arguments only: past the C ``ssize_t`` range
                for x in BIG_INTS:
                    if x != v:
                        yield x
        elif isinstance(v, float):
            for x in self._floats + [v + 1, v - 1, -v, v / 2]:
                if x != v:
                    yield x
        elif isinstance(v, str):
            yield from self._str_neighbours(v, sv)
        elif isinstance(v, bytes):
            for s in self._str_neighbours(v.decode("latin-1"), sv.decode("latin-1") if isinstance(sv, bytes) else None):
                if all(ord(c) < 256 for c in s):
                    yield s.encode("latin-1")
        elif isinstance(v, (list, tuple)):
            yield from self._seq_neighbours(v, sv, depth)
        elif isinstance(v, dict):
            yield from self._dict_neighbours(v, sv, depth)
        elif isinstance(v, (set, frozenset)):
            items = _safe_sorted_keys(v)
            kind = type(v)
            for i in _positions(len(items)):
                x = items[i]
                yield kind(y for y in items if y != x)
            if items:
                yield kind()
            elif depth == 0 and _empty_seed(sv, (set, frozenset)):
                for e in self._fill:
                    yield kind([e])

    def _str_neighbours(self, s: str, sv: Any) -> Iterator[str]:
        ref_len = len(sv) if isinstance(sv, str) else len(s)
        seen = {s}

        def new(x: str) -> bool:
            if x in seen:
                return False
            seen.add(x)
            return True

        cands: list[str] = ["", s.upper(), s.lower(), s.swapcase(), s.strip(), " " + s, s + " "]
        if s:
            cands += [s[0], s[-1], s[1:], s[:-1]]
        cands += list(self._strs)
        for x in cands:
            if new(x):
                yield x
        for i in _positions(len(s)):
            x = s[:i] + s[i + 1:]
            if new(x):
                yield x
        for c in itertools.islice(dict.fromkeys(s), LONG_POSITIONS if len(s) > LONG_SEQUENCE else None):
            x = s.replace(c, "")
            if new(x):
                yield x
        for k in self._lengths:
            if k < len(s):
                x = s[:k]
            elif s and k <= self._max_resize(ref_len):
                x = (s * (k // len(s) + 1))[:k]
            else:
                continue
            if new(x):
                yield x
        chars = self._chars
        if len(s) < self._max_len(ref_len):
            for i in _positions(len(s) + 1):
                for c in chars:
                    x = s[:i] + c + s[i:]
                    if new(x):
                        yield x
        for i in _positions(len(s)):
            for c in chars:
                x = s[:i] + c + s[i + 1:]
                if new(x):
                    yield x
        for lit in self._strs:
            for i in _positions(len(s) + 1):
                x = s[:i] + lit + s[i:]
                if new(x):
                    yield x

    def _seq_neighbours(self, seq: Any, sv: Any, depth: int) -> Iterator[Any]:
        items = list(seq)
        ref = sv if isinstance(sv, (list, tuple)) else seq
        # neighbours already given, by equality key (``_eq_key``: equal keys exactly for
        # ``==``-equal values, so a set replaces the former linear scan of a list); values
        # without a key (unhashable parts) are compared with ``==`` one by one
        keys_seen: set = set()
        out_seen: list = []

        def fresh(x: Any) -> bool:
            if x == seq:
                return False
            try:
                key = _eq_key(x)
                hash(key)
            except TypeError:
                if x in out_seen:
                    return False
                out_seen.append(x)
                return True
            if key in keys_seen:
                return False
            keys_seen.add(key)
            return True

        simple = [[]] + ([items[:1], items[-1:], items[1:], items[:-1], items[::-1]] if items else [])
        for x in simple:
            r = _rebuild(seq, x)
            if fresh(r):
                yield r
        for i in _positions(len(items)):
            r = _rebuild(seq, items[:i] + items[i + 1:])
            if fresh(r):
                yield r
        for i in _positions(len(items)):
            x = items[i]
            r = _rebuild(seq, [y for y in items if not (type(y) is type(x) and y == x)])
            if fresh(r):
                yield r
        for k in self._lengths:
            if k < len(items):
                r = _rebuild(seq, items[:k])
            elif items and k <= self._max_resize(len(ref)):
                r = _rebuild(seq, (items * (k // len(items) + 1))[:k])
            else:
                continue
            if fresh(r):
                yield r
        if not items and depth == 0 and _empty_seed(sv, (list, tuple)):
            for e in self._fill:
                yield _rebuild(seq, [e])
            for e in NESTED_FILL:
                yield _rebuild(seq, [_copy(e)])
            for e in self._fill[:3]:
                for e2 in self._fill[:3]:
                    if type(e) is type(e2):
                        yield _rebuild(seq, [e, e2])
        if items and len(items) < self._max_len(len(ref)):
            pool = list(dict.fromkeys(_hashable_only(items))) + self._element_pool(items)
            for i in _positions(len(items) + 1):
                for e in pool[:12]:
                    r = _rebuild(seq, items[:i] + [e] + items[i:])
                    if fresh(r):
                        yield r
        for i in _positions(len(items)):
            sub_ref = ref[i] if ref is sv and i < len(ref) else _UNKNOWN
            for nv in self._value_neighbours(items[i], sub_ref, depth + 1):
                yield _rebuild(seq, items[:i] + [nv] + items[i + 1:])
        for i in _positions(len(items) - 1):
            if items[i] != items[i + 1]:
                x = list(items)
                x[i], x[i + 1] = x[i + 1], x[i]
                yield _rebuild(seq, x)

    def _dict_neighbours(self, d: dict, sv: Any, depth: int) -> Iterator[dict]:
        keys = list(d)
        if not keys and depth == 0 and _empty_seed(sv, (dict,)):
            for k in self._fill:
                for v in self._fill:
                    yield {k: v}
            for k in self._fill[:3]:
                for v in NESTED_FILL:
                    yield {k: _copy(v)}
        if keys:
            yield {}
        some = [keys[i] for i in _positions(len(keys))]  # every key unless the dict is long
        for k in some:
            yield {kk: vv for kk, vv in d.items() if kk != k}
        if len(keys) > 2:  # one key kept (what ``del d[k]; min(d)`` needs); two keys: a deletion above
            for k in keys[:8]:
                yield {k: d[k]}
        for k in some:
            ref = sv.get(k, _UNKNOWN) if isinstance(sv, dict) else _UNKNOWN
            for nv in self._value_neighbours(d[k], ref, depth + 1):
                out = dict(d)
                out[k] = nv
                yield out
        for k in some:
            for nk in self._value_neighbours(k, k, depth + 1):
                if _hashable(nk) and nk not in d:
                    yield {(nk if kk == k else kk): vv for kk, vv in d.items()}
                    out = dict(d)
                    out[nk] = d[k]
                    yield out


def _field_names(template: str) -> list[str]:
    """The named fields of a ``str.format`` template (``'{a[9]} {b}'`` -> ``['a', 'b']``),
    read with :class:`string.Formatter` (parsing only); ``[]`` when it does not parse."""
    import string

    out: list[str] = []
    try:
        for _, field_name, _, _ in string.Formatter().parse(template):
            if field_name:
                name = field_name.split(".")[0].split("[")[0]
                if name.isidentifier() and name not in out:
                    out.append(name)
    except (ValueError, TypeError):
        return out
    return out


def _successor(v: Any) -> Any:
    """The next value after ``v`` of its type: ``v + 1`` for an int, the last character
    advanced by one code point for a non-empty str (``'a'`` -> ``'b'``); ``None`` otherwise."""
    if type(v) is int:
        return v + 1
    if type(v) is str and v and ord(v[-1]) < 0x10FFFF:
        return v[:-1] + chr(ord(v[-1]) + 1)
    return None


def _resize(v: Any, k: int) -> Any:
    """``v`` (a non-empty str, list or tuple) truncated or extended to ``k`` items by
    repeating itself."""
    out = v[:k] if k <= len(v) else (v * (k // len(v) + 1))[:k]
    return out


def _atom(v: Any) -> bool:
    return isinstance(v, (int, float, str, bytes)) and not isinstance(v, bool)


def _cross_values(v: Any, w: Any, limit: int = 8) -> list:
    """Values for argument ``v`` derived from another argument ``w`` (see
    :meth:`MutationSpace.priority_neighbours`); each has ``v``'s type, and containers keep
    their element types."""
    out: list = []
    if isinstance(v, str):
        if isinstance(w, str):
            out.append(w)
            if w and w in v:
                out.append(v.replace(w, ""))
            elif w and len(w) <= MAX_GROWTH:
                out.append(v + w)
        elif isinstance(w, dict):
            out.extend([k for k in w if type(k) is str][:limit])
        elif isinstance(w, (list, tuple)):
            els = [e for e in w if type(e) is str]
            out.extend(list(dict.fromkeys(els))[:limit])
            out.extend(v.replace(e, "") for e in list(dict.fromkeys(els))[:limit] if e and e in v)
        elif isinstance(w, int) and not isinstance(w, bool) and abs(w) < 10**6:
            out.append(v + str(w))
    elif isinstance(v, int) and not isinstance(v, bool):
        if isinstance(w, (str, bytes, list, tuple, dict, set, frozenset)):
            out.extend((len(w) - 1, -len(w) - 1))
    elif isinstance(v, (list, tuple)):
        if _atom(w) and any(type(e) is type(w) and e == w for e in v):
            out.append(_rebuild(v, [e for e in v if not (type(e) is type(w) and e == w)]))
        if type(w) is type(v) and w and _sig_within(type_signature(w), type_signature(v)):
            out.append(w)
    elif isinstance(v, dict):
        if _atom(w) and _hashable(w):
            if w in v and any(type(k) is type(w) for k in v):
                out.append({k: x for k, x in v.items() if not (type(k) is type(w) and k == w)})
            elif v and any(type(k) is type(w) for k in v):
                vals = list(v.values())
                for x in (vals[-1], vals[0]):
                    d = dict(v)
                    d[w] = x
                    out.append(d)
    return out


#: marks a node with no counterpart in the seed (an inserted or renamed element)
_UNKNOWN = object()

#: container elements (and dict values) given to a list, tuple or dict argument that is
#: empty in the seed, besides the scalar fill values: ``[[]]`` is what
#: ``for vec in vectors: vec.sort()`` needs to return something else than ``[]``
NESTED_FILL = ([], {})


def _copy(v: Any) -> Any:
    """A fresh copy of an (empty) container from :data:`NESTED_FILL` (mutants never share
    mutable parts)."""
    return type(v)(v) if isinstance(v, (list, dict)) else v


def _empty_seed(seed_value: Any, kinds: tuple) -> bool:
    """Whether the seed had an empty container of one of ``kinds`` at this place (only
    then may it receive elements of program-literal types).  Callers ask only for whole
    arguments: inside a container, positions no longer line up with the seed's after an
    insertion or deletion."""
    return isinstance(seed_value, kinds) and len(seed_value) == 0


def _positions(n: int) -> range | list[int]:
    """The indices ``0 .. n - 1`` at which the systematic neighbours apply a position-wise
    operator: all of them when ``n <= LONG_SEQUENCE``, else :data:`LONG_POSITIONS` of them
    (the first and last third of that many, and evenly spaced ones between), in order."""
    if n <= LONG_SEQUENCE:
        return range(max(n, 0))
    k = LONG_POSITIONS // 3
    mid = {k + (n - 2 * k) * j // (k + 1) for j in range(1, k + 1)}
    return sorted(set(range(k)) | mid | set(range(n - k, n)))


def _eq_key(v: Any) -> Any:
    """A key for ``v`` such that two literal values have equal keys exactly when they are
    ``==``-equal (lists and tuples are told apart, as ``==`` does; ``1``, ``1.0`` and
    ``True`` are not, as ``==`` does not).  Raises ``TypeError`` when some part of ``v``
    is unhashable and not a list, tuple, dict, set or frozenset."""
    if type(v) is list:
        return (list, tuple(_eq_key(x) for x in v))
    if type(v) is tuple:
        return (tuple, tuple(_eq_key(x) for x in v))
    if type(v) is dict:
        return (dict, frozenset((k, _eq_key(x)) for k, x in v.items()))
    if type(v) in (set, frozenset):
        return (set, frozenset(v))
    hash(v)
    return v


def _hashable(v: Any) -> bool:
    try:
        hash(v)
    except TypeError:
        return False
    return True


def _hashable_only(items: list) -> list:
    return [x for x in items if _hashable(x)]


def _size_hint(v: Any) -> int:
    if isinstance(v, (str, bytes, list, tuple, set, frozenset, dict)):
        return len(v)
    return 1
