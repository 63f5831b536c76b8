"""Coverage of a rewrite's changed region: which lines of the rewritten program differ from
the original (:func:`changed_region`, a :class:`Region`) and how much of them the traced
inputs executed (:func:`region_coverage`, a :class:`Coverage`).  Analysis only: nothing is
executed here (the traces come from :class:`codemorph.sandbox.Outcome`)."""

from __future__ import annotations

import ast
import difflib
import functools
from dataclasses import dataclass
from typing import Any, Sequence

from codemorph.sandbox.pool import Outcome

__all__ = ["Region", "Coverage", "changed_region", "region_coverage"]


@dataclass(frozen=True)
class Region:
    """The lines of a rewritten program that differ from the original.

    Attributes:
        lines: executable lines of the rewritten program (1-based) whose statement differs:
            every changed line is mapped to the first line of the innermost statement
            containing it (the line the tracer reports); a deletion is anchored at the
            statement that follows it (or precedes it, at the end of a block).
        branch_lines: the lines of ``lines`` that start an ``if``, ``while`` or ``for``
            statement (two outcomes each: taken / not taken).
    """

    lines: tuple[int, ...]
    branch_lines: tuple[int, ...]


@dataclass(frozen=True)
class Coverage:
    """How much of a :class:`Region` the inputs executed (union over the inputs).

    Attributes:
        lines_total, lines_hit: executable changed lines, and how many ran at least once.
        branches_total, branches_hit: branch outcomes of the changed ``if``/``while``/``for``
            statements (two per statement), and how many were observed, counted from
            the traced arcs as distinct successor lines of the statement's line (capped
            at two).  A branch leaving the function as its last statement leaves no arc,
            so this under-counts rather than over-counts.
        partial: some outcome's tracing stopped before its program ended
            (:attr:`~codemorph.sandbox.Outcome.coverage_partial`): the figures are lower bounds.
    """

    lines_total: int
    lines_hit: int
    branches_total: int
    branches_hit: int
    partial: bool = False

    @property
    def line_ratio(self) -> float | None:
        """``lines_hit / lines_total`` (``None`` when nothing executable changed)."""
        return self.lines_hit / self.lines_total if self.lines_total else None

    @property
    def branch_ratio(self) -> float | None:
        """``branches_hit / branches_total`` (``None`` when no branch statement changed)."""
        return self.branches_hit / self.branches_total if self.branches_total else None

    def to_json(self) -> dict[str, Any]:
        """``{"lines": [hit, total], "branches": [hit, total]}``, with ``"partial": true``
        when the figures are lower bounds (:attr:`partial`)."""
        out: dict[str, Any] = {"lines": [self.lines_hit, self.lines_total],
                               "branches": [self.branches_hit, self.branches_total]}
        if self.partial:
            out["partial"] = True
        return out


def _statements(tree: ast.AST) -> tuple[list[tuple[int, int, ast.stmt]], set[int]]:
    """``(spans, docstrings)`` of a module, in one walk: every statement as ``(first line,
    last line, node)`` in walk order, and the ids of the docstring statements (they compile
    to no bytecode, so the tracer never reports them)."""
    spans = []
    docstrings = set()
    stmt, scopes = ast.stmt, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    for node in ast.walk(tree):
        if isinstance(node, stmt):
            spans.append((node.lineno, node.end_lineno or node.lineno, node))
        if isinstance(node, scopes) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                docstrings.add(id(first))
    return spans, docstrings


@functools.lru_cache(maxsize=256)
def changed_region(original_source: str, rewritten_source: str) -> Region | None:
    """The changed region of ``rewritten_source`` relative to ``original_source``.

    Computed with :class:`difflib.SequenceMatcher` over lines; comment-only and blank lines
    and docstrings (which compile to no code) are ignored; each changed line is mapped to
    its innermost enclosing statement with :mod:`ast` (analysis only, nothing is executed).

    Returns:
        A :class:`Region` (its ``lines`` are empty when only comments or layout changed),
        or ``None`` when the rewritten source does not parse.
    """
    try:
        tree = ast.parse(rewritten_source)
    except (SyntaxError, ValueError):
        return None
    a = original_source.splitlines()
    b = rewritten_source.splitlines()
    spans, docstrings = _statements(tree)
    touched: set[int] = set()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if j2 > j1:
            touched.update(range(j1 + 1, j2 + 1))
        else:  # pure deletion: anchor at the next line, or the previous one at the end
            touched.add(j1 + 1 if j1 < len(b) else max(1, j1))
    lines: set[int] = set()
    branches: set[int] = set()
    wanted = {ln for ln in touched
              if 0 < ln <= len(b) and (text := b[ln - 1].strip()) and not text.startswith("#")}
    # the innermost statement around each wanted line: the shortest span holding it, the
    # last one in walk order among equals (one pass over the spans, not one per line)
    innermost: dict[int, tuple[int, int, ast.stmt]] = {}
    for lo, hi, node in spans:
        for ln in (wanted.intersection(range(lo, hi + 1)) if hi - lo < len(wanted) else
                   [x for x in wanted if lo <= x <= hi]):
            best = innermost.get(ln)
            if best is None or hi - lo <= best[1] - best[0]:
                innermost[ln] = (lo, hi, node)
    for ln in wanted:
        best = innermost.get(ln)
        if best is None or id(best[2]) in docstrings:  # a docstring is not executable code
            continue
        lines.add(best[0])
        if isinstance(best[2], (ast.If, ast.While, ast.For, ast.AsyncFor)):
            branches.add(best[0])
    return Region(tuple(sorted(lines)), tuple(sorted(branches)))


def region_coverage(region: Region, outcomes: Sequence[Outcome]) -> Coverage:
    """Coverage of ``region`` by traced ``outcomes`` (``lines``/``arcs`` of the rewritten
    program; outcomes without trace data are ignored); ``partial`` when some outcome's
    tracing stopped early."""
    hit: set[int] = set()
    succ: dict[int, set[int]] = {ln: set() for ln in region.branch_lines}
    want = set(region.lines)
    for o in outcomes:
        if o.lines:
            hit.update(want.intersection(o.lines))
        if o.arcs and succ:
            for x, y in o.arcs:
                if x in succ and y != x:
                    succ[x].add(y)
    return Coverage(len(region.lines), len(hit), 2 * len(region.branch_lines),
                    sum(min(2, len(v)) for v in succ.values()),
                    partial=any(getattr(o, "coverage_partial", False) for o in outcomes))
