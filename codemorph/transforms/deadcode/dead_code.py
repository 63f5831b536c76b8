"""``dead-code``: a branch under an opaque predicate that never runs.
"""

from __future__ import annotations

import libcst as cst

from codemorph.engine import RewriteContext, Transform
from codemorph.transforms.deadcode.predicates import BODY_TEMPLATES
from codemorph.transforms.deadcode.positions import (
    InsertStatements, choose_natural_site, choose_position, dead_body, opaque_condition,
)
from codemorph.transforms.deadcode.guards import natural_guard, wants_guard

__all__ = ["DeadCode", "STYLES"]

#: the values of the ``style`` option of ``dead-code`` and ``dead-loop``
STYLES = ("natural", "opaque")


def check_style(transform: str, style: object) -> str:
    """Validate the ``style`` option (``"natural"`` or ``"opaque"``); raise ``ValueError``
    otherwise."""
    if style not in STYLES:
        raise ValueError(f"{transform}: option style must be 'natural' or 'opaque', got {style!r}")
    return style  # type: ignore[return-value]


class DeadCode(Transform):
    """Insert an ``if`` block that never runs into a function: a defensive check over a
    program value, proved false for every input.

    ``style="natural"`` (default): the check is one a person writes about a value the
    program has just computed from its variables
    (:mod:`codemorph.transforms.deadcode.checks`), right after that computation:

    * ``n = len(xs)`` / ``if n < 0: raise ValueError('n must be non-negative')``;
    * ``out = list(text)`` / ``if not isinstance(out, list): out = list(out)`` or
      ``if out is None: out = []``; ``words = [w for w in text.split() if w]`` /
      ``if words is None: return ''``; an early ``return`` gives the function's own result
      (:func:`~codemorph.transforms.deadcode.guards.natural_returns`), never another local;
      a display just built (``items = a, b``) is never checked.

    The position is chosen with ``ctx.rng`` uniformly among the statement positions of the
    eligible functions that directly follow such an assignment (any nesting depth, never in
    a class body; with runtime observations, in a function that ran).  A value made of
    literals only (``out = []``, ``k = 5``, ``s = ' '``, ``list()``), a ``range`` or
    ``enumerate`` counter (``_`` too) and a position later than right after the assignment
    give no site; a program without a site is refused (``NotApplicable``: no check over an
    invented ``limit = 10``).  Every check is proved false under its fact by z3
    (:func:`~codemorph.transforms.deadcode.checks.proved_checks`); bodies read locals and
    assign only locals already bound or fresh names (``return`` never in generators or
    coroutines).  No position follows a statement that never falls through
    (:func:`~codemorph.transforms.deadcode.blocks.never_falls_through`).

    ``style="opaque"``: the opaque predicates of :data:`PREDICATES` (Collberg, Thomborson
    and Low, POPL 1998), e.g. ``if type(text) is str and len(text) < 0:``, over, in order of
    preference,

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
    local, so scoping is unchanged.  Only predicates z3 proves false are used.

    In a script (:attr:`RewriteContext.script`: a ``stdin`` row, whose module namespace no
    harness reads) the natural style checks module-level computed values too
    (``n = len(xs)``, ``n = int(input())``, ``xs = list(map(int, input().split()))``), right
    after their assignment in any module-scope block (never in a ``def``/``class``), under
    stricter rules since every
    such name is a global: the nearest assignment in the same block binds it with no
    statement in between that contains a call or binds it; no code of the module declares
    it ``global``/``nonlocal``, deletes it or catches into it; the program spells none of
    ``eval``/``exec``/``locals``/``globals``/``vars``/``dir``/``__main__``/``__dict__``/
    ``modules``/``setattr``/``delattr``/``__import__``/``import_module``.  The body there
    never returns.  A script without such a site is refused in the natural style; the
    opaque style writes at module level (after its docstring and ``from __future__``
    imports), over a fresh variable (rule 3), with a body that reads only it and never
    returns.

    Functions using ``eval``/``exec``/``locals``/``globals``/``vars``/``dir()`` are skipped;
    programs inspecting frames, code objects or line numbers are refused.

    Options:
        style: ``"natural"`` (default) or ``"opaque"``.
        messages: ``"named"`` (default: ``raise ValueError('n must be non-negative')``) or
            ``"plain"`` (``raise ValueError('expected a non-negative value')``): for a
            pipeline that may rename locals after this step (the ``two-of-four`` recipe),
            where a message naming the old variable would be stale.

    Raises:
        ValueError: on construction, for another ``style`` or ``messages``.

    Deterministic for a given rng.
    """

    uses_runtime_types = True
    name = "dead-code"
    family = "dead-code"
    description = "Insert an if-block that never runs: a defensive check over a program value, proved false."
    preconditions = (
        "the check is false for every input: a fact of how the value was made (len(), list(), a "
        "comprehension...), proved by z3 in the transform; opaque style: exact-type guards",
        "natural style: the value is computed from the program's variables (never literals only, "
        "never a loop counter) and the check follows its assignment directly; else refused",
        "the checked variable is bound at the position by the nearest assignment, never rebound in between, "
        "never deleted / except-as / global / nonlocal",
        "in a script, a module-level value: no statement between its assignment and the check contains a "
        "call, no code declares it global/nonlocal, nothing reaches the module namespace by name",
        "builtins the fact or the check calls are not rebound",
        "never after a statement that always exits (return/raise/break/continue, an if/else that exits)",
        "the dead body assigns only fresh names or existing locals; no yield/await/global/nonlocal",
        "the function does not use eval/exec/locals/globals/vars/dir(); no frame/line introspection",
    )

    def __init__(self, style: str = "natural", messages: str = "named") -> None:
        self.style = check_style(self.name, style)
        if messages not in ("named", "plain"):
            raise ValueError(f"{self.name}: option messages must be 'named' or 'plain', got {messages!r}")
        self.messages = messages

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        natural = self.style == "natural"
        if natural:
            # no natural site: refused (NotApplicable), never a check over an invented value
            site, facts = choose_natural_site(module, ctx, wants_guard(module, ctx), scripts=True)
            block = natural_guard(module, ctx, site, facts, named=self.messages == "named")
            stmts = [cst.parse_statement(f"{line}\n") for line in block.before]
            stmts.append(cst.parse_statement(f"{block.header}\n" + "".join(f"    {b}\n" for b in block.body)))
            condition = block.header[len("if "):-1]
        else:
            site = choose_position(module, ctx, scripts=True)
            stmts, var, condition = opaque_condition(module, ctx, site)
            body = dead_body(ctx, site, var, BODY_TEMPLATES)
            source = f"if {condition}:\n" + "".join(f"    {line}\n" for line in body)
            stmts.append(cst.parse_statement(source))
        ctx.record(site.anchor, f"unreachable `if {condition}:` inserted in {site.where}")
        return module.visit(InsertStatements(site.suite, site.index, stmts))
