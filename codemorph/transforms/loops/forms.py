"""The ``while`` forms a ``for`` loop is rewritten into by ``for-to-while`` (and the iterator
form ``peel-loop`` peels, whose other forms are in :mod:`codemorph.transforms.loops.peeling`):
the forms people write, each used only where its precondition is established.

* **counter** -- ``for v in range(a, b[, k])`` (``k`` a nonzero int literal) becomes
  ``v = a`` / ``while v < b:`` / ... / ``v += k`` (``>`` and ``-=`` for a negative ``k``;
  ``while v >= 0:`` for a bound of ``-1``);
* **index** -- ``for x in xs`` over a list, tuple or str becomes ``i = 0`` /
  ``while i < len(xs):`` / ``x = xs[i]`` / ... / ``i += 1``, and ``for i, x in enumerate(xs)``
  uses ``i`` itself as the counter;
* **general** -- every other loop: ``it = iter(xs)`` / ``while True:`` / ``try: x = next(it)`` /
  ``except StopIteration: break`` / ...; never a loop over ``range(...)`` or
  ``reversed(range(...))`` (no form people write): without the counter form it is refused.

``for _ in range(...)`` counts with a fresh name (``i``, ``j``...) instead of ``_`` when the
body does not read ``_`` (``_`` is then never bound; the counter form already requires that
nothing outside the body reads the loop variable).  No increment is appended after a last
statement that cannot fall through (an ``if`` whose every branch ends in a jump).

:class:`LoopForms` decides the form of one loop (:meth:`LoopForms.form_of`) and builds it
(:meth:`LoopForm.while_loop`, :meth:`LoopForm.peeled`).  Why each form is exact:

* A ``for`` over an exact ``list``, ``tuple`` or ``str`` is CPython's sequence iterator: before
  each item it compares its index with the *current* ``len`` of the object and stops for good
  at the first failure (``listiter_next``, ``tupleiter_next``, ``unicodeiter_next``), and the
  item is ``xs[index]``.  The index form does exactly that, provided ``xs`` names the same
  object at every test: it is a local of the function that neither the body, nor the loop's
  target, nor any ``del`` / ``global`` / ``nonlocal`` / ``except ... as`` / nested function
  rebinds.  The body may change the list's length: the iterator would see the change too.
  ``range`` objects stored in a variable are left to the general form (``len`` of a range
  longer than ``sys.maxsize`` raises ``OverflowError`` where iterating it does not).
* ``range(a, b, k)`` with int ``a`` and ``b`` (int literals, ``len(...)``, arithmetic of ints,
  locals only ever observed holding ints) yields ``a, a + k, ...`` while ``< b`` (``> b`` for
  ``k < 0``); ``b`` is evaluated once (a literal, an invariant local, ``len`` of an invariant
  ``str``/``tuple`` local, or bound to a fresh name before the loop).  The loop variable is
  the counter, so the body must not rebind it, and because the counter ends one step past
  the last value (and is bound even when the range is empty), the variable must not be read
  anywhere in the function outside the loop's body (nor by a closure created in it).
* In the index and counter forms the increment is the body's last statement and is also
  inserted before every ``continue`` of the loop, so every path to the next test passes it;
  ``break`` leaves the loop without it, and ``while ... else`` runs ``else`` exactly when the
  test fails, as ``for ... else`` does when the iterable is exhausted.  The fresh counter is
  read by nothing but the loop.
* The general form calls ``iter`` once and ``next`` until the first ``StopIteration``, and
  only the ``next`` call (with the assignment to a plain name, which cannot raise) sits in
  the ``try``: a ``StopIteration`` raised by the body, or by unpacking into the target,
  propagates as it did.  A tuple target is unpacked inside the ``try`` only when the items
  are known to be exact tuples (``enumerate``, ``zip``, ``d.items()`` of a dict); other
  targets receive a fresh ``item`` after the ``try``.  An ``else`` of a loop without
  ``break`` always runs after it, so it becomes statements after the loop; with ``break``,
  the handler also sets a fresh flag (``exhausted = True``) and ``if exhausted:`` runs the
  ``else`` after the loop (outside the handler, so an exception it raises has no
  ``StopIteration`` context, and outside the ``while``, so its ``break``/``continue`` still
  belong to an enclosing loop).

* At module level of a script (:attr:`RewriteContext.script`: nothing outside the program
  reads its namespace) the same proofs are made over the module (:class:`ScriptFacts`), where
  every name is a global that code of the script's functions, lambdas and class bodies may
  read or rebind whenever it runs (for instance when the body calls it): a counter is a name
  no such code refers to as a global, a sequence or bound that the loop cannot rebind is one
  no such code rebinds, and ``del`` / ``except ... as`` / ``global`` / ``nonlocal`` anywhere in
  the module exclude a name; module-level names' types come from observations under
  ``"<module>"`` (taken where each module-level loop starts).  A program that spells one of
  :data:`NAMESPACE_HAZARDS` keeps its module-level loops; a non-script module's module-level
  loops are never sites.  The general form needs no counter or sequence condition: it binds
  the loop variable as the ``for`` loop does and calls ``iter`` once on the same object.

Fresh names read like code (``i``, ``j``, ``k``, ``idx``...; ``it``; ``n``; ``items``; ``item``)
and are spelled nowhere in the program (:meth:`RewriteContext.reserve`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable
import libcst as cst

from libcst.metadata import ClassScope, ComprehensionScope, GlobalScope

from codemorph.engine import DYNAMIC_SCOPE_BUILTINS, RewriteContext
from codemorph.engine.transform import bound_names
from codemorph.authoring.facts import ProgramFacts
from codemorph.authoring.scopes import FunctionIndex
from codemorph.authoring.hazards import builtin_rebinding_refusal, rebindable_builtins
from codemorph.authoring.syntax import parenthesize_if_bare_tuple
from codemorph.transforms.loops.common import (
    BlockRewriter, LoopBodyScope, Plan, choose_loop_sites, for_loop_facts, for_sites, refuse_program,
    block_statements, find, int_literal, int_node, lazy_scopes, loop_jumps, name_nodes, prepend_lines, target_names,
)

__all__ = ["LoopForm", "LoopForms", "ScriptFacts", "SEQUENCE_TYPES", "COUNTER_NAMES", "NAMESPACE_HAZARDS",
           "rewrite_for_loops", "enumerate_loop", "plain_call", "append_orelse"]

#: observed types of a local whose ``for`` loop gets the index form (exact types)
SEQUENCE_TYPES = frozenset({"list", "tuple", "str"})
#: fresh names, first free one wins (then ``idx_1``, ``it_1``... as :meth:`RewriteContext.fresh_name`)
COUNTER_NAMES = ("i", "j", "k", "idx", "index", "pos")
ITERATOR_NAMES = ("it", "iterator")
STOP_NAMES = ("n", "size", "length", "end", "stop", "limit")
SEQUENCE_NAMES = ("items", "seq", "values", "elements")
ITEM_NAMES = ("item", "value", "elem", "entry")
FLAG_NAMES = ("exhausted", "finished", "done")

#: the qualname runtime observations file a script's module-level names under
MODULE_QUALNAME = "<module>"
#: identifiers through which a program may read or write its module namespace by name (a
#: script's module-level loops are left alone where one is spelled): the dynamic-scope
#: builtins, the ``__main__`` module, ``sys.modules``, a function's ``__globals__``, a frame's
#: ``f_globals``
NAMESPACE_HAZARDS = frozenset(DYNAMIC_SCOPE_BUILTINS | {"__main__", "modules", "__globals__", "f_globals"})

#: ``str`` methods that return a ``str`` / a ``list`` of ``str`` when called on an exact ``str``
_STR_TO_STR = frozenset({"lower", "upper", "strip", "lstrip", "rstrip", "replace", "title", "capitalize",
                         "swapcase", "casefold", "center", "ljust", "rjust", "zfill", "expandtabs",
                         "removeprefix", "removesuffix", "translate", "join"})
# not ``format``: ``'{}'.format(x)`` is the very object ``x.__format__`` returned, which may be
# a subclass of ``str`` with its own ``__iter__``/``__getitem__``/``__reversed__`` (f-strings too)
_STR_TO_LIST = frozenset({"split", "rsplit", "splitlines"})


def _fresh(ctx: RewriteContext, candidates: tuple[str, ...]) -> str:
    for name in candidates:
        if ctx.reserve(name):
            return name
    return ctx.fresh_name(candidates[0])


def _line(small: cst.BaseSmallStatement) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([small])


def _assign(target: cst.BaseAssignTargetExpression, value: cst.BaseExpression) -> cst.SimpleStatementLine:
    return _line(cst.Assign([cst.AssignTarget(target)], value))


def _call(func: str, *args: cst.BaseExpression) -> cst.Call:
    return cst.Call(cst.Name(func), [cst.Arg(a) for a in args])


def plain_call(node: cst.BaseExpression, func: str) -> cst.Call | None:
    """``node`` when it is a call of the name ``func`` with positional arguments only."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == func \
            and all(a.keyword is None and not a.star for a in node.args):
        return node
    return None


def append_orelse(out: list[cst.BaseStatement], node: cst.For | cst.While) -> list[cst.EmptyLine]:
    """Append the statements of ``node``'s ``else:`` clause, which run once after a rewritten
    loop that has no ``break``, to ``out`` (the clause's leading lines before the first);
    returns the comment lines left at the clause's end (``[]`` without an ``else``)."""
    if node.orelse is None:
        return []
    after, left = block_statements(node.orelse.body)
    after[0] = prepend_lines(after[0], node.orelse.leading_lines)
    out += after
    return left


def enumerate_loop(loop: cst.For) -> tuple[cst.BaseExpression, cst.BaseExpression, cst.BaseExpression] | None:
    """``(counter, item target, sequence)`` of ``for counter, item in enumerate(seq)`` (one
    positional argument, a target of two elements without ``*``), else ``None``.  Whether
    ``enumerate`` is the builtin is the caller's check."""
    enum = plain_call(loop.iter, "enumerate")
    if enum is None or len(enum.args) != 1 or not isinstance(loop.target, cst.Tuple) \
            or len(loop.target.elements) != 2 \
            or any(isinstance(el, cst.StarredElement) for el in loop.target.elements):
        return None
    counter, elem = (el.value for el in loop.target.elements)
    return counter, elem, enum.args[0].value


class _StepBeforeContinue(LoopBodyScope, cst.CSTTransformer):
    """Inserts the loop's increment before each ``continue`` that belongs to the loop whose
    body is visited (not to nested loops, functions or classes; the ``else`` of a nested
    loop belongs to the visited loop)."""

    def __init__(self, step: cst.BaseSmallStatement) -> None:
        super().__init__()
        self.step = step

    def _nested_loop(self, node: cst.For | cst.While) -> bool:
        return False  # its else is rewritten on the way out (_leave_loop)

    def _leave_loop(self, original_node, updated_node):
        if updated_node.orelse is not None:
            return updated_node.with_changes(orelse=updated_node.orelse.visit(self))
        return updated_node

    leave_For = leave_While = _leave_loop

    def _with_step(self, smalls) -> list:
        out = []
        for s in smalls:
            if isinstance(s, cst.Continue):
                out.append(self.step.with_changes(semicolon=cst.Semicolon(whitespace_after=cst.SimpleWhitespace(" "))))
            out.append(s)
        return out

    def leave_SimpleStatementLine(self, original_node, updated_node):
        if not any(isinstance(s, cst.Continue) for s in updated_node.body):
            return updated_node
        if len(updated_node.body) == 1:
            return cst.FlattenSentinel([_line(self.step).with_changes(leading_lines=updated_node.leading_lines),
                                        updated_node.with_changes(leading_lines=[])])
        return updated_node.with_changes(body=self._with_step(updated_node.body))

    def leave_SimpleStatementSuite(self, original_node, updated_node):
        if not any(isinstance(s, cst.Continue) for s in updated_node.body):
            return updated_node
        smalls = [s.with_changes(semicolon=cst.MaybeSentinel.DEFAULT) for s in updated_node.body]
        lines: list[cst.SimpleStatementLine] = []
        for s in smalls:
            if isinstance(s, cst.Continue):
                lines.append(_line(self.step))
            lines.append(_line(s))
        return cst.IndentedBlock(body=lines, header=updated_node.trailing_whitespace)


class _ContinueInCleanup(LoopBodyScope, cst.CSTVisitor):
    """Finds a ``continue`` of the loop whose body is visited (as :func:`loop_jumps` counts
    them) that sits inside a ``with`` or inside a ``try`` with ``finally`` in that body: code
    (``__exit__``, the ``finally`` block) runs between the ``continue`` and the next test, so
    an increment inserted before the ``continue`` would be seen by it, or counted twice
    when that code raises an exception the body catches."""

    def __init__(self) -> None:
        self.depth = 0
        self.found = False

    def visit_Continue(self, node: cst.Continue) -> None:
        if self.depth:
            self.found = True

    def _enter(self, node) -> None:
        self.depth += 1

    def _leave(self, node) -> None:
        self.depth -= 1

    visit_With = _enter
    leave_With = _leave

    def visit_Try(self, node: cst.Try) -> None:
        self.depth += node.finalbody is not None

    def leave_Try(self, node: cst.Try) -> None:
        self.depth -= node.finalbody is not None

    def visit_TryStar(self, node: cst.TryStar) -> None:
        self.depth += node.finalbody is not None

    def leave_TryStar(self, node: cst.TryStar) -> None:
        self.depth -= node.finalbody is not None



def continue_in_cleanup(body: cst.BaseSuite) -> bool:
    """Whether a ``continue`` of the loop with ``body`` sits in a ``with`` or in a ``try``
    with ``finally`` of that body (see :class:`_ContinueInCleanup`)."""
    v = _ContinueInCleanup()
    body.visit(v)
    return v.found


def _callee(e: cst.BaseExpression) -> str:
    """``zip(...)`` for a call of ``zip``, ``(... for ...)`` for a generator expression."""
    if isinstance(e, cst.Call) and isinstance(e.func, cst.Name):
        return f"{e.func.value}(...)"
    return "(... for ...)"


def _is_str_literal(e: cst.BaseExpression) -> bool:
    """A plain ``str`` literal (or a concatenation of them; not ``bytes``), whose value is an
    exact ``str``.  Not an f-string: ``f'{x}'`` is the very object ``x.__format__`` returned
    when the field is the whole string, which may be a subclass of ``str`` iterating in its
    own way."""
    if isinstance(e, cst.SimpleString):
        return "b" not in e.prefix.lower()
    if isinstance(e, cst.ConcatenatedString):
        return _is_str_literal(e.left) and _is_str_literal(e.right)
    return False


def bare_pass(stmt: cst.BaseStatement) -> bool:
    """A ``pass`` line without comments."""
    return isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Pass) \
        and not stmt.leading_lines and stmt.trailing_whitespace.comment is None


def ends_in_jump(stmts: list[cst.BaseStatement]) -> bool:
    """Whether the last statement is a ``return``, ``raise``, ``break`` or ``continue``, or an
    ``if`` whose every branch (``elif``s and an ``else`` included) ends so (an increment after
    it would never run: ``if c: return x`` / ``else: i += 1; continue`` gets no dead ``i += 1``
    after it)."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, cst.If):
        branch: cst.If | cst.Else | None = last
        while isinstance(branch, cst.If):
            if not ends_in_jump(_block_list(branch.body)):
                return False
            branch = branch.orelse
        return branch is not None and ends_in_jump(_block_list(branch.body))
    if not isinstance(last, cst.SimpleStatementLine):
        return False
    return isinstance(last.body[-1], (cst.Return, cst.Raise, cst.Break, cst.Continue))


def _block_list(block: cst.BaseSuite) -> list[cst.BaseStatement]:
    """The statements of a block (a one-line suite as one statement line)."""
    if isinstance(block, cst.IndentedBlock):
        return list(block.body)
    return [cst.SimpleStatementLine(list(block.body))]


@dataclass
class LoopForm:
    """How one ``for`` loop is written as a ``while`` loop.

    Attributes:
        kind: ``"counter"``, ``"index"`` or ``"general"``.
        description: a short text for the changed site (``"index loop over xs"``).
        counter: the counter variable (counter and index forms).
        step: the signed increment of the counter.
        sequence: the name indexed (index form).
        bind_sequence: the fresh name the iterable is bound to first (index form over an
            expression), else ``None``.
        stop: the bound of the counter form as written (``None`` when bound to ``stop_name``).
        stop_name: the fresh name the counter form's bound is bound to, else ``None``.
        iterator: the fresh iterator name (general form).
        item: the fresh name ``next`` assigns when the target cannot be assigned inside the
            ``try`` (general form), else ``None``.
        index_target: the target assigned ``xs[i]`` (index form; the element of an
            ``enumerate`` target), else ``None`` (the loop's own target).
        stop_first: bind ``stop_name`` before the counter (the start is a literal).
        flag: the fresh flag the general form sets when ``next`` stopped, for a loop with
            ``break`` and ``else``, else ``None``.
        wrap_iter: the general form calls ``iter`` on the iterable (``False`` when it is
            already an iterator whose ``iter`` is itself: ``it = zip(a, b)``).
        inclusive: the counter form's bound is ``X + 1`` (``X - 1`` for a negative step) of
            an invariant int name ``X``, tested as ``v <= X`` (``v >= X``).
        skip_item: the index form assigns no item: ``for i, _ in enumerate(xs)`` whose ``_``
            nothing reads counts with ``i`` alone (no ``_ = xs[i]``).
    """

    kind: str
    description: str
    counter: str | None = None
    step: int = 1
    sequence: str | None = None
    bind_sequence: str | None = None
    stop: cst.BaseExpression | None = None
    stop_name: str | None = None
    iterator: str | None = None
    item: str | None = None
    index_target: cst.BaseExpression | None = None
    stop_first: bool = False
    flag: str | None = None
    wrap_iter: bool = True
    inclusive: bool = False
    skip_item: bool = False

    # -- pieces -------------------------------------------------------------------------
    def _setup(self, node: cst.For) -> list[cst.BaseStatement]:
        if self.kind == "general":
            source = parenthesize_if_bare_tuple(node.iter)
            out = [_assign(cst.Name(self.iterator), _call("iter", source) if self.wrap_iter else source)]
            if self.flag:
                out.append(_assign(cst.Name(self.flag), cst.Name("False")))
            return out
        if self.kind == "index":
            out: list[cst.BaseStatement] = []
            if self.bind_sequence:
                out.append(_assign(cst.Name(self.bind_sequence), node.iter))
            out.append(_assign(cst.Name(self.counter), cst.Integer("0")))
            return out
        call = node.iter
        assert isinstance(call, cst.Call)
        args = [a.value for a in call.args]
        start = args[0] if len(args) >= 2 else cst.Integer("0")
        stop_value = args[1] if len(args) >= 2 else args[0]
        init = _assign(cst.Name(self.counter), start)
        if self.stop_name is None:
            return [init]
        bound = _assign(cst.Name(self.stop_name), stop_value)
        return [bound, init] if self.stop_first else [init, bound]

    def _test(self, node: cst.For) -> cst.BaseExpression:
        if self.kind == "index":
            seq = self.bind_sequence or self.sequence
            return cst.Comparison(cst.Name(self.counter), [cst.ComparisonTarget(cst.LessThan(), _call("len", cst.Name(seq)))])
        assert isinstance(node.iter, cst.Call)
        args = [a.value for a in node.iter.args]
        stop = cst.Name(self.stop_name) if self.stop_name else (args[1] if len(args) >= 2 else args[0])
        if self.inclusive:  # range(1, n + 1): `i <= n`, as people write it
            assert isinstance(stop, cst.BinaryOperation)
            op = cst.LessThanEqual() if self.step > 0 else cst.GreaterThanEqual()
            return cst.Comparison(cst.Name(self.counter), [cst.ComparisonTarget(op, stop.left)])
        op = cst.LessThan() if self.step > 0 else cst.GreaterThan()
        low = int_literal(stop)
        if self.step < 0 and low is not None and low < 0:  # ints: `i > -1` is `i >= 0`, as people write it
            op, stop = cst.GreaterThanEqual(), int_node(low + 1)
        return cst.Comparison(cst.Name(self.counter), [cst.ComparisonTarget(op, stop)])

    def _increment(self) -> cst.AugAssign:
        op = cst.AddAssign() if self.step > 0 else cst.SubtractAssign()
        return cst.AugAssign(cst.Name(self.counter), op, int_node(abs(self.step)))

    def _head(self, node: cst.For, *, in_loop: bool) -> list[cst.BaseStatement]:
        """Statements at the top of each iteration (the general form's fetch ends the loop
        with ``break`` when ``in_loop``; the peeled fetch is built by :meth:`peeled`)."""
        if self.kind == "counter":
            return []
        if self.kind == "index":
            if self.skip_item:
                return []
            seq = self.bind_sequence or self.sequence
            target = self.index_target if self.index_target is not None else node.target
            return [_assign(target, cst.Subscript(cst.Name(seq), [cst.SubscriptElement(cst.Index(cst.Name(self.counter)))]))]
        fetch = self._fetch(node)
        stop = cst.IndentedBlock([*([_assign(cst.Name(self.flag), cst.Name("True"))] if self.flag else []),
                                  _line(cst.Break())])
        return [cst.Try(body=cst.IndentedBlock([fetch]),
                        handlers=[cst.ExceptHandler(body=stop, type=cst.Name("StopIteration"))]),
                *self._bind_item(node)]

    def _fetch(self, node: cst.For) -> cst.SimpleStatementLine:
        target = cst.Name(self.item) if self.item else node.target
        return _assign(target, _call("next", cst.Name(self.iterator)))

    def _bind_item(self, node: cst.For) -> list[cst.BaseStatement]:
        return [_assign(node.target, cst.Name(self.item))] if self.item else []

    def _body(self, node: cst.For) -> tuple[list[cst.BaseStatement], list[cst.EmptyLine], cst.TrailingWhitespace]:
        body = node.body
        header = body.header if isinstance(body, cst.IndentedBlock) else body.trailing_whitespace
        if self.kind != "general":
            body = body.visit(_StepBeforeContinue(self._increment()))
        stmts, footer = block_statements(body) if not isinstance(body, cst.IndentedBlock) \
            else (list(body.body), list(body.footer))
        if isinstance(node.body, cst.SimpleStatementSuite):
            stmts = [s.with_changes(trailing_whitespace=cst.TrailingWhitespace()) for s in stmts]
        last = stmts[-1]
        if self.kind != "general" and isinstance(last, cst.SimpleStatementLine) and (len(last.body) > 1 or len(stmts) >= 2) \
                and isinstance(last.body[-1], cst.Continue) and last.trailing_whitespace.comment is None:
            # the body's last statement is a `continue`, now after the increment: it is redundant
            if len(last.body) == 1:
                stmts = stmts[:-1]
            else:
                smalls = list(last.body[:-1])
                smalls[-1] = smalls[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
                stmts = [*stmts[:-1], last.with_changes(body=smalls)]
        elif self.kind != "general" and not ends_in_jump(stmts):
            if bare_pass(stmts[-1]):  # `pass` only kept the block non-empty; the increment does now
                stmts = stmts[:-1]
            stmts = [*stmts, _line(self._increment())]
        return stmts, footer, header

    # -- whole loops --------------------------------------------------------------------
    def while_loop(self, node: cst.For) -> tuple[list[cst.BaseStatement], list[cst.EmptyLine]]:
        """The statements replacing ``node`` (the updated ``for`` statement) in
        ``for-to-while``, and comment lines left over for the block's next statement."""
        setup = self._setup(node)
        setup[0] = prepend_lines(setup[0], node.leading_lines)
        stmts, footer, header = self._body(node)
        body = cst.IndentedBlock([*self._head(node, in_loop=True), *stmts], header=header, footer=footer)
        orelse = node.orelse
        after: list[cst.BaseStatement] = []
        left: list[cst.EmptyLine] = []
        if self.kind == "general" and orelse is not None and self.flag:  # else runs when next() stopped
            after = [cst.If(test=cst.Name(self.flag), body=orelse.body, leading_lines=orelse.leading_lines)]
            orelse = None
        elif self.kind == "general" and orelse is not None:  # no break: else always runs
            after, left = block_statements(orelse.body)
            after[0] = prepend_lines(after[0], orelse.leading_lines)
            orelse = None
        test = cst.Name("True") if self.kind == "general" else self._test(node)
        return [*setup, cst.While(test=test, body=body, orelse=orelse), *after], left

    def peeled(self, node: cst.For) -> tuple[list[cst.BaseStatement], list[cst.EmptyLine]]:
        """The statements replacing ``node`` (a loop without ``break``/``continue``) in
        ``peel-loop``: the first iteration, then the loop over the rest, then its ``else``."""
        setup = self._setup(node)
        setup[0] = prepend_lines(setup[0], node.leading_lines)
        stmts, footer, header = self._body(node)
        rest = cst.While(test=cst.Name("True") if self.kind == "general" else self._test(node),
                         body=cst.IndentedBlock([*self._head(node, in_loop=True), *stmts], footer=footer))
        if self.kind == "general":
            first = cst.Try(body=cst.IndentedBlock([self._fetch(node)]),
                            handlers=[cst.ExceptHandler(body=cst.IndentedBlock([_line(cst.Pass())]),
                                                        type=cst.Name("StopIteration"))],
                            orelse=cst.Else(cst.IndentedBlock([*self._bind_item(node), *stmts, rest], header=header)))
        else:
            first = cst.If(test=self._test(node),
                           body=cst.IndentedBlock([*self._head(node, in_loop=False), *stmts, rest], header=header))
        out: list[cst.BaseStatement] = [*setup, first]
        return out, append_orelse(out, node)


class ScriptFacts:
    """What the forms need to know about the module-level names of a script
    (:attr:`RewriteContext.script`), whose module-level loops they rewrite: every
    module-level name is a global, which code of the module's functions, lambdas and class
    bodies may read or rebind (``global``) whenever it runs, so a loop's proofs must also
    cover them.

    Args:
        module: the program's tree.
        index: its :class:`FunctionIndex` (libcst's scopes, parent links).

    Attributes:
        unbinders: names a ``del``, an ``except ... as``, a ``global`` or a ``nonlocal``
            anywhere in the module (nested code included) may unbind or rebind.
    """

    def __init__(self, module: cst.Module, index: FunctionIndex) -> None:
        self.module = module
        self.index = index
        self.unbinders: set[str] = set()
        for node in find(module, cst.Del, cst.ExceptHandler, cst.ExceptStarHandler, cst.Global, cst.Nonlocal):
            if isinstance(node, cst.Del):
                self.unbinders.update(bound_names(node)[0])
            elif isinstance(node, (cst.ExceptHandler, cst.ExceptStarHandler)):
                if node.name is not None:
                    self.unbinders.update(bound_names(node.name)[0] | set(target_names(node.name.name) or ()))
            else:
                self.unbinders.update(n.name.value for n in node.names)
        found = [sc for sc in index.scopes.values() if isinstance(sc, GlobalScope)]
        self.globals = found[0] if found else None
        self._all_scopes: list | None = None

    def _module_scope(self, scope) -> bool:
        """Whether code in ``scope`` runs as module-level code (the global scope, or a
        comprehension of it: a comprehension runs where it is written)."""
        while isinstance(scope, ComprehensionScope):
            scope = scope.parent
        return scope is not None and scope is self.globals

    def global_read(self, node: cst.Name) -> bool:
        """``node`` is read as a module-level name by module-level code (not in a function,
        lambda or class body, nor a comprehension's own variable)."""
        scope = self.index.scopes.get(node)
        if scope is None or scope is not self.globals:
            return False
        return any(a.node is node for a in scope.accesses[node.value])

    def global_target(self, node: cst.Name) -> bool:
        """``node`` (a target of module-level code) binds a module-level name."""
        scope = self.index.scopes.get(node)
        return scope is not None and scope is self.globals \
            and any(a.node is node for a in scope.assignments[node.value])

    def module_code_name(self, node: cst.Name) -> bool:
        """Whether ``node`` may be the module-level name as module-level code spells it
        (``False`` for code of functions, lambdas and class bodies, which
        :meth:`nested_users` covers, and for a comprehension's own variable)."""
        scope = self.index.scopes.get(node)
        if scope is None:
            return True
        if not self._module_scope(scope):
            return False
        return not (isinstance(scope, ComprehensionScope) and scope.assignments[node.value])

    def _owner_name(self, node: cst.CSTNode) -> str:
        for anc in self.index.ancestors(node):
            if isinstance(anc, (cst.FunctionDef, cst.ClassDef)):
                return f"{anc.name.value}()" if isinstance(anc, cst.FunctionDef) else f"class {anc.name.value}"
            if isinstance(anc, cst.Lambda):
                return "a lambda"
        return "nested code"

    def nested_writers(self, name: str) -> list[str]:
        """Functions, lambdas and class bodies that may rebind the module-level ``name``
        (``global name`` and an assignment), by name."""
        if self.globals is None:
            return ["nested code"]
        out = []
        for a in self.globals.assignments[name]:
            if isinstance(a.node, cst.CSTNode) and not self._module_scope(self.index.scopes.get(a.node)):
                out.append(self._owner_name(a.node))
        return out

    def nested_users(self, name: str) -> list[str]:
        """Functions, lambdas and class bodies that may read or rebind the module-level
        ``name`` (an access that may resolve to the global, or is unresolved; a ``global``
        declaration), by name."""
        if self.globals is None:
            return ["nested code"]
        out = self.nested_writers(name)
        for n in name_nodes(self.module, name):
            scope = self.index.scopes.get(n)
            if scope is None or self._module_scope(scope):
                continue
            if isinstance(self.index.parents.get(n), cst.NameItem):  # global/nonlocal declarations
                out.append(self._owner_name(n))
                continue
            # a class body looks a name up in its own namespace, then in the globals: whenever
            # its own binding has not run (whatever libcst resolves the access to), it reads the global
            class_read = isinstance(scope, ClassScope)
            for a in scope.accesses[name]:
                if a.node is n and (class_read or not a.referents
                                    or any(getattr(r, "scope", None) is self.globals for r in a.referents)):
                    out.append(self._owner_name(n))
        # a string annotation (``def f(x: "tuple[i]")``) is evaluated in the module's namespace by
        # typing.get_type_hints: libcst records the access on the string
        for scope in self._scopes():
            if any(not isinstance(a.node, cst.Name) for a in scope.accesses[name]):
                out.append("a string annotation")
                break
        return list(dict.fromkeys(out))

    def _scopes(self) -> list:
        if self._all_scopes is None:
            self._all_scopes = list({id(sc): sc for sc in self.index.scopes.values() if sc is not None}.values())
        return self._all_scopes


class LoopForms:
    """Chooses the form of each ``for`` loop of one program (see the module docstring).

    Args:
        module: the program's tree (``ctx.program.module``).
        ctx: the rewrite context; its observations (``{function qualname: {local: [type
            names]}}``, or ``None``) decide the index form and names in ``range`` bounds;
            fresh names are reserved in it.
        facts: :class:`ProgramFacts` of ``module``.
    """

    def __init__(self, module: cst.Module, ctx: RewriteContext, facts: ProgramFacts) -> None:
        self.module = module
        self.ctx = ctx
        self.facts = facts
        self.index = FunctionIndex(ctx)
        self._reserve = True
        self._current: tuple[cst.For, cst.FunctionDef] | None = None
        self._pool: dict[tuple[str, ...], list[str]] = {}
        self._used: dict[cst.For, set[str]] = {}
        self._shadowed = set(rebindable_builtins(ctx, "len", "range", "enumerate", "zip", "sorted", "list", "tuple",
                                                 "int", "str", "map", "filter", "reversed", "iter", "next",
                                                 "StopIteration"))
        self._script: ScriptFacts | None = None

    @property
    def script(self) -> ScriptFacts:
        """:class:`ScriptFacts` of the program (computed on first use: module-level loops)."""
        if self._script is None:
            self._script = ScriptFacts(self.module, self.index)
        return self._script

    def _fresh(self, candidates: tuple[str, ...]) -> str:
        """A fresh name for the loop being decided: one that earlier rewritten loops already use
        for the same role, unless a loop around this one uses it (each such name is set
        before its loop and read only by it; in another function it is another local, and at
        module level a global no function reads), else a new one."""
        if not self._reserve:
            return candidates[0]
        loop, _ = self._current
        outer = {id(a) for a in self.index.ancestors(loop)}
        busy = {n for other, names in self._used.items() if id(other) in outer for n in names}
        pool = self._pool.setdefault(candidates, [])
        name = next((n for n in pool if n not in busy), None)
        if name is None:
            name = _fresh(self.ctx, candidates)
            pool.append(name)
        self._used.setdefault(loop, set()).add(name)
        return name

    def builtin(self, name: str) -> bool:
        """Whether ``name`` surely is the builtin (bound nowhere in the program, not even
        unseen: :func:`~codemorph.authoring.hazards.rebindable_builtins`)."""
        return name not in self._shadowed

    # -- facts ----------------------------------------------------------------------------
    def _observed(self, func: cst.FunctionDef | None, name: str) -> set[str]:
        qual = MODULE_QUALNAME if func is None else self.index.qualnames.get(func)
        types = self.index.observed(qual, name) if qual else None
        return set(types or ())

    def _unbinders(self, func: cst.FunctionDef | None) -> set[str]:
        return self.script.unbinders if func is None else self.facts.functions[func].unbinders

    def _own_name(self, node: cst.BaseExpression, func: cst.FunctionDef | None) -> bool:
        """``node`` is a ``Name`` read as a variable of the code the loop runs in: a local of a
        function (``func``), or a module-level name read by module-level code (``None``)."""
        if not isinstance(node, cst.Name):
            return False
        if func is None:
            return self.script.global_read(node)
        return self.index.local_scope_of(node) is not None

    def _invariant_local(self, node: cst.BaseExpression, func: cst.FunctionDef | None, body_bound: set[str],
                         loop: cst.For) -> bool:
        """``node`` is a ``Name`` of a local of ``func`` (module level: a global of the script,
        read by module-level code) that nothing may rebind while the loop runs."""
        if not isinstance(node, cst.Name):
            return False
        if func is None:
            if not self.script.global_read(node) or self.script.nested_writers(node.value):
                return False
        else:
            found = self.index.local_scope_of(node)
            if found is None or found[1] != self.index.qualnames.get(func):
                return False
        targets = set(target_names(loop.target) or bound_names(loop.target)[0])
        return node.value not in body_bound and node.value not in targets \
            and node.value not in self._unbinders(func)

    def _int_expr(self, e: cst.BaseExpression, func: cst.FunctionDef, allow_bool: bool) -> bool:
        """``e`` always evaluates to an exact ``int`` (``bool`` too with ``allow_bool``): int
        literals, ``len(...)``, ``int(...)`` (evaluated once, before the loop, as ``range``
        evaluates its arguments: ``for _ in range(int(input()))``), locals only ever observed
        holding ints, ``+ - *`` of those (``// %`` too, which may raise as in the original), and
        those to the power of a nonnegative int literal (``10 ** 5``).  Only names are
        re-evaluated at each test (:meth:`_counter` binds any other bound to a fresh name)."""
        if int_literal(e) is not None:
            return True
        if isinstance(e, cst.Name):
            types = self._observed(func, e.value)
            return bool(types) and types <= ({"int", "bool"} if allow_bool else {"int"})
        if plain_call(e, "len") is not None and len(e.args) == 1 and self.builtin("len"):
            return True
        # int(x) and int(x, base) return an exact int (a subclass __int__/__index__ returns is
        # converted) or raise, as they would in the original where the bound is evaluated
        if plain_call(e, "int") is not None and 1 <= len(e.args) <= 2 and self.builtin("int"):
            return True
        if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, cst.Minus):
            return self._int_expr(e.expression, func, True)
        if isinstance(e, cst.BinaryOperation) and isinstance(
                e.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo)):
            return self._int_expr(e.left, func, True) and self._int_expr(e.right, func, True)
        if isinstance(e, cst.BinaryOperation) and isinstance(e.operator, cst.Power):  # int ** literal >= 0
            exponent = int_literal(e.right)
            return exponent is not None and exponent >= 0 and self._int_expr(e.left, func, True)
        return False

    def _read_outside(self, name: str, func: cst.FunctionDef | None, loop: cst.For) -> bool:
        """Whether ``name`` may be read anywhere in ``func`` (nested code included) other than
        in the loop's body, or by code the body creates that may run later (closures).  At
        module level (``func`` ``None``) the code searched is the module's own (names of
        functions, classes and lambdas, which :meth:`ScriptFacts.nested_users` checks, and
        comprehension-local names are no reads of the global)."""
        root = self.module if func is None else func
        spelled = name_nodes(root, name)
        if func is None:
            spelled = [n for n in spelled if self.script.module_code_name(n)]
        lazy = {id(n) for s in lazy_scopes(loop.body) for n in name_nodes(s, name)}
        inside = {id(n) for n in name_nodes(loop.body, name)} - lazy
        inside |= {id(n) for n in name_nodes(loop.target, name)}
        not_reads: set[int] = set()
        for n in find(root, cst.Attribute, cst.Arg, cst.AssignTarget, cst.For, cst.CompFor, cst.NamedExpr,
                      cst.FunctionDef, cst.ClassDef, cst.Param):
            if isinstance(n, cst.Attribute):
                not_reads.add(id(n.attr))
            elif isinstance(n, cst.Arg) and n.keyword is not None:
                not_reads.add(id(n.keyword))
            elif isinstance(n, (cst.AssignTarget, cst.For, cst.CompFor, cst.NamedExpr)):
                t = n.target
                stack = [t]
                while stack:
                    x = stack.pop()
                    if isinstance(x, cst.Name):
                        not_reads.add(id(x))
                    elif isinstance(x, (cst.Tuple, cst.List)):
                        stack += [el.value for el in x.elements]
                    elif isinstance(x, cst.StarredElement):
                        stack.append(x.value)
            elif isinstance(n, (cst.FunctionDef, cst.ClassDef, cst.Param)):
                not_reads.add(id(n.name))
        # reads in the body of another loop whose target binds the name, when this loop is not
        # inside that body, see that loop's values (closures created there excepted)
        ancestors = {id(a) for a in self.index.ancestors(loop)}
        for other in find(root, cst.For):
            if other is not loop and name in (target_names(other.target) or ()) \
                    and id(other.body) not in ancestors:
                later = {id(n) for s in lazy_scopes(other.body) for n in name_nodes(s, name)}
                inside |= {id(n) for n in name_nodes(other.body, name)} - later
        return any(id(n) not in inside and id(n) not in not_reads for n in spelled)

    def _counter_var_ok(self, target: cst.BaseExpression, func: cst.FunctionDef | None, loop: cst.For,
                        body_bound: set[str]) -> str | None:
        """Why the name ``target`` cannot be the loop's counter, or ``None``."""
        if not isinstance(target, cst.Name):
            return "target is not a name"
        v = target.value
        if func is None:
            if not self.script.global_target(target):
                return f"{v} is not a module-level name"
            users = self.script.nested_users(v)
            if users:
                return f"{v} is a global {users[0]} uses"
        else:
            found = self.index.assigned_scope_of(target)
            if found is None or found[1] != self.index.qualnames.get(func):
                return f"{v} is not a local"
        if v in body_bound or v in self._unbinders(func):
            return f"{v} may be rebound in the loop"
        if self._read_outside(v, func, loop):
            return f"{v} is read after the loop"
        return None

    def _sequence_expr(self, e: cst.BaseExpression, func: cst.FunctionDef) -> bool:
        """``e`` evaluates to an exact ``list``, ``tuple`` or ``str`` (evaluated once, bound to a
        fresh name): a literal display or plain string, a list comprehension, ``sorted``/``list``/
        ``tuple`` calls, an exact ``str`` (:meth:`_str_expr`) and its ``split``/``rsplit``/
        ``splitlines``, slices of a local only ever observed holding a ``list``, ``tuple`` or
        ``str`` or of such an expression (``sorted(d)[:-1]``)."""
        if _is_str_literal(e) or isinstance(e, (cst.List, cst.Tuple, cst.ListComp)):
            return True
        call = e if isinstance(e, cst.Call) else None
        if call is not None and isinstance(call.func, cst.Name) and call.func.value in ("sorted", "list", "tuple") \
                and self.builtin(call.func.value):
            return True
        if call is not None and isinstance(call.func, cst.Attribute) and call.func.attr.value in _STR_TO_LIST:
            return self._str_expr(call.func.value, func)
        if self._str_expr(e, func):
            return True
        if isinstance(e, cst.Subscript) and len(e.slice) == 1 and isinstance(e.slice[0].slice, cst.Slice):
            if self._own_name(e.value, func):
                types = self._observed(func, e.value.value)
                return bool(types) and types <= SEQUENCE_TYPES
            return self._sequence_expr(e.value, func)
        return False

    def _str_expr(self, e: cst.BaseExpression, func: cst.FunctionDef | None) -> bool:
        """``e`` evaluates to an exact ``str``: a plain string literal, a local only ever observed
        holding a ``str``, a ``str`` method of :data:`_STR_TO_STR` called on such a value
        (``text.lower().strip()``), a slice of one, or ``str(n)`` of a local only ever observed
        holding an ``int``, ``bool`` or ``float`` (their ``__str__`` gives an exact ``str``).
        Not ``s.format(...)`` nor an f-string (see :data:`_STR_TO_STR`)."""
        if _is_str_literal(e):
            return True
        if self._own_name(e, func):
            return self._observed(func, e.value) == {"str"}
        if isinstance(e, cst.Call) and isinstance(e.func, cst.Attribute) and e.func.attr.value in _STR_TO_STR:
            return self._str_expr(e.func.value, func)
        if isinstance(e, cst.Subscript) and len(e.slice) == 1 and isinstance(e.slice[0].slice, cst.Slice):
            return self._str_expr(e.value, func)
        call = plain_call(e, "str")
        if call is not None and len(call.args) == 1 and self.builtin("str") and self._own_name(call.args[0].value, func):
            types = self._observed(func, call.args[0].value.value)
            return bool(types) and types <= {"int", "bool", "float"}
        return False

    def _yields_tuples(self, e: cst.BaseExpression, func: cst.FunctionDef) -> bool:
        """Whether every item ``e`` yields is an exact ``tuple`` (unpacking it cannot raise
        ``StopIteration``): ``enumerate(...)``, ``zip(...)``, ``d.items()`` of a dict local."""
        if isinstance(e, cst.Call) and isinstance(e.func, cst.Name) and e.func.value in ("enumerate", "zip"):
            return self.builtin(e.func.value)
        if isinstance(e, cst.Call) and isinstance(e.func, cst.Attribute) and e.func.attr.value == "items" \
                and not e.args and isinstance(e.func.value, cst.Name) \
                and self._own_name(e.func.value, func):
            return self._observed(func, e.func.value.value) == {"dict"}
        return False

    # -- the choice -------------------------------------------------------------------------
    def form_of(self, loop: cst.For, func: cst.FunctionDef, reserve: bool = True) -> LoopForm | str:
        """The form of ``loop`` (a plain ``for`` directly owned by ``func``; ``None``: at module
        level of a script), its fresh names
        reserved in the context (with ``reserve``; otherwise they are only proposed, to test
        eligibility before choosing sites); or why none can be used (a reason for the site's
        refusal)."""
        self._reserve = reserve
        self._current = (loop, func)
        body_bound = set(bound_names(loop.body)[0])
        it = loop.iter
        rng = plain_call(it, "range")
        if rng is None and self.builtin("reversed"):
            inner = plain_call(it, "reversed")
            if inner is not None and len(inner.args) == 1 and plain_call(inner.args[0].value, "range") is not None:
                return "a loop over reversed(range(...)): no counter form is proved for it, and " \
                       "iter()/next() over a range is not a form people write"
        if continue_in_cleanup(loop.body):  # the step before a `continue` would run before __exit__/finally
            if rng is not None:
                return "a range loop with a continue inside with/try-finally: no counter form, and " \
                       "iter()/next() over a range is not a form people write"
            return self._general(loop, func)
        # counter form: for v in range(...)
        if rng is not None and 1 <= len(rng.args) <= 3 and self.builtin("range"):
            form = self._counter(loop, func, rng, body_bound)
            if isinstance(form, LoopForm):
                return form
            return f"the counter form of this range loop is not proved ({form}); iter()/next() over a " \
                   f"range is not a form people write"
        # index form: for x in xs / for i, x in enumerate(xs)
        form = self._index(loop, func, body_bound)
        if form is not None:
            return form
        return self._general(loop, func)

    def _counter(self, loop: cst.For, func: cst.FunctionDef, rng: cst.Call, body_bound: set[str]) -> LoopForm | str:
        """The counter form of ``for v in range(...)``, or why it is not proved.  A loop
        variable ``_`` that nothing reads (``for _ in range(n)``) is not made the counter
        (``_ = 0`` / ``while _ < n:`` is no form people write): a fresh counter (``i``,
        ``j``...) counts instead and ``_`` is never bound (nothing reads it)."""
        args = [a.value for a in rng.args]
        step = int_literal(args[2]) if len(args) == 3 else 1
        if not step:
            return "the step is not a nonzero int literal"
        why = self._counter_var_ok(loop.target, func, loop, body_bound)
        if why is not None:
            return why
        start = args[0] if len(args) >= 2 else None
        stop = args[1] if len(args) >= 2 else args[0]
        if start is not None and not self._int_expr(start, func, allow_bool=False):
            return "the start is not known to be an int"
        v = loop.target.value  # type: ignore[union-attr]
        if any(n.value == v for n in name_nodes(stop)):
            return f"the bound reads {v}"
        if v == "_" and name_nodes(loop.body, "_"):
            return "the body reads _"
        direct = int_literal(stop) is not None or (
            self._invariant_local(stop, func, body_bound, loop) and self._int_expr(stop, func, allow_bool=True))
        length = plain_call(stop, "len")
        if not direct and length is not None and len(length.args) == 1 and self.builtin("len") \
                and self._invariant_local(length.args[0].value, func, body_bound, loop):
            direct = self._observed(func, length.args[0].value.value) <= {"str", "tuple"} \
                and bool(self._observed(func, length.args[0].value.value))
        # range(a, n + 1) with n an int name nothing rebinds while the loop runs: `v <= n`
        # (`v >= n` for range(a, n - 1, -k)); ints: `v < n + 1` is `v <= n`
        inclusive = not direct and isinstance(stop, cst.BinaryOperation) and int_literal(stop.right) == 1 \
            and isinstance(stop.operator, cst.Add if step > 0 else cst.Subtract) \
            and self._invariant_local(stop.left, func, body_bound, loop) \
            and self._int_expr(stop.left, func, allow_bool=True)
        stop_name = None
        if not direct and not inclusive:
            if not self._int_expr(stop, func, allow_bool=True):
                return "the bound is not known to be an int"
            stop_name = self._fresh(STOP_NAMES)
        if v == "_":
            v = self._fresh(COUNTER_NAMES)
        return LoopForm("counter", f"counter loop over {v}", counter=v, step=step, stop_name=stop_name,
                        stop_first=start is None or int_literal(start) is not None, inclusive=inclusive)

    def _index(self, loop: cst.For, func: cst.FunctionDef, body_bound: set[str]) -> LoopForm | None:
        if not self.builtin("len"):
            return None
        it = loop.iter
        parts = enumerate_loop(loop)
        if parts is not None and self.builtin("enumerate"):
            counter, elem, seq = parts
            if isinstance(counter, cst.Name) and isinstance(seq, cst.Name) \
                    and counter.value not in (target_names(elem) or bound_names(elem)[0]) \
                    and self._counter_var_ok(counter, func, loop, body_bound) is None \
                    and self._invariant_local(seq, func, body_bound, loop):
                types = self._observed(func, seq.value)
                if types and types <= SEQUENCE_TYPES:
                    # `for i, _ in enumerate(xs)` with `_` read nowhere: no `_ = xs[i]` (an index
                    # below len(xs) of a list, tuple or str never fails)
                    root = self.module if func is None else func
                    skip = isinstance(elem, cst.Name) and elem.value == "_" and len(name_nodes(root, "_")) == 1
                    return LoopForm("index", f"index loop over {seq.value} (counter {counter.value})",
                                    counter=counter.value, sequence=seq.value, index_target=elem, skip_item=skip)
        if isinstance(it, cst.Name):
            if not self._invariant_local(it, func, body_bound, loop):
                return None
            types = self._observed(func, it.value)
            if not types or not types <= SEQUENCE_TYPES:
                return None
            counter = self._fresh(COUNTER_NAMES)
            return LoopForm("index", f"index loop over {it.value} (counter {counter})", counter=counter,
                            sequence=it.value)
        if self._sequence_expr(it, func):
            seq = self._fresh(SEQUENCE_NAMES)
            counter = self._fresh(COUNTER_NAMES)
            return LoopForm("index", f"index loop over {seq} (counter {counter})", counter=counter,
                            bind_sequence=seq)
        return None

    def _general(self, loop: cst.For, func: cst.FunctionDef) -> LoopForm | str:
        missing = [b for b in ("iter", "next", "StopIteration") if not self.builtin(b)]
        if missing:
            return builtin_rebinding_refusal(self.ctx, *missing) or f"builtin {', '.join(missing)} may be rebound"
        flag = None
        if loop.orelse is not None and "break" in loop_jumps(loop.body):
            flag = self._fresh(FLAG_NAMES)
        t = loop.target
        # unpacking an exact tuple into names cannot raise StopIteration (a nested target
        # would unpack the items' own elements, which may)
        flat = isinstance(t, (cst.Tuple, cst.List)) and all(
            isinstance(el.value, cst.Name) or (isinstance(el, cst.StarredElement) and isinstance(el.value, cst.Name))
            for el in t.elements)
        simple = isinstance(t, cst.Name) or (flat and self._yields_tuples(loop.iter, func))
        iterator = self._fresh(ITERATOR_NAMES)
        item = None if simple else self._fresh(ITEM_NAMES)
        wrap = not self._iterator_expr(loop.iter, func)
        return LoopForm("general", f"while loop over {iterator} = iter(...)" if wrap else
                        f"while loop over {iterator} = {_callee(loop.iter)}", iterator=iterator, item=item,
                        flag=flag, wrap_iter=wrap)

    def _iterator_expr(self, e: cst.BaseExpression, func: cst.FunctionDef | None) -> bool:
        """``e`` evaluates to an iterator whose ``__iter__`` returns itself (``iter(e)`` is
        ``e``): a generator expression, a call of the builtin ``zip``, ``map``, ``filter`` or
        ``enumerate``, or ``reversed`` of a ``list``/``tuple``/``str``/``range``/``dict`` (a
        class's ``__reversed__`` may return any object)."""
        if isinstance(e, cst.GeneratorExp):
            return True
        if not (isinstance(e, cst.Call) and isinstance(e.func, cst.Name)):
            return False
        name = e.func.value
        if name in ("zip", "map", "filter", "enumerate"):
            return self.builtin(name)
        if name == "reversed" and self.builtin("reversed") and len(e.args) == 1 \
                and e.args[0].keyword is None and not e.args[0].star:
            arg = e.args[0].value
            if self._sequence_expr(arg, func):
                return True
            if self._own_name(arg, func):
                types = self._observed(func, arg.value)
                return bool(types) and types <= SEQUENCE_TYPES | {"range", "dict"}
        return False


def rewrite_for_loops(module: cst.Module, ctx: RewriteContext, which: str,
                      rewrite: "Callable[[LoopForm, cst.For], tuple[list[cst.BaseStatement], list[cst.EmptyLine]]]",
                      describe: "Callable[[LoopForm], str]",
                      refuse: "Callable[[cst.For], str | None]" = lambda loop: None,
                      outermost: bool = False, forms_class: type = LoopForms) -> cst.Module:
    """The loop driver ``for-to-while`` and ``peel-loop`` share: refuse the program where
    :func:`~codemorph.transforms.loops.common.refuse_program` does, take the eligible
    ``for`` loops (:func:`~codemorph.transforms.loops.common.for_sites`; a loop ``refuse``
    gives a reason for, or whose form cannot be established, is skipped with that reason),
    choose among them by ``which`` (``"all"`` or ``"one"``), and replace each chosen loop by
    ``rewrite(form, loop)``, recording ``describe(form)`` at it.  A script's
    (:attr:`RewriteContext.script`) module-level loops are sites too, unless the program
    spells one of :data:`NAMESPACE_HAZARDS`; other programs' are not.  With ``outermost``
    and ``which="all"``, an eligible loop inside another eligible loop is left alone (the
    outer rewrite copies it as it is): ``peel-loop`` peels the outer loop once instead of
    also peeling the inner loop in each copy, four copies of the inner body.  ``forms_class``
    (a :class:`LoopForms` subclass) decides each loop's form (``peel-loop``'s own forms).

    Raises:
        NotApplicable: as ``refuse_program``, or no eligible loop.
    """
    facts = for_loop_facts(module, ctx)
    refuse_program(module, ctx, facts, frozenset(facts.names))
    forms = forms_class(module, ctx, facts)
    owners = {loop: owner for loop, owner in facts.loops}

    def check(loop: cst.For) -> str | None:
        why = refuse(loop)
        if why is not None:
            return why
        form = forms.form_of(loop, owners[loop], reserve=False)
        return form if isinstance(form, str) else None

    def module_level() -> str | None:
        found = sorted(facts.names & NAMESPACE_HAZARDS)
        if found:
            return f"loop at module level of a script that may read its namespace by name ({', '.join(found)})"
        return None

    # a script's module-level names are its own (no harness reads them): its module-level
    # loops are sites too, with the proofs extended to the functions that may see those names
    eligible, reasons = for_sites(ctx, facts, "loop", check, module_level if ctx.script else None)
    if outermost and which == "all" and len(eligible) > 1:
        ids = {id(loop) for loop in eligible}
        inner = [loop for loop in eligible if any(id(a) in ids for a in forms.index.ancestors(loop))]
        for loop in inner:
            reasons.append(f"line {ctx.position(loop)[0]}: inside a loop that is rewritten")
        eligible = [loop for loop in eligible if loop not in inner]
    chosen = choose_loop_sites(which, ctx, eligible, reasons, "for loop")
    plans: dict[cst.CSTNode, Plan] = {}
    for loop in chosen:  # source order: outer loops get the first names
        form = forms.form_of(loop, owners[loop])
        assert not isinstance(form, str)
        ctx.record(loop, describe(form))
        plans[loop] = (lambda f: lambda node: rewrite(f, node))(form)
    return module.visit(BlockRewriter(plans))

