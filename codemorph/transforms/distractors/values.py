"""What the value distractors share (``misleading-print``, ``misleading-value-comment``):
sites where a wrong value can be stated, the statement, and the probe program that checks
it false by execution.

A *site* is an assignment ``name = ...`` or ``name op= ...`` on a line of its own in the
entry function (directly in its body or in ``if``/``for``/``while`` blocks, never in
``try``/``with``/``match`` or nested functions) whose local was observed with one type:
``int`` (the claim states its value: ``n == 4``) or ``str``/``list``/``tuple``/``dict``
(its length: ``len(xs) == 3``).  Only a value computed from the program's variables is a
site (:func:`computed_value`, the rule dead-code follows): ``n = len(nums)``, ``words =
text.split()``, ``total += x``; never a literal or a display whose length the line shows
(``count = 0``, ``out = []``, ``pair = [a, b]``), nor ``count += 1`` right after ``count =
0`` -- a claim there is contradicted by the line itself or the one before it.  The value
stated is drawn from small values (never -1 for ``len(...)``) and *checked*: the probe is the program with ``if n ==
4: raise AssertionError(...)`` right after the site, and the claim counts as false only
when the probe, run on the row's input in the sandbox, returns
(:class:`~codemorph.engine.transform.Claim` with ``expected=None``) and the site ran at least
once (a value stated on a line the row's input never reaches is shown false by nothing).  Comparing an ``int``
or taking ``len`` of a builtin container has no side effect, and a program with any
``try``/``with`` cannot catch the probe's exception.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from codemorph.engine import NotApplicable, RewriteContext
from codemorph.engine.transform import Claim, identifiers_in
from codemorph.authoring.facts import is_generator_function
from codemorph.authoring.scopes import FunctionIndex
from codemorph.authoring.syntax import reads_a_variable

__all__ = ["ValueSite", "value_sites", "computed_value", "insert_after", "BlockTransformer", "probe_source", "site_claim", "PROBE_MESSAGE"]

_LEN_TYPES = ("str", "list", "tuple", "dict")
#: the message of a probe's exception
PROBE_MESSAGE = "codemorph claim probe: the stated value occurred"


@dataclass(frozen=True)
class ValueSite:
    """One place a wrong value is stated.

    Attributes:
        node: the ``SimpleStatementLine`` of the assignment (a node of the input tree).
        name: the local assigned.
        kind: ``"value"`` (an int's value) or ``"len"`` (a container's length).
        wrong: the value stated (an int).
        in_loop: the line is inside a loop of the entry function.
    """

    node: cst.SimpleStatementLine
    name: str
    kind: str
    wrong: int
    in_loop: bool

    @property
    def condition(self) -> str:
        """The claim as a Python condition (``n == 4``, ``len(xs) == 3``)."""
        return f"{self.name} == {self.wrong}" if self.kind == "value" else f"len({self.name}) == {self.wrong}"


def _has_compound(module: cst.Module, kinds: tuple[type, ...]) -> bool:
    stack: list[cst.CSTNode] = [module]
    while stack:
        n = stack.pop()
        if isinstance(n, kinds):
            return True
        stack.extend(n.children)
    return False


def _shows_length(node: cst.BaseExpression) -> bool:
    """A display whose length the line shows: ``[a, b]``, ``(x,)``, ``{k: v}``, ``'abc'``."""
    if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
        return not any(isinstance(e, cst.StarredElement) for e in node.elements)
    if isinstance(node, cst.Dict):
        return not any(isinstance(e, cst.StarredDictElement) for e in node.elements)
    return isinstance(node, (cst.SimpleString, cst.ConcatenatedString))


def computed_value(stmt: cst.BaseSmallStatement, kind: str, previous: cst.BaseStatement | None) -> bool:
    """Whether the value assigned by ``stmt`` (an ``Assign`` or ``AugAssign`` to a name)
    is computed from the program's variables, so that the line does not show the value a
    claim of ``kind`` (``"value"``/``"len"``) is about: the expression reads a name other
    than a builtin it calls (``len``, ``list``, ``range``...) or a comprehension's own target
    (``len(xs)``, ``text.split()``, ``[c for c in text]``: yes; ``0``, ``[]``, ``''``,
    ``list()``, ``[i for i in range(3)]``: no), and for ``"len"`` is not a display of a
    fixed length (``[a, b]``).  An ``AugAssign`` reads its own target (``total += x``,
    ``n += 1``), except right after ``previous`` assigned that target a value that is not
    computed (``n = 0`` / ``n += 1``)."""
    if isinstance(stmt, cst.AugAssign):
        if reads_a_variable(stmt.value):
            return True
        if isinstance(previous, cst.SimpleStatementLine) and len(previous.body) == 1:
            prev = previous.body[0]
            if isinstance(prev, cst.Assign) and len(prev.targets) == 1 \
                    and isinstance(prev.targets[0].target, cst.Name) \
                    and isinstance(stmt.target, cst.Name) and prev.targets[0].target.value == stmt.target.value:
                return computed_value(prev, kind, None)
        return True
    if not isinstance(stmt, cst.Assign):
        return False
    if kind == "len" and _shows_length(stmt.value):
        return False
    return reads_a_variable(stmt.value)




def _is_length(node: cst.BaseExpression) -> bool:
    """``len(...)`` or ``len(...) // k``: a value that is never negative."""
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.FloorDivide) \
            and isinstance(node.right, cst.Integer):
        node = node.left
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "len"


def _wrong_value(stmt: cst.BaseSmallStatement, kind: str, ctx: RewriteContext, no_len: bool) -> int:
    """The value to state, a small value drawn with ``ctx.rng`` (checked by the probe);
    never -1 for a length (``n = len(xs)  # n == -1 here``)."""
    rng = ctx.rng
    if kind == "len":
        return rng.choice((2, 3, 4, 5, 6, 7))
    if isinstance(stmt, cst.Assign) and not no_len and _is_length(stmt.value):
        return rng.choice((2, 3, 5, 6, 7, 8, 9, 11, 12))
    return rng.choice((-1, 2, 3, 5, 6, 7, 8, 9, 11, 12))


def value_sites(module: cst.Module, ctx: RewriteContext, *, loops: bool = True) -> list[ValueSite]:
    """Every site of the entry function (see the module docstring), in source order, with
    its wrong value drawn.

    Args:
        module: the program's tree.
        ctx: the rewrite context (observations, rng, entry point).
        loops: also sites inside loops.

    Raises:
        NotApplicable: no observations, no such entry function, a generator entry function,
            a ``try``/``with`` anywhere, ``eval``/``exec``/``locals``... in the entry
            function, or no site (literal values are not sites: :func:`computed_value`).
    """
    if ctx.observations is None:
        raise NotApplicable("needs the observed types of the entry function's locals")
    if _has_compound(module, (cst.Try, cst.TryStar, cst.With)):
        raise NotApplicable("the program has try/with, which could catch or hide the claim's check")
    entry = None
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == ctx.entry_point:
            entry = stmt
    if entry is None:
        raise NotApplicable(f"no top-level function {ctx.entry_point!r}")
    if not isinstance(entry.body, cst.IndentedBlock):
        raise NotApplicable("the entry function's body is on the line of its def")
    if is_generator_function(entry):
        raise NotApplicable("the entry function is a generator")
    index = FunctionIndex(ctx)
    if entry in index.dynamic:
        raise NotApplicable("the entry function uses eval/exec/locals/globals/vars/dir")
    qualname = index.qualnames.get(entry, ctx.entry_point)
    if ctx.shadowed("AssertionError"):
        raise NotApplicable("the program may rebind AssertionError, which the claim's check raises")
    no_len = bool(ctx.shadowed("len"))
    out: list[ValueSite] = []

    def walk(block: cst.BaseSuite, in_loop: bool) -> None:
        if not isinstance(block, cst.IndentedBlock):
            return
        previous: cst.BaseStatement | None = None
        for s in block.body:
            if isinstance(s, cst.SimpleStatementLine):
                site = site_of(s, in_loop, previous)
                if site is not None:
                    out.append(site)
            elif isinstance(s, cst.If):
                walk(s.body, in_loop)
                orelse = s.orelse
                while isinstance(orelse, cst.If):
                    walk(orelse.body, in_loop)
                    orelse = orelse.orelse
                if isinstance(orelse, cst.Else):
                    walk(orelse.body, in_loop)
            elif isinstance(s, (cst.For, cst.While)) and loops and not getattr(s, "asynchronous", None):
                walk(s.body, True)
                if s.orelse is not None:
                    walk(s.orelse.body, in_loop)
            previous = s

    def site_of(line: cst.SimpleStatementLine, in_loop: bool, previous: cst.BaseStatement | None) -> ValueSite | None:
        if len(line.body) != 1 or line.trailing_whitespace.comment is not None:
            return None
        stmt = line.body[0]
        if isinstance(stmt, cst.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0].target, cst.Name):
            name = stmt.targets[0].target.value
        elif isinstance(stmt, cst.AugAssign) and isinstance(stmt.target, cst.Name):
            name = stmt.target.value
        else:
            return None
        types = index.observed(qualname, name)
        if not types or len(types) != 1:
            return None
        if types[0] == "int":
            kind = "value"
        elif types[0] in _LEN_TYPES and not no_len:
            kind = "len"
        else:
            return None
        if not computed_value(stmt, kind, previous):
            return None
        return ValueSite(line, name, kind, _wrong_value(stmt, kind, ctx, no_len), in_loop)

    walk(entry.body, False)
    if not out:
        raise NotApplicable("no assignment in the entry function of a value computed from the program's variables "
                            "to a local observed as one int, str, list, tuple or dict")
    return out


class BlockTransformer(cst.CSTTransformer):
    """A transformer that changes indented blocks only (their ``leave_IndentedBlock``): it
    does not go into simple statement lines and expressions, which hold no indented block,
    and the nodes it does not change are kept as they are (``reuse_unchanged_nodes``, see
    :mod:`codemorph.engine.visiting`): the same tree as libcst's full traversal, at a
    fraction of its cost (a probe program is built per claim)."""

    reuse_unchanged_nodes = True

    def on_visit(self, node: cst.CSTNode) -> bool:
        return not isinstance(node, (cst.SimpleStatementLine, cst.BaseExpression))


def insert_after(module: cst.Module, extra: dict[int, list[cst.BaseStatement]]) -> cst.Module:
    """``module`` with the statements ``extra[id(node)]`` inserted right after each
    statement ``node`` (nodes of ``module``, in indented blocks)."""

    class Insert(BlockTransformer):
        def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
            if not any(id(s) in extra for s in original.body):
                return updated
            body: list[cst.BaseStatement] = []
            for old, new in zip(original.body, updated.body):
                body.append(new)
                body += extra.get(id(old), [])
            return updated.with_changes(body=body)

    return module.visit(Insert())


#: names the probe adds: the list noting that a site ran, and the function the check calls
_REACHED, _PROBE = "_codemorph_site_reached", "_codemorph_value_probe"


def probe_source(module: cst.Module, sites: list[ValueSite], entry: str | None = None) -> str:
    """The probe program of ``sites``: ``module`` with ``if <condition>: raise
    AssertionError(...)`` after each site (see the module docstring).  With ``entry`` (the
    entry point's name), the probe also notes each run of a site and defines
    ``_codemorph_value_probe``, which calls ``entry`` and raises ``AssertionError`` when no
    site ran: a value stated on a line the input never reaches is not shown false."""
    note = [cst.parse_statement(f"{_REACHED}.append(1)\n")] if entry is not None else []
    extra = {id(s.node): note + [cst.parse_statement(f"if {s.condition}:\n    raise AssertionError({PROBE_MESSAGE!r})\n")]
             for s in sites}
    code = insert_after(module, extra).code
    if entry is not None:
        code += (f"\n\n{_REACHED} = []\n\n\ndef {_PROBE}(*args, **kwargs):\n    {_REACHED}.clear()\n"
                 f"    {entry}(*args, **kwargs)\n    if not {_REACHED}:\n"
                 f"        raise AssertionError({PROBE_MESSAGE + ' (its line never ran)'!r})\n")
    return code


def site_claim(module: cst.Module, ctx: RewriteContext, site: ValueSite, text: str) -> Claim:
    """The :class:`Claim` of ``text`` stated at ``site``, checked on the row's input (the
    first of ``ctx.inputs``): the stated value never occurs at the site, and the site runs
    at least once (a claim on a line the input never reaches is shown false by nothing)."""
    if not ctx.inputs:
        raise NotApplicable("no input to check the claim on")
    if identifiers_in(module) & {_REACHED, _PROBE}:
        raise NotApplicable(f"the program spells {_REACHED} or {_PROBE}, names the claim's check uses")
    return Claim(text, probe_source(module, [site], ctx.entry_point), _PROBE, ctx.inputs[0])
