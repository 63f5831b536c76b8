"""A batch whose worker (zygote) process is killed from outside is run again on a new
worker, once; a program's own child dying stays the program's outcome."""

from __future__ import annotations

import os
import signal
import threading
import time

from codemorph.sandbox.pool import ExecRequest, Limits, Sandbox

R = ExecRequest
FAST = Limits(timeout=5.0, grace=0.3, memory=512 * 1024**2, output=4096)

BATCH = [R("def f():\n    return 'before'\n"),
         R("import time\ndef f():\n    time.sleep(1)\n    return [1, 2]\n"),
         R("def f(x):\n    return x * 3\n", args="'ab'")]


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as fh:
            return [int(p) for p in fh.read().split()]
    except OSError:
        return []


def _kill_when_running(pid: int, done: threading.Event) -> None:
    """SIGKILL the worker ``pid`` once it has forked the batch's child."""
    deadline = time.monotonic() + 60
    while not done.is_set() and time.monotonic() < deadline:
        if _children(pid):
            os.kill(pid, signal.SIGKILL)
            return
        time.sleep(0.005)


def _summary(outs):
    return [(o.status, o.value_repr, o.stdout) for o in outs]


def test_batch_interrupted_by_an_outside_kill_of_its_worker_gives_the_undisturbed_outcomes():
    with Sandbox(FAST) as box:
        undisturbed = _summary(box.run_batch(BATCH))
        assert [s[:2] for s in undisturbed] == [("returned", "'before'"), ("returned", "[1, 2]"),
                                                ("returned", "'ababab'")]
        (pid,) = box.worker_pids
        done = threading.Event()
        killer = threading.Thread(target=_kill_when_running, args=(pid, done))
        killer.start()
        try:
            outs = box.run_batch(BATCH)
        finally:
            done.set()
            killer.join()
        assert _summary(outs) == undisturbed
        assert box.retried_batches == 1
        assert box.started_workers == 2
        assert box.worker_pids != [pid]
        assert _summary(box.run_batch(BATCH)) == undisturbed  # the new worker stays in use
        assert box.started_workers == 2


def test_worker_killed_while_idle_costs_the_next_batch_nothing():
    with Sandbox(FAST) as box:
        assert box.run(BATCH[0]).value_repr == "'before'"
        (pid,) = box.worker_pids
        os.kill(pid, signal.SIGKILL)
        assert _summary(box.run_batch(BATCH[::2])) == [("returned", "'before'", ""),
                                                       ("returned", "'ababab'", "")]
        assert box.retried_batches == 1


def test_program_whose_child_dies_is_not_run_again():
    with Sandbox(FAST) as box:
        outs = box.run_batch([R("import os\ndef f():\n    os._exit(3)\n"), BATCH[2]])
        assert [o.status for o in outs] == ["crashed", "returned"]
        assert outs[1].value_repr == "'ababab'"
        assert box.retried_batches == 0
        assert box.started_workers == 1


def test_program_that_kills_its_worker_is_run_again_only_once():
    killer = R("import os, signal\ndef f():\n    os.kill(os.getppid(), signal.SIGKILL)\n"
               "    while True:\n        pass\n", timeout=0.4)
    with Sandbox(FAST) as box:
        outs = box.run_batch([BATCH[0], killer, BATCH[2]])
        assert [o.status for o in outs] == ["returned", "crashed", "crashed"]
        assert all("sandbox worker lost" in o.note for o in outs[1:])
        assert box.retried_batches == 1
        assert box.started_workers == 2  # the first worker and the one retry, no more
