"""The ``codemorph`` command line (typer + rich): one module per command family, shared
helpers in :mod:`codemorph.cli.common`, the app in :mod:`codemorph.cli.main`.

This module imports nothing heavy: :func:`main`, the console script's entry point, installs
the interruption handling (:func:`handle_interruptions`) before the command line's modules
load, so that Ctrl-C or ``SIGTERM`` while they load (about half a second) ends the command
with one line and exit code 130 rather than a traceback."""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

__all__ = ["app", "main", "handle_interruptions", "EXIT_INTERRUPTED"]

#: exit code of a command interrupted by Ctrl-C or SIGTERM (128 + SIGINT, as shells report it)
EXIT_INTERRUPTED = 130


def handle_interruptions() -> None:
    """Make Ctrl-C (``SIGINT``) and ``SIGTERM`` (``kill``, a batch system's stop) end a command
    the same way: a ``KeyboardInterrupt`` in this process, so worker pools and sandboxes are
    closed and the command says it was interrupted, exit code 130.  After the first, further
    ``SIGINT`` and ``SIGTERM`` are ignored in this process: the clean-up (at most about 5 s,
    the workers' grace) is not cut short, and the exit code stays 130 (a signal that came
    while the interpreter shut down would otherwise have killed it, exit 143 for ``SIGTERM``).
    A process forked from this one (a worker) that receives ``SIGTERM`` still ends at once,
    as without the handler; one that receives ``SIGINT`` raises ``KeyboardInterrupt``, as by
    default.  The user's interruption is recorded first
    (:func:`codemorph.errors.note_user_interrupt`): a ``KeyboardInterrupt`` a plugin raises
    while nobody interrupted costs that plugin's result, never the run
    (:func:`codemorph.errors.interrupts_run`)."""
    from codemorph.errors import note_user_interrupt, track_interruptions

    main_pid = os.getpid()
    track_interruptions()

    def handler(signum: int, frame: Any) -> None:
        if os.getpid() != main_pid:
            if signum == signal.SIGTERM:
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                os.kill(os.getpid(), signal.SIGTERM)
                return
            raise KeyboardInterrupt
        # SIG_IGN, unlike a Python handler, outlives the interpreter's shutdown
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        note_user_interrupt()  # a KeyboardInterrupt a plugin raises is not the user's
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, handler)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not when ignored (nohup, `cmd &`)
        signal.signal(signal.SIGINT, handler)


def main() -> None:
    """Console-script entry point: handle interruptions (:func:`handle_interruptions`), load
    the command line and run it (:func:`codemorph.cli.main.main`).  An interruption while it
    loads prints ``error: interrupted while starting; nothing was run`` and exits 130."""
    handle_interruptions()
    try:
        from codemorph.cli.main import main as run
    except KeyboardInterrupt:
        sys.stderr.write("error: interrupted while starting; nothing was run\n")
        sys.exit(EXIT_INTERRUPTED)
    run()


def __getattr__(name: str) -> Any:
    if name == "app":  # the typer app, loaded on first use
        from codemorph.cli.main import app

        return app
    raise AttributeError(f"module 'codemorph.cli' has no attribute {name!r}")
