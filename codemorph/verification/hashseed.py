"""Hash-seed re-runs: whether a program's result could depend on string hashing
(:func:`may_depend_on_hash`, a static over-approximation) and whether its outcomes stay the
same under other ``PYTHONHASHSEED`` values (:func:`hash_stable`, re-runs in the sandbox)."""

from __future__ import annotations

import ast
from typing import Callable, Sequence

from codemorph.sandbox.kinds import request_for
from codemorph.sandbox.pool import ExecRequest, Outcome, Sandbox

__all__ = ["HASH_SEEDS", "may_depend_on_hash", "hash_stable"]


#: other ``PYTHONHASHSEED`` values a result is checked under when the program or its input
#: could iterate a set of strings (a two-element set keeps seed 0's order under one other
#: seed half the time; five seeds leave 1/32)
HASH_SEEDS = 5
#: names whose use may expose hash order (sets, set-like views, ``hash``, introspection, dynamic code)
_HASH_NAMES = frozenset({"set", "frozenset", "hash", "__hash__", "id", "vars", "dir", "globals", "locals", "eval",
                         "exec", "getattr", "__import__", "compile", "__builtins__", "builtins", "__dict__",
                         "KeysView", "ItemsView", "ValuesView", "Set", "MutableSet", "AbstractSet", "abc"})
#: standard-library modules (exact names) that create no set or set-like view of their own
#: and iterate none in hash order; importing anything else (``operator``, whose ``sub``/
#: ``or_``/``xor`` combine dict views into sets, ``collections.abc``, ...) counts as a way
_HASH_FREE_MODULES = frozenset({"math", "re", "string", "itertools", "collections", "functools", "bisect",
                                "heapq", "textwrap", "fractions", "decimal", "numbers", "unicodedata", "calendar"})


def may_depend_on_hash(code: str, *inputs: str) -> bool:
    """Whether a result could depend on string hashing, deciding whether the hash-seed runs happen.

    An over-approximation on the syntax tree: ``True`` when the code has a set display or
    comprehension; uses a name or attribute from :data:`_HASH_NAMES` (``set``, ``frozenset``,
    ``hash``, ``id``, introspection, ``eval``/``getattr``, the set-like view and ABC names of
    ``collections.abc``) or any dunder attribute, or defines a function so named; combines
    ``.keys()``/``.items()`` views with any ``& | ^ -`` operator (set operations on dict views
    return sets); imports a module, or a name from a module, not listed in
    :data:`_HASH_FREE_MODULES` (exact module names: ``collections.abc`` is not
    ``collections``); does not parse; or when an input (argument-list literal) holds a set
    display, a call or a name.

    Every other route to hash order needs one of these: in Python only sets and frozensets
    (and the set-like results of dict-view operations) iterate in hash order, and dicts keep
    insertion order.  Dict displays and format strings (``'{}'``) therefore do not count.

    Args:
        code: the module's source text.
        inputs: argument-list literals such as ``"'abc', [1, 2]"``.

    Returns:
        bool; ``False`` means no ``PYTHONHASHSEED`` can change the program's result, and
        ``generate`` and ``perturb`` run no other hash seed for it."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return True
    views = set_ops = False
    for node in ast.walk(tree):
        if isinstance(node, (ast.Set, ast.SetComp)):
            return True
        if isinstance(node, ast.Name) and node.id in _HASH_NAMES:
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name in _HASH_NAMES:
            return True
        if isinstance(node, ast.Attribute):
            if node.attr in _HASH_NAMES or node.attr.startswith("__"):
                return True
            views = views or node.attr in ("keys", "items")
        elif isinstance(node, (ast.BinOp, ast.AugAssign)):
            set_ops = set_ops or isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor, ast.Sub))
        elif isinstance(node, ast.Import):
            if any(a.name not in _HASH_FREE_MODULES for a in node.names):
                return True
        elif isinstance(node, ast.ImportFrom):
            if node.level or node.module not in _HASH_FREE_MODULES \
                    or any(a.name == "*" or a.name in _HASH_NAMES for a in node.names):
                return True
    if views and set_ops:
        return True
    for text in inputs:
        try:
            tree = ast.parse(f"({text},)", mode="eval")
        except SyntaxError:
            return True
        if any(isinstance(n, (ast.Set, ast.SetComp, ast.Call, ast.Name)) for n in ast.walk(tree)):
            return True
    return False


def _same_class_run(a: Outcome, b: Outcome) -> bool:
    """Same status, exception class, stdout and result: the same repr, or, for results whose
    reprs both read back as equal literals, the same fingerprint (the same value of the same
    types: ``{'a', 'b'}`` and ``{'b', 'a'}``; not ``['a', 'b']`` and ``['b', 'a']``)."""
    ea = a.exception.type if a.exception is not None else None
    eb = b.exception.type if b.exception is not None else None
    if not (a.status == b.status and ea == eb and a.stdout == b.stdout):
        return False
    if a.value_repr == b.value_repr:
        return True
    return a.status == "returned" and a.literal_ok and b.literal_ok and a.fingerprint is not None \
        and a.fingerprint == b.fingerprint and a.args_fingerprint == b.args_fingerprint


def hash_stable(sandbox: Sandbox, code: str, entry: str, inputs: Sequence[str], outcomes: Sequence[Outcome],
                seeds: int = HASH_SEEDS, same: Callable[[Outcome, Outcome], bool] = _same_class_run,
                input_kind: str = "args") -> list[bool]:
    """For each input, whether the program's outcome under ``PYTHONHASHSEED`` 1..``seeds``
    (relative to the sandbox's) equals ``outcomes[i]`` by ``same`` (default: status,
    exception class, stdout, and the result's repr or, for results whose reprs read back
    as equal literals, its value: a set of strings printed in another order is the same
    result; a caller that records exception messages and
    lines passes a stricter test); ``input_kind``: what ``inputs`` are
    (:func:`~codemorph.sandbox.request_for`).  One sandbox batch per seed.  Returns a list of bools,
    one per input."""
    ok = [True] * len(inputs)
    for extra in range(1, seeds + 1):
        idx = [i for i in range(len(inputs)) if ok[i]]
        if not idx:
            break
        outs = sandbox.run_batch([request_for(code, entry, input_kind, inputs[i]) for i in idx],
                                 hash_seed=sandbox.hash_seed + extra)
        for i, b in zip(idx, outs):
            if not same(outcomes[i], b):
                ok[i] = False
    return ok
