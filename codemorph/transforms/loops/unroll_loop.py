"""``unroll-loop``: ``for i in range(K)`` with a small literal ``K`` unrolled.
"""

from __future__ import annotations

import libcst as cst

from codemorph.engine import NotApplicable, RewriteContext, Transform
from codemorph.authoring.sites import SiteChoice
from codemorph.transforms.loops.common import (
    BlockRewriter, Plan, assign, block_statements, choose_loop_sites, for_loop_facts, for_sites,
    int_literal, int_node, loop_jumps, name_nodes, prepend_lines, refuse_program, simple_line,
    statement_comments,
)

__all__ = ["UnrollLoop"]


def _range_values(node: cst.BaseExpression, limit: int) -> tuple[list[int] | None, str | None]:
    """The values of ``range(<int literals>)`` when there are 1..``limit`` of them, else
    ``(None, reason)``.  The literals are evaluated by libcst, never executed."""
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "range"):
        return None, "not a loop over range(...)"
    if not 1 <= len(node.args) <= 3 or any(a.keyword is not None or a.star for a in node.args):
        return None, "range(...) with keyword or starred arguments"
    bounds = [int_literal(a.value) for a in node.args]
    if any(b is None for b in bounds):
        return None, "range(...) bounds are not int literals"
    if len(bounds) == 3 and bounds[2] == 0:
        return None, "range(...) step is 0 (raises)"
    r = range(*bounds)  # type: ignore[arg-type]
    if len(r) == 0:
        return None, "range(...) is empty (the loop variable would stay unbound)"
    if len(r) > limit:
        return None, f"range(...) has {len(r)} values (more than {limit})"
    return list(r), None


class UnrollLoop(SiteChoice, Transform):
    """Unroll ``for i in range(K)`` loops with a small constant trip count.

    ``for i in range(3): BODY`` becomes ``i = 0``, ``BODY``, ``i = 1``, ``BODY``, ``i = 2``,
    ``BODY``; the ``range`` arguments must be int literals (``range(K)``, ``range(a, b)``,
    ``range(a, b, s)``, negative literals allowed) giving 1 to ``max_iterations`` values.
    The loop variable holds the last value after the unrolled code, as after the loop.  A
    loop variable that nothing in the function reads (``for j in range(2): i += 1``) gets no
    ``j = 0`` / ``j = 1`` lines: the copies follow each other.  A loop ``else`` (which always
    runs, the body having no ``break``) follows the copies.

    Args:
        which: ``"all"`` (default) or ``"one"`` (one eligible loop chosen with ``ctx.rng``).
        max_iterations: largest trip count unrolled (1 to 4; default 4).

    Refuses (``NotApplicable``) loops whose body has ``break`` or ``continue`` (they would
    no longer be in a loop), whose target is not a plain name, empty ranges (the variable
    would be bound where the loop leaves it unbound), ``async for``, loops outside
    functions and in functions using ``eval``/``exec``/``locals``/``globals``/``vars``/
    ``dir()``, and programs that may rebind ``range`` or inspect frames or line numbers.

    Raises:
        ValueError: on construction, for a bad ``which`` or ``max_iterations``.
    """

    name = "unroll-loop"
    family = "loops"
    description = "Unroll for loops over range(K) with K <= 4 literal iterations into K copies of the body."
    preconditions = (
        "range is the builtin (not rebound anywhere, no builtins-module access)",
        "range arguments are int literals giving 1..max_iterations values",
        "the loop target is a plain name; the body has no break/continue for this loop",
        "loop is a plain `for` in a function that does not use eval/exec/locals/globals/vars/dir()",
        "no frame or line introspection (duplicated and moved lines are unobservable)",
    )

    def __init__(self, which: str = "all", max_iterations: int = 4) -> None:
        SiteChoice.__init__(self, which)
        if not isinstance(max_iterations, int) or not 1 <= max_iterations <= 4:
            raise ValueError(f"{self.name}: option max_iterations must be an int from 1 to 4, got {max_iterations!r}")
        self.max_iterations = max_iterations

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        facts = for_loop_facts(module, ctx)
        found = [_range_values(loop.iter, self.max_iterations) for loop, _ in facts.loops]
        if not any(vals for vals, _ in found):
            whys = "; ".join(dict.fromkeys(why for _, why in found if why))
            raise NotApplicable(f"no for loop over a small constant range ({whys})")
        refuse_program(module, ctx, facts, frozenset(facts.names), emits=("range",), lifetime=False)
        values: dict[cst.For, list[int]] = {}
        owners = dict(facts.loops)

        def check(loop: cst.For) -> str | None:
            vals, why = _range_values(loop.iter, self.max_iterations)
            if vals is None:
                return why
            if not isinstance(loop.target, cst.Name):
                return "loop target is not a plain name"
            jumps = loop_jumps(loop.body)
            if jumps:
                return f"body has {jumps[0]} for this loop"
            values[loop] = vals
            return None

        eligible, reasons = for_sites(ctx, facts, "loop", check)
        chosen = choose_loop_sites(self.which, ctx, eligible, reasons, "for loop over a small constant range")
        plans: dict[cst.CSTNode, Plan] = {}
        for loop in chosen:
            ctx.record(loop, f"for loop over range(...) unrolled into {len(values[loop])} copies")
            plans[loop] = self._plan(values[loop], self._unread(loop, owners.get(loop), facts))
        return module.visit(BlockRewriter(plans))

    @staticmethod
    def _unread(loop: cst.For, func: cst.CSTNode | None, facts) -> bool:
        """Whether nothing reads the loop variable: its only spelling in the function is the
        loop's target (no ``del``/``global``/``nonlocal``/``except ... as`` of it either), so
        the copies need no ``j = 0`` / ``j = 1`` lines (``for j in range(2): i += 1``)."""
        if not isinstance(func, cst.FunctionDef) or not isinstance(loop.target, cst.Name):
            return False
        v = loop.target.value
        return v not in facts.functions[func].unbinders and name_nodes(func, v) == [loop.target]

    @staticmethod
    def _plan(vals: list[int], unread: bool = False) -> Plan:
        def plan(node: cst.BaseStatement) -> tuple[list[cst.BaseStatement], list[cst.EmptyLine]]:
            assert isinstance(node, cst.For)
            body, footer = block_statements(node.body)
            header = node.body.header if isinstance(node.body, cst.IndentedBlock) else None
            out: list[cst.BaseStatement] = []
            left: list[cst.EmptyLine] = []
            for k, v in enumerate(vals):
                first = k == 0
                leading = [*(node.leading_lines if first else []),
                           *(statement_comments(node.iter) if first else []), *left]
                if unread:  # no `j = 0` line: its comments go before the copy's first statement
                    if first and header is not None and header.comment:
                        leading.append(cst.EmptyLine(comment=header.comment))
                    out += [prepend_lines(body[0], leading), *body[1:]]
                    left = list(footer)
                    continue
                line = simple_line(assign(node.target.deep_clone(), int_node(v)), leading=leading,
                                    trailing=header if first and header is not None and header.comment else None)
                out += [line, *body]
                left = list(footer)
            if node.orelse is not None:
                stmts, else_footer = block_statements(node.orelse.body)
                stmts[0] = prepend_lines(stmts[0], [*left, *node.orelse.leading_lines])
                out += stmts
                left = else_footer
            return out, left
        return plan
