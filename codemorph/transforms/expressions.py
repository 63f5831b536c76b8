"""The ``expressions`` family: local rewrites of expressions whose value is unchanged.

* ``swap-operands`` (:class:`SwapOperands`): ``a + b`` -> ``b + a`` for operators that are
  commutative *for the operand types observed at run time*;
* ``expand-augassign`` (:class:`ExpandAugAssign`): ``x += e`` -> ``x = x + (e)`` for names
  that only ever hold immutable values;
* ``unfold-constant`` (:class:`UnfoldConstant`): ``3`` -> ``(1 + 2)``, ``'ab'`` ->
  ``('a' + 'b')``.

The first two need runtime type observations (``needs_runtime_types = True``): a mapping
``{function qualname: {local name: [type names]}}`` collected in the sandbox over the
row's input and its verification inputs (the ``generate`` job and
:func:`codemorph.testing.observe_types` collect it).  Type names are those of
``codemorph._worker.type_name``: builtins by bare name (``"int"``, ``"bool"``), every other
class as ``module.qualname`` -- so an ``int`` subclass, or a class a program happens to call
``int``, never passes for ``int``.

What runtime observation can and cannot prove: types are recorded at every line and
return event of every frame of the program, so every value a local holds at a line
boundary *on the observed inputs* is seen.  On inputs never observed a variable may hold
another type; the verification step runs the same inputs, so the rewrite is checked
exactly where its precondition was established.

The scope facts these transforms share with other families (:class:`FunctionIndex`:
qualified names of scopes, functions that use ``eval``/``locals``/..., observed types) and
:func:`code_of` / :func:`literal_type` live in the authoring kit (:mod:`codemorph.authoring`)
and are re-exported here for compatibility.
"""

from __future__ import annotations

import ast
from typing import Iterable, Mapping, Sequence

import libcst as cst
from libcst.metadata import PositionProvider

from codemorph.engine import NotApplicable, RewriteContext, Transform

from codemorph.authoring.scopes import FunctionIndex
from codemorph.authoring.sites import SiteChoice
from codemorph.authoring.syntax import code_of, literal_type

__all__ = [
    "SwapOperands",
    "ExpandAugAssign",
    "UnfoldConstant",
    "FunctionIndex",
    "IMMUTABLE_TYPES",
    "SWAP_ARITHMETIC_TYPES",
    "SWAP_EQUALITY_TYPES",
    "literal_type",
    "code_of",
]

#: Types whose ``+``, ``*``, ``&``, ``|``, ``^`` are commutative in value and type, with no
#: side effect, for every pair of values (``bool`` op ``int`` gives the same ``int`` either
#: way round; ``bool & bool`` is ``bool`` either way round).
SWAP_ARITHMETIC_TYPES: frozenset[str] = frozenset({"int", "bool"})

#: Types whose ``==`` / ``!=`` are symmetric for every pair of values drawn from the set:
#: the numeric tower compares exactly (``1 == 1.0`` both ways, NaN unequal both ways), ``str``
#: compares with ``str``, and any other pair falls back to identity, which is symmetric.
#: ``bytes`` is left out: ``bytes == str`` warns under ``python -b`` on one side only.
SWAP_EQUALITY_TYPES: frozenset[str] = frozenset({"int", "bool", "float", "str", "NoneType"})

#: Types without in-place operators (``__iadd__``...): for them ``x op= e`` and
#: ``x = x op (e)`` run the same methods on the same objects.
IMMUTABLE_TYPES: frozenset[str] = frozenset({"int", "bool", "float", "complex", "str", "bytes", "tuple",
                                             "frozenset"})

def _require_observations(ctx: RewriteContext) -> None:
    if not isinstance(ctx.observations, Mapping):
        raise NotApplicable("needs runtime type observations ({function: {local: [types]}}), none given")


def _summarise(reasons: Sequence[str], limit: int = 3) -> str:
    uniq: list[str] = []
    for r in reasons:
        if r not in uniq:
            uniq.append(r)
    more = len(uniq) - limit
    text = "; ".join(uniq[:limit])
    return text + (f"; and {more} more" if more > 0 else "")


# -- swap-operands ------------------------------------------------------------------

_ARITH_OPS = {cst.Add: "+", cst.Multiply: "*", cst.BitAnd: "&", cst.BitOr: "|", cst.BitXor: "^"}
_EQ_OPS = {cst.Equal: "==", cst.NotEqual: "!="}


def _is_ident_char(ch: str) -> bool:
    return bool(ch) and ("a" + ch).isidentifier()


class _SwapCandidates(cst.CSTVisitor):
    def __init__(self, t: "SwapOperands", index: FunctionIndex) -> None:
        self.t = t
        self.index = index
        self.sites: list[tuple[cst.CSTNode, str]] = []
        self.reasons: list[str] = []
        self.seen_any = False

    def _operand_ok(self, node: cst.BaseExpression, allowed: frozenset[str], op: str) -> str | None:
        """``None`` when the operand qualifies, else the reason."""
        lt = literal_type(node)
        if lt is not None:
            return None if lt in allowed else f"operand {code_of(node)} of {op} is a {lt} literal"
        if not isinstance(node, cst.Name):
            kind = type(node).__name__
            return f"operand {code_of(node)[:40]} of {op} is not a simple name or literal ({kind}: " \
                   f"evaluation order or side effects could change)"
        found = self.index.local_scope_of(node)
        if found is None:
            return f"operand {node.value} of {op} is not a local of the function where it is read " \
                   f"(or a nested function assigns it)"
        if node.value in self.index.walrus_names:
            return f"operand {node.value} of {op} is bound by := somewhere (its type may change mid-line)"
        _, qualname = found
        types = self.index.observed(qualname, node.value)
        if types is None:
            return f"no type observed for {node.value} in {qualname}"
        bad = [t for t in types if t not in allowed]
        if bad:
            return f"{node.value} of {op} was observed as {', '.join(types)} (allowed: {', '.join(sorted(allowed))})"
        return None

    def _consider(self, node: cst.CSTNode, left: cst.BaseExpression, right: cst.BaseExpression, op: str,
                  allowed: frozenset[str]) -> None:
        self.seen_any = True
        if self.index.in_dynamic_scope(node):
            self.reasons.append("in a function using eval/exec/locals/globals/vars/dir")
            return
        if self.index.shares_line(node):
            self.reasons.append(f"{op} is in a statement that shares its line with another statement "
                                f"(types are observed per line)")
            return
        for operand in (left, right):
            why = self._operand_ok(operand, allowed, op)
            if why is not None:
                self.reasons.append(why)
                return
        why = self._token_clash(node, left, right)
        if why is not None:
            self.reasons.append(why)
            return
        self.sites.append((node, f"{code_of(left)} {op} {code_of(right)} -> {code_of(right)} {op} {code_of(left)}"))

    def _token_clash(self, node, left, right) -> str | None:
        """Whether swapping would glue an operand to a neighbouring token (``return(x)+1``
        -> ``return1+(x)``); the node's own parentheses make that impossible."""
        if node.lpar:
            return None
        pos = self.index.ctx.metadata(PositionProvider).get(node)
        if pos is None:
            return "position unknown"
        lines = self.index.source_lines
        before = after = ""
        if 0 < pos.start.line <= len(lines):
            line = lines[pos.start.line - 1]
            before = line[pos.start.column - 1] if pos.start.column > 0 else ""
        if 0 < pos.end.line <= len(lines):
            line = lines[pos.end.line - 1]
            after = line[pos.end.column] if pos.end.column < len(line) else ""
        new_first, new_last = code_of(right)[:1], code_of(left)[-1:]
        if _is_ident_char(before) and _is_ident_char(new_first):
            return f"swapping would join {code_of(right)} to the token before it"
        if _is_ident_char(after) and _is_ident_char(new_last):
            return f"swapping would join {code_of(left)} to the token after it"
        return None

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        op = _ARITH_OPS.get(type(node.operator))
        if op is None:
            return
        allowed = SWAP_ARITHMETIC_TYPES
        if self.t.floats and op in ("+", "*"):
            allowed = allowed | {"float"}
        self._consider(node, node.left, node.right, op, allowed)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if len(node.comparisons) != 1:
            return
        target = node.comparisons[0]
        op = _EQ_OPS.get(type(target.operator))
        if op is None:
            return
        self._consider(node, node.left, target.comparator, op, SWAP_EQUALITY_TYPES)


class _Replace(cst.CSTTransformer):
    """Replaces chosen nodes (by identity) with ``fn(original, updated)``."""

    def __init__(self, chosen: Iterable[cst.CSTNode], fn) -> None:
        self.chosen = {id(n): n for n in chosen}
        self.fn = fn

    def on_leave(self, original_node, updated_node):
        if id(original_node) in self.chosen and self.chosen[id(original_node)] is original_node:
            return self.fn(original_node, updated_node)
        return updated_node


class SwapOperands(SiteChoice, Transform):
    """Swap the operands of commutative operators: ``a + b`` -> ``b + a``.

    Operators: ``+ * & | ^`` (binary operations) and ``== !=`` (single comparisons, not
    chains).  An operand qualifies only when it is a literal (int, ``-int``, ``True``,
    ``False``, ``None``, plain string) or a simple name that is a local of the function (or
    comprehension) where it is read, whose every observed type is allowed:

    * ``+ * & | ^``: ``int`` and ``bool`` only.  Never ``str``/``list``/``tuple`` (``+`` and
      ``*`` are not commutative), never sets (``a | b`` keeps the *first* operand's element
      when equal elements differ, e.g. ``{1} | {True}``), never user classes.  Floats are
      excluded by default: IEEE 754 ``+`` and ``*`` give equal values either way round
      (signed zeros and infinities included), but when both operands are NaN the sign
      and payload of the result come from one operand, observable with
      ``math.copysign``/``struct`` (measured: ``copysign(1, -nan + nan) == 1.0`` but
      ``copysign(1, nan + -nan) == -1.0`` on x86-64).  Option ``floats=True`` allows them
      for ``+`` and ``*`` anyway.
    * ``== !=``: ``int``, ``bool``, ``float``, ``str``, ``NoneType`` (see
      :data:`SWAP_EQUALITY_TYPES`).

    Observed types are sound for the value an operand has when the operation runs because
    types are recorded at every line event, and nothing can rebind the name between that
    event and the operation: the statement must be alone on its line (no ``;``, not the
    body of a one-line ``if c: ...``), the name must never be bound by ``:=``, and no nested
    function may assign it (``nonlocal``).

    Because operands are names or literals, evaluating them has no side effect and cannot
    raise anything but ``NameError``/``UnboundLocalError``, so the evaluation order of the
    two operands does not matter (if both names are unbound the exception class is the
    same, only its message names the other variable).  Calls, attribute access,
    subscripts and walrus operands are never swapped.

    Options:
        which: ``"all"`` (default) swaps every qualifying site; ``"one"`` one site chosen
            with the context's rng.
        floats: allow ``float`` operands of ``+`` and ``*`` (see above; default ``False``).

    Needs runtime type observations (:attr:`needs_runtime_types`).  Functions that use
    ``eval``/``exec``/``locals``/``globals``/``vars``/``dir`` are left alone.
    """

    name = "swap-operands"
    family = "expressions"
    description = "swap operands of commutative operators (types observed at run time)"
    preconditions = ("operands are literals or locals observed only with allowed types",
                     "operators + * & | ^ on int/bool, == != on int/bool/float/str/None")
    needs_runtime_types = True

    def __init__(self, which: str = "all", floats: bool = False) -> None:
        SiteChoice.__init__(self, which)
        self.floats = bool(floats)

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        _require_observations(ctx)
        index = FunctionIndex(ctx)
        finder = _SwapCandidates(self, index)
        module.visit(finder)
        if not finder.seen_any:
            raise NotApplicable("no + * & | ^ == != operation to swap")
        if not finder.sites:
            raise NotApplicable("no operation whose operands are provably swappable: " + _summarise(finder.reasons))
        chosen = self.choose(ctx, finder.sites)
        for node, desc in chosen:
            ctx.record(node, desc)

        def swap(original, updated):
            if isinstance(updated, cst.BinaryOperation):
                return updated.with_changes(left=updated.right, right=updated.left)
            target = updated.comparisons[0]
            return updated.with_changes(left=target.comparator,
                                        comparisons=[target.with_changes(comparator=updated.left)])

        return module.visit(_Replace([n for n, _ in chosen], swap))


# -- expand-augassign ---------------------------------------------------------------

_AUG_TO_BIN = {
    cst.AddAssign: cst.Add, cst.SubtractAssign: cst.Subtract, cst.MultiplyAssign: cst.Multiply,
    cst.DivideAssign: cst.Divide, cst.FloorDivideAssign: cst.FloorDivide, cst.ModuloAssign: cst.Modulo,
    cst.PowerAssign: cst.Power, cst.LeftShiftAssign: cst.LeftShift, cst.RightShiftAssign: cst.RightShift,
    cst.BitAndAssign: cst.BitAnd, cst.BitOrAssign: cst.BitOr, cst.BitXorAssign: cst.BitXor,
    cst.MatrixMultiplyAssign: cst.MatrixMultiply,
}

# expressions that bind at least as tightly as any binary operator (so ``x op E`` parses
# as intended without parentheses); everything else is parenthesised
_ATOMS = (cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString,
          cst.FormattedString, cst.Call, cst.Attribute, cst.Subscript, cst.List, cst.Dict, cst.Set,
          cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp, cst.Ellipsis)


def _parenthesise(expr: cst.BaseExpression) -> cst.BaseExpression:
    if expr.lpar or isinstance(expr, _ATOMS):
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


class _AugCandidates(cst.CSTVisitor):
    def __init__(self, index: FunctionIndex) -> None:
        self.index = index
        self.sites: list[tuple[cst.AugAssign, str]] = []
        self.reasons: list[str] = []
        self.seen_any = False

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.seen_any = True
        target = node.target
        op = code_of(node.operator).strip()
        if not isinstance(target, cst.Name):
            self.reasons.append(f"target {code_of(target)[:40]} is an attribute or subscript "
                                f"(it would be evaluated twice)")
            return
        if self.index.in_dynamic_scope(node):
            self.reasons.append("in a function using eval/exec/locals/globals/vars/dir")
            return
        if self.index.enclosing_function(node) is None:
            self.reasons.append(f"{target.value} {op} ... is not in a function body")
            return
        if self.index.shares_line(node):
            self.reasons.append(f"{target.value} {op} ... shares its line with another statement "
                                f"(types are observed per line)")
            return
        found = self.index.assigned_scope_of(target)
        if found is None:
            self.reasons.append(f"{target.value} is not a local of its function (global or nonlocal)")
            return
        types = self.index.observed(found[1], target.value)
        if types is None:
            self.reasons.append(f"no type observed for {target.value} in {found[1]}")
            return
        bad = [t for t in types if t not in IMMUTABLE_TYPES]
        if bad:
            self.reasons.append(f"{target.value} {op} ...: {target.value} may be mutable (observed types: "
                                f"{', '.join(types)}); {op} would update it in place")
            return
        self.sites.append((node, f"{target.value} {op} ... -> {target.value} = {target.value} "
                                 f"{op[:-1]} (...)"))


class ExpandAugAssign(SiteChoice, Transform):
    """Expand an augmented assignment: ``x += e`` -> ``x = x + e``.

    Sound when ``x`` only ever holds values of types without in-place operators
    (:data:`IMMUTABLE_TYPES`: int, bool, float, complex, str, bytes, tuple, frozenset):
    then ``x op= e`` falls back to ``x.__op__(e)`` / ``e.__rop__(x)`` exactly like
    ``x = x op e``, with ``x`` read before ``e`` is evaluated in both forms.  Never applied
    to lists, dicts, sets, bytearrays or user classes (``xs += [1]`` mutates the list in
    place, visible through every other reference), nor to attribute or subscript targets
    (``a[i()] += 1`` evaluates ``a`` and ``i()`` once; the expansion would evaluate them
    twice).  ``e`` is parenthesised unless it is an atom (``x -= a - b`` ->
    ``x = x - (a - b)``).

    The target must be a simple name local to the enclosing function (observed at run
    time), not declared ``global``/``nonlocal``, in a statement alone on its line (the value
    ``x`` holds when ``x op= e`` starts is then exactly the one observed at that line's
    event).  One difference remains by design and is
    within the equivalence contract (return value, exception *class*, argument state,
    stdout): when the operation is unsupported, the ``TypeError`` message names ``+``
    instead of ``+=``.

    Options:
        which: ``"all"`` (default) or ``"one"`` (a site chosen with the context's rng).

    Needs runtime type observations.  Functions that use ``eval``/``exec``/``locals``/
    ``globals``/``vars``/``dir`` are left alone.
    """

    name = "expand-augassign"
    family = "expressions"
    description = "x += e -> x = x + e for names observed to hold only immutable values"
    preconditions = ("target is a local name", "every observed type of the target is immutable")
    needs_runtime_types = True

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        _require_observations(ctx)
        index = FunctionIndex(ctx)
        finder = _AugCandidates(index)
        module.visit(finder)
        if not finder.seen_any:
            raise NotApplicable("no augmented assignment")
        if not finder.sites:
            raise NotApplicable("no augmented assignment provably safe to expand: " + _summarise(finder.reasons))
        chosen = self.choose(ctx, finder.sites)
        for node, desc in chosen:
            ctx.record(node, desc)

        def expand(original: cst.AugAssign, updated: cst.AugAssign) -> cst.Assign:
            op = updated.operator
            binop = _AUG_TO_BIN[type(op)]()
            value = cst.BinaryOperation(left=updated.target.with_changes(lpar=[], rpar=[]), operator=binop,
                                        right=_parenthesise(updated.value))
            return cst.Assign(targets=[cst.AssignTarget(target=updated.target,
                                                        whitespace_before_equal=op.whitespace_before,
                                                        whitespace_after_equal=op.whitespace_after)],
                              value=value, semicolon=updated.semicolon)

        return module.visit(_Replace([n for n, _ in chosen], expand))


# -- unfold-constant ----------------------------------------------------------------

class _UnfoldCandidates(cst.CSTVisitor):
    """Integer and string literals that may be replaced by an equal constant expression."""

    def __init__(self, index: FunctionIndex) -> None:
        self.index = index
        self.sites: list[cst.CSTNode] = []
        self.skip_depth = 0
        self.reasons: list[str] = []

    # regions where a literal must stay a literal (or where its text is observable)
    def _skip(self, node) -> bool:
        self.skip_depth += 1
        return True

    def _unskip(self, node) -> None:
        self.skip_depth -= 1

    visit_Annotation = visit_FormattedString = visit_ConcatenatedString = visit_MatchCase = _skip
    leave_Annotation = leave_FormattedString = leave_ConcatenatedString = leave_MatchCase = _unskip

    def visit_MatchCase_body(self, node: cst.MatchCase) -> None:
        self.skip_depth -= 1  # the body of a case is ordinary code

    def leave_MatchCase_body(self, node: cst.MatchCase) -> None:
        self.skip_depth += 1

    def visit_MatchCase_guard(self, node: cst.MatchCase) -> None:
        self.skip_depth -= 1

    def leave_MatchCase_guard(self, node: cst.MatchCase) -> None:
        self.skip_depth += 1

    def visit_Expr(self, node: cst.Expr) -> bool:
        # a bare string statement (docstring or comment-like string) stays as it is
        return not isinstance(node.value, (cst.SimpleString, cst.ConcatenatedString))

    def visit_Comparison(self, node: cst.Comparison) -> None:
        # operands of ``is`` / ``is not`` compare identity: leave literal operands alone
        operands = [node.left] + [t.comparator for t in node.comparisons]
        for i, t in enumerate(node.comparisons):
            if isinstance(t.operator, (cst.Is, cst.IsNot)):
                self._no_touch.update({id(operands[i]), id(operands[i + 1])})

    def visit_Param(self, node: cst.Param) -> None:
        # string defaults keep their literal (their identity could be compared); int defaults are fine
        if node.default is not None and not isinstance(node.default, cst.Integer):
            self._no_touch.add(id(node.default))

    def visit_Module(self, node) -> None:
        self._no_touch: set[int] = set()

    def _literal(self, node: cst.CSTNode) -> None:
        if self.skip_depth or id(node) in self._no_touch:
            return
        if self.index.in_dynamic_scope(node):
            self.reasons.append("in a function using eval/exec/locals/globals/vars/dir")
            return
        try:
            value = ast.literal_eval(node.value)
        except (ValueError, SyntaxError):
            return
        if isinstance(node, cst.Integer):
            self.sites.append(node)
        elif isinstance(value, (str, bytes)) and len(value) >= 2:
            self.sites.append(node)

    def visit_Integer(self, node: cst.Integer) -> None:
        self._literal(node)

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        self._literal(node)


def _unfolded(node: cst.CSTNode, rng) -> tuple[cst.BaseExpression, str]:
    value = ast.literal_eval(node.value)
    if isinstance(value, int):
        if value == 0:
            k = rng.randint(1, 9)
            a, op, b = k, "-", k
        elif value == 1:
            k = rng.randint(2, 9)
            a, op, b = k, "-", k - 1
        else:
            a = rng.randint(1, value - 1)
            op, b = "+", value - a
        text = f"{a} {op} {b}"
    else:
        cut = rng.randint(1, len(value) - 1)
        text = f"{value[:cut]!r} + {value[cut:]!r}"
    expr = cst.parse_expression(text)
    expr = expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return expr, f"{node.value} -> ({text})"


class UnfoldConstant(SiteChoice, Transform):
    """Replace a literal by a constant expression of equal value: ``3`` -> ``(1 + 2)``,
    ``'ab'`` -> ``('a' + 'b')``, ``b'xy'`` -> ``(b'x' + b'y')``.

    The replacement is always parenthesised, so precedence never changes (``3 ** 2`` ->
    ``(1 + 2) ** 2``, ``3 .real`` -> ``(1 + 2).real``).  ``0`` becomes ``(k - k)`` and ``1``
    ``(k - (k-1))``.  Pure syntax, no runtime types.  Left alone: floats (their sums are
    not exact), strings shorter than 2 characters, anything inside f-strings (including
    format specs), implicitly concatenated strings (``'a' 'b'``), docstrings and other bare
    string statements, ``match`` patterns (which must be literals), annotations (their text
    may be observable), literal operands of ``is``/``is not`` (identity), string default
    values of parameters (identity), and code in functions using ``eval``/``exec``/
    ``locals``/``globals``/``vars``/``dir``.

    Options:
        which: ``"all"`` (default) unfolds every qualifying literal; ``"one"`` one literal
            chosen with the context's rng.
    """

    name = "unfold-constant"
    family = "expressions"
    description = "replace a literal by an equal constant expression: 3 -> (1 + 2)"
    preconditions = ("int or str/bytes literal outside patterns, annotations, f-strings, docstrings",)

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        index = FunctionIndex(ctx)
        finder = _UnfoldCandidates(index)
        module.visit(finder)
        if not finder.sites:
            why = _summarise(finder.reasons) if finder.reasons else \
                "no int literal or string literal of 2+ characters outside docstrings, patterns and annotations"
            raise NotApplicable(why)
        chosen = self.choose(ctx, finder.sites)
        replacements: dict[int, cst.BaseExpression] = {}
        for node in chosen:
            new, desc = _unfolded(node, ctx.rng)
            replacements[id(node)] = new
            ctx.record(node, desc)

        def unfold(original, updated):
            new = replacements[id(original)]
            if original.lpar:  # keep the literal's own parentheses around the new expression
                return new.with_changes(lpar=[*original.lpar, *new.lpar], rpar=[*new.rpar, *original.rpar])
            return new

        return module.visit(_Replace(chosen, unfold))
