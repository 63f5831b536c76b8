"""``misleading-comment``: comments that state false claims about the code next to them.
"""

from __future__ import annotations

import libcst as cst

from codemorph.engine import NotApplicable, RewriteContext, Transform
from codemorph.engine.transform import Claim, identifiers_in
from codemorph.authoring.scopes import FunctionIndex
from codemorph.transforms.distractors.claims import (
    CHECK_PREFIX, CLAIM_BUILTINS, Check, CommentSites, SOURCE_HAZARDS, check_hazards, make_comment, same_ast,
    states_output,
)
from codemorph.transforms.distractors.values import PROBE_MESSAGE

__all__ = ["MisleadingComment", "claim_check", "checkable"]

# names of the execution check's probe (see ``claim_check``)
_SEEN, _PROBE, _NOTE = "_codemorph_claim_differs", "_codemorph_claim_probe", "_codemorph_note"


class MisleadingComment(Transform):
    """Add end-of-line comments that state plausible but wrong facts about the code.

    Claims come from a catalogue keyed by syntax, each wrong for the statement it is
    attached to: a computed value described wrongly (``m = len(xs)  # m is the last index of
    xs``, ``s.upper()`` as lower case, ``sorted`` as descending), a loop described in the
    wrong direction or range (``for i in range(n):  # i runs from 1 to n``), a condition
    described by its negation (``if x > 0:  # taken when x <= 0``), a method
    described as another (``xs.append(v)  # v is inserted at the front of xs``, only for a
    receiver that is a name or an attribute such as ``self.items``, never a call's value).
    No claim is made about an assignment or ``return`` of a literal or a display of
    literals (``count = 0  # count is 1 here``, ``return True  # returns False``): the line
    itself shows the value.

    Every claim is shown false by execution on the row's input
    (:func:`claim_check`): a claim about a value or an order (``xs.append(v)  # v is
    inserted at the front of xs`` is true of an empty list, "walks s from its last element
    to its first" of a palindrome) must be false at least once where its line runs, and a
    claim false by construction (``m = len(xs)  # m is the last index of xs``) must at least
    be reached; the variant is not written otherwise.  A claim no execution can show false
    (about a value computed by a call that has effects, ``n = xs.pop() + f(x)``) is not made.
    Without a row's input (``codemorph apply``) claims are not checked; with one but no
    top-level entry function to call, only claims false by construction are made.

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
    description = "Add end-of-line comments stating plausible but wrong facts (code unchanged)."
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
        can_check = checkable(module, ctx)
        # a return claim stating the row's output is not made (a guard: no claim of the
        # catalogue states a literal now, see ``states_output``); with a row's input but no
        # way to run a check, only claims false by construction
        sites = [(node, kind, kept) for node, kind, lies in finder.sites
                 if (kept := [(t, k) for t, k in lies if not states_output(t, ctx.outputs)
                              and (can_check or not ctx.inputs or k.by_construction)])]
        if not sites:
            raise NotApplicable("every wrong claim known states the row's recorded output or cannot be checked")
        if self.count is not None and len(sites) > self.count:
            picked = sorted(ctx.rng.sample(range(len(sites)), self.count))
            sites = [sites[i] for i in picked]
        texts: dict[int, str] = {}
        checks: dict[int, Check] = {}
        for node, _, lies in sites:
            text, check = lies[ctx.rng.randrange(len(lies))]
            texts[id(node)] = text
            checks[id(node)] = check
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
        if can_check:
            for node, _, _ in sites:
                ctx.claim(claim_check(module, ctx, node, checks[id(node)], texts[id(node)]))
        return new


def checkable(module: cst.Module, ctx: RewriteContext) -> bool:
    """Whether claims about ``module`` can be checked by execution (:func:`claim_check`):
    the row's input is known, the entry point is a top-level function the probe can call,
    and the program spells no name of the probe (``_codemorph...``)."""
    if not ctx.inputs:
        return False
    if not any(isinstance(s, cst.FunctionDef) and s.name.value == ctx.entry_point for s in module.body):
        return False
    return not any(n.startswith(CHECK_PREFIX) for n in identifiers_in(module))


def _insert(module: cst.Module, node: cst.CSTNode, where: str, stmt: cst.BaseStatement) -> cst.Module:
    """``module`` with ``stmt`` inserted before or after ``node`` (a statement of an
    indented block), first in its body (``where == "body"``: a compound statement or an
    ``Else``) or first in its body and its ``else`` body (``"branches"``: an ``If``)."""

    bodies = []  # the blocks that get ``stmt`` first
    if where in ("body", "branches"):
        bodies.append(node.body)
    if where == "branches" and isinstance(node, cst.If) and isinstance(node.orelse, cst.Else):
        bodies.append(node.orelse.body)

    class Insert(cst.CSTTransformer):
        def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
            if where in ("body", "branches"):
                if any(b is original for b in bodies):
                    return updated.with_changes(body=[stmt, *updated.body])
                return updated
            if not any(s is node for s in original.body):
                return updated
            body: list[cst.BaseStatement] = []
            for old, new in zip(original.body, updated.body):
                if old is node and where == "before":
                    body.append(stmt)
                body.append(new)
                if old is node and where == "after":
                    body.append(stmt)
            return updated.with_changes(body=body)

    return module.visit(Insert())


def claim_check(module: cst.Module, ctx: RewriteContext, node: cst.CSTNode, check: Check, text: str) -> Claim:
    """The execution check of the claim ``text`` about ``node``: the probe program notes
    every run of ``check.test`` (:class:`~codemorph.transforms.distractors.claims.Check`,
    evaluated where ``check.where`` says, any exception it raises ignored) that is true,
    and raises ``AssertionError`` after the entry point has run on the row's input
    (returned or raised) when none was -- the claim then held every time its line ran, or
    its line never ran, and the variant is not written.

    Args:
        module: the program's tree (``node`` is one of its nodes).
        ctx: the rewrite context; :func:`checkable` must hold (the row's input is
            ``ctx.inputs[0]``).
        node: the ``SimpleStatementLine``, compound statement or ``Else`` the claim is about.
        check: the claim's check.
        text: the claim as written.

    Returns:
        The :class:`Claim` to declare."""
    if check.by_construction:
        note = cst.parse_statement(f"{_SEEN}.append(1)\n")
    else:
        note = cst.parse_statement(f"{_NOTE}(lambda: {check.test})\n")
    if check.anchor is not None:
        node = check.anchor
    if isinstance(node, cst.SimpleStatementLine) and check.where in ("body", "branches"):
        raise ValueError("a statement line has no body")
    b = "_codemorph_b"
    probe = _insert(module, node, check.where, note).code + (
        f"\n\nimport builtins as {b}\n{_SEEN} = []\n\n\n"
        f"def {_NOTE}(test):\n    try:\n        if test():\n            {_SEEN}.append(1)\n"
        f"    except {b}.Exception:\n        pass\n\n\n"
        f"def _codemorph_items(x):\n"
        f"    if {b}.type(x) not in ({b}.list, {b}.tuple, {b}.str, {b}.dict, {b}.set, {b}.frozenset, {b}.range):\n"
        f"        raise {b}.TypeError('not a collection')\n    return {b}.list(x)\n\n\n"
        f"def _codemorph_prod(xs):\n    p = 1\n    for x in _codemorph_items(xs):\n        p = p * x\n    return p\n\n\n"
        f"def _codemorph_plain(*values):\n    for v in values:\n        try:\n"
        f"            if {b}.iter(v) is v:\n                return False\n"
        f"        except {b}.Exception:\n            pass\n    return True\n\n\n"
        f"def {_PROBE}(*args, **kwargs):\n    {_SEEN}.clear()\n    try:\n"
        f"        {ctx.entry_point}(*args, **kwargs)\n    except {b}.Exception:\n        pass\n"
        f"    if not {_SEEN}:\n        raise {b}.AssertionError({PROBE_MESSAGE!r})\n")
    return Claim(text, probe, _PROBE, ctx.inputs[0])
