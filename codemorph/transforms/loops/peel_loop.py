"""``peel-loop``: the first iteration of a ``for`` loop peeled off.
"""

from __future__ import annotations

import libcst as cst

from codemorph.engine import RewriteContext, Transform
from codemorph.authoring.sites import SiteChoice
from codemorph.authoring.syntax import parenthesize_if_bare_tuple
from codemorph.transforms.loops.for_to_while import LoopNames
from codemorph.transforms.loops.common import (
    BlockRewriter, Plan, assign, block_statements, choose_loop_sites, for_loop_facts, for_sites,
    loop_jumps, prepend_lines, refuse_program, simple_line,
)

__all__ = ["PeelLoop"]


class PeelLoop(SiteChoice, Transform):
    """Peel the first iteration off ``for`` loops.

    ``for TARGET in ITERABLE: BODY else: ELSE`` becomes::

        it = iter(ITERABLE)
        end = object()
        if (item := next(it, end)) is not end:
            TARGET = item
            BODY
            while (item := next(it, end)) is not end:
                TARGET = item
                BODY
        ELSE

    with fresh names for ``it``, ``end`` and ``item``.  The iterator protocol is exactly
    the ``for`` statement's (as in :class:`ForToWhile`): ``iter`` once, ``next`` until the
    first ``StopIteration`` and never after it, the target assigned only when an item
    came.  The body has no ``break`` for this loop, so ``else`` always runs after the last
    iteration and becomes plain statements after the loop.

    Args:
        which: ``"all"`` (default) or ``"one"`` (one eligible loop chosen with ``ctx.rng``).

    Refuses (``NotApplicable``) loops whose body has ``break``/``continue`` for this loop
    (the peeled copy is not inside a loop), ``async for``, loops outside functions or in
    functions using ``eval``/``exec``/``locals``/``globals``/``vars``/``dir()``, and
    programs that may rebind ``iter``/``next``/``object``, observe object lifetimes (see
    :func:`finalisation_hazard`) or inspect frames or line numbers.

    Raises:
        ValueError: on construction, when ``which`` is not ``"all"`` or ``"one"``.
    """

    name = "peel-loop"
    family = "loops"
    description = "Peel the first iteration off for loops (explicit iterator, next with a sentinel)."
    preconditions = (
        "iter, next and object are the builtins (not rebound anywhere, no builtins-module access)",
        "no generator with try/with, no __del__, no weakref/gc: iterator lifetime is unobservable",
        "no frame or line introspection (new locals, duplicated lines are unobservable)",
        "the body has no break/continue for this loop",
        "loop is a plain `for` in a function that does not use eval/exec/locals/globals/vars/dir()",
    )

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        facts = for_loop_facts(module, ctx)
        refuse_program(module, ctx, facts, frozenset(facts.names), emits=("iter", "next", "object"))

        def check(loop: cst.For) -> str | None:
            jumps = loop_jumps(loop.body)
            return f"body has {jumps[0]} for this loop" if jumps else None

        eligible, reasons = for_sites(ctx, facts, "loop", check)
        chosen = choose_loop_sites(self.which, ctx, eligible, reasons, "for loop")
        plans: dict[cst.CSTNode, Plan] = {}
        for loop in chosen:  # source order: outer loops get the plain names
            names = LoopNames(ctx.fresh_name("_it"), ctx.fresh_name("_end"), ctx.fresh_name("_item"))
            ctx.record(loop, f"first iteration peeled (iterator {names.iterator})")
            plans[loop] = self._plan(names)
        return module.visit(BlockRewriter(plans))

    @staticmethod
    def _plan(n: LoopNames) -> Plan:
        def fetch_test() -> cst.Comparison:
            fetch = cst.NamedExpr(
                target=cst.Name(n.item),
                value=cst.Call(cst.Name("next"), [cst.Arg(cst.Name(n.iterator)), cst.Arg(cst.Name(n.sentinel))]),
                lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            return cst.Comparison(fetch, [cst.ComparisonTarget(cst.IsNot(), cst.Name(n.sentinel))])

        def plan(node: cst.BaseStatement) -> tuple[list[cst.BaseStatement], list[cst.EmptyLine]]:
            assert isinstance(node, cst.For)
            first = cst.Call(cst.Name("iter"), [cst.Arg(parenthesize_if_bare_tuple(node.iter))])
            iterator = simple_line(assign(cst.Name(n.iterator), first), leading=node.leading_lines)
            sentinel = simple_line(assign(cst.Name(n.sentinel), cst.Call(cst.Name("object"))))
            bind = simple_line(assign(node.target, cst.Name(n.item)))
            body, footer = block_statements(node.body)
            header = node.body.header if isinstance(node.body, cst.IndentedBlock) else cst.TrailingWhitespace()
            rest = cst.While(test=fetch_test(), body=cst.IndentedBlock(body=[bind, *body], footer=footer))
            peeled = cst.If(test=fetch_test(), body=cst.IndentedBlock(body=[bind, *body, rest], header=header))
            out: list[cst.BaseStatement] = [iterator, sentinel, peeled]
            left: list[cst.EmptyLine] = []
            if node.orelse is not None:
                stmts, left = block_statements(node.orelse.body)
                stmts[0] = prepend_lines(stmts[0], node.orelse.leading_lines)
                out += stmts
            return out, left
        return plan
