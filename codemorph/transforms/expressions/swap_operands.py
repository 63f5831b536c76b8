"""``swap-operands``: ``a + b`` -> ``b + a`` for operators commutative on the observed
operand types.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import PositionProvider

from codemorph.engine import NotApplicable, RewriteContext, Transform
from codemorph.authoring.scopes import FunctionIndex
from codemorph.authoring.sites import SiteChoice
from codemorph.authoring.syntax import code_of, literal_type
from codemorph.transforms.expressions.common import (
    ReplaceNodes, SWAP_ARITHMETIC_TYPES, require_observations, summarise,
)

__all__ = ["SwapOperands"]


_ARITH_OPS = {cst.Add: "+", cst.Multiply: "*", cst.BitAnd: "&", cst.BitOr: "|", cst.BitXor: "^"}
#: operators whose swapped form would read unnatural with a literal on the left
#: (``1 + n``, ``range(1, 1 + n)``, ``1 & x``); ``2 * n`` is the form people write
_LITERAL_STAYS_RIGHT = frozenset({"+", "&", "|", "^"})


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
        if op in _LITERAL_STAYS_RIGHT and literal_type(right) is not None and literal_type(left) is None:
            self.reasons.append(f"swapping {code_of(left)} {op} {code_of(right)} would put the literal on the "
                                f"left of {op}, a form people do not write")
            return
        if op == "*" and self._parallel_product(node, left, right):
            self.reasons.append(f"{code_of(left)} * {code_of(right)} is written like another product of its "
                                f"statement (swapping one would break the parallel)")
            return
        if op == "+" and self._slice_from(node, left):
            self.reasons.append(f"{code_of(left)} + {code_of(right)} ends a slice that starts at {code_of(left)} "
                                f"(xs[{code_of(left)}:{code_of(left)} + {code_of(right)}] is the form people write)")
            return
        why = self._token_clash(node, left, right)
        if why is not None:
            self.reasons.append(why)
            return
        self.sites.append((node, f"{code_of(left)} {op} {code_of(right)} -> {code_of(right)} {op} {code_of(left)}"))

    def _slice_from(self, node: cst.CSTNode, left: cst.BaseExpression) -> bool:
        """Whether ``node`` (``a + b``) is the upper bound of a slice whose lower bound is
        ``a``: ``xs[start:start + k]``, which reads as a start and a length and would become
        ``xs[start:k + start]``."""
        parent = self.index.parents.get(node)
        return isinstance(parent, cst.Slice) and parent.upper is node and parent.lower is not None \
            and code_of(parent.lower).strip() == code_of(left).strip()

    def _parallel_product(self, node: cst.BinaryOperation, left: cst.BaseExpression,
                          right: cst.BaseExpression) -> bool:
        """Whether ``node`` (``k * a`` or ``a * k``, ``k`` a literal) shares its statement
        (a compound statement's header only) with another product of ``k`` on the same side
        that is no site (its other operand is no name): ``ln[3 * i:3 * (i + 1)]`` keeps both
        ``3 *``, while both products of ``text[i * 3:i * 3 + 3]`` are swapped."""
        if literal_type(left) is not None:
            side, literal = "left", code_of(left).strip()
        elif literal_type(right) is not None:
            side, literal = "right", code_of(right).strip()
        else:
            return False
        prev: cst.CSTNode = node
        parent = self.index.parents.get(node)
        while parent is not None and not isinstance(parent, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
            prev, parent = parent, self.index.parents.get(parent)
        root = parent if isinstance(parent, cst.BaseSmallStatement) else prev
        found = False

        class _Products(cst.CSTVisitor):
            def visit_BinaryOperation(self, other: cst.BinaryOperation) -> None:
                nonlocal found
                if other is not node and isinstance(other.operator, cst.Multiply):
                    operand, rest = (other.left, other.right) if side == "left" else (other.right, other.left)
                    # a product of the literal and a name is swapped too (``text[i * 3:i * 3 + 3]``)
                    if literal_type(operand) is not None and code_of(operand).strip() == literal \
                            and not isinstance(rest, cst.Name):
                        found = True

        root.visit(_Products())
        return found

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


class SwapOperands(SiteChoice, Transform):
    """Swap the operands of commutative operators: ``a + b`` -> ``b + a``.

    Operators: ``+ * & | ^`` (binary operations).  ``==``/``!=`` are left to
    ``mirror-comparison``, which swaps them too (two transforms would give duplicate
    variants).  An operand qualifies only when it is a literal (int, ``-int``, ``True``,
    ``False``) or a simple name that is a local of the function (or comprehension) where it
    is read, whose every observed type is allowed.  Natural forms only: a literal is never
    moved to the left of ``+ & | ^`` (``n + 1`` stays, no ``1 + n`` / ``range(1, 1 + n)``;
    ``1 + n`` becomes ``n + 1``); ``n * 2`` -> ``2 * n`` is kept, a form people write; a
    slice's end that adds to its start stays (``xs[i:i + k]``, never ``xs[i:k + i]``), and so
    does a product written like another of its statement (``ln[3 * i:3 * (i + 1)]``).

    * ``+ * & | ^``: ``int`` and ``bool`` only.  Never ``str``/``list``/``tuple`` (``+`` and
      ``*`` are not commutative), never sets (``a | b`` keeps the *first* operand's element
      when equal elements differ, e.g. ``{1} | {True}``), never user classes.  Floats are
      excluded by default: IEEE 754 ``+`` and ``*`` give equal values either way round
      (signed zeros and infinities included), but when both operands are NaN the sign
      and payload of the result come from one operand, observable with
      ``math.copysign``/``struct`` (measured: ``copysign(1, -nan + nan) == 1.0`` but
      ``copysign(1, nan + -nan) == -1.0`` on x86-64).  Option ``floats=True`` allows them
      for ``+`` and ``*`` anyway.

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
    description = "Swap operands of commutative operators (types observed at run time)."
    preconditions = ("operands are literals or locals observed only with allowed types",
                     "operators + * & | ^ on int/bool",
                     "no literal moved to the left of + & | ^")
    needs_runtime_types = True

    def __init__(self, which: str = "all", floats: bool = False) -> None:
        SiteChoice.__init__(self, which)
        self.floats = bool(floats)

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        require_observations(ctx)
        index = FunctionIndex(ctx)
        finder = _SwapCandidates(self, index)
        module.visit(finder)
        if not finder.seen_any:
            raise NotApplicable("no + * & | ^ operation to swap")
        if not finder.sites:
            raise NotApplicable("no operation whose operands are provably swappable: " + summarise(finder.reasons))
        chosen = self.choose(ctx, finder.sites)
        for node, desc in chosen:
            ctx.record(node, desc)

        def swap(original, updated):
            return updated.with_changes(left=updated.right, right=updated.left)

        return module.visit(ReplaceNodes([n for n, _ in chosen], swap))
