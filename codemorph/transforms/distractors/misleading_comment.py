"""``misleading-comment``: comments that state false claims about the code next to them.
"""

from __future__ import annotations

import builtins
import re

import libcst as cst

from codemorph.engine import NotApplicable, RewriteContext, Transform
from codemorph.engine.transform import Claim, identifiers_in
from codemorph.authoring.scopes import FunctionIndex
from codemorph.transforms.distractors.claims import (
    CHECK_PREFIX, CLAIM_BUILTINS, Check, CommentSites, SOURCE_HAZARDS, check_hazards, make_comment, order_moot,
    same_ast, states_output,
)
from codemorph.transforms.distractors.values import PROBE_MESSAGE, BlockTransformer

__all__ = ["MisleadingComment", "claim_check", "claim_checks", "checkable"]

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
    top-level entry function to call, only claims false by construction are made.  With
    :attr:`RewriteContext.keep_claims <codemorph.engine.transform.RewriteContext.keep_claims>`
    (``generate`` making a variant again with only its claims shown false) only those are
    made.

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
        # (``ctx.keep_claims``: a variant made again with only its claims shown false)
        sites = [(node, kind, kept) for node, kind, lies in finder.sites
                 if (kept := [(t, k) for t, k in lies if not states_output(t, ctx.outputs)
                              and not order_moot(t, ctx.outputs)
                              and (can_check or not ctx.inputs or k.by_construction)
                              and (ctx.keep_claims is None or t in ctx.keep_claims)])]
        if not sites:
            if ctx.keep_claims is not None:
                raise NotApplicable("none of the claims to keep is known for this program")
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
            for claim in claim_checks(module, ctx, [(node, checks[id(node)], texts[id(node)]) for node, _, _ in sites]):
                ctx.claim(claim)
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
    return _insert_many(module, [(node, where, [stmt])])[0]


def _insert_many(module: cst.Module, inserts: list[tuple[cst.CSTNode, str, list[cst.BaseStatement]]]
                 ) -> tuple[cst.Module, list[int]]:
    """``module`` with each ``(node, where, stmts)`` of ``inserts`` done as :func:`_insert`
    does with one statement (``stmts`` in order, where it puts its ``stmt``), and how many
    blocks each insert went into (0 when ``node`` is in no indented block)."""
    firsts: dict[int, list[int]] = {}  # id(block) -> inserts that go first in it
    around: dict[int, list[int]] = {}  # id(statement) -> inserts before or after it
    for i, (node, where, _) in enumerate(inserts):
        if where in ("body", "branches"):
            firsts.setdefault(id(node.body), []).append(i)
            if where == "branches" and isinstance(node, cst.If) and isinstance(node.orelse, cst.Else):
                firsts.setdefault(id(node.orelse.body), []).append(i)
        else:
            around.setdefault(id(node), []).append(i)
    done = [0] * len(inserts)

    class Insert(BlockTransformer):
        def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
            front = firsts.get(id(original), [])
            if not front and not any(id(s) in around for s in original.body):
                return updated
            body: list[cst.BaseStatement] = []
            for i in front:
                body += inserts[i][2]
                done[i] += 1
            for old, new in zip(original.body, updated.body):
                mine = around.get(id(old), [])
                for i in mine:
                    if inserts[i][1] == "before":
                        body += inserts[i][2]
                        done[i] += 1
                body.append(new)
                for i in mine:
                    if inserts[i][1] == "after":
                        body += inserts[i][2]
                        done[i] += 1
            return updated.with_changes(body=body)

    return module.visit(Insert()), done


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
        The :class:`Claim` to declare.

    Raises:
        ValueError: ``check.where`` is ``"body"`` or ``"branches"`` for a statement line."""
    return claim_checks(module, ctx, [(node, check, text)])[0]


def claim_checks(module: cst.Module, ctx: RewriteContext,
                 claims: list[tuple[cst.CSTNode, Check, str]]) -> list[Claim]:
    """:func:`claim_check` of each ``(node, check, text)`` of ``claims``, in order: the same
    probe programs, one per claim (each claim is run on its own, so that nothing one check
    does can change another claim's verdict), built from one rewrite and one code
    generation of ``module`` for them all (:func:`_probe_codes`) instead of one per claim.

    Raises:
        ValueError: as :func:`claim_check`."""
    notes = []
    for node, check, _ in claims:
        if check.by_construction:
            note = cst.parse_statement(f"{_SEEN}.append(1)\n")
        else:
            note = cst.parse_statement(f"{_NOTE}(lambda: {check.test})\n")
        if check.anchor is not None:
            node = check.anchor
        if isinstance(node, cst.SimpleStatementLine) and check.where in ("body", "branches"):
            raise ValueError("a statement line has no body")
        notes.append((node, check.where, note))
    codes = _probe_codes(module, notes) if len(notes) > 1 else None
    if codes is None:
        codes = [_insert(module, node, where, note).code for node, where, note in notes]
    return [Claim(text, _probe(code, ctx), _PROBE, ctx.inputs[0]) for code, (_, _, text) in zip(codes, claims)]


#: words of a text through which a program may reach a module, the builtins or its own
#: globals (the sandbox's own list, ``_REACH_WORDS`` of its worker, which runs a program
#: that spells none of them without restoring the process state after it)
_REACH = re.compile("|".join(map(re.escape, (
    "import", "__", "exec", "eval", "compile", "getattr", "setattr", "delattr", "vars", "globals", "locals",
    "breakpoint", "help", "sys", "_frame", "gi_code", "cr_code", "ag_code"))))
_IMPORT_B = "import builtins as _codemorph_b\n"


def _probe(code: str, ctx: RewriteContext) -> str:
    """The probe program: ``code`` (the program with its note) and :func:`_probe_tail`,
    which imports the ``builtins`` module as ``_codemorph_b`` and defines every helper a
    check may call.  When ``code`` spells none of :data:`_REACH` (so it can change neither
    the builtins nor its globals but by binding names in its text, nor see its module's
    globals), is ASCII, and binds none of the builtins the probe uses
    (``_codemorph_b.<name>``), the tail instead defines only the helpers ``code`` calls and
    ``_codemorph_b`` is a class holding those builtins: the same objects, and the sandbox
    runs a probe without ``import`` without restoring the process state after it, and
    compiles a shorter one (about 1.0 and 0.45 ms less child CPU per claim in a
    micro-benchmark)."""
    if not code.isascii() or _REACH.search(code):
        return code + _probe_tail(ctx.entry_point)
    used = {name for name in _HELPER_NAMES if name in code}
    if "_codemorph_prod" in used:
        used.add("_codemorph_items")
    tail = _probe_tail(ctx.entry_point, used)
    names = sorted(set(re.findall(r"_codemorph_b\.([A-Za-z_]\w*)", code + tail)))
    if not all(n in vars(builtins) for n in names) or ctx.shadowed(*names):
        return code + _probe_tail(ctx.entry_point)
    holder = "class _codemorph_b:\n" + "".join(f"    {n} = {n}\n" for n in names)
    return code + tail.replace(_IMPORT_B, holder, 1)


#: how the marker statements of :func:`_probe_codes` begin (no program spells ``_codemorph...``)
_MARK = "_codemorph_mark_"


def _probe_codes(module: cst.Module, notes: list[tuple[cst.CSTNode, str, cst.BaseStatement]]) -> list[str] | None:
    """``[_insert(module, node, where, note).code for node, where, note in notes]``, from
    one rewrite and one code generation: every note goes in at once, between two marker
    statements of its own (each a line of its own), and each note's code is that text
    without the marker lines and without the other notes' lines between their markers --
    a statement's code does not depend on the statements next to it, so this is the text
    ``_insert`` writes.  The module is generated with a trailing newline, which is then
    taken off when it has none (libcst's ``pop_trailing_newline``: the last newline).
    ``None`` (build each alone) when the text does not hold exactly the marker lines put in
    (the program's own text spells a marker, say in a string)."""
    inserts = []
    for i, (node, where, note) in enumerate(notes):
        inserts.append((node, where, [cst.parse_statement(f"{_MARK}{i}_begin()\n"), note,
                                      cst.parse_statement(f"{_MARK}{i}_end()\n")]))
    tree, done = _insert_many(module, inserts)
    text = tree.with_changes(has_trailing_newline=True).code
    if text.count(_MARK) != 2 * sum(done):
        return None
    begins = {f"{_MARK}{i}_begin()": i for i in range(len(notes))}
    ends = {f"{_MARK}{i}_end()": i for i in range(len(notes))}
    pieces: list[tuple[int | None, str]] = []  # (the note a line belongs to, or None; the line)
    inside = None
    marks = 0
    for line in text.split("\n"):
        key = line.strip()
        if inside is None and key in begins:
            inside = begins[key]
            marks += 1
        elif inside is not None and key in ends and ends[key] == inside:
            inside = None
            marks += 1
        else:
            pieces.append((inside, line))
    if inside is not None or marks != 2 * sum(done):
        return None
    out = []
    for i in range(len(notes)):
        code = "\n".join(line for who, line in pieces if who is None or who == i)
        if not module.has_trailing_newline:
            code = code[:-2] if code.endswith("\r\n") else code[:-1] if code.endswith(("\n", "\r")) else code
        out.append(code)
    return out


#: the helpers a check may call, in the order the probe defines them
_HELPER_NAMES = (_NOTE, "_codemorph_items", "_codemorph_prod", "_codemorph_plain")


def _probe_tail(entry: str, helpers: set[str] | None = None) -> str:
    """What a probe program of :func:`claim_check` adds after the program: the builtins
    module as ``_codemorph_b``, the list of notes, the helpers checks call (those named in
    ``helpers``; ``None``: all), and the function the sandbox calls (``entry`` on the row's
    input; ``AssertionError`` when no note was made)."""
    b = "_codemorph_b"
    defs = {
        _NOTE: (f"def {_NOTE}(test):\n    try:\n        if test():\n            {_SEEN}.append(1)\n"
                f"    except {b}.Exception:\n        pass\n\n\n"),
        "_codemorph_items": (
            f"def _codemorph_items(x):\n"
            f"    if {b}.type(x) not in ({b}.list, {b}.tuple, {b}.str, {b}.dict, {b}.set, {b}.frozenset, {b}.range):\n"
            f"        raise {b}.TypeError('not a collection')\n    return {b}.list(x)\n\n\n"),
        "_codemorph_prod": "def _codemorph_prod(xs):\n    p = 1\n    for x in _codemorph_items(xs):\n        p = p * x\n"
                           "    return p\n\n\n",
        "_codemorph_plain": (f"def _codemorph_plain(*values):\n    for v in values:\n        try:\n"
                             f"            if {b}.iter(v) is v:\n                return False\n"
                             f"        except {b}.Exception:\n            pass\n    return True\n\n\n"),
    }
    return (f"\n\n{_IMPORT_B}{_SEEN} = []\n\n\n"
            + "".join(defs[n] for n in _HELPER_NAMES if helpers is None or n in helpers)
            + f"def {_PROBE}(*args, **kwargs):\n    {_SEEN}.clear()\n    try:\n"
              f"        {entry}(*args, **kwargs)\n    except {b}.Exception:\n        pass\n"
              f"    if not {_SEEN}:\n        raise {b}.AssertionError({PROBE_MESSAGE!r})\n")
