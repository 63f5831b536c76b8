"""``rename-locals``: local variables of every function, and the parameters no caller
outside the program can pass by name.
"""

from __future__ import annotations

import re
from typing import Callable, Mapping

import libcst as cst
from libcst.metadata import ComprehensionScope, FunctionScope, GlobalScope

from codemorph.engine import BUILTIN_NAMES, NotApplicable, RewriteContext
from codemorph.transforms.naming.survey import Binding, FuncInfo, is_dunder
from codemorph.transforms.naming.scopes import Analysis, ProseRenaming, RenamingTransform
from codemorph.transforms.naming.definitions import (
    api_problem, callers_problem, direct_calls, harness_keywords, is_top_level, names_of_inputs,
)

__all__ = ["RenameLocals", "PARAMETER_POLICIES"]

#: values of rename-locals' ``parameters`` option, from most to least renamed
PARAMETER_POLICIES: tuple[str, ...] = ("all", "entry-point", "private", "none")


class RenameLocals(RenamingTransform):
    """Rename the local variables and parameters of every function, scope-aware.

    Options:
        scheme (str): how new names are chosen (see :data:`SCHEMES`): ``"random"``
            (default; plausible words such as ``tmp_value``, drawn with the context's
            rng), ``"obfuscated"`` (``v0``, ``v1``, ...), ``"natural"`` (synonyms:
            ``nums`` -> ``values``) or ``"misleading"`` (names suggesting another role,
            and exchanges of the function's own variable names).
        mapping (dict[str, str]): rename exactly these names, old -> new, in every
            function where that is safe (instead of ``scheme``).
        parameters (str): whose parameters may be renamed (see :data:`PARAMETER_POLICIES`):

            * ``"entry-point"`` -- the entry point's (its only outside caller is a harness
              that calls it with ``ctx.inputs``, positionally; a parameter an input passes
              by keyword is kept, and an input with ``*``/``**`` unpacking or one that
              does not parse keeps them all) and those of every function nothing outside
              the program can call;
            * ``"private"`` -- only those of functions nothing outside the program can
              call: functions nested in functions whose every use is a direct call, and,
              under the harness contract, every module-level function but the entry
              point (the harness calls nothing else).  Without the contract a
              module-level function -- even a ``_private`` one, which test suites call as
              ``module._name`` -- and any method keeps its parameter names, ``*args`` and
              ``**kwargs`` included;
            * ``"all"`` -- also module-level functions and methods' ``*args``,
              ``**kwargs`` and positional-only parameters (the user vouches that no caller
              outside the program passes them by keyword; methods' other parameters are
              always kept, their calls go through attributes);
            * ``"none"`` -- no parameter.

            Default: ``"entry-point"`` under the harness contract (``ctx.harness``, as in
            ``generate``), else ``"private"`` (``codemorph apply FILE``, library modules).
            In every case a parameter is renamed only where every visible call binds it
            positionally or by a keyword argument that is renamed with it (below).
        params (bool): ``False`` is ``parameters="none"`` (kept for compatibility).
        locals (bool): rename local variables and comprehension variables (default
            ``True``).  ``locals=False`` renames only the parameters.
        comments (bool): also rename, in comments and docstrings, every whole word that is
            exactly a renamed name, in the region where the binding lives (the ``def`` with
            the comments above it, minus nested scopes that bind the same name); attribute
            words (``self.n``) and common English words (``a``, ``the``, ...,
            :data:`PROSE_WORDS`) are not names.  Docstrings are left alone when the program
            spells ``__doc__`` or ``doctest``.  Default ``True``, except with the
            ``misleading`` scheme, whose names are meant to mislead: there comments keep
            the old names (which then point at the wrong variables) unless
            ``comments=true`` is given.

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

    Parameters are renamed only when no caller can pass them by name: first the
    ``parameters`` policy must let the function's outside callers in (above); then
    positional-only, ``*args`` and ``**kwargs`` parameters are renamed; the others only for
    a function that is not a method, not decorated, defined once, and whose name is used
    only in direct calls without ``**`` (the keyword arguments of those calls are updated),
    and never a parameter that a harness input (``ctx.inputs``) passes to the entry point by
    keyword.

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
    description = "Rename local variables and parameters (scope-aware, symbol-table checked)."
    preconditions = (
        "no frame/code/signature introspection",
        "no inspection of caught NameError/TypeError objects",
        "function does not use eval/exec/locals/globals/vars()/dir()",
        "parameter renamed only when no caller passes it by keyword",
    )

    def __init__(self, scheme: str | None = None, params: bool = True, mapping: Mapping[str, str] | None = None,
                 parameters: str | None = None, comments: bool | None = None, **options) -> None:
        rename_locals = options.pop("locals", True)
        super().__init__(scheme, mapping, **options)
        if not isinstance(params, bool):
            raise TypeError(f"rename-locals: params must be a bool, got {type(params).__name__}")
        if not isinstance(rename_locals, bool):
            raise TypeError(f"rename-locals: locals must be a bool, got {type(rename_locals).__name__}")
        if parameters is not None and parameters not in PARAMETER_POLICIES:
            raise ValueError(f"rename-locals: parameters must be one of {', '.join(PARAMETER_POLICIES)}, "
                             f"got {parameters!r}")
        if not params:
            if parameters not in (None, "none"):
                raise ValueError(f"rename-locals: params=False contradicts parameters={parameters!r}")
            parameters = "none"
        if comments is not None and not isinstance(comments, bool):
            raise TypeError(f"rename-locals: comments must be a bool, got {type(comments).__name__}")
        if parameters == "none" and not rename_locals:
            raise ValueError("rename-locals: params=False and locals=False leave nothing to rename")
        self.params = params
        self.parameters = parameters
        self.locals = rename_locals
        self.comments = comments

    def policy(self, ctx: RewriteContext) -> str:
        """The parameter policy in effect for ``ctx``: the ``parameters`` option, or its
        default for the context (``"entry-point"`` under the harness contract, else
        ``"private"``)."""
        if self.parameters is not None:
            return self.parameters
        return "entry-point" if ctx.harness else "private"

    # ------------------------------------------------------------------------------
    def _rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        an = Analysis(module, ctx)
        survey = an.survey

        if survey.introspection:
            raise NotApplicable("the program may introspect names at run time ("
                                + ", ".join(sorted(survey.introspection)) + "); left unchanged")
        if survey.exception_objects:
            raise NotApplicable("the program inspects caught exceptions (" + survey.exception_objects[0]
                                + "), whose messages may quote variable names; left unchanged")
        # a script (ctx.script: a stdin row) owns its module namespace: its module-level
        # variables are renamed like a function's locals
        module_info = _module_info(an) if ctx.script else None
        if not survey.functions and module_info is None:
            raise NotApplicable("no function in the program")

        scopes, parents = an.scopes, an.parents
        scheme = self._make_scheme(ctx)
        skipped: list[str] = []
        bindings: list[Binding] = []
        harness_kw = harness_keywords(ctx.inputs)
        for kw in sorted(harness_kw or ()):
            ctx.reserve(kw)  # a new parameter name must not meet a harness keyword in **kwargs
        policy = self.policy(ctx)
        input_names = names_of_inputs(ctx.inputs)

        # parameters by name for every def, and whether outside callers may use keywords
        keyword_safe: dict[int, str | None] = {}

        def callers_ok(info: FuncInfo) -> str | None:
            """``None`` when every use of the def's name is a direct call without ``**``,
            else why its named parameters must keep their names."""
            key = id(info.node)
            if key in keyword_safe:
                return keyword_safe[key]
            keyword_safe[key] = why = callers_problem(info, scopes, an.assignments, an.uses, parents, survey,
                                                       an.module_dynamic, an.unscoped)
            return why

        for sc in an.all_scopes:
            if isinstance(sc, FunctionScope) and id(sc) in an.func_scope:
                info = an.func_scope[id(sc)]
                kind_default = "local"
            elif isinstance(sc, ComprehensionScope):
                info = an.owner(sc) or module_info
                kind_default = "comprehension"
                if info is None:
                    continue
            elif isinstance(sc, GlobalScope) and module_info is not None:
                info = module_info
                kind_default = "global"
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
                    why = scheme.why_not(name)
                    if why is not None:
                        skipped.append(f"{fname}: {name} {why}")
                    continue
                asgs = an.assignments[sc][name]
                why = self._binding_problem(name, asgs, sc, info, an.class_bound, an.class_reads, an.unscoped)
                if why is None and info is module_info:
                    why = _module_name_problem(an, name)
                if why is not None:
                    if not any(isinstance(a.node, (cst.FunctionDef, cst.ClassDef)) for a in asgs):
                        skipped.append(f"{fname}: {name} {why}")
                    continue
                targets = [n for n in an.uses.get((id(sc), name), [])]
                params = [a.node for a in asgs if isinstance(a.node, cst.Param)]
                kind = "param" if params else kind_default
                if params:
                    why = self._param_problem(params, info, ctx, harness_kw, callers_ok, policy,
                                              lambda i: api_problem(an, i, policy, input_names))
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
                bindings.append(Binding(sc, name, kind, targets, first, params, info if params else None,
                                         group=(0, 0) if info is module_info else an.pos(info.node)))

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
            for call in direct_calls(info, scopes, an.uses, parents):
                for arg in call.args:
                    if arg.keyword is not None and arg.keyword.value in mapping and arg.keyword.value in named:
                        new_value[arg.keyword] = mapping[arg.keyword.value]
                        ctx.record(arg.keyword, f"keyword {arg.keyword.value}= -> {mapping[arg.keyword.value]}=")

        comments = self.comments if self.comments is not None else self.scheme != "misleading"
        words = None
        if comments:
            words = ProseRenaming(an, {id(b): chosen[id(b)] for b in bindings}, bindings,
                                  docstrings=not ({"__doc__", "doctest"} & (set(survey.all_names)
                                                                          | survey.string_words)))
        return self._finish(module, new_value, back, words)

    # ------------------------------------------------------------------------------
    @staticmethod
    def _binding_problem(name, asgs, sc, info: FuncInfo, class_bound, class_reads, unscoped) -> str | None:
        if is_dunder(name):
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

    def _param_problem(self, params: list[cst.Param], info: FuncInfo, ctx: RewriteContext,
                       harness_kw: set[str] | None, callers_ok: Callable[[FuncInfo], str | None], policy: str,
                       outside: Callable[[FuncInfo], str | None]) -> str | None:
        fname = info.node.name.value
        if not self.params:
            return f"{fname}: parameters kept (params=False)"
        if policy == "none":
            return f"{fname}: parameters kept (parameters=\"none\")"
        if info.node.decorators:
            return f"{fname} is decorated; its parameters keep their names"
        why = outside(info)
        if why is not None:
            return why
        ps = info.node.params
        p = params[0]
        if any(p is q for q in ps.posonly_params) or p is ps.star_arg or p is ps.star_kwarg:
            return None  # cannot be passed by keyword
        why = callers_ok(info)
        if why is not None:
            return why
        if fname == ctx.entry_point and is_top_level(info.node, ctx):
            if harness_kw is None:
                return f"{fname}: a harness input unpacks * or ** or does not parse; parameters kept"
            if p.name.value in harness_kw:
                return f"{fname}: a harness input passes {p.name.value}= by keyword"
        return None


#: the name messages give the module of a script ("module: x is spelled inside a string")
_MODULE = "module"


def _module_info(an: Analysis) -> FuncInfo:
    """The module of a script as the :class:`FuncInfo` its module-level names are checked
    with: the names no function may rename anywhere (global/nonlocal, match patterns...),
    and its dynamic-scope uses (``globals()``, ``eval``... at module level or in any
    function, which can reach module-level names by their spelling)."""
    dynamic = list(an.survey.module_dynamic) + [d for f in an.survey.functions for d in f.dynamic]
    return FuncInfo(cst.FunctionDef(cst.Name(_MODULE), cst.Parameters(), cst.IndentedBlock([])), dynamic,
                    dict(an.survey.forbidden_anywhere))


def _module_name_problem(an: Analysis, name: str) -> str | None:
    """Why the module-level variable ``name`` of a script keeps its name, or ``None``: it
    is spelled like a builtin (``input = sys.stdin.readline``), is declared
    ``global``/``nonlocal`` somewhere, spelled inside a string (an annotation,
    a format template, ``eval`` text), or also bound in a class body."""
    if name in BUILTIN_NAMES:
        return "is spelled like a builtin (before it is bound, the name reads the builtin)"
    if name in an.survey.decl_names:
        return "is declared global or nonlocal"
    if name in an.survey.string_words:
        return "is spelled inside a string"
    if any(name in an.binds.get(sc, ()) for sc in an.all_scopes if type(sc).__name__ == "ClassScope"):
        return "is also bound in a class body"
    return None
