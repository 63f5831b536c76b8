"""Which code properties predict that a model mispredicts execution.

:func:`program_properties` measures one program statically (libcst) -- constructs, nesting,
size, calls, cyclomatic complexity from a statement-level control-flow graph (networkx) --
and :func:`dynamic_properties` runs it on its input in codemorph's sandbox under the sandbox's own line
tracer (``ExecRequest(counts=True)``).  :func:`analyze` joins these with scored results (``codemorph evaluate``) into a
:class:`Report`: accuracy per property with Wilson intervals, Spearman correlations,
per-model comparisons and the robustness metrics; :func:`write_report` writes CSV/JSON
tables, PNG plots and one self-contained HTML page.

Definitions (all per program = per data-set row):

* ``for``, ``while``: a loop statement of that kind.  ``nested_loops``: a loop (statement
  or comprehension) that runs once per iteration of another loop of the same function (or
  lambda), at any depth -- in a loop's body, a ``while`` test, or any part of a
  comprehension but its first iterable --, or a comprehension with two or more ``for``
  clauses.  A loop's iterable (``for c in [x for x in s]``) and its ``else`` block run
  once: they are not nested.  ``if``: an ``if`` statement, a
  conditional expression or a comprehension's ``if`` clause.  ``nested_if``: an ``if``
  statement inside the body or ``else`` block of another ``if`` statement (an ``elif``
  chain is not nesting).  ``try``, ``with``,
  ``match``, ``lambda``: the statement / expression.  ``comprehension``: a list, set or
  dict comprehension or a generator expression.  ``recursion``: a cycle in the call graph
  of the program's functions (direct or mutual): a call by plain name reaches the function
  of that name (not a method), ``self.<name>(...)`` in a method (or a function nested in
  one) the method ``<name>`` of that method's class.
  ``class``: a class statement (ClassEval's classes and their ``Test`` harness count);
  ``method``: a ``def`` in a class body (directly or under a statement of it such as
  ``if``; not one inside another function).
* ``max_nesting``: deepest nesting of compound statements (if/for/while/try/with/match)
  inside a function body (a function with one ``for`` holding an ``if`` has depth 2).
* ``lines``: non-blank lines that are not only a comment (lines of a multi-line string count).  ``calls``: call expressions.
  ``builtin_functions`` / ``builtin_methods``: names of builtins called (and not rebound
  by the program) / methods of builtin types (str, list, dict, set, tuple, int, float,
  bytes, ...) called as ``x.name(...)``.
* ``complexity``: McCabe's cyclomatic complexity ``E - N + 2P`` (McCabe 1976, "A
  Complexity Measure", IEEE TSE 2(4)) of the control-flow graphs of all functions of the
  program (``P`` graphs; methods, also of nested classes, are functions); module-level code counts only when it has statements other than
  definitions and imports.  The graph is statement-level: each ``if``/``elif``, loop
  header, ``except`` handler and ``case`` is a decision; boolean operators and
  conditional expressions are not.
* dynamic (sandbox, the row's own input run the way its ``input_kind`` says, line events of
  the program's frames during the call, or during the whole script for ``stdin`` rows):
  ``loop_length`` = executions of the most executed line (ExeRScope's "loop
  length", Intelligent-CAT-Lab/ExeRScope ``analysis/collect_loop_length.py``);
  ``distinct_lines``; ``line_executions`` (total); ``max_call_depth`` (deepest stack of
  program function frames, comprehension frames not counted); ``max_loop_iterations``
  (executions of the first body line of the busiest loop statement).
* ``output_type``: bool, int, float, str, list, tuple, dict, set, None, exception (rows
  whose call raises), or other, from the expected output's repr; a ``stdin`` row's standard
  output is ``str`` unless the text reads as a literal (:func:`output_type`).
"""

from __future__ import annotations

import ast
import builtins
import io
import math
import os
import statistics
import tokenize
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

import libcst as cst
import networkx as nx
from libcst.metadata import MetadataWrapper, PositionProvider

from codemorph.errors import CodemorphError, InputError, ParseError
from codemorph.scoring.evaluate import EvaluationResult, Robustness, RowScore, read_scores, robustness
from codemorph.scoring.report import write_report as _write
from codemorph.scoring.metrics import mcnemar_exact, mean_pass_at_k, spearman, wilson_interval
from codemorph.scoring.predictions import EvalRow, load_rows
from codemorph.scoring.tables import BINS, CONSTRUCTS, CORRELATED, OUTPUT_TYPES, Report
from codemorph.engine.program import parse_source
from codemorph.engine.transform import bound_names
from codemorph.naturalness import naturalness_delta

__all__ = [
    "CONSTRUCTS",
    "OUTPUT_TYPES",
    "StaticProperties",
    "program_properties",
    "control_flow_graphs",
    "cyclomatic_complexity",
    "output_type",
    "dynamic_properties",
    "Report",
    "analyze",
    "compare_models",
    "write_report",
]

_BUILTIN_NAMES = frozenset(dir(builtins))
_BUILTIN_METHODS = frozenset(
    name for t in (str, list, dict, set, frozenset, tuple, int, float, complex, bytes, bytearray)
    for name in dir(t) if not name.startswith("_"))
_COMPOUND = (cst.If, cst.For, cst.While, cst.Try, cst.TryStar, cst.With, cst.Match)
_NOT_CODE = (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
             tokenize.ENDMARKER)
_COMP = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


# --------------------------------------------------------------------------- static

@dataclass
class StaticProperties:
    """Static properties of one program (see the module docstring for definitions).

    Attributes:
        constructs: construct name -> count of occurrences (0 when absent).
        max_nesting: deepest compound-statement nesting inside a function.
        lines: code lines; calls: call expressions.
        builtin_functions, builtin_methods: sorted distinct names.
        complexity: cyclomatic complexity summed over the functions' CFGs.
        functions: number of function definitions.
        loop_body_lines: for each loop statement, the line of the first statement of its
            body (used to count iterations at run time).
    """

    constructs: dict[str, int]
    max_nesting: int
    lines: int
    calls: int
    builtin_functions: list[str]
    builtin_methods: list[str]
    complexity: int
    functions: int
    loop_body_lines: list[int] = field(default_factory=list)

    def flags(self) -> dict[str, bool]:
        """construct name -> whether the program has it."""
        return {c: self.constructs.get(c, 0) > 0 for c in CONSTRUCTS}


class _Collector(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, shadowed: frozenset[str]) -> None:
        self.counts: dict[str, int] = {c: 0 for c in CONSTRUCTS}
        self.shadowed = shadowed
        self.loop_depth = 0
        self.if_depth = 0
        self.calls = 0
        self.builtin_functions: set[str] = set()
        self.builtin_methods: set[str] = set()
        self.loop_body_lines: list[int] = []
        self.func_stack: list[str] = []
        # the class ``self`` is an instance of in each function of func_stack (its method's
        # class, also in functions nested in a method), ``None`` outside methods
        self.self_class: list[str | None] = []
        self.classes: list[str] = []
        self.defined: set[str] = set()
        self.scopes: list[str] = []  # "class" / "function", innermost last
        self.call_graph = nx.DiGraph()
        self.functions = 0
        self._elif: set[int] = set()
        self._saved: list[tuple[int, int]] = []
        self._repeated: set[int] = set()

    def _line(self, node: cst.CSTNode) -> int:
        return self.get_metadata(PositionProvider, node).start.line

    # classes and methods: a ``def`` directly in a class body is a method
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.counts["class"] += 1
        self.scopes.append("class")
        self.classes.append(node.name.value)

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self.scopes.pop()
        self.classes.pop()

    # functions: loops and ifs do not nest across function boundaries
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions += 1
        name = node.name.value
        owner = self.self_class[-1] if self.self_class else None
        if self.scopes and self.scopes[-1] == "class":
            self.counts["method"] += 1
            # a method is reached as self.<name> from its class, never by its plain name
            owner = ".".join(self.classes)
            name = f"{owner}.{name}"
        self.scopes.append("function")
        self.call_graph.add_node(name)
        self.defined.add(name)
        self.func_stack.append(name)
        self.self_class.append(owner)
        self._saved.append((self.loop_depth, self.if_depth))
        self.loop_depth = self.if_depth = 0

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.scopes.pop()
        self.func_stack.pop()
        self.self_class.pop()
        self.loop_depth, self.if_depth = self._saved.pop()

    # loop depth: a node counts as inside a loop when it runs once per iteration: a loop
    # statement's body (not its iterable, evaluated once, nor its ``else`` block), a
    # ``while`` test, and every part of a comprehension but its first iterable (evaluated
    # once, in the enclosing scope).  ``_repeated`` holds the ids of such direct children.
    def on_visit(self, node: cst.CSTNode) -> bool:
        if id(node) in self._repeated:
            self.loop_depth += 1
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        super().on_leave(original_node)
        if id(original_node) in self._repeated:
            self.loop_depth -= 1

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self.counts["lambda"] += 1
        # a lambda's body runs when it is called, as a function's does
        self._saved.append((self.loop_depth, self.if_depth))
        self.loop_depth = self.if_depth = 0

    def leave_Lambda(self, node: cst.Lambda) -> None:
        self.loop_depth, self.if_depth = self._saved.pop()

    def _enter_loop(self, *repeated: cst.CSTNode) -> None:
        if self.loop_depth > 0:
            self.counts["nested_loops"] += 1
        self._repeated.update(id(n) for n in repeated)

    def visit_For(self, node: cst.For) -> None:
        self.counts["for"] += 1
        self._enter_loop(node.body)
        self._body_line(node.body)

    def visit_While(self, node: cst.While) -> None:
        self.counts["while"] += 1
        self._enter_loop(node.body, node.test)
        self._body_line(node.body)

    def _body_line(self, body: cst.BaseSuite) -> None:
        if isinstance(body, cst.IndentedBlock) and body.body:
            self.loop_body_lines.append(self._line(body.body[0]))
        else:
            self.loop_body_lines.append(self._line(body))

    def _visit_comp(self, node: cst.CSTNode, for_in: cst.CompFor, *parts: cst.CSTNode) -> None:
        self.counts["comprehension"] += 1
        clauses = 0
        f: cst.CompFor | None = for_in
        while f is not None:
            clauses += 1
            self.counts["if"] += len(f.ifs)
            f = f.inner_for_in
        if clauses >= 2 or self.loop_depth > 0:
            self.counts["nested_loops"] += 1
        repeated = [*parts, for_in.target, *for_in.ifs]
        if for_in.inner_for_in is not None:
            repeated.append(for_in.inner_for_in)
        self._repeated.update(id(n) for n in repeated)

    def visit_ListComp(self, node: cst.ListComp) -> None:
        self._visit_comp(node, node.for_in, node.elt)

    def visit_SetComp(self, node: cst.SetComp) -> None:
        self._visit_comp(node, node.for_in, node.elt)

    def visit_DictComp(self, node: cst.DictComp) -> None:
        self._visit_comp(node, node.for_in, node.key, node.value)

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> None:
        self._visit_comp(node, node.for_in, node.elt)

    def visit_If(self, node: cst.If) -> None:
        self.counts["if"] += 1
        if isinstance(node.orelse, cst.If):
            self._elif.add(id(node.orelse))
        if id(node) in self._elif:  # an elif: same level as its chain
            return
        if self.if_depth > 0:
            self.counts["nested_if"] += 1
        self.if_depth += 1

    def leave_If(self, original_node: cst.If) -> None:
        if id(original_node) in self._elif:
            return
        self.if_depth -= 1

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self.counts["if"] += 1

    def visit_Try(self, node: cst.Try) -> None:
        self.counts["try"] += 1

    def visit_TryStar(self, node: cst.TryStar) -> None:
        self.counts["try"] += 1

    def visit_With(self, node: cst.With) -> None:
        self.counts["with"] += 1

    def visit_Match(self, node: cst.Match) -> None:
        self.counts["match"] += 1

    def visit_Call(self, node: cst.Call) -> None:
        self.calls += 1
        func = node.func
        callee = None
        if isinstance(func, cst.Name):
            callee = func.value
            if callee in _BUILTIN_NAMES and callee not in self.shadowed:
                self.builtin_functions.add(callee)
        elif isinstance(func, cst.Attribute):
            attr = func.attr.value
            if attr in _BUILTIN_METHODS:
                self.builtin_methods.add(attr)
            if isinstance(func.value, cst.Name) and func.value.value == "self" and self.self_class \
                    and self.self_class[-1] is not None:
                callee = f"{self.self_class[-1]}.{attr}"
        if callee is not None and self.func_stack:
            self.call_graph.add_edge(self.func_stack[-1], callee)


def _nesting(stmts: Sequence[cst.CSTNode], depth: int) -> int:
    best = depth
    for s in stmts:
        if isinstance(s, (cst.FunctionDef, cst.ClassDef)):
            best = max(best, _nesting(_block(s.body), 0))
            continue
        if isinstance(s, _COMPOUND):
            best = max(best, _compound_nesting(s, depth + 1))
    return best


def _compound_nesting(s: cst.CSTNode, depth: int) -> int:
    best = depth
    if isinstance(s, cst.If):
        best = max(best, _nesting(_block(s.body), depth))
        orelse = s.orelse
        while isinstance(orelse, cst.If):  # elif: same level
            best = max(best, _nesting(_block(orelse.body), depth))
            orelse = orelse.orelse
        if orelse is not None:
            best = max(best, _nesting(_block(orelse.body), depth))
    elif isinstance(s, (cst.For, cst.While)):
        best = max(best, _nesting(_block(s.body), depth))
        if s.orelse is not None:
            best = max(best, _nesting(_block(s.orelse.body), depth))
    elif isinstance(s, (cst.Try, cst.TryStar)):
        for blk in [s.body] + [h.body for h in s.handlers] + \
                   ([s.orelse.body] if s.orelse else []) + ([s.finalbody.body] if s.finalbody else []):
            best = max(best, _nesting(_block(blk), depth))
    elif isinstance(s, cst.With):
        best = max(best, _nesting(_block(s.body), depth))
    elif isinstance(s, cst.Match):
        for case in s.cases:
            best = max(best, _nesting(_block(case.body), depth))
    return best


def _block(suite: cst.BaseSuite) -> Sequence[cst.CSTNode]:
    """The statements of a suite; a one-line suite (``if x: return 1``) is one simple
    statement line, as if it were written on the next line."""
    if isinstance(suite, cst.IndentedBlock):
        return suite.body
    if isinstance(suite, cst.SimpleStatementSuite):
        return (cst.SimpleStatementLine(body=suite.body),)
    return ()


def _code_lines(source: str) -> int:
    """Non-blank lines holding a token other than a comment (a line of a multi-line string
    that starts with ``#`` is code, not a comment)."""
    text = source.splitlines()
    lines: set[int] = set()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type in _NOT_CODE:
                continue
            lines.update(range(tok.start[0], tok.end[0] + 1))
    except (tokenize.TokenError, SyntaxError):
        return sum(1 for ln in text if ln.strip() and not ln.strip().startswith("#"))
    return sum(1 for ln in lines if 0 < ln <= len(text) and text[ln - 1].strip())


def program_properties(source: str | cst.Module) -> StaticProperties:
    """Static properties of a program (see the module docstring).

    Args:
        source: program text, or an already parsed libcst module.

    Raises:
        ParseError: the text is not valid Python.
        RecursionError, MemoryError: a valid program nested too deeply or too large for the
            syntax-tree walks (:func:`analyze` reports such a row's properties as unknown).
    """
    module = parse_source(source) if isinstance(source, str) else source
    text = source if isinstance(source, str) else module.code
    shadowed, _ = bound_names(module)
    col = _Collector(shadowed)
    MetadataWrapper(module, unsafe_skip_copy=True).visit(col)
    g = col.call_graph
    defined = col.defined
    sub = g.subgraph(defined)
    recursive = sum(1 for comp in nx.strongly_connected_components(sub)
                    if len(comp) > 1 or any(sub.has_edge(n, n) for n in comp))
    counts = dict(col.counts)
    counts["recursion"] = recursive
    return StaticProperties(
        constructs=counts, max_nesting=_nesting(module.body, 0), lines=_code_lines(text), calls=col.calls,
        builtin_functions=sorted(col.builtin_functions), builtin_methods=sorted(col.builtin_methods),
        complexity=cyclomatic_complexity(module), functions=col.functions,
        loop_body_lines=sorted(set(col.loop_body_lines)))


# --------------------------------------------------------------------------- control flow

class _CFGBuilder:
    """Statement-level control-flow graph of one function body (or module body)."""

    def __init__(self, name: str) -> None:
        self.g = nx.DiGraph(name=name)
        self.n = 0
        self.entry = self._node("entry")
        self.exit = self._node("exit")
        self.loops: list[tuple[int, list[int]]] = []  # (header, break sources)
        self.nested: list[cst.FunctionDef] = []

    def _node(self, label: str) -> int:
        self.n += 1
        self.g.add_node(self.n, label=label)
        return self.n

    def _link(self, preds: Iterable[int], node: int) -> None:
        for p in preds:
            self.g.add_edge(p, node)

    def build(self, stmts: Sequence[cst.CSTNode]) -> nx.DiGraph:
        ends = self.seq(stmts, [self.entry])
        self._link(ends, self.exit)
        return self.g

    def seq(self, stmts: Sequence[cst.CSTNode], preds: list[int]) -> list[int]:
        for s in stmts:
            preds = self.stmt(s, preds)
        return preds

    def stmt(self, s: cst.CSTNode, preds: list[int]) -> list[int]:
        if isinstance(s, cst.SimpleStatementLine):
            node = self._node("simple")
            self._link(preds, node)
            for small in s.body:
                if isinstance(small, (cst.Return, cst.Raise)):
                    self._link([node], self.exit)
                    return []
                if isinstance(small, cst.Break) and self.loops:
                    self.loops[-1][1].append(node)
                    return []
                if isinstance(small, cst.Continue) and self.loops:
                    self._link([node], self.loops[-1][0])
                    return []
            return [node]
        if isinstance(s, cst.If):
            node = self._node("if")
            self._link(preds, node)
            ends = self.seq(_block(s.body), [node])
            if isinstance(s.orelse, cst.If):
                ends += self.stmt(s.orelse, [node])
            elif isinstance(s.orelse, cst.Else):
                ends += self.seq(_block(s.orelse.body), [node])
            else:
                ends.append(node)
            return ends
        if isinstance(s, (cst.For, cst.While)):
            node = self._node("loop")
            self._link(preds, node)
            self.loops.append((node, []))
            body_ends = self.seq(_block(s.body), [node])
            self._link(body_ends, node)
            _, breaks = self.loops.pop()
            infinite = isinstance(s, cst.While) and _always_true(s.test)
            ends: list[int] = [] if infinite else [node]
            if s.orelse is not None and ends:
                ends = self.seq(_block(s.orelse.body), ends)
            return ends + breaks
        if isinstance(s, (cst.Try, cst.TryStar)):
            node = self._node("try")
            self._link(preds, node)
            ends = self.seq(_block(s.body), [node])
            if s.orelse is not None:
                ends = self.seq(_block(s.orelse.body), ends)
            for h in s.handlers:
                hnode = self._node("except")
                self._link([node], hnode)
                ends += self.seq(_block(h.body), [hnode])
            if s.finalbody is not None:
                ends = self.seq(_block(s.finalbody.body), ends)
            return ends
        if isinstance(s, cst.With):
            node = self._node("with")
            self._link(preds, node)
            return self.seq(_block(s.body), [node])
        if isinstance(s, cst.Match):
            node = self._node("match")
            self._link(preds, node)
            ends: list[int] = []
            exhaustive = False
            for case in s.cases:
                cnode = self._node("case")
                self._link([node], cnode)
                ends += self.seq(_block(case.body), [cnode])
                if isinstance(case.pattern, cst.MatchAs) and case.pattern.pattern is None and case.guard is None:
                    exhaustive = True
            if not exhaustive:
                ends.append(node)
            return ends
        if isinstance(s, cst.FunctionDef):
            self.nested.append(s)
        elif isinstance(s, cst.ClassDef):
            self.nested.extend(_class_methods(s))
        node = self._node(type(s).__name__)
        self._link(preds, node)
        return [node]


def _class_methods(cls: cst.ClassDef) -> list[cst.FunctionDef]:
    """The functions a class body defines, at any depth of its statements (under an ``if``
    or ``try`` too) and in its nested classes, but not those inside these functions (each
    function's builder collects its own)."""
    found: list[cst.FunctionDef] = []

    class V(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            found.append(node)
            return False

    for stmt in _block(cls.body):
        stmt.visit(V())
    return found


def _always_true(test: cst.BaseExpression) -> bool:
    if isinstance(test, cst.Name) and test.value == "True":
        return True
    if isinstance(test, cst.Integer):
        try:
            return int(test.value, 0) != 0
        except ValueError:
            return False
    return False


def control_flow_graphs(module: cst.Module) -> dict[str, nx.DiGraph]:
    """One statement-level CFG (``networkx.DiGraph`` with ``entry`` and ``exit`` nodes)
    per function of ``module`` (keys: qualified names such as ``f`` or ``f.<locals>.g``),
    plus ``"<module>"`` when the module has statements other than definitions/imports."""
    graphs: dict[str, nx.DiGraph] = {}
    todo: list[tuple[str, Sequence[cst.CSTNode]]] = []
    top = _CFGBuilder("<module>")
    g = top.build(module.body)
    if any(not _is_definition(s) for s in module.body):
        graphs["<module>"] = g
    todo.extend((fn.name.value, _block(fn.body)) for fn in top.nested)
    while todo:
        name, body = todo.pop(0)
        b = _CFGBuilder(name)
        graphs[name if name not in graphs else f"{name}#{len(graphs)}"] = b.build(body)
        todo.extend((f"{name}.<locals>.{fn.name.value}", _block(fn.body)) for fn in b.nested)
    return graphs


def _is_definition(s: cst.CSTNode) -> bool:
    if isinstance(s, (cst.FunctionDef, cst.ClassDef)):
        return True
    if isinstance(s, cst.SimpleStatementLine):
        return all(isinstance(x, (cst.Import, cst.ImportFrom, cst.Pass, cst.Expr)) and
                   (not isinstance(x, cst.Expr) or isinstance(x.value, (cst.SimpleString, cst.ConcatenatedString)))
                   for x in s.body)
    return False


def cyclomatic_complexity(source: str | cst.Module) -> int:
    """McCabe's ``E - N + 2P`` over :func:`control_flow_graphs` (``P`` graphs); a module
    of definitions only with no function has complexity 1.

    Raises:
        ParseError: the text is not valid Python.
    """
    module = parse_source(source) if isinstance(source, str) else source
    graphs = control_flow_graphs(module)
    if not graphs:
        return 1
    return sum(g.number_of_edges() - g.number_of_nodes() + 2 for g in graphs.values())


def output_type(output: str | None, exception_type: str | None = None, input_kind: str = "args") -> str:
    """Category of an expected output repr (see :data:`OUTPUT_TYPES`); parsed with
    :mod:`ast`, never evaluated.

    A ``stdin`` row's output is the text the program writes, not a repr: it is ``str``
    unless it reads as a literal of one of the categories ``bool`` ... ``set`` (``12``, ``[1,
    2]``), as ExeRScope's ``analysis/match_type.py`` types Avatar's outputs (never
    ``other`` or ``None``: ``NO``, ``3 10 -1 7`` and ``None`` are text)."""
    if output is None:
        return "exception" if exception_type else "other"
    if input_kind == "stdin":
        kind = output_type(output, exception_type) if output.strip() else "str"
        return "str" if kind in ("other", "None") else kind
    try:
        node = ast.parse(output.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return "other"
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    if isinstance(node, ast.Constant):
        v = node.value
        if v is None:
            return "None"
        if isinstance(v, bool):
            return "bool"
        for t in (int, float, str):
            if type(v) is t:
                return t.__name__
        return "other"
    kinds = {ast.List: "list", ast.Tuple: "tuple", ast.Dict: "dict", ast.Set: "set"}
    for k, name in kinds.items():
        if isinstance(node, k):
            return name
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("set", "float", "frozenset"):
        return {"frozenset": "other"}.get(node.func.id, node.func.id)
    return "other"


# --------------------------------------------------------------------------- dynamic

#: sandbox statuses of a traced run that finished (the program returned, or raised -- in its
#: module body, its argument list or its call); any other status (timeout, memory, crash,
#: refusal...) leaves no measurement
_FINISHED = {"returned": "returned", "raised": "raised", "bad-code": "raised", "bad-input": "raised"}


def _dynamic_of(outcome: Any, loop_body_lines: Sequence[int]) -> dict[str, Any] | None:
    """The dynamic properties of one traced run (:class:`codemorph.sandbox.Outcome` of an
    ``ExecRequest(trace=True, counts=True)``), or ``None`` when it did not finish."""
    status = _FINISHED.get(outcome.status)
    if status is None:
        return None
    counts = dict(outcome.line_counts or ())
    return {
        "loop_length": max(counts.values(), default=0),
        "distinct_lines": len(counts),
        "line_executions": sum(counts.values()),
        "max_call_depth": int(outcome.max_call_depth or 0),
        "max_loop_iterations": max((counts.get(ln, 0) for ln in loop_body_lines), default=0),
        "run_status": status,
        "run_exception": outcome.exception.type if status == "raised" and outcome.exception is not None else None,
    }


def dynamic_properties(rows: Sequence[EvalRow], sandbox=None, *, workers: int = 1, timeout: float = 10.0,
                       loop_lines: Mapping[str, Sequence[int]] | None = None,
                       progress: Callable[[int, int], None] | None = None) -> dict[str, dict[str, Any] | None]:
    """Run every row's program on its input under a line tracer in the sandbox.

    Args:
        rows: the rows to measure.
        sandbox: a :class:`codemorph.sandbox.Sandbox`; default: a temporary one with
            ``workers`` processes and ``timeout`` seconds per execution (tracing slows a
            program several times).
        loop_lines: row id -> first body lines of its loop statements
            (:attr:`StaticProperties.loop_body_lines`), for ``max_loop_iterations``.
        progress: called as ``progress(done, total)`` per batch.

    Returns:
        row id -> ``{loop_length, distinct_lines, line_executions, max_call_depth,
        max_loop_iterations, run_status, run_exception}``, or ``None`` when the traced run
        did not finish (timeout, memory, crash).
    """
    from codemorph.sandbox.kinds import row_request
    from codemorph.sandbox.pool import Limits, Sandbox

    own = None
    if sandbox is None:
        own = sandbox = Sandbox(Limits(timeout=timeout), workers=max(1, workers))
    out: dict[str, dict[str, Any] | None] = {}
    try:
        # the sandbox's own tracer, counting line events and call depth during the call
        # (each row run the way its kind says: codemorph.sandbox.row_request)
        reqs = [(r, row_request(r, check_output=False, trace=True, types=False, counts=True)) for r in rows]
        size = 16
        chunks = [reqs[i:i + size] for i in range(0, len(reqs), size)]
        done = 0
        for chunk, outcomes in zip(chunks, sandbox.map([req for _, req in c] for c in chunks)):
            for (r, _), o in zip(chunk, outcomes):
                lines = (loop_lines or {}).get(r.id, ())
                out[r.id] = _dynamic_of(o, lines)
            done += len(chunk)
            if progress is not None:
                progress(done, len(reqs))
    finally:
        if own is not None:
            own.close()
    return out


# --------------------------------------------------------------------------- report

#: the k > 1 of the pass@k columns of the property table (when a model has that many generations)
PASS_KS = (5, 10)

# what a valid but huge or deeply nested program can raise in a per-row measurement
# (libcst and the recursive walkers recurse once per nesting level; SyntaxError from
# the compiler's own limits); such a row's properties are unknown, the run goes on
_TOO_BIG = (RecursionError, MemoryError, SyntaxError, ValueError)


def _too_big_reason(exc: BaseException) -> str:
    if isinstance(exc, RecursionError):
        return "nested too deeply to measure: RecursionError"
    if isinstance(exc, MemoryError):
        return "too large to measure: MemoryError"
    return f"{type(exc).__name__}: {exc}"


def _bin(value: float, bounds: Sequence[float], labels: Sequence[str]) -> str:
    for b, lab in zip(bounds, labels):
        if value <= b:
            return lab
    return labels[-1]


def _load_results(results: Sequence[Any], notes: list[str]) -> dict[str, list[RowScore]]:
    merged: dict[str, list[RowScore]] = {}
    for item in results:
        if isinstance(item, EvaluationResult):
            sets = {item.model: item.rows}
        elif isinstance(item, Mapping):
            sets = dict(item)
        else:
            bad: list[str] = []
            sets = read_scores(item, warnings=bad)
            if bad:
                notes.append(f"{len(bad)} lines of {item} are not scored rows and were skipped, e.g. {bad[0]}")
        for model, rows in sets.items():
            name = model
            i = 2
            while name in merged:
                name = f"{model} #{i}"
                i += 1
            merged[name] = list(rows)
    if not merged:
        raise InputError("no scored results given")
    return merged


def analyze(dataset: str | os.PathLike[str] | Sequence[EvalRow], results: Sequence[Any], *,
            dynamic: bool = True, sandbox=None, workers: int = 1, timeout: float = 10.0, seed: int = 0,
            n_resamples: int = 1000, progress: Callable[[int, int], None] | None = None) -> Report:
    """Measure every scored program and relate its properties to the models' success.

    Args:
        dataset: the data set the results were scored on (path or rows).
        results: scored results: paths of files written by
            :func:`codemorph.evaluate.write_scores`, :class:`~codemorph.evaluate.EvaluationResult`
            objects, or ``{model: [RowScore, ...]}`` mappings.  Several models are compared.
        dynamic: also run each program under a tracer in the sandbox.
        sandbox, workers, timeout: for the dynamic measurements (see :func:`dynamic_properties`).
        seed, n_resamples: of the robustness bootstrap intervals.
        progress: called as ``progress(done, total)`` during the dynamic measurements.

    Returns:
        A :class:`Report`.

    Raises:
        InputError: unreadable data set or results, or no scored row matches the data set.
    """
    rows = list(dataset) if not isinstance(dataset, (str, os.PathLike)) else load_rows(dataset)
    by_id = {r.id: r for r in rows}
    notes: list[str] = []
    merged = _load_results(results, notes)
    scores: dict[str, dict[str, float]] = {}
    counts: dict[str, dict[str, tuple[int, int]]] = {}
    for model, rs in merged.items():
        unknown = [s.id for s in rs if s.id not in by_id]
        if unknown:
            notes.append(f"{model}: {len(unknown)} scored ids not in the data set (ignored), e.g. {unknown[:3]}")
        empty = [s.id for s in rs if s.id in by_id and not s.n]
        if empty:
            notes.append(f"{model}: {len(empty)} rows have no scored generation (left out of its figures), "
                         f"e.g. {empty[:3]}")
        scores[model] = {s.id: s.score for s in rs if s.id in by_id and s.n}
        counts[model] = {s.id: (s.n, s.c) for s in rs if s.id in by_id and s.n}
        if scores[model] and len(scores[model]) < len(rows):
            notes.append(f"{model}: scored on {len(scores[model])} of the {len(rows)} rows of the data set; "
                         f"the other {len(rows) - len(scores[model])} (no prediction, or not scored) are not in "
                         f"its figures, so compare models on the rows both scored (model_comparison)")
    used_ids = [r.id for r in rows if any(r.id in sc for sc in scores.values())]
    if not used_ids:
        raise InputError("no scored row matches a row of the data set (are they the same data set?)")

    programs: list[dict[str, Any]] = []
    loop_lines: dict[str, list[int]] = {}
    for rid in used_ids:
        r = by_id[rid]
        rec: dict[str, Any] = {"id": r.id, "original_id": r.original_id, "kind": r.kind, "group": r.group,
                               "output_type": output_type(r.output, r.exception_type, r.input_kind)}
        sp = None
        try:
            sp = program_properties(r.code)
        except ParseError as exc:
            notes.append(f"{rid}: not analysed statically ({exc})")
        except _TOO_BIG as exc:
            notes.append(f"{rid}: not analysed statically ({_too_big_reason(exc)}); its static properties "
                         f"are unknown and it is left out of their break-downs")
        if sp is not None:
            rec.update({c: int(v) for c, v in sp.flags().items()})
            rec.update({"max_nesting": sp.max_nesting, "lines": sp.lines, "calls": sp.calls,
                        "complexity": sp.complexity, "functions": sp.functions,
                        "builtin_functions": " ".join(sp.builtin_functions),
                        "builtin_methods": " ".join(sp.builtin_methods)})
            loop_lines[rid] = sp.loop_body_lines
        programs.append(rec)

    if dynamic:
        dyn = dynamic_properties([by_id[i] for i in used_ids], sandbox, workers=workers, timeout=timeout,
                                 loop_lines=loop_lines, progress=progress)
        failed = [i for i, d in dyn.items() if d is None]
        if failed:
            notes.append(f"{len(failed)} programs did not finish under the tracer (no dynamic properties), "
                         f"e.g. {failed[:3]}")
        for rec in programs:
            d = dyn.get(rec["id"])
            for k in ("loop_length", "distinct_lines", "line_executions", "max_call_depth", "max_loop_iterations"):
                rec[k] = None if d is None else d[k]

    models = list(merged)
    summary = []
    for m in models:
        vals = list(scores[m].values())
        acc = math.fsum(vals) / len(vals) if vals else None
        ci = wilson_interval(math.fsum(vals), len(vals)) if vals else (None, None)
        summary.append({"model": m, "rows": len(vals), "accuracy": acc, "ci_low": ci[0], "ci_high": ci[1]})

    prop_acc: list[dict[str, Any]] = []
    correlations: list[dict[str, Any]] = []
    for m in models:
        sc = scores[m]
        nc = counts[m]
        recs = [p for p in programs if p["id"] in sc]
        # pass@k beside accuracy (= pass@1) for the k the model's generations allow
        ks = [k for k in PASS_KS if any(n >= k for n, _ in nc.values())]

        def add(prop: str, value: str, members: list[dict[str, Any]]) -> None:
            vals = [sc[p["id"]] for p in members]
            if not vals:
                return
            lo, hi = wilson_interval(math.fsum(vals), len(vals))
            row = {"model": m, "property": prop, "value": value, "rows": len(vals),
                   "accuracy": math.fsum(vals) / len(vals), "ci_low": lo, "ci_high": hi}
            for k in ks:
                row[f"pass@{k}"], row[f"pass@{k}_rows"] = mean_pass_at_k([nc[p["id"]] for p in members], k)
            prop_acc.append(row)

        add("all", "all", recs)
        for c in CONSTRUCTS:
            with_c = [p for p in recs if p.get(c)]
            without = [p for p in recs if c in p and not p.get(c)]
            add(c, "yes", with_c)
            add(c, "no", without)
        for t in OUTPUT_TYPES:
            add("output_type", t, [p for p in recs if p["output_type"] == t])
        for prop, (bounds, labels) in BINS.items():
            for lab in labels:
                add(prop, lab, [p for p in recs if p.get(prop) is not None
                                and _bin(p[prop], bounds, labels) == lab])
        for prop in CORRELATED:
            pairs = [(p[prop], sc[p["id"]]) for p in recs if p.get(prop) is not None]
            res = spearman([a for a, _ in pairs], [b for _, b in pairs])
            correlations.append({"model": m, "property": prop, "rho": res.rho, "p_value": res.p_value, "n": res.n})

    rob: dict[str, Robustness | None] = {}
    for m, rs in merged.items():
        known = [s for s in rs if s.id in by_id]
        if any(s.kind != "original" for s in known) or any(s.exception_type for s in known):
            rob[m] = robustness(known, seed=seed, n_resamples=n_resamples)
        else:
            rob[m] = None
    source = str(dataset) if isinstance(dataset, (str, os.PathLike)) else ""
    return Report(programs, scores, models, summary, prop_acc, correlations, rob, notes, source,
                  compare_models(scores, models), naturalness_table(programs, by_id, notes))


def naturalness_table(programs: list[dict[str, Any]], by_id: Mapping[str, EvalRow],
                      notes: list[str] | None = None) -> list[dict[str, Any]]:
    """Per transform (robustness group), the naturalness deltas of the analysed
    code-transform rows: ``{group, variants, mean, median, min, max}`` in bits per token,
    sorted by group.  A row's own ``naturalness_delta`` field (written by ``generate``) is
    used; a row without it gets :func:`codemorph.naturalness.naturalness_delta` of its
    original's code (when that row is in ``by_id``) and its own.  Each program record of a
    variant gets its value as ``naturalness_delta``.  Rows neither way measured are counted
    in a note."""
    per: dict[str, list[float]] = {}
    missing = 0
    for rec in programs:
        r = by_id[rec["id"]]
        if r.kind != "code-transform":
            continue
        delta = r.extra.get("naturalness_delta")
        if not isinstance(delta, (int, float)) or isinstance(delta, bool):
            original = by_id.get(r.original_id)
            delta = None
            if original is not None and original.kind == "original":
                try:
                    delta = round(naturalness_delta(original.code, r.code), 3)
                except ParseError:
                    delta = None
                except _TOO_BIG as exc:
                    delta = None
                    if notes is not None:
                        notes.append(f"{r.id}: naturalness not measured ({_too_big_reason(exc)})")
        rec["naturalness_delta"] = delta
        if delta is None:
            missing += 1
            continue
        per.setdefault(r.group, []).append(float(delta))
    if missing and notes is not None:
        notes.append(f"{missing} variant rows have no naturalness_delta and no original row to measure it against")
    return [{"group": g, "variants": len(v), "mean": statistics.fmean(v), "median": statistics.median(v),
             "min": min(v), "max": max(v)} for g, v in sorted(per.items())]


def compare_models(scores: Mapping[str, Mapping[str, float]], models: Sequence[str]) -> list[dict[str, Any]]:
    """Pairwise comparison of models on the rows both scored (see :attr:`Report.model_comparison`).

    Args:
        scores: model -> row id -> row score in [0, 1].
        models: the models to compare, in order (pairs ``(a, b)`` with ``a`` before ``b``).
    """
    out = []
    for i, a in enumerate(models):
        for b in models[i + 1:]:
            common = [rid for rid in scores[a] if rid in scores[b]]
            if not common:
                continue
            sa = [scores[a][r] for r in common]
            sb = [scores[b][r] for r in common]
            only_a = math.fsum(x * (1 - y) for x, y in zip(sa, sb))
            only_b = math.fsum((1 - x) * y for x, y in zip(sa, sb))
            binary = all(v in (0.0, 1.0) for v in sa + sb)
            acc_a, acc_b = math.fsum(sa) / len(common), math.fsum(sb) / len(common)
            out.append({"model_a": a, "model_b": b, "rows": len(common), "accuracy_a": acc_a,
                        "accuracy_b": acc_b, "difference": acc_a - acc_b,
                        "only_a": int(only_a) if binary else only_a, "only_b": int(only_b) if binary else only_b,
                        "mcnemar_p": mcnemar_exact(int(only_a), int(only_b)) if binary else None})
    return out


def write_report(report: Report, out_dir: str | os.PathLike[str], *, plots: bool = True) -> dict[str, Path]:
    """Write the report's tables (CSV and JSON), plots (PNG) and ``report.html``.

    See :func:`codemorph.report.write_report` (this is the same function).

    Raises:
        CodemorphError: plots requested but matplotlib is not installed
            (``pip install 'codemorph[analysis]'``).
    """
    return _write(report, out_dir, plots=plots)
