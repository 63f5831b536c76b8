"""``peel-loop``: the first iteration of a ``for`` loop peeled off.
"""

from __future__ import annotations

import libcst as cst

from codemorph.engine import RewriteContext, Transform
from codemorph.authoring.sites import SiteChoice
from codemorph.transforms.loops.common import block_statements, loop_jumps
from codemorph.transforms.loops.forms import ends_in_jump, rewrite_for_loops
from codemorph.transforms.loops.peeling import PeelForms

__all__ = ["PeelLoop"]


class PeelLoop(SiteChoice, Transform):
    """Peel the first iteration off ``for`` loops, in the forms a person writes (see
    :mod:`codemorph.transforms.loops.peeling` for the precise conditions and why each form
    is exact)::

        for x in xs:               if xs:
            BODY            ->         x = xs[0]
                                       BODY
                                       for x in xs[1:]:
                                           BODY

    over a sequence (a local only ever observed holding an exact ``list``, ``tuple`` or
    ``str`` that the loop cannot rebind; ``for i, x in enumerate(xs)`` as ``i = 0`` /
    ``x = xs[0]`` / ... / ``for i, x in enumerate(xs[1:], start=1):``; an expression known
    to give one bound first, ``items = sorted(d)``) whose body cannot change it (a ``list``:
    :meth:`~codemorph.transforms.loops.peeling.PeelForms.body_cannot_change`; otherwise
    ``i = 1`` / ``while i < len(xs):`` / ``x = xs[i]`` / ... / ``i += 1`` after the first
    iteration); ``for i in range(a, b)`` as ``if a < b:`` (``if n > 0:``, ``if xs:``, none
    for a literal nonempty range) / ``i = a`` / BODY / ``for i in range(a + 1, b):``; every
    other loop::

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

    The body has no ``break`` for this loop, so ``else`` always runs after the last
    iteration and becomes plain statements after the peeled code.  Exceptions the first
    ``BODY`` raises are not caught (it is the ``try``'s ``else``).  Nested loops: with
    ``which="all"`` only the outermost eligible loops are peeled, the loops inside them are
    copied as written (peeling those too would copy each inner peel into both copies of the
    outer body: four copies of an inner body for two nested loops).

    Args:
        which: ``"all"`` (default) or ``"one"`` (one eligible loop chosen with ``ctx.rng``).

    Refuses (``NotApplicable``) loops whose body has ``break``/``continue`` for this loop
    (the peeled copy is not inside a loop; no form people write keeps them) or always
    returns or raises (the loop over the rest would be dead code), ``async for``,
    range loops whose bounds are not known ints (or an empty literal range), loops outside
    functions (but for a script's module-level loops, as in ``for-to-while``) or in
    functions using ``eval``/``exec``/``locals``/``globals``/``vars``/``dir()``, loops that
    need the iterator form when ``iter``/``next``/``StopIteration`` may be rebound, and
    programs that observe object lifetimes (see :func:`finalisation_hazard`) or inspect
    frames or line numbers.

    Raises:
        ValueError: on construction, when ``which`` is not ``"all"`` or ``"one"``.
    """

    name = "peel-loop"
    family = "loops"
    description = ("Peel the first iteration off for loops: if xs: / x = xs[0] / ... / for x in xs[1:], "
                   "if n > 0: / i = 0 / ... / for i in range(1, n), else an explicit iterator.")
    preconditions = (
        "the builtins a form emits or removes (len, range, enumerate, iter, next, StopIteration...) "
        "are not rebound anywhere; no builtins-module access",
        "no generator with try/with, no __del__, no weakref/gc: iterator lifetime is unobservable",
        "no frame or line introspection (new locals, duplicated lines are unobservable)",
        "the body has no break/continue for this loop and does not always return or raise",
        "loop is a plain `for` in a function that does not use eval/exec/locals/globals/vars/dir(), "
        "or at module level of a script whose namespace nothing reads by name",
        "range: int bounds; the start, and the bound unless bound first to a fresh name, unchanged by the "
        "first iteration (else the start is bound to the loop variable, which is then neither rebound in "
        "the body nor read outside it)",
        "slice form: a list/tuple/str local the loop cannot rebind; a list the body cannot change "
        "(else the index form from 1)",
        "which=all: not inside another loop that is peeled",
    )
    uses_runtime_types = True

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        def refuse(loop: cst.For) -> str | None:
            jumps = loop_jumps(loop.body)
            if jumps:
                return f"body has {jumps[0]} for this loop"
            if ends_in_jump(block_statements(loop.body)[0]):
                # the first copy always returns or raises: the loop over the rest would be dead code
                return "the body always returns or raises: the loop over the rest would never run"
            return None

        return rewrite_for_loops(module, ctx, self.which, lambda form, loop: form.peeled(loop),
                                 lambda form: f"first iteration peeled ({form.description})", refuse,
                                 outermost=True, forms_class=PeelForms)
