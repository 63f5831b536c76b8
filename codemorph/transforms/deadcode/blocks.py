"""Where dead code may be inserted: a function's own blocks, the names bound at a point,
function qualnames, locals and symbol tables.
"""

from __future__ import annotations

import ast
import symtable
from typing import Sequence

import libcst as cst

from codemorph.authoring.facts import FunctionFacts, ProgramFacts
from codemorph.authoring.syntax import loop_jumps

__all__ = [
    "insertion_blocks", "definitely_bound_params", "function_symbol_tables", "function_locals",
    "function_qualnames", "bound_at", "observed_types", "never_falls_through",
]


# ---------------------------------------------------------------------------------------
# analysis helpers


def _is_docstring(stmt: cst.BaseStatement | cst.BaseSmallStatement) -> bool:
    if isinstance(stmt, cst.SimpleStatementLine):
        if not stmt.body:
            return False
        stmt = stmt.body[0]
    return isinstance(stmt, cst.Expr) and isinstance(stmt.value, (cst.SimpleString, cst.ConcatenatedString))


def _is_scope_declaration(stmt: cst.CSTNode) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and any(
        isinstance(s, (cst.Global, cst.Nonlocal)) for s in stmt.body)


_JUMPS = (cst.Return, cst.Raise, cst.Break, cst.Continue)


def _jumps(stmt: cst.CSTNode) -> bool:
    if isinstance(stmt, cst.SimpleStatementLine):
        return any(isinstance(s, _JUMPS) for s in stmt.body)
    return isinstance(stmt, _JUMPS)


def _block_never_falls_through(suite: cst.BaseSuite) -> bool:
    body = suite.body
    return any(never_falls_through(s) for s in body)


def never_falls_through(stmt: cst.CSTNode) -> bool:
    """Whether statement ``stmt`` never completes normally, so that the statements after
    it in its block are unreachable: a line with ``return``/``raise``/``break``/``continue``;
    an ``if``/``elif``/``else`` chain ending in ``else`` whose every branch never falls
    through; a ``try`` whose ``finally`` never falls through, or whose body and every
    handler never fall through; ``while True:`` without a ``break`` of its own.
    Conservative: any other statement (``with``, ``match``, calls to ``sys.exit``...) is
    taken to fall through."""
    if _jumps(stmt):
        return True
    if isinstance(stmt, cst.If):
        branch: cst.If | cst.Else | None = stmt
        while isinstance(branch, cst.If):
            if not _block_never_falls_through(branch.body):
                return False
            branch = branch.orelse
        return isinstance(branch, cst.Else) and _block_never_falls_through(branch.body)
    if isinstance(stmt, (cst.Try, cst.TryStar)):
        if stmt.finalbody is not None and _block_never_falls_through(stmt.finalbody.body):
            return True
        return _block_never_falls_through(stmt.body) and bool(stmt.handlers) and all(
            _block_never_falls_through(h.body) for h in stmt.handlers)
    if isinstance(stmt, cst.While) and isinstance(stmt.test, cst.Name) and stmt.test.value == "True":
        return "break" not in loop_jumps(stmt.body)
    return False


def _span(stmts: Sequence[cst.CSTNode], function_body: bool) -> tuple[int, int]:
    first = 1 if function_body and stmts and _is_docstring(stmts[0]) else 0
    last = len(stmts)
    for i, s in enumerate(stmts):
        if _is_scope_declaration(s) or isinstance(s, (cst.Global, cst.Nonlocal)):
            first = max(first, i + 1)
    for i, s in enumerate(stmts):
        if never_falls_through(s):
            # before the first return/raise/break/continue (or if/else whose branches all
            # exit...), not after it: code there never runs, and reads as a mistake
            last = i
            break
    return first, last


def insertion_blocks(func: cst.FunctionDef, facts: FunctionFacts | None = None
                     ) -> list[tuple[cst.BaseSuite, int, int]]:
    """Where a statement may be inserted in ``func``: ``(suite, first, last)`` triples,
    meaning positions ``first..last`` (inclusive) of ``suite``'s statements.

    Suites are ``func``'s own body and every block nested in it (if/else, loops, try,
    with, match), but not nested functions or class bodies.  In the function body the
    first position is after the docstring; in every block, after the last
    ``global``/``nonlocal`` statement of that block.  The last position is before the
    block's first statement that never falls through (:func:`never_falls_through`:
    ``return``/``raise``/``break``/``continue``, an ``if``/``else`` whose branches all
    exit...): code after it is unreachable, and the predicate itself should be evaluated.  Blocks without a
    position (``first > last``) are left out.  Order: source order.  ``facts`` (from
    :class:`~codemorph.authoring.ProgramFacts`) may be passed when computed.
    """
    body = func.body
    if isinstance(body, cst.SimpleStatementSuite):
        first, last = _span(list(body.body), True)
        return [(body, first, last)] if first <= last else []
    if facts is None:
        facts = ProgramFacts.of(cst.Module(body=[func])).functions[func]
    out: list[tuple[cst.BaseSuite, int, int]] = []
    for block in facts.blocks:
        first, last = _span(list(block.body), block is body)
        if first <= last:
            out.append((block, first, last))
    return out


def _params(func: cst.FunctionDef) -> list[cst.Param]:
    p = func.params
    out = [*p.posonly_params, *p.params]
    if isinstance(p.star_arg, cst.Param):
        out.append(p.star_arg)
    out += list(p.kwonly_params)
    if p.star_kwarg is not None:
        out.append(p.star_kwarg)
    return out


def definitely_bound_params(func: cst.FunctionDef, facts: FunctionFacts | None = None) -> list[str]:
    """Parameters of ``func`` bound at every point of its body: never ``del``eted, never an
    ``except ... as`` name, never named in ``global``/``nonlocal`` -- checked anywhere in
    ``func`` including nested functions (conservative).  In declaration order.
    ``facts`` (from :class:`~codemorph.authoring.ProgramFacts`) may be passed."""
    if facts is None:
        facts = ProgramFacts.of(cst.Module(body=[func])).functions[func]
    return [p.name.value for p in _params(func) if p.name.value not in facts.unbinders]


def function_symbol_tables(source: str) -> dict[tuple[str, int], symtable.SymbolTable]:
    """The compiler's symbol table of every function in ``source``, keyed by
    ``(name, line of the def keyword)``.

    Python's own :mod:`symtable` is exact (it is what the compiler uses to decide local /
    global / free / cell) and costs a fraction of a millisecond, against ~10 ms for a
    libcst ScopeProvider pass over a CRUXEval-sized program.

    Raises:
        SyntaxError: when ``source`` does not compile (never for a :class:`Program`).
    """
    out: dict[tuple[str, int], symtable.SymbolTable] = {}
    stack = [symtable.symtable(source, "<program>", "exec")]
    while stack:
        table = stack.pop()
        if table.get_type() == "function":
            out[(table.get_name(), table.get_lineno())] = table
        stack.extend(table.get_children())
    return out


def function_locals(table: symtable.SymbolTable | None, func: cst.FunctionDef) -> list[str]:
    """Names local to one function (parameters, assigned names, imports, nested ``def``
    names: what the compiler stores in the function's frame; never ``global``/
    ``nonlocal`` names), sorted; names with ``__`` (private, mangled) are left out.

    Args:
        table: the function's table from :func:`function_symbol_tables`, or ``None``
            when unknown (then only the parameters of ``func`` are returned).
        func: the function's libcst node.
    """
    if table is None:
        return sorted(p.name.value for p in _params(func))
    return sorted(sym.get_name() for sym in table.get_symbols()
                  if sym.is_local() and "__" not in sym.get_name())


class _Qualnames(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: dict[cst.FunctionDef, str] = {}
        self.stack: list[tuple[str, bool]] = []  # (qualname, is a function)

    def _qual(self, name: str) -> str:
        if not self.stack:
            return name
        parent, is_function = self.stack[-1]
        return f"{parent}.<locals>.{name}" if is_function else f"{parent}.{name}"

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        qn = self._qual(node.name.value)
        self.names[node] = qn
        self.stack.append((qn, True))

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.stack.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.stack.append((self._qual(node.name.value), False))

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.stack.pop()


def function_qualnames(module: cst.Module) -> dict[cst.FunctionDef, str]:
    """CPython's ``__qualname__`` of every ``def`` in ``module`` (``f``, ``Box.grow``,
    ``outer.<locals>.inner``): the keys of runtime type observations."""
    v = _Qualnames()
    module.visit(v)
    return v.names


def _target_names(target: cst.BaseExpression, out: set[str]) -> None:
    if isinstance(target, cst.Name):
        out.add(target.value)
    elif isinstance(target, (cst.Tuple, cst.List)):
        for el in target.elements:
            _target_names(el.value, out)
    elif isinstance(target, cst.StarredElement):
        _target_names(target.value, out)


def _binds(stmt: cst.CSTNode, out: set[str]) -> None:
    """Names that statement ``stmt`` binds when it completes normally (conservative:
    assignments, imports, ``def``/``class``; never names bound only on some paths)."""
    smalls: Sequence[cst.CSTNode]
    if isinstance(stmt, cst.SimpleStatementLine):
        smalls = stmt.body
    elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        out.add(stmt.name.value)
        return
    else:
        smalls = [stmt]
    for s in smalls:
        if isinstance(s, cst.Assign):
            for t in s.targets:
                _target_names(t.target, out)
        elif isinstance(s, cst.AnnAssign) and s.value is not None:
            _target_names(s.target, out)
        elif isinstance(s, cst.AugAssign):
            _target_names(s.target, out)
        elif isinstance(s, cst.Import):
            for alias in s.names:
                if alias.asname is not None:
                    _target_names(alias.asname.name, out)
                else:
                    name = alias.name
                    while isinstance(name, cst.Attribute):
                        name = name.value
                    if isinstance(name, cst.Name):
                        out.add(name.value)
        elif isinstance(s, cst.ImportFrom) and not isinstance(s.names, cst.ImportStar):
            for alias in s.names:
                if alias.asname is not None:
                    _target_names(alias.asname.name, out)
                elif isinstance(alias.name, cst.Name):
                    out.add(alias.name.value)


def _child_suites(stmt: cst.CSTNode) -> list[tuple[cst.BaseSuite, frozenset[str]]]:
    """The blocks directly inside a compound statement (not a nested ``def``/``class``),
    each with the names bound on entering it (a ``for`` target in the loop body, ``with``
    targets in its body)."""
    out: list[tuple[cst.BaseSuite, frozenset[str]]] = []
    if isinstance(stmt, cst.If):
        out.append((stmt.body, frozenset()))
        if isinstance(stmt.orelse, cst.If):
            out += _child_suites(stmt.orelse)
        elif isinstance(stmt.orelse, cst.Else):
            out.append((stmt.orelse.body, frozenset()))
    elif isinstance(stmt, (cst.For, cst.While)):
        bound: set[str] = set()
        if isinstance(stmt, cst.For):
            _target_names(stmt.target, bound)
        out.append((stmt.body, frozenset(bound)))
        if stmt.orelse is not None:
            out.append((stmt.orelse.body, frozenset()))
    elif isinstance(stmt, (cst.Try, cst.TryStar)):
        out.append((stmt.body, frozenset()))
        out += [(h.body, frozenset()) for h in stmt.handlers]
        if stmt.orelse is not None:
            out.append((stmt.orelse.body, frozenset()))
        if stmt.finalbody is not None:
            out.append((stmt.finalbody.body, frozenset()))
    elif isinstance(stmt, cst.With):
        bound = set()
        for item in stmt.items:
            if item.asname is not None:
                _target_names(item.asname.name, bound)
        out.append((stmt.body, frozenset(bound)))
    elif isinstance(stmt, cst.Match):
        out += [(case.body, frozenset()) for case in stmt.cases]
    return out


def _path(block: cst.BaseSuite, target: cst.BaseSuite) -> list[tuple[cst.BaseSuite, int, frozenset[str]]] | None:
    if block is target:
        return []
    if not isinstance(block, cst.IndentedBlock):
        return None
    for i, stmt in enumerate(block.body):
        for child, entry in _child_suites(stmt):
            rest = _path(child, target)
            if rest is not None:
                return [(block, i, entry), *rest]
    return None


def bound_at(func: cst.FunctionDef, suite: cst.BaseSuite, index: int, facts: FunctionFacts | None = None
             ) -> frozenset[str]:
    """Local names of ``func`` bound on every path that reaches the position before
    statement ``index`` of ``suite`` (a block of ``func``): the parameters of
    :func:`definitely_bound_params`, names assigned by the simple statements (and
    ``def``/``class`` statements) that precede the position in its block and in every
    enclosing block, ``for`` targets inside their loop body and ``with`` targets inside
    their block.  Names that a ``del``, ``except ... as``, ``global`` or ``nonlocal``
    anywhere in ``func`` may unbind or rebind are left out.  Conservative: a name bound
    only inside an ``if``, a loop or a ``try`` before the position is not counted.

    Returns an empty set when ``suite`` is not a block of ``func``.
    """
    if facts is None:
        facts = ProgramFacts.of(cst.Module(body=[func])).functions[func]
    path = _path(func.body, suite)
    if path is None:
        return frozenset()
    names: set[str] = set(definitely_bound_params(func, facts))
    for block, i, entry in path:
        for stmt in list(block.body)[:i]:
            _binds(stmt, names)
        names |= entry
    for stmt in list(suite.body)[:index]:
        _binds(stmt, names)
    return frozenset(names - facts.unbinders)


def observed_types(func: cst.FunctionDef, inputs: Sequence[str]) -> dict[str, str]:
    """Type names of the entry point's arguments in the first harness input that parses
    as literals (``{param: "int"}``); empty when unknown."""
    params = _params(func)
    positional = [p.name.value for p in [*func.params.posonly_params, *func.params.params]]
    for text in inputs:
        try:
            call = ast.parse(f"f({text})", mode="eval").body
            assert isinstance(call, ast.Call)
            if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
                continue
            args = [ast.literal_eval(a) for a in call.args]
            kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
        except (SyntaxError, ValueError, TypeError, AssertionError, MemoryError, RecursionError):
            continue
        out = {name: type(value).__name__ for name, value in zip(positional, args)}
        known = {p.name.value for p in params}
        out.update({k: type(v).__name__ for k, v in kwargs.items() if k in known})
        return out
    return {}
