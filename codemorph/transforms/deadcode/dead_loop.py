"""``dead-loop``: a loop that never iterates.
"""

from __future__ import annotations

import libcst as cst

from codemorph.engine import RewriteContext, Transform
from codemorph.transforms.deadcode.predicates import BODY_TEMPLATES, Body
from codemorph.transforms.deadcode.positions import (
    InsertStatements, choose_position, dead_body, opaque_condition,
)

__all__ = ["LOOP_BODY_TEMPLATES", "DeadLoop"]


#: Bodies only a loop can hold (``break``/``continue`` bind to the dead loop itself).
LOOP_BODY_TEMPLATES: tuple[Body, ...] = (
    Body(("if {v} is None:", "    break", "{t} = {p}", "print({t})")),
    Body(("{t} = {p}", "if not {t}:", "    continue", "{v} = {t}")),
    Body(("{t} = [{p}, {v}]", "if len({t}) > 1:", "    break")),
)

_LOOP_HINTS = ("item", "entry", "elem", "row", "part", "ch")


class DeadLoop(Transform):
    """Insert a loop that runs zero times, with a plausible body, into a function.

    Two forms, chosen with ``ctx.rng``:

    * ``for item in ():`` -- iterating the empty tuple literal (no name lookup, no call);
      the target is a fresh name;
    * ``while <opaque predicate>:`` -- a predicate of the z3-proved ``dead-code``
      catalogue (:func:`opaque_condition`: ``type(x) is int and x * x < 0`` over a local
      observed as int, a bound parameter, or a fresh int constant), evaluated once.

    The body comes from :data:`BODY_TEMPLATES` and :data:`LOOP_BODY_TEMPLATES` (the latter
    may ``break``/``continue``, which bind to the dead loop); it assigns only fresh names
    or names already local.  No ``else`` clause (it would run).  Positions, skipped
    functions and refusals are those of ``dead-code``.

    Takes no options.  Deterministic for a given rng.
    """

    uses_runtime_types = True
    name = "dead-loop"
    family = "dead-code"
    description = "Insert a loop that runs zero times (for over an empty tuple, or while under a false predicate)."
    preconditions = (
        "the loop iterates the literal () or is guarded by a z3-proved false predicate; no else clause",
        "the body assigns only fresh names or existing locals; no yield/await/global/nonlocal",
        "the function does not use eval/exec/locals/globals/vars/dir(); no frame/line introspection",
    )

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        site = choose_position(module, ctx)
        form = ctx.rng.choice(("for", "while"))
        if form == "for":
            stmts: list[cst.BaseStatement] = []
            var = ctx.fresh_name(ctx.rng.choice(_LOOP_HINTS))
            header = f"for {var} in ():"
        else:
            stmts, var, condition = opaque_condition(module, ctx, site)
            header = f"while {condition}:"
        body = dead_body(ctx, site, var, BODY_TEMPLATES + LOOP_BODY_TEMPLATES)
        stmts.append(cst.parse_statement(f"{header}\n" + "".join(f"    {line}\n" for line in body)))
        ctx.record(site.anchor, f"zero-iteration loop `{header}` inserted in {site.func.name.value}()")
        return module.visit(InsertStatements(site.suite, site.index, stmts))
