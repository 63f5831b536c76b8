"""Worker ("zygote") process of :mod:`codemorph.sandbox`.  Imports the standard library only
(coverage.py's compiled tracer is loaded from its file when installed: ``_workerlib/tracer.py``).

This file is started once per worker by the host, as ``python -s _worker.py`` with a scrubbed
environment (``PYTHONHASHSEED`` set) and a fresh temporary directory as working directory.
It never imports codemorph or libcst, so it starts in a few tens of milliseconds.

Protocol (host <-> zygote, over the zygote's stdin/stdout): every message is a 4-byte
big-endian length followed by that many bytes: UTF-8 JSON, or (an outcome relayed from a
child) ``b"R"``, the 4-byte batch id, the 4-byte request index and the outcome's JSON.

* host -> zygote: ``{"op": "batch", "b": <batch id>, "limits": {...}, "requests": [...]}``
  where each request is ``{"code", "entry_point", "args", "expected_output", "trace"}`` (plus
  optional ``"timeout"``, ``"cpu_timeout"``, ``"max_lines"``, ``"types": false`` for a trace
  of lines and arcs only and ``"python_tracer": true`` to trace them in Python); a request whose source text already appeared
  in the batch has ``"code_ref": <index of that request>`` instead of ``"code"``.
* zygote -> host: ``{"t": "ready", "pid": ...}`` once at start; then for each batch one
  outcome per request (relayed ``R`` messages, or ``{"t": "result", "b": id, "i": index,
  "o": outcome}`` for outcomes the zygote makes itself: timeouts, crashes), in request
  order, and ``{"t": "done", "b": id}``.

For each batch the zygote ``fork()``\\ s one child that runs the requests one by one and
writes each outcome to a pipe (a length-prefixed frame already in the host's ``R`` form,
:func:`_result_frame`, which the zygote checks and forwards as it is) without waiting
for anybody.  The child sets ``RLIMIT_AS``, ``RLIMIT_CORE=0``, ``RLIMIT_FSIZE``, a
per-execution ``setitimer`` timeout (wall clock, and optionally CPU time) and redirects fds
0/1/2, so that the program cannot touch the protocol pipes.  The zygote is not woken per
request: it sleeps until the child exits (pidfd) or ``_POLL`` seconds pass (an interval that
doubles up to ``POLL_MAX`` while the child neither syncs nor writes much), forwards every
outcome waiting in the pipe in one write, and checks the child's progress counter (shared
memory) when a deadline passes: a child that made no progress for ``timeout + grace``
seconds (running a program, or post-processing its result) is SIGKILLed (with its whole
process group) and a new child is forked for the rest of the batch; when it dies, the
request it was running is reported as crashed (or memory) and the rest go to a new child.
Outcomes written before a child dies stay in the pipe and are relayed; before a program
may signal the zygote, the child waits until the zygote has relayed them all (a sync
message), so no completed outcome is lost.

The sandbox isolates *faults* (hangs, crashes, exits, memory blow-ups, monkeypatching)
between executions.  The child also refuses, through an audit hook (:func:`_install_guard`)
and ``RLIMIT_NPROC=0``, processes, threads, sockets, ctypes, file changes outside its
directory and signals to other processes; an execution in which it refused anything has
status ``"refused"`` (:func:`_refused_outcome`).  Between the requests of a batch the child
restores the process state a program may change (builtins, ``sys`` hooks, files in the work
directory, ``os.environ``, umask, gc, warnings, ...: :meth:`_Child.restore_process_state`);
a child whose program changed loaded modules, left threads running or changed state it
cannot restore is replaced before the next request (an ``X`` frame).
This is not a boundary against code written to defeat this file in particular.

The code lives in modules by concern, in the private package ``_workerlib`` next to this file:
``common`` (constants), ``protocol`` (the wire format), ``fingerprint`` (value fingerprints),
``execution`` (per-request state, limits, output capture, outcome helpers), ``tracer`` (the
tracers: coverage.py's C tracer for lines and arcs, the ``sys.settrace`` tracer for types of
locals, line budgets and line counts), ``child`` (the
forked child) and ``zygote`` (the long-lived process and :func:`main`); the guard is the
public :mod:`codemorph.sandbox.guard`.  Started as a script, this file removes its own
directory from ``sys.path`` and loads that directory as a package under a random name
(``_codemorph_sandbox_<16 hex digits>``) without running ``codemorph/sandbox/__init__.py``:
a program's ``import protocol``, ``import tracer`` or ``import guard`` finds the standard
library or nothing, never these modules.  Their classes and functions are renamed back to
the names and module (``__main__``) they had when this file held them all, so what a program
can see of them (``type(sys.stdout)``) did not change.
"""

import sys
import os

# ``python _worker.py`` puts this file's directory (codemorph/sandbox) first on sys.path; a
# program's ``import pool`` or ``import guard`` must not find codemorph's modules.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if p and os.path.abspath(p) != _HERE]

#: callables of ``_workerlib`` whose name had a leading underscore when this file held them
_RENAMED = ("Capture", "OutputLimit", "Timeout", "Tracer", "arm", "arm_cpu", "child_main", "cpu_timeout_of",
            "disarm", "disarm_cpu", "environment_outcome", "environment_repr", "environment_shown", "exc_glob",
            "may_catch_memory", "memory_outcome", "exc_local", "observes_lifetimes", "read_exact", "timeout_of",
            "install_guard", "opens_for_writing", "refused_what", "patches_loaded_objects")
_RENAMED_SPECIAL = {"exception_info": "_exc_info", "stop_out_of_lines": "_out_of_lines", "pack_arguments": "_pack"}


def _load_as_script():
    """Import the worker's modules under an unguessable package name and return the zygote
    module; their callables get back the ``__main__`` names they had in one file."""
    import importlib
    import types

    package = "_codemorph_sandbox_" + os.urandom(8).hex()
    root = types.ModuleType(package)
    root.__path__ = [_HERE]
    root.__package__ = package
    sys.modules[package] = root
    zygote = importlib.import_module(package + "._workerlib.zygote")
    old = dict(_RENAMED_SPECIAL, **{n: "_" + n for n in _RENAMED})
    seen = set()
    for name, module in list(sys.modules.items()):
        if not name.startswith(package + "."):
            continue
        for value in list(vars(module).values()):
            if not isinstance(value, (type, types.FunctionType)) or id(value) in seen:
                continue
            if getattr(value, "__module__", None) != name:
                continue
            seen.add(id(value))
            was = old.get(value.__name__, value.__name__)
            value.__module__ = "__main__"
            value.__name__ = value.__qualname__ = was
            if isinstance(value, type):
                for member in vars(value).values():
                    if isinstance(member, types.FunctionType) and member.__qualname__.split(".")[0] != was:
                        member.__qualname__ = was + "." + member.__qualname__.split(".", 1)[1]
                    if isinstance(member, types.FunctionType):
                        member.__module__ = "__main__"
    return zygote


def _raise_stack_limit_first():
    """The zygote's re-exec with a larger C stack (``_workerlib/zygote.py``,
    ``_maybe_raise_stack_limit``), done before the worker's modules are imported, so the
    first interpreter does not import them for nothing (a worker starts once per hash seed)."""
    import resource

    if os.environ.get("CODEMORPH_SANDBOX_REEXEC"):
        return
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
    except (ValueError, OSError):
        return
    inf, wanted = resource.RLIM_INFINITY, 512 * 1024 * 1024  # common.STACK_WANTED
    want = wanted if hard == inf else min(wanted, hard)
    if soft == inf or soft >= wanted or want <= soft:
        return
    try:
        resource.setrlimit(resource.RLIMIT_STACK, (want, hard))
    except (ValueError, OSError):
        return
    os.environ["CODEMORPH_SANDBOX_REEXEC"] = "1"  # common.REEXEC_FLAG, popped by the zygote
    os.execv(sys.executable, [sys.executable] + (list(sys.orig_argv[1:]) if hasattr(sys, "orig_argv")
                                                 else ["-s", os.path.abspath(__file__)]))


if __name__ == "__main__":
    _raise_stack_limit_first()
    _load_as_script().main()
else:
    # imported in the host (tests): the worker's modules as a package
    from ._workerlib.common import MODULE_NAME, PROGRAM_FILE  # noqa: F401
    from ._workerlib.execution import may_catch_memory as _may_catch_memory  # noqa: F401
    from ._workerlib.execution import observes_lifetimes as _observes_lifetimes  # noqa: F401
    from ._workerlib.fingerprint import TooLarge, fingerprint, type_name  # noqa: F401
    from ._workerlib.child import patches_loaded_objects as _patches_loaded_objects  # noqa: F401
    from ._workerlib.protocol import encode_msg, encode_outcome, read_msg, write_all  # noqa: F401
    from ._workerlib.zygote import Zygote, main  # noqa: F401
