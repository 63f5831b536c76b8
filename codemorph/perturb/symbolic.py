"""Symbolic strategies: direct Z3 solving of simple raising conditions, and CrossHair.

**Z3** (de Moura and Bjørner 2008, "Z3: An efficient SMT solver").  :func:`z3_candidates`
reads the entry function with libcst and translates integer arithmetic over its
parameters into Z3 terms (with the kit's :class:`codemorph.authoring.Z3Terms`, so ``//``
and ``%`` keep Python's floor semantics for negative operands): integer parameters are Z3 integers, ``len(p)`` of a string,
list or tuple parameter is a non-negative Z3 integer, straight-line local assignments are
substituted, and the loop variable of ``for i in range(a, b)`` / ``for i, _ in
enumerate(p)`` is an integer bounded by the range.  Each raising site whose operands
translate becomes one constraint:

* ``x / e``, ``x // e``, ``x % e``, ``divmod(x, e)``: ``e == 0`` (ZeroDivisionError);
* ``p[e]`` and ``p.pop(e)`` for a sequence parameter ``p``, and ``'literal'[e]``,
  ``[a, b, c][e]``: ``e >= len(p) or e < -len(p)`` (IndexError);
* ``chr(e)``: ``e < 0 or e > 0x10FFFF``; ``range(a, b, e)``: ``e == 0`` (ValueError);
* ``assert c``: ``not c``; ``if c: raise ...``: ``c``.

Path conditions are ignored (the constraint is necessary, not sufficient): every solution
is only a *candidate*, run in the sandbox like any other.  Among the solutions Z3's
optimizer picks the one nearest the seed (least total absolute change of the integer
parameters and lengths).  A sequence parameter whose length changes is truncated, or
extended by repeating its own elements.

Z3's effort is bounded by its deterministic *resource limit* (the ``rlimit`` parameter,
counted in Z3's internal work units, not in time), so the candidates, and hence the
search's rows, are the same on an idle and on a loaded machine: :data:`Z3_RLIMIT` per
``check`` and :data:`Z3_RLIMIT_TOTAL` per :func:`z3_candidates` call.  On the 800
CRUXEval programs the costliest check uses 1.6 million units (0.08 CPU seconds), a
third of :data:`Z3_RLIMIT`, so every check there ends with an answer.  A wall-clock
timeout (:data:`Z3_SAFETY_TIMEOUT_MS`) remains only as a safety net against a solver
that would stall between resource checks; it is far above what the resource limits
allow on a working machine (a loaded one included), so it does not decide results.

**CrossHair** (Schanely, crosshair-tool, which drives Z3 through symbolic proxies of Python
values).  :func:`crosshair_candidates` runs CrossHair's path-cover search on the entry
function, with parameter annotations inferred from the seed input, in codemorph's one
CrossHair runner (:func:`codemorph.verification.crosshair.crosshair_inputs`): a separate
Python process in its own session and temporary directory, under address-space, CPU and
hard wall-clock limits, with the sandbox's guard (:mod:`codemorph.sandbox.guard`) installed
once CrossHair and Z3 are loaded (all of it but ctypes, which Z3 needs).  The inputs it
reports are candidates, re-run in the sandbox like any other.  It needs
``pip install codemorph[crosshair]``; without it the strategy finds nothing
(:func:`crosshair_problem` says so).  Programs
:func:`codemorph.sandbox.determinism.nondeterminism_source` flags are not searched.
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from codemorph.authoring.z3terms import Untranslatable, Z3Terms, load_z3
from codemorph.engine.program import Program
from codemorph.verification.crosshair import crosshair_available, crosshair_inputs, infer_annotation  # noqa: F401

__all__ = ["z3_candidates", "crosshair_candidates", "crosshair_available", "crosshair_problem", "infer_annotation",
           "Z3_RLIMIT", "Z3_RLIMIT_TOTAL", "Z3_SAFETY_TIMEOUT_MS"]

#: Z3 resource limit per ``Optimize.check`` (Z3's deterministic work units; roughly 20
#: million per CPU second on a 2020s x86 core): three times the costliest check on the
#: CRUXEval programs
Z3_RLIMIT = 5_000_000
#: Z3 resource limit over one :func:`z3_candidates` call (all its constraints); once
#: spent, no further constraint is solved
Z3_RLIMIT_TOTAL = 60_000_000
#: wall-clock safety net per ``check``, in milliseconds (see the module docstring)
Z3_SAFETY_TIMEOUT_MS = 20_000

_MAX_CHR = 0x10FFFF


_Untranslatable = Untranslatable


def _entry_function(program: Program) -> cst.FunctionDef | None:
    for s in program.module.body:
        if isinstance(s, cst.FunctionDef) and s.name.value == program.entry_point:
            return s
    return None


class _Assigned(cst.CSTVisitor):
    """How many times each local name is bound inside the function."""

    def __init__(self) -> None:
        self.count: dict[str, int] = {}
        self.mutated: set[str] = set()

    def _bind(self, node: cst.CSTNode) -> None:
        if isinstance(node, cst.Name):
            self.count[node.value] = self.count.get(node.value, 0) + 1
        elif isinstance(node, (cst.Tuple, cst.List)):
            for el in node.elements:
                self._bind(el.value)
        elif isinstance(node, cst.StarredElement):
            self._bind(node.value)
        elif isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name):
            self.mutated.add(node.value.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._bind(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind(node.target)
        self._bind(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._bind(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._bind(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._bind(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind(node.target)

    def visit_Call(self, node: cst.Call) -> None:
        f = node.func
        if isinstance(f, cst.Attribute) and isinstance(f.value, cst.Name) and f.attr.value in (
                "append", "pop", "insert", "remove", "extend", "clear"):
            self.mutated.add(f.value.value)


class _Translator(Z3Terms):
    """The kit's :class:`~codemorph.authoring.Z3Terms` over the entry function's integer
    parameters, lengths of its sequence parameters, substituted locals and loop variables
    (integers only: ``True``/``False`` are 1 and 0; any divisor, with Python's floor
    semantics)."""

    def __init__(self, z3: Any, params: dict[str, Any], seed_values: dict[str, Any], assigned: _Assigned) -> None:
        super().__init__(z3, division="any", booleans=False, strings=False)
        self.ints: dict[str, Any] = {}      # int parameter -> z3 Int
        self.lens: dict[str, Any] = {}      # sequence parameter -> z3 Int (its length)
        self.locals: dict[str, Any] = {}    # substituted locals and loop variables
        self.domains: list[Any] = []        # constraints of loop variables
        self.assigned = assigned
        for name, value in seed_values.items():
            if assigned.count.get(name, 0):
                continue  # reassigned parameter: its value at a site is unknown
            if isinstance(value, int) and not isinstance(value, bool):
                self.ints[name] = z3.Int(name)
            elif isinstance(value, (str, list, tuple, bytes)) and name not in assigned.mutated:
                self.lens[name] = z3.Int(f"len({name})")

    def expr(self, node: cst.BaseExpression) -> Any:
        """The integer term of ``node`` (raises :class:`~codemorph.authoring.Untranslatable`)."""
        return self.term(node)

    def cond(self, node: cst.BaseExpression) -> Any:
        """The boolean of ``node``'s truth value (see :meth:`Z3Terms.condition`)."""
        return self.condition(node)

    def name(self, node: cst.Name) -> Any:
        if node.value in self.locals:
            return self.locals[node.value]
        if node.value in self.ints:
            return self.ints[node.value]
        raise _Untranslatable(node.value)

    def call(self, node: cst.Call) -> Any:
        z3 = self.z3
        if isinstance(node.func, cst.Name):
            fname = node.func.value
            args = [a.value for a in node.args]
            if fname == "len" and len(args) == 1 and isinstance(args[0], cst.Name) and args[0].value in self.lens:
                return self.lens[args[0].value]
            if fname == "abs" and len(args) == 1:
                x = self.expr(args[0])
                return z3.If(x >= 0, x, -x)
            if fname in ("min", "max") and len(args) == 2:
                x, y = self.expr(args[0]), self.expr(args[1])
                return z3.If(x <= y, x, y) if fname == "min" else z3.If(x >= y, x, y)
        raise _Untranslatable(type(node).__name__)


class _Sites(cst.CSTVisitor):
    """Walks the entry function, keeping the translator's locals up to date, and collects
    (constraint, description) pairs."""

    def __init__(self, tr: _Translator) -> None:
        self.tr = tr
        self.found: list[tuple[Any, str]] = []
        self.loop_depth = 0

    def _try(self, make, what: str) -> None:
        try:
            c = make()
        except (_Untranslatable, Exception):
            return
        self.found.append((c, what))

    def visit_Assign(self, node: cst.Assign) -> None:
        if self.loop_depth or len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name):
            return
        name = node.targets[0].target.value
        if self.tr.assigned.count.get(name, 0) != 1:
            return
        try:
            self.tr.locals[name] = self.tr.expr(node.value)
        except (_Untranslatable, Exception):
            pass

    def visit_For(self, node: cst.For) -> None:
        self.loop_depth += 1
        z3 = self.tr.z3
        it = node.iter
        tgt = node.target
        if not isinstance(it, cst.Call) or not isinstance(it.func, cst.Name):
            return
        name = None
        if it.func.value == "range" and isinstance(tgt, cst.Name):
            name = tgt.value
            try:
                args = [self.tr.expr(a.value) for a in it.args]
            except (_Untranslatable, Exception):
                return
            if not 1 <= len(args) <= 3:
                return
            if len(args) == 3:
                lo, hi, step = args
                # a negative step counts down: hi < i <= lo
                dom = lambda v: z3.Or(z3.And(step > 0, lo <= v, v < hi), z3.And(step < 0, hi < v, v <= lo))
            else:
                lo, hi = (z3.IntVal(0), args[0]) if len(args) == 1 else args
                dom = lambda v: z3.And(lo <= v, v < hi)
        elif it.func.value == "enumerate" and isinstance(tgt, cst.Tuple) and len(tgt.elements) == 2 \
                and isinstance(tgt.elements[0].value, cst.Name) and len(it.args) == 1 \
                and isinstance(it.args[0].value, cst.Name) and it.args[0].value.value in self.tr.lens:
            name = tgt.elements[0].value.value
            length = self.tr.lens[it.args[0].value.value]
            dom = lambda v: z3.And(0 <= v, v < length)
        if name is None or self.tr.assigned.count.get(name, 0) != 1:
            return
        v = z3.Int(f"{name}@{len(self.tr.domains)}")
        self.tr.locals[name] = v
        self.tr.domains.append(dom(v))

    def leave_For(self, node: cst.For) -> None:
        self.loop_depth -= 1

    def visit_While(self, node: cst.While) -> None:
        self.loop_depth += 1

    def leave_While(self, node: cst.While) -> None:
        self.loop_depth -= 1

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, (cst.Divide, cst.FloorDivide, cst.Modulo)):
            self._try(lambda: self.tr.expr(node.right) == 0, "ZeroDivisionError")

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
            return
        z3 = self.tr.z3
        v = node.value
        if isinstance(v, cst.Name) and v.value in self.tr.lens:
            length = self.tr.lens[v.value]
        elif isinstance(v, cst.SimpleString):  # a string literal: its length is known
            try:
                length = z3.IntVal(len(v.evaluated_value))
            except Exception:
                return
        elif isinstance(v, (cst.List, cst.Tuple)) and not any(isinstance(e, cst.StarredElement) for e in v.elements):
            length = z3.IntVal(len(v.elements))
        else:
            return
        idx = node.slice[0].slice.value
        z3 = self.tr.z3
        self._try(lambda: (lambda e: z3.Or(e >= length, e < -length))(self.tr.expr(idx)), "IndexError")

    def visit_Call(self, node: cst.Call) -> None:
        z3 = self.tr.z3
        f = node.func
        args = [a.value for a in node.args]
        if isinstance(f, cst.Name):
            if f.value == "divmod" and len(args) == 2:
                self._try(lambda: self.tr.expr(args[1]) == 0, "ZeroDivisionError")
            elif f.value == "chr" and len(args) == 1:
                self._try(lambda: (lambda e: z3.Or(e < 0, e > _MAX_CHR))(self.tr.expr(args[0])), "ValueError")
            elif f.value == "range" and len(args) == 3:
                self._try(lambda: self.tr.expr(args[2]) == 0, "ValueError")
        elif isinstance(f, cst.Attribute) and f.attr.value == "pop" and isinstance(f.value, cst.Name) \
                and f.value.value in self.tr.lens and len(args) == 1:
            length = self.tr.lens[f.value.value]
            self._try(lambda: (lambda e: z3.Or(e >= length, e < -length))(self.tr.expr(args[0])), "IndexError")

    def visit_Assert(self, node: cst.Assert) -> None:
        self._try(lambda: self.tr.z3.Not(self.tr.cond(node.test)), "AssertionError")

    def visit_If(self, node: cst.If) -> None:
        body = node.body.body if isinstance(node.body, cst.IndentedBlock) else node.body.body
        raises = any(isinstance(s, cst.SimpleStatementLine) and any(isinstance(x, cst.Raise) for x in s.body)
                     for s in body)
        if raises:
            self._try(lambda: self.tr.cond(node.test), "raise")


def _rlimit_count(opt: Any) -> int:
    """Resource units a Z3 solver or optimizer has counted so far (its ``rlimit count``
    statistic; 0 before the first check)."""
    try:
        return int(opt.statistics().get_key_value("rlimit count"))
    except Exception:  # no such statistic yet
        return 0


def _resize(value: Any, n: int) -> Any:
    if n <= len(value):
        return value[:n]
    if not value:
        if isinstance(value, str):
            return "a" * n
        return None  # unknown element type: cannot grow type-preservingly
    reps = (n + len(value) - 1) // len(value)
    return (value * reps)[:n]


def z3_candidates(program: Program, seed_args: tuple[list, dict], max_candidates: int = 24,
                  rlimit: int = Z3_RLIMIT, rlimit_total: int = Z3_RLIMIT_TOTAL,
                  timeout_ms: int = Z3_SAFETY_TIMEOUT_MS) -> list[tuple[list, dict]]:
    """Candidate argument lists solved from the entry function's raising conditions
    (see the module docstring).

    Args:
        program: the program (its entry function is analysed; nothing is executed).
        seed_args: the parsed seed input ``(args, kwargs)``.
        max_candidates: most candidates returned.
        rlimit: Z3 resource limit per solver check (deterministic work units; see
            :data:`Z3_RLIMIT`).  A check that exhausts it answers "unknown" and its
            constraint gives no candidate.
        rlimit_total: resource limit over the whole call (:data:`Z3_RLIMIT_TOTAL`).
        timeout_ms: wall-clock safety net per check, in milliseconds; not meant to decide
            results (:data:`Z3_SAFETY_TIMEOUT_MS`).

    Returns:
        Type-preserving argument lists (possibly none), nearest the seed first per site.
        The same program and seed give the same list whatever the machine's load.
    """
    z3 = load_z3()

    fn = _entry_function(program)
    if fn is None:
        return []
    pos, kw = seed_args
    params = [p.name.value for p in fn.params.params]
    seed_values: dict[str, Any] = {}
    for i, p in enumerate(params):
        if i < len(pos):
            seed_values[p] = pos[i]
        elif p in kw:
            seed_values[p] = kw[p]
    assigned = _Assigned()
    fn.body.visit(assigned)
    tr = _Translator(z3, {}, seed_values, assigned)
    if not tr.ints and not tr.lens:
        return []
    sites = _Sites(tr)
    fn.body.visit(sites)
    out: list[tuple[list, dict]] = []
    seen: set[str] = set()
    spent = 0  # resource units used by this call's checks
    for constraint, _what in sites.found:
        if len(out) >= max_candidates or spent >= rlimit_total:
            break
        opt = z3.Optimize()
        opt.set("timeout", timeout_ms)
        opt.add(constraint)
        for d in tr.domains:
            opt.add(d)
        cost = []
        for name, v in tr.ints.items():
            sv = seed_values[name]
            opt.add(v >= -10**6, v <= 10**6)
            cost.append(z3.If(v >= sv, v - sv, sv - v))
        for name, v in tr.lens.items():
            sv = len(seed_values[name])
            opt.add(v >= 0, v <= sv + 8)
            cost.append(z3.If(v >= sv, v - sv, sv - v))
        opt.minimize(z3.Sum(cost) if cost else z3.IntVal(0))
        # ties on the distance are broken lexicographically (smallest values, in name order),
        # so the optimum is unique and the result does not depend on Z3's internal state
        for name in sorted(tr.ints):
            opt.minimize(tr.ints[name])
        for name in sorted(tr.lens):
            opt.minimize(tr.lens[name])
        for _ in range(2):  # the nearest solution, then one other
            # ``rlimit`` is relative to the units already counted when the check starts
            budget = min(rlimit, rlimit_total - spent)
            if budget <= 0:
                break
            opt.set("rlimit", budget)
            before = _rlimit_count(opt)
            try:
                answer = opt.check()
            except z3.Z3Exception:
                break
            finally:
                spent += max(0, _rlimit_count(opt) - before)
            if answer != z3.sat:
                break
            m = opt.model()
            values = dict(seed_values)
            ok = True
            for name, v in tr.ints.items():
                values[name] = m.eval(v, model_completion=True).as_long()
            for name, v in tr.lens.items():
                n = m.eval(v, model_completion=True).as_long()
                grown = _resize(seed_values[name], n)
                if grown is None:
                    ok = False
                    break
                values[name] = grown
            block = [v != m.eval(v, model_completion=True) for v in list(tr.ints.values()) + list(tr.lens.values())]
            if block:
                opt.add(z3.Or(*block))
            if not ok:
                continue
            new_pos = [values.get(params[i], pos[i]) if i < len(params) else pos[i] for i in range(len(pos))]
            new_kw = {k: values.get(k, v) for k, v in kw.items()}
            key = repr((new_pos, new_kw))
            if key not in seen and (new_pos, new_kw) != (pos, kw):
                seen.add(key)
                out.append((new_pos, new_kw))
    return out


# -- CrossHair ------------------------------------------------------------------------

def crosshair_problem(sandbox: Any) -> str | None:
    """Why the CrossHair strategy cannot run (``None`` when it can): CrossHair is not
    installed.  (``sandbox`` is accepted for compatibility: the search runs in the guarded
    CrossHair process of :mod:`codemorph.verification.crosshair`, not in the sandbox.)"""
    if not crosshair_available():
        return "crosshair is not installed (pip install codemorph[crosshair])"
    return None


def crosshair_candidates(sandbox: Any, program: Program, seed_args: tuple[list, dict],
                         seconds: float = 10.0) -> list[tuple[list, dict]]:
    """Inputs CrossHair's path-cover search finds for the entry function, with annotations
    inferred from ``seed_args`` (``(positional values, keyword values)``): the one guarded
    CrossHair runner, :func:`codemorph.verification.crosshair.crosshair_inputs`, with a
    hard wall-clock limit of ``seconds`` and the address-space limit of ``sandbox``'s limits
    (at least 4 GiB).  Returns ``[]`` when CrossHair is not installed, no annotation fits
    the seed or the program is one the search process is not given.  The caller re-runs
    every candidate in the sandbox."""
    return crosshair_inputs(program, seed_args, seconds=seconds, memory=max(sandbox.limits.memory, 4 << 30))
