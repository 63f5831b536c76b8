"""Differential verification of rewrites: run the original and the rewritten program on the
same inputs in the sandbox and compare what they do.

This is differential testing in the sense of McKeeman, "Differential Testing for Software"
(Digital Technical Journal 10(1), 1998): two implementations that should agree are run on
the same inputs, and any disagreement is a bug.  Inputs are the row's own inputs plus
type-preserving mutants of them (:func:`codemorph.inputs.mutate_args`), seeded with the
program's own constants as in mutation-based fuzzing.

What is compared (:meth:`codemorph.sandbox.Outcome.behaviour`): the status, the returned
value (type-exact fingerprint, NaN equal to NaN) or the exception class, the final state of
the arguments (in-place mutation), and the captured stdout/stderr.

Agreement on finitely many inputs is evidence, not proof: ``"equivalent"`` means no
difference was observed on ``inputs_checked`` inputs.

Typical use, one baseline for many rewrites of the same program::

    with Sandbox(workers=2) as sb:
        base = make_baseline(sb, program, [row["input"]])
        for rewritten in candidates:
            verdict = check(sb, base, rewritten)
"""

from __future__ import annotations

import ast
import dataclasses
import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

import libcst as cst

from codemorph.sandbox.determinism import nondeterminism_source
from codemorph.errors import InputError, ParseError
from codemorph.inputs import coverage_additions, format_args, kind_mutants, mutate_args, parse_args
from codemorph.inputs import SeedPlan, cross_shape, needs_plan, plan_seeds
from codemorph.engine.program import Program
from codemorph.sandbox.kinds import request_for
from codemorph.sandbox.pool import ExecRequest, Limits, Outcome, Sandbox, can_outlive_timer
from codemorph.engine.transform import derive_rng
from codemorph.verification.claims import stdout_gains
from codemorph.verification.coverage import Coverage, Region, changed_region, region_coverage
from codemorph.verification.timeouts import MIN_TIMEOUT, SLOWDOWN, check_timeout
from codemorph.verification.hashseed import HASH_SEEDS, hash_stable, may_depend_on_hash  # noqa: F401 (re-exported)

__all__ = ["Counterexample", "Verdict", "Baseline", "program_literals", "program_calls", "make_baseline", "check", "check_requests",
           "judge", "verify", "describe_difference", "Region", "Coverage", "changed_region", "region_coverage",
           "prove_verdict", "DEFAULT_INPUTS", "MIN_INPUTS", "EXCEPTION_POLICIES", "require_inputs"]

#: Inputs per differential check by default: the seed input plus mutants (see :func:`make_baseline`).
DEFAULT_INPUTS = 50
#: Fewest distinct inputs that ran both programs to the end (a return or an exception, the
#: same in both) for an ``"equivalent"`` or ``"proved"`` verdict; fewer give ``"weak"``.
MIN_INPUTS = 20
#: How raised exceptions are compared: by class only (default), or by class and ``str(exc)``.
EXCEPTION_POLICIES = ("same-class", "same-class-and-message")

#: Statuses of a rewritten run that say nothing about equivalence (resource limits, crashes).
_INCONCLUSIVE_STATUSES = ("timeout", "memory", "crashed", "refused", "environment")
_MAX_LITERALS = 64
_MAX_LITERAL_LEN = 40


@dataclass(frozen=True)
class Counterexample:
    """An input on which the two programs behave differently.

    Attributes:
        args: the argument-list literal (e.g. ``"'abc', [1]"``).
        original: the original program's :class:`~codemorph.sandbox.Outcome`.
        rewritten: the rewritten program's outcome.
    """

    args: str
    original: Outcome
    rewritten: Outcome


@dataclass(frozen=True)
class Verdict:
    """Result of a differential check.

    Attributes:
        status: ``"equivalent"`` (no difference on any input checked, at least
            :data:`MIN_INPUTS` of them), ``"weak"`` (no difference, on fewer), ``"differs"``
            (a counterexample was found) or ``"inconclusive"`` (nondeterministic original,
            the rewritten program timed out / ran out of memory / crashed where the
            original finished, or no input could be compared).
        inputs_checked: number of inputs on which both programs ran to a comparable outcome.
        counterexample: the first input that showed a difference (``"differs"`` only).
        reason: what differed, or why the verdict is inconclusive; ``None`` when equivalent.
            For ``"proved"``, what was proved; for a proof attempt that failed, why, after
            the testing verdict's own reason (if any).
        coverage: line and branch coverage of the changed region of the rewritten program
            reached by the inputs (:class:`Coverage`), ``None`` when not measured.
        proved: ``True`` when the status is ``"proved"``: the changed region was proved
            equivalent with Z3 (:mod:`codemorph.proof`) under the types observed on the inputs.

    ``"proved"`` is a fifth status, stronger than ``"equivalent"``: the differential test
    found no difference *and* the changed region was proved equivalent.  ``"weak"``: no
    difference, but on fewer than :data:`MIN_INPUTS` (or the check's ``min_inputs``)
    distinct inputs, which ``reason`` names; not :attr:`ok`.  A check whose
    inputs never execute the changed region is ``"inconclusive"``, never ``"equivalent"``.
    """

    status: str
    inputs_checked: int
    counterexample: Counterexample | None = None
    reason: str | None = None
    coverage: "Coverage | None" = None
    proved: bool = False

    @property
    def ok(self) -> bool:
        """``True`` for ``"equivalent"`` and ``"proved"``."""
        return self.status in ("equivalent", "proved")


@dataclass(frozen=True)
class Baseline:
    """The original program's behaviour, computed once and reused for many rewrites.

    Attributes:
        program: the original program.
        inputs: argument literals run: the seed inputs first, then the mutants.
        outcomes: the original's outcome on each input (same order).
        nondeterministic: running the seed inputs twice gave different behaviour or a
            different ``repr`` of the result (random numbers, time, ``id()``-based output).
        seed_count: how many of ``inputs`` are seed inputs (the first ones).
        hash_sensitive: the seed inputs behave differently under another
            ``PYTHONHASHSEED`` (the result depends on set/dict iteration order of strings);
            the sandbox fixes the seed, so :func:`check` is still meaningful, but a benchmark
            row's ground truth would depend on it.  ``None`` when not tested.  A result that
            is the same value under every seed, only written in another order (a set of
            strings: equal fingerprints, both reprs literals), does not count; a run that
            differs under another seed is compared with one more run under the sandbox's own
            seed in a new sandbox process, and when that one differs too the baseline is
            ``nondeterministic`` instead (what differs between processes, such as the work
            directory, is not the hash seed's doing).
        reason: what made the baseline nondeterministic or hash-sensitive.
        traced: the original ran traced; :func:`check_requests` then traces the rewritten
            program too, so both sides run under the same conditions.
        notes: what the inputs could not vary (an argument that is not a literal, an empty
            container whose element type the program accepted none of), in words; a
            ``"weak"`` verdict quotes them.
        requested: the mutants asked for (``extra_inputs`` of :func:`make_baseline`).
        input_kind: the kind of every input (:data:`~codemorph.rows.INPUT_KINDS`):
            argument lists (``args``), call expressions or harness blocks (``call``), standard
            inputs (``stdin``); :func:`check_requests` runs the rewritten program the same way.
        worker_lost: a run of a seed input that decides ``nondeterministic`` or
            ``hash_sensitive`` was not completed because its sandbox worker ended
            (:attr:`Outcome.worker_lost <codemorph.sandbox.Outcome.worker_lost>`: killed from
            outside twice, or by the program); ``nondeterministic`` is then true (the program
            was not shown deterministic) and ``reason`` names the lost worker, not the program.
    """

    program: Program
    inputs: tuple[str, ...]
    outcomes: tuple[Outcome, ...]
    nondeterministic: bool
    seed_count: int = 0
    hash_sensitive: bool | None = None
    reason: str | None = None
    traced: bool = False
    notes: tuple[str, ...] = ()
    requested: int | None = None
    input_kind: str = "args"
    worker_lost: bool = False


# ----------------------------------------------------------------------------- literals
class _Literals(cst.CSTVisitor):
    def __init__(self) -> None:
        self.values: list[Any] = []
        self._negated: set[int] = set()

    def _add(self, v: Any) -> None:
        if isinstance(v, (str, bytes)) and len(v) > _MAX_LITERAL_LEN:
            return
        if isinstance(v, float) and not math.isfinite(v):
            return
        self.values.append(v)

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if isinstance(node.operator, cst.Minus) and isinstance(node.expression, (cst.Integer, cst.Float)):
            try:
                self._add(-node.expression.evaluated_value)
            except (ValueError, SyntaxError):
                pass

    def visit_Integer(self, node: cst.Integer) -> None:
        try:
            self._add(node.evaluated_value)
        except (ValueError, SyntaxError):
            pass

    def visit_Float(self, node: cst.Float) -> None:
        try:
            self._add(node.evaluated_value)
        except (ValueError, SyntaxError):
            pass

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        try:
            self._add(node.evaluated_value)
        except (ValueError, SyntaxError):
            pass

    def visit_FormattedStringText(self, node: cst.FormattedStringText) -> None:
        if node.value:
            self._add(node.value)


def program_literals(program: Program) -> list:
    """Constants appearing in the program's code (ints, floats, strings, bytes; negated
    numbers included), deduplicated in order of appearance: the seeds of input mutation.

    Strings longer than 40 characters and non-finite floats are left out; at most 64
    values are returned.
    """
    v = _Literals()
    program.module.visit(v)
    seen: set[tuple[str, Any]] = set()
    out: list[Any] = []
    for x in v.values:
        key = (type(x).__name__, repr(x))
        if key not in seen:
            seen.add(key)
            out.append(x)
    return out[:_MAX_LITERALS]


class _Calls(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Call(self, node: cst.Call) -> None:
        f = node.func
        if isinstance(f, cst.Attribute):
            self.names.add(f.attr.value)
        elif isinstance(f, cst.Name):
            self.names.add(f.value)


def program_calls(program: Program) -> frozenset[str]:
    """Names of the functions and methods the program's code calls (``text.isdecimal()``
    gives ``'isdecimal'``, ``len(x)`` gives ``'len'``): hints for input mutation
    (:func:`codemorph.inputs.mutate_args`), which then puts characters of the classes
    those calls test into string inputs."""
    v = _Calls()
    program.module.visit(v)
    return frozenset(v.names)


# ----------------------------------------------------------------------------- baseline
def _requests(program: Program, inputs: Sequence[str], trace: bool = False, types: bool = True,
              kind: str = "args") -> list[ExecRequest]:
    return [request_for(program.source, program.entry_point, kind, args, trace=trace, types=types) for args in inputs]


def _mutants(program: Program, seeds: Sequence[str], extra: int, seed: int, literals: list | None = None,
             plans: Mapping[str, SeedPlan] | None = None, min_inputs: int = 0,
             kind: str = "args") -> list[str]:
    """Mutant texts of ``seeds`` (see :func:`make_baseline`).  A seed with a
    :class:`~codemorph.inputs.SeedPlan` in ``plans`` is varied through it: its proxies (new
    inputs) and the mutants of its base and proxies, interleaved; the others exactly as
    before plans existed.  When fewer than ``min_inputs - len(seeds)`` mutants come out,
    more generations are drawn (each asking for the whole budget) and appended, so the
    mutants of a seed that reaches that number are unchanged.  Inputs of another ``kind``
    than ``args`` are varied by :func:`~codemorph.inputs.kind_mutants` (no plans)."""
    if extra <= 0 or not seeds:
        return []
    if kind != "args":
        return kind_mutants(program, seeds, extra, seed, kind, literals)
    literals = program_literals(program) if literals is None else literals
    hints = program_calls(program)
    plans = plans or {}
    # mutants of a plan's base or proxies: the full text -> (its literal part, the plan)
    literal_of: dict[str, tuple[str, SeedPlan]] = {}
    per_seed: list[list[str]] = []
    for text in seeds:
        plan = plans.get(text)
        if plan is not None:
            per_seed.append(_plan_mutants(plan, extra, seed, literals, hints, literal_of))
            continue
        try:
            per_seed.append(mutate_args(text, extra, derive_rng(seed, "mutate-inputs", text), literals, hints))
        except InputError:  # not a literal (e.g. "''.join(['A'] * 20)"): run as is, no mutants
            per_seed.append([])
    out: list[str] = []
    taken = set(seeds)
    # a planned seed's proxies are seeds of their own: each brings a budget of mutants
    budget = extra + extra * sum(len(p.proxies) - (p.base is None) for p in plans.values() if p.proxies)
    for round_ in range(max((len(ms) for ms in per_seed), default=0) if plans else extra):  # round robin
        for ms in per_seed:
            if round_ < len(ms) and ms[round_] not in taken:
                taken.add(ms[round_])
                out.append(ms[round_])
    # seeds with few neighbours (a small int, a short string): mutants of the mutants, breadth
    # first (at least 4 asked of each), until the budget is met, a generation adds nothing, or
    # after 8 more generations (an int seed such as 12345 needs 6)
    frontier = list(out)
    for generation in range(2, 10):
        if len(out) >= budget or not frontier:
            break
        nxt: list[str] = []
        per = max(4, -(-(budget - len(out)) // len(frontier)))
        for text in frontier:
            nxt += _next_generation(text, per, seed, f"mutate-inputs-{generation}", literals, hints, literal_of,
                                    taken)
            if len(out) + len(nxt) >= budget:
                # the budget is met: the mutants of the rest of the frontier would come after
                # it and be cut (each text's mutants come from its own random stream, so the
                # first ``budget`` do not depend on them), and no later generation runs
                break
        out += nxt
        frontier = nxt
    # still fewer than the minimum a verdict needs (an int seed such as 2 whose mutants stay
    # within a few values of it): more generations, each asking for the whole budget
    needed = min(extra, max(0, min_inputs - len(seeds)))
    frontier = list(out)
    for generation in range(10, 18):
        if len(out) >= needed or not frontier:
            break
        nxt = []
        for text in frontier:
            nxt += _next_generation(text, extra, seed, f"mutate-inputs-{generation}", literals, hints, literal_of,
                                    taken)
            if len(out) + len(nxt) >= extra:
                break
        out += nxt
        frontier = nxt
    return out[:budget]


def _next_generation(text: str, n: int, seed: int, stream: str, literals: list, hints: Iterable[str],
                     literal_of: dict[str, tuple[str, SeedPlan]], taken: set[str]) -> list[str]:
    """Up to ``n`` new mutants of one mutant ``text`` (those not in ``taken``, which is
    updated); a mutant made through a plan is mutated in its literal part."""
    lit, plan = literal_of.get(text, (text, None))
    try:
        ms = mutate_args(lit, n, derive_rng(seed, stream, text), literals, hints)
    except InputError:
        return []
    out = []
    for m in ms:
        full = m
        if plan is not None:
            try:
                full = plan.wrap(m)
            except InputError:
                continue
            literal_of.setdefault(full, (m, plan))
        if full not in taken:
            taken.add(full)
            out.append(full)
    return out


#: mutants of each shape of a planned seed's filled container (:attr:`~codemorph.inputs.SeedPlan.shapes`)
SHAPE_MUTANTS = 4


def _plan_mutants(plan: SeedPlan, extra: int, seed: int, literals: list, hints: Iterable[str],
                  literal_of: dict[str, tuple[str, SeedPlan]]) -> list[str]:
    """A planned seed's inputs: each proxy and shape, then the mutants of the proxies, the
    shapes and the base, round robin (proxies first, then shapes).  A shape brings at most
    :data:`SHAPE_MUTANTS` more inputs (it shares the proxies' budget): the shape crossed with
    the base's first mutants (:func:`~codemorph.inputs.cross_shape`: the other arguments
    varied), topped up with the shape's own mutants."""
    sources = list(plan.proxies) + list(plan.shapes) + ([plan.base] if plan.base is not None else [])
    shapes = set(plan.shapes)
    lists: list[list[str]] = []
    base_mutants: list[str] = []
    if plan.base is not None and plan.shapes:
        try:
            base_mutants = mutate_args(plan.base, extra, derive_rng(seed, "mutate-inputs", plan.text, plan.base),
                                       literals, hints)
        except InputError:
            base_mutants = []
    for k, lit in enumerate(sources):
        own = [] if lit == plan.base else [lit]
        if lit == plan.base and base_mutants:
            # the shapes' inputs come out of the base's share, not the proxies'
            lists.append(base_mutants[:max(extra // 2, extra - (1 + SHAPE_MUTANTS) * len(plan.shapes))])
            continue
        if lit in shapes:
            # the shape with the other arguments of the base's first mutants (they vary
            # only the arguments that were not empty), then the shape's own mutants
            ms = [c for m in base_mutants[:SHAPE_MUTANTS // 2] if (c := cross_shape(lit, plan.base, m)) is not None]
            try:
                ms += mutate_args(lit, extra, derive_rng(seed, "mutate-inputs", plan.text, lit), literals,
                                  hints)[:SHAPE_MUTANTS - len(ms)]
            except InputError:
                pass
            lists.append(own + ms)
            continue
        try:
            ms = mutate_args(lit, extra, derive_rng(seed, "mutate-inputs", plan.text, lit), literals, hints)
        except InputError:
            ms = []
        lists.append(own + ms)
    out: list[str] = []
    seen: set[str] = {plan.text}
    for round_ in range(max((len(x) for x in lists), default=0)):
        for ms in lists:
            if round_ < len(ms):
                try:
                    full = plan.wrap(ms[round_])
                except InputError:
                    continue
                if full not in seen:
                    seen.add(full)
                    literal_of.setdefault(full, (ms[round_], plan))
                    out.append(full)
    return out


def _input_words(text: str, input_kind: str) -> str:
    """How a reason names an input: ``input <argument list>``, or ``standard input '...'``
    (quoted: a standard input spans lines)."""
    return f"standard input {_short(text)!r}" if input_kind == "stdin" else f"input {_short(text)}"


def _lost_run(a: Outcome, b: Outcome, words: str = "", second: str = "second run") -> str | None:
    """``"the first run[ on WORDS] was not completed: crashed (sandbox worker lost (...))"``
    when ``a`` (or ``b``, named ``second``) was lost with its sandbox worker, else ``None``."""
    for which, o in (("first run", a), (second, b)):
        if o.worker_lost:
            return f"the {which}{' on ' + words if words else ''} was not completed: crashed ({o.note})"
    return None


def _same_run(a: Outcome, b: Outcome, input_kind: str = "args", by_value: bool = False) -> str | None:
    """Why two runs of the same program on the same input disagree, or ``None``.

    Compared: the status, the result's fingerprint (or the exception class), the arguments'
    final state, the captured output, then the result's ``repr``.  With ``by_value`` (runs
    under two ``PYTHONHASHSEED`` values) a ``repr`` that differs is no disagreement when
    both results are equal values of the same types (equal fingerprints: a set's order is
    ignored, a list's, a string's or a dict's is not) and both reprs read back as equal
    literals (:attr:`~codemorph.sandbox.Outcome.literal_ok`): ``{'a', 'b'}`` and ``{'b',
    'a'}``, which a harness comparing with ``==`` takes for the same.  A ``stdin`` run's
    result is its standard output, compared as text."""
    lost = _lost_run(a, b)
    if lost is not None:
        return lost
    if a.completed != b.completed:
        return f"{a.status} in one run, {b.status} in the other"
    if not a.completed:
        return None
    diff = describe_difference(a, b, ("first run", "second run"), input_kind=input_kind)
    if diff is not None:
        return diff
    if a.value_repr != b.value_repr:
        if by_value and input_kind != "stdin" and a.status == "returned" and a.literal_ok and b.literal_ok:
            return None  # the same value (fingerprints equal) written in another order
        return f"repr of the result differs between runs ({_short(a.value_repr)} vs {_short(b.value_repr)})"
    return None



def _fresh_process_run(sandbox: Sandbox, request: ExecRequest) -> Outcome | None:
    """``request`` run under ``sandbox``'s own ``PYTHONHASHSEED`` in a sandbox worker started
    for it (another process, with its own work directory and address-space layout), or
    ``None`` when ``sandbox`` is no :class:`~codemorph.sandbox.Sandbox` (a stand-in)."""
    if not isinstance(sandbox, Sandbox):
        return None
    with Sandbox(sandbox.limits, workers=1, hash_seed=sandbox.hash_seed, python=sandbox.python) as fresh:
        return fresh.run_batch([request])[0]


def make_baseline(sandbox: Sandbox, program: Program, seed_inputs: Sequence[str], *,
                  extra_inputs: int = DEFAULT_INPUTS - 1,
                  seed: int = 0, check_hash_seed: bool | int = True, mutant_timeout: float | None = 1.0,
                  trace: bool = True, expected_output: str | None = None,
                  mutant_cpu_timeout: float | None = 0.25, mutant_max_lines: int | None = 50_000,
                  guided: bool = True, types: bool = True, min_inputs: int = MIN_INPUTS,
                  input_kind: str = "args", stop_when_seed_hangs: bool = False) -> Baseline:
    """Run the original program on its seed inputs and on mutants of them.

    Args:
        sandbox: where to run.
        program: the original program.
        seed_inputs: argument literals (e.g. a CRUXEval row's ``input``); duplicates dropped.
        extra_inputs: how many mutants to add (fewer when the seeds have few neighbours,
            e.g. ``"None"``, or are not literals); drawn round-robin over the seeds with
            :func:`~codemorph.inputs.mutate_args`, seeded from ``seed`` and each input's text,
            then topped up with mutants of the mutants (up to eight more generations).  The
            mutation gets the program's literals (:func:`program_literals`) and the names it
            calls (:func:`program_calls`, for program-directed edge cases).
        seed: seed of the mutation.
        check_hash_seed: also run the seed inputs under other ``PYTHONHASHSEED`` values to
            fill :attr:`Baseline.hash_sensitive`: ``True`` one more seed (one small batch),
            an int ``n`` that many (seeds 1..n, one batch each, stopping at the first
            difference).  Results are compared by value where their reprs are literals
            (a set of strings printed in another order agrees), and a difference is
            confirmed against one more run under the sandbox's own seed in a new sandbox
            process (see :attr:`Baseline.hash_sensitive`).
        mutant_timeout: seconds per mutant execution (capped by the sandbox's timeout;
            ``None``: the sandbox's timeout).  Mutants often send input-dependent loops into
            infinite loops; a mutant that runs out of time is only skipped by :func:`check`,
            so a short limit loses little and saves much.  Seed inputs always get the
            sandbox's full timeout.
        mutant_cpu_timeout: CPU seconds per mutant execution (``ExecRequest.cpu_timeout``;
            ``None``: no CPU limit), on top of ``mutant_timeout``; default 0.25 s, as the
            perturbation search's executions.  A CRUXEval run takes well under a millisecond;
            on CRUXEval the mutants stopped by it (in ``sample_755`` and ``sample_764``) ran
            for up to a second of CPU and ended in timeouts anyway, so the limit takes 3.5 s
            off the four-transform run without changing which inputs are compared there.
        mutant_max_lines: with ``trace``, a budget of executed lines per mutant execution
            (``ExecRequest.max_lines``; ``None``: none).  A mutant that loops forever in
            Python code then stops after 50,000 line events (about 0.03 CPU seconds)
            instead of running for ``mutant_timeout`` seconds, and the limit does not depend
            on the machine's load.  On CRUXEval's 800 rows (37,117 mutant runs that finished
            within 1 s) the only runs slower than 0.05 s are deep recursions of about 30,000
            lines, below the budget; on every other row (400 rows), 17,719 returned and 899 raised
            mutant runs were the same at budgets of 200,000 and 50,000 lines, while the 60
            runaway runs cost 2.7 times less wall time (20,000 lines would cut two
            RecursionErrors short).
        trace: run the original traced, as :func:`check_requests` runs the rewritten program
            (the tracer shifts memory addresses, so output showing ``id()``s would differ
            between a traced and an untraced run); the outcomes then also carry the
            original's executed lines and local types.
        expected_output: a recorded result (e.g. a CRUXEval row's ``output``); when given, the
            runs of the first seed input also evaluate ``value == <expected_output>``
            (:attr:`~codemorph.sandbox.Outcome.output_matches` of ``outcomes[0]``), which
            saves a separate execution for checking a row's recorded output.

        guided: with ``trace``, replace mutants by coverage-guided additions
            (:func:`~codemorph.inputs.coverage_additions`) when some statement of the
            program ran on none of the inputs: 0 executions when every statement ran, else
            at most 48 more; the number of inputs stays the same.
        types: with ``trace``, also record the types of locals (``ExecRequest.types``),
            which :func:`~codemorph.testing.merge_observations` hands to transforms that use
            runtime types; ``False`` when no transform will (a cheaper trace).
        min_inputs: when the mutants fall short of ``min_inputs`` inputs in all (a seed
            with few neighbours, such as a small int), more generations of mutants of the
            mutants are appended until they reach the budget or add nothing.

    Seeds that mutation alone cannot vary -- a top-level empty container, a call rather
    than a literal (``list(range(5))``), or only ``None`` arguments -- are first planned by
    :func:`codemorph.inputs.seeds.plan_seeds` (the call evaluated in the program's module
    and element types tried, in the sandbox: one or two small batches for such seeds only);
    their mutants are those of the plan's proxies and base.  What could still not be varied
    is in :attr:`Baseline.notes`.
        input_kind: what ``seed_inputs`` are (:data:`~codemorph.rows.INPUT_KINDS`): argument
            lists of the entry point (``args``, the default), call expressions or harness
            blocks (``call``: mutants change the literal arguments of the call, or the
            literals of the harness method, :func:`kind_mutants`), or standard inputs
            (``stdin``: mutants keep the token structure); ``expected_output`` is then the
            recorded standard output, verbatim.  Coverage-guided additions are made for
            ``args`` inputs only.

        stop_when_seed_hangs: for a program that can outlive its time limit (it catches
            ``BaseException`` or everything, has a ``finally`` block or a ``__del__`` or
            ``__exit__`` method: :func:`~codemorph.sandbox.can_outlive_timer`), run the first seed input alone
            first, and when that run does not complete, return a baseline of that run only
            (no mutants, no second run): ``generate`` rejects such a row on its first
            outcome anyway, and each of ~50 mutant runs of a program that swallows its
            timeout would last until the sandbox's watchdog kills it (the time limit plus
            the grace, twice over for a traced run).  A program whose first run completes
            gets the full batch as without this option.

    Returns:
        A :class:`Baseline`.  The seed inputs run twice in the same batch (before and after
        the mutants); a difference makes it ``nondeterministic``, and so does a source of
        nondeterminism in the code that two runs a moment apart cannot reveal (the clock,
        randomness, the process: :func:`codemorph.determinism.nondeterminism_source`).
    """
    if isinstance(seed_inputs, str):
        raise TypeError("seed_inputs must be a sequence of argument literals, not one string")
    seeds = list(dict.fromkeys(seed_inputs))
    literals = program_literals(program)
    kind = input_kind
    plans = plan_seeds(sandbox, program.source, program.entry_point, seeds) \
        if kind == "args" and extra_inputs > 0 and any(needs_plan(t) for t in seeds) else {}
    mutants = _mutants(program, seeds, extra_inputs, seed, literals, plans, min_inputs, kind)
    inputs = seeds + mutants
    short = None if mutant_timeout is None else min(mutant_timeout, sandbox.limits.timeout)
    requests = (_requests(program, seeds, trace, types, kind)
                + [request_for(program.source, program.entry_point, kind, m, timeout=short, trace=trace,
                               cpu_timeout=mutant_cpu_timeout, max_lines=mutant_max_lines if trace else None,
                               types=types)
                   for m in mutants]
                + _requests(program, seeds, trace, False, kind))
    if expected_output is not None and seeds:
        # both runs of the seed (the evaluation may run the value's own __eq__, which could print)
        for k in (0, len(inputs)):
            requests[k] = dataclasses.replace(requests[k], expected_output=expected_output)
    if stop_when_seed_hangs and seeds and can_outlive_timer(program.source):
        alone = sandbox.run_batch(requests[:1])[0]
        if not alone.completed:
            return Baseline(program, (seeds[0],), (alone,), False, 1, None, None, trace, (), extra_inputs, kind)
    outs = sandbox.run_batch(requests)
    first, again = outs[:len(inputs)], outs[len(inputs):]
    if guided and trace and mutants and kind == "args":
        g = coverage_additions(sandbox, program, inputs, first, len(seeds), seed=seed,
                               literals=literals, timeout=short, cpu_timeout=mutant_cpu_timeout,
                               max_lines=mutant_max_lines, types=types)
        inputs, first = list(g.inputs), list(g.outcomes)
    first = _few_deep_recursions(first, len(seeds))
    reasons = []
    static = nondeterminism_source(program.source, input_kind=kind, harness=seeds if kind == "call" else None)
    if static is not None:
        # what a second run a moment later cannot show: the clock, randomness, the process
        reasons.append(f"it {static}")
    worker_lost = False
    for text, a, b in zip(seeds, first, again):
        lost = _lost_run(a, b, _input_words(text, kind))
        if lost is not None:  # the worker ended, not the program: no claim of nondeterminism
            worker_lost = True
            reasons.append(lost)
            break
        why = _same_run(a, b, kind)
        if why is not None:
            reasons.append(f"nondeterministic on {_input_words(text, kind)}: {why}")
            break
    nondeterministic = bool(reasons)
    hash_sensitive = None
    finished = [(text, a) for text, a in zip(seeds, first) if a.completed]

    def again_request(text: str) -> ExecRequest:
        # the seed input's run as the first one was made: with the recorded-output check,
        # whose comparison may run the value's own __eq__ (and print)
        r = _requests(program, [text], trace, False, kind)[0]
        return dataclasses.replace(r, expected_output=expected_output) \
            if expected_output is not None and text == seeds[0] else r

    if check_hash_seed and finished:
        hash_sensitive = False
        # an iteration order that depends on string hashes agrees with seed 0's under one
        # other seed with probability about 1/k! for k elements (1/2 for two): several seeds
        for extra in range(1, int(check_hash_seed) + 1):
            other = sandbox.run_batch([again_request(t) for t, _ in finished],
                                      hash_seed=sandbox.hash_seed + extra)
            for (text, a), b in zip(finished, other):
                lost = _lost_run(a, b, _input_words(text, kind),
                                 second=f"run under PYTHONHASHSEED={sandbox.hash_seed + extra}")
                if lost is not None:  # not shown hash-insensitive; the worker is to blame
                    if not nondeterministic:
                        worker_lost = nondeterministic = True
                        reasons.append(lost)
                    break
                why = _same_run(a, b, kind, by_value=True)
                if why is not None:
                    # another seed runs in another worker process: first a run under the same
                    # seed in another new process, so that what differs between any two
                    # processes (their work directory, addresses) is not blamed on the seed
                    again_fresh = _fresh_process_run(sandbox, again_request(text))
                    fresh_why = None if again_fresh is None or again_fresh.worker_lost \
                        else _same_run(a, again_fresh, kind, by_value=True)
                    if fresh_why is not None:
                        if not nondeterministic:
                            nondeterministic = True
                            reasons.append(f"nondeterministic on {_input_words(text, kind)}: {fresh_why} (two runs "
                                           f"under the same PYTHONHASHSEED={sandbox.hash_seed} in separate processes)")
                        break
                    hash_sensitive = True
                    if not nondeterministic:
                        reasons.append(f"depends on PYTHONHASHSEED on {_input_words(text, kind)}: {why} (under "
                                       f"PYTHONHASHSEED={sandbox.hash_seed + extra}; a run under "
                                       f"PYTHONHASHSEED={sandbox.hash_seed} in another process agreed with the first)")
                    break
            if hash_sensitive or worker_lost or nondeterministic:
                break
    notes = tuple(dict.fromkeys(n for p in plans.values() for n in p.notes))
    return Baseline(program, tuple(inputs), tuple(first), nondeterministic, len(seeds), hash_sensitive,
                    "; ".join(reasons) or None, trace, notes, extra_inputs, kind, worker_lost)


#: mutant inputs whose run ends in ``RecursionError`` that a check compares, at most (in input order)
MAX_DEEP_RECURSIONS = 3


def _few_deep_recursions(outcomes: list[Outcome], seed_count: int) -> list[Outcome]:
    """Keep at most :data:`MAX_DEEP_RECURSIONS` mutant outcomes that raised
    ``RecursionError`` comparable; the others are marked incomplete (not compared).

    A run to the recursion limit (10,000 frames, each traced) costs 50-200 ms where a CRUXEval
    run costs well under 1 ms, and every variant repeats it: on CRUXEval two programs whose
    mutants mostly recurse forever (``sample_299``, ``sample_531``) took 20 s of the whole
    four-transform run, on one core.  Beyond the first few, such inputs add little: every
    one of them tests the same thing (the rewrite also recurses without end).  The seed
    inputs are always kept."""
    out, deep = list(outcomes), 0
    for i in range(seed_count, len(out)):
        o = out[i]
        if o.comparable and o.status == "raised" and o.exception is not None and o.exception.type == "RecursionError":
            deep += 1
            if deep > MAX_DEEP_RECURSIONS:
                note = f"not compared: more than {MAX_DEEP_RECURSIONS} inputs recurse to the recursion limit"
                out[i] = dataclasses.replace(o, incomplete=True, note=f"{o.note}; {note}" if o.note else note)
    return out


# -------------------------------------------------------------------------------- check
def _short(text: Any, n: int = 80) -> str:
    s = text if isinstance(text, str) else repr(text)
    return s if len(s) <= n else s[:n - 3] + "..."


def describe_difference(original: Outcome, rewritten: Outcome,
                        labels: tuple[str, str] = ("original", "rewritten"),
                        stdout_lines: Sequence[str] = (), input_kind: str = "args") -> str | None:
    """What differs between two comparable outcomes (``None`` when their
    :meth:`~codemorph.sandbox.Outcome.behaviour` is equal); ``labels`` name the two sides.

    ``stdout_lines``: lines the rewritten program may print in addition (a ``print``
    distractor): stdout then agrees when the rewritten one is the original's with only such
    lines added (:func:`codemorph.verification.claims.stdout_gains`); status, value or
    exception class and the arguments' final state are compared as always.

    ``input_kind``: how both were run (:data:`~codemorph.rows.INPUT_KINDS`); a ``stdin``
    run's value is its standard output, and the reason says so."""
    if stdout_lines and original.behaviour()[:3] == rewritten.behaviour()[:3]:
        return stdout_gains(original.stdout, rewritten.stdout, stdout_lines)
    if original.behaviour() == rewritten.behaviour():
        return None
    a, b = labels
    if original.status != rewritten.status:
        def show(o: Outcome) -> str:
            if o.exception is not None:
                return f"{o.status} {o.exception.type}"
            return f"{o.status} {o.value_words()}" if o.status == "returned" else o.status
        return f"status: {a} {show(original)}, {b} {show(rewritten)}"
    if original.status == "returned" and original.fingerprint != rewritten.fingerprint:
        what = "standard output" if input_kind == "stdin" else "return value"
        return f"{what}: {a} {original.value_words()}, {b} {rewritten.value_words()}"
    if original.status != "returned" and original.behaviour()[1] != rewritten.behaviour()[1]:
        return (f"exception: {a} {original.exception.type if original.exception else None}, "
                f"{b} {rewritten.exception.type if rewritten.exception else None}")
    if original.args_fingerprint != rewritten.args_fingerprint:
        return "final state of the arguments (in-place mutation) differs"
    if original.stdout != rewritten.stdout:
        return f"stdout: {a} {_short(original.stdout)!r}, {b} {_short(rewritten.stdout)!r}"
    return "behaviour differs"  # pragma: no cover - behaviour() has no other component


def check(sandbox: Sandbox, baseline: Baseline, rewritten: Program, *, slowdown: float = SLOWDOWN,
          min_timeout: float = MIN_TIMEOUT, exception_policy: str = "same-class", prove: bool = False,
          stdout_lines: Sequence[str] = (), min_inputs: int = MIN_INPUTS) -> Verdict:
    """Run ``rewritten`` (with its own entry point) on ``baseline.inputs`` and compare.

    Args:
        sandbox: where to run (its ``limits.timeout`` caps every execution).
        baseline: the original's behaviour (:func:`make_baseline`).
        rewritten: the rewritten program.
        slowdown, min_timeout: the rewritten program gets ``max(min_timeout, slowdown *
            the original's duration)`` seconds per input (capped by the sandbox's
            timeout), so a rewrite that hangs costs little; running out of time only ever
            makes the verdict inconclusive.

    Rules: a nondeterministic baseline gives ``inconclusive``; an input on which the
    original timed out, ran out of memory, crashed, hit the output limit or returned an
    unfingerprintable value is skipped (not run); a rewritten timeout / memory / crash where
    the original finished makes the verdict ``inconclusive`` unless another input shows a
    difference; the first input whose behaviour differs gives ``differs`` with the
    counterexample.  Output over the limit where the original's output was within it is a
    difference.  ``exception_policy``, ``min_inputs``: see :func:`judge` (fewer than
    ``min_inputs`` distinct inputs compared give ``"weak"``).  With ``prove``, see
    :func:`prove_verdict`.  ``stdout_lines``: lines the rewrite may print in addition (see
    :func:`judge`).
    """
    if baseline.nondeterministic:
        return Verdict("inconclusive", 0, reason=baseline.reason or "the original program is nondeterministic")
    requests = check_requests(baseline, rewritten, sandbox.limits.timeout, slowdown=slowdown, min_timeout=min_timeout,
                              types=prove)
    outs = sandbox.run_batch(requests)
    verdict = judge(baseline, requests, outs, exception_policy=exception_policy, stdout_lines=stdout_lines,
                    min_inputs=min_inputs)
    return prove_verdict(verdict, baseline, rewritten, outs, min_inputs=min_inputs) if prove else verdict


def prove_verdict(verdict: Verdict, baseline: Baseline, rewritten: Program, outs: Sequence[Outcome],
                  min_inputs: int = MIN_INPUTS) -> Verdict:
    """Upgrade a testing verdict to ``"proved"`` when :func:`codemorph.proof.prove_rewrite`
    proves the changed region equivalent under the local types observed in ``outs`` (the
    traced outcomes of :func:`check_requests` made with ``types=True``; without types
    nothing is proved).

    Only an ``"equivalent"`` verdict, or an ``"inconclusive"`` one whose only problem is that
    no input reached the changed code (and that compared at least ``min_inputs`` inputs), is
    upgraded (a ``"weak"`` verdict is not: ``"proved"`` needs the inputs too); ``"differs"`` and nondeterministic
    baselines are returned unchanged.  When the region is outside the Z3 fragment the
    testing verdict is kept and its ``reason`` says that the proof fell back to testing.
    """
    from codemorph.verification.proof import observed_types, prove_rewrite  # z3 is imported only in proof mode

    if verdict.status == "differs" or baseline.nondeterministic:
        return verdict
    uncovered = (verdict.status == "inconclusive" and verdict.coverage is not None
                 and verdict.coverage.lines_hit == 0 and verdict.inputs_checked >= max(1, min_inputs)
                 and (verdict.reason or "").startswith("no input executed"))
    if verdict.status != "equivalent" and not uncovered:
        return verdict
    if any(o.types_partial for o in outs):
        why = ("not proved, fell back to testing: a run went past the tracer's sample of types of locals "
               "(its first 20,000 line events), so the observed types may miss one")
        return Verdict(verdict.status, verdict.inputs_checked, verdict.counterexample,
                       f"{verdict.reason}; {why}" if verdict.reason else why, verdict.coverage)
    result = prove_rewrite(baseline.program, rewritten, observed_types(outs))
    if result.proved:
        return Verdict("proved", verdict.inputs_checked, reason=result.reason, coverage=verdict.coverage,
                       proved=True)
    why = f"not proved, fell back to testing: {result.reason}"
    return Verdict(verdict.status, verdict.inputs_checked, verdict.counterexample,
                   f"{verdict.reason}; {why}" if verdict.reason else why, verdict.coverage)


def check_requests(baseline: Baseline, rewritten: Program, cap: float, *, slowdown: float = SLOWDOWN,
                   min_timeout: float = MIN_TIMEOUT, expected_output: str | None = None,
                   types: bool = True) -> list[ExecRequest]:
    """The executions :func:`check` makes: ``rewritten`` on every comparable baseline input,
    with a time limit of ``max(min_timeout, slowdown * original duration)`` seconds capped
    by ``cap`` (:func:`~codemorph.verification.timeouts.check_timeout`).  Lets a caller run the requests of several rewrites in one batch and pass
    each slice of outcomes to :func:`judge`.

    The executions are traced (``ExecRequest.trace``) exactly when the baseline was
    (:attr:`Baseline.traced`, the default of :func:`make_baseline`): both sides run under a
    tracer, and :func:`judge` can measure the coverage of the changed region.  ``types``:
    also record the types of locals, which :func:`prove_verdict` needs (``False``: lines
    and arcs only, a cheaper trace for callers that will not prove).

    ``expected_output`` (a recorded result literal): the execution on the first seed input
    (``baseline.inputs[0]``, when it is compared) also evaluates ``value ==
    <expected_output>``, so its outcome doubles as the rewritten program's run on a
    benchmark row's input (:attr:`~codemorph.sandbox.Outcome.output_matches`)."""
    trace = baseline.traced
    out = []
    for k, (text, o) in enumerate(zip(baseline.inputs, baseline.outcomes)):
        if o.comparable:
            out.append(request_for(rewritten.source, rewritten.entry_point, baseline.input_kind, text,
                                   expected_output=expected_output if k == 0 else None,
                                   timeout=check_timeout(o.duration, cap, slowdown=slowdown, min_timeout=min_timeout),
                                   trace=trace,
                                   types=types))
    return out


def judge(baseline: Baseline, requests: Sequence[ExecRequest], outs: Sequence[Outcome], *,
          exception_policy: str = "same-class", stdout_lines: Sequence[str] = (),
          min_inputs: int = MIN_INPUTS) -> Verdict:
    """The verdict of :func:`check` from the outcomes of :func:`check_requests`.

    ``stdout_lines``: the rewrite's declared extra printed lines
    (:attr:`~codemorph.engine.transform.TransformResult.stdout_lines`; see
    :func:`describe_difference`); empty: stdout must be equal.

    ``exception_policy`` (one of :data:`EXCEPTION_POLICIES`): ``"same-class"`` compares
    raised exceptions by class name; ``"same-class-and-message"`` also by ``str(exc)``.
    When the requests were traced, the verdict carries the :class:`Coverage` of the changed
    region, and a check that never executed any changed line is ``"inconclusive"``.

    ``min_inputs``: a check that finds no difference is ``"equivalent"`` only when at least
    that many distinct inputs (by value: :func:`~codemorph.inputs.format_args` of the
    parsed text) ran both programs to the end -- each returned, or each raised the same
    exception class, with the same argument state and output; an input on which the
    original or the rewrite timed out or hit a limit does not count.  Fewer give
    ``"weak"``, whose reason says how many were compared and what could not be varied
    (:attr:`Baseline.notes`).  An exception both programs raise counts: it is a behaviour
    compared like a return (its class, the arguments' final state, the output), and a
    rewrite that raises another class, or returns, is a difference.

    Raises:
        ValueError: unknown ``exception_policy``.
    """
    if exception_policy not in EXCEPTION_POLICIES:
        raise ValueError(f"exception_policy must be one of {EXCEPTION_POLICIES}, got {exception_policy!r}")
    if baseline.nondeterministic:
        return Verdict("inconclusive", 0, reason=baseline.reason or "the original program is nondeterministic")
    pairs = [(text, o) for text, o in zip(baseline.inputs, baseline.outcomes) if o.comparable]
    checked = 0
    inconclusive: str | None = None
    traced: list[Outcome] = []
    compared: list[str] = []
    for (text, o), r, req in zip(pairs, outs, requests):
        if r.status == "timeout":
            if inconclusive is None:
                inconclusive = (f"rewritten program: timeout ({req.timeout:.3g}s) on {_input_words(text, baseline.input_kind)} where "
                                f"the original finished ({o.status} in {o.duration:.3g}s)")
            continue
        if r.status in _INCONCLUSIVE_STATUSES:
            if inconclusive is None:
                inconclusive = (f"rewritten program: {r.status} on {_input_words(text, baseline.input_kind)} where the original "
                                f"finished ({o.status})" + (f"; {r.note}" if r.note else ""))
            continue
        if r.status == "output-limit":  # the original's output fit the limit: they differ
            return Verdict("differs", checked, Counterexample(text, o, r),
                           f"on {_input_words(text, baseline.input_kind)}: rewritten program wrote more than the output limit")
        if not r.comparable:
            if inconclusive is None:
                inconclusive = (f"rewritten program's result on {_input_words(text, baseline.input_kind)} could not be "
                                f"compared ({r.note or r.repr_error or 'no fingerprint'})")
            continue
        why = describe_difference(o, r, stdout_lines=stdout_lines, input_kind=baseline.input_kind)
        if why is None and exception_policy == "same-class-and-message" and o.exception is not None \
                and r.exception is not None and o.exception.message != r.exception.message:
            why = (f"exception message: original {_short(o.exception.message)!r}, "
                   f"rewritten {_short(r.exception.message)!r}")
        if why is not None:
            return Verdict("differs", checked, Counterexample(text, o, r), f"on {_input_words(text, baseline.input_kind)}: {why}")
        checked += 1
        traced.append(r)
        compared.append(text)
    cov = None
    region = changed_region(baseline.program.source, requests[0].code) \
        if requests and any(q.trace for q in requests) else None
    if region is not None and region.lines:
        cov = region_coverage(region, traced)
    if inconclusive is not None:
        return Verdict("inconclusive", checked, reason=inconclusive, coverage=cov)
    if checked == 0:
        return Verdict("inconclusive", 0, reason="no input on which the original program finished", coverage=cov)
    if cov is not None and cov.lines_hit == 0:
        # a partial trace (tracing stopped at the time limit) may have missed the changed
        # code: the verdict stays the conservative one, and says so
        partial = " as far as the traces show (some run's tracing stopped at the time limit)" if cov.partial else ""
        return Verdict("inconclusive", checked, coverage=cov,
                       reason=f"no input executed the changed code{partial} (rewritten lines "
                              f"{', '.join(map(str, region.lines[:10]))})")
    distinct = len({_input_key(text, baseline) for text in compared})
    if distinct < min_inputs:
        return Verdict("weak", checked, coverage=cov, reason=_weak_reason(baseline, distinct, min_inputs))
    return Verdict("equivalent", checked, coverage=cov)


def _input_key(text: str, baseline: Baseline | None = None) -> str:
    """The canonical text of an argument list (two texts of one value give one key); a text
    that is not a literal is its own key.  With ``baseline``, remembered on it: every
    variant of a row is judged on the same inputs."""
    memo = None
    if baseline is not None:
        memo = baseline.__dict__.get("_input_keys")
        if memo is None:
            memo = {}
            object.__setattr__(baseline, "_input_keys", memo)
        key = memo.get(text)
        if key is not None:
            return key
    try:
        key = format_args(*parse_args(text))
    except InputError:
        key = text
    if memo is not None:
        memo[text] = key
    return key


_LINE_BUDGET_NOTE = re.compile(r"stopped after (\d+) traced lines")


def _unfinished_cause(o: Outcome) -> str:
    """Why the original's run ``o`` cannot be compared, in a few words: ``"stopped at the
    50,000-line budget"`` (``ExecRequest.max_lines``), ``"at the time limit"``, ``"at the
    memory limit"``, ``"at the output limit"``, ``"crashed"``, ``"refused by the sandbox"``,
    ``"recursing to the recursion limit"`` (:func:`_few_deep_recursions`), ``"with a result
    too large or too slow to fingerprint"``."""
    if o.status == "timeout":
        m = _LINE_BUDGET_NOTE.match(o.note or "")
        return f"stopped at the {int(m.group(1)):,}-line budget" if m else "stopped at the time limit"
    if o.status in ("memory", "output-limit"):
        return f"stopped at the {o.status.replace('-limit', '')} limit"
    if o.status == "refused":
        return "refused by the sandbox"
    if o.status == "environment":
        return "showing the sandbox's harness"
    if not o.completed:
        return o.status
    if o.status == "raised" and o.exception is not None and o.exception.type == "RecursionError":
        return f"recursing to the recursion limit (past the {MAX_DEEP_RECURSIONS} such inputs compared)"
    return "with a result too large or too slow to fingerprint"


def _weak_reason(baseline: Baseline, distinct: int, min_inputs: int) -> str:
    """Why a check compared fewer than ``min_inputs`` distinct inputs: how many were made,
    how many the original did not finish, and what could not be varied."""
    made = len(baseline.inputs)
    unfinished = sum(not o.comparable for o in baseline.outcomes)
    why = [f"compared on {distinct} distinct input{'s' if distinct != 1 else ''} that ran both programs to the "
           f"end, fewer than the {min_inputs} an equivalent verdict needs: {made} input{'s' if made != 1 else ''} "
           "made"]
    if unfinished:
        causes = Counter(_unfinished_cause(o) for o in baseline.outcomes if not o.comparable)
        shown = ", ".join(f"{n} {cause}" for cause, n in sorted(causes.items(), key=lambda t: (-t[1], t[0])))
        why.append(f"{unfinished} of them did not run the original to the end ({shown})")
    why += list(baseline.notes)
    asked = baseline.requested
    if asked is not None and asked + baseline.seed_count < min_inputs:
        why.append(f"only {asked} mutant{'s' if asked != 1 else ''} asked for (extra inputs)")
    elif not baseline.notes and made < min_inputs:
        why.append("the seed has no more type-preserving neighbours")
    return "; ".join(why)


def require_inputs(verdict: Verdict, min_inputs: int) -> Verdict:
    """``verdict`` with the rule of :data:`MIN_INPUTS` applied for another minimum: an
    ``"equivalent"`` or ``"proved"`` verdict on fewer than ``min_inputs`` compared inputs
    becomes ``"weak"`` (its reason says so); any other verdict is returned unchanged."""
    if verdict.status in ("equivalent", "proved") and verdict.inputs_checked < min_inputs:
        why = (f"compared on {verdict.inputs_checked} inputs that ran both programs to the end, fewer than the "
               f"{min_inputs} an equivalent verdict needs")
        return Verdict("weak", verdict.inputs_checked, None, f"{why}; {verdict.reason}" if verdict.reason else why,
                       verdict.coverage)
    return verdict


def verify(*args: Any, **kwargs: Any) -> Verdict:
    """The verification facade :func:`codemorph.verification.verify` under its old address
    (same arguments, same :class:`Verdict`)."""
    from codemorph.verification import verify as facade  # the package facade, loaded before this module is used

    return facade(*args, **kwargs)
