"""What the branch transforms share about conditions: comparison identities proved with z3
(:data:`DOMAINS`, :func:`prove_identity`, :func:`proved_identities`), operand types
(:class:`TypeOracle`) and negation of a test (:func:`negate`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import libcst as cst

from codemorph.engine import RewriteContext
from codemorph.authoring.exprtypes import ExpressionTypes
from codemorph.authoring.scopes import FunctionIndex
from codemorph.authoring.syntax import literal_type
from codemorph.authoring.z3terms import load_z3

__all__ = [
    "source_of", "OP_TEXT", "NEGATED", "MIRRORED", "ComparisonDomain", "DOMAINS", "prove_identity",
    "proved_identities", "TypeOracle", "flip_comparison", "needs_parentheses_under_not",
    "strip_parentheses", "negate", "negated_comparison", "pass_suite", "with_leading_comments",
]


# Expressions that bind less tightly than ``not`` and so need parentheses under it.
_LOOSER_THAN_NOT = (cst.BooleanOperation, cst.IfExp, cst.Lambda, cst.NamedExpr)

# Expressions that may stand unparenthesised as an ``if``/``elif`` test.
_SAFE_BARE_TEST = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Comparison, cst.BooleanOperation,
                   cst.UnaryOperation, cst.BinaryOperation, cst.IfExp, cst.NamedExpr, cst.Integer, cst.Float,
                   cst.Imaginary, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.List,
                   cst.Dict, cst.Set, cst.ListComp, cst.SetComp, cst.DictComp, cst.Await, cst.Ellipsis)

_FLIP = {cst.Is: cst.IsNot, cst.IsNot: cst.Is, cst.In: cst.NotIn, cst.NotIn: cst.In}


def source_of(node: cst.CSTNode) -> str:
    """Source text of ``node`` (with its own parentheses)."""
    return cst.Module([]).code_for_node(node)


# ---------------------------------------------------------------------------------------
# comparison identities, proved with z3

#: Comparison operators by their source spelling.
OP_TEXT: dict[type, str] = {cst.LessThan: "<", cst.LessThanEqual: "<=", cst.GreaterThan: ">",
                             cst.GreaterThanEqual: ">=", cst.Equal: "==", cst.NotEqual: "!="}
_OP_CLASS: dict[str, type] = {v: k for k, v in OP_TEXT.items()}
#: ``not (a OP b)`` is claimed to be ``a NEGATED[OP] b``.
NEGATED: dict[str, str] = {"<": ">=", ">=": "<", "<=": ">", ">": "<=", "==": "!=", "!=": "=="}
#: ``a OP b`` is claimed to be ``b MIRRORED[OP] a``.
MIRRORED: dict[str, str] = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "==", "!=": "!="}


@dataclass(frozen=True)
class ComparisonDomain:
    """A set of builtin types with a z3 model of Python's comparison operators on them.

    Attributes:
        name: short name, e.g. ``"int"``.
        types: runtime type names (as observed, see :mod:`codemorph.transforms.expressions`)
            whose values the model covers, e.g. ``{"int", "bool"}`` (``bool`` compares as
            the integers 0 and 1).
        doc: what the model is.

    :meth:`relation` builds the z3 formula of ``a OP b`` for two fresh variables of the
    domain; identities over the domain are then checked by asking z3 for a
    counterexample (:func:`prove_identity`).
    """

    name: str
    types: frozenset[str]
    doc: str

    def variables(self):
        """Two fresh z3 variables of the domain's sort and the constraints on them."""
        z3 = load_z3()
        if self.name == "int":
            a, b = z3.Ints("a b")
            return a, b, []
        if self.name == "str":
            a, b = z3.Strings("a b")
            return a, b, []
        if self.name == "float":
            a, b = z3.FPs("a b", z3.Float64())
            return a, b, []
        if self.name == "set":
            sort = z3.SetSort(z3.IntSort())
            a, b = z3.Consts("a b", sort)
            return a, b, []
        raise ValueError(f"no z3 model for domain {self.name!r}")

    def relation(self, op: str, a, b):
        """The z3 formula of Python's ``a OP b`` on this domain (``OP`` one of
        ``< <= > >= == !=``)."""
        z3 = load_z3()
        if self.name in ("int", "str"):
            return {"<": lambda: a < b, "<=": lambda: a <= b, ">": lambda: a > b, ">=": lambda: a >= b,
                    "==": lambda: a == b, "!=": lambda: a != b}[op]()
        if self.name == "float":  # IEEE 754 binary64, as CPython's float_richcompare on C doubles
            return {"<": lambda: z3.fpLT(a, b), "<=": lambda: z3.fpLEQ(a, b), ">": lambda: z3.fpGT(a, b),
                    ">=": lambda: z3.fpGEQ(a, b), "==": lambda: z3.fpEQ(a, b),
                    "!=": lambda: z3.Not(z3.fpEQ(a, b))}[op]()
        if self.name == "set":  # subset order; == is equality of members
            return {"<": lambda: z3.And(z3.IsSubset(a, b), a != b), "<=": lambda: z3.IsSubset(a, b),
                    ">": lambda: z3.And(z3.IsSubset(b, a), a != b), ">=": lambda: z3.IsSubset(b, a),
                    "==": lambda: a == b, "!=": lambda: a != b}[op]()
        raise ValueError(f"no z3 model for domain {self.name!r}")


#: The domains with a z3 model.  ``float`` includes NaN and signed zeros; ``set`` is the
#: subset order (a partial order, so ``not (a < b)`` is not ``a >= b``).
DOMAINS: tuple[ComparisonDomain, ...] = (
    ComparisonDomain("int", frozenset({"int", "bool"}), "unbounded integers (bool is 0 or 1)"),
    ComparisonDomain("str", frozenset({"str"}), "z3 strings, lexicographic order of code points"),
    ComparisonDomain("float", frozenset({"float"}), "IEEE 754 binary64 (NaN, infinities, signed zeros)"),
    ComparisonDomain("set", frozenset({"set", "frozenset"}), "sets of integers under inclusion"),
)


def prove_identity(domain: ComparisonDomain, kind: str, op: str) -> tuple[bool, str | None]:
    """Check one comparison identity over every pair of values of ``domain`` with z3.

    Args:
        domain: one of :data:`DOMAINS`.
        kind: ``"negation"`` (``not (a OP b)`` equals ``a NEGATED[OP] b``) or ``"mirror"``
            (``a OP b`` equals ``b MIRRORED[OP] a``).
        op: ``"<"``, ``"<="``, ``">"``, ``">="``, ``"=="`` or ``"!="``.

    Returns:
        ``(True, None)`` when z3 proves the identity (no counterexample exists), else
        ``(False, counterexample or reason)`` -- e.g. NaN for ``not (a < b)`` on floats, two
        incomparable sets for the subset order.  An ``unknown`` answer counts as not proved.
    """
    z3 = load_z3()
    a, b, constraints = domain.variables()
    if kind == "negation":
        claim = z3.Not(domain.relation(op, a, b)) == domain.relation(NEGATED[op], a, b)
    elif kind == "mirror":
        claim = domain.relation(op, a, b) == domain.relation(MIRRORED[op], b, a)
    else:
        raise ValueError(f"kind must be 'negation' or 'mirror', got {kind!r}")
    solver = z3.Solver()
    solver.set("timeout", 5_000)
    solver.add(*constraints, z3.Not(claim))
    verdict = solver.check()
    if verdict == z3.unsat:
        return True, None
    if verdict == z3.sat:
        return False, f"counterexample {solver.model()}"
    return False, f"z3 could not decide ({solver.reason_unknown()})"


_PROVED: dict[str, dict[tuple[str, str], bool]] = {}


def proved_identities(kind: str) -> dict[tuple[str, str], bool]:
    """``{(domain name, op): proved}`` for every domain of :data:`DOMAINS` and operator,
    computed once per process with :func:`prove_identity` (under a second in all)."""
    table = _PROVED.get(kind)
    if table is None:
        table = {(d.name, op): prove_identity(d, kind, op)[0] for d in DOMAINS for op in _OP_CLASS}
        _PROVED[kind] = table
    return table


class TypeOracle:
    """Runtime types of the operands of a comparison: the types of expressions of the
    authoring kit (:class:`~codemorph.authoring.exprtypes.ExpressionTypes`) over
    ``ctx.observations``.

    An operand has known types when it is a literal (see
    :func:`~codemorph.authoring.literal_type`); a name that is a local of
    the function (or comprehension) where it is read, observed with those types, never
    bound by ``:=``, not in a function using ``eval``/``locals``/..., and not in a
    statement sharing its line with another (types are observed at line events); or an
    expression whose type follows from its parts for every value they can take:
    ``len(x)`` with the builtin ``len``, ``i % 2`` of an int, ``s[:4]`` and ``s.lower()``
    of a str... (see :class:`~codemorph.authoring.exprtypes.ExpressionTypes`).

    Args:
        ctx: the rewrite context; ``ctx.observations`` a mapping, or ``None`` (then no
            local has known types: literals and the rules that need no observation still
            apply).
    """

    def __init__(self, ctx: RewriteContext) -> None:

        self.index = FunctionIndex(ctx)
        self.expressions = ExpressionTypes(self.index)

    def types_of(self, expr: cst.BaseExpression) -> frozenset[str] | None:
        """Type names ``expr`` may have, or ``None`` when unknown (see the class doc)."""
        return self.expressions.of(expr)

    def domain(self, comparison: cst.Comparison, kind: str) -> str | None:
        """The name of a domain in which the identity ``kind`` (see :func:`prove_identity`)
        is z3-proved for ``comparison``'s operator and which holds every type both
        operands may have; ``None`` when there is none (or ``comparison`` is chained, or
        an operator other than ``< <= > >= == !=``)."""
        if len(comparison.comparisons) != 1:
            return None
        target = comparison.comparisons[0]
        op = OP_TEXT.get(type(target.operator))
        if op is None:
            return None
        left, right = self.types_of(comparison.left), self.types_of(target.comparator)
        if left is None or right is None:
            return None
        both = left | right
        proved = proved_identities(kind)
        for d in DOMAINS:
            if both <= d.types and proved[(d.name, op)]:
                return d.name
        return None

    def is_boolean(self, expr: cst.BaseExpression) -> bool:
        """Whether ``expr`` is known to give a comparison result or a bool: a comparison,
        ``not E``, ``True``/``False``, a name observed only as ``bool``, an expression of
        type ``bool`` (``s.isdigit()``, ``isinstance(x, int)``), or ``and``/``or`` of such
        operands."""
        if isinstance(expr, (cst.Comparison, cst.UnaryOperation)):
            return not isinstance(expr, cst.UnaryOperation) or isinstance(expr.operator, cst.Not)
        if isinstance(expr, cst.BooleanOperation):
            return self.is_boolean(expr.left) and self.is_boolean(expr.right)
        return self.types_of(expr) == frozenset({"bool"})


def flip_comparison(comparison: cst.Comparison, table: dict[str, str], swap: bool) -> cst.Comparison:
    """``comparison`` (one operator) with its operator replaced through ``table``
    (:data:`NEGATED` or :data:`MIRRORED`), and its operands exchanged when ``swap``."""
    target = comparison.comparisons[0]
    op = target.operator
    new_op = _OP_CLASS[table[OP_TEXT[type(op)]]](whitespace_before=op.whitespace_before,
                                                    whitespace_after=op.whitespace_after)
    if not swap:
        return comparison.with_changes(comparisons=[target.with_changes(operator=new_op)])
    return comparison.with_changes(left=target.comparator,
                                   comparisons=[target.with_changes(operator=new_op, comparator=comparison.left)])


def needs_parentheses_under_not(expr: cst.BaseExpression) -> bool:
    """Whether ``not <expr>`` would parse differently from ``not (<expr>)``: true for
    ``and``/``or``, conditional expressions, lambdas and walrus written without their own
    parentheses (everything else binds at least as tightly as ``not``)."""
    return isinstance(expr, _LOOSER_THAN_NOT) and not expr.lpar


def strip_parentheses(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``expr`` without its outer parentheses when it may stand alone as an ``if`` test
    (one line, and a kind of expression that needs no parentheses there); else ``expr``."""
    if expr.lpar and isinstance(expr, _SAFE_BARE_TEST):
        bare = expr.with_changes(lpar=[], rpar=[])
        if "\n" not in source_of(bare):
            return bare
    return expr


def negate(test: cst.BaseExpression, oracle: "TypeOracle | None" = None) -> tuple[cst.BaseExpression, str]:
    """The negation of ``test`` for a boolean context (an ``if``/``elif``/``while`` test),
    and a short name of the rule used.

    Args:
        test: the condition (a libcst expression; with ``oracle``, a node of the tree the
            oracle was built over, so that its names can be looked up).
        oracle: runtime types of the operands (:class:`TypeOracle`), or ``None`` for the
            rules that hold for every value.

    Rules, each valid for every value the operands can take (``__bool__`` is called exactly
    as often, in the same order, because CPython compiles a ``not`` in a test as a jump):

    * ``not E`` -> ``E`` (parentheses dropped when not needed);
    * ``a is b`` <-> ``a is not b`` and ``a in b`` <-> ``a not in b`` (a single comparison;
      ``not in`` is defined as the negation of ``in``);
    * anything else -> ``not E``, parenthesised only when ``E`` binds less tightly than
      ``not`` (``and``/``or``, conditional expression, lambda, walrus): the parentheses
      ``E`` was written with are dropped where they are not needed (``if(c.islower()):``
      -> ``if not c.islower():``).

    Without an oracle, comparisons such as ``<`` or ``==`` are never flipped (``not (a < b)``
    is not ``a >= b`` for NaN, sets or user classes).  With one, two more rules apply:

    * ``a < b`` -> ``a >= b`` (and ``<=``/``>``, ``==``/``!=``) when the types both
      operands may have (:meth:`TypeOracle.types_of`: literals, observed locals, and
      expressions such as ``len(w)``, ``i % 2``, ``s[:4]``, ``s.lower()`` typed from their
      parts) lie in a :class:`ComparisonDomain` where z3 proves ``not (a OP b) == (a NEG
      b)`` (:func:`proved_identities`): ints/bools and strings for every operator; floats
      for ``==``/``!=`` only (NaN); sets for ``==``/``!=`` only (the subset order is
      partial); anything else never;
    * De Morgan: ``a and b`` -> ``not a or not b`` (``or`` likewise), each operand negated
      again by these rules, when every operand is known to be a comparison, ``not E``, a
      bool literal or an expression of type ``bool`` (:meth:`TypeOracle.is_boolean`), and
      no operand's negation is left as ``not a < b`` (a single comparison that could not
      be flipped, :func:`negated_comparison`): then ``not (a and b)`` is written instead.
      In a test this calls ``__bool__`` on the same operands in the same order and
      short-circuits at the same place (CPython emits the same jumps).

    A result that reads ``not a < b`` (:func:`negated_comparison`) is the form people do
    not write; each caller decides what to do with it (``invert-if`` leaves such a site
    alone).
    """
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        # ``not E`` or ``(not E)``: E alone (in a test, its parentheses are rarely needed)
        return strip_parentheses(test.expression), "not-elimination"
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        flip = _FLIP.get(type(target.operator))
        if flip is not None:
            op = target.operator
            new_op = flip(whitespace_before=op.whitespace_before, whitespace_after=op.whitespace_after)
            rule = {cst.IsNot: "is -> is not", cst.Is: "is not -> is",
                    cst.NotIn: "in -> not in", cst.In: "not in -> in"}[flip]
            return test.with_changes(comparisons=[target.with_changes(operator=new_op)]), rule
        if oracle is not None:
            domain = oracle.domain(test, "negation")
            if domain is not None:
                op = OP_TEXT[type(target.operator)]
                return flip_comparison(test, NEGATED, swap=False), f"{op} -> {NEGATED[op]} ({domain})"
    if oracle is not None and isinstance(test, cst.BooleanOperation) and oracle.is_boolean(test):
        result = _de_morgan(test, oracle)
        if not any(negated_comparison(leaf) is not None for leaf in _boolean_leaves(result)):
            return result, "De Morgan"
    # ``if(c.islower()):`` -> ``if not c.islower():``, never ``not (c.islower())``
    operand = strip_parentheses(test)
    if needs_parentheses_under_not(operand):
        operand = operand.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.UnaryOperation(cst.Not(whitespace_after=cst.SimpleWhitespace(" ")), operand), "not"


def negated_comparison(expr: cst.BaseExpression) -> cst.Comparison | None:
    """The comparison ``C`` when ``expr`` reads ``not C`` (or ``not (C)``) with ``C`` a
    single ``<``, ``<=``, ``>``, ``>=``, ``==`` or ``!=`` comparison -- the form people
    do not write (they write ``a >= b``; linters flag ``not a < b``) -- else ``None``.
    ``not a < b < c``, ``not x in y`` and ``not f(x)`` are not such forms."""
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
        inner = expr.expression
        if isinstance(inner, cst.Comparison) and len(inner.comparisons) == 1 \
                and type(inner.comparisons[0].operator) in OP_TEXT:
            return inner
    return None


def _boolean_leaves(expr: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The operands of the ``and``/``or`` tree ``expr`` (``expr`` itself when it is none)."""
    if isinstance(expr, cst.BooleanOperation):
        return [*_boolean_leaves(expr.left), *_boolean_leaves(expr.right)]
    return [expr]


def _de_morgan(test: cst.BooleanOperation, oracle: "TypeOracle") -> cst.BaseExpression:
    """``not (a and b)`` -> ``not a or not b`` (each operand negated by :func:`negate`)."""
    op = test.operator
    new_op = (cst.Or if isinstance(op, cst.And) else cst.And)(whitespace_before=op.whitespace_before,
                                                              whitespace_after=op.whitespace_after)

    def side(operand: cst.BaseExpression) -> cst.BaseExpression:
        if isinstance(operand, cst.BooleanOperation) and type(operand.operator) is type(op) and not operand.lpar:
            return _de_morgan(operand, oracle)  # ``a and b and c`` nests to the left
        negated, _ = negate(operand, oracle)
        if isinstance(negated, _LOOSER_THAN_NOT) and not negated.lpar:
            negated = negated.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        return negated

    result = cst.BooleanOperation(side(test.left), new_op, side(test.right), lpar=test.lpar, rpar=test.rpar)
    return strip_parentheses(result) if test.lpar else result


def _is_simple_suite(body: cst.BaseSuite) -> bool:
    return isinstance(body, cst.SimpleStatementSuite)


def pass_suite(like: cst.BaseSuite) -> cst.BaseSuite:
    """A suite holding only ``pass``, of the same kind (one-line or indented) as ``like``."""
    if isinstance(like, cst.SimpleStatementSuite):
        return cst.SimpleStatementSuite([cst.Pass()])
    return cst.IndentedBlock([cst.SimpleStatementLine([cst.Pass()])])


def with_leading_comments(body: cst.BaseSuite, lines: Sequence[cst.EmptyLine]) -> cst.BaseSuite | None:
    """``body`` with ``lines`` put before its first statement, or ``None`` if it cannot
    hold them (a one-line suite) or they hold no comment (blank lines stay in place)."""
    if not lines:
        return body
    if not any(line.comment is not None for line in lines):
        return None
    if isinstance(body, cst.IndentedBlock) and body.body:
        first = body.body[0]
        first = first.with_changes(leading_lines=[*lines, *first.leading_lines])
        return body.with_changes(body=[first, *body.body[1:]])
    return None
