"""The naming family: transforms that change identifiers and nothing else.

``rename-locals`` (:class:`RenameLocals`) renames the local variables and parameters of
every function, scope-aware, and proves each rewrite twice: once by construction (libcst's
:class:`~libcst.metadata.ScopeProvider` plus Python's own name-resolution rules, applied
conservatively) and once after the fact, by comparing the symbol tables (:mod:`symtable`)
and the ASTs of the original and rewritten programs (:func:`check_renaming`).

New identifiers come from a :class:`NamingScheme`.  Schemes are reusable by the rest of
the family (renaming functions or classes, user-supplied mappings): a scheme *proposes* a
name for an old identifier; the transform claims it with
:meth:`~codemorph.RewriteContext.reserve` and falls back to
:meth:`~codemorph.RewriteContext.fresh_name` when the proposal is taken, so a new name is
never spelled anywhere in the program, never a builtin and never a keyword.
"""

from __future__ import annotations

import ast
import builtins
import re
import symtable
from dataclasses import dataclass, field
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

from codemorph import NotApplicable, RewriteContext, Transform
from codemorph.transform import DYNAMIC_SCOPE_BUILTINS

__all__ = [
    "NamingScheme",
    "RandomScheme",
    "ObfuscatedScheme",
    "SCHEMES",
    "make_scheme",
    "RenameLocals",
    "check_renaming",
    "RenamingMismatch",
]


# --------------------------------------------------------------------------------------
# naming schemes
# --------------------------------------------------------------------------------------

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

    Subclasses set :attr:`name` and implement :meth:`propose`.
    """

    #: the value of the ``scheme`` option that selects this class
    name: ClassVar[str] = ""

    def __init__(self, ctx: RewriteContext) -> None:
        self.ctx = ctx

    def propose(self, old: str, kind: str) -> str:
        """A candidate for the binding currently spelled ``old``.

        Args:
            old: the identifier being replaced.
            kind: what it names: ``"param"``, ``"local"`` or ``"comprehension"``.
        """
        raise NotImplementedError

    def claim(self, proposal: str) -> str:
        """``proposal`` when it is free (and reserve it), else a fresh variant of it."""
        if self.ctx.reserve(proposal):
            return proposal
        return self.ctx.fresh_name(proposal)

    def new_name(self, old: str, kind: str) -> str:
        """A reserved, never-before-used identifier for ``old`` (see :meth:`propose`)."""
        return self.claim(self.propose(old, kind))


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


class RandomScheme(NamingScheme):
    """Plausible random identifiers such as ``count_item`` or ``tmp_value``.

    Each name is ``<qualifier>_<noun>`` drawn with ``ctx.rng`` from two fixed word lists
    (:data:`_QUALIFIERS`, :data:`_NOUNS`); up to 20 draws are tried before falling back to
    a numbered variant of the last draw.  Deterministic for a given rng state.
    """

    name = "random"
    attempts: ClassVar[int] = 20

    def propose(self, old: str, kind: str) -> str:
        rng = self.ctx.rng
        word = ""
        for _ in range(self.attempts):
            first = rng.choice(_QUALIFIERS)
            second = rng.choice(_NOUNS)
            if first == second:
                continue
            word = f"{first}_{second}"
            if self.ctx.is_free(word):
                return word
        return word or "tmp_value"


class ObfuscatedScheme(NamingScheme):
    """Meaningless identifiers ``v0``, ``v1``, ... in order, skipping names the program
    already spells (so ``v0`` may be followed by ``v2`` when the program uses ``v1``)."""

    name = "obfuscated"
    prefix: ClassVar[str] = "v"

    def __init__(self, ctx: RewriteContext) -> None:
        super().__init__(ctx)
        self._next = 0

    def propose(self, old: str, kind: str) -> str:
        while True:
            candidate = f"{self.prefix}{self._next}"
            self._next += 1
            if self.ctx.is_free(candidate):
                return candidate


#: scheme option value -> scheme class
SCHEMES: dict[str, type[NamingScheme]] = {
    RandomScheme.name: RandomScheme,
    ObfuscatedScheme.name: ObfuscatedScheme,
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
    if (a.get_type(), a.get_name(), a.get_lineno()) != (b.get_type(), b.get_name(), b.get_lineno()):
        raise RenamingMismatch(f"scope {where} became {b.get_type()} {b.get_name()!r} (line {b.get_lineno()})")
    old = {s.get_name(): _symbol_flags(s) for s in a.get_symbols()}
    new: dict[str, tuple[bool, ...]] = {}
    for s in b.get_symbols():
        name = back.get(s.get_name(), s.get_name())
        if name in new:
            raise RenamingMismatch(f"in {where}, two symbols stand for {name!r}")
        new[name] = _symbol_flags(s)
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
        back: new identifier -> the identifier it replaced.  Every new identifier must be
            fresh (spelled nowhere in ``old_source``), so the inverse is unambiguous.

    Checks, all with the interpreter's own compiler: (1) the ASTs are equal once renamed
    names (variables, parameters, keyword arguments, ``except ... as`` names) are mapped
    back, so nothing else (attributes, strings, structure) changed; (2) every renamed
    keyword argument names a parameter of the called function; (3) the symbol tables
    (:mod:`symtable`) have the same scopes in the same order, and in every scope each symbol
    maps through ``back`` to a symbol with identical flags (local, global, free,
    parameter, nonlocal, referenced, assigned, annotated, imported, namespace).

    Raises:
        RenamingMismatch: describing the first difference found.
    """
    old_tree = ast.parse(old_source)
    new_tree = ast.parse(new_source)
    spelled = _identifiers(old_tree)
    for new in back:
        if new in spelled:
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
    and not any(issubclass(k, getattr(builtins, n)) for k in (NameError, TypeError))
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

    # -- helpers ------------------------------------------------------------------
    def _mark(self, node: cst.CSTNode | None, role: str) -> None:
        if isinstance(node, cst.Name):
            self.special[node] = role

    def _forbid(self, names: Iterable[str], why: str) -> None:
        names = list(names)
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
        if node.name is None or _safe_exception_type(node.type):
            return
        bound = node.name.name
        used = not isinstance(bound, cst.Name) or any(n.value == bound.value for n in _names_in(node.body))
        if used:
            self.exception_objects.append(f"except {_code(node.type) if node.type else ''} as {_code(node.name.name)}")

    def visit_Annotation(self, node: cst.Annotation) -> None:
        self.in_annotation += 1

    def leave_Annotation(self, node: cst.Annotation) -> None:
        self.in_annotation -= 1

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        # a string anywhere in an annotation (``"Node"``, ``List["Node"]``) is a forward
        # reference that tools resolve by name; names it spells are kept
        if self.in_annotation:
            for info in self.stack:
                info.string_annotations.append(node.value)

    # -- every Name ---------------------------------------------------------------
    def visit_Name(self, node: cst.Name) -> None:
        value = node.value
        role = self.special.get(node)
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
    kind: str                          # "param" | "local" | "comprehension"
    targets: list[cst.Name]            # every Name to respell
    first: tuple[int, int]             # source position of the first occurrence
    params: list[cst.Param] = field(default_factory=list)
    func: _FuncInfo | None = None      # the def whose parameter this is (kind "param")


# --------------------------------------------------------------------------------------
# the transform
# --------------------------------------------------------------------------------------

class RenameLocals(Transform):
    """Rename the local variables and parameters of every function, scope-aware.

    Options:
        scheme (str): how new names are chosen: ``"random"`` (default; plausible words
            such as ``tmp_value``, drawn with the context's rng) or ``"obfuscated"``
            (``v0``, ``v1``, ...).  See :data:`SCHEMES`.
        params (bool): also rename parameters (default ``True``; a harness calls the entry
            point positionally).

    What is renamed: names bound in a function body (assignments, augmented and annotated
    assignments, ``for``/``with``/``except ... as``/walrus targets, ``del``), parameters,
    and the variables of comprehensions inside functions; every use is respelled,
    including uses from nested functions, lambdas, comprehensions, class bodies and
    f-strings.  New names are spelled nowhere in the program, so nothing can be captured
    or shadowed.

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
    family = "naming"
    description = "rename local variables and parameters (scope-aware, symbol-table checked)"
    preconditions = (
        "no frame/code/signature introspection",
        "no inspection of caught NameError/TypeError objects",
        "function does not use eval/exec/locals/globals/vars()/dir()",
        "parameter renamed only when no caller passes it by keyword",
    )

    def __init__(self, scheme: str = "random", params: bool = True, **options) -> None:
        super().__init__(**options)
        if scheme not in SCHEMES:
            raise ValueError(f"rename-locals: unknown scheme {scheme!r} (known: {', '.join(sorted(SCHEMES))})")
        if not isinstance(params, bool):
            raise TypeError(f"rename-locals: params must be a bool, got {type(params).__name__}")
        self.scheme = scheme
        self.params = params

    # ------------------------------------------------------------------------------
    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        """Rename (see the class docstring); raises ``NotApplicable`` with the reason when
        nothing can be renamed safely, including on an unexpected internal error."""
        try:
            return self._rewrite(module, ctx)
        except NotApplicable:
            raise
        except RecursionError:
            raise NotApplicable("program nests too deeply to analyse; left unchanged") from None
        except Exception as exc:  # a bug here must cost one rewrite, never a run
            raise NotApplicable(f"internal error ({type(exc).__name__}: {exc}); left unchanged") from exc

    def _rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        ctx.wrapper.resolve_many([ScopeProvider, ParentNodeProvider, PositionProvider])  # one batched pass
        scopes = ctx.metadata(ScopeProvider)
        parents = ctx.metadata(ParentNodeProvider)
        positions = ctx.metadata(PositionProvider)

        survey = _Survey(parents)
        module.visit(survey)

        if survey.introspection:
            raise NotApplicable("the program may introspect names at run time ("
                                + ", ".join(sorted(survey.introspection)) + "); left unchanged")
        if survey.exception_objects:
            raise NotApplicable("the program inspects caught exceptions (" + survey.exception_objects[0]
                                + "), whose messages may quote variable names; left unchanged")
        if not survey.functions:
            raise NotApplicable("no function in the program")

        def pos(node: cst.CSTNode) -> tuple[int, int]:
            p = positions[node].start
            return (p.line, p.column)

        # libcst scope of each scope-creating node, and the names each scope binds
        scope_of_node: dict[cst.CSTNode, object] = {}
        all_scopes: list[object] = []
        global_scope = scopes.get(module)
        for node in survey.scope_nodes:
            inner = _inner_scope(node, scopes)
            if inner is not None:
                scope_of_node[node] = inner
        binds: dict[object, set[str]] = {}
        assignments: dict[object, dict[str, list]] = {}
        ordered = [global_scope] + [scope_of_node[n] for n in survey.scope_nodes if n in scope_of_node]
        for sc in ordered:
            if sc is None or sc in assignments:
                continue
            all_scopes.append(sc)
            per: dict[str, list] = {}
            for a in sc.assignments:
                per.setdefault(a.name, []).append(a)
            assignments[sc] = per
            binds[sc] = set(per)

        # resolve every variable use to the scope that binds it
        uses: dict[tuple[int, str], list[cst.Name]] = {}
        unscoped: set[str] = set()
        class_reads: dict[tuple[int, str], list[object]] = {}
        for node in survey.variables:
            sc = scopes.get(node)
            if sc is None:
                unscoped.add(node.value)
                continue
            target = _resolve(sc, node.value, binds)
            if target is None:
                continue
            uses.setdefault((id(target), node.value), []).append(node)
            if isinstance(sc, ClassScope) and sc is not target:
                class_reads.setdefault((id(target), node.value), []).append(sc)

        # names bound in class bodies shadow the enclosing functions' names for class code
        class_bound: set[tuple[int, str]] = set()
        for sc in all_scopes:
            if isinstance(sc, ClassScope):
                up = sc.parent
                while up is not None and not isinstance(up, GlobalScope):
                    for n in binds.get(sc, ()):
                        class_bound.add((id(up), n))
                    if up.parent is up:
                        break
                    up = up.parent

        func_scope: dict[int, _FuncInfo] = {}
        for info in survey.functions:
            sc = scope_of_node.get(info.node)
            if sc is not None:
                func_scope[id(sc)] = info

        def owner(sc) -> _FuncInfo | None:
            """The innermost ``def`` a comprehension scope lives in."""
            cur = sc.parent
            while cur is not None and not isinstance(cur, GlobalScope):
                if isinstance(cur, FunctionScope) and id(cur) in func_scope:
                    return func_scope[id(cur)]
                if cur.parent is cur:
                    break
                cur = cur.parent
            return None

        survey.classify_dynamic(scopes, binds)
        module_dynamic = bool(survey.module_dynamic) or any(info.dynamic for info in survey.functions)
        all_dynamic = bool(survey.alias_dynamic)

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
            keyword_safe[key] = why = _callers_problem(info, scopes, assignments, uses, parents, survey,
                                                       module_dynamic, unscoped)
            return why

        for sc in all_scopes:
            if isinstance(sc, FunctionScope) and id(sc) in func_scope:
                info = func_scope[id(sc)]
                kind_default = "local"
            elif isinstance(sc, ComprehensionScope):
                info = owner(sc)
                kind_default = "comprehension"
                if info is None:
                    continue
            else:
                continue
            fname = info.node.name.value
            if all_dynamic:
                skipped.append(f"{fname}: the program refers to {survey.alias_dynamic[0]} other than by a call")
                continue
            if info.dynamic:
                skipped.append(f"{fname} uses {info.dynamic[0]} (dynamic scope); left alone")
                continue
            for name in sorted(assignments[sc]):
                asgs = assignments[sc][name]
                why = self._binding_problem(name, asgs, sc, info, class_bound, class_reads, unscoped)
                if why is not None:
                    if not any(isinstance(a.node, (cst.FunctionDef, cst.ClassDef)) for a in asgs):
                        skipped.append(f"{fname}: {name} {why}")
                    continue
                targets = [n for n in uses.get((id(sc), name), [])]
                params = [a.node for a in asgs if isinstance(a.node, cst.Param)]
                kind = "param" if params else kind_default
                if params:
                    why = self._param_problem(params, info, ctx, harness_kw, callers_ok)
                    if why is not None:
                        skipped.append(why)
                        continue
                    targets.extend(p.name for p in params)
                # Name targets of assignments are variable-role Names already in `uses`
                target_ids = {id(t) for t in targets}
                missing = [a for a in asgs if isinstance(a.node, cst.Name) and id(a.node) not in target_ids]
                if missing:
                    skipped.append(f"{fname}: {name} has an assignment no use resolves to")
                    continue
                first = min(pos(t) for t in targets)
                bindings.append(_Binding(sc, name, kind, targets, first, params, info if params else None))

        if not bindings:
            distinct = list(dict.fromkeys(skipped))
            reason = "; ".join(distinct[:3]) + ("; ..." if len(distinct) > 3 else "") if distinct \
                else "no local variable or parameter to rename"
            raise NotApplicable(reason)

        # choose names in source order
        bindings.sort(key=lambda b: (b.first, b.name))
        scheme = make_scheme(self.scheme, ctx)
        new_value: dict[cst.Name, str] = {}
        back: dict[str, str] = {}
        renamed_params: dict[int, dict[str, str]] = {}
        for b in bindings:
            new = scheme.new_name(b.name, b.kind)
            back[new] = b.name
            for t in b.targets:
                new_value[t] = new
            first_node = min(b.targets, key=pos)
            ctx.record(first_node, f"{b.name} -> {new}")
            if b.params and b.func is not None:
                for p in b.params:
                    renamed_params.setdefault(id(b.func.node), {})[b.name] = new

        # keyword arguments in direct calls of functions whose parameters were renamed
        for info in survey.functions:
            mapping = renamed_params.get(id(info.node))
            if not mapping:
                continue
            named = {p.name.value for p in [*info.node.params.params, *info.node.params.kwonly_params]}
            for call in _direct_calls(info, scopes, uses, parents):
                for arg in call.args:
                    if arg.keyword is not None and arg.keyword.value in mapping and arg.keyword.value in named:
                        new_value[arg.keyword] = mapping[arg.keyword.value]
                        ctx.record(arg.keyword, f"keyword {arg.keyword.value}= -> {mapping[arg.keyword.value]}=")

        new_module = module.visit(_Respell(new_value))
        try:
            check_renaming(module.code, new_module.code, back)
        except (RenamingMismatch, SyntaxError, ValueError) as exc:
            raise NotApplicable(f"internal consistency check failed ({exc}); left unchanged") from None
        return new_module

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
