"""One writer per output: the exclusive lock a run holds on its output files.

Every command that writes an output file row by row (``generate``, ``perturb``; the scores
of ``evaluate``) takes :func:`output_lock` on its output before it opens, truncates or
restores the output, its rejects file or its checkpoint, and holds it until it ends.  A
second run on the same output then stops at once with :class:`OutputBusyError` (the CLI
exits 2) instead of interleaving its rows with the first run's, and a ``--resume`` started
while the first run still writes cannot truncate what that run is writing.

The lock is an advisory ``fcntl.flock`` (exclusive, non-blocking) on a dedicated file next
to the output (:func:`lock_path`: ``out.jsonl`` -> ``out.lock``) holding the owner's pid.
The operating system drops it when the owning process ends, however it ends (``kill -9``
included), so a killed run never leaves a stale lock: a lock file left on disk by a killed
run is simply locked again by the next run.  A run that ends normally removes its lock
file.  The lock is per process and re-entrant: the same process may take it again on the
same output (the CLI holds it around a job function that takes it too).  Child processes
never inherit it (the file descriptor is closed in a forked child).
"""

from __future__ import annotations

import errno
import fcntl
import os
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from codemorph.errors import InputError

__all__ = ["OutputBusyError", "lock_path", "output_lock"]


class OutputBusyError(InputError):
    """Another process holds the lock of the output a run is about to write.

    Attributes:
        output: the output path the run was to write.
        pid: the pid of the process holding the lock, or ``None`` when unknown.
        resumable: whether the message suggests ``--resume`` (``generate`` runs).
    """

    def __init__(self, output: Path, pid: int | None, resumable: bool = False) -> None:
        self.output = output
        self.pid = pid
        self.resumable = resumable
        who = f"(pid {pid}) " if pid is not None else ""
        again = "then run again (with --resume to continue what it wrote)" if resumable else "then run again"
        super().__init__(f"{output}: another codemorph run {who}is writing this output; wait for it to finish "
                         f"(or stop it), {again}, or choose another -o")


def lock_path(out_path: str | os.PathLike[str]) -> Path:
    """The lock file of ``out_path``: ``out.jsonl`` -> ``out.lock`` (next to the output,
    like :func:`~codemorph.rows.dataset.progress_path`)."""
    p = Path(out_path)
    stem = p.name[: -len(".jsonl")] if p.name.endswith(".jsonl") else p.name
    return p.with_name(stem + ".lock")


# resolved lock path -> [file descriptor, depth] of the locks this process holds
_held: dict[Path, list[int]] = {}
_guard = threading.Lock()


def _forget_in_child() -> None:
    # a forked child must not keep the parent's lock alive after the parent dies
    for fd, _ in _held.values():
        try:
            os.close(fd)
        except OSError:
            pass
    _held.clear()


os.register_at_fork(after_in_child=_forget_in_child)


def _owner(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        return int(text) if text else None
    except (OSError, ValueError):
        return None


def _acquire(path: Path, output: Path, resumable: bool) -> int:
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = _owner(fd)
            os.close(fd)
            raise OutputBusyError(output, pid, resumable) from None
        except BaseException:
            os.close(fd)
            raise
        try:
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            try:
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
            except OSError:  # a full disk: no lock file is left behind (it is ours, still locked)
                try:
                    os.unlink(path)
                except OSError:
                    pass
                os.close(fd)
                raise
            return fd
        # the previous owner removed the file between our open and our lock: lock the new one
        os.close(fd)


@contextmanager
def output_lock(out_path: str | os.PathLike[str], resumable: bool = False) -> Iterator[Path]:
    """Hold the exclusive lock of the output ``out_path`` for the ``with`` block.

    Args:
        out_path: the output file the run writes (its rejects file and checkpoint are
            covered by the same lock).
        resumable: the run can be continued with ``--resume`` (``generate``): the busy
            message then says so.

    Yields:
        The output's lock file path (:func:`lock_path` of the resolved output; the run also
        holds the lock files of its rejects file and checkpoint).

    Raises:
        OutputBusyError: another process holds the lock (an :class:`~codemorph.InputError`;
            the message names the output, the holder's pid when known, and what to do).
        InputError: the output directory does not exist, or no lock file can be created
            in it (a read-only folder).
    """
    from codemorph.rows.dataset import progress_path, rejects_path

    # the file itself, whatever path spells it (a symlink, ``./x/../out.jsonl``), and the
    # files the run writes beside it: a run whose -o is another run's rejects file or
    # checkpoint meets that run's lock too
    real = Path(os.path.realpath(out_path))
    paths = [lock_path(real), lock_path(rejects_path(real)), lock_path(progress_path(real))]
    if not paths[0].parent.exists():
        raise InputError(f"{Path(out_path).parent}: output directory does not exist")
    taken: list[Path] = []
    try:
        for path in paths:
            _take(path, Path(out_path), resumable)
            taken.append(path)
        # the output file itself too when it exists (never created or truncated here): a
        # hard link to it, or a path naming one of the lock files above, is the same inode
        _take(real, Path(out_path), resumable, own_file=True)
        taken.append(real)
        yield paths[0]
    finally:
        for path in reversed(taken):
            _release(path, unlink=path != real)


def _take(path: Path, output: Path, resumable: bool, own_file: bool = False) -> None:
    with _guard:
        entry = _held.get(path)
        if entry is not None:
            entry[1] += 1
            return
        try:
            _held[path] = [_acquire_output(path, output, resumable) if own_file else
                           _acquire(path, output, resumable), 1]
        except OutputBusyError:
            raise
        except OSError as exc:
            if own_file:
                raise InputError(f"{output}: cannot open the output for writing ({exc.strerror or exc}); choose "
                                 "another -o") from None
            if exc.errno in (errno.ENOSPC, errno.EDQUOT):
                raise InputError(f"{output}: cannot write the lock file {path} next to the output "
                                 f"({exc.strerror}); free space and run the same command again") from None
            raise InputError(f"{output}: cannot create the lock file {path} next to the output "
                             f"({exc.strerror or exc}); remove what is in its way or choose an -o in a folder "
                             "this user can write") from None


def _acquire_output(path: Path, output: Path, resumable: bool) -> int:
    # an existing output only (nothing is created before the run has checked its input):
    # a file that does not exist yet has no other name to be reached by; -1 when missing
    try:
        fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
    except FileNotFoundError:
        return -1
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise OutputBusyError(output, None, resumable) from None
    except BaseException:
        os.close(fd)
        raise
    return fd


def _release(path: Path, unlink: bool = True) -> None:
    with _guard:
        entry = _held.get(path)
        if entry is not None:
            entry[1] -= 1
            if entry[1] == 0:
                del _held[path]
                if unlink:
                    try:
                        os.unlink(path)  # still locked: a run waiting to lock it retries on the new file
                    except OSError:
                        pass
                if entry[0] >= 0:
                    os.close(entry[0])
