"""The input-mutation engine: type-preserving (and, on request, type-changing) edits of
parsed argument lists, for both of its users.

* Verification inputs (:func:`mutate_args`, through :meth:`MutationSpace.mutants`): up to
  ``n`` distinct mutant texts of a seed input, a share of them systematic edge cases
  (:mod:`codemorph.inputs.edges`), the rest random type-exact mutants
  (:meth:`MutationSpace.mutate_value`, :meth:`MutationSpace.cross_edit`).
* The perturbation search (:mod:`codemorph.perturb.search`): random steps
  (:meth:`MutationSpace.step`, :meth:`MutationSpace.mutate`), systematic one-step
  neighbours (:meth:`MutationSpace.neighbours`), cross-argument values, coordinated resizes
  and fills (:meth:`MutationSpace.priority_neighbours`), two-edit mutants
  (:meth:`MutationSpace.paired_neighbours`), and type-changing steps under
  ``allow_type_change``.

Both draw on one :class:`MutationSpace` per seed: one set of constants (the program's
literals, the seed's characters and lengths), one type rule
(:mod:`codemorph.inputs.values`) and one size limit (:data:`MAX_GROWTH`).  The random edits
come in two distributions, kept apart because the verification inputs and the search
findings of every row are fixed by their seeded random sequences: the *exact* one of
verification inputs (an empty seed container stays empty, no resize beyond
:data:`MAX_GROWTH`) and the *search* one (weighted operators, resizes to the program's
lengths up to :data:`MAX_RESIZE_GROWTH`, fills of containers empty in the seed).

Verification mutants (:meth:`MutationSpace.mutants`)
-----------------------------------------------------

Mutation operators of :func:`mutate_args` (each mutant starts from the seed and changes one
argument, sometimes two; a changed container may have one of its elements changed in turn,
down to depth 3).  Every operator keeps the exact type of the value it changes, and new
container elements are copies or mutants of elements already in that container, so
containers keep the element types seen in the seed (an empty seed container stays empty;
:func:`codemorph.inputs.seeds.plan_seeds` gives verification such seeds filled proxies to
mutate instead):

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

Sizes stay small: a mutant container or string is never longer than its seed plus 4.
A mutant never equals the seed (compared by its canonical text, which is type-exact), and
mutants are distinct.  Mutation is deterministic for a given state of ``rng`` and does not
depend on ``PYTHONHASHSEED`` (sets are visited in a canonical order).

Perturbation-search steps and neighbours
----------------------------------------

Structural, type-preserving mutation of parsed argument lists.

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
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Iterable, Iterator

import codemorph.inputs.edges as edges
from codemorph.errors import InputError
from codemorph.inputs.literals import canonical_key, format_args, parse_args
from codemorph.inputs.values import (MAX_GROWTH, SIZED, Args, Constants, atoms_of, fits, is_hashable,
                                     is_type_changing, type_paths, type_signature, within_signature)

__all__ = ["MutationSpace", "mutate_args", "MAX_GROWTH", "CROSS_SHARE", "MAX_RESIZE_GROWTH", "BIG_INTS",
           "NESTED_FILL", "is_type_changing", "type_signature", "type_paths", "Args", "LONG_SEQUENCE",
           "LONG_POSITIONS", "LONG_NEIGHBOURS"]

#: Share of the mutants of a multi-argument seed made by a cross-argument operator.
CROSS_SHARE = 0.35
_MAX_DEPTH = 3

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


def _rebuild(container: Any, items: list) -> Any:
    if isinstance(container, tuple):
        return tuple(items)
    return items


def _safe_sorted_keys(values: Iterable[Any]) -> list:
    return sorted(values, key=lambda v: (type(v).__name__, repr(v)))


@dataclass
class MutationSpace:
    """Mutation operators for the argument lists of one program and one seed input.

    One engine, two users: verification inputs (:meth:`mutants`, :meth:`mutate_value`,
    :meth:`cross_edit`: the exact edits, see the module docstring) and the perturbation
    search (:meth:`step`, :meth:`mutate`, :meth:`neighbours`, :meth:`priority_neighbours`,
    :meth:`paired_neighbours`).  Argument lists are ``(args, kwargs)`` pairs: a list of
    positional values and a dict of keyword values (:func:`codemorph.inputs.parse_args`).

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
        hints: names of the functions and methods the program calls
            (:func:`codemorph.verification.program_calls`), for the edge cases of
            :meth:`mutants` (``isdecimal``: a digit put into strings).

    All randomness comes from the ``random.Random`` passed to each method, so mutants are
    deterministic for a given generator state.
    """

    seed: Args
    literals: Iterable[Any] = ()
    allow_type_change: bool = False
    tokens: Iterable[str] = ()
    elements: Iterable[Any] = ()
    hints: Iterable[str] = ()

    def __post_init__(self) -> None:
        # iterables may be generators: both operator tables read them
        self.literals = tuple(self.literals)
        self.tokens = tuple(self.tokens)
        self.elements = tuple(self.elements)
        self.hints = tuple(self.hints)

    #: the tables of the search's operators, built on first use (:meth:`_build_tables`)
    _TABLES = frozenset({"_ints", "_floats", "_strs", "_chars", "_by_type", "_fill", "_lengths", "_tokens"})

    def __getattr__(self, name: str) -> Any:
        if name in MutationSpace._TABLES:
            self._build_tables()
            return object.__getattribute__(self, name)
        raise AttributeError(name)

    @cached_property
    def constants(self) -> Constants:
        """The constants of the exact (verification) edits and of the edge cases: the
        program's ``literals``, the seed's characters and the program's calls ``hints``
        (a :class:`~codemorph.inputs.values.Constants`)."""
        return Constants(self.literals, list(self.seed[0]) + list(self.seed[1].values()), self.hints)

    def _build_tables(self) -> None:
        """The search's operator tables: integers, lengths, floats, strings, characters,
        literals by type and fill values for containers empty in the seed."""
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
                by_type.setdefault(type(v).__name__, [])
                if v not in by_type[type(v).__name__]:
                    by_type[type(v).__name__].append(v)
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
        types = {type(v).__name__ for v in items if isinstance(v, (int, float, str, bytes))}
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
                if not is_hashable(nk) or nk in d:  # a type-changing step may give a list
                    continue
                out = dict(d)
                out[nk] = d[rng.choice(keys)]
            elif op == "rename" and keys:
                k = rng.choice(keys)
                nk = self.step(k, rng, k, depth + 1)
                if not is_hashable(nk) or nk in d:  # a type-changing step may give a list
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
                if not is_hashable(x):
                    continue
                out = kind(items + [x])
            elif op == "empty" and items:
                out = kind()
            else:
                continue
            if out != s:
                return out
        return s

    # -- verification inputs (exact edits) --------------------------------------------
    def mutate_value(self, v: Any, rng: random.Random) -> Any:
        """One random exact edit of a whole argument value ``v``: a value of exactly
        ``type(v)``, usually different from ``v``, whose containers keep the element types
        of ``v`` (the verification operators of the module docstring)."""
        return _mutate(v, rng, self.constants, 0)

    def cross_edit(self, values: list, seeds: list, rng: random.Random) -> tuple[int, Any] | None:
        """One cross-argument edit of the argument values ``values`` (the seed's values are
        ``seeds``, same order, at least two): ``(index of the changed argument, its new
        value)``, or ``None`` when the drawn operator does not apply (see :func:`_cross`)."""
        return _cross(values, seeds, rng)

    def mutants(self, n: int, rng: random.Random) -> list[str]:
        """Up to ``n`` distinct mutant texts of the seed: for ``n >=``
        :data:`~codemorph.inputs.edges.EDGE_MIN_REQUEST`, ``round(n * EDGE_SHARE)`` edge
        cases first (:func:`~codemorph.inputs.edges.pick_edges`), then random exact
        mutants (one or two arguments edited by :meth:`mutate_value`, or a share
        :data:`CROSS_SHARE` made by :meth:`cross_edit`).  What :func:`mutate_args`
        returns; ``rng`` is the only source of randomness."""
        args, kwargs = list(self.seed[0]), dict(self.seed[1])
        if n <= 0:
            return []
        slots: list[tuple[str, Any]] = [("pos", i) for i in range(len(args))] + [("kw", k) for k in kwargs]
        if not slots:
            return []
        seen = {format_args(args, kwargs)}
        out: list[str] = []
        if n >= edges.EDGE_MIN_REQUEST:
            # a share of systematic edge cases first, then random mutants
            k = round(n * edges.EDGE_SHARE)
            fill = min(k, edges.EDGE_FILL) if edges.is_short(list(args) + list(kwargs.values())) else 0
            picked = edges.pick_edges(edges.edges_of(args, kwargs, self.constants, fill=fill), k,
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
                        new_args[key] = self.mutate_value(new_args[key], rng)
                    else:
                        new_kwargs[key] = self.mutate_value(new_kwargs[key], rng)
                values = new_args + [new_kwargs[k] for k in kwargs]
                seeds = list(args) + [kwargs[k] for k in kwargs]
                change = self.cross_edit(values, seeds, rng)
                if change is None or not fits(change[1], seeds[change[0]]):
                    continue
                at, value = change
                if at < len(new_args):
                    new_args[at] = value
                else:
                    new_kwargs[slots[at][1]] = value
                if not all(fits(v, s) for v, s in zip(new_args + [new_kwargs[k] for k in kwargs], seeds)):
                    continue
            else:
                k = 2 if len(slots) > 1 and rng.random() < 0.3 else 1
                for kind, key in rng.sample(slots, k):
                    if kind == "pos":
                        new_args[key] = self.mutate_value(new_args[key], rng)
                    else:
                        new_kwargs[key] = self.mutate_value(new_kwargs[key], rng)
            try:
                mutant = format_args(new_args, new_kwargs)
            except InputError:
                continue
            if mutant in seen:
                continue
            seen.add(mutant)
            out.append(mutant)
        return out

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
                        if not within_signature(type_signature(d), type_signature(seed_vals[m])):
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
                         and within_signature(type_signature(w2), type_signature(vals[n]))]
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
                if is_hashable(nk) and nk not in d:
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
        if type(w) is type(v) and w and within_signature(type_signature(w), type_signature(v)):
            out.append(w)
    elif isinstance(v, dict):
        if _atom(w) and is_hashable(w):
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


def _hashable_only(items: list) -> list:
    return [x for x in items if is_hashable(x)]


def _size_hint(v: Any) -> int:
    if isinstance(v, (str, bytes, list, tuple, set, frozenset, dict)):
        return len(v)
    return 1


# ------------------------------------------- exact (verification) random edits
def _literal_lengths(pool: Constants, n: int) -> list[int]:
    """Lengths ``c-1, c, c+1`` for the program's integer literals ``c``, other than ``n``
    and within ``0..n + MAX_GROWTH`` (to reach branches such as ``len(x) > 3``)."""
    out = {c + d for c in pool.ints for d in (-1, 0, 1)}
    return sorted(k for k in out if 0 <= k <= n + MAX_GROWTH and k != n)


def _mut_int(v: int, rng: random.Random, pool: Constants) -> int:
    ops = [0, 1, -1, v + 1, v - 1, v + rng.randint(2, 5), v - rng.randint(2, 5), -v, v * 2, v // 2]
    for c in pool.ints:
        ops += [c, c + 1, c - 1]
    return rng.choice(ops)


def _mut_float(v: float, rng: random.Random, pool: Constants) -> float:
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


def _mut_str(v: str, rng: random.Random, pool: Constants, limit: int) -> str:
    return _mut_seq_text(v, rng, pool.chars, pool.strs, "", limit, _literal_lengths(pool, len(v)))


def _mut_bytes(v: bytes, rng: random.Random, pool: Constants, limit: int) -> bytes:
    alphabet = [bytes([b]) for b in pool.byte_values]
    return _mut_seq_text(v, rng, alphabet, pool.bytes, b"", limit, _literal_lengths(pool, len(v)))


def _new_element(elems: list, rng: random.Random, pool: Constants, depth: int) -> Any:
    e = rng.choice(elems)
    return e if rng.random() < 0.3 else _mutate(e, rng, pool, depth + 1)


def _mut_list(v: list, rng: random.Random, pool: Constants, depth: int, resizable: bool = True) -> list:
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


def _mut_dict(v: dict, rng: random.Random, pool: Constants, depth: int) -> dict:
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
            if is_hashable(k) and k not in v:
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


def _mut_set(v: Any, rng: random.Random, pool: Constants, depth: int) -> Any:
    t = type(v)
    elems = sorted(v, key=canonical_key)
    n = len(elems)
    if not n:
        return t()
    op = rng.choice(["delete", "add", "replace", "empty", "single"])
    out = list(elems)
    if op in ("add", "replace"):
        for _ in range(8):
            e = _mutate(rng.choice(elems), rng, pool, depth + 1)
            if is_hashable(e) and e not in v:
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


def _mutate(v: Any, rng: random.Random, pool: Constants, depth: int) -> Any:
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
    if ti is int and tj in SIZED:
        ops.append("index")
    if tj in (list, tuple, set, frozenset, dict) and any(type(a) is ti for a in atoms_of(vj)):
        ops.append("pick")
    texts = [a for a in ([vj] + atoms_of(vj)) if type(a) is ti and a] if ti in (str, bytes) else []
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
        return i, rng.choice([a for a in atoms_of(vj) if type(a) is ti])
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
        if not is_hashable(vj) or vj in vi or not any(type(e) is tj for e in vi):
            return None
        return i, ti(list(vi) + [vj])
    # dict: vj becomes a key (with a copy of an existing value) when keys have its type
    if not is_hashable(vj) or not any(type(k) is tj for k in vi):
        return None
    items = list(vi.items())
    if vj in vi:
        return None
    items.insert(rng.randint(0, len(items)), (vj, rng.choice(items)[1]))
    return i, dict(items)


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
        :func:`edge_cases` (fewer when there are fewer; a short seed (:func:`~codemorph.inputs.edges.is_short`) with
        fewer than :data:`EDGE_FILL` first-generation edge cases is topped up to that many
        with edge cases of its edge cases), picked with ``rng`` round-robin over their categories; the
        rest are random mutants.

    Raises:
        InputError: when ``text`` is not an argument-list literal.
    """
    seed = parse_args(text)
    if n <= 0:
        return []
    return MutationSpace(seed, literals, hints=hints).mutants(n, rng)
