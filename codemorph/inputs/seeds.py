"""Seed inputs that mutation alone cannot vary, made variable: empty containers and calls.

:func:`~codemorph.inputs.mutate_args` keeps the element types it sees in the seed, so an
empty container (``[]``, ``{}``, ``set()``) stays empty in every mutant, and a seed that is
a call rather than a literal (``list(range(5))``, ``'a-b'.split('-')``) gets no mutants at
all.  A differential check on such a seed compares the two programs on one input.
:func:`plan_seed` turns such a seed into literal *proxies* that can be mutated:

* **Call arguments** are evaluated in the sandbox, in the program's own module (so
  ``thigh_o_two[:]`` sees the program's global), never in the host; an argument whose value
  has a ``repr`` that is a literal reading back to an equal value of the same type
  (checked in the sandbox, and again on the host by :func:`~codemorph.inputs.parse_args`
  and :func:`~codemorph.inputs.format_value`) becomes that literal; any other argument (a
  lambda, an object) is kept as its source text in every mutant.
* **Empty containers** at the top level of an argument get element types from what the
  entry point does with their elements (:func:`element_evidence`): the operations and
  methods applied to them (``x + 1``, ``x.upper()``, ``vec.sort()``), comparisons with
  literals (``x < 0``), what is put into the container (``xs.append('a')``, ``xs.append(y)``
  for a parameter ``y``), builtins applied to the container (``sum(xs)``, ``''.join(xs)``),
  dict keys and values (``d['a']``, ``d[k] += 1``), then the element types of the other
  arguments; failing those, a few common types (:data:`FALLBACK_TYPES`).  Every candidate
  is tried in the sandbox (one short run per candidate): candidates on which the program
  returns are preferred, then those on which it raises something other than
  ``TypeError`` (it ran with them, and raised for another reason); at most
  :data:`MAX_PROXIES` are kept.  Each gives a proxy: the seed with the container filled
  with three elements of the type.
* **No usable parameter types**: when every argument of the seed is ``None`` or opaque,
  the ``None`` arguments are tried with an ``int``, a ``str`` and a ``list`` in the sandbox,
  and the types the program demonstrably accepts (by the same rule) give proxies whose
  mutants are boundary values of those types.

The proxies' mutants are verification inputs like any other mutant; a seed whose
arguments are all literals without a top-level empty container gets no plan
(:func:`needs_plan` is false) and its mutants are exactly what they were.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, Sequence

from codemorph.errors import InputError
from codemorph.inputs.literals import format_args, format_value, parse_args
from codemorph.sandbox.pool import ExecRequest, Sandbox

__all__ = ["SeedPlan", "cross_shape", "needs_plan", "plan_seed", "plan_seeds", "element_evidence", "filled_shapes",
           "FALLBACK_TYPES", "MAX_PROXIES", "MAX_SHAPES", "EVALUATOR"]

#: element types tried in the sandbox when the program shows none (in this order)
FALLBACK_TYPES = ("int", "str")
#: dict (key type, value type) pairs tried when the program shows neither
FALLBACK_ITEMS = (("str", "int"), ("int", "str"), ("str", "str"))
#: most proxies (filled versions of the seed) per seed
MAX_PROXIES = 2
#: name of the function appended to the program to evaluate call arguments in the sandbox
EVALUATOR = "__codemorph_arguments__"
_EVALUATOR_SOURCE = f'''

def {EVALUATOR}(*args, **kwargs):
    def literal(v):
        try:
            text = repr(v)
            back = eval(text, {{"__builtins__": {{"float": float, "complex": complex, "set": set,
                                                  "frozenset": frozenset}}}})
            return text if type(back) is type(v) and back == v else None
        except Exception:
            return None
    return [[literal(a) for a in args], {{k: literal(v) for k, v in kwargs.items()}}]
'''

#: three elements of each type a proxy fills an empty container with (unsorted, distinct)
_SAMPLES: dict[str, tuple] = {
    "int": (3, 1, 2),
    "str": ("b", "a", "ab"),
    "float": (1.5, 0.5, 2.0),
    "bool": (True, False, True),
    "list": ([2, 1], [3], []),
    "dict": ({"a": 1}, {"b": 2}, {}),
}
_DICT_KEYS: dict[str, tuple] = {"int": (3, 1, 2), "str": ("b", "a", "ab"), "float": (1.5, 0.5, 2.0)}
#: values a ``None`` argument is tried with when no argument of the seed is usable
_NONE_TRIALS: tuple[tuple[str, Any], ...] = (("int", 1), ("str", "ab"), ("list", [3, 1, 2]))

_STR_METHODS = frozenset(m for m in dir(str) if not m.startswith("_")) - frozenset(dir(list)) - {"format_map"}
_LIST_METHODS = frozenset({"append", "extend", "sort", "reverse", "insert", "remove", "clear"})
_DICT_METHODS = frozenset({"items", "keys", "values", "get", "setdefault", "popitem", "update"})
_CONTAINERS = (list, tuple, dict, set, frozenset)


@dataclass(frozen=True)
class _Part:
    keyword: str | None   # None: positional
    text: str             # source text of the argument
    value: Any = None
    literal: bool = False


@dataclass(frozen=True)
class SeedPlan:
    """How a seed that mutation alone cannot vary is varied (:func:`plan_seed`).

    Attributes:
        text: the seed argument list as given.
        base: the seed's own value as a literal argument list of its literal arguments
            (``None`` when no argument is a literal); its mutants are inputs, not itself.
        proxies: literal argument lists (of the literal arguments) that are new inputs: the
            seed with its empty containers filled (or ``None`` arguments replaced) by
            values of a type the program accepts.
        notes: what could not be varied, in words (an argument that is not a literal, an
            empty container whose element type nothing showed).
        shapes: literal argument lists like the first proxy with each filled container in
            other shapes (:func:`filled_shapes`: one element, two, two equal elements, the
            type's empty element, the length of another argument); new inputs too, but they
            share the proxies' mutant budget instead of bringing their own.
    """

    text: str
    parts: tuple[_Part, ...] = ()
    base: str | None = None
    proxies: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    tried: tuple[str, ...] = field(default=(), compare=False)
    shapes: tuple[str, ...] = ()

    def wrap(self, literal_text: str) -> str:
        """The full argument list for a mutant ``literal_text`` of :attr:`base` or of a
        proxy: its values in the literal arguments' places, the other arguments' source
        text in theirs.

        Raises:
            InputError: ``literal_text`` is not an argument list of the literal arguments.
        """
        if all(p.literal for p in self.parts):
            return literal_text
        args, kwargs = parse_args(literal_text)
        it = iter(args)
        out = []
        for p in self.parts:
            if p.keyword is None:
                out.append(format_value(next(it)) if p.literal else p.text)
            else:
                out.append(f"{p.keyword}=" + (format_value(kwargs[p.keyword]) if p.literal else p.text))
        return ", ".join(out)


def cross_shape(shape: str, base: str, mutant: str) -> str | None:
    """The base ``mutant`` (a mutant of a plan's :attr:`SeedPlan.base`, whose empty
    containers stay empty) with the filled containers of ``shape`` (a proxy or shape of the
    same plan) in their places: the arguments where ``shape`` differs from ``base`` come
    from ``shape``, the others from ``mutant``.  ``None`` when the three are not argument
    lists of the same arguments.

    Example: ``cross_shape("['b', 'a'], 0, 1", "[], 0, 1", "[], 3, 4")`` is
    ``"['b', 'a'], 3, 4"``."""
    try:
        (sa, sk), (ba, bk), (ma, mk) = parse_args(shape), parse_args(base), parse_args(mutant)
    except InputError:
        return None
    if not (len(sa) == len(ba) == len(ma)) or not (set(sk) == set(bk) == set(mk)):
        return None
    args = [s if format_value(s) != format_value(b) else m for s, b, m in zip(sa, ba, ma)]
    kwargs = {k: sk[k] if format_value(sk[k]) != format_value(bk[k]) else mk[k] for k in sk}
    return format_args(args, kwargs)


def needs_plan(text: str) -> bool:
    """Whether a seed needs :func:`plan_seed`: it is not an argument-list literal, or one of
    its arguments is an empty container (``[]``, ``()``, ``{}``, ``set()``...), or it has
    no arguments, or only ``None`` ones."""
    try:
        args, kwargs = parse_args(text)
    except InputError:
        return True
    values = list(args) + list(kwargs.values())
    if not values or all(v is None for v in values):
        return True
    return any(isinstance(v, _CONTAINERS) and not v for v in values)


def _parts(text: str) -> tuple[_Part, ...] | None:
    try:
        tree = ast.parse(f"f({text}\n)", mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    call = tree.body
    if not isinstance(call, ast.Call):
        return None
    src = f"f({text}\n)"
    parts = []
    for node in call.args:
        if isinstance(node, ast.Starred):
            return None
        parts.append(_Part(None, ast.get_source_segment(src, node) or ""))
    for kw in call.keywords:
        if kw.arg is None:
            return None
        parts.append(_Part(kw.arg, ast.get_source_segment(src, kw.value) or ""))
    return tuple(parts)


def _read_literal(text: str) -> tuple[bool, Any]:
    """``(True, value)`` when ``text`` is one literal value that formats back to itself
    (a round trip on the host: no code runs)."""
    try:
        args, kwargs = parse_args(text)
        if len(args) != 1 or kwargs:
            return False, None
        again, _ = parse_args(format_value(args[0]))
        if format_value(again[0]) != format_value(args[0]):
            return False, None
        return True, args[0]
    except (InputError, RecursionError, ValueError):
        return False, None


def _literal_args(parts: Sequence[_Part]) -> tuple[list, dict]:
    args = [p.value for p in parts if p.literal and p.keyword is None]
    kwargs = {p.keyword: p.value for p in parts if p.literal and p.keyword is not None}
    return args, kwargs


def _describe(i: int, p: _Part) -> str:
    return f"argument {i + 1}" if p.keyword is None else f"keyword argument {p.keyword!r}"


def plan_seeds(sandbox: Sandbox, source: str, entry: str, texts: Sequence[str],
               timeout: float = 1.0, cpu_timeout: float = 0.25) -> dict[str, SeedPlan]:
    """:func:`plan_seed` for every text of ``texts`` that :func:`needs_plan` (the others get
    no plan), in at most two sandbox batches for all of them (evaluation, then the
    element-type trials)."""
    need = [t for t in dict.fromkeys(texts) if needs_plan(t)]
    if not need:
        return {}
    parts_of: dict[str, tuple[_Part, ...] | None] = {t: _parts(t) for t in need}
    # 1. arguments that are not literals: evaluated in the program's module, in the sandbox
    to_eval = [t for t in need if parts_of[t] is not None and not all(_read_literal(p.text)[0] for p in parts_of[t])]
    evaluated: dict[str, Any] = {}
    if to_eval:
        outs = sandbox.run_batch([ExecRequest(source + _EVALUATOR_SOURCE, EVALUATOR, t, timeout=timeout,
                                              cpu_timeout=cpu_timeout) for t in to_eval])
        for t, o in zip(to_eval, outs):
            evaluated[t] = o
    notes: dict[str, list[str]] = {t: [] for t in need}
    resolved: dict[str, tuple[_Part, ...] | None] = {}
    for t in need:
        parts = parts_of[t]
        if parts is None:
            notes[t].append("the input is not an argument list that can be taken apart (unpacking with * or **)")
            resolved[t] = None
            continue
        reprs: tuple[list, dict] | None = None
        if t in evaluated:
            o = evaluated[t]
            if o.status == "returned" and o.value_repr is not None:
                try:
                    val, _ = parse_args(o.value_repr)
                    if len(val) == 1 and isinstance(val[0], list) and len(val[0]) == 2:
                        reprs = (list(val[0][0]), dict(val[0][1]))
                except (InputError, RecursionError, ValueError, TypeError):
                    reprs = None
            if reprs is None:
                why = o.exception.type if o.exception is not None else o.status
                notes[t].append(f"the input's arguments could not be evaluated in the sandbox ({why})")
        new = []
        pos = 0
        for i, p in enumerate(parts):
            ok, v = _read_literal(p.text)
            if not ok and reprs is not None:
                r = reprs[0][pos] if p.keyword is None and pos < len(reprs[0]) else reprs[1].get(p.keyword)
                if isinstance(r, str):
                    ok, v = _read_literal(r)
                if not ok:
                    notes[t].append(f"{_describe(i, p)} ({_short(p.text)}) is not a literal value "
                                    "and is kept as it is")
            elif not ok:
                notes[t].append(f"{_describe(i, p)} ({_short(p.text)}) is not a literal value and is kept as it is")
            pos += p.keyword is None
            new.append(_Part(p.keyword, p.text, v, ok))
        resolved[t] = tuple(new)
    # 2. empty containers (and arguments that are all None): candidates tried in the sandbox
    trials: list[tuple[str, int, str, str]] = []  # (seed text, slot, candidate label, full text)
    candidates: dict[tuple[str, int], list[tuple[str, bool, Any]]] = {}
    for t in need:
        parts = resolved[t]
        if parts is None:
            continue
        evidence = element_evidence(source, entry, _seed_types(source, entry, parts))
        # no usable argument: each is None or not a literal (``range(100, 120)``, a lambda)
        unusable = all((not p.literal) or p.value is None for p in parts)
        for i, p in enumerate(parts):
            if unusable:
                cands = [(label, False, v) for label, v in _NONE_TRIALS]
            elif not p.literal:
                continue
            elif isinstance(p.value, _CONTAINERS) and not p.value:
                cands = _container_candidates(p.value, _param_name(source, entry, i, p), evidence, parts, i,
                                              _strings(source, parts))
            else:
                continue
            candidates[(t, i)] = cands
            for label, _inferred, value in cands:
                trial = tuple(_Part(q.keyword, q.text, value if j == i else q.value, q.literal or j == i)
                              for j, q in enumerate(parts))
                trials.append((t, i, label, SeedPlan(t, trial).wrap(format_args(*_literal_args(trial)))))
    outcomes = sandbox.run_batch([ExecRequest(source, entry, text, timeout=timeout, cpu_timeout=cpu_timeout)
                                  for *_, text in trials]) if trials else []
    result_of = {(t, i, label): o for (t, i, label, _), o in zip(trials, outcomes)}
    plans: dict[str, SeedPlan] = {}
    for t in need:
        parts = resolved[t]
        if parts is None:
            plans[t] = SeedPlan(t, (), None, (), tuple(notes[t]))
            continue
        if not parts:
            notes[t].append("the entry point is called with no arguments: there is nothing to vary")
        chosen: dict[int, list[Any]] = {}
        tried: list[str] = []
        for i, p in enumerate(parts):
            cands = candidates.get((t, i))
            if not cands:
                continue
            ranked: dict[int, list[Any]] = {}
            for label, inferred, value in cands:
                o = result_of.get((t, i, label))
                tried.append(f"{_describe(i, p)}: {label}")
                if o is None:
                    continue
                if o.status == "returned":
                    rank = 0 if inferred else 1
                elif o.status == "raised" and o.exception is not None and o.exception.type != "TypeError":
                    rank = 2 if inferred else 3
                else:
                    continue
                ranked.setdefault(rank, []).append(value)
            if ranked:
                chosen[i] = ranked[min(ranked)][:MAX_PROXIES]
            else:
                shown = ", ".join(label for label, _, _ in cands)
                if p.literal and isinstance(p.value, _CONTAINERS):
                    notes[t].append(f"{_describe(i, p)} ({_short(p.text)}) is empty and the program accepted no "
                                    f"element type tried in the sandbox ({shown})")
                else:
                    notes[t].append(f"{_describe(i, p)} ({_short(p.text)}) has no type to vary, and the program "
                                    f"accepted none of the types tried in the sandbox ({shown})")
        unusable = bool(parts) and all((not p.literal) or p.value is None for p in parts)
        if unusable and chosen:
            # the arguments tried with other types become literals in every proxy; the seed's
            # own value has nothing to vary (None has no mutants), so it is not mutated
            parts = tuple(_Part(q.keyword, q.text, q.value, q.literal or j in chosen) for j, q in enumerate(parts))
        proxies = []
        for k in range(max((len(v) for v in chosen.values()), default=0)):
            filled = tuple(_Part(q.keyword, q.text, chosen[j][k % len(chosen[j])] if j in chosen else q.value,
                                 q.literal) for j, q in enumerate(parts))
            proxies.append(format_args(*_literal_args(filled)))
        base = format_args(*_literal_args(parts)) if any(p.literal for p in parts) and not unusable else None
        if unusable and not chosen:
            base = None
        # the first proxy's filled containers in other shapes (lengths, equal elements, the
        # empty element): inputs that the mutants of a three-element proxy rarely reach
        shapes = []
        if not unusable:
            for j in chosen:
                others = tuple(_Part(q.keyword, q.text, chosen[k][0] if k in chosen else q.value, q.literal)
                               for k, q in enumerate(parts))
                for shaped in filled_shapes(chosen[j][0], [q.value for k, q in enumerate(parts)
                                                           if k != j and q.literal]):
                    filled = tuple(_Part(q.keyword, q.text, shaped if k == j else q.value, q.literal)
                                   for k, q in enumerate(others))
                    shapes.append(format_args(*_literal_args(filled)))
        proxies = list(dict.fromkeys(proxies))
        shapes = [x for x in dict.fromkeys(shapes) if x not in proxies and x != base]
        plans[t] = SeedPlan(t, parts, base, tuple(proxies), tuple(notes[t]), tuple(tried), tuple(shapes))
    return plans


#: how many shapes (:func:`filled_shapes`) a filled container gets at most
MAX_SHAPES = 6
#: the empty element of each element type (a shape puts one into the container)
_EMPTY_ELEMENT: dict[type, Any] = {str: "", int: 0, float: 0.0, bool: False, list: [], dict: {}}


def filled_shapes(filled: Any, others: Sequence[Any] = ()) -> list[Any]:
    """Other shapes of a filled container (a proxy's list, tuple, set or dict of samples),
    each a new input that mutation of the three-element proxy rarely reaches; at most
    :data:`MAX_SHAPES`, in this order, without repeats:

    * one element (the first);
    * two elements (the first two);
    * two equal elements (the first twice, then the second: ``[e0, e0, e1]``; for a dict,
      the first two keys with the first value);
    * reversed (lists and tuples);
    * the type's empty element (``''``, ``0``, ``0.0``, ``False``, ``[]``, ``{}``) after
      the first two elements (for a dict, as a key when it is a string or a number,
      else as the value);
    * longer (lists and tuples): as long as another argument (``others``: the seed's other
      argument values: the length of the first other string, list, tuple or dict, or the
      first other int, when it is between 4 and 8), else two elements longer than
      ``filled``; the elements repeated in order;
    * for a dict, longer too: as many items as another argument is long (as above), else
      two items more than ``filled``; the new keys are fresh (``'c'``, ``'d'``, ...; numbers
      after the largest key), the values repeat.

    A set or frozenset gets no repeated element.  An empty ``filled`` has no shapes.

    Example: ``filled_shapes(['b', 'a', 'ab'])`` is ``[['b'], ['b', 'a'], ['b', 'b', 'a'],
    ['ab', 'a', 'b'], ['b', 'a', ''], ['b', 'a', 'ab', 'b', 'a']]``."""
    if not isinstance(filled, (list, tuple, set, frozenset, dict)) or not filled:
        return []
    kind = type(filled)
    out: list[Any] = []
    if isinstance(filled, dict):
        items = list(filled.items())
        k0, v0 = items[0]
        out.append({k0: v0})
        if len(items) > 1:
            k1, v1 = items[1]
            out.append({k0: v0, k1: v1})
            out.append({k0: v0, k1: v0})
        zero_key = _EMPTY_ELEMENT.get(type(k0))
        if type(k0) in (str, int, float) and zero_key not in filled:
            out.append(dict(items[:2]) | {zero_key: v0})
        elif type(v0) in _EMPTY_ELEMENT:
            out.append({k0: _empty(v0)} | dict(items[1:2]))
        n = _other_length(others)
        n = n if n is not None and n != len(items) else len(items) + 2
        out.append(dict(items[:n]) | {k: items[i % len(items)][1] for i, k in
                                      enumerate(_fresh_keys(filled, n - len(items)))})
    else:
        # a set's own order depends on the hash seed: its elements in the order of their reprs
        elems = sorted(filled, key=lambda e: (type(e).__name__, repr(e))) if kind in (set, frozenset) \
            else list(filled)
        e0 = elems[0]
        out.append(kind([e0]))
        if len(elems) > 1:
            out.append(kind(elems[:2]))
            if kind in (list, tuple):
                out.append(kind([e0, e0, elems[1]]))
                out.append(kind(elems[::-1]))
        if type(e0) in _EMPTY_ELEMENT and (kind in (list, tuple) or type(e0) not in (list, dict)):
            out.append(kind(elems[:2] + [_empty(e0)]))
        n = _other_length(others)
        if kind in (list, tuple):
            n = n if n is not None and n != len(elems) else len(elems) + 2
            out.append(kind([elems[i % len(elems)] for i in range(n)]))
    unique: list[Any] = []
    for v in out:
        if v != filled and not any(type(u) is type(v) and u == v and repr(u) == repr(v) for u in unique):
            unique.append(v)
    return unique[:MAX_SHAPES]


def _fresh_keys(d: dict, n: int) -> list:
    """``n`` keys of the type of ``d``'s first key that ``d`` lacks (``'c'``, ``'d'``, ... for
    strings; the next numbers after the largest for numbers); fewer for other key types."""
    if n <= 0 or not d:
        return []
    k0 = next(iter(d))
    if type(k0) is str:
        pool = (c for c in "cdefghijklmnopqrstuvwxyz")
    elif type(k0) in (int, float):
        top = max(k for k in d if type(k) in (int, float))
        pool = (type(k0)(top + i) for i in range(1, n + len(d) + 1))
    else:
        return []
    return [k for k in pool if k not in d][:n]


def _empty(v: Any) -> Any:
    e = _EMPTY_ELEMENT[type(v)]
    return type(e)() if isinstance(e, (list, dict)) else e


def _other_length(others: Sequence[Any]) -> int | None:
    """The length :func:`filled_shapes` copies: of the first other argument that has one."""
    for v in others:
        if isinstance(v, bool):
            continue
        n = len(v) if isinstance(v, (str, list, tuple, dict)) else v if isinstance(v, int) else None
        if n is not None:
            return n if 4 <= n <= 8 else None
    return None


def plan_seed(sandbox: Sandbox, source: str, entry: str, text: str) -> SeedPlan | None:
    """The :class:`SeedPlan` of one seed argument list ``text`` of the program ``source``
    (entry point ``entry``), or ``None`` when it needs none (:func:`needs_plan`).  Runs in
    ``sandbox`` only: the program's evaluation of call arguments and one short run per
    element-type candidate (1 s wall, 0.25 s CPU each)."""
    return plan_seeds(sandbox, source, entry, [text]).get(text)


def _short(text: str, n: int = 40) -> str:
    return text if len(text) <= n else text[:n - 3] + "..."


def _seed_types(source: str, entry: str, parts: Sequence[_Part]) -> dict[str, str]:
    """Type names of the seed's non-empty literal arguments, by parameter name."""
    out = {}
    for i, p in enumerate(parts):
        name = _param_name(source, entry, i, p)
        if name and p.literal and p.value is not None and not (isinstance(p.value, _CONTAINERS) and not p.value):
            out[name] = type(p.value).__name__
    return out


def _param_name(source: str, entry: str, i: int, p: _Part) -> str | None:
    if p.keyword is not None:
        return p.keyword
    fn = _entry_function(source, entry)
    if fn is None:
        return None
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
    return params[i] if i < len(params) else None


def _entry_function(source: str, entry: str) -> ast.FunctionDef | None:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == entry:
            return node
    return None


def _strings(source: str, parts: Sequence[_Part]) -> tuple[str, ...]:
    """Strings worth putting into an empty container besides ``'b'``, ``'a'``, ``'ab'``: the
    other arguments' short strings, the first two short strings inside each other list,
    tuple, set or dict (a dict's keys: ``{'foo': 'bar'}`` gives ``'foo'``), and strings as long as the program's small integer
    literals say (the first two such lengths): ``len(key) == 3`` gives ``'aaa'``, and for
    the first other string argument shorter than that (say ``'a'``) one that starts with
    it and one that ends with it (``'abb'``, ``'bba'``)."""
    out: list[str] = []
    others: list[str] = []
    for q in parts:
        if q.literal and isinstance(q.value, str) and 0 < len(q.value) <= 10:
            out.append(q.value)
            others.append(q.value)
    for q in parts:  # then the first two short strings in each other container (a dict's keys)
        if q.literal and isinstance(q.value, (list, tuple, set, frozenset, dict)):
            inner = sorted(q.value, key=repr) if isinstance(q.value, (set, frozenset)) else list(q.value)
            out += [x for x in inner if isinstance(x, str) and 0 < len(x) <= 10][:2]
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        tree = None
    if tree is not None:
        ints = sorted({n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and type(n.value) is int
                       and 3 <= n.value <= 8})
        for n in ints[:2]:
            out.append("a" * n)
            for o in others[:1]:
                if len(o) < n:
                    pad = next(c for c in "bcx" if c not in o) * (n - len(o))
                    out += [o + pad, pad + o]
    return tuple(x for x in dict.fromkeys(out) if x not in _SAMPLES["str"])


def _container_candidates(empty: Any, name: str | None, evidence: dict[str, dict[str, list[str]]],
                          parts: Sequence[_Part], slot: int, strings: tuple[str, ...] = ()
                          ) -> list[tuple[str, bool, Any]]:
    """``(label, inferred, filled value)`` candidates for an empty container argument: the
    types the program shows first, then the other arguments' element types, then
    :data:`FALLBACK_TYPES`.  ``strings`` are added to the string samples (:func:`_strings`)."""
    ev = evidence.get(name or "", {})
    out: list[tuple[str, bool, Any]] = []
    seen: set[str] = set()
    if isinstance(empty, dict):
        keys = [k for k in ev.get("key", []) if k in _DICT_KEYS]
        values = [v for v in ev.get("value", []) if v in _SAMPLES]
        pairs = [(k, v) for k in keys or ["str", "int"] for v in values or ["int", "str"]] if keys or values else []
        for k, v in pairs:
            _add_dict(out, seen, k, v, True, strings)
        for k, v in FALLBACK_ITEMS:
            _add_dict(out, seen, k, v, False, strings)
        return out
    kind = type(empty)
    for t in ev.get("element", []):
        _add_seq(out, seen, kind, t, True, strings)
    for j, q in enumerate(parts):  # the other arguments' element types
        if j != slot and q.literal and isinstance(q.value, (list, tuple, set, frozenset)) and q.value:
            for e in q.value:
                _add_seq(out, seen, kind, type(e).__name__, False, strings)
    for t in FALLBACK_TYPES:
        _add_seq(out, seen, kind, t, False, strings)
    return out


def _add_seq(out: list, seen: set, kind: type, t: str, inferred: bool, strings: tuple[str, ...] = ()) -> None:
    if t in seen or t not in _SAMPLES or (kind in (set, frozenset) and t in ("list", "dict")):
        return
    seen.add(t)
    samples = list(_SAMPLES[t]) + (list(strings) if t == "str" else [])
    if kind in (set, frozenset):
        samples = list(dict.fromkeys(samples))
    out.append((f"{kind.__name__} of {t}", inferred, kind(samples)))


def _add_dict(out: list, seen: set, k: str, v: str, inferred: bool, strings: tuple[str, ...] = ()) -> None:
    label = f"dict of {k} to {v}"
    if label in seen:
        return
    seen.add(label)
    keys = list(_DICT_KEYS[k]) + (list(strings) if k == "str" else [])
    values = list(_SAMPLES[v]) + (list(strings) if v == "str" else [])
    out.append((label, inferred, {key: values[i % len(values)] for i, key in enumerate(keys)}))


# ------------------------------------------------------------------ static element evidence
def _literal_type(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and node.value is not None and not isinstance(node.value, bytes):
        return type(node.value).__name__
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
            and isinstance(node.operand.value, (int, float)) and not isinstance(node.operand.value, bool):
        return type(node.operand.value).__name__
    if isinstance(node, (ast.List, ast.ListComp)):
        return "list"
    if isinstance(node, (ast.Dict, ast.DictComp)):
        return "dict"
    if isinstance(node, ast.JoinedStr):
        return "str"
    return None


class _Evidence(ast.NodeVisitor):
    """What the entry point does with the elements of its parameters (see
    :func:`element_evidence`)."""

    def __init__(self, params: Sequence[str]) -> None:
        self.params = set(params)
        self.found: dict[str, dict[str, list[str]]] = {p: {"element": [], "key": [], "value": []} for p in params}
        # names bound to an element / key / value of a parameter: name -> (param, role)
        self.alias: dict[str, tuple[str, str]] = {}
        self.parents: dict[int, ast.AST] = {}

    def note(self, param: str, role: str, t: str | None) -> None:
        if t and t not in self.found[param][role]:
            self.found[param][role].append(t)

    # -- which expressions are elements, keys or values of a parameter
    def role_of(self, node: ast.AST) -> tuple[str, str] | None:
        if isinstance(node, ast.Name) and node.id in self.alias:
            return self.alias[node.id]
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in self.params \
                and not isinstance(node.slice, ast.Slice):
            return (node.value.id, "element")  # an element of a sequence, or a value of a dict
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and node.func.value.id in self.params \
                and node.func.attr in ("pop", "get"):
            return (node.func.value.id, "element")
        return None

    def bind(self, target: ast.AST, source: ast.AST) -> None:
        """``for target in source`` / ``target = source``."""
        p = source.id if isinstance(source, ast.Name) and source.id in self.params else None
        if p is not None and isinstance(target, ast.Name):
            self.alias[target.id] = (p, "element")
            return
        if isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute) \
                and isinstance(source.func.value, ast.Name) and source.func.value.id in self.params:
            q, m = source.func.value.id, source.func.attr
            if m == "items" and isinstance(target, ast.Tuple) and len(target.elts) == 2:
                for e, role in zip(target.elts, ("key", "value")):
                    if isinstance(e, ast.Name):
                        self.alias[e.id] = (q, role)
            elif m in ("keys", "values") and isinstance(target, ast.Name):
                self.alias[target.id] = (q, "key" if m == "keys" else "value")
            return
        if isinstance(source, ast.Call) and isinstance(source.func, ast.Name) and source.func.id == "enumerate" \
                and source.args and isinstance(target, ast.Tuple) and len(target.elts) == 2:
            self.bind(target.elts[1], source.args[0])
            return
        r = self.role_of(source)
        if r is not None and isinstance(target, ast.Name):
            self.alias[target.id] = r

    def visit_For(self, node: ast.For) -> None:
        self.bind(node.target, node.iter)
        self.generic_visit(node)

    def _comprehension(self, node: ast.AST) -> None:
        # the generators bind the names the element expressions use: visit them first
        for g in node.generators:
            self.visit(g)
        for name in ("elt", "key", "value"):
            part = getattr(node, name, None)
            if part is not None:
                self.visit(part)

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comprehension

    def visit_comprehension(self, node: ast.comprehension) -> None:
        self.bind(node.target, node.iter)
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        for t in node.targets:
            self.bind(t, node.value)
            if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id in self.params:
                self.note(t.value.id, "key", _literal_type(t.slice))
                self.note(t.value.id, "value", _literal_type(node.value))
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        r = self.role_of(node.target)
        t = _literal_type(node.value)
        if r is not None and t in ("int", "float", "str"):
            self.note(r[0], "value" if r[1] == "element" else r[1], t)
            self.note(r[0], "element", t)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        f = node.func
        if isinstance(f, ast.Name) and node.args:
            a = node.args[0]
            if isinstance(a, ast.Name) and a.id in self.params and f.id == "sum":
                self.note(a.id, "element", "int")
            if f.id in ("map", "filter") and len(node.args) == 2 and isinstance(node.args[0], ast.Lambda) \
                    and node.args[0].args.args:
                self.bind(ast.Name(node.args[0].args.args[0].arg), node.args[1])
            r = self.role_of(a)
            if r is not None:
                if f.id in ("chr", "range", "abs", "bin", "hex"):
                    self.note(r[0], r[1], "int")
                elif f.id == "ord":
                    self.note(r[0], r[1], "str")
        if isinstance(f, ast.Attribute):
            # sep.join(xs)
            if f.attr == "join" and node.args and isinstance(node.args[0], ast.Name) \
                    and node.args[0].id in self.params and _literal_type(f.value) == "str":
                self.note(node.args[0].id, "element", "str")
            # xs.append(v), xs.count(v), d.get(k)...
            if isinstance(f.value, ast.Name) and f.value.id in self.params and node.args:
                p, m = f.value.id, f.attr
                vals = [self.type_of(a) for a in node.args]
                if m in ("append", "count", "index", "remove"):
                    for t in vals[:1]:
                        self.note(p, "element", t)
                elif m == "insert" and len(vals) > 1:
                    self.note(p, "element", vals[1])
                elif m in ("get", "pop", "setdefault"):
                    self.note(p, "key", vals[0])  # a dict's key (a list's pop(i) takes an index)
            # e.upper(), vec.sort(), d.items() on an element
            r = self.role_of(f.value)
            if r is not None:
                if f.attr in _STR_METHODS:
                    self.note(r[0], r[1], "str")
                elif f.attr in _LIST_METHODS:
                    self.note(r[0], r[1], "list")
                elif f.attr in _DICT_METHODS:
                    self.note(r[0], r[1], "dict")
        self.generic_visit(node)

    def type_of(self, node: ast.AST) -> str | None:
        t = _literal_type(node)
        if t is not None:
            return t
        if isinstance(node, ast.Name) and node.id in self.seed_types:
            return self.seed_types[node.id]
        return None

    seed_types: dict[str, str] = {}

    def visit_BinOp(self, node: ast.BinOp) -> None:
        for e, other in ((node.left, node.right), (node.right, node.left)):
            r = self.role_of(e)
            if r is None:
                continue
            t = _literal_type(other)
            if isinstance(node.op, ast.Mult) and t == "str":
                t = "int"  # 'n' * x
            elif isinstance(node.op, ast.Mod) and e is node.right:
                t = None  # '%s' % x says nothing
            if t in ("int", "float", "str"):
                self.note(r[0], r[1], t)
        self.generic_visit(node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        r = self.role_of(node.operand)
        if r is not None and isinstance(node.op, (ast.USub, ast.Invert)):
            self.note(r[0], r[1], "int")
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        items = [node.left] + list(node.comparators)
        for k, op in enumerate(node.ops):
            a, b = items[k], items[k + 1]
            if isinstance(op, (ast.In, ast.NotIn)):
                # v in xs: v's type is an element (key) type of xs
                if isinstance(b, ast.Name) and b.id in self.params:
                    self.note(b.id, "element", self.type_of(a))
                    self.note(b.id, "key", self.type_of(a))
                r = self.role_of(a)
                if r is not None and _literal_type(b) == "str":
                    self.note(r[0], r[1], "str")
                continue
            if isinstance(op, (ast.Is, ast.IsNot)):
                continue
            for e, other in ((a, b), (b, a)):
                r = self.role_of(e)
                if r is not None:
                    t = _literal_type(other)
                    if t in ("int", "float", "str"):
                        self.note(r[0], r[1], t)
        self.generic_visit(node)


def element_evidence(source: str, entry: str = "f",
                     seed_types: dict[str, str] | None = None) -> dict[str, dict[str, list[str]]]:
    """Element types the entry point ``entry`` of ``source`` shows for each parameter, read
    from its syntax tree (no code runs): ``{parameter: {"element": [...], "key": [...],
    "value": [...]}}`` with type names (``"int"``, ``"str"``, ``"float"``, ``"list"``,
    ``"dict"``) in order of appearance.  ``element`` is for sequences and sets (for a dict,
    ``d[k]`` and ``d.get(k)`` count as values and keys too); ``seed_types`` gives the types of
    other parameters (``xs.append(y)``).

    Evidence: operations applied to an element (``x + 1``, ``-x``, ``'n' * x``, ``chr(x)``),
    methods called on it (``str`` methods, ``list`` methods such as ``sort``, ``dict``
    methods such as ``items``), comparisons with literals (``x < 0``, ``x == 'a'``), what is
    put into or looked up in the container (``append``, ``insert``, ``count``, ``index``,
    ``remove``, ``in``, ``get``, ``pop``, ``setdefault``, ``d[k] = v``, ``d[k] += 1``), and
    ``sum(xs)`` (numbers) and ``sep.join(xs)`` (strings).  Elements are reached through
    ``for x in xs`` (also in comprehensions, through ``enumerate`` and ``map``/``filter``
    lambdas), ``for k, v in d.items()``, ``d.keys()``/``d.values()``, ``xs[i]`` and
    assignments of those."""
    fn = _entry_function(source, entry)
    if fn is None:
        return {}
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs]
    v = _Evidence(params)
    v.seed_types = dict(seed_types or {})
    for stmt in fn.body:
        v.visit(stmt)
    return v.found

