"""What the distractor transforms share: hazard word lists, false claims about code
(values, calls, subscripts, statements, loops), comment sites.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass, field
from typing import Iterable

import libcst as cst

from codemorph.engine import NotApplicable
from codemorph.engine.transform import identifiers_in
from codemorph.authoring.scopes import FunctionIndex
from codemorph.authoring.syntax import code_of

__all__ = [
    "SOURCE_HAZARDS", "DOC_HAZARDS", "CLAIM_BUILTINS", "snip", "one_line", "statement_claims", "header_claims",
    "statement_lies", "header_lies", "else_lie", "Check", "Lie", "REACHED", "CHECK_PREFIX",
    "CommentSites", "comment_text_ok", "states_output", "make_comment", "dynamic_getattr",
    "check_hazards", "same_ast", "PURE_METHODS", "order_moot", "bare", "quoted_test", "MAX_CLAIM",
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


# -- how execution shows a claim false --------------------------------------------------

#: names the check of a claim adds to a probe program (:class:`Check`); a program that spells
#: any identifier starting with this prefix gets no checked claim
CHECK_PREFIX = "_codemorph"
#: the ``builtins`` module in a check (the program may rebind ``list``, ``len``...)
_B = "_codemorph_b"
#: a check's list of a collection's elements, raising for anything else (an iterator would be
#: consumed by the check)
_ITEMS = "_codemorph_items"
#: a check's product of a collection's elements
_PROD = "_codemorph_prod"
#: a check's guard: none of the values it reads again is an iterator (evaluating it again would
#: consume it, and a second evaluation would see another value)
_PLAIN = "_codemorph_plain"
#: the test of a claim that is false wherever its line runs (by construction)
REACHED = "True"


@dataclass(frozen=True)
class Check:
    """How an execution shows a claim false: ``test``, a Python expression evaluated in the
    scope of the line the claim is about, is true when this run of the line shows the claim
    false; :data:`REACHED` (``"True"``) for a claim false by construction, which only has
    to be reached.

    Attributes:
        where: ``"before"`` (evaluated right before the statement runs), ``"after"`` (right
            after it, for an assignment or a call statement), ``"body"`` (at the start of
            each run of the compound statement's body, or of the ``else`` body for an
            ``Else`` node) or ``"branches"`` (at the start of an ``if``'s body and of its
            ``else`` body: wherever the ``if`` goes).
        test: the expression (source text); it uses the builtins through
            ``_codemorph_b`` and the helpers ``_codemorph_items``/``_codemorph_prod`` of
            the probe program (:func:`~codemorph.transforms.distractors.misleading_comment.claim_check`),
            and starts with ``_codemorph_plain(...)`` over the values it reads again (none
            may be an iterator, which a second evaluation would consume).
    """

    where: str
    test: str
    #: the statement ``where`` refers to when it is not the one the claim is written on (an
    #: ``else`` claim checked at its ``if``)
    anchor: cst.CSTNode | None = field(default=None, compare=False)

    @property
    def by_construction(self) -> bool:
        """Whether the claim is false wherever its line runs (only reaching is checked)."""
        return self.test == REACHED


#: a claim's text with its :class:`Check`, or ``None`` when no execution can show it false
#: and it is not false by construction (such a claim is never made)
Lie = tuple[str, "Check | None"]

#: builtins a check may evaluate again: pure on the builtin types CRUXEval programs use
_PURE_CALLS = frozenset({"len", "sorted", "reversed", "max", "min", "sum", "set", "list", "tuple", "str", "int",
                         "abs", "bool", "range", "enumerate", "zip", "dict", "float", "round", "ord", "chr",
                         "frozenset", "repr"})
#: methods a check may call again (of strings, lists, dicts: none changes its receiver)
PURE_METHODS = frozenset({
    "upper", "lower", "swapcase", "strip", "lstrip", "rstrip", "capitalize", "title", "casefold", "startswith",
    "endswith", "keys", "values", "items", "copy", "split", "rsplit", "splitlines", "replace", "join", "count",
    "find", "rfind", "index", "rindex", "isdigit", "isalpha", "isnumeric", "isdecimal", "isupper", "islower",
    "isspace", "isalnum", "isidentifier", "istitle", "isascii", "get", "zfill", "center", "ljust", "rjust",
    "partition", "rpartition", "removeprefix", "removesuffix", "format",
})
_IMPURE_NODES = (cst.Lambda, cst.GeneratorExp, cst.ListComp, cst.SetComp, cst.DictComp, cst.NamedExpr, cst.Await,
                 cst.Yield, cst.FormattedString, cst.StarredElement, cst.StarredDictElement)


def _pure(node: cst.CSTNode, shadowed: frozenset[str]) -> bool:
    """Whether evaluating ``node`` again in a check changes nothing: names, literals,
    operators, subscripts, attributes and calls of :data:`_PURE_CALLS` (not rebound by the
    program) and :data:`PURE_METHODS` only."""
    stack: list[cst.CSTNode] = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, _IMPURE_NODES):
            return False
        if isinstance(n, cst.Call):
            f = n.func
            if isinstance(f, cst.Name):
                if f.value not in _PURE_CALLS or f.value in shadowed:
                    return False
            elif isinstance(f, cst.Attribute):
                if f.attr.value not in PURE_METHODS:
                    return False
                stack.append(f.value)
            else:
                return False
            for a in n.args:
                if a.star:
                    return False
                stack.append(a.value)
            continue
        stack.extend(n.children)
    return True


def _names(node: cst.CSTNode) -> set[str]:
    out: set[str] = set()
    stack: list[cst.CSTNode] = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Name):
            out.add(n.value)
        stack.extend(n.children)
    return out


def _atoms(node: cst.CSTNode) -> list[str]:
    """The names and dotted names (``xs``, ``self.items``) whose values ``node`` reads, as
    code: not a called builtin's name, nor a called method's attribute."""
    out: list[str] = []
    stack: list[cst.CSTNode] = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Call):
            if isinstance(n.func, cst.Attribute):
                stack.append(n.func.value)
            elif not isinstance(n.func, cst.Name):
                stack.append(n.func)
            stack.extend(a.value for a in n.args)
            continue
        if isinstance(n, (cst.Name, cst.Attribute)) and _dotted_name(n):
            if not (isinstance(n, cst.Name) and n.value in ("True", "False", "None")):
                out.append(code_of(n).strip())
            continue
        stack.extend(n.children)
    return out


class _Ctx:
    """What the checks of one statement's claims may use: ``v``, the code of the value a
    claim is about (the assigned name after an assignment, the returned expression before a
    ``return`` when it is pure, else ``None``), and :meth:`expr`, the code of a
    sub-expression a check may evaluate again (pure, and not reading ``target``, the name
    the statement rebinds, when checked after it).  Every value a check reads again is
    guarded: the test runs only when none of them is an iterator (:data:`_PLAIN`)."""

    def __init__(self, v: str | None, target: str | None, shadowed: frozenset[str], where: str) -> None:
        self.v, self.target, self.shadowed, self.where = v, target, shadowed, where
        self.atoms: list[str] = [v] if v is not None and v.isidentifier() else []

    def expr(self, node: cst.BaseExpression) -> str | None:
        if not _pure(node, self.shadowed) or (self.target is not None and self.target in _names(node)):
            return None
        for a in _atoms(node):
            if a not in self.atoms:
                self.atoms.append(a)
        return "(" + code_of(node).strip() + ")"

    def check(self, test: str | None, where: str | None = None) -> Check | None:
        if test is None:
            return None
        if test != REACHED and self.atoms:
            test = f"{_PLAIN}({', '.join(self.atoms)}) and {test}"
        return Check(where or self.where, test)


def _palindrome_test(x: str | None) -> str | None:
    """The test showing "walks x from its last element to its first" (or "in its original
    order" of ``reversed(x)``) false: x is a collection that is no palindrome."""
    return None if x is None else f"{_ITEMS}({x}) != {_ITEMS}({x})[::-1]"


def _value_claims(subject: str, value: cst.BaseExpression, shadowed: frozenset[str], c: _Ctx) -> list[Lie]:
    """Wrong statements about what ``value`` evaluates to, with ``subject`` naming it
    (``"n"`` for an assignment, ``"@"`` for a return, phrased by the caller), each with
    its check (``c``)."""
    out: list[Lie] = []
    if _literal(value):
        # ``count = 0  # count is 1 here``, ``return True  # returns False``: the line shows
        # the value, so no person writes (or believes) such a claim
        return out
    v = c.v
    if isinstance(value, cst.Call):
        out += _call_claims(subject, value, shadowed, c)
    elif isinstance(value, cst.Subscript):
        out += _subscript_claims(subject, value, c)
    elif isinstance(value, cst.BinaryOperation):
        a, b = snip(value.left), snip(value.right)
        ea, eb = c.expr(value.left), c.expr(value.right)
        if a and b:
            # ``return a + b  # returns a - b``, ``i = k - 1  # i is 1 - k``: the line's own
            # expression with its operator or operands changed is denied by the line itself
            # (and ``prefix - a_str`` is no operation at all); floor division read as rounding
            # up and ``%`` read as the quotient are slips a person makes
            op = type(value.operator)
            ok = v is not None and ea is not None and eb is not None
            if op is cst.FloorDivide:
                out.append((f"{subject} is {a} / {b} rounded up",
                            c.check(f"{v} != -(-{ea} // {eb})" if ok else None)))
            elif op is cst.Modulo and _str(value.left) is None:
                out.append((f"{subject} is the quotient of {a} by {b}", c.check(f"{v} != {ea} // {eb}" if ok else None)))
    return out


# Each lie must be wrong on ordinary inputs, not only on rare ones.  Left out because they
# state the method's real result on most inputs: ``find``/``index`` as "the last match"
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

#: what each string-method lie says the value is, as an expression of the receiver ``{x}``
#: (its check: the value differs from it)
_STR_METHOD_CLAIMED = {
    "upper": "{x}.lower()", "lower": "{x}.upper()", "swapcase": "{x}.upper()", "strip": "{x}.rstrip()",
    "lstrip": "{x}.rstrip()", "rstrip": "{x}.lstrip()", "capitalize": "{x}.title()", "title": "{x}.capitalize()",
    "keys": _B + ".list({x}.values())", "values": _B + ".list({x}.keys())",
    "items": "[(_codemorph_v, _codemorph_k) for _codemorph_k, _codemorph_v in {x}.items()]",
}


def _call_claims(subject: str, call: cst.Call, shadowed: frozenset[str], c: _Ctx) -> list[Lie]:
    out: list[Lie] = []
    args = _posargs(call)
    if args is None:
        return out
    func = call.func
    v = c.v
    if isinstance(func, cst.Name) and len(args) == 1 and not call.args[0].keyword:
        if func.value in shadowed:  # a program's own ``sorted`` may well sort descending
            return out
        x = _arg_snip(args[0])
        if x is None:
            return out
        ex = c.expr(args[0])
        name = func.value
        if name == "len":
            # not "m is len(xs) - 1": the line says len(xs); never the last index, by construction
            out.append((f"{subject} is the last index of {x}", c.check(REACHED)))
        elif name == "sorted" and "key" not in _kwargs(call):
            # true of a list of equal elements (or of one element, or none)
            rev = _reverse_flag(call)
            test = None if v is None else f"{v} != {v}[::-1]"
            if rev is False:
                out.append((f"{subject} holds {x} sorted from largest to smallest", c.check(test)))
            elif rev is True:
                out.append((f"{subject} holds {x} sorted from smallest to largest", c.check(test)))
        elif name == "reversed":
            out.append((f"{subject} walks {x} in its original order", c.check(_palindrome_test(ex))))
        elif name in ("max", "min") and not _kwargs(call):
            other = "min" if name == "max" else "max"
            test = None if v is None or ex is None else f"{v} != {_B}.{other}({_ITEMS}({ex}))"
            word = "smallest" if name == "max" else "largest"
            out.append((f"{subject} is the {word} element of {x}", c.check(test)))
        elif name == "sum" and len(call.args) == 1:
            test = None if v is None or ex is None else f"{v} != {_PROD}({ex})"
            out.append((f"{subject} is the product of {x}", c.check(test)))
        elif name == "set":
            test = None if v is None or ex is None else f"{_B}.len({v}) != {_B}.len({_ITEMS}({ex}))"
            out.append((f"{subject} keeps every duplicate element of {x}", c.check(test)))
        return out
    if isinstance(func, cst.Attribute):
        obj = snip(func.value)
        meth = func.attr.value
        if obj is None:
            return out
        ex = c.expr(func.value)
        exargs = [c.expr(a) for a in args]
        if call.args and any(a.keyword is not None for a in call.args):
            exargs = [None]
        plain = ex is not None and all(e is not None for e in exargs)
        if meth == "copy":
            # not "d is the very same object as d" (``d = d.copy()``); a new object, except
            # ``frozenset.copy()``, which returns the frozenset itself: checked by identity
            if not args and obj != subject:
                test = None if v is None or ex is None else f"{v} is not {ex}"
                out.append((_STR_METHOD_LIES[meth].format(s=subject, x=obj), c.check(test)))
        elif meth in _STR_METHOD_CLAIMED and not args:
            # a dict view never equals a list: compare the list it walks
            value = f"{_B}.list({v})" if meth in ("keys", "values", "items") else v
            test = None if v is None or not plain else f"{value} != " + _STR_METHOD_CLAIMED[meth].format(x=ex)
            out.append((_STR_METHOD_LIES[meth].format(s=subject, x=obj), c.check(test)))
        elif meth in ("startswith", "endswith") and args:
            other = "endswith" if meth == "startswith" else "startswith"
            test = None if v is None or not plain else f"{v} != {ex}.{other}({', '.join(exargs)})"
            out.append((_STR_METHOD_LIES[meth].format(s=subject, x=obj), c.check(test)))
        elif meth == "split" and not call.args:
            test = None if v is None or ex is None else f"{v} != {ex}.split(',')"
            out.append((f"{subject} is {obj} split at every comma", c.check(test)))
        elif meth == "replace" and len(args) == 2 and len(call.args) == 2:
            a = snip(args[0])
            if a:
                test = None if v is None or not plain else f"{v} != {ex}.replace({exargs[0]}, {exargs[1]}, 1)"
                out.append((f"{subject} is {obj} with only the first {a} replaced", c.check(test)))
        elif meth == "join" and len(args) == 1:
            sep = _str(func.value)
            items = _arg_snip(args[0])
            if items and sep is not None:
                other = "a space" if sep == "" else "no separator"
                # true of one item (or none)
                test = None if v is None or not plain else f"{v} != {' ' if sep == '' else ''!r}.join({exargs[0]})"
                out.append((f"{subject} is the items of {items} joined with {other}", c.check(test)))
        elif meth == "pop" and (not call.args or len(args) == 1 and _int(args[0]) == 0):
            # true when the first and the last element are equal (or there is one)
            where = "element at index 0" if not call.args else "element at index -1"
            if c.where == "after" and v is not None and ex is not None:
                test = f"{_B}.type({ex}) is {_B}.list and {_B}.len({ex}) > 0 and {v} != {ex}[{'0' if not call.args else '-1'}]"
            elif c.where == "before" and ex is not None:
                test = f"{_B}.type({ex}) is {_B}.list and {ex}[0] != {ex}[-1]"
            else:
                test = None
            out.append((f"{subject} is the {where} of {obj}", c.check(test)))
        elif meth == "get" and len(args) >= 1:
            k = snip(args[0])
            if k:
                # of the call, not of the variable: not "name raises KeyError when ..."
                out.append((f"raises KeyError when {k} is not a key of {obj}", c.check(REACHED)))
    return out


def _subscript_claims(subject: str, sub: cst.Subscript, c: _Ctx) -> list[Lie]:
    out: list[Lie] = []
    x = snip(sub.value)
    if x is None or len(sub.slice) != 1:
        return out
    ex, v = c.expr(sub.value), c.v

    def lie(text: str, claimed: str) -> None:
        # the check: the value differs from the one claimed (the claim is true of, say, a
        # palindrome, or of a list whose first and last element are equal)
        out.append((text, c.check(None if v is None or ex is None else f"{v} != {ex}{claimed}")))

    sl = sub.slice[0].slice
    if isinstance(sl, cst.Index):
        k = _int(sl.value)
        if k == 0:
            lie(f"{subject} is the last element of {x}", "[-1]")
        elif k == -1:
            lie(f"{subject} is the first element of {x}", "[0]")
        elif k is not None and k > 0:
            lie(f"{subject} is element number {k} of {x}, counting from 1", f"[{k - 1}]")
    elif isinstance(sl, cst.Slice):
        lo = None if sl.lower is None else _int(sl.lower)
        hi = None if sl.upper is None else _int(sl.upper)
        st = None if sl.step is None else _int(sl.step)
        if sl.lower is None and sl.upper is None and st == -1:
            lie(f"{subject} is {x} unchanged", "")
        elif sl.step is None and sl.upper is None and lo == 1:
            lie(f"{subject} is {x} without its last element", "[:-1]")
        elif sl.step is None and sl.lower is None and hi == -1:
            lie(f"{subject} is {x} without its first element", "[1:]")
        elif sl.step is None and sl.lower is None and hi is not None and hi > 0:
            lie(f"{subject} holds the last {hi} elements of {x}", f"[-{hi}:]")
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


#: the longest claim made, in characters: what a person writes in a comment after a line of
#: code; a longer one ("result is the items of [tokens[0].ljust(5), tokens[1].ljust(5)] joined
#: with no separator", 88) is not made rather than cut
MAX_CLAIM = 64


def _short(lies: list[Lie]) -> list[Lie]:
    return [(t, k) for t, k in lies if len(t) <= MAX_CLAIM]


def statement_lies(stmt: cst.BaseSmallStatement, shadowed: frozenset[str] = frozenset()) -> list[Lie]:
    """Wrong statements about one small statement (assignment, call, return...), each with
    the :class:`Check` that shows it false by execution (``None`` when none can: such a
    claim is not made, see :func:`statement_claims`); none longer than :data:`MAX_CLAIM`
    characters."""
    return _short(_statement_lies(stmt, shadowed))


def _statement_lies(stmt: cst.BaseSmallStatement, shadowed: frozenset[str]) -> list[Lie]:
    out: list[Lie] = []
    if isinstance(stmt, cst.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0].target, cst.Name):
        name = stmt.targets[0].target.value
        out += _value_claims(name, stmt.value, shadowed, _Ctx(name, name, shadowed, "after"))
    elif isinstance(stmt, cst.AugAssign) and isinstance(stmt.target, cst.Name):
        # ``count += 1  # count goes down by 1``, ``k *= 3  # k is divided by 3``, ``s += 'ab'
        # # 'ab' is put in front of s``: the operator and the literal on the line contradict
        # such a claim, so a literal operand gets none; ``+=`` of a computed value read as ``=``
        # is a slip a person makes (true when the target was empty or zero)
        n = stmt.target.value
        v = snip(stmt.value)
        if isinstance(stmt.operator, cst.AddAssign) and v is not None and not _literal(stmt.value):
            c = _Ctx(n, n, shadowed, "after")
            ev = c.expr(stmt.value)
            out.append((f"{n} is overwritten with {v}", c.check(f"{n} != {ev}" if ev else None)))
    elif isinstance(stmt, cst.Expr) and isinstance(stmt.value, cst.Call) \
            and isinstance(stmt.value.func, cst.Attribute):
        call = stmt.value
        obj = snip(call.func.value)
        meth = call.func.attr.value
        args = _posargs(call)
        if obj is None or args is None:
            return out
        c = _Ctx(None, None, shadowed, "after")
        ex = c.expr(call.func.value)
        first = snip(args[0]) if args else None
        # a list whose elements are all equal (or empty, or of one element) reads the same
        # from either end: "inserted at the front", "removes the element at index 0", "sorts
        # from largest to smallest" are then true
        varied = None if ex is None else f"{_B}.type({ex}) is {_B}.list and {ex}[1:] != {ex}[:-1]"
        if meth == "append" and len(args) == 1 and first:
            # only of a list a person names (``xs``, ``self.items``): "w is inserted at the front
            # of groups.setdefault(len(w), [])" is not a claim anyone makes
            if _dotted_name(call.func.value):
                out.append((f"{first} is inserted at the front of {obj}", c.check(varied)))
        elif meth == "insert" and len(args) == 2 and first and snip(args[1]) and first != f"len({obj})":
            # not "xs[i] is replaced by v": after the insert xs[i] is v, so the claim is half
            # true (what is false, that the list does not grow, is not what it says); "v is
            # added at the end" is false wherever the insert puts v before an element of a
            # list, which the check tests before the line with the list's own slicing (which
            # clamps a negative or too large index as ``insert`` does)
            ei, ev = c.expr(args[0]), c.expr(args[1])
            test = None if ex is None or ei is None or ev is None else (
                f"{_B}.type({ex}) is {_B}.list and {ex} + [{ev}] != {ex}[:{ei}] + [{ev}] + {ex}[{ei}:]")
            out.append((f"{snip(args[1])} is added at the end of {obj}", c.check(test, "before")))
        elif meth == "pop" and not call.args:
            out.append((f"removes the element at index 0 of {obj}", c.check(varied, "before")))
        elif meth == "pop" and len(args) == 1 and _int(args[0]) == 0:
            out.append((f"removes the element at index -1 of {obj}", c.check(varied, "before")))
        elif meth == "remove" and len(args) == 1 and first:
            # ``remove`` raises ValueError then: false by construction
            out.append((f"does nothing when {first} is not in {obj}", Check("before", REACHED)))
        elif meth == "sort" and not args and "key" not in _kwargs(call):
            rev = _reverse_flag(call)
            test = None if ex is None else f"{_B}.type({ex}) is {_B}.list and {ex} != {ex}[::-1]"
            if rev is False:
                out.append((f"sorts {obj} from largest to smallest", c.check(test)))
            elif rev is True:
                out.append((f"sorts {obj} from smallest to largest", c.check(test)))
        elif meth == "reverse" and not call.args:
            # true when the list was sorted from largest to smallest (or has one element)
            test = None if ex is None else f"{_B}.type({ex}) is {_B}.list and {ex} != {_B}.sorted({ex})"
            # "sorted" alone would be true of a list left in descending order: the direction is said
            out.append((f"leaves {obj} sorted from smallest to largest", c.check(test)))
        elif meth == "extend" and len(args) == 1 and first:
            # ``extend`` adds the argument's items, not the argument, except that the one item
            # of a one-character string is that string (``out.extend(c)`` in a loop over a
            # string): checked before the line on the argument
            ea = c.expr(args[0])
            test = None if ea is None else f"not {_B}.isinstance({ea}, {_B}.str) or {_B}.len({ea}) != 1"
            out.append((f"{first} is added to {obj} as one element", c.check(test, "before")))
        elif meth == "clear" and not call.args:
            test = None if ex is None else f"{_B}.len({ex}) != 1"
            out.append((f"removes the last element of {obj}", c.check(test, "before")))
        elif meth == "update" and len(args) == 1 and first:
            eo = c.expr(args[0])
            test = None if ex is None or eo is None else (
                f"{_B}.type({ex}) is {_B}.dict and {_B}.type({eo}) is {_B}.dict"
                f" and {_B}.any(_codemorph_k not in {eo} for _codemorph_k in {ex})")
            out.append((f"keys of {obj} that are not in {first} are dropped", c.check(test, "before")))
    elif isinstance(stmt, cst.Return) and stmt.value is not None:
        value = stmt.value
        c = _Ctx(None, None, shadowed, "before")
        v = c.expr(value)
        c.v = v
        for text, check in _value_claims("@", value, shadowed, c):
            for pattern, repl in _RETURN_PHRASES:
                if text.startswith(pattern):
                    text = repl + text[len(pattern):]
                    break
            else:
                continue
            out.append((text, check))
    return out


def statement_claims(stmt: cst.BaseSmallStatement, shadowed: frozenset[str] = frozenset()) -> list[str]:
    """The wrong statements made about one small statement: those of
    :func:`statement_lies` that execution can show false."""
    return [text for text, check in statement_lies(stmt, shadowed) if check is not None]


def _loop_claims(node: cst.For, shadowed: frozenset[str] = frozenset()) -> list[Lie]:
    out: list[Lie] = []
    target = snip(node.target)
    it = node.iter
    x = snip(it)
    if target is None or x is None:
        return out
    c = _Ctx(None, None, shadowed, "before")
    # a claim about the values the loop visits is false once its body runs
    ran = Check("body", REACHED)
    if isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and _posargs(it) is not None \
            and not _kwargs(it) and not node.asynchronous and it.func.value not in shadowed:
        name = it.func.value
        args = _posargs(it) or []
        snips = [_arg_snip(a) for a in args]
        exprs = [c.expr(a) for a in args]
        if name == "range" and len(args) == 1 and snips[0]:
            return [(f"{target} runs from 1 to {snips[0]}", ran), (f"{target} counts down from {snips[0]} to 1", ran)]
        if name == "range" and len(args) == 2 and all(snips):
            return [(f"{target} runs from {snips[0]} to {snips[1]} inclusive", ran),
                    (f"{target} counts down from {snips[1]} to {snips[0]}", ran)]
        if name == "range" and len(args) == 3:
            # "i runs from -1 back to len(text)-1": a step turns any claim about the bounds
            # into a riddle (the stop is excluded, the start may be past it)
            return []
        if name == "reversed" and len(args) == 1 and snips[0]:
            return [(f"walks {snips[0]} from its first element to its last", c.check(_palindrome_test(exprs[0])))]
        if name == "enumerate" and len(args) == 1 and snips[0] and isinstance(node.target, cst.Tuple) \
                and node.target.elements:
            i = snip(node.target.elements[0].value)
            if i:
                return [(f"{i} counts from 1", ran),
                        (f"walks {snips[0]} from its last element to its first",
                         c.check(_palindrome_test(exprs[0])))]
        if name == "zip" and len(args) >= 2 and all(snips):
            test = None if not all(exprs) else \
                f"{_B}.len({{{', '.join(f'{_B}.len({_ITEMS}({e}))' for e in exprs)}}}) > 1"
            return [(f"runs until the longest of {', '.join(snips)} is exhausted", c.check(test))]
        if name == "sorted" and len(args) == 1 and snips[0]:
            # true when every element is equal
            test = None if exprs[0] is None else \
                f"{_B}.sorted({_ITEMS}({exprs[0]})) != {_B}.sorted({_ITEMS}({exprs[0]}))[::-1]"
            return [(f"visits {snips[0]} from largest to smallest", c.check(test))]
    if isinstance(it, cst.Call) and isinstance(it.func, cst.Attribute) and not it.args:
        obj = snip(it.func.value)
        eo = c.expr(it.func.value)
        meth = it.func.attr.value
        if obj and meth in ("keys", "values", "items"):
            # true when keys and values agree (``{1: 1}``), or of an empty dict
            claimed = {"keys": "values", "values": "keys", "items": "items"}[meth]
            test = None if eo is None else f"{_B}.list({eo}.{meth}()) != " + (
                _STR_METHOD_CLAIMED["items"].format(x=eo) if meth == "items" else f"{_B}.list({eo}.{claimed}())")
            text = {"keys": f"walks the values of {obj}", "values": f"walks the keys of {obj}",
                    "items": f"walks (value, key) pairs of {obj}"}[meth]
            return [(text, c.check(test))]
    if isinstance(it, cst.Tuple) and not it.lpar:
        x = f"({x})"  # ``for d in a, b, c:`` walks (a, b, c), not "a, b, c from its last element"
    out = [(f"walks {x} from its last element to its first", c.check(_palindrome_test(c.expr(it))))]
    # not of a slice: "skips the first element of xs[1:]" reads as what the slice does to xs,
    # which is true
    if _first_runs_always(node) and not isinstance(it, cst.Subscript):
        # not of a body that may pass over an element (``if first: first = False; continue``):
        # a reader takes such a loop to skip its first element, though it visits it; only of
        # a body of plain statements
        out.append((f"skips the first element of {x}", ran))
    return out


def _first_runs_always(node: cst.For) -> bool:
    """Whether the loop's body does the same with every element: only plain statements (no
    ``if`` or other compound statement, which may pass over the first element: ``i += 1``
    then ``if i > 1: out.append(x)``), none of them ``continue``, ``break``, ``pass``,
    ``return`` or ``raise``."""
    body = node.body
    if not isinstance(body, cst.IndentedBlock) or not body.body:
        return False
    return all(isinstance(line, cst.SimpleStatementLine) and not any(
        isinstance(s, (cst.Continue, cst.Break, cst.Pass, cst.Return, cst.Raise)) for s in line.body)
        for line in body.body)


#: a comparison operator's negation as a person writes it (``x < 0`` -> ``x >= 0``): the
#: claim states the branch's condition wrongly, so what NaN or a user class would do with
#: the flipped operator does not matter
_NEGATED_OPERATORS = {"==": "!=", "!=": "==", "<": ">=", "<=": ">", ">": "<=", ">=": "<", "in": "not in",
                      "not in": "in", "is": "is not", "is not": "is"}


def _negated(test: cst.BaseExpression) -> str | None:
    """The negation of an ``if`` test as a person writes it: ``not x`` -> ``x``, a
    comparison of one operator with the operator flipped (``item not in seen`` -> ``item in
    seen``), a name, attribute, call or subscript as ``not x``, and a chain of ``and`` (or of
    ``or``) of those negated part by part (De Morgan: ``n not in '012' and n != k`` -> ``n in
    '012' or n == k``).  ``None`` when the test has no short text (:func:`snip`) or no such
    negation: ``not (a < b < c)``, ``not (x % 2)``, a chain mixing ``and`` and ``or`` read as
    nobody writes a condition."""
    if snip(test) is None:
        return None
    text = _negation(test)
    return text if text is not None and len(text) <= _MAX_SNIPPET else None


def bare(node: cst.BaseExpression) -> cst.BaseExpression:
    """``node`` without its own parentheses (``(a and b)`` -> ``a and b``): how a claim quotes
    an ``if`` or ``while`` test."""
    return node.with_changes(lpar=[], rpar=[]) if getattr(node, "lpar", None) else node


#: methods that return a bool on the builtin types (``c.isascii()``, ``s.startswith(p)``)
_BOOL_METHODS = frozenset({
    "startswith", "endswith", "isdigit", "isalpha", "isnumeric", "isdecimal", "isupper", "islower", "isspace",
    "isalnum", "isidentifier", "istitle", "isascii", "isprintable", "isdisjoint", "issubset", "issuperset",
})


def _boolish(node: cst.BaseExpression) -> bool:
    """Whether ``node`` surely evaluates to a bool: a comparison, a ``not``, or a call of a
    method of :data:`_BOOL_METHODS` (``c.isascii()``)."""
    node = bare(node)
    if isinstance(node, cst.Comparison) or isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        return True
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
        and node.func.attr.value in _BOOL_METHODS


def _vs_bool(node: cst.BaseExpression) -> tuple[cst.BaseExpression, bool] | None:
    """For a comparison of a value with ``True`` or ``False`` (``x is False``, ``x == True``,
    ``x is not True``...): the value and whether the comparison holds exactly when the value
    is true; ``None`` for any other expression."""
    node = bare(node)
    if not isinstance(node, cst.Comparison) or len(node.comparisons) != 1:
        return None
    right = node.comparisons[0].comparator
    if not (isinstance(right, cst.Name) and right.value in ("True", "False")):
        return None
    op = " ".join(cst.Module([]).code_for_node(node.comparisons[0].operator).split())
    if op not in ("is", "is not", "==", "!="):
        return None
    return node.left, (right.value == "True") == (op in ("is", "=="))


def _has_vs_bool(node: cst.CSTNode) -> bool:
    stack: list[cst.CSTNode] = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.BaseExpression) and _vs_bool(n) is not None:
            return True
        stack.extend(n.children)
    return False


def quoted_test(test: cst.BaseExpression) -> str | None:
    """An ``if`` or ``while`` test as a claim quotes it (without its own parentheses, see
    :func:`snip`), with a comparison of a bool with ``True``/``False`` as a person writes it:
    ``c.isascii() is False`` -> ``not c.isascii()``, ``s.startswith(p) == True`` ->
    ``s.startswith(p)``.  ``None`` when the test has no short text, or compares with
    ``True``/``False`` a value not surely a bool (``x is False`` is not ``not x`` for
    ``x = 0``), or holds such a comparison inside (``a and b is True``)."""
    test = bare(test)
    vs = _vs_bool(test)
    if vs is not None:
        value, truthy = vs
        if not _boolish(value):
            return None
        text = snip(bare(value))
        if text is None:
            return None
        if not truthy:
            if isinstance(bare(value), cst.Comparison):
                return None  # ``(a < b) is False``: not ``not a < b``
            text = f"not {text}"
        return text if len(text) <= _MAX_SNIPPET else None
    if _has_vs_bool(test):
        return None
    return snip(test)


def _negation(node: cst.BaseExpression) -> str | None:
    node = bare(node)
    vs = _vs_bool(node)
    if vs is not None:
        # ``c.isascii() is False`` -> ``c.isascii()``, ``x == True`` -> ``not x`` (of a bool only)
        value, truthy = vs
        if not _boolish(value) or isinstance(bare(value), cst.Comparison):
            return None
        text = snip(bare(value))
        return None if text is None else (f"not {text}" if truthy else text)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        inner = bare(node.expression)
        text = snip(inner)
        if text is None:
            return None
        # ``not (a or b)`` -> ``a or b``; ``not x`` -> ``x``
        return text
    if isinstance(node, cst.Comparison):
        if len(node.comparisons) != 1:
            return None
        left, right = snip(node.left), snip(node.comparisons[0].comparator)
        op = _NEGATED_OPERATORS.get(" ".join(cst.Module([]).code_for_node(node.comparisons[0].operator).split()))
        return f"{left} {op} {right}" if left and right and op else None
    if isinstance(node, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
        if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
            return None
        text = snip(node)
        return None if text is None else f"not {text}"
    if isinstance(node, cst.BooleanOperation):
        is_and = isinstance(node.operator, cst.And)
        parts: list[cst.BaseExpression] = []
        stack: list[cst.BaseExpression] = [node]
        while stack:  # the chain ``a and b and c`` (left-nested), in order
            n = stack.pop()
            if isinstance(n, cst.BooleanOperation) and not n.lpar and isinstance(n.operator, cst.And) == is_and:
                stack += [n.right, n.left]
            elif isinstance(n, cst.BooleanOperation) or isinstance(bare(n), cst.BooleanOperation):
                return None  # ``a and (b or c)``: no negation reads naturally
            else:
                parts.append(n)
        negated = [_negation(p) for p in parts]
        if any(t is None for t in negated):
            return None
        return (" or " if is_and else " and ").join(negated)
    return None


def header_lies(node: cst.CSTNode, shadowed: frozenset[str] = frozenset(),
                elif_has_else: bool | None = None) -> list[Lie]:
    """False claims about a compound statement's header (``for``, ``while``, ``if``), each
    with its :class:`Check` (``None`` when no execution can show it false), none longer than
    :data:`MAX_CLAIM` characters.
    ``elif_has_else``: for an ``if`` that is the ``elif`` of another, whether it has an
    ``else`` (``None`` for an ``if`` in a block)."""
    return _short(_header_lies(node, shadowed, elif_has_else))


def _header_lies(node: cst.CSTNode, shadowed: frozenset[str], elif_has_else: bool | None) -> list[Lie]:
    if isinstance(node, cst.For):
        return _loop_claims(node, shadowed)
    if isinstance(node, cst.While):
        t = quoted_test(node.test)
        # not "loops until True holds" (``while True:``); false wherever the loop is reached:
        # it stops when the test fails
        return [(f"loops until {t} holds", Check("before", REACHED))] if t and not _literal(node.test) else []
    if isinstance(node, cst.If):
        neg = _negated(node.test)
        if not neg:
            return []
        if elif_has_else is None:
            # "taken when x <= 0" for ``if x > 0:``: the branch is taken exactly when the test
            # holds, so the claim is false wherever the ``if`` runs, taken or not
            reached = Check("before", REACHED)
            return [(f"taken when {neg}", reached), (f"runs when {neg}", reached)]
        if elif_has_else:
            # an ``elif`` cannot be checked before it runs: at the start of either branch
            reached = Check("branches", REACHED)
            return [(f"taken when {neg}", reached), (f"runs when {neg}", reached)]
        # an ``elif`` without ``else``: only its body running shows a claim false
        taken = Check("body", REACHED)
        positive = quoted_test(node.test)
        out = [(f"taken only when {neg}", taken)]
        return out + [(f"skipped whenever {positive}", taken)] if positive else out
    return []


def header_claims(node: cst.CSTNode, shadowed: frozenset[str] = frozenset()) -> list[str]:
    """The false claims made about a compound statement's header (an ``if`` in a block):
    those of :func:`header_lies` that execution can show false."""
    return [text for text, check in header_lies(node, shadowed) if check is not None]


def else_lie(node: cst.If, elif_: bool) -> Lie | None:
    """The false claim about the ``else`` of ``node`` ("reached when x > 0" for ``if x >
    0: ... else:``: the ``else`` runs exactly when the test fails, so the claim is false
    wherever the ``if`` runs), checked at the ``if`` (before it, or in either branch when
    it is an ``elif``)."""
    t = quoted_test(node.test)
    if not t or not isinstance(node.orelse, cst.Else) or len(f"reached when {t}") > MAX_CLAIM:
        return None
    return f"reached when {t}", Check("branches" if elif_ else "before", REACHED, anchor=node)


class CommentSites(cst.CSTVisitor):
    """Statements inside function bodies whose line has no comment yet, with the wrong
    claims available for each (:data:`Lie`: text and :class:`Check`; claims no execution
    can show false are left out)."""

    def __init__(self, index: FunctionIndex, shadowed: frozenset[str]) -> None:
        self.index = index
        self.shadowed = shadowed
        self.sites: list[tuple[cst.CSTNode, str, list[Lie]]] = []  # (node, "line"|"header", lies)
        self.dynamic = 0
        self._elifs: set[int] = set()  # ids of the ``if`` nodes that are another's ``elif``

    def _in_function(self, node: cst.CSTNode) -> bool:
        return self.index.enclosing_function(node) is not None

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        if node.trailing_whitespace.comment is not None or len(node.body) != 1 or not self._in_function(node):
            return
        if self.index.in_dynamic_scope(node):
            self.dynamic += 1
            return
        lies = [(t, k) for t, k in statement_lies(node.body[0], self.shadowed) if k is not None and comment_text_ok(t)]
        if lies:
            self.sites.append((node, "line", lies))

    def _compound(self, node: cst.CSTNode) -> None:
        if isinstance(node, cst.If) and isinstance(node.orelse, cst.If):
            self._elifs.add(id(node.orelse))
        body = node.body
        if not isinstance(body, cst.IndentedBlock) or body.header.comment is not None \
                or not self._in_function(node):
            return
        if self.index.in_dynamic_scope(node):
            self.dynamic += 1
            return
        elif_ = id(node) in self._elifs
        has_else = isinstance(node, cst.If) and isinstance(node.orelse, cst.Else)
        lies = [(t, k) for t, k in header_lies(node, self.shadowed, has_else if elif_ else None)
                if k is not None and comment_text_ok(t)]
        if lies:
            self.sites.append((node, "header", lies))
        if has_else and isinstance(node.orelse.body, cst.IndentedBlock) and node.orelse.body.header.comment is None:
            lie = else_lie(node, elif_)
            if lie is not None and comment_text_ok(lie[0]):
                self.sites.append((node.orelse, "header", [lie]))

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


#: words of the claims that state the order of a collection the code builds the wrong way
#: round (an append as an insertion at the front, a sort as descending): believed, they
#: reverse that collection.  Not the loop claims ("walks s from its last element to its
#: first"): a loop walked the other way may find another element (``for x in doc: if
#: x.isalpha(): return x``), whatever the output looks like
_ORDER_WORDS = ("inserted at the front of", "added at the end of", "from largest to smallest",
                "from smallest to largest")


def order_moot(claim: str, outputs) -> bool:
    """Whether ``claim`` states the order of a built collection the wrong way round
    (:data:`_ORDER_WORDS`: "leaves xs sorted from smallest to largest" of ``xs.reverse()`` too) while the
    row's recorded output, the first of ``outputs``, is a list, tuple or string that reads
    the same reversed (``[8, -1, 8]``, ``'aba'``, one element): believing the claim reverses
    an order the answer does not show, so the claim, though false, cannot mislead on the
    row (CRUXEval ``sample_545``: ``result.append(array.pop())  # ... is inserted at the
    front of result`` with the output ``[8, -1, 8]``).  ``False`` when the output is no
    such literal."""
    if not outputs or not any(w in claim for w in _ORDER_WORDS):
        return False
    try:
        value = ast.literal_eval(outputs[0])
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    if not isinstance(value, (list, tuple, str)):
        return False
    try:
        return bool(value == value[::-1])
    except Exception:  # an odd comparison: keep the claim
        return False


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
