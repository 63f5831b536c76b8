"""``dead-store``: an assignment to a fresh name that is never read.
"""

from __future__ import annotations

import libcst as cst

from codemorph.engine import RewriteContext, Transform
from codemorph.authoring.facts import finalisation_hazard
from codemorph.transforms.deadcode.blocks import bound_at
from codemorph.transforms.deadcode.positions import InsertStatements, choose_position, observed_int_locals

__all__ = ["STORE_LITERALS", "LITERAL_NAMES", "STORE_INT_TEMPLATES", "DeadStore", "loop_pairs"]


_STORE_HINTS = {"copy": ("prev", "snapshot", "saved", "orig"), "pair": ("pair", "entry"),
                "int": ("offset", "size", "bound", "width")}

#: Literal values a dead store may assign (can never raise).
STORE_LITERALS: tuple[str, ...] = ("0", "1", "-1", "None", "''", "[]", "()", "{}", "True", "False", "'done'")

#: The names a dead store of each literal may get: names that fit the value (no ``marker =
#: {}``, ``flag = 0`` or ``flag = 'done'``, which CRUXEval variants had).
LITERAL_NAMES: dict[str, tuple[str, ...]] = {
    "0": ("count", "total"), "1": ("step", "count"), "-1": ("last_index", "found_at"),
    "None": ("prev", "result", "last"), "''": ("prefix", "buffer"), "[]": ("seen", "pending"),
    "()": ("state",), "{}": ("cache", "counts"), "True": ("found", "changed"), "False": ("found", "done"),
    "'done'": ("status",),
}

#: Arithmetic templates over ``{n}``, a local observed only as ``int``: linear (no
#: division, no power, no shift), so they cannot raise and cost time linear in the size of
#: the integer.
STORE_INT_TEMPLATES: tuple[str, ...] = ("{n} + 1", "{n} - 1", "{n} * 2", "2 * {n} + 1", "{n} + {n}", "-{n}")


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
    * with runtime observations, arithmetic on a local bound at that point and observed
      only as ``int`` in that function (:data:`STORE_INT_TEMPLATES`, e.g. ``offset = n + 1``).

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
        "the value is a literal, a local bound on every path, the two names of an enclosing loop's "
        "target (k, v), or +,-,* on a local observed as int",
        "copies only when object lifetimes are unobservable (no __del__, weakref, gc, generator try/with)",
        "the target is a fresh name spelled nowhere in the program",
        "the function does not use eval/exec/locals/globals/vars/dir(); no frame/line introspection",
    )

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        site = choose_position(module, ctx)
        bound = sorted(bound_at(site.func, site.suite, site.index, site.facts))
        pairs = loop_pairs(site.func, site.suite, set(bound))
        ints = observed_int_locals(module, ctx, site)
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
            value = ctx.rng.choice(STORE_INT_TEMPLATES).format(n=ctx.rng.choice(ints))
        hints = LITERAL_NAMES[value] if kind == "literal" else _STORE_HINTS[kind]
        # a name the program leaves free, before a numbered one (``count_1``)
        free = [h for h in hints if ctx.is_free(h)]
        target = ctx.fresh_name(ctx.rng.choice(free or hints))
        stmt = cst.parse_statement(f"{target} = {value}\n")
        ctx.record(site.anchor, f"dead store `{target} = {value}` inserted in {site.func.name.value}()")
        return module.visit(InsertStatements(site.suite, site.index, [stmt]))
