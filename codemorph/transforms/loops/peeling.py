"""The forms ``peel-loop`` writes: the first iteration of a ``for`` loop, then the loop over
the rest, as a person peels a loop.

* **range** -- ``for v in range(a, b)`` (also ``range(b)``, ``range(a, b, k)`` with a nonzero
  int literal ``k``) becomes::

      if a < b:                    # `if b > 0:` for range(b), `if xs:` for range(len(xs))
          v = a
          BODY
          for v in range(a + 1, b):
              BODY

  (no ``if`` when both bounds are int literals giving a nonempty range; ``b`` bound to a
  fresh ``n = b`` first when it is not a literal or an expression of names the loop
  cannot rebind; no ``v = a`` when nothing reads ``v``, ``for _ in range(n)``);
* **slice** -- ``for x in xs`` over a sequence ``xs`` (a local only ever observed holding an
  exact ``list``, ``tuple`` or ``str``, or an expression known to give one, bound to a fresh
  ``items = sorted(d)`` first) becomes ``if xs:`` / ``x = xs[0]`` / BODY /
  ``for x in xs[1:]:`` / BODY, and ``for i, x in enumerate(xs)`` becomes ``if xs:`` /
  ``i = 0`` / ``x = xs[0]`` / BODY / ``for i, x in enumerate(xs[1:], start=1):`` / BODY;
* **index** -- where ``xs`` may be a ``list`` the body could change (``xs[1:]`` is taken after
  the first iteration, the loop's iterator sees every change): ``if xs:`` / ``x = xs[0]`` /
  BODY / ``i = 1`` / ``while i < len(xs):`` / ``x = xs[i]`` / BODY / ``i += 1``;
* every other loop: the iterator form of :class:`~codemorph.transforms.loops.forms.LoopForm`
  (``it = iter(d)`` / ``try: k = next(it)`` / ``except StopIteration: pass`` / ``else:`` ...).

The loop body has no ``break``/``continue`` for the loop (``peel-loop`` refuses those: the
first copy is not in a loop), so the ``else`` of the loop always runs after the last
iteration: it becomes the statements after the peeled code.  Why each form is exact:

* ``range(a, b, k)`` yields ``a`` first when ``a < b`` (``a > b`` for ``k < 0``), then
  ``range(a + k, b, k)``.  ``a`` and ``b`` are evaluated once by the ``for`` loop; the
  peeled form evaluates them again after the first iteration, so each is an int literal or
  an int expression (``+ - * // %``, ``len(...)``) of names the loop cannot rebind (the
  argument of ``len`` a ``str``/``tuple``, or a ``list`` the body cannot change, as for the
  slice form); another bound is bound to a fresh name first.  ``a`` is only ever an ``int``
  (``v = a`` binds what ``range`` would yield: ``range(True, 3)`` yields ``1``), ``b`` an
  ``int`` or ``bool``.  The loop variable ends with the last value of the range in both,
  stays as it was when the range is empty, and a body that rebinds it is overridden by the
  next value in both: it may be read after the loop and rebound in the body.
* ``for x in xs`` over an exact ``list``/``tuple``/``str`` yields ``xs[0]``, ``xs[1]``... while
  the index is below the *current* length.  For a ``tuple`` or ``str`` (immutable) that is
  ``xs[0]`` then the items of ``xs[1:]``, provided ``xs`` names the same object after the
  first iteration (a local the loop cannot rebind, as in the index form of
  :mod:`~codemorph.transforms.loops.forms`).  For a ``list`` it is so only when the body
  cannot change the list (:meth:`PeelForms.body_cannot_change`); otherwise the index form
  reads the length at each test as the iterator does.  ``if xs:`` is ``len(xs) > 0`` for
  these exact types.  The loop variable (and an ``enumerate`` counter) ends with the last
  item in all forms and stays as it was after zero iterations.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import BuiltinAssignment

from codemorph.engine.transform import bound_names
from codemorph.authoring.hazards import rebindable_builtins
from codemorph.transforms.loops.common import (
    assign, block_statements, find, int_literal, int_node, name_nodes, prepend_lines, simple_line, target_names,
)
from codemorph.transforms.loops.forms import (
    COUNTER_NAMES, SEQUENCE_NAMES, SEQUENCE_TYPES, STOP_NAMES, LoopForm, LoopForms, append_orelse, bare_pass,
    enumerate_loop, plain_call,
)

__all__ = ["PeelForm", "PeelForms", "PLAIN_TYPES", "SAFE_BUILTINS", "READ_ONLY_METHODS", "const_int"]

#: observed types of a value whose operations run no code of the program (exact builtins)
PLAIN_TYPES = frozenset({"int", "float", "bool", "complex", "str", "bytes", "NoneType", "list", "tuple", "dict",
                         "set", "frozenset"})
#: observed types whose values cannot change
IMMUTABLE_TYPES = frozenset({"int", "float", "bool", "complex", "str", "bytes", "NoneType", "tuple", "frozenset"})
#: types of a fresh local whose methods may change it (never the peeled sequence)
CONTAINER_TYPES = frozenset({"list", "dict", "set"})
#: builtins the body of a peeled list loop may call: they change none of their arguments
#: (on values of :data:`PLAIN_TYPES`, they run no code of the program either)
SAFE_BUILTINS = frozenset({"len", "abs", "min", "max", "sum", "sorted", "str", "int", "float", "bool", "ord", "chr",
                           "round", "list", "tuple", "set", "dict", "frozenset", "enumerate", "zip", "range",
                           "reversed", "isinstance", "repr", "print", "divmod", "pow", "any", "all", "hex", "bin",
                           "oct", "hash", "map", "filter"})
#: methods of ``list``/``tuple``/``str``/``dict``/``set`` that change neither the receiver nor
#: an argument
READ_ONLY_METHODS = frozenset({"count", "index", "copy", "get", "keys", "values", "items", "union", "intersection",
                               "difference", "symmetric_difference", "issubset", "issuperset", "isdisjoint"})
_BUILTIN_NAMES = frozenset(dir(builtins))


def _assign(target: cst.BaseAssignTargetExpression, value: cst.BaseExpression) -> cst.SimpleStatementLine:
    return simple_line(assign(target, value))


def _call(func: str, *args: cst.BaseExpression) -> cst.Call:
    return cst.Call(cst.Name(func), [cst.Arg(a) for a in args])


def _plain_body(node: cst.For) -> tuple[list[cst.BaseStatement], list[cst.EmptyLine], cst.TrailingWhitespace]:
    """The loop body's statements, its footer comment lines, and the whitespace (comment) of
    the ``for`` line."""
    body = node.body
    if isinstance(body, cst.IndentedBlock):
        return list(body.body), list(body.footer), body.header
    stmts, footer = block_statements(body)
    return [s.with_changes(trailing_whitespace=cst.TrailingWhitespace()) for s in stmts], footer, \
        body.trailing_whitespace


def _subscript(seq: str, index: cst.BaseSlice) -> cst.Subscript:
    return cst.Subscript(cst.Name(seq), [cst.SubscriptElement(index)])


def const_int(e: cst.BaseExpression) -> int | None:
    """The value of an int expression of literals (``10 ** 5 + 10``, ``-3``, ``2 * 4``), or
    ``None``: anything else, a division by zero, an exponent above 64 or a value of more than
    64 bits (never computed at length)."""
    lit = int_literal(e)
    if lit is not None:
        return lit
    if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, cst.Minus):
        v = const_int(e.expression)
        return None if v is None else -v
    if not isinstance(e, cst.BinaryOperation):
        return None
    a, b = const_int(e.left), const_int(e.right)
    if a is None or b is None:
        return None
    op = e.operator
    if isinstance(op, cst.Add):
        v = a + b
    elif isinstance(op, cst.Subtract):
        v = a - b
    elif isinstance(op, cst.Multiply):
        v = a * b
    elif isinstance(op, (cst.FloorDivide, cst.Modulo)) and b:
        v = a // b if isinstance(op, cst.FloorDivide) else a % b
    elif isinstance(op, cst.Power) and 0 <= b <= 64 and abs(a) < 2 ** 32:
        v = a ** b
    else:
        return None
    return v if abs(v) < 2 ** 64 else None


def _add(e: cst.BaseExpression | None, k: int) -> cst.BaseExpression:
    """``e + k`` written as people write it: ``k`` for no ``e``, a folded literal, ``a + 1``,
    ``len(xs) - 1 + 1`` as ``len(xs)``, ``a * 2 + 1``, ``-len(xs) + 1``."""
    if e is None:
        return int_node(k)
    lit = int_literal(e)
    if lit is not None:
        return int_node(lit + k)
    if isinstance(e, cst.BinaryOperation) and isinstance(e.operator, (cst.Add, cst.Subtract)) \
            and int_literal(e.right) is not None and not e.lpar:
        folded = int_literal(e.right) * (1 if isinstance(e.operator, cst.Add) else -1) + k
        if folded == 0:
            return e.left
        return e.with_changes(operator=cst.Add() if folded > 0 else cst.Subtract(), right=int_node(abs(folded)))
    left = e  # an int expression of + - * // % ** and unary -: `e + k` needs no parentheses
    return cst.BinaryOperation(left, cst.Add() if k > 0 else cst.Subtract(), int_node(abs(k)))


@dataclass
class PeelForm:
    """How ``peel-loop`` writes one loop (see the module docstring).

    Attributes:
        kind: ``"range"``, ``"slice"`` or ``"index"``.
        description: a short text for the changed site.
        sequence: the sequence indexed and sliced (slice and index forms).
        bind_sequence: whether ``sequence`` is a fresh name bound to the loop's iterable first.
        counter: the ``enumerate`` counter (slice and index forms), else ``None``.
        element: the target of an ``enumerate`` loop's item, else ``None``.
        skip_item: no ``_ = xs[0]`` for ``for i, _ in enumerate(xs)`` whose ``_`` nothing reads.
        index: the fresh counter of the index form.
        step: the range's step.
        stop_name: the fresh name the range's bound is bound to first, else ``None``.
        test: the ``if`` test of the first iteration; ``None``: the range is surely nonempty.
        first_value: the value of the loop variable in the first iteration (range form), or
            ``None`` when nothing reads the variable (no ``v = a`` line) or ``bind_start``.
        bind_start: the range form binds the loop variable to the start before the test
            (``i = len(xs) - 1`` / ``if i >= 0:``): the start may change in the loop, and the
            variable is neither rebound in the body nor read outside it.
        rest_iter: the iterable of the ``for`` loop over the rest (range and slice forms).
    """

    kind: str
    description: str
    sequence: str | None = None
    bind_sequence: bool = False
    counter: str | None = None
    element: cst.BaseExpression | None = None
    skip_item: bool = False
    index: str | None = None
    step: int = 1
    stop_name: str | None = None
    test: cst.BaseExpression | None = None
    first_value: cst.BaseExpression | None = None
    bind_start: bool = False
    rest_iter: cst.BaseExpression | None = None

    def _first(self, node: cst.For) -> list[cst.BaseStatement]:
        """The statements binding the loop variables for the first iteration."""
        if self.kind == "range":
            return [] if self.first_value is None else [_assign(node.target, self.first_value)]
        out: list[cst.BaseStatement] = []
        item = _subscript(self.sequence, cst.Index(cst.Integer("0")))
        if self.counter is not None:
            out.append(_assign(cst.Name(self.counter), cst.Integer("0")))
            if not self.skip_item:
                out.append(_assign(self.element, item))
        else:
            out.append(_assign(node.target, item))
        return out

    def peeled(self, node: cst.For) -> tuple[list[cst.BaseStatement], list[cst.EmptyLine]]:
        """The statements replacing ``node`` (a loop without ``break``/``continue``), and the
        comment lines left over for the block's next statement."""
        stmts, footer, header = _plain_body(node)
        setup: list[cst.BaseStatement] = []
        if self.bind_sequence:
            setup.append(_assign(cst.Name(self.sequence), node.iter))
        if self.bind_start:
            assert isinstance(node.iter, cst.Call)
            setup.append(_assign(node.target, node.iter.args[0].value))
        if self.stop_name is not None:
            call = node.iter
            assert isinstance(call, cst.Call)
            stop = call.args[1].value if len(call.args) >= 2 else call.args[0].value
            setup.append(_assign(cst.Name(self.stop_name), stop))
        if self.kind == "index":
            seq = self.sequence
            item_target = self.element if self.counter is not None else node.target
            head = [] if self.skip_item else [_assign(item_target, _subscript(seq, cst.Index(cst.Name(self.index))))]
            step = simple_line(cst.AugAssign(cst.Name(self.index), cst.AddAssign(), cst.Integer("1")))
            rest: cst.BaseStatement = cst.While(
                test=cst.Comparison(cst.Name(self.index), [cst.ComparisonTarget(cst.LessThan(),
                                                                               _call("len", cst.Name(seq)))]),
                body=cst.IndentedBlock([*head, *stmts, step], footer=footer))
            rest_lines = [_assign(cst.Name(self.index), cst.Integer("1")), rest]
        else:
            rest_lines = [cst.For(target=node.target, iter=self.rest_iter,
                                  body=cst.IndentedBlock(list(stmts), footer=footer))]
        copy = [s for s in stmts if not bare_pass(s)]  # `x = xs[0]` / `pass`: the pass only kept a block
        first = [*self._first(node), *copy, *rest_lines]
        if self.test is not None:
            out = [*setup, cst.If(test=self.test, body=cst.IndentedBlock(first, header=header))]
        else:  # a range surely nonempty: the first iteration needs no `if`
            if header.comment is not None:
                first[0] = prepend_lines(first[0], [cst.EmptyLine(comment=header.comment)])
            out = [*setup, *first]
        out[0] = prepend_lines(out[0], node.leading_lines)
        return out, append_orelse(out, node)


class PeelForms(LoopForms):
    """Chooses the :class:`PeelForm` of each ``for`` loop ``peel-loop`` peels (a
    :class:`~codemorph.transforms.loops.forms.LoopForm` of the iterator kind for loops over
    other iterables).  Same arguments as :class:`~codemorph.transforms.loops.forms.LoopForms`."""

    def __init__(self, module, ctx, facts) -> None:
        super().__init__(module, ctx, facts)
        self._builtin_ok: dict[str, bool] = {}

    def _builtin_name(self, name: str) -> bool:
        if name not in self._builtin_ok:
            self._builtin_ok[name] = name in _BUILTIN_NAMES and not rebindable_builtins(self.ctx, name)
        return self._builtin_ok[name]

    def form_of(self, loop: cst.For, func, reserve: bool = True) -> PeelForm | LoopForm | str:
        """The form ``peel-loop`` writes ``loop`` in, or why it cannot peel it."""
        self._reserve = reserve
        self._current = (loop, func)
        body_bound = set(bound_names(loop.body)[0])
        rng = plain_call(loop.iter, "range")
        if rng is not None and self.builtin("range"):
            return self._range(loop, func, rng, body_bound)
        form = self._sequence(loop, func, body_bound)
        if form is not None:
            return form
        form = super().form_of(loop, func, reserve)
        if isinstance(form, LoopForm) and form.kind != "general":  # cannot happen: sequences are handled above
            return "no natural peeled form for this loop"
        return form

    # -- range loops ------------------------------------------------------------------------
    def _stable(self, e: cst.BaseExpression, func, loop: cst.For, body_bound: set[str]) -> bool:
        """``e`` gives the same value before and after the first iteration: int literals, and
        ``+ - * // %`` / unary ``-`` of names the loop cannot rebind and of ``len(s)`` of such a
        local ``s`` that is a ``str``/``tuple`` (or a ``list`` the body cannot change), and
        arithmetic of literals (``10 ** 5 + 10``)."""
        if const_int(e) is not None:
            return True
        if isinstance(e, cst.Name):
            return self._invariant_local(e, func, body_bound, loop)
        length = plain_call(e, "len")
        if length is not None and len(length.args) == 1 and self.builtin("len"):
            arg = length.args[0].value
            if not self._invariant_local(arg, func, body_bound, loop):
                return False
            types = self._observed(func, arg.value)
            if not types or not types <= SEQUENCE_TYPES:
                return False
            return types <= {"str", "tuple"} or self.body_cannot_change(loop, func, arg.value)
        if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, cst.Minus):
            return self._stable(e.expression, func, loop, body_bound)
        if isinstance(e, cst.BinaryOperation) and isinstance(
                e.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo)):
            return self._stable(e.left, func, loop, body_bound) and self._stable(e.right, func, loop, body_bound)
        return False

    def _range(self, loop: cst.For, func, rng: cst.Call, body_bound: set[str]) -> PeelForm | str:
        args = [a.value for a in rng.args]
        if not 1 <= len(args) <= 3:
            return "range(...) with no or more than three arguments"
        step = int_literal(args[2]) if len(args) == 3 else 1
        if not step:
            return "the range's step is not a nonzero int literal"
        if not isinstance(loop.target, cst.Name):
            return "the loop target is not a name"
        v = loop.target.value
        start = args[0] if len(args) >= 2 else None
        stop = args[1] if len(args) >= 2 else args[0]
        if any(n.value == v for a in args for n in name_nodes(a)):
            return f"the range's arguments read {v}"
        if start is not None and not self._int_expr(start, func, allow_bool=False):
            return "the range's start is not known to be an int"
        if not self._int_expr(stop, func, allow_bool=True):
            return "the range's bound is not known to be an int"
        bind_start = start is not None and not self._stable(start, func, loop, body_bound)
        if bind_start:  # `i = len(xs) - 1` / `if i >= 0:` / ... / `for i in range(i - 1, -1, -1):`
            why = self._counter_var_ok(loop.target, func, loop, body_bound)
            if why is not None:
                return f"the range's start may change in the loop, and {why}"
        stop_name = None
        if not self._stable(stop, func, loop, body_bound):
            if not bind_start and start is not None and find(start, cst.FloorDivide, cst.Modulo):
                # `n = b` would run before the start, which may raise first in the loop
                return "the range's start may raise and its bound must be taken first"
            stop_name = self._fresh(STOP_NAMES)
        if bind_start:
            start = cst.Name(v)
        bound = cst.Name(stop_name) if stop_name else stop
        low, high = const_int(start) if start is not None else 0, const_int(bound)
        if low is not None and high is not None:
            if not len(range(low, high, step)):
                return "the range is empty"
            test = None
        else:
            test = self._range_test(start, bound, step, func)
        root = self.module if func is None else func
        unread = v not in self._unbinders(func) and name_nodes(root, v) == [loop.target]
        first = None if unread or bind_start else (start if start is not None else cst.Integer("0"))
        rest_args = [cst.Arg(_add(start, step)), cst.Arg(bound)]
        if step != 1:
            rest_args.append(cst.Arg(int_node(step)))
        return PeelForm("range", f"first value of the range, then for {v} in range(...)", step=step,
                        stop_name=stop_name, test=test, first_value=first, bind_start=bind_start,
                        rest_iter=cst.Call(cst.Name("range"), rest_args))

    def _range_test(self, start, bound, step: int, func) -> cst.BaseExpression:
        """``a < b`` (``a > b`` for a negative step) as people write it: ``n > 0`` for
        ``range(n)``, ``a <= n`` for ``range(a, n + 1)``, ``a >= 0`` for a bound of ``-1``,
        ``len(xs) > 1`` for ``len(xs) - 1 > 0``, ``-len(xs) < 0`` as ``len(xs) > 0``, and
        ``xs`` for ``len(xs) > 0`` of a sequence (every side is an int: the rewrites are exact)."""
        flipped = {cst.LessThan: cst.GreaterThan, cst.GreaterThan: cst.LessThan,
                   cst.LessThanEqual: cst.GreaterThanEqual, cst.GreaterThanEqual: cst.LessThanEqual}
        if start is None:
            start = cst.Integer("0")
        if isinstance(bound, cst.BinaryOperation) and int_literal(bound.right) == 1 \
                and isinstance(bound.operator, cst.Add if step > 0 else cst.Subtract):
            left, op, right = start, cst.LessThanEqual() if step > 0 else cst.GreaterThanEqual(), bound.left
        else:
            left, op, right = start, cst.LessThan() if step > 0 else cst.GreaterThan(), bound
        if int_literal(left) is not None and int_literal(right) is None:  # `n > 1`, not `1 < n`
            left, op, right = right, flipped[type(op)](), left
        while int_literal(right) is not None and not getattr(left, "lpar", None):
            c = int_literal(right)
            if isinstance(left, cst.BinaryOperation) and isinstance(left.operator, (cst.Add, cst.Subtract)) \
                    and int_literal(left.right) is not None:  # `len(a) - 1 > 0`: `len(a) > 1`
                k = int_literal(left.right) * (1 if isinstance(left.operator, cst.Add) else -1)
                left, right = left.left, int_node(c - k)
            elif isinstance(left, cst.UnaryOperation) and isinstance(left.operator, cst.Minus):  # `-len(a) < 0`
                left, op, right = left.expression, flipped[type(op)](), int_node(-c)
            else:
                break
        c = int_literal(right)
        if isinstance(op, cst.GreaterThan) and c == -1 or isinstance(op, cst.LessThan) and c == 1:
            op, right = (cst.GreaterThanEqual(), int_node(0)) if c == -1 else (cst.LessThanEqual(), int_node(0))
        length = plain_call(left, "len")
        if isinstance(op, cst.GreaterThanEqual) and c == 1 and length is not None:  # `len(a) >= 1`: `len(a) > 0`
            op, right = cst.GreaterThan(), int_node(0)
        if isinstance(op, cst.GreaterThan) and int_literal(right) == 0 and length is not None \
                and len(length.args) == 1 and isinstance(length.args[0].value, cst.Name):
            types = self._observed(func, length.args[0].value.value)
            if types and types <= SEQUENCE_TYPES:  # exact list/tuple/str: truth is len > 0
                return cst.Name(length.args[0].value.value)
        return cst.Comparison(left, [cst.ComparisonTarget(op, right)])

    # -- sequences ---------------------------------------------------------------------------
    def _sequence(self, loop: cst.For, func, body_bound: set[str]) -> PeelForm | None:
        """The slice (or index) form of a loop over a sequence, or ``None`` (not a sequence
        loop: the iterator form)."""
        if not self.builtin("len"):
            return None
        it = loop.iter
        parts = enumerate_loop(loop)
        if parts is not None and self.builtin("enumerate"):
            counter, elem, seq = parts
            if not (isinstance(counter, cst.Name) and counter.value not in (target_names(elem) or bound_names(elem)[0])
                    and self._invariant_local(seq, func, body_bound, loop)):
                return None
            types = self._observed(func, seq.value)
            if not types or not types <= SEQUENCE_TYPES:
                return None
            root = self.module if func is None else func
            skip = isinstance(elem, cst.Name) and elem.value == "_" and len(name_nodes(root, "_")) == 1
            if types <= {"str", "tuple"} or self.body_cannot_change(loop, func, seq.value):
                rest = cst.Call(cst.Name("enumerate"), [
                    cst.Arg(_subscript(seq.value, cst.Slice(lower=cst.Integer("1"), upper=None))),
                    cst.Arg(cst.Integer("1"), keyword=cst.Name("start"),
                            equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))])
                return PeelForm("slice", f"first item of {seq.value}, then for ... in enumerate({seq.value}[1:], start=1)",
                                sequence=seq.value, counter=counter.value, element=elem, skip_item=skip,
                                test=cst.Name(seq.value), rest_iter=rest)
            if self._counter_var_ok(counter, func, loop, body_bound) is not None:
                return None
            return PeelForm("index", f"first item of {seq.value}, then index loop (counter {counter.value})",
                            sequence=seq.value, counter=counter.value, element=elem, skip_item=skip,
                            index=counter.value, test=cst.Name(seq.value))
        if isinstance(it, cst.Name):
            if not self._invariant_local(it, func, body_bound, loop):
                return None
            types = self._observed(func, it.value)
            if not types or not types <= SEQUENCE_TYPES:
                return None
            if types <= {"str", "tuple"} or self.body_cannot_change(loop, func, it.value):
                return PeelForm("slice", f"first item of {it.value}, then for ... in {it.value}[1:]",
                                sequence=it.value, test=cst.Name(it.value),
                                rest_iter=_subscript(it.value, cst.Slice(lower=cst.Integer("1"), upper=None)))
            index = self._fresh(COUNTER_NAMES)
            return PeelForm("index", f"first item of {it.value}, then index loop (counter {index})",
                            sequence=it.value, index=index, test=cst.Name(it.value))
        if self._sequence_expr(it, func):  # a fresh name nothing else reads: the body cannot change it
            seq = self._fresh(SEQUENCE_NAMES)
            return PeelForm("slice", f"first item of {seq} = the iterable, then for ... in {seq}[1:]",
                            sequence=seq, bind_sequence=True, test=cst.Name(seq),
                            rest_iter=_subscript(seq, cst.Slice(lower=cst.Integer("1"), upper=None)))
        return None

    # -- can the body change a list? ----------------------------------------------------------
    def _bindings(self, func: cst.FunctionDef, name: str) -> list[cst.CSTNode] | None:
        """The nodes binding the local ``name`` in ``func`` (``Param``, or the target ``Name``),
        ``None`` when its scope is not found."""
        scope = self.index.scopes.get(func.body)
        if scope is None:
            return None
        return [a.node for a in scope.assignments[name] if isinstance(a.node, cst.CSTNode)]

    def _fresh_value(self, e: cst.BaseExpression) -> bool:
        """``e`` makes a new object: a display, a comprehension, a call of the builtin
        ``list``/``dict``/``set``/``sorted``, ``d.copy()`` of a local only ever observed holding
        an exact ``list``/``dict``/``set``, or a slice ``xs[:]`` of one holding a ``list``."""
        if isinstance(e, (cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp)):
            return True
        if isinstance(e, cst.Call) and isinstance(e.func, cst.Attribute) and e.func.attr.value == "copy" \
                and not e.args:
            return self._plain_local(e.func.value, None, CONTAINER_TYPES)
        if isinstance(e, cst.Subscript) and len(e.slice) == 1 and isinstance(e.slice[0].slice, cst.Slice):
            return self._plain_local(e.value, None, frozenset({"list"}))
        return isinstance(e, cst.Call) and isinstance(e.func, cst.Name) \
            and e.func.value in ("list", "dict", "set", "sorted") and self._builtin_name(e.func.value)

    def _bound_fresh(self, func: cst.FunctionDef, name: str, params: bool) -> bool:
        """Every binding of ``name`` in ``func`` is ``name = <new object>`` (one target), ``name
        += ...`` or (with ``params``) a parameter: ``name`` never names an object another
        name of the function may hold (with ``params``: but the caller's)."""
        nodes = self._bindings(func, name)
        if not nodes:
            return False
        for node in nodes:
            if isinstance(node, cst.Param):
                if not params:
                    return False
                continue
            parent = self.index.parents.get(node)
            if isinstance(parent, cst.AugAssign) and parent.target is node:
                continue
            if isinstance(parent, cst.AnnAssign) and parent.target is node and parent.value is not None \
                    and self._fresh_value(parent.value):
                continue
            if isinstance(parent, cst.AssignTarget) and parent.target is node:
                stmt = self.index.parents.get(parent)
                if isinstance(stmt, cst.Assign) and len(stmt.targets) == 1 and self._fresh_value(stmt.value):
                    continue
            return False
        return True

    def _plain_local(self, node: cst.BaseExpression, func, types: frozenset[str]) -> bool:
        """``node`` is a local of ``func`` only ever observed holding values of ``types``."""
        if not isinstance(node, cst.Name):
            return False
        scope = self.index.local_scope_of(node) or self.index.assigned_scope_of(node)  # a read, or `x += 1`
        found = set(self.index.observed(scope[1], node.value) or ()) if scope is not None else set()
        return bool(found) and found <= types

    def body_cannot_change(self, loop: cst.For, func, seq: str) -> bool:
        """Whether nothing the body of ``loop`` runs can change the list the local ``seq``
        holds (so ``seq[1:]`` after the first iteration is what the loop would still yield).
        Conservative: ``seq`` is a parameter of ``func`` or bound to new objects only; every
        name the body reads is a builtin (of :data:`SAFE_BUILTINS` when called) or a local
        only ever observed holding :data:`PLAIN_TYPES` (no code of the program runs from an
        operator or a call); a method is called (or any attribute read: ``key=xs.append``)
        only on a local observed only holding
        :data:`IMMUTABLE_TYPES`, on a ``str`` expression, or (one of
        :data:`READ_ONLY_METHODS`) on a plain local, or on a local bound only to new
        ``list``/``dict``/``set`` objects that is not ``seq``; items are assigned or deleted,
        and ``+=`` applied to a container, only on such a local (no attribute is assigned);
        only a name or an attribute is called; no ``yield``/``await`` (the caller could
        change the list between two items), ``global``, ``nonlocal``, ``def`` or ``class``.

        A limit: the types observed are those of the values themselves, not of the items of
        a container, so an item of a ``list`` whose ``__eq__`` or ``__hash__`` changes the
        iterated list (never observed as the loop variable, which must be a plain type
        where the body reads it) is not excluded."""
        if func is None or not self._bound_fresh(func, seq, params=True):
            return False
        fresh: dict[str, bool] = {}

        def own_container(node: cst.BaseExpression) -> bool:
            if not isinstance(node, cst.Name) or node.value == seq \
                    or not self._plain_local(node, func, CONTAINER_TYPES):
                return False
            if node.value not in fresh:
                fresh[node.value] = self._bound_fresh(func, node.value, params=False)
            return fresh[node.value]

        def target_ok(t: cst.BaseExpression) -> bool:
            if isinstance(t, cst.Name):
                return True
            if isinstance(t, (cst.Tuple, cst.List)):
                return all(target_ok(el.value) for el in t.elements)
            if isinstance(t, cst.StarredElement):
                return target_ok(t.value)
            if isinstance(t, cst.Subscript):
                return own_container(t.value)
            return False

        if not target_ok(loop.target):
            return False
        for node in find(loop.body, cst.CSTNode):
            if isinstance(node, (cst.Yield, cst.Await, cst.Global, cst.Nonlocal, cst.FunctionDef, cst.ClassDef)):
                return False
            if isinstance(node, cst.AssignTarget) and not target_ok(node.target):
                return False
            if isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name) \
                    and not (self._plain_local(node.target, func, IMMUTABLE_TYPES) or own_container(node.target)):
                return False  # `out += [x]` extends the list `out` holds, which may be the caller's
            if isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor, cst.WithItem)):
                t = node.asname.name if isinstance(node, cst.WithItem) and node.asname else getattr(node, "target", None)
                if t is not None and not target_ok(t):
                    return False
            if isinstance(node, cst.Del) and not target_ok(node.target):
                return False
            if isinstance(node, cst.Attribute):  # a method called, or passed on (`key=xs.append`)
                receiver, method = node.value, node.attr.value
                if not (self._plain_local(receiver, func, IMMUTABLE_TYPES) or self._str_expr(receiver, func)
                        or (method in READ_ONLY_METHODS and self._plain_local(receiver, func, PLAIN_TYPES))
                        or own_container(receiver)):
                    return False
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) \
                    and not (node.func.value in SAFE_BUILTINS and self._builtin_name(node.func.value)):
                return False
            if isinstance(node, cst.Call) and not isinstance(node.func, (cst.Name, cst.Attribute)):
                return False  # `handlers[k](x)`, `(lambda: ...)()`: any code
            if isinstance(node, cst.Name) and not self._plain_read(node, func):
                return False
        return True

    def _plain_read(self, node: cst.Name, func) -> bool:
        """A name of the body is not a read, or reads a builtin the program cannot rebind,
        or a local only ever observed holding :data:`PLAIN_TYPES`."""
        scope = self.index.scopes.get(node)
        if scope is None:
            return True  # an attribute name, a keyword: no variable
        access = [a for a in scope.accesses[node.value] if a.node is node]
        if not access:
            return True  # a binding (its target was checked) or no variable
        referents = access[0].referents
        if not referents or all(isinstance(r, BuiltinAssignment) for r in referents):
            return self._builtin_name(node.value)
        found = self.index.local_scope_of(node)
        if found is None:
            return False
        types = self.index.observed(found[1], node.value)
        return bool(types) and set(types) <= PLAIN_TYPES
