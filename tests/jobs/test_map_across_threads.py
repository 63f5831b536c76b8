"""A map whose results are taken from more than one thread (a library caller that reads the
first results of ``map_rows`` or ``generate_ordered`` in one thread and the rest in another):
its worker processes are started from a thread that lives as long as the process, so they
outlive the thread that happened to start the map.  A worker's death signal
(``PR_SET_PDEATHSIG``) follows the thread that started it: before, the workers were killed
when that thread ended, and every row in progress was run again (alone, in new processes).
"""

from __future__ import annotations

import os
import threading
import time

from codemorph.jobs.executors import map_rows


def slow_pid(state, x: int) -> tuple[int, int]:
    """``(x * x, this worker's pid)``, a little slowly, so that rows are still in progress
    when the first result is taken."""
    time.sleep(0.05)
    return x * x, os.getpid()


def test_workers_started_from_a_thread_that_ends_keep_processing_the_rows():
    it = map_rows(slow_pid, range(40), workers=2)
    first = []
    reader = threading.Thread(target=lambda: first.append(next(it)))
    reader.start()
    reader.join()  # the thread that started the workers has ended
    got = first + list(it)
    assert [(x, r[0]) for x, r in got] == [(x, x * x) for x in range(40)]
    # the pool's two worker processes did every row: none was killed and replaced (a
    # replaced pool, and the single-worker pool that runs rows alone, add processes)
    assert len({r[1] for _, r in got}) <= 2
