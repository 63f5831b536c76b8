"""The names a ``from M import *`` of a standard-library module ``M`` binds, found without
running the program (:func:`star_import_names`).

HumanEval's programs start with ``from typing import *``; a transform that emits a call to
``iter`` must know whether that import could rebind ``iter``.  For a module of the running
Python's standard library the answer is read from the module's own source with :mod:`ast`:
its ``__all__`` when it is a literal list or tuple of strings (also built with ``+``, ``+=``
or ``.extend``/``.append`` of literals at module level), else its public module-level names
(as ``import *`` takes them: every name bound at module level that does not start with
``_``).  A standard-library module without Python source (built into the interpreter, or a C
extension in ``lib-dynload`` such as ``math``) is imported to read its names: its
initialisation is the interpreter's own code, not the program's.  Anything else (a module
outside the standard library, a relative import, an ``__all__`` computed at run time, a
module whose own star imports cannot be resolved) gives ``None``: the import may bind any
name.
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.machinery
import importlib.util
import os
import sys
import sysconfig

__all__ = ["star_import_names", "is_stdlib_module"]

#: how deep star imports inside standard-library modules are followed
_MAX_DEPTH = 4


def is_stdlib_module(name: str) -> bool:
    """Whether the dotted module ``name`` belongs to the running Python's standard library
    (its top-level package is in :data:`sys.stdlib_module_names`)."""
    return bool(name) and name.split(".")[0] in sys.stdlib_module_names


def _source_path(name: str) -> str | None:
    """The ``.py`` file of the standard-library module ``name`` under the stdlib directory
    (``typing.py``, ``collections/__init__.py``), or ``None``."""
    base = os.path.join(sysconfig.get_paths()["stdlib"], *name.split("."))
    for path in (base + ".py", os.path.join(base, "__init__.py")):
        if os.path.isfile(path):
            return path
    return None


def _literal_strings(node: ast.AST) -> list[str] | None:
    if isinstance(node, (ast.List, ast.Tuple)):
        out = []
        for el in node.elts:
            if not (isinstance(el, ast.Constant) and isinstance(el.value, str)):
                return None
            out.append(el.value)
        return out
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = _literal_strings(node.left), _literal_strings(node.right)
        return None if a is None or b is None else a + b
    return None


def _names_from_source(name: str, source: str, depth: int) -> frozenset[str] | None:
    tree = ast.parse(source)
    all_names: list[str] | None = None
    has_all = False
    public: set[str] = set()
    for stmt in tree.body:
        for node in [stmt] + (list(ast.walk(stmt)) if isinstance(stmt, (ast.If, ast.Try)) else []):
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Name) and t.id == "__all__":
                        has_all = True
                        all_names = _literal_strings(node.value)
                        if all_names is None:
                            return None
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            public.add(n.id)
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) \
                    and node.target.id == "__all__":
                more = _literal_strings(node.value)
                if more is None or all_names is None:
                    return None
                all_names = all_names + more
            elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
                    and isinstance(node.value.func, ast.Attribute) and isinstance(node.value.func.value, ast.Name) \
                    and node.value.func.value.id == "__all__":
                call = node.value
                if all_names is None or len(call.args) != 1 or call.keywords:
                    return None
                if call.func.attr == "extend":
                    more = _literal_strings(call.args[0])
                elif call.func.attr == "append" and isinstance(call.args[0], ast.Constant) \
                        and isinstance(call.args[0].value, str):
                    more = [call.args[0].value]
                else:
                    return None
                if more is None:
                    return None
                all_names = all_names + more
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                public.add(node.name)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                public.add(node.target.id)
            elif isinstance(node, ast.Import):
                for a in node.names:
                    public.add(a.asname or a.name.split(".")[0])
            elif isinstance(node, ast.ImportFrom):
                for a in node.names:
                    if a.name == "*":
                        if node.level or node.module is None:
                            return None
                        inner = star_import_names(node.module, depth + 1)
                        if inner is None:
                            return None
                        public.update(inner)
                    else:
                        public.add(a.asname or a.name)
            elif isinstance(node, (ast.For, ast.With)) and node is stmt:
                for n in ast.walk(node.target if isinstance(node, ast.For) else node):
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                        public.add(n.id)
    if has_all:
        return frozenset(all_names or ())
    # names bound anywhere else at module level (globals() updates, exec) are not seen: only
    # modules whose module-level code binds names plainly are read this way
    if "globals" in source and "globals()[" in source or "exec(" in source:
        return None
    return frozenset(n for n in public if not n.startswith("_"))


@functools.lru_cache(maxsize=128)
def star_import_names(module: str, depth: int = 0) -> frozenset[str] | None:
    """The names ``from <module> import *`` binds, for a standard-library ``module``
    (dotted, absolute), or ``None`` when they cannot be known without running code (see
    the module docstring).  Cached per module.

    Example: ``star_import_names("typing")`` holds ``"List"``, ``"Any"`` and ``"cast"``, and
    neither ``"iter"`` nor ``"object"``."""
    if depth > _MAX_DEPTH or not is_stdlib_module(module):
        return None
    path = _source_path(module)
    if path is not None:
        try:
            with open(path, encoding="utf-8") as fh:
                return _names_from_source(module, fh.read(), depth)
        except (OSError, SyntaxError, ValueError, UnicodeDecodeError, RecursionError):
            return None
    # no Python source: a module built into the interpreter or a C extension of the stdlib
    try:
        spec = importlib.util.find_spec(module) if "." not in module else None
    except (ImportError, ValueError):
        return None
    if spec is None or not (spec.origin == "built-in" or isinstance(spec.loader, importlib.machinery.ExtensionFileLoader)):
        return None
    try:
        mod = importlib.import_module(module)
    except Exception:  # noqa: BLE001 - an unavailable module: unknown names
        return None
    names = getattr(mod, "__all__", None)
    if names is not None:
        return frozenset(str(n) for n in names)
    return frozenset(n for n in vars(mod) if not n.startswith("_"))
