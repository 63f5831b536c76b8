"""Coverage-guided additions to a differential-testing input set (:func:`coverage_additions`):
when the original program's traced runs on the inputs leave some statement of its functions
unexecuted, the sandbox runs candidates made by the mutation engine
(:class:`codemorph.inputs.mutation.MutationSpace`) from the inputs that reached the
nearest executed enclosing statement, and keeps those that execute a missed line.
"""

from __future__ import annotations

import ast
import itertools
import random
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from codemorph.errors import InputError
from codemorph.inputs.literals import format_args, parse_args
from codemorph.inputs.mutation import MutationSpace, mutate_args
from codemorph.inputs.values import fits
from codemorph.sandbox.pool import ExecRequest

__all__ = ["coverage_additions", "GuidedResult", "GUIDED_MAX", "GUIDED_EXECUTIONS"]
#: At most this many of a baseline's inputs are replaced by coverage-guided additions.
GUIDED_MAX = 10
#: Executions one coverage-guided round may spend on candidates (two rounds at most).
GUIDED_EXECUTIONS = 24


def _function_lines(source: str) -> tuple[set[int], dict[int, list[int]]]:
    """Executable statement lines inside the functions of ``source`` (docstrings, ``global``
    and ``nonlocal`` excluded: they report no line event), and for each such line the lines
    of its enclosing statements, innermost first (analysis with :mod:`ast` only)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set(), {}
    lines: set[int] = set()
    parents: dict[int, list[int]] = {}

    def visit(body: list, chain: list[int], in_function: bool) -> None:
        for k, stmt in enumerate(body):
            if k == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) \
                    and isinstance(stmt.value.value, str):
                continue  # a docstring (or a bare string) compiles to no line event
            if in_function and not isinstance(stmt, (ast.Global, ast.Nonlocal)):
                lines.add(stmt.lineno)
                parents.setdefault(stmt.lineno, list(chain))
            inner = in_function or isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))
            for field_name in ("body", "orelse", "finalbody"):
                sub = getattr(stmt, field_name, None)
                if isinstance(sub, list) and sub and isinstance(sub[0], ast.stmt):
                    visit(sub, [stmt.lineno] + chain, inner)
            for h in getattr(stmt, "handlers", ()) or ():
                visit(h.body, [stmt.lineno] + chain, inner)
            for case in getattr(stmt, "cases", ()) or ():
                visit(case.body, [stmt.lineno] + chain, inner)

    visit(tree.body, [], False)
    return lines, parents


def coverage_additions(sandbox: Any, program: Any, inputs: Sequence[str], outcomes: Sequence[Any], seed_count: int,
                       *, seed: int = 0, literals: Iterable[Any] = (), timeout: float | None = 1.0,
                       max_added: int = GUIDED_MAX, executions: int = GUIDED_EXECUTIONS,
                       cpu_timeout: float | None = None, max_lines: int | None = None,
                       types: bool = True) -> "GuidedResult":
    """Coverage-guided additions to a differential-testing input set.

    When the traced ``outcomes`` of the original ``program`` on ``inputs`` leave some
    statement of its functions unexecuted, candidates are made from the inputs that reached
    the nearest executed enclosing statement (the ``if``, loop or ``try`` around the missed
    code): first (up to half of a round) those inputs with one constant of the guarding
    conditions put in place of an argument or element of its type (``if c in ['p', 'C']``
    needs a ``c`` equal to ``'p'``), then random 1-3 step mutants from the perturbation engine
    (:class:`codemorph.inputs.mutation.MutationSpace`, the program's constants as values),
    systematic one-step neighbours from the same engine (boundary lengths, the program's
    literals...), and cross-argument mutants (:func:`mutate_args`), a third each.  They run traced in one sandbox batch;
    those that execute a missed line are kept (greedily, each must add a line), and a second
    round (run whenever lines are still missed) mutates the kept ones, or tries the same
    parents again when nothing was kept.  This is coverage feedback as
    in AFL (Zalewski 2014), aimed at the code a rewrite may change.

    The additions *replace* mutants (never seed inputs), so the number of inputs stays
    the same: a replaced mutant is one whose executed lines the other inputs also
    executed, taken from the end of the list.

    When every statement was executed, or the outcomes carry no trace, nothing is run (the
    common case costs nothing).

    Args:
        sandbox: a :class:`codemorph.sandbox.Sandbox`.
        program: the original :class:`codemorph.program.Program`.
        inputs: argument-list literals, the ``seed_count`` seed inputs first.
        outcomes: the traced outcomes of ``program`` on ``inputs`` (same order).
        seed_count: how many leading ``inputs`` are seeds (never replaced).
        seed: seed of the candidates' randomness (deterministic for equal arguments).
        literals: the program's constants (:func:`codemorph.verification.program_literals`).
        timeout: seconds per candidate execution (``None``: the sandbox's limit).
        cpu_timeout, max_lines, types: the candidates' CPU limit, line budget and whether
            their traces record types of locals (``ExecRequest`` fields): the limits the
            mutants they replace ran under (:func:`~codemorph.verification.make_baseline`
            passes its own), so an added input is judged as a mutant would be and a program
            that never ends costs a candidate no more than a mutant.
        max_added: most inputs added (replaced).
        executions: candidate executions per round (two rounds at most).

    Returns:
        A :class:`GuidedResult`: the new input list and outcomes, how many inputs were
        added, the candidate executions spent, and the lines still missed.
    """

    inputs, outcomes = list(inputs), list(outcomes)
    if not any(o.lines for o in outcomes):
        return GuidedResult(tuple(inputs), tuple(outcomes), 0, 0, ())
    lines, parents = _function_lines(program.source)
    covered: set[int] = set()
    for o in outcomes:
        covered.update(o.lines or ())
    missed = lines - covered
    replaceable = len(inputs) - seed_count
    if not missed or replaceable <= 0 or max_added <= 0 or executions <= 0:
        return GuidedResult(tuple(inputs), tuple(outcomes), 0, 0, tuple(sorted(missed)))
    guards = _guard_constants(program.source)  # analysis only, needed when lines were missed
    rng = random.Random(f"{seed}:coverage-additions:{program.source}:{inputs[0] if inputs else ''}")
    try:
        seeds = [parse_args(t) for t in inputs[:seed_count]]
    except InputError:
        return GuidedResult(tuple(inputs), tuple(outcomes), 0, 0, tuple(sorted(missed)))
    literals = list(literals)
    added: list[tuple[str, Any]] = []
    spent = 0
    taken = set(inputs)
    parents_pool = list(zip(inputs, outcomes))
    neighbours: dict[str, list] = {}
    for _round in range(2):
        if not missed or len(added) >= min(max_added, replaceable):
            break
        # parents: inputs that executed the nearest executed statement around a missed line
        near = set()
        for ln in missed:
            near.update(p for p in parents.get(ln, [])[:1] if p in covered)
        pool = [(t, o) for t, o in parents_pool if o.lines and near.intersection(o.lines)] or parents_pool
        cands: list[str] = []
        # first, the constants of the conditions guarding the missed lines put into the
        # arguments of the parents (``if c in ['p', 'C']`` needs an argument equal to 'p')
        for c in _planted(pool, [guards.get(ln, set()) for ln in sorted(missed)], seeds, rng, executions // 2):
            if c not in taken:
                taken.add(c)
                cands.append(c)
        tries = 0
        while len(cands) < executions and tries < executions * 20:
            tries += 1
            text, _ = rng.choice(pool)
            try:
                args, kwargs = parse_args(text)
            except InputError:
                continue
            r = rng.random()
            if r < 0.67:
                space = MutationSpace((args, kwargs), literals)
                if r < 0.33:  # a systematic one-step neighbour (boundary lengths, literals...)
                    if text not in neighbours:
                        neighbours[text] = list(itertools.islice(space.neighbours((args, kwargs)), 400))
                    near_ = neighbours[text]
                    if not near_:
                        continue
                    m_args, m_kwargs = rng.choice(near_)
                else:
                    m_args, m_kwargs = space.mutate((args, kwargs), rng, steps=rng.randint(1, 3))
                if not _fits_any(m_args, m_kwargs, seeds):
                    continue
                try:
                    cand = format_args(m_args, m_kwargs)
                except InputError:
                    continue
            else:
                ms = mutate_args(text, 1, random.Random(rng.getrandbits(64)), literals)
                if not ms:
                    continue
                cand = ms[0]
            if cand not in taken:
                taken.add(cand)
                cands.append(cand)
        if not cands:
            break
        outs = sandbox.run_batch([ExecRequest(program.source, program.entry_point, c, trace=True, timeout=timeout,
                                              cpu_timeout=cpu_timeout, max_lines=max_lines, types=types)
                                  for c in cands])
        spent += len(cands)
        found = []
        for c, o in zip(cands, outs):
            if len(added) >= min(max_added, replaceable):
                break
            new = missed.intersection(o.lines or ())
            if new and o.completed:
                added.append((c, o))
                found.append((c, o))
                missed -= new
                covered |= new
        if found:  # the next round mutates what reached new code; else it tries again
            parents_pool = found
    if not added:
        return GuidedResult(tuple(inputs), tuple(outcomes), 0, spent, tuple(sorted(missed)))
    # replace mutants from the end whose lines the remaining inputs also execute
    keep = list(range(len(inputs)))
    drop: list[int] = []
    count = {}
    for o in outcomes:
        for ln in set(o.lines or ()):
            count[ln] = count.get(ln, 0) + 1
    for k in range(len(inputs) - 1, seed_count - 1, -1):
        if len(drop) == len(added):
            break
        mine = set(outcomes[k].lines or ())
        if all(count.get(ln, 0) > 1 for ln in mine):
            drop.append(k)
            for ln in mine:
                count[ln] -= 1
    for k in range(len(inputs) - 1, seed_count - 1, -1):  # not enough redundant ones: the last
        if len(drop) == len(added):
            break
        if k not in drop:
            drop.append(k)
    keep = [k for k in keep if k not in set(drop)]
    new_inputs = [inputs[k] for k in keep] + [c for c, _ in added]
    new_outcomes = [outcomes[k] for k in keep] + [o for _, o in added]
    return GuidedResult(tuple(new_inputs), tuple(new_outcomes), len(added), spent, tuple(sorted(missed)))


def _guard_constants(source: str) -> dict[int, set]:
    """For each statement line inside a function, the constants (numbers, strings, bytes)
    in the tests of the ``if``/``while`` statements and the iterables of the ``for``
    statements enclosing it (analysis with :mod:`ast` only)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    out: dict[int, set] = {}

    def consts(node: ast.AST) -> set:
        found = set()
        for n in ast.walk(node):
            if isinstance(n, ast.Constant) and type(n.value) in (int, float, str, bytes) \
                    and not (isinstance(n.value, (str, bytes)) and len(n.value) > 40):
                found.add(n.value)
        return found

    def visit(body: list, inherited: set) -> None:
        for stmt in body:
            out.setdefault(stmt.lineno, set()).update(inherited)
            own = set(inherited)
            if isinstance(stmt, (ast.If, ast.While)):
                own |= consts(stmt.test)
            elif isinstance(stmt, (ast.For, ast.AsyncFor)):
                own |= consts(stmt.iter)
            for field_name in ("body", "orelse", "finalbody"):
                sub = getattr(stmt, field_name, None)
                if isinstance(sub, list) and sub and isinstance(sub[0], ast.stmt):
                    visit(sub, own)
            for h in getattr(stmt, "handlers", ()) or ():
                visit(h.body, own)

    visit(tree.body, set())
    return out


def _planted(pool: list, guard_sets: list, seeds: list, rng: random.Random, limit: int) -> list[str]:
    """Argument lists made from the inputs of ``pool`` by putting one guard constant in
    place of an argument of its exact type, of an element of a list/tuple/set argument of
    its type, or (a string) at either end of a string argument; type-preserving only."""
    constants = sorted({(type(c).__name__, repr(c)): c for g in guard_sets for c in g}.items())
    if not constants or limit <= 0:
        return []
    out: list[str] = []
    parents = [t for t, _ in pool[:3]]
    for text in parents:
        try:
            args, kwargs = parse_args(text)
        except InputError:
            continue
        values = list(args) + [kwargs[k] for k in kwargs]
        for _, c in constants:
            for i, v in enumerate(values):
                options = []
                if type(v) is type(c):
                    options.append(c)
                    if isinstance(v, (str, bytes)):
                        options += [c + v, v + c]
                elif type(v) in (list, tuple) and any(type(e) is type(c) for e in v):
                    k = [j for j, e in enumerate(v) if type(e) is type(c)][0]
                    options.append(type(v)(list(v[:k]) + [c] + list(v[k + 1:])))
                elif type(v) in (set, frozenset) and any(type(e) is type(c) for e in v):
                    options.append(type(v)(list(v) + [c]))
                for o in options:
                    new = values[:i] + [o] + values[i + 1:]
                    n_args, n_kwargs = new[:len(args)], dict(zip(kwargs, new[len(args):]))
                    if not _fits_any(n_args, n_kwargs, seeds):
                        continue
                    try:
                        out.append(format_args(n_args, n_kwargs))
                    except InputError:
                        continue
    out = list(dict.fromkeys(out))
    if len(out) > limit:
        out = rng.sample(out, limit)
    return out


def _fits_any(args: list, kwargs: dict, seeds: list[tuple[list, dict]]) -> bool:
    """The argument list has the shape of one of the seeds and every argument fits it
    (:func:`~codemorph.inputs.values.fits`)."""
    for s_args, s_kwargs in seeds:
        if len(s_args) == len(args) and list(s_kwargs) == list(kwargs) \
                and all(fits(v, s) for v, s in zip(args, s_args)) \
                and all(fits(kwargs[k], s_kwargs[k]) for k in kwargs):
            return True
    return False


@dataclass(frozen=True)
class GuidedResult:
    """What :func:`coverage_additions` did.

    Attributes:
        inputs: the input list after the additions (same length as before).
        outcomes: the traced outcomes of the original program on ``inputs``.
        added: how many inputs were added (as many mutants were replaced).
        executions: candidate executions spent (0 when nothing was missed).
        missed: executable lines of the program's functions no input executed.
    """

    inputs: tuple[str, ...]
    outcomes: tuple[Any, ...]
    added: int
    executions: int
    missed: tuple[int, ...]