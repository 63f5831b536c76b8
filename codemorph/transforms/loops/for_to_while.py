"""``for-to-while``: ``for`` loops as ``while`` loops driven by an explicit iterator.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import libcst as cst

from codemorph.engine import DYNAMIC_SCOPE_BUILTINS, NotApplicable, RewriteContext, Transform
from codemorph.engine.transform import identifiers_in
from codemorph.authoring.facts import ProgramFacts, finalisation_hazard
from codemorph.authoring.hazards import BUILTINS_HAZARDS, FRAME_HAZARDS, LINE_HAZARDS, hazard_identifiers
from codemorph.authoring.sites import SiteChoice
from codemorph.authoring.syntax import parenthesize_if_bare_tuple

__all__ = ["LoopNames", "ForToWhile"]


@dataclass(frozen=True)
class LoopNames:
    """The fresh names one rewritten ``for`` loop uses: its iterator, its end sentinel and
    the item variable."""
    iterator: str
    sentinel: str
    item: str


class _ForToWhileRewriter(cst.CSTTransformer):
    def __init__(self, ctx: RewriteContext, chosen: Sequence[cst.For], names: dict[cst.For, LoopNames]) -> None:
        super().__init__()
        self.ctx = ctx
        self.chosen = set(map(id, chosen))
        self.names = names

    def leave_For(self, original_node: cst.For, updated_node: cst.For):
        if id(original_node) not in self.chosen:
            return updated_node
        n = self.names[original_node]
        self.ctx.record(original_node, f"for loop -> while loop over {n.iterator} = iter(...)")
        node = updated_node
        iterator = cst.SimpleStatementLine(
            [cst.Assign([cst.AssignTarget(cst.Name(n.iterator))],
                        cst.Call(cst.Name("iter"), [cst.Arg(parenthesize_if_bare_tuple(node.iter))]))],
            leading_lines=node.leading_lines)
        sentinel = cst.SimpleStatementLine(
            [cst.Assign([cst.AssignTarget(cst.Name(n.sentinel))], cst.Call(cst.Name("object")))])
        fetch = cst.NamedExpr(
            target=cst.Name(n.item),
            value=cst.Call(cst.Name("next"), [cst.Arg(cst.Name(n.iterator)), cst.Arg(cst.Name(n.sentinel))]),
            lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        test = cst.Comparison(fetch, [cst.ComparisonTarget(cst.IsNot(), cst.Name(n.sentinel))])
        bind = cst.Assign([cst.AssignTarget(node.target)], cst.Name(n.item))
        body = node.body
        if isinstance(body, cst.IndentedBlock):
            body = body.with_changes(body=[cst.SimpleStatementLine([bind]), *body.body])
        else:  # ``for x in xs: stmt`` on one line
            body = body.with_changes(body=[bind, *body.body])
        loop = cst.While(test=test, body=body, orelse=node.orelse)
        return cst.FlattenSentinel([iterator, sentinel, loop])


class ForToWhile(SiteChoice, Transform):
    """Rewrite ``for`` loops in function bodies as equivalent ``while`` loops.

    Each selected loop ``for TARGET in ITERABLE: BODY else: ELSE`` becomes::

        it = iter(ITERABLE)
        end = object()
        while (item := next(it, end)) is not end:
            TARGET = item
            BODY
        else:
            ELSE

    with fresh names for ``it``, ``end`` and ``item`` (``_it``, ``_end``, ``_item`` unless
    taken).  This is exact for every iterable: ``iter`` is what a ``for`` statement calls,
    ``next(it, end)`` stops on ``StopIteration`` exactly where the loop would, ``continue``
    re-evaluates the condition (fetches the next item), ``break`` skips ``else``, and the
    target is assigned only when an item was produced, so the loop variable keeps its value
    after the loop and stays unbound after zero iterations.

    Args:
        which: ``"all"`` (default) rewrites every eligible loop; ``"one"`` rewrites one
            eligible loop chosen with ``ctx.rng`` (uniformly, over loops in source order).

    Refuses (``NotApplicable``) when ``iter``, ``next`` or ``object`` may be rebound
    (anywhere in the program, or through ``builtins``), when the program can observe when
    the iterator is released (see :func:`finalisation_hazard`) or inspects frames/lines,
    and skips loops that are ``async for``, at module level (but for a script,
    :attr:`RewriteContext.script`, whose module namespace no harness reads, unless it
    spells ``eval``/``exec``/``locals``/``globals``/``vars``/``dir``), directly in a class
    body, or in a function using ``eval``/``exec``/``locals``/``globals``/``vars``/``dir()``.

    Raises:
        ValueError: on construction, when ``which`` is not ``"all"`` or ``"one"``.
    """

    name = "for-to-while"
    family = "loops"
    description = "Rewrite for loops as while loops over an explicit iterator (next with a sentinel)."
    preconditions = (
        "iter, next and object are the builtins (not rebound anywhere, no builtins-module access)",
        "no generator with try/with, no __del__, no weakref/gc: iterator lifetime is unobservable",
        "no frame or line introspection (new locals, moved lines are unobservable)",
        "loop is a plain `for` in a function body, or at module level of a script (not a class body)",
        "the function does not use eval/exec/locals/globals/vars/dir()",
    )

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        facts = ProgramFacts.of(module)
        if not facts.loops:
            raise NotApplicable("no for loop")
        shadowed = ctx.shadowed("iter", "next", "object")
        if shadowed:
            raise NotApplicable(f"builtin {', '.join(shadowed)} may be rebound by the program")
        names = identifiers_in(module)
        found = hazard_identifiers(module, BUILTINS_HAZARDS, names=names)
        if found:
            raise NotApplicable(f"program may rebind builtins through {', '.join(found)}")
        hazard = finalisation_hazard(module, names=names, facts=facts)
        if hazard:
            raise NotApplicable(hazard)
        found = hazard_identifiers(module, FRAME_HAZARDS, LINE_HAZARDS, names=names)
        if found:
            raise NotApplicable(f"program inspects frames, code or line numbers ({', '.join(found)})")

        eligible: list[cst.For] = []
        reasons: list[str] = []
        for loop, owner in facts.loops:
            line = ctx.position(loop)[0]
            if loop.asynchronous is not None:
                reasons.append(f"line {line}: async for")
            elif owner is None and not ctx.script:
                reasons.append(f"line {line}: loop at module level")
            elif owner is None:
                # a script's module namespace is its own (ctx.script): the new names are as
                # invisible there as a function's locals, unless something lists or reads
                # the namespace by name
                dynamic = sorted(names & DYNAMIC_SCOPE_BUILTINS)
                if dynamic:
                    reasons.append(f"line {line}: loop at module level of a script using {', '.join(dynamic)}")
                else:
                    eligible.append(loop)
            elif isinstance(owner, cst.ClassDef):
                reasons.append(f"line {line}: loop in a class body")
            elif facts.functions[owner].dynamic:
                uses = ", ".join(sorted(facts.functions[owner].dynamic))
                reasons.append(f"line {line}: {owner.name.value}() uses {uses}")
            else:
                eligible.append(loop)
        if not eligible:
            raise NotApplicable("no eligible for loop (" + "; ".join(reasons) + ")")
        chosen = self.choose(ctx, eligible)
        loop_names = {loop: LoopNames(ctx.fresh_name("_it"), ctx.fresh_name("_end"), ctx.fresh_name("_item"))
                      for loop in chosen}  # source order: outer loops get the plain names
        return module.visit(_ForToWhileRewriter(ctx, chosen, loop_names))
