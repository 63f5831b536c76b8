"""The ``perturb`` data-set job: for every input row, search perturbed inputs that raise
each requested exception class or change the output, and write one row per finding.

Rows come out in input order and are independent of the number of workers: each row's
search is seeded from ``(seed, row id)``.  Output rows (JSON Lines, CRUXEval-compatible):

=================  ==================================================================
field              meaning
=================  ==================================================================
``kind``           ``"input-perturbation"``
``id``             ``<original id>:perturb:<target>:<n>`` (``n`` counts from 0)
``original_id``    the source row's id
``code``           the program, unchanged
``input``          the new argument list (literals; an argument of the seed that is not a
                   literal, such as a lambda, is kept as written); ``seed_input`` keeps
                   the row's own
``entry_point``    the function called
``output``         ``repr`` of the returned value, or ``null`` when it raises
``exception``      ``{"type", "message", "line"}`` when it raises, else ``null``
``target``         the target searched: a class name or ``output-change``
``distance``       edit operations from the seed input (:mod:`.distance`)
``strategy``       ``mutation``, ``guided``, ``z3`` or ``crosshair``
``type_changing``  whether an argument changed type (only with ``allow_type_change``)
``seed``           the run's master seed
=================  ==================================================================

Each row also carries the source row's extra columns (those codemorph does not read, such
as ``difficulty`` or ``source``: :attr:`codemorph.dataset.SourceRow.extra`), first and
unchanged, as the rows ``codemorph generate`` writes do, so a harness can group rows by
them; a column named like a field above holds codemorph's value.

A row for ``any-exception`` is written only when its input is not already written for its
own class.  A finding that raises a class the program defines under the name of a built-in
exception (``class IndexError(Exception)``) is not written: the row's bare class name would
read as the built-in one.  Rows that cannot be searched (code does not parse, no entry point, input not
a literal, seed input does not finish) go to :func:`codemorph.dataset.rejects_path`; so do
programs with a source of nondeterminism that re-running cannot reveal (the clock, random
numbers, the process or its environment: :func:`codemorph.determinism.nondeterminism_source`),
at stage ``execute``.  Every finding that would be written is re-run before it is: twice in
one sandbox batch (at another heap state the second time, which changes memory addresses and
identity order) and once in another interpreter process; a finding whose runs differ from
each other or from the search's record is dropped, so each row's ``output``/``exception``
is what any later run gives.  It is also re-run with the stack of CPython's default
recursion limit (:data:`HARNESS_RECURSION_LIMIT`): the search runs at a limit of 10,000,
where an input that recurses 5,000 deep returns, but CRUXEval's harness runs at the default
1,000 and raises ``RecursionError`` there; a finding whose outcome differs between the two
limits holds only under some harnesses and is dropped.
"""

from __future__ import annotations

import os
import statistics
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import libcst as cst

from codemorph.rows.lock import output_lock
from codemorph.rows.dataset import Reject, RowWriter, SourceRow, count_rows, guard_derived_ids, read_rows, rejects_path
from codemorph.rows.schema import PerturbationRow, parse_problem, row_reject
from codemorph.errors import InputError, ParseError
from codemorph.jobs.executors import DaskExecutor, LocalExecutor, failed_row_reject, map_rows
from codemorph.engine.program import Program
from codemorph.sandbox.determinism import nondeterminism_source, process_change
from codemorph.sandbox.kinds import RunView, request_for, run_view
from codemorph.sandbox.pool import ExecRequest, Outcome, Sandbox
from codemorph.verification.differential import HASH_SEEDS, hash_stable, may_depend_on_hash
from codemorph.engine.transform import derive_seed
from codemorph.perturb.search import ANY_EXCEPTION, DEFAULT_STRATEGIES, OUTPUT_CHANGE, Budget, Perturbation, search_limits, \
    search_many
from codemorph.perturb.kinds import search_kind
from codemorph.verification.differential import program_literals

__all__ = ["PerturbConfig", "PerturbSummary", "TargetStats", "RowResult", "perturb_dataset", "perturb_row", "search_row",
           "perturb_ordered", "DEFAULT_EXCEPTIONS", "summary_table", "HARNESS_RECURSION_LIMIT"]

#: frames of the stack a finding is re-checked with, counted as in a plain ``python
#: program.py`` run (:attr:`~codemorph.sandbox.ExecRequest.recursion_limit`): CPython's
#: default limit, 1,000, less 50 frames for a harness's own (a function calling ``exec``
#: in a subprocess).  A finding must give the same outcome here and at the search's limit
#: (10,000), so it holds under any harness with a limit between the two.
HARNESS_RECURSION_LIMIT = 950

#: exception classes searched when none are named
DEFAULT_EXCEPTIONS = ("IndexError", "KeyError", "ValueError", "ZeroDivisionError", "TypeError", "AttributeError",
                      "RecursionError", "StopIteration", "UnboundLocalError", "AssertionError", ANY_EXCEPTION)


@dataclass(frozen=True)
class PerturbConfig:
    """Settings of a ``perturb`` run.

    Attributes:
        exceptions: exception class names to search (and/or ``"any-exception"``).
        output_changes: output-changing inputs wanted per row (0 = none).
        per_exception: rows wanted per row and exception class.
        budget: per-row :class:`~codemorph.perturb.Budget` (executions, seconds).
        seed: master seed.
        workers: parallel host processes, each with one sandbox worker.
        allow_type_change: also search type-changing inputs (labelled in every row).
        strategies: search strategies (see :data:`~codemorph.perturb.ALL_STRATEGIES`).
        worker_memory: address-space cap of each worker process in bytes
            (``--worker-memory``; local processes only); ``None``: no cap.
    """

    exceptions: tuple[str, ...] = DEFAULT_EXCEPTIONS
    output_changes: int = 1
    per_exception: int = 1
    budget: Budget = field(default_factory=Budget)
    seed: int = 0
    workers: int = 1
    allow_type_change: bool = False
    strategies: tuple[str, ...] = DEFAULT_STRATEGIES
    worker_memory: int | None = None

    def targets(self) -> list[str]:
        out = list(dict.fromkeys(self.exceptions))
        if self.output_changes > 0:
            out.append(OUTPUT_CHANGE)
        return out


@dataclass
class TargetStats:
    """Per-target counts of a run: programs reached, rows written, each written row's
    distance and the search seconds until its input's class was first found."""

    programs: int = 0
    rows: int = 0
    distances: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)

    @property
    def median_distance(self) -> float | None:
        return statistics.median(self.distances) if self.distances else None

    @property
    def median_seconds(self) -> float | None:
        return statistics.median(self.seconds) if self.seconds else None


@dataclass
class PerturbSummary:
    """What a finished run did.

    Attributes:
        out_path, rejects_path: where rows and rejects went.
        rows_read: input rows; programs_searched: rows whose search ran;
        rows_written: output rows; rows_rejected: rejected input rows;
        per_target: target -> :class:`TargetStats` (``programs`` counts programs reached);
        executions: sandbox executions in total; seconds: wall-clock seconds of the run;
        search_seconds: per searched program, seconds its search took (summed over workers).
    """

    out_path: Path
    rejects_path: Path
    rows_read: int = 0
    programs_searched: int = 0
    rows_written: int = 0
    rows_rejected: int = 0
    per_target: dict[str, TargetStats] = field(default_factory=dict)
    executions: int = 0
    seconds: float = 0.0
    search_seconds: list[float] = field(default_factory=list)
    #: rows whose processing raised an unexpected exception (stage ``internal`` in the
    #: rejects file); ``codemorph perturb --fail-on-error`` exits 1 when it is not 0
    errors: int = 0


@dataclass
class RowResult:
    """What :func:`search_row` did with one source row.

    Attributes:
        rows: output rows, ready to write (the schema in the module docstring).
        rejects: why the row could not be searched (at most one :class:`~codemorph.dataset.Reject`).
        reached: target -> the closest :class:`~codemorph.perturb.Perturbation` found.
        executions: sandbox executions spent; seconds: wall-clock seconds of the search.
        searched: whether the search ran (False when the row was rejected).
    """

    rows: list[dict[str, Any]] = field(default_factory=list)
    rejects: list[Reject] = field(default_factory=list)
    reached: dict[str, Perturbation] = field(default_factory=dict)
    executions: int = 0
    seconds: float = 0.0
    searched: bool = False


def perturb_row(row: SourceRow, config: PerturbConfig, sandbox: Sandbox | None = None) -> list[dict[str, Any]]:
    """The perturbation rows of one source row, ready to write: the same rows, in the same
    order, as ``codemorph perturb`` writes for it (schema in the module docstring).  Meant
    for jobs that process rows one at a time, e.g. ``codemorph generate --perturb-inputs``
    after a row's transform variants.

    Args:
        row: a :class:`~codemorph.dataset.SourceRow` (``id``, ``code``, ``input``,
            ``entry_point``...).
        config: a :class:`PerturbConfig`; its ``workers`` is ignored (one row, one search).
        sandbox: the :class:`~codemorph.sandbox.Sandbox` to run in; it should have
            :func:`~codemorph.perturb.search_limits` (0.5 s per execution: the search runs
            up to ``config.budget.executions`` mutants, some of which hang).  Keep one per
            worker process and pass it to every call; ``None`` starts a temporary one
            (about 50 ms of start-up per call).

    Returns:
        A list of row dicts (the schema in the module docstring, with the row's extra
        columns), possibly empty: nothing found, or the row cannot be searched
        (:func:`search_row` says why).  Deterministic for a given ``config.seed`` and row id
        when the execution budget ends each search.
    """
    if sandbox is None:
        with Sandbox(search_limits()) as sb:
            return search_row(row, config, sb).rows
    return search_row(row, config, sandbox).rows


def search_row(row: SourceRow, config: PerturbConfig, sandbox: Sandbox) -> RowResult:
    """Search one row and build its output rows, with the bookkeeping of the ``perturb``
    job: rejects (code that does not parse, no entry point, a nondeterminism source found by
    :func:`~codemorph.determinism.nondeterminism_source`, an input that is not a literal, a
    seed input that does not run to an end), the closest reproducible finding per target,
    executions (search and re-check) and seconds spent.  Findings are re-checked by
    :func:`_recheck` before they become rows.  Arguments as for :func:`perturb_row`; returns
    a :class:`RowResult`.  Never raises: an unexpected exception (a codemorph bug) becomes
    the row's only reject, of stage ``internal`` (exception class, message, where), and
    the run goes on."""
    try:
        return _search_row(row, config, sandbox)
    except Exception as exc:  # noqa: BLE001 - the policy: a failure costs one row, never the run
        return RowResult(rejects=[failed_row_reject(row, exc)])


def _search_row(row: SourceRow, config: PerturbConfig, sandbox: Sandbox) -> RowResult:
    res = RowResult()

    def reject(stage: str, reason: str) -> RowResult:
        res.rejects.append(row_reject(row, stage, reason))
        return res

    try:
        program = Program(row.code, row.entry_point, filename=row.id)
    except ParseError as exc:
        return reject("parse", parse_problem(exc))
    view = run_view(row, program)
    kind = view.kind
    if view.entry_point != program.entry_point:
        program = program.with_source(row.code, view.entry_point)
    if kind == "args" and not program.has_entry_point():
        return reject("parse", f"code defines no top-level function {row.entry_point!r} (the entry point)")
    source = nondeterminism_source(row.code, input_kind=kind, harness=[view.input] if kind == "call" else None)
    if source is not None:
        # an outcome that a second run a moment later cannot contradict (the clock, unseeded
        # random numbers, the process): no found input of it can be a ground truth
        change = process_change(row.code, input_kind=kind, harness=[view.input] if kind == "call" else None)
        if change is not None:
            return reject("execute", f"the program {change}, so no row of it is written")
        return reject("execute", f"the program may be nondeterministic: it {source}, found in its code, "
                                 "so no row of it is written")
    targets = config.targets()
    want = {t: config.per_exception for t in targets}
    if OUTPUT_CHANGE in want:
        want[OUTPUT_CHANGE] = config.output_changes
    try:
        if kind == "args":
            report = search_many(program, view.input, targets, config.budget, derive_seed(config.seed, row.id),
                                 strategies=config.strategies, allow_type_change=config.allow_type_change,
                                 want=want, max_results=max(want.values()), sandbox=sandbox)
        else:  # standard inputs, harness methods or call expressions with other literals
            report = search_kind(program, kind, view.input, targets, config.budget,
                                 derive_seed(config.seed, row.id), want=want, max_results=max(want.values()),
                                 sandbox=sandbox, literals=program_literals(program),
                                 allow_type_change=config.allow_type_change)
    except InputError as exc:
        return reject("input", f"input {row.input[:80]!r} is not an argument-list literal: {exc}")
    res.executions = report.executions
    res.seconds = report.seconds
    if report.skipped:
        return reject("execute", report.skipped)
    res.searched = True
    written: set[str] = set()
    lookalikes = _builtin_lookalikes(program)
    found_by = {t: [p for p in report.found.get(t, []) if _keepable(t, p)
                    and (p.exception is None or p.exception.type not in lookalikes)][: want[t]] for t in targets}
    cands = list(dict.fromkeys(p.input for t in targets for p in found_by[t]))
    if cands:
        found_by, res.executions = _recheck(sandbox, row, found_by, cands, res.executions, view)
    for t in targets:
        found = found_by[t]
        if found:
            res.reached[t] = found[0]
        n = 0
        for p in found[: want[t]]:
            if t == ANY_EXCEPTION and p.input in written:
                continue
            written.add(p.input)
            label = t
            # a call row searched as the arguments of its function gets its call back
            text = f"{view.entry_point}({p.input})" if row.input_kind == "call" and kind == "args" else p.input
            res.rows.append(PerturbationRow(
                f"{row.id}:perturb:{label}:{n}", row.id, row.code, text, row.entry_point,
                p.output if p.status == "returned" else None,
                None if p.exception is None else
                {"type": p.exception.type, "message": p.exception.message, "line": p.exception.line},
                t, row.input, p.distance, p.strategy, p.type_changing, config.seed,
                extra=row.extra,  # the input row's own columns (difficulty, source...), unchanged
                input_kind=row.input_kind,
            ).to_json())
            n += 1
    return res


def _same(a: Outcome, b: Outcome) -> bool:
    """Whether two executions of one input agree on what a row records: status, exception
    class, message and line, result repr, and stdout."""
    ea = None if a.exception is None else (a.exception.type, a.exception.message, a.exception.line)
    eb = None if b.exception is None else (b.exception.type, b.exception.message, b.exception.line)
    return (a.status, ea, a.value_repr, a.stdout) == (b.status, eb, b.value_repr, b.stdout)


def _same_under_seeds(a: Outcome, b: Outcome) -> bool:
    """:func:`_same`, except that two returned results whose reprs both read back as equal
    literals agree when they are the same value of the same types (equal fingerprints and
    arguments' final state, same stdout): a set of strings shown in another order under
    another ``PYTHONHASHSEED``, which a harness comparing with ``==`` takes for the same.
    Exceptions keep their message and line (a row records them as text)."""
    if _same(a, b):
        return True
    return a.status == b.status == "returned" and a.literal_ok and b.literal_ok and a.fingerprint is not None \
        and (a.fingerprint, a.args_fingerprint, a.stdout) == (b.fingerprint, b.args_fingerprint, b.stdout)


def _matches(p: Perturbation, o: Outcome, kind: str = "args") -> bool:
    """Whether an execution agrees with what the search recorded for ``p`` (a ``stdin``
    finding records the standard output)."""
    if o.status != p.status:
        return False
    if p.status == "returned":
        return (o.stdout if kind == "stdin" else o.value_repr) == p.output
    e = o.exception
    return e is not None and p.exception is not None and \
        (e.type, e.message, e.line) == (p.exception.type, p.exception.message, p.exception.line)


class _Counting:
    """A sandbox stand-in for :func:`~codemorph.verification.hash_stable` that counts
    executions."""

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox
        self.hash_seed = sandbox.hash_seed
        self.executions = 0

    def run_batch(self, requests: list[ExecRequest], **kw: Any) -> list[Outcome]:
        self.executions += len(requests)
        return self.sandbox.run_batch(requests, **kw)


def _recheck(sandbox: Sandbox, row: SourceRow, found_by: dict[str, list[Perturbation]], cands: list[str],
             executions: int, view: RunView | None = None) -> tuple[dict[str, list[Perturbation]], int]:
    """Drop the findings whose outcome is not reproducible.

    Every candidate input (and the seed input, which the output-change target is measured
    against) runs twice in one sandbox batch, in the order ``[s, c1..cn, s, c1..cn]``, so
    each second run happens at another heap state, after other executions: memory
    addresses (``repr(object())``, identity-ordered sets of plain instances) then differ,
    where re-running in a fresh forked child would repeat the first run's addresses.  A
    finding is kept when both runs agree with each other and with the search's record
    (:func:`_same`, :func:`_matches`); output-change findings also need the seed input's
    two runs to agree.  The survivors then run once more under another ``PYTHONHASHSEED``
    (:func:`~codemorph.verification.hash_stable`), which the sandbox serves from another
    interpreter process: addresses that two runs in one forked child share (a nested
    function freed and re-created in the same slot) differ there.  When the code may depend
    on string hashing (:func:`~codemorph.verification.may_depend_on_hash`), under
    :data:`~codemorph.verification.HASH_SEEDS` other seeds.  The survivors run once more
    with the stack of CPython's default recursion limit (:data:`HARNESS_RECURSION_LIMIT`),
    since the search's limit is 10,000 and CRUXEval's harness keeps the default.  A finding
    whose outcome changes is dropped.  Cost per row with findings: one batch of ``2 (n + 1)``
    executions, one or more batches of at most ``n`` in another worker, and one batch of at
    most ``n``.

    Returns ``(found_by without the dropped findings, executions + executions spent)``.
    """
    view = view or RunView("args", row.entry_point, row.input, (row.input,))
    kind, entry = view.kind, view.entry_point
    inputs = [view.input] + cands
    reqs = [request_for(row.code, entry, kind, i) for i in inputs]
    outs = sandbox.run_batch(reqs + reqs)
    executions += len(outs)
    n = len(inputs)
    firsts = dict(zip(inputs, outs[:n]))
    seconds = dict(zip(inputs, outs[n:]))
    # the seed input may equal a candidate (never for a finding, but keep it simple): the
    # dict keeps its last (candidate) position, whose runs are compared the same way
    seed_stable = _same(outs[0], outs[n])
    stable = {i: _same(firsts[i], seconds[i]) for i in cands}
    kept = {t: [p for p in f if stable[p.input] and _matches(p, firsts[p.input], kind)
                and (t != OUTPUT_CHANGE or seed_stable)] for t, f in found_by.items()}
    left = list(dict.fromkeys(p.input for f in kept.values() for p in f))
    if left:
        # a third run in another interpreter process (another PYTHONHASHSEED, hence another
        # sandbox worker, with its own address-space layout): a function's or object's
        # address that the two runs in one forked child repeat differs there.  When the
        # code may depend on string hashing, more seeds: a finding whose outcome changes
        # under another hash seed (a set of strings iterated) is a ground truth for one
        # hash seed only.  Either way: dropped.
        seeds = HASH_SEEDS if kind == "stdin" or may_depend_on_hash(row.code, view.input, *left) else 1
        counting = _Counting(sandbox)
        # compared by _same: a row records the exception's message and line too (a message
        # showing a set of strings changes with the hash seed); a returned literal by value
        # (a set of strings is the same set in any order), a stdin row's output as text
        same = _same if kind == "stdin" else _same_under_seeds
        ok = dict(zip(left, hash_stable(counting, row.code, entry, left,  # type: ignore[arg-type]
                                        [firsts[i] for i in left], seeds=seeds, same=same, input_kind=kind)))
        executions += counting.executions
        kept = {t: [p for p in f if ok[p.input]] for t, f in kept.items()}
        left = list(dict.fromkeys(p.input for f in kept.values() for p in f))
    if left:
        # the stack of CPython's default recursion limit (CRUXEval's harness) instead of the
        # search's 10,000: an input that recursed deeper, or whose RecursionError comes at
        # another line or with another message, gives another outcome there: dropped
        shallow = sandbox.run_batch([request_for(row.code, entry, kind, i, recursion_limit=HARNESS_RECURSION_LIMIT)
                                     for i in left])
        executions += len(shallow)
        same = {i: _same(firsts[i], o) for i, o in zip(left, shallow)}
        kept = {t: [p for p in f if same[p.input]] for t, f in kept.items()}
    return kept, executions


#: exceptions that end a harness rather than fail one prediction (not Exception subclasses)
_HARNESS_KILLERS = frozenset({"SystemExit", "KeyboardInterrupt", "GeneratorExit"})


def _builtin_lookalikes(program: Program) -> frozenset[str]:
    """Names of built-in exception classes that the program defines a class of its own for
    (``class IndexError(Exception)``): a row's ``exception.type`` is a bare class name, so a
    finding raising the program's class would read, and count, as the built-in one
    (tester's F7).  Such findings are not written."""
    import builtins

    names = {n.name.value for n in _walk(program.module) if isinstance(n, cst.ClassDef)}
    return frozenset(n for n in names if isinstance(getattr(builtins, n, None), type)
                     and issubclass(getattr(builtins, n), BaseException))


def _walk(node: cst.CSTNode):
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.children)


def _keepable(target: str, p: Perturbation) -> bool:
    """``any-exception`` means an ``Exception``: a finding raising SystemExit,
    KeyboardInterrupt or GeneratorExit is kept only when that class is the target."""
    return p.exception is None or p.exception.type not in _HARNESS_KILLERS or p.exception.type == target


def _perturb_one(config: PerturbConfig, sandbox: Sandbox, row: SourceRow) -> RowResult:
    return search_row(row, config, sandbox)


def _search_sandbox() -> Sandbox:
    return Sandbox(search_limits())


def perturb_ordered(config: PerturbConfig, items: Iterable[SourceRow | Reject],
                    executor: LocalExecutor | DaskExecutor | None = None
                    ) -> Iterator[tuple[SourceRow | Reject, RowResult]]:
    """``perturb``: yield ``(item, row result)`` for every item read, in input order.

    Each row is searched by :func:`search_row` with one sandbox per worker, through
    :func:`~codemorph.jobs.executors.map_rows` (``config.workers`` local ``spawn``
    processes that die with this one, the calling process when ``config.workers`` is 1, or
    every thread of a Dask cluster); locally up to ``4 * config.workers`` rows are in
    flight ahead of the one being yielded.  A :class:`~codemorph.rows.dataset.Reject` item
    gets a result holding just itself; a row whose search raises gets its ``internal``
    reject in the worker (:func:`search_row`), a row whose worker process dies (again when
    run alone) a reject of stage ``worker``.  The searches are seeded per row and bounded
    by executions, so the results do not depend on the executor.
    """
    workers = max(1, config.workers)
    window = None if isinstance(executor, DaskExecutor) else 4 * workers
    for item, res in map_rows(partial(_perturb_one, config), items, executor, setup=_search_sandbox,
                              workers=workers, window=window, on_error=_row_failed, memory=config.worker_memory):
        yield item, (RowResult(rejects=[item]) if res is None else res)


def _row_failed(row: SourceRow, exc: Exception) -> RowResult:
    """The result of a row whose worker process died, twice (the second time alone):
    its reject of stage ``worker`` (:func:`~codemorph.jobs.executors.failed_row_reject`)."""
    return RowResult(rejects=[failed_row_reject(row, exc)])


def perturb_dataset(in_path: str | os.PathLike[str], out_path: str | os.PathLike[str], config: PerturbConfig,
                    progress: Callable[[int, int], None] | None = None, executor: Any = None) -> PerturbSummary:
    """Run the perturbation job over a JSON Lines data set, holding the output's lock
    (:func:`~codemorph.rows.lock.output_lock`) while it writes the output and rejects files.

    Args:
        in_path: CRUXEval-format rows (``id``, ``code``, ``input``, ``output``; optional
            ``entry_point``), read with :func:`codemorph.dataset.read_rows`.
        out_path: output JSON Lines (see the module docstring for the row schema); rejected
            input rows go to :func:`codemorph.dataset.rejects_path` ``(out_path)``.
        config: a :class:`PerturbConfig`.
        progress: called as ``progress(rows_done, rows_total)`` after each input row.
        executor: ``None`` (``config.workers`` local processes) or an executor of
            :func:`codemorph.executors.make_executor` (e.g. Dask); the rows are the same.

    Returns:
        A :class:`PerturbSummary` (per-target programs reached, median distance, median
        search seconds).

    Raises:
        InputError: the input file is missing, a directory or empty; the output directory
            does not exist.
        OutputBusyError: another run (another process) is writing ``out_path``; nothing
            was touched (an ``InputError``).
        ValueError: a malformed target name or strategy.
    """
    for t in config.targets():
        if t not in (ANY_EXCEPTION, OUTPUT_CHANGE) and not t.isidentifier():
            raise ValueError(f"{t!r} is not an exception class name")
    total = count_rows(in_path)  # raises file-level input errors before any output file is opened
    with output_lock(out_path):
        return _perturb_dataset(in_path, out_path, config, progress, executor, total)


def _perturb_dataset(in_path: str | os.PathLike[str], out_path: str | os.PathLike[str], config: PerturbConfig,
                     progress: Callable[[int, int], None] | None, executor: Any, total: int) -> PerturbSummary:
    items = guard_derived_ids(read_rows(in_path), ())  # a stream; ids colliding with derived ids are rejected
    summary = PerturbSummary(Path(out_path), rejects_path(out_path))
    summary.per_target = {t: TargetStats() for t in config.targets()}
    start = time.perf_counter()
    with RowWriter(out_path) as writer, RowWriter(summary.rejects_path) as rejects:
        for done, (item, res) in enumerate(perturb_ordered(config, items, executor), 1):
            summary.rows_read += 1
            for r in res.rows:
                writer.write(r)
                summary.rows_written += 1
                st = summary.per_target[r["target"]]
                st.rows += 1
                st.distances.append(r["distance"])
            for rej in res.rejects:
                rejects.write(rej.to_json())
                summary.rows_rejected += 1
                summary.errors += rej.stage in ("internal", "worker")
            if res.searched:
                summary.programs_searched += 1
                summary.search_seconds.append(res.seconds)
            for t, p in res.reached.items():
                summary.per_target[t].programs += 1
                summary.per_target[t].seconds.append(p.seconds)
            summary.executions += res.executions
            if progress:
                progress(done, total)
    summary.seconds = time.perf_counter() - start
    return summary


def summary_table(summary: PerturbSummary) -> Any:
    """A :class:`rich.table.Table` of a run: per target, programs reached, rows, median
    distance (edit operations) and median seconds until found."""
    from rich.table import Table

    table = Table(title=f"codemorph perturb -> {summary.out_path}")
    for col, just in (("target", "left"), ("programs reached", "right"), ("rows", "right"),
                      ("median distance", "right"), ("median time to find (s)", "right")):
        table.add_column(col, justify=just)
    for t, st in summary.per_target.items():
        md, ms = st.median_distance, st.median_seconds
        table.add_row(t, str(st.programs), str(st.rows), "-" if md is None else f"{md:g}",
                      "-" if ms is None else f"{ms:.2f}")
    return table
