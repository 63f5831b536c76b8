"""The naming family's safety net: after a renaming, the symbol tables (:mod:`symtable`)
and ASTs of the original and rewritten programs must agree up to the renaming
(:func:`check_renaming`).
"""

from __future__ import annotations

import ast
import symtable
from typing import Mapping

from codemorph.engine.transform import BUILTIN_NAMES
from codemorph.transforms.naming.schemes import RESERVED

__all__ = ["RenamingMismatch", "check_renaming"]


class RenamingMismatch(Exception):
    """:func:`check_renaming` found a difference other than the declared renaming."""


def _symbol_flags(sym: symtable.Symbol) -> tuple[bool, ...]:
    return (sym.is_referenced(), sym.is_imported(), sym.is_parameter(), sym.is_global(),
            sym.is_nonlocal(), sym.is_declared_global(), sym.is_local(), sym.is_annotated(),
            sym.is_free(), sym.is_assigned(), sym.is_namespace())


def _compare_tables(a: symtable.SymbolTable, b: symtable.SymbolTable, back: Mapping[str, str]) -> None:
    where = f"{a.get_type()} {a.get_name()!r} (line {a.get_lineno()})"
    same_name = a.get_name() == b.get_name() or back.get(b.get_name()) == a.get_name()  # renamed def/class
    if (a.get_type(), a.get_lineno()) != (b.get_type(), b.get_lineno()) or not same_name:
        raise RenamingMismatch(f"scope {where} became {b.get_type()} {b.get_name()!r} (line {b.get_lineno()})")
    old = {s.get_name(): _symbol_flags(s) for s in a.get_symbols()}
    new: dict[str, tuple[bool, ...]] = {}
    for s in b.get_symbols():
        name = back.get(s.get_name(), s.get_name())
        if name in new:
            raise RenamingMismatch(f"in {where}, two symbols stand for {name!r}")
        new[name] = _symbol_flags(s)
        if s.get_name() in back and name in BUILTIN_NAMES and (s.is_global() or a.get_type() == "module"):
            # a global spelled like a builtin reads the builtin while unbound: keep its name
            raise RenamingMismatch(f"in {where}, {name!r} is a global that may resolve to the builtin {name}")
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

    def _def(self, node):
        self.generic_visit(node)
        node.name = self.back.get(node.name, node.name)
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _def


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


class _BlankDocstrings(ast.NodeTransformer):
    """Replace the text of every docstring (module, class, function) by ``""``."""

    def _blank(self, node):
        self.generic_visit(node)
        body = getattr(node, "body", None)
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body[0].value.value = ""
        return node

    visit_Module = visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _blank


def check_renaming(old_source: str, new_source: str, back: Mapping[str, str], *, docstrings: bool = False) -> None:
    """Check that ``new_source`` is ``old_source`` with identifiers renamed, nothing else.

    Args:
        old_source: the original module text.
        new_source: the rewritten module text.
        back: new identifier -> the identifier it replaced (one old name per new name).
            A new identifier must be fresh (spelled nowhere in ``old_source``) unless it
            is itself renamed away (it is also a value of ``back``: an exchange of
            existing names, as the ``misleading`` scheme makes) and is neither a keyword
            nor a builtin name.

    Checks, all with the interpreter's own compiler: (1) the ASTs are equal once renamed
    names (variables, parameters, keyword arguments, ``except ... as`` names, ``def`` and
    ``class`` names) are mapped back, so nothing else (attributes, strings, structure)
    changed and every occurrence of a renamed-away name was renamed; (2) every renamed
    keyword argument names a parameter of the called function; (3) the symbol tables
    (:mod:`symtable`) have the same scopes in the same order, and in every scope each symbol
    maps through ``back`` to a symbol with identical flags (local, global, free,
    parameter, nonlocal, referenced, assigned, annotated, imported, namespace); (4) no
    renamed global is spelled like a builtin (while unbound, it would have read the
    builtin).  With ``docstrings=True`` the text of docstrings may differ as well (a
    renaming that also respells the names a docstring mentions); every other string must
    be unchanged.

    Raises:
        RenamingMismatch: describing the first difference found.
    """
    old_tree = ast.parse(old_source)
    new_tree = ast.parse(new_source)
    spelled = _identifiers(old_tree)
    renamed_away = set(back.values())
    for new in back:
        if new in spelled and (new not in renamed_away or new in RESERVED):
            raise RenamingMismatch(f"new name {new!r} already occurs in the original program")
    _keyword_targets_ok(new_tree, back)
    mapped = _MapBack(back).visit(new_tree)
    if docstrings:
        old_tree, mapped = _BlankDocstrings().visit(old_tree), _BlankDocstrings().visit(mapped)
    if ast.dump(old_tree) != ast.dump(mapped):
        raise RenamingMismatch("the programs differ in more than the renamed identifiers")
    _compare_tables(symtable.symtable(old_source, "<old>", "exec"),
                    symtable.symtable(new_source, "<new>", "exec"), back)
