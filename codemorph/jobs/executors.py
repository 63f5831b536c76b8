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
import signal
import sys
import threading
import time
import uuid
from collections import deque
from functools import partial
from typing import Any, Callable, Iterable, Iterator, Sequence, TypeVar

from codemorph.rows.dataset import Reject

__all__ = ["LocalExecutor", "DaskExecutor", "make_executor", "map_rows", "close_states", "is_reject",
           "default_workers", "usable_cpus", "DEFAULT_WORKERS_HELP", "die_with_parent"]

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
    return [fn(state, r) for r in rows]


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
             window: int | None = None, on_error: Callable[[T, Exception], R] | None = None
             ) -> Iterator[tuple[T, R | None]]:
    """Apply ``fn(state, row)`` to every row; yield ``(row, result)`` in input order.

    Args:
        fn: the work of one row, called as ``fn(state, row)``.  For process and Dask
            backends it must be picklable (a module-level function, or a
            ``functools.partial`` of one with picklable arguments), as must ``row`` and
            the result.
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
            row's turn comes.

    Yields:
        ``(row, result)`` pairs, one per input row, in input order; ``result`` is
        ``fn``'s return value, or ``None`` for passed-through rows.

    An interrupted map (the iterator closed before its end, or an exception such as
    ``KeyboardInterrupt`` raised while it waits for a row) does not wait for the rows in
    progress: local worker processes get ``SIGTERM`` (each closes its states, i.e. its
    sandbox, and exits; ``SIGKILL`` after :data:`STOP_GRACE` seconds); local threads have
    their states closed (with ``close=True``) before they are joined, which ends the
    sandbox executions they wait for; Dask tasks are cancelled and the workers' states closed.

    Raises:
        ValueError: ``workers`` < 1 or an unknown ``local`` mode.
        Exception: whatever ``setup`` raised, or ``fn`` without ``on_error``, re-raised
            when its row's turn comes.
    """
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    if local not in ("processes", "threads"):
        raise ValueError(f"local must be 'processes' or 'threads', got {local!r}")
    if on_error is not None:
        fn = partial(_guarded, fn, on_error)
    if isinstance(executor, DaskExecutor):
        return _map_dask(fn, rows, executor, setup, passthrough, close, window)
    rows_per_task = executor.rows_per_task if isinstance(executor, LocalExecutor) else 1
    if executor is not None and not isinstance(executor, LocalExecutor):
        raise TypeError(f"expected a LocalExecutor or DaskExecutor, got {type(executor).__name__}")
    if workers == 1:
        return _map_inline(fn, rows, setup, passthrough, close)
    return _map_local(fn, rows, setup, workers, local, rows_per_task, passthrough, close, window)


def _guarded(fn: Callable[[Any, T], R], on_error: Callable[[T, Exception], R], state: Any, row: T) -> R:
    """``fn(state, row)``, or ``on_error(row, exception)`` when it raises an ``Exception``."""
    try:
        return fn(state, row)
    except Exception as exc:  # noqa: BLE001 - the caller's policy decides what a failed row becomes
        return on_error(row, exc)


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
                yield x, (None if passthrough is not None and passthrough(x) else next(outs))
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
    workers (and, through them, their sandbox processes, which end when their host's pipe
    closes) running.

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


def _init_worker(parent: int) -> None:
    """Initializer of the worker processes of :func:`map_rows`: end with the parent
    (:func:`die_with_parent`), leave Ctrl-C to the parent (``SIGINT``, which a terminal sends
    to the whole process group, is ignored: the parent, interrupted, ends the workers), and
    on ``SIGTERM`` close this process's states (their sandboxes) and exit at once
    (:func:`_end_worker`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _end_worker)
    die_with_parent(parent)


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


def _map_local(fn, rows, setup, workers, local, rows_per_task, passthrough, close, window
               ) -> Iterator[tuple[Any, Any]]:
    token = uuid.uuid4().hex
    if local == "threads":
        pool: cf.Executor = cf.ThreadPoolExecutor(workers, thread_name_prefix="codemorph-map")
    else:
        pool = cf.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                                      initializer=_init_worker, initargs=(os.getpid(),))
    finished = False
    try:
        yield from _ordered_futures(rows, rows_per_task, passthrough, window or 4 * workers,
                                    lambda todo: pool.submit(_run_task, token, setup, fn, todo),
                                    lambda fut: fut.result(), lambda fut: fut.cancel())
        finished = True
    finally:
        # An interrupted map (Ctrl-C or SIGTERM: KeyboardInterrupt; the caller stopped
        # reading: GeneratorExit; an error) discards the rows in progress, so it does not
        # wait for them: a row can take minutes (a program looping until its timeout, on
        # every input).  Processes close their states at exit (atexit: close_states), or
        # on SIGTERM (_end_worker); threads here.
        if local != "threads":
            if finished:
                pool.shutdown(wait=True, cancel_futures=True)
            else:
                _stop_processes(pool)  # type: ignore[arg-type]
        else:
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


def _map_dask(fn, rows, executor: DaskExecutor, setup, passthrough, close, window) -> Iterator[tuple[Any, Any]]:
    client, own = executor._client()
    token = uuid.uuid4().hex
    try:
        threads = sum(client.nthreads().values()) or 1
        # fn and setup travel once to every worker instead of with every task
        fn_f, setup_f = client.scatter([fn, setup], broadcast=True, hash=False)
        yield from _ordered_futures(rows, executor.rows_per_task, passthrough,
                                    window or threads * executor.tasks_in_flight,
                                    lambda todo: client.submit(_run_task, token, setup_f, fn_f, todo, pure=False),
                                    lambda fut: fut.result(), lambda fut: fut.cancel())
    finally:
        try:
            client.run(close_states, token) if close else client.run(_forget_states, token)
        except Exception:  # the cluster may be gone; its workers' exit closes the states
            pass
        if own:
            client.close()


def _forget_states(token: str) -> None:
    with _states_lock:
        _states.pop(token, None)
