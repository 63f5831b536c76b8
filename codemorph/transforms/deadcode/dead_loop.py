"""``dead-loop``: a loop that never iterates.
"""

from __future__ import annotations

import libcst as cst

from codemorph.engine import RewriteContext, Transform
from codemorph.transforms.deadcode.predicates import BODY_TEMPLATES, Body
from codemorph.transforms.deadcode.positions import (
    InsertStatements, choose_natural_site, choose_position, dead_body, opaque_condition,
)
from codemorph.transforms.deadcode.dead_code import check_style
from codemorph.transforms.deadcode.guards import natural_loop, wants_loop

__all__ = ["LOOP_BODY_TEMPLATES", "DeadLoop"]


#: Bodies only a loop can hold (``break``/``continue`` bind to the dead loop itself).
LOOP_BODY_TEMPLATES: tuple[Body, ...] = (
    Body(("if {v} is None:", "    break", "{t} = {p}", "print({t})")),
    Body(("{t} = {p}", "if not {t}:", "    continue", "{v} = {t}")),
    Body(("{t} = [{p}, {v}]", "if len({t}) > 1:", "    break")),
)

_LOOP_HINTS = ("item", "entry", "elem", "row", "part", "ch")


class DeadLoop(Transform):
    """Insert a loop that runs zero times, with an ordinary body, into a function.

    ``style="natural"`` (default): ``while n < 0: n += 1`` right after ``n = len(xs)`` (a
    length computed from the program's variables; see
    :mod:`codemorph.transforms.deadcode.checks`, the condition proved false by z3).  The
    position is chosen with ``ctx.rng`` among those right after such an assignment; a
    program without one is refused (``NotApplicable``): no loop over an invented
    ``pending = []``, over a value just assigned a literal (``out = []`` /
    ``for item in out:``) or over a loop counter (``while i < 0:``).

    ``style="opaque"``: chosen with ``ctx.rng``, ``for item in ():`` (iterating the empty
    tuple literal) or ``while <opaque predicate>:`` (the ``dead-code`` catalogue,
    :func:`opaque_condition`), with bodies from :data:`BODY_TEMPLATES` and
    :data:`LOOP_BODY_TEMPLATES` (the latter may ``break``/``continue``, which bind to the
    dead loop).

    Bodies assign only fresh names or names already local.  No ``else`` clause (it would
    run).  Positions, skipped functions and refusals are those of ``dead-code``.

    Options:
        style: ``"natural"`` (default) or ``"opaque"``.

    Raises:
        ValueError: on construction, for another ``style``.

    Deterministic for a given rng.
    """

    uses_runtime_types = True
    name = "dead-loop"
    family = "dead-code"
    description = "Insert a loop that runs zero times: while a proved-false check over a length just computed."
    preconditions = (
        "natural style: the condition is proved false by z3 over a length computed from the program's "
        "variables, right after its assignment (else refused); opaque style: an empty tuple or an opaque "
        "predicate; no else clause",
        "the body assigns only fresh names or existing locals; no yield/await/global/nonlocal",
        "the function does not use eval/exec/locals/globals/vars/dir(); no frame/line introspection",
    )

    def __init__(self, style: str = "natural") -> None:
        self.style = check_style(self.name, style)

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        if self.style == "natural":
            site, facts = choose_natural_site(module, ctx, wants_loop(module, ctx))
            block = natural_loop(module, ctx, site, facts)
            stmts = [cst.parse_statement(f"{line}\n") for line in block.before]
            header = block.header
            body = list(block.body)
        else:
            site = choose_position(module, ctx)
            form = ctx.rng.choice(("for", "while"))
            if form == "for":
                stmts = []
                var = ctx.fresh_name(ctx.rng.choice(_LOOP_HINTS))
                header = f"for {var} in ():"
            else:
                stmts, var, condition = opaque_condition(module, ctx, site)
                header = f"while {condition}:"
            body = dead_body(ctx, site, var, BODY_TEMPLATES + LOOP_BODY_TEMPLATES)
        stmts.append(cst.parse_statement(f"{header}\n" + "".join(f"    {line}\n" for line in body)))
        ctx.record(site.anchor, f"zero-iteration loop `{header}` inserted in {site.func.name.value}()")
        return module.visit(InsertStatements(site.suite, site.index, stmts))
