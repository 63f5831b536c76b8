"""``misleading-comment``: comments that state false claims about the code next to them.
"""

from __future__ import annotations

import libcst as cst

from codemorph.engine import NotApplicable, RewriteContext, Transform
from codemorph.engine.transform import Claim, identifiers_in
from codemorph.authoring.scopes import FunctionIndex
from codemorph.transforms.distractors.claims import (
    CLAIM_BUILTINS, CommentSites, SOURCE_HAZARDS, check_hazards, claimed_value, make_comment, same_ast,
    states_output,
)
from codemorph.transforms.distractors.values import PROBE_MESSAGE, insert_after

__all__ = ["MisleadingComment", "value_claim_check"]

# names of the execution check's probe (a program that spells either gets no check)
_SEEN, _PROBE = "_codemorph_claim_differs", "_codemorph_claim_probe"


class MisleadingComment(Transform):
    """Add end-of-line comments that state plausible but wrong facts about the code.

    Claims come from a catalogue keyed by syntax, each wrong for the statement it is
    attached to: a computed value described wrongly (``m = len(xs)  # m is the last index of
    xs``, ``s.upper()`` as lower case, ``sorted`` as descending), a loop described in the
    wrong direction or range (``for i in range(n):  # i runs from 1 to n``), a condition
    described by its negation (``if x > 0:  # taken only when not (x > 0)``), a method
    described as another (``xs.append(v)  # v is inserted at the front of xs``, only for a
    receiver that is a name or an attribute such as ``self.items``, never a call's value).
    No claim is made about an assignment or ``return`` of a literal or a display of
    literals (``count = 0  # count is 1 here``, ``return True  # returns False``): the line
    itself shows the value.  A claim
    of what a string method's value is, on an assignment in the entry function
    (:func:`~codemorph.transforms.distractors.claims.claimed_value`), is checked by
    execution when the row's input is known: a :class:`Claim` whose probe must show the
    value differing from the claimed one at least once (see :func:`value_claim_check`).

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
        # a return claim stating the row's output is not made (a guard: no claim of the
        # catalogue states a literal now, see ``states_output``)
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
        for node, _, _ in sites:
            claim = value_claim_check(module, ctx, index, node, texts[id(node)])
            if claim is not None:
                ctx.claim(claim)
        return new


def value_claim_check(module: cst.Module, ctx: RewriteContext, index: FunctionIndex, node: cst.CSTNode,
                      text: str) -> Claim | None:
    """The execution check of the comment ``text`` on ``node`` when it says what a value
    is (:func:`~codemorph.transforms.distractors.claims.claimed_value`) on a line of the
    entry function and the row's input is known: the probe notes every execution of the
    line where the value differs from the claimed one, and raises ``AssertionError``
    after the entry point has run (returned or raised) when none did -- the claim then
    held every time on the row's input and the variant is not written.

    Args:
        module: the program's tree (``node`` is one of its nodes).
        ctx: the rewrite context (the row's input is ``ctx.inputs[0]``).
        index: the :class:`FunctionIndex` of ``ctx``.
        node: the ``SimpleStatementLine`` the claim is about.
        text: the claim as made by the catalogue (before any capitalisation).

    Returns:
        The :class:`Claim` to declare, or ``None`` when the claim is not one that can be
        checked this way (or no input is known)."""
    if not ctx.inputs or not isinstance(node, cst.SimpleStatementLine) or len(node.body) != 1:
        return None
    entry = index.enclosing_function(node)
    if entry is None or entry.name.value != ctx.entry_point or entry not in module.body:
        return None
    claimed = claimed_value(node.body[0], text)
    if claimed is None:
        return None
    if identifiers_in(module) & {_SEEN, _PROBE}:
        return None
    name, expr = claimed
    note = cst.parse_statement(f"if {name} != {expr}:\n    {_SEEN}.append(1)\n")
    probe = insert_after(module, {id(node): [note]}).code + (
        f"\n\n{_SEEN} = []\n\n\ndef {_PROBE}(*args, **kwargs):\n    try:\n"
        f"        {ctx.entry_point}(*args, **kwargs)\n    except Exception:\n        pass\n"
        f"    if not {_SEEN}:\n        raise AssertionError({PROBE_MESSAGE!r})\n")
    return Claim(text, probe, _PROBE, ctx.inputs[0])
