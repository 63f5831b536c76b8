"""An interrupted ordered row map (the caller stops reading: Ctrl-C, SIGTERM, an error)
ends its worker processes without waiting for the rows in progress, and closes their states
(in codemorph, each worker's sandbox) on the way out."""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from functools import partial
from pathlib import Path

from codemorph.jobs.executors import LocalExecutor, map_rows


# -- helpers run by workers (module level: picklable by reference) ------------------------------
class Marker:
    """A per-worker state that leaves ``closed-<pid>`` in ``folder`` when closed."""

    def __init__(self, folder: str) -> None:
        self.folder = folder

    def close(self) -> None:
        Path(self.folder, f"closed-{os.getpid()}").write_text("")


def slow_after_first(state: Marker, x: int) -> int:
    """Row 0 at once; every other row leaves ``started-<pid>-<x>``, then takes 20 s and leaves ``done-<x>``."""
    if x == 0:
        return x
    Path(state.folder, f"started-{os.getpid()}-{x}").write_text("")
    time.sleep(20)
    Path(state.folder, f"done-{x}").write_text("")
    return x


class Gate:
    """A per-thread state whose close() opens its gate (as closing a sandbox ends the
    executions a thread waits for)."""

    def __init__(self) -> None:
        self.opened = threading.Event()

    def close(self) -> None:
        self.opened.set()


def wait_for_close(state: Gate, x: int, log: list) -> int:
    """Row 0 at once; every other row waits (20 s at most) for its state to be closed."""
    if x:
        log.append(("started", x))
        log.append(("released by close" if state.opened.wait(20) else "timed out", x))
    return x


def test_closing_an_interrupted_thread_map_closes_the_states_the_rows_in_progress_wait_on():
    log: list = []
    rows = map_rows(partial(wait_for_close, log=log), range(5), LocalExecutor(), setup=Gate, workers=2,
                    local="threads")
    assert next(rows) == (0, 0)
    deadline = time.monotonic() + 60
    while not log and time.monotonic() < deadline:
        time.sleep(0.01)
    assert log, "no thread began a slow row"
    rows.close()
    # the map closed the states before joining its threads: the rows in progress ended then
    ends = [what for what, _ in log if what != "started"]
    assert ends and set(ends) == {"released by close"}
    assert not [t for t in threading.enumerate() if t.name.startswith("codemorph-map")]


def test_closing_an_interrupted_process_map_ends_workers_without_finishing_their_rows(tmp_path):
    rows = map_rows(slow_after_first, range(5), LocalExecutor(), setup=partial(Marker, str(tmp_path)), workers=2)
    assert next(rows) == (0, 0)
    deadline = time.monotonic() + 60
    while not list(tmp_path.glob("started-*")) and time.monotonic() < deadline:
        time.sleep(0.05)
    started = list(tmp_path.glob("started-*"))
    assert started, "no worker began a slow row"
    rows.close()  # what a KeyboardInterrupt in the caller's loop does to the map
    # the rows in progress were abandoned, not waited for (each would leave done-<x> after 20 s)
    assert list(tmp_path.glob("done-*")) == []
    # every worker that was inside a row closed its state (its sandbox) before it ended
    pids = {p.name.split("-")[1] for p in started}
    assert {p.name for p in tmp_path.glob("closed-*")} >= {f"closed-{pid}" for pid in pids}
    # no worker outlives the map: a worker the pool was still starting when the map was
    # closed (spawned on demand) ends on the pool's shutdown signal on its own, so it gets a
    # few seconds (the rows' 20 s are what must not be waited for)
    deadline = time.monotonic() + 10
    while multiprocessing.active_children() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert multiprocessing.active_children() == []
    assert list(tmp_path.glob("done-*")) == []
