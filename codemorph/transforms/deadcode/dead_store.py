"""``dead-store``: an assignment to a fresh name that is never read.
"""

from __future__ import annotations

import libcst as cst

from codemorph.engine import RewriteContext, Transform
from codemorph.authoring.facts import finalisation_hazard
from codemorph.authoring.hazards import BUILTINS_HAZARDS, hazard_identifiers, rebindable_builtins
from codemorph.transforms.deadcode.blocks import bound_at
from codemorph.transforms.deadcode.checks import value_facts
from codemorph.transforms.deadcode.positions import InsertStatements, Position, choose_position

__all__ = ["STORE_LITERALS", "LITERAL_NAMES", "STORE_INT_TEMPLATES", "DeadStore", "int_stores", "loop_pairs"]


_STORE_HINTS = {"copy": ("prev", "snapshot", "saved", "orig"), "pair": ("pair", "entry")}

#: Literal values a dead store may assign (can never raise).  Not ``()``: ``state = ()``
#: stores nothing a person keeps.
STORE_LITERALS: tuple[str, ...] = ("0", "1", "-1", "None", "''", "[]", "{}", "True", "False", "'done'")

#: The names a dead store of each literal may get: names that fit the value (no ``marker =
#: {}``, ``flag = 0`` or ``flag = 'done'``, which CRUXEval variants had).
LITERAL_NAMES: dict[str, tuple[str, ...]] = {
    "0": ("count", "total"), "1": ("step", "count"), "-1": ("last_index", "found_at"),
    "None": ("prev", "result", "last"), "''": ("prefix", "buffer"), "[]": ("seen", "pending"),
    "{}": ("cache", "counts"), "True": ("found", "changed"), "False": ("found", "done"),
    "'done'": ("status",),
}

#: The arithmetic stores, ``(value template, name template)`` over ``{n}``, per kind of int:
#: the next index after a loop counter (``for i in range(n):`` / ``next_i = i + 1``) and the
#: last index of a computed length (``n = len(xs)`` / ``last_index = n - 1``).  Only over
#: values proved to be exact ints (never ``_``, never a parameter or a local only observed as
#: ``int``: ``offset = -x`` raises ``TypeError`` for a ``str`` argument), so they cannot
#: raise; ``size = index + index``, ``bound = -n`` or ``bound = _ + 1`` are no values people
#: keep.
STORE_INT_TEMPLATES: dict[str, tuple[str, str]] = {
    "counter": ("{n} + 1", "next_{n}"),
    "length": ("{n} - 1", "last_index"),
}


def int_stores(module: cst.Module, ctx: RewriteContext, site: Position) -> list[tuple[str, str]]:
    """The arithmetic stores possible at ``site``: ``(value, name hint)`` pairs from
    :data:`STORE_INT_TEMPLATES` over the ``for`` counter of ``range(n)``/``enumerate(xs)``
    whose body holds the site, and over a local the nearest assignment in the site's block
    binds to ``len(...)`` of a program value (:func:`value_facts`), when the builtins the
    fact relies on are not rebound.  ``_`` is never read.  Sorted; ``[]`` at module level."""
    if site.func is None or site.facts is None:
        return []
    loop = None

    class _Loop(cst.CSTVisitor):
        def visit_For(self, node: cst.For) -> None:
            nonlocal loop
            if node.body is site.suite:
                loop = node

    site.func.body.visit(_Loop())
    builtins_ok = not hazard_identifiers(module, BUILTINS_HAZARDS, names=site.names)
    out: set[tuple[str, str]] = set()
    for fact in value_facts(site.suite, site.index, site.facts.unbinders, loop):
        if fact.name == "_" or (fact.builtins and (not builtins_ok or rebindable_builtins(ctx, *fact.builtins))):
            continue
        if fact.loop_target:
            kind = "counter"
        elif fact.kind == "length" and fact.computed and fact.builtins == ("len",):
            kind = "length"
        else:
            continue
        value, hint = STORE_INT_TEMPLATES[kind]
        out.add((value.format(n=fact.name), hint.format(n=fact.name)))
    return sorted(out)


def loop_pairs(func: cst.FunctionDef | None, suite: cst.CSTNode, bound: set[str]) -> list[tuple[str, str]]:
    """The pairs a dead store may copy at a position in block ``suite`` of ``func``: the two
    names of the target of each ``for`` loop of ``func`` whose body holds ``suite``
    (``for k, v in d.items():`` gives ``("k", "v")``), when both are in ``bound`` (bound
    on every path to the position).  A tuple of two unrelated locals (``(total, out)``)
    is no value people store; the key and value of one loop are.  Outermost loop first;
    ``[]`` at module level."""
    if func is None:
        return []
    out: list[tuple[str, str]] = []

    class _Loops(cst.CSTVisitor):
        def visit_For(self, node: cst.For) -> None:
            t = node.target
            if isinstance(t, cst.Tuple) and len(t.elements) == 2 \
                    and all(isinstance(el, cst.Element) and isinstance(el.value, cst.Name) for el in t.elements):
                a, b = (el.value.value for el in t.elements)
                if a != b and a in bound and b in bound and _holds(node.body, suite):
                    out.append((a, b))

    func.body.visit(_Loops())
    return out


def _holds(node: cst.CSTNode, suite: cst.CSTNode) -> bool:
    """Whether ``suite`` is ``node`` or lies inside it (by identity), not inside a nested
    function, class or lambda (whose own code runs elsewhere)."""
    found = False

    class _Find(cst.CSTVisitor):
        def on_visit(self, n: cst.CSTNode) -> bool:
            nonlocal found
            if n is suite:
                found = True
            return not found and not isinstance(n, (cst.FunctionDef, cst.ClassDef, cst.Lambda))

    node.visit(_Find())
    return found


class DeadStore(Transform):
    """Insert an assignment to a fresh, never-read local of a side-effect-free value.

    At a statement position inside a function (chosen as for ``dead-code``), one of:

    * a literal (``count = 0``, ``seen = []``, ``found = False`` ...: :data:`STORE_LITERALS`,
      named as :data:`LITERAL_NAMES` says);
    * a copy of a local bound at that point on every path (``snapshot = text``), or, inside
      the body of a loop over pairs (``for k, v in d.items()``, ``for i, x in
      enumerate(xs)``), the loop's own pair (``pair = (k, v)``; never a tuple of two
      unrelated locals, ``both = (total, out)``, which no person writes) -- only when the
      program cannot observe that the object now lives until the function returns (no
      ``__del__``, ``weakref``, ``gc``, reference counts, generators with ``try``/``with``:
      :func:`~codemorph.authoring.finalisation_hazard`);
    * the next index after a ``range``/``enumerate`` counter (``next_i = i + 1``) or the
      last index of a length just computed (``n = len(xs)`` ... ``last_index = n - 1``):
      :data:`STORE_INT_TEMPLATES`, :func:`int_stores`; never arithmetic over a value only
      observed as ``int``, nor over ``_``.

    Copies never read ``_`` (a throwaway loop variable).

    None of these can raise or run user code: no call, attribute access, indexing,
    division or comparison; names read are bound on every path to the position
    (:func:`bound_at`), so reading them cannot fail.  The new name is spelled nowhere in the
    program, so nothing reads it.  Functions using ``eval``/``exec``/``locals``/
    ``globals``/``vars``/``dir()`` are skipped; programs inspecting frames or line numbers
    are refused.

    Takes no options.  Deterministic for a given rng.
    """

    uses_runtime_types = True
    name = "dead-store"
    family = "dead-code"
    description = "Insert an assignment of a side-effect-free value to a fresh, never-read local."
    preconditions = (
        "the value is a literal, a local bound on every path (never _), the two names of an enclosing loop's "
        "target (k, v), a range/enumerate counter + 1 or a len() result - 1",
        "copies only when object lifetimes are unobservable (no __del__, weakref, gc, generator try/with)",
        "the target is a fresh name spelled nowhere in the program",
        "the function does not use eval/exec/locals/globals/vars/dir(); no frame/line introspection",
    )

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        site = choose_position(module, ctx)
        bound = sorted(bound_at(site.func, site.suite, site.index, site.facts) - {"_"})
        pairs = loop_pairs(site.func, site.suite, set(bound))
        ints = int_stores(module, ctx, site)
        kinds = ["literal"]
        # a copy keeps the object alive until the function returns: only when that is unobservable
        if bound and finalisation_hazard(module, names=site.names) is None:
            kinds += ["copy", "pair"] if pairs else ["copy"]
        if ints:
            kinds.append("int")
        kind = ctx.rng.choice(kinds)
        if kind == "literal":
            value = ctx.rng.choice(STORE_LITERALS)
        elif kind == "copy":
            value = ctx.rng.choice(bound)
        elif kind == "pair":
            a, b = ctx.rng.choice(pairs)
            value = f"({a}, {b})"
        else:
            value, hint = ctx.rng.choice(ints)
        hints = LITERAL_NAMES[value] if kind == "literal" else (hint,) if kind == "int" else _STORE_HINTS[kind]
        # a name the program leaves free, before a numbered one (``count_1``)
        free = [h for h in hints if ctx.is_free(h)]
        target = ctx.fresh_name(ctx.rng.choice(free or hints))
        stmt = cst.parse_statement(f"{target} = {value}\n")
        ctx.record(site.anchor, f"dead store `{target} = {value}` inserted in {site.func.name.value}()")
        return module.visit(InsertStatements(site.suite, site.index, [stmt]))
