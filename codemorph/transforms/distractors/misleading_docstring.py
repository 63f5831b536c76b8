"""``misleading-docstring``: a docstring on the entry function that describes it wrongly.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping

import libcst as cst

from codemorph.engine import NotApplicable, RewriteContext, Transform
from codemorph.engine.transform import identifiers_in
from codemorph.authoring.hazards import STRICT_LINE_HAZARDS
from codemorph.authoring.scopes import FunctionIndex
from codemorph.transforms.distractors.claims import (
    CLAIM_BUILTINS, DOC_HAZARDS, MAX_CLAIM, PURE_METHODS, REACHED, Check, check_hazards, dynamic_getattr, header_lies,
    order_moot, statement_lies, states_output, quoted_test,
)
from codemorph.transforms.distractors.misleading_comment import checkable, claim_checks

__all__ = ["MisleadingDocstring"]


_WRONG_TYPE = {
    "str": "a list of strings", "list": "a string", "int": "a string of digits", "float": "an int",
    "dict": "a list of (key, value) pairs", "tuple": "a dict", "bool": "an int count", "set": "a sorted list",
}


def _subject(node: cst.CSTNode) -> str | None:
    """The variable a claim about ``node`` describes: the name an assignment or ``for`` binds,
    or the object whose method a call statement calls."""
    if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
        return node.targets[0].target.value
    if isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name):
        return node.target.value
    if isinstance(node, cst.For) and isinstance(node.target, cst.Name):
        return node.target.value
    if isinstance(node, cst.Expr) and isinstance(node.value, cst.Call) and isinstance(node.value.func, cst.Attribute) \
            and isinstance(node.value.func.value, cst.Name):  # xs.append(v), xs.reverse(): about xs
        return node.value.func.value.value
    return None


class _DocClaims(cst.CSTVisitor):
    """Claims about the statements of one function body (nested defs, lambdas and classes
    excluded); ``others`` pairs each claim with the variable it describes (or ``None``)."""

    def __init__(self, shadowed: frozenset[str]) -> None:
        self.shadowed = shadowed
        self.returns: list[str] = []
        self.others: list[tuple[str | None, str]] = []
        #: the statement each claim was made about (the first, when several) and its check
        self.lines: dict[str, tuple[cst.CSTNode, Check]] = {}

    def visit_FunctionDef(self, node) -> bool:
        return False

    def visit_ClassDef(self, node) -> bool:
        return False

    def visit_Lambda(self, node) -> bool:
        return False

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        if len(node.body) != 1:
            return  # a check goes before or after the line: one statement per line
        stmt = node.body[0]
        lies = [(c, k) for c, k in statement_lies(stmt, self.shadowed) if k is not None]
        if isinstance(stmt, cst.Return):
            self.returns.extend(c for c, _ in lies)
        else:
            self.others.extend((_subject(stmt), c) for c, _ in lies)
        for c, k in lies:
            self.lines.setdefault(c, (node, k))

    def visit_For(self, node: cst.For) -> None:
        if not isinstance(node.body, cst.IndentedBlock):
            return
        for c, k in header_lies(node, self.shadowed):
            if k is None:
                continue
            verb = c.split(" ", 1)[0]
            c = ("the loop " + c) if verb in ("walks", "skips", "visits", "runs") else ("in the loop, " + c)
            self.others.append((_subject(node), c))
            self.lines.setdefault(c, (node, k))

    def visit_While(self, node: cst.While) -> None:
        t = quoted_test(node.test)
        constant = isinstance(node.test, cst.Integer) or \
            isinstance(node.test, cst.Name) and node.test.value in ("True", "False")
        # (as long as a comment's "loops until t holds" may be: :data:`MAX_CLAIM`)
        if t and not constant and len(f"loops until {t} holds") <= MAX_CLAIM:
            # not "the loop stops as soon as True holds" (``while True:``); false wherever
            # the loop is reached (it stops when the test fails)
            c = f"the loop stops as soon as {t} holds"
            self.others.append((None, c))
            self.lines.setdefault(c, (node, Check("before", REACHED)))


def _loops(source: str, entry: str) -> int:
    """How many ``for`` and ``while`` statements the entry function ``entry`` of ``source``
    has (nested functions included)."""
    for stmt in ast.parse(source).body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == entry:
            return sum(isinstance(n, (ast.For, ast.AsyncFor, ast.While)) for n in ast.walk(stmt))
    return 0


def _change_sites(source: str, entry: str) -> tuple[dict[str, int], set[str]]:
    """For each name, how many places in the body of the entry function ``entry`` of
    ``source`` bind it (an assignment of anything but a literal, a loop target, ``del``, a
    nested function's parameter...) or may change the object it holds (a call of a method not in the checks'
    pure ones, an assignment to an item or an attribute of it), nested functions included;
    and the entry function's parameters."""
    counts: dict[str, int] = {}
    fn = None
    for stmt in ast.parse(source).body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == entry:
            fn = stmt
    if fn is None:
        return counts, set()

    def add(name: str) -> None:
        counts[name] = counts.get(name, 0) + 1

    a = fn.args
    params = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs + [x for x in (a.vararg, a.kwarg) if x is not None]}
    # ``count = 0``, ``out = []``: a literal equals no claimed value but by chance (and then
    # the check at the claim's line sees it), so an accumulator's start is no second binding
    literal: set[int] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign):
            try:
                ast.literal_eval(node.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                continue
            literal.update(id(t) for t in node.targets if isinstance(t, ast.Name))
    for node in ast.walk(fn):
        if node is fn or id(node) in literal:
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            add(node.id)
        elif isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, (ast.Store, ast.Del)) \
                and isinstance(node.value, ast.Name):
            add(node.value.id)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and node.func.attr not in PURE_METHODS:
            add(node.func.value.id)
        elif isinstance(node, ast.arg) and not any(node is p for p in a.posonlyargs + a.args + a.kwonlyargs) \
                and node is not a.vararg and node is not a.kwarg:
            add(node.arg)
    return counts, params


def _locals(source: str, entry: str) -> set[str]:
    """The names the entry function ``entry`` of ``source`` binds that are not its parameters
    (assignments, loop targets, ``with``/``except``/``import`` names, nested ``def``/``class``
    names; not a comprehension's own variables, which the quoted comprehension binds): what a
    caller never sees, so a summary line never names them."""
    fn = None
    for stmt in ast.parse(source).body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == entry:
            fn = stmt
    if fn is None:
        return set()
    a = fn.args
    params = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs + [x for x in (a.vararg, a.kwarg) if x is not None]}
    comp: set[int] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.comprehension):
            comp.update(id(n) for n in ast.walk(node.target))
    out: set[str] = set()
    for node in ast.walk(fn):
        if node is fn:
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)) and id(node) not in comp:
            out.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.add(node.name)
        elif isinstance(node, ast.alias):
            out.add((node.asname or node.name).split(".")[0])
    return out - params


def _names_any(text: str, names: set[str]) -> bool:
    """Whether ``text`` (a claim) spells any of ``names`` as a word."""
    return any(w in names for w in re.findall(r"[A-Za-z_]\w*", text))


#: what a docstring's summary calls a result of each type (``Return a list built from nums.``)
_RESULT_NOUN = {
    "list": "a list", "str": "a string", "int": "a number", "float": "a number", "dict": "a dict",
    "tuple": "a tuple", "set": "a set",
}
#: calls whose result type is known from the call alone (builtins the program does not rebind)
_CALL_TYPES = {"len": "int", "sorted": "list", "list": "list", "str": "str", "dict": "dict", "tuple": "tuple",
               "set": "set", "bool": "bool", "repr": "str", "chr": "str", "ord": "int", "int": "int"}
#: methods whose result type is known when the receiver is a ``str`` (or, for ``count``,
#: ``index``, a ``list``)
_STR_RESULTS = {
    "upper": "str", "lower": "str", "swapcase": "str", "strip": "str", "lstrip": "str", "rstrip": "str",
    "capitalize": "str", "title": "str", "casefold": "str", "replace": "str", "join": "str", "zfill": "str",
    "center": "str", "ljust": "str", "rjust": "str", "removeprefix": "str", "removesuffix": "str",
    "format": "str", "split": "list", "rsplit": "list", "splitlines": "list", "count": "int", "find": "int",
    "rfind": "int", "index": "int", "rindex": "int", "startswith": "bool", "endswith": "bool",
    "isdigit": "bool", "isalpha": "bool", "isnumeric": "bool", "isdecimal": "bool", "isupper": "bool",
    "islower": "bool", "isspace": "bool", "isalnum": "bool", "isidentifier": "bool", "istitle": "bool",
    "isascii": "bool", "partition": "tuple", "rpartition": "tuple",
}


def _result_type(node: ast.expr, types, shadowed: frozenset[str]) -> str | None:
    """The type name (``"list"``, ``"str"``...) of every value ``node`` (a returned
    expression of the entry function) can have, when it shows from the syntax or from the
    runtime observations ``types`` (``{local: [type names]}``); else ``None``."""
    if isinstance(node, ast.Constant):
        return None if node.value is None or isinstance(node.value, bytes) else type(node.value).__name__
    if isinstance(node, (ast.List, ast.ListComp)):
        return "list"
    if isinstance(node, (ast.Dict, ast.DictComp)):
        return "dict"
    if isinstance(node, ast.Tuple):
        return "tuple"
    if isinstance(node, ast.JoinedStr):
        return "str"
    if isinstance(node, ast.Compare) or isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return "bool"
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _result_type(node.operand, types, shadowed)
        return inner if inner in ("int", "float") else None
    if isinstance(node, ast.IfExp):
        body, orelse = _result_type(node.body, types, shadowed), _result_type(node.orelse, types, shadowed)
        return body if body == orelse else None
    if isinstance(node, ast.BoolOp):
        kinds = {_result_type(v, types, shadowed) for v in node.values}
        return "bool" if kinds == {"bool"} else None
    if isinstance(node, ast.Name):
        seen = types.get(node.id) if isinstance(types, Mapping) else None
        return seen[0] if seen and len(seen) == 1 else None
    if isinstance(node, ast.Call) and not node.keywords and not any(isinstance(a, ast.Starred) for a in node.args):
        f = node.func
        if isinstance(f, ast.Name) and f.id in _CALL_TYPES and f.id not in shadowed:
            return _CALL_TYPES[f.id]
        if isinstance(f, ast.Attribute) and f.attr in _STR_RESULTS:
            receiver = _result_type(f.value, types, shadowed)
            if receiver == "str" or receiver == "list" and f.attr in ("count", "index"):
                return _STR_RESULTS[f.attr]
        return None
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        receiver = _result_type(node.value, types, shadowed)
        return receiver if receiver in ("str", "list", "tuple") else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mult, ast.Sub, ast.FloorDiv, ast.Mod)):
        left, right = _result_type(node.left, types, shadowed), _result_type(node.right, types, shadowed)
        if left == right == "int" or left == right and left in ("str", "list") and isinstance(node.op, ast.Add):
            return left
        if isinstance(node.op, ast.Mult) and {left, right} in ({"str", "int"}, {"list", "int"}):
            return "str" if "str" in (left, right) else "list"  # ``text * n``
        return None
    return None


def _joined(names: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _purpose(source: str, entry: str, observations, shadowed: frozenset[str]) -> str | None:
    """A true summary line for the entry function ``entry`` of ``source``, as a person writes
    one, from what it returns and its parameters' names: ``Return a list built from nums.``,
    ``Return True or False depending on text.``, ``Update d in place and return it.``.
    ``None`` when its returns do not all give one type the syntax or the runtime
    ``observations`` show, or it has no parameter or more than three."""
    fn = None
    for stmt in ast.parse(source).body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == entry:
            fn = stmt
    if fn is None or isinstance(fn, ast.AsyncFunctionDef):
        return None
    a = fn.args
    if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs:
        return None
    params = [p.arg for p in a.args]
    if not 1 <= len(params) <= 3:
        return None
    observed = observations.get(entry) if isinstance(observations, Mapping) else None
    types = _local_types(fn, dict(observed) if isinstance(observed, Mapping) else {}, set(params), shadowed)
    returns: list[ast.Return] = []
    stack: list[ast.AST] = list(fn.body)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await)):
            return None
        if isinstance(n, ast.Return):
            returns.append(n)
        stack.extend(ast.iter_child_nodes(n))
    if not returns or any(r.value is None for r in returns):
        return None
    kinds = {_result_type(r.value, types, shadowed) for r in returns}
    if len(kinds) != 1:
        return None
    kind = kinds.pop()
    # a function that changes a parameter and returns it: "Update d in place and return it."
    names = {r.value.id for r in returns if isinstance(r.value, ast.Name)}
    if len(names) == 1 and len(returns) == 1 and (p := names.pop()) in params and kind in ("list", "dict") \
            and _changes(fn, p):
        return f"Update {p} in place and return it."
    if kind == "bool":
        return f"Return True or False depending on {_joined(params)}."
    if kind in ("int", "float"):
        return f"Return a number computed from {_joined(params)}."
    if kind in _RESULT_NOUN:
        return f"Return {_RESULT_NOUN[kind]} built from {_joined(params)}."
    return None


def _local_types(fn: ast.FunctionDef, types: dict, params: set[str], shadowed: frozenset[str]) -> dict:
    """``types`` (observed ``{name: [type names]}``) with, for each local neither observed nor
    a parameter that only plain assignments bind (``out = text.upper()``, no loop target,
    augmented assignment...), the one type all their values show (:func:`_result_type`)."""
    binds: dict[str, list[ast.expr | None]] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            binds.setdefault(node.targets[0].id, []).append(node.value)
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            binds.setdefault(node.id, []).append(None)  # (also each plain assignment's own target)
        elif isinstance(node, ast.arg):
            binds.setdefault(node.arg, []).append(None)
    out = dict(types)
    for _ in range(3):  # a value may read another such local
        for name, values in binds.items():
            if name in types or name in params or name in out:
                continue
            plain = [v for v in values if v is not None]
            # each plain assignment's target is also a ``Store`` name: one ``None`` each
            if len(values) != 2 * len(plain):
                continue
            kinds = {_result_type(v, out, shadowed) for v in plain}
            if len(kinds) == 1 and None not in kinds:
                out[name] = [kinds.pop()]
    return out


def _changes(fn: ast.FunctionDef, name: str) -> bool:
    """Whether ``fn`` calls a method of ``name`` that is not one of the checks' pure ones,
    or assigns or deletes an item of it (and never binds ``name`` itself)."""
    changed = False
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, (ast.Store, ast.Del)):
            return False
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
                and node.func.value.id == name and node.func.attr not in PURE_METHODS:
            changed = True
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del)) \
                and isinstance(node.value, ast.Name) and node.value.id == name:
            changed = True
    return changed


#: the verbs a claim about what a statement does starts with, as a summary line's imperative
_IMPERATIVE = {"sorts": "sort", "removes": "remove", "raises": "raise"}


def _sentence(text: str, keep: frozenset[str] = frozenset()) -> str:
    """``text`` as a sentence: capitalised (unless it starts with an identifier of the
    program, in ``keep``, whose case matters) and ending with a period."""
    text = text.strip()
    first = re.split(r"[^\w]", text, maxsplit=1)[0]
    if first not in keep:
        text = text[:1].upper() + text[1:]
    return text + ("" if text.endswith(".") else ".")


def _doc_safe(text: str) -> bool:
    return "\\" not in text and '"""' not in text and not text.endswith('"') and "\r" not in text


def _strip_docstring(fn: ast.FunctionDef) -> str | None:
    doc = ast.get_docstring(fn, clean=False)
    if doc is not None:
        fn.body = fn.body[1:]
    return doc


class MisleadingDocstring(Transform):
    """Give the entry function a docstring of plausible but wrong statements (replacing
    any existing docstring).

    The summary line states a wrong return value when one is known (``return sorted(xs)``
    -> "Return xs sorted from largest to smallest."; never of a ``return`` of a literal,
    "Return False." from ``return True``, which the code shows), else a wrong claim about
    what the function does to a value, in the imperative ("Sort xs from largest to
    smallest." from ``xs.sort()``), else a true line a person writes from what the function
    returns and its parameters' names ("Return a list built from nums.", "Return True or
    False depending on text.", "Update d in place and return it."; the result's one type
    from the syntax or the runtime observations); a function with none of these gets no
    docstring (never a line that fits any function, such as "Transform the arguments."),
    nor does one whose docstring would state no wrong claim.  It is followed by up to
    ``claims`` wrong
    statements about loops and assignments from the same catalogue as
    ``misleading-comment`` (none about an assignment of a literal: not "count is 1 here"
    for ``count = 0``); every claim is checked by execution on the row's input as there
    (:func:`~codemorph.transforms.distractors.misleading_comment.claim_check`: shown false
    at least once where its line runs; with ``ctx.keep_claims``, only those claims); when
    runtime observations are given, an ``Args:`` section
    describes each parameter with a type it was never observed to have.

    A docstring is observable only through ``__doc__`` (``help``, ``inspect.getdoc``,
    ``pydoc``, ``doctest``): the rewrite is refused when the program spells any of
    :data:`DOC_HAZARDS`.  Adding a docstring moves the lines below it, so it is also refused
    when the program may observe line numbers
    (:data:`~codemorph.authoring.STRICT_LINE_HAZARDS`); exception line numbers are not
    part of behaviour.  Checked after rewriting: the module's AST with the entry
    function's docstring removed equals the original's with it removed.

    Options:
        claims: at most this many statements after the summary line (int >= 0, default 2).
    """

    uses_runtime_types = True
    name = "misleading-docstring"
    family = "distractors"
    description = "Give the entry function a docstring of plausible but wrong statements."
    preconditions = ("the program never reads __doc__", "AST unchanged apart from the docstring")

    def __init__(self, claims: int = 2) -> None:
        super().__init__()
        if not isinstance(claims, int) or claims < 0:
            raise ValueError(f"claims must be an int >= 0, got {claims!r}")
        self.claims = claims

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        if "__doc__" in ctx.program.source:
            raise NotApplicable("the program mentions __doc__")
        check_hazards(module, DOC_HAZARDS, "read docstrings")
        check_hazards(module, STRICT_LINE_HAZARDS, "observe line numbers")
        if dynamic_getattr(module):
            # getattr(f, '__d' + 'oc__') reads the docstring without spelling __doc__
            raise NotApplicable("the program may read docstrings (getattr with a computed attribute name)")
        entry = None
        for stmt in module.body:
            if isinstance(stmt, cst.FunctionDef) and stmt.name.value == ctx.entry_point:
                entry = stmt
        if entry is None:
            raise NotApplicable(f"no top-level function {ctx.entry_point!r}")
        if not isinstance(entry.body, cst.IndentedBlock):
            raise NotApplicable("the entry function's body is on the line of its def")
        index = FunctionIndex(ctx)
        if entry in index.dynamic:
            raise NotApplicable("the entry function uses eval/exec/locals/globals/vars/dir")

        v = _DocClaims(frozenset(ctx.shadowed(*CLAIM_BUILTINS)))
        for stmt in entry.body.body:
            stmt.visit(v)
        # a return claim stating the row's output is not made (a guard: no claim of the
        # catalogue states a literal now, see ``states_output``)
        # with a row's input but no way to run a check, only claims false by construction
        can_check = checkable(module, ctx)

        def made(c: str) -> bool:
            # (``ctx.keep_claims``: a variant made again with only its claims shown false)
            return _doc_safe(c) and (can_check or not ctx.inputs or v.lines[c][1].by_construction) \
                and (ctx.keep_claims is None or c in ctx.keep_claims) and not order_moot(c, ctx.outputs)

        returns = [c for c in v.returns if made(c) and not states_output(c, ctx.outputs)]
        # a docstring names no line: "t is s in lower case." is read of ``t`` in the whole
        # function, and is true when a later ``t = t.lower()`` (or ``ys.reverse()`` after
        # ``ys = sorted(xs)``) makes it so, though the check, right after the claim's line,
        # shows it false; so a variable changed by another statement gets no claim
        # (a parameter counts as a binding for a claim about an assignment's value, not for
        # one about what a call statement does to it: ``arr.reverse()`` "leaves arr sorted from smallest to largest")
        sites, params = _change_sites(ctx.program.source, ctx.entry_point)

        def alone(who: str | None, c: str) -> bool:
            node = v.lines[c][0]
            if who is None or isinstance(node, cst.For):
                return True
            binds = isinstance(node, cst.SimpleStatementLine) and isinstance(node.body[0], (cst.Assign, cst.AugAssign))
            return sites.get(who, 0) + (binds and who in params) <= 1

        # "The loop walks text from its last element to its first." names no loop either: a
        # second loop (over ``reversed(text)``) can make it true of the function
        one_loop = _loops(ctx.program.source, ctx.entry_point) == 1
        others = [(who, c) for who, c in v.others if made(c) and alone(who, c)
                  and (one_loop or not isinstance(v.lines[c][0], (cst.For, cst.While)))]
        params = self._param_claims(entry, index, ctx)
        if not returns and not others and not params:
            raise NotApplicable("no wrong claim is known for the entry function's code")
        # a summary line speaks of the parameters and the result, never of a local a caller
        # never sees ("Return the items of new_text joined with a space."): a return claim
        # naming one is not made (nor kept as a line after it: it says what is returned)
        local = _locals(ctx.program.source, ctx.entry_point)
        returns = [c for c in returns if not _names_any(c, local)]
        if not returns and not others and not params:
            raise NotApplicable("no wrong claim is known for the entry function's code that names only "
                                "its parameters")
        rng = ctx.rng
        keep = identifiers_in(module)
        return_claims: list[str] = []  # the return claim the summary states
        if returns:
            claim = rng.choice(returns)
            return_claims.append(claim)
            verb, _, rest = claim.partition(" ")
            summary = _sentence({"returns": "return", "raises": "raise", "tells": "tell", "joins": "join"}
                                .get(verb, verb) + " " + rest)
        described: set[str] = set()
        summary_claims: list[str] = []  # the claim the summary states, when not a return claim
        # a summary says what the function does: a claim about what it does to a value
        # ("Sort xs from largest to smallest."), else a true line from what it returns and
        # its parameters ("Return a list built from nums."); never a claim about one of its
        # variables ("s is overwritten with t.") nor a line that fits any function ("Transform
        # the arguments.")
        verbs = [i for i, (_, c) in enumerate(others) if c.split(" ", 1)[0] in _IMPERATIVE
                 and not _names_any(c, local)]
        if not returns and verbs:
            who, claim = others.pop(verbs[rng.randrange(len(verbs))])
            verb, _, rest = claim.partition(" ")
            summary = _sentence(_IMPERATIVE[verb] + " " + rest)
            summary_claims.append(claim)
            if who:
                described.add(who)
        elif not returns:
            purpose = _purpose(ctx.program.source, ctx.entry_point, ctx.observations,
                               frozenset(ctx.shadowed(*_CALL_TYPES)))
            if purpose is None:
                raise NotApplicable("no summary line a person would write is known for the entry function "
                                    "(it states no wrong return value, and its returns show no one type)")
            summary = purpose
        extra: list[str] = []
        # at most one claim per variable: two wrong values of one variable contradict each other
        for who, claim in rng.sample(others, len(others)) if others else []:
            if len(extra) == self.claims:
                break
            if who is None or who not in described:
                extra.append(claim)
                if who:
                    described.add(who)

        if not return_claims and not summary_claims and not extra and not params:
            # a true summary alone misleads nobody (``claims=0`` and no claim fits the summary)
            raise NotApplicable("no wrong claim is known that a summary line can state, and claims=0 "
                                "allows none after it")
        indent = entry.body.indent if entry.body.indent is not None else module.default_indent
        lines = [summary]
        if extra or params:
            lines.append("")
            lines += [_sentence(c, keep) for c in extra]
            if params:
                if extra:
                    lines.append("")
                lines.append("Args:")
                lines += [f"{module.default_indent}{p}" for p in params]
        if len(lines) == 1:
            text = f'"""{lines[0]}"""'
        else:
            text = '"""' + lines[0] + "\n" + "".join((indent + ln if ln else "") + "\n" for ln in lines[1:]) \
                + indent + '"""'
        doc_stmt = cst.SimpleStatementLine([cst.Expr(cst.SimpleString(text))])

        body = list(entry.body.body)
        first = body[0] if body else None
        old_doc = (isinstance(first, cst.SimpleStatementLine) and len(first.body) == 1
                   and isinstance(first.body[0], cst.Expr)
                   and isinstance(first.body[0].value, (cst.SimpleString, cst.ConcatenatedString)))
        if old_doc:
            body[0] = first.with_changes(body=[cst.Expr(cst.SimpleString(text))])
            ctx.record(first, "docstring replaced: " + summary)
        else:
            body.insert(0, doc_stmt)
            ctx.record(entry, "docstring added: " + summary)
        if can_check:
            stated = return_claims + summary_claims + extra
            for claim in claim_checks(module, ctx, [(*v.lines[c], c) for c in stated]):
                ctx.claim(claim)
        new_entry = entry.with_changes(body=entry.body.with_changes(body=body))
        new = module.with_changes(body=[new_entry if s is entry else s for s in module.body])
        self._check(ctx.program.source, new.code, ctx.entry_point, text)
        return new

    def _param_claims(self, entry: cst.FunctionDef, index: FunctionIndex, ctx: RewriteContext) -> list[str]:
        qualname = index.qualnames.get(entry)
        out = []
        if qualname is None:
            return out
        for p in entry.params.params:
            if p.annotation is not None:  # the annotation states the type: a claim would contradict it
                continue
            types = index.observed(qualname, p.name.value)
            if types and len(types) == 1 and types[0] in _WRONG_TYPE:
                out.append(f"{p.name.value}: {_WRONG_TYPE[types[0]]}.")
        return out

    @staticmethod
    def _check(old: str, new: str, entry: str, doc_text: str) -> None:
        try:
            a, b = ast.parse(old), ast.parse(new)
        except SyntaxError as exc:
            raise NotApplicable(f"internal check failed: rewritten code does not parse ({exc.msg})") from None

        def entry_def(tree: ast.Module) -> ast.FunctionDef | None:
            found = None
            for s in tree.body:
                if isinstance(s, ast.FunctionDef) and s.name == entry:
                    found = s
            return found

        fa, fb = entry_def(a), entry_def(b)
        if fa is None or fb is None:
            raise NotApplicable("internal check failed: entry function not found after rewriting")
        _strip_docstring(fa)
        new_doc = _strip_docstring(fb)
        if new_doc is None or new_doc != ast.literal_eval(doc_text):
            raise NotApplicable("internal check failed: the new docstring is not the function's docstring")
        if ast.dump(a) != ast.dump(b):
            raise NotApplicable("internal check failed: the rewrite changes more than the docstring")
