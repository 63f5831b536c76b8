"""The ``generate`` job: read rows -> parse -> transform -> verify -> write rows.

Each input row is processed by :class:`RowProcessor` (a plain object holding the
transform instances and one :class:`~codemorph.sandbox.Sandbox`), independently of every
other row, with randomness derived from ``(seed, row id, transform name)``: the output
does not depend on the number of workers or the order rows finish in.  Rows are written
in input order, each row group as soon as it and all rows before it are done.
"""

from __future__ import annotations

import ast

import gc
import itertools
import os
import resource
import threading
import time
from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

from codemorph.jobs.executors import (DaskExecutor, LocalExecutor, failed_row_reject, map_rows, memory_cap,
                                      memory_cap_reason)
from codemorph.rows.dataset import (Checkpoint, Reject, RowWriter, SourceRow, count_rows, guard_derived_ids, input_files,
                                    progress_path, read_rows, rejects_path)
from codemorph.rows.lock import output_lock
from codemorph.rows.schema import (OriginalRow, TransformReject, VariantReject, VariantRow,
                                   parse_problem, row_reject)
from codemorph.errors import InputError, ParseError
from codemorph.engine.pipeline import Pipeline
from codemorph.engine.program import Program
from codemorph.engine.recipes import Recipe, Variant, build_pipeline
from codemorph.engine.registry import default_registry
from codemorph.naturalness import cached_model, prepare_default_model
from codemorph.sandbox.determinism import process_change
from codemorph.sandbox.kinds import RunView, output_of, request_for, run_view
from codemorph.sandbox.pool import ExecRequest, Limits, Sandbox
from codemorph.sandbox.observations import merge_observations
from codemorph.engine.transform import DEFAULT_TIME_LIMIT, derive_rng, derive_seed, set_time_limit
from codemorph.verification.claims import claim_requests, refutation
from codemorph.verification.differential import (DEFAULT_INPUTS, HASH_SEEDS, MIN_INPUTS, check_requests, judge, make_baseline,
                           may_depend_on_hash, prove_verdict)

__all__ = ["GenerateConfig", "TransformStat", "RowOutcome", "RowProcessor", "GenerateSummary", "WorkerMemory",
           "generate", "generate_ordered", "default_transforms"]


#: the youngest generation's collection threshold while a ``freeze_heap`` processor runs
_YOUNG_OBJECTS = 10_000
# reentrant: a worker process's SIGTERM handler (codemorph.jobs.executors) closes the
# processors from the thread it interrupted, which may hold it
_heap_lock = threading.RLock()
_heap_holders = 0
_heap_threshold: tuple[int, ...] = ()


def _hold_heap() -> None:
    """The first of the process's ``freeze_heap`` processors (Dask runs one per thread)
    collects once, freezes what is alive (:func:`gc.freeze`) and lets the youngest generation
    grow to :data:`_YOUNG_OBJECTS` objects: a row allocates hundreds of thousands of (mostly
    acyclic) libcst and ast nodes, and each collection of the young generations walks the
    survivors again."""
    global _heap_holders, _heap_threshold
    with _heap_lock:
        if _heap_holders == 0:
            gc.collect()
            gc.freeze()
            _heap_threshold = gc.get_threshold()
            gc.set_threshold(max(_heap_threshold[0], _YOUNG_OBJECTS), *_heap_threshold[1:])
        _heap_holders += 1


def _release_heap() -> None:
    """The last of them to close puts the collector back as it found it."""
    global _heap_holders
    with _heap_lock:
        _heap_holders -= 1
        if _heap_holders == 0:
            gc.set_threshold(*_heap_threshold)
            gc.unfreeze()


def default_transforms() -> tuple[str, ...]:
    """Names of every built-in transform (those registered by the codemorph distribution)."""
    reg = default_registry()
    return tuple(n for n in reg.names() if reg.origin(n) in ("codemorph", ""))


@dataclass(frozen=True)
class GenerateConfig:
    """Settings of a ``generate`` run.

    Attributes:
        variants: what to make of every row: one output row per (row, variant); a variant
            is a name and a pipeline spec (see :mod:`codemorph.recipes`).  Use
            :meth:`from_transforms` for "each transform on its own".
        seed: master seed (int); every random choice derives from it.
        workers: host processes working on rows in parallel (each with one sandbox worker).
        extra_inputs: mutated inputs per row used for differential verification, besides
            the row's own input.
        min_inputs: fewest distinct inputs that ran the original and the variant to the end
            for a variant's status ``equivalent`` or ``proved``; a variant compared on fewer
            is written with status ``weak`` (:func:`~codemorph.verification.judge`).
        limits: sandbox limits per execution (seconds, bytes).
        options: per-transform constructor options, ``{name: {option: value}}``.
        perturb: a :class:`~codemorph.perturb.PerturbConfig` to also write, after each
            source row's variants, the input perturbations ``codemorph perturb`` would
            write for it (``generate --perturb-inputs``); ``None`` for none.
        prove: also try to prove each variant's changed region equivalent with Z3
            (:func:`~codemorph.verification.prove_verdict`); a proved variant's
            ``verification`` has ``status`` ``"proved"`` and ``proved`` true.
        max_naturalness_delta: a variant whose ``naturalness_delta`` (bits per token over
            its original, :func:`codemorph.naturalness.naturalness_delta`) exceeds this is
            not written but rejected (stage ``naturalness``); ``None``: no limit.
        naturalness_model: the naturalness model's cache file for the workers to read
            (:func:`generate` sets it from
            :func:`~codemorph.naturalness.prepare_default_model`); ``None``: the default model.
        worker_memory: address-space cap of each worker process in bytes (``RLIMIT_AS``,
            :func:`~codemorph.jobs.executors.limit_memory`; ``--worker-memory``), local
            processes only (``workers`` > 1); ``None``: no cap.  A row that needs more is
            rejected (stage ``worker``), never the run.
        transform_time_limit: seconds one transform's application may take in the host
            (:func:`~codemorph.engine.transform.set_time_limit`, set by each worker's
            :class:`RowProcessor`; ``--transform-time-limit``); past it the transform is
            stopped and its variant rejected (stage ``transform``, exception
            ``TransformTimeout``); ``None`` or 0: no limit.  With ``workers`` > 1, a worker
            process still in one application :func:`~codemorph.jobs.executors.kill_grace`
            seconds past the limit (stuck in C code, or catching the limit's exception) is
            killed by the parent and its row rejected (stage ``worker``,
            :class:`~codemorph.jobs.executors.WorkerOverran`).
    """

    variants: tuple[Variant, ...]
    seed: int = 0
    workers: int = 1
    extra_inputs: int = DEFAULT_INPUTS - 1
    min_inputs: int = MIN_INPUTS
    limits: Limits = field(default_factory=Limits)
    recipe: tuple[str, str] | None = None
    perturb: Any = None
    prove: bool = False
    max_naturalness_delta: float | None = None
    naturalness_model: str | None = None
    worker_memory: int | None = None
    transform_time_limit: float | None = DEFAULT_TIME_LIMIT

    def __post_init__(self) -> None:
        names = [v.name for v in self.variants]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise InputError(f"the variant {twice[0]!r} is given twice: each variant writes the row id "
                             f"'<id>:{twice[0]}', so two would write duplicate ids; give each transform once (-t)")

    @classmethod
    def from_transforms(cls, names: Sequence[str], **kw: Any) -> "GenerateConfig":
        """One variant per transform name, named after it (rows ``<id>:<transform>``).

        Raises:
            InputError: a name is given twice (its rows would have the same ids)."""
        return cls(variants=tuple(Variant(n, n) for n in names), **kw)

    @classmethod
    def from_recipe(cls, recipe: Recipe, **kw: Any) -> "GenerateConfig":
        """The variants of ``recipe``; its name and version are written to every row."""
        return cls(variants=recipe.variants, recipe=(recipe.name, recipe.version), **kw)


@dataclass(frozen=True)
class TransformStat:
    """What happened to one (row, variant) pair (``transform`` is the variant's name).

    ``status`` is ``written``, ``written-unreached`` / ``written-weak`` (written with status
    ``unreached`` / ``weak``), ``not-applicable``, ``rejected`` (verification found a
    difference), ``inconclusive`` (verification could not decide; not written),
    ``error`` (the variant did not run on the row's input), ``withheld`` (verified, but
    not written because another variant of the row, whose own status says what it did,
    failed on the row's input and the whole row was rejected), ``transform-error`` (a
    transform of the variant raised; a reject of stage ``transform``) or ``unnatural``
    (above :attr:`GenerateConfig.max_naturalness_delta`; a reject of stage
    ``naturalness``); ``seconds`` is wall time; ``naturalness`` the variant's naturalness
    delta (bits per token) when it was measured (written and ``unnatural`` variants).
    """

    transform: str
    status: str
    seconds: float
    reason: str | None = None
    naturalness: float | None = None


@dataclass(frozen=True)
class WorkerMemory:
    """Peak memory of one worker, as of a row it finished.

    Attributes:
        worker: the worker process's id (pid; on Dask, the Dask worker process's).
        host: peak resident set size of that process, in bytes (``ru_maxrss``): parsing,
            transforms, verification of every row it processed so far.
        sandbox: the largest peak resident set size, in bytes, of the sandbox processes
            that ran its programs (:attr:`codemorph.sandbox.pool.Sandbox.peak_memory`);
            each execution's address space is capped by ``--memory``.
    """

    worker: int
    host: int
    sandbox: int


def _peak_rss() -> int:
    """This process's peak resident set size in bytes (``ru_maxrss`` is KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


@dataclass
class RowOutcome:
    """Result of processing one input row: rows to write (JSON objects of
    :mod:`codemorph.rows.schema` rows), rejects of the row (:class:`Reject`), rejects of
    its variants (:class:`~codemorph.rows.schema.VariantReject` /
    :class:`~codemorph.rows.schema.TransformReject`), per-transform stats, and the peak
    memory of the worker that processed it (:class:`WorkerMemory`; ``None`` for an item
    no worker processed)."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    rejects: list[Reject] = field(default_factory=list)
    variant_rejects: list[VariantReject | TransformReject] = field(default_factory=list)
    stats: list[TransformStat] = field(default_factory=list)
    memory: WorkerMemory | None = None


class RowProcessor:
    """Processes rows one at a time; owns a :class:`Sandbox` (close it when done).

    Args:
        config: the run's :class:`GenerateConfig`.
        freeze_heap: after the first row, collect garbage once and move every object then
            alive (modules, transforms, the naturalness model, caches) to the collector's
            permanent generation (:func:`gc.freeze`), so that the cyclic garbage
            collector's full collections during the run no longer walk them, and let the
            youngest generation grow to 10,000 objects before a collection instead of 700
            (:func:`gc.set_threshold`); together about 0.35 CPU s per 200 CRUXEval rows.
            :meth:`close` undoes both (:func:`gc.unfreeze`, the previous thresholds).
            ``generate`` sets it for its workers; what is computed does not change.
    """

    def __init__(self, config: GenerateConfig, freeze_heap: bool = False) -> None:
        self.config = config
        set_time_limit(config.transform_time_limit)  # this process's transforms: the run's limit
        self._freeze_heap = freeze_heap
        self._frozen = False
        self.pipelines: list[tuple[str, Pipeline]] = [(v.name, build_pipeline(v.spec)) for v in config.variants]
        self.needs_types = any(t.needs_runtime_types or t.uses_runtime_types
                               for _, p in self.pipelines for t in p.transforms())
        self.sandbox = Sandbox(config.limits, workers=1)
        self._perturb_sandbox: Sandbox | None = None
        self._base_entropy: tuple[str, float] | None = None  # (original source, its cross-entropy)

    def close(self) -> None:
        if self._frozen:
            self._frozen = False
            _release_heap()
        self.sandbox.close()
        if self._perturb_sandbox is not None:
            self._perturb_sandbox.close()

    def _perturbations(self, row: SourceRow, out: RowOutcome) -> None:
        """Add the row's input perturbations (as ``codemorph perturb`` writes them) to
        ``out``; a search that raised adds its ``internal`` reject instead (the row's
        original and variants are still written)."""
        from codemorph.jobs.perturb import search_row
        from codemorph.perturb import search_limits

        if self._perturb_sandbox is None:
            self._perturb_sandbox = Sandbox(search_limits(), workers=1)
        res = search_row(row, self.config.perturb, self._perturb_sandbox)
        out.rows += [self._stamp(r) for r in res.rows]
        out.rejects += [r for r in res.rejects if r.stage in ("internal", "worker")]

    def process(self, row: SourceRow) -> RowOutcome:
        """:meth:`process_row`, which never raises: an unexpected exception (a codemorph
        bug, in this process or a worker's) becomes the row's only reject, of stage
        ``internal`` (:func:`~codemorph.rows.schema.internal_reject`: exception class,
        message, where), and the run goes on with the next row; a ``MemoryError`` in a
        worker process under a memory cap (:attr:`GenerateConfig.worker_memory`) becomes a
        reject of stage ``worker`` naming the cap
        (:func:`~codemorph.jobs.executors.failed_row_reject`)."""
        try:
            out = self.process_row(row)
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - the policy: a failure costs one row, never the run
            out = RowOutcome(rejects=[failed_row_reject(row, exc)])
        out.memory = self.memory()
        if self._freeze_heap and not self._frozen:
            # what the first row loaded (lazily imported modules, the naturalness model, the
            # transforms' caches) stays for the run: full collections need not walk it again
            self._frozen = True
            _hold_heap()
        return out

    def memory(self) -> WorkerMemory:
        """This worker's :class:`WorkerMemory` now (its process and its sandboxes)."""
        sandbox = self.sandbox.peak_memory
        if self._perturb_sandbox is not None:
            sandbox = max(sandbox, self._perturb_sandbox.peak_memory)
        return WorkerMemory(os.getpid(), _peak_rss(), sandbox)

    def process_row(self, row: SourceRow) -> RowOutcome:
        """Re-execute the source row, then build, verify and execute one variant per transform.

        Two sandbox batches per row: the traced baseline (the row's input twice, checked
        against the recorded output, and the mutants), then every variant's differential
        check, whose execution on the row's input also provides the variant's output;
        where :func:`~codemorph.verification.may_depend_on_hash` finds a way to a set or to
        hash order, the row's input also runs under five other ``PYTHONHASHSEED`` values
        (one batch each) and a row whose result changes is rejected.
        With :attr:`GenerateConfig.prove`, each verdict then goes through
        :func:`~codemorph.verification.prove_verdict` (host-side Z3, no execution).

        Rows written (:attr:`RowOutcome.rows`, in this order): the original (``kind``
        ``"original"``; its ``output`` is the ``repr`` of the re-executed result when that is a
        literal reading back to an equal value of the same type, as for the variants, so a
        recorded ``1`` for ``True``, ``2.0`` for ``2`` or a dict in another key order becomes
        the result's own text; otherwise the recorded text, which the result was checked to
        equal), one per written variant (``"code-transform"``), then with
        :attr:`GenerateConfig.perturb` the input perturbations (``"input-perturbation"``).
        Every one of them carries the input row's extra columns (:attr:`SourceRow.extra
        <codemorph.dataset.SourceRow.extra>`: those codemorph does not read, such as
        ``difficulty`` or ``source``), first and unchanged, so a harness can group derived rows
        by them; a column named like one of codemorph's own fields of that row (``id``,
        ``code``, ``output``, ``kind``, ``verification``...) holds codemorph's value."""
        out = RowOutcome()
        cfg = self.config

        def reject(stage: str, reason: str) -> RowOutcome:
            out.rejects.append(row_reject(row, stage, reason))
            return out

        try:
            program = Program(row.code, row.entry_point, filename=row.id)
        except ParseError as exc:
            return reject("parse", parse_problem(exc))
        view = run_view(row, program)
        kind, run_input = view.kind, view.input
        if view.entry_point != program.entry_point or kind == "stdin" or view.read_only:
            program = Program(row.code, view.entry_point, filename=row.id, script=kind == "stdin",
                              read_only=view.read_only)
        if kind == "args" and not program.has_entry_point():
            return reject("parse", f"code defines no top-level function {row.entry_point!r} (the entry point)")

        # the original on its input (checked against the recorded output in the same run) and
        # on the mutants, traced: coverage, and the local types transforms may use
        baseline = make_baseline(self.sandbox, program, [run_input], extra_inputs=cfg.extra_inputs,
                                 seed=derive_seed(cfg.seed, row.id, "inputs"),
                                 # five other hash seeds where the syntax tree shows a way to
                                 # a set or to hash order; none where it shows none
                                 check_hash_seed=HASH_SEEDS if may_depend_on_hash(
                                     row.code, run_input if kind != "stdin" else "") else False,
                                 expected_output=row.output, types=self.needs_types, input_kind=kind,
                                 min_inputs=cfg.min_inputs, stop_when_seed_hangs=True)
        problem = _original_problem(baseline.outcomes[0], row, check_output=False, kind=kind)
        if problem:
            return reject("execute", problem)
        if baseline.worker_lost:
            # a run of the seed input ended with its sandbox worker (killed from outside on the
            # batch's run and on its run again, or by the program): say so, do not blame the code
            return reject("execute", f"{baseline.reason}; the program was not shown deterministic")
        if baseline.nondeterministic:
            change = process_change(row.code, input_kind=kind, harness=[run_input] if kind == "call" else None)
            if change is not None:
                # not nondeterminism but a change to the process a harness shares: say what it did
                return reject("execute", f"the program {change}; its recorded output is not a reliable ground truth")
            return reject("execute", f"{_nondeterminism_words(baseline.reason)}; its recorded output is not a "
                                     "reliable ground truth")
        if baseline.hash_sensitive:
            return reject("execute", "the result changed under another PYTHONHASHSEED (the iteration order of "
                                     f"a set of strings, or something else that string hashes decide): "
                                     f"{baseline.reason}; a harness running elsewhere would see another output")
        problem = _original_problem(baseline.outcomes[0], row, kind=kind)
        if problem:
            return reject("execute", problem)

        # a run that went past the tracer's type sample (Outcome.types_partial: types of its
        # first 20,000 line events only), or whose tracing stopped at the time limit
        # (coverage_partial), could hide a type: no observations for the row, so transforms
        # that need them refuse and the others take their type-free forms
        observations = merge_observations(baseline.outcomes) \
            if self.needs_types and not any(o.types_partial or o.coverage_partial for o in baseline.outcomes) \
            else None

        def rewrite(name: str, pipeline: Pipeline, keep_claims=None):
            return pipeline.apply(program, derive_rng(cfg.seed, row.id, name), inputs=view.harness_inputs,
                                  observations=observations,
                                  # a distractor states results of argument lists only
                                  outputs=[row.output] if kind == "args" else (), harness=True,
                                  keep_claims=keep_claims)

        candidates = []  # (variant name, PipelineResult, seconds spent rewriting)
        for name, pipeline in self.pipelines:
            start = time.perf_counter()
            res = rewrite(name, pipeline)
            candidates.append((name, res, time.perf_counter() - start))

        # one sandbox batch: per variant, the differential check on every baseline input; the
        # check on the row's own input also tests the recorded output, so it is the variant's
        # run on the row's input (a separate run only when that input is not compared)
        own_compared = baseline.outcomes[0].comparable
        requests: list[ExecRequest] = []
        slices = []
        for name, res, _ in candidates:
            if not res.changed or res.errors:
                slices.append(None)
                continue
            checks = check_requests(baseline, res.program, self.sandbox.limits.timeout, expected_output=row.output,
                                    types=cfg.prove)
            slices.append((len(requests), checks))
            requests += checks
            if not own_compared:
                requests.append(request_for(res.program.source, res.program.entry_point, kind, run_input,
                                            expected_output=row.output))
            # a distractor's false claims, limited as the checks on the baseline's inputs and as the
            # mutants on any other input (a stated input may never end)
            requests += claim_requests(res.claims, self.sandbox.limits.timeout, baseline=baseline)
        start = time.perf_counter()
        outs = self.sandbox.run_batch(requests)
        share = (time.perf_counter() - start) / max(1, len(requests))
        # each changed variant's run on the row's own input (the first check, or the extra run)
        row_runs = [None if sl is None else outs[sl[0] if own_compared else sl[0] + len(sl[1])] for sl in slices]
        unstable = self._unstable_row_input(row, candidates, row_runs)
        # the original's output is the repr of its re-executed result, as for the variants: the
        # recorded text only has to compare equal (``1`` for ``True``, ``2.0`` for ``2``, a
        # dict in another order, even an expression), and a harness compares the row's text
        own = baseline.outcomes[0]
        out.rows.append(OriginalRow(row.id, row.code, row.input, output_of(own, kind) or row.output,
                                    row.entry_point, row.id, cfg.seed, extra=row.extra,
                                    recipe=self._recipe(), input_kind=row.input_kind).to_json())
        for (name, res, seconds), sl, run in zip(candidates, slices, row_runs):
            if res.errors:
                # a transform raised (Transform.apply caught it): this variant is rejected,
                # naming the transform and its package; the row's other variants go on
                out.stats.append(TransformStat(name, "transform-error", seconds, res.errors[0].message))
                out.variant_rejects += [self._transform_reject(row, name, e) for e in res.errors[:1]]
                continue
            if sl is None:
                out.stats.append(TransformStat(name, "not-applicable", seconds, res.reason))
                continue
            at, checks = sl
            check_outs = outs[at:at + len(checks)]
            verdict = judge(baseline, checks, check_outs, stdout_lines=res.stdout_lines,
                            min_inputs=cfg.min_inputs)
            at_claims = at + len(checks) + (0 if own_compared else 1)
            claim_outs = outs[at_claims:at_claims + len(res.claims)]
            held = _claim_held(verdict, res.claims, claim_outs)
            if held is None and res.claims and (verdict.ok or verdict.status == "weak" or _unreached(verdict)):
                held = self._claim_held_under_other_hash_seeds(res.claims, baseline)
            if held is not None:
                # a distractor's claim is not shown false: the variant is made again with only its
                # claims that were (when there are some), and checked as a new variant; else it
                # is not made, as a precondition
                again = self._without_claims_not_shown_false(
                    rewrite, dict(self.pipelines)[name], name, res, verdict, claim_outs, baseline, row, kind,
                    run_input, own_compared)
                if again is None:
                    out.stats.append(TransformStat(name, "not-applicable", seconds + share * len(checks), held))
                    continue
                res, checks, check_outs, run, verdict, extra = again
                seconds += extra
            if cfg.prove:
                verdict = prove_verdict(verdict, baseline, res.program, check_outs, min_inputs=cfg.min_inputs)
            status, reason, delta = self._variant(row, name, res, verdict, run, out, view)
            n = len(checks) + (0 if own_compared else 1) + len(res.claims)
            out.stats.append(TransformStat(name, status, seconds + share * n, reason, delta))
        if unstable:
            # the row's own input gave another result in a variant's run: a nondeterministic
            # program (or a transform bug) -- neither the original nor any variant is written
            # (the variants' own rejects stay, for diagnosis): the variant that failed keeps its
            # own status (differs, or failed), counted on its own transform; the others' variants
            # that would have been written are ``withheld``, not blamed on their transforms
            out.rows = []
            out.stats = [TransformStat(st.transform, "withheld", st.seconds, f"withheld: {unstable}", st.naturalness)
                         if st.status.startswith("written") else st for st in out.stats]
            return reject("execute", unstable)
        if cfg.perturb is not None:
            self._perturbations(row, out)
        return out

    def _without_claims_not_shown_false(self, rewrite, pipeline, name, res, verdict, claim_outs, baseline, row,
                                        kind, run_input, own_compared):
        """The variant ``res`` made again (``rewrite(name, pipeline, keep_claims)``) with only
        its claims that ``claim_outs`` showed false, and checked as any variant is (the
        differential checks on the baseline's inputs, the row's own input, and every claim
        run again, under the other hash seeds too when the claim may see hash order).

        Returns ``(result, checks, check outcomes, run on the row's input, verdict, seconds)``,
        or ``None`` when there is nothing to keep (no claim shown false, or all were), the
        rewrite failed or made another claim, the verdict rejects the first variant anyway,
        or the new variant's claims are not all shown false."""
        if not (verdict.ok or verdict.status == "weak" or _unreached(verdict)):
            return None
        shown = [c.text for c, o in zip(res.claims, claim_outs) if refutation(c, o) is None]
        if not shown or len(shown) == len(res.claims):
            return None  # (all shown false under this seed: one failed under another hash seed)
        start = time.perf_counter()
        again = rewrite(name, pipeline, keep_claims=shown)
        if not again.changed or again.errors or not again.claims \
                or any(c.text not in shown for c in again.claims):
            return None
        cfg = self.config
        checks = check_requests(baseline, again.program, self.sandbox.limits.timeout, expected_output=row.output,
                                types=cfg.prove)
        requests = list(checks)
        if not own_compared:
            requests.append(request_for(again.program.source, again.program.entry_point, kind, run_input,
                                        expected_output=row.output))
        requests += claim_requests(again.claims, self.sandbox.limits.timeout, baseline=baseline)
        outs = self.sandbox.run_batch(requests)
        check_outs = outs[:len(checks)]
        run = outs[0] if own_compared else outs[len(checks)]
        verdict = judge(baseline, checks, check_outs, stdout_lines=again.stdout_lines, min_inputs=cfg.min_inputs)
        at = len(checks) + (0 if own_compared else 1)
        held = _claim_held(verdict, again.claims, outs[at:at + len(again.claims)])
        if held is None and (verdict.ok or verdict.status == "weak" or _unreached(verdict)):
            held = self._claim_held_under_other_hash_seeds(again.claims, baseline)
        if held is not None:
            return None
        return again, checks, check_outs, run, verdict, time.perf_counter() - start

    def _claim_held_under_other_hash_seeds(self, claims, baseline) -> str | None:
        """Why a variant whose claims were all shown false is still not written: a claim whose
        program or stated input may see hash order (``''.join(set(s)).find('b')`` on a stated
        ``'ab'``) that a run under another ``PYTHONHASHSEED`` (the sandbox's plus 1 ..
        :data:`HASH_SEEDS`) does not show false -- a harness with that seed would find it
        true.  ``None`` when there is none."""
        hashed = _hash_claims(claims)
        for extra in range(1, HASH_SEEDS + 1) if hashed else ():
            outs = self.sandbox.run_batch(claim_requests(hashed, self.sandbox.limits.timeout, baseline=baseline),
                                          hash_seed=self.sandbox.hash_seed + extra)
            for claim, o in zip(hashed, outs):
                why = refutation(claim, o)
                if why is not None:
                    return (f"{why} under PYTHONHASHSEED {self.sandbox.hash_seed + extra} (the program may see hash "
                            f"order); a distractor's claim must be false, so the variant is not written")
        return None

    @staticmethod
    def _unstable_row_input(row: SourceRow, candidates, row_runs) -> str | None:
        """Why the row's recorded output is not a reliable ground truth, judging by the
        variants' runs on the row's own input: one ran to an end (returned or raised) with
        another result than the recorded one.  ``None`` when every such run agreed (runs that
        timed out or crashed say nothing about the output: only their variant is rejected)."""
        for (name, _res, _seconds), run in zip(candidates, row_runs):
            if run is None:
                continue
            if run.status in ("returned", "raised") and run.output_matches is False:
                return (f"the {name} variant, run on the row's own input, {_run_words(run)}, while the original "
                        f"returned the recorded output {row.output[:80]!r} twice: the program may be "
                        f"nondeterministic (or the transform wrong), so no row of it is written")
        return None

    def _recipe(self) -> dict[str, str] | None:
        if self.config.recipe is None:
            return None
        return {"name": self.config.recipe[0], "version": self.config.recipe[1]}

    def _stamp(self, row: dict[str, Any]) -> dict[str, Any]:
        recipe = self._recipe()
        if recipe is not None:
            row["recipe"] = recipe
        return row

    @staticmethod
    def _transform_reject(row: SourceRow, name: str, err) -> TransformReject:
        dist = f" (from {err.distribution})" if err.distribution else ""
        capped = memory_cap_reason() if err.exception == "MemoryError" else None
        what = f"{err.exception}: {capped}" if capped else f"{err.exception}: {err.message}"
        cap = memory_cap()
        if err.exception == "Z3Unavailable" and cap is not None:
            # libz3 could not be mapped into the capped address space
            what += (f", with the worker's host process capped at {cap // 1024**2} MiB of address space "
                     f"(--worker-memory {cap // 1024**2})")
        reason = (f"row {row.id!r} ({row.place}), variant {name!r}: transform {err.transform!r}{dist} raised "
                  f"{what}; the variant is not written, the row's other variants are")
        return TransformReject(f"{row.id}:{name}", row.id, row.line, row.file, reason, err.transform,
                               err.distribution, err.exception, err.message)

    def _naturalness(self, original: str, variant: str) -> float | None:
        """``naturalness_delta(original, variant)`` rounded to 3 decimals (bits per token), the
        original's cross-entropy computed once per row; ``None`` when a source cannot be lexed.
        The model is read on first use, once per process, from :attr:`GenerateConfig.naturalness_model`
        (:func:`~codemorph.naturalness.cached_model`)."""
        model = cached_model(self.config.naturalness_model)
        try:
            if self._base_entropy is None or self._base_entropy[0] != original:
                self._base_entropy = (original, model.cross_entropy(original))
            return round(model.cross_entropy(variant) - self._base_entropy[1], 3)
        except ParseError:
            return None

    def _variant(self, row: SourceRow, name: str, res, verdict, run, out: RowOutcome,
                 view: "RunView | None" = None) -> tuple[str, str | None, float | None]:
        new = res.program
        vid = f"{row.id}:{name}"
        status = verdict.status
        if _unreached(verdict):
            # no difference on any input, but none of them ran the changed code: the row's
            # output is still exact (the new code ran on the row's input), so the variant is
            # written, labelled honestly rather than "equivalent"
            status = "unreached"
        elif not verdict.ok and verdict.status != "weak":  # "equivalent" or "proved", or labelled "weak"
            out.variant_rejects.append(VariantReject(vid, row.id, row.line, "verify",
                                                     f"{verdict.status}: {verdict.reason}", new.source,
                                                     _cex_json(verdict.counterexample)))
            return ("rejected" if verdict.status == "differs" else "inconclusive"), verdict.reason, None
        if run.status != "returned" or run.output_matches is not True:
            why = (f"the variant, run on the row's input, {_run_words(run)}, while the original returned the "
                   f"recorded output {row.output[:80]!r}")
            out.variant_rejects.append(VariantReject(vid, row.id, row.line, "execute", why, new.source))
            return "error", why, None
        delta = self._naturalness(row.code, new.source)
        limit = self.config.max_naturalness_delta
        if limit is not None and delta is not None and delta > limit:
            why = (f"naturalness delta {delta:+.3f} bits/token over the original is above "
                   f"--max-naturalness-delta {limit:g}")
            out.variant_rejects.append(VariantReject(vid, row.id, row.line, "naturalness", why, new.source))
            return "unnatural", why, delta
        # the input row's own columns (difficulty, source...) come first, as on the original row;
        # a result whose repr is no literal (inf, a class instance) keeps the row's recorded
        # output text, which the variant's result was just checked to equal
        view = view or run_view(row, res.program)
        entry, text = new.entry_point, row.input
        if row.input_kind != "args":
            entry = row.entry_point  # the input says what runs
            if view.kind == "args" and new.entry_point != view.entry_point:
                text = f"{new.entry_point}({view.input})"  # the called function was renamed: so is the call
        out.rows.append(VariantRow(
            vid, new.source, text, output_of(run, view.kind) or row.output, entry, row.id,
            res.applied, self.config.seed, {
                "status": status, "inputs": verdict.inputs_checked, "proved": verdict.proved,
                "coverage": verdict.coverage.to_json() if verdict.coverage is not None else None,
                **({"reason": verdict.reason} if status == "weak" else {})},
            sum(len(r.sites) for r in res.results if r.applied), extra=row.extra, recipe=self._recipe(),
            naturalness_delta=delta, input_kind=row.input_kind).to_json())
        if status in ("unreached", "weak"):
            return f"written-{status}", verdict.reason, delta
        return "written", None, delta


def _hash_claims(claims) -> list:
    """The claims whose program or stated input may see hash order
    (:func:`~codemorph.verification.may_depend_on_hash`)."""
    return [c for c in claims if may_depend_on_hash(c.code, c.args)]


def _claim_held(verdict, claims, outs) -> str | None:
    """Why a rewrite that passed verification is still not written: a claim it declared
    (a distractor's false statement) that its run (``outs``, one per claim) did not show
    false (:func:`~codemorph.verification.claims.refutation`); ``None`` when every claim is
    shown false, or when the verdict rejects the rewrite anyway."""
    if not claims or not (verdict.ok or verdict.status == "weak" or _unreached(verdict)):
        return None
    for claim, o in zip(claims, outs):
        why = refutation(claim, o)
        if why is not None:
            return f"{why}; a distractor's claim must be false, so the variant is not written"
    return None


def _run_words(run) -> str:
    if run.status == "returned":
        return f"returned {run.value_words()}, not the recorded output"
    if run.exception is not None:
        return f"{run.status} ({run.exception.type}: {str(run.exception.message)[:80]})"
    return f"ended with status {run.status}"


def _unreached(verdict) -> bool:
    """An inconclusive verdict whose only defect is that no input executed the changed code
    (every input compared, no difference)."""
    cov = getattr(verdict, "coverage", None)
    return (verdict.status == "inconclusive" and verdict.counterexample is None and verdict.inputs_checked > 0
            and cov is not None and cov.lines_hit == 0 and (verdict.reason or "").startswith("no input executed"))


def _cex_json(cex) -> dict[str, Any] | None:
    if cex is None:
        return None

    def o(x):
        return {"status": x.status, "value": x.value_repr, "stdout": x.stdout[:500],
                "exception": None if x.exception is None else x.exception.type}

    return {"input": cex.args, "original": o(cex.original), "rewritten": o(cex.rewritten)}


#: the words of a sandbox refusal that came after the run (``_workerlib.child.AFTER_RUN``)
_AFTER_RUN = "after the program returned, while its result was printed or compared with the expected output"


def _not_an_expression(text: str) -> str | None:
    """The parser's message when ``text`` (a recorded output) is not one Python expression
    as the sandbox compiles it (``compile(text, "<string>", "eval")``), e.g. ``"'(' was never
    closed"``; ``None`` when it is one."""
    try:
        compile(text, "<string>", "eval", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as exc:
        return exc.msg
    except (ValueError, MemoryError, RecursionError) as exc:
        return str(exc)
    return None


def _original_problem(o, row: SourceRow, check_output: bool = True, kind: str = "args") -> str | None:
    if o.status == "bad-code":
        e = o.exception
        return f"the module fails when loaded: {e.type}: {e.message}" if e else "the module fails when loaded"
    if o.status == "bad-input":
        e = o.exception
        return f"input {row.input[:80]!r} does not evaluate to arguments: {e.type}: {e.message}" if e else \
            f"input {row.input[:80]!r} does not evaluate"
    if o.status == "raised":
        e = o.exception
        return f"the program raises {e.type} on its own input, so the recorded output cannot be checked"
    if o.status == "refused":
        if o.note and _AFTER_RUN in o.note:
            # the program's run was over: its result's repr, or the recorded output's own text
            return (f"recorded output {row.output[:80]!r} cannot be checked: {o.note} (the program itself "
                    "returned)")
        return f"the program did not finish on its input: refused ({o.note or 'the sandbox refused something'})"
    if o.status == "environment":
        return f"the program's outcome on its input shows codemorph's sandbox, not the program: {o.note}"
    if o.status == "output-limit":
        return "the program wrote more than the output limit (--output-limit) on its input and was stopped"
    if o.status == "timeout":
        return ("the program did not finish on its input within the time limit (--timeout, traced run)"
                + (f": {o.note}" if o.note else ""))
    if o.status == "memory":
        return ("the program ran out of memory on its input (the sandbox's memory limit per execution, --memory)"
                + (f": {o.note}" if o.note else ""))
    if o.status != "returned":
        return f"the program did not finish on its input: {o.status}" + (f" ({o.note})" if o.note else "")
    if check_output and o.output_matches is not True:
        unreadable = _not_an_expression(row.output) if kind != "stdin" else None
        if unreadable is not None:
            return (f"recorded output {row.output[:80]!r} is not a Python literal or expression ({unreadable}), so "
                    f"it cannot be compared with the result; execution returned {o.value_words()}")
        if o.value_repr is None:
            # the result's repr raised (an int over 4,300 digits), timed out or was too long
            return (f"recorded output {row.output[:80]!r} cannot be checked: the program returned "
                    f"{o.value_words(120)}")
        if o.compare_error is not None:
            return (f"recorded output {row.output[:80]!r} cannot be checked: comparing the returned value "
                    f"{o.value_words()} with it raised {o.compare_error[:200]}")
        if not o.literal_ok:
            return (f"recorded output {row.output[:80]!r} cannot be checked: execution returned "
                    f"{o.value_words()}, whose repr is not a Python literal, and the recorded output does "
                    "not evaluate to an equal value")
        if kind == "stdin":
            return f"recorded output {row.output[:80]!r} is not the standard output, {o.stdout[:80]!r}"
        return f"recorded output {row.output[:80]!r} does not match execution, which returned {o.value_words()}"
    return None


def _process_row(processor: RowProcessor, row: SourceRow) -> RowOutcome:
    return processor.process(row)


def generate_ordered(config: GenerateConfig, items: Iterable[SourceRow | Reject],
                     executor: LocalExecutor | DaskExecutor | None = None
                     ) -> Iterator[tuple[SourceRow | Reject, RowOutcome]]:
    """``generate``: yield ``(item, outcome)`` for every item read, in input order.

    Each row is processed by a :class:`RowProcessor` (its transforms and one sandbox), one
    per worker, through :func:`~codemorph.jobs.executors.map_rows`: ``config.workers``
    local ``spawn`` processes (that die with this one), the calling process when
    ``config.workers`` is 1, or every thread of a Dask cluster.  Locally up to
    ``32 * config.workers`` rows are in flight ahead of the one being yielded (rows take
    from milliseconds to seconds; the look-ahead keeps every worker busy past a slow one).
    A :class:`~codemorph.rows.dataset.Reject` item gets an outcome holding just itself.  A
    row whose processing raises gets its ``internal`` reject in the worker
    (:meth:`RowProcessor.process`); a row whose worker process dies, and dies again when
    the row is run alone, gets a reject of stage ``worker`` saying how the process ended
    (:func:`_row_failed`); each worker process's address space is capped at
    ``config.worker_memory``.  Every row's randomness derives from ``(config.seed,
    row id)``, so the outcomes do not depend on the executor or the number of workers.
    """
    workers = max(1, config.workers)
    window = None if isinstance(executor, DaskExecutor) else 32 * workers
    for item, out in map_rows(_process_row, items, executor, setup=partial(RowProcessor, config, freeze_heap=True),
                              workers=workers, window=window, on_error=_row_failed, memory=config.worker_memory):
        yield item, (RowOutcome(rejects=[item]) if out is None else out)


def _row_failed(row: SourceRow, exc: Exception) -> RowOutcome:
    """The outcome of a row whose processing failed outside :meth:`RowProcessor.process`
    (its worker process died: :class:`~codemorph.jobs.executors.WorkerDied`): its reject
    (:func:`~codemorph.jobs.executors.failed_row_reject`) only."""
    return RowOutcome(rejects=[failed_row_reject(row, exc)])


@dataclass
class GenerateSummary:
    """Counts of a finished run (per transform and overall) and where files went."""

    out_path: Path
    rejects_path: Path
    rows_read: int = 0
    originals_written: int = 0
    #: input rows not written (each one line of the rejects file, ``kind`` absent)
    rows_rejected: int = 0
    #: variants not written although their row was (each one line of the rejects file with
    #: ``"kind": "variant"``: verification, execution, naturalness or a transform that raised)
    variants_rejected: int = 0
    variants_written: int = 0
    perturbations_written: int = 0
    seconds: float = 0.0
    per_transform: dict[str, Counter] = field(default_factory=dict)
    time_per_transform: dict[str, float] = field(default_factory=dict)
    #: per variant name, the naturalness deltas of its written variants (bits per token)
    naturalness_per_transform: dict[str, list[float]] = field(default_factory=dict)
    #: the run's :attr:`GenerateConfig.max_naturalness_delta`
    max_naturalness_delta: float | None = None
    reject_reasons: Counter = field(default_factory=Counter)
    #: input rows a resumed run found already done (not counted in the other fields)
    rows_resumed: int = 0
    #: unexpected exceptions caught: a transform that raised (one per variant, stage
    #: ``transform``) or a row whose processing raised (stage ``internal``); each is in the
    #: rejects file.  ``codemorph generate --fail-on-error`` exits 1 when it is not 0.
    errors: int = 0
    #: per worker process id, its peak memory (:class:`WorkerMemory`, the largest seen)
    memory: dict[int, WorkerMemory] = field(default_factory=dict)


def generate(in_path: str | os.PathLike[str], out_path: str | os.PathLike[str], config: GenerateConfig,
             progress: Callable[[int, int], None] | None = None, resume: bool = False,
             executor: Any = None) -> GenerateSummary:
    """Run the generate job, holding the output's lock (:func:`~codemorph.rows.lock.output_lock`)
    from before it touches the output, rejects or checkpoint file until it ends.

    Args:
        in_path: JSON Lines input (CRUXEval rows: ``id``, ``code``, ``input``, ``output``): a
            file, a directory of ``*.jsonl`` shards or a glob pattern (see
            :func:`~codemorph.dataset.input_files`).
        out_path: JSON Lines output; rejects go to :func:`~codemorph.dataset.rejects_path`.
        config: the run's settings.
        progress: called as ``progress(rows_done, rows_total)`` after each input row.
        resume: continue an interrupted run: the output and rejects files are truncated to
            the last complete row group recorded in :func:`~codemorph.dataset.progress_path`
            (written after every row group) and the run goes on from the next input row;
            the final files equal those of an uninterrupted run.  Without a checkpoint the
            run starts from scratch.
        executor: where rows are processed: ``None`` or a
            :class:`~codemorph.executors.LocalExecutor` (``config.workers`` local processes),
            or a :class:`~codemorph.executors.DaskExecutor`; the output is the same.

    Returns:
        A :class:`GenerateSummary`.

    Raises:
        InputError: the input file is missing, a directory or empty; the output directory
            does not exist; ``resume`` with a checkpoint of a run with other settings.
        OutputBusyError: another run (another process) is writing ``out_path``; nothing
            was touched (an ``InputError``).
        UnknownTransformError: a transform name is not installed.
        OutputWriteError: the output, rejects or checkpoint file could not be written (a
            full disk): the row groups written before are kept and named by the checkpoint,
            so that ``resume`` continues after them (an ``InputError``).
    """
    for v in config.variants:
        build_pipeline(v.spec, where=f"variant {v.name!r}")  # fail fast: unknown transform, bad options
    total = count_rows(in_path)  # raises file-level input errors before any output file is opened
    with output_lock(out_path, resumable=True):
        return _generate(in_path, out_path, config, progress, resume, executor, total)


def _generate(in_path: str | os.PathLike[str], out_path: str | os.PathLike[str], config: GenerateConfig,
              progress: Callable[[int, int], None] | None, resume: bool, executor: Any, total: int) -> GenerateSummary:
    derived = [v.name for v in config.variants]
    summary = GenerateSummary(Path(out_path), rejects_path(out_path))
    summary.per_transform = {v.name: Counter() for v in config.variants}
    summary.time_per_transform = {v.name: 0.0 for v in config.variants}
    summary.naturalness_per_transform = {v.name: [] for v in config.variants}
    summary.max_naturalness_delta = config.max_naturalness_delta
    # trained (if not cached yet) here, once, not in every worker; the workers read that file
    config = replace(config, naturalness_model=str(prepare_default_model()))
    start = time.perf_counter()
    checkpoint = Checkpoint(progress_path(out_path), _run_description(in_path, config))
    if resume:
        summary.rows_resumed = checkpoint.restore([Path(out_path), summary.rejects_path])
    else:
        checkpoint.start()
    skip = summary.rows_resumed
    try:
        _write_rows(in_path, out_path, config, progress, executor, total, summary, checkpoint, resume, skip, derived)
    finally:
        checkpoint.close()  # after a failed write too (a full disk): nothing is left to flush at exit
    summary.seconds = time.perf_counter() - start
    return summary


def _write_rows(in_path: str | os.PathLike[str], out_path: str | os.PathLike[str], config: GenerateConfig,
                progress: Callable[[int, int], None] | None, executor: Any, total: int, summary: GenerateSummary,
                checkpoint: Checkpoint, resume: bool, skip: int, derived: list[str]) -> None:
    """Process the rows after the first ``skip`` and write them, their rejects and the
    checkpoint after every row group; raises
    :class:`~codemorph.errors.OutputWriteError` when a file cannot be written."""
    with RowWriter(out_path, append=resume) as writer, RowWriter(summary.rejects_path, append=resume) as rejects:
        # rows are read as a stream; skipped (resumed) rows still pass the id guard
        items = itertools.islice(guard_derived_ids(read_rows(in_path), derived), skip, None)
        outcomes = generate_ordered(config, items, executor)
        for done, (item, res) in enumerate(outcomes, skip + 1):
            summary.rows_read += 1
            for r in res.rows:
                writer.write(r)
                if r["kind"] == "original":
                    summary.originals_written += 1
                elif r["kind"] == "input-perturbation":
                    summary.perturbations_written += 1
                else:
                    summary.variants_written += 1
            for rej in res.rejects:
                rejects.write(rej.to_json())
                summary.rows_rejected += 1
                summary.reject_reasons[rej.stage] += 1
                summary.errors += rej.stage in ("internal", "worker")
            for vr in res.variant_rejects:
                rejects.write(vr.to_json())
                summary.variants_rejected += 1
                summary.errors += isinstance(vr, TransformReject)
            if res.memory is not None:
                seen = summary.memory.get(res.memory.worker)
                summary.memory[res.memory.worker] = res.memory if seen is None else WorkerMemory(
                    seen.worker, max(seen.host, res.memory.host), max(seen.sandbox, res.memory.sandbox))
            for st in res.stats:
                summary.per_transform[st.transform][st.status] += 1
                summary.time_per_transform[st.transform] += st.seconds
                if st.status.startswith("written") and st.naturalness is not None:
                    summary.naturalness_per_transform[st.transform].append(st.naturalness)
            checkpoint.mark(done, [writer, rejects])
            if progress:
                progress(done, total)


def _run_description(in_path: str | os.PathLike[str], config: GenerateConfig) -> dict[str, Any]:
    """What must not change between a run and its resumption (workers may)."""
    p = Path(in_path)
    return {"input": str(p.resolve()), "input_bytes": [[str(f), f.stat().st_size] for f in input_files(in_path)],
            "variants": [[v.name, v.spec] for v in config.variants], "seed": config.seed,
            "extra_inputs": config.extra_inputs,
            **({"min_inputs": config.min_inputs} if config.min_inputs != MIN_INPUTS else {}), "limits": asdict(config.limits), "recipe": config.recipe,
            **({"prove": True} if config.prove else {}),
            **({"max_naturalness_delta": config.max_naturalness_delta}
               if config.max_naturalness_delta is not None else {}),
            **({"perturb": repr(config.perturb)} if config.perturb is not None else {})}


def _nondeterminism_words(reason: str | None) -> str:
    """The reject reason's opening for a baseline found nondeterministic: a source the code
    shows (:func:`codemorph.determinism.nondeterminism_source`, a syntax-tree test that may flag
    a deterministic program: its reason starts with ``"it "``) says the program *may* be
    nondeterministic; runs that differed say that it is.

    Args:
        reason: :attr:`codemorph.verification.Baseline.reason`, e.g. ``"it reads the clock
            (import time)"`` or ``"nondeterministic on input 1: returned in one run, crashed in
            the other"``.

    Returns:
        ``"the program may be nondeterministic: it reads the clock (import time), found in its
        code"`` or ``"the program is nondeterministic on input 1: ..."``.
    """
    if not reason:
        return "the program is nondeterministic"
    if reason.startswith("it "):
        static, _, rest = reason.partition("; ")
        words = f"the program may be nondeterministic: {static}, found in its code"
        return f"{words}; {rest}" if rest else words
    if reason.startswith("nondeterministic "):
        return f"the program is {reason}"
    return f"the program is nondeterministic ({reason})"

