"""``dead-code``: a branch under an opaque predicate that never runs.
"""

from __future__ import annotations

import libcst as cst

from codemorph.engine import RewriteContext, Transform
from codemorph.transforms.deadcode.predicates import BODY_TEMPLATES
from codemorph.transforms.deadcode.positions import (
    InsertStatements, choose_position, dead_body, opaque_condition,
)

__all__ = ["DeadCode"]


class DeadCode(Transform):
    """Insert an unreachable ``if`` block, guarded by an opaque predicate, into a function.

    A statement position inside a function body (any nesting depth, after the docstring
    and ``global``/``nonlocal`` declarations, never in a class body) is chosen with
    ``ctx.rng``, uniformly over all positions of all eligible functions in source order.
    There an ``if`` is inserted whose condition (see :data:`PREDICATES`) is false for every
    value, e.g. ``if type(text) is str and len(text) < 0:``.  Only predicates that z3
    proves false for every value of their variable are used (:func:`proved_predicates`,
    checked once per process; a catalogue entry that is not constant is never emitted).

    The predicate's variable, in order of preference:

    1. with runtime observations (``ctx.observations``): a local that is bound at the
       position on every path (:func:`bound_at`) and was observed only as ``int`` in
       that function, under ``type(x) is int and <integer fact>`` -- the guard holds, so
       the arithmetic fact is evaluated (and proved false) at run time;
    2. a parameter that is bound at every point of the function; when the entry point's
       harness inputs are known the guard type is the argument's type;
    3. without a usable parameter (or when ``type``/``int``/``len``... may be rebound), a
       fresh local assigned an int literal just before the ``if`` (``k = 7`` /
       ``if k * k < 0:``).

    The guard ``type(x) is T`` is always kept for program variables: it makes the
    predicate false for every input, observed or not.  The body (see
    :data:`BODY_TEMPLATES`) reads locals and assigns only fresh names or names already
    local, so scoping is unchanged.

    In a script (:attr:`RewriteContext.script`: a ``stdin`` row, whose module namespace no
    harness reads) the positions of the module body count too (after its docstring and
    ``from __future__`` imports), unless the program spells ``eval``/``exec``/``locals``/
    ``globals``/``vars``/``dir``; there the predicate is over a fresh variable (rule 3) and
    the body reads only it and never returns.

    Functions using ``eval``/``exec``/``locals``/``globals``/``vars``/``dir()`` are skipped;
    programs inspecting frames, code objects or line numbers are refused.

    Takes no options.  Deterministic for a given rng.
    """

    uses_runtime_types = True
    name = "dead-code"
    family = "dead-code"
    description = "Insert an unreachable if-block guarded by a provably false predicate into a function."
    preconditions = (
        "the predicate is false for every value (catalogue proved by z3 in the transform, exact-type guards)",
        "the predicate's variable is bound at the position on every path, never deleted / except-as / "
        "global / nonlocal",
        "builtins the predicate calls are not rebound (else a fresh int local is used)",
        "the dead body assigns only fresh names or existing locals; no yield/await/global/nonlocal",
        "the function does not use eval/exec/locals/globals/vars/dir(); no frame/line introspection",
    )

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        site = choose_position(module, ctx, scripts=True)
        stmts, var, condition = opaque_condition(module, ctx, site)
        body = dead_body(ctx, site, var, BODY_TEMPLATES)
        source = f"if {condition}:\n" + "".join(f"    {line}\n" for line in body)
        stmts.append(cst.parse_statement(source))
        ctx.record(site.anchor, f"unreachable `if {condition}:` inserted in {site.where}")
        return module.visit(InsertStatements(site.suite, site.index, stmts))
