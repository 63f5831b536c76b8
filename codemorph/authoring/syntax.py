"""Small syntax helpers over libcst nodes: source text of a node, the type of a literal,
parentheses a bare tuple needs to become one argument."""

from __future__ import annotations

import libcst as cst

__all__ = ["code_of", "literal_type", "parenthesize_if_bare_tuple", "LoopBodyScope", "loop_jumps", "LITERAL_CALLS",
           "reads_a_variable"]


def code_of(node: cst.CSTNode) -> str:
    """Source text of ``node`` (with its own parentheses)."""
    return cst.Module([]).code_for_node(node)


def literal_type(node: cst.BaseExpression) -> str | None:
    """Type name of a literal operand, or ``None`` when ``node`` is not one.

    Literals: integers (also with a unary ``-``/``+``), floats (likewise), ``True``/``False``,
    ``None`` and plain (non-f, non-concatenated) strings/bytes.
    """
    if isinstance(node, cst.Integer):
        return "int"
    if isinstance(node, cst.Float):
        return "float"
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        inner = node.expression
        if isinstance(inner, (cst.Integer, cst.Float)) and not inner.lpar:
            return "int" if isinstance(inner, cst.Integer) else "float"
        return None
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return "bool"
    if isinstance(node, cst.Name) and node.value == "None":
        return "NoneType"
    if isinstance(node, cst.SimpleString):
        return "bytes" if "b" in node.prefix.lower() else "str"
    return None


def parenthesize_if_bare_tuple(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``expr`` with parentheses added when it is a tuple written without them
    (``for d in a, b, c:``), so that it can be used as a single call argument."""
    if isinstance(expr, cst.Tuple) and not expr.lpar:
        return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return expr


class LoopBodyScope:
    """Mixin for a libcst visitor or transformer of one loop's body: it stays out of the
    functions, lambdas and classes defined there, and of nested loops except their ``else``
    (a ``break``/``continue`` there belongs to the visited loop).  A subclass that treats a
    nested loop otherwise overrides :meth:`_nested_loop` (return ``False`` not to enter)."""

    def _nested_loop(self, node: cst.For | cst.While) -> bool:
        if node.orelse is not None:
            node.orelse.visit(self)
        return False

    def visit_For(self, node: cst.For) -> bool:
        return self._nested_loop(node)

    def visit_While(self, node: cst.While) -> bool:
        return self._nested_loop(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


class _LoopJumps(LoopBodyScope, cst.CSTVisitor):
    """``break`` / ``continue`` statements that belong to the loop whose body is visited
    (not to loops, functions or classes nested in it; the ``else`` of a nested loop
    belongs to the outer loop and is visited)."""

    def __init__(self) -> None:
        self.found: list[cst.CSTNode] = []

    def visit_Break(self, node: cst.Break) -> None:
        self.found.append(node)

    def visit_Continue(self, node: cst.Continue) -> None:
        self.found.append(node)


def loop_jumps(body: cst.BaseSuite) -> list[str]:
    """Kinds (``"break"`` / ``"continue"``) of the jumps in a loop ``body`` that target
    that loop, in source order (empty when the body never leaves or restarts the loop
    early)."""
    v = _LoopJumps()
    body.visit(v)
    return ["break" if isinstance(n, cst.Break) else "continue" for n in v.found]


#: builtins a value may call and still be made of literals only (``list()``, ``len('ab')``)
LITERAL_CALLS = frozenset({"len", "list", "sorted", "dict", "set", "tuple", "int", "range", "enumerate", "str"})


class _ReadsName(cst.CSTVisitor):
    """Whether an expression reads a name other than a builtin of :data:`LITERAL_CALLS` it
    calls, a comprehension's own target, or ``True``/``False``/``None``."""

    def __init__(self) -> None:
        self.skip: set[int] = set()
        self.targets: set[str] = set()
        self.found = False

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value in LITERAL_CALLS:
            self.skip.add(id(node.func))

    def visit_CompFor(self, node: cst.CompFor) -> None:
        stack: list[cst.CSTNode] = [node.target]
        while stack:
            n = stack.pop()
            if isinstance(n, cst.Name):
                self.targets.add(n.value)
            stack.extend(n.children)

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) not in self.skip and node.value not in self.targets \
                and node.value not in ("True", "False", "None"):
            self.found = True


def reads_a_variable(node: cst.BaseExpression) -> bool:
    """Whether the expression ``node`` is computed from the program's variables: it reads a
    name other than a builtin it calls (``len``, ``list``, ``int``...: :data:`LITERAL_CALLS`),
    a comprehension's own target, or ``True``/``False``/``None`` (``len(xs)``, ``[c for c in
    text]``, ``int(input())``: yes; ``[]``, ``0``, ``' '``, ``None``, ``list()``, ``[i for i in
    range(3)]``: no).  The dead-code checks and the value distractors state or test a value
    only after such an expression, where the line does not give the value away."""
    v = _ReadsName()
    node.visit(v)
    return v.found
