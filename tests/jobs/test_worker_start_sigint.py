"""Worker processes start with Ctrl-C ignored, and the parent loses no Ctrl-C meanwhile
(``executors._sigint_ignored_by_new_workers``): a Ctrl-C while the workers were still
importing printed their ``KeyboardInterrupt`` tracebacks."""

import signal
import subprocess
import sys
import threading

from codemorph.jobs.executors import _sigint_ignored_by_new_workers

CHILD = "import signal; print(signal.getsignal(signal.SIGINT) == signal.SIG_IGN)"


def test_a_process_started_while_workers_may_start_ignores_sigint_from_its_first_instruction():
    with _sigint_ignored_by_new_workers():
        inside = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, check=True)
    after = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, check=True)
    assert (inside.stdout.strip(), after.stdout.strip()) == ("True", "False")


def test_a_ctrl_c_while_workers_start_reaches_the_handler_afterwards():
    seen = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: seen.append(signum))
    try:
        with _sigint_ignored_by_new_workers():
            # sent to this thread: a signal sent to the process may go to another thread of
            # the test process that does not block it (and is then ignored, see the docstring)
            signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
            assert seen == []  # held while workers may be starting
        assert seen == [signal.SIGINT]
        assert signal.getsignal(signal.SIGINT) is not signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)
