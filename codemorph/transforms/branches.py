"""The ``branches`` family: rewrites of conditionals and comparisons.

* ``invert-if`` (:class:`InvertIf`): swap the branches of an ``if`` under the negated
  condition, simplified (``not (a < b)`` -> ``a >= b``, De Morgan) where z3 proves it for
  the operand types observed at run time;
* ``if-to-ternary`` / ``ternary-to-if`` (:class:`IfToTernary`, :class:`TernaryToIf`):
  ``if c: x = a else: x = b`` <-> ``x = a if c else b`` (and ``return``);
* ``elif-to-nested`` / ``nested-to-elif`` (:class:`ElifToNested`, :class:`NestedToElif`):
  ``elif`` <-> ``else:`` holding an ``if``;
* ``mirror-comparison`` (:class:`MirrorComparison`): ``a < b`` -> ``b > a`` for observed
  builtin numbers/strings.

Shared pieces: :func:`negate` (the negation of a condition for a boolean context), the
z3 models of comparison operators (:data:`DOMAINS`, :func:`prove_identity`,
:func:`proved_identities`) and :class:`TypeOracle` (operand types from
``ctx.observations``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Mapping, Sequence

import libcst as cst

from codemorph.engine import NotApplicable, RewriteContext, Transform

from codemorph.authoring.sites import SiteChoice
from codemorph.authoring.hazards import LINE_HAZARDS, hazard_identifiers
from codemorph.authoring.scopes import FunctionIndex
from codemorph.authoring.syntax import literal_type

__all__ = ["InvertIf", "IfToTernary", "TernaryToIf", "ElifToNested", "NestedToElif", "MirrorComparison", "negate",
           "needs_parentheses_under_not", "strip_parentheses", "comments_in", "ComparisonDomain", "DOMAINS",
           "NEGATED", "MIRRORED", "prove_identity", "proved_identities", "TypeOracle"]

# Expressions that bind less tightly than ``not`` and so need parentheses under it.
_LOOSER_THAN_NOT = (cst.BooleanOperation, cst.IfExp, cst.Lambda, cst.NamedExpr)

# Expressions that may stand unparenthesised as an ``if``/``elif`` test.
_SAFE_BARE_TEST = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Comparison, cst.BooleanOperation,
                   cst.UnaryOperation, cst.BinaryOperation, cst.IfExp, cst.NamedExpr, cst.Integer, cst.Float,
                   cst.Imaginary, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.List,
                   cst.Dict, cst.Set, cst.ListComp, cst.SetComp, cst.DictComp, cst.Await, cst.Ellipsis)

_FLIP = {cst.Is: cst.IsNot, cst.IsNot: cst.Is, cst.In: cst.NotIn, cst.NotIn: cst.In}


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


# ---------------------------------------------------------------------------------------
# comparison identities, proved with z3

#: Comparison operators by their source spelling.
_OP_TEXT: dict[type, str] = {cst.LessThan: "<", cst.LessThanEqual: "<=", cst.GreaterThan: ">",
                             cst.GreaterThanEqual: ">=", cst.Equal: "==", cst.NotEqual: "!="}
_OP_CLASS: dict[str, type] = {v: k for k, v in _OP_TEXT.items()}
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
        import z3
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
        import z3
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
    import z3
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
    """Runtime types of the operands of a comparison, from ``ctx.observations``.

    An operand has known types when it is a literal (see
    :func:`~codemorph.authoring.literal_type`) or a name that is a local of
    the function (or comprehension) where it is read, observed with those types, never
    bound by ``:=``, not in a function using ``eval``/``locals``/..., and not in a
    statement sharing its line with another (types are observed at line events).

    Args:
        ctx: the rewrite context; ``ctx.observations`` must be a mapping.
    """

    def __init__(self, ctx: RewriteContext) -> None:

        self.index = FunctionIndex(ctx)

    def types_of(self, expr: cst.BaseExpression) -> frozenset[str] | None:
        """Type names ``expr`` may have, or ``None`` when unknown (see the class doc)."""

        lt = literal_type(expr)
        if lt is not None:
            return frozenset({lt})
        if not isinstance(expr, cst.Name) or expr.lpar:
            return None
        found = self.index.local_scope_of(expr)
        if found is None or expr.value in self.index.walrus_names:
            return None
        if self.index.in_dynamic_scope(expr) or self.index.shares_line(expr):
            return None
        types = self.index.observed(found[1], expr.value)
        return frozenset(types) if types else None

    def domain(self, comparison: cst.Comparison, kind: str) -> str | None:
        """The name of a domain in which the identity ``kind`` (see :func:`prove_identity`)
        is z3-proved for ``comparison``'s operator and which holds every type both
        operands may have; ``None`` when there is none (or ``comparison`` is chained, or
        an operator other than ``< <= > >= == !=``)."""
        if len(comparison.comparisons) != 1:
            return None
        target = comparison.comparisons[0]
        op = _OP_TEXT.get(type(target.operator))
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
        ``not E``, ``True``/``False``, a name observed only as ``bool``, or ``and``/``or``
        of such operands."""
        if isinstance(expr, (cst.Comparison, cst.UnaryOperation)):
            return not isinstance(expr, cst.UnaryOperation) or isinstance(expr.operator, cst.Not)
        if isinstance(expr, cst.BooleanOperation):
            return self.is_boolean(expr.left) and self.is_boolean(expr.right)
        if isinstance(expr, cst.Name):
            return self.types_of(expr) == frozenset({"bool"})
        return False


def _flip_comparison(comparison: cst.Comparison, table: dict[str, str], swap: bool) -> cst.Comparison:
    target = comparison.comparisons[0]
    op = target.operator
    new_op = _OP_CLASS[table[_OP_TEXT[type(op)]]](whitespace_before=op.whitespace_before,
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
        if "\n" not in _code(bare):
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
      ``not`` (``and``/``or``, conditional expression, lambda, unparenthesised walrus).

    Without an oracle, comparisons such as ``<`` or ``==`` are never flipped (``not (a < b)``
    is not ``a >= b`` for NaN, sets or user classes).  With one, two more rules apply:

    * ``a < b`` -> ``a >= b`` (and ``<=``/``>``, ``==``/``!=``) when both operands are
      names or literals whose observed types lie in a :class:`ComparisonDomain` where z3
      proves ``not (a OP b) == (a NEG b)`` (:func:`proved_identities`): ints/bools and
      strings for every operator; floats for ``==``/``!=`` only (NaN); sets for
      ``==``/``!=`` only (the subset order is partial); anything else never;
    * De Morgan: ``a and b`` -> ``not a or not b`` (``or`` likewise), each operand negated
      again by these rules, when every operand is known to be a comparison, ``not E``, a
      bool literal or a name observed only as ``bool`` (:meth:`TypeOracle.is_boolean`).
      In a test this calls ``__bool__`` on the same operands in the same order and
      short-circuits at the same place (CPython emits the same jumps).
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
                op = _OP_TEXT[type(target.operator)]
                return _flip_comparison(test, NEGATED, swap=False), f"{op} -> {NEGATED[op]} ({domain})"
    if oracle is not None and isinstance(test, cst.BooleanOperation) and oracle.is_boolean(test):
        return _de_morgan(test, oracle), "De Morgan"
    operand = test
    if needs_parentheses_under_not(operand):
        operand = operand.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.UnaryOperation(cst.Not(whitespace_after=cst.SimpleWhitespace(" ")), operand), "not"


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


def _pass_suite(like: cst.BaseSuite) -> cst.BaseSuite:
    if isinstance(like, cst.SimpleStatementSuite):
        return cst.SimpleStatementSuite([cst.Pass()])
    return cst.IndentedBlock([cst.SimpleStatementLine([cst.Pass()])])


def _with_leading_comments(body: cst.BaseSuite, lines: Sequence[cst.EmptyLine]) -> cst.BaseSuite | None:
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


def _invert(node: cst.If, original_test: cst.BaseExpression | None = None,
            oracle: "TypeOracle | None" = None) -> tuple[cst.If, str]:
    """Invert one ``if``/``elif`` node whose ``orelse`` is an ``else`` or nothing.

    ``original_test`` is the test as a node of the input tree (a test holds no statement,
    so it equals ``node.test``); the ``oracle`` looks its names up."""
    test, rule = negate(original_test if original_test is not None else node.test, oracle)
    ws = node.whitespace_before_test
    if isinstance(ws, cst.SimpleWhitespace) and ws.value == "":
        ws = cst.SimpleWhitespace(" ")  # ``if(x):`` -> ``if not (x):``
    if node.orelse is None:
        new_body = _pass_suite(node.body)
        new_else = cst.Else(body=node.body)
        kind = "if without else"
    else:
        assert isinstance(node.orelse, cst.Else)
        old_else = node.orelse
        moved = _with_leading_comments(old_else.body, old_else.leading_lines)
        if moved is None:  # blank lines / comments before ``else:`` stay before the new ``else:``
            new_body, else_lines = old_else.body, old_else.leading_lines
        else:
            new_body, else_lines = moved, ()
        new_else = cst.Else(body=node.body, leading_lines=else_lines,
                            whitespace_before_colon=old_else.whitespace_before_colon)
        kind = "if/else"
    new = node.with_changes(test=test, whitespace_before_test=ws, body=new_body, orelse=new_else)
    return new, f"{kind}: branches swapped under negated test ({rule})"


class _InvertRewriter(cst.CSTTransformer):
    def __init__(self, ctx: RewriteContext, chosen: Sequence[cst.If], oracle: "TypeOracle | None" = None) -> None:
        super().__init__()
        self.ctx = ctx
        self.chosen = set(chosen)
        self.oracle = oracle

    def leave_If(self, original_node: cst.If, updated_node: cst.If) -> cst.If:
        if original_node not in self.chosen:
            return updated_node
        new, description = _invert(updated_node, original_node.test, self.oracle)
        self.ctx.record(original_node, description)
        return new


class _IfSites(cst.CSTVisitor):
    """The last test of every ``if``/``elif`` chain (the node whose ``orelse`` is an
    ``else`` or nothing), in source order."""

    def __init__(self) -> None:
        self.sites: list[cst.If] = []

    def visit_If(self, node: cst.If) -> None:
        if not isinstance(node.orelse, cst.If):
            self.sites.append(node)


class InvertIf(SiteChoice, Transform):
    """Swap the branches of ``if`` statements under the negated condition.

    * ``if c: A else: B`` -> ``if not c: B else: A``;
    * ``if c: A`` -> ``if not c: pass else: A``;
    * in an ``elif`` chain the last test is inverted, so the chain stays a chain:
      ``if a: A elif b: B else: C`` -> ``if a: A elif not b: C else: B``.

    The condition is negated by :func:`negate` (``not``, parenthesised only when needed;
    ``not E`` -> ``E``; ``is``/``is not`` and ``in``/``not in`` flipped), which keeps
    truthiness (``__bool__``/``__len__`` called exactly as often), evaluation order,
    short-circuiting and walrus bindings.  Comments move with their branch: the comment
    after ``if c:`` / ``else:`` and the comments inside each body go where the body goes;
    comments on the lines just before ``else:`` move with the else branch.

    With runtime observations (``ctx.observations``) and ``simplify`` on, the negated test
    is simplified where z3 proves it valid for every value of the operands' observed types
    (see :func:`negate`): ``not (a < b)`` -> ``a >= b`` on ints and strings,
    ``not (a == b)`` -> ``a != b``, De Morgan over comparisons and bools.  Without
    observations the plain rules apply.

    Args:
        which: ``"all"`` (default) inverts every chain; ``"one"`` inverts one chain chosen
            with ``ctx.rng`` (uniformly, chains in source order).
        simplify: ``True`` (default) simplifies negated tests when observations are
            given; ``False`` never does.

    Refuses (``NotApplicable``) when the program has no ``if`` statement, or when it looks
    at line numbers or source text (tracebacks, warnings, ``inspect``), since the swapped
    branches change the line numbers of the statements they hold.

    Raises:
        ValueError: on construction, when ``which`` is not ``"all"`` or ``"one"``, or
            ``simplify`` is not a bool.
    """

    uses_runtime_types = True
    name = "invert-if"
    family = "branches"
    description = "Swap if/else branches under the negated condition (keeps elif chains, truthiness, short-circuiting)."
    preconditions = (
        "the program does not observe line numbers or source text",
        "simplified comparisons: operands are names/literals whose observed types lie in a domain "
        "where z3 proves the negation identity",
        "De Morgan: every operand is a comparison, `not`, or observed only as bool",
    )

    def __init__(self, which: str = "all", simplify: bool = True) -> None:
        SiteChoice.__init__(self, which)
        if not isinstance(simplify, bool):
            raise ValueError(f"invert-if: option simplify must be true or false, got {simplify!r}")
        self.simplify = simplify

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        finder = _IfSites()
        module.visit(finder)
        if not finder.sites:
            raise NotApplicable("no if statement")
        found = hazard_identifiers(module, LINE_HAZARDS)
        if found:
            raise NotApplicable(f"program observes line numbers or source text ({', '.join(found)})")
        chosen = self.choose(ctx, finder.sites)
        oracle = TypeOracle(ctx) if self.simplify and isinstance(ctx.observations, Mapping) else None
        return module.visit(_InvertRewriter(ctx, chosen, oracle))


# ---------------------------------------------------------------------------------------
# shared helpers of the statement rewrites


class _Comments(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: list[cst.Comment] = []

    def visit_Comment(self, node: cst.Comment) -> None:
        self.found.append(node)


def comments_in(node: cst.CSTNode, *keep: cst.CSTNode | None) -> list[cst.Comment]:
    """The comments inside ``node`` (source order) that are not inside any of ``keep``
    (subtrees that are reused as they are, so their comments stay with them)."""
    v = _Comments()
    node.visit(v)
    kept: set[int] = set()
    for k in keep:
        if k is not None:
            w = _Comments()
            k.visit(w)
            kept.update(id(c) for c in w.found)
    return [c for c in v.found if id(c) not in kept]


def _comment_lines(comments: Sequence[cst.Comment]) -> list[cst.EmptyLine]:
    return [cst.EmptyLine(indent=True, comment=c) for c in comments]


def _single_small(body: cst.BaseSuite) -> cst.BaseSmallStatement | None:
    """The only statement of a suite when it is one simple statement, else ``None``."""
    if isinstance(body, cst.SimpleStatementSuite):
        return body.body[0] if len(body.body) == 1 else None
    if isinstance(body, cst.IndentedBlock) and len(body.body) == 1:
        line = body.body[0]
        if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1:
            return line.body[0]
    return None


def _assigned_name(stmt: cst.BaseSmallStatement) -> str | None:
    if isinstance(stmt, cst.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0].target, cst.Name) \
            and not stmt.targets[0].target.lpar:
        return stmt.targets[0].target.value
    return None


#: Expressions that need parentheses as a part of a conditional expression.
_LOOSE_IN_IFEXP = (cst.IfExp, cst.Lambda, cst.NamedExpr, cst.Yield)


def _paren(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``expr`` parenthesised when it cannot stand bare inside ``a if c else b``
    (conditional expression, lambda, walrus, yield, a tuple without parentheses)."""
    if expr.lpar:
        return expr
    if isinstance(expr, _LOOSE_IN_IFEXP) or (isinstance(expr, cst.Tuple)):
        return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return expr


def _bare(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``expr`` as it can stand alone as a statement's value or test: outer parentheses
    dropped when not needed (kept on walrus, yield, generator expressions and multi-line
    expressions), added to a multi-line expression that has none (it may have relied on
    enclosing parentheses to continue its lines)."""
    if expr.lpar:
        if not isinstance(expr, (cst.NamedExpr, cst.Yield, cst.GeneratorExp, cst.Tuple)):
            bare = expr.with_changes(lpar=[], rpar=[])
            if "\n" not in _code(bare):
                return bare
        return expr
    if "\n" in _code(expr) or isinstance(expr, (cst.NamedExpr, cst.Yield)):
        return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return expr


def _refuse_line_hazards(module: cst.Module) -> None:
    found = hazard_identifiers(module, LINE_HAZARDS)
    if found:
        raise NotApplicable(f"program observes line numbers or source text ({', '.join(found)})")


class _Collect(cst.CSTVisitor):
    """If statements (and elif clauses), simple statement lines, and the If nodes that
    are ``elif`` clauses, in source order."""

    def __init__(self) -> None:
        self.ifs: list[cst.If] = []
        self.elifs: set[cst.If] = set()
        self.lines: list[cst.SimpleStatementLine] = []

    def visit_If(self, node: cst.If) -> None:
        self.ifs.append(node)
        if isinstance(node.orelse, cst.If):
            self.elifs.add(node.orelse)

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self.lines.append(node)


class _Replace(cst.CSTTransformer):
    """Replace chosen nodes (by identity in the input tree) with what ``make`` returns for
    the updated node; ``make(original, updated)`` returns ``(new node, description)``."""

    def __init__(self, ctx: RewriteContext, chosen: Sequence[cst.CSTNode], make) -> None:
        super().__init__()
        self.ctx = ctx
        self.chosen = set(map(id, chosen))
        self.make = make

    def on_leave(self, original_node, updated_node):
        if id(original_node) in self.chosen:
            new, description = self.make(original_node, updated_node)
            self.ctx.record(original_node, description)
            return new
        return updated_node


# ---------------------------------------------------------------------------------------
# if-to-ternary / ternary-to-if


def _ternary(test: cst.BaseExpression, body: cst.BaseExpression, orelse: cst.BaseExpression) -> cst.IfExp:
    return cst.IfExp(test=_paren(strip_parentheses(test)), body=_paren(body), orelse=_paren(orelse))


def _if_to_ternary_kind(node: cst.If) -> tuple[str, str | None] | None:
    """``("assign", name)`` or ``("return", None)`` when ``node`` is an if/else whose two
    branches assign the same name / return a value; else ``None``."""
    if not isinstance(node.orelse, cst.Else):
        return None
    a, b = _single_small(node.body), _single_small(node.orelse.body)
    if a is None or b is None:
        return None
    na, nb = _assigned_name(a), _assigned_name(b)
    if na is not None and na == nb:
        return "assign", na
    if isinstance(a, cst.Return) and isinstance(b, cst.Return) and a.value is not None and b.value is not None:
        return "return", None
    return None


class _StatementRewrite(SiteChoice, Transform):
    """Shared ``rewrite`` of the statement transforms (if-to-ternary, ternary-to-if,
    elif-to-nested, nested-to-elif): sites are found with :class:`_Collect`, programs
    that observe line numbers or source text are refused, and each chosen site is
    replaced by :func:`_make` through :class:`_Replace`.

    A subclass sets ``_keyword`` (text every site needs in the source: a quick exit),
    ``_nothing`` (the refusal reason when there is no site), ``_make`` (a
    ``staticmethod(original, updated) -> (replacement, site description)``) and
    implements :meth:`_sites`.
    """

    _keyword: ClassVar[str] = "else"
    _nothing: ClassVar[str] = ""

    def _sites(self, found: _Collect) -> list[cst.CSTNode]:
        """The nodes of ``found`` this transform can rewrite, in source order."""
        raise NotImplementedError

    @staticmethod
    def _make(original: Any, updated: Any) -> tuple[cst.CSTNode, str]:
        raise NotImplementedError

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        if self._keyword not in ctx.program.source:  # quick exit (the common case)
            raise NotApplicable(self._nothing)
        found = _Collect()
        module.visit(found)
        sites = self._sites(found)
        if not sites:
            raise NotApplicable(self._nothing)
        _refuse_line_hazards(module)
        return module.visit(_Replace(ctx, self.choose(ctx, sites), self._make))


def _make_ternary(original: cst.If, updated: cst.If) -> tuple[cst.SimpleStatementLine, str]:
    kind, name = _if_to_ternary_kind(updated)
    a, b = _single_small(updated.body), _single_small(updated.orelse.body)
    value = _ternary(updated.test, a.value, b.value)
    comments = comments_in(updated.body, a.value) + comments_in(updated.orelse, b.value)
    small = _with_value(a, value)
    if kind == "assign":
        what = f"if/else assigning {name} -> {name} = ... if ... else ..."
    else:
        what = "if/else returning -> return ... if ... else ..."
    line = cst.SimpleStatementLine([small], leading_lines=[*updated.leading_lines, *_comment_lines(comments)])
    return line, what


class IfToTernary(_StatementRewrite):
    """Rewrite an ``if``/``else`` whose branches assign one name, or return, as a
    conditional expression.

    * ``if c: x = a`` / ``else: x = b`` -> ``x = a if c else b`` (one plain ``=`` to the
      same simple name in both branches, one statement each);
    * ``if c: return a`` / ``else: return b`` -> ``return a if c else b``.

    Exact for every value: ``c`` is evaluated and its truth tested once, then only the
    chosen branch's expression is evaluated and stored/returned, as before.  Operands that
    would parse differently inside a conditional expression (lambda, walrus, yield,
    conditional expression, bare tuple) are parenthesised.  ``elif`` clauses are left
    alone (they are not statements).  Comments of the removed lines (after ``if c:``,
    ``else:``, on the branch lines) are kept on their own lines above the new statement.

    Args:
        which: ``"all"`` (default) or ``"one"`` (one site chosen with ``ctx.rng``).

    Refuses when no such ``if`` exists or the program observes line numbers or source
    text (the statement shrinks to one line).
    """

    name = "if-to-ternary"
    family = "branches"
    description = "Turn if/else that assigns one name (or returns) in both branches into a conditional expression."
    preconditions = (
        "both branches are a single `name = value` to the same simple name, or a single `return value`",
        "the if is a statement, not an elif clause",
        "the program does not observe line numbers or source text",
    )

    _keyword = "else"
    _nothing = "no if/else whose branches assign the same name or both return a value"
    _make = staticmethod(_make_ternary)

    def _sites(self, found: _Collect) -> list[cst.CSTNode]:
        return [n for n in found.ifs if n not in found.elifs and _if_to_ternary_kind(n) is not None]


def _ternary_stmt(line: cst.SimpleStatementLine) -> tuple[cst.BaseSmallStatement, cst.IfExp] | None:
    if len(line.body) != 1:
        return None
    small = line.body[0]
    value = None
    if isinstance(small, cst.Assign) and _assigned_name(small) is not None:
        value = small.value
    elif isinstance(small, cst.Return):
        value = small.value
    if isinstance(value, cst.IfExp):
        return small, value
    return None


def _with_value(small: cst.BaseSmallStatement, value: cst.BaseExpression) -> cst.BaseSmallStatement:
    """``small`` (an assignment or ``return``) with another value, alone on its line
    (``return(a)`` gets a space when the new value has no parentheses of its own)."""
    changes: dict = {"value": value, "semicolon": cst.MaybeSentinel.DEFAULT}
    if isinstance(small, cst.Return) and not value.lpar:
        changes["whitespace_after_return"] = cst.SimpleWhitespace(" ")
    return small.with_changes(**changes)


def _branch(small: cst.BaseSmallStatement, value: cst.BaseExpression) -> cst.IndentedBlock:
    return cst.IndentedBlock([cst.SimpleStatementLine([_with_value(small, _bare(value))])])


def _make_if(original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine) -> tuple[cst.If, str]:
    small, value = _ternary_stmt(updated)
    comments = comments_in(value, value.test, value.body, value.orelse)

    def chain(v: cst.IfExp) -> cst.If:
        orelse_value = v.orelse
        inner = orelse_value.with_changes(lpar=[], rpar=[]) if isinstance(orelse_value, cst.IfExp) else None
        if inner is not None and "\n" not in _code(inner):
            orelse: cst.If | cst.Else = chain(inner)
        else:
            orelse = cst.Else(body=_branch(small, orelse_value))
        test = _bare(v.test)
        return cst.If(test=test, body=_branch(small, v.body), orelse=orelse)

    new = chain(value.with_changes(lpar=[], rpar=[]))
    header = cst.TrailingWhitespace(whitespace=updated.trailing_whitespace.whitespace,
                                    comment=updated.trailing_whitespace.comment)
    new = new.with_changes(body=new.body.with_changes(header=header),
                           leading_lines=[*updated.leading_lines, *_comment_lines(comments)])
    what = "return" if isinstance(small, cst.Return) else f"{_assigned_name(small)} ="
    return new, f"{what} ... if ... else ... -> if/else statement"


class TernaryToIf(_StatementRewrite):
    """Rewrite a statement-level conditional expression as an ``if``/``else`` statement.

    * ``x = a if c else b`` -> ``if c: x = a`` / ``else: x = b`` (one plain ``=`` to a
      simple name);
    * ``return a if c else b`` -> ``if c: return a`` / ``else: return b``;
    * a conditional expression in the ``else`` part becomes an ``elif``:
      ``x = a if c else b if d else e`` -> ``if c: ... elif d: ... else: ...``.

    Exact for every value (same evaluations in the same order, one truth test of ``c``).
    Only statements alone on their line are rewritten (not ``a = 1; x = p if c else q``,
    nor the body of a one-line ``if``/``for``).  The comment at the end of the line moves
    to the ``if c:`` line.

    Args:
        which: ``"all"`` (default) or ``"one"`` (one site chosen with ``ctx.rng``).

    Refuses when there is no such statement or the program observes line numbers or
    source text.
    """

    name = "ternary-to-if"
    family = "branches"
    description = "Turn `x = a if c else b` / `return a if c else b` statements into if/else statements."
    preconditions = (
        "the statement is alone on its line: `name = a if c else b` (one simple-name target) "
        "or `return a if c else b`",
        "the program does not observe line numbers or source text",
    )

    _keyword = "else"
    _nothing = "no statement `name = a if c else b` or `return a if c else b` alone on its line"
    _make = staticmethod(_make_if)

    def _sites(self, found: _Collect) -> list[cst.CSTNode]:
        return [ln for ln in found.lines if _ternary_stmt(ln) is not None]


# ---------------------------------------------------------------------------------------
# elif-to-nested / nested-to-elif


def _make_nested(original: cst.If, updated: cst.If) -> tuple[cst.If, str]:
    inner = updated.orelse
    assert isinstance(inner, cst.If)
    block = cst.IndentedBlock([inner.with_changes(leading_lines=[])])
    new = updated.with_changes(orelse=cst.Else(body=block, leading_lines=inner.leading_lines))
    return new, "elif -> else: if"


def _nested_inner(node: cst.If) -> cst.If | None:
    """The ``if`` that is the whole ``else`` block of ``node``, when it can become an
    ``elif`` without losing a comment; else ``None``."""
    if not isinstance(node.orelse, cst.Else):
        return None
    body = node.orelse.body
    if not isinstance(body, cst.IndentedBlock) or len(body.body) != 1 or not isinstance(body.body[0], cst.If):
        return None
    if any(line.comment is not None for line in body.footer):
        return None
    return body.body[0]


def _make_elif(original: cst.If, updated: cst.If) -> tuple[cst.If, str]:
    old_else = updated.orelse
    inner = old_else.body.body[0]
    lines = list(old_else.leading_lines)
    if old_else.body.header.comment is not None:
        lines.append(cst.EmptyLine(indent=True, comment=old_else.body.header.comment))
    lines += inner.leading_lines
    return updated.with_changes(orelse=inner.with_changes(leading_lines=lines)), "else: if -> elif"


class ElifToNested(_StatementRewrite):
    """Rewrite ``elif`` clauses as an ``if`` nested in an ``else`` block:
    ``if a: A elif b: B else: C`` -> ``if a: A else: (if b: B else: C)``.

    Exact: an ``elif`` is defined as an ``else`` holding an ``if``.  Comments before the
    ``elif`` line stay before the new ``else:``.

    Args:
        which: ``"all"`` (default) nests every ``elif``; ``"one"`` one chosen with ``ctx.rng``.

    Refuses when there is no ``elif`` or the program observes line numbers or source text.
    """

    name = "elif-to-nested"
    family = "branches"
    description = "Turn elif clauses into an if nested in an else block."
    preconditions = ("the program does not observe line numbers or source text",)

    _keyword = "elif"
    _nothing = "no elif clause"
    _make = staticmethod(_make_nested)

    def _sites(self, found: _Collect) -> list[cst.CSTNode]:
        return [n for n in found.ifs if isinstance(n.orelse, cst.If)]


class NestedToElif(_StatementRewrite):
    """Rewrite an ``else`` block that holds only an ``if`` statement as an ``elif``:
    ``if a: A else: (if b: B else: C)`` -> ``if a: A elif b: B else: C``.

    Exact (the inverse of ``elif-to-nested``).  Comments before ``else:``, after
    ``else:`` and before the inner ``if`` move before the ``elif`` line; an ``else``
    block ending with a comment is left alone.

    Args:
        which: ``"all"`` (default) or ``"one"`` (one site chosen with ``ctx.rng``).

    Refuses when there is no such ``else`` block or the program observes line numbers or
    source text.
    """

    name = "nested-to-elif"
    family = "branches"
    description = "Turn an else block holding only an if statement into an elif clause."
    preconditions = ("the else block holds exactly one statement, an if, and no trailing comment",
                     "the program does not observe line numbers or source text")

    _keyword = "else"
    _nothing = "no else block holding only an if statement"
    _make = staticmethod(_make_elif)

    def _sites(self, found: _Collect) -> list[cst.CSTNode]:
        return [n for n in found.ifs if _nested_inner(n) is not None]


# ---------------------------------------------------------------------------------------
# mirror-comparison


class _Comparisons(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: list[cst.Comparison] = []

    def visit_Comparison(self, node: cst.Comparison) -> None:
        self.found.append(node)


class MirrorComparison(SiteChoice, Transform):
    """Mirror comparisons: ``a < b`` -> ``b > a`` (``<=``/``>=`` likewise, ``==`` and
    ``!=`` swap their operands).

    Why this needs care: ``a < b`` evaluates ``a`` first and calls ``type(a).__lt__``
    first; ``b > a`` evaluates ``b`` first and calls ``type(b).__gt__`` first (the
    reflected method only when the first returns ``NotImplemented``, or first when the
    right operand's type is a subclass of the left's).  So a comparison is mirrored only
    when both operands are names or literals (reading them has no side effect, and a
    local read can only fail with ``UnboundLocalError`` whichever is read first) and
    their observed types lie in one domain of builtin types (ints/bools, floats or
    strings: builtin methods, no side effects, no user ``__lt__``) in which z3 proves
    ``a OP b == b MIRROR(OP) a`` (:func:`prove_identity`).  Two literals qualify without
    observation.  Chained comparisons are left alone.

    Needs runtime type observations; names must be locals of the function (or
    comprehension) where they are read, never bound by ``:=``, in a statement alone on its
    line, in a function without ``eval``/``locals``/...

    Args:
        which: ``"all"`` (default) or ``"one"`` (one site chosen with ``ctx.rng``).
    """

    name = "mirror-comparison"
    family = "branches"
    description = "Mirror comparisons (a < b -> b > a) where operand types are observed builtin numbers/strings."
    needs_runtime_types = True
    preconditions = (
        "a single comparison (< <= > >= == !=) between names/literals",
        "names are locals observed only with types of one domain (int/bool, float or str) "
        "where z3 proves the mirror identity",
        "no := binding of the names, not in a line shared with another statement, no eval/locals",
    )

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        if not isinstance(ctx.observations, Mapping):
            raise NotApplicable("needs runtime type observations ({function: {local: [types]}}), none given")
        found = _Comparisons()
        module.visit(found)
        if not found.found:
            raise NotApplicable("no comparison")
        oracle = TypeOracle(ctx)
        sites: list[cst.Comparison] = []
        domains: dict[int, str] = {}
        for node in found.found:
            if len(node.comparisons) != 1 or type(node.comparisons[0].operator) not in _OP_TEXT:
                continue
            if node.left.deep_equals(node.comparisons[0].comparator) and isinstance(
                    node.comparisons[0].operator, (cst.Equal, cst.NotEqual)):
                continue  # ``x == x`` mirrors to itself
            domain = oracle.domain(node, "mirror")
            if domain is not None and domain != "set":
                sites.append(node)
                domains[id(node)] = domain
        if not sites:
            raise NotApplicable("no comparison between names/literals of one observed builtin type "
                                "(int/bool, float or str)")
        chosen = self.choose(ctx, sites)

        def make(original: cst.Comparison, updated: cst.Comparison):
            new = _flip_comparison(original, MIRRORED, swap=True)
            old_op = _OP_TEXT[type(original.comparisons[0].operator)]
            return new, f"{_code(original)} -> {_code(new)} ({domains[id(original)]}, {old_op} mirrored)"

        return module.visit(_Replace(ctx, chosen, make))
