"""Systematic edge cases of an argument list (deterministic, no randomness).

Random one-step mutation (:func:`codemorph.inputs.mutate_args`) reaches some inputs that
expose common bugs only with small probability: an all-capitals text, a two-character string
of one repeated letter (``'gg'``), a program literal at both ends of the text, an empty
argument together with a trailing space in another one.  :func:`edge_cases` lists such inputs
by category; :func:`mutate_args` draws a share :data:`EDGE_SHARE` of its mutants from them
(:func:`pick_edges`).  Every edge case keeps the seed's types and size limit
(:func:`codemorph.inputs.values.fits`).
"""

from __future__ import annotations

import itertools
import math
import random
from typing import Any, Iterable

from codemorph.errors import InputError
from codemorph.inputs.literals import canonical_key, format_args, parse_args
from codemorph.inputs.values import MAX_GROWTH, SIZED, Constants, atoms_of, fits

__all__ = ["edge_cases", "pick_edges", "EDGE_SHARE", "EDGE_MIN_REQUEST", "EDGE_FILL", "EDGE_MAX_RELATED",
           "EDGE_MAX_ARGS", "SHORT_CHARS", "SHORT_ELEMENTS", "CLASS_CALLS", "RANKED", "is_short", "edges_of"]

#: Share of the mutants of :func:`mutate_args` taken from :func:`edge_cases` (the rest are
#: random), for requests of at least :data:`EDGE_MIN_REQUEST` mutants.
EDGE_SHARE = 0.7
#: Smallest request of :func:`mutate_args` that gets edge cases (coverage-guided rounds ask
#: for one mutant at a time: random ones).
EDGE_MIN_REQUEST = 5
#: A short seed (:func:`is_short`) with fewer edge cases than this gets edge cases of its edge
#: cases up to this many (:func:`_second_generation`): the edge-case share of the default
#: request (49 mutants).  A larger request (the mutation benchmark's oracle asks for 499) gets
#: no more of them than that: its extra room stays with random mutants.
EDGE_FILL = 34
#: A seed is short when every string (bytes) argument has at most this many characters and
#: every container argument at most :data:`SHORT_ELEMENTS` elements.
SHORT_CHARS = 3
SHORT_ELEMENTS = 2


def is_short(values: list) -> bool:
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


def _text_edges(v: Any, pool: Constants, limit: int) -> list[tuple[str, Any]]:
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


def _value_edges(v: Any, pool: Constants, limit_extra: int = MAX_GROWTH, depth: int = 0) -> list[tuple[str, Any]]:
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
        longest = max(range(n), key=lambda k: (len(items[k]) if type(items[k]) in SIZED else 0, -k))
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
        elems = sorted(v, key=canonical_key)
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
        texts = [a for a in [vj] + atoms_of(vj) if type(a) is ti and a][:4]
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
    elif ti is int and tj in SIZED:
        m = len(vj)
        out += [("index", x) for x in (m - 1, m, m + 1, -m, -m - 1, -1, 0, m // 2)]
    if tj in (list, tuple, set, frozenset, dict):
        atoms = [a for a in atoms_of(vj) if type(a) is ti]
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
    return edges_of(args, kwargs, Constants(literals, list(args) + list(kwargs.values()), hints), fill)


#: edge cases relating two arguments (``cross``, ``pairs``) are made among the first this
#: many arguments, edge cases of one argument among the first :data:`EDGE_MAX_ARGS`: each
#: candidate formats every argument, so a 250-argument row would otherwise cost minutes of
#: host time (random mutants still reach every argument)
EDGE_MAX_RELATED = 8
EDGE_MAX_ARGS = 32


def edges_of(args: list, kwargs: dict, pool: Constants, fill: int = 0) -> dict[str, list[str]]:
    """:func:`edge_cases` of a parsed argument list ``(args, kwargs)`` with the constants
    ``pool`` (a :class:`~codemorph.inputs.values.Constants`); same result shape."""
    keys = list(kwargs)
    seeds = list(args) + [kwargs[k] for k in keys]
    seen = {format_args(args, kwargs)}
    out: dict[str, list[str]] = {}

    def put(cat: str, values: list) -> None:
        if not all(fits(x, s) for x, s in zip(values, seeds)):
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


def _second_generation(first: dict[str, list[str]], seeds: list, n_args: int, keys: list, pool: Constants,
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
                if not all(fits(a, b) for a, b in zip(new, seeds)):
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


def pick_edges(edges: dict[str, list[str]], k: int, rng: random.Random) -> list[str]:
    """``k`` edge cases from ``edges`` (``{category: [argument-list text, ...]}`` as
    :func:`edge_cases` returns), drawn round-robin over the categories (in a random order,
    from ``rng``), from each category in a random order, except the :data:`RANKED` ones, which give their values in
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
