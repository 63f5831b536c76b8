"""``invert-if``: ``if c: A else: B`` -> ``if not c: B else: A``, and an ``if c: A``
without ``else`` that ends a loop body or a function (``A`` not ending with a jump) as the
guard clause ``if not c: continue`` / ``if not c: return`` followed by ``A``; the negated
condition simplified where z3 proves it.
"""

from __future__ import annotations

import re
from typing import Mapping, Sequence

import libcst as cst

from codemorph.engine import NotApplicable, RewriteContext, Transform
from codemorph.authoring.sites import SiteChoice
from codemorph.authoring.hazards import LINE_HAZARDS, hazard_identifiers
from codemorph.transforms.branches.conditions import (NEGATED, OP_TEXT, TypeOracle, negate, negated_comparison,
                                                      pass_suite, source_of, with_leading_comments)

__all__ = ["InvertIf"]

#: the statement a guard clause ends with, by where the ``if`` is last
_GUARD_EXIT = {"loop": cst.Continue, "function": cst.Return}
_WHERE = {"loop": "at the end of a loop body", "function": "at the end of a function"}


#: the negated test of a site and the name of the rule that gave it (:func:`negate`)
Negation = tuple[cst.BaseExpression, str]


def _negated_test(node: cst.If, negation: Negation) -> tuple[cst.BaseExpression, cst.SimpleWhitespace, str]:
    """The negated test of ``node`` (given), the whitespace after ``if`` for it, and the rule's name."""
    test, rule = negation
    ws = node.whitespace_before_test
    if isinstance(ws, cst.SimpleWhitespace) and ws.value == "":
        ws = cst.SimpleWhitespace(" ")  # ``if(x):`` -> ``if not (x):``
    return test, ws, rule


def _invert(node: cst.If, negation: Negation) -> tuple[cst.If, str]:
    """Invert one ``if``/``elif`` node whose ``orelse`` is an ``else`` or nothing (the
    latter as ``if not c: pass`` / ``else: A``, the ``empty_branch`` form), under
    ``negation``, its test negated (a test holds no statement, so the negation of the
    input tree's test is that of ``node.test``)."""
    test, ws, rule = _negated_test(node, negation)
    if node.orelse is None:
        new_body = pass_suite(node.body)
        new_else = cst.Else(body=node.body)
        kind = "if without else"
    else:
        assert isinstance(node.orelse, cst.Else)
        old_else = node.orelse
        moved = with_leading_comments(old_else.body, old_else.leading_lines)
        if moved is None:  # blank lines / comments before ``else:`` stay before the new ``else:``
            new_body, else_lines = old_else.body, old_else.leading_lines
        else:
            new_body, else_lines = moved, ()
        new_else = cst.Else(body=node.body, leading_lines=else_lines,
                            whitespace_before_colon=old_else.whitespace_before_colon)
        kind = "if/else"
    new = node.with_changes(test=test, whitespace_before_test=ws, body=new_body, orelse=new_else)
    return new, f"{kind}: branches swapped under negated test ({rule})"


class _Dedent(cst.CSTTransformer):
    """Move the statements it visits one level to the left: libcst keeps indentation
    relative, except after a backslash continuation, whose next line's whitespace is kept
    as written -- there ``indent`` (the level removed) is taken off when the line starts
    with it."""

    def __init__(self, indent: str) -> None:
        super().__init__()
        self.pattern = re.compile(r"(\\\r?\n)" + re.escape(indent))

    def leave_SimpleWhitespace(self, original_node: cst.SimpleWhitespace,
                               updated_node: cst.SimpleWhitespace) -> cst.SimpleWhitespace:
        if "\\" not in updated_node.value:
            return updated_node
        return updated_node.with_changes(value=self.pattern.sub(r"\1", updated_node.value))


def _guard(node: cst.If, where: str, negation: Negation, default_indent: str) -> tuple[cst.If, list[cst.BaseStatement], list[cst.EmptyLine], str]:
    """``if c: A`` (no ``else``; last statement of a loop body or a function) as the guard
    clause ``if not c: continue``/``return`` and ``A``'s statements one level out.

    Returns the guard, the statements that follow it, the blank lines that ended ``A``'s
    block (they go to the enclosing block's footer) and the site's description.  The guard
    keeps the ``if``'s leading lines and the form of its body (one-line or indented); the
    comment on the ``if`` line describes ``A`` and goes with it, as in the if/else swap: an
    indented block's ``if c:  # note`` gives ``# note`` on its own line before ``A``'s first
    statement (:func:`with_leading_comments`), a one-line ``if c: A  # note`` gives
    ``A  # note``; the guard line has no comment."""
    test, ws, rule = _negated_test(node, negation)
    exit_statement = _GUARD_EXIT[where]()
    body = node.body
    if isinstance(body, cst.SimpleStatementSuite):
        line_end = body.trailing_whitespace
        guard_body: cst.BaseSuite = body.with_changes(
            body=[exit_statement],
            trailing_whitespace=line_end.with_changes(whitespace=cst.SimpleWhitespace(""), comment=None))
        rest: list[cst.BaseStatement] = [cst.SimpleStatementLine(body=body.body, trailing_whitespace=line_end)]
        footer: list[cst.EmptyLine] = []
    else:
        assert isinstance(body, cst.IndentedBlock)
        header = body.header
        if header.comment is not None:
            header = header.with_changes(whitespace=cst.SimpleWhitespace(""), comment=None)
        guard_body = body.with_changes(body=[cst.SimpleStatementLine([exit_statement])], footer=(), header=header)
        indent = body.indent if body.indent is not None else default_indent
        dedent = _Dedent(indent)
        block = body.with_changes(body=[stmt.visit(dedent) for stmt in body.body])
        if body.header.comment is not None:
            moved = with_leading_comments(block, [cst.EmptyLine(comment=body.header.comment)])
            assert isinstance(moved, cst.IndentedBlock)  # an indented block with statements holds them
            block = moved
        rest = list(block.body)
        footer = list(body.footer)
    guard = node.with_changes(test=test, whitespace_before_test=ws, body=guard_body)
    keyword = "continue" if where == "loop" else "return"
    return guard, rest, footer, (f"if without else {_WHERE[where]}: guard clause with {keyword} "
                                 f"under negated test ({rule})")


#: the statements that leave a block early, by keyword
_JUMPS = {cst.Return: "return", cst.Raise: "raise", cst.Break: "break", cst.Continue: "continue"}


def _ending_jump(statements: Sequence[cst.BaseStatement]) -> str | None:
    """The keyword of the jump statement (``return``, ``raise``, ``break``, ``continue``)
    that ends ``statements`` (the last small statement of the last line), or ``None``."""
    if not statements or not isinstance(statements[-1], cst.SimpleStatementLine) or not statements[-1].body:
        return None
    return _JUMPS.get(type(statements[-1].body[-1]))


#: comments that direct a tool about their own line (linters, coverage, type checkers, formatters)
_DIRECTIVE = re.compile(r"#\s*(noqa|pragma|type:|pylint:|nosec|fmt:|mypy:|pyright:|ruff:|isort:)", re.IGNORECASE)


def _guard_refusal(node: cst.If) -> str | None:
    """Why the ``if`` (no ``else``, last in its block) cannot be written as a guard clause,
    or ``None`` when it can."""
    body = node.body
    statements = body.body if isinstance(body, cst.IndentedBlock) else [cst.SimpleStatementLine(body=body.body)]
    jump = _ending_jump(statements)
    if jump is not None:
        return f"an if whose body ends with {jump} (an early exit as written)"
    line_comment = body.header.comment if isinstance(body, cst.IndentedBlock) else body.trailing_whitespace.comment
    if line_comment is not None and _DIRECTIVE.match(line_comment.value):
        # a tool's directive applies to the line it is on: moved with A it would apply to
        # another line, left on the guard to a line that no longer holds what it names
        return f"an if whose line carries a tool directive ({line_comment.value[:40]})"
    if isinstance(body, cst.IndentedBlock):
        if any(line.comment is not None for line in body.footer):
            return "an if whose block ends with a comment after its last statement"
    elif "\n" in cst.Module([]).code_for_node(statements[0]).rstrip("\n") or "\\" in body.leading_whitespace.value:
        return "an if whose one-line body spans several lines"
    if all(isinstance(s, cst.SimpleStatementLine) and all(isinstance(x, cst.Pass) for x in s.body)
           for s in statements):
        return "an if whose body is only pass"
    return None


def _without_else_after_jump(node: cst.If, default_indent: str) -> list[cst.BaseStatement] | None:
    """``if c: break`` / ``else: A`` (``continue`` alike) as a person writes it, ``if c:
    break`` and then ``A`` one level out, or ``None`` when ``node``'s body is not one
    ``break``/``continue`` line or its ``else`` is a one-line suite or has comments or blank
    lines of its own (left as written).  Same behaviour: ``A`` runs exactly when ``c`` is false."""
    body, orelse = node.body, node.orelse
    if not (isinstance(body, cst.IndentedBlock) and len(body.body) == 1 and not body.footer
            and isinstance(body.body[0], cst.SimpleStatementLine) and len(body.body[0].body) == 1
            and isinstance(body.body[0].body[0], (cst.Break, cst.Continue))):
        return None
    if not (isinstance(orelse, cst.Else) and isinstance(orelse.body, cst.IndentedBlock)) or orelse.leading_lines \
            or orelse.body.footer or orelse.body.header.comment is not None:
        return None
    indent = orelse.body.indent if orelse.body.indent is not None else default_indent
    dedent = _Dedent(indent)
    return [node.with_changes(orelse=None), *(stmt.visit(dedent) for stmt in orelse.body.body)]


class _InvertRewriter(cst.CSTTransformer):
    # it looks nodes up by original_node only: an unchanged subtree is not rebuilt
    # (codemorph.engine.visiting; performance only)
    reuse_unchanged_nodes = True

    def __init__(self, ctx: RewriteContext, chosen: Sequence[cst.If], guards: Mapping[cst.If, str],
                 negations: Mapping[cst.If, Negation], default_indent: str = "    ") -> None:
        super().__init__()
        self.ctx = ctx
        chosen = set(chosen)
        self.swapped = {node for node in chosen if node not in guards}
        self.guards = {node: where for node, where in guards.items() if node in chosen}
        self.negations = negations
        self.default_indent = default_indent
        self.elifs: set[cst.If] = set()

    def visit_If(self, node: cst.If) -> bool:
        if isinstance(node.orelse, cst.If):
            self.elifs.add(node.orelse)
        return True

    def leave_If(self, original_node: cst.If, updated_node: cst.If) -> cst.If | cst.FlattenSentinel:
        if original_node not in self.swapped:
            return updated_node
        new, description = _invert(updated_node, self.negations[original_node])
        # ``if c: break`` / ``else: A`` -> ``if c: break`` / ``A`` (no else after a jump:
        # CRUXEval sample_59, _134 ... had ``if c != ' ': break`` / ``else: b.pop()``)
        flat = None if original_node in self.elifs else _without_else_after_jump(new, self.default_indent)
        if flat is not None:
            self.ctx.record(original_node, description + "; the else after the jump unindented")
            return cst.FlattenSentinel(flat)
        self.ctx.record(original_node, description)
        return new

    def _guarded(self, original_node, updated_node):
        """The loop or function with its last statement, a chosen guard site, rewritten."""
        if not self.guards or not isinstance(original_node.body, cst.IndentedBlock) or not original_node.body.body:
            return updated_node
        last = original_node.body.body[-1]
        where = self.guards.get(last)
        if where is None:
            return updated_node
        block = updated_node.body
        guard, rest, footer, description = _guard(block.body[-1], where, self.negations[last],
                                                  self.default_indent)
        self.ctx.record(last, description)
        return updated_node.with_changes(body=block.with_changes(
            body=[*block.body[:-1], guard, *rest], footer=[*footer, *block.footer]))

    def leave_For(self, original_node: cst.For, updated_node: cst.For) -> cst.For:
        return self._guarded(original_node, updated_node)

    def leave_While(self, original_node: cst.While, updated_node: cst.While) -> cst.While:
        return self._guarded(original_node, updated_node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        return self._guarded(original_node, updated_node)


class _IfSites(cst.CSTVisitor):
    """The sites of ``invert-if``, in source order.

    ``sites``: the last test of every ``if``/``elif`` chain that ends with ``else``; every
    ``if`` without ``else`` and without ``elif`` that is the last statement of a loop body
    (``for``, ``async for``, ``while``; not the loop's ``else``) or of a function body
    (``guards`` maps each to ``"loop"`` or ``"function"``), unless its body ends with a
    jump (``return``, ``raise``, ``break``, ``continue``: an early exit as written), its
    block ends with a comment, holds only ``pass`` or is one line spanning several
    (``skipped`` says why);
    ``ifs`` counts every ``if``/``elif``.  With ``empty_branch``, instead
    of guards, the last test of every chain without ``else`` (as before the guard forms)."""

    def __init__(self, empty_branch: bool = False) -> None:
        self.empty_branch = empty_branch
        self.ifs = 0
        self.sites: list[cst.If] = []
        self.guards: dict[cst.If, str] = {}
        self.skipped: list[str] = []
        self._last: dict[cst.If, str] = {}

    def _mark_last(self, node: cst.For | cst.While | cst.FunctionDef, where: str) -> None:
        if isinstance(node.body, cst.IndentedBlock) and node.body.body and isinstance(node.body.body[-1], cst.If):
            self._last[node.body.body[-1]] = where

    def visit_For(self, node: cst.For) -> None:
        self._mark_last(node, "loop")

    def visit_While(self, node: cst.While) -> None:
        self._mark_last(node, "loop")

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._mark_last(node, "function")

    def visit_If(self, node: cst.If) -> None:
        self.ifs += 1
        if isinstance(node.orelse, cst.If):  # not the last test of its chain
            return
        if node.orelse is not None or self.empty_branch:
            self.sites.append(node)
            return
        where = self._last.get(node)
        if where is None:
            return
        why = _guard_refusal(node)
        if why is not None:
            # "an if whose body ..." -> "`if x < 0:` whose body ...": which if, and why
            test = " ".join(cst.Module([]).code_for_node(node.test).split())
            test = test if len(test) <= 40 else test[:37] + "..."
            self.skipped.append(f"`if {test}:`{why[len('an if'):]}")
            return
        self.sites.append(node)
        self.guards[node] = where


def _left_alone(ctx: RewriteContext, test: cst.BaseExpression, comparison: cst.Comparison,
                oracle: TypeOracle) -> str:
    """Why the site of ``test`` is left alone: its negation would read ``not <comparison>``."""
    text = source_of(comparison.with_changes(lpar=[], rpar=[]))
    line = ctx.position(test)[0]
    op = OP_TEXT[type(comparison.comparisons[0].operator)]
    left, right = oracle.types_of(comparison.left), oracle.types_of(comparison.comparisons[0].comparator)
    if left is None or right is None:
        why = (f"needs both operands' types (NaN, sets and user classes break `not a {op} b` == "
               f"`a {NEGATED[op]} b`)")
    else:
        why = (f"over {', '.join(sorted(left | right))} is not proved (`not a {op} b` == `a {NEGATED[op]} b` "
               f"holds for ints and strings; for floats and sets only with == and !=)")
    return f"line {line}: negating `{text}` {why}; left alone rather than write `not {text}`"


class InvertIf(SiteChoice, Transform):
    """Invert ``if`` statements: swap their branches under the negated condition, or write
    an ``if`` without ``else`` that ends a loop body or a function as a guard clause.

    * ``if c: A else: B`` -> ``if not c: B else: A``; when ``B`` is one ``break`` or
      ``continue`` line (and the ``if`` is no ``elif``), ``A`` follows unindented, as a
      person writes it after a jump: ``if not c: break`` / ``A`` (an ``else`` on one line,
      or with comments or blank lines of its own, stays);
    * in an ``elif`` chain the last test is inverted, so the chain stays a chain:
      ``if a: A elif b: B else: C`` -> ``if a: A elif not b: C else: B``;
    * ``if c: A`` (no ``else``, no ``elif``) as the last statement of a ``for``/``async
      for``/``while`` body (not of the loop's ``else``) -> ``if not c: continue`` followed
      by ``A``'s statements one level out: a ``continue`` at the end of the body is falling
      off it;
    * ``if c: A`` as the last statement of a function (``def``/``async def``, generators
      included) -> ``if not c: return`` followed by ``A``: a bare ``return`` at the end of
      a function is falling off it (``None``; ``StopIteration`` in a generator).

    An ``if c: A`` whose ``A`` ends with a jump (``return``, ``raise``, ``break``,
    ``continue``) is already an early exit as written, and its guard form reads backwards
    (``if not x.isnumeric(): return False`` would give ``if x.isnumeric(): continue`` /
    ``return False``): it is left alone, and the refusal says so.  Any other ``if`` without
    ``else`` (and a chain ending in ``elif`` without ``else``) is not a site: its inversion
    would need an empty branch, ``if not c: pass`` / ``else: A``, which nobody writes;
    ``empty_branch=True`` writes that form for every such ``if`` instead of guard clauses
    (the form of earlier codemorph versions).

    The condition is negated by :func:`negate` (``not``, parenthesised only when needed;
    ``not E`` -> ``E``; ``is``/``is not`` and ``in``/``not in`` flipped), which keeps
    truthiness (``__bool__``/``__len__`` called exactly as often), evaluation order,
    short-circuiting and walrus bindings.  Comments move with their branch: the comment
    after ``if c:`` / ``else:`` and the comments inside each body go where the body goes;
    comments on the lines just before ``else:`` move with the else branch.  A guard clause
    keeps the comments on the lines before the ``if``; the comment after ``if c:`` describes
    ``A`` and goes with it: ``if c:  # note`` gives ``if not c:`` / ``continue`` and then
    ``# note`` on its own line before ``A``'s first statement, and a one-line ``if c: A  #
    note`` gives ``if not c: continue`` with ``A  # note`` on the next line; ``A``'s
    statements keep their comments.  An ``if`` whose block ends with a comment after its
    last statement, holds only ``pass``, or is a one-line ``if`` whose statement spans
    several lines is not a guard site (its guard form would lose a comment's place or the
    alignment of its continuation lines, or be an empty branch again).

    With ``simplify`` on (the default), the negated test is simplified where z3 proves it
    valid for every value of the operands' types (see :func:`negate`): ``not (a < b)`` ->
    ``a >= b`` on ints and strings, ``not (a == b)`` -> ``a != b``, De Morgan over
    comparisons and bools.  Operand types come from literals, the runtime observations of
    locals (``ctx.observations``), and expressions typed from their parts for every value
    (:class:`~codemorph.authoring.ExpressionTypes`: ``len(w)`` with the builtin ``len``,
    ``i % 2`` of an int, ``s[:4]`` and ``s.lower()`` of an exact str...); the last need no
    observation, so a program without observations still gets ``len(w) >= 3``.  A site
    whose negation would still read ``not a < b`` (a single ``< <= > >= == !=``
    comparison that cannot be flipped: an operand of unknown type, floats under ``<``...)
    is left alone, since nobody writes that form: the program's other sites are rewritten,
    and a program with no other site is refused with a reason naming each such line and
    comparison.  ``not x``, ``not f(x)``, ``x not in y``, ``x is not None`` and ``not a < b
    < c`` are written as usual.

    Args:
        which: ``"all"`` (default) inverts every site; ``"one"`` inverts one site chosen
            with ``ctx.rng`` (uniformly, sites in source order: if/else chains and guard
            sites).
        simplify: ``True`` (default) simplifies negated tests where operand types are
            known and leaves alone a site whose negation would read ``not a < b``;
            ``False`` never simplifies and writes ``not c`` for every site.
        empty_branch: ``False`` (default) inverts an ``if`` without ``else`` only as a guard
            clause; ``True`` writes ``if not c: pass`` / ``else: A`` for every ``if`` (and
            last ``elif``) without ``else``, as earlier versions did.

    Refuses (``NotApplicable``) when the program has no ``if`` statement, when it has no
    site (no ``if`` with an ``else``, and no ``if`` without ``else`` at the end of a loop
    body or function but those left alone, which the reason names), when every site is
    left alone because its negation would read ``not a < b`` (the reason names each line
    and comparison), or when it looks at
    line numbers or source text (tracebacks, warnings, ``inspect``), since the rewrite
    changes the line numbers of the statements it moves.

    Raises:
        ValueError: on construction, when ``which`` is not ``"all"`` or ``"one"``, or
            ``simplify`` or ``empty_branch`` is not a bool.
    """

    uses_runtime_types = True
    name = "invert-if"
    family = "branches"
    description = ("Invert if statements under the negated condition: swap if/else branches (keeps elif chains, "
                   "truthiness, short-circuiting); an if without else ending a loop body or function becomes a "
                   "guard clause (continue/return) unless its body already ends with a jump.")
    preconditions = (
        "the program does not observe line numbers or source text",
        "an if without else is a site only as the last statement of a loop body (for, async for, while) or "
        "of a function, and not in an elif chain (unless empty_branch); its body does not end with return, raise, "
        "break or continue (an early exit as written), its block does not end with a comment, "
        "does not hold only pass, and (a one-line if) does not span several lines",
        "simplified comparisons: both operands' types (literals, observed locals, expressions typed from "
        "their parts such as len(x) with the builtin len) lie in a domain where z3 proves the negation identity",
        "De Morgan: every operand is a comparison, `not`, or of type bool, and none is left as `not a < b`",
        "a site whose negation would read `not a < b` (one comparison that cannot be flipped) is left alone",
    )

    def __init__(self, which: str = "all", simplify: bool = True, empty_branch: bool = False) -> None:
        SiteChoice.__init__(self, which)
        if not isinstance(simplify, bool):
            raise ValueError(f"invert-if: option simplify must be true or false, got {simplify!r}")
        if not isinstance(empty_branch, bool):
            raise ValueError(f"invert-if: option empty_branch must be true or false, got {empty_branch!r}")
        self.simplify = simplify
        self.empty_branch = empty_branch

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        finder = _IfSites(self.empty_branch)
        module.visit(finder)
        if not finder.ifs:
            raise NotApplicable("no if statement")
        found = hazard_identifiers(module, LINE_HAZARDS)
        if found:
            raise NotApplicable(f"program observes line numbers or source text ({', '.join(found)})")
        if not finder.sites and finder.skipped:
            raise NotApplicable("no if with an else, and no if without else at the end of a loop body or function "
                                "that can become a guard clause; left alone there: " + "; ".join(finder.skipped))
        if not finder.sites:
            raise NotApplicable("no if with an else, and no if without else at the end of a loop body or function "
                                "(its inversion would need an empty branch, `if not c: pass`)")
        oracle = TypeOracle(ctx) if self.simplify else None
        negations: dict[cst.If, Negation] = {}
        left_alone: list[str] = []
        for site in finder.sites:
            negation = negate(site.test, oracle)
            comparison = negated_comparison(negation[0]) if oracle is not None else None
            if comparison is not None:
                left_alone.append(_left_alone(ctx, site.test, comparison, oracle))
            else:
                negations[site] = negation
        sites = [site for site in finder.sites if site in negations]
        if not sites:
            reason = "; ".join(left_alone)
            if finder.skipped:
                reason += "; left alone at the end of a loop body or function: " + "; ".join(finder.skipped)
            raise NotApplicable(reason)
        chosen = self.choose(ctx, sites)
        return module.visit(_InvertRewriter(ctx, chosen, finder.guards, negations, module.default_indent))
