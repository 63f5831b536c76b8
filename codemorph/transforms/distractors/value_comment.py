"""``misleading-value-comment``: end-of-line comments stating a wrong value, checked false by
execution.
"""

from __future__ import annotations

import libcst as cst

from codemorph.engine import RewriteContext, Transform
from codemorph.transforms.distractors.claims import SOURCE_HAZARDS, check_hazards, make_comment, same_ast
from codemorph.transforms.distractors.values import site_claim, value_sites

__all__ = ["MisleadingValueComment"]


class MisleadingValueComment(Transform):
    """Add end-of-line comments that state a wrong value of a local just assigned:
    ``n = len(nums)  # n == 4 here``, ``words = text.split()  # len(words) == 3 here``.
    Only values computed from the program's variables get a comment
    (:func:`~codemorph.transforms.distractors.values.computed_value`): never ``count = 0  #
    count == 2 here`` nor ``result = []  # len(result) == 3 here``, which the line itself
    contradicts.

    Where ``misleading-comment`` states what the syntax makes certainly wrong, this states
    values that depend on the input, and checks each claim false by execution: the claim is a
    :class:`~codemorph.engine.transform.Claim` whose probe program (the program with ``if n
    == 4: raise AssertionError(...)`` after the line; see
    :mod:`codemorph.transforms.distractors.values`) must return on the row's input in the
    sandbox, so the value was never 4 at that line, in any iteration or recursive call; a
    claim that turns out true is not written.  The misleading code comments of CodeCrash (Lam
    et al., 2025).

    The code is unchanged: the rewritten module's ``ast.dump`` with positions must equal the
    original's.  Refused when the program may read its own source (:data:`SOURCE_HAZARDS`)
    and wherever :func:`~codemorph.transforms.distractors.values.value_sites` refuses.

    Options:
        count: at most this many comments (int >= 1, default 1).
    """

    needs_runtime_types = True
    name = "misleading-value-comment"
    family = "distractors"
    description = "Add end-of-line comments stating a wrong value of a local, shown wrong by execution."
    preconditions = ("the program does not read its own source", "observed types of the locals",
                     "each stated value shown wrong by execution", "AST (with positions) unchanged")

    def __init__(self, count: int = 1) -> None:
        super().__init__()
        if not isinstance(count, int) or count < 1:
            raise ValueError(f"count must be an int >= 1, got {count!r}")
        self.count = count

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        check_hazards(module, SOURCE_HAZARDS, "read its own source text")
        sites = value_sites(module, ctx)
        if len(sites) > self.count:
            sites = [sites[i] for i in sorted(ctx.rng.sample(range(len(sites)), self.count))]
        texts: dict[int, str] = {}
        for site in sites:
            text = f"{site.condition} here"
            texts[id(site.node)] = text
            ctx.claim(site_claim(module, ctx, site, site.condition))
            ctx.record(site.node, f"comment: {text}")

        class Add(cst.CSTTransformer):
            def leave_SimpleStatementLine(self, original, updated):
                if id(original) not in texts:
                    return updated
                tw = updated.trailing_whitespace
                return updated.with_changes(trailing_whitespace=tw.with_changes(
                    whitespace=cst.SimpleWhitespace("  "), comment=make_comment(texts[id(original)])))

        new = module.visit(Add())
        same_ast(ctx.program.source, new.code, positions=True)
        return new
