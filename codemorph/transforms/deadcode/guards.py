"""The natural dead code of ``dead-code`` and ``dead-loop``: a defensive check or loop over a
program value (:mod:`.checks`) with an ordinary body, or, where no value has a usable
fact, over a fresh local just assigned.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from codemorph.engine import NotApplicable, RewriteContext
from codemorph.authoring.hazards import BUILTINS_HAZARDS, hazard_identifiers
from codemorph.transforms.deadcode.blocks import bound_at, function_locals, function_symbol_tables
from codemorph.transforms.deadcode.checks import EMPTY_VALUES, ValueFact, proved_checks
from codemorph.transforms.deadcode.positions import Position

__all__ = ["DeadBlock", "natural_guard", "natural_loop", "wants_guard", "wants_loop", "quote_of"]

#: names of the fresh local of the fallback guard (``limit = 10`` / ``if limit < 0:``)
GUARD_HINTS = ("limit", "size", "width", "count", "depth")
#: names of the fresh empty list of the fallback loop (``pending = []`` / ``for item in pending:``)
LOOP_LIST_HINTS = ("pending", "queue", "extra", "skipped", "rest")
_ITEM_HINTS = ("item", "entry", "elem", "value")


@dataclass(frozen=True)
class DeadBlock:
    """Statements to insert: ``before`` (a fresh assignment, or empty), then ``header``
    (``if ...:`` / ``while ...:`` / ``for ...:``) over the indented ``body`` lines;
    ``condition`` is what the report names."""

    before: tuple[str, ...]
    header: str
    body: tuple[str, ...]

    def source(self) -> str:
        """The statements as source text (unindented, one per line)."""
        return "".join(f"{line}\n" for line in self.before) + f"{self.header}\n" + \
            "".join(f"    {line}\n" for line in self.body)


def quote_of(module: cst.Module) -> str:
    """The quote character most of the program's string literals use (``'`` on a tie or
    when there are none)."""
    counts = {"'": 0, '"': 0}

    class V(cst.CSTVisitor):
        def visit_SimpleString(self, node: cst.SimpleString) -> None:
            q = node.quote[0]
            if q in counts:
                counts[q] += 1

    module.visit(V())
    return '"' if counts['"'] > counts["'"] else "'"


def _message(module: cst.Module, text: str) -> str:
    q = quote_of(module)
    return f"{q}{text}{q}"


def _article(word: str) -> str:
    return f"an {word}" if word[0] in "aeiou" else f"a {word}"


def _checks_for(module: cst.Module, ctx: RewriteContext, kind: str):
    builtins_ok = not hazard_identifiers(module, BUILTINS_HAZARDS)
    return [c for c in proved_checks() if c.kind == kind
            and (not c.builtins or (builtins_ok and not ctx.shadowed(*c.builtins)))]


def wants_guard(module: cst.Module, ctx: RewriteContext):
    """The fact filter of ``dead-code``: a fact with at least one usable proved check."""
    usable = {kind: bool(_checks_for(module, ctx, kind)) for kind in EMPTY_VALUES}
    return lambda fact: usable.get(fact.kind, False)


def wants_loop(module: cst.Module, ctx: RewriteContext):
    """The fact filter of ``dead-loop``: an empty value (iterated zero times) or a
    length-kind value (``while n < 0:``)."""
    has_length_check = bool(_checks_for(module, ctx, "length"))
    return lambda fact: fact.empty or (fact.kind == "length" and has_length_check)


def _returns_ok(site: Position) -> bool:
    f = site.facts
    return not (f.is_generator or site.func.asynchronous is not None or f.has_try_star)


def _other_local(ctx: RewriteContext, site: Position, var: str) -> str:
    """A local bound at the site other than ``var`` (else ``var``), chosen with the rng:
    what a dead ``return`` or assignment reads."""
    bound = sorted(bound_at(site.func, site.suite, site.index, site.facts) - {var})
    tables = function_symbol_tables(ctx.program.source)
    table = tables.get((site.func.name.value, ctx.position(site.func.name)[0]))
    local_names = set(function_locals(table, site.func))
    bound = [n for n in bound if n in local_names]
    return ctx.rng.choice(bound) if bound else var


def natural_guard(module: cst.Module, ctx: RewriteContext, site: Position, facts: list[ValueFact]) -> DeadBlock:
    """The ``if`` block of ``dead-code`` at ``site``: a proved check over one of ``facts``
    (chosen with ``ctx.rng``) with an ordinary body (``raise ValueError(...)``,
    ``x = list(x)``, ``x = []``, ``return v``, ``continue``); without facts, over a fresh
    local: ``limit = 10`` / ``if limit < 0:`` / ``raise ValueError(...)``.

    Raises:
        NotApplicable: the catalogue has no proved check (never for the built-in one).
    """
    returns = site.func is not None and _returns_ok(site)  # never at a script's module level
    if not facts:
        if not any(c.kind == "length" for c in proved_checks()):
            raise NotApplicable("no check of the catalogue is proved false by z3")
        var = ctx.fresh_name(ctx.rng.choice(GUARD_HINTS))
        before = (f"{var} = {ctx.rng.randint(1, 10)}",)
        bodies = [(f"raise ValueError({_message(module, f'{var} must be non-negative')})",)]
        if returns:
            bodies.append((f"return {_other_local(ctx, site, var)}",))
        return DeadBlock(before, f"if {var} < 0:", ctx.rng.choice(bodies))
    fact = ctx.rng.choice(facts)
    check = ctx.rng.choice(_checks_for(module, ctx, fact.kind))
    x, type_name = fact.name, "int" if fact.kind == "length" else fact.kind
    if check.template == "{x} < 0":
        bodies = [(f"raise ValueError({_message(module, f'{x} must be non-negative')})",), (f"{x} = 0",)]
        if fact.loop_target:
            bodies.append(("continue",))
        if returns:
            bodies.append((f"return {_other_local(ctx, site, x)}",))
    elif check.template.startswith("not isinstance"):
        bodies = [(f"raise TypeError({_message(module, f'{x} must be {_article(type_name)}')})",),
                  (f"{x} = {type_name}({x})",)]
    else:  # "{x} is None"
        bodies = [(f"{x} = {EMPTY_VALUES[fact.kind]}",),
                  (f"raise ValueError({_message(module, f'{x} must not be None')})",)]
        if returns:
            bodies.append((f"return {_other_local(ctx, site, x)}",))
    return DeadBlock((), f"if {check.render(x)}:", ctx.rng.choice(bodies))


def _item_name(ctx: RewriteContext, container: str) -> str:
    if len(container) > 3 and container.endswith("s") and not container.endswith("ss") \
            and ctx.is_free(container[:-1]):
        return ctx.fresh_name(container[:-1])
    hints = list(_ITEM_HINTS)
    ctx.rng.shuffle(hints)
    return ctx.fresh_name(next((h for h in hints if ctx.is_free(h)), hints[0]))


def natural_loop(module: cst.Module, ctx: RewriteContext, site: Position, facts: list[ValueFact]) -> DeadBlock:
    """The loop of ``dead-loop`` at ``site``: ``for item in x:`` right after ``x = []`` (or
    another empty value), ``while n < 0: n += 1`` over a length-kind value, chosen with
    ``ctx.rng`` among ``facts``; without facts, over a fresh empty list:
    ``pending = []`` / ``for item in pending:``.  Bodies read or assign only the loop's
    own names (``print(item)``, ``break``, ``continue``)."""
    if facts:
        fact = ctx.rng.choice(facts)
        if not fact.empty:
            return DeadBlock((), f"while {fact.name} < 0:", (f"{fact.name} += 1",))
        container, before = fact.name, ()
    else:
        container = ctx.fresh_name(ctx.rng.choice(LOOP_LIST_HINTS))
        before = (f"{container} = []",)
    item = _item_name(ctx, container)
    bodies = [(f"print({item})",), (f"if {item} is None:", "    break", f"print({item})"),
              (f"if not {item}:", "    continue", f"print({item})")]
    return DeadBlock(before, f"for {item} in {container}:", ctx.rng.choice(bodies))
