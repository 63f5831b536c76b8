"""The natural dead code of ``dead-code`` and ``dead-loop``: a defensive check or loop over a
value the program has just computed from its variables (:mod:`.checks`), with an ordinary
body; where no such value has a usable fact, no natural site (the transforms refuse).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from codemorph.engine import NotApplicable, RewriteContext
from codemorph.authoring.hazards import BUILTINS_HAZARDS, hazard_identifiers, rebindable_builtins
from codemorph.transforms.deadcode.blocks import bound_at, function_locals, function_symbol_tables
from codemorph.transforms.deadcode.checks import EMPTY_VALUES, ValueFact, proved_checks
from codemorph.transforms.deadcode.positions import NO_NATURAL_SITE, Position

__all__ = ["DeadBlock", "NO_NATURAL_SITE", "natural_guard", "natural_loop", "plausible", "wants_guard", "wants_loop",
           "quote_of"]

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
            and (not c.builtins or (builtins_ok and not rebindable_builtins(ctx, *c.builtins)))]


def plausible(fact: ValueFact) -> bool:
    """Whether a person would write a check of ``fact``'s value at its position: the value
    is computed from the program's variables (``n = len(xs)``, ``words = sorted(text)``;
    not ``out = []``, ``k = 5``), the check comes right after that computation, and the
    value is no loop counter (``for i in range(n):`` / ``if i < 0:`` guards nothing)."""
    return fact.computed and fact.adjacent and not fact.loop_target


def wants_guard(module: cst.Module, ctx: RewriteContext):
    """The fact filter of ``dead-code``: a :func:`plausible` fact with at least one usable
    proved check."""
    usable = {kind: bool(_checks_for(module, ctx, kind)) for kind in EMPTY_VALUES}
    return lambda fact: plausible(fact) and usable.get(fact.kind, False)


def wants_loop(module: cst.Module, ctx: RewriteContext):
    """The fact filter of ``dead-loop``: a :func:`plausible` length-kind value
    (``n = len(xs)`` / ``while n < 0:``)."""
    has_length_check = bool(_checks_for(module, ctx, "length"))
    return lambda fact: plausible(fact) and fact.kind == "length" and has_length_check


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
    ``x = list(x)``, ``x = []``, ``return v``).

    Raises:
        NotApplicable: ``facts`` is empty (no value computed from the program's variables
            is checked there: a check over an invented local, ``limit = 10`` /
            ``if limit < 0:``, is what no person writes).
    """
    returns = site.func is not None and _returns_ok(site)  # never at a script's module level
    if not facts:
        raise NotApplicable(NO_NATURAL_SITE)
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
    """The loop of ``dead-loop`` at ``site``: ``while n < 0: n += 1`` right after
    ``n = len(xs)`` (a length-kind value computed from the program's variables), chosen
    with ``ctx.rng`` among ``facts``; ``for item in x:`` over an empty value when ``facts``
    holds one (the natural filter :func:`wants_loop` keeps none: ``x = []`` /
    ``for item in x:`` is no loop a person writes).  Bodies read or assign only the loop's
    own names (``print(item)``, ``break``, ``continue``).

    Raises:
        NotApplicable: ``facts`` is empty (a loop over an invented empty list,
            ``pending = []`` / ``for item in pending:``, is what no person writes).
    """
    if not facts:
        raise NotApplicable(NO_NATURAL_SITE)
    fact = ctx.rng.choice(facts)
    if not fact.empty:
        return DeadBlock((), f"while {fact.name} < 0:", (f"{fact.name} += 1",))
    container, before = fact.name, ()
    item = _item_name(ctx, container)
    bodies = [(f"print({item})",), (f"if {item} is None:", "    break", f"print({item})"),
              (f"if not {item}:", "    continue", f"print({item})")]
    return DeadBlock(before, f"for {item} in {container}:", ctx.rng.choice(bodies))
