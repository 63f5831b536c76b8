"""``peel-loop``: the first iteration of a ``for`` loop peeled off.
"""

from __future__ import annotations

import libcst as cst

from codemorph.engine import RewriteContext, Transform
from codemorph.authoring.sites import SiteChoice
from codemorph.transforms.loops.common import (
    BlockRewriter, Plan, choose_loop_sites, for_loop_facts, for_sites, loop_jumps, refuse_program,
)
from codemorph.transforms.loops.forms import LoopForm, LoopForms

__all__ = ["PeelLoop"]


class PeelLoop(SiteChoice, Transform):
    """Peel the first iteration off ``for`` loops, in the ``while`` forms of
    :class:`~codemorph.transforms.loops.ForToWhile` (see
    :mod:`codemorph.transforms.loops.forms`).

    A counter or index loop ``SETUP`` / ``while TEST: HEAD; BODY; STEP`` becomes::

        SETUP                      # i = 0
        if TEST:                   # if i < len(xs):
            HEAD                   #     x = xs[i]
            BODY
            STEP                   #     i += 1
            while TEST:
                HEAD
                BODY
                STEP
        ELSE

    (``while C: B`` is ``if C: B; while C: B`` when ``B`` has no ``break``/``continue``), and
    every other loop::

        it = iter(ITERABLE)
        try:
            TARGET = next(it)
        except StopIteration:
            pass
        else:
            BODY
            while True:
                try:
                    TARGET = next(it)
                except StopIteration:
                    break
                BODY
        ELSE

    The body has no ``break`` for this loop, so ``else`` always runs after the last
    iteration and becomes plain statements after the loop.  Exceptions the first ``BODY``
    raises are not caught (it is the ``try``'s ``else``).

    Args:
        which: ``"all"`` (default) or ``"one"`` (one eligible loop chosen with ``ctx.rng``).

    Refuses (``NotApplicable``) loops whose body has ``break``/``continue`` for this loop
    (the peeled copy is not inside a loop), ``async for``, loops outside functions or in
    functions using ``eval``/``exec``/``locals``/``globals``/``vars``/``dir()``, loops that
    need the general form when ``iter``/``next``/``StopIteration`` may be rebound, and
    programs that observe object lifetimes (see :func:`finalisation_hazard`) or inspect frames
    or line numbers.

    Raises:
        ValueError: on construction, when ``which`` is not ``"all"`` or ``"one"``.
    """

    name = "peel-loop"
    family = "loops"
    description = "Peel the first iteration off for loops (counter, index or iterator while loops)."
    preconditions = (
        "the builtins a form emits or removes (len, range, enumerate, iter, next, StopIteration...) "
        "are not rebound anywhere; no builtins-module access",
        "no generator with try/with, no __del__, no weakref/gc: iterator lifetime is unobservable",
        "no frame or line introspection (new locals, duplicated lines are unobservable)",
        "the body has no break/continue for this loop",
        "loop is a plain `for` in a function that does not use eval/exec/locals/globals/vars/dir()",
        "counter/index forms: as for-to-while",
    )
    uses_runtime_types = True

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        facts = for_loop_facts(module, ctx)
        refuse_program(module, ctx, facts, frozenset(facts.names))
        forms = LoopForms(module, ctx, facts)
        owners = {loop: owner for loop, owner in facts.loops}

        def check(loop: cst.For) -> str | None:
            jumps = loop_jumps(loop.body)
            if jumps:
                return f"body has {jumps[0]} for this loop"
            form = forms.form_of(loop, owners[loop], reserve=False)
            return form if isinstance(form, str) else None

        eligible, reasons = for_sites(ctx, facts, "loop", check)
        chosen = choose_loop_sites(self.which, ctx, eligible, reasons, "for loop")
        plans: dict[cst.CSTNode, Plan] = {}
        for loop in chosen:  # source order: outer loops get the first names
            form = forms.form_of(loop, owners[loop])
            assert isinstance(form, LoopForm)
            ctx.record(loop, f"first iteration peeled ({form.description})")
            plans[loop] = self._plan(form)
        return module.visit(BlockRewriter(plans))

    @staticmethod
    def _plan(form: LoopForm) -> Plan:
        def plan(node: cst.BaseStatement) -> tuple[list[cst.BaseStatement], list[cst.EmptyLine]]:
            assert isinstance(node, cst.For)
            return form.peeled(node)
        return plan
