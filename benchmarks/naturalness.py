"""Naturalness of each transform's variants: the increase in cross-entropy over the original.

Reads a ``codemorph generate`` output file (default: the reference full-catalogue output
``/work/ref/base_full.jsonl``): rows with ``kind: original`` are the originals, every other
row is a variant of the row named by its ``original_id``.  For every variant it computes
:func:`codemorph.naturalness.naturalness_delta` (variant minus original, bits per token,
under the 4-gram standard-library model of :mod:`codemorph.naturalness`) and prints, per
transform (the row's ``transforms`` joined with ``+``), the mean, median, count, share of
variants above 0 and the largest delta, sorted by mean, descending.

It also measures a *hand-written index loop* for the same ``for`` loops ``for-to-while``
rewrote (with ``--index-loops``, on by default): each such ``for`` statement of the original
is rewritten by :class:`IndexLoop` into the form a person writes --

    i = 0                          x = a              (for x in range(a, b))
    while i < len(xs):             while x < b:
        x = xs[i]                      ...
        ...                            x += 1
        i += 1

(a non-name iterable is first bound to ``items``; ``i += 1`` is inserted before a
``continue`` of the loop; ``for i, x in enumerate(xs)`` uses ``i`` as the counter).  This is
a surface form for measurement only: it is never verified nor written out.

Usage::

    .venv/bin/python benchmarks/naturalness.py [--data OUT.jsonl] [--order 4]
        [--no-index-loops] [--json results.json]

The first run trains the model (a few seconds) and caches it (see README "Naturalness").
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

import libcst as cst
from rich.console import Console
from rich.table import Table

from codemorph.errors import ParseError
from codemorph.naturalness import DEFAULT_ORDER, default_model

DEFAULT_DATA = Path("/work/ref/base_full.jsonl")

_COUNTERS = ("i", "idx", "j", "k", "n_i")
_SEQUENCES = ("items", "seq", "values", "elements")


def _names(module: cst.Module) -> set[str]:
    out: set[str] = set()

    class V(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            out.add(node.value)

    module.visit(V())
    return out


class _Continues(cst.CSTTransformer):
    """Insert ``<counter> += <step>`` before each ``continue`` of one loop body (not of a
    nested loop or function)."""

    def __init__(self, counter: str, step: str) -> None:
        self.counter, self.step, self.depth = counter, step, 0

    def visit_For(self, node):  # nested loops own their continues
        self.depth += 1

    def leave_For(self, original, updated):
        self.depth -= 1
        return updated

    visit_While = visit_For
    leave_While = leave_For
    visit_FunctionDef = visit_For
    leave_FunctionDef = leave_For

    def _fix(self, updated):
        if self.depth or not any(isinstance(s, cst.Continue) for s in updated.body):
            return updated
        inc = cst.parse_statement(f"{self.counter} += {self.step}\n").body[0]
        body = []
        for s in updated.body:
            if isinstance(s, cst.Continue):
                body.append(inc)
            body.append(s)
        return updated.with_changes(body=body)  # libcst writes the "; " separators

    def leave_SimpleStatementLine(self, original, updated):
        if not self.depth and len(updated.body) == 1 and isinstance(updated.body[0], cst.Continue):
            inc = cst.parse_statement(f"{self.counter} += {self.step}\n")
            return cst.FlattenSentinel([inc.with_changes(leading_lines=updated.leading_lines),
                                        updated.with_changes(leading_lines=[])])
        return self._fix(updated)

    def leave_SimpleStatementSuite(self, original, updated):
        return self._fix(updated)


class IndexLoop(cst.CSTTransformer):
    """Rewrite the ``for`` statements whose header (``for T in E``) is in ``headers`` into the
    hand-written index/counter form (see the module docstring).  Measurement only."""

    def __init__(self, module: cst.Module, headers: list[str]) -> None:
        self.module = module
        self.headers = list(headers)
        taken = _names(module)
        self.counter = next(c for c in _COUNTERS if c not in taken)
        self.seqname = next(s for s in _SEQUENCES if s not in taken)
        self.rewritten = 0

    def leave_For(self, original: cst.For, updated: cst.For):
        header = header_of(self.module, original)
        if header not in self.headers or updated.asynchronous is not None:
            return updated
        self.headers.remove(header)
        code = self.module.code_for_node
        target, it = updated.target, updated.iter
        pre: list[str] = []
        head_extra: list[str] = []
        call = it if isinstance(it, cst.Call) and isinstance(it.func, cst.Name) else None
        if call is not None and call.func.value == "range" and isinstance(target, cst.Name) \
                and 1 <= len(call.args) <= 3 and all(a.keyword is None and a.star == "" for a in call.args):
            args = [code(a.value) for a in call.args]
            start, stop = ("0", args[0]) if len(args) == 1 else (args[0], args[1])
            step = args[2] if len(args) == 3 else "1"
            counter = target.value
            pre.append(f"{counter} = {start}\n")
            test = f"{counter} {'>' if step.lstrip().startswith('-') else '<'} {stop}"
        elif call is not None and call.func.value == "enumerate" and len(call.args) == 1 \
                and isinstance(target, cst.Tuple) and len(target.elements) == 2 \
                and all(isinstance(e.value, cst.Name) for e in target.elements):
            counter, elem = (e.value.value for e in target.elements)
            seq = code(call.args[0].value)
            if not isinstance(call.args[0].value, (cst.Name, cst.Attribute)):
                pre.append(f"{self.seqname} = {seq}\n")
                seq = self.seqname
            pre.append(f"{counter} = 0\n")
            test, step = f"{counter} < len({seq})", "1"
            head_extra.append(f"{elem} = {seq}[{counter}]\n")
        else:
            counter, step = self.counter, "1"
            seq = code(it)
            if not isinstance(it, (cst.Name, cst.Attribute)):
                pre.append(f"{self.seqname} = {seq}\n")
                seq = self.seqname
            pre.append(f"{counter} = 0\n")
            test = f"{counter} < len({seq})"
            head_extra.append(f"{code(target)} = {seq}[{counter}]\n")
        body = updated.body
        if isinstance(body, cst.SimpleStatementSuite):  # `for x in xs: stmt` on one line
            body = cst.IndentedBlock(body=[cst.SimpleStatementLine(body=list(body.body))])
        body = body.visit(_Continues(counter, step))
        stmts = [cst.parse_statement(s) for s in head_extra] + list(body.body) + \
            [cst.parse_statement(f"{counter} += {step}\n")]
        loop = cst.While(test=cst.parse_expression(test), body=body.with_changes(body=stmts),
                         orelse=updated.orelse, leading_lines=[])
        first = [cst.parse_statement(s) for s in pre]
        first[0] = first[0].with_changes(leading_lines=updated.leading_lines)
        self.rewritten += 1
        return cst.FlattenSentinel(first + [loop])


def header_of(module: cst.Module, node: cst.For) -> str:
    """``for T in E`` of a ``for`` statement, as written."""
    return f"for {module.code_for_node(node.target)} in {module.code_for_node(node.iter)}"


def for_headers(code: str) -> list[str]:
    """Headers of every ``for`` statement (not comprehension) in ``code``."""
    module = cst.parse_module(code)
    out: list[str] = []

    class V(cst.CSTVisitor):
        def visit_For(self, node: cst.For) -> None:
            out.append(header_of(module, node))

    module.visit(V())
    return out


def index_loop_form(original: str, variant: str) -> str | None:
    """``original`` with the ``for`` loops that ``variant`` no longer has rewritten by
    :class:`IndexLoop`; ``None`` when none could be rewritten."""
    kept = for_headers(variant)
    gone = for_headers(original)
    for h in kept:
        if h in gone:
            gone.remove(h)
    if not gone:
        return None
    module = cst.parse_module(original)
    tr = IndexLoop(module, gone)
    out = module.visit(tr)
    return out.code if tr.rewritten else None


def _summary(deltas: list[float]) -> dict:
    return {
        "count": len(deltas), "mean": statistics.fmean(deltas), "median": statistics.median(deltas),
        "above_zero": sum(d > 1e-12 for d in deltas) / len(deltas), "max": max(deltas),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="a generate output file (JSONL)")
    ap.add_argument("--order", type=int, default=DEFAULT_ORDER)
    ap.add_argument("--no-index-loops", action="store_true", help="skip the hand-written index-loop comparison")
    ap.add_argument("--json", type=Path, help="also write the per-transform figures here")
    args = ap.parse_args(argv)
    console = Console()
    if not args.data.exists():
        console.print(f"[red]{args.data} not found[/red]")
        return 2

    t0 = time.perf_counter()
    model = default_model(order=args.order)
    t_model = time.perf_counter() - t0
    rows = [json.loads(line) for line in args.data.read_text(encoding="utf-8").splitlines() if line.strip()]
    originals = {r["id"]: r for r in rows if r.get("kind") == "original"}
    t1 = time.perf_counter()
    h_orig = {rid: model.cross_entropy(r["code"], rid) for rid, r in originals.items()}
    deltas: dict[str, list[float]] = defaultdict(list)
    failed = 0
    index_deltas: list[float] = []
    for r in rows:
        if r.get("kind") == "original" or r.get("original_id") not in originals:
            continue
        name = "+".join(r.get("transforms") or []) or r.get("kind", "?")
        try:
            deltas[name].append(model.cross_entropy(r["code"], r["id"]) - h_orig[r["original_id"]])
        except ParseError:
            failed += 1
            continue
        if name == "for-to-while" and not args.no_index_loops:
            src = originals[r["original_id"]]["code"]
            hand = index_loop_form(src, r["code"])
            if hand is not None:
                index_deltas.append(model.cross_entropy(hand) - h_orig[r["original_id"]])
    t_score = time.perf_counter() - t1

    summary = {name: _summary(v) for name, v in deltas.items()}
    if index_deltas:
        summary["hand-written index loop (*)"] = _summary(index_deltas)
    table = Table(title=f"naturalness delta, bits per token (variant - original), {args.data.name}")
    for col in ("transform", "mean", "median", "count", "> 0", "max"):
        table.add_column(col, justify="left" if col == "transform" else "right")
    for name, s in sorted(summary.items(), key=lambda kv: (-kv[1]["mean"], kv[0])):
        table.add_row(name, f"{s['mean']:+.3f}", f"{s['median']:+.3f}", str(s["count"]),
                      f"{s['above_zero']:.0%}", f"{s['max']:+.2f}")
    console.print(table)
    if index_deltas:
        console.print("(*) the for loops for-to-while rewrote, written as index/counter loops by hand "
                      "(IndexLoop), against the same originals")
    console.print(
        f"model: {model.order}-gram, {model.files} training files ({model.skipped} skipped), "
        f"{model.tokens:,} tokens, vocabulary {len(model.vocabulary)}; loaded/trained in {t_model:.1f} s; "
        f"originals: {len(originals)}, mean {statistics.fmean(h_orig.values()):.3f} bits/token; "
        f"scored {sum(len(v) for v in deltas.values()) + len(index_deltas)} variants in {t_score:.1f} s; "
        f"{failed} not lexable")
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
