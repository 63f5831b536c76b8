"""Where codemorph's row jobs run: this machine (processes or threads) or a Dask cluster.

``generate``, ``perturb`` and ``evaluate`` all process their input rows independently, with
randomness derived from ``(seed, row id, ...)``, and write results in input order.  This
module gives them one order-preserving, row-partitioned map with two backends:

* :class:`LocalExecutor`: ``workers`` host processes (``spawn``), or threads for jobs whose
  host-side work is only waiting on the sandbox; ``workers=1`` runs in the calling process.
* :class:`DaskExecutor`: rows are partitioned into tasks of ``rows_per_task`` rows and run
  on the workers of a Dask distributed cluster (``pip install 'codemorph[dask]'``).

Per-worker resources (a sandbox, a :class:`~codemorph.jobs.generate.RowProcessor` with its
transforms) are built once per worker process or thread by a ``setup`` callable the job
passes in, and closed when the map ends.  Results come back in input order whatever order tasks finish in, and at
most a bounded number of tasks is in flight, so the caller's memory does not grow with the
corpus: a Dask run writes the same bytes as a local one (tests/jobs/test_ordered_row_map.py).

The one entry point is :func:`map_rows`: a job passes its row function and its state
factory (``generate``: :func:`codemorph.jobs.generate.generate_ordered`; ``perturb``:
:func:`codemorph.jobs.perturb.perturb_ordered`; ``evaluate``), so this module knows no job
and the jobs have no pool code of their own.
"""

from __future__ import annotations

import atexit
import concurrent.futures as cf
import multiprocessing
import os
import pickle
import signal
import sys
import threading
import time
import uuid
from contextlib import contextmanager
from collections import deque
from functools import partial
from typing import Any, Callable, Iterable, Iterator, Sequence, TypeVar

from codemorph.errors import interrupts_run, track_interruptions
from codemorph.rows.dataset import Reject

__all__ = ["LocalExecutor", "DaskExecutor", "make_executor", "map_rows", "close_states", "is_reject",
           "default_workers", "usable_cpus", "DEFAULT_WORKERS_HELP", "die_with_parent", "WorkerDied", "WorkerOverran", "kill_grace", "death_cause",
           "limit_memory", "memory_cap", "RowTransportError", "PICKLE_RECURSION_LIMIT"]

T = TypeVar("T")
R = TypeVar("R")


def is_reject(item: Any) -> bool:
    """Whether ``item`` is a :class:`~codemorph.dataset.Reject` (a row that failed reading;
    :func:`map_rows` passes it through without sending it to a worker)."""
    return isinstance(item, Reject)


# -- how many workers by default ------------------------------------------------------------------
#: what ``--workers 0`` (every command's default) means, for the commands' help texts
DEFAULT_WORKERS_HELP = ("0 = one more than the CPUs this process may use: its CPU affinity, capped by a cgroup "
                        "CPU quota such as docker --cpus")


def default_workers() -> int:
    """Parallel workers every command uses when ``--workers`` is 0 (the default): one more
    than the CPUs this process may run on (:func:`usable_cpus`: CPU affinity, capped by a
    cgroup CPU quota).  Returns an int >= 2.

    ``generate`` and ``perturb`` workers are host processes, each with one sandbox worker;
    ``evaluate`` and ``analyze`` workers are sandbox processes.  Either way a worker
    alternates between CPU work and waiting (for its sandbox batch: fork, IPC, the
    zygote's wake-ups; for the host to send the next batch), so with one worker per CPU a
    CPU sits idle part of the time.  Measured on CRUXEval (``generate``, 800 rows, four
    transforms, a 2-CPU machine otherwise kept idle): 65.0 s wall with 2 workers, 56.0 s
    with 3, at the same CPU time (about 97 CPU seconds).  ``os.cpu_count()`` is not used
    alone: in a container limited to 2 CPUs (``docker --cpus=2``) it reports every CPU of
    the host, and as many workers would only compete for the 2."""
    return usable_cpus() + 1


def usable_cpus() -> int:
    """CPUs this process may use: its CPU affinity (``os.sched_getaffinity``, else
    ``os.cpu_count()``), capped by a Linux cgroup CPU quota (``cpu.max`` of cgroup v2, or
    ``cpu.cfs_quota_us`` / ``cpu.cfs_period_us`` of v1, rounded up), as containers such as
    ``docker --cpus=2`` set it.  At least 1."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    quota = _cgroup_cpu_quota()
    if quota is not None:
        cpus = min(cpus, quota)
    return max(1, cpus)


def _cgroup_cpu_quota(root: str = "/sys/fs/cgroup") -> int | None:
    """The cgroup CPU quota in whole CPUs (rounded up), or ``None`` when there is none."""
    import math
    from pathlib import Path

    try:
        text = Path(root, "cpu.max").read_text().split()
        if len(text) == 2 and text[0] != "max":
            return max(1, math.ceil(int(text[0]) / int(text[1])))
    except (OSError, ValueError):
        pass
    try:
        q = int(Path(root, "cpu", "cpu.cfs_quota_us").read_text())
        period = int(Path(root, "cpu", "cpu.cfs_period_us").read_text())
        if q > 0 and period > 0:
            return max(1, math.ceil(q / period))
    except (OSError, ValueError):
        pass
    return None


# -- worker side: per-(process, thread) state of each map ----------------------------------
# token of one map_rows call -> thread id -> the state setup() built in that thread
_states: dict[str, dict[int, Any]] = {}
# reentrant: a worker process's SIGTERM handler (_end_worker) closes the states from the
# thread it interrupted, which may be inside _state() holding the lock
_states_lock = threading.RLock()
_atexit_registered = False


def _state(token: str, setup: Callable[[], Any] | None) -> Any:
    """This thread's state for the map ``token`` (built by ``setup()`` on first use)."""
    global _atexit_registered
    tid = threading.get_ident()
    with _states_lock:
        per = _states.get(token)
        if per is not None and tid in per:
            return per[tid]
    state = setup() if setup is not None else None
    with _states_lock:
        _states.setdefault(token, {})[tid] = state
        if not _atexit_registered:
            atexit.register(close_states)
            _atexit_registered = True
    return state


def _run_task(token: str, setup: Callable[[], Any] | None, fn: Callable[[Any, Any], Any],
              rows: Sequence[Any]) -> list[Any]:
    """One task: ``[fn(state, row) for row in rows]`` with this worker thread's state."""
    state = _state(token, setup)
    watch = _worker_watch
    if watch is None:
        return [fn(state, r) for r in rows]
    outs = []
    for i, r in enumerate(rows):
        watch.rows[_worker_slot] = i
        outs.append(fn(state, r))
    return outs


def _run_packed_task(token: str, setup: Callable[[], Any] | None, fn: Callable[[Any, Any], Any],
                     payload: Sequence[bytes]) -> list[Any]:
    """:func:`_run_task` on rows that crossed to this worker pickled one by one (``payload``,
    from :func:`_pack`); returns the results packed the same way (a result that cannot be
    pickled is a :class:`_Unsent` saying why, so that it costs its row only; so is the result
    of a row this process cannot unpickle, with ``row=True``)."""
    rows, unreadable = [], {}
    for i, b in enumerate(payload):
        try:
            rows.append(pickle.loads(b))
        except Exception as exc:  # noqa: BLE001 - a row this process cannot rebuild costs that row only
            unreadable[i] = _Unsent(_failure_text(exc), row=True)
    outs = iter(_pack(_run_task(token, setup, fn, rows)))
    return [unreadable[i] if i in unreadable else next(outs) for i in range(len(payload))]


def _run_numbered_task(token: str, setup: Callable[[], Any] | None, fn: Callable[[Any, Any], Any],
                       number: int, payload: Sequence[bytes]) -> list[Any]:
    """:func:`_run_packed_task` in a worker process of :func:`map_rows`, with the task's
    ``number`` in this worker's slot while it runs (setup included), so that the parent can
    tell, when the pool breaks, which tasks were in progress (:class:`_ProcessMap`)."""
    slots = _worker_slots
    if slots is None:
        return _run_packed_task(token, setup, fn, payload)
    slots[_worker_slot] = number
    try:
        return _run_packed_task(token, setup, fn, payload)
    finally:
        slots[_worker_slot] = 0


# -- rows and results crossing to and from worker processes --------------------------------------
#: the recursion limit under which a row or a result too deeply nested for the current limit is
#: pickled again (the C pickler recurses about twice per level of nesting: a JSON value 900
#: lists deep, which the reader accepts, fails under Python's default limit of 1,000); about
#: 3 MB of C stack at most, well under the 8 MB a thread gets
PICKLE_RECURSION_LIMIT = 10_000


class RowTransportError(Exception):
    """A row could not be sent to the worker process (or Dask worker) that was to process it,
    or its result could not be sent back: pickling it failed (a value nested deeper than
    :data:`PICKLE_RECURSION_LIMIT` allows, an object that cannot be pickled) or unpickling
    it did.  A map with ``on_error`` passes it to ``on_error(row, exc)``: the row costs one
    row, never the run; its message is the reason to give."""


class _Unsent:
    """In place of a row or a result that could not be pickled: why (``reason``); ``row``:
    in place of the result of a row the worker could not unpickle."""

    __slots__ = ("reason", "row")

    def __init__(self, reason: str, row: bool = False) -> None:
        self.reason = reason
        self.row = row

    def __reduce__(self):
        return (_Unsent, (self.reason, self.row))


def _dumps(obj: Any) -> bytes:
    """``pickle.dumps(obj)``; when the recursion limit is too low for ``obj``'s nesting,
    again under :data:`PICKLE_RECURSION_LIMIT` (the previous limit restored after).

    Raises:
        Exception: whatever pickling raised the second time (``RecursionError``,
            ``pickle.PicklingError``, ``TypeError``...)."""
    try:
        return pickle.dumps(obj, pickle.HIGHEST_PROTOCOL)
    except RecursionError:
        old = sys.getrecursionlimit()
        if old >= PICKLE_RECURSION_LIMIT:
            raise
        sys.setrecursionlimit(PICKLE_RECURSION_LIMIT)
        try:
            return pickle.dumps(obj, pickle.HIGHEST_PROTOCOL)
        finally:
            sys.setrecursionlimit(old)


def _pack(items: Sequence[Any]) -> list[Any]:
    """Each item pickled on its own (:func:`_dumps`): its bytes, or an :class:`_Unsent`
    naming the failure (the others still cross)."""
    out: list[Any] = []
    for x in items:
        try:
            out.append(_dumps(x))
        except Exception as exc:  # noqa: BLE001 - one item that cannot cross costs that item only
            out.append(_Unsent(_failure_text(exc)))
    return out


def _failure_text(exc: BaseException) -> str:
    try:
        text = str(exc)
    except Exception:  # noqa: BLE001
        text = ""
    text = text if len(text) <= 300 else text[:300] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _transport_failed(row: Any, message: str, on_error: Callable[[Any, Exception], Any] | None) -> Any:
    """The result of a row that could not cross: ``on_error(row, RowTransportError)``, or a
    :class:`_Raise` of it without ``on_error``."""
    exc = RowTransportError(message)
    return _Raise(exc) if on_error is None else on_error(row, exc)


def _to_worker(row: Any, reason: str, on_error: Callable[[Any, Exception], Any] | None, worker: str) -> Any:
    return _transport_failed(row, f"this row could not be sent to {worker}: pickling it failed ({reason}; e.g. a "
                                  "value nested too deeply in one of its columns); the run went on", on_error)


def _unpack(rows: Sequence[Any], packed: Sequence[Any], on_error: Callable[[Any, Exception], Any] | None,
            worker: str) -> list[Any]:
    """The results of ``rows`` from what their worker returned (:func:`_run_packed_task`); a
    result that did not cross is :func:`_transport_failed`."""
    outs = []
    for row, p in zip(rows, packed):
        if isinstance(p, _Unsent):
            outs.append(_transport_failed(row, (
                f"this row could not be received by {worker}: unpickling it failed ({p.reason}); the run went on"
                if p.row else f"the result of this row could not be sent back from {worker}: pickling it failed "
                              f"({p.reason}); the run went on"), on_error))
            continue
        try:
            outs.append(pickle.loads(p))
        except Exception as exc:  # noqa: BLE001 - a result this process cannot rebuild costs its row
            outs.append(_transport_failed(row, f"the result of this row could not be received from {worker}: "
                                               f"unpickling it failed ({_failure_text(exc)}); the run went on",
                                          on_error))
    return outs


def _split(rows: Sequence[Any]) -> tuple[list[Any], list[bytes], dict[int, str]]:
    """``(rows that can cross, their pickles, {index in rows: why} of those that cannot)``."""
    sendable, payload, unsent = [], [], {}
    for i, (row, p) in enumerate(zip(rows, _pack(rows))):
        if isinstance(p, _Unsent):
            unsent[i] = p.reason
        else:
            sendable.append(row)
            payload.append(p)
    return sendable, payload, unsent


def _merge(rows: Sequence[Any], unsent: dict[int, str], outs: Sequence[Any],
           on_error: Callable[[Any, Exception], Any] | None, worker: str) -> list[Any]:
    """The results of every row of a task: ``outs`` (those of the rows sent, in order) with
    the rows that could not be sent (``unsent``) in their places."""
    if not unsent:
        return list(outs)
    it = iter(outs)
    return [_to_worker(row, unsent[i], on_error, worker) if i in unsent else next(it) for i, row in enumerate(rows)]


def close_states(token: str | None = None) -> int:
    """Close the states built in this process for the map ``token`` (every map when
    ``None``): ``state.close()`` for those that have it.  Returns how many were dropped.

    Runs on each Dask worker when a map ends, and at interpreter exit.
    """
    with _states_lock:
        if token is None:
            dropped = [s for per in _states.values() for s in per.values()]
            _states.clear()
        else:
            dropped = list(_states.pop(token, {}).values())
    for s in dropped:
        close = getattr(s, "close", None)
        if callable(close):
            try:
                close()
            except Exception:  # a state that fails to close must not hide the run's result
                pass
    return len(dropped)


# -- executors ------------------------------------------------------------------------------
class LocalExecutor:
    """Rows processed on this machine.

    Args:
        rows_per_task: rows sent to a worker process at a time (1 suits rows that take
            milliseconds or more; raise it for very cheap rows to save IPC).

    The number of workers and processes-or-threads are arguments of :func:`map_rows`
    (``generate``'s come from :class:`~codemorph.jobs.generate.GenerateConfig`).
    """

    def __init__(self, rows_per_task: int = 1) -> None:
        if rows_per_task < 1:
            raise ValueError("rows_per_task must be >= 1")
        self.rows_per_task = rows_per_task

    def __repr__(self) -> str:
        return f"LocalExecutor(rows_per_task={self.rows_per_task})"


class DaskExecutor:
    """Rows processed on a Dask distributed cluster.

    Args:
        scheduler: the scheduler's address (``"tcp://host:8786"``) or a connected
            ``distributed.Client``.
        rows_per_task: input rows per Dask task (larger: less scheduling overhead; smaller:
            better balance and less work lost when a worker dies).
        tasks_in_flight: tasks submitted ahead of the one being written, per worker thread
            (bounds the client's memory on corpora of millions of rows).

    Every worker needs codemorph (same version) installed: its sandbox runs
    ``codemorph/sandbox/_worker.py`` from the worker's own installation.

    Raises:
        ImportError: at construction, with a hint, when ``distributed`` is not installed.
        ValueError: ``rows_per_task`` or ``tasks_in_flight`` below 1.
    """

    def __init__(self, scheduler: Any, rows_per_task: int = 8, tasks_in_flight: int = 2) -> None:
        try:
            import distributed  # noqa: F401
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError("the Dask executor needs dask.distributed: pip install 'codemorph[dask]'") from exc
        if rows_per_task < 1 or tasks_in_flight < 1:
            raise ValueError("rows_per_task and tasks_in_flight must be >= 1")
        self.scheduler = scheduler
        self.rows_per_task = rows_per_task
        self.tasks_in_flight = tasks_in_flight

    def _client(self):
        from distributed import Client

        if isinstance(self.scheduler, Client):
            return self.scheduler, False
        return Client(self.scheduler), True

    def __repr__(self) -> str:
        return f"DaskExecutor({self.scheduler!r}, rows_per_task={self.rows_per_task})"


def make_executor(name: str, scheduler: str | None = None, rows_per_task: int | None = None
                  ) -> LocalExecutor | DaskExecutor:
    """The executor the CLI's ``--executor``/``--scheduler``/``--rows-per-task`` name.

    Args:
        name: ``"local"`` or ``"dask"``.
        scheduler: the Dask scheduler's address (``tcp://host:8786``); required for ``dask``.
        rows_per_task: rows per Dask task (default 8); ignored by ``local``.

    Raises:
        ValueError: unknown name, ``dask`` without a scheduler address, ``rows_per_task`` < 1.
        ImportError: ``dask`` when ``distributed`` is not installed.
    """
    if name == "local":
        return LocalExecutor()
    if name == "dask":
        if not scheduler:
            raise ValueError("--executor dask needs --scheduler ADDRESS (e.g. tcp://10.0.0.1:8786)")
        return DaskExecutor(scheduler) if rows_per_task is None else DaskExecutor(scheduler, rows_per_task)
    raise ValueError(f"unknown executor {name!r}: expected 'local' or 'dask'")


# -- the ordered map ---------------------------------------------------------------------------
def map_rows(fn: Callable[[Any, T], R], rows: Iterable[T], executor: LocalExecutor | DaskExecutor | None = None,
             *, setup: Callable[[], Any] | None = None, workers: int = 1, local: str = "processes",
             passthrough: Callable[[T], bool] | None = is_reject, close: bool = True,
             window: int | None = None, on_error: Callable[[T, Exception], R] | None = None,
             memory: int | None = None) -> Iterator[tuple[T, R | None]]:
    """Apply ``fn(state, row)`` to every row; yield ``(row, result)`` in input order.

    Args:
        fn: the work of one row, called as ``fn(state, row)``.  For process and Dask
            backends it must be picklable (a module-level function, or a
            ``functools.partial`` of one with picklable arguments).  Rows and results
            cross one by one, pickled by :func:`_pack` (under
            :data:`PICKLE_RECURSION_LIMIT` when the current recursion limit is too low for
            their nesting); a row or result that still cannot cross gets
            ``on_error(row, RowTransportError)`` (without ``on_error``: the
            :class:`RowTransportError` is raised at its row's turn), the others go on.
        rows: any iterable; consumed lazily (at most the in-flight window ahead of the
            row being yielded), so a reader over millions of rows stays streaming.
        executor: ``None`` or a :class:`LocalExecutor` (this machine), or a
            :class:`DaskExecutor`.
        setup: builds the per-worker state (e.g. ``functools.partial(Sandbox, limits)``),
            called once per worker process or thread, on its first row; ``None``: the
            state is ``None``.  Picklable for process and Dask backends.
        workers: local only: parallel workers; 1 runs every row in the calling process.
            (On Dask, the cluster's threads are the workers.)
        local: local only: ``"processes"`` (``spawn``ed host processes; for CPU-bound
            host work such as parsing and rewriting) or ``"threads"`` (host threads; for
            jobs that only wait on the sandbox, and for a ``setup`` that returns a shared,
            thread-safe object such as one :class:`~codemorph.sandbox.Sandbox`).
        passthrough: rows for which it returns true are not sent to a worker; they are
            yielded with result ``None``.  Default: :class:`~codemorph.dataset.Reject` items
            (rows that failed reading).  ``None``: every row is processed.
        close: when the map ends (or the iterator is closed), call ``close()`` on every
            state ``setup`` built; pass ``False`` when ``setup`` hands out an object
            the caller owns.
        window: tasks in flight (submitted, not yet yielded); default ``4 * workers``
            locally, ``tasks_in_flight * threads`` on Dask.
        on_error: the policy "a failure costs one row, never the run": when ``fn`` raises
            an ``Exception`` on a row, its result is ``on_error(row, exception)``, computed
            where ``fn`` ran (the worker process or thread), and the map goes on; picklable
            for process and Dask backends.  ``None``: the exception is re-raised when its
            row's turn comes.  A row whose worker process dies (local processes; on Dask,
            a worker lost on it every time the scheduler tried it) gets
            ``on_error(row, WorkerDied(...))``, computed in the calling process (see
            :class:`WorkerDied` and "A worker process that dies" below).
        memory: local processes only: each worker process's address-space cap in bytes
            (:func:`limit_memory`, set by the workers' initializer); ``None``: no cap.  A
            row that needs more gets ``MemoryError`` in Python code (the row's failure,
            for ``fn`` or ``on_error`` to handle; :func:`memory_cap` tells the cap), or, in
            native code that aborts on a failed allocation, kills its worker.  Not applied
            with ``workers=1`` (the calling process), threads or Dask (whose workers have
            their own ``--memory-limit``).

    Yields:
        ``(row, result)`` pairs, one per input row, in input order; ``result`` is
        ``fn``'s return value, or ``None`` for passed-through rows.

    An interrupted map (the iterator closed before its end, or an exception such as
    ``KeyboardInterrupt`` raised while it waits for a row) does not wait for the rows in
    progress: local worker processes get ``SIGTERM`` (each closes its states, i.e. its
    sandbox, and exits; ``SIGKILL`` after :data:`STOP_GRACE` seconds); local threads have
    their states closed (with ``close=True``) before they are joined, which ends the
    sandbox executions they wait for; Dask tasks are cancelled and the workers' states closed.
    A worker ended that way is not taken for a worker that died.

    A worker process that dies (local processes: the kernel's out-of-memory killer, a crash
    or abort in native code, ``os._exit`` in a plugin) costs the rows it was processing only
    when they kill a worker again alone: the tasks in progress are run again one at a time,
    alone in a fresh single-worker pool, a task of several rows row by row; a row
    whose worker dies there gets ``on_error(row, WorkerDied)`` (without ``on_error``, the
    :class:`WorkerDied` is raised at its row's turn), the others their normal results, and
    the map goes on with a fresh pool of ``workers`` processes; every other row's result is
    what an uninterrupted map gives.  With ``workers=1`` the rows run in the calling
    process, and a crash there ends it.

    A worker process still in one transform application :func:`kill_grace` seconds past
    the transform time limit (:func:`~codemorph.engine.transform.set_time_limit`, which each
    worker records with its deadline where this process reads it; a loop inside C code, or
    a transform catching the limit's exception) is killed (``SIGKILL``) while the map waits
    for a result; its row gets ``on_error(row, WorkerOverran)`` (without ``on_error``, the
    :class:`WorkerOverran` is raised at its row's turn), the other rows in progress are
    submitted again to a fresh pool, and the map goes on (local processes only).

    Raises:
        ValueError: ``workers`` < 1, an unknown ``local`` mode, or ``memory`` below 64 MiB
            or above this process's hard ``RLIMIT_AS``.
        Exception: whatever ``setup`` raised, or ``fn`` without ``on_error``, re-raised
            when its row's turn comes.
    """
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    if local not in ("processes", "threads"):
        raise ValueError(f"local must be 'processes' or 'threads', got {local!r}")
    if memory is not None:
        _check_memory_cap(memory)  # here, not in every worker's initializer
    guarded = fn if on_error is None else partial(_guarded, fn, on_error)
    if isinstance(executor, DaskExecutor):
        return _map_dask(guarded, rows, executor, setup, passthrough, close, window, on_error)
    rows_per_task = executor.rows_per_task if isinstance(executor, LocalExecutor) else 1
    if executor is not None and not isinstance(executor, LocalExecutor):
        raise TypeError(f"expected a LocalExecutor or DaskExecutor, got {type(executor).__name__}")
    if workers == 1:
        return _map_inline(guarded, rows, setup, passthrough, close)
    return _map_local(guarded, rows, setup, workers, local, rows_per_task, passthrough, close, window, on_error,
                      memory)


def _guarded(fn: Callable[[Any, T], R], on_error: Callable[[T, Exception], R], state: Any, row: T) -> R:
    """``fn(state, row)``, or ``on_error(row, exception)`` when it raises an ``Exception``, or
    any other ``BaseException`` that is not the user's interruption
    (:func:`~codemorph.errors.interrupts_run`: a plugin's ``GeneratorExit``, ``SystemExit`` or
    class of its own costs its row, never the run)."""
    try:
        return fn(state, row)
    except BaseException as exc:  # noqa: BLE001 - the caller's policy decides what a failed row becomes
        if interrupts_run(exc):
            raise
        return on_error(row, exc)  # type: ignore[arg-type]


def _chunks(rows: Iterable[T], size: int, passthrough: Callable[[T], bool] | None
            ) -> Iterator[tuple[list[T], list[T]]]:
    """``(chunk, rows of the chunk to process)`` pairs of ``size`` consecutive rows."""
    it = iter(rows)
    while True:
        chunk: list[T] = []
        for x in it:
            chunk.append(x)
            if len(chunk) == size:
                break
        if not chunk:
            return
        yield chunk, [x for x in chunk if passthrough is None or not passthrough(x)]
        if len(chunk) < size:
            return


def _ordered_futures(rows: Iterable[T], size: int, passthrough: Callable[[T], bool] | None, window: int,
                     submit: Callable[[list[T]], Any], result: Callable[[Any], list[Any]],
                     cancel: Callable[[Any], None]) -> Iterator[tuple[T, Any]]:
    """The ordered, bounded-window driver shared by the pool and Dask backends."""
    pending: deque[tuple[list[T], Any]] = deque()
    chunks = _chunks(rows, size, passthrough)
    exhausted = False
    try:
        while True:
            while not exhausted and len(pending) < window:
                nxt = next(chunks, None)
                if nxt is None:
                    exhausted = True
                    break
                chunk, todo = nxt
                pending.append((chunk, submit(todo) if todo else None))
            if not pending:
                return
            chunk, fut = pending.popleft()
            outs = iter(result(fut) if fut is not None else [])
            for x in chunk:
                if passthrough is not None and passthrough(x):
                    yield x, None
                    continue
                out = next(outs)
                if isinstance(out, _Raise):
                    raise out.exc
                yield x, out
    finally:
        for _, fut in pending:
            if fut is not None:
                cancel(fut)


def _map_inline(fn, rows, setup, passthrough, close) -> Iterator[tuple[Any, Any]]:
    state = None
    built = False
    try:
        for x in rows:
            if passthrough is not None and passthrough(x):
                yield x, None
                continue
            if not built:
                state, built = (setup() if setup is not None else None), True
            yield x, fn(state, x)
    finally:
        if built and close and callable(getattr(state, "close", None)):
            state.close()


def die_with_parent(parent: int | None = None) -> None:
    """Make this process end when the process that started it ends, even by ``SIGKILL``
    (Linux ``prctl(PR_SET_PDEATHSIG, SIGKILL)``; elsewhere nothing).  The initializer of
    codemorph's worker pools: a ``kill -9`` of ``codemorph generate`` must not leave its
    workers (and, through them, their sandbox processes: a zygote ends when it finds that
    its host is no longer its parent, or when its host's pipe closes) running.  The signal
    follows the *thread* that started this process: pools start their workers from a thread
    that lives as long as the process (the main thread, or :func:`_submit`'s own thread).

    Args:
        parent: the process id of the process that started this one (``os.getpid()`` taken
            there, passed as the pool's ``initargs``); ``None``: this process's parent now.
            Exits at once when the parent is no longer ``parent`` (it ended before the
            death signal was armed, and this process was handed to another).  A parent
            that is process 1 (codemorph as a container's first process, with no init) is
            a parent like any other."""
    if not sys.platform.startswith("linux"):
        return
    if parent is None:
        parent = os.getppid()
    try:
        import ctypes
        import signal

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except Exception:  # noqa: BLE001 - best effort: no libc, no prctl
        return
    if os.getppid() != parent:
        os._exit(1)


#: this worker process's slot in its pool's table of tasks in progress, and the table
#: (set by :func:`_init_worker`; ``None`` outside a worker process of :func:`map_rows`)
_worker_slots: Any = None
_worker_slot = 0
#: this worker process's pool's :class:`_Watch` (``None`` outside a worker process of :func:`map_rows`)
_worker_watch: "_Watch | None" = None
#: this process's address-space cap in bytes (:func:`limit_memory`), ``None`` when none was set
_memory_cap: int | None = None


@contextmanager
def _sigint_ignored_by_new_workers() -> Iterator[None]:
    """While a pool's ``submit`` may start worker processes: ``SIGINT`` ignored, so that a
    worker starts with it ignored (the disposition survives ``exec``; a handler would not)
    and a Ctrl-C while it is still importing (before :func:`_init_worker` runs) prints no
    ``KeyboardInterrupt`` traceback from it.  In this thread ``SIGINT`` is blocked over the
    same span, so one sent to it then stays pending and reaches the handler put back before
    it is unblocked; threads started meanwhile (the pool's own) inherit the block.  A
    terminal's Ctrl-C goes to the process, though, and the kernel may hand it to another
    thread that does not block it, which then ignores it: a Ctrl-C in the few milliseconds
    a worker takes to start can be lost (press it again).  Only in the main thread
    (elsewhere signals cannot be set, and nothing is done)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except (ValueError, OSError):  # pragma: no cover - not settable here
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, handler if handler is not None else signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


#: the thread that starts worker processes for maps run outside the main thread (:func:`_submit`)
_starter: cf.ThreadPoolExecutor | None = None
_starter_lock = threading.Lock()


def _submit(pool: cf.ProcessPoolExecutor, fn: Callable[..., Any], *args: Any) -> cf.Future:
    """``pool.submit(fn, *args)`` (which may start a worker process) from a thread that lives
    as long as this process: in the main thread as it is (``SIGINT`` ignored meanwhile,
    :func:`_sigint_ignored_by_new_workers`); from any other thread, in a thread kept for
    that (one per process, started on first use).  A worker's death signal
    (:func:`die_with_parent`, ``PR_SET_PDEATHSIG``) follows the *thread* that started it:
    a worker started from a thread that then ended (a library caller that takes the first
    results of :func:`map_rows` or ``generate_ordered`` in one thread and the rest in
    another) was killed with it, in the middle of its rows.

    Raises:
        concurrent.futures.process.BrokenProcessPool: the pool broke."""
    global _starter
    if threading.current_thread() is threading.main_thread():
        with _sigint_ignored_by_new_workers():
            return pool.submit(fn, *args)
    with _starter_lock:
        if _starter is None:
            _starter = cf.ThreadPoolExecutor(1, thread_name_prefix="codemorph-worker-starter")
    return _starter.submit(pool.submit, fn, *args).result()


def _init_worker(parent: int, slots: Any = None, claim: Any = None, memory: int | None = None,
                 watch: "_Watch | None" = None) -> None:
    """Initializer of the worker processes of :func:`map_rows`: end with the parent
    (:func:`die_with_parent`), leave Ctrl-C to the parent (``SIGINT``, which a terminal sends
    to the whole process group, is ignored: the parent, interrupted, ends the workers), and
    on ``SIGTERM`` close this process's states (their sandboxes) and exit at once
    (:func:`_end_worker`).  ``slots`` (a shared array, one entry per worker of the pool) and
    ``claim`` (a shared counter) give the worker its entry, where it records the task in
    progress; ``memory``: the address-space cap in bytes (:func:`limit_memory`); ``watch``:
    the pool's :class:`_Watch`, where this worker records its pid and each transform
    application under a time limit (:func:`_watch_application`, installed as the engine's
    application watcher), for the parent to kill it when it runs on past the limit.  A
    ``KeyboardInterrupt`` raised in the worker is then a plugin's, never the user's
    (:func:`codemorph.errors.track_interruptions`)."""
    global _worker_slots, _worker_slot, _worker_watch
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    track_interruptions()  # SIGINT ignored: a KeyboardInterrupt here is never the user's
    signal.signal(signal.SIGTERM, _end_worker)
    die_with_parent(parent)
    if slots is not None and claim is not None:
        with claim.get_lock():
            _worker_slot = claim.value
            claim.value += 1
        if _worker_slot < len(slots):
            _worker_slots = slots
            if watch is not None:
                from codemorph.engine.transform import set_application_watcher

                watch.pids[_worker_slot] = os.getpid()
                _worker_watch = watch
                set_application_watcher(_watch_application)
    if memory is not None:
        limit_memory(memory)


def limit_memory(cap: int) -> None:
    """Cap this process's address space at ``cap`` bytes: the soft ``RLIMIT_AS`` (the hard
    limit is left as it is, so that processes this one starts, such as the sandbox's, may
    set their own).  An allocation beyond it fails: ``MemoryError`` in Python code, and in
    native code whatever that code does on a failed allocation (libcst's parser aborts the
    process).  :func:`memory_cap` then returns ``cap``.  Does nothing where ``resource``
    is missing (Windows).

    Raises:
        ValueError: ``cap`` below 64 MiB, or above the hard limit."""
    global _memory_cap
    hard = _check_memory_cap(cap)
    if hard is None:  # pragma: no cover - not on Linux/macOS
        return
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    _memory_cap = cap


def _check_memory_cap(cap: int) -> int | None:
    """The hard ``RLIMIT_AS`` under which ``cap`` (bytes) can be set (``None`` without the
    ``resource`` module); raises ``ValueError`` for a cap below 64 MiB or above it."""
    if cap < 64 * 1024**2:
        raise ValueError(f"a worker memory cap must be at least 64 MiB, got {cap / 1024**2:.0f} MiB")
    try:
        import resource
    except ImportError:  # pragma: no cover - not on Linux/macOS
        return None
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY and cap > hard:
        raise ValueError(f"a worker memory cap of {cap // 1024**2} MiB is above this process's hard limit "
                         f"({hard // 1024**2} MiB)")
    return hard


def memory_cap() -> int | None:
    """The address-space cap :func:`limit_memory` set in this process (bytes; a worker
    process of :func:`map_rows` given ``memory``), or ``None`` when none was set."""
    return _memory_cap


def memory_cap_reason() -> str | None:
    """What a ``MemoryError`` in this process means when it runs under a cap
    (:func:`memory_cap`): ``the worker's host process reached its memory cap of N MiB of
    address space (--worker-memory MiB raises it)``; ``None`` without a cap."""
    cap = memory_cap()
    if cap is None:
        return None
    return (f"the worker's host process reached its memory cap of {cap // 1024**2} MiB of address space "
            "(--worker-memory MiB raises it)")


def failed_row_reject(row: Any, exc: BaseException) -> Reject:
    """The reject of a source row (:class:`~codemorph.rows.dataset.SourceRow`) whose
    processing failed with ``exc``: stage ``worker`` for a :class:`WorkerDied` (its message
    as the reason, ``exitcode`` as a field), for a :class:`RowTransportError` (its message),
    for a :class:`WorkerOverran` (its message; the transform and its limit as fields)
    and for a ``MemoryError`` under a memory cap
    (:func:`memory_cap_reason`); otherwise the ``internal`` reject
    (:func:`~codemorph.rows.schema.internal_reject`)."""
    from codemorph.rows.schema import internal_reject, row_reject

    if isinstance(exc, WorkerDied):
        return row_reject(row, "worker", str(exc), detail={"exception": "WorkerDied", "exitcode": exc.exitcode})
    if isinstance(exc, WorkerOverran):
        return row_reject(row, "worker", str(exc), detail={"exception": "WorkerOverran", "transform": exc.transform,
                                                           "time_limit": exc.limit})
    if isinstance(exc, RowTransportError):
        return row_reject(row, "worker", str(exc), detail={"exception": "RowTransportError"})
    if isinstance(exc, MemoryError) and memory_cap() is not None:
        return row_reject(row, "worker", f"{memory_cap_reason()} while processing this row; the run went on",
                          detail={"exception": "MemoryError", "memory_cap": memory_cap()})
    if isinstance(exc, RecursionError):
        depth = _nesting_depth_of(getattr(row, "code", None))
        if depth is not None:
            return row_reject(row, "parse", (
                f"expression nesting too deep for codemorph's analyses: the syntax tree is {depth} levels deep "
                f"(RecursionError: {exc}); the run went on"), detail={"exception": "RecursionError", "depth": depth})
    return internal_reject(row, exc)  # type: ignore[arg-type]


def _nesting_depth_of(code: Any) -> int | None:
    """The syntax-tree depth of ``code`` (:func:`~codemorph.engine.transform.nesting_depth`)
    when it is at least :data:`~codemorph.engine.transform.DEEP_NESTING` (a tree that deep
    can exhaust the recursion limit of libcst's visitors), else ``None`` (also when ``code``
    is no string or does not parse)."""
    if not isinstance(code, str):
        return None
    try:
        from codemorph.engine.program import Program
        from codemorph.engine.transform import DEEP_NESTING, nesting_depth

        depth = nesting_depth(Program(code).module)
    except Exception:  # noqa: BLE001 - a program that does not parse has no depth to report
        return None
    return depth if depth >= DEEP_NESTING else None


def _end_worker(signum: int, frame: Any) -> None:
    """``SIGTERM`` in a worker process: close every state built here (a
    :class:`~codemorph.jobs.generate.RowProcessor` kills its sandbox's processes), then exit
    without finishing the task in progress: its result would be discarded anyway.  Further
    ``SIGTERM`` are ignored meanwhile (the pool's manager thread sends its own when it sees
    a worker gone): a second one would re-enter here and exit before the states are closed."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        close_states()
    finally:
        os._exit(128 + signum)


#: seconds an interrupted map gives its worker processes to close their sandboxes and exit
#: after ``SIGTERM`` before it kills them (``SIGKILL``)
STOP_GRACE = 5.0


def _stop_processes(pool: cf.ProcessPoolExecutor, grace: float = STOP_GRACE) -> None:
    """End a process pool now, without waiting for the tasks in progress: pending tasks
    are cancelled, every worker gets ``SIGTERM`` (its handler, :func:`_end_worker`, closes
    its sandboxes and exits) and, if still alive after ``grace`` seconds, ``SIGKILL``."""
    # the worker processes: captured before shutdown(), which forgets them
    procs = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        try:
            p.terminate()
        except (OSError, ValueError):  # already gone, or closed
            pass
    deadline = time.monotonic() + grace
    for p in procs:
        try:
            p.join(max(0.0, deadline - time.monotonic()))
            if p.is_alive():
                p.kill()
                p.join(1.0)
        except (OSError, ValueError):
            pass
    # the pool's manager thread sees its workers gone and ends; joining it returns at once
    pool.shutdown(wait=True)


#: bytes of a transform's name a :class:`_Watch` keeps per worker
_NAME_BYTES = 200
#: seconds between two looks of a waiting map at its workers' applications (:meth:`_ProcessMap._police`)
POLL_INTERVAL = 0.25


def kill_grace(limit: float) -> float:
    """Seconds past its time limit (``limit`` seconds) after which a worker process of
    :func:`map_rows` still in one transform application is killed by its parent: the limit
    itself, at least 2 s and at most 10 s.  Within it, the worker's own ``SIGALRM`` stops a
    transform looping in Python code (:class:`~codemorph.engine.transform.TransformTimeout`:
    that variant alone is rejected); past it, the transform is stuck where no signal
    reaches it."""
    return min(10.0, max(2.0, limit))


class _Watch:
    """What the worker processes of one pool share with the parent, one entry per worker:
    its pid, the index (in its task) of the row it is processing, and the transform
    application under a time limit it is in (:func:`_watch_application`): its deadline
    (``time.monotonic()`` seconds, one clock for every process of the machine; 0: none),
    its limit (seconds) and the transform's name (UTF-8, :data:`_NAME_BYTES` bytes)."""

    def __init__(self, context: Any, n: int) -> None:
        self.pids = context.Array("q", n, lock=False)
        self.rows = context.Array("q", n, lock=False)
        self.deadlines = context.Array("d", n, lock=False)
        self.limits = context.Array("d", n, lock=False)
        self.names = context.Array("c", n * _NAME_BYTES, lock=False)

    def name(self, i: int) -> str:
        return bytes(self.names[i * _NAME_BYTES:(i + 1) * _NAME_BYTES]).rstrip(b"\0").decode("utf-8", "replace")


def _watch_application(name: str | None, seconds: float | None) -> None:
    """The engine's application watcher in a worker process of :func:`map_rows`
    (:func:`~codemorph.engine.transform.set_application_watcher`): records the transform
    ``name`` and its deadline, ``seconds`` from now, in this worker's entry of its pool's
    :class:`_Watch`; ``name=None``: the application ended."""
    watch = _worker_watch
    if watch is None:
        return
    i = _worker_slot
    if name is None or not seconds:
        watch.deadlines[i] = 0.0
        return
    data = name.encode("utf-8", "replace")[:_NAME_BYTES]
    watch.names[i * _NAME_BYTES:(i + 1) * _NAME_BYTES] = data.ljust(_NAME_BYTES, b"\0")
    watch.limits[i] = seconds
    watch.deadlines[i] = time.monotonic() + seconds


class WorkerOverran(Exception):
    """A worker process of :func:`map_rows` (local processes) killed by the map because the
    transform application it was in ran past the transform time limit by more than
    :func:`kill_grace`: a loop inside C code (a catastrophic regular expression,
    ``sum(itertools.count())``) or a transform catching the time limit's exception, which
    nothing inside the worker can stop.  The row it was processing gets
    ``on_error(row, exc)``; a new worker takes the dead one's place.

    Attributes:
        transform: the transform's registered name.
        limit: the time limit, seconds.
        grace: seconds past the limit after which the worker was killed.
        pid: the killed worker's process id."""

    def __init__(self, transform: str, limit: float, grace: float, pid: int) -> None:
        self.transform = transform
        self.limit = limit
        self.grace = grace
        self.pid = pid
        super().__init__(
            f"transform {transform!r} was still running {grace:g} s after its time limit of {limit:g} s (it was "
            "expected to return, or to be stopped at the limit; a loop inside C code, or a transform that catches "
            f"the time limit's exception, cannot be stopped inside its worker): its worker process was killed and a "
            "new one started; the run went on (--transform-time-limit SECONDS changes the limit)")

    def __reduce__(self):
        return (WorkerOverran, (self.transform, self.limit, self.grace, self.pid))


class WorkerDied(Exception):
    """A worker process of :func:`map_rows` died while it processed a row (the kernel's
    out-of-memory killer, a crash or abort in native code, a plugin calling ``os._exit``, a
    ``kill`` from outside), and the row, run again alone in a fresh worker, killed that
    worker too; or, on Dask, a worker died on the row every time the scheduler tried it.
    A map with ``on_error`` passes it to ``on_error(row, exc)``; its message is the reason
    to give (``the worker process processing this row died (killed by signal 9: ...); the
    row was run alone to confirm``).

    Attributes:
        exitcode: the dead process's exit code (negative: minus the signal that ended it),
            ``None`` when unknown (Dask).
        memory: the address-space cap the worker had, in bytes, ``None`` for none."""

    def __init__(self, exitcode: int | None, memory: int | None = None, how: str | None = None,
                 confirmed: str = "the row was run alone to confirm") -> None:
        self.exitcode = exitcode
        self.memory = memory
        super().__init__(f"the worker process processing this row died ({how or death_cause(exitcode, memory)}); "
                         f"{confirmed}")

    def __reduce__(self):  # picklable with its attributes (Dask and process pools carry exceptions)
        return (_worker_died, (self.exitcode, self.memory, str(self)))


def _worker_died(exitcode: int | None, memory: int | None, message: str) -> WorkerDied:
    exc = WorkerDied(exitcode, memory)
    exc.args = (message,)
    return exc


#: what a signal that ended a worker process usually means
_SIGNAL_CAUSES = {
    signal.SIGKILL: "out of memory or killed from outside",
    signal.SIGSEGV: "a crash in native code",
    signal.SIGABRT: "native code aborted, e.g. on a failed allocation",
    signal.SIGBUS: "a crash in native code",
    signal.SIGTERM: "terminated from outside",
}


def death_cause(exitcode: int | None, memory: int | None = None) -> str:
    """How a worker process ended, in words: ``killed by signal 9 (SIGKILL): out of memory
    or killed from outside``, ``exited with code 1 (os._exit, or a native library ending
    the process)``; with the worker's memory cap (bytes) named where a failed allocation
    may be the cause."""
    if exitcode is None:
        return "its exit code is unknown"
    if exitcode < 0:
        sig = -exitcode
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        cause = _SIGNAL_CAUSES.get(sig, "")
        text = f"killed by signal {sig} ({name})" + (f": {cause}" if cause else "")
        if memory is not None and sig in (signal.SIGABRT, signal.SIGSEGV):
            text += (f"; its host process was capped at {memory // 1024**2} MiB of address space "
                     "(--worker-memory)")
        return text
    return f"exited with code {exitcode} without finishing the row (os._exit, or a native library ending the process)"


class _Raise:
    """A result that is an exception to raise when its row's turn comes."""

    __slots__ = ("exc",)

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


class _Task:
    """One task of a :class:`_ProcessMap`: its number (> 0), the rows sent (``rows``, with
    their pickles, ``payload``), every row of the task (``all_rows``) and those that could
    not be sent (``unsent``: index in ``all_rows`` -> why), the future of its run, the
    results of ``rows`` once known, and how many broken pools it was in without being found
    innocent or guilty."""

    __slots__ = ("number", "rows", "payload", "all_rows", "unsent", "future", "outs", "breaks")

    def __init__(self, number: int, rows: list[Any]) -> None:
        self.number = number
        self.all_rows = rows
        self.rows, self.payload, self.unsent = _split(rows)
        self.future: cf.Future | None = None
        self.outs: list[Any] | None = None if self.rows else []  # nothing to send: nothing to wait for
        self.breaks = 0


#: who a row is sent to, in a :class:`RowTransportError`'s message
_PROCESS = "a worker process"
_DASK = "a Dask worker"


class _ProcessMap:
    """The process backend of :func:`map_rows`: ``workers`` spawned processes, what happens
    when one of them dies, and the parent's watch over their transforms' time limit.

    A worker process that dies (``SIGKILL`` from the out-of-memory killer, a native crash,
    ``os._exit``) breaks a :class:`~concurrent.futures.ProcessPoolExecutor`: every task
    submitted to it fails.  Then the tasks whose workers were in them (each worker records
    its task's number in a shared table while it runs it) are run again one at a time,
    alone in a fresh single-worker pool (a new one after each death), so a task whose
    worker dies there is the culprit: a one-row task's row gets ``on_error(row, WorkerDied)``, a task of several rows
    has each of its rows run alone the same way.  The tasks that had not started are
    submitted again, in order, to a fresh pool of ``workers`` processes, and the map goes
    on.  Every row runs at most twice in a pool with others (a task found in two broken
    pools without a recorded worker is run alone too) and at most twice alone, so a row
    that kills its worker every time costs that row and a few seconds, never a loop.

    While it waits for a result, the map looks at its workers every
    :data:`POLL_INTERVAL` seconds (:meth:`_police`): a worker still in one transform
    application :func:`kill_grace` seconds past the transform time limit is killed
    (``SIGKILL``, by its pid).  Its row gets ``on_error(row, WorkerOverran)`` at once (the
    culprit is known: it is not run again); the pool breaks as above, and the rows the
    other workers had in progress are submitted again to the fresh pool, not run alone.
    """

    def __init__(self, workers: int, token: str, setup: Callable[[], Any] | None, fn: Callable[[Any, Any], Any],
                 on_error: Callable[[Any, Exception], Any] | None, memory: int | None) -> None:
        self.workers = workers
        self.token = token
        self.setup = setup
        self.fn = fn
        self.on_error = on_error
        self.memory = memory
        self.context = multiprocessing.get_context("spawn")
        self.numbers = iter(range(1, sys.maxsize))
        self.live: dict[int, _Task] = {}  # submitted, results not yet taken
        # task number -> (index of the row in the task, why) of the workers killed by _police
        self.overran: dict[int, tuple[int, WorkerOverran]] = {}
        self.pool, self.slots, self.watch = self._new_pool(workers)
        # the recovery's single-worker pool, its table and watch
        self.solo: cf.ProcessPoolExecutor | None = None
        self.solo_slots: Any = None
        self.solo_watch: _Watch | None = None

    def _new_pool(self, n: int) -> tuple[cf.ProcessPoolExecutor, Any, _Watch]:
        slots = self.context.Array("q", n, lock=False)
        claim = self.context.Value("i", 0)
        watch = _Watch(self.context, n)
        pool = cf.ProcessPoolExecutor(n, mp_context=self.context, initializer=_init_worker,
                                      initargs=(os.getpid(), slots, claim, self.memory, watch))
        return pool, slots, watch

    def submit(self, rows: list[Any]) -> _Task:
        task = _Task(next(self.numbers), rows)
        self.live[task.number] = task
        self._send(task)
        return task

    def _send(self, task: _Task) -> None:
        if task.outs is not None:  # no row of it could be sent
            return
        try:
            task.future = _submit(self.pool, _run_numbered_task, self.token, self.setup, self.fn, task.number,
                                  task.payload)
        except cf.process.BrokenProcessPool:  # a worker died since the last result: recovered with the others
            task.future = None

    def cancel(self, task: _Task) -> None:
        if task.future is not None:
            task.future.cancel()

    def _wait(self, fut: cf.Future, slots: Any, watch: _Watch) -> Any:
        """``fut.result()``, looking at the pool's workers (:meth:`_police`) every
        :data:`POLL_INTERVAL` seconds until it is done."""
        while not fut.done():
            cf.wait([fut], timeout=POLL_INTERVAL)
            if not fut.done():
                self._police(slots, watch)
        return fut.result()

    def _police(self, slots: Any, watch: _Watch) -> None:
        """Kill (``SIGKILL``) every worker of the pool of ``slots`` and ``watch`` still in a
        transform application :func:`kill_grace` seconds past its time limit, and record
        why in :attr:`overran` under its task's number (the pool then breaks)."""
        now = time.monotonic()
        for i in range(len(slots)):
            deadline = watch.deadlines[i]
            if deadline <= 0:
                continue
            limit = watch.limits[i]
            grace = kill_grace(limit)
            number, pid, row = slots[i], watch.pids[i], watch.rows[i]
            if now < deadline + grace or not number or not pid or number in self.overran:
                continue
            name = watch.name(i)
            if watch.deadlines[i] != deadline or slots[i] != number:  # it moved on meanwhile
                continue
            self.overran[number] = (row, WorkerOverran(name, limit, grace, pid))
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:  # pragma: no cover - it ended meanwhile: its pool breaks all the same
                pass

    def result(self, task: _Task) -> list[Any]:
        """The task's results (a :class:`_Raise` for a row whose worker died, or that could
        not cross to or from its worker, without ``on_error``), waiting for it; recovers the
        pool first when it broke."""
        while task.outs is None:
            if task.future is not None:
                try:
                    task.outs = _unpack(task.rows, self._wait(task.future, self.slots, self.watch), self.on_error,
                                        _PROCESS)
                    break
                except cf.process.BrokenProcessPool:
                    pass
            self._recover()
        del self.live[task.number]
        return _merge(task.all_rows, task.unsent, task.outs, self.on_error, _PROCESS)

    def _recover(self) -> None:
        broken, slots = self.pool, self.slots
        # the workers' table first: the dead worker's entry still names its task
        running = {n for n in slots if n}
        if self.overran:
            # a worker also past its time limit (within the grace) is stuck where SIGTERM's
            # handler may not run either (_end_broken would wait STOP_GRACE seconds for it):
            # killed now; its task is submitted again like the others in progress
            _kill_past_deadline(self.watch)
        # the pool's manager thread fails every pending task and ends the other workers
        # (SIGTERM: each closes its sandbox); joining it makes the failed set final
        _end_broken(broken)
        overran, self.overran = self.overran, {}
        failed = sorted((t for t in self.live.values() if t.outs is None and _failed_by_break(t.future)),
                        key=lambda t: t.number)
        killed = [t for t in failed if t.number in overran]
        if not killed:  # a worker died: whichever task it was in is a suspect
            for t in failed:
                t.breaks += 1
            suspects = [t for t in failed if t.number in running or t.breaks >= 2]
        else:  # the map killed it: the culprit is known, the other tasks in progress are not suspects
            suspects = [t for t in failed if t.number not in overran and t.breaks >= 2]
        try:
            for t in killed:
                k, why = overran[t.number]
                t.outs = []
                for j, row in enumerate(t.rows):  # the others of a task of several rows: each alone
                    if j == k:
                        t.outs.append(self._guilty(row, why))
                        continue
                    one, died = self._alone([row])
                    t.outs.append(one[0] if died is None else self._guilty(row, died))
            for t in suspects:
                outs, died = self._alone(t.rows)
                if died is None:
                    t.outs = outs
                elif len(t.rows) == 1:
                    t.outs = [self._guilty(t.rows[0], died)]
                else:  # which of its rows: each alone
                    t.outs = []
                    for row in t.rows:
                        one, died = self._alone([row])
                        t.outs.append(one[0] if died is None else self._guilty(row, died))
        except BaseException:  # interrupted (Ctrl-C, SIGTERM): the row running alone is not waited for
            if self.solo is not None:
                _stop_processes(self.solo)
                self.solo = None
            raise
        if self.solo is not None:
            self.solo.shutdown(wait=True)
            self.solo = None
        self.pool, self.slots, self.watch = self._new_pool(self.workers)
        for t in failed:
            if t.outs is None:
                self._send(t)

    def _alone(self, rows: list[Any]) -> tuple[list[Any] | None, Exception | None]:
        """``rows`` run alone in the single-worker pool: ``(results, None)``, or ``(None,
        WorkerDied)`` when its worker died, ``(None, WorkerOverran)`` when it was killed
        past the time limit (the pool is then dropped)."""
        if self.solo is None:
            self.solo, self.solo_slots, self.solo_watch = self._new_pool(1)
        pool, slots, watch = self.solo, self.solo_slots, self.solo_watch
        number = next(self.numbers)
        try:
            fut = _submit(pool, _run_numbered_task, self.token, self.setup, self.fn, number, _pack(rows))
        except cf.process.BrokenProcessPool:  # pragma: no cover - a fresh pool's only worker died idle
            fut = None
        procs = list((getattr(pool, "_processes", None) or {}).values())
        try:
            if fut is None:
                raise cf.process.BrokenProcessPool("the worker died")
            return _unpack(rows, self._wait(fut, slots, watch), self.on_error, _PROCESS), None
        except cf.process.BrokenProcessPool:
            self.solo = None
            # the pool's manager thread reaps the dead worker too (Process.join): the exit
            # code is read once that thread has ended, not while both wait for the process
            # (the one that loses the race sees no exit code)
            _end_broken(pool)
            overran = self.overran.pop(number, None)
            if overran is not None:
                return None, overran[1]
            code = next((p.exitcode for p in procs if p.exitcode is not None), None)
            return None, WorkerDied(code, self.memory)

    def _guilty(self, row: Any, died: Exception) -> Any:
        """The result of a row whose worker died alone, or was killed past the time limit:
        ``on_error(row, died)``, or a :class:`_Raise` of ``died`` without ``on_error``."""
        if self.on_error is None:
            return _Raise(died)
        return self.on_error(row, died)

    def stop(self) -> None:
        """End every worker now (an interrupted map): see :func:`_stop_processes`."""
        if self.solo is not None:
            _stop_processes(self.solo)
            self.solo = None
        _stop_processes(self.pool)

    def close(self) -> None:
        """End the workers once the map is done (their states close at exit)."""
        self.pool.shutdown(wait=True, cancel_futures=True)


def _kill_past_deadline(watch: _Watch) -> None:
    """``SIGKILL`` every worker of ``watch`` in a transform application past its time limit
    (its sandbox's processes end with it: they watch their host)."""
    now = time.monotonic()
    for i in range(len(watch.pids)):
        deadline, pid = watch.deadlines[i], watch.pids[i]
        if 0 < deadline < now and pid:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:  # already gone
                pass


def _end_broken(pool: cf.ProcessPoolExecutor, grace: float = STOP_GRACE) -> None:
    """End a broken process pool (:func:`_stop_processes`) and wait for its manager thread,
    which fails the pool's pending tasks and reaps its workers (``Process.join``): once it
    has ended, every task's future is final and every worker's ``exitcode`` set (a worker
    reaped by that thread while this one also waited for it would otherwise show none)."""
    manager = getattr(pool, "_executor_manager_thread", None)  # shutdown() forgets it
    _stop_processes(pool, grace)
    if manager is not None:
        manager.join(30.0)


def _failed_by_break(fut: cf.Future | None) -> bool:
    """Whether a task's run failed because its pool broke (or it was never sent)."""
    if fut is None:
        return True
    if not fut.done() or fut.cancelled():
        return fut.cancelled()
    return isinstance(fut.exception(), cf.process.BrokenProcessPool)


def _map_local(fn, rows, setup, workers, local, rows_per_task, passthrough, close, window, on_error=None,
               memory=None) -> Iterator[tuple[Any, Any]]:
    token = uuid.uuid4().hex
    if local != "threads":
        procs = _ProcessMap(workers, token, setup, fn, on_error, memory)
        finished = False
        try:
            yield from _ordered_futures(rows, rows_per_task, passthrough, window or 4 * workers, procs.submit,
                                        procs.result, procs.cancel)
            finished = True
        finally:
            # An interrupted map (Ctrl-C or SIGTERM: KeyboardInterrupt; the caller stopped
            # reading: GeneratorExit; an error) discards the rows in progress, so it does not
            # wait for them: a row can take minutes (a program looping until its timeout, on
            # every input).  Processes close their states at exit (atexit: close_states), or
            # on SIGTERM (_end_worker).
            if finished:
                procs.close()
            else:
                procs.stop()
        return
    pool = cf.ThreadPoolExecutor(workers, thread_name_prefix="codemorph-map")
    finished = False
    try:
        yield from _ordered_futures(rows, rows_per_task, passthrough, window or 4 * workers,
                                    lambda todo: pool.submit(_run_task, token, setup, fn, todo),
                                    lambda fut: fut.result(), lambda fut: fut.cancel())
        finished = True
    finally:
        # threads cannot be killed: closing their states (sandboxes) makes the rows in
        # progress end at once; states the caller owns (close=False) are closed by it
        pool.shutdown(wait=False, cancel_futures=True)
        if close:
            close_states(token)
        else:
            with _states_lock:
                _states.pop(token, None)
        if finished or close:
            pool.shutdown(wait=True)


#: How many times a Dask task cancelled because the workers holding the map's function died
#: is submitted again before the cancellation is raised.
RESUBMITS = 8


def _map_dask(fn, rows, executor: DaskExecutor, setup, passthrough, close, window, on_error=None
              ) -> Iterator[tuple[Any, Any]]:
    client, own = executor._client()
    token = uuid.uuid4().hex
    try:
        threads = sum(client.nthreads().values()) or 1
        # fn and setup travel once to every worker instead of with every task; sent again
        # when the workers that held them died (a row that kills workers can take them all)
        sent: list[Any] = client.scatter([fn, setup], broadcast=True, hash=False)

        def send(payload: list[bytes]) -> Any:
            return client.submit(_run_packed_task, token, sent[1], sent[0], payload, pure=False)

        def submit(todo: list[Any]) -> tuple[Any, list[Any], list[Any], list[bytes], dict[int, str]]:
            # rows cross pickled one by one: one that cannot be pickled costs that row only
            rows, payload, unsent = _split(todo)
            return (send(payload) if payload else None), todo, rows, payload, unsent

        def wait(fut: Any, payload: list[bytes]) -> list[Any]:
            """The task's results; submitted again (``RESUBMITS`` times at most) when it was
            cancelled because the workers holding ``fn`` and ``setup`` died (their nannies
            restart them: on a loaded machine a restarted worker can die again on the next
            row before the task runs, so a few tries are needed, each after a worker is up)."""
            for attempt in range(RESUBMITS):
                try:
                    return fut.result()
                except cf.CancelledError as exc:
                    if attempt == RESUBMITS - 1:
                        raise _CancelledEveryTime(f"a task of {len(payload)} rows was cancelled {RESUBMITS} times: "
                                                  "the workers holding its function died each time") from exc
                try:
                    client.wait_for_workers(1, timeout=60)
                except Exception:  # noqa: BLE001 - no worker came back: the next try says so
                    pass
                if any(f.status != "finished" for f in sent):
                    try:
                        sent[:] = client.scatter([fn, setup], broadcast=True, hash=False)
                    except Exception:  # noqa: BLE001 - the workers died again before it reached one
                        continue  # ("No valid workers found"): the cancelled task counts as this try
                fut = send(payload)
            raise AssertionError("unreachable")  # pragma: no cover

        def result(task: tuple[Any, list[Any], list[Any], list[bytes], dict[int, str]]) -> list[Any]:
            fut, todo, rows, payload, unsent = task
            return _merge(todo, unsent, ran(fut, rows, payload) if rows else [], on_error, _DASK)

        def ran(fut: Any, rows: list[Any], payload: list[bytes]) -> list[Any]:
            try:
                return _unpack(rows, wait(fut, payload), on_error, _DASK)
            except Exception as exc:  # noqa: BLE001 - only a task that killed its workers is handled here
                if on_error is None or not _killed_worker(exc):
                    raise
                first = exc
            # the scheduler retried the task on fresh workers (allowed-failures) and every
            # one died, or the task was cancelled every time it was submitted because the
            # workers holding fn died under it: which of its rows, each in a task of its own
            if len(rows) == 1:
                return [on_error(rows[0], _dask_death(client, first))]
            outs = []
            for row, one in zip(rows, payload):
                try:
                    outs.append(_unpack([row], wait(send([one]), [one]), on_error, _DASK)[0])
                except Exception as exc:  # noqa: BLE001
                    if not _killed_worker(exc):
                        raise
                    outs.append(on_error(row, _dask_death(client, exc)))
            return outs

        yield from _ordered_futures(rows, executor.rows_per_task, passthrough,
                                    window or threads * executor.tasks_in_flight, submit, result,
                                    lambda task: task[0].cancel() if task[0] is not None else None)
    finally:
        try:
            client.run(close_states, token) if close else client.run(_forget_states, token)
        except Exception:  # the cluster may be gone; its workers' exit closes the states
            pass
        if own:
            client.close()


class _CancelledEveryTime(cf.CancelledError):
    """A Dask task cancelled each of the :data:`RESUBMITS` times it was submitted: the workers
    holding the map's function and set-up died under it every time (the scheduler forgets
    a task whose inputs are lost with their workers instead of counting a failure, so such
    a row can end this way rather than with ``KilledWorker``)."""


def _killed_worker(exc: BaseException) -> bool:
    """Whether ``exc`` says the task's rows killed the workers that ran them: Dask's
    ``KilledWorker`` (the task's worker died on it more times than the scheduler's
    ``allowed-failures``) or :class:`_CancelledEveryTime`."""
    if isinstance(exc, _CancelledEveryTime):
        return True
    try:
        from distributed import KilledWorker
    except ImportError:  # pragma: no cover
        return False
    return isinstance(exc, KilledWorker)


def _dask_death(client: Any, exc: BaseException | None = None) -> WorkerDied:
    """The :class:`WorkerDied` of a row whose Dask task killed its worker every time
    (``exc``: the ``KilledWorker`` or :class:`_CancelledEveryTime` that said so)."""
    if isinstance(exc, _CancelledEveryTime):
        return WorkerDied(None, how=f"the Dask workers holding its task died each of the {RESUBMITS} times it was "
                                    "submitted: out of memory, a native crash or os._exit",
                          confirmed="the row was in a task of its own")
    return WorkerDied(None, how="a Dask worker died on it each time the scheduler tried it, as many times as "
                                "distributed.scheduler.allowed-failures allows: out of memory, a native crash or "
                                "os._exit", confirmed="the row was in a task of its own")


def _forget_states(token: str) -> None:
    with _states_lock:
        _states.pop(token, None)
