"""``misleading-comment``: comments that state false claims about the code next to them.
"""

from __future__ import annotations

import libcst as cst

from codemorph.engine import NotApplicable, RewriteContext, Transform
from codemorph.authoring.scopes import FunctionIndex
from codemorph.transforms.distractors.claims import (
    CLAIM_BUILTINS, CommentSites, SOURCE_HAZARDS, check_hazards, make_comment, same_ast, states_output,
)

__all__ = ["MisleadingComment"]


class MisleadingComment(Transform):
    """Add end-of-line comments that state plausible but wrong facts about the code.

    Claims come from a catalogue keyed by syntax, each wrong for the statement it is
    attached to: a wrong literal value (``n = 3  # n is 4 here``), a loop described in the
    wrong direction or range (``for i in range(n):  # i runs from 1 to n``), a condition
    described by its negation (``if x > 0:  # taken only when not (x > 0)``), a method
    described as another (``xs.append(v)  # v is inserted at the front of xs``,
    ``s.upper()`` as lower case, ``sorted`` as descending, ``len(x)`` as the last index).
    A claim that a ``return`` gives a literal equal to the row's recorded output
    (``return True  # returns False`` when the row's output is False) is not made.

    Claims about builtins (``len``, ``sorted``, ``range``...: :data:`CLAIM_BUILTINS`) are
    not made when the program rebinds that name (its own ``sorted`` might sort descending).
    Comments go at the *end* of lines that have none (statement lines and ``if``/``for``/
    ``while``/``else`` headers inside functions), so no line moves; the rewritten module's
    ``ast.dump`` with positions must equal the original's or the rewrite is refused.
    Refused when the program may read its own source (``inspect``, ``linecache``,
    ``__file__``...: :data:`SOURCE_HAZARDS`).  Comments never match the PEP 263 encoding
    declaration pattern.  Functions using ``eval``/``exec``/``locals``/``globals``/``vars``/
    ``dir`` are left alone.

    Options:
        count: at most this many comments (int >= 1, default 3), on sites chosen with the
            context's rng; ``None`` comments every site that has a claim.
    """

    name = "misleading-comment"
    family = "distractors"
    description = "add end-of-line comments stating plausible but wrong facts (code unchanged)"
    preconditions = ("the program does not read its own source", "AST (with positions) unchanged")

    def __init__(self, count: int | None = 3) -> None:
        super().__init__()
        if count is not None and (not isinstance(count, int) or count < 1):
            raise ValueError(f"count must be a positive int or None, got {count!r}")
        self.count = count

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        check_hazards(module, SOURCE_HAZARDS, "read its own source text")
        index = FunctionIndex(ctx)
        finder = CommentSites(index, frozenset(ctx.shadowed(*CLAIM_BUILTINS)))
        module.visit(finder)
        if not finder.sites:
            if finder.dynamic:
                raise NotApplicable("every candidate line is in a function using eval/exec/locals/globals/vars/dir")
            raise NotApplicable("no line inside a function, without a comment, about which a wrong claim is known")
        # ``return True  # returns False`` on a line the row never runs, when another ``return``
        # gives the row its output False, states that output: such a claim is not made
        sites = [(node, kind, kept) for node, kind, claims in finder.sites
                 if (kept := [c for c in claims if not states_output(c, ctx.outputs)])]
        if not sites:
            raise NotApplicable("every wrong claim known states the row's recorded output")
        if self.count is not None and len(sites) > self.count:
            picked = sorted(ctx.rng.sample(range(len(sites)), self.count))
            sites = [sites[i] for i in picked]
        texts: dict[int, str] = {}
        for node, _, claims in sites:
            text = claims[ctx.rng.randrange(len(claims))]
            texts[id(node)] = text
            ctx.record(node, f"comment: {text}")
        nodes = {id(n): n for n, _, _ in sites}

        class Add(cst.CSTTransformer):
            def on_leave(self, original, updated):
                if nodes.get(id(original)) is not original:
                    return updated
                comment = make_comment(texts[id(original)])
                if isinstance(updated, cst.SimpleStatementLine):
                    tw = updated.trailing_whitespace
                    return updated.with_changes(trailing_whitespace=tw.with_changes(
                        whitespace=cst.SimpleWhitespace("  "), comment=comment))
                header = updated.body.header
                return updated.with_changes(body=updated.body.with_changes(
                    header=header.with_changes(whitespace=cst.SimpleWhitespace("  "), comment=comment)))

        new = module.visit(Add())
        same_ast(ctx.program.source, new.code, positions=True)
        return new
