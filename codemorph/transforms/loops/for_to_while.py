"""``for-to-while``: ``for`` loops as the ``while`` loops people write (a counter loop, an
index loop, or an explicit iterator).
"""

from __future__ import annotations

import libcst as cst

from codemorph.engine import RewriteContext, Transform
from codemorph.authoring.sites import SiteChoice
from codemorph.transforms.loops.forms import rewrite_for_loops

__all__ = ["ForToWhile"]


class ForToWhile(SiteChoice, Transform):
    """Rewrite ``for`` loops in function bodies (and a script's module-level loops) as
    equivalent ``while`` loops, in the form a person writes (:mod:`codemorph.transforms.loops.forms` has the precise conditions and why
    each form is exact):

    * ``for v in range(a, b)`` (also ``range(b)``, ``range(a, b, k)`` with a nonzero int
      literal ``k``), ``a`` and ``b`` ints, ``v`` not rebound in the body and read nowhere
      outside it::

          v = a
          while v < b:
              BODY
              v += 1

      (``b`` is bound to a fresh name first, ``n = b``, unless it is a literal, an invariant
      local or ``len`` of an invariant ``str``/``tuple`` local); ``for _ in range(b)`` counts
      with a fresh ``i`` (``_`` is never bound) when the body does not read ``_``; a
      ``range`` (or ``reversed(range(...))``) loop without a proved counter form is left
      alone (refused with the reason), never written as ``iter(range(...))``;
    * ``for x in xs`` where ``xs`` is a local only ever observed holding an exact ``list``,
      ``tuple`` or ``str`` that the loop cannot rebind (or an expression known to give one,
      bound to a fresh name first: ``items = sorted(d)``), and ``for i, x in enumerate(xs)``
      with ``i`` as the counter::

          i = 0
          while i < len(xs):
              x = xs[i]
              BODY
              i += 1

    * every other loop (never a ``range``)::

          it = iter(ITERABLE)
          while True:
              try:
                  TARGET = next(it)
              except StopIteration:
                  break
              BODY

    In the counter and index forms ``i += 1`` is also inserted before each ``continue`` of
    the loop, and ``else`` stays the ``while`` loop's ``else``; in the general form an
    ``else`` follows the loop (behind ``if exhausted:``, a flag the ``except`` sets, when the
    body has ``break``).  The loop variable keeps its
    value after the loop and stays unbound after zero iterations.  Fresh names (``i``, ``j``,
    ``it``, ``n``, ``items``, ``item``...) are spelled nowhere in the program.

    Runtime observations (``generate`` collects them; ``uses_runtime_types``) decide the
    index form and names in ``range`` bounds; without them those loops get the general form.

    Args:
        which: ``"all"`` (default) rewrites every eligible loop; ``"one"`` rewrites one
            eligible loop chosen with ``ctx.rng`` (uniformly, over loops in source order).

    Refuses (``NotApplicable``) programs that may rebind builtins through the ``builtins``
    module, can observe when an object is released (see :func:`finalisation_hazard`) or
    inspect frames/lines; skips loops that are ``async for``, at module level (unless the
    program is a script, :attr:`RewriteContext.script`, that spells none of
    :data:`~codemorph.transforms.loops.forms.NAMESPACE_HAZARDS`: then the forms' proofs also
    cover the functions that may read or rebind its module-level names, see
    :class:`~codemorph.transforms.loops.forms.ScriptFacts`), directly in a class body, or in a
    function using ``eval``/``exec``/``locals``/``globals``/``vars``/``dir()``, and loops that
    need the general form when ``iter``, ``next`` or ``StopIteration`` may be rebound.

    Raises:
        ValueError: on construction, when ``which`` is not ``"all"`` or ``"one"``.
    """

    name = "for-to-while"
    family = "loops"
    description = ("Rewrite for loops as while loops: counter loops over range, index loops over "
                   "sequences (types), else an explicit iterator with next.")
    preconditions = (
        "the builtins a form emits or removes (len, range, enumerate, iter, next, StopIteration...) "
        "are not rebound anywhere; no builtins-module access",
        "no generator with try/with, no __del__, no weakref/gc: iterator lifetime is unobservable",
        "no frame or line introspection (new locals, moved lines are unobservable)",
        "loop is a plain `for` directly in a function body (not a class body), or at module level of a "
        "script whose namespace nothing reads by name (globals, eval, __main__, sys.modules...)",
        "the function does not use eval/exec/locals/globals/vars/dir()",
        "counter/index forms: the counter is not rebound in the body and not read outside it; "
        "the sequence is a local observed only as list/tuple/str that the loop cannot rebind; "
        "at a script's module level, also no function reads the counter or rebinds the sequence (global)",
    )
    uses_runtime_types = True

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        return rewrite_for_loops(module, ctx, self.which, lambda form, loop: form.while_loop(loop),
                                 lambda form: f"for loop -> {form.description}")
