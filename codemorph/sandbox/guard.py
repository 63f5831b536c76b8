"""The sandbox's guard: what a program under test may not do, as a :pep:`578` audit hook.

Standard library only and free of codemorph imports, so that both the sandbox's worker
(``codemorph/sandbox/_worker.py``, which installs :func:`install_guard` in every forked child)
and the CrossHair search process (:mod:`codemorph.verification.crosshair`, which applies
the same event lists with its own hook) share one definition:

* :data:`REFUSED_EVENTS` / :data:`REFUSED_PREFIXES`: audit events refused outright
  (processes, threads, signals to others, resource limits, ctypes, network);
* :data:`PATH_EVENTS`: events whose path arguments must stay inside the work directory;
* :func:`opens_for_writing`: whether an ``open`` event writes, creates, truncates or appends;
* :func:`sqlite_paths`: the files a ``sqlite3.connect`` event may open (the ``sqlite3``
  module opens its database files itself, without an ``open`` event).

A program may create, read and write files inside its work directory (a fresh, empty
directory per run): what it reads there it wrote itself in the same run, so its outcome
stays the same on every run.  It may read no file outside it (a file that existed before
the run is the machine's, not the program's); only the interpreter's own machinery (the
import system, ``linecache``) reads files of the installation.
"""

import _thread
import os
import sys

__all__ = ["REFUSED_EVENTS", "REFUSED_PREFIXES", "PATH_EVENTS", "WRITE_FLAGS", "MAX_WRITTEN_FILES", "REFUSED_WHAT", "AF_UNIX",
           "STANDARD_FDS", "opens_for_writing", "sqlite_paths", "is_program_code", "refused_what", "install_guard", "prepared_guard"]

#: audit events refused in the child outright (processes, threads, signals to others,
#: resource limits, foreign code)
REFUSED_EVENTS = frozenset({
    "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty", "os.startfile",
    "subprocess.Popen", "pty.spawn", "_thread.start_new_thread", "os.killpg", "signal.pthread_kill",
    "resource.setrlimit", "resource.prlimit", "ctypes.dlopen", "ctypes.dlsym", "ctypes.call_function",
    "ctypes.cdata", "ctypes.dlsym/handle", "os.setuid", "os.setgid", "sys.remote_exec", "webbrowser.open",
    "ftplib.connect", "smtplib.connect", "poplib.connect", "imaplib.open", "nntplib.connect",
    "telnetlib.Telnet.open", "http.client.connect", "urllib.Request",
    "sqlite3.enable_load_extension", "sqlite3.load_extension",
})
#: event prefixes refused outright: no socket can be created, resolved or connected
REFUSED_PREFIXES = ("socket.", "ssl.")
#: events whose listed argument positions are paths that must stay inside the work directory
PATH_EVENTS = {
    "os.remove": (0,), "os.rmdir": (0,), "os.rename": (0, 1), "os.truncate": (0,), "os.chmod": (0,),
    "os.chown": (0,), "os.mkdir": (0,), "os.symlink": (1,), "os.link": (0, 1), "os.utime": (0,),
    "os.chflags": (0,), "os.lchflags": (0,), "os.lchmod": (0,), "os.setxattr": (0,),
    "os.removexattr": (0,), "shutil.rmtree": (0,), "shutil.move": (0, 1), "shutil.copyfile": (1,),
    "shutil.copymode": (1,), "shutil.copystat": (1,), "shutil.copytree": (1,), "shutil.chown": (0,),
}
#: distinct files a request may create or write inside the work directory: with the file-size
#: limit (``RLIMIT_FSIZE``, the output limit + 4 KiB) it bounds the disk one request can fill
MAX_WRITTEN_FILES = 64
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
#: the standard streams' file descriptors: the sandbox holds its own there (``/dev/null``
#: as standard input, its capture file as output), so ``open(0)`` would not read what a plain
#: ``python main.py < input`` reads
STANDARD_FDS = (0, 1, 2)


def opens_for_writing(args):
    """Whether the arguments ``(path, mode, flags)`` of an ``open`` audit event (a tuple;
    ``mode`` a str or ``None``, ``flags`` an int of ``os.O_*`` bits) write, create, truncate or
    append (used by the sandbox's guard and by the CrossHair search process's)."""
    flags = args[2] if len(args) > 2 else 0
    mode = args[1] if len(args) > 1 else None
    return bool((isinstance(flags, int) and flags & WRITE_FLAGS)
                or (isinstance(mode, str) and any(c in mode for c in "wax+")))


def sqlite_paths(database):
    """The file paths a ``sqlite3.connect(database)`` may open (``database``: the str, bytes
    or path-like argument of the ``sqlite3.connect`` audit event, which does not say whether
    ``uri=True`` was passed): the argument as a path, and for a ``file:`` text also the path
    a URI names (``file:///tmp/x.db?mode=ro`` -> ``/tmp/x.db``).  ``[]`` for an in-memory
    database (``":memory:"``, the empty name).  Every path returned must be inside the
    work directory."""
    try:
        name = os.fspath(database)
    except TypeError:
        return [database]
    if isinstance(name, bytes):
        name = name.decode("utf-8", "surrogateescape")
    if name in ("", ":memory:"):
        return []
    paths = [name]
    if name.startswith("file:"):
        rest = name[len("file:"):].split("?", 1)[0].split("#", 1)[0]
        if rest.startswith("//"):  # file://host/path: the authority (empty or localhost) dropped
            slash = rest.find("/", 2)
            rest = rest[slash:] if slash >= 0 else ""
        if rest not in ("", ":memory:"):
            paths.append(rest)
    return paths


def is_program_code(filename):
    """Whether a code object's ``co_filename`` (a str) is code compiled from text -- the
    program under test (``<program>``), its input, or code it passed to ``exec`` -- rather
    than a module of the installation or the interpreter's frozen import system
    (``<frozen importlib._bootstrap_external>``)."""
    return filename.startswith("<") and not filename.startswith("<frozen ")


def refused_what(event):
    """What a refused event (a name of :data:`REFUSED_EVENTS`, a str) asked for, in a few
    words (``"starting a process"``, ``"network access"``...)."""
    if event == "_thread.start_new_thread":
        return "starting a thread"
    if event.startswith(("os.", "subprocess.", "pty.")) and event not in ("os.killpg", "os.setuid", "os.setgid"):
        return "starting a process"
    if event in ("os.killpg", "signal.pthread_kill"):
        return "signalling another process"
    if event.startswith("resource."):
        return "changing resource limits"
    if event.startswith("ctypes."):
        return "loading or calling native code with ctypes"
    if event in ("os.setuid", "os.setgid"):
        return "changing the user or group"
    if event == "sys.remote_exec":
        return "running code in another process"
    return "network access"


REFUSED_WHAT = {e: refused_what(e) for e in REFUSED_EVENTS}


AF_UNIX = 1  # socket.AF_UNIX on Linux and macOS (the worker does not import socket)
SIGKILL = 9  # signal.SIGKILL on Linux and macOS


#: absolute directories -> their real paths (:func:`installation_dirs`)
_REAL_DIRS = {}


def installation_dirs():
    """The real paths of the directories the import system and the interpreter's own modules
    read (``sys.path``, the interpreter's prefixes, this module's directory), a list of str.
    The real path of an absolute directory is computed once per process and remembered
    (the worker's zygote asks before it forks, so its children do not resolve them again:
    about 0.2 ms per child); a relative one, which depends on the current directory, every time."""
    out = []
    for d in [*sys.path, sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
              os.path.dirname(os.path.abspath(__file__))]:
        if isinstance(d, str) and d:
            if os.path.isabs(d):
                real = _REAL_DIRS.get(d)
                if real is None:
                    real = _REAL_DIRS[d] = os.path.realpath(d)
            else:
                real = os.path.realpath(d)
            out.append(real)
    return out


def install_guard(workdir, state, before_zygote_signal=None):
    """Install the guard in this process: ``prepared_guard(workdir, state,
    before_zygote_signal)()`` (see :func:`prepared_guard`, which says what it refuses)."""
    prepared_guard(workdir, state, before_zygote_signal)()


def prepared_guard(workdir, state, before_zygote_signal=None, zygote=None, before_self_kill=None):
    """A function of no arguments that installs the guard in the process that calls it
    (everything else is prepared here: the sandbox's zygote makes it once and every forked
    child calls it; ``zygote`` is the pid of the process whose signals are allowed, by
    default the parent of the process that calls this).  The guard refuses, with
    ``PermissionError``, what a benchmark program has no business doing: starting processes or threads, signalling processes other than itself and its zygote, raising its resource limits,
    loading foreign code with ctypes, any socket (so no connection and no DNS lookup), and
    writing, creating, deleting or renaming files outside ``workdir`` (the batch's temporary
    directory, reading any file outside ``workdir`` (``open`` from the program's code, any
    ``sqlite3.connect`` outside it; the import system and the interpreter's own modules may
    still read the installation's files: the directories on ``sys.path`` when the guard is
    installed, the interpreter's prefixes and this module's directory), opening the standard
    streams by file descriptor (:data:`STANDARD_FDS`) or the descriptors in
    ``state.protocol_fds`` (a set of ints, read at every such open: the sandbox's child puts its
    result pipe, acknowledgement pipe, output capture and directory descriptors there), and
    loading SQLite extensions.
    Implemented with a :pep:`578` audit hook (``sys.addaudithook``), installed
    in the forked child only (a hook cannot be removed, so it ends with the child).

    Inside ``workdir`` a request may create or write at most :data:`MAX_WRITTEN_FILES`
    distinct files (each capped by the file-size limit), so a program cannot fill the disk.

    Every refusal is counted in ``state`` (an object with attributes ``refused``, an int,
    ``refused_what``, a str or ``None``, and ``written_files``, the set of files the request
    wrote; the worker passes its per-request state and resets it before each request): the request's outcome becomes ``"refused"``, never a
    ``PermissionError`` raised by the program, since a plain interpreter would have let the
    call through.

    ``before_zygote_signal()`` is called before a signal to the zygote is allowed (the
    child uses it to make sure every outcome it sent has reached the host first).
    ``before_self_kill()`` is called before the program sends ``SIGKILL`` to itself or its
    process group (``os.kill(os.getpid(), 9)``; the child marks it, so that its death is not
    taken for the out-of-memory killer's)."""
    realpath, join, getcwd, getpid, fspath = os.path.realpath, os.path.join, os.getcwd, os.getpid, os.fspath
    getframe, program_code, db_paths = sys._getframe, is_program_code, sqlite_paths
    if zygote is None:
        zygote = os.getppid()
    root = realpath(workdir)
    prefix = root + os.sep
    refused, refused_prefixes, path_events = REFUSED_EVENTS, REFUSED_PREFIXES, PATH_EVENTS
    what_of, writes, std_fds = REFUSED_WHAT, opens_for_writing, STANDARD_FDS
    max_files = MAX_WRITTEN_FILES
    # what the import system and the interpreter's modules read: the installation
    installed = set()
    for d in installation_dirs():
        if d != os.sep and d != root and not root.startswith(d + os.sep):
            installed.add(d + os.sep)
    installed = tuple(sorted(installed))

    def resolved(p):
        """The real absolute path of ``p`` (a str), or ``None`` when it has none."""
        try:
            p = fspath(p)
            if isinstance(p, bytes):
                p = p.decode("utf-8", "surrogateescape")
            return realpath(join(getcwd(), p))
        except BaseException:
            return None

    def inside(p):
        if isinstance(p, int):  # an fd the process already holds
            return True
        full = resolved(p)
        if full is None:
            return False
        return full == root or full.startswith(prefix) or full == "/dev/null"

    def may_read(p):
        """A read outside the work directory: only the interpreter's own, of the installation."""
        full = resolved(p)
        if full is None or not full.startswith(installed):
            return False
        try:
            frame = getframe(2)  # the code that called open (0: this function, 1: the hook)
        except ValueError:  # no Python caller
            return True
        return not program_code(frame.f_code.co_filename)

    def deny(event, what):
        # counted per request: the outcome of a request with a refusal is "refused", whatever
        # the program did with the PermissionError (the worker's child turns it into "refused")
        state.refused += 1
        if state.refused_what is None:
            state.refused_what = f"{what} ({event})"
        raise PermissionError(f"codemorph sandbox: {what} is not allowed ({event})")

    def hook(event, args):
        if event in refused:
            deny(event, what_of[event])
        if event == "open":
            path = args[0] if args else None
            if isinstance(path, int) and path in std_fds:
                deny(event, f"opening the standard stream of file descriptor {path}")
            elif isinstance(path, int) and path in getattr(state, "protocol_fds", ()):
                # the sandbox's own descriptors (its result pipe above all: frames written
                # there would be taken for the outcomes of this and the next requests)
                deny(event, f"opening the sandbox's own file descriptor {path}")
            elif inside(path):
                if writes(args) and not isinstance(path, int):
                    full = resolved(path)
                    files = state.written_files
                    if full not in files and full != "/dev/null":
                        if len(files) >= max_files:
                            deny(event, f"writing more than {max_files} files in the sandbox's temporary directory")
                        files.add(full)
            elif writes(args):
                deny(event, f"writing {path!r} outside the sandbox's temporary directory")
            elif not may_read(path):
                deny(event, f"reading {path!r} outside the sandbox's temporary directory")
        elif event == "sqlite3.connect":
            for p in db_paths(args[0] if args else None):
                if not inside(p):
                    deny(event, f"opening the database {p!r} outside the sandbox's temporary directory")
        elif event in path_events:
            for pos in path_events[event]:
                if pos < len(args) and not inside(args[pos]):
                    deny(event, f"changing {args[pos]!r} outside the sandbox's temporary directory")
        elif event == "os.kill":
            # itself, its process group, or its zygote (which the host replaces if it dies)
            if args and args[0] not in (0, getpid(), zygote):
                deny(event, "signalling another process")
            if args and args[0] == zygote and before_zygote_signal is not None:
                before_zygote_signal()
            if len(args) > 1 and args[0] in (0, getpid()) and args[1] == SIGKILL and before_self_kill is not None:
                before_self_kill()
        elif event.startswith(refused_prefixes):
            # a local socket pair (AF_UNIX, no address: asyncio's self-pipe) is no network
            # access; connecting or binding any socket still is refused
            if event == "socket.__new__" and len(args) > 1 and args[1] == AF_UNIX:
                return
            deny(event, "network access")

    # CPython 3.11 raises no audit event when a thread starts: the entry points are replaced
    # (``threading`` keeps its own reference, bound when it was imported)
    def no_threads(*args, **kwargs):
        deny("_thread.start_new_thread", "starting a thread")

    def install():
        sys.addaudithook(hook)
        modules = sys.modules
        for mod, attr in ((_thread, "start_new_thread"), (_thread, "start_new"), (_thread, "start_joinable_thread"),
                          (modules.get("threading"), "_start_new_thread"),
                          (modules.get("threading"), "_start_joinable_thread")):
            if mod is not None and hasattr(mod, attr):
                setattr(mod, attr, no_threads)

    return install
