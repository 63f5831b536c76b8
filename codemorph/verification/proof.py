"""Proof mode: prove with Z3 that a rewrite's changed region is equivalent to the original.

The two programs' libcst trees are walked in parallel down to the smallest pair of nodes
that differ (everything else is identical, so equivalence of that pair implies equivalence
of the programs).  Three shapes are handled:

* two expressions (e.g. ``(2 - 2)`` for ``0``, ``b > a`` for ``a < b``, a simplified
  condition): ``original == rewritten`` is proved valid;
* an ``if``/``else`` whose branches were exchanged (invert-if): ``original test ==
  not rewritten test`` is proved valid;
* an ``if c: A`` without ``else`` ending a loop body or a function, written as the guard
  clause ``if c2: continue`` / ``if c2: return`` followed by ``A``'s statements (invert-if):
  ``c == not c2`` is proved valid (``continue`` at the end of a loop body and a bare
  ``return`` at the end of a function are falling off it);
* statements inserted into a block, each an ``if``/``while`` without ``else`` whose test
  is an opaque predicate: the test is proved constantly false (the inserted code never
  runs), and evaluating it can neither fail nor have effects.

The fragment translated to Z3 (de Moura and Bjørner, "Z3: An Efficient SMT Solver",
TACAS 2008), by the kit's translator (:class:`codemorph.authoring.Z3Terms`): integer and
boolean constants and variables, ``+ - *``, ``//`` and ``%`` by a nonzero integer literal
(Python's floor semantics, also for negative operands), comparisons (chains
included), ``and``/``or``/``not`` and conditional expressions over booleans, string
constants and variables with ``+``, ``==``/``!=`` and ``len``; ``len(x)`` of an exact
list/tuple/dict/set as a non-negative integer; ``type(x) is T`` decided by the observed
type; ``A in B``/``A is B`` (and their negations) as opaque boolean atoms.  A variable's
sort is its observed type (``int``, ``bool`` or ``str``, exactly one), so a proof holds
*under the types observed* on the verification inputs, and the verdict says so.
Anything else is refused with a reason, and verification falls back to testing.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

import libcst as cst

from codemorph.authoring.z3terms import Untranslatable, Z3Terms, load_z3
from codemorph.engine.program import Program

__all__ = ["ProofResult", "observed_types", "prove_rewrite", "prove_equal"]

_SIZED = {"list", "tuple", "dict", "set", "frozenset", "str"}
_TYPE_NAMES = {"int", "bool", "str", "list", "tuple", "dict", "set", "frozenset", "float", "bytes"}


@dataclass(frozen=True)
class ProofResult:
    """Outcome of a proof attempt.

    Attributes:
        proved: ``True`` when Z3 proved the claim valid.
        reason: what was proved (and under which observed types), or why no proof was made
            (outside the fragment, a counter-model, a solver timeout).
    """

    proved: bool
    reason: str


#: refusals of proof mode are the kit translator's (one exception for "outside the fragment")
_Refuse = Untranslatable


def observed_types(outcomes: Iterable[Any]) -> dict[str, dict[str, set[str]]]:
    """Union of ``Outcome.types`` (``{function qualname: {local: [type names]}}``) over
    traced outcomes, as ``{qualname: {local: set of type names}}``."""
    merged: dict[str, dict[str, set[str]]] = {}
    for o in outcomes:
        for fn, names in (getattr(o, "types", None) or {}).items():
            d = merged.setdefault(fn, {})
            for n, ts in names.items():
                d.setdefault(n, set()).update(ts)
    return merged


# ------------------------------------------------------------------------- translation
class _Z3(Z3Terms):
    """Translate a libcst expression into a Z3 term over variables typed by observation
    (the kit's :class:`~codemorph.authoring.Z3Terms`, with names, ``len`` and opaque
    ``in``/``is`` atoms as proof mode reads them)."""

    def __init__(self, z3: Any, types: Mapping[str, set[str]], shadowed: set[str]) -> None:
        super().__init__(z3, division="literal", booleans=True, strings=True)
        self.types = types
        self.shadowed = shadowed
        self.vars: dict[str, Any] = {}
        self.atoms: dict[str, Any] = {}
        self.side: list[Any] = []  # facts about the variables (lengths are >= 0)
        self.names: list[str] = []  # names read, in evaluation order
        self.atom_order: list[str] = []

    def _type(self, name: str) -> str:
        ts = self.types.get(name)
        if not ts or len(ts) != 1:
            raise _Refuse(f"no single observed type for {name!r} ({sorted(ts) if ts else 'not observed'})")
        return next(iter(ts))

    def name(self, node: cst.Name) -> Any:
        return self.var(node.value)

    def var(self, name: str) -> Any:
        z3 = self.z3
        self.names.append(name)
        if name in self.vars:
            return self.vars[name]
        t = self._type(name)
        if t == "int":
            v = z3.Int(name)
        elif t == "bool":
            v = z3.Bool(name)
        elif t == "str":
            v = z3.String(name)
        else:
            raise _Refuse(f"{name!r} has type {t}, outside the Z3 fragment")
        self.vars[name] = v
        return v

    def _builtin(self, name: str) -> None:
        if name in self.shadowed:
            raise _Refuse(f"the program rebinds the builtin {name!r}")

    def call(self, node: cst.Call) -> Any:
        z3 = self.z3
        if isinstance(node.func, cst.Name) and node.func.value == "len" and len(node.args) == 1 \
                and node.args[0].keyword is None and not node.args[0].star:
            self._builtin("len")
            arg = node.args[0].value
            if isinstance(arg, cst.Name):
                t = self._type(arg.value)
                self.names.append(arg.value)
                if t == "str":
                    return z3.Length(self.var(arg.value))
                if t in _SIZED:
                    key = f"len({arg.value})"
                    if key not in self.vars:
                        self.vars[key] = z3.Int(key)
                        self.side.append(self.vars[key] >= 0)
                    return self.vars[key]
            x = self(arg)
            if z3.is_string(x):
                return z3.Length(x)
            raise _Refuse("len() of something other than an exact str/list/tuple/dict/set")
        raise _Refuse("call outside the Z3 fragment")

    def atom(self, left: cst.BaseExpression, op: str, right: cst.BaseExpression) -> Any:
        key = f"{cst.Module([]).code_for_node(left)} {op} {cst.Module([]).code_for_node(right)}"
        for side in (left, right):  # names read by the atom (for the unbound-name rule)
            for n in _names(side):
                self.names.append(n)
        self.atom_order.append(key)
        if key not in self.atoms:
            self.atoms[key] = self.z3.Bool(f"[{key}]")
        return self.atoms[key]

    def type_test(self, left: cst.BaseExpression, right: cst.BaseExpression) -> Any | None:
        """``type(x) is T`` with ``x`` a name of one observed type: a constant."""
        if isinstance(left, cst.Call) and isinstance(left.func, cst.Name) and left.func.value == "type" \
                and len(left.args) == 1 and isinstance(left.args[0].value, cst.Name) \
                and isinstance(right, cst.Name) and right.value in _TYPE_NAMES:
            self._builtin("type")
            self._builtin(right.value)
            name = left.args[0].value.value
            self.names.append(name)
            return self.z3.BoolVal(self._type(name) == right.value)
        return None


def _names(node: cst.CSTNode) -> list[str]:
    out: list[str] = []

    class V(cst.CSTVisitor):
        def visit_Name(self, n: cst.Name) -> None:
            out.append(n.value)

    node.visit(V())
    return out


# ------------------------------------------------------------------------------ diff
def _diff(a: cst.CSTNode, b: cst.CSTNode, path: list[cst.CSTNode]):
    """Smallest differing pair ``(a, b, ancestors)``, or ``None`` when the trees are equal."""
    while True:
        if a.deep_equals(b):
            return None
        if type(a) is not type(b):
            return a, b, path
        ca, cb = a.children, b.children
        if len(ca) != len(cb):
            return a, b, path
        diffs = [i for i in range(len(ca)) if not ca[i].deep_equals(cb[i])]
        if len(diffs) != 1:
            return a, b, path
        path = path + [a]
        a, b = ca[diffs[0]], cb[diffs[0]]


def _scope(path: Sequence[cst.CSTNode]) -> tuple[str, cst.FunctionDef]:
    """Qualname of the innermost function around the region (as the tracer names it)."""
    names: list[str] = []
    fn = None
    for node in path:
        if isinstance(node, (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)):
            raise _Refuse("the changed region is inside a lambda or comprehension")
        if isinstance(node, cst.FunctionDef):
            if names and fn is not None:
                names.append("<locals>")
            names.append(node.name.value)
            fn = node
        elif isinstance(node, cst.ClassDef):
            names.append(node.name.value)
    if fn is None:
        raise _Refuse("the changed region is not inside a function")
    return ".".join(names), fn


def _bound_names(module: cst.Module) -> set[str]:
    """Every name the program binds anywhere (to detect rebound builtins such as ``len``)."""
    tree = ast.parse(module.code)
    out: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            out.add(n.id)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
        elif isinstance(n, ast.arg):
            out.add(n.arg)
        elif isinstance(n, ast.alias):
            out.add((n.asname or n.name).split(".")[0])
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            out.update(n.names)
    return out


def _params(fn: cst.FunctionDef) -> set[str]:
    p = fn.params
    out = {x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params)}
    for star in (p.star_arg, p.star_kwarg):
        if isinstance(star, cst.Param):
            out.add(star.name.value)
    return out


def _deleted(fn: cst.FunctionDef) -> set[str]:
    out: set[str] = set()

    class V(cst.CSTVisitor):
        def visit_Del(self, n: cst.Del) -> None:
            out.update(_names(n.target))

    fn.visit(V())
    return out


def _branch(node: cst.CSTNode | None) -> cst.CSTNode | None:
    """The block of an if/else branch, ``None`` for a missing branch or one that is only
    ``pass`` (the two behave the same)."""
    if isinstance(node, cst.Else):
        node = node.body
    if node is None:
        return None
    body = getattr(node, "body", None)
    if isinstance(node, cst.IndentedBlock) and all(
            isinstance(s, cst.SimpleStatementLine) and all(isinstance(x, cst.Pass) for x in s.body) for s in body):
        return None
    if isinstance(node, cst.SimpleStatementSuite) and all(isinstance(x, cst.Pass) for x in node.body):
        return None
    return node


def _same_branch(x: cst.CSTNode | None, y: cst.CSTNode | None) -> bool:
    if x is None or y is None:
        return x is None and y is None
    return x.deep_equals(y)


def _guard_clause(block_a: cst.IndentedBlock, block_b: cst.IndentedBlock,
                  owner: cst.CSTNode | None) -> tuple[cst.If, cst.If] | None:
    """``(if c: A, guard)`` when ``block_b`` is ``block_a`` with its last statement, an
    ``if c: A`` without ``else``, written as a guard clause: ``if c2: continue`` (``owner``
    a loop whose body is ``block_a``) or ``if c2: return`` (a function's body), then ``A``'s
    statements unchanged; else ``None``."""
    a, b = list(block_a.body), list(block_b.body)
    if not a or not isinstance(a[-1], cst.If) or a[-1].orelse is not None or len(b) < len(a) + 1:
        return None
    if isinstance(owner, (cst.For, cst.While)) and owner.body is block_a:
        exit_kind: type = cst.Continue
    elif isinstance(owner, cst.FunctionDef) and owner.body is block_a:
        exit_kind = cst.Return
    else:
        return None
    original, guard = a[-1], b[len(a) - 1]
    if not all(x.deep_equals(y) for x, y in zip(a[:-1], b)):
        return None
    if not isinstance(guard, cst.If) or guard.orelse is not None:
        return None
    exits = guard.body.body if isinstance(guard.body, cst.SimpleStatementSuite) else [
        small for line in guard.body.body for small in getattr(line, "body", [None])]
    if len(exits) != 1 or not isinstance(exits[0], exit_kind) or getattr(exits[0], "value", None) is not None:
        return None
    rest = b[len(a):]
    if isinstance(original.body, cst.SimpleStatementSuite):
        same = (len(rest) == 1 and isinstance(rest[0], cst.SimpleStatementLine)
                and len(rest[0].body) == len(original.body.body)
                and all(x.deep_equals(y) for x, y in zip(original.body.body, rest[0].body)))
    else:
        same = len(rest) == len(original.body.body) and all(
            x.deep_equals(y) for x, y in zip(original.body.body, rest))
    return (original, guard) if same else None


def _empty_iterable(node: cst.BaseExpression, shadowed: set[str]) -> bool:
    """``()``, ``[]``, ``''``, ``range(0)``: iterating over it runs nothing and cannot fail."""
    if isinstance(node, (cst.Tuple, cst.List)) and not node.elements:
        return True
    if isinstance(node, cst.SimpleString) and node.evaluated_value in ("", b""):
        return True
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "range" \
        and "range" not in shadowed and len(node.args) == 1 and isinstance(node.args[0].value, cst.Integer) \
        and node.args[0].keyword is None and not node.args[0].star and int(node.args[0].value.evaluated_value) <= 0


def _valid(z3: Any, claim: Any, side: Sequence[Any], timeout_ms: int) -> tuple[bool, str]:
    s = z3.Solver()
    s.set("timeout", timeout_ms)
    s.add(*side)
    s.add(z3.Not(claim))
    r = s.check()
    if r == z3.unsat:
        return True, ""
    if r == z3.sat:
        return False, f"counter-model {s.model()}"
    return False, f"solver gave {r} ({s.reason_unknown()})"


def _observed(types: Mapping[str, set[str]], names: Iterable[str]) -> str:
    shown = sorted({n for n in names if n in types and "(" not in n})
    return ", ".join(f"{n}: {'|'.join(sorted(types[n]))}" for n in shown) or "no variables"


def _names_safe(tr: list[_Z3], fn: cst.FunctionDef) -> str | None:
    """Why evaluating the names could fail differently in the two versions, or ``None``.

    Safe when every name read is a parameter never deleted (always bound), or when both
    sides read the same names unconditionally (an unbound name then fails in both with
    the same exception class) and evaluate their opaque atoms in the same order."""
    params = _params(fn) - _deleted(fn)
    read = [set(t.names) for t in tr]
    if all(r <= params for r in read) and all(not t.atoms for t in tr):
        return None
    if any(t.short_circuit for t in tr):
        return "short-circuit evaluation over names that may be unbound or atoms that may have effects"
    if len(tr) == 2 and (read[0] != read[1] or tr[0].atom_order != tr[1].atom_order):
        return "the two versions read different names or evaluate different atoms"
    return None


def prove_equal(original: cst.BaseExpression, rewritten: cst.BaseExpression, types: Mapping[str, set[str]], *,
                shadowed: set[str] = frozenset(), negate: bool = False, timeout_ms: int = 2000) -> ProofResult:
    """Prove ``original == rewritten`` (``== not rewritten`` with ``negate``) for every value
    of the variables of the given types.

    Args:
        original, rewritten: libcst expressions (``cst.parse_expression`` of a string works).
        types: ``{variable name: set of observed type names}``; a variable needs exactly one
            of ``int``, ``bool``, ``str`` (lists, tuples, dicts and sets only under ``len``).
        shadowed: names the program rebinds (``len``, ``type`` ... are then not builtins).
        negate: prove the rewritten expression is the negation of the original.
        timeout_ms: Z3 time limit, milliseconds.

    Returns:
        A :class:`ProofResult`; not proved when outside the fragment, when the two sides
        have different sorts, or when Z3 finds a counter-model or times out.
    """
    z3 = load_z3()

    tr = _Z3(z3, types, set(shadowed))
    try:
        a = tr(original)
        b = tr(rewritten)
    except _Refuse as exc:
        return ProofResult(False, str(exc))
    if a.sort() != b.sort():
        return ProofResult(False, f"the two expressions have different types ({a.sort()} vs {b.sort()})")
    if negate:
        if not z3.is_bool(a):
            return ProofResult(False, "negation of a non-boolean condition")
        b = z3.Not(b)
    ok, why = _valid(z3, a == b, tr.side, timeout_ms)
    m = cst.Module([])
    what = f"{m.code_for_node(original)!s} == {'not ' if negate else ''}({m.code_for_node(rewritten)})"
    if ok:
        return ProofResult(True, f"Z3 proved {what} under the observed types ({_observed(types, tr.names)})")
    return ProofResult(False, f"Z3 did not prove {what}: {why}")


def _prove_inserted(old: Sequence[cst.CSTNode], new: Sequence[cst.CSTNode], types: Mapping[str, set[str]],
                    shadowed: set[str], fn: cst.FunctionDef, timeout_ms: int) -> ProofResult:
    z3 = load_z3()

    n = len(new) - len(old)
    if n <= 0:
        raise _Refuse("statements were removed or replaced, not inserted")
    start = 0
    while start < len(old) and old[start].deep_equals(new[start]):
        start += 1
    inserted = list(new[start:start + n])
    if not all(x.deep_equals(y) for x, y in zip(old[start:], new[start + n:])):
        raise _Refuse("the block changed beyond inserted statements")
    params = _params(fn) - _deleted(fn)
    proved = []
    for stmt in inserted:
        if isinstance(stmt, cst.For) and stmt.orelse is None and _empty_iterable(stmt.iter, shadowed):
            proved.append(f"the loop over {cst.Module([]).code_for_node(stmt.iter)} never iterates")
            continue
        if not isinstance(stmt, (cst.If, cst.While)) or stmt.orelse is not None:
            raise _Refuse(f"inserted {type(stmt).__name__} is not an if/while without else")
        tr = _Z3(z3, types, shadowed)
        try:
            t = tr(stmt.test)
        except _Refuse as exc:
            raise _Refuse(f"opaque predicate: {exc}") from None
        if not z3.is_bool(t):
            raise _Refuse("the inserted test is not a boolean")
        if tr.atoms or not set(tr.names) <= params:
            raise _Refuse("the inserted test reads names that may be unbound or atoms that may have effects")
        ok, why = _valid(z3, z3.Not(t), tr.side, timeout_ms)
        code = cst.Module([]).code_for_node(stmt.test)
        if not ok:
            raise _Refuse(f"Z3 did not prove the inserted test {code!r} constantly false: {why}")
        proved.append(f"{code} is always false ({_observed(types, tr.names)})")
    return ProofResult(True, "Z3 proved the inserted code never runs: " + "; ".join(proved)
                       + " under the observed types")


def _prove_tests(a: cst.BaseExpression, b: cst.BaseExpression, local: dict, shadowed: set[str],
                 fn: cst.FunctionDef | None, timeout_ms: int, *, negate: bool) -> ProofResult:
    """Translate the expressions ``a`` (original) and ``b`` (rewritten) to Z3, check that
    the names they read are safe (:func:`_names_safe`), then prove ``a == b`` (``negate``:
    ``a == not b``, an inverted test) with :func:`prove_equal`; a refusal at any step is the
    result's reason."""
    z3 = load_z3()
    tr = [_Z3(z3, local, shadowed), _Z3(z3, local, shadowed)]
    try:
        tr[0](a)
        tr[1](b)
    except _Refuse as exc:
        return ProofResult(False, str(exc))
    unsafe = _names_safe(tr, fn)
    if unsafe:
        return ProofResult(False, unsafe)
    return prove_equal(a, b, local, shadowed=shadowed, negate=negate, timeout_ms=timeout_ms)


def prove_rewrite(original: Program, rewritten: Program, types: Mapping[str, Mapping[str, set[str]]], *,
                  timeout_ms: int = 2000) -> ProofResult:
    """Prove that ``rewritten`` behaves as ``original`` by proving its changed region.

    Args:
        original, rewritten: the two programs.
        types: observed local types per function qualname (:func:`observed_types` of traced
            outcomes of the rewritten program).
        timeout_ms: Z3 time limit per query, milliseconds.

    Returns:
        A :class:`ProofResult`; ``proved=False`` with a reason when the region is not one
        of the shapes described in the module docstring or not in the Z3 fragment.
    """
    found = _diff(original.module, rewritten.module, [])
    if found is None:
        return ProofResult(False, "the two programs have identical syntax trees (nothing to prove)")
    a, b, path = found
    try:
        qual, fn = _scope(path + [a])
        local = {k: set(v) for k, v in types.get(qual, {}).items()}
        shadowed = _bound_names(original.module) | _bound_names(rewritten.module)
        if isinstance(a, cst.BaseExpression) and isinstance(b, cst.BaseExpression):
            if path and isinstance(path[-1], (cst.AssignTarget, cst.AugAssign, cst.For, cst.Del)) \
                    and not isinstance(path[-1], cst.For):
                raise _Refuse("the changed expression is an assignment target")
            return _prove_tests(a, b, local, shadowed, fn, timeout_ms, negate=False)
        if isinstance(a, cst.If) and isinstance(b, cst.If) and not isinstance(a.orelse, cst.If) \
                and not isinstance(b.orelse, cst.If):
            if not (_same_branch(_branch(a.body), _branch(b.orelse))
                    and _same_branch(_branch(a.orelse), _branch(b.body))):
                raise _Refuse("if/else changed beyond exchanging the branches")
            return _prove_tests(a.test, b.test, local, shadowed, fn, timeout_ms, negate=True)
        guarded = (_guard_clause(a, b, path[-1] if path else None)
                   if isinstance(a, cst.IndentedBlock) and isinstance(b, cst.IndentedBlock) else None)
        if guarded is not None:
            original, guard = guarded
            return _prove_tests(original.test, guard.test, local, shadowed, fn, timeout_ms, negate=True)
        body_a = getattr(a, "body", None)
        body_b = getattr(b, "body", None)
        if isinstance(a, (cst.IndentedBlock, cst.Module)) and type(a) is type(b) \
                and isinstance(body_a, Sequence) and isinstance(body_b, Sequence):
            return _prove_inserted(body_a, body_b, local, shadowed, fn, timeout_ms)
        raise _Refuse(f"the changed region ({type(a).__name__} -> {type(b).__name__}) is not an expression, "
                      f"an exchanged if/else, a guard clause or inserted dead code")
    except _Refuse as exc:
        return ProofResult(False, str(exc))
