"""The naming family: transforms that change identifiers and nothing else.

* ``rename-locals`` (:class:`RenameLocals`): local variables and parameters of every
  function (options ``params``/``locals`` to keep parameters or rename only them);
* ``rename-functions`` (:class:`RenameFunctions`): ``def`` names and their calls, the
  entry point on request (``entry_point=true``; the new name becomes the program's, and
  the generated row's, ``entry_point``);
* ``rename-classes`` (:class:`RenameClasses`): classes whose instances provably never
  reach the output.

Each rewrite is proved twice: once by construction (libcst's
:class:`~libcst.metadata.ScopeProvider` plus Python's own name-resolution rules, applied
conservatively, in a shared :class:`_Analysis`) and once after the fact, by comparing the
symbol tables (:mod:`symtable`) and the ASTs of the original and rewritten programs
(:func:`check_renaming`).

New identifiers come from a :class:`NamingScheme` (option ``scheme``): ``random``,
``obfuscated``, ``natural`` (synonyms from the vocabulary shipped in
``codemorph/data/synonyms.json``), ``misleading`` (names of another role, and exchanges of
existing names), or the user's ``mapping``.  A scheme *proposes* a name for an old
identifier; the transform claims it with :meth:`~codemorph.RewriteContext.reserve` and
falls back to :meth:`~codemorph.RewriteContext.fresh_name` when the proposal is taken, so a
new name is never spelled anywhere in the program, never a builtin and never a keyword --
except the exchanges of the misleading scheme, which swap names whose every occurrence is
renamed.
"""

from __future__ import annotations

import ast
import builtins
import functools
import json
import keyword
import re
import symtable
import warnings
from dataclasses import dataclass, field
from importlib import resources
from typing import Callable, ClassVar, Iterable, Mapping, Sequence

import libcst as cst
from libcst.metadata import (
    ClassScope,
    ComprehensionScope,
    FunctionScope,
    GlobalScope,
    ParentNodeProvider,
    PositionProvider,
    ScopeProvider,
)

from codemorph.engine import NotApplicable, RewriteContext, Transform
from codemorph.engine.transform import BUILTIN_NAMES, DYNAMIC_SCOPE_BUILTINS

__all__ = [
    "NamingScheme",
    "RandomScheme",
    "ObfuscatedScheme",
    "SCHEMES",
    "make_scheme",
    "NaturalScheme",
    "MisleadingScheme",
    "MappingScheme",
    "KINDS",
    "load_vocabulary",
    "split_identifier",
    "join_identifier",
    "validate_mapping",
    "RenameLocals",
    "RenameFunctions",
    "RenameClasses",
    "NAME_OBSERVERS",
    "CLASS_OBSERVERS",
    "check_renaming",
    "RenamingMismatch",
]


# --------------------------------------------------------------------------------------
# naming schemes
# --------------------------------------------------------------------------------------

#: what a renamed binding names, as passed to :meth:`NamingScheme.propose`
KINDS: tuple[str, ...] = ("param", "local", "comprehension", "function", "class")

_RESERVED: frozenset[str] = frozenset(dir(builtins)) | frozenset(keyword.kwlist) \
    | frozenset(getattr(keyword, "softkwlist", []))


class NamingScheme:
    """Chooses new identifiers for a renaming transform.

    A scheme is created once per rewrite (``scheme_cls(ctx)``) and asked for one name per
    renamed binding, in source order, so its output is a pure function of the program and
    ``ctx.rng``.  :meth:`new_name` must return a name that is free in the program; the
    helper :meth:`claim` turns a *proposal* into one (the proposal if
    ``ctx.reserve`` accepts it, otherwise ``ctx.fresh_name(proposal)``).

    Args:
        ctx: the :class:`~codemorph.RewriteContext` of the rewrite (its ``rng`` is the only
            randomness a scheme may use; its name helpers guarantee freshness).

    Subclasses set :attr:`name` and implement :meth:`propose`; a scheme that swaps
    existing names between bindings (:class:`MisleadingScheme`) also sets
    :attr:`permutes` and implements :meth:`permute`.
    """

    #: the value of the ``scheme`` option that selects this class
    name: ClassVar[str] = ""
    #: whether :meth:`permute` may return swaps (the transform then computes which names
    #: can be exchanged safely, which costs one more pass)
    permutes: ClassVar[bool] = False

    def __init__(self, ctx: RewriteContext) -> None:
        self.ctx = ctx

    def propose(self, old: str, kind: str) -> str:
        """A candidate for the binding currently spelled ``old``.

        Args:
            old: the identifier being replaced.
            kind: what it names, one of :data:`KINDS`: ``"param"``, ``"local"``,
                ``"comprehension"``, ``"function"`` or ``"class"``.
        """
        raise NotImplementedError

    def wants(self, old: str) -> bool:
        """Whether this scheme renames bindings spelled ``old`` (every scheme but a
        user-supplied mapping renames everything it is offered)."""
        return True

    def claim(self, proposal: str) -> str:
        """``proposal`` when it is free (and reserve it), else a fresh variant of it."""
        if self.ctx.reserve(proposal):
            return proposal
        return self.ctx.fresh_name(proposal)

    def new_name(self, old: str, kind: str) -> str:
        """A reserved, never-before-used identifier for ``old`` (see :meth:`propose`)."""
        return self.claim(self.propose(old, kind))

    def permute(self, groups: Sequence[Sequence[str]]) -> list[dict[str, str]]:
        """Exchanges of existing names inside each group.

        Args:
            groups: for each group (e.g. the variables of one function), the sorted list
                of old names the transform has proved may be exchanged with one another.

        Returns:
            One ``{old: new}`` dict per group, where ``new`` is another name of the same
            group and the dict is a permutation of the names it covers.  The default: no
            exchange (``{}`` for each group).
        """
        return [{} for _ in groups]


#: first halves of random names (qualifiers and nouns)
_QUALIFIERS = (
    "tmp", "new", "old", "cur", "next", "prev", "first", "last", "base", "raw", "total",
    "max", "min", "left", "right", "top", "main", "local", "temp", "sub", "inner", "outer",
    "start", "end", "extra", "saved", "parsed", "current", "partial", "count", "item",
    "val", "elem", "part", "acc", "out", "in", "src", "dst",
)
#: second halves of random names
_NOUNS = (
    "value", "item", "count", "index", "key", "data", "result", "buf", "elem", "entry",
    "part", "token", "word", "flag", "size", "pos", "node", "acc", "state", "chunk",
    "piece", "record", "field", "number", "label", "text", "name", "score", "step", "slot",
    "unit", "cell", "mark", "span", "group", "pair", "seq", "block", "line", "char",
    "digit", "limit", "offset", "ratio", "level", "sign", "code", "list", "map", "total",
)
#: first halves of random function names (verbs)
_VERBS = (
    "get", "make", "build", "compute", "find", "check", "update", "apply", "collect", "merge",
    "split", "scan", "load", "parse", "count", "shift", "fold", "walk", "visit", "render",
    "emit", "fill", "trim", "pack", "sort", "pick", "match", "mark", "join", "reduce",
)
#: words of random class names (joined in CamelCase)
_CLASS_WORDS = (
    "Node", "Item", "Record", "Entry", "Table", "State", "Block", "Frame", "Cell", "Slot",
    "Token", "Group", "Buffer", "Store", "Model", "Unit", "Field", "Chain", "Shape", "Point",
)


class RandomScheme(NamingScheme):
    """Plausible random identifiers such as ``count_item`` or ``tmp_value``.

    Variables get ``<qualifier>_<noun>``, functions ``<verb>_<noun>`` (``merge_token``)
    and classes ``<Word><Word>`` (``TokenStore``), drawn with ``ctx.rng`` from fixed word
    lists (:data:`_QUALIFIERS`, :data:`_NOUNS`, :data:`_VERBS`, :data:`_CLASS_WORDS`); up to
    20 draws are tried before falling back to a numbered variant of the last draw.
    Deterministic for a given rng state.
    """

    name = "random"
    attempts: ClassVar[int] = 20

    def propose(self, old: str, kind: str) -> str:
        rng = self.ctx.rng
        firsts, seconds, sep = _QUALIFIERS, _NOUNS, "_"
        if kind == "function":
            firsts = _VERBS
        elif kind == "class":
            firsts, seconds, sep = _CLASS_WORDS, _CLASS_WORDS, ""
        word = ""
        for _ in range(self.attempts):
            first = rng.choice(firsts)
            second = rng.choice(seconds)
            if first == second:
                continue
            word = f"{first}{sep}{second}"
            if self.ctx.is_free(word):
                return word
        return word or ("TmpValue" if kind == "class" else "tmp_value")


class ObfuscatedScheme(NamingScheme):
    """Meaningless identifiers in order, skipping names the program already spells:
    variables ``v0``, ``v1``, ...; functions ``fn0``, ``fn1``, ...; classes ``C0``, ``C1``,
    ... (so ``v0`` may be followed by ``v2`` when the program uses ``v1``)."""

    name = "obfuscated"
    prefix: ClassVar[str] = "v"
    #: prefix per kind (kinds not listed use :attr:`prefix`)
    prefixes: ClassVar[dict[str, str]] = {"function": "fn", "class": "C"}

    def __init__(self, ctx: RewriteContext) -> None:
        super().__init__(ctx)
        self._next: dict[str, int] = {}

    def propose(self, old: str, kind: str) -> str:
        prefix = self.prefixes.get(kind, self.prefix)
        while True:
            n = self._next.get(prefix, 0)
            self._next[prefix] = n + 1
            candidate = f"{prefix}{n}"
            if self.ctx.is_free(candidate):
                return candidate


# -- the vocabulary of the natural and misleading schemes ------------------------------

@functools.lru_cache(maxsize=1)
def load_vocabulary() -> dict:
    """The word lists shipped with codemorph (``codemorph/data/synonyms.json``).

    Returns:
        A dict with ``synonyms`` (word -> meaning-preserving alternatives),
        ``antonyms`` (word -> opposite words), ``categories`` (role -> words that suggest
        it: ``number``, ``string``, ``list``, ``dict``, ``bool``), ``misleading_names``
        (role -> names that suggest it), ``misleading_of`` (role -> roles to suggest
        instead), ``misleading_functions``, ``misleading_classes`` and
        ``fallback_suffix`` (kind -> suffix used when no word of a name is known).
        Words are lower-case pieces of snake_case/camelCase identifiers; an
        alternative may itself be several words joined by ``_``.
    """
    text = resources.files("codemorph.data").joinpath("synonyms.json").read_text(encoding="utf-8")
    vocab = json.loads(text)
    words: dict[str, str] = {}
    for role, names in vocab["categories"].items():
        for w in names:
            words.setdefault(w, role)
    vocab["role_of_word"] = words
    return vocab


_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def split_identifier(name: str) -> tuple[str, list[str], str, str]:
    """Split an identifier into words.

    Args:
        name: e.g. ``"new_text"``, ``"maxCount"``, ``"HTTPServer"``, ``"_s1"``.

    Returns:
        ``(lead, words, trail, style)``: leading and trailing underscores, the words in
        lower case (digits are words of their own: ``s1`` -> ``["s", "1"]``), and the
        style, ``"snake"``, ``"camel"`` (``maxCount``) or ``"pascal"`` (``MaxCount``).
    """
    core = name.strip("_")
    lead = name[: len(name) - len(name.lstrip("_"))]
    trail = name[len(name.rstrip("_")):] if core else ""
    parts = _WORD.findall(core)
    if "_" in core or not any(c.isupper() for c in core):
        style = "snake"
    elif core[:1].isupper():
        style = "pascal"
    else:
        style = "camel"
    return lead, [p.lower() for p in parts], trail, style


def join_identifier(lead: str, words: Sequence[str], trail: str, style: str) -> str:
    """Inverse of :func:`split_identifier`: join ``words`` in ``style``, put the
    underscores back, and append ``_`` when the result is a keyword or builtin name
    (``max`` -> ``max_``).  Words may contain ``_`` (multi-word alternatives)."""
    flat = [p for w in words for p in w.split("_") if p]
    if style == "snake":
        core = "_".join(flat)
    elif style == "pascal":
        core = "".join(p[:1].upper() + p[1:] for p in flat)
    else:
        core = flat[0] + "".join(p[:1].upper() + p[1:] for p in flat[1:]) if flat else ""
    out = lead + core + trail
    if out and out[0].isdigit():
        out = "_" + out
    if out in _RESERVED:
        out += "_"
    return out


#: runtime type name (as in ``RewriteContext.observations``) -> role of the vocabulary
_TYPE_ROLES: dict[str, str] = {
    "int": "number", "float": "number", "complex": "number",
    "str": "string", "bytes": "string",
    "list": "list", "tuple": "list", "set": "list", "frozenset": "list", "collections.deque": "list",
    "dict": "dict", "collections.defaultdict": "dict", "collections.Counter": "dict",
    "collections.OrderedDict": "dict",
    "bool": "bool",
}


def _observed_roles(observations) -> dict[str, str]:
    """name -> role, for variables whose observed types (over every function) all have
    the same role; from ``{qualname: {name: [type names]}}``."""
    seen: dict[str, set[str]] = {}
    if not isinstance(observations, Mapping):
        return {}
    for names in observations.values():
        if not isinstance(names, Mapping):
            continue
        for name, types in names.items():
            roles = {_TYPE_ROLES.get(t, "?") for t in types if t != "NoneType"}
            seen.setdefault(name, set()).update(roles)
    return {n: next(iter(r)) for n, r in seen.items() if len(r) == 1 and "?" not in r}


class _VocabularyScheme(NamingScheme):
    """Shared by the natural and misleading schemes: vocabulary and observed roles."""

    def __init__(self, ctx: RewriteContext) -> None:
        super().__init__(ctx)
        self.vocab = load_vocabulary()
        self.observed = _observed_roles(ctx.observations)

    def role(self, old: str) -> str | None:
        """The role (``number``, ``string``, ``list``, ``dict``, ``bool``) a variable
        plays: observed at run time when known, else suggested by its name (the whole
        name, then its last word, then any word)."""
        if old in self.observed:
            return self.observed[old]
        words = self.vocab["role_of_word"]
        _lead, parts, _trail, _style = split_identifier(old)
        for key in [old.lower(), "_".join(parts), *reversed(parts)]:
            if key in words:
                return words[key]
        return None

    def usable(self, name: str, old: str) -> bool:
        return name != old and name.isidentifier() and self.ctx.is_free(name)


class NaturalScheme(_VocabularyScheme):
    """Meaning-preserving names: each word of the old name replaced by a synonym.

    The old name is split into snake_case/camelCase words (:func:`split_identifier`);
    every word found in the vocabulary's ``synonyms`` table
    (``codemorph/data/synonyms.json``) is replaced by one of its synonyms drawn with
    ``ctx.rng``, and the words are joined in the original style (``nums`` -> ``values``,
    ``new_text`` -> ``fresh_string``, ``maxCount`` -> ``maximumTally``).  When no word is
    known, a role word is appended (``zq`` -> ``zq_text`` when ``zq`` was observed to hold
    strings) or else a neutral suffix per kind (``zq_value``, ``helper_impl``).
    Deterministic for a given rng state.
    """

    name = "natural"

    def propose(self, old: str, kind: str) -> str:
        rng = self.ctx.rng
        syn = self.vocab["synonyms"]
        lead, words, trail, style = split_identifier(old)
        if kind == "class" and style == "snake":
            style = "pascal" if old[:1].isupper() else style
        taken: str | None = None
        for _attempt in range(4):
            changed, out = False, []
            for w in words:
                options = syn.get(w)
                if options:
                    out.append(rng.choice(options))
                    changed = True
                else:
                    out.append(w)
            if not changed:
                break
            candidate = join_identifier(lead, out, trail, style)
            if self.usable(candidate, old):
                return candidate
            if candidate != old:
                taken = candidate
        if taken is not None:
            return taken  # every synonym is taken: claim() numbers it (values_1)
        role = self.role(old) if kind not in ("function", "class") else None
        suffix = {"number": "num", "string": "text", "list": "items", "dict": "map", "bool": "flag"}.get(
            role or "", self.vocab["fallback_suffix"].get(kind, "value"))
        return join_identifier(lead, [*words, suffix.lower()] if words else [suffix.lower()], trail, style)


class MisleadingScheme(_VocabularyScheme):
    """Names that suggest another role or type, and exchanges of existing names.

    * :meth:`permute`: inside each group (the variables of one function, or the
      functions/classes of one scope) that the transform proved may be exchanged, the
      names are permuted with one random cycle (Sattolo's algorithm, so no name keeps its
      binding): ``count`` becomes the string, ``text`` the counter.
    * :meth:`propose`, for the other bindings: a variable gets a name of another role
      from the vocabulary (a counter is named like a string or a list, a list like a
      dict, ...; the role comes from the runtime observations when present, else from the
      words of the name); a function gets its words replaced by antonyms (``get_max`` ->
      ``set_min``) or, when none is known, the name of an unrelated task
      (``count_vowels``); a class gets an unrelated class name (``Tokenizer``).

    Misleading names preserve behaviour exactly like any other renaming; they are meant to
    measure how much a model relies on names.  Deterministic for a given rng state.
    """

    name = "misleading"
    permutes = True

    def permute(self, groups: Sequence[Sequence[str]]) -> list[dict[str, str]]:
        out: list[dict[str, str]] = []
        for names in groups:
            names = list(names)
            if len(names) < 2:
                out.append({})
                continue
            perm = names[:]
            for i in range(len(perm) - 1, 0, -1):  # Sattolo: one cycle, no fixed point
                j = self.ctx.rng.randrange(i)
                perm[i], perm[j] = perm[j], perm[i]
            out.append(dict(zip(names, perm)))
        return out

    def _pick(self, pool: Sequence[str], old: str) -> str | None:
        free = [n for n in pool if self.usable(n, old)]
        return self.ctx.rng.choice(free) if free else None

    def propose(self, old: str, kind: str) -> str:
        rng = self.ctx.rng
        v = self.vocab
        if kind == "function":
            lead, words, trail, style = split_identifier(old)
            if any(w in v["antonyms"] for w in words):
                flipped = [rng.choice(v["antonyms"][w]) if w in v["antonyms"] else w for w in words]
                candidate = join_identifier(lead, flipped, trail, style)
                if self.usable(candidate, old):
                    return candidate
            return self._pick(v["misleading_functions"], old) or rng.choice(v["misleading_functions"])
        if kind == "class":
            return self._pick(v["misleading_classes"], old) or rng.choice(v["misleading_classes"])
        role = self.role(old)
        roles = list(v["misleading_of"].get(role, [])) if role else sorted(v["misleading_names"])
        rng.shuffle(roles)
        for other in roles:
            name = self._pick(v["misleading_names"][other], old)
            if name is not None:
                return name
        other = roles[0] if roles else "string"
        return rng.choice(v["misleading_names"][other])


class MappingScheme(NamingScheme):
    """The user's own names: ``mapping={"old": "new"}`` (option ``mapping`` of every
    renaming transform).  Only bindings spelled like a key are renamed; every binding
    spelled ``old`` gets the same ``new``.

    Args:
        ctx: the rewrite's context.
        mapping: old name -> new name, already checked by :func:`validate_mapping`.

    Raises (from :meth:`new_name`):
        NotApplicable: when ``new`` is already spelled in the program (or is a keyword
            argument a harness passes), since the renaming would merge two names.
    """

    name = "mapping"

    def __init__(self, ctx: RewriteContext, mapping: Mapping[str, str]) -> None:
        super().__init__(ctx)
        self.mapping = dict(mapping)
        self._given: dict[str, str] = {}

    def wants(self, old: str) -> bool:
        return old in self.mapping

    def propose(self, old: str, kind: str) -> str:
        return self.mapping[old]

    def new_name(self, old: str, kind: str) -> str:
        if old in self._given:
            return self._given[old]
        new = self.mapping[old]
        if not self.ctx.reserve(new):
            raise NotApplicable(f"mapping {old!r} -> {new!r}: {new!r} is already used in the program (or passed "
                                f"by a harness keyword); renaming would merge two names")
        self._given[old] = new
        return new


#: scheme option value -> scheme class
SCHEMES: dict[str, type[NamingScheme]] = {
    RandomScheme.name: RandomScheme,
    ObfuscatedScheme.name: ObfuscatedScheme,
    NaturalScheme.name: NaturalScheme,
    MisleadingScheme.name: MisleadingScheme,
}


def make_scheme(name: str, ctx: RewriteContext) -> NamingScheme:
    """Instantiate the scheme registered as ``name`` for ``ctx``.

    Raises:
        ValueError: when ``name`` is not a key of :data:`SCHEMES`.
    """
    try:
        return SCHEMES[name](ctx)
    except KeyError:
        raise ValueError(f"unknown naming scheme {name!r} (known: {', '.join(sorted(SCHEMES))})") from None


def validate_mapping(transform: str, mapping: object) -> dict[str, str]:
    """Check a user-supplied ``mapping`` option (old name -> new name).

    Args:
        transform: the transform's name, for messages.
        mapping: the option's value.

    Returns:
        The mapping as a plain dict.

    Raises:
        TypeError: not a dict of strings.
        ValueError: empty; a key or value that is not an identifier; a new name that is
            a keyword, a builtin or starts with ``__``; two old names mapped to one new
            name; a new name that is also an old name (chains and swaps); a name mapped
            to itself.
    """
    if not isinstance(mapping, Mapping) or not all(isinstance(k, str) and isinstance(v, str)
                                                   for k, v in mapping.items()):
        raise TypeError(f"{transform}: mapping must be a table of old name -> new name (strings)")
    if not mapping:
        raise ValueError(f"{transform}: mapping is empty")
    seen: dict[str, str] = {}
    for old, new in mapping.items():
        if not old.isidentifier() or keyword.iskeyword(old):
            raise ValueError(f"{transform}: mapping key {old!r} is not an identifier")
        if not new.isidentifier() or keyword.iskeyword(new) or new in _RESERVED:
            raise ValueError(f"{transform}: mapping {old!r} -> {new!r}: the new name must be an identifier that is "
                             f"not a keyword or builtin")
        if new.startswith("__"):
            raise ValueError(f"{transform}: mapping {old!r} -> {new!r}: names starting with __ are mangled or special")
        if new == old:
            raise ValueError(f"{transform}: mapping maps {old!r} to itself")
        if new in seen:
            raise ValueError(f"{transform}: mapping sends both {seen[new]!r} and {old!r} to {new!r} (collision)")
        if new in mapping:
            raise ValueError(f"{transform}: mapping {old!r} -> {new!r}: {new!r} is also renamed (chains and swaps "
                             f"are not supported)")
        seen[new] = old
    return dict(mapping)


# --------------------------------------------------------------------------------------
# the safety net: symbol tables and ASTs must agree up to the renaming
# --------------------------------------------------------------------------------------

class RenamingMismatch(Exception):
    """:func:`check_renaming` found a difference other than the declared renaming."""


def _symbol_flags(sym: symtable.Symbol) -> tuple[bool, ...]:
    return (sym.is_referenced(), sym.is_imported(), sym.is_parameter(), sym.is_global(),
            sym.is_nonlocal(), sym.is_declared_global(), sym.is_local(), sym.is_annotated(),
            sym.is_free(), sym.is_assigned(), sym.is_namespace())


def _compare_tables(a: symtable.SymbolTable, b: symtable.SymbolTable, back: Mapping[str, str]) -> None:
    where = f"{a.get_type()} {a.get_name()!r} (line {a.get_lineno()})"
    same_name = a.get_name() == b.get_name() or back.get(b.get_name()) == a.get_name()  # renamed def/class
    if (a.get_type(), a.get_lineno()) != (b.get_type(), b.get_lineno()) or not same_name:
        raise RenamingMismatch(f"scope {where} became {b.get_type()} {b.get_name()!r} (line {b.get_lineno()})")
    old = {s.get_name(): _symbol_flags(s) for s in a.get_symbols()}
    new: dict[str, tuple[bool, ...]] = {}
    for s in b.get_symbols():
        name = back.get(s.get_name(), s.get_name())
        if name in new:
            raise RenamingMismatch(f"in {where}, two symbols stand for {name!r}")
        new[name] = _symbol_flags(s)
        if s.get_name() in back and name in BUILTIN_NAMES and (s.is_global() or a.get_type() == "module"):
            # a global spelled like a builtin reads the builtin while unbound: keep its name
            raise RenamingMismatch(f"in {where}, {name!r} is a global that may resolve to the builtin {name}")
    if old != new:
        diff = sorted(n for n in old.keys() | new.keys() if old.get(n) != new.get(n))
        raise RenamingMismatch(f"in {where}, symbols {', '.join(diff)} differ")
    ca, cb = a.get_children(), b.get_children()
    if len(ca) != len(cb):
        raise RenamingMismatch(f"{where} has {len(ca)} nested scopes, rewritten {len(cb)}")
    for x, y in zip(ca, cb):
        _compare_tables(x, y, back)


class _MapBack(ast.NodeTransformer):
    """Spell renamed identifiers the old way again, in the positions a renaming may touch."""

    def __init__(self, back: Mapping[str, str]) -> None:
        self.back = back

    def visit_Name(self, node: ast.Name) -> ast.AST:
        node.id = self.back.get(node.id, node.id)
        return node

    def visit_arg(self, node: ast.arg) -> ast.AST:
        self.generic_visit(node)
        node.arg = self.back.get(node.arg, node.arg)
        return node

    def visit_keyword(self, node: ast.keyword) -> ast.AST:
        self.generic_visit(node)
        if node.arg is not None:
            node.arg = self.back.get(node.arg, node.arg)
        return node

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> ast.AST:
        self.generic_visit(node)
        if node.name is not None:
            node.name = self.back.get(node.name, node.name)
        return node

    def _def(self, node):
        self.generic_visit(node)
        node.name = self.back.get(node.name, node.name)
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _def


def _keyword_targets_ok(tree: ast.AST, back: Mapping[str, str]) -> None:
    """Every renamed keyword argument must name a parameter of the function called."""
    params: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            params.setdefault(node.name, set()).update(
                x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs])
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for kw in node.keywords:
                if kw.arg is not None and kw.arg in back:
                    if not (isinstance(node.func, ast.Name) and kw.arg in params.get(node.func.id, ())):
                        raise RenamingMismatch(f"keyword argument {kw.arg}= (was {back[kw.arg]}=) matches no parameter"
                                               f" of the function called at line {node.lineno}")


def _identifiers(tree: ast.AST) -> set[str]:
    """Every identifier an AST spells (names, attributes, parameters, keywords, imports,
    declarations, match names); string constants are data, not identifiers."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant):
            continue
        for _field, value in ast.iter_fields(node):
            if isinstance(value, str):
                out.update(value.split("."))
            elif isinstance(value, list):
                out.update(p for v in value if isinstance(v, str) for p in v.split("."))
    return out


def check_renaming(old_source: str, new_source: str, back: Mapping[str, str]) -> None:
    """Check that ``new_source`` is ``old_source`` with identifiers renamed, nothing else.

    Args:
        old_source: the original module text.
        new_source: the rewritten module text.
        back: new identifier -> the identifier it replaced (one old name per new name).
            A new identifier must be fresh (spelled nowhere in ``old_source``) unless it
            is itself renamed away (it is also a value of ``back``: an exchange of
            existing names, as the ``misleading`` scheme makes) and is neither a keyword
            nor a builtin name.

    Checks, all with the interpreter's own compiler: (1) the ASTs are equal once renamed
    names (variables, parameters, keyword arguments, ``except ... as`` names, ``def`` and
    ``class`` names) are mapped back, so nothing else (attributes, strings, structure)
    changed and every occurrence of a renamed-away name was renamed; (2) every renamed
    keyword argument names a parameter of the called function; (3) the symbol tables
    (:mod:`symtable`) have the same scopes in the same order, and in every scope each symbol
    maps through ``back`` to a symbol with identical flags (local, global, free,
    parameter, nonlocal, referenced, assigned, annotated, imported, namespace); (4) no
    renamed global is spelled like a builtin (while unbound, it would have read the
    builtin).

    Raises:
        RenamingMismatch: describing the first difference found.
    """
    old_tree = ast.parse(old_source)
    new_tree = ast.parse(new_source)
    spelled = _identifiers(old_tree)
    renamed_away = set(back.values())
    for new in back:
        if new in spelled and (new not in renamed_away or new in _RESERVED):
            raise RenamingMismatch(f"new name {new!r} already occurs in the original program")
    _keyword_targets_ok(new_tree, back)
    if ast.dump(old_tree) != ast.dump(_MapBack(back).visit(new_tree)):
        raise RenamingMismatch("the programs differ in more than the renamed identifiers")
    _compare_tables(symtable.symtable(old_source, "<old>", "exec"),
                    symtable.symtable(new_source, "<new>", "exec"), back)


# --------------------------------------------------------------------------------------
# analysis
# --------------------------------------------------------------------------------------

#: Identifiers whose presence anywhere in a program means it may observe local or
#: parameter names at run time (frames, code objects, signatures, dynamic imports that
#: could reach those).  Such a program is refused as a whole.
INTROSPECTION_NAMES: frozenset[str] = frozenset({
    "inspect", "_getframe", "currentframe", "f_locals", "f_globals", "f_back", "f_code",
    "co_varnames", "co_cellvars", "co_freevars", "co_names", "__code__", "gi_frame",
    "cr_frame", "ag_frame", "tb_frame", "settrace", "setprofile", "signature",
    "getfullargspec", "getargspec", "getcallargs", "__signature__", "__kwdefaults__",
    "__annotations__", "get_type_hints", "help", "pydoc", "__import__", "importlib",
    "__builtins__", "modules", "__main__", "__globals__", "breakpoint", "pdb",
})

#: Identifiers that reach the exception being handled (whose message may quote a
#: variable or parameter name: ``NameError``, ``UnboundLocalError``, call ``TypeError``).
EXCEPTION_INTROSPECTION_NAMES: frozenset[str] = frozenset({
    "exc_info", "exception", "traceback", "format_exc", "print_exc", "__traceback__",
    "__context__", "__cause__", "__exit__", "__aexit__", "excepthook", "last_value",
})

#: Builtin exception classes whose instances never quote a variable or parameter name
#: (everything builtin except ``NameError``, ``UnboundLocalError``, ``TypeError`` and
#: their superclasses ``Exception`` and ``BaseException``).
_SAFE_EXCEPTIONS: frozenset[str] = frozenset(
    n for n in dir(builtins)
    if isinstance(getattr(builtins, n), type) and issubclass(getattr(builtins, n), BaseException)
    # NameError, TypeError, their bases and their subclasses (UnboundLocalError) may quote names
    and not any(issubclass(k, getattr(builtins, n)) or issubclass(getattr(builtins, n), k)
                for k in (NameError, TypeError))
)


def _is_dunder(name: str) -> bool:
    return name.startswith("__")  # dunders and class-private (mangled) names


@dataclass
class _FuncInfo:
    """Facts about one ``def`` (its whole subtree, nested scopes included)."""

    node: cst.FunctionDef
    dynamic: list[str] = field(default_factory=list)       # dynamic-scope uses, e.g. "locals()"
    forbidden: dict[str, str] = field(default_factory=dict)  # name -> why it is never renamed here
    string_annotations: list[str] = field(default_factory=list)


class _Survey(cst.CSTVisitor):
    """One pass over the module: the role of every ``Name`` and per-function facts."""

    METADATA_DEPENDENCIES = (ParentNodeProvider,)

    def __init__(self, parents: Mapping[cst.CSTNode, cst.CSTNode]) -> None:
        self.parents = parents
        self.special: dict[cst.Name, str] = {}   # Name -> role when not a variable use
        self.variables: list[cst.Name] = []       # variable-role Names, source order
        self.functions: list[_FuncInfo] = []      # every def, source order
        self.scope_nodes: list[cst.CSTNode] = []  # defs, lambdas, classes, comprehensions
        self.stack: list[_FuncInfo] = []
        self.module_dynamic: list[str] = []       # dynamic uses outside every def
        self.alias_dynamic: list[str] = []        # dynamic builtins used other than by a call
        self.dynamic_candidates: list[tuple[cst.Name, str | None, tuple[_FuncInfo, ...]]] = []
        self.spells_builtins = False
        self.introspection: set[str] = set()
        self.exception_objects: list[str] = []
        self.decl_names: set[str] = set()         # names in any global/nonlocal statement
        self.in_annotation = 0
        # facts the renaming of functions and classes needs
        self.all_names: dict[str, list[cst.Name]] = {}  # every Name node, by spelling
        self.forbidden_anywhere: dict[str, str] = {}      # name -> why (global/nonlocal/match/f"{x=}"...)
        self.string_words: set[str] = set()               # identifiers spelled inside string literals
        self.attr_names: set[str] = set()                 # attribute names (obj.NAME)
        self.any_exception_objects: list[str] = []        # every `except ... as e` whose e is used
        self.classes: list[cst.ClassDef] = []

    # -- helpers ------------------------------------------------------------------
    def _mark(self, node: cst.CSTNode | None, role: str) -> None:
        if isinstance(node, cst.Name):
            self.special[node] = role

    def _forbid(self, names: Iterable[str], why: str) -> None:
        names = list(names)
        for n in names:
            self.forbidden_anywhere.setdefault(n, why)
        for info in self.stack:
            for n in names:
                info.forbidden.setdefault(n, why)

    # -- scopes -------------------------------------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        info = _FuncInfo(node)
        self.functions.append(info)
        self.scope_nodes.append(node)
        self.stack.append(info)
        self._mark(node.name, "def")

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.stack.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.scope_nodes.append(node)
        self.classes.append(node)
        self._mark(node.name, "def")

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self.scope_nodes.append(node)

    def _comp(self, node: cst.CSTNode) -> None:
        self.scope_nodes.append(node)

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comp

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        # libcst records a walrus inside a comprehension in the comprehension's scope,
        # Python binds it in the enclosing function: never rename such a name.
        p = self.parents.get(node)
        while p is not None and not isinstance(p, (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.Module)):
            if isinstance(p, (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)):
                if isinstance(node.target, cst.Name):
                    self._forbid([node.target.value], "is bound by a walrus inside a comprehension")
                break
            p = self.parents.get(p)

    # -- names that are not variables ---------------------------------------------
    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._mark(node.attr, "attr")
        self.attr_names.add(node.attr.value)

    def visit_Arg(self, node: cst.Arg) -> None:
        self._mark(node.keyword, "keyword")

    def visit_Param(self, node: cst.Param) -> None:
        self._mark(node.name, "param")

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        for n in _names_in(node.name):
            self._mark(n, "import")
        if node.asname is not None:
            self._mark(node.asname.name, "import")

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.module is not None:
            for n in _names_in(node.module):
                self._mark(n, "import")

    def visit_Global(self, node: cst.Global) -> None:
        for item in node.names:
            self._mark(item.name, "decl")
            self.decl_names.add(item.name.value)
        self._forbid((item.name.value for item in node.names), "is named in a global statement")

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        for item in node.names:
            self._mark(item.name, "decl")
            self.decl_names.add(item.name.value)
        self._forbid((item.name.value for item in node.names), "is named in a nonlocal statement")

    def _capture(self, name: cst.Name | None) -> None:
        if name is not None:
            self._mark(name, "capture")
            self._forbid([name.value], "is bound by a match pattern")

    def visit_MatchAs(self, node: cst.MatchAs) -> None:
        self._capture(node.name)

    def visit_MatchStar(self, node: cst.MatchStar) -> None:
        self._capture(node.name)

    def visit_MatchMapping(self, node: cst.MatchMapping) -> None:
        self._capture(node.rest)

    def visit_MatchKeywordElement(self, node: cst.MatchKeywordElement) -> None:
        self._mark(node.key, "attr")

    def visit_FormattedStringExpression(self, node: cst.FormattedStringExpression) -> None:
        if node.equal is not None:  # f"{x=}" prints the expression's source text
            self._forbid((n.value for n in _names_in(node.expression)), "is shown by a self-documenting f-string")

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is None:
            return
        bound = node.name.name
        used = not isinstance(bound, cst.Name) or any(n.value == bound.value for n in _names_in(node.body))
        if used:
            self.any_exception_objects.append(
                f"except {_code(node.type) if node.type else ''} as {_code(node.name.name)}")
        if _safe_exception_type(node.type):
            return
        if used:
            self.exception_objects.append(f"except {_code(node.type) if node.type else ''} as {_code(node.name.name)}")

    def visit_Annotation(self, node: cst.Annotation) -> None:
        self.in_annotation += 1

    def leave_Annotation(self, node: cst.Annotation) -> None:
        self.in_annotation -= 1

    def visit_FormattedStringText(self, node: cst.FormattedStringText) -> None:
        self.string_words.update(_string_words(node.value, None))

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        self.string_words.update(_string_words(node.value[node.value.index(node.quote[0]):], node.value))
        # a string anywhere in an annotation (``"Node"``, ``List["Node"]``) is a forward
        # reference that tools resolve by name; names it spells are kept
        if self.in_annotation:
            for info in self.stack:
                info.string_annotations.append(node.value)

    # -- every Name ---------------------------------------------------------------
    def visit_Name(self, node: cst.Name) -> None:
        value = node.value
        role = self.special.get(node)
        self.all_names.setdefault(value, []).append(node)
        if role != "keyword":  # f(help=...) names a parameter, not the builtin
            if value in INTROSPECTION_NAMES:
                self.introspection.add(value)
            if value in EXCEPTION_INTROSPECTION_NAMES:
                self.exception_objects.append(value)
        if value == "builtins":
            self.spells_builtins = True
        if value in DYNAMIC_SCOPE_BUILTINS and role in (None, "attr"):
            self.dynamic_candidates.append((node, role, tuple(self.stack)))
        if role is None:
            self.variables.append(node)

    def classify_dynamic(self, scopes, binds) -> None:
        """Decide which candidate names are the dynamic-scope builtins (run once scopes are
        resolved): a name bound by a function is the user's own; a global or class-level
        binding may be unset at run time, so the builtin stays reachable."""
        for node, role, stack in self.dynamic_candidates:
            if role == "attr":
                if not self.spells_builtins:
                    continue  # obj.eval(...) is a method, unless `builtins` is in reach
                expr = self.parents.get(node)
            else:
                sc = scopes.get(node)
                target = _resolve(sc, node.value, binds) if sc is not None else None
                if isinstance(target, (FunctionScope, ComprehensionScope)):
                    continue
                expr = node
            use = self._dynamic_use(expr, node.value)
            if use is None:
                continue
            for info in stack:
                info.dynamic.append(use)
            if not stack:
                self.module_dynamic.append(use)

    def _dynamic_use(self, expr: cst.CSTNode, name: str) -> str | None:
        """``"name()"`` when ``expr`` may consult the caller's scope, else ``None``."""
        parent = self.parents.get(expr)
        if isinstance(parent, cst.Call) and parent.func is expr:
            if name in ("dir", "vars") and parent.args and not any(a.star for a in parent.args):
                return None  # dir(obj) / vars(obj) only look at obj
            return f"{name}()"
        self.alias_dynamic.append(name)
        return name


#: an identifier inside string text (the conservative test of "a name appears in a string")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _string_words(raw: str, literal: str | None) -> set[str]:
    """Identifiers in a string's text: as written, and once escapes are decoded
    (``"\\nf"`` spells ``f`` after a newline)."""
    words = set(_IDENT.findall(raw))
    try:
        if literal is not None:
            value = ast.literal_eval(literal)
            text = value.decode("latin-1") if isinstance(value, bytes) else str(value)
        else:
            with warnings.catch_warnings():  # "invalid escape sequence" is the program's business
                warnings.simplefilter("ignore")
                text = raw.encode("latin-1", "backslashreplace").decode("unicode_escape")
        words.update(_IDENT.findall(text))
    except (ValueError, SyntaxError, UnicodeError, MemoryError):
        pass
    return words


def _names_in(node: cst.CSTNode) -> list[cst.Name]:
    out: list[cst.Name] = []

    class V(cst.CSTVisitor):
        def visit_Name(self, n: cst.Name) -> None:
            out.append(n)

    node.visit(V())
    return out


_CODE_MODULE = cst.Module(body=[])


def _code(node: cst.CSTNode) -> str:
    return _CODE_MODULE.code_for_node(node)


def _safe_exception_type(node: cst.BaseExpression | None) -> bool:
    """Whether an ``except`` clause can only catch exceptions that never quote names."""
    if node is None:
        return False
    if isinstance(node, cst.Name):
        return node.value in _SAFE_EXCEPTIONS
    if isinstance(node, cst.Tuple):
        return all(_safe_exception_type(el.value) for el in node.elements)
    return False


def _resolve(scope, name: str, binds: Mapping[object, set[str]]):
    """The scope whose binding of ``name`` a use in ``scope`` reads, by Python's rules:
    the innermost enclosing scope that binds it, where a class body is visible only to
    its own statements (not to functions, lambdas or comprehensions nested in it).
    Returns ``None`` for a builtin (or undefined) name."""
    cur = scope
    first = True
    while cur is not None:
        if isinstance(cur, GlobalScope):
            return cur if name in binds.get(cur, ()) else None
        if not isinstance(cur, ClassScope) or first:
            if name in binds.get(cur, ()):
                return cur
        first = False
        parent = cur.parent
        if parent is cur:
            return None
        cur = parent
    return None


@dataclass
class _Binding:
    scope: object                      # the libcst scope that owns the binding
    name: str
    kind: str                          # one of KINDS
    targets: list[cst.Name]            # every Name to respell
    first: tuple[int, int]             # source position of the first occurrence
    params: list[cst.Param] = field(default_factory=list)
    func: _FuncInfo | None = None      # the def whose parameter this is (kind "param")
    group: tuple[int, int] = (0, 0)    # bindings of one group may exchange names (misleading scheme)
    site: cst.CSTNode | None = None    # where the change is recorded (default: the first target)


# --------------------------------------------------------------------------------------
# shared analysis: scopes, and every variable use resolved to its binding scope
# --------------------------------------------------------------------------------------

class _Analysis:
    """Scopes and name resolution of one module, shared by the renaming transforms.

    Attributes (all keyed by libcst scope objects or ``id()`` of them): ``scope_of_node``
    (scope-creating node -> its scope), ``all_scopes`` (module first, then source order),
    ``assignments`` (scope -> name -> libcst assignments), ``binds`` (scope -> names),
    ``uses`` ((id(binding scope), name) -> every variable-role ``Name`` resolving there,
    loads, stores and dels alike), ``unscoped`` (names libcst could not place),
    ``class_reads`` and ``class_bound`` (class-body interplay), ``func_scope`` (id(scope)
    -> :class:`_FuncInfo`).
    """

    def __init__(self, module: cst.Module, ctx: RewriteContext) -> None:
        ctx.wrapper.resolve_many([ScopeProvider, ParentNodeProvider, PositionProvider])  # one batched pass
        self.module = module
        self.ctx = ctx
        self.scopes = scopes = ctx.metadata(ScopeProvider)
        self.parents = ctx.metadata(ParentNodeProvider)
        self.positions = ctx.metadata(PositionProvider)
        self.survey = survey = _Survey(self.parents)
        module.visit(survey)

        # libcst scope of each scope-creating node, and the names each scope binds
        self.scope_of_node: dict[cst.CSTNode, object] = {}
        self.all_scopes: list[object] = []
        self.global_scope = scopes.get(module)
        for node in survey.scope_nodes:
            inner = _inner_scope(node, scopes)
            if inner is not None:
                self.scope_of_node[node] = inner
        self.binds: dict[object, set[str]] = {}
        self.assignments: dict[object, dict[str, list]] = {}
        ordered = [self.global_scope] + [self.scope_of_node[n] for n in survey.scope_nodes if n in self.scope_of_node]
        for sc in ordered:
            if sc is None or sc in self.assignments:
                continue
            self.all_scopes.append(sc)
            per: dict[str, list] = {}
            for a in sc.assignments:
                per.setdefault(a.name, []).append(a)
            self.assignments[sc] = per
            self.binds[sc] = set(per)

        # resolve every variable use to the scope that binds it
        self.uses: dict[tuple[int, str], list[cst.Name]] = {}
        self.unscoped: set[str] = set()
        self.class_reads: dict[tuple[int, str], list[object]] = {}
        for node in survey.variables:
            sc = scopes.get(node)
            if sc is None:
                self.unscoped.add(node.value)
                continue
            target = _resolve(sc, node.value, self.binds)
            if target is None:
                continue
            self.uses.setdefault((id(target), node.value), []).append(node)
            if isinstance(sc, ClassScope) and sc is not target:
                self.class_reads.setdefault((id(target), node.value), []).append(sc)

        # names bound in class bodies shadow the enclosing functions' names for class code
        self.class_bound: set[tuple[int, str]] = set()
        for sc in self.all_scopes:
            if isinstance(sc, ClassScope):
                up = sc.parent
                while up is not None and not isinstance(up, GlobalScope):
                    for n in self.binds.get(sc, ()):
                        self.class_bound.add((id(up), n))
                    if up.parent is up:
                        break
                    up = up.parent

        self.func_scope: dict[int, _FuncInfo] = {}
        for info in survey.functions:
            sc = self.scope_of_node.get(info.node)
            if sc is not None:
                self.func_scope[id(sc)] = info

        survey.classify_dynamic(scopes, self.binds)
        self.module_dynamic = bool(survey.module_dynamic) or any(info.dynamic for info in survey.functions)
        self.all_dynamic = bool(survey.alias_dynamic)

    # -- helpers -------------------------------------------------------------------
    def pos(self, node: cst.CSTNode) -> tuple[int, int]:
        """(line, column) where ``node`` starts."""
        p = self.positions[node].start
        return (p.line, p.column)

    def owner(self, sc) -> _FuncInfo | None:
        """The innermost ``def`` a comprehension scope lives in."""
        cur = sc.parent
        while cur is not None and not isinstance(cur, GlobalScope):
            if isinstance(cur, FunctionScope) and id(cur) in self.func_scope:
                return self.func_scope[id(cur)]
            if cur.parent is cur:
                break
            cur = cur.parent
        return None

    def group_of(self, sc) -> tuple[int, int]:
        """A deterministic key of a scope: the position of the node that creates it."""
        for node, inner in self.scope_of_node.items():
            if inner is sc:
                return self.pos(node)
        return (0, 0)

    def first_dynamic(self) -> str | None:
        """The first use of eval/exec/globals/locals/vars()/dir() anywhere, if any."""
        if self.survey.alias_dynamic:
            return self.survey.alias_dynamic[0]
        if self.survey.module_dynamic:
            return self.survey.module_dynamic[0]
        for info in self.survey.functions:
            if info.dynamic:
                return info.dynamic[0]
        return None

    def shadowed(self, name: str) -> bool:
        """Whether the builtin ``name`` may be rebound by the program."""
        return bool(self.ctx.shadowed(name))

    def def_names(self) -> set[str]:
        """Names of every ``def`` in the program (methods included)."""
        return {info.node.name.value for info in self.survey.functions}


def _permutable_groups(an: _Analysis, bindings: Sequence[_Binding],
                       harness_kw: set[str] | None) -> list[tuple[tuple[int, int], list[str]]]:
    """For the misleading scheme: per group, the old names that may be exchanged.

    A name qualifies when all its bindings being renamed belong to one group and every
    ``Name`` node in the program spelling it is either one of their targets or an
    attribute name (so a global, bijective exchange of spellings is exact), and it is not
    a builtin, keyword, dunder or a keyword a harness input passes.  Groups are returned
    in source order (deterministic rng draws)."""
    by_name: dict[str, list[_Binding]] = {}
    for b in bindings:
        by_name.setdefault(b.name, []).append(b)
    target_ids = {id(t) for b in bindings for t in b.targets}
    groups: dict[tuple[int, int], list[str]] = {}
    first: dict[tuple[int, int], tuple[int, int]] = {}
    for name, bs in by_name.items():
        keys = {b.group for b in bs}
        if len(keys) != 1 or name in _RESERVED or name.startswith("__"):
            continue
        if harness_kw is None or name in harness_kw:
            continue
        nodes = an.survey.all_names.get(name, [])
        if all(id(n) in target_ids or an.survey.special.get(n) == "attr" for n in nodes):
            (g,) = keys
            groups.setdefault(g, []).append(name)
            first[g] = min(first.get(g, (1 << 30, 0)), *(b.first for b in bs))
    return [(g, sorted(groups[g])) for g in sorted(groups, key=lambda g: first[g])]


class _RenamingTransform(Transform):
    """Shared options and steps of the renaming transforms.

    Options:
        scheme (str): ``"random"`` (default), ``"obfuscated"``, ``"natural"`` or
            ``"misleading"`` (see :data:`SCHEMES`).
        mapping (dict[str, str]): the user's own names, old -> new; only the names listed
            are renamed (checked by :func:`validate_mapping`; give either ``scheme`` or
            ``mapping``).

    Raises (constructor): ``ValueError`` for an unknown scheme or a bad mapping,
    ``TypeError`` for an unknown option or a mapping that is not a table of strings.
    """

    family = "naming"

    def __init__(self, scheme: str | None = None, mapping: Mapping[str, str] | None = None, **options) -> None:
        super().__init__(**options)
        if mapping is not None:
            if scheme is not None:
                raise ValueError(f"{self.name}: give either scheme or mapping, not both")
            self.mapping: dict[str, str] | None = validate_mapping(self.name, mapping)
            self.scheme = MappingScheme.name
        else:
            scheme = "random" if scheme is None else scheme
            if not isinstance(scheme, str) or scheme not in SCHEMES:
                raise ValueError(f"{self.name}: unknown scheme {scheme!r} (known: {', '.join(sorted(SCHEMES))})")
            self.mapping = None
            self.scheme = scheme

    def _make_scheme(self, ctx: RewriteContext) -> NamingScheme:
        if self.mapping is not None:
            return MappingScheme(ctx, self.mapping)
        return make_scheme(self.scheme, ctx)

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        """Rename (see the class docstring); raises ``NotApplicable`` with the reason when
        nothing can be renamed safely."""
        return self._rewrite(module, ctx)

    def _rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        raise NotImplementedError

    # -- shared steps ----------------------------------------------------------------
    @staticmethod
    def _nothing(skipped: Sequence[str], default: str) -> NotApplicable:
        distinct = list(dict.fromkeys(skipped))
        reason = "; ".join(distinct[:3]) + ("; ..." if len(distinct) > 3 else "") if distinct else default
        return NotApplicable(reason)

    def _choose(self, an: _Analysis, bindings: list[_Binding], scheme: NamingScheme,
                harness_kw: set[str] | None) -> tuple[dict[cst.Name, str], dict[str, str], dict[int, str]]:
        """New names for ``bindings`` (in source order); records one site per binding.

        Returns ``(new spelling per Name node, back: new -> old, new name per id(binding))``."""
        ctx = an.ctx
        bindings.sort(key=lambda b: (b.first, b.name))
        perms: dict[tuple[int, int], dict[str, str]] = {}
        if scheme.permutes:
            groups = _permutable_groups(an, bindings, harness_kw)
            for (g, names), swap in zip(groups, scheme.permute([names for _, names in groups])):
                if swap and sorted(swap) == sorted(swap.values()) == names:
                    perms[g] = swap
        new_value: dict[cst.Name, str] = {}
        back: dict[str, str] = {}
        chosen: dict[int, str] = {}
        for b in bindings:
            swap = perms.get(b.group, {})
            new = swap[b.name] if b.name in swap else scheme.new_name(b.name, b.kind)
            if back.get(new, b.name) != b.name:
                raise NotApplicable(f"internal: {new!r} chosen for both {back[new]!r} and {b.name!r}; left unchanged")
            back[new] = b.name
            chosen[id(b)] = new
            for t in b.targets:
                new_value[t] = new
            ctx.record(b.site if b.site is not None else min(b.targets, key=an.pos), f"{b.name} -> {new}")
        return new_value, back, chosen

    @staticmethod
    def _finish(module: cst.Module, new_value: Mapping[cst.Name, str], back: Mapping[str, str]) -> cst.Module:
        new_module = module.visit(_Respell(new_value))
        try:
            check_renaming(module.code, new_module.code, back)
        except (RenamingMismatch, SyntaxError, ValueError) as exc:
            raise NotApplicable(f"internal consistency check failed ({exc}); left unchanged") from None
        return new_module


# --------------------------------------------------------------------------------------
# rename-locals
# --------------------------------------------------------------------------------------

class RenameLocals(_RenamingTransform):
    """Rename the local variables and parameters of every function, scope-aware.

    Options:
        scheme (str): how new names are chosen (see :data:`SCHEMES`): ``"random"``
            (default; plausible words such as ``tmp_value``, drawn with the context's
            rng), ``"obfuscated"`` (``v0``, ``v1``, ...), ``"natural"`` (synonyms:
            ``nums`` -> ``values``) or ``"misleading"`` (names suggesting another role,
            and exchanges of the function's own variable names).
        mapping (dict[str, str]): rename exactly these names, old -> new, in every
            function where that is safe (instead of ``scheme``).
        params (bool): rename parameters (default ``True``: benchmark harnesses call the
            entry point positionally; a parameter a harness input passes by keyword is
            kept anyway).
        locals (bool): rename local variables and comprehension variables (default
            ``True``).  ``params=True, locals=False`` renames only the parameters;
            ``params=False`` leaves every parameter alone.

    What is renamed: names bound in a function body (assignments, augmented and annotated
    assignments, ``for``/``with``/``except ... as``/walrus targets, ``del``), parameters,
    and the variables of comprehensions inside functions; every use is respelled,
    including uses from nested functions, lambdas, comprehensions, class bodies and
    f-strings.  New names are spelled nowhere in the program, so nothing can be captured
    or shadowed -- except with the ``misleading`` scheme, which may exchange two names of
    one function when every occurrence of both is renamed (checked again by
    :func:`check_renaming`).

    What is never touched: attribute names, keyword arguments of calls to functions whose
    parameters were not renamed, builtins, globals, strings, names starting with ``__``,
    names of nested ``def``/``class`` and imports, class-body names, and lambda
    parameters.  A binding is skipped when Python's rules and libcst's scope analysis
    might disagree about it: names in a ``global``/``nonlocal`` statement or bound by a
    ``match`` pattern anywhere in the function, a walrus inside a comprehension, a name
    also bound in a nested class body, a name inside a string annotation or a
    self-documenting f-string (``f"{x=}"``).

    Parameters are renamed only when no caller can pass them by name: positional-only,
    ``*args`` and ``**kwargs`` parameters always; the others only for a function that is
    not a method, not decorated, defined once, and whose name is used only in direct
    calls without ``**`` (the keyword arguments of those calls are updated), and never a
    parameter that a harness input (``ctx.inputs``) passes to the entry point by keyword.

    Refused as a whole (``applied=False`` with the reason): programs that introspect
    frames, code objects or signatures (:data:`INTROSPECTION_NAMES`) and programs that
    look at a caught exception object that might be a ``NameError``/``TypeError`` (its
    message quotes variable names).  A function that uses ``eval``, ``exec``,
    ``locals``, ``globals``, ``vars()`` or ``dir()`` is left alone (and any such use
    anywhere stops parameter renaming, since a string could call a function by keyword).

    Every rewrite is re-checked with :func:`check_renaming` (symbol tables and ASTs of
    both versions); on a mismatch nothing is emitted.
    """

    name = "rename-locals"
    description = "rename local variables and parameters (scope-aware, symbol-table checked)"
    preconditions = (
        "no frame/code/signature introspection",
        "no inspection of caught NameError/TypeError objects",
        "function does not use eval/exec/locals/globals/vars()/dir()",
        "parameter renamed only when no caller passes it by keyword",
    )

    def __init__(self, scheme: str | None = None, params: bool = True, mapping: Mapping[str, str] | None = None,
                 **options) -> None:
        rename_locals = options.pop("locals", True)
        super().__init__(scheme, mapping, **options)
        if not isinstance(params, bool):
            raise TypeError(f"rename-locals: params must be a bool, got {type(params).__name__}")
        if not isinstance(rename_locals, bool):
            raise TypeError(f"rename-locals: locals must be a bool, got {type(rename_locals).__name__}")
        if not params and not rename_locals:
            raise ValueError("rename-locals: params=False and locals=False leave nothing to rename")
        self.params = params
        self.locals = rename_locals

    # ------------------------------------------------------------------------------
    def _rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        an = _Analysis(module, ctx)
        survey = an.survey

        if survey.introspection:
            raise NotApplicable("the program may introspect names at run time ("
                                + ", ".join(sorted(survey.introspection)) + "); left unchanged")
        if survey.exception_objects:
            raise NotApplicable("the program inspects caught exceptions (" + survey.exception_objects[0]
                                + "), whose messages may quote variable names; left unchanged")
        if not survey.functions:
            raise NotApplicable("no function in the program")

        scopes, parents = an.scopes, an.parents
        scheme = self._make_scheme(ctx)
        skipped: list[str] = []
        bindings: list[_Binding] = []
        harness_kw = _harness_keywords(ctx.inputs)
        for kw in sorted(harness_kw or ()):
            ctx.reserve(kw)  # a new parameter name must not meet a harness keyword in **kwargs

        # parameters by name for every def, and whether outside callers may use keywords
        keyword_safe: dict[int, str | None] = {}

        def callers_ok(info: _FuncInfo) -> str | None:
            """``None`` when every use of the def's name is a direct call without ``**``,
            else why its named parameters must keep their names."""
            key = id(info.node)
            if key in keyword_safe:
                return keyword_safe[key]
            keyword_safe[key] = why = _callers_problem(info, scopes, an.assignments, an.uses, parents, survey,
                                                       an.module_dynamic, an.unscoped)
            return why

        for sc in an.all_scopes:
            if isinstance(sc, FunctionScope) and id(sc) in an.func_scope:
                info = an.func_scope[id(sc)]
                kind_default = "local"
            elif isinstance(sc, ComprehensionScope):
                info = an.owner(sc)
                kind_default = "comprehension"
                if info is None:
                    continue
            else:
                continue
            fname = info.node.name.value
            if an.all_dynamic:
                skipped.append(f"{fname}: the program refers to {survey.alias_dynamic[0]} other than by a call")
                continue
            if info.dynamic:
                skipped.append(f"{fname} uses {info.dynamic[0]} (dynamic scope); left alone")
                continue
            for name in sorted(an.assignments[sc]):
                if not scheme.wants(name):
                    continue
                asgs = an.assignments[sc][name]
                why = self._binding_problem(name, asgs, sc, info, an.class_bound, an.class_reads, an.unscoped)
                if why is not None:
                    if not any(isinstance(a.node, (cst.FunctionDef, cst.ClassDef)) for a in asgs):
                        skipped.append(f"{fname}: {name} {why}")
                    continue
                targets = [n for n in an.uses.get((id(sc), name), [])]
                params = [a.node for a in asgs if isinstance(a.node, cst.Param)]
                kind = "param" if params else kind_default
                if params:
                    why = self._param_problem(params, info, ctx, harness_kw, callers_ok)
                    if why is not None:
                        skipped.append(why)
                        continue
                    targets.extend(p.name for p in params)
                elif not self.locals:
                    skipped.append(f"{fname}: {name} is not a parameter (locals=False)")
                    continue
                # Name targets of assignments are variable-role Names already in `uses`
                target_ids = {id(t) for t in targets}
                missing = [a for a in asgs if isinstance(a.node, cst.Name) and id(a.node) not in target_ids]
                if missing:
                    skipped.append(f"{fname}: {name} has an assignment no use resolves to")
                    continue
                first = min(an.pos(t) for t in targets)
                bindings.append(_Binding(sc, name, kind, targets, first, params, info if params else None,
                                         group=an.pos(info.node)))

        if not bindings:
            default = "no local variable or parameter to rename"
            if self.mapping is not None:
                default = f"no renameable local variable or parameter is named {', '.join(sorted(self.mapping))}"
            raise self._nothing(skipped, default)

        new_value, back, chosen = self._choose(an, bindings, scheme, harness_kw)
        renamed_params: dict[int, dict[str, str]] = {}
        for b in bindings:
            if b.params and b.func is not None:
                renamed_params.setdefault(id(b.func.node), {})[b.name] = chosen[id(b)]

        # keyword arguments in direct calls of functions whose parameters were renamed
        for info in survey.functions:
            mapping = renamed_params.get(id(info.node))
            if not mapping:
                continue
            named = {p.name.value for p in [*info.node.params.params, *info.node.params.kwonly_params]}
            for call in _direct_calls(info, scopes, an.uses, parents):
                for arg in call.args:
                    if arg.keyword is not None and arg.keyword.value in mapping and arg.keyword.value in named:
                        new_value[arg.keyword] = mapping[arg.keyword.value]
                        ctx.record(arg.keyword, f"keyword {arg.keyword.value}= -> {mapping[arg.keyword.value]}=")

        return self._finish(module, new_value, back)

    # ------------------------------------------------------------------------------
    @staticmethod
    def _binding_problem(name, asgs, sc, info: _FuncInfo, class_bound, class_reads, unscoped) -> str | None:
        if _is_dunder(name):
            return "starts with __"
        if name in info.forbidden:
            return info.forbidden[name]
        if name in unscoped:
            return "has a use that libcst does not place in a scope"
        for a in asgs:
            if not isinstance(a.node, (cst.Name, cst.Param)):
                return "is bound by a def, class or import"
        if (id(sc), name) in class_bound:
            return "is also bound in a nested class body"
        for cls_scope in class_reads.get((id(sc), name), []):
            cls = getattr(cls_scope, "node", None)
            if not isinstance(cls, cst.ClassDef) or cls.bases or cls.keywords:
                return "is read by a class body whose metaclass may pre-fill its namespace"
        for text in info.string_annotations:
            if re.search(rf"(?<![\w.]){re.escape(name)}(?![\w])", text):
                return "is used in a string annotation"
        return None

    def _param_problem(self, params: list[cst.Param], info: _FuncInfo, ctx: RewriteContext,
                       harness_kw: set[str] | None, callers_ok: Callable[[_FuncInfo], str | None]) -> str | None:
        fname = info.node.name.value
        if not self.params:
            return f"{fname}: parameters kept (params=False)"
        if info.node.decorators:
            return f"{fname} is decorated; its parameters keep their names"
        ps = info.node.params
        p = params[0]
        if any(p is q for q in ps.posonly_params) or p is ps.star_arg or p is ps.star_kwarg:
            return None  # cannot be passed by keyword
        why = callers_ok(info)
        if why is not None:
            return why
        if fname == ctx.entry_point and _is_top_level(info.node, ctx):
            if harness_kw is None:
                return f"{fname}: a harness input passes ** or does not parse; parameters kept"
            if p.name.value in harness_kw:
                return f"{fname}: a harness input passes {p.name.value}= by keyword"
        return None


# --------------------------------------------------------------------------------------
# rename-functions and rename-classes
# --------------------------------------------------------------------------------------

#: Identifiers whose presence means a program may observe the names of its functions or
#: classes: name attributes (also when spelled in a string, for ``getattr``), pickling
#: (records qualified names), logging formats (``funcName``), profilers and fault dumps.
NAME_OBSERVERS: frozenset[str] = frozenset({
    "__name__", "__qualname__", "pickle", "_pickle", "cPickle", "copyreg", "shelve", "dill",
    "cloudpickle", "__reduce__", "__reduce_ex__", "logging", "funcName", "cProfile",
    "faulthandler", "tracemalloc",
})

#: More identifiers that reach a class (and so its name) from an instance or a subclass.
CLASS_OBSERVERS: frozenset[str] = frozenset({
    "__class__", "__mro__", "__bases__", "__base__", "__subclasses__", "mro", "__init_subclass__",
    "__orig_bases__", "__type_params__",
})

#: builtins that fully consume an iterable passed as their first argument
_CONSUMERS: frozenset[str] = frozenset({
    "list", "tuple", "set", "frozenset", "dict", "sorted", "sum", "min", "max", "any", "all", "next",
})
#: methods that (on the builtin types) consume an iterable argument
_CONSUMING_METHODS: frozenset[str] = frozenset({"join", "extend", "update", "union"})


class _Confinement:
    """Where function objects, generator objects and instances may flow without their
    names (``__name__``, ``__qualname__``, default ``repr``) becoming observable.

    Args:
        an: the module's :class:`_Analysis`.

    All tests are syntactic and conservative: a value is *confined* when every use of it
    is a call (a function), a consumption by a builtin (a generator expression passed to
    ``list``/``sum``/``str.join``...), or an attribute access (an instance).
    """

    def __init__(self, an: _Analysis) -> None:
        self.an = an
        self.user_defs = an.def_names()

    def line(self, node: cst.CSTNode) -> int:
        return self.an.pos(node)[0]

    def _builtin(self, func: cst.BaseExpression, names: Iterable[str]) -> str | None:
        if isinstance(func, cst.Name) and func.value in names and not self.an.shadowed(func.value):
            return func.value
        return None

    def _method(self, func: cst.BaseExpression, names: Iterable[str]) -> str | None:
        if isinstance(func, cst.Attribute) and func.attr.value in names and func.attr.value not in self.user_defs:
            return func.attr.value
        return None

    def sink_arg(self, arg: cst.Arg, call: cst.Call) -> bool:
        """A function passed as ``arg`` is only called by the callee: the first positional
        argument of ``map``/``filter``, or ``key=`` of ``sorted``/``min``/``max``/``.sort``."""
        if arg.star:
            return False
        if arg.keyword is None:
            return bool(self._builtin(call.func, ("map", "filter"))) and bool(call.args) and call.args[0] is arg
        if arg.keyword.value == "key":
            return bool(self._builtin(call.func, ("sorted", "min", "max")) or self._method(call.func, ("sort",)))
        return False

    def function_use(self, use: cst.Name) -> str | None:
        """``None`` when this use of a function's name only calls it (or deletes the name),
        else why the function object may escape."""
        parent = self.an.parents.get(use)
        if isinstance(parent, cst.Call) and parent.func is use:
            return None
        if isinstance(parent, cst.Decorator) and parent.decorator is use:
            return None  # @name calls it
        if isinstance(parent, cst.Del):
            return None
        if isinstance(parent, cst.Arg) and parent.value is use:
            call = self.an.parents.get(parent)
            if isinstance(call, cst.Call) and self.sink_arg(parent, call):
                return None
        return f"{use.value} is used as a value (line {self.line(use)}), so its name could be shown"

    def callable_only(self, name_node: cst.Name) -> str | None:
        """Every use of the binding a ``Name`` target creates only calls it."""
        an = self.an
        name = name_node.value
        if name in an.survey.decl_names or name in an.unscoped or name in an.survey.forbidden_anywhere:
            return f"{name} is reached other than by its scope (line {self.line(name_node)})"
        sc = an.scopes.get(name_node)
        target = _resolve(sc, name, an.binds) if sc is not None else None
        if target is None or isinstance(target, ClassScope):
            return f"{name} is a class attribute or unresolved (line {self.line(name_node)})"
        for use in an.uses.get((id(target), name), []):
            parent = an.parents.get(use)
            if use is name_node or (isinstance(parent, cst.AssignTarget) and parent.target is use):
                continue
            why = self.function_use(use)
            if why is not None:
                return why
        return None

    def lambda_ok(self, node: cst.Lambda) -> bool:
        parent = self.an.parents.get(node)
        if isinstance(parent, cst.Call) and parent.func is node:
            return True  # called on the spot
        if isinstance(parent, cst.Arg) and parent.value is node:
            call = self.an.parents.get(parent)
            return isinstance(call, cst.Call) and self.sink_arg(parent, call)
        if isinstance(parent, cst.Assign) and parent.value is node and len(parent.targets) == 1 \
                and isinstance(parent.targets[0].target, cst.Name):
            return self.callable_only(parent.targets[0].target) is None
        return False

    def genexp_ok(self, node: cst.GeneratorExp) -> bool:
        parent = self.an.parents.get(node)
        if isinstance(parent, cst.For) and parent.iter is node:
            return True
        if isinstance(parent, cst.Arg) and parent.value is node and parent.keyword is None and not parent.star:
            call = self.an.parents.get(parent)
            if isinstance(call, cst.Call) and call.args and call.args[0] is parent:
                return bool(self._builtin(call.func, _CONSUMERS) or self._method(call.func, _CONSUMING_METHODS))
        return False

    def nested_escape(self, fn: cst.FunctionDef, label: str | None = None) -> str | None:
        """Why a value whose ``__qualname__`` contains ``fn``'s name (``label``, e.g.
        ``C.method``, in messages) may escape from ``fn`` (a nested def, lambda, generator
        expression or class), or ``None``."""
        outer = label or fn.name.value
        problems: list[str] = []
        conf = self

        class V(cst.CSTVisitor):
            def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
                if node is fn:
                    return True
                if node.decorators or node.asynchronous is not None or _is_generator(node):
                    problems.append(f"{outer}: nested function {node.name.value} is decorated, async or a "
                                    f"generator (line {conf.line(node)}); its __qualname__ includes {outer}")
                    return False
                why = conf.callable_only(node.name)
                if why is not None:
                    problems.append(f"{outer}: nested function {node.name.value} may escape ({why}); its "
                                    f"__qualname__ includes {outer}")
                return True

            def visit_ClassDef(self, node: cst.ClassDef) -> bool:
                problems.append(f"{outer} defines class {node.name.value} (line {conf.line(node)}), whose "
                                f"__qualname__ includes {outer}")
                return False

            def visit_Lambda(self, node: cst.Lambda) -> None:
                if not conf.lambda_ok(node):
                    problems.append(f"{outer}: a lambda (line {conf.line(node)}) may escape; its __qualname__ "
                                    f"includes {outer}")

            def visit_GeneratorExp(self, node: cst.GeneratorExp) -> None:
                if not conf.genexp_ok(node):
                    problems.append(f"{outer}: a generator expression (line {conf.line(node)}) may escape; its "
                                    f"__qualname__ includes {outer}")

        fn.visit(V())
        return problems[0] if problems else None


def _is_generator(fn: cst.FunctionDef) -> bool:
    """Whether ``fn``'s own body yields (nested defs, lambdas and classes excluded)."""
    found = []

    class V(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is fn

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return False

        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            return False

        def visit_Yield(self, node: cst.Yield) -> None:
            found.append(node)

    fn.visit(V())
    return bool(found)


def _input_names(inputs: Sequence[str]) -> set[str] | None:
    """Identifiers the harness inputs spell (they are evaluated in the program's globals,
    so ``make(3)`` in an input reaches the program's ``make``); ``None`` when an input does
    not parse."""
    out: set[str] = set()
    for text in inputs:
        try:
            call = ast.parse(f"f({text})", mode="eval").body
        except (SyntaxError, ValueError):
            return None
        if not isinstance(call, ast.Call):
            return None
        for part in [*call.args, *call.keywords]:
            out.update(n.id for n in ast.walk(part) if isinstance(n, ast.Name))
    return out


class _DefRenamer(_RenamingTransform):
    """Shared checks of rename-functions and rename-classes."""

    #: what a binding must be bound by (``cst.FunctionDef`` or ``cst.ClassDef``)
    node_type: ClassVar[type] = cst.FunctionDef
    kind: ClassVar[str] = "function"
    observers: ClassVar[frozenset[str]] = NAME_OBSERVERS

    def _program_problem(self, an: _Analysis) -> str | None:
        s = an.survey
        if s.introspection:
            return "the program may introspect names at run time (" + ", ".join(sorted(s.introspection)) + ")"
        dynamic = an.first_dynamic()
        if dynamic is not None:
            return f"the program uses {dynamic}, which can reach functions and classes by name"
        seen = sorted((self.observers & set(s.all_names)) | (self.observers & s.string_words))
        if seen:
            return f"the program may observe names of {'classes' if self.kind == 'class' else 'functions'} " \
                   f"({', '.join(seen)})"
        return None

    def _common_problem(self, an: _Analysis, sc, name: str, asgs: list, defs: list,
                        input_names: set[str] | None) -> str | None:
        s = an.survey
        what = f"{self.kind} {name}"
        if _is_dunder(name):
            return f"{what} starts with __"
        if len(asgs) != len(defs):
            return f"{what} is also bound other than by a {'def' if self.kind == 'function' else 'class'} statement"
        if name in s.decl_names:
            return f"{what} is named in a global or nonlocal statement"
        if name in s.forbidden_anywhere:
            return f"{what} {s.forbidden_anywhere[name]}"
        if name in an.unscoped:
            return f"{what} has a use that libcst does not place in a scope"
        if isinstance(sc, GlobalScope) and name in BUILTIN_NAMES:
            return f"{what} is spelled like a builtin (before its definition runs, the name reads the builtin)"
        if name in s.string_words:
            return f"{what}: the name appears in a string"
        if isinstance(sc, GlobalScope) and (input_names is None or name in input_names):
            return f"{what} is named by a harness input (inputs run in the program's globals)"
        for cls_scope in an.all_scopes:
            if isinstance(cls_scope, ClassScope) and name in an.binds.get(cls_scope, ()):
                for use in an.uses.get((id(cls_scope), name), []):
                    parent = an.parents.get(use)
                    if not (isinstance(parent, (cst.AssignTarget, cst.AnnAssign)) and parent.target is use):
                        return f"{what} is also bound in a class body that reads the name"
        for cls_scope in an.class_reads.get((id(sc), name), []):
            cls = getattr(cls_scope, "node", None)
            if not isinstance(cls, cst.ClassDef) or cls.bases or cls.keywords:
                return f"{what} is read by a class body whose metaclass may pre-fill its namespace"
        return None

    def _collect(self, an: _Analysis, ctx: RewriteContext, scheme: NamingScheme,
                 problem: Callable[[object, str, list, list], str | None]) -> tuple[list[_Binding], list[str]]:
        bindings: list[_Binding] = []
        skipped: list[str] = []
        for sc in an.all_scopes:
            if isinstance(sc, (ClassScope, ComprehensionScope)):
                continue
            for name in sorted(an.assignments[sc]):
                asgs = an.assignments[sc][name]
                defs = [a.node for a in asgs if isinstance(a.node, self.node_type)]
                if not defs or not scheme.wants(name):
                    continue
                why = problem(sc, name, asgs, defs)
                if why is not None:
                    skipped.append(why)
                    continue
                targets = [d.name for d in defs] + list(an.uses.get((id(sc), name), []))
                bindings.append(_Binding(sc, name, self.kind, targets, min(an.pos(t) for t in targets),
                                         group=an.group_of(sc), site=defs[0].name))
        return bindings, skipped


class RenameFunctions(_DefRenamer):
    """Rename functions (``def``, at module level or nested in functions) and every call.

    Options:
        scheme (str): ``"random"`` (default; ``merge_token``), ``"obfuscated"``
            (``fn0``, ``fn1``, ...), ``"natural"`` (synonyms: ``get_max`` ->
            ``fetch_maximum``) or ``"misleading"`` (antonyms, unrelated task names, and
            exchanges of the names of sibling functions).  See :data:`SCHEMES`.
        mapping (dict[str, str]): rename exactly these functions, old -> new.
        entry_point (bool): also rename the entry point (default ``False``).  The new name
            is set as ``ctx.new_entry_point``, so the rewritten :class:`~codemorph.Program`
            and the ``entry_point`` field of generated rows carry it.

    What is renamed: the ``def`` statement's name and every variable-role use of it
    (recursive calls, calls from other functions, ``del``), resolved with libcst's scopes
    and Python's rules.  Methods (defs in class bodies) are never renamed: they are
    reached through attributes.

    A function is skipped (with the reason) when its name could be observed or reached
    other than through the renamed sites: it is decorated, async or a generator (the
    decorator sees the object; coroutines and generators carry the name); its name is used
    as a value other than a call, a ``map``/``filter`` function or a ``key=`` (so its
    ``repr`` and ``__name__`` could not reach the output); a nested def, lambda, generator
    expression or class inside it may escape (their ``__qualname__`` contains its name);
    the name appears in any string (``getattr``, ``globals()[...]``-style lookups), in a
    ``global``/``nonlocal`` statement, in a harness input, or is also bound other than
    by ``def``; at module level, the name is spelled like a builtin.

    Refused as a whole: introspection (:data:`INTROSPECTION_NAMES`), any
    ``eval``/``exec``/``globals``/``locals``/``vars()``/``dir()``, a read of
    ``__name__``/``__qualname__`` as an attribute or in a string, pickling, logging and
    profilers (:data:`NAME_OBSERVERS`), and an inspected caught exception that may be a
    ``TypeError``/``NameError`` (their messages quote function names).

    Every rewrite is re-checked with :func:`check_renaming`.
    """

    name = "rename-functions"
    description = "rename functions and their calls (entry point optional, written to entry_point)"
    preconditions = (
        "no introspection, eval/exec/globals/locals, pickling or __name__/__qualname__ reads",
        "function used only by calls (or as map/filter/key= function)",
        "name in no string, global/nonlocal statement or harness input",
        "no escaping nested function, lambda, generator expression or class",
    )

    def __init__(self, scheme: str | None = None, mapping: Mapping[str, str] | None = None,
                 entry_point: bool = False, **options) -> None:
        super().__init__(scheme, mapping, **options)
        if not isinstance(entry_point, bool):
            raise TypeError(f"rename-functions: entry_point must be a bool, got {type(entry_point).__name__}")
        self.entry_point = entry_point

    def _rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        an = _Analysis(module, ctx)
        why = self._program_problem(an)
        if why is not None:
            raise NotApplicable(why + "; left unchanged")
        if an.survey.exception_objects:
            raise NotApplicable("the program inspects caught exceptions (" + an.survey.exception_objects[0]
                                + "), whose messages may quote function names; left unchanged")
        conf = _Confinement(an)
        input_names = _input_names(ctx.inputs)
        scheme = self._make_scheme(ctx)

        def problem(sc, name: str, asgs: list, defs: list) -> str | None:
            if isinstance(sc, GlobalScope) and name == ctx.entry_point and not self.entry_point:
                return f"{name} is the entry point (option entry_point=true renames it)"
            why = self._common_problem(an, sc, name, asgs, defs, input_names)
            if why is not None:
                return why
            for d in defs:
                if d.decorators:
                    return f"function {name} is decorated (the decorator receives the function object)"
                if d.asynchronous is not None or _is_generator(d):
                    return f"function {name} is async or a generator (its coroutines and generators carry its name)"
                why = conf.nested_escape(d)
                if why is not None:
                    return why
            for use in an.uses.get((id(sc), name), []):
                why = conf.function_use(use)
                if why is not None:
                    return f"function {why}"
            return None

        bindings, skipped = self._collect(an, ctx, scheme, problem)
        if not bindings:
            default = "no function to rename" if not an.survey.functions else "no function can be renamed"
            if self.mapping is not None:
                default = f"no renameable function is named {', '.join(sorted(self.mapping))}"
            raise self._nothing(skipped, default)
        # the entry point never takes part in an exchange of names: no other function may
        # end up called by the entry point's old name (a harness that ignores the row's
        # entry_point would silently call the wrong function)
        new_value, back, chosen = self._choose(an, bindings, scheme, {ctx.entry_point})
        for b in bindings:
            if isinstance(b.scope, GlobalScope) and b.name == ctx.entry_point:
                ctx.new_entry_point = chosen[id(b)]
        return self._finish(module, new_value, back)


class RenameClasses(_DefRenamer):
    """Rename classes (``class`` statements at module level or in functions) and every use.

    Options:
        scheme (str): ``"random"`` (default; ``TokenStore``), ``"obfuscated"`` (``C0``,
            ``C1``, ...), ``"natural"`` (synonyms, CamelCase kept) or ``"misleading"``
            (unrelated class names, and exchanges between sibling classes).
        mapping (dict[str, str]): rename exactly these classes, old -> new.

    A class's name shows in the default ``repr``/``str`` of its instances
    (``<__main__.C object at ...>``), in ``type(x)``, in error messages and in the type
    fingerprint verification compares, so a class is renamed only when none of its
    instances, nor the class object, can reach the output, stdout or an exception
    message.  Conservatively, every one of these must hold:

    * the class has no decorator, no keyword (metaclass) and no base but ``object``, is
      not used as a base, and its body holds only methods (undecorated, or
      ``@staticmethod``/``@property``; not async, not generators; no escaping lambda or
      nested function), a docstring, ``pass`` and attributes bound to constants;
    * in every method, ``self`` (the first parameter) is used only as ``self.attr`` with a
      non-dunder ``attr`` (methods called at once), and ``super`` is not used;
    * every use of the class name is: an instantiation whose result is discarded,
      accessed at once (``C(...).attr``) or bound to a variable used only as
      ``v.attr``; ``isinstance``/``issubclass``; an annotation; ``C.attr`` (methods called
      at once); ``del``;
    * the name appears in no string, no ``global``/``nonlocal`` statement and no harness
      input, and no identifier spells its mangled prefix ``_C__``.

    Refused as a whole: introspection, ``eval``/``exec``/``globals``/``locals``/
    ``vars()``/``dir()``, reads of ``__name__``/``__qualname__``/``__class__``/
    ``__mro__``/``__bases__``/``mro`` (:data:`CLASS_OBSERVERS`), pickling and logging,
    and any inspected caught exception (``AttributeError`` and many others quote class
    names).

    Every rewrite is re-checked with :func:`check_renaming`.
    """

    name = "rename-classes"
    description = "rename classes whose instances never reach output (repr shows the class name)"
    preconditions = (
        "no introspection, eval/exec/globals/locals, pickling or __name__/__class__ reads",
        "no inspected caught exception",
        "class has no bases, decorators or metaclass; self used only as self.attr",
        "instances used only through attributes (never printed, returned or passed)",
    )
    node_type = cst.ClassDef
    kind = "class"
    observers = NAME_OBSERVERS | CLASS_OBSERVERS

    def _rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        an = _Analysis(module, ctx)
        if not an.survey.classes:
            raise NotApplicable("no class in the program")
        why = self._program_problem(an)
        if why is not None:
            raise NotApplicable(why + "; left unchanged")
        if an.survey.any_exception_objects or an.survey.exception_objects:
            first = (an.survey.any_exception_objects or an.survey.exception_objects)[0]
            raise NotApplicable(f"the program inspects caught exceptions ({first}), whose messages may quote "
                                f"class names; left unchanged")
        conf = _Confinement(an)
        input_names = _input_names(ctx.inputs)
        scheme = self._make_scheme(ctx)
        words = set(an.survey.all_names) | an.survey.string_words

        def problem(sc, name: str, asgs: list, defs: list) -> str | None:
            why = self._common_problem(an, sc, name, asgs, defs, input_names)
            if why is not None:
                return why
            if len(defs) != 1:
                return f"class {name} is defined more than once"
            if any(f"_{name}__" in w for w in words):
                return f"class {name}: an identifier spells its mangled prefix _{name}__"
            cd = defs[0]
            why = self._class_body_problem(an, conf, cd)
            if why is not None:
                return why
            methods = _methods(cd)
            for use in an.uses.get((id(sc), name), []):
                why = self._class_use_problem(an, conf, use, methods)
                if why is not None:
                    return f"class {name}: {why}"
            return None

        bindings, skipped = self._collect(an, ctx, scheme, problem)
        if not bindings:
            default = "no class can be renamed"
            if self.mapping is not None:
                default = f"no renameable class is named {', '.join(sorted(self.mapping))}"
            raise self._nothing(skipped, default)
        new_value, back, _chosen = self._choose(an, bindings, scheme, set())
        return self._finish(module, new_value, back)

    # -- the class itself ----------------------------------------------------------
    def _class_body_problem(self, an: _Analysis, conf: _Confinement, cd: cst.ClassDef) -> str | None:
        name = cd.name.value
        if cd.decorators:
            return f"class {name} is decorated (e.g. a dataclass repr shows the class name)"
        if cd.keywords:
            return f"class {name} has a metaclass or class keywords"
        for base in cd.bases:
            if not (isinstance(base.value, cst.Name) and base.value.value == "object" and not base.star
                    and not an.shadowed("object")):
                return f"class {name} has a base other than object (inherited code may show the class name)"
        body = cd.body.body if isinstance(cd.body, cst.IndentedBlock) else [cd.body]
        methods = _methods(cd)
        if "super" in {n.value for n in _names_in(cd.body)}:
            return f"class {name} uses super() (object's methods show the class name)"
        for stmt in body:
            if isinstance(stmt, cst.FunctionDef):
                why = self._method_problem(an, conf, name, stmt, methods)
                if why is not None:
                    return why
                continue
            smalls = stmt.body if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) else None
            if smalls is None:
                return f"class {name}: its body holds a {type(stmt).__name__} statement"
            for small in smalls:
                if isinstance(small, cst.Pass):
                    continue
                if isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString)):
                    continue
                if isinstance(small, cst.Assign) and all(isinstance(t.target, cst.Name) for t in small.targets) \
                        and _is_constant(small.value):
                    continue
                if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name) \
                        and (small.value is None or _is_constant(small.value)):
                    continue
                return f"class {name}: its body holds {type(small).__name__} other than constants and methods"
        return None

    def _method_problem(self, an: _Analysis, conf: _Confinement, cname: str, fn: cst.FunctionDef,
                        methods: Mapping[str, str]) -> str | None:
        where = f"{cname}.{fn.name.value}"
        kinds = []
        for d in fn.decorators:
            if not (isinstance(d.decorator, cst.Name) and d.decorator.value in ("staticmethod", "property")
                    and not an.shadowed(d.decorator.value)):
                return f"{where} has a decorator other than @staticmethod/@property"
            kinds.append(d.decorator.value)
        if fn.asynchronous is not None or _is_generator(fn):
            return f"{where} is async or a generator (its objects carry the class name in __qualname__)"
        why = conf.nested_escape(fn, where)
        if why is not None:
            return why
        if "staticmethod" in kinds:
            return None
        ps = fn.params
        positional = [*ps.posonly_params, *ps.params]
        if not positional:
            if isinstance(ps.star_arg, cst.Param):
                return f"{where} receives the instance in *{ps.star_arg.name.value}"
            return None
        selfp = positional[0].name
        if selfp.value in an.survey.decl_names or selfp.value in an.survey.forbidden_anywhere:
            return f"{where}: {selfp.value} is named in a global/nonlocal/match/f-string"
        sc = an.scope_of_node.get(fn)
        if sc is None:
            return f"{where}: its scope is unknown"
        for use in an.uses.get((id(sc), selfp.value), []):
            why = self._attribute_only(an, use, methods)
            if why is not None:
                return f"{where}: {selfp.value} {why}"
        return None

    # -- uses of instances and of the class ------------------------------------------
    @staticmethod
    def _attribute_only(an: _Analysis, use: cst.Name, methods: Mapping[str, str]) -> str | None:
        """``None`` when ``use`` (an instance) is the object of a safe attribute access."""
        parent = an.parents.get(use)
        if isinstance(parent, cst.Arg) and parent.value is use and not parent.star and parent.keyword is None:
            call = an.parents.get(parent)
            if isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value == "isinstance" \
                    and not an.shadowed("isinstance") and len(call.args) == 2 and call.args[0] is parent:
                return None  # isinstance(v, ...) gives a bool
        if not (isinstance(parent, cst.Attribute) and parent.value is use):
            return f"is used other than as .attr (line {an.pos(use)[0]}), so the instance could be shown"
        return _RenameClassesAttr.check(an, parent, methods)

    def _class_use_problem(self, an: _Analysis, conf: _Confinement, use: cst.Name,
                           methods: Mapping[str, str]) -> str | None:
        parent = an.parents.get(use)
        line = an.pos(use)[0]
        if isinstance(parent, cst.Call) and parent.func is use:
            holder = an.parents.get(parent)
            if isinstance(holder, cst.Expr) and holder.value is parent:
                return None  # instance discarded
            if isinstance(holder, cst.Attribute) and holder.value is parent:
                return _RenameClassesAttr.check(an, holder, methods)
            target = None
            if isinstance(holder, cst.Assign) and holder.value is parent and len(holder.targets) == 1:
                target = holder.targets[0].target
            elif isinstance(holder, cst.AnnAssign) and holder.value is parent:
                target = holder.target
            if isinstance(target, cst.Name):
                return self._instance_variable_problem(an, target, methods)
            return f"an instance is created where it may escape (line {line})"
        if isinstance(parent, cst.Del):
            return None
        if _in_annotation(an, use):
            return None
        if isinstance(parent, cst.Arg) and parent.value is use and _is_type_check_arg(an, parent):
            return None
        if isinstance(parent, cst.Element) and parent.value is use:
            tup = an.parents.get(parent)
            arg = an.parents.get(tup) if isinstance(tup, cst.Tuple) else None
            if isinstance(arg, cst.Arg) and arg.value is tup and _is_type_check_arg(an, arg):
                return None
        if isinstance(parent, cst.Attribute) and parent.value is use:
            if parent.attr.value == "mro":
                return f"reads .mro (line {line})"
            return _RenameClassesAttr.check(an, parent, methods, on_class=True)
        return f"the class object is used as a value (line {line}), so its name could be shown"

    def _instance_variable_problem(self, an: _Analysis, target: cst.Name, methods: Mapping[str, str]) -> str | None:
        v = target.value
        line = an.pos(target)[0]
        if _is_dunder(v) or v in an.survey.decl_names or v in an.unscoped or v in an.survey.forbidden_anywhere:
            return f"an instance is bound to {v} (line {line}), which is reached other than by its scope"
        sc = an.scopes.get(target)
        owner = _resolve(sc, v, an.binds) if sc is not None else None
        if owner is None or isinstance(owner, ClassScope):
            return f"an instance is bound to {v} (line {line}), a class attribute or unresolved name"
        for use in an.uses.get((id(owner), v), []):
            parent = an.parents.get(use)
            if use is target or isinstance(parent, cst.Del):
                continue
            if isinstance(parent, cst.AssignTarget) and parent.target is use:
                continue
            if isinstance(parent, cst.AnnAssign) and parent.target is use:
                continue
            if isinstance(parent, cst.For) and parent.target is use:
                continue
            why = self._attribute_only(an, use, methods)
            if why is not None:
                return f"instance variable {v} {why}"
        return None


class _RenameClassesAttr:
    @staticmethod
    def check(an: _Analysis, attr: cst.Attribute, methods: Mapping[str, str], on_class: bool = False) -> str | None:
        """An attribute of an instance (or of the class) is safe when it is no dunder and a
        method attribute is called at once (a bound method's repr shows the class)."""
        name = attr.attr.value
        line = an.pos(attr)[0]
        if name.startswith("__") and name.endswith("__"):
            return f"reads the special attribute .{name} (line {line})"
        kind = methods.get(name)
        if kind is not None and (kind != "property" or on_class):
            holder = an.parents.get(attr)
            if not (isinstance(holder, cst.Call) and holder.func is attr):
                return f"takes the method .{name} as a value (line {line})"
        return None


def _methods(cd: cst.ClassDef) -> dict[str, str]:
    """Defs in a class body: name -> ``"method"``, ``"staticmethod"`` or ``"property"``."""
    out: dict[str, str] = {}
    body = cd.body.body if isinstance(cd.body, cst.IndentedBlock) else []
    for stmt in body:
        if isinstance(stmt, cst.FunctionDef):
            kinds = [d.decorator.value for d in stmt.decorators if isinstance(d.decorator, cst.Name)]
            out[stmt.name.value] = "property" if "property" in kinds else (
                "staticmethod" if "staticmethod" in kinds else "method")
    return out


def _is_constant(node: cst.BaseExpression) -> bool:
    """Literals only: numbers, strings, True/False/None, and tuples/lists/sets/dicts of them."""
    if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)):
        return True
    if isinstance(node, cst.ConcatenatedString):
        return _is_constant(node.left) and _is_constant(node.right)
    if isinstance(node, cst.Name):
        return node.value in ("True", "False", "None")
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        return _is_constant(node.expression)
    if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
        return all(isinstance(e, cst.Element) and _is_constant(e.value) for e in node.elements)
    if isinstance(node, cst.Dict):
        return all(isinstance(e, cst.DictElement) and _is_constant(e.key) and _is_constant(e.value)
                   for e in node.elements)
    return False


def _in_annotation(an: _Analysis, node: cst.CSTNode) -> bool:
    cur = an.parents.get(node)
    while cur is not None and not isinstance(cur, (cst.BaseStatement, cst.BaseSmallStatement)):
        if isinstance(cur, cst.Annotation):
            return True
        cur = an.parents.get(cur)
    return False


def _is_type_check_arg(an: _Analysis, arg: cst.Arg) -> bool:
    """``arg`` is the second positional argument of the builtin ``isinstance``/``issubclass``."""
    call = an.parents.get(arg)
    return (isinstance(call, cst.Call) and isinstance(call.func, cst.Name)
            and call.func.value in ("isinstance", "issubclass") and not an.shadowed(call.func.value)
            and len(call.args) == 2 and call.args[1] is arg and arg.keyword is None and not arg.star)


def _is_top_level(node: cst.FunctionDef, ctx: RewriteContext) -> bool:
    return any(s is node for s in ctx.program.module.body)


def _inner_scope(node: cst.CSTNode, scopes):
    """The scope a def/lambda/class/comprehension node creates."""
    if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        body = node.body
        inner = scopes.get(body)
        if inner is None and isinstance(body, cst.IndentedBlock) and body.body:
            inner = scopes.get(body.body[0])
        return inner
    if isinstance(node, cst.Lambda):
        return scopes.get(node.body)
    if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
        return scopes.get(node.elt)
    if isinstance(node, cst.DictComp):
        return scopes.get(node.key)
    return None


def _harness_keywords(inputs: Sequence[str]) -> set[str] | None:
    """Keyword names the harness inputs pass to the entry point; ``None`` when an input
    uses ``**`` or cannot be parsed as an argument list (then no parameter is safe)."""
    out: set[str] = set()
    for text in inputs:
        try:
            call = ast.parse(f"f({text})", mode="eval").body
        except (SyntaxError, ValueError):
            return None
        if not isinstance(call, ast.Call):
            return None
        for kw in call.keywords:
            if kw.arg is None:
                return None
            out.add(kw.arg)
    return out


def _def_binding(info: _FuncInfo, scopes, assignments):
    outer = scopes.get(info.node)
    if outer is None:
        return None, None
    return outer, assignments.get(outer, {}).get(info.node.name.value, [])


def _direct_calls(info: _FuncInfo, scopes, uses, parents) -> list[cst.Call]:
    outer = scopes.get(info.node)
    out = []
    for n in uses.get((id(outer), info.node.name.value), []):
        parent = parents.get(n)
        if isinstance(parent, cst.Call) and parent.func is n:
            out.append(parent)
    return out


def _callers_problem(info: _FuncInfo, scopes, assignments, uses, parents, survey: _Survey,
                     module_dynamic: bool, unscoped: set[str]) -> str | None:
    fname = info.node.name.value
    if module_dynamic:
        return f"{fname}: the program uses eval/exec/globals/locals/vars/dir, which could call it by keyword"
    outer, asgs = _def_binding(info, scopes, assignments)
    if outer is None:
        return f"{fname}: its scope is unknown"
    if isinstance(outer, ClassScope):
        return f"{fname} is a method (called through attributes); its parameters keep their names"
    if len(asgs) != 1 or asgs[0].node is not info.node:
        return f"{fname} is bound more than once; its parameters keep their names"
    if fname in survey.decl_names or fname in unscoped:
        return f"{fname} is reached other than by direct calls; its parameters keep their names"
    for n in uses.get((id(outer), fname), []):
        parent = parents.get(n)
        if isinstance(parent, cst.Decorator) and parent.decorator is n:
            continue  # @name calls it with one positional argument
        if not (isinstance(parent, cst.Call) and parent.func is n):
            return f"{fname} is used as a value; its parameters keep their names"
        if any(a.star == "**" for a in parent.args):
            return f"{fname} is called with **; its parameters keep their names"
    return None


class _Respell(cst.CSTTransformer):
    """Give each listed ``Name`` node (by identity) its new spelling."""

    def __init__(self, new_value: Mapping[cst.Name, str]) -> None:
        self.new_value = new_value

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        new = self.new_value.get(original_node)
        if new is None:
            return updated_node
        return updated_node.with_changes(value=new)
