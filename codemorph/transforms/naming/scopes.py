"""The naming family's scope analysis: libcst's scopes plus Python's name-resolution rules,
applied conservatively (:class:`Analysis`), and the base of its three transforms
(:class:`RenamingTransform`).
"""

from __future__ import annotations

import re
from typing import Mapping, Sequence

import libcst as cst
from libcst.metadata import (
    ClassScope, FunctionScope, GlobalScope, ParentNodeProvider, PositionProvider, ScopeProvider,
)

from codemorph.engine import NotApplicable, RewriteContext, Transform, module_code
from codemorph.transforms.naming.schemes import (
    MappingScheme, NamingScheme, RESERVED, SCHEMES, make_scheme, validate_mapping,
)
from codemorph.transforms.naming.check import RenamingMismatch, check_renaming
from codemorph.transforms.naming.survey import Binding, FuncInfo, Survey, resolve_binding

__all__ = ["Analysis", "RenamingTransform", "ProseRenaming", "PROSE_WORDS", "prose_uses_as_code"]


class Analysis:
    """Scopes and name resolution of one module, shared by the renaming transforms.

    Attributes (all keyed by libcst scope objects or ``id()`` of them): ``scope_of_node``
    (scope-creating node -> its scope), ``all_scopes`` (module first, then source order),
    ``assignments`` (scope -> name -> libcst assignments), ``binds`` (scope -> names),
    ``uses`` ((id(binding scope), name) -> every variable-role ``Name`` resolving there,
    loads, stores and dels alike), ``unscoped`` (names libcst could not place),
    ``class_reads`` and ``class_bound`` (class-body interplay), ``func_scope`` (id(scope)
    -> :class:`FuncInfo`).
    """

    def __init__(self, module: cst.Module, ctx: RewriteContext) -> None:
        ctx.wrapper.resolve_many([ScopeProvider, ParentNodeProvider, PositionProvider])  # one batched pass
        self.module = module
        self.ctx = ctx
        self.scopes = scopes = ctx.metadata(ScopeProvider)
        self.parents = ctx.metadata(ParentNodeProvider)
        self.positions = ctx.metadata(PositionProvider)
        self.survey = survey = Survey(self.parents)
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
            target = resolve_binding(sc, node.value, self.binds)
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

        self.func_scope: dict[int, FuncInfo] = {}
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

    def owner(self, sc) -> FuncInfo | None:
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


def _permutable_groups(an: Analysis, bindings: Sequence[Binding],
                       harness_kw: set[str] | None) -> list[tuple[tuple[int, int], list[str]]]:
    """For the misleading scheme: per group, the old names that may be exchanged.

    A name qualifies when all its bindings being renamed belong to one group and every
    ``Name`` node in the program spelling it is either one of their targets or an
    attribute name (so a global, bijective exchange of spellings is exact), and it is not
    a builtin, keyword, dunder or a keyword a harness input passes.  Groups are returned
    in source order (deterministic rng draws)."""
    by_name: dict[str, list[Binding]] = {}
    for b in bindings:
        by_name.setdefault(b.name, []).append(b)
    target_ids = {id(t) for b in bindings for t in b.targets}
    groups: dict[tuple[int, int], list[str]] = {}
    first: dict[tuple[int, int], tuple[int, int]] = {}
    for name, bs in by_name.items():
        keys = {b.group for b in bs}
        if len(keys) != 1 or name in RESERVED or name.startswith("__"):
            continue
        if harness_kw is None or name in harness_kw:
            continue
        nodes = an.survey.all_names.get(name, [])
        if all(id(n) in target_ids or an.survey.special.get(n) == "attr" for n in nodes):
            (g,) = keys
            groups.setdefault(g, []).append(name)
            first[g] = min(first.get(g, (1 << 30, 0)), *(b.first for b in bs))
    return [(g, sorted(groups[g])) for g in sorted(groups, key=lambda g: first[g])]


class RenamingTransform(Transform):
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
        # the natural and misleading schemes choose words by the role a variable plays, best
        # known from the types it was observed with: generate then collects them
        self.uses_runtime_types = self.scheme in ("natural", "misleading")

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

    def _choose(self, an: Analysis, bindings: list[Binding], scheme: NamingScheme,
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
    def _finish(module: cst.Module, new_value: Mapping[cst.Name, str], back: Mapping[str, str],
                words: "ProseRenaming | None" = None) -> cst.Module:
        new_module = module.visit(_Respell(new_value, words))
        try:
            check_renaming(module_code(module), module_code(new_module), back,
                           docstrings=words is not None and words.docstrings)
        except (RenamingMismatch, SyntaxError, ValueError) as exc:
            raise NotApplicable(f"internal consistency check failed ({exc}); left unchanged") from None
        return new_module


# --------------------------------------------------------------------------------------


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


#: Common English words that are not taken for variable names in comments and docstrings
#: (``# a list of words`` keeps its article when a variable ``a`` is renamed).
PROSE_WORDS: frozenset[str] = frozenset({
    "a", "A", "an", "the", "it", "its", "be", "by", "on", "at", "of", "to", "so", "no", "up", "we",
    "me", "my", "do", "us", "am", "this", "that", "then", "than", "but", "each", "one", "I",
})

def prose_uses_as_code(node: cst.CSTNode, word: str) -> str | None:
    """The first comment or docstring line inside ``node`` (a ``def``) that uses ``word``, one
    of :data:`PROSE_WORDS`, as code, or ``None``: with an operator, bracket, comma or colon
    right after it (``a / b``, ``f(a)``, ``a, b``) or an operator, opening bracket or comma
    right before it (``x = a``).  Such a word is never respelled in prose (it is also
    English: "a list"), so renaming the variable would leave that line naming a variable the
    code no longer has (``a / top_data, or 0.0 when top_data is 0.``)."""
    texts: list[str] = []

    class _Comments(cst.CSTVisitor):
        def visit_Comment(self, c: cst.Comment) -> None:
            texts.append(c.value)

    node.visit(_Comments())
    if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        doc = _docstring_node(node)
        if doc is not None:
            texts.extend(doc.value.splitlines())
    w = re.escape(word)
    code = re.compile(rf"(?<![\w.]){w}\s*[-+*/%<>=!)\]}},:\[(]|[-+*/%<>=(\[{{,]\s*{w}(?!\w)")
    for t in texts:
        if code.search(t):
            return t.strip()
    return None


_SCOPE_NODES = (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.ListComp, cst.SetComp, cst.GeneratorExp,
                cst.DictComp)
#: ``isinstance(node, _SCOPE_NODES)`` by the node's type: libcst's node classes are ABCs, so
#: each of the seven checks went through ``ABCMeta.__instancecheck__`` for every node
_SCOPE_TYPES: dict[type, bool] = {}


def _is_scope_node(node: cst.CSTNode) -> bool:
    t = type(node)
    found = _SCOPE_TYPES.get(t)
    if found is None:
        found = _SCOPE_TYPES[t] = isinstance(node, _SCOPE_NODES)
    return found


class ProseRenaming:
    """Which words of comments and docstrings a renaming respells, region by region.

    Args:
        an: the module's :class:`Analysis`.
        chosen: new name per ``id(binding)``.
        bindings: the renamed bindings (:class:`Binding`).
        docstrings: also respell docstrings (``False`` when the program may read
            ``__doc__``, since a docstring is a value the program can observe).

    The region of a binding is the node that creates its scope (a ``def`` with its
    decorators and the comments above it, or a comprehension); inside it, a nested scope
    that binds the same name without renaming it (or renaming it otherwise) takes the word
    over.  A word is respelled when it is exactly the old name, not preceded by ``.``
    (an attribute) nor part of a longer word, and not one of :data:`PROSE_WORDS`.  A
    docstring holding a doctest (``>>>``) is left as written: its examples and expected
    outputs are run by test suites.
    """

    def __init__(self, an: Analysis, chosen: Mapping[int, str], bindings: Sequence[Binding],
                 docstrings: bool = True) -> None:
        self.an = an
        self.docstrings = docstrings
        self.renames: dict[int, dict[str, str]] = {}
        for b in bindings:
            if b.name in PROSE_WORDS:
                continue
            self.renames.setdefault(id(b.scope), {})[b.name] = chosen[id(b)]
        self.doc_nodes: set[int] = set()
        if docstrings:
            for node in an.scope_of_node:
                if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                    doc = _docstring_node(node)
                    if doc is not None and ">>>" not in doc.value:  # doctests: examples and outputs are code
                        self.doc_nodes.add(id(doc))

    def enter(self, node: cst.CSTNode, active: Mapping[str, str]) -> dict[str, str] | None:
        """The word mapping inside scope node ``node`` given the enclosing ``active`` one,
        or ``None`` when ``node`` creates no scope of the analysis."""
        sc = self.an.scope_of_node.get(node)
        if sc is None:
            return None
        out = dict(active)
        own = self.renames.get(id(sc), {})
        for name in self.an.binds.get(sc, ()):
            if name in own:
                out[name] = own[name]
            else:
                out.pop(name, None)
        return out

    @staticmethod
    def respell(text: str, active: Mapping[str, str]) -> str:
        """``text`` with every whole-word, non-attribute occurrence of a key of ``active``
        replaced by its value (one pass, so exchanged names stay exchanged)."""
        if not active:
            return text
        pattern = re.compile(r"(?<![\w.])(" + "|".join(re.escape(k) for k in sorted(active, key=len, reverse=True))
                             + r")(?!\w)")
        return pattern.sub(lambda m: active[m.group(1)], text)


def _docstring_node(node: cst.FunctionDef | cst.ClassDef) -> cst.SimpleString | None:
    """The plain (not bytes, not f-) string literal that is ``node``'s docstring, if any."""
    body = node.body
    if not isinstance(body, cst.IndentedBlock) or not body.body:
        return None
    first = body.body[0]
    if not isinstance(first, cst.SimpleStatementLine) or len(first.body) != 1:
        return None
    expr = first.body[0]
    if not isinstance(expr, cst.Expr) or not isinstance(expr.value, cst.SimpleString):
        return None
    prefix = expr.value.prefix.lower()
    if "b" in prefix or "f" in prefix:
        return None
    return expr.value


class _Respell(cst.CSTTransformer):
    """Give each listed ``Name`` node (by identity) its new spelling, and, with a
    :class:`ProseRenaming`, the words of comments and docstrings."""
    # it looks nodes up by original_node only: an unchanged subtree is not rebuilt
    # (codemorph.engine.visiting; performance only)
    reuse_unchanged_nodes = True

    def __init__(self, new_value: Mapping[cst.Name, str], words: ProseRenaming | None = None) -> None:
        self.new_value = new_value
        self.words = words
        self.stack: list[dict[str, str]] = [{}]
        self.pushed: list[bool] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self.words is not None and _is_scope_node(node):
            inner = self.words.enter(node, self.stack[-1])
            self.pushed.append(inner is not None)
            if inner is not None:
                self.stack.append(inner)
        return super().on_visit(node)

    def on_leave(self, original_node, updated_node):
        out = super().on_leave(original_node, updated_node)
        if self.words is not None and _is_scope_node(original_node):
            if self.pushed.pop():
                self.stack.pop()
        return out

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        new = self.new_value.get(original_node)
        if new is None:
            return updated_node
        return updated_node.with_changes(value=new)

    def leave_Comment(self, original_node: cst.Comment, updated_node: cst.Comment) -> cst.Comment:
        if self.words is None:
            return updated_node
        text = self.words.respell(updated_node.value, self.stack[-1])
        return updated_node if text == updated_node.value else updated_node.with_changes(value=text)

    def leave_SimpleString(self, original_node: cst.SimpleString, updated_node: cst.SimpleString
                           ) -> cst.SimpleString:
        if self.words is None or id(original_node) not in self.words.doc_nodes:
            return updated_node
        value = updated_node.value
        start = len(updated_node.prefix) + len(updated_node.quote)
        body = self.words.respell(value[start:len(value) - len(updated_node.quote)], self.stack[-1])
        text = value[:start] + body + value[len(value) - len(updated_node.quote):]
        return updated_node if text == value else updated_node.with_changes(value=text)
