"""Small syntax helpers over libcst nodes: source text of a node, the type of a literal,
parentheses a bare tuple needs to become one argument."""

from __future__ import annotations

import libcst as cst

__all__ = ["code_of", "literal_type", "parenthesize_if_bare_tuple"]


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
