"""Mutation score of the differential verifier: how many deliberately wrong rewrites it rejects.

Every kind of wrong rewrite below (a *mutant* operator, in the sense of mutation analysis:
DeMillo, Lipton and Sayward, "Hints on Test Data Selection", IEEE Computer 11(4), 1978) is
applied at one site (chosen with a seeded RNG) of every CRUXEval program where it fits.
Each mutant is checked twice in the same run:

* the **default verifier**: :func:`codemorph.verification.make_baseline` with its default
  input budget (the row's input plus mutants, 50 in all) and :func:`~codemorph.verification.check`;
* the **reference oracle**: the same inputs plus ``--factor`` times as many more (in parts of
  10 times the budget, each from another seed), on the same sandbox.  Its inputs contain the default verifier's inputs,
  so every mutant the default rejects is rejected by the oracle too; the oracle is run on
  the other mutants only.  The oracle runs untraced (coverage does not matter to it, and
  tracing costs several times the CPU): the default's inputs are re-run untraced for it,
  so both sides of each oracle comparison run under the same conditions.

The default baseline is :func:`~codemorph.verification.make_baseline` with its defaults,
which include the coverage-guided additions of :func:`codemorph.inputs.coverage_additions`
(mutants that execute nothing new are replaced by inputs that execute statements no other
input executed; the input count stays 50).  ``--guided`` applies them a second time (a
stronger baseline than ``generate`` uses: leave it out to measure the default verifier);
the stats count the extra executions this costs.

A mutant counts only when the oracle rejects it (status ``differs``): mutants the oracle
accepts are probably equivalent and are left out of the denominator.  The JSON's ``missed``
lists every mutant the oracle rejects and the default verifier does not (its status:
``equivalent``, ``weak``, or ``inconclusive`` with the reason).  Per kind the script
reports how many mutants were made, how many the oracle rejects, the share of those the
default verifier rejects with a counterexample (``differs``) and the share it does not
accept (``differs`` or ``inconclusive``: neither is written by ``generate``).

Usage::

    python benchmarks/mutation_score.py [--rows 800] [--sample] [--factor 100] [--workers 2] [--guided]
                                        [--skip N] [--ids sample_263,sample_435] [--data rows.jsonl]
                                        [--markdown out.md] [--json out.json]
    python benchmarks/mutation_score.py --false-alarms [--rows 800] [--guided] [--transforms a,b]

The stats include wall seconds and CPU seconds (user + system of this process and its
sandbox workers).
"""

from __future__ import annotations

import argparse
import inspect
import itertools
import json
import random
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

import libcst as cst
from libcst.metadata import ExpressionContext, ExpressionContextProvider, MetadataWrapper

from codemorph.errors import ParseError
from codemorph.inputs import GuidedResult, coverage_additions
from codemorph.engine.program import Program
from codemorph.sandbox.pool import ExecRequest, Limits, Sandbox
from codemorph.verification.differential import (DEFAULT_INPUTS, Baseline, Verdict, check, check_requests, judge, make_baseline,
                                    program_literals)

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "cruxeval" / "cruxeval.jsonl"


# --------------------------------------------------------------------------- site mutants
@dataclass(frozen=True)
class SiteKind:
    """A mutant operator that rewrites one node: ``eligible(node)`` picks sites,
    ``mutate(node)`` returns the wrong replacement (a node or a FlattenSentinel)."""

    name: str
    description: str
    eligible: Callable[[cst.CSTNode], bool]
    mutate: Callable[[cst.CSTNode], cst.CSTNode]


def _plus_one(e: cst.BaseExpression) -> cst.BaseExpression:
    return cst.BinaryOperation(e, cst.Add(), cst.Integer("1"))


def _is_range(n: cst.CSTNode) -> bool:
    return isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value == "range" \
        and 1 <= len(n.args) <= 2 and all(a.keyword is None and not a.star for a in n.args)


def _range_off(n: cst.Call) -> cst.Call:
    args = list(n.args)
    args[-1] = args[-1].with_changes(value=cst.BinaryOperation(args[-1].value, cst.Subtract(), cst.Integer("1")))
    return n.with_changes(args=args)


_NONCOMMUTATIVE = (cst.Subtract, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power, cst.LeftShift,
                   cst.RightShift)
_BOUNDARY = {cst.LessThan: cst.LessThanEqual, cst.LessThanEqual: cst.LessThan, cst.GreaterThan: cst.GreaterThanEqual,
             cst.GreaterThanEqual: cst.GreaterThan}
_METHOD_SWAP = {"upper": "lower", "lower": "upper", "lstrip": "rstrip", "rstrip": "lstrip", "find": "rfind",
                "rfind": "find", "startswith": "endswith", "endswith": "startswith", "index": "rindex",
                "rindex": "index", "ljust": "rjust", "rjust": "ljust", "isupper": "islower", "islower": "isupper",
                "append": "insert0", "pop": "pop0", "partition": "rpartition", "rpartition": "partition"}


def _method_swap(n: cst.Call) -> cst.Call:
    name = n.func.attr.value
    new = _METHOD_SWAP[name]
    if new == "insert0":  # append(x) -> insert(0, x)
        return n.with_changes(func=n.func.with_changes(attr=cst.Name("insert")),
                              args=[cst.Arg(cst.Integer("0")), *n.args])
    if new == "pop0":  # pop() -> pop(0)
        return n.with_changes(args=[cst.Arg(cst.Integer("0"))])
    return n.with_changes(func=n.func.with_changes(attr=cst.Name(new)))


def _method_ok(n: cst.CSTNode) -> bool:
    if not (isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value in _METHOD_SWAP):
        return False
    name = n.func.attr.value
    if name == "append":
        return len(n.args) == 1
    if name == "pop":
        return len(n.args) == 0
    return True


def _sort_ok(n: cst.CSTNode) -> bool:
    return isinstance(n, cst.SimpleStatementLine) and len(n.body) == 1 and isinstance(n.body[0], cst.Expr) \
        and isinstance(n.body[0].value, cst.Call) and isinstance(n.body[0].value.func, cst.Attribute) \
        and n.body[0].value.func.attr.value in ("sort", "reverse") \
        and isinstance(n.body[0].value.func.value, cst.Name)


def _sort_copy(n: cst.SimpleStatementLine) -> cst.SimpleStatementLine:
    call = n.body[0].value
    target = call.func.value
    fn = "sorted" if call.func.attr.value == "sort" else "reversed"
    value = cst.Call(cst.Name(fn), [cst.Arg(target), *call.args])
    if fn == "reversed":
        value = cst.Call(cst.Name("list"), [cst.Arg(value)])
    return n.with_changes(body=[cst.Assign([cst.AssignTarget(target)], value)])


def _loop_else_ok(n: cst.CSTNode) -> bool:
    return isinstance(n, (cst.For, cst.While)) and n.orelse is not None


def _drop_loop_else(n: cst.For | cst.While) -> cst.FlattenSentinel:
    return cst.FlattenSentinel([n.with_changes(orelse=None), *n.orelse.body.body])


def _if_else_ok(n: cst.CSTNode) -> bool:
    return isinstance(n, cst.If) and isinstance(n.orelse, cst.Else)


def _swap_branches(n: cst.If) -> cst.If:
    return n.with_changes(body=n.orelse.body, orelse=n.orelse.with_changes(body=n.body))


def _dropped_ok(n: cst.CSTNode) -> bool:
    return isinstance(n, cst.SimpleStatementLine) and len(n.body) == 1 \
        and isinstance(n.body[0], (cst.Expr, cst.Assign, cst.AugAssign))


def _literal_ok(n: cst.CSTNode) -> bool:
    return isinstance(n, cst.Integer)


def _bump(n: cst.Integer) -> cst.Integer:
    return cst.Integer(str(int(n.evaluated_value) + 1))


def _index_ok(n: cst.CSTNode) -> bool:
    return isinstance(n, cst.Subscript) and len(n.slice) == 1 and isinstance(n.slice[0].slice, cst.Index) \
        and isinstance(n.slice[0].slice.value, (cst.Integer, cst.UnaryOperation, cst.Name))


def _index_off(n: cst.Subscript) -> cst.Subscript:
    el = n.slice[0]
    return n.with_changes(slice=[el.with_changes(slice=el.slice.with_changes(value=_plus_one(el.slice.value)))])


def _default_ok(n: cst.CSTNode) -> bool:
    return isinstance(n, cst.Param) and n.default is not None \
        and isinstance(n.default, (cst.Integer, cst.SimpleString, cst.Name))


def _change_default(n: cst.Param) -> cst.Param:
    d = n.default
    if isinstance(d, cst.Integer):
        new: cst.BaseExpression = _bump(d)
    elif isinstance(d, cst.SimpleString):
        new = cst.BinaryOperation(d, cst.Add(), cst.SimpleString("'x'"))
    elif d.value == "True":
        new = cst.Name("False")
    elif d.value == "False":
        new = cst.Name("True")
    elif d.value == "None":
        new = cst.Integer("0")
    else:
        new = cst.Name("None")
    return n.with_changes(default=new)


SITE_KINDS: tuple[SiteKind, ...] = (
    SiteKind("loop-bound-off-by-one", "range(..., n) -> range(..., n - 1)", _is_range, _range_off),
    SiteKind("dropped-continue", "continue -> pass", lambda n: isinstance(n, cst.Continue), lambda n: cst.Pass()),
    SiteKind("break-to-continue", "break -> continue", lambda n: isinstance(n, cst.Break), lambda n: cst.Continue()),
    SiteKind("wrong-negation", "if c: -> if not (c): (branches kept)", lambda n: isinstance(n, cst.If),
             lambda n: n.with_changes(test=cst.UnaryOperation(cst.Not(), n.test.with_changes(
                 lpar=[cst.LeftParen()], rpar=[cst.RightParen()])))),
    SiteKind("swapped-branches", "if/else branches exchanged, condition kept", _if_else_ok, _swap_branches),
    SiteKind("swapped-operands", "a - b -> b - a (non-commutative operators)",
             lambda n: isinstance(n, cst.BinaryOperation) and isinstance(n.operator, _NONCOMMUTATIVE),
             lambda n: n.with_changes(left=n.right, right=n.left)),
    SiteKind("comparison-boundary", "< <-> <=, > <-> >=",
             lambda n: isinstance(n, cst.ComparisonTarget) and type(n.operator) in _BOUNDARY,
             lambda n: n.with_changes(operator=_BOUNDARY[type(n.operator)]())),
    SiteKind("and-or", "and <-> or", lambda n: isinstance(n, cst.BooleanOperation),
             lambda n: n.with_changes(operator=cst.Or() if isinstance(n.operator, cst.And) else cst.And())),
    SiteKind("changed-default", "a parameter's default value changed", _default_ok, _change_default),
    SiteKind("augassign-rebinds", "x += y -> x = x + y (in place vs new object)",
             lambda n: isinstance(n, cst.AugAssign) and isinstance(n.operator, cst.AddAssign)
             and isinstance(n.target, cst.Name),
             lambda n: cst.Assign([cst.AssignTarget(n.target)],
                                  cst.BinaryOperation(n.target, cst.Add(), n.value.with_changes(
                                      lpar=[cst.LeftParen()], rpar=[cst.RightParen()])))),
    SiteKind("lost-loop-else", "for/while ... else: the else body runs after the loop always",
             _loop_else_ok, _drop_loop_else),
    SiteKind("dropped-statement", "an expression/assignment statement deleted", _dropped_ok,
             lambda n: cst.RemovalSentinel.REMOVE),
    SiteKind("wrong-constant", "an integer literal n -> n + 1", _literal_ok, _bump),
    SiteKind("index-off-by-one", "x[i] -> x[i + 1]", _index_ok, _index_off),
    SiteKind("method-swap", "upper<->lower, lstrip<->rstrip, find<->rfind, append(x)->insert(0, x), ...",
             _method_ok, _method_swap),
    SiteKind("sort-copies", "x.sort() -> x = sorted(x) (the argument is no longer sorted in place)",
             _sort_ok, _sort_copy),
)


class _Sites(cst.CSTVisitor):
    def __init__(self, kind: SiteKind) -> None:
        self.kind = kind
        self.sites: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self.kind.eligible(node):
            self.sites.append(node)
        return True


class _Replace(cst.CSTTransformer):
    def __init__(self, target: cst.CSTNode, mutate) -> None:
        self.target = target
        self.mutate = mutate

    def on_leave(self, original, updated):
        if original is self.target:
            return self.mutate(updated)
        return updated


def site_mutant(module: cst.Module, kind: SiteKind, rng: random.Random) -> str | None:
    v = _Sites(kind)
    module.visit(v)
    if not v.sites:
        return None
    target = rng.choice(v.sites)
    try:
        return module.visit(_Replace(target, kind.mutate)).code
    except (cst.CSTValidationError, TypeError, ValueError, AttributeError):
        return None


# --------------------------------------------------------------------------- name mutants
class _Occurrences(cst.CSTVisitor):
    """Name occurrences in the entry function that denote variables (not attributes or
    keyword-argument names), with their expression context."""

    METADATA_DEPENDENCIES = (ExpressionContextProvider,)

    def __init__(self) -> None:
        self.skip: set[int] = set()
        self.occ: list[tuple[cst.Name, object]] = []
        self.depth = 0

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.depth += 1

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.depth -= 1

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.skip.add(id(node.attr))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.skip.add(id(node.keyword))

    def visit_FunctionDef_name(self, node: cst.FunctionDef) -> None:
        self.skip.add(id(node.name))

    def visit_Name(self, node: cst.Name) -> None:
        if self.depth == 1 and id(node) not in self.skip:
            ctx = self.get_metadata(ExpressionContextProvider, node, None)
            self.occ.append((node, ctx))

    def visit_Param(self, node: cst.Param) -> None:
        if self.depth == 1:
            self.occ.append((node.name, ExpressionContext.STORE))
            self.skip.add(id(node.name))


class _Rename(cst.CSTTransformer):
    def __init__(self, nodes: set[int], new: str) -> None:
        self.nodes = nodes
        self.new = new

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
        return updated.with_changes(value=self.new) if id(original) in self.nodes else updated


def _occurrences(module: cst.Module):
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    v = _Occurrences()
    wrapper.visit(v)
    by: dict[str, list[tuple[cst.Name, object]]] = defaultdict(list)
    for n, ctx in v.occ:
        by[n.value].append((n, ctx))
    stored = {k for k, occ in by.items() if any(c == ExpressionContext.STORE for _, c in occ)}
    return by, stored


def capturing_rename(module: cst.Module, rng: random.Random) -> str | None:
    """Rename a local variable to the name of another local of the same function."""
    by, stored = _occurrences(module)
    names = sorted(stored)
    if len(names) < 2:
        return None
    a, b = rng.sample(names, 2)
    return module.visit(_Rename({id(n) for n, _ in by[a]}, b)).code


def missed_use_rename(module: cst.Module, rng: random.Random) -> str | None:
    """Rename a local variable consistently except for one of its reads."""
    by, stored = _occurrences(module)
    names = sorted(k for k in stored if sum(c == ExpressionContext.LOAD for _, c in by[k]) >= 1)
    if not names:
        return None
    a = rng.choice(names)
    loads = [n for n, c in by[a] if c == ExpressionContext.LOAD]
    keep = rng.choice(loads)
    return module.visit(_Rename({id(n) for n, _ in by[a] if n is not keep}, f"{a}_renamed")).code


def live_dead_code(module: cst.Module, rng: random.Random) -> str | None:
    """Insert 'dead' code that runs: ``if len([]) == 0: <param> = type(<param>)()`` at the
    top of the entry function (the parameter is emptied)."""
    fn = next((s for s in module.body if isinstance(s, cst.FunctionDef) and s.name.value == "f"), None)
    if fn is None or not fn.params.params or not isinstance(fn.body, cst.IndentedBlock):
        return None
    p = rng.choice(fn.params.params).name.value
    stmt = cst.parse_statement(f"if len([]) == 0:\n    {p} = type({p})()\n")
    body = list(fn.body.body)
    at = 1 if body and isinstance(body[0], cst.SimpleStatementLine) and isinstance(body[0].body[0], cst.Expr) \
        and isinstance(body[0].body[0].value, cst.SimpleString) else 0
    body.insert(at, stmt)
    new_fn = fn.with_changes(body=fn.body.with_changes(body=body))
    return module.with_changes(body=[new_fn if s is fn else s for s in module.body]).code


NAME_KINDS: dict[str, tuple[str, Callable[[cst.Module, random.Random], str | None]]] = {
    "capturing-rename": ("a local renamed to another local's name", capturing_rename),
    "missed-use-rename": ("a local renamed except for one read", missed_use_rename),
    "live-dead-code": ("inserted 'dead' code that runs and empties a parameter", live_dead_code),
}

KINDS: tuple[str, ...] = tuple(k.name for k in SITE_KINDS) + tuple(NAME_KINDS)


def mutants(code: str, seed: int, row_id: str) -> list[tuple[str, str]]:
    """``[(kind, mutant source)]``: at most one mutant per kind for one program (seeded per
    row and kind); mutants identical to the original are dropped."""
    module = cst.parse_module(code)
    out = []
    for kind in SITE_KINDS:
        src = site_mutant(module, kind, random.Random(f"{seed}:{row_id}:{kind.name}"))
        if src is not None and src != code:
            out.append((kind.name, src))
    for name, (_, fn) in NAME_KINDS.items():
        try:
            src = fn(module, random.Random(f"{seed}:{row_id}:{name}"))
        except Exception:  # noqa: BLE001 - a mutant operator that cannot handle a program skips it
            src = None
        if src is not None and src != code:
            out.append((name, src))
    return out


# ---------------------------------------------------------------------------------- run
def _merge(small: Baseline, extra: Baseline) -> Baseline:
    seen = set(small.inputs)
    inputs = list(small.inputs)
    outcomes = list(small.outcomes)
    for t, o in zip(extra.inputs, extra.outcomes):
        if t not in seen:
            seen.add(t)
            inputs.append(t)
            outcomes.append(o)
    return Baseline(small.program, tuple(inputs), tuple(outcomes), small.nondeterministic or extra.nondeterministic,
                    small.seed_count, small.hash_sensitive, small.reason, small.traced and extra.traced)


def oracle_check(sb: Sandbox, big: Baseline, mutant: Program, chunk: int = 500) -> Verdict:
    """The oracle's verdict: the differential check on every input of ``big``
    (coverage does not matter to the oracle), in chunks (the first ones small: 50, then 200,
    then ``chunk``) that stop at the first difference or the first inconclusive chunk (a
    mutant that hangs costs its timeout per input)."""
    reqs = check_requests(big, mutant, sb.limits.timeout)
    comparable = [(t, o) for t, o in zip(big.inputs, big.outcomes) if o.comparable]
    verdict = None
    at = 0
    for size in itertools.chain((50, 200), itertools.repeat(chunk)):
        if at >= len(reqs):
            break
        part = Baseline(big.program, tuple(t for t, _ in comparable[at:at + size]),
                        tuple(o for _, o in comparable[at:at + size]), big.nondeterministic, traced=big.traced)
        # a chunk's verdict only has to tell a difference apart (no minimum number of inputs)
        verdict = judge(part, reqs[at:at + size], sb.run_batch(reqs[at:at + size]), min_inputs=1)
        if verdict.status != "equivalent":
            return verdict
        at += size
    return verdict or Verdict("inconclusive", 0, reason="no comparable input")


def _cpu() -> float:
    """CPU seconds (user + system) of this process and its finished children (the sandbox
    workers count once the sandbox is closed)."""
    import resource
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def with_coverage_additions(sb: Sandbox, base: Baseline, seed: int) -> tuple[Baseline, GuidedResult]:
    """``base`` with :func:`codemorph.inputs.coverage_additions` applied, as the default
    baseline has them when ``make_baseline`` calls it (mutants replaced by inputs that
    execute statements no other input executed; same number of inputs)."""
    g = coverage_additions(sb, base.program, base.inputs, base.outcomes, base.seed_count, seed=seed,
                           literals=program_literals(base.program))
    if not g.added:
        return base, g
    return replace(base, inputs=g.inputs, outcomes=g.outcomes), g


def run(rows: list[dict], factor: int, workers: int, seed: int, oracle_timeout: float,
        log=sys.stderr, save: Callable[[dict], None] | None = None, guided: bool = False) -> dict:
    per: dict[str, Counter] = {k: Counter() for k in KINDS}
    missed: list[dict] = []
    stats = Counter()
    t0 = time.perf_counter()
    c0 = _cpu()
    with Sandbox(Limits(timeout=2.0), workers=workers) as sb:
        for i, row in enumerate(rows):
            try:
                prog = Program(row["code"], "f")
            except ParseError:
                continue
            base = make_baseline(sb, prog, [row["input"]], seed=seed, check_hash_seed=False)
            if base.nondeterministic or base.outcomes[0].status != "returned":
                stats["programs skipped"] += 1
                continue
            if guided:
                base, g = with_coverage_additions(sb, base, seed)
                stats["guided executions"] += g.executions
                stats["guided programs"] += g.executions > 0
                stats["guided inputs added"] += g.added
            stats["programs"] += 1
            stats["default inputs"] += len(base.inputs)
            survivors = []
            for kind, src in mutants(row["code"], seed, row["id"]):
                try:
                    mp = Program(src, "f")
                except ParseError:
                    continue
                per[kind]["mutants"] += 1
                v = check(sb, base, mp)
                if v.status == "differs":
                    per[kind]["oracle rejects"] += 1
                    per[kind]["default differs"] += 1
                    per[kind]["default not accepted"] += 1
                else:
                    survivors.append((kind, src, mp, v))
            if survivors:
                # the oracle runs untraced (coverage does not matter to it; tracing costs
                # several times the CPU): the default's inputs are re-run untraced so that
                # both sides of every oracle comparison run under the same conditions
                plain = sb.run_batch([ExecRequest(prog.source, "f", t, timeout=None if k < base.seed_count else 1.0)
                                      for k, t in enumerate(base.inputs)])
                small = Baseline(prog, base.inputs, tuple(plain), base.nondeterministic, base.seed_count)
                big = small
                for part in range(factor // 10 or 1):
                    # the oracle's inputs in parts of 10x the default budget (another seed each); a
                    # program that hangs on most inputs near its seed (each costs the timeout)
                    # gets no more parts once one part has timed out on half of its inputs
                    n = min(10, factor) * DEFAULT_INPUTS - 1
                    extra = make_baseline(sb, prog, [row["input"]], extra_inputs=n, seed=seed + 1 + part,
                                          check_hash_seed=False, mutant_timeout=oracle_timeout, trace=False)
                    big = _merge(big, extra)
                    if sum(o.status == "timeout" for o in extra.outcomes) > len(extra.outcomes) // 2:
                        stats["oracle parts cut (hangs)"] += 1
                        break
                stats["oracle inputs"] += len(big.inputs)
                stats["oracle programs"] += 1
                for kind, src, mp, v in survivors:
                    ov = oracle_check(sb, big, mp)
                    if ov.status == "differs":
                        per[kind]["oracle rejects"] += 1
                        if v.status not in ("equivalent", "weak"):  # "weak" variants are written too
                            per[kind]["default not accepted"] += 1
                            missed.append({"id": row["id"], "kind": kind, "mutant": src, "oracle": ov.reason,
                                           "default": v.status, "reason": v.reason, "coverage": None})
                        else:
                            missed.append({"id": row["id"], "kind": kind, "mutant": src,
                                           "oracle": ov.reason, "default": v.status,
                                           "coverage": v.coverage.to_json() if v.coverage else None})
                    elif ov.status == "equivalent":
                        per[kind]["oracle accepts"] += 1
            if (i + 1) % 10 == 0:
                if log is not None:
                    print(f"{i + 1}/{len(rows)} programs, {time.perf_counter() - t0:.0f}s", file=log, flush=True)
                if save is not None:
                    stats["seconds"] = round(time.perf_counter() - t0, 1)
                    save({"per_kind": {k: dict(v) for k, v in per.items()}, "missed": missed, "stats": dict(stats)})
    stats["seconds"] = round(time.perf_counter() - t0, 1)
    stats["cpu seconds"] = round(_cpu() - c0, 1)
    return {"per_kind": {k: dict(v) for k, v in per.items()}, "missed": missed, "stats": dict(stats)}


def false_alarms(rows: list[dict], transforms: tuple[str, ...], workers: int, seed: int, prove: bool = True,
                 log=sys.stderr, save: Callable[[dict], None] | None = None, guided: bool = False) -> dict:
    """Run every built-in transform on every program and check each variant with the default
    verifier (in proof mode with ``prove``): a ``differs`` verdict is a false alarm (or a
    transform bug).  Returns per-transform counts of verdict statuses and the rejections."""
    from codemorph.jobs.generate import default_transforms  # noqa: F401 - names of the built-ins
    from codemorph.engine.recipes import build_pipeline
    from codemorph.engine.transform import derive_rng, derive_seed
    from codemorph.verification.differential import prove_verdict

    types_kw = {"types": True} if prove and "types" in inspect.signature(check_requests).parameters else {}
    pipes = [(n, build_pipeline(n)) for n in transforms]
    needs_types = any(t.needs_runtime_types for _, p in pipes for t in p.transforms())
    per: dict[str, Counter] = {n: Counter() for n in transforms}
    rejected: list[dict] = []
    t0 = time.perf_counter()
    c0 = _cpu()
    with Sandbox(Limits(timeout=2.0), workers=workers) as sb:
        for i, row in enumerate(rows):
            try:
                prog = Program(row["code"], "f")
            except ParseError:
                continue
            base = make_baseline(sb, prog, [row["input"]], seed=derive_seed(seed, row["id"], "inputs"),
                                 check_hash_seed=False)
            if guided:
                base, _ = with_coverage_additions(sb, base, seed)
            if base.nondeterministic or base.outcomes[0].status != "returned":
                continue
            obs = None
            if needs_types:  # the local types seen by the traced baseline, as generate passes them
                merged: dict = defaultdict(lambda: defaultdict(set))
                for o in base.outcomes:
                    for fn, names in (o.types or {}).items():
                        for nm, ts in names.items():
                            merged[fn][nm].update(ts)
                obs = {fn: {nm: sorted(ts) for nm, ts in v.items()} for fn, v in merged.items()}
            for name, pipe in pipes:
                res = pipe.apply(prog, derive_rng(seed, row["id"], name), inputs=[row["input"]], observations=obs)
                if not res.changed:
                    continue
                # proof mode needs the local types of the rewritten runs (check_requests records
                # them only when asked, in trees where it takes ``types``)
                reqs = check_requests(base, res.program, sb.limits.timeout, **types_kw)
                outs = sb.run_batch(reqs)
                v = judge(base, reqs, outs, stdout_lines=res.stdout_lines)  # misleading-print's declared lines
                if prove:
                    v = prove_verdict(v, base, res.program, outs)
                per[name]["variants"] += 1
                per[name][v.status] += 1
                if v.status != "differs" and v.status != "inconclusive" and v.coverage is not None \
                        and v.coverage.branches_total:
                    per[name]["branch outcomes hit"] += v.coverage.branches_hit
                    per[name]["branch outcomes"] += v.coverage.branches_total
                if v.status in ("differs", "inconclusive"):
                    rejected.append({"id": row["id"], "transform": name, "status": v.status, "reason": v.reason,
                                     "code": res.program.source})
            if (i + 1) % 20 == 0:
                if log is not None:
                    print(f"{i + 1}/{len(rows)} programs, {time.perf_counter() - t0:.0f}s", file=log, flush=True)
                if save is not None:
                    save({"per_transform": {k: dict(v) for k, v in per.items()}, "rejected": rejected})
    return {"per_transform": {k: dict(v) for k, v in per.items()}, "rejected": rejected,
            "seconds": round(time.perf_counter() - t0, 1), "cpu seconds": round(_cpu() - c0, 1)}


def false_alarm_markdown(result: dict) -> str:
    """Per-transform table of verdicts of the built-in transforms' variants (markdown)."""
    lines = ["| transform | variants | differs (false alarms) | inconclusive | equivalent (tested) | proved |",
             "|---|---:|---:|---:|---:|---:|"]
    tot = Counter()
    for name, c in result["per_transform"].items():
        c = Counter(c)
        tot.update(c)
        n = c["variants"]
        share = f"{100 * c['proved'] / n:.1f}%" if n else "n/a"
        lines.append(f"| {name} | {n} | {c['differs']} | {c['inconclusive']} | {c['equivalent']} | "
                     f"{c['proved']} ({share}) |")
    n = tot["variants"]
    share = f"{100 * tot['proved'] / n:.1f}%" if n else "n/a"
    lines.append(f"| **all** | {n} | {tot['differs']} | {tot['inconclusive']} | {tot['equivalent']} | "
                 f"{tot['proved']} ({share}) |")
    return "\n".join(lines)


def markdown(result: dict, factor: int) -> str:
    """The per-kind table (markdown)."""
    descr = {k.name: k.description for k in SITE_KINDS} | {k: d for k, (d, _) in NAME_KINDS.items()}
    lines = [f"| mutant kind | what | mutants | rejected by oracle ({factor}x inputs) | default: differs | "
             f"default: not accepted |", "|---|---|---:|---:|---:|---:|"]
    tot = Counter()
    for k in KINDS:
        c = Counter(result["per_kind"].get(k, {}))
        tot.update(c)
        den = c["oracle rejects"]
        pct = (lambda x: f"{100 * x / den:.1f}%" if den else "n/a")
        lines.append(f"| {k} | {descr[k]} | {c['mutants']} | {den} | {pct(c['default differs'])} | "
                     f"{pct(c['default not accepted'])} |")
    den = tot["oracle rejects"]
    pct = (lambda x: f"{100 * x / den:.2f}%" if den else "n/a")
    lines.append(f"| **all** | | {tot['mutants']} | {den} | {pct(tot['default differs'])} | "
                 f"{pct(tot['default not accepted'])} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=800, help="CRUXEval programs to use")
    ap.add_argument("--skip", type=int, default=0, help="leave out the first SKIP of those programs (to split a "
                    "run over several processes; the counts of the parts add up)")
    ap.add_argument("--sample", action="store_true", help="a seeded random sample of --rows programs "
                    "instead of the first ones")
    ap.add_argument("--factor", type=int, default=100, help="oracle input budget, times the default's")
    ap.add_argument("--workers", type=int, default=2, help="sandbox worker processes")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--oracle-timeout", type=float, default=0.25,
                    help="seconds per oracle input of the original (mutant inputs often loop forever)")
    ap.add_argument("--guided", action="store_true", help="apply codemorph.inputs.coverage_additions a second "
                    "time (make_baseline already applies them once by default)")
    ap.add_argument("--markdown", type=Path, help="write the per-kind table here")
    ap.add_argument("--json", type=Path, help="write counts and the missed mutants here")
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--ids", default="", help="comma-separated row ids: only those programs (after --rows, "
                    "--sample and --skip)")
    ap.add_argument("--false-alarms", action="store_true",
                    help="instead: check every built-in transform's variants in proof mode (false alarms, "
                         "share proved)")
    ap.add_argument("--transforms", default="", help="comma-separated transforms for --false-alarms "
                    "(default: every built-in)")
    a = ap.parse_args(argv)
    if not a.data.exists():
        print(f"no data at {a.data}", file=sys.stderr)
        return 2
    rows = [json.loads(x) for x in a.data.read_text().splitlines() if x.strip()]
    rows = random.Random(a.seed).sample(rows, min(a.rows, len(rows))) if a.sample else rows[:a.rows]
    rows = rows[a.skip:]
    if a.ids:
        wanted = {x.strip() for x in a.ids.split(",") if x.strip()}
        rows = [r for r in rows if r["id"] in wanted]

    if a.false_alarms:
        from codemorph.jobs.generate import default_transforms
        names = tuple(x for x in a.transforms.split(",") if x) or default_transforms()

        def save_fa(partial: dict) -> None:
            if a.json:
                a.json.write_text(json.dumps(partial, indent=1))
            if a.markdown:
                a.markdown.write_text(false_alarm_markdown(partial) + "\n")

        result = false_alarms(rows, names, a.workers, a.seed, save=save_fa, guided=a.guided)
        save_fa(result)
        print(false_alarm_markdown(result))
        print(f"{result['seconds']}s wall, {result['cpu seconds']}s CPU")
        for r in result["rejected"][:30]:
            print(f"{r['status']}: {r['id']} {r['transform']}: {r['reason']}")
        return 0

    def save(partial: dict) -> None:
        if a.json:
            a.json.write_text(json.dumps(partial, indent=1))
        if a.markdown:
            a.markdown.write_text(markdown(partial, a.factor) + "\n")

    result = run(rows, a.factor, a.workers, a.seed, a.oracle_timeout, save=save, guided=a.guided)
    table = markdown(result, a.factor)
    print(table)
    print(json.dumps(result["stats"]))
    for m in result["missed"][:20]:
        print(f"missed: {m['id']} {m['kind']} ({m['default']}, coverage {m['coverage']}): {m['oracle']}")
    if a.markdown:
        a.markdown.write_text(table + "\n")
    if a.json:
        a.json.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
