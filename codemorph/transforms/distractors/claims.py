"""What the distractor transforms share: hazard word lists, false claims about code
(values, calls, subscripts, statements, loops), comment sites.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from typing import Iterable

import libcst as cst

from codemorph.engine import NotApplicable
from codemorph.engine.transform import identifiers_in
from codemorph.authoring.scopes import FunctionIndex
from codemorph.authoring.syntax import code_of

__all__ = [
    "SOURCE_HAZARDS", "DOC_HAZARDS", "CLAIM_BUILTINS", "snip", "one_line", "statement_claims", "header_claims",
    "CommentSites", "comment_text_ok", "states_output", "claimed_value", "make_comment", "dynamic_getattr",
    "check_hazards", "same_ast",
]


#: identifiers of code that can read a program's own source text (and so its comments)
SOURCE_HAZARDS: frozenset[str] = frozenset({
    "inspect", "getsource", "getsourcelines", "getcomments", "linecache", "__file__", "tokenize",
    "traceback", "findsource",
})

#: identifiers of code that can read docstrings
DOC_HAZARDS: frozenset[str] = frozenset({"__doc__", "help", "pydoc", "getdoc", "inspect", "doctest", "vars",
                                         "__dict__", "attrgetter", "__getattribute__"})

# PEP 263: a comment matching this on line 1 or 2 declares the source encoding
_CODING = re.compile(r"coding[:=]")

_MAX_SNIPPET = 48

#: builtins whose behaviour claims describe; when a program rebinds one, no claim names it
CLAIM_BUILTINS: tuple[str, ...] = ("len", "sorted", "reversed", "max", "min", "sum", "set", "range", "enumerate",
                                   "zip")


# whitespace a one-line text may hold: anything else (line breaks, form feeds, vertical tabs...)
# would break or alter the line it is written on
_NOT_INLINE = re.compile(r"[^\S \t]")

_LAYOUT = (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER)


def one_line(code: str) -> str | None:
    """``code`` (a Python expression's source text) on one line: each run of whitespace
    *between* tokens becomes one space, string literals keep every character as written.

    Returns ``None`` when that cannot be done without changing what the text says: a string
    literal spans lines or holds a line break, form feed or vertical tab; the code holds a
    comment; or it does not tokenize.
    """
    code = code.strip()
    lines = io.StringIO(code).readlines()
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    out: list[str] = []
    prev: tuple[int, int] | None = None
    for tok in tokens:
        if tok.type in _LAYOUT:
            continue
        if tok.type == tokenize.COMMENT or _NOT_INLINE.search(tok.string):
            return None
        if prev is not None:
            (r0, c0), (r1, c1) = prev, tok.start
            gap = lines[r0 - 1][c0:] + "".join(lines[r0:r1 - 1]) + lines[r1 - 1][:c1] if r1 > r0 \
                else lines[r0 - 1][c0:c1]
            if gap.replace("\\", " ").strip():
                return None
            if gap:
                out.append(" ")
        out.append(tok.string)
        prev = tok.end
    return "".join(out) or None


def snip(node: cst.CSTNode) -> str | None:
    """One-line source text of ``node`` for use inside a sentence (see :func:`one_line`:
    string literals exactly as written), or ``None`` when too long or not made."""
    text = one_line(code_of(node))
    if not text or len(text) > _MAX_SNIPPET:
        return None
    return text


def _int(node: cst.BaseExpression) -> int | None:
    """Value of an int literal (``3``, ``-3``), else ``None``."""
    if isinstance(node, cst.Integer):
        return int(ast.literal_eval(node.value))
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) \
            and isinstance(node.expression, cst.Integer):
        return -int(ast.literal_eval(node.expression.value))
    return None


def _str(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.SimpleString) and "b" not in node.prefix.lower():
        try:
            value = ast.literal_eval(node.value)
        except (ValueError, SyntaxError):
            return None
        return value if isinstance(value, str) else None
    return None


def _kwargs(call: cst.Call) -> dict[str, cst.BaseExpression]:
    return {a.keyword.value: a.value for a in call.args if a.keyword is not None}


def _arg_snip(node: cst.BaseExpression) -> str | None:
    """:func:`snip` of a call's argument as it reads on its own: a generator expression
    that shares the call's parentheses (``''.join(c for c in s)``) gets its own."""
    text = snip(node)
    if text is not None and isinstance(node, cst.GeneratorExp) and not node.lpar:
        text = f"({text})"
        if len(text) > _MAX_SNIPPET:
            return None
    return text


def _posargs(call: cst.Call) -> list[cst.BaseExpression] | None:
    """Positional arguments, or ``None`` when a ``*args``/``**kwargs`` is present."""
    out = []
    for a in call.args:
        if a.star:
            return None
        if a.keyword is None:
            out.append(a.value)
    return out


def _reverse_flag(call: cst.Call) -> bool | None:
    """``reverse=`` of a sort: False when absent, its literal value, or ``None`` if unknown."""
    kw = _kwargs(call)
    if "reverse" not in kw:
        return False
    v = kw["reverse"]
    if isinstance(v, cst.Name) and v.value in ("True", "False"):
        return v.value == "True"
    return None


def _literal(value: cst.BaseExpression) -> bool:
    """Whether ``value`` is a literal or a display of literals (``0``, ``-1``, ``'ab'``,
    ``True``, ``None``, ``[]``, ``{'a': (1, 2)}``): what ``ast.literal_eval`` reads."""
    try:
        ast.literal_eval(code_of(value).strip())
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def _value_claims(subject: str, value: cst.BaseExpression, shadowed: frozenset[str] = frozenset()) -> list[str]:
    """Wrong statements about what ``value`` evaluates to, with ``subject`` naming it
    (``"n"`` for an assignment, ``"the function returns"`` style handled by the caller)."""
    out: list[str] = []
    if _literal(value):
        # ``count = 0  # count is 1 here``, ``return True  # returns False``: the line shows
        # the value, so no person writes (or believes) such a claim
        return out
    if isinstance(value, cst.Call):
        out += _call_claims(subject, value, shadowed)
    elif isinstance(value, cst.Subscript):
        out += _subscript_claims(subject, value)
    elif isinstance(value, cst.BinaryOperation):
        a, b = snip(value.left), snip(value.right)
        if a and b:
            # ``return a + b  # returns a - b``, ``i = k - 1  # i is 1 - k``: the line's own
            # expression with its operator or operands changed is denied by the line itself
            # (and ``prefix - a_str`` is no operation at all); floor division read as rounding
            # up and ``%`` read as the quotient are slips a person makes
            op = type(value.operator)
            if op is cst.FloorDivide:
                out.append(f"{subject} is {a} / {b} rounded up")
            elif op is cst.Modulo and _str(value.left) is None:
                out.append(f"{subject} is the quotient of {a} by {b}")
    return out


# Each lie must be wrong on ordinary inputs, not only on rare ones.  Left out because they
# state the method's real result on most inputs (the row's among them, and no claim of
# ``misleading-comment`` is checked by execution): ``find``/``index`` as "the last match"
# (and ``rfind``/``rindex`` as the first) whenever there is at most one match; ``count`` as
# "True when it contains the value", equal (``True == 1``) whenever it occurs at most once;
# ``isdigit``/``isalpha`` as "contains at least one digit/letter" and ``isupper`` as "has
# no lower-case letter", wrong only on mixed strings or strings without cased letters.
_STR_METHOD_LIES = {
    "upper": "{s} is {x} in lower case",
    "lower": "{s} is {x} in upper case",
    "strip": "{s} is {x} with only its trailing whitespace removed",
    "lstrip": "{s} is {x} with its trailing whitespace removed",
    "rstrip": "{s} is {x} with its leading whitespace removed",
    "capitalize": "{s} is {x} with every word capitalised",
    "title": "{s} is {x} with only its first letter upper-cased",
    "swapcase": "{s} is {x} in upper case",
    "startswith": "{s} tells whether {x} ends with the given text",
    "endswith": "{s} tells whether {x} starts with the given text",
    "keys": "{s} holds the values of {x}",
    "values": "{s} holds the keys of {x}",
    "items": "{s} holds (value, key) pairs of {x}",
    "copy": "{s} is the very same object as {x}",
}


#: string methods whose lie can state the truth on some inputs (:func:`claimed_value`
#: checks the assignment claims; a returned value's claim is not made)
_COINCIDING_METHODS = frozenset({"upper", "lower", "swapcase", "strip", "lstrip", "rstrip", "capitalize", "title",
                                 "replace", "split"})


#: what each string-method lie says the value is, as an expression of the receiver ``{x}``
#: and the call's arguments ``{a0}``, ``{a1}`` (:func:`claimed_value`)
_STR_METHOD_CLAIMED = {
    "upper": "{x}.lower()", "lower": "{x}.upper()", "swapcase": "{x}.upper()", "strip": "{x}.rstrip()",
    "lstrip": "{x}.rstrip()", "rstrip": "{x}.lstrip()", "capitalize": "{x}.title()", "title": "{x}.capitalize()",
}


def claimed_value(stmt: cst.BaseSmallStatement, text: str) -> tuple[str, str] | None:
    """For a claim ``text`` made about the assignment ``stmt`` (``name = x.strip()`` with
    "name is x with only its trailing whitespace removed"), ``(name, expression)``: the
    expression computing the value the claim says ``name`` holds (``x.rstrip()``), for an
    execution check; ``None`` for other claims and for statements whose claimed value
    cannot be computed without effects: the receiver and arguments must be plain names
    other than ``name`` or literals (nothing is called but the string method itself).

    Covers the string-method lies that state the real value whenever the lie and the truth
    agree on the input: ``upper``/``lower``/``swapcase`` (no letters, or already in that
    case), ``strip``/``lstrip``/``rstrip`` (no whitespace at that end), ``capitalize``/
    ``title`` (one word), ``replace`` (at most one occurrence), ``split()`` (no space and no
    comma)."""
    if not (isinstance(stmt, cst.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0].target, cst.Name)):
        return None
    name = stmt.targets[0].target.value
    call = stmt.value
    if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)):
        return None
    receiver, meth = call.func.value, call.func.attr.value
    args = _posargs(call)
    if args is None or _kwargs(call) or not isinstance(receiver, cst.Name) or receiver.value == name:
        return None
    for a in args:
        if not (isinstance(a, cst.Name) and a.value != name) and _str(a) is None and _int(a) is None:
            return None
    x = receiver.value
    claims = statement_claims(stmt)
    if text not in claims:
        return None
    if meth in _STR_METHOD_CLAIMED and text == _STR_METHOD_LIES[meth].format(s=name, x=x):
        return name, _STR_METHOD_CLAIMED[meth].format(x=x)
    if meth == "replace" and len(args) == 2 and text.startswith(f"{name} is {x} with only the first "):
        return name, f"{x}.replace({code_of(args[0])}, {code_of(args[1])}, 1)"
    if meth == "split" and not args and text == f"{name} is {x} split at every comma":
        return name, f"{x}.split(',')"
    return None


def _call_claims(subject: str, call: cst.Call, shadowed: frozenset[str] = frozenset()) -> list[str]:
    out: list[str] = []
    args = _posargs(call)
    if args is None:
        return out
    func = call.func
    if isinstance(func, cst.Name) and len(args) == 1 and not call.args[0].keyword:
        if func.value in shadowed:  # a program's own ``sorted`` may well sort descending
            return out
        x = _arg_snip(args[0])
        if x is None:
            return out
        name = func.value
        if name == "len":
            # not "m is len(xs) - 1": the line says len(xs)
            out.append(f"{subject} is the last index of {x}")
        elif name == "sorted":
            rev = _reverse_flag(call)
            if rev is False:
                out.append(f"{subject} holds {x} sorted from largest to smallest")
            elif rev is True:
                out.append(f"{subject} holds {x} sorted from smallest to largest")
        elif name == "reversed":
            out.append(f"{subject} walks {x} in its original order")
        elif name == "max" and not _kwargs(call):
            out.append(f"{subject} is the smallest element of {x}")
        elif name == "min" and not _kwargs(call):
            out.append(f"{subject} is the largest element of {x}")
        elif name == "sum" and len(call.args) == 1:
            out.append(f"{subject} is the product of {x}")
        elif name == "set":
            out.append(f"{subject} keeps every duplicate element of {x}")
        return out
    if isinstance(func, cst.Attribute):
        obj = snip(func.value)
        meth = func.attr.value
        if obj is None:
            return out
        if meth == "copy" and (args or obj == subject):
            # not "d is the very same object as d" (``d = d.copy()``)
            pass
        elif meth in _STR_METHOD_LIES:
            out.append(_STR_METHOD_LIES[meth].format(s=subject, x=obj))
        elif meth == "split" and not args and not call.args:
            out.append(f"{subject} is {obj} split at every comma")
        elif meth == "replace" and len(args) == 2 and len(call.args) == 2:
            a = snip(args[0])
            if a:
                out.append(f"{subject} is {obj} with only the first {a} replaced")
        elif meth == "join" and len(args) == 1:
            sep = _str(func.value)
            items = _arg_snip(args[0])
            if items and sep is not None:
                other = "a space" if sep == "" else "no separator"
                out.append(f"{subject} is the items of {items} joined with {other}")
        elif meth == "pop" and not call.args:
            out.append(f"{subject} is the element at index 0 of {obj}")
        elif meth == "pop" and len(args) == 1 and _int(args[0]) == 0:
            out.append(f"{subject} is the element at index -1 of {obj}")
        elif meth == "get" and len(args) >= 1:
            k = snip(args[0])
            if k:
                # of the call, not of the variable: not "name raises KeyError when ..."
                out.append(f"raises KeyError when {k} is not a key of {obj}")
    return out


def _subscript_claims(subject: str, sub: cst.Subscript) -> list[str]:
    out: list[str] = []
    x = snip(sub.value)
    if x is None or len(sub.slice) != 1:
        return out
    sl = sub.slice[0].slice
    if isinstance(sl, cst.Index):
        k = _int(sl.value)
        if k == 0:
            out.append(f"{subject} is the last element of {x}")
        elif k == -1:
            out.append(f"{subject} is the first element of {x}")
        elif k is not None and k > 0:
            out.append(f"{subject} is element number {k} of {x}, counting from 1")
    elif isinstance(sl, cst.Slice):
        lo = None if sl.lower is None else _int(sl.lower)
        hi = None if sl.upper is None else _int(sl.upper)
        st = None if sl.step is None else _int(sl.step)
        if sl.lower is None and sl.upper is None and st == -1:
            out.append(f"{subject} is {x} unchanged")
        elif sl.step is None and sl.upper is None and lo == 1:
            out.append(f"{subject} is {x} without its last element")
        elif sl.step is None and sl.lower is None and hi == -1:
            out.append(f"{subject} is {x} without its first element")
        elif sl.step is None and sl.lower is None and hi is not None and hi > 0:
            out.append(f"{subject} holds the last {hi} elements of {x}")
    return out


# how a claim about a value ("@ is ...") reads as a claim about a return value
_RETURN_PHRASES = (("@ is ", "returns "), ("@ holds ", "returns "),
                   ("@ walks ", "returns an iterator that walks "), ("@ keeps ", "returns a collection that keeps "),
                   ("@ tells ", "tells "), ("raises ", "raises "))


def _dotted_name(node: cst.BaseExpression) -> bool:
    """Whether ``node`` is a plain name or an attribute of one (``xs``, ``self.items``)."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name)


def statement_claims(stmt: cst.BaseSmallStatement, shadowed: frozenset[str] = frozenset()) -> list[str]:
    """Wrong statements about one small statement (assignment, call, return...)."""
    out: list[str] = []
    if isinstance(stmt, cst.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0].target, cst.Name):
        out += _value_claims(stmt.targets[0].target.value, stmt.value, shadowed)
    elif isinstance(stmt, cst.AugAssign) and isinstance(stmt.target, cst.Name):
        # ``count += 1  # count goes down by 1``, ``k *= 3  # k is divided by 3``, ``s += 'ab'
        # # 'ab' is put in front of s``: the operator and the literal on the line contradict
        # such a claim, so a literal operand gets none; ``+=`` of a computed value read as ``=``
        # is a slip a person makes
        n = stmt.target.value
        v = snip(stmt.value)
        if isinstance(stmt.operator, cst.AddAssign) and v is not None and not _literal(stmt.value):
            out.append(f"{n} is overwritten with {v}")
    elif isinstance(stmt, cst.Expr) and isinstance(stmt.value, cst.Call) \
            and isinstance(stmt.value.func, cst.Attribute):
        call = stmt.value
        obj = snip(call.func.value)
        meth = call.func.attr.value
        args = _posargs(call)
        if obj is None or args is None:
            return out
        first = snip(args[0]) if args else None
        if meth == "append" and len(args) == 1 and first:
            # only of a list a person names (``xs``, ``self.items``): "w is inserted at the front
            # of groups.setdefault(len(w), [])" is not a claim anyone makes
            if _dotted_name(call.func.value):
                out.append(f"{first} is inserted at the front of {obj}")
        elif meth == "insert" and len(args) == 2 and _int(args[0]) == 0 and snip(args[1]):
            out.append(f"{snip(args[1])} is added at the end of {obj}")
        elif meth == "insert" and len(args) == 2 and first and snip(args[1]):
            out.append(f"{obj}[{first}] is replaced by {snip(args[1])}")
        elif meth == "pop" and not call.args:
            out.append(f"removes the element at index 0 of {obj}")
        elif meth == "pop" and len(args) == 1 and _int(args[0]) == 0:
            out.append(f"removes the element at index -1 of {obj}")
        elif meth == "remove" and len(args) == 1 and first:
            out.append(f"does nothing when {first} is not in {obj}")
        elif meth == "sort" and not args:
            rev = _reverse_flag(call)
            if rev is False and "key" not in _kwargs(call):
                out.append(f"sorts {obj} from largest to smallest")
            elif rev is True and "key" not in _kwargs(call):
                out.append(f"sorts {obj} from smallest to largest")
        elif meth == "reverse" and not call.args:
            out.append(f"{obj} is sorted here")
        elif meth == "extend" and len(args) == 1 and first:
            out.append(f"{first} is added to {obj} as one element")
        elif meth == "clear" and not call.args:
            out.append(f"removes the last element of {obj}")
        elif meth == "update" and len(args) == 1 and first:
            out.append(f"keys of {obj} that are not in {first} are dropped")
    elif isinstance(stmt, cst.Return) and stmt.value is not None:
        v = stmt.value
        if isinstance(v, cst.Call) and isinstance(v.func, cst.Attribute) \
                and v.func.attr.value in _COINCIDING_METHODS:
            # the lie can be the truth on the row's input (one word, one occurrence, no
            # comma...), and only an assignment's claim is checked by execution
            # (claimed_value): no claim about such a returned value
            return out
        for c in _value_claims("@", stmt.value, shadowed):
            for pattern, repl in _RETURN_PHRASES:
                if c.startswith(pattern):
                    c = repl + c[len(pattern):]
                    break
            else:
                continue
            out.append(c)
    return out


def _loop_claims(node: cst.For, shadowed: frozenset[str] = frozenset()) -> list[str]:
    out: list[str] = []
    target = snip(node.target)
    it = node.iter
    x = snip(it)
    if target is None or x is None:
        return out
    if isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and _posargs(it) is not None \
            and not _kwargs(it) and not node.asynchronous and it.func.value not in shadowed:
        name = it.func.value
        args = _posargs(it) or []
        snips = [snip(a) for a in args]
        if name == "range" and len(args) == 1 and snips[0]:
            return [f"{target} runs from 1 to {snips[0]}", f"{target} counts down from {snips[0]} to 1"]
        if name == "range" and len(args) == 2 and all(snips):
            return [f"{target} runs from {snips[0]} to {snips[1]} inclusive",
                    f"{target} counts down from {snips[1]} to {snips[0]}"]
        if name == "range" and len(args) == 3:
            # "i runs from -1 back to len(text)-1": a step turns any claim about the bounds
            # into a riddle (the stop is excluded, the start may be past it)
            return []
        if name == "reversed" and len(args) == 1 and snips[0]:
            return [f"walks {snips[0]} from its first element to its last"]
        if name == "enumerate" and len(args) == 1 and snips[0] and isinstance(node.target, cst.Tuple) \
                and node.target.elements:
            i = snip(node.target.elements[0].value)
            if i:
                return [f"{i} counts from 1", f"walks {snips[0]} from its last element to its first"]
        if name == "zip" and len(args) >= 2 and all(snips):
            return [f"runs until the longest of {', '.join(snips)} is exhausted"]
        if name == "sorted" and len(args) == 1 and snips[0]:
            return [f"visits {snips[0]} from largest to smallest"]
    if isinstance(it, cst.Call) and isinstance(it.func, cst.Attribute) and not it.args:
        obj = snip(it.func.value)
        meth = it.func.attr.value
        if obj and meth == "keys":
            return [f"walks the values of {obj}"]
        if obj and meth == "values":
            return [f"walks the keys of {obj}"]
        if obj and meth == "items":
            return [f"walks (value, key) pairs of {obj}"]
    if isinstance(it, cst.Tuple) and not it.lpar:
        x = f"({x})"  # ``for d in a, b, c:`` walks (a, b, c), not "a, b, c from its last element"
    return [f"walks {x} from its last element to its first", f"skips the first element of {x}"]


#: a comparison operator's negation as a person writes it (``x < 0`` -> ``x >= 0``): the
#: claim states the branch's condition wrongly, so what NaN or a user class would do with
#: the flipped operator does not matter
_NEGATED_OPERATORS = {"==": "!=", "!=": "==", "<": ">=", "<=": ">", ">": "<=", ">=": "<", "in": "not in",
                      "not in": "in", "is": "is not", "is not": "is"}


def _negated(test: cst.BaseExpression) -> str | None:
    """The negation of an ``if`` test as text: ``not x`` -> ``x``, a comparison of one
    operator with the operator flipped (``item not in seen`` -> ``item in seen``), else
    ``not t`` / ``not (t)``; ``None`` when the test has no short text (:func:`snip`)."""
    t = snip(test)
    if t is None:
        return None
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = snip(test.expression)
        return inner
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and not test.lpar:
        left, right = snip(test.left), snip(test.comparisons[0].comparator)
        op = _NEGATED_OPERATORS.get(" ".join(cst.Module([]).code_for_node(test.comparisons[0].operator).split()))
        if left and right and op:
            return f"{left} {op} {right}"
    return f"not {t}" if isinstance(test, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) else f"not ({t})"


def header_claims(node: cst.CSTNode, shadowed: frozenset[str] = frozenset()) -> list[str]:
    """False claims about a compound statement's header (``for``, ``while``, ``if``)."""
    if isinstance(node, cst.For):
        return _loop_claims(node, shadowed)
    if isinstance(node, cst.While):
        t = snip(node.test)
        # not "loops until True holds" (``while True:``)
        return [f"loops until {t} holds"] if t and not _literal(node.test) else []
    if isinstance(node, cst.If):
        neg = _negated(node.test)
        return [f"taken only when {neg}", f"skipped whenever {snip(node.test)}"] if neg else []
    return []


class CommentSites(cst.CSTVisitor):
    """Statements inside function bodies whose line has no comment yet, with the wrong
    claims available for each."""

    def __init__(self, index: FunctionIndex, shadowed: frozenset[str]) -> None:
        self.index = index
        self.shadowed = shadowed
        self.sites: list[tuple[cst.CSTNode, str, list[str]]] = []  # (node, "line"|"header"|"else", claims)
        self.dynamic = 0

    def _in_function(self, node: cst.CSTNode) -> bool:
        return self.index.enclosing_function(node) is not None

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        if node.trailing_whitespace.comment is not None or len(node.body) != 1 or not self._in_function(node):
            return
        if self.index.in_dynamic_scope(node):
            self.dynamic += 1
            return
        claims = [c for c in statement_claims(node.body[0], self.shadowed) if comment_text_ok(c)]
        if claims:
            self.sites.append((node, "line", claims))

    def _compound(self, node: cst.CSTNode) -> None:
        body = node.body
        if not isinstance(body, cst.IndentedBlock) or body.header.comment is not None \
                or not self._in_function(node):
            return
        if self.index.in_dynamic_scope(node):
            self.dynamic += 1
            return
        claims = [c for c in header_claims(node, self.shadowed) if comment_text_ok(c)]
        if claims:
            self.sites.append((node, "header", claims))
        if isinstance(node, cst.If) and isinstance(node.orelse, cst.Else) \
                and isinstance(node.orelse.body, cst.IndentedBlock) and node.orelse.body.header.comment is None:
            t = snip(node.test)
            if t and comment_text_ok(f"reached only when {t}"):
                self.sites.append((node.orelse, "header", [f"reached only when {t}"]))

    visit_For = visit_While = visit_If = _compound


def states_output(claim: str, outputs) -> bool:
    """Whether ``claim`` (``"returns <text>"``) states a literal equal (``==``, as CRUXEval's
    assertion compares) to the row's recorded output, the first of ``outputs`` (result
    literals; nothing is known to be stated when there is none or it is no literal).

    A guard: the catalogue makes no claim about a returned literal (``return True`` is not
    "returns False"), so none of its return claims states a literal today; a claim that
    did would be dropped when it states the row's output."""
    verb, _, rest = claim.partition(" ")
    if verb != "returns" or not outputs:
        return False
    try:
        stated, actual = ast.literal_eval(rest), ast.literal_eval(outputs[0])
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    try:
        return bool(stated == actual)
    except Exception:  # an odd comparison: treat the claim as possibly true
        return True


def comment_text_ok(text: str) -> bool:
    """Whether ``text`` can be written as a ``# text`` comment exactly as it is: one line
    (no whitespace but spaces and tabs), not empty, and never matching the PEP 263 encoding
    declaration pattern."""
    return bool(text.strip()) and not _NOT_INLINE.search(text) and not _CODING.search(text)


def make_comment(text: str) -> cst.Comment:
    """The comment ``# text``, with ``text`` exactly as given: nothing is collapsed or
    rewritten, so a value quoted in a claim reads as it was checked.

    Raises:
        ValueError: ``text`` fails :func:`comment_text_ok` (a line break or other
            non-space whitespace, or a PEP 263 encoding declaration).
    """
    if not comment_text_ok(text):
        raise ValueError(f"cannot write {text!r} as a one-line comment as it is")
    return cst.Comment("# " + text)


def dynamic_getattr(module: cst.Module) -> bool:
    """Whether the module calls ``getattr`` with an attribute name that is not a plain string
    literal (or with fewer than two positional arguments: ``getattr(*a)``)."""
    stack: list[cst.CSTNode] = [module]
    while stack:
        n = stack.pop()
        stack.extend(n.children)
        if isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value == "getattr":
            args = n.args
            if len(args) < 2 or args[1].keyword is not None or args[1].star or \
                    not isinstance(args[1].value, cst.SimpleString):
                return True
    return False


def check_hazards(module: cst.Module, hazards: Iterable[str], what: str) -> None:
    """Raise ``NotApplicable`` when ``module`` spells any of ``hazards`` (the program may
    ``what``)."""
    found = sorted(identifiers_in(module) & set(hazards))
    if found:
        raise NotApplicable(f"the program may {what} (it uses {', '.join(found)})")


def same_ast(old: str, new: str, positions: bool) -> None:
    """Raise ``NotApplicable`` unless ``old`` and ``new`` parse to the same AST (with
    line/column attributes when ``positions``)."""
    try:
        a = ast.dump(ast.parse(old), include_attributes=positions)
        b = ast.dump(ast.parse(new), include_attributes=positions)
    except SyntaxError as exc:
        raise NotApplicable(f"internal check failed: rewritten code does not parse ({exc.msg})") from None
    if a != b:
        raise NotApplicable("internal check failed: the rewrite would change the program's syntax tree")


# -- misleading-docstring -----------------------------------------------------------
