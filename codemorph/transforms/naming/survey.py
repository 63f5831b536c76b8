"""One survey of a program for the naming family: introspection hazards, the functions and
their uses, names spelled in strings (:class:`Survey`), and the binding of each renamable
name.
"""

from __future__ import annotations

import ast
import builtins
import re
import warnings
from dataclasses import dataclass, field
from typing import Iterable, Mapping

import libcst as cst
from libcst.metadata import ClassScope, ComprehensionScope, FunctionScope, GlobalScope, ParentNodeProvider

from codemorph.engine.transform import DYNAMIC_SCOPE_BUILTINS

__all__ = ["is_dunder", "FuncInfo", "Survey", "names_in", "resolve_binding", "Binding"]


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


def is_dunder(name: str) -> bool:
    """Whether ``name`` starts with two underscores (dunders and class-private names)."""
    return name.startswith("__")  # dunders and class-private (mangled) names


@dataclass
class FuncInfo:
    """Facts about one ``def`` (its whole subtree, nested scopes included)."""

    node: cst.FunctionDef
    dynamic: list[str] = field(default_factory=list)       # dynamic-scope uses, e.g. "locals()"
    forbidden: dict[str, str] = field(default_factory=dict)  # name -> why it is never renamed here
    string_annotations: list[str] = field(default_factory=list)


class Survey(cst.CSTVisitor):
    """One pass over the module: the role of every ``Name`` and per-function facts."""

    METADATA_DEPENDENCIES = (ParentNodeProvider,)

    def __init__(self, parents: Mapping[cst.CSTNode, cst.CSTNode]) -> None:
        self.parents = parents
        self.special: dict[cst.Name, str] = {}   # Name -> role when not a variable use
        self.variables: list[cst.Name] = []       # variable-role Names, source order
        self.functions: list[FuncInfo] = []      # every def, source order
        self.scope_nodes: list[cst.CSTNode] = []  # defs, lambdas, classes, comprehensions
        self.stack: list[FuncInfo] = []
        self.module_dynamic: list[str] = []       # dynamic uses outside every def
        self.alias_dynamic: list[str] = []        # dynamic builtins used other than by a call
        self.dynamic_candidates: list[tuple[cst.Name, str | None, tuple[FuncInfo, ...]]] = []
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
        info = FuncInfo(node)
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
        for n in names_in(node.name):
            self._mark(n, "import")
        if node.asname is not None:
            self._mark(node.asname.name, "import")

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.module is not None:
            for n in names_in(node.module):
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
            self._forbid((n.value for n in names_in(node.expression)), "is shown by a self-documenting f-string")

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is None:
            return
        bound = node.name.name
        used = not isinstance(bound, cst.Name) or any(n.value == bound.value for n in names_in(node.body))
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
                target = resolve_binding(sc, node.value, binds) if sc is not None else None
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


def names_in(node: cst.CSTNode) -> list[cst.Name]:
    """Every ``Name`` node inside ``node``, in source order."""
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


def resolve_binding(scope, name: str, binds: Mapping[object, set[str]]):
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
class Binding:
    """One renamable binding: its scope, name, kind (one of :data:`KINDS`), every ``Name``
    to respell, the position of its first occurrence, and for a parameter its ``def``."""
    scope: object                      # the libcst scope that owns the binding
    name: str
    kind: str                          # one of KINDS
    targets: list[cst.Name]            # every Name to respell
    first: tuple[int, int]             # source position of the first occurrence
    params: list[cst.Param] = field(default_factory=list)
    func: FuncInfo | None = None      # the def whose parameter this is (kind "param")
    group: tuple[int, int] = (0, 0)    # bindings of one group may exchange names (misleading scheme)
    site: cst.CSTNode | None = None    # where the change is recorded (default: the first target)
