"""``unfold-constant``: a literal written as an expression a person might write --
``3600`` -> ``60 * 60``, ``1024`` -> ``2 ** 10``, ``'---'`` -> ``'-' * 3``, ``3`` ->
``len('abc')`` where the 3 is the length of that text (``s.startswith('abc')`` ...
``s[len('abc'):]``), a module constant the program defines, or else a named module
constant for every use of one literal in its function (``LIMIT = 5`` ... ``len(w) >
LIMIT``; never ``STEP = 1``).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

import libcst as cst

from codemorph.engine import NotApplicable, RewriteContext, Transform
from codemorph.engine.transform import DYNAMIC_SCOPE_BUILTINS, identifiers_in
from codemorph.authoring.hazards import BUILTINS_HAZARDS, hazard_identifiers, rebindable_builtins
from codemorph.authoring.scopes import FunctionIndex
from codemorph.authoring.sites import SiteChoice
from codemorph.transforms.expressions.common import ReplaceNodes, bound_anywhere, summarise

__all__ = ["UnfoldConstant", "natural_forms", "TIME_PRODUCTS", "role_name", "nameable", "PLAIN_INTS"]

#: identifiers of code that can see a module's global names (a new constant is visible to it)
GLOBALS_HAZARDS = frozenset({*DYNAMIC_SCOPE_BUILTINS, "__dict__", "__globals__", "modules", "__getattr__",
                             "__all__", "importlib", "__import__"})

_TERM_OPS = (cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.MatrixMultiply)


@dataclass
class _Site:
    node: cst.CSTNode          # the literal (an Integer, a SimpleString, or -<Integer>)
    value: object              # its value
    parent: cst.CSTNode | None  # the node holding it
    grandparent: cst.CSTNode | None
    top_level: int             # index of the module statement it is in
    in_function: bool = False  # inside a ``def`` or ``lambda``
    ancestors: tuple = ()      # the nodes holding it, the module first and ``parent`` last
    scope: int | None = None   # id of the innermost ``def`` around it (``None``: module level)
    touchable: bool = True     # False where it must stay a literal (f-string, pattern, ``is``...)


def _decimal(node: cst.Integer) -> bool:
    return node.value.isdigit() and (node.value == "0" or not node.value.startswith("0"))


#: numbers people write as a product of time units: seconds in an hour, a day, a week;
#: minutes in a day
TIME_PRODUCTS: dict[int, str] = {3600: "60 * 60", 1440: "24 * 60", 86400: "24 * 60 * 60",
                                 604800: "7 * 24 * 60 * 60"}


def natural_forms(value: int) -> list[tuple[str, str]]:
    """The arithmetic forms a person writes for the int ``value``, as ``(text, level)``
    pairs, ``level`` being ``"power"`` or ``"term"`` (its precedence): a power of two from
    256 up as ``2 ** k`` (``2 ** 8``, ``2 ** 10``, ``2 ** 32``), a power of ten from 1000 up
    as ``10 ** k`` (``10 ** 9``), and the products of time units of :data:`TIME_PRODUCTS`
    (``3600`` -> ``60 * 60``).  Empty for every other number: no ``2 ** 4`` for 16, no
    ``10 ** 2`` for 100, no ``6 * 7`` for 42 or ``38 * 50`` for 1900 (a product of two
    factors that mean nothing together is what no person writes)."""
    out: list[tuple[str, str]] = []
    if value >= 256 and value == 1 << (value.bit_length() - 1):
        out.append((f"2 ** {value.bit_length() - 1}", "power"))
    t, p = value, 0
    while t and t % 10 == 0:
        t, p = t // 10, p + 1
    if t == 1 and p >= 3:
        out.append((f"10 ** {p}", "power"))
    if value in TIME_PRODUCTS:
        out.append((TIME_PRODUCTS[value], "term"))
    return out


def _repeat_form(value: str | bytes, node: cst.SimpleString) -> str | None:
    """``'-' * 3`` for ``'---'`` (one repeated character, 3+ times; the literal's prefix
    and quote kept), else ``None`` (``'  '`` stays: no ``' ' * 2``)."""
    if len(value) < 3 or len(set(value)) != 1:
        return None
    body = node.value[len(node.prefix) + len(node.quote):-len(node.quote)]
    if len(body) != len(value) or "\\" in body:  # escapes: spell the character as written only
        return None
    return f"{node.prefix}{node.quote}{body[0]}{node.quote} * {len(value)}"


#: methods whose first argument is a text the call looks for in its receiver: after
#: ``s.startswith('abc')`` or ``i = s.find('abc')``, ``s[3:]`` / ``i + 3`` skip that text
_SEARCH_METHODS = frozenset({"startswith", "endswith", "find", "rfind", "index", "rindex"})
_POSITION_METHODS = frozenset({"find", "rfind", "index", "rindex"})


def _walk(node: cst.CSTNode):
    """``node`` and every node under it, depth first."""
    yield node
    for child in node.children:
        yield from _walk(child)


def _text_of_length(node: cst.CSTNode | None, n: int) -> str | None:
    """The source of ``node`` when it is a plain string or bytes literal of length ``n``."""
    if not isinstance(node, cst.SimpleString):
        return None
    try:
        value = ast.literal_eval(node.value)
    except (ValueError, SyntaxError):
        return None
    return node.value if isinstance(value, (str, bytes)) and len(value) == n else None


def _same_object(a: cst.CSTNode, b: cst.CSTNode) -> bool:
    """Whether ``a`` and ``b`` are the same name or attribute chain (``s``, ``self.text``)."""
    if isinstance(a, cst.Name) and isinstance(b, cst.Name):
        return a.value == b.value
    if isinstance(a, cst.Attribute) and isinstance(b, cst.Attribute):
        return a.attr.value == b.attr.value and _same_object(a.value, b.value)
    return False


def _searched_text(call: cst.CSTNode, n: int, methods: frozenset[str], receiver: cst.CSTNode | None = None):
    """The literal (source text) of length ``n`` that ``call`` looks for when it is
    ``X.method('...')`` with ``method`` in ``methods`` (and ``X`` the same object as
    ``receiver`` when given), else ``None``."""
    if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)
            and call.func.attr.value in methods and call.args and call.args[0].keyword is None
            and call.args[0].star == ""):
        return None
    if receiver is not None and not _same_object(call.func.value, receiver):
        return None
    return _text_of_length(call.args[0].value, n)


def _measured_literal(site: _Site, positions: dict | None = None) -> str | None:
    """The string literal (its source) whose length the int ``site`` plausibly is, so that
    ``len('...')`` says what the number means, else ``None``.  The places:

    * a slice bound or index of ``X[...]`` compared with the literal: ``s[:4] != 'Nuva'``,
      ``s[i:i + 3] == 'abc'``, ``s[-3:] == 'ing'``;
    * a slice bound or index of ``X[...]`` in the statement, or the branch of an ``if``/
      ``while``/conditional expression, whose test calls ``X.startswith('...')`` (for a
      bound from the start), ``X.endswith`` (from the end: ``s[:-3]``), ``X.find``,
      ``X.index`` (``rfind``/``rindex``) on it, or compares a slice of ``X`` with it: ``if
      s.startswith('abc'): return s[3:]``, ``if s[:3] == 'abc': s = s[3:]`` (two such
      literals of that length there: none is meant);
    * added to the position of the literal: ``s.find('abc') + 3``, or ``i + 3`` with
      ``i = s.find('abc')`` in the same function.

    A length of one (``len('-')``) is never written; neither is a literal the number only
    happens to equal the length of (``elif x > 5`` next to ``return 'small'``).  ``positions``
    caches :func:`_position_bindings` per function (a dict the caller keeps for one module)."""
    n, node, chain = site.value, site.node, list(site.ancestors)
    if not isinstance(node, cst.Integer) or type(n) is not int or n < 2:
        return None
    # the expression the number is part of: ``-3``, ``i + 3``, ``len(s) - 3``
    expr, k, negative = node, len(chain) - 1, False
    if k >= 0 and isinstance(chain[k], cst.UnaryOperation) and isinstance(chain[k].operator, cst.Minus):
        expr, k, negative = chain[k], k - 1, True
    if k >= 0 and isinstance(chain[k], cst.BinaryOperation) and chain[k].right is expr \
            and isinstance(chain[k].operator, (cst.Add, cst.Subtract)):
        binop = chain[k]
        negative = negative != isinstance(binop.operator, cst.Subtract)
        if isinstance(binop.operator, cst.Add) and expr is node:
            text = _searched_text(binop.left, n, _POSITION_METHODS)
            if text is None and isinstance(binop.left, cst.Name):
                func = next((a for a in reversed(chain) if isinstance(a, cst.FunctionDef)), None)
                if func is not None:
                    positions = {} if positions is None else positions
                    if id(func) not in positions:
                        positions[id(func)] = _position_bindings(func)
                    values = positions[id(func)].get(binop.left.value, [None, None])
                    text = _searched_text(values[0], n, _POSITION_METHODS) if len(values) == 1 else None
            if text is not None:
                return text
        expr, k = binop, k - 1
    # a slice bound or an index of ``X[...]``
    bound = k >= 1 and (isinstance(chain[k], cst.Slice) and (chain[k].lower is expr or chain[k].upper is expr)
                        or isinstance(chain[k], cst.Index) and chain[k].value is expr)
    if not bound:
        return None
    k -= 1
    if not (isinstance(chain[k], cst.SubscriptElement) and k >= 1 and isinstance(chain[k - 1], cst.Subscript)):
        return None
    sub, k = chain[k - 1], k - 2
    if len(sub.slice) != 1:
        return None
    # compared with the literal: ``s[:4] != 'Nuva'``
    holder = chain[k] if k >= 0 else None
    if isinstance(holder, cst.ComparisonTarget) and holder.comparator is sub and k >= 1:
        holder, k = chain[k - 1], k - 1
    if isinstance(holder, cst.Comparison):
        operands = [holder.left] + [t.comparator for t in holder.comparisons]
        i = next(j for j, o in enumerate(operands) if o is sub)
        for j in (i - 1, i + 1):
            if 0 <= j < len(operands) and isinstance(holder.comparisons[min(i, j)].operator,
                                                      (cst.Equal, cst.NotEqual)):
                text = _text_of_length(operands[j], n)
                if text is not None:
                    return text
    # in the statement, or under the test, of a call looking for the literal in X
    regions: list[cst.CSTNode] = []
    for a in reversed(chain):
        if isinstance(a, cst.BaseSmallStatement):
            regions.append(a)
            break
        if isinstance(a, (cst.If, cst.While)):
            regions.append(a.test)
            break
        if isinstance(a, cst.For):
            regions.append(a.iter)
            break
        if isinstance(a, cst.BaseCompoundStatement):
            break
    regions += [a.test for a in chain if isinstance(a, (cst.If, cst.While, cst.IfExp))]
    # a prefix is skipped from the start (``s[3:]``), a suffix from the end (``s[:-3]``)
    methods = _SEARCH_METHODS - ({"startswith"} if negative else {"endswith"})
    for region in regions:
        texts = {text for call in _walk(region)
                 if (text := _searched_text(call, n, methods, receiver=sub.value)
                     or _compared_text(call, n, sub.value, "end" if negative else "start")) is not None}
        if texts:
            return texts.pop() if len(texts) == 1 else None  # two texts of that length: neither is meant
    return None


def _slice_end(sub: cst.Subscript) -> str | None:
    """``"start"`` for a prefix slice ``X[:k]`` (``X[0:k]``), ``"end"`` for a suffix slice
    ``X[-k:]``, else ``None``."""
    if len(sub.slice) != 1 or not isinstance(sub.slice[0].slice, cst.Slice):
        return None
    sl = sub.slice[0].slice
    if sl.step is not None:
        return None
    if sl.upper is None and isinstance(sl.lower, cst.UnaryOperation) and isinstance(sl.lower.operator, cst.Minus):
        return "end"
    if sl.upper is not None and (sl.lower is None or isinstance(sl.lower, cst.Integer) and sl.lower.value == "0"):
        return "start"
    return None


def _compared_text(node: cst.CSTNode, n: int, receiver: cst.CSTNode, end: str) -> str | None:
    """The literal of length ``n`` that ``node`` compares a prefix (``end == "start"``) or
    suffix (``"end"``) slice of ``receiver`` with (``X[:3] == 'abc'``, ``'ing' != X[-3:]``),
    else ``None``."""
    if not isinstance(node, cst.Comparison):
        return None
    operands = [node.left] + [t.comparator for t in node.comparisons]
    for i, t in enumerate(node.comparisons):
        if isinstance(t.operator, (cst.Equal, cst.NotEqual)):
            for sub, other in ((operands[i], operands[i + 1]), (operands[i + 1], operands[i])):
                if isinstance(sub, cst.Subscript) and _same_object(sub.value, receiver) and _slice_end(sub) == end:
                    text = _text_of_length(other, n)
                    if text is not None:
                        return text
    return None


def _position_bindings(func: cst.FunctionDef) -> dict[str, list]:
    """``{name: [value, ...]}``: the values assigned to each name by ``name = value``
    statements in ``func`` (nested code included); a name bound another way too (``+=``,
    a ``for`` target, ``:=``, an annotated assignment) gets ``None`` added, so that only a
    name with exactly one plain assignment, ``i = s.find('abc')``, is read as a position."""
    out: dict[str, list] = {}
    for node in _walk(func.body):
        if isinstance(node, cst.Assign):
            for t in node.targets:
                for m in _walk(t.target):
                    if isinstance(m, cst.Name):
                        out.setdefault(m.value, []).append(node.value if t.target is m else None)
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr)):
            for m in _walk(node.target):
                if isinstance(m, cst.Name):
                    out.setdefault(m.value, []).append(None)
    return out


def _needs_parens(level: str, parent: cst.CSTNode | None, node: cst.CSTNode) -> bool:
    """Whether an expression of precedence ``level`` (``"atom"``, ``"power"``, ``"term"``)
    put in place of ``node`` under ``parent`` needs parentheses to keep its meaning."""
    if level == "atom" or parent is None or node.lpar:
        return False
    if isinstance(parent, (cst.Attribute, cst.Subscript, cst.Await)) and getattr(parent, "value", None) is node:
        return True
    if isinstance(parent, cst.Call) and parent.func is node:
        return True
    if isinstance(parent, cst.BinaryOperation):
        if isinstance(parent.operator, cst.Power):
            return True
        if level == "term" and isinstance(parent.operator, _TERM_OPS):
            return parent.right is node
        return False
    if isinstance(parent, cst.UnaryOperation) and not isinstance(parent.operator, cst.Not):
        return level == "term"
    return False


def role_name(site_node: cst.CSTNode, value: object, parent: cst.CSTNode | None,
              grandparent: cst.CSTNode | None) -> str | None:
    """The name a person gives a constant by the place it is used in (``STEP`` for
    ``i += 1``, ``SEPARATOR`` for ``text.split(',')``, ``START``/``STOP`` for slice bounds,
    ``INITIAL_COUNT`` for ``count = 0`` ...), or ``None`` when the place suggests none.
    The arguments of ``str.replace`` suggest none: ``OLD``/``NEW`` are the parameters'
    names, not a constant's (CRUXEval had ``NEW = 'haystacks'`` / ``s.replace('needles',
    NEW)`` in 15 of its 158 variants); a person writes a one-off replacement as literals."""
    if isinstance(parent, cst.AugAssign) and isinstance(parent.operator, (cst.AddAssign, cst.SubtractAssign)):
        return "STEP" if isinstance(value, int) else "SUFFIX" if isinstance(parent.operator, cst.AddAssign) else None
    if isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0].target, cst.Name):
        target = parent.targets[0].target.value.strip("_")
        if len(target) <= 2:  # ``i = 0``, ``s = ''``: too short to name a constant after
            return "START" if isinstance(value, int) else "INITIAL_TEXT"
        return f"INITIAL_{target.upper()}" if target.isidentifier() else None
    if isinstance(parent, cst.Arg) and isinstance(grandparent, cst.Call):
        if parent.keyword is not None:
            return parent.keyword.value.upper()
        args = list(grandparent.args)
        i = next(k for k, a in enumerate(args) if a is parent)
        func = grandparent.func
        if isinstance(func, cst.Name) and func.value == "range":
            if len(args) == 1:
                return "LIMIT"
            return ("START", "STOP", "STEP")[i] if i < 3 else None
        if isinstance(func, cst.Attribute):
            by_method = {
                "split": ("SEPARATOR", "MAX_SPLITS"), "rsplit": ("SEPARATOR", "MAX_SPLITS"),
                "partition": ("SEPARATOR",), "rpartition": ("SEPARATOR",),
                "strip": ("CHARS",), "lstrip": ("CHARS",),
                "rstrip": ("CHARS",), "startswith": ("PREFIX",), "endswith": ("SUFFIX",),
                "removeprefix": ("PREFIX",), "removesuffix": ("SUFFIX",),
                "count": ("TARGET",), "find": ("TARGET",), "rfind": ("TARGET",), "index": ("TARGET",),
                "center": ("WIDTH", "FILL"), "ljust": ("WIDTH", "FILL"), "rjust": ("WIDTH", "FILL"),
                "zfill": ("WIDTH",), "pop": ("INDEX",), "insert": ("INDEX",), "get": ("KEY", "DEFAULT"),
                "append": ("ITEM",), "join": ("ITEMS",), "expandtabs": ("TAB_SIZE",),
            }.get(func.attr.value, ())
            return by_method[i] if i < len(by_method) else None
        return None
    if isinstance(parent, cst.Attribute) and parent.value is site_node and parent.attr.value in ("join", "format"):
        return "SEPARATOR" if parent.attr.value == "join" else "TEMPLATE"
    if isinstance(parent, cst.Index):
        if isinstance(value, int):
            return {0: "FIRST", -1: "LAST"}.get(value, "INDEX")
        return "KEY"
    if isinstance(parent, cst.Slice):
        if parent.lower is site_node:
            return "START"
        if parent.upper is site_node:
            return "STOP"
        return "STEP"
    if isinstance(parent, cst.BinaryOperation) and parent.right is site_node and isinstance(value, int):
        return {cst.Add: "OFFSET", cst.Subtract: "OFFSET", cst.Multiply: "FACTOR", cst.FloorDivide: "DIVISOR",
                cst.Divide: "DIVISOR", cst.Modulo: "MODULUS", cst.Power: "EXPONENT"}.get(type(parent.operator))
    if isinstance(parent, cst.ComparisonTarget) and isinstance(value, int):
        if isinstance(parent.operator, (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual)):
            return "LIMIT"
        return None
    if isinstance(parent, cst.ComparisonTarget) and isinstance(parent.operator, (cst.In, cst.NotIn)):
        return "CHARS" if isinstance(value, str) else None
    if isinstance(parent, cst.Return):
        return "DEFAULT_RESULT"
    return None


#: ints a person writes as they are, never as a named constant (``STEP = 1``, ``FIRST = 0``,
#: ``LAST = -1``, ``MODULUS = 2`` read as padding, not as a constant with a meaning)
PLAIN_INTS: frozenset[int] = frozenset({-1, 0, 1, 2})


def nameable(value: object) -> bool:
    """Whether a person would give the literal ``value`` a name as a module constant: not one
    of :data:`PLAIN_INTS`, not an empty or all-whitespace string (``SEPARATOR = ''``,
    ``SEPARATOR = ' '``, ``INITIAL_RESULT = ''``)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return value not in PLAIN_INTS
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    return isinstance(value, str) and value.strip() != ""


class _UnfoldCandidates(cst.CSTVisitor):
    """Integer and string literals that may be replaced by an equal expression."""

    def __init__(self, index: FunctionIndex) -> None:
        self.index = index
        self.sites: list[_Site] = []
        self.every: list[_Site] = []
        self.skip_depth = 0
        self.reasons: list[str] = []
        self.stack: list[cst.CSTNode] = []
        self.top = -1
        self._no_touch: set[int] = set()

    def on_visit(self, node: cst.CSTNode) -> bool:
        if len(self.stack) == 1 and isinstance(node, cst.BaseStatement):
            self.top += 1  # a statement of the module
        self.stack.append(node)
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.stack.pop()
        super().on_leave(original_node)

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
                for op in (operands[i], operands[i + 1]):
                    self._no_touch.add(id(op))
                    if isinstance(op, cst.UnaryOperation):
                        self._no_touch.add(id(op.expression))

    def visit_Param(self, node: cst.Param) -> None:
        # string defaults keep their literal (their identity could be compared); int defaults are fine
        if node.default is not None and not isinstance(node.default, (cst.Integer, cst.UnaryOperation)):
            self._no_touch.add(id(node.default))

    def _literal(self, node: cst.CSTNode) -> None:
        touchable = not self.skip_depth and id(node) not in self._no_touch
        if touchable and self.index.in_dynamic_scope(node):
            self.reasons.append("in a function using eval/exec/locals/globals/vars/dir")
            touchable = False
        try:
            value = ast.literal_eval(node.value)
        except (ValueError, SyntaxError):
            return
        up = lambda k: self.stack[-1 - k] if len(self.stack) > k else None  # noqa: E731 (k-th ancestor)
        parent, grandparent = up(1), up(2)
        in_function = any(isinstance(n, (cst.FunctionDef, cst.Lambda)) for n in self.stack)
        scope = next((id(n) for n in reversed(self.stack) if isinstance(n, cst.FunctionDef)), None)
        ancestors = tuple(self.stack[:-1])
        found = []
        if isinstance(node, cst.Integer) and isinstance(parent, cst.UnaryOperation) \
                and isinstance(parent.operator, cst.Minus):
            # ``-1`` is one constant for naming; its arithmetic forms unfold the ``1``
            found.append(_Site(parent, -value, up(2), up(3), self.top, in_function, ancestors[:-1], scope,
                               touchable and id(parent) not in self._no_touch))
        found.append(_Site(node, value, parent, grandparent, self.top, in_function, ancestors, scope, touchable))
        self.every += found  # every literal, for naming: a name replaces each one of its function
        self.sites += [s for s in found if s.touchable]

    def visit_Integer(self, node: cst.Integer) -> None:
        self._literal(node)

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        self._literal(node)


def _module_constants(module: cst.Module) -> tuple[dict[tuple[type, object], tuple[str, int]], int]:
    """Constants the program defines and never rebinds: ``{(type, value): (NAME, index of
    its statement)}`` for ``NAME = <int or str literal>`` statements in the leading block
    of the module (docstring, imports and such assignments only), ``NAME`` in capitals and
    bound nowhere else in the module (no other assignment, parameter, ``global``,
    ``del``...); and the index of the first statement after that block."""
    found: dict[tuple[type, object], tuple[str, int]] = {}
    candidates: list[tuple[str, object, int]] = []
    end = 0
    for i, stmt in enumerate(module.body):
        if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
            small = stmt.body[0]
            if isinstance(small, (cst.Import, cst.ImportFrom)) or (
                    i == 0 and isinstance(small, cst.Expr) and isinstance(small.value, cst.SimpleString)):
                end = i + 1
                continue
            if isinstance(small, cst.Assign) and len(small.targets) == 1 \
                    and isinstance(small.targets[0].target, cst.Name) \
                    and isinstance(small.value, (cst.Integer, cst.SimpleString)):
                name = small.targets[0].target.value
                try:
                    value = ast.literal_eval(small.value.value)
                except (ValueError, SyntaxError):
                    break
                candidates.append((name, value, i))
                end = i + 1
                continue
        break
    counts = bound_anywhere(module)
    for name, value, i in candidates:
        if name.isupper() and counts.get(name, 0) == 1 and (type(value), value) not in found:
            found[(type(value), value)] = (name, i)
    return found, end


def _definition_literals(module: cst.Module, constants) -> set[int]:
    """Ids of the literals that define the constants of :func:`_module_constants` (they
    stay as they are: a named constant reads best as a literal)."""
    out: set[int] = set()
    for name, i in constants.values():
        stmt = module.body[i]
        out.add(id(stmt.body[0].value))
    return out


class _Form:
    """One replacement: its text, precedence level and whether CPython folds it back to
    the literal's constant."""

    def __init__(self, text: str, level: str) -> None:
        self.text, self.level = text, level


class UnfoldConstant(SiteChoice, Transform):
    """Write a literal as an expression of equal value that a person might write.

    Natural forms, used at every site that has one (``which="all"``, the default):

    * an int people write as arithmetic (:func:`natural_forms`): a power of two from 256 up
      as ``2 ** k`` (``1024`` -> ``2 ** 10``), a power of ten from 1000 up as ``10 ** k``, a
      product of time units (``3600`` -> ``60 * 60``, ``86400`` -> ``24 * 60 * 60``); no
      other number (no ``6 * 7`` for 42, ``38 * 50`` for 1900, ``10 ** 2`` for 100);
    * a string of one character repeated 3 or more times as a repetition (``'---'`` ->
      ``'-' * 3``), never where it needs parentheses (``'___'.join(xs)`` stays: no
      ``('_' * 3).join(xs)``);
    * an int from 2 up that is the length of a string literal it goes with, as
      ``len('...')`` (``len`` not rebound; see :func:`_measured_literal`): a slice bound
      or index after a test of that prefix or suffix (``if s.startswith('abc'): return
      s[len('abc'):]``, ``s[:-len('ing')]`` after ``s.endswith('ing')``), of a slice
      compared with it (``s[:len('Nuva')] != 'Nuva'``), or added to its position
      (``s.find('key=') + len('key=')``); never the length of a literal the number only
      happens to equal (no ``elif x > len('small')``); that literal is then left as it is;
    * an int or string equal to a module constant the program defines at its top
      (``WIDTH = 12``) and never rebinds, as that name, after the definition (this form
      is preferred; the definition itself stays a literal).

    Other numbers and strings have no such form.  A program with no natural site gets
    one literal (chosen with the rng) made a named module constant instead: ``LIMIT = 5`` is
    added after the module's docstring and imports and ``if len(w) > 5:`` becomes ``if
    len(w) > LIMIT:``; the name comes from the place (:func:`role_name`: ``LIMIT``,
    ``SEPARATOR``, ``START``/``STOP``, ``INITIAL_NAME`` for the first value of a local bound
    again later (never ``vowels = INITIAL_VOWELS``), ``DEFAULT_RESULT`` for the literal the
    last statement of a function returns -- never one returned early, ``if not text: return
    'error'`` ...; made fresh).
    Only a literal a person would name (:func:`nameable`: not -1, 0, 1, 2, an empty or
    blank string -- no ``STEP = 1``, ``FIRST = 0``, ``SEPARATOR = ''``) in a place that
    suggests a name, and not the value of a module or class variable (``COUNT = 3`` is
    named already).  The name replaces every use of that literal in the program (equal
    type and value; a read-only harness class keeps its literals), so it is named
    only when each use may be replaced (none in an f-string, pattern, ``is`` operand ...)
    and the name fits each use (the place of every use suggests the same name or none:
    no ``i.index(TARGET)`` beside ``return TARGET``), never beside another literal of the
    program in the same role (no ``OLD = '('`` beside ``.replace(')', ']')``), and only by a name the program spells
    in no case (no ``TARGET`` next to a parameter ``target``).  A program without such a
    literal is refused, and so is one that reads its globals by name (``globals``,
    ``vars``, ``__dict__``, ``setattr`` ...).

    Parentheses are added only where precedence needs them (``x / 3600`` -> ``x / (60 * 60)``,
    ``3600 .real`` -> ``(60 * 60).real``, ``-3600`` -> ``-(60 * 60)``; ``x * 3600`` -> ``x * 60 * 60``
    is not written: the right operand of ``*``, ``/``, ``//``, ``%`` keeps parentheses, and
    ``2 ** k`` is parenthesised under ``**``).  Pure syntax, no runtime types.  Left alone:
    floats, non-decimal ints (``0x1F``), anything inside f-strings (including format specs),
    implicitly concatenated strings (``'a' 'b'``), docstrings and other bare string
    statements, ``match`` patterns (which must be literals), annotations (their text may be
    observable), literal operands of ``is``/``is not`` (identity), string default values of
    parameters (identity), and code in functions using ``eval``/``exec``/``locals``/
    ``globals``/``vars``/``dir``.

    Options:
        which: ``"all"`` (default) rewrites every site with a natural form; ``"one"`` one
            of them chosen with the context's rng.  Either way, without natural sites one
            literal (with every use of it in its function) becomes a named constant.
    """

    name = "unfold-constant"
    family = "expressions"
    description = "Write a literal as an expression a person might: 3600 -> 60 * 60, 1024 -> 2 ** 10, 5 -> LIMIT."
    preconditions = ("int or str/bytes literal outside patterns, annotations, f-strings, docstrings",
                     "len() not rebound for len forms; a module constant never rebound; "
                     "no globals()/vars()/setattr... for a new constant; a new constant replaces every "
                     "use of its literal in the function")

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        index = FunctionIndex(ctx)
        finder = _UnfoldCandidates(index)
        module.visit(finder)
        if not finder.sites:
            why = summarise(finder.reasons) if finder.reasons else \
                "no int literal or string literal outside docstrings, patterns and annotations"
            raise NotApplicable(why)
        names = identifiers_in(module)
        builtins_ok = not hazard_identifiers(module, BUILTINS_HAZARDS, names=names) \
            and not rebindable_builtins(ctx, "len")
        constants, consts_end = _module_constants(module)
        natural: list[tuple[_Site, list[_Form]]] = []
        positions: dict = {}  # per function: the names a ``name = X.find('...')`` binds
        definitions = _definition_literals(module, constants)
        for site in finder.sites:
            if id(site.node) in definitions:
                continue
            forms = self._forms(site, constants, consts_end, builtins_ok, positions)
            if forms:
                natural.append((site, forms))
        # a literal a ``len(...)`` measures stays as it is: no ``s.index('-' * 2)`` ... ``len('--')``
        measured = {f.text[len("len("):-1] for _, forms in natural for f in forms if f.text.startswith("len(")}
        natural = [(s, f) for s, f in natural
                   if not (isinstance(s.node, cst.SimpleString) and s.node.value in measured)]
        # a repetition that needs parentheses reads as no person writes it, ``('_' * 3).join(xs)``
        # (CRUXEval sample_99, _393, _547): that string keeps its literal spelling at every
        # site, so that no line has both ``'---'.join(...)`` and ``+ '-' * 3``
        boxed = {s.node.value for s, forms in natural if isinstance(s.node, cst.SimpleString)
                 and any(f.level == "term" for f in forms) and _needs_parens("term", s.parent, s.node)}
        natural = [(s, f) for s, f in natural if not (isinstance(s.node, cst.SimpleString) and s.node.value in boxed)]
        # a site and the ``-`` around it are two candidates: keep the outer one when both have forms
        outer = {id(s.node.expression) for s, _ in natural if isinstance(s.node, cst.UnaryOperation)}
        natural = [(s, f) for s, f in natural if id(s.node) not in outer]
        replacements: dict[int, cst.BaseExpression] = {}
        if natural:
            for site, forms in self.choose(ctx, natural):
                form = ctx.rng.choice(forms)
                replacements[id(site.node)] = self._expression(site, form)
                bare = site.node.with_changes(lpar=[], rpar=[])
                ctx.record(site.node, f"{module.code_for_node(bare).strip()} -> {form.text}")
            chosen = [module_node for module_node in (s.node for s, _ in natural) if id(module_node) in replacements]
            return module.visit(ReplaceNodes(chosen, self._keep_parens(replacements)))
        return self._named_constant(module, ctx, finder, names)

    # -- natural forms -------------------------------------------------------------------
    @staticmethod
    def _forms(site: _Site, constants, consts_end: int, len_ok: bool, positions: dict) -> list[_Form]:
        value, node = site.value, site.node
        forms: list[_Form] = []
        key = (type(value), value)
        if key in constants and site.top_level >= consts_end:
            return [_Form(constants[key][0], "atom")]  # the program's own name for it
        if isinstance(node, cst.Integer) and type(value) is int and _decimal(node):
            measured = _measured_literal(site, positions) if len_ok else None
            if measured is not None:  # the length of the text it skips or compares: nothing else says more
                return [_Form(f"len({measured})", "atom")]
            forms += [_Form(text, level) for text, level in natural_forms(value)]
        elif isinstance(node, cst.SimpleString):
            rep = _repeat_form(value, node)
            if rep is not None:
                forms.append(_Form(rep, "term"))
        return forms

    @staticmethod
    def _expression(site: _Site, form: _Form) -> cst.BaseExpression:
        expr = cst.parse_expression(form.text)
        if _needs_parens(form.level, site.parent, site.node):
            expr = expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        return expr

    @staticmethod
    def _keep_parens(replacements: dict[int, cst.BaseExpression]):
        def unfold(original, updated):
            new = replacements[id(original)]
            if original.lpar:  # keep the literal's own parentheses around the new expression
                return new.with_changes(lpar=[*original.lpar, *new.lpar], rpar=[*new.rpar, *original.rpar])
            return new
        return unfold

    # -- the fallback: a named module constant -------------------------------------------
    def _named_constant(self, module: cst.Module, ctx: RewriteContext, finder: _UnfoldCandidates,
                        names) -> cst.Module:
        found = hazard_identifiers(module, GLOBALS_HAZARDS, names=names)
        if found:
            raise NotApplicable(f"no literal with a natural form, and the program reads globals by name "
                                f"({', '.join(found)}): no new constant")
        sites = finder.sites
        named = [(s, _use_role(s)) for s in sites]
        # ``-1`` is named as a whole: its ``1`` is not a site of its own
        whole = {id(s.node.expression) for s, _ in named if isinstance(s.node, cst.UnaryOperation)}
        named = [(s, n) for s, n in named if id(s.node) not in whole]
        # only a literal a person would name, in a place that suggests the name: no
        # ``STEP = 1``, ``SEPARATOR = ''``, ``FIRST = 0`` or ``DEFAULT_VALUE = 3``
        with_role = [(s, n) for s, n in named if n is not None and n.isidentifier() and nameable(s.value)
                     and not _already_named(s)]
        if not with_role:
            raise NotApplicable("no literal with a natural form, and none a person would make a named constant "
                                "(0, 1, -1, 2, empty or blank strings are written as they are; other literals "
                                "only where their place suggests a name)")
        # a name replaces the literal everywhere in the program (but in a read-only harness),
        # where every use fits the name (no ``i.index(TARGET) == 0`` next to
        # ``i.index('.')``, no ``return TARGET``; no ``KEY`` in one method next to the same
        # ``'start_time'`` in the others), and it is confusable with no name of the program
        # (no ``TARGET`` next to ``target``)
        taken = {n.lower() for n in names}
        whole_uses = []
        by_value: dict[tuple, list[_Site]] = {}
        for u in finder.every:
            by_value.setdefault((type(u.value), u.value), []).append(u)
        found_uses: dict[tuple, list[_Site] | None] = {}  # (type, value): its uses
        harness = {i for i, stmt in enumerate(module.body)
                   if isinstance(stmt, (cst.ClassDef, cst.FunctionDef)) and stmt.name.value in ctx.read_only}
        # the values each role has in the program (nameable ones: ``''.join`` stays as it is
        # next to a SEPARATOR): no ``OLD = '('`` beside ``.replace(')', ']')``
        role_values: dict[str, set[tuple]] = {}
        for u in finder.every:
            inner = isinstance(u.parent, cst.UnaryOperation) and u.parent.expression is u.node  # the 5 of -5
            if u.top_level not in harness and nameable(u.value) and not inner:
                r = _use_role(u)
                if r is not None:
                    role_values.setdefault(r, set()).add((type(u.value), u.value))
        for site, role in with_role:
            key = (type(site.value), site.value)
            if role_values.get(role, set()) - {key}:
                continue  # another literal plays the same role: name both or neither
            if key not in found_uses:
                found_uses[key] = _uses_in_program(by_value[key], harness)
            uses = found_uses[key]
            if uses is not None and role.lower() not in taken and all(_use_role(u) in (role, None) for u in uses):
                whole_uses.append((site, role, uses))
        if not whole_uses:
            raise NotApplicable("no literal with a natural form, and every literal a person would name is "
                                "used where the name would not fit (another role, beside another literal in the same role, a place that must keep the "
                                "literal, or a name the program spells already in some case)")
        site, role, uses = ctx.rng.choice(whole_uses)
        const = ctx.fresh_name(role)
        literal = module.code_for_node(site.node.with_changes(lpar=[], rpar=[])).strip()
        for use in uses:
            ctx.record(use.node, f"{literal} -> {const} (module constant {const} = {literal})")
        new = module.visit(ReplaceNodes([u.node for u in uses],
                                        lambda o, u: cst.Name(const, lpar=o.lpar, rpar=o.rpar)))
        return _insert_constant(new, f"{const} = {literal}")


def _use_role(use: _Site) -> str | None:
    """The name the place of ``use`` suggests (:func:`role_name`); for the ``5`` of ``-5``,
    the place of the ``-5`` (``s[-5:]`` is a start even where ``s[:5]`` is a stop).  A
    literal returned anywhere but by the last statement of its function's body is a special
    case's answer (``if not text: return 'error'``), not the result the function falls back
    to: no ``DEFAULT_RESULT`` (``None``)."""
    anc = use.ancestors
    if isinstance(use.node, cst.Integer) and isinstance(use.parent, cst.UnaryOperation) \
            and isinstance(use.parent.operator, cst.Minus):
        role = role_name(use.parent, -use.value, anc[-2] if len(anc) > 1 else None,
                         anc[-3] if len(anc) > 2 else None)
        anc = anc[:-1]
    else:
        role = role_name(use.node, use.value, use.parent, use.grandparent)
    if role == "DEFAULT_RESULT" and not _falls_back(anc):
        return None
    if isinstance(use.parent, cst.Assign) and not _rebound(use.parent, anc):
        return None  # ``vowels = 'aeiou'``: the local names it; no INITIAL_VOWELS
    return role


def _rebound(assign: cst.Assign, anc: tuple) -> bool:
    """Whether the name ``assign`` binds is bound again in its function (the literal is
    then its initial value: ``lowest = 100`` ... ``lowest = x``); ``False`` outside
    functions or for another target."""
    target = assign.targets[0].target if len(assign.targets) == 1 else None
    func = next((a for a in reversed(anc) if isinstance(a, cst.FunctionDef)), None)
    if not isinstance(target, cst.Name) or func is None:
        return False
    return bound_anywhere(func.body).get(target.value, 0) > 1


def _falls_back(anc: tuple) -> bool:
    """Whether the ``return`` ending ``anc`` (a literal's holders, the ``Return`` last) is
    the last statement of a function's own body: the result it falls back to."""
    if len(anc) < 4 or not isinstance(anc[-1], cst.Return):
        return False
    line, block, func = anc[-2], anc[-3], anc[-4]
    return isinstance(func, cst.FunctionDef) and isinstance(block, cst.IndentedBlock) and bool(block.body) \
        and block.body[-1] is line


def _uses_in_program(equal: list[_Site], harness: set[int]) -> list[_Site] | None:
    """The literals of ``equal`` (every literal of the program of one type and value), in
    source order, but for those in a read-only harness (the top-level statements of indices
    ``harness``, which keep their literals); ``None`` when one of them must stay a literal
    (f-string, pattern, annotation, ``is`` operand, ``eval`` scope...) or is the value of a
    module or class variable."""
    uses = [u for u in equal if u.top_level not in harness]
    if any(not u.touchable or _already_named(u) for u in uses):
        return None
    return uses


def _already_named(site: _Site) -> bool:
    """Whether the literal is the whole value of an assignment outside functions (``COUNT =
    3`` at module level, ``size = 64`` in a class body): it has its name already, and
    ``INITIAL_COUNT = 3`` / ``COUNT = INITIAL_COUNT`` names it twice."""
    parent = site.parent
    return not site.in_function and isinstance(parent, (cst.Assign, cst.AnnAssign)) and parent.value is site.node


def _insert_constant(module: cst.Module, assignment: str) -> cst.Module:
    """``module`` with the statement ``assignment`` after its docstring and leading imports,
    separated from what follows as PEP 8 asks (two blank lines before a ``def``/``class``)."""
    body = list(module.body)
    at = 0
    for i, stmt in enumerate(body):
        if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and (
                isinstance(stmt.body[0], (cst.Import, cst.ImportFrom)) or (
                i == 0 and isinstance(stmt.body[0], cst.Expr)
                and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString)))):
            at = i + 1
            continue
        break
    stmt = cst.parse_statement(assignment + "\n")
    if at > 0:
        stmt = stmt.with_changes(leading_lines=[cst.EmptyLine()])
    elif body:  # the constant comes first: the first statement's comments stay above it
        stmt = stmt.with_changes(leading_lines=body[0].leading_lines)
        body[0] = body[0].with_changes(leading_lines=[])
    if at < len(body):
        nxt = body[at]
        lines = list(nxt.leading_lines)
        blank = 0
        while blank < len(lines) and lines[blank].comment is None:
            blank += 1
        want = 2 if isinstance(nxt, (cst.FunctionDef, cst.ClassDef)) else 0
        if blank < want:
            body[at] = nxt.with_changes(leading_lines=[cst.EmptyLine()] * (want - blank) + lines)
    body.insert(at, stmt)
    return module.with_changes(body=body)
