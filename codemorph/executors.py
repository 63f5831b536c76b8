"""Where ``generate`` processes its rows: local processes or a Dask distributed cluster.

An executor turns the input items (each a :class:`~codemorph.dataset.SourceRow` or a
:class:`~codemorph.dataset.Reject` from reading) into ``(item, RowOutcome)`` pairs **in input
order**.  Every row is processed independently with randomness derived from ``(seed, row id,
transform)``, so the output does not depend on the executor, the number of workers or the
order in which rows finish: a Dask run writes the same bytes as a local one.

* :class:`LocalExecutor`: ``config.workers`` host processes (the default of ``generate``).
* :class:`DaskExecutor`: rows are partitioned into tasks of ``rows_per_task`` rows and run
  on the workers of a Dask distributed cluster (``pip install codemorph[dask]``); each
  worker thread keeps one :class:`~codemorph.generate.RowProcessor` (with its own sandbox
  worker process) for the whole run.  The writer stays on the client, which writes the
  rows, the rejects and the checkpoint as tasks complete in order, so ``--resume`` works
  unchanged.
"""

from __future__ import annotations

import atexit
import threading
from collections import deque
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Sequence

from .dataset import Reject, SourceRow

if TYPE_CHECKING:  # pragma: no cover
    from .generate import GenerateConfig, RowOutcome

__all__ = ["LocalExecutor", "DaskExecutor", "make_executor"]

Item = "SourceRow | Reject"


class LocalExecutor:
    """Rows processed on this machine by ``config.workers`` processes (1: in this process)."""

    def ordered(self, config: "GenerateConfig", items: Iterable[SourceRow | Reject]
                ) -> Iterator[tuple[SourceRow | Reject, "RowOutcome"]]:
        """Yield ``(item, outcome)`` for every item, in input order."""
        from .generate import _ordered

        return _ordered(config, items)


# -- worker side of the Dask executor --------------------------------------------------
_local = threading.local()
_processors: list[Any] = []
_lock = threading.Lock()


def _processor(config: "GenerateConfig"):
    """This thread's RowProcessor for ``config`` (created on first use)."""
    from .generate import RowProcessor

    cache = getattr(_local, "cache", None)
    if cache is None:
        cache = _local.cache = {}
    key = repr(config)
    proc = cache.get(key)
    if proc is None:
        proc = cache[key] = RowProcessor(config)
        with _lock:
            if not _processors:
                atexit.register(close_processors)
            _processors.append(proc)
    return proc


def process_rows(config: "GenerateConfig", rows: Sequence[SourceRow]) -> list["RowOutcome"]:
    """Process ``rows`` (one Dask task) with this worker thread's RowProcessor."""
    proc = _processor(config)
    return [proc.process(r) for r in rows]


def close_processors() -> int:
    """Close every RowProcessor of this process (kills their sandbox workers); returns how many."""
    with _lock:
        procs = list(_processors)
        _processors.clear()
    for p in procs:
        p.close()
    for_thread = getattr(_local, "cache", None)
    if for_thread:
        for_thread.clear()
    return len(procs)


class DaskExecutor:
    """Rows processed on a Dask distributed cluster.

    Args:
        scheduler: the scheduler's address (``"tcp://host:8786"``) or a connected
            ``distributed.Client``.
        rows_per_task: input rows per Dask task (larger: less scheduling overhead; smaller:
            better balance and less work lost when a worker dies).
        tasks_in_flight: tasks submitted ahead of the one being written, per worker thread
            (bounds the client's memory on corpora of millions of rows).

    Raises:
        ImportError: at construction, with a hint, when ``distributed`` is not installed.
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

    def ordered(self, config: "GenerateConfig", items: Iterable[SourceRow | Reject]
                ) -> Iterator[tuple[SourceRow | Reject, "RowOutcome"]]:
        """Yield ``(item, outcome)`` for every item, in input order."""
        from .generate import RowOutcome

        client, own = self._client()
        try:
            threads = sum(client.nthreads().values()) or 1
            window = threads * self.tasks_in_flight
            cfg = client.scatter(config, broadcast=True)
            pending: deque[tuple[list, Any]] = deque()  # (items of the task, future or None)
            it = iter(items)
            exhausted = False
            while True:
                while not exhausted and len(pending) < window:
                    chunk = []
                    for x in it:
                        chunk.append(x)
                        if len(chunk) == self.rows_per_task:
                            break
                    if len(chunk) < self.rows_per_task:
                        exhausted = True
                    if not chunk:
                        break
                    rows = [x for x in chunk if isinstance(x, SourceRow)]
                    fut = client.submit(process_rows, cfg, rows, pure=False) if rows else None
                    pending.append((chunk, fut))
                if not pending:
                    break
                chunk, fut = pending.popleft()
                outs = iter(fut.result() if fut is not None else [])
                for x in chunk:
                    yield x, (RowOutcome(rejects=[x]) if isinstance(x, Reject) else next(outs))
        finally:
            try:
                client.run(close_processors)
            except Exception:
                pass
            if own:
                client.close()


def make_executor(name: str, scheduler: str | None = None) -> LocalExecutor | DaskExecutor:
    """The executor the CLI's ``--executor``/``--scheduler`` name.

    Raises:
        ValueError: unknown name, or ``dask`` without a scheduler address.
    """
    if name == "local":
        return LocalExecutor()
    if name == "dask":
        if not scheduler:
            raise ValueError("--executor dask needs --scheduler ADDRESS (e.g. tcp://10.0.0.1:8786)")
        return DaskExecutor(scheduler)
    raise ValueError(f"unknown executor {name!r}: expected 'local' or 'dask'")
