"""Naming schemes of the naming family: where new identifiers come from (``random``,
``obfuscated``, ``natural``, ``misleading``, a user ``mapping``), and the identifier
helpers they use.
"""

from __future__ import annotations

import builtins
import functools
import json
import keyword
import re
from importlib import resources
from typing import ClassVar, Mapping, Sequence

from codemorph.engine import NotApplicable, RewriteContext

__all__ = [
    "KINDS", "RESERVED", "NamingScheme", "RandomScheme", "ObfuscatedScheme", "load_vocabulary",
    "split_identifier", "join_identifier", "NaturalScheme", "MisleadingScheme", "MappingScheme",
    "SCHEMES", "make_scheme", "validate_mapping",
]


#: what a renamed binding names, as passed to :meth:`NamingScheme.propose`
KINDS: tuple[str, ...] = ("param", "local", "comprehension", "function", "class")

RESERVED: frozenset[str] = frozenset(dir(builtins)) | frozenset(keyword.kwlist) \
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
        """Whether this scheme renames bindings spelled ``old`` (every scheme renames
        everything it is offered but a user-supplied mapping, which renames its keys only,
        and the natural scheme, which renames only names it has a synonym for)."""
        return True

    def why_not(self, old: str) -> str | None:
        """Why a binding spelled ``old`` that :meth:`wants` refuses is left alone, as the
        end of a transform's reason (``"has no synonym in the vocabulary"``), or ``None``
        when the refusal needs no explanation (a mapping that does not list the name)."""
        return None

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
        instead), ``misleading_functions`` and ``misleading_classes``.
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
    if out in RESERVED:
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
    ``new_text`` -> ``fresh_string``, ``maxCount`` -> ``maximumTally``).  The last word of
    a name (its head noun) gets only synonyms that suggest no other role than the
    variable plays (:meth:`role`: observed at run time, else suggested by its name): a
    ``c`` observed to hold ints is not renamed ``char``, a ``w`` holding strings becomes
    ``word``, never ``width``.  A one-letter word is replaced only when it is the whole
    name, in lower case, and, unless the variable's role was observed (``s`` holding strings
    -> ``text``), only by a synonym that suggests no role (``f`` -> ``func``, ``x`` ->
    ``val``; an unobserved ``c`` keeps its name, never ``char``); ``string_a``, ``t1`` and
    ``N`` keep it.

    A name none of whose words has such a synonym is not renamed (:meth:`wants` is
    false, :meth:`why_not` says so), nor is ``_``, the throwaway name people write: no
    ``zq_value`` or ``_elem``.  Deterministic for a given rng state.
    """

    name = "natural"

    def _options(self, words: Sequence[str], i: int, role: str | None) -> list[str]:
        """The synonyms of ``words[i]`` that may replace it: for the last word, those
        whose own role (:meth:`option_role`) is unknown or ``role``."""
        if len(words[i]) == 1 and len(words) > 1:
            return []  # string_a -> text_a, never text_first; t1 stays t1
        options = self.vocab["synonyms"].get(words[i]) or []
        if role is None or i != len(words) - 1:
            return list(options)
        return [o for o in options if self.option_role(o) in (None, role)]

    def option_role(self, option: str) -> str | None:
        """The role a synonym suggests: its own entry in the vocabulary's categories, else
        its last word's (``inner_idx`` -> ``number``), else ``None``."""
        words = self.vocab["role_of_word"]
        return words.get(option) or words.get(option.split("_")[-1])

    def _plan(self, old: str) -> tuple[str, list[str], str, str, list[list[str]]]:
        lead, words, trail, style = split_identifier(old)
        whole = "".join(words)
        if len(words) > 1 and whole in self.vocab["synonyms"] and "_" not in old.strip("_"):
            words = [whole]  # s1 -> first_str, arr2 -> second_array: the vocabulary's own entry
        if len(old.strip("_")) == 1 and old.strip("_").isupper():
            return lead, words, trail, style, [[]]  # N stays N (no Num)
        if len(old.strip("_")) == 1 and old not in self.observed:
            # a one-letter name's role is a guess unless observed (c is as often a count as a
            # character): only synonyms that suggest no role (f -> func, x -> val; no char)
            return lead, words, trail, style, [[o for o in self._options(words, 0, None)
                                                  if self.option_role(o) is None]]
        role = self.role(old) if words else None
        return lead, words, trail, style, [self._options(words, i, role) for i in range(len(words))]

    def wants(self, old: str) -> bool:
        if old.strip("_") == "":
            return False
        return any(self._plan(old)[4])

    def why_not(self, old: str) -> str | None:
        if old.strip("_") == "":
            return "is the throwaway name, kept as people write it"
        return "has no synonym in the vocabulary that suits its role (natural scheme), kept"

    def propose(self, old: str, kind: str) -> str:
        rng = self.ctx.rng
        lead, words, trail, style, options = self._plan(old)
        if kind == "class" and style == "snake":
            style = "pascal" if old[:1].isupper() else style
        if not any(options):
            raise NotApplicable(f"{old} {self.why_not(old)}")
        taken: str | None = None
        for _attempt in range(4):
            out = [rng.choice(opts) if opts else w for w, opts in zip(words, options)]
            candidate = join_identifier(lead, out, trail, style)
            if self.usable(candidate, old):
                return candidate
            if candidate != old:
                taken = candidate
        if taken is not None:
            return taken  # every synonym is taken: claim() numbers it (values_1)
        return join_identifier(lead, out, trail, style)


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
        if not new.isidentifier() or keyword.iskeyword(new) or new in RESERVED:
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
