"""The perturbation search: find inputs near a seed input that raise a chosen exception
class, raise anything, or return a different output.

One search serves every target at once: each execution is classified by what it did
(raised ``IndexError``, returned another value...) and credited to every target it
satisfies, so asking for ten exception classes costs little more than asking for one.

Phases, in order, until each target has enough findings or the budget is spent:

1. the seed input itself (the baseline output, the seed's coverage);
2. ``z3``: inputs solved from the program's arithmetic raising conditions
   (:mod:`codemorph.perturb.symbolic`);
3. ``mutation``: every systematic one-step neighbour of the seed
   (:meth:`MutationSpace.neighbours`), sampled down to part of the budget when there are
   more; the boundary integers and the priority neighbours (template tokens for programs
   that format a non-literal template, cross-argument values, coordinated resizes of
   same-typed arguments and coordinated fills of arguments that are all empty in the seed:
   :meth:`MutationSpace.priority_neighbours`) always run first;
4. ``mutation``: two-edit mutants, each priority neighbour combined with one of the
   simplest one-step neighbours of another argument
   (:meth:`MutationSpace.paired_neighbours`; at most :data:`PAIR_SHARE` of the budget);
5. ``mutation`` and ``guided`` interleaved: random multi-step mutants of the seed (some
   of them starting from a priority neighbour: coordinated two-step edits), and
   mutants of the inputs that covered new arcs or came closest to raising each class
   (:mod:`codemorph.perturb.guided`);
6. ``crosshair`` when asked for and installed (:mod:`codemorph.perturb.symbolic`);
7. shrinking of the best findings toward the seed (:mod:`codemorph.perturb.shrink`);
8. confirmation: each kept input is re-run on the *original* program in a fresh process
   and must show the same class (``RecursionError`` also at recursion limit 20,000, so that
   it does not depend on the exact stack depth) or the same output, which must round-trip
   through ``repr``.

Timeouts, memory exhaustion, crashes and output floods are never findings.  A search
ends early when every target has its findings at distance 1, when phase 5 has brought
nothing new for :attr:`Budget.patience` executions, or after six timeouts (a program that
hangs near its seed).  Everything random derives from ``seed`` and the program and input
text, so the same call gives the same result when the execution budget (not the seconds
budget) is what ends the search.
"""

from __future__ import annotations

import ast
import itertools
import random
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Sequence

import libcst as cst

from codemorph.errors import InputError
from codemorph.inputs import format_args, format_value, parse_args
from codemorph.engine.program import Program
from codemorph.sandbox.pool import ExceptionInfo, ExecRequest, Limits, Outcome, Sandbox
from codemorph.engine.transform import derive_seed
from codemorph.perturb.distance import args_distance, tie_break
from codemorph.perturb.guided import PREFIX, CoverageMap, Instrumented, instrument, read_probes
from codemorph.inputs import MutationSpace, is_type_changing
from codemorph.perturb.shrink import shrink

__all__ = ["Budget", "Perturbation", "SearchReport", "search", "search_many", "ANY_EXCEPTION", "OUTPUT_CHANGE",
           "DEFAULT_STRATEGIES", "ALL_STRATEGIES", "search_limits", "program_constants", "parse_input",
           "format_input", "Verbatim", "literal_seed", "SEARCH_CPU_TIMEOUT", "program_tokens",
           "FORMAT_TOKENS", "PERCENT_TOKENS", "CODEC_TOKENS",
           "program_elements"]

ANY_EXCEPTION = "any-exception"
OUTPUT_CHANGE = "output-change"
#: strategies run by default (CrossHair is opt-in: it needs ``codemorph[crosshair]`` and seconds per program)
DEFAULT_STRATEGIES = ("mutation", "guided", "z3")
ALL_STRATEGIES = ("mutation", "guided", "z3", "crosshair")

_BATCH = 64
#: a confirmed finding must run faster than this many wall-clock seconds (the checker
#: allows 5; its CPU time is below SEARCH_CPU_TIMEOUT already)
_MAX_CONFIRMED_DURATION = 2.0
#: share of the execution budget at most spent on two-edit mutants (phase 4)
PAIR_SHARE = 0.1
#: the search of a program ends after this many executions timed out (each costs the
#: whole per-execution timeout; such a program hangs on most inputs near the seed)
_MAX_TIMEOUTS = 6


#: CPU seconds per search execution (``ExecRequest.cpu_timeout``): a mutant that computes
#: longer is no natural benchmark input.  CPU time, unlike wall-clock time, does not grow
#: with the machine's load, so what times out does not depend on it.
SEARCH_CPU_TIMEOUT = 0.25


def search_limits() -> Limits:
    """Sandbox limits used while searching: 2 s wall-clock per execution as a backstop (the
    search's requests also carry a CPU limit of :data:`SEARCH_CPU_TIMEOUT` seconds), 1 GiB
    of address space, recursion limit 10,000."""
    return Limits(timeout=2.0, memory=1 << 30, output=1 << 16, recursion_limit=10000, grace=0.5)


@dataclass(frozen=True)
class Verbatim:
    """An argument of a seed input that is not a literal (``lambda x: x < 2``,
    ``range(100, 120)``): every perturbation keeps it as its source text (it is never
    mutated, and it counts as unchanged in distances and type checks).

    Attributes:
        text: the argument's source text, as written in the seed input.
    """

    text: str

    def __repr__(self) -> str:
        return f"({self.text})"


def parse_input(text: str, verbatim: bool = False) -> tuple[list, dict]:
    """Parse an argument-list literal with :func:`codemorph.inputs.parse_args`.

    Args:
        text: the argument list, e.g. ``"'abc', [1, 2]"``.
        verbatim: when some arguments are not literals, keep them as :class:`Verbatim`
            values instead of failing, provided at least one argument is a literal.

    Raises:
        InputError: ``text`` is not an argument list; or an argument is not a literal
            (``verbatim=False``), or none is (``verbatim=True``).
    """
    try:
        return parse_args(text)
    except InputError as exc:
        if not verbatim:
            raise
        first = exc
    src = f"f({text}\n)"
    try:
        call = ast.parse(src, mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        raise first from None
    if not isinstance(call, ast.Call):
        raise first

    def one(node: ast.AST) -> Any:
        seg = ast.get_source_segment(src, node)
        if seg is None or isinstance(node, ast.Starred):
            raise first
        try:
            vals, kws = parse_args(seg)
            if len(vals) == 1 and not kws:
                return vals[0]
        except InputError:
            pass
        return Verbatim(seg)

    args = [one(n) for n in call.args]
    kwargs: dict = {}
    for kw in call.keywords:
        if kw.arg is None:
            raise first
        kwargs[kw.arg] = one(kw.value)
    values = args + list(kwargs.values())
    if all(isinstance(v, Verbatim) for v in values):
        raise first  # nothing to perturb
    return args, kwargs


def format_input(args: tuple[list, dict]) -> str:
    """Format ``(args, kwargs)`` with :func:`codemorph.inputs.format_args`; a
    :class:`Verbatim` argument is written as its source text in parentheses."""
    pos, kw = args
    if not any(type(v) is Verbatim for v in list(pos) + list(kw.values())):
        return format_args(pos, kw)
    parts = [repr(v) if type(v) is Verbatim else format_value(v) for v in pos]
    parts += [f"{k}={repr(v) if type(v) is Verbatim else format_value(v)}" for k, v in kw.items()]
    return ", ".join(parts)


@dataclass(frozen=True)
class Budget:
    """How much one search may spend.

    Attributes:
        executions: sandbox executions for the search phases (seed, z3, mutation, guided).
        seconds: wall-clock seconds for the same phases (checked between batches); when it
            runs out first, the result depends on machine speed: for reproducible output
            make ``executions`` the binding limit.
        shrink: executions per kept finding for shrinking, on top of ``executions``.
        crosshair_seconds: wall-clock seconds for the CrossHair strategy (hard limit).
        patience: after the one-step neighbours, the random and guided phase ends when
            this many executions in a row brought nothing new (no new exception class, no
            new covered line or arc, no probe closer to raising); 0 (the default) = never.  On
            CRUXEval 500 saved 27% of the executions and lost 1-2 programs per class.
    """

    executions: int = 1500
    seconds: float = 20.0
    shrink: int = 60
    crosshair_seconds: float = 10.0
    patience: int = 0


@dataclass(frozen=True)
class Perturbation:
    """One input found by the search.

    Attributes:
        input: the new argument-list literal (str), called as ``f(<input>)``.
        target: the target it satisfies (an exception class name, ``"any-exception"`` or
            ``"output-change"``).
        status: ``"raised"`` or ``"returned"``.
        exception: class name, message and raising line (``ExceptionInfo``) when raised.
        output: ``repr`` of the returned value when returned, else ``None``.
        distance: edit distance from the seed input (:mod:`codemorph.perturb.distance`).
        strategy: which strategy found it: ``mutation``, ``guided``, ``z3`` or ``crosshair``.
        type_changing: some argument, element, key or value changed type.
        executions: executions the search had spent when it first found this input's class.
        seconds: wall-clock seconds the search had spent then.
    """

    input: str
    target: str
    status: str
    exception: ExceptionInfo | None
    output: str | None
    distance: int
    strategy: str
    type_changing: bool = False
    executions: int = 0
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        """A JSON-able dict of every field."""
        e = self.exception
        return {"input": self.input, "target": self.target, "status": self.status,
                "exception": None if e is None else {"type": e.type, "message": e.message, "line": e.line},
                "output": self.output, "distance": self.distance, "strategy": self.strategy,
                "type_changing": self.type_changing, "executions": self.executions, "seconds": self.seconds}


@dataclass
class SearchReport:
    """Result of :func:`search_many`.

    Attributes:
        found: target -> perturbations, ranked by distance (smallest first).
        executions: sandbox executions spent in total (search, shrinking, confirmation).
        seconds: wall-clock seconds spent.
        seed_outcome: what the seed input did.
        skipped: why nothing was searched (seed timed out, input not a literal...), or None.
    """

    found: dict[str, list[Perturbation]] = field(default_factory=dict)
    executions: int = 0
    seconds: float = 0.0
    seed_outcome: Outcome | None = None
    skipped: str | None = None


@dataclass
class _Run:
    literal: str
    args: tuple
    strategy: str
    outcome: Outcome
    probes: dict
    executions: int
    seconds: float


def program_constants(module: cst.Module) -> list:
    """Constants written in the program (integers, floats, strings, bytes), in source order
    without repeats; used as mutation values."""
    out: list = []
    seen: set = set()

    class V(cst.CSTVisitor):
        def _add(self, node: cst.CSTNode) -> None:
            try:
                v = ast.literal_eval(cst.Module([]).code_for_node(node))
            except Exception:
                return
            key = (type(v).__name__, repr(v))
            if key not in seen:
                seen.add(key)
                out.append(v)

        def visit_Integer(self, node: cst.Integer) -> None:
            self._add(node)

        def visit_Float(self, node: cst.Float) -> None:
            self._add(node)

        def visit_SimpleString(self, node: cst.SimpleString) -> None:
            self._add(node)

        def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
            if isinstance(node.operator, cst.Minus) and isinstance(node.expression, (cst.Integer, cst.Float)):
                self._add(node)

    module.visit(V())
    return out


#: strings inserted into string arguments of a program that formats a non-literal template
#: (``text.format(...)``, ``text.format_map(...)``): an unmatched brace raises
#: ``ValueError``, a named field ``KeyError``, a positional index past the arguments
#: ``IndexError``, and so does an item index past the end of a supplied value (``'{a[9]}'``
#: with ``a`` a short string or list; the two-edit phase supplies ``a`` to a mapping argument)
FORMAT_TOKENS = ("{", "{a}", "{9}", "{a[9]}")
#: the same for ``text % values`` with a non-literal template: an incomplete or unknown
#: conversion raises ``ValueError``, a mapping key ``KeyError`` (or ``TypeError``)
PERCENT_TOKENS = ("%", "%(a)s")
#: the same for a codec name the program passes on (``text.encode(encoding)``,
#: ``data.decode(codec)``): CPython looks codec names up as C strings and rejects an
#: embedded null character with ``ValueError`` (an unknown name raises ``LookupError``,
#: which programs tend to catch)
CODEC_TOKENS = ("\x00",)
#: methods whose first argument (or ``encoding=``/``errors=``) is a codec or error-handler name
_CODEC_METHODS = ("encode", "decode")


def program_tokens(module: cst.Module) -> list[str]:
    """Template tokens worth inserting into the string arguments of a program
    (:data:`FORMAT_TOKENS` when it calls ``.format``/``.format_map`` on something other
    than a string literal, :data:`PERCENT_TOKENS` when it applies ``%`` to a name, attribute,
    subscript or call with a right operand that is not a number literal,
    :data:`CODEC_TOKENS` when it calls ``.encode``/``.decode`` with a codec or error-handler
    name that is not a literal); ``[]`` for most programs.  Used by
    :meth:`~codemorph.inputs.MutationSpace.priority_neighbours`."""
    found: dict[str, None] = {}
    literal = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)

    class V(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            f = node.func
            if isinstance(f, cst.Attribute) and f.attr.value in ("format", "format_map") \
                    and not isinstance(f.value, literal):
                found.update(dict.fromkeys(FORMAT_TOKENS))
            if isinstance(f, cst.Attribute) and f.attr.value in _CODEC_METHODS \
                    and any(not isinstance(a.value, literal) for a in node.args
                            if a.keyword is None or a.keyword.value in ("encoding", "errors")):
                found.update(dict.fromkeys(CODEC_TOKENS))

        def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
            if isinstance(node.operator, cst.Modulo) \
                    and isinstance(node.left, (cst.Name, cst.Attribute, cst.Subscript, cst.Call)) \
                    and not isinstance(node.right, (cst.Integer, cst.Float, cst.UnaryOperation)):
                found.update(dict.fromkeys(PERCENT_TOKENS))

    module.visit(V())
    return list(found)


def program_elements(module: cst.Module) -> list[str]:
    """Values worth giving, as elements or keys, to the containers that are empty in the
    seed (whose element type the seed does not show): :data:`PERCENT_TOKENS` when the
    program applies ``%`` to a name, attribute or subscript, whatever the right operand
    (``key % 2`` formats a string key: ``'%'`` raises ``ValueError``); ``[]`` otherwise.
    Used as :class:`~codemorph.inputs.MutationSpace` ``elements``."""
    found: dict[str, None] = {}

    class V(cst.CSTVisitor):
        def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
            if isinstance(node.operator, cst.Modulo) and isinstance(node.left, (cst.Name, cst.Attribute,
                                                                                 cst.Subscript)):
                found.update(dict.fromkeys(PERCENT_TOKENS[:1]))

    module.visit(V())
    return list(found)


def _has_big_int(args: tuple) -> bool:
    """Whether a whole integer argument is one of :data:`~.mutation.BIG_INTS`-sized."""
    return any(type(v) is int and abs(v) >= 2**63 for v in list(args[0]) + list(args[1].values()))


def _targets_hit(o: Outcome, seed_fp: Any) -> list[str]:
    if o.status == "raised" and o.exception is not None:
        return [o.exception.type, ANY_EXCEPTION]
    if o.status == "returned" and o.literal_ok and o.value_repr is not None and o.comparable \
            and o.fingerprint != seed_fp:
        return [OUTPUT_CHANGE]
    return []


class _Engine:
    def __init__(self, sandbox: Sandbox, program: Program, seed_input: str, targets: Sequence[str],
                 budget: Budget, seed: int, strategies: Sequence[str], allow_type_change: bool,
                 want: dict[str, int]) -> None:
        self.sb = sandbox
        self.program = program
        self.seed_input = seed_input
        self.targets = list(dict.fromkeys(targets))
        self.budget = budget
        self.strategies = set(strategies)
        self.allow_type_change = allow_type_change
        self.want = want
        self.rng = random.Random(derive_seed(seed, "perturb", program.source, program.entry_point, seed_input))
        self.seed_args = parse_input(seed_input, verbatim=True)
        self.space = MutationSpace(self.seed_args, program_constants(program.module), allow_type_change,
                                   tokens=program_tokens(program.module), elements=program_elements(program.module))
        # the guided strategy moves locally (seed characters and boundary values, no
        # program literals): big jumps are the mutation strategy's job
        self.local_space = MutationSpace(self.seed_args, (), allow_type_change)
        #: template-token and cross-argument mutants of the seed (run first among the
        #: neighbours, and parents of some random mutants: coordinated two-step edits)
        self.priority = list(itertools.islice(self.space.priority_neighbours(self.seed_args), 2 * _BATCH))
        self.inst: Instrumented | None = None
        if "guided" in self.strategies:
            self.inst = instrument(program.module, program.entry_point)
        self.cov = CoverageMap(self.inst.original_lines if self.inst else 10**9)
        self.seen: dict[str, _Run | None] = {}
        self.hits: dict[str, dict[str, _Run]] = {t: {} for t in self.targets}
        self.near: dict[str, int] = {t: 0 for t in self.targets}  # findings at distance 1
        self.neighbours_done = "mutation" not in self.strategies
        self.neighbours_exhausted = False  # every one-step neighbour was run
        self.corpus: list[_Run] = []
        self.best_gap: dict[str, tuple[float, int, _Run]] = {}
        self.executions = 0
        self.t0 = time.perf_counter()
        self.seed_fp: Any = None
        self.timeouts = 0
        self.classes_seen: set[str] = set()
        self.last_novel = 0  # executions count at the last novelty (see Budget.patience)

    # -- execution --------------------------------------------------------------------
    def elapsed(self) -> float:
        return time.perf_counter() - self.t0

    def out_of_budget(self) -> bool:
        return (self.executions >= self.budget.executions or self.elapsed() >= self.budget.seconds
                or self.timeouts >= _MAX_TIMEOUTS)

    def satisfied(self, t: str) -> bool:
        """Enough findings for ``t``: ``want`` of them at distance 1 (nothing can be
        closer), or ``want`` at any distance once the one-step neighbours are all tried."""
        want = self.want.get(t, 1)
        if self.near[t] >= want:
            return True
        return self.neighbours_done and len(self.hits[t]) >= want

    def all_satisfied(self) -> bool:
        return all(self.satisfied(t) for t in self.targets)

    def request(self, literal: str, trace: bool = False) -> ExecRequest:
        if self.inst is not None:
            return ExecRequest(self.inst.code, self.inst.entry_point, literal, trace=trace,
                               cpu_timeout=SEARCH_CPU_TIMEOUT * (2 if trace else 1))
        return ExecRequest(self.program.source, self.program.entry_point, literal, cpu_timeout=SEARCH_CPU_TIMEOUT)

    def run(self, cands: Iterable[tuple[tuple, str]], limit: int | None = None) -> list[_Run]:
        """Run new candidates (skipping ones seen before), classify and record them."""
        fresh: list[tuple[str, tuple, str]] = []
        room = self.budget.executions - self.executions if limit is None else limit
        for args, strategy in cands:
            if len(fresh) >= room:
                break
            try:
                lit = format_input(args)
            except Exception:
                continue
            if lit in self.seen or lit == self.seed_input:
                continue
            self.seen[lit] = None
            fresh.append((lit, args, strategy))
        if not fresh:
            return []
        # coverage is traced for the guided strategy's candidates only (tracing costs ~40%)
        outs = self.sb.run_batch([self.request(lit, trace=(strategy == "guided")) for lit, _, strategy in fresh])
        self.executions += len(fresh)
        runs = []
        now = self.elapsed()
        for (lit, args, strategy), o in zip(fresh, outs):
            probes: dict = {}
            if self.inst is not None:
                probes, stdout = read_probes(o.stdout)
                o = replace(o, stdout=stdout)
            r = _Run(lit, args, strategy, o, probes, self.executions, now)
            self.seen[lit] = r
            runs.append(r)
            self._record(r)
        return runs

    def _record(self, r: _Run) -> None:
        o = r.outcome
        if o.status == "timeout" and not _has_big_int(r.args):  # a huge loop bound is expected to time out
            self.timeouts += 1
        if o.status == "raised" and o.exception is not None and o.exception.type not in self.classes_seen:
            self.classes_seen.add(o.exception.type)
            self.last_novel = self.executions
        hit = [t for t in _targets_hit(o, self.seed_fp) if t in self.hits and len(self.hits[t]) < 200]
        if hit:
            near = args_distance(self.seed_args, r.args) <= 1
            for t in hit:
                if r.literal not in self.hits[t]:
                    self.hits[t][r.literal] = r
                    self.near[t] += near
        if self.inst is not None and o.lines is not None:
            if self.cov.add(o.lines, o.arcs):
                self.last_novel = self.executions
                if len(self.corpus) < 500:
                    self.corpus.append(r)
        if r.probes:
            d: int | None = None  # distance from the seed, computed only when needed
            for cls, sites in r.probes.items():
                if not isinstance(sites, dict) or not sites:
                    continue
                try:
                    gap = float(min(sites.values()))
                except (TypeError, ValueError):
                    continue
                for key in (cls, ANY_EXCEPTION):
                    old = self.best_gap.get(key)
                    if old is not None and gap > old[0]:
                        continue
                    if d is None:
                        d = args_distance(self.seed_args, r.args)
                    if old is None or (gap, d) < (old[0], old[1]):
                        if old is None or gap < old[0]:
                            self.last_novel = self.executions
                        self.best_gap[key] = (gap, d, r)

    # -- phases -----------------------------------------------------------------------
    def run_seed(self) -> Outcome:
        o = self.sb.run_batch([self.request(self.seed_input, trace=True)])[0]
        self.executions += 1
        probes: dict = {}
        if self.inst is not None:
            probes, stdout = read_probes(o.stdout)
            o = replace(o, stdout=stdout)
            if o.status not in ("returned", "raised") or (
                    o.status == "raised" and o.exception and o.exception.type == "NameError"
                    and PREFIX in o.exception.message):
                # the traced, instrumented copy does not run to an end (e.g. deep recursion is
                # too slow under tracing): search the original program, without guidance
                self.inst = None
                o = self.sb.run_batch([self.request(self.seed_input)])[0]
                self.executions += 1
        self.seed_fp = o.fingerprint if o.status == "returned" else None
        r = _Run(self.seed_input, self.seed_args, "seed", o, probes, self.executions, self.elapsed())
        self.seen[self.seed_input] = r
        if self.inst is not None and o.lines is not None:
            self.cov.add(o.lines, o.arcs)
            self.corpus.append(r)
        if probes:
            for cls, sites in probes.items():
                if isinstance(sites, dict) and sites:
                    gap = float(min(sites.values()))
                    for key in (cls, ANY_EXCEPTION):
                        old = self.best_gap.get(key)
                        if old is None or gap < old[0]:
                            self.best_gap[key] = (gap, 0, r)
        return o

    def phase_z3(self) -> None:
        from codemorph.perturb.symbolic import z3_candidates
        try:
            cands = z3_candidates(self.program, self.seed_args, max_candidates=24)
        except Exception:  # the solver is a heuristic helper: never fail the search for it
            return
        for k in range(0, len(cands), _BATCH):
            if self.out_of_budget():
                return
            self.run([(c, "z3") for c in cands[k:k + _BATCH]])

    def phase_neighbours(self) -> None:
        cap = max(_BATCH, int(self.budget.executions * 0.45))
        pool = list(itertools.islice(self.space.neighbours(self.seed_args), 30000))
        # the boundary integers (at most two per integer argument) and the priority
        # neighbours (template tokens, cross-argument values) always run
        # (a repeat of an input is skipped by ``run`` without an execution)
        big = [c for c in pool if _has_big_int(c)]
        big += self.priority
        if big:
            pool = big + [c for c in pool if not _has_big_int(c)]
        self.neighbours_exhausted = len(pool) <= cap
        if len(pool) > cap:
            # keep the structural edits (first in enumeration order), sample the rest
            head = pool[: max(cap // 3, len(big))]
            rest = self.rng.sample(pool[len(head):], max(0, cap - len(head)))
            pool = head + rest
        for k in range(0, len(pool), _BATCH):
            if self.out_of_budget() or self.all_satisfied():
                break
            self.run([(c, "mutation") for c in pool[k:k + _BATCH]])
        self.neighbours_done = True

    def phase_pairs(self) -> None:
        """Two-edit mutants (:meth:`MutationSpace.paired_neighbours`): every priority
        neighbour combined with the simplest neighbours of another argument, at most
        :data:`PAIR_SHARE` of the execution budget."""
        if not self.priority or self.all_satisfied():
            return
        cap = int(self.budget.executions * PAIR_SHARE)
        pool = list(itertools.islice(self.space.paired_neighbours(self.seed_args, self.priority), cap))
        for k in range(0, len(pool), _BATCH):
            if self.out_of_budget() or self.all_satisfied():
                break
            self.run([(c, "mutation") for c in pool[k:k + _BATCH]])

    def _guided_parent(self) -> tuple | None:
        unmet = [t for t in self.targets if not self.satisfied(t) and t in self.best_gap]
        if unmet and self.rng.random() < 0.7:
            t = self.rng.choice(unmet)
            return self.best_gap[t][2].args
        if self.corpus:
            # prefer recent corpus entries and the ones near the seed
            k = len(self.corpus)
            idx = min(k - 1, int(k * (1 - self.rng.random() ** 2)))
            return self.corpus[idx].args
        return None

    def phase_random(self) -> None:
        guided = "guided" in self.strategies and self.inst is not None
        mutation = "mutation" in self.strategies
        if not (guided or mutation):
            return
        stall = 0
        self.last_novel = max(self.last_novel, self.executions - self.budget.patience // 2)
        while not self.out_of_budget() and not self.all_satisfied():
            if self.budget.patience and self.executions - self.last_novel >= self.budget.patience:
                return
            cands: list[tuple[tuple, str]] = []
            fresh: set[str] = set()
            tries = 0
            while len(cands) < _BATCH and tries < _BATCH * 3:
                tries += 1
                use_guided = guided and (not mutation or self.rng.random() < 0.5)
                if use_guided:
                    parent = self._guided_parent()
                    if parent is None:
                        use_guided = False
                if use_guided:
                    steps = 1 if self.rng.random() < 0.6 else 2
                    c, how = self.local_space.mutate(parent, self.rng, steps), "guided"
                elif mutation:
                    # one-step mutants were enumerated already when the pool was small enough
                    steps = min(4, 1 + int(self.rng.expovariate(0.9)))
                    if self.neighbours_exhausted and steps == 1:
                        steps = 2
                    base = self.seed_args
                    if self.priority and self.rng.random() < 0.15:
                        base, steps = self.rng.choice(self.priority), steps - 1 if steps > 1 else 1
                    c, how = self.space.mutate(base, self.rng, steps), "mutation"
                else:
                    continue
                try:
                    lit = format_input(c)
                except Exception:
                    continue
                if lit in self.seen or lit in fresh:
                    continue
                fresh.add(lit)
                cands.append((c, how))
            runs = self.run(cands)
            stall = stall + 1 if len(runs) < _BATCH // 4 else 0
            if stall >= 3:  # the reachable space is (nearly) exhausted
                return

    def phase_crosshair(self) -> None:
        from codemorph.perturb.symbolic import crosshair_candidates
        unmet = [t for t in self.targets if not self.satisfied(t)]
        if not unmet:
            return
        cands = crosshair_candidates(self.sb, self.program, self.seed_args, self.budget.crosshair_seconds)
        for k in range(0, len(cands), _BATCH):
            self.run([(c, "crosshair") for c in cands[k:k + _BATCH]], limit=_BATCH)

    # -- shrinking and confirmation ------------------------------------------------------
    def _accepts(self, target: str, o: Outcome) -> bool:
        hit = _targets_hit(o, self.seed_fp)
        if target in (ANY_EXCEPTION, OUTPUT_CHANGE):
            return target in hit
        return o.status == "raised" and o.exception is not None and o.exception.type == target

    def _shrink_one(self, target: str, r: _Run) -> _Run:
        found_at = (r.executions, r.seconds, r.strategy)

        def check(cands: list[tuple]) -> list[bool]:
            runs = self.run([(c, r.strategy) for c in cands], limit=len(cands))
            by_lit = {x.literal: x for x in runs}
            ok = []
            for c in cands:
                try:
                    lit = format_input(c)
                except Exception:
                    ok.append(False)
                    continue
                x = by_lit.get(lit) or self.seen.get(lit)
                ok.append(x is not None and self._accepts(target, x.outcome))
            return ok

        small, _ = shrink(self.seed_args, r.args, check, budget=self.budget.shrink)
        try:
            lit = format_input(small)
        except Exception:
            return r
        x = self.seen.get(lit)
        if x is None or x is r:
            return r
        return _Run(x.literal, x.args, found_at[2], x.outcome, x.probes, found_at[0], found_at[1])

    def ranked(self, target: str) -> list[_Run]:
        """Findings of ``target``, closest first; among output changes at the same distance,
        inputs whose output no earlier finding gave come before repeats of an output."""
        runs = list(self.hits[target].values())
        runs.sort(key=lambda x: (args_distance(self.seed_args, x.args), tie_break(self.seed_args, x.args, x.literal),
                                 x.literal))
        if target == OUTPUT_CHANGE:
            seen: set[str] = set()
            repeat: dict[str, bool] = {}
            for x in runs:
                repeat[x.literal] = x.outcome.value_repr in seen
                seen.add(x.outcome.value_repr or "")
            runs.sort(key=lambda x: (args_distance(self.seed_args, x.args), repeat[x.literal]))
        return runs

    def finish(self, max_results: int, recursion_sandbox: Callable[[], Sandbox]) -> dict[str, list[Perturbation]]:
        out: dict[str, list[Perturbation]] = {}
        for t in self.targets:
            keep = max(max_results, self.want.get(t, 1))
            chosen: list[_Run] = []
            for r in self.ranked(t)[: keep + 2]:
                if args_distance(self.seed_args, r.args) > 1:
                    r = self._shrink_one(t, r)
                if all(r.literal != c.literal for c in chosen):
                    chosen.append(r)
            order = {r.literal: k for k, r in enumerate(chosen)}
            chosen.sort(key=lambda x: (args_distance(self.seed_args, x.args), order[x.literal]))
            out[t] = self._confirm(t, chosen, keep, recursion_sandbox)
        return out

    def _confirm(self, target: str, runs: list[_Run], keep: int,
                 recursion_sandbox: Callable[[], Sandbox]) -> list[Perturbation]:
        if not runs:
            return []
        reqs = [ExecRequest(self.program.source, self.program.entry_point, r.literal, cpu_timeout=SEARCH_CPU_TIMEOUT)
                for r in runs]
        outs = self.sb.run_batch(reqs)
        self.executions += len(reqs)
        deep = [i for i, o in enumerate(outs) if o.status == "raised" and o.exception
                and o.exception.type == "RecursionError"]
        deep_ok: set[int] = set()
        if deep:
            outs2 = recursion_sandbox().run_batch([reqs[i] for i in deep])
            self.executions += len(deep)
            deep_ok = {i for i, o in zip(deep, outs2) if o.status == "raised" and o.exception
                       and o.exception.type == "RecursionError"}
        result: list[Perturbation] = []
        for i, (r, o) in enumerate(zip(runs, outs)):
            if len(result) >= keep:
                break
            if not self._accepts(target, o) or o.duration > _MAX_CONFIRMED_DURATION:
                continue
            first = r.outcome
            if o.status != first.status:
                continue
            if o.status == "raised" and (first.exception is None or o.exception.type != first.exception.type):
                continue
            if o.status == "returned" and o.fingerprint != first.fingerprint:
                continue
            if i in deep and i not in deep_ok:
                continue
            result.append(Perturbation(
                input=r.literal, target=target, status=o.status,
                exception=o.exception if o.status == "raised" else None,
                output=o.value_repr if o.status == "returned" else None,
                distance=args_distance(self.seed_args, r.args), strategy=r.strategy,
                type_changing=self.allow_type_change and is_type_changing(self.seed_args, r.args),
                executions=r.executions, seconds=round(r.seconds, 4)))
        return result


_SEED_MARK = "\x1e__codemorph_seed__"


def literal_seed(sandbox: Sandbox, program: Program, seed_input: str) -> str:
    """The seed input as a literal argument list.

    CRUXEval has a few inputs that are expressions (``''.join(['A'] * 20)``,
    ``dict(e=1)``, ``'$78'.upper()``).  Such an input is evaluated *in the sandbox*, after
    the program's module body (as the harness would), and replaced by the literal of its
    values when every value's ``repr`` is a literal that reads back.  Otherwise arguments
    that are not literals (lambdas, ranges) are kept as written (:class:`Verbatim`), and
    only the literal ones are perturbed.

    Raises:
        InputError: the input is not an argument list, or none of its arguments is a
            literal (``range(100, 120)`` alone: nothing to perturb).
    """
    try:
        parse_input(seed_input)
        return seed_input
    except InputError as exc:
        first = exc
    script = (program.source + "\n" +
              f"import sys as __cm_sys\n__cm_a, __cm_k = (lambda *a, **k: (list(a), k))({seed_input})\n"
              f"__cm_sys.stdout.write({_SEED_MARK!r} + repr(__cm_a) + '\\n' + repr(sorted(__cm_k)))\n")
    o = sandbox.run(ExecRequest(script, program.entry_point, None))
    k = o.stdout.rfind(_SEED_MARK) if o.status == "returned" else -1
    if k < 0:
        return _verbatim_seed(seed_input, first)
    text, _, kw = o.stdout[k + len(_SEED_MARK):].partition("\n")
    if kw.strip() != "[]" or not (text.startswith("[") and text.endswith("]")):
        return _verbatim_seed(seed_input, first)
    try:
        args = parse_input(text[1:-1])
    except InputError:
        return _verbatim_seed(seed_input, first)
    return format_input(args)


def _verbatim_seed(seed_input: str, error: InputError) -> str:
    """The seed with its non-literal arguments kept verbatim (see :class:`Verbatim`), or
    ``error`` raised when no argument is a literal."""
    try:
        return format_input(parse_input(seed_input, verbatim=True))
    except InputError:
        raise error from None


def _normalise_targets(targets: Iterable[str]) -> list[str]:
    out = []
    for t in targets:
        if not isinstance(t, str) or not t:
            raise ValueError(f"target must be an exception class name, {ANY_EXCEPTION!r} or {OUTPUT_CHANGE!r}; got {t!r}")
        if t not in (ANY_EXCEPTION, OUTPUT_CHANGE) and not t.isidentifier():
            raise ValueError(f"target {t!r} is not an exception class name")
        out.append(t)
    return out


def search_many(program: Program | str, seed_input: str, targets: Iterable[str], budget: Budget | None = None,
                seed: int = 0, *, strategies: Sequence[str] = DEFAULT_STRATEGIES, allow_type_change: bool = False,
                want: int | dict[str, int] = 1, max_results: int = 5, sandbox: Sandbox | None = None,
                entry_point: str = "f") -> SearchReport:
    """Search perturbations of ``seed_input`` for several targets at once (one shared search).

    Args:
        program: a :class:`~codemorph.Program` or its source text (then ``entry_point`` names
            the function to call).
        seed_input: the argument-list literal to perturb, e.g. ``"'abc', [1, 2]"``.
        targets: exception class names (``"IndexError"``...), ``"any-exception"``,
            ``"output-change"``.
        budget: a :class:`Budget` (executions and seconds); default ``Budget()``.
        seed: every random choice derives from it and from the program and input text.
        strategies: subset of :data:`ALL_STRATEGIES`.
        allow_type_change: also try inputs whose arguments change type (labelled).
        want: findings per target after which the search for that target stops (int, or
            a dict per target); the search ends when every target has them.
        max_results: most perturbations returned per target.
        sandbox: the :class:`~codemorph.sandbox.Sandbox` to use; default a temporary one
            with :func:`search_limits`.  Its limits apply to every execution.

    Returns:
        A :class:`SearchReport`; its ``found`` maps every target to a list, closest first.

    Raises:
        InputError: ``seed_input`` is not an argument-list literal.
        ParseError: ``program`` source does not parse.
        ValueError: an unknown strategy or a malformed target.
    """
    if isinstance(program, str):
        program = Program(program, entry_point)
    targets = _normalise_targets(targets)
    unknown = set(strategies) - set(ALL_STRATEGIES)
    if unknown:
        raise ValueError(f"unknown strategies {sorted(unknown)}; choose from {list(ALL_STRATEGIES)}")
    budget = budget or Budget()
    if isinstance(want, int):
        want = {t: want for t in targets}
    own = sandbox is None
    sb = sandbox or Sandbox(search_limits())
    deep_sb: list[Sandbox] = []

    def recursion_sandbox() -> Sandbox:
        if not deep_sb:
            deep_sb.append(Sandbox(replace(sb.limits, recursion_limit=20000)))
        return deep_sb[0]

    report = SearchReport(found={t: [] for t in targets})
    start = time.perf_counter()
    try:
        seed_input = literal_seed(sb, program, seed_input)
        eng = _Engine(sb, program, seed_input, targets, budget, seed, strategies, allow_type_change, want)
        seed_o = eng.run_seed()
        report.seed_outcome = seed_o
        if seed_o.status not in ("returned", "raised"):
            report.skipped = f"the seed input does not run to an end (status {seed_o.status})"
        else:
            if "z3" in strategies:
                eng.phase_z3()
            if "mutation" in strategies:
                eng.phase_neighbours()
                eng.phase_pairs()
            eng.phase_random()
            if "crosshair" in strategies:
                eng.phase_crosshair()
            report.found = eng.finish(max_results, recursion_sandbox)
        report.executions = eng.executions
    finally:
        for s in deep_sb:
            s.close()
        if own:
            sb.close()
    report.seconds = time.perf_counter() - start
    return report


def search(program: Program | str, seed_input: str, target: str, budget: Budget | int | None = None,
           seed: int = 0, **options: Any) -> list[Perturbation]:
    """Find inputs near ``seed_input`` that make ``program`` reach ``target``.

    Args:
        program: a :class:`~codemorph.Program` or source text (entry point ``f`` unless
            ``entry_point=`` is given).
        seed_input: argument-list literal, e.g. ``"'abc', [1, 2]"``.
        target: an exception class name (``"IndexError"``, ``"KeyError"``...),
            ``"any-exception"``, or ``"output-change"`` (returns normally, other output).
        budget: a :class:`Budget`, or an int meaning that many executions.
        seed: seed of every random choice (the same seed gives the same result when the
            execution budget, not the time budget, ends the search).
        **options: passed to :func:`search_many` (``strategies``, ``allow_type_change``,
            ``max_results``, ``want``, ``sandbox``, ``entry_point``).

    Returns:
        Up to ``max_results`` (default 5) :class:`Perturbation` s, smallest distance first;
        empty when none was found within the budget.
    """
    if isinstance(budget, int):
        budget = Budget(executions=budget, seconds=max(5.0, budget / 200))
    options.setdefault("want", options.get("max_results", 5))
    return search_many(program, seed_input, [target], budget, seed, **options).found[target]
