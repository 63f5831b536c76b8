"""The long-lived worker process (:class:`Zygote`) and its entry point :func:`main`.  Standard
library only (see ``codemorph/sandbox/_worker.py``).
"""

import fcntl
import gc
import mmap
import os
import resource
import select
import shutil
import signal
import sys

from .child import child_main, precompile_args, prepare_guard, process_snapshot
from .common import F_SETPIPE_SZ, HDR, IDX, IDX2, MARK, SELF_KILLED, MAX_MSG, POLL, POLL_MAX, REEXEC_FLAG, STACK_WANTED, mono
from .execution import STATE, timeout_of
from .protocol import encode_msg, read_msg, write_all
from ..guard import installation_dirs

_R, _X, _S, _E = b"RXSE"  # the kinds of the child's frames (child._frame), as ints

#: bytes read from a child's pipe in one look after which the next look comes after POLL
#: seconds again (the pipe holds 1 MiB, or 64 KiB where it cannot be enlarged)
POLL_BYTES = 16 << 10

#: name of the batch's work directory in the zygote's directory
WORKDIR_NAME = "work"

#: the script the host starts (``python -s _worker.py``), re-executed by :func:`_maybe_raise_stack_limit`
WORKER_SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "_worker.py")


class Zygote:
    """The long-lived worker: reads batches, forks children, relays outcomes."""

    def __init__(self):
        # keep the protocol pipes on private fds; fds 0/1 become /dev/null so that nothing
        # but protocol messages can reach the host
        self.inp = os.dup(0)
        self.out = os.dup(1)
        devnull = os.open(os.devnull, os.O_RDWR)
        os.dup2(devnull, 0)
        os.dup2(devnull, 1)
        os.close(devnull)
        self.pid = os.getpid()
        #: the host process that started this zygote: when it ends (even by SIGKILL) the
        #: zygote is handed to another parent, which :meth:`watch` notices (see
        #: :meth:`end_if_orphaned`); an idle zygote ends when its stdin reaches end of file
        self.host = os.getppid()
        self.root = os.getcwd()
        #: every batch's work directory: made afresh (empty) for the batch, removed after
        #: it; its path is the same for every batch, so what depends on it only (``TMPDIR``,
        #: the guard's directories, a child's snapshot of the process state) is prepared
        #: once here, not in every child (:meth:`prepare_children`)
        self.workdir = os.path.join(self.root, WORKDIR_NAME)
        #: the child's progress counter (shared memory, :data:`MARK`), zeroed before every fork
        self.mark = mmap.mmap(-1, MARK.size)

    def prepare_children(self):
        """What every child would otherwise compute for itself: ``TMPDIR`` (the work
        directory: ``tempfile`` works, inside the allowed directory), the snapshot of the
        process state a child restores (:func:`~.child.process_snapshot`) and the guard
        (:func:`~.child.prepare_guard`).  Called once, before ``gc.freeze()``."""
        os.environ["TMPDIR"] = self.workdir
        installation_dirs()  # resolved once here, not in every child (install_guard)
        process_snapshot()  # taken once here, not in every child
        os.mkdir(self.workdir, 0o700)
        os.chdir(self.workdir)  # where a child makes the guard (relative directories)
        try:
            prepare_guard(self.workdir, self.pid)
        finally:
            os.chdir(self.root)
            os.rmdir(self.workdir)

    def send(self, obj):
        write_all(self.out, encode_msg(obj))

    def serve(self):
        self.send({"t": "ready", "pid": self.pid, "hash_seed": os.environ.get("PYTHONHASHSEED")})
        while True:
            msg = read_msg(self.inp)
            if msg is None:
                return
            if msg.get("op") == "batch":
                self.batch(msg)
            elif msg.get("op") == "ping":
                self.send({"t": "pong"})

    def batch(self, msg):
        bid = msg["b"]
        reqs = msg["requests"]
        for r in reqs:  # a source text repeated in the batch is sent once (see sandbox._wire_requests)
            k = r.pop("code_ref", None)
            if k is not None:
                r["code"] = reqs[k].get("code", "") if isinstance(k, int) and 0 <= k < len(reqs) else ""
        limits = msg["limits"]
        if precompile_args(reqs):
            gc.freeze()  # the new code objects' constants: never collected in a child either
        # a fresh working directory per batch: files one program writes are not seen by
        # another batch
        workdir = self.workdir
        try:
            os.mkdir(workdir, 0o700)
        except FileExistsError:
            # what an earlier batch left and could not remove: moved aside, never used again
            os.rename(workdir, os.path.join(self.root, f"left{bid}"))
            os.mkdir(workdir, 0o700)
        os.chdir(workdir)
        try:
            i = 0
            while i < len(reqs):
                i = self.fork_and_watch(bid, reqs, i, limits)
        finally:
            os.chdir(self.root)
            try:
                os.rmdir(workdir)  # most batches leave it empty
            except OSError:
                shutil.rmtree(workdir, ignore_errors=True)
        # the largest peak resident set size (KiB) of the children it reaped so far, which ran
        # the programs (ru_maxrss of RUSAGE_CHILDREN is their maximum; the zygote's own would
        # include the host process it was forked from before exec): the host reports it
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        # what encode_msg makes of {"t": "done", "b": bid, "rss": rss} (both ints), without
        # a JSON encoder made per call
        data = b'{"t":"done","b":%d,"rss":%d}' % (bid, rss)
        write_all(self.out, HDR.pack(len(data)) + data)

    def report(self, bid, i, outcome):
        self.send({"t": "result", "b": bid, "i": i, "o": outcome})

    def fork_and_watch(self, bid, reqs, start, limits):
        rfd, wfd = os.pipe()
        ack_r, ack_w = os.pipe()
        try:  # room for many outcomes: the child rarely waits for the zygote's next look
            fcntl.fcntl(wfd, F_SETPIPE_SZ, 1 << 20)
        except (OSError, AttributeError):
            pass
        mark = self.mark  # shared with the child: its progress counter (the last child is dead)
        MARK.pack_into(mark, 0, 0, 0)
        snapshot = process_snapshot()
        pid = os.fork()
        if pid == 0:
            child_main(reqs, start, limits, wfd, ack_r, (self.inp, self.out, rfd, ack_w), self.pid, mark, snapshot,
                       self.workdir, bid)
        os.close(wfd)
        os.close(ack_r)
        try:
            os.setpgid(pid, pid)
        except OSError:
            pass
        try:
            pidfd = os.pidfd_open(pid)
        except (AttributeError, OSError):
            pidfd = None
        os.set_blocking(rfd, False)
        started = mono()
        if pidfd is not None:
            # a page the zygote writes while the child lives is copied (copy-on-write) where
            # it would just be made writable again once the child is gone: the zygote sleeps
            # until the child exits or POLL passes before it sets up the watch (a batch of a
            # few short requests is over by then)
            select.select([pidfd], [], [], POLL)
        try:
            return self.watch(pid, pidfd, rfd, ack_w, bid, reqs, start, limits, mark, started)
        finally:
            os.close(rfd)
            os.close(ack_w)
            if pidfd is not None:
                os.close(pidfd)

    def kill(self, pid):
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass

    def reap(self, pid):
        try:
            _, status = os.waitpid(pid, 0)
            return status
        except ChildProcessError:
            return None

    def end_if_orphaned(self, pid):
        """End the zygote (and the child ``pid`` running a program) when its host process
        has ended: a host killed by ``SIGKILL`` cannot close its sandbox, and its pipe
        closing is seen only between batches, while a child may run up to its time limit.
        ``PR_SET_PDEATHSIG`` is no help here: it follows the host *thread* that started the
        zygote (a thread of a pool that ends long before the host), so the zygote checks its
        parent instead, at each of :meth:`watch`'s looks (every ``POLL_MAX`` s at most)."""
        if os.getppid() == self.host:
            return
        self.kill(pid)
        self.reap(pid)
        os.chdir("/")
        shutil.rmtree(self.root, ignore_errors=True)  # no host is left to remove it
        os._exit(0)

    def watch(self, pid, pidfd, rfd, ack_w, bid, reqs, i, limits, mark, started=None):
        """Relay the child's outcomes to the host until the batch is done or the child dies
        or stalls; returns the index of the first request still to run.

        Neither side is woken per request: the zygote sleeps until the child exits (its
        pidfd becomes readable) or ``_POLL`` seconds pass, then forwards every outcome waiting
        in the pipe to the host in one write.  The child counts its progress (a new request,
        the next post-processing step) in ``mark`` (shared memory), read when a deadline
        passes: a child that made no progress for ``timeout + grace`` seconds is killed.
        Without pidfds (old kernels) the zygote wakes on every outcome instead.  ``started``:
        the ``mono()`` time the child was forked (default: now)."""
        def budget_of(j):
            return timeout_of(reqs[j] if j < len(reqs) else {}, limits) + limits["grace"]

        if started is None:
            started = mono()
        st = {"i": i, "started": started, "end": False, "restart": False, "bad": False, "synced": False, "read": 0}
        # the interval between looks at a running child: doubled after a look that found
        # neither a sync nor much output, back to POLL otherwise (a long batch of short
        # requests wakes the zygote a few times, not every POLL seconds)
        poll = POLL
        budget = budget_of(i)
        deadline = started + budget
        last_mark = MARK.unpack_from(mark, 0)
        buf = bytearray()

        def handle(data):
            """Process complete frames in ``buf``; sets st["bad"] when the channel is corrupt.
            Frames are read at an offset and the consumed bytes removed once (a removal per
            frame would move the rest of a large read for every outcome in it).  A result
            frame is already in the host's form (``child._result_frame``): once its batch id
            and index are checked, each run of them is forwarded as it is, in one write."""
            buf.extend(data)
            first = None  # where the run of result frames to forward starts
            pos, size = 0, len(buf)
            while size - pos >= 4 and not st["bad"]:
                (n,) = HDR.unpack_from(buf, pos)
                if n > MAX_MSG or n < 1:
                    st["bad"] = True
                    break
                if size - pos < 4 + n:
                    break
                kind = buf[pos + 4]
                if kind == _R:
                    if n < 9 or IDX2.unpack_from(buf, pos + 5) != (bid, st["i"]):
                        st["bad"] = True
                        break
                    if first is None:
                        first = pos
                    st["i"] += 1
                    st["started"] = mono()
                else:
                    if first is not None:
                        write_all(self.out, buf[first:pos])
                        first = None
                    if kind == _X:
                        (j,) = IDX.unpack_from(buf, pos + 5) if n >= 5 else (-1,)
                        if j != st["i"]:
                            st["bad"] = True
                            break
                        st["restart"] = True
                    elif kind == _S:
                        st["synced"] = True
                        try:
                            os.write(ack_w, b"k")
                        except OSError:
                            pass
                    elif kind == _E and st["i"] >= len(reqs):
                        st["end"] = True
                    else:
                        st["bad"] = True
                        break
                pos += 4 + n
            if first is not None:
                write_all(self.out, buf[first:pos])
            if pos:
                del buf[:pos]

        def drain(wait=0.0):
            """Read what the child wrote (until EOF when ``wait`` > 0: it is dead)."""
            end = mono() + wait
            while True:
                try:
                    chunk = os.read(rfd, 1 << 20)
                except BlockingIOError:
                    left = end - mono()
                    if left <= 0:
                        return
                    select.select([rfd], [], [], left)
                    continue
                if not chunk:
                    return
                st["read"] += len(chunk)
                handle(chunk)
                if st["bad"]:
                    return

        waitables = [pidfd] if pidfd is not None else [rfd]
        while True:
            self.end_if_orphaned(pid)
            now = mono()
            if now >= deadline:
                drain()
                now_mark = MARK.unpack_from(mark, 0)
                if st["bad"]:
                    return self.corrupt(pid, bid, st["i"], st["started"])
                if now_mark != last_mark or st["end"] or st["restart"]:
                    last_mark = now_mark  # it moved on since: a new step gets a new budget
                    budget = budget_of(st["i"])
                    deadline = mono() + budget
                    continue
                self.kill(pid)
                self.reap(pid)
                hung = st["i"]
                drain(0.5)
                if st["i"] != hung or hung >= len(reqs):  # it had finished after all
                    return st["i"]
                what = "post-processing the result" if now_mark[1] == 1 else "running the program"
                self.report(bid, hung, {"status": "timeout", "duration": mono() - st["started"],
                                        "note": f"no response for {budget:.3g}s while {what}; process killed"})
                return hung + 1
            ready, _, _ = select.select(waitables, [], [], min(deadline - now, poll))
            before = st["i"]
            st["synced"] = False
            st["read"] = 0
            exited = pidfd is not None and bool(ready)
            if exited:
                self.kill(pid)  # leftovers the program may have forked (before reaping: the pid stays ours)
                status = self.reap(pid)
                drain(2.0)
            else:
                drain()
                if pidfd is None and ready and not st["bad"]:
                    # no pidfd: a readable pipe with nothing in it is EOF (the child died)
                    try:
                        chunk = os.read(rfd, 1 << 16)
                    except BlockingIOError:
                        chunk = None
                    if chunk == b"":
                        exited = True
                        self.kill(pid)
                        status = self.reap(pid)
                    elif chunk:
                        handle(chunk)
            if st["bad"]:
                return self.corrupt(pid, bid, st["i"], st["started"])
            if st["end"] or st["restart"]:
                # restart: the program changed the interpreter (e.g. monkeypatched a module),
                # the rest of the batch runs in a fresh child
                if not exited:
                    self.kill(pid)
                    self.reap(pid)
                return st["i"]
            if exited:
                if st["i"] >= len(reqs):
                    return st["i"]
                self.report(bid, st["i"], self.death_outcome(status, mono() - st["started"]))
                return st["i"] + 1
            if st["i"] != before:
                budget = budget_of(st["i"])
                deadline = mono() + budget
                last_mark = MARK.unpack_from(mark, 0)
            poll = POLL if st["synced"] or st["read"] >= POLL_BYTES else min(2 * poll, POLL_MAX)

    def corrupt(self, pid, bid, i, started):
        self.kill(pid)
        self.reap(pid)
        self.report(bid, i, {"status": "crashed", "duration": mono() - started,
                             "note": "the program corrupted the result channel"})
        return i + 1

    def death_outcome(self, status, duration):
        out = {"status": "crashed", "duration": duration}
        if status is None:
            out["note"] = "process vanished"
        elif os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            try:
                name = signal.Signals(sig).name
            except ValueError:
                name = str(sig)
            if sig == signal.SIGKILL and MARK.unpack_from(self.mark, 0)[1] == SELF_KILLED:
                out["note"] = "killed by SIGKILL, which the program sent itself (os.kill)"
            elif sig == signal.SIGKILL:
                # the memory limit (RLIMIT_AS) raises MemoryError; a SIGKILL nobody marked is the
                # out-of-memory killer's, or the program's by a way the guard does not see
                # (signal.raise_signal)
                out["status"] = "memory"
                out["note"] = "killed (SIGKILL: memory limit or the program itself)"
            else:
                out["note"] = f"killed by signal {name}"
        elif os.WIFEXITED(status):
            out["note"] = f"process exited with code {os.WEXITSTATUS(status)} before finishing"
        return out


def _post_recursion_limit():
    """Recursion limit while fingerprinting results: deep when the C stack is large."""
    try:
        soft = resource.getrlimit(resource.RLIMIT_STACK)[0]
    except (ValueError, OSError):
        return 10000
    return 150000 if soft == resource.RLIM_INFINITY or soft >= 256 * 1024 * 1024 else 10000



def _maybe_raise_stack_limit():
    """Re-exec once with a larger C stack, so deep recursion raises RecursionError
    instead of overflowing the C stack (the stack size is fixed at exec time)."""
    if os.environ.pop(REEXEC_FLAG, None):
        return
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
    except (ValueError, OSError):
        return
    inf = resource.RLIM_INFINITY
    if soft == inf or soft >= STACK_WANTED:
        return
    want = STACK_WANTED if hard == inf else min(STACK_WANTED, hard)
    if want <= soft:
        return
    try:
        resource.setrlimit(resource.RLIMIT_STACK, (want, hard))
    except (ValueError, OSError):
        return
    os.environ[REEXEC_FLAG] = "1"
    sys.stdout.flush()
    os.execv(sys.executable, [sys.executable] + [a for a in sys.orig_argv[1:]] if hasattr(sys, "orig_argv")
             else [sys.executable, "-s", WORKER_SCRIPT])


def _release_free_memory():
    """Give the C heap's free pages back to the system (glibc's ``malloc_trim``; nothing
    elsewhere): after the imports about 2 MiB of the zygote's 10 MiB of private memory are
    free, and every fork copies the page-table entries of what is mapped (and every child's
    exit removes them): a bare fork and exit cost 13% less in the zygote, 9% less in the
    child."""
    try:
        import ctypes
        ctypes.CDLL(None).malloc_trim(0)
    except Exception:  # pragma: no cover - no ctypes, or a C library without malloc_trim
        pass


def main():
    _maybe_raise_stack_limit()
    STATE.post_recursion_limit = _post_recursion_limit()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the host stops workers by SIGKILL
    zygote = Zygote()
    zygote.prepare_children()
    _release_free_memory()
    # the zygote's own objects are never collected in a forked child: the child's garbage
    # collections skip them and do not copy their pages (fewer copy-on-write faults)
    gc.freeze()
    zygote.serve()
