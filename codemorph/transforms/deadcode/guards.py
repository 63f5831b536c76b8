"""The natural dead code of ``dead-code`` and ``dead-loop``: a defensive check or loop over a
value the program has just computed from its variables (:mod:`.checks`), with an ordinary
body; where no such value has a usable fact, no natural site (the transforms refuse).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import libcst as cst

from codemorph.engine import NotApplicable, RewriteContext
from codemorph.authoring.hazards import BUILTINS_HAZARDS, hazard_identifiers, rebindable_builtins
from codemorph.transforms.deadcode.blocks import (bound_at, function_locals, function_qualnames,
                                                  function_symbol_tables)
from codemorph.transforms.deadcode.checks import EMPTY_VALUES, ValueFact, expression_kind, proved_checks
from codemorph.transforms.deadcode.positions import NO_NATURAL_SITE, Position

__all__ = ["DeadBlock", "NO_NATURAL_SITE", "natural_guard", "natural_loop", "natural_returns", "plausible", "wants_guard",
           "wants_loop", "quote_of"]

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
    value is no loop counter (``for i in range(n):`` / ``if i < 0:`` guards nothing) nor a
    display other than a comprehension (``items = a, b, c`` / ``if items is None:`` checks
    what the line above spells out)."""
    return fact.computed and fact.adjacent and not fact.loop_target and (fact.comprehension or not fact.display)


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


class _OwnReturns(cst.CSTVisitor):
    """The ``return`` statements of one function's own code (not of nested functions,
    classes or lambdas)."""

    def __init__(self) -> None:
        self.returns: list[cst.Return] = []

    def visit_Return(self, node: cst.Return) -> None:
        self.returns.append(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


#: the result kinds whose empty value a dead ``return`` may give (``return []``); not a
#: tuple, which is mostly a fixed-shape record (``return a, y``: ``return ()`` is no result)
_EMPTY_RESULTS = {"list": "[]", "dict": "{}", "str": "''"}


def _observed(module: cst.Module, ctx: RewriteContext, func: cst.FunctionDef) -> Mapping[str, object]:
    obs = ctx.observations
    if not isinstance(obs, Mapping):
        return {}
    table = obs.get(function_qualnames(module).get(func))
    return table if isinstance(table, Mapping) else {}


def natural_returns(module: cst.Module, ctx: RewriteContext, site: Position, var: str) -> list[str]:
    """The ``return`` statements a person writes as a defensive early exit at ``site``
    (a position in a function), from the function's own results; sorted, possibly empty.

    * ``return v`` for each name ``v`` the function itself returns (``return count``) that
      is a local bound at the site on every path (:func:`bound_at`), neither ``var`` (the
      checked value) nor ``_``: the value the function returns, as computed so far;
    * ``return []`` (``{}``, ``''``) when every ``return`` of the function gives a
      value of that one kind, known from its form (``return sorted(xs)``,
      ``return ''.join(out)``: :func:`expression_kind`) or, for a name, from the runtime
      observations (observed only as ``list``...): an empty result of the right type;
    * a bare ``return`` when no ``return`` of the function gives a value.

    Never a local the function does not return (``if n < 0: return part`` in a function
    returning a count reads as a mistake).
    """
    func = site.func
    assert func is not None
    v = _OwnReturns()
    func.body.visit(v)
    values = [r.value for r in v.returns]
    if all(value is None for value in values):
        return ["return"]
    if any(value is None for value in values):
        return []
    out: set[str] = set()
    tables = function_symbol_tables(ctx.program.source)
    table = tables.get((func.name.value, ctx.position(func.name)[0]))
    local_names = set(function_locals(table, func))
    bound = bound_at(func, site.suite, site.index, site.facts)
    for value in values:
        if isinstance(value, cst.Name) and value.value not in (var, "_") and value.value in bound \
                and value.value in local_names:
            out.add(f"return {value.value}")
    observed = _observed(module, ctx, func)
    kinds: set[str | None] = set()
    for value in values:
        found = expression_kind(value)
        if found is not None:
            kinds.add(found[0])
        elif isinstance(value, cst.Name) and len(list(observed.get(value.value) or ())) == 1:
            kinds.add(list(observed[value.value])[0])
        else:
            kinds.add(None)
    if len(kinds) == 1:
        kind = kinds.pop()
        if kind in _EMPTY_RESULTS:
            empty = _EMPTY_RESULTS[kind] if kind != "str" else quote_of(module) * 2  # the program's quotes
            out.add(f"return {empty}")
    return sorted(out)


def _early_return(module: cst.Module, ctx: RewriteContext, site: Position, var: str, returns: bool
                  ) -> list[tuple[str, ...]]:
    """One ``return`` body chosen with ``ctx.rng`` among :func:`natural_returns`, or none."""
    if not returns:
        return []
    candidates = natural_returns(module, ctx, site, var)
    return [(ctx.rng.choice(candidates),)] if candidates else []


def natural_guard(module: cst.Module, ctx: RewriteContext, site: Position, facts: list[ValueFact],
                  named: bool = True) -> DeadBlock:
    """The ``if`` block of ``dead-code`` at ``site``: a proved check over one of ``facts``
    (chosen with ``ctx.rng``) with an ordinary body (``raise ValueError(...)``,
    ``x = list(x)``, ``x = []``, or an early return of the function's own result:
    :func:`natural_returns`).  No ``isinstance`` check of a value whose assignment spells
    its type (a display, comprehension or string literal: :attr:`ValueFact.display`).

    Raises:
        NotApplicable: ``facts`` is empty (no value computed from the program's variables
            is checked there: a check over an invented local, ``limit = 10`` /
            ``if limit < 0:``, is what no person writes).

    With ``named=False`` the messages name no variable (``'expected a list'``,
    ``'unexpected None'``): a renaming step after this one would leave a named one stale.
    """
    returns = site.func is not None and _returns_ok(site)  # never at a script's module level
    if not facts:
        raise NotApplicable(NO_NATURAL_SITE)
    fact = ctx.rng.choice(facts)
    checks = _checks_for(module, ctx, fact.kind)
    if fact.display:
        # ``items = a, b`` / ``if not isinstance(items, tuple):`` checks the type the line
        # above spells out: no person writes it
        checks = [c for c in checks if not c.template.startswith("not isinstance")]
    if not checks:
        raise NotApplicable(NO_NATURAL_SITE)
    check = ctx.rng.choice(checks)
    x, type_name = fact.name, "int" if fact.kind == "length" else fact.kind
    if check.template == "{x} < 0":
        text = f"{x} must be non-negative" if named else "expected a non-negative value"
        bodies = [(f"raise ValueError({_message(module, text)})",), (f"{x} = 0",)]
        if fact.loop_target:
            bodies.append(("continue",))
        bodies += _early_return(module, ctx, site, x, returns)
    elif check.template.startswith("not isinstance"):
        text = f"{x} must be {_article(type_name)}" if named else f"expected {_article(type_name)}"
        bodies = [(f"raise TypeError({_message(module, text)})",),
                  (f"{x} = {type_name}({x})",)]
    else:  # "{x} is None"
        bodies = [(f"{x} = {EMPTY_VALUES[fact.kind]}",),
                  (f"raise ValueError({_message(module, f'{x} must not be None' if named else 'unexpected None')})",)]
        bodies += _early_return(module, ctx, site, x, returns)
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
