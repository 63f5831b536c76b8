"""Scope facts of one program: :class:`FunctionIndex` (CPython's qualified name of every
scope, parent links, which functions read their namespace by name, libcst's scopes, the
types observed for a function's locals)."""

from __future__ import annotations

import re
from typing import Any, Iterable, Mapping

import libcst as cst
from libcst.metadata import ComprehensionScope, FunctionScope, ScopeProvider

from codemorph.engine import RewriteContext
from codemorph.engine.transform import DYNAMIC_SCOPE_BUILTINS, identifiers_in

__all__ = ["FunctionIndex", "LOCAL_REBINDING_HAZARDS"]

#: Identifiers of code that may rebind a function's local without an assignment in that
#: function or a ``nonlocal`` one: a closure cell written through ``cell_contents``
#: (``inner.__closure__[0].cell_contents = ...`` from anywhere, in mid-line), a frame's
#: ``f_locals`` (written through on Python 3.13), ``ctypes``.
LOCAL_REBINDING_HAZARDS: frozenset[str] = frozenset({"cell_contents", "f_locals", "ctypes"})

_COMPREHENSION_NAMES = {cst.ListComp: "<listcomp>", cst.SetComp: "<setcomp>", cst.DictComp: "<dictcomp>",
                        cst.GeneratorExp: "<genexpr>"}


class _QualnameVisitor(cst.CSTVisitor):
    """Computes CPython's ``co_qualname`` of every function, lambda, class and
    comprehension node (the rules of ``compiler_set_qualname`` in CPython 3.11).

    Decorators, default values, annotations and base classes are evaluated in the
    enclosing scope, and so is the first iterable of a comprehension: code there is named
    after the enclosing scope (``def g(k=lambda: 0)`` at module level makes ``<lambda>``,
    not ``g.<locals>.<lambda>``)."""

    def __init__(self) -> None:
        self.qualnames: dict[cst.CSTNode, str] = {}
        self.parents: dict[cst.CSTNode, cst.CSTNode] = {}
        self.dynamic: set[cst.CSTNode] = set()
        self.module_dynamic = False
        self.walrus: set[str] = set()
        self.nonlocal_names: set[str] = set()
        # (qualname, kind: function | class | comprehension, names declared ``global`` there)
        self.stack: list[tuple[str, str, set[str]]] = []
        self._first_for: dict[int, tuple[str, str, set[str]]] = {}
        self._suspended: list[tuple[str, str, set[str]]] = []
        self._path: list[cst.CSTNode] = []

    # parent links (one traversal instead of a second one by ParentNodeProvider)
    def on_visit(self, node: cst.CSTNode) -> bool:
        parent = self._path[-1] if self._path else None
        if parent is not None:
            self.parents[node] = parent
        if isinstance(node, cst.Name) and node.value in DYNAMIC_SCOPE_BUILTINS \
                and not (isinstance(parent, cst.Attribute) and parent.attr is node) \
                and not (isinstance(parent, cst.Arg) and parent.keyword is node):
            functions = [n for n in self._path if isinstance(n, (cst.FunctionDef, cst.Lambda))]
            self.dynamic.update(functions)
            if not functions:
                self.module_dynamic = True
        if isinstance(node, cst.NamedExpr) and isinstance(node.target, cst.Name):
            self.walrus.add(node.target.value)
        self._path.append(node)
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        super().on_leave(original_node)
        self._path.pop()

    def _name(self, node: cst.CSTNode, name: str) -> str:
        if not self.stack:
            qn = name
        else:
            parent, pkind, declared_global = self.stack[-1]
            if isinstance(node, (cst.FunctionDef, cst.ClassDef)) \
                    and self._mangle(name) in {self._mangle(g) for g in declared_global}:
                qn = name  # ``global g`` then ``def g``: CPython names it ``g`` (force_global)
            else:
                qn = f"{parent}.<locals>.{name}" if pkind == "function" else f"{parent}.{name}"
        self.qualnames[node] = qn
        return qn

    def _mangle(self, name: str) -> str:
        """``name`` as CPython's symbol table spells it: a private ``__name`` inside a class
        (its methods included) is ``_Class__name``."""
        if not name.startswith("__") or name.endswith("__"):
            return name
        classes = [qn for qn, kind, _ in self.stack if kind == "class"]
        private = classes[-1].rsplit(".", 1)[-1].lstrip("_") if classes else ""
        return f"_{private}{name}" if private else name

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.nonlocal_names.update(item.name.value for item in node.names)

    def visit_Global(self, node: cst.Global) -> None:
        # a ``global`` statement precedes every binding of its names in its scope (else
        # CPython raises SyntaxError), so it is seen before the ``def``/``class`` it names
        if self.stack:
            self.stack[-1][2].update(item.name.value for item in node.names)

    # functions, lambdas and classes: only the body runs in the new scope
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._name(node, node.name.value)

    def visit_FunctionDef_body(self, node: cst.FunctionDef) -> None:
        self.stack.append((self.qualnames[node], "function", set()))

    def leave_FunctionDef_body(self, node: cst.FunctionDef) -> None:
        self.stack.pop()

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._name(node, "<lambda>")

    def visit_Lambda_body(self, node: cst.Lambda) -> None:
        self.stack.append((self.qualnames[node], "function", set()))

    def leave_Lambda_body(self, node: cst.Lambda) -> None:
        self.stack.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._name(node, node.name.value)

    def visit_ClassDef_body(self, node: cst.ClassDef) -> None:
        self.stack.append((self.qualnames[node], "class", set()))

    def leave_ClassDef_body(self, node: cst.ClassDef) -> None:
        self.stack.pop()

    # comprehensions: everything but the first iterable runs in the new scope
    def _comp(self, node) -> None:
        qn = self._name(node, _COMPREHENSION_NAMES[type(node)])
        self.stack.append((qn, "comprehension", set()))
        self._first_for[id(node.for_in)] = self.stack[-1]

    def _comp_leave(self, node) -> None:
        self.stack.pop()

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comp
    leave_ListComp = leave_SetComp = leave_DictComp = leave_GeneratorExp = _comp_leave

    def visit_CompFor_iter(self, node: cst.CompFor) -> None:
        if id(node) in self._first_for:
            self._suspended.append(self.stack.pop())

    def leave_CompFor_iter(self, node: cst.CompFor) -> None:
        if id(node) in self._first_for:
            self.stack.append(self._suspended.pop())


class FunctionIndex:
    """Facts about the scopes of one program, computed once per :class:`RewriteContext`.

    Args:
        ctx: the rewrite context (its metadata wrapper keeps node identity, so the facts
            are keyed by nodes of ``ctx.program.module``).

    Attributes:
        qualnames: ``{scope node: co_qualname}`` for every ``def``, ``lambda``, ``class``
            and comprehension.
        dynamic: function/lambda nodes whose body (nested scopes included) reads ``eval``,
            ``exec``, ``locals``, ``globals``, ``vars`` or ``dir``.
        module_dynamic: whether code outside every function (module level, class bodies)
            reads one of them.
        walrus_names: names bound by an assignment expression (``:=``) anywhere.
        nonlocal_names: names declared ``nonlocal`` anywhere (no local of that name is typed).
        parents: ``{node: parent node}``.
    """

    def __init__(self, ctx: RewriteContext) -> None:
        self.ctx = ctx
        module = ctx.program.module
        qv = _QualnameVisitor()
        module.visit(qv)
        self.qualnames = qv.qualnames
        self.parents: Mapping[cst.CSTNode, cst.CSTNode] = qv.parents
        self._scopes: Mapping[cst.CSTNode, Any] | None = None
        self.dynamic = qv.dynamic
        self.module_dynamic = qv.module_dynamic
        self.walrus_names = frozenset(qv.walrus)
        #: names a ``nonlocal`` statement names anywhere
        self.nonlocal_names = frozenset(qv.nonlocal_names)
        #: the program's source split at line breaks as the tokenizer sees them
        self.source_lines = re.split(r"\r\n|\r|\n", ctx.program.source)
        #: whether the program spells one of :data:`LOCAL_REBINDING_HAZARDS`
        self.locals_writable = bool(identifiers_in(module) & LOCAL_REBINDING_HAZARDS)

    @property
    def scopes(self) -> Mapping[cst.CSTNode, Any]:
        """libcst's ``ScopeProvider`` mapping (resolved on first use)."""
        if self._scopes is None:
            self._scopes = self.ctx.metadata(ScopeProvider)
        return self._scopes

    def shares_line(self, node: cst.CSTNode) -> bool:
        """Whether the statement around ``node`` shares its line with other statements
        (``a = 1; b = a + 2`` or ``if c: b = a + 2``).  Types are observed at line events, so
        a value that lives only between two statements of one line is never observed."""
        for anc in self.ancestors(node):
            if isinstance(anc, cst.SimpleStatementSuite):
                return True
            if isinstance(anc, cst.SimpleStatementLine):
                return len(anc.body) > 1
            if isinstance(anc, (cst.BaseCompoundStatement, cst.Lambda, cst.ListComp, cst.SetComp,
                                cst.DictComp, cst.GeneratorExp)):
                return False
        return False

    def ancestors(self, node: cst.CSTNode) -> Iterable[cst.CSTNode]:
        """Parents of ``node``, innermost first, up to the module."""
        cur = self.parents.get(node)
        while cur is not None:
            yield cur
            cur = self.parents.get(cur)

    def in_dynamic_scope(self, node: cst.CSTNode) -> bool:
        """Whether ``node`` lies in a function that uses ``eval``/``exec``/``locals``/
        ``globals``/``vars``/``dir`` (or at module level in a module whose top-level code
        does)."""
        inside_function = False
        for anc in self.ancestors(node):
            if isinstance(anc, (cst.FunctionDef, cst.Lambda)):
                inside_function = True
                if anc in self.dynamic:
                    return True
        return not inside_function and self.module_dynamic

    def enclosing_function(self, node: cst.CSTNode) -> cst.FunctionDef | None:
        """The innermost ``def`` around ``node`` (``None`` at module or class level)."""
        for anc in self.ancestors(node):
            if isinstance(anc, cst.FunctionDef):
                return anc
            if isinstance(anc, (cst.ClassDef, cst.Lambda)):
                return None
        return None

    def local_scope_of(self, name: cst.Name) -> tuple[Any, str] | None:
        """For a variable read ``name``: its scope and that scope's qualname, when the name
        is a local of the function or comprehension where it is read (every binding it may
        refer to is in that very scope: no global, nonlocal, free or builtin name);
        otherwise ``None`` -- also when any ``nonlocal`` statement of the program names it
        (a function or class body nested at any depth may rebind it in mid-line), or when the
        program spells one of
        :data:`LOCAL_REBINDING_HAZARDS` (``cell_contents``, ``f_locals``, ``ctypes``),
        through which code elsewhere may rebind a local in mid-line."""
        if self.locals_writable or name.value in self.nonlocal_names:
            # a ``nonlocal`` rebinding in any nested function or class body (however deep)
            # may change the name in mid-line
            return None
        scope = self.scopes.get(name)
        if not isinstance(scope, (FunctionScope, ComprehensionScope)):
            return None
        accesses = [a for a in scope.accesses[name.value] if a.node is name]
        if len(accesses) != 1:
            return None
        referents = accesses[0].referents
        if not referents or any(r.scope is not scope for r in referents):
            return None
        # a nested function writing the name (``nonlocal``) could change it in mid-line,
        # between two line events of this function
        if any(self.scopes.get(r.node, scope) is not scope for r in referents):
            return None
        qualname = self.qualnames.get(getattr(scope, "node", None))
        if qualname is None:
            return None
        return scope, qualname

    def assigned_scope_of(self, target: cst.Name) -> tuple[Any, str] | None:
        """For an assignment target ``target`` (e.g. of ``x += 1``): its function scope and
        that scope's qualname, when the assignment binds a local of that function (not a
        ``global``/``nonlocal`` name); otherwise ``None``."""
        scope = self.scopes.get(target)
        if not isinstance(scope, FunctionScope):
            return None
        if not any(a.node is target for a in scope.assignments[target.value]):
            return None
        qualname = self.qualnames.get(getattr(scope, "node", None))
        if qualname is None:
            return None
        return scope, qualname

    def observed(self, qualname: str, name: str) -> list[str] | None:
        """Type names observed for local ``name`` of function ``qualname`` (``None`` when
        never observed)."""
        obs = self.ctx.observations
        if not isinstance(obs, Mapping):
            return None
        table = obs.get(qualname)
        if not isinstance(table, Mapping):
            return None
        types = table.get(name)
        if not types:
            return None
        return list(types)
