"""The naming family's scope analysis: libcst's scopes plus Python's name-resolution rules,
applied conservatively (:class:`Analysis`), and the base of its three transforms
(:class:`RenamingTransform`).
"""

from __future__ import annotations

from typing import Mapping, Sequence

import libcst as cst
from libcst.metadata import (
    ClassScope, FunctionScope, GlobalScope, ParentNodeProvider, PositionProvider, ScopeProvider,
)

from codemorph.engine import NotApplicable, RewriteContext, Transform
from codemorph.transforms.naming.schemes import (
    MappingScheme, NamingScheme, RESERVED, SCHEMES, make_scheme, validate_mapping,
)
from codemorph.transforms.naming.check import RenamingMismatch, check_renaming
from codemorph.transforms.naming.survey import Binding, FuncInfo, Survey, resolve_binding

__all__ = ["Analysis", "RenamingTransform"]


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
    def _finish(module: cst.Module, new_value: Mapping[cst.Name, str], back: Mapping[str, str]) -> cst.Module:
        new_module = module.visit(_Respell(new_value))
        try:
            check_renaming(module.code, new_module.code, back)
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


class _Respell(cst.CSTTransformer):
    """Give each listed ``Name`` node (by identity) its new spelling."""

    def __init__(self, new_value: Mapping[cst.Name, str]) -> None:
        self.new_value = new_value

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        new = self.new_value.get(original_node)
        if new is None:
            return updated_node
        return updated_node.with_changes(value=new)
