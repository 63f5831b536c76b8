"""Dead code that reads like code: defensive checks over the program's own values, each
proved never to run for any input.

A person guards a value just computed with an ordinary check -- ``n = len(xs)`` /
``if n < 0: raise ValueError(...)``, ``out = list(text)`` /
``if not isinstance(out, list): ...``.  Such a check is false for every input when the
facts it tests follow from how the value was made:

* ``len(...)``, an ``enumerate(...)`` index, a ``range(n)`` counter and a non-negative int
  literal are exact ``int`` values ``>= 0`` (*length* facts: CPython's ``len`` returns an
  exact ``int`` or raises; ``enumerate`` without ``start`` counts from 0; ``range`` with one
  argument yields ``0 .. n-1``);
* a list / dict / set / tuple display or comprehension, ``list(...)``, ``sorted(...)``,
  ``dict(...)``, ``set(...)``, ``tuple(...)``, a string literal and ``'<sep>'.join(...)``
  produce an object of exactly that builtin type (``str(...)`` is left out: ``__str__`` may
  return a ``str`` subclass), and the object's type never changes afterwards (builtin
  types refuse ``__class__`` assignment);
* right after ``x = []`` (``{}``, ``()``, ``''``, ``set()``), ``x`` is empty: nothing has run
  since.

:func:`value_facts` finds these facts at a statement position: ``x`` is bound by the
nearest single assignment ``x = <expression>`` before the position in the same block (no
statement in between binds ``x`` anywhere, no ``del``/``global``/``nonlocal``/``except as``
of ``x`` in the function), or is the target of the ``for`` loop whose body holds the
position.  The builtins the expression calls must not be rebound by the program.  Each
fact also says whether the value is computed from the program's variables
(:attr:`ValueFact.computed`, :func:`reads_a_variable`) and whether the position directly
follows the assignment (:attr:`ValueFact.adjacent`): the natural transforms check only such
values, there (:func:`~codemorph.transforms.deadcode.guards.plausible`); a check of a
literal just assigned (``out = []`` / ``if out is None:``) or of a loop counter reads as
filler.

Each check of :data:`CHECKS` is proved false under its fact with z3 (:func:`prove_check`:
lengths are integers ``>= 0``, ``isinstance`` and ``is None`` are decided by the exact type),
once per process; an unproved check is never emitted.  Comparing an exact ``int`` and
``isinstance`` on an exact builtin type run no user code, and ``x is None`` none at all.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from typing import Sequence

import libcst as cst

from codemorph.authoring.syntax import reads_a_variable
from codemorph.authoring.z3terms import Untranslatable, Z3Terms, load_z3

__all__ = [
    "ValueFact", "ValueCheck", "CHECKS", "EMPTY_VALUES", "prove_check", "proved_checks", "value_facts",
    "expression_kind", "bound_names_in", "reads_a_variable",
]

#: the kinds of value a fact can establish (``length``: an exact int >= 0)
KINDS = ("length", "int", "list", "dict", "set", "tuple", "str")

#: an empty value of each kind, as code (for ``if x is None: x = []``)
EMPTY_VALUES = {"length": "0", "int": "0", "list": "[]", "dict": "{}", "set": "set()", "tuple": "()", "str": "''"}

_CLASSES = {"length": int, "int": int, "list": list, "dict": dict, "set": set, "tuple": tuple, "str": str}

#: builtin calls whose result has an exact type, and that type
_TYPED_CALLS = {"len": "length", "list": "list", "sorted": "list", "dict": "dict", "set": "set", "tuple": "tuple"}


@dataclass(frozen=True)
class ValueFact:
    """What is known about local ``name`` at a statement position.

    Attributes:
        name: the local variable.
        kind: one of :data:`KINDS` (``"length"``: an exact ``int`` that is ``>= 0``).
        empty: it holds an empty container or string (the position follows ``name = []``
            directly).
        loop_target: it is the target of the ``for`` loop whose body holds the position
            (``continue`` is then a natural body).
        builtins: builtin names the fact relies on (``len``, ``enumerate``, ``list``...).
        computed: the value is computed from the program's variables (its expression reads
            a name other than a builtin it calls: ``n = len(xs)``, ``out = list(text)``,
            ``n = int(input())``), not made of literals only (``out = []``, ``k = 5``,
            ``s = ' '``, ``xs = list()``).
        adjacent: the position directly follows the assignment (the check comes right
            after the computation it guards).
        display: the value is a display, a comprehension or a string literal (``items =
            a, b``, ``out = [c for c in s]``): its type is spelled by the assignment, so an
            ``isinstance`` check of it reads as filler.
        comprehension: the value is a comprehension (``[c for c in s if c.isalpha()]``);
            a display that is not one (``items = a, b``) gets no check at all from the
            natural transforms (:func:`~codemorph.transforms.deadcode.guards.plausible`).
    """

    name: str
    kind: str
    empty: bool = False
    loop_target: bool = False
    builtins: tuple[str, ...] = ()
    computed: bool = False
    adjacent: bool = False
    display: bool = False
    comprehension: bool = False


@dataclass(frozen=True)
class ValueCheck:
    """A defensive check over a value of kind ``kind``: ``template`` over ``{x}`` (and
    ``{T}``, the kind's builtin type name); ``builtins`` it calls."""

    kind: str
    template: str
    builtins: tuple[str, ...] = ()

    def render(self, var: str) -> str:
        """The condition text over ``var``."""
        return self.template.format(x=var, T=_type_name(self.kind))


def _type_name(kind: str) -> str:
    return "int" if kind == "length" else kind


#: The checks, per kind.  Each is false for every value of its kind (proved by
#: :func:`prove_check`).
CHECKS: tuple[ValueCheck, ...] = (
    ValueCheck("length", "{x} < 0"),
    *(ValueCheck(kind, "not isinstance({x}, {T})", ("isinstance", kind)) for kind in ("list", "dict", "set", "tuple",
                                                                                     "str", "int")),
    *(ValueCheck(kind, "{x} is None") for kind in ("list", "dict", "set", "tuple", "str", "int")),
)


class _CheckTerms(Z3Terms):
    """The kit's translator over one value ``var`` of a known kind: an integer term for
    ``length``/``int`` kinds; ``isinstance(var, T)`` and ``var is None`` decided from the
    kind's exact builtin type."""

    def __init__(self, z3, var: str, kind: str, sym) -> None:
        super().__init__(z3, division="literal", booleans=True, strings=False)
        self.var, self.kind, self.sym = var, kind, sym

    def name(self, node: cst.Name):
        if node.value == self.var and self.kind in ("length", "int"):
            return self.sym
        raise Untranslatable(f"name {node.value!r}")

    def call(self, node: cst.Call):
        func = node.func
        if isinstance(func, cst.Name) and func.value == "isinstance" and len(node.args) == 2 \
                and all(a.keyword is None and not a.star for a in node.args) \
                and isinstance(node.args[0].value, cst.Name) and node.args[0].value.value == self.var \
                and isinstance(node.args[1].value, cst.Name):
            cls = getattr(builtins, node.args[1].value.value, None)
            if not isinstance(cls, type):
                raise Untranslatable("isinstance of a non-type")
            return self.z3.BoolVal(issubclass(_CLASSES[self.kind], cls))
        raise Untranslatable("call outside the fragment")

    def type_test(self, left, right):
        if isinstance(left, cst.Name) and left.value == self.var and isinstance(right, cst.Name) \
                and right.value == "None":
            return self.z3.BoolVal(False)  # a value of a builtin type other than NoneType
        return None


def prove_check(check: ValueCheck) -> tuple[bool, str | None]:
    """Check with z3 that ``check`` is false for every value of its kind.

    ``length`` values are integers ``>= 0``, ``int`` values any integer; ``isinstance(x, T)``
    is ``issubclass(<the kind's class>, T)`` and ``x is None`` is false (the value's exact
    type is a builtin type other than ``NoneType``).

    Returns:
        ``(True, None)`` when z3 proves the condition unsatisfiable; ``(False, why)`` when
        it is satisfiable, undecided, or outside the translated fragment.
    """
    z3 = load_z3()
    try:
        tree = cst.parse_expression(check.render("x"))
        sym = z3.Int("x")
        cond = _CheckTerms(z3, "x", check.kind, sym).condition(tree)
    except (Untranslatable, cst.ParserSyntaxError, KeyError, ValueError) as exc:
        return False, f"cannot be translated to z3 ({exc})"
    solver = z3.Solver()
    solver.set("timeout", 5_000)
    if check.kind == "length":
        solver.add(sym >= 0)
    solver.add(cond)
    verdict = solver.check()
    if verdict == z3.unsat:
        return True, None
    if verdict == z3.sat:
        return False, f"true for x = {solver.model()[sym]}"
    return False, f"z3 could not decide ({solver.reason_unknown()})"


_PROOFS: dict[ValueCheck, tuple[bool, str | None]] = {}


def proved_checks(catalogue: Sequence[ValueCheck] | None = None) -> tuple[ValueCheck, ...]:
    """The checks of ``catalogue`` (default :data:`CHECKS`, read at call time) that
    :func:`prove_check` proves false, in order; proofs are cached per process."""
    if catalogue is None:
        catalogue = CHECKS
    out = []
    for check in catalogue:
        if check not in _PROOFS:
            _PROOFS[check] = prove_check(check)
        if _PROOFS[check][0]:
            out.append(check)
    return tuple(out)


# ---------------------------------------------------------------------------------------
# facts at a position


def expression_kind(node: cst.BaseExpression) -> tuple[str, bool, tuple[str, ...]] | None:
    """``(kind, empty, builtins called)`` of the value ``node`` evaluates to when that is
    known from its form alone (see the module docstring), else ``None``."""
    if isinstance(node, cst.Integer):
        value = int(node.evaluated_value)
        return ("length" if value >= 0 else "int"), False, ()
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) \
            and isinstance(node.expression, cst.Integer):
        return "int", False, ()
    if isinstance(node, (cst.List, cst.ListComp)):
        return "list", isinstance(node, cst.List) and not node.elements, ()
    if isinstance(node, (cst.Dict, cst.DictComp)):
        return "dict", isinstance(node, cst.Dict) and not node.elements, ()
    if isinstance(node, (cst.Set, cst.SetComp)):
        return "set", False, ()
    if isinstance(node, cst.Tuple):
        return "tuple", not node.elements, ()
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return ("str", value == "", ()) if isinstance(value, str) else None
    if isinstance(node, cst.ConcatenatedString):
        parts: list[cst.CSTNode] = []
        cur: cst.CSTNode = node
        while isinstance(cur, cst.ConcatenatedString):
            parts.append(cur.left)
            cur = cur.right
        parts.append(cur)
        if all(isinstance(p, cst.SimpleString) and isinstance(p.evaluated_value, str) for p in parts):
            return "str", False, ()
        return None
    if isinstance(node, cst.Call):
        func = node.func
        plain = all(a.keyword is None and not a.star for a in node.args)
        if isinstance(func, cst.Name) and func.value in _TYPED_CALLS:
            if func.value == "len" and not (len(node.args) == 1 and plain):
                return None
            kind = _TYPED_CALLS[func.value]
            empty = not node.args and kind in ("list", "dict", "set", "tuple")
            return kind, empty, (func.value,)
        if isinstance(func, cst.Attribute) and func.attr.value == "join" and isinstance(func.value, cst.SimpleString) \
                and isinstance(func.value.evaluated_value, str) and len(node.args) == 1 and plain:
            return "str", False, ()
    return None


#: expressions whose type their syntax spells (:attr:`ValueFact.display`)
_DISPLAYS = (cst.List, cst.ListComp, cst.Dict, cst.DictComp, cst.Set, cst.SetComp, cst.Tuple, cst.SimpleString,
             cst.ConcatenatedString)
_COMPREHENSIONS = (cst.ListComp, cst.DictComp, cst.SetComp)


class _Binds(cst.CSTVisitor):
    """Every name a piece of code may bind in the enclosing function's scope (conservative:
    assignment, augmented and annotated assignment, ``for``/``with``/``except`` targets,
    walrus, imports, ``def``/``class`` names, ``del``, ``match`` captures)."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def _targets(self, node: cst.CSTNode) -> None:
        if isinstance(node, cst.Name):
            self.names.add(node.value)
        elif isinstance(node, (cst.Tuple, cst.List)):
            for el in node.elements:
                self._targets(el.value)
        elif isinstance(node, cst.StarredElement):
            self._targets(node.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._targets(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._targets(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._targets(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._targets(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._targets(node.target)  # own scope, but counted: conservative

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._targets(node.asname.name)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._targets(node.name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._targets(node.target)

    def visit_Del(self, node: cst.Del) -> None:
        self._targets(node.target)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        if node.asname is None:
            name = node.name
            while isinstance(name, cst.Attribute):
                name = name.value
            self._targets(name)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.names.add(node.name.value)
        return True  # nested code may declare nonlocal: the caller's unbinders cover that

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.names.add(node.name.value)

    def visit_MatchAs(self, node: cst.MatchAs) -> None:
        if node.name is not None:
            self.names.add(node.name.value)

    def visit_MatchStar(self, node: cst.MatchStar) -> None:
        if node.name is not None:
            self.names.add(node.name.value)

    def visit_MatchMapping(self, node: cst.MatchMapping) -> None:
        if node.rest is not None:
            self.names.add(node.rest.value)


def bound_names_in(node: cst.CSTNode) -> set[str]:
    """Names that ``node`` (a statement or expression) may bind (see :class:`_Binds`)."""
    v = _Binds()
    node.visit(v)
    return v.names


def _loop_target_fact(loop: cst.For) -> ValueFact | None:
    """The fact about a ``for`` loop's counter: ``for i in range(n)`` and
    ``for i, x in enumerate(xs)`` give a length-kind ``i``."""
    it = loop.iter
    if loop.asynchronous is not None or not isinstance(it, cst.Call) or not isinstance(it.func, cst.Name):
        return None
    if not all(a.keyword is None and not a.star for a in it.args):
        return None
    name = it.func.value
    target = loop.target
    if name == "range" and len(it.args) == 1 and isinstance(target, cst.Name):
        return ValueFact(target.value, "length", loop_target=True, builtins=("range",))
    if name == "enumerate" and len(it.args) == 1 and isinstance(target, cst.Tuple) and len(target.elements) == 2 \
            and isinstance(target.elements[0].value, cst.Name) and isinstance(target.elements[1].value, cst.Name) \
            and target.elements[0].value.value != target.elements[1].value.value:
        return ValueFact(target.elements[0].value.value, "length", loop_target=True, builtins=("enumerate",))
    return None


def _int_call_kind(node: cst.BaseExpression) -> tuple[str, bool, tuple[str, ...]] | None:
    """``int(...)`` (the builtin, plain arguments): an exact ``int`` -- CPython's ``int()``
    copies an ``int`` subclass that ``__int__``/``__index__`` returns into an exact ``int``,
    or raises.  Used at a script's module level only (``n = int(input())``), so functions'
    sites, and the variants written for them, are those of the earlier releases."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "int" \
            and 1 <= len(node.args) <= 2 and all(a.keyword is None and not a.star for a in node.args):
        return "int", False, ("int",)
    return None




class _HasCall(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found = False

    def visit_Call(self, node: cst.Call) -> bool:
        self.found = True
        return False

    def visit_Import(self, node: cst.Import) -> bool:
        self.found = True  # runs the imported module's code
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        self.found = True
        return False


def has_call(node: cst.CSTNode) -> bool:
    """Whether ``node`` contains a call (anything spelled ``f(...)``, decorators included)
    or an import (which runs the imported module's code)."""
    v = _HasCall()
    node.visit(v)
    return v.found


def value_facts(suite: cst.BaseSuite | cst.Module, index: int, unbinders: set[str], loop: cst.For | None = None,
                no_calls: bool = False) -> list[ValueFact]:
    """The facts known before statement ``index`` of ``suite`` (see the module docstring).

    Args:
        suite: a block of the function (an ``IndentedBlock``; other suites give none), or
            with ``no_calls`` a script's module body.
        index: the position (0 .. ``len(suite.body)``).
        unbinders: names the function may ``del``, catch with ``except as`` or declare
            ``global``/``nonlocal`` (:class:`~codemorph.authoring.FunctionFacts`); never used.
        loop: the ``for`` statement whose body ``suite`` is, if any.
        no_calls: module scope: no statement between the binding and the position may
            contain a call (a called function could rebind a global); ``int(...)`` values
            count too (kind ``int``).

    Returns:
        one fact per name, nearest assignment first, then the loop counter.  The caller
        checks that the builtins each fact relies on are not rebound.
    """
    if not isinstance(suite, cst.IndentedBlock) and not (no_calls and isinstance(suite, cst.Module)):
        return []
    stmts = list(suite.body)[:index]
    blocked: set[str] = set(unbinders)
    out: list[ValueFact] = []
    for j in range(len(stmts) - 1, -1, -1):
        stmt = stmts[j]
        if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Assign) \
                and len(stmt.body[0].targets) == 1 and isinstance(stmt.body[0].targets[0].target, cst.Name):
            assign = stmt.body[0]
            name = assign.targets[0].target.value
            if name not in blocked and not (bound_names_in(assign.value) & {name}):
                kind = expression_kind(assign.value) or (_int_call_kind(assign.value) if no_calls else None)
                if kind is not None:
                    adjacent = j == len(stmts) - 1
                    out.append(ValueFact(name, kind[0], empty=kind[1] and adjacent, builtins=kind[2],
                                         computed=reads_a_variable(assign.value), adjacent=adjacent,
                                         display=isinstance(assign.value, _DISPLAYS),
                                         comprehension=isinstance(assign.value, _COMPREHENSIONS)))
        blocked |= bound_names_in(stmt)
        if no_calls and has_call(stmt):
            return out  # nothing bound before a call is known after it
    if loop is not None and loop.body is suite:
        fact = _loop_target_fact(loop)
        if fact is not None and fact.name not in blocked:
            out.append(fact)
    return out
