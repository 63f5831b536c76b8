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

import math
from dataclasses import dataclass
from typing import Any, Sequence

import libcst as cst

from .errors import InputError, ParseError
from .inputs import mutate_args
from .program import Program
from .sandbox import ExecRequest, Limits, Outcome, Sandbox
from .transform import derive_rng

__all__ = ["Counterexample", "Verdict", "Baseline", "program_literals", "make_baseline", "check", "check_requests",
           "judge", "verify", "describe_difference"]

#: Statuses of a rewritten run that say nothing about equivalence (resource limits, crashes).
_INCONCLUSIVE_STATUSES = ("timeout", "memory", "crashed")
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
        status: ``"equivalent"`` (no difference on any input checked), ``"differs"``
            (a counterexample was found) or ``"inconclusive"`` (nondeterministic original,
            the rewritten program timed out / ran out of memory / crashed where the
            original finished, or no input could be compared).
        inputs_checked: number of inputs on which both programs ran to a comparable outcome.
        counterexample: the first input that showed a difference (``"differs"`` only).
        reason: what differed, or why the verdict is inconclusive; ``None`` when equivalent.
    """

    status: str
    inputs_checked: int
    counterexample: Counterexample | None = None
    reason: str | None = None

    @property
    def ok(self) -> bool:
        """``True`` only for ``"equivalent"``."""
        return self.status == "equivalent"


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
            row's ground truth would depend on it.  ``None`` when not tested.
        reason: what made the baseline nondeterministic or hash-sensitive.
    """

    program: Program
    inputs: tuple[str, ...]
    outcomes: tuple[Outcome, ...]
    nondeterministic: bool
    seed_count: int = 0
    hash_sensitive: bool | None = None
    reason: str | None = None


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


# ----------------------------------------------------------------------------- baseline
def _requests(program: Program, inputs: Sequence[str]) -> list[ExecRequest]:
    return [ExecRequest(program.source, program.entry_point, args) for args in inputs]


def _mutants(program: Program, seeds: Sequence[str], extra: int, seed: int) -> list[str]:
    if extra <= 0 or not seeds:
        return []
    literals = program_literals(program)
    per_seed: list[list[str]] = []
    for text in seeds:
        try:
            per_seed.append(mutate_args(text, extra, derive_rng(seed, "mutate-inputs", text), literals))
        except InputError:  # not a literal (e.g. "''.join(['A'] * 20)"): run as is, no mutants
            per_seed.append([])
    out: list[str] = []
    taken = set(seeds)
    for round_ in range(extra):  # round robin over the seeds
        for ms in per_seed:
            if round_ < len(ms) and ms[round_] not in taken:
                taken.add(ms[round_])
                out.append(ms[round_])
    return out[:extra]


def _same_run(a: Outcome, b: Outcome) -> str | None:
    """Why two runs of the same program on the same input disagree, or ``None``."""
    if a.completed != b.completed:
        return f"{a.status} in one run, {b.status} in the other"
    if not a.completed:
        return None
    diff = describe_difference(a, b, ("first run", "second run"))
    if diff is not None:
        return diff
    if a.value_repr != b.value_repr:
        return f"repr of the result differs between runs ({_short(a.value_repr)} vs {_short(b.value_repr)})"
    return None


def make_baseline(sandbox: Sandbox, program: Program, seed_inputs: Sequence[str], *, extra_inputs: int = 20,
                  seed: int = 0, check_hash_seed: bool = True, mutant_timeout: float | None = 1.0) -> Baseline:
    """Run the original program on its seed inputs and on mutants of them.

    Args:
        sandbox: where to run.
        program: the original program.
        seed_inputs: argument literals (e.g. a CRUXEval row's ``input``); duplicates dropped.
        extra_inputs: how many mutants to add (fewer when the seeds have few neighbours,
            e.g. ``"None"``, or are not literals); drawn round-robin over the seeds with
            :func:`~codemorph.inputs.mutate_args`, seeded from ``seed`` and each input's text.
        seed: seed of the mutation.
        check_hash_seed: also run the seed inputs under ``PYTHONHASHSEED=1`` to fill
            :attr:`Baseline.hash_sensitive` (one more small batch).
        mutant_timeout: seconds per mutant execution (capped by the sandbox's timeout;
            ``None``: the sandbox's timeout).  Mutants often send input-dependent loops into
            infinite loops; a mutant that runs out of time is only skipped by :func:`check`,
            so a short limit loses little and saves much.  Seed inputs always get the
            sandbox's full timeout.

    Returns:
        A :class:`Baseline`.  The seed inputs run twice in the same batch (before and after
        the mutants); a difference makes it ``nondeterministic``.
    """
    if isinstance(seed_inputs, str):
        raise TypeError("seed_inputs must be a sequence of argument literals, not one string")
    seeds = list(dict.fromkeys(seed_inputs))
    mutants = _mutants(program, seeds, extra_inputs, seed)
    inputs = seeds + mutants
    short = None if mutant_timeout is None else min(mutant_timeout, sandbox.limits.timeout)
    requests = (_requests(program, seeds)
                + [ExecRequest(program.source, program.entry_point, m, timeout=short) for m in mutants]
                + _requests(program, seeds))
    outs = sandbox.run_batch(requests)
    first, again = outs[:len(inputs)], outs[len(inputs):]
    reasons = []
    for text, a, b in zip(seeds, first, again):
        why = _same_run(a, b)
        if why is not None:
            reasons.append(f"nondeterministic on input {_short(text)}: {why}")
            break
    nondeterministic = bool(reasons)
    hash_sensitive = None
    finished = [(text, a) for text, a in zip(seeds, first) if a.completed]
    if check_hash_seed and finished:
        other = sandbox.run_batch(_requests(program, [t for t, _ in finished]), hash_seed=sandbox.hash_seed + 1)
        hash_sensitive = False
        for (text, a), b in zip(finished, other):
            why = _same_run(a, b)
            if why is not None:
                hash_sensitive = True
                if not nondeterministic:
                    reasons.append(f"depends on PYTHONHASHSEED on input {_short(text)}: {why}")
                break
    return Baseline(program, tuple(inputs), tuple(first), nondeterministic, len(seeds), hash_sensitive,
                    "; ".join(reasons) or None)


# -------------------------------------------------------------------------------- check
def _short(text: Any, n: int = 80) -> str:
    s = text if isinstance(text, str) else repr(text)
    return s if len(s) <= n else s[:n - 3] + "..."


def describe_difference(original: Outcome, rewritten: Outcome,
                        labels: tuple[str, str] = ("original", "rewritten")) -> str | None:
    """What differs between two comparable outcomes (``None`` when their
    :meth:`~codemorph.sandbox.Outcome.behaviour` is equal); ``labels`` name the two sides."""
    if original.behaviour() == rewritten.behaviour():
        return None
    a, b = labels
    if original.status != rewritten.status:
        def show(o: Outcome) -> str:
            if o.exception is not None:
                return f"{o.status} {o.exception.type}"
            return f"{o.status} {_short(o.value_repr)}" if o.status == "returned" else o.status
        return f"status: {a} {show(original)}, {b} {show(rewritten)}"
    if original.status == "returned" and original.fingerprint != rewritten.fingerprint:
        return f"return value: {a} {_short(original.value_repr)}, {b} {_short(rewritten.value_repr)}"
    if original.status != "returned" and original.behaviour()[1] != rewritten.behaviour()[1]:
        return (f"exception: {a} {original.exception.type if original.exception else None}, "
                f"{b} {rewritten.exception.type if rewritten.exception else None}")
    if original.args_fingerprint != rewritten.args_fingerprint:
        return "final state of the arguments (in-place mutation) differs"
    if original.stdout != rewritten.stdout:
        return f"stdout: {a} {_short(original.stdout)!r}, {b} {_short(rewritten.stdout)!r}"
    return "behaviour differs"  # pragma: no cover - behaviour() has no other component


def check(sandbox: Sandbox, baseline: Baseline, rewritten: Program, *, slowdown: float = 10.0,
          min_timeout: float = 0.5) -> Verdict:
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
    difference.
    """
    if baseline.nondeterministic:
        return Verdict("inconclusive", 0, reason=baseline.reason or "the original program is nondeterministic")
    requests = check_requests(baseline, rewritten, sandbox.limits.timeout, slowdown=slowdown, min_timeout=min_timeout)
    return judge(baseline, requests, sandbox.run_batch(requests))


def check_requests(baseline: Baseline, rewritten: Program, cap: float, *, slowdown: float = 10.0,
                   min_timeout: float = 0.5) -> list[ExecRequest]:
    """The executions :func:`check` makes: ``rewritten`` on every comparable baseline input,
    with a time limit of ``max(min_timeout, slowdown * original duration)`` seconds capped
    by ``cap``.  Lets a caller run the requests of several rewrites in one batch and pass
    each slice of outcomes to :func:`judge`."""
    return [ExecRequest(rewritten.source, rewritten.entry_point, text,
                        timeout=min(cap, max(min_timeout, slowdown * o.duration)))
            for text, o in zip(baseline.inputs, baseline.outcomes) if o.comparable]


def judge(baseline: Baseline, requests: Sequence[ExecRequest], outs: Sequence[Outcome]) -> Verdict:
    """The verdict of :func:`check` from the outcomes of :func:`check_requests`."""
    if baseline.nondeterministic:
        return Verdict("inconclusive", 0, reason=baseline.reason or "the original program is nondeterministic")
    pairs = [(text, o) for text, o in zip(baseline.inputs, baseline.outcomes) if o.comparable]
    checked = 0
    inconclusive: str | None = None
    for (text, o), r, req in zip(pairs, outs, requests):
        if r.status == "timeout":
            if inconclusive is None:
                inconclusive = (f"rewritten program: timeout ({req.timeout:.3g}s) on input {_short(text)} where "
                                f"the original finished ({o.status} in {o.duration:.3g}s)")
            continue
        if r.status in _INCONCLUSIVE_STATUSES:
            if inconclusive is None:
                inconclusive = (f"rewritten program: {r.status} on input {_short(text)} where the original "
                                f"finished ({o.status})" + (f"; {r.note}" if r.note else ""))
            continue
        if r.status == "output-limit":  # the original's output fit the limit: they differ
            return Verdict("differs", checked, Counterexample(text, o, r),
                           f"on input {_short(text)}: rewritten program wrote more than the output limit")
        if not r.comparable:
            if inconclusive is None:
                inconclusive = (f"rewritten program's result on input {_short(text)} could not be "
                                f"compared ({r.note or r.repr_error or 'no fingerprint'})")
            continue
        why = describe_difference(o, r)
        if why is not None:
            return Verdict("differs", checked, Counterexample(text, o, r), f"on input {_short(text)}: {why}")
        checked += 1
    if inconclusive is not None:
        return Verdict("inconclusive", checked, reason=inconclusive)
    if checked == 0:
        return Verdict("inconclusive", 0, reason="no input on which the original program finished")
    return Verdict("equivalent", checked)


def verify(original: Program | str, rewritten: Program | str, entry: str = "f", inputs: Sequence[str] = ("",),
           *, extra_inputs: int = 20, seed: int = 0, sandbox: Sandbox | None = None,
           limits: Limits | None = None) -> Verdict:
    """Convenience: baseline + check in one call.

    Args:
        original, rewritten: programs, or source texts (then ``entry`` is their entry point).
        entry: entry point for source texts.
        inputs: seed argument literals.
        extra_inputs, seed: see :func:`make_baseline`.
        sandbox: a sandbox to reuse; by default a temporary one (with ``limits``) is
            started and closed.
        limits: limits of the temporary sandbox (ignored when ``sandbox`` is given).

    Returns:
        A :class:`Verdict`.  A rewritten source that does not parse ``differs``.

    Raises:
        ParseError: when the original source does not parse.
    """
    if not isinstance(original, Program):
        original = Program(original, entry)
    if not isinstance(rewritten, Program):
        try:
            rewritten = Program(rewritten, entry)
        except ParseError as exc:
            return Verdict("differs", 0, reason=f"rewritten program does not parse: {exc}")
    own = sandbox is None
    sb = Sandbox(limits or Limits()) if own else sandbox
    try:
        base = make_baseline(sb, original, list(inputs), extra_inputs=extra_inputs, seed=seed)
        return check(sb, base, rewritten)
    finally:
        if own:
            sb.close()
