"""Verification and search inputs of ``call`` and ``stdin`` rows, made with the one mutation
engine, :class:`~codemorph.inputs.mutation.MutationSpace` (its type-exact steps change every
value; this module only finds the values in an input and puts the changed ones back).

* ``stdin`` (:func:`stdin_mutants`): the standard input is read as lines of whitespace-separated
  tokens; a token that spells an integer (``-12``; not ``007``, whose zeros a program may
  keep) is an ``int``, one that spells a decimal number a ``float``, a run of digits with
  leading zeros or over 18 digits a digit string (it stays digits), anything else a ``str``
  (it stays non-empty, without whitespace).  A mutant changes one or two tokens with
  :meth:`MutationSpace.step`, or deletes or repeats a token of a line of several tokens of
  one type, or deletes or repeats a line after the first.  Counts stay consistent: an
  integer of the first line that equals the number of lines after it, or the number of
  tokens of the second line, is set to the new number after such an edit (``3`` /
  ``1 2 3`` -> ``2`` / ``1 3``) and is never changed on its own.  The line layout
  (one space between tokens, the final newline) is kept.  With ``allow_type_change`` (the
  perturbation search's ``--allow-type-change``) a token may also become a word where a
  number was, or a number where a word was.
* ``call`` (:func:`call_mutants`): the literal constants of the call expression
  (``count('abc' + 'd')``: ``'abc'`` and ``'d'``) are changed in place; for a harness call
  ``Test().test()`` of a method of a module-level class, the literals inside that method are
  changed and the mutant is the block ``class Test(Test): <the method with other literals>``
  followed by the call (the sandbox runs a ``call`` input that is statements ending with an
  expression).  Docstrings, f-string parts and literals of ``assert`` messages are kept.
"""

from __future__ import annotations

import ast
import random
import re
import textwrap
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from codemorph.inputs.mutation import MutationSpace

__all__ = ["kind_mutants", "stdin_mutants", "call_mutants", "StdinShape", "parse_stdin", "harness_method",
           "token_types_changed"]

_INT = re.compile(r"-?(?:0|[1-9][0-9]{0,17})")
_FLOAT = re.compile(r"-?(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
_DIGITS = re.compile(r"[0-9]+")


class _Digits(str):
    """A token of digits kept as text (leading zeros, or too long for an int)."""


@dataclass(frozen=True)
class StdinShape:
    """A standard input as typed tokens (:func:`parse_stdin`).

    Attributes:
        lines: per line, its tokens (``int``, ``float``, or ``str``; digit strings are
            ``str`` too, see :attr:`digits`).
        digits: ``(line, index)`` of the tokens that are digit strings.
        final_newline: the text ends with a newline.
        line_count: ``(line, index)`` of a first-line integer that counts the lines after
            the first, or ``None``.
        token_count: ``(line, index)`` of a first-line integer that counts the tokens of the
            second line, or ``None``.
    """

    lines: tuple[tuple[Any, ...], ...]
    digits: frozenset[tuple[int, int]]
    final_newline: bool
    line_count: tuple[int, int] | None
    token_count: tuple[int, int] | None

    def render(self, lines: Sequence[Sequence[Any]]) -> str:
        """The text of ``lines`` (tokens joined by one space, lines by newlines; the final
        newline as in the seed)."""
        body = "\n".join(" ".join(_token_text(t) for t in line) for line in lines)
        return body + ("\n" if self.final_newline and lines else "")


def _token_text(t: Any) -> str:
    return repr(t) if isinstance(t, float) else str(t)


def token_types_changed(a: str, b: str) -> bool:
    """Whether some token of the standard input ``b`` has another type than the token at
    the same place of ``a`` (on lines with as many tokens in both)."""
    x, y = parse_stdin(a), parse_stdin(b)
    for la, lb in zip(x.lines, y.lines):
        if len(la) == len(lb) and any(type(s) is not type(t) for s, t in zip(la, lb)):
            return True
    return False


def _typed(tok: str) -> Any:
    if _INT.fullmatch(tok):
        return int(tok)
    if _DIGITS.fullmatch(tok):
        return _Digits(tok)
    if _FLOAT.fullmatch(tok):
        v = float(tok)
        return v if repr(v) == tok else tok  # a float whose text would change stays text
    return tok


def parse_stdin(text: str) -> StdinShape:
    """The :class:`StdinShape` of a standard input ``text``."""
    raw = text.split("\n")
    final = text.endswith("\n")
    if final:
        raw = raw[:-1]
    lines = []
    digits = set()
    for i, line in enumerate(raw):
        toks = []
        for j, tok in enumerate(line.split()):
            v = _typed(tok)
            if isinstance(v, _Digits):
                digits.add((i, j))
                v = str(v)
            toks.append(v)
        lines.append(tuple(toks))
    line_count = token_count = None
    if lines:
        for j, v in enumerate(lines[0]):
            if type(v) is not int:
                continue
            if line_count is None and len(lines) > 2 and v == len(lines) - 1:
                line_count = (0, j)
            elif token_count is None and len(lines) > 1 and v == len(lines[1]) and v > 1:
                token_count = (0, j)
    return StdinShape(tuple(lines), frozenset(digits), final, line_count, token_count)


def _step_token(space: MutationSpace, v: Any, digits: bool, rng: random.Random) -> Any:
    if space.allow_type_change and rng.random() < 0.2:
        # a token of another type: a word where a number was (int() of it raises
        # ValueError), a number where a word was
        if isinstance(v, str) and not digits:
            return rng.choice((0, 1, 1.5))
        words = [w for w in space.literals if isinstance(w, str) and w and not any(c.isspace() for c in w)
                 and type(_typed(w)) is str]
        return rng.choice(words or ["a"])
    for _ in range(4):
        new = space.step(v, rng, v)
        if digits and type(new) is str:
            new = "".join(c for c in new if c in "0123456789")  # not "²": str.isdigit() takes it, int() does not
        if isinstance(new, str) and (not new or any(c.isspace() for c in new)):
            continue
        if type(new) is type(v) and new != v:
            return new
        if space.allow_type_change and type(new) in (int, float, str) and type(new) is not type(v):
            return new  # a word where a number was (int() of it raises ValueError), or a number
    return None


def stdin_mutants(text: str, n: int, rng: random.Random, literals: Iterable[Any] = (),
                  allow_type_change: bool = False) -> list[str]:
    """Up to ``n`` distinct mutants of the standard input ``text`` that keep its token
    structure (see the module docstring); deterministic for a given ``rng`` state.  With
    ``allow_type_change`` a token may also become one of another type (a word where a
    number was: :meth:`MutationSpace.step` with ``allow_type_change``)."""
    shape = parse_stdin(text)
    lines = [list(line) for line in shape.lines]
    if not any(lines):
        return []
    flat = [t for line in lines for t in line]
    space = MutationSpace((flat, {}), literals, allow_type_change=allow_type_change)
    fixed = {p for p in (shape.line_count, shape.token_count) if p is not None}
    out: list[str] = []
    seen = {text}
    made: list[list[list[Any]]] = []
    # first from the seed itself; when its one-edit neighbours run out before n (a lone
    # integer has about twenty), from the mutants made so far (two edits from the seed)
    for phase in (0, 1):
        for _ in range(n * 8):
            if len(out) >= n or (phase and not made):
                break
            base = lines if phase == 0 else rng.choice(made)
            new = _stdin_edit(base, shape, fixed, space, rng)
            if new is None:
                continue
            mutant = shape.render(new)
            if mutant not in seen:
                seen.add(mutant)
                out.append(mutant)
                made.append(new)
    return out


def _stdin_edit(base: list[list[Any]], shape: Any, fixed: set, space: MutationSpace,
                rng: random.Random) -> list[list[Any]] | None:
    """One random edit of the token lines ``base`` (a token changed, a token of a line of like
    tokens deleted or repeated, or a line after the first deleted or repeated), with the
    counts of ``shape`` (``line_count``, ``token_count``) made to follow; ``None`` when the
    drawn kind of edit does not fit."""
    new = [list(line) for line in base]
    slots = [(i, j) for i, line in enumerate(new) for j in range(len(line)) if (i, j) not in fixed]
    r = rng.random()
    if r < 0.7 and slots:
        for (i, j) in rng.sample(slots, k=min(len(slots), 1 if rng.random() < 0.7 else 2)):
            v = _step_token(space, new[i][j], (i, j) in shape.digits, rng)
            if v is not None:
                new[i][j] = v
    elif r < 0.85:
        # a token deleted or repeated on a line of several tokens of one type
        multi = [i for i, line in enumerate(new) if len(line) > 1 and len({type(t) for t in line}) == 1
                 and not (i == 0 and fixed)]
        if not multi:
            return None
        i = rng.choice(multi)
        j = rng.randrange(len(new[i]))
        if rng.random() < 0.5:
            del new[i][j]
        else:
            new[i].insert(j, new[i][j])
    else:
        if len(new) < 3 and shape.line_count is None:
            return None
        i = rng.randrange(1, len(new))
        if rng.random() < 0.5 and len(new) > 2:
            del new[i]
        else:
            new.insert(i, list(new[i]))
    if shape.line_count is not None:
        li, lj = shape.line_count
        new[li][lj] = len(new) - 1
    if shape.token_count is not None and len(new) > 1:
        ti, tj = shape.token_count
        new[ti][tj] = len(new[1])
    return new


# ---------------------------------------------------------------------------------- call
def _literal_nodes(tree: ast.AST) -> list[ast.Constant]:
    """The int, float and str constants of ``tree`` that a mutant may change: not
    docstrings, f-string parts, ``assert`` messages or keyword-argument names."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)) and node.body \
                and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant):
            skip.add(id(node.body[0].value))
        elif isinstance(node, ast.JoinedStr):
            skip.update(id(x) for x in ast.walk(node))
        elif isinstance(node, ast.Assert) and node.msg is not None:
            skip.update(id(x) for x in ast.walk(node.msg))
    return [n for n in ast.walk(tree) if isinstance(n, ast.Constant) and id(n) not in skip
            and type(n.value) in (int, float, str) and hasattr(n, "end_col_offset")]


def _offsets(text: str) -> list[int]:
    starts, k = [0], 0
    for line in text.splitlines(keepends=True):
        k += len(line)
        starts.append(k)
    return starts


def _replace_constants(text: str, nodes: list[ast.Constant], values: dict[int, Any]) -> str:
    """``text`` with the constants ``nodes[k]`` for ``k in values`` replaced by the repr of
    their new value (positions from :mod:`ast`, in characters of ``text``)."""
    starts = _offsets(text)
    lines = text.splitlines(keepends=True)

    def at(line: int, col: int) -> int:  # ast columns are UTF-8 byte offsets
        src = lines[line - 1] if line - 1 < len(lines) else ""
        return starts[line - 1] + len(src.encode("utf-8")[:col].decode("utf-8", "replace"))

    edits = sorted(((at(nodes[k].lineno, nodes[k].col_offset), at(nodes[k].end_lineno, nodes[k].end_col_offset), v)
                    for k, v in values.items()), reverse=True)
    for a, b, v in edits:
        rep = repr(v)
        if a > 0 and (text[a - 1].isalnum() or text[a - 1] == "_") and not rep[0] in "'\"":
            rep = " " + rep
        text = text[:a] + rep + text[b:]
    return text


def harness_method(code: str, expression: str) -> tuple[str, str, str] | None:
    """``(class name, method name, method source)`` when ``expression`` is a call
    ``C().m()`` (no arguments) of a method defined in the body of a module-level class
    ``C`` of ``code`` (ClassEval's ``Test().test()``); the source is the method's own text,
    dedented.  ``None`` otherwise."""
    try:
        call = ast.parse(expression.strip(), mode="eval").body
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if not (isinstance(call, ast.Call) and not call.args and not call.keywords
            and isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Call)
            and isinstance(call.func.value.func, ast.Name) and not call.func.value.args
            and not call.func.value.keywords):
        return None
    cls_name, meth = call.func.value.func.id, call.func.attr
    classes = [s for s in tree.body if isinstance(s, ast.ClassDef) and s.name == cls_name]
    if len(classes) != 1:
        return None
    defs = [s for s in classes[0].body if isinstance(s, ast.FunctionDef) and s.name == meth]
    if len(defs) != 1 or defs[0].decorator_list:
        return None
    lines = code.splitlines(keepends=True)
    src = "".join(lines[defs[0].lineno - 1:defs[0].end_lineno])
    return cls_name, meth, textwrap.dedent(src)


def call_mutants(code: str, text: str, n: int, rng: random.Random, literals: Iterable[Any] = ()) -> list[str]:
    """Up to ``n`` distinct mutants of the ``call`` input ``text`` of program ``code``: its
    own literals changed, or, for a harness call (:func:`harness_method`), the literals of
    the harness method (see the module docstring)."""
    harness = harness_method(code, text)
    if harness is not None:
        cls_name, _meth, target = harness
    else:
        target = text.strip()
    try:
        tree = ast.parse(target)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    nodes = _literal_nodes(tree)
    if not nodes:
        return []
    values = [x.value for x in nodes]
    space = MutationSpace((values, {}), literals)
    out: list[str] = []
    seen = {target}
    for _ in range(n * 6):
        if len(out) >= n:
            break
        picks = rng.sample(range(len(nodes)), k=min(len(nodes), 1 if rng.random() < 0.7 else 2))
        changed = {}
        for k in picks:
            v = space.step(values[k], rng, values[k])
            if type(v) is type(values[k]) and v != values[k]:
                changed[k] = v
        if not changed:
            continue
        new = _replace_constants(target, nodes, changed)
        if new in seen:
            continue
        try:
            ast.parse(new)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        seen.add(new)
        if harness is not None:
            body = textwrap.indent(new, "    ")
            out.append(f"class {cls_name}({cls_name}):\n{body.rstrip()}\n{text.strip()}")
        else:
            out.append(new)
    return out


def kind_mutants(program: Any, seeds: Sequence[str], extra: int, seed: int, kind: str,
                 literals: Iterable[Any] | None = None, allow_type_change: bool = False) -> list[str]:
    """Up to ``extra`` distinct mutants of the ``kind`` inputs ``seeds`` of ``program`` (a
    :class:`~codemorph.engine.Program`), round robin over the seeds: :func:`stdin_mutants`
    for ``stdin`` (``allow_type_change``: tokens may change type), :func:`call_mutants` for
    ``call``; randomness from ``seed`` and each seed's text."""
    if extra <= 0 or not seeds:
        return []
    lits = list(literals or ())
    per_seed = []
    for text in seeds:
        rng = random.Random(f"{seed}:{kind}-mutants:{text}")
        if kind == "stdin":
            per_seed.append(stdin_mutants(text, extra, rng, lits, allow_type_change))
        elif kind == "call":
            per_seed.append(call_mutants(program.source, text, extra, rng, lits))
        else:
            raise ValueError(f"kind_mutants: no mutants for input kind {kind!r}")
    out: list[str] = []
    taken = set(seeds)
    for k in range(extra):
        for ms in per_seed:
            if k < len(ms) and ms[k] not in taken:
                taken.add(ms[k])
                out.append(ms[k])
    return out[:extra]
