"""``peel-loop``: the first iteration of a ``for`` loop peeled off.
"""

from __future__ import annotations

import libcst as cst

from codemorph.engine import RewriteContext, Transform
from codemorph.authoring.sites import SiteChoice
from codemorph.transforms.loops.common import loop_jumps
from codemorph.transforms.loops.forms import rewrite_for_loops

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
    every other loop but a ``range`` one (a range loop without the counter form is refused,
    see :mod:`codemorph.transforms.loops.forms`)::

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
    raises are not caught (it is the ``try``'s ``else``).  Nested loops: with
    ``which="all"`` only the outermost eligible loops are peeled, the loops inside them are
    copied as written (peeling those too would copy each inner peel into both copies of the
    outer body: four copies of an inner body for two nested loops).

    Args:
        which: ``"all"`` (default) or ``"one"`` (one eligible loop chosen with ``ctx.rng``).

    Refuses (``NotApplicable``) loops whose body has ``break``/``continue`` for this loop
    (the peeled copy is not inside a loop), ``async for``, loops outside functions (but for a
    script's module-level loops, as in ``for-to-while``) or in functions using ``eval``/``exec``/``locals``/``globals``/``vars``/``dir()``, loops that
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
        "loop is a plain `for` in a function that does not use eval/exec/locals/globals/vars/dir(), "
        "or at module level of a script whose namespace nothing reads by name",
        "counter/index forms: as for-to-while",
        "which=all: not inside another loop that is peeled",
    )
    uses_runtime_types = True

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        def refuse(loop: cst.For) -> str | None:
            jumps = loop_jumps(loop.body)
            return f"body has {jumps[0]} for this loop" if jumps else None

        return rewrite_for_loops(module, ctx, self.which, lambda form, loop: form.peeled(loop),
                                 lambda form: f"first iteration peeled ({form.description})", refuse,
                                 outermost=True)
