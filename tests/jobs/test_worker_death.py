"""A worker process of ``map_rows`` that dies (the kernel's out-of-memory killer, a native
crash, ``os._exit`` in a plugin) costs the row that killed it, found by running the rows
that were in progress again alone; every other row's result is exact and in input order,
and the map goes on with fresh workers."""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import time
from functools import partial
from pathlib import Path

import pytest

from codemorph.jobs.executors import RESUBMITS, LocalExecutor, WorkerDied, map_rows


# -- run by workers (module level: picklable by reference) ----------------------------------------
def square_unless_fatal(fatal: frozenset, how: str, state, x: int) -> int:
    """``x * x``, except for the rows in ``fatal``, whose worker dies: ``os._exit(3)`` or
    ``SIGKILL`` to itself (as the out-of-memory killer does)."""
    if x in fatal:
        if how == "exit":
            os._exit(3)
        os.kill(os.getpid(), signal.SIGKILL)
    return x * x


def as_reject(x: int, exc: Exception) -> str:
    return f"reject {x}: {type(exc).__name__}: {exc}"


def test_a_row_that_kills_its_worker_costs_that_row_only():
    fn = partial(square_unless_fatal, frozenset({7}), "kill")
    out = list(map_rows(fn, range(20), workers=2, on_error=as_reject))
    assert [x for x, _ in out] == list(range(20))
    assert [r for x, r in out if x != 7] == [x * x for x in range(20) if x != 7]
    assert dict(out)[7] == ("reject 7: WorkerDied: the worker process processing this row died (killed by "
                            "signal 9 (SIGKILL): out of memory or killed from outside); the row was run alone "
                            "to confirm")


def test_two_rows_that_kill_their_workers_cost_two_rows():
    fn = partial(square_unless_fatal, frozenset({3, 11}), "exit")
    out = list(map_rows(fn, range(16), workers=2, on_error=as_reject))
    assert [x for x, _ in out] == list(range(16))
    assert [r for x, r in out if x not in (3, 11)] == [x * x for x in range(16) if x not in (3, 11)]
    for x in (3, 11):
        assert dict(out)[x] == (f"reject {x}: WorkerDied: the worker process processing this row died (exited "
                                "with code 3 without finishing the row (os._exit, or a native library ending the "
                                "process)); the row was run alone to confirm")


def test_in_a_task_of_several_rows_only_the_row_that_kills_its_worker_is_lost():
    fn = partial(square_unless_fatal, frozenset({9}), "kill")
    out = list(map_rows(fn, range(24), LocalExecutor(rows_per_task=4), workers=2, on_error=as_reject))
    assert [x for x, _ in out] == list(range(24))
    assert [r for x, r in out if x != 9] == [x * x for x in range(24) if x != 9]
    assert dict(out)[9].startswith("reject 9: WorkerDied: the worker process processing this row died (killed by "
                                   "signal 9")


def test_without_on_error_the_dead_worker_reaches_the_caller_at_its_row():
    it = map_rows(partial(square_unless_fatal, frozenset({2}), "exit"), range(6), workers=2)
    assert next(it) == (0, 0)
    assert next(it) == (1, 1)
    with pytest.raises(WorkerDied) as caught:
        next(it)
    assert caught.value.exitcode == 3
    it.close()


def short_reject(x: int, exc: Exception) -> str:
    return f"reject {x}"


def test_a_map_whose_every_row_kills_its_worker_ends_with_every_row_rejected():
    out = list(map_rows(partial(square_unless_fatal, frozenset(range(5)), "exit"), range(5), workers=2,
                        on_error=short_reject))
    assert out == [(x, f"reject {x}") for x in range(5)]


# -- a worker killed from outside while its row runs: the row, run again alone, is written --------
def slow_square(folder: str, state, x: int) -> int:
    """``x * x``; row 5 leaves ``started-<pid>`` and takes a second the first time."""
    if x == 5:
        mark = Path(folder, "seen")
        if not mark.exists():
            mark.write_text("")
            Path(folder, f"started-{os.getpid()}").write_text("")
            time.sleep(30)
    return x * x


def test_a_worker_killed_from_outside_costs_no_row(tmp_path):
    it = map_rows(partial(slow_square, str(tmp_path)), range(12), workers=2, on_error=as_reject)
    got = [next(it) for _ in range(5)]
    deadline = time.monotonic() + 60
    while not list(tmp_path.glob("started-*")) and time.monotonic() < deadline:
        time.sleep(0.05)
    (started,) = tmp_path.glob("started-*")
    os.kill(int(started.name.split("-")[1]), signal.SIGKILL)
    got += list(it)
    assert got == [(x, x * x) for x in range(12)]


def test_closing_a_map_that_recovered_leaves_no_worker():
    it = map_rows(partial(square_unless_fatal, frozenset({1}), "kill"), range(40), workers=2, on_error=as_reject)
    assert next(it) == (0, 0)
    assert next(it)[1].startswith("reject 1: WorkerDied")
    assert next(it) == (2, 4)
    it.close()
    deadline = time.monotonic() + 10
    while multiprocessing.active_children() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert multiprocessing.active_children() == []


# -- Dask: the scheduler retries a task whose worker died (allowed-failures), then gives up ---------
def test_on_dask_a_row_that_kills_every_worker_it_meets_costs_that_row_only():
    distributed = pytest.importorskip("distributed")
    import dask

    from codemorph.jobs.executors import DaskExecutor

    # one retry (the default is 3): each try costs a worker restart by its nanny
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                     memory_limit=0) as cluster, distributed.Client(cluster) as client:
        fn = partial(square_unless_fatal, frozenset({4}), "exit")
        out = list(map_rows(fn, range(9), DaskExecutor(client, rows_per_task=3), on_error=as_reject))
    assert [x for x, _ in out] == list(range(9))
    assert [r for x, r in out if x != 4] == [x * x for x in range(9) if x != 4]
    # the scheduler ends the row's task with KilledWorker; on a loaded machine it may instead
    # forget the task each time the workers holding the scattered function die with it
    assert dict(out)[4] in (
        "reject 4: WorkerDied: the worker process processing this row died (a Dask worker died on it each time "
        "the scheduler tried it, as many times as distributed.scheduler.allowed-failures allows: out of memory, a "
        "native crash or os._exit); the row was in a task of its own",
        "reject 4: WorkerDied: the worker process processing this row died (the Dask workers holding its task "
        f"died each of the {RESUBMITS} times it was submitted: out of memory, a native crash or os._exit); the "
        "row was in a task of its own")


# -- an interruption during the recovery does not wait for the row running alone ------------------
def slow_or_fatal(folder: str, state, x: int) -> int:
    """Row 1 leaves ``started-<pid>``, takes 20 s, then leaves ``done-1``; row 2 kills its
    worker once row 1 has started; the others return at once."""
    if x == 1:
        Path(folder, f"started-{os.getpid()}").write_text("")
        time.sleep(20)
        Path(folder, "done-1").write_text("")
    if x == 2:
        # a generous deadline: on a loaded machine the other worker may take long to start
        deadline = time.monotonic() + 300
        while not list(Path(folder).glob("started-*")) and time.monotonic() < deadline:
            time.sleep(0.02)
        os._exit(5)
    return x


INTERRUPTED_MAP = """
import sys
from functools import partial
sys.path.insert(0, sys.argv[2])
from test_worker_death import as_reject, slow_or_fatal
from codemorph.jobs.executors import map_rows

if __name__ == "__main__":
    try:
        list(map_rows(partial(slow_or_fatal, sys.argv[1]), range(4), workers=2, on_error=as_reject))
    except KeyboardInterrupt:
        print("interrupted")
"""


def test_interrupting_a_map_while_it_runs_a_row_alone_ends_at_once(tmp_path):
    import subprocess
    import sys

    # in a process of its own, which gets Ctrl-C (SIGINT) as a command's process does
    script = tmp_path / "interrupted_map.py"
    script.write_text(INTERRUPTED_MAP)
    folder = tmp_path / "marks"
    folder.mkdir()
    p = subprocess.Popen([sys.executable, str(script), str(folder), str(Path(__file__).parent)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 300
        while len(list(folder.glob("started-*"))) < 2 and time.monotonic() < deadline and p.poll() is None:
            time.sleep(0.02)
        # the slow row started twice: with the others, then alone after the crash
        assert len(list(folder.glob("started-*"))) == 2
        p.send_signal(signal.SIGINT)
        stdout, stderr = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
    assert stdout == "interrupted\n", stderr
    # the row running alone was not waited for (it leaves done-1 after 20 s)
    assert not (folder / "done-1").exists()


class _ForgettingClient:
    """Stands in for a ``distributed.Client`` whose scheduler forgets every task holding a row
    of ``fatal`` (its workers died and took the scattered function with them, so the task is
    cancelled, "already forgotten", instead of ending with ``KilledWorker``); other tasks run
    in this process."""

    def __init__(self, fatal):
        self.fatal, self.submits = fatal, []

    def nthreads(self):
        return {"w1": 1, "w2": 1}

    def scatter(self, values, broadcast=True, hash=False):
        return [_Done(v) for v in values]

    def submit(self, task, token, setup, fn, payload, pure=False):
        rows = [pickle.loads(b) for b in payload]  # rows cross pickled one by one
        self.submits.append(rows)
        if self.fatal & set(rows):
            return _Forgotten()
        return _Done(task(token, setup.result(), fn.result(), payload))

    def wait_for_workers(self, n, timeout=None):
        pass

    def run(self, fn, *args):
        return fn(*args)


class _Done:
    status = "finished"

    def __init__(self, value):
        self.value = value

    def result(self):
        return self.value

    def cancel(self):
        pass


class _Forgotten(_Done):
    status = "cancelled"

    def __init__(self):
        pass

    def result(self):
        import concurrent.futures as cf

        raise cf.CancelledError("already forgotten")


def test_on_dask_a_row_whose_task_is_cancelled_every_time_costs_that_row_only(monkeypatch):
    distributed = pytest.importorskip("distributed")
    from codemorph.jobs import executors
    from codemorph.jobs.executors import DaskExecutor

    client = _ForgettingClient(frozenset({4}))
    executor = DaskExecutor(distributed.Client, rows_per_task=3)
    monkeypatch.setattr(DaskExecutor, "_client", lambda self: (client, False))
    out = list(map_rows(partial(square_unless_fatal, frozenset(), "exit"), range(9), executor, on_error=as_reject))
    assert [x for x, _ in out] == list(range(9))
    assert [r for x, r in out if x != 4] == [x * x for x in range(9) if x != 4]
    assert dict(out)[4] == ("reject 4: WorkerDied: the worker process processing this row died (the Dask workers "
                            f"holding its task died each of the {executors.RESUBMITS} times it was submitted: out of "
                            "memory, a native crash or os._exit); the row was in a task of its own")
    # the task of rows 3-5 was submitted RESUBMITS times, then each of its rows alone
    assert client.submits.count([3, 4, 5]) == executors.RESUBMITS
    assert client.submits.count([4]) == executors.RESUBMITS
    assert [3] in client.submits and [5] in client.submits
