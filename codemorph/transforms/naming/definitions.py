"""What ``rename-functions`` and ``rename-classes`` share: which names the program may
observe, confinement of instances (:class:`Confinement`), and the base of both
(:class:`DefRenamer`).
"""

from __future__ import annotations

import ast
from typing import Callable, ClassVar, Iterable, Sequence

import libcst as cst
from libcst.metadata import ClassScope, ComprehensionScope, GlobalScope

from codemorph.engine import RewriteContext
from codemorph.engine.transform import BUILTIN_NAMES
from codemorph.transforms.naming.schemes import NamingScheme
from codemorph.transforms.naming.survey import Binding, FuncInfo, Survey, is_dunder, resolve_binding
from codemorph.transforms.naming.scopes import Analysis, RenamingTransform

__all__ = [
    "NAME_OBSERVERS", "CLASS_OBSERVERS", "Confinement", "is_generator", "names_of_inputs",
    "DefRenamer", "is_top_level", "harness_keywords", "direct_calls", "callers_problem", "is_public",
    "api_problem", "MODULE_NAME_POLICIES",
]


#: values of the ``module_names`` option of rename-functions and rename-classes
MODULE_NAME_POLICIES: tuple[str, ...] = ("all", "private", "none")

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


class Confinement:
    """Where function objects, generator objects and instances may flow without their
    names (``__name__``, ``__qualname__``, default ``repr``) becoming observable.

    Args:
        an: the module's :class:`Analysis`.

    All tests are syntactic and conservative: a value is *confined* when every use of it
    is a call (a function), a consumption by a builtin (a generator expression passed to
    ``list``/``sum``/``str.join``...), or an attribute access (an instance).
    """

    def __init__(self, an: Analysis) -> None:
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
        target = resolve_binding(sc, name, an.binds) if sc is not None else None
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
                if node.decorators or node.asynchronous is not None or is_generator(node):
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


def is_generator(fn: cst.FunctionDef) -> bool:
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


def names_of_inputs(inputs: Sequence[str]) -> set[str] | None:
    """Identifiers the harness inputs spell (they are evaluated in the program's globals,
    so ``make(3)`` in an input reaches the program's ``make``); ``None`` when an input does
    not parse."""
    out: set[str] = set()
    for text in inputs:
        try:
            call = ast.parse(f"f({text})", mode="eval").body
        except (SyntaxError, ValueError):
            return None
        if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
            return None
        for part in [*call.args, *call.keywords]:
            out.update(n.id for n in ast.walk(part) if isinstance(n, ast.Name))
    return out


class DefRenamer(RenamingTransform):
    """Shared checks of rename-functions and rename-classes.

    Options (besides ``scheme`` and ``mapping``):
        module_names (str): which module-level names may be renamed: ``"all"``,
            ``"private"`` (only names with a leading underscore that no string spells, see
            :func:`is_public`; code importing the module may still use them, as test
            suites do) or ``"none"`` (only functions and classes defined inside
            functions).  Default: ``"all"`` under the harness contract (``ctx.harness``:
            the harness calls the entry point and nothing else), else ``"none"``
            (``codemorph apply FILE``: the module's names are its API).

    Raises (constructor): ``ValueError`` for another ``module_names``.
    """

    #: what a binding must be bound by (``cst.FunctionDef`` or ``cst.ClassDef``)
    node_type: ClassVar[type] = cst.FunctionDef
    kind: ClassVar[str] = "function"
    observers: ClassVar[frozenset[str]] = NAME_OBSERVERS

    def __init__(self, scheme: str | None = None, mapping=None, module_names: str | None = None,
                 **options) -> None:
        super().__init__(scheme, mapping, **options)
        if module_names is not None and module_names not in MODULE_NAME_POLICIES:
            raise ValueError(f"{self.name}: module_names must be one of {', '.join(MODULE_NAME_POLICIES)}, "
                             f"got {module_names!r}")
        self.module_names = module_names

    def _api_problem(self, an: Analysis, sc, name: str) -> str | None:
        """Why the module-level ``name`` is an API that must keep its name, or ``None``."""
        if not isinstance(sc, GlobalScope):
            return None
        policy = self.module_names or ("all" if an.ctx.harness else "none")
        if policy == "all" or (policy == "private" and not is_public(name, an.survey)):
            return None
        what = "a public" if is_public(name, an.survey) else "a"
        return f"{self.kind} {name} is {what} module-level name, which code importing the module may use " \
               f"(option module_names=\"{'all' if is_public(name, an.survey) else 'private'}\" renames it)"

    def _program_problem(self, an: Analysis) -> str | None:
        s = an.survey
        if s.introspection:
            return "the program may introspect names at run time (" + ", ".join(sorted(s.introspection)) + ")"
        dynamic = an.first_dynamic()
        if dynamic is not None:
            return f"the program uses {dynamic}, which can reach functions and classes by name"
        spelled = {n for n in self.observers & set(s.all_names)
                   if n != "__name__" or any(s.special.get(node) is not None for node in s.all_names[n])}
        # (a bare ``__name__`` -- ``if __name__ == "__main__":`` -- reads the module's name,
        # never a function's or a class's; ``obj.__name__`` and ``"__name__"`` do)
        seen = sorted(spelled | (self.observers & s.string_words))
        if seen:
            return f"the program may observe names of {'classes' if self.kind == 'class' else 'functions'} " \
                   f"({', '.join(seen)})"
        return None

    def _common_problem(self, an: Analysis, sc, name: str, asgs: list, defs: list,
                        input_names: set[str] | None) -> str | None:
        s = an.survey
        what = f"{self.kind} {name}"
        if is_dunder(name):
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

    def _collect(self, an: Analysis, ctx: RewriteContext, scheme: NamingScheme,
                 problem: Callable[[object, str, list, list], str | None]) -> tuple[list[Binding], list[str]]:
        bindings: list[Binding] = []
        skipped: list[str] = []
        for sc in an.all_scopes:
            if isinstance(sc, (ClassScope, ComprehensionScope)):
                continue
            for name in sorted(an.assignments[sc]):
                asgs = an.assignments[sc][name]
                defs = [a.node for a in asgs if isinstance(a.node, self.node_type)]
                if not defs:
                    continue
                if not scheme.wants(name):
                    why = scheme.why_not(name)
                    if why is not None:
                        skipped.append(f"{name} {why}")
                    continue
                why = problem(sc, name, asgs, defs)
                if why is not None:
                    skipped.append(why)
                    continue
                targets = [d.name for d in defs] + list(an.uses.get((id(sc), name), []))
                bindings.append(Binding(sc, name, self.kind, targets, min(an.pos(t) for t in targets),
                                         group=an.group_of(sc), site=defs[0].name))
        return bindings, skipped


def is_top_level(node: cst.FunctionDef, ctx: RewriteContext) -> bool:
    """Whether ``node`` is a statement of the program's module body."""
    return any(s is node for s in ctx.program.module.body)


def harness_keywords(inputs: Sequence[str]) -> set[str] | None:
    """Keyword names the harness inputs pass to the entry point; ``None`` when an input
    uses ``**`` or cannot be parsed as an argument list (then no parameter is safe)."""
    out: set[str] = set()
    for text in inputs:
        try:
            call = ast.parse(f"f({text})", mode="eval").body
        except (SyntaxError, ValueError):
            return None
        if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
            return None  # e.g. "1)(x=2": the text is not one argument list
        if any(isinstance(a, ast.Starred) for a in call.args):
            return None  # which parameters an unpacked iterable binds is not visible in the text
        for kw in call.keywords:
            if kw.arg is None:
                return None
            out.add(kw.arg)
    return out


def is_public(name: str, survey: Survey) -> bool:
    """Whether a module-level ``name`` is part of the module's API for code that imports
    it: it has no leading underscore, or some string spells it (``__all__``,
    ``getattr(module, "name")``)."""
    return not name.startswith("_") or name in survey.string_words


def api_problem(an, info: FuncInfo, policy: str, input_names: set[str] | None) -> str | None:
    """Why callers outside the program might bind the parameters of ``info`` by name under
    the ``parameters`` ``policy`` of rename-locals (``"all"``, ``"entry-point"``,
    ``"private"``), or ``None``.  ``an`` is the module's :class:`Analysis`; ``input_names``
    the identifiers the harness inputs spell (:func:`names_of_inputs`).

    Under the harness contract (``an.ctx.harness``) the only outside caller is the harness,
    which calls the entry point and nothing else, so only the entry point (kept with
    ``"private"``) and a module-level function an input names are reachable.  Otherwise
    every module-level function is an attribute of the module that importers can call --
    private (``_name``) ones too: test suites do (``statistics._sum``, ``difflib._mdiff``)
    -- and every method is reached through instances, so they keep their parameters unless
    the policy is ``"all"``; the entry point's are renamed under ``"entry-point"`` (the
    user's request).  Nested functions are reachable only through uses the program shows
    (:func:`callers_problem` checks those)."""
    ctx = an.ctx
    fname = info.node.name.value
    outer = an.scopes.get(info.node)
    if isinstance(outer, ClassScope):
        if ctx.harness or policy == "all":
            return None
        return f"{fname} is a method (reachable through instances); its parameters keep their names " \
               f"(parameters=\"all\" renames them)"
    if not isinstance(outer, GlobalScope):
        return None
    if fname == ctx.entry_point and is_top_level(info.node, ctx):
        if policy == "private":
            return f"{fname} is the entry point; its parameters keep their names (parameters=\"private\")"
        return None
    if ctx.harness:
        if input_names is None or fname in input_names:
            return f"{fname} is named by a harness input (which may pass it on); its parameters keep their names"
        return None
    if policy != "all":
        return f"{fname} is a module-level function, which code importing the module may call with keyword " \
               f"arguments; its parameters keep their names (parameters=\"all\" renames them)"
    return None


def _def_binding(info: FuncInfo, scopes, assignments):
    outer = scopes.get(info.node)
    if outer is None:
        return None, None
    return outer, assignments.get(outer, {}).get(info.node.name.value, [])


def direct_calls(info: FuncInfo, scopes, uses, parents) -> list[cst.Call]:
    """The calls ``f(...)`` of the function ``info`` by its name, resolved in its scope."""
    outer = scopes.get(info.node)
    out = []
    for n in uses.get((id(outer), info.node.name.value), []):
        parent = parents.get(n)
        if isinstance(parent, cst.Call) and parent.func is n:
            out.append(parent)
    return out


def callers_problem(info: FuncInfo, scopes, assignments, uses, parents, survey: Survey,
                     module_dynamic: bool, unscoped: set[str]) -> str | None:
    """Why renaming the function ``info`` could change how it is called (by keyword, by a
    dynamic lookup, through an alias), or ``None``."""
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
