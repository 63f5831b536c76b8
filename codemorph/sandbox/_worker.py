"""Worker ("zygote") process of :mod:`codemorph.sandbox`.  Standard library only.

This file is started once per worker by the host, as ``python -s _worker.py`` with a scrubbed
environment (``PYTHONHASHSEED`` set) and a fresh temporary directory as working directory.
It never imports codemorph or libcst, so it starts in a few tens of milliseconds.

Protocol (host <-> zygote, over the zygote's stdin/stdout): every message is a 4-byte
big-endian length followed by that many bytes: UTF-8 JSON, or (an outcome relayed from a
child) ``b"R"``, the 4-byte batch id, the 4-byte request index and the outcome's JSON.

* host -> zygote: ``{"op": "batch", "b": <batch id>, "limits": {...}, "requests": [...]}``
  where each request is ``{"code", "entry_point", "args", "expected_output", "trace"}`` (plus
  optional ``"timeout"``, ``"cpu_timeout"``, ``"max_lines"`` and ``"types": false`` for a trace
  of lines and arcs only); a request whose source text already appeared
  in the batch has ``"code_ref": <index of that request>`` instead of ``"code"``.
* zygote -> host: ``{"t": "ready", "pid": ...}`` once at start; then for each batch one
  outcome per request (relayed ``R`` messages, or ``{"t": "result", "b": id, "i": index,
  "o": outcome}`` for outcomes the zygote makes itself: timeouts, crashes), in request
  order, and ``{"t": "done", "b": id}``.

For each batch the zygote ``fork()``\\ s one child that runs the requests one by one and
writes each outcome to a pipe (a length-prefixed frame, :func:`_frame`) without waiting
for anybody.  The child sets ``RLIMIT_AS``, ``RLIMIT_CORE=0``, ``RLIMIT_FSIZE``, a
per-execution ``setitimer`` timeout (wall clock, and optionally CPU time) and redirects fds
0/1/2, so that the program cannot touch the protocol pipes.  The zygote is not woken per
request: it sleeps until the child exits (pidfd) or ``_POLL`` seconds pass, forwards every
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
"""

import sys
import os

# ``python _worker.py`` puts this file's directory (the codemorph package) first on
# sys.path; a program's ``import inputs`` must not find codemorph's modules.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if p and os.path.abspath(p) != _HERE]

import ast  # noqa: E402
import builtins  # noqa: E402
import collections  # noqa: E402
import hashlib  # noqa: E402
import io  # noqa: E402
import itertools  # noqa: E402
import fcntl  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import mmap  # noqa: E402
import resource  # noqa: E402
import _signal  # noqa: E402  (no enum wrapping: cheaper per execution)
import _thread  # noqa: E402
import select  # noqa: E402
import shutil  # noqa: E402
import signal  # noqa: E402
import struct  # noqa: E402
import time  # noqa: E402
import types as _types  # noqa: E402
import warnings  # noqa: E402

PROGRAM_FILE = "<program>"
#: ``__name__`` of the program's module: no harness uses it, so a result, output or message
#: that shows it (``<class '__codemorph_program__.C'>``) shows the sandbox, not the program
MODULE_NAME = "__codemorph_program__"
#: what a result, output or exception message must not show (``_environment_shown``)
_ENVIRONMENT_MARKS = ((MODULE_NAME, "the sandbox's module name"), (PROGRAM_FILE, "the sandbox's file name"))
_SIGALRM = int(signal.SIGALRM)
_ITIMER_REAL = int(signal.ITIMER_REAL)
_SIGPROF = int(signal.SIGPROF)
_ITIMER_PROF = int(signal.ITIMER_PROF)
_MISSING = object()
_PACK = "__codemorph_pack_arguments__"


def _pack(*a, **k):
    return a, k
_HDR = struct.Struct(">I")
_MAX_MSG = 1 << 30
_STACK_WANTED = 512 * 1024 * 1024  # bytes of C stack for deep (C-level) recursion
_REEXEC_FLAG = "CODEMORPH_SANDBOX_REEXEC"

_perf = time.perf_counter
_mono = time.monotonic
_IDX = struct.Struct(">I")
_F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)
#: seconds between the zygote's looks at a running child's pipe
_POLL = 0.004
_MARK = struct.Struct("=QB")  # progress counter, phase (0 running, 1 post-processing)
_json_dumps = json.dumps
_json_loads = json.loads
_sha256 = hashlib.sha256


# ----------------------------------------------------------------------------- protocol
def _read_exact(fd, n):
    chunks = []
    while n:
        chunk = os.read(fd, min(n, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def read_msg(fd):
    """Read one length-prefixed JSON message from ``fd``; ``None`` at end of file."""
    hdr = _read_exact(fd, 4)
    if hdr is None:
        return None
    (n,) = _HDR.unpack(hdr)
    if n > _MAX_MSG:
        raise ValueError("message too long")
    data = _read_exact(fd, n)
    if data is None:
        return None
    return _json_loads(data)


def encode_outcome(out):
    """An outcome dict as compact ASCII JSON bytes."""
    return _json_dumps(out, ensure_ascii=True, separators=(",", ":")).encode("ascii")


def encode_msg(obj):
    data = _json_dumps(obj, ensure_ascii=True, separators=(",", ":")).encode("ascii")
    return _HDR.pack(len(data)) + data


def write_all(fd, data):
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


# -------------------------------------------------------------------------- fingerprints
_BUILTIN_TAGS = {
    int: "int", bool: "bool", float: "float", complex: "complex", str: "str", bytes: "bytes",
    bytearray: "bytearray", list: "list", tuple: "tuple", dict: "dict", set: "set",
    frozenset: "frozenset", type(None): "NoneType", range: "range", slice: "slice",
    type(Ellipsis): "ellipsis", type(NotImplemented): "NotImplementedType", object: "object",
    type: "type", memoryview: "memoryview",
}

_ORIGINAL_BUILTINS = dict(builtins.__dict__)

_FUNCTION_TYPES = (_types.FunctionType, _types.BuiltinFunctionType, _types.MethodType,
                   _types.BuiltinMethodType, _types.MethodWrapperType, _types.WrapperDescriptorType,
                   _types.MethodDescriptorType, _types.ClassMethodDescriptorType)


def type_name(t):
    """Exact name of a type: builtins by bare name (``"int"``), others as
    ``module.qualname`` (a class defined by a program is ``"builtins.Foo"``)."""
    tag = _BUILTIN_TAGS.get(t)
    if tag is not None:
        return tag
    try:
        mod = type.__getattribute__(t, "__module__")
    except Exception:
        mod = "?"
    try:
        qn = type.__getattribute__(t, "__qualname__")
    except Exception:
        qn = getattr(t, "__name__", "?")
    if mod == MODULE_NAME:
        mod = "builtins"  # the program's module (named so since it has a __name__; stable names)
    if mod == "builtins" and _ORIGINAL_BUILTINS.get(qn) is t:
        return qn  # e.g. "ValueError"; a program's own class ValueError is "builtins.ValueError"
    return f"{mod}.{qn}"


def _canon(enc):
    return _json_dumps(enc, ensure_ascii=False, separators=(",", ":"))


def _digest(enc):
    return _sha256(_canon(enc).encode("utf-8", "surrogatepass")).hexdigest()


def _float_text(x):
    x = float.__float__(x) if type(x) is not float else x
    if x != x:
        return "nan"
    if x == 0.0:
        return "0.0"
    return float.__repr__(x)


_FAST_INT = 10 ** 18
_FAST_CONTAINERS = frozenset({list, tuple, dict, set, frozenset})


class TooLarge(Exception):
    """The value has more nodes than the fingerprint budget allows."""


class _Fingerprinter:
    """Canonical JSON-able encoding of a value (see :func:`fingerprint`)."""

    def __init__(self, max_nodes=2_000_000, compress_at=2000, compress_height=48, str_max=1024):
        self.max_nodes = max_nodes
        self.compress_at = compress_at
        self.compress_height = compress_height
        self.str_max = str_max
        self.nodes = 0
        self.path = {}

    def enc(self, x):
        return self._fp(x, 0)[0]

    def _scalar_str(self, tag, s):
        if len(s) <= self.str_max:
            return [tag, s]
        return [tag + "#", len(s), _sha256(s.encode("utf-8", "surrogatepass")).hexdigest()]

    def _fp(self, x, depth):
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise TooLarge()
        t = type(x)
        # fast paths for exact builtin types (the common case)
        if t is str:
            if len(x) <= self.str_max:
                return ["str", x], 1, 1
        elif t is int:
            if -_FAST_INT < x < _FAST_INT:
                return ["int", int.__repr__(x)], 1, 1
        elif t in _FAST_CONTAINERS:
            return self._container_entry(x, t, _BUILTIN_TAGS[t], depth)
        tag = _BUILTIN_TAGS.get(t)
        if tag is None:
            tag = type_name(t)
        # scalars
        if x is None:
            return ["NoneType", None], 1, 1
        if isinstance(x, bool):
            return [tag, "True" if x else "False"], 1, 1
        if isinstance(x, int):
            n = int.__index__(x)
            if n.bit_length() <= 12000:
                return [tag, int.__repr__(n)], 1, 1
            h = hex(n)
            if len(h) <= self.str_max:
                return [tag, h], 1, 1
            return [tag + "#", n.bit_length(), _sha256(h.encode()).hexdigest()], 1, 1
        if isinstance(x, float):
            return [tag, _float_text(x)], 1, 1
        if isinstance(x, complex):
            return [tag, [_float_text(x.real), _float_text(x.imag)]], 1, 1
        if isinstance(x, str):
            return self._scalar_str(tag, str.__str__(x)), 1, 1
        if isinstance(x, (bytes, bytearray)):
            return self._scalar_str(tag, bytes(x).hex()), 1, 1
        if isinstance(x, type):
            return ["type", type_name(x)], 1, 1
        if isinstance(x, _FUNCTION_TYPES):
            return ["function", str(getattr(x, "__qualname__", getattr(x, "__name__", "?")))], 1, 1
        if isinstance(x, _types.ModuleType):
            return ["module", str(getattr(x, "__name__", "?"))], 1, 1
        if x is Ellipsis or x is NotImplemented:
            return [tag, None], 1, 1
        if isinstance(x, range):
            return [tag, [str(x.start), str(x.stop), str(x.step)]], 1, 1
        return self._container_entry(x, t, tag, depth)

    def _container_entry(self, x, t, tag, depth):
        # containers and objects: cycle detection on the current path
        key = id(x)
        seen = self.path.get(key)
        if seen is not None:
            return ["cycle", depth - seen], 1, 1
        self.path[key] = depth
        try:
            enc, size, height = self._container(x, t, tag, depth)
        finally:
            del self.path[key]
        if size > self.compress_at or height > self.compress_height:
            # Merkle-style summary: a deterministic function of the subtree's encoding,
            # which keeps fingerprints small and at most ~compress_height levels deep
            return ["#", tag, _digest(enc)], 1, 1
        return enc, size, height

    def _children(self, items, depth):
        out, size, height = [], 1, 0
        for item in items:
            e, s, h = self._fp(item, depth + 1)
            out.append(e)
            size += s
            height = max(height, h)
        return out, size, height + 1

    def _pairs(self, items, depth):
        out, size, height = [], 1, 0
        for k, v in items:
            ke, ks, kh = self._fp(k, depth + 1)
            ve, vs, vh = self._fp(v, depth + 1)
            out.append([ke, ve])
            size += ks + vs
            height = max(height, kh, vh)
        return out, size, height + 1

    def _extra_state(self, x, depth):
        try:
            d = object.__getattribute__(x, "__dict__")
        except Exception:
            return None, 0, 0
        if not isinstance(d, dict) or not d:
            return None, 0, 0
        return self._pairs(list(dict.items(d)), depth)

    def _container(self, x, t, tag, depth):
        if isinstance(x, (list, tuple)):
            items = list.__iter__(x) if isinstance(x, list) else tuple.__iter__(x)
            enc, size, height = self._children(list(items), depth)
            result = [tag, enc]
        elif isinstance(x, dict):
            enc, size, height = self._pairs(list(dict.items(x)), depth)
            result = [tag, enc]
            if isinstance(x, collections.defaultdict):
                f = x.default_factory
                result.append(None if f is None else self._fp(f, depth + 1)[0])
        elif isinstance(x, (set, frozenset)):
            enc, size, height = self._children(
                list(set.__iter__(x) if isinstance(x, set) else frozenset.__iter__(x)), depth)
            enc.sort(key=_canon)
            result = [tag, enc]
        elif isinstance(x, collections.deque):
            enc, size, height = self._children(list(x), depth)
            result = [tag, enc, x.maxlen]
        elif isinstance(x, slice):
            enc, size, height = self._children([x.start, x.stop, x.step], depth)
            result = [tag, enc]
        elif isinstance(x, BaseException):
            enc, size, height = self._fp(x.args, depth + 1)
            return ["exception", tag, enc], size + 1, height + 1
        else:
            state, size, height = self._object_state(x, t, depth)
            return ["object", tag, state], size + 1, height + 1
        if t not in _BUILTIN_TAGS:
            extra, esize, eheight = self._extra_state(x, depth)
            if extra is not None:
                result.append(["dict", extra])
                size += esize
                height = max(height, eheight)
        return result, size, height

    def _object_state(self, x, t, depth):
        size = height = 0
        parts = []
        d, ds, dh = self._extra_state(x, depth)
        if d is not None:
            parts.append(["dict", d])
            size += ds
            height = dh
        slots = []
        for klass in getattr(t, "__mro__", ()):
            s = klass.__dict__.get("__slots__") if isinstance(getattr(klass, "__dict__", None),
                                                               _types.MappingProxyType) else None
            if isinstance(s, str):
                s = (s,)
            for name in s or ():
                if name in ("__dict__", "__weakref__"):
                    continue
                try:
                    v = object.__getattribute__(x, name)
                except AttributeError:
                    continue
                e, vs, vh = self._fp(v, depth + 1)
                slots.append([name, e])
                size += vs
                height = max(height, vh + 1)
        if slots:
            parts.append(["slots", slots])
        return (parts or None), size, height + 1


def fingerprint(x):
    """Canonical JSON-able encoding of ``x``: two values get equal fingerprints exactly when
    they are equal *and* of the same types (what differential testing compares).

    Every node is tagged with its exact type name (builtins bare, others
    ``module.qualname``; a class defined by a program is ``builtins.Name``):

    * ``["NoneType", None]``, ``["bool", "True"]`` (distinct from ``["int", "1"]``),
      ``["int", "5"]`` (decimal text; hex beyond ~3600 digits), ``["float", "1.5"]`` with
      ``"nan"`` for every NaN and ``"0.0"`` for both zeros (as ``==``),
      ``["complex", [re, im]]``, ``["str", s]``, ``["bytes", hex]``;
    * ``["list"|"tuple", [items]]``; ``["dict", [[k, v], ...]]`` in insertion order (order
      matters: it shows in the ``repr`` a benchmark row records); ``["set"|"frozenset",
      [items]]`` sorted by their canonical JSON (order ignored); defaultdict/deque add their
      factory / maxlen; subclasses of builtin containers add ``["dict", attributes]``;
    * ``["type", name]``, ``["function", qualname]``, ``["module", name]``,
      ``["exception", type, args]``, ``["object", type, [["dict", attributes],
      ["slots", [[name, value], ...]]] or None]`` -- never an ``id()``-based ``repr``;
    * ``["cycle", k]`` for a reference to the container ``k`` levels up;
    * strings/bytes/ints longer than 1024 characters become ``[tag + "#", length,
      sha256]``, and a container whose encoding has more than 2000 nodes or is more than 48
      levels deep becomes ``["#", tag, sha256 of its canonical JSON]`` (Merkle-style: still
      a deterministic function of the value, so equality is kept);
    * more than 2 million nodes visited: ``["too-large", type]``, which the host treats
      as not comparable.
    """
    fp = _Fingerprinter()
    try:
        return fp.enc(x)
    except TooLarge:
        return ["too-large", type_name(type(x))]


# --------------------------------------------------------------------------- execution
class _Timeout(BaseException):
    """Raised by the SIGALRM handler; a BaseException so ``except Exception`` misses it."""


class _OutputLimit(BaseException):
    """Raised when a program writes more than the output limit."""


class _State:
    timed_out = False
    output_over = False
    out_of_lines = False
    #: refusals of the guard (:func:`_install_guard`) during the current request, and what
    #: the first one refused ("network access (socket.__new__)")
    refused = 0
    refused_what = None
    #: a MemoryError was raised in a frame of the program during the current request
    #: (seen by a trace function's "exception" event), whether or not the program caught it
    memory_raised = False


_state = _State()


#: words of a program that can observe when an object dies
_LIFETIME_WORDS = ("__del__", "weakref", "finalize", "getrefcount")


def _observes_lifetimes(code):
    """Whether the program may observe when its objects die (``__del__``, ``weakref``,
    ``weakref.finalize``, ``sys.getrefcount``): such a program's traced runs collect no
    types of locals.  Reading ``frame.f_locals`` in a trace function makes CPython 3.11
    keep a dict of the frame's locals, re-synced at every trace event, so an object
    dropped by ``del a`` or ``a = None`` lives until the next line event: ``__del__``
    runs later and a weak reference still answers on the same line, which a plain
    interpreter does not show (tester's F14).  Lines and arcs alone never read
    ``f_locals``."""
    return any(w in code for w in _LIFETIME_WORDS)


def _exc_glob(frame, event, arg):
    """Global trace function of an untraced run whose program can catch a MemoryError
    (:func:`_may_catch_memory`): only the program's frames get :func:`_exc_local`, with
    line events off (``f_trace_lines``), so a frame costs one call event and its
    exception events, not one event per line."""
    if frame.f_code.co_filename != PROGRAM_FILE:
        return None
    frame.f_trace_lines = False
    return _exc_local


def _exc_local(frame, event, arg):
    if event == "exception" and issubclass(arg[0], MemoryError):
        _state.memory_raised = True
    return _exc_local


#: exception classes that a handler naming them catches without catching MemoryError
_NOT_MEMORY = frozenset(
    n for n, v in vars(builtins).items()
    if isinstance(v, type) and issubclass(v, BaseException) and not issubclass(MemoryError, v))


def _may_catch_memory(code):
    """Whether the module ``code`` may catch a MemoryError raised in it: an ``except``
    clause that is bare or names anything but builtin exception classes unrelated to
    MemoryError (``except Exception``, ``except (ValueError, BaseException)``, ``except E``
    with ``E`` a name of its own), a ``finally`` that returns, breaks or continues, an
    ``__exit__``/``__aexit__`` method (a context manager may swallow it) or the name
    ``suppress`` (``contextlib.suppress``).  Conservative; ``False`` when the code does not
    parse (it then fails to compile anyway)."""
    if "except" not in code and "finally" not in code and "__exit__" not in code and "__aexit__" not in code \
            and "suppress" not in code:
        return False
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.ExceptHandler):
            t = node.type
            if t is None:
                return True
            names = t.elts if isinstance(t, ast.Tuple) else [t]
            if not all(isinstance(x, ast.Name) and x.id in _NOT_MEMORY for x in names):
                return True
        elif isinstance(node, (ast.Try, getattr(ast, "TryStar", ast.Try))) and node.finalbody:
            stack = list(node.finalbody)
            while stack:
                n = stack.pop()
                if isinstance(n, (ast.Return, ast.Break, ast.Continue)):
                    return True
                if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                    stack.extend(ast.iter_child_nodes(n))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in ("__exit__", "__aexit__"):
            return True
        elif isinstance(node, ast.Name) and node.id == "suppress" or \
                isinstance(node, ast.Attribute) and node.attr == "suppress":
            return True
    return False


def _environment_shown(out):
    """What part of a completed outcome shows the sandbox itself (its module name or file
    name), as ``"its output shows the sandbox's file name ('<program>')"``, or ``None``.  Such
    an outcome (a warning or traceback printed with the program's file name, an exception
    message naming ``<class '__codemorph_program__.C'>``) differs under every other harness.
    The result's repr is handled apart (:func:`_environment_repr`)."""
    exc = out.get("exception") or {}
    for what, text in (("its output", out.get("stdout")),
                       ("its exception message", exc.get("message") if isinstance(exc, dict) else None)):
        if text:
            for mark, name in _ENVIRONMENT_MARKS:
                if mark in text:
                    return f"{what} shows {name} ({mark!r})"
    return None


def _environment_repr(out):
    """A result whose repr shows the sandbox's module or file name (``str(C)`` of a class the
    program defined, ``repr(f.__code__)``) loses its repr: ``value_repr`` becomes ``None``
    with a ``repr_error`` saying why and ``literal_ok`` is false, so it is never written as
    an output; the status stays ``returned`` and the fingerprint is kept, so an original and
    a rewrite that return such a value are still compared (they share the sandbox)."""
    text = out.get("value_repr")
    if not text:
        return
    for mark, name in _ENVIRONMENT_MARKS:
        if mark in text:
            out["value_repr"] = None
            out["literal_ok"] = False
            out["repr_error"] = (f"repr shows {name} ({mark!r}), which depends on the harness that runs the "
                                 f"program, so it is not a ground truth")
            return


def _environment_outcome(out, shown):
    """Turn ``out`` into an ``"environment"`` outcome: what the program returned, printed or
    raised shows codemorph's sandbox (``shown``), so under a harness that runs the module as
    ``__main__`` from a file it differs: never compared nor written.  The result and
    exception are dropped, as for a refusal."""
    then = "returned" if out["status"] == "returned" else f"raised {(out.get('exception') or {}).get('type')}"
    detail = (f"{shown}: the outcome depends on the harness that runs the program (the program {then}), "
              f"so it is not a ground truth")
    out["note"] = f"{detail}; {out['note']}" if out.get("note") else detail
    out["status"] = "environment"
    for k in ("value_repr", "fingerprint", "exception", "args_fingerprint", "output_matches", "repr_error"):
        out[k] = None
    out["literal_ok"] = False


def _memory_outcome(out):
    """Turn ``out`` into a ``"memory"`` outcome: a MemoryError was raised during the run
    and the program caught it (or ended otherwise): at the sandbox's address-space limit,
    not in a plain interpreter, so the outcome is memory exhaustion, like a swallowed
    timeout is a timeout."""
    then = "returned" if out["status"] == "returned" else f"ended with status {out['status']}"
    detail = f"a MemoryError was raised during the run (the sandbox's memory limit) and the program then {then}"
    out["note"] = f"{detail}; {out['note']}" if out.get("note") else detail
    out["status"] = "memory"
    for k in ("value_repr", "fingerprint", "args_fingerprint", "output_matches", "repr_error"):
        out[k] = None
    out["exception"] = {"type": "MemoryError", "message": "", "line": None}
    out["literal_ok"] = False


_NO_LIMIT = 1 << 62


def _out_of_lines():
    """The request's line budget is spent: stop the program like a timeout (the trace
    function's exception also turns tracing off, so a program that swallows it runs on
    untraced until its timers stop it; its status is ``timeout`` either way)."""
    _state.timed_out = True
    _state.out_of_lines = True
    raise _Timeout()


def _on_alarm(signum, frame):
    _state.timed_out = True
    raise _Timeout()


def _arm(seconds):
    _state.timed_out = False
    _signal.signal(_SIGALRM, _on_alarm)  # the program may have replaced the handler
    _signal.setitimer(_ITIMER_REAL, max(seconds, 0.001))


def _disarm():
    _signal.setitimer(_ITIMER_REAL, 0)


def _arm_cpu(seconds):
    """A CPU-time limit (user + system seconds of this process, ``ITIMER_PROF``) on top of
    the wall-clock one: an endless loop stops after ``seconds`` of CPU whatever the load."""
    _signal.signal(_SIGPROF, _on_alarm)
    _signal.setitimer(_ITIMER_PROF, max(seconds, 0.001))


def _disarm_cpu():
    _signal.setitimer(_ITIMER_PROF, 0)


class _Capture(io.TextIOBase):
    """``sys.stdout``/``sys.stderr`` of a program: writes go straight to fd 1 (a memory
    file shared with fd 2), so text and ``os.write(1, ...)`` bytes keep their order; the
    total is bounded by the output limit."""

    def __init__(self, limit):
        self.limit = limit
        self.written = 0
        self._buffer = _BinaryCapture(self)

    @property
    def buffer(self):
        """Binary view, like ``sys.stdout.buffer``; shares the output limit."""
        return self._buffer

    @property
    def encoding(self):
        return "utf-8"

    @property
    def errors(self):
        return "strict"

    def writable(self):
        return True

    def isatty(self):
        return False

    def fileno(self):
        return 1

    def write(self, s):
        if not isinstance(s, str):
            raise TypeError(f"write() argument must be str, not {type(s).__name__}")
        self.write_bytes(s.encode("utf-8"))
        return len(s)

    def write_bytes(self, data):
        room = self.limit - self.written
        if len(data) > room:
            if room > 0:
                write_all(1, data[:room])
            self.written = self.limit
            _state.output_over = True
            raise _OutputLimit()
        write_all(1, data)
        self.written += len(data)

    def flush(self):
        pass


class _BinaryCapture(io.RawIOBase):
    """``sys.stdout.buffer`` of a program."""

    def __init__(self, text):
        self._text = text

    def writable(self):
        return True

    def fileno(self):
        return 1

    def write(self, b):
        data = bytes(b)
        self._text.write_bytes(data)
        return len(data)


def _exc_info(exc):
    try:
        msg = str(exc)
    except BaseException:
        msg = "<str() of the exception failed>"
    line = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == PROGRAM_FILE:
            line = tb.tb_lineno
        tb = tb.tb_next
    if line is None and isinstance(exc, SyntaxError) and exc.filename == PROGRAM_FILE:
        line = exc.lineno
    return {"type": type(exc).__name__, "message": msg[:500], "line": line}


def _timeout_of(req, limits):
    t = req.get("timeout")
    return float(t) if t else limits["timeout"]


def _cpu_timeout_of(req):
    t = req.get("cpu_timeout")
    return float(t) if t else None


class _Tracer:
    """Collects executed lines, arcs and observed local types of ``<program>`` frames.

    Each traced frame gets its own local trace function (a closure holding the frame's
    previous line), so a line event costs two tuples and two C-level set additions: the arc
    ``(previous line, line)`` and a snapshot ``(names..., types...)`` of ``frame.f_locals``
    (a loop revisits the same few snapshots).  Lines are the arcs' targets; snapshots are
    split into ``(local name, type)`` pairs and type names computed once per distinct type
    at the end (:meth:`result`), not per event.

    ``max_lines``: a budget of line events (``None``: unlimited); the event past it stops
    the program as a timeout would (:func:`_out_of_lines`).  Unlike a time limit it does
    not depend on the machine or its load.

    ``types``: collect the ``(local, type)`` pairs (``False``: lines and arcs only, every
    frame gets the cheaper module-level local trace function)."""

    def __init__(self, max_lines=None, types=True):
        self.types = types
        self.arcs = set()
        self.pairs = {}  # code object -> set of snapshots (names..., types...) of its locals
        self.tick = itertools.count(1)
        self.max_lines = max_lines if max_lines else _NO_LIMIT

    def glob(self, frame, event, arg):
        try:
            return self._glob(frame)
        except MemoryError:  # the tracer's own allocation failed (tracing stops)
            _state.memory_raised = True
            raise

    def _glob(self, frame):
        code = frame.f_code
        if code.co_filename != PROGRAM_FILE:
            return None
        arcs_add = self.arcs.add
        tick, max_lines = self.tick, self.max_lines
        if code.co_name == "<module>" or not self.types:
            prev = None

            def local(frame, event, arg):
                nonlocal prev
                try:
                    if event == "line":
                        ln = frame.f_lineno
                        arcs_add((prev, ln))
                        prev = ln
                        if next(tick) > max_lines:
                            _out_of_lines()
                    elif event == "exception" and issubclass(arg[0], MemoryError):
                        _state.memory_raised = True
                except MemoryError:  # the tracer's own allocation failed (tracing stops)
                    _state.memory_raised = True
                    raise
                return local
            return local
        snaps = self.pairs.get(code)
        if snaps is None:
            snaps = self.pairs[code] = set()
        snaps_add = snaps.add
        prev = None

        # one flat tuple per distinct (names..., types...) snapshot of the locals: a loop
        # revisits the same few snapshots, which cost one tuple and one set lookup each
        def local(frame, event, arg):
            nonlocal prev
            try:
                if event == "line":
                    ln = frame.f_lineno
                    arcs_add((prev, ln))
                    prev = ln
                    fl = frame.f_locals
                    snaps_add((*fl, *map(type, fl.values())))
                    if next(tick) > max_lines:
                        _out_of_lines()
                elif event == "return":
                    fl = frame.f_locals
                    snaps_add((*fl, *map(type, fl.values())))
                elif event == "exception" and issubclass(arg[0], MemoryError):
                    _state.memory_raised = True
            except MemoryError:  # the tracer's own allocation failed (tracing stops)
                _state.memory_raised = True
                raise
            return local
        return local

    def result(self, with_types=True):
        """``{"lines", "arcs", "types"}`` as the host expects them (sorted; ``types`` is
        ``{qualname: {local: sorted type names}}``).  Computing type names may run a
        program's metaclass descriptors: call it under the timer."""
        arcs = self.arcs
        types = {}
        if with_types:
            names = {}
            for code, snaps in self.pairs.items():
                qn = getattr(code, "co_qualname", code.co_name)
                table = types.setdefault(qn, {})
                pairs = set()
                for snap in snaps:
                    half = len(snap) // 2
                    pairs.update(zip(snap[:half], snap[half:]))
                for name, t in pairs:
                    tn = names.get(t)
                    if tn is None:
                        tn = names[t] = type_name(t)
                    table.setdefault(name, set()).add(tn)
        return {
            "lines": sorted({b for _, b in arcs}),
            "arcs": sorted((a, b) for a, b in arcs if a is not None),
            "types": {q: {n: sorted(ts) for n, ts in sorted(t.items())} for q, t in sorted(types.items())},
        }


def _same_items(a, b):
    """Whether lists ``a`` and ``b`` hold the same objects (identity: runs no program code)."""
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def _chmod_and_retry(func, path, exc_info):
    """``shutil.rmtree`` error handler: a directory a program made unwritable is made
    writable again (it is inside the work directory) and the removal retried."""
    try:
        os.chmod(os.path.dirname(path) or ".", 0o700)
        if os.path.isdir(path) and not os.path.islink(path):
            os.chmod(path, 0o700)
        func(path)
    except OSError:
        pass


def _registries():
    """Registries in modules loaded in every child whose growth cannot be undone safely
    here (a program that adds to them taints the child)."""
    import copyreg
    return [copyreg.dispatch_table, copyreg._extension_registry, copyreg._inverted_registry]


#: mode of the batch's work directory (``Zygote.batch`` creates it so)
_WORKDIR_MODE = 0o700

#: ``sys`` attributes the child sets itself before every request (:meth:`_Child.reset`)
_SYS_PER_REQUEST = frozenset({"stdout", "stderr", "stdin", "unraisablehook", "displayhook", "excepthook", "argv"})

#: a request that can reach a module and names one of these may have changed process state
#: that the child cannot undo (codec search functions, fork or exit handlers, signal
#: handlers, audit hooks, the C locale or environment, time zone, fault handler, process
#: group or session): the next request runs in a fresh child
_TAINT_WORDS = ("register", "signal", "addaudithook", "locale", "putenv", "unsetenv", "tzset", "faulthandler",
                "setdlopenflags", "setsid", "setpgrp", "setpgid")


def _refused_outcome(out):
    """Turn ``out`` into a ``"refused"`` outcome: the guard refused something the program
    asked for, so what it did next (caught the ``PermissionError`` and returned, raised it,
    raised something else) is an artifact of the sandbox, not of Python, and must never be
    compared or recorded as a program's behaviour.  The result and exception are dropped;
    the note names the first refusal (and what the program did afterwards)."""
    status = out["status"]
    exc = out.get("exception")
    if status == "returned":
        then = "returned normally"
    elif exc and status in ("raised", "bad-code", "bad-input"):
        then = f"raised {exc.get('type')}"
    else:
        then = f"ended with status {status}"
    more = f"; {_state.refused - 1} more refusal(s)" if _state.refused > 1 else ""
    detail = f"the sandbox refused {_state.refused_what}{more}; the program then {then}"
    out["note"] = f"{detail}; {out['note']}" if out.get("note") else detail
    out["status"] = "refused"
    for k in ("value_repr", "fingerprint", "exception", "args_fingerprint", "output_matches", "repr_error"):
        out[k] = None
    out["literal_ok"] = False


class _Child:
    """State of the forked child that runs one batch."""

    def __init__(self, limits, wfd, ack_fd, cap_fd, cwd, mark):
        self.limits = limits
        self.wfd = wfd
        self.ack_fd = ack_fd
        self.mark = mark
        self.progress_count = 0
        self.cap_fd = cap_fd
        self.cwd = cwd
        self.builtins_snapshot = dict(builtins.__dict__)
        self.sys_snapshot = {k: getattr(sys, k) for k in ("displayhook", "excepthook")}
        self.sys_snapshot["argv"] = list(sys.argv)
        self.path_snapshot = list(sys.path)
        self.codes = {}
        self.catchers = {}  # code -> _may_catch_memory(code)
        self.unraisable = []
        self.arg_codes = {}
        self.eval_codes = {}
        self.cap = None
        self.cwd_fd = os.open(cwd, os.O_RDONLY)
        self.null_fd = os.open(os.devnull, os.O_RDONLY)
        # process state a program may change, restored by restore_process_state()
        self.environ = os.environ
        self.environ_data = dict(os.environ._data)
        self.environ_items = dict(os.environ)
        self.umask = os.umask(0o022)
        os.umask(self.umask)
        self.gc_threshold = gc.get_threshold()
        self.gc_debug = gc.get_debug()
        self.gc_callbacks = list(gc.callbacks)
        self.warnings_filters = warnings.filters
        self.warnings_snapshot = list(warnings.filters)
        self.warnings_default = warnings.defaultaction
        self.warnings_once = dict(warnings.onceregistry)
        self.int_digits = sys.get_int_max_str_digits()
        self.switch_interval = sys.getswitchinterval()
        self.asyncgen_hooks = tuple(sys.get_asyncgen_hooks())
        self.coro_depth = sys.get_coroutine_origin_tracking_depth()
        self.sys_vars = dict(vars(sys))
        self.sys_lists = [(lst, list(lst)) for lst in (sys.meta_path, sys.path_hooks)]
        self.registries = [(d, len(d)) for d in _registries()]
        try:
            self.clean_workdir()  # files an earlier child of this batch left
        except OSError:
            pass

    def progress(self, phase):
        """Tell the zygote's watchdog that the child moved on (a new request, or the next
        post-processing step), without waking it: a counter in shared memory that the zygote
        reads only when a deadline passes."""
        self.progress_count += 1
        _MARK.pack_into(self.mark, 0, self.progress_count, phase)

    def sync(self):
        """Wait until the zygote has passed every outcome sent so far on to the host (called
        before the program may signal the zygote, which could otherwise lose them)."""
        write_all(self.wfd, _frame(b"S"))
        os.read(self.ack_fd, 1)

    def _on_unraisable(self, unraisable):
        try:
            exc = unraisable.exc_value
            self.unraisable.append(type(exc).__name__ if exc is not None else "?")
        except BaseException:
            pass

    # -- per-request reset ---------------------------------------------------------
    def reset(self):
        d = builtins.__dict__
        if d != self.builtins_snapshot:
            d.clear()
            d.update(self.builtins_snapshot)
        sys.path[:] = self.path_snapshot
        for k, v in self.sys_snapshot.items():
            setattr(sys, k, list(v) if k == "argv" else v)
        sys.setrecursionlimit(self.limits["recursion_limit"])
        # "Exception ignored in: <function ... at 0x...>" from finalizers depends on when the
        # garbage collector runs and carries addresses: keep it out of the output (a note
        # counts it), or it shows as a false difference, even in a later request
        self.unraisable = []
        sys.unraisablehook = self._on_unraisable
        cap = self.cap = _Capture(self.limits["output"])
        sys.stdout = sys.stderr = cap
        sys.stdin = io.StringIO("")
        try:
            os.fchdir(self.cwd_fd)
        except OSError:
            pass
        os.ftruncate(self.cap_fd, 0)
        os.lseek(self.cap_fd, 0, os.SEEK_SET)
        _state.output_over = False
        _state.timed_out = False
        _state.out_of_lines = False
        _state.refused = 0
        _state.refused_what = None
        _state.memory_raised = False
        return cap

    def clean_workdir(self):
        """Remove every entry of the work directory (the batch's directory is empty when the
        batch starts), and restore its mode: a file one request created is not seen by the
        next.  Returns whether it is empty now."""
        os.fchdir(self.cwd_fd)
        if os.fstat(self.cwd_fd).st_mode & 0o7777 != _WORKDIR_MODE:
            os.fchmod(self.cwd_fd, _WORKDIR_MODE)
        names = os.listdir(self.cwd_fd)
        if not names:
            return True
        for name in names:
            try:
                if os.path.isdir(name) and not os.path.islink(name):
                    shutil.rmtree(name, onerror=_chmod_and_retry)
                else:
                    os.unlink(name)
            except OSError:
                pass
        return not os.listdir(self.cwd_fd)

    def restore_process_state(self, req, reach):
        """Undo what the request ``req`` changed in the process that a fresh interpreter
        would not show the next program (builtins, ``sys`` hooks and output are reset by
        :meth:`reset`; changed modules taint the child).  Returns ``True`` when something
        cannot be undone here: the next request then runs in a fresh child.

        Called (by :func:`_child_main`) only after a request that names ``open`` or can
        reach a module (``reach``: see :data:`_REACH_WORDS`): nothing else can change
        process state, so other requests cost nothing.  Files in the work directory are
        removed (about 7 microseconds); the rest needs a module object, so it is checked
        only when ``reach`` (identity and integer comparisons, about 13 microseconds more): ``os.environ``, the umask, fds 0/1/2, the garbage collector (enabled, thresholds, debug flags,
        callbacks), ``warnings`` (filters, default action, once registry), the int-to-str
        digit limit, the switch interval, asyncgen hooks, coroutine origin tracking, a
        profile function, ``sys`` attributes and ``sys.meta_path``/``sys.path_hooks``.
        Registered codec search functions, signal handlers, locale, audit hooks, ``copyreg``
        entries and the like (:data:`_TAINT_WORDS`, :func:`_registries`) are not undone:
        they taint the child."""
        tainted = not self.clean_workdir()
        if not reach:
            return tainted
        if _mentions(req, _TAINT_WORDS):
            return True
        env = self.environ
        if env._data != self.environ_data:
            env.clear()
            env.update(self.environ_items)
        os.umask(self.umask)
        os.dup2(self.null_fd, 0)
        os.dup2(self.cap_fd, 1)
        os.dup2(self.cap_fd, 2)
        if not gc.isenabled():
            gc.enable()
        if gc.get_threshold() != self.gc_threshold:
            gc.set_threshold(*self.gc_threshold)
        if gc.get_debug() != self.gc_debug:
            gc.set_debug(self.gc_debug)
        if not _same_items(gc.callbacks, self.gc_callbacks):
            gc.callbacks[:] = self.gc_callbacks
        # warnings: compared by identity (a filter's own __eq__ could be a program's code)
        w = warnings
        if w.filters is not self.warnings_filters or not _same_items(w.filters, self.warnings_snapshot):
            w.filters = self.warnings_filters
            w.filters[:] = self.warnings_snapshot
            w._filters_mutated()
        if w.defaultaction is not self.warnings_default:
            w.defaultaction = self.warnings_default
        if len(w.onceregistry) != len(self.warnings_once):
            w.onceregistry.clear()
            w.onceregistry.update(self.warnings_once)
        if sys.get_int_max_str_digits() != self.int_digits:
            sys.set_int_max_str_digits(self.int_digits)
        if sys.getswitchinterval() != self.switch_interval:
            sys.setswitchinterval(self.switch_interval)
        if tuple(sys.get_asyncgen_hooks()) != self.asyncgen_hooks:
            sys.set_asyncgen_hooks(*self.asyncgen_hooks)
        if sys.get_coroutine_origin_tracking_depth() != self.coro_depth:
            sys.set_coroutine_origin_tracking_depth(self.coro_depth)
        if sys.getprofile() is not None:
            sys.setprofile(None)
        d, snap = vars(sys), self.sys_vars
        for k, v in snap.items():
            if d.get(k, _MISSING) is not v and k not in _SYS_PER_REQUEST:
                d[k] = v
        if len(d) != len(snap):
            for k in [k for k in d if k not in snap]:
                del d[k]
        for lst, items in self.sys_lists:
            if not _same_items(lst, items):
                lst[:] = items
        for reg, n in self.registries:
            if len(reg) != n:
                tainted = True
        return tainted

    def reseed_random(self, code):
        rnd = sys.modules.get("random")
        if rnd is not None and "random" in code:
            try:
                rnd.seed()  # fresh entropy: the second baseline run must see new random numbers
            except Exception:
                pass

    def read_output(self):
        size = os.fstat(self.cap_fd).st_size
        limit = self.limits["output"]
        os.lseek(self.cap_fd, 0, os.SEEK_SET)
        data = _read_exact(self.cap_fd, min(size, limit)) or b""
        return data.decode("utf-8", "backslashreplace"), size >= limit

    def compile_args(self, args):
        obj = self.arg_codes.get(args)
        if obj is None:
            obj = compile(f"{_PACK}({args})", "<input>", "eval", dont_inherit=True)
            if len(self.arg_codes) < 256:
                self.arg_codes[args] = obj
        return obj

    def compile_eval(self, text):
        """``compile(text, "<string>", "eval")`` as ``eval(text)`` does, cached (the same
        expected output and result literals come back for every input of a batch)."""
        obj = self.eval_codes.get(text)
        if obj is None:
            obj = compile(text, "<string>", "eval", dont_inherit=True)
            if len(self.eval_codes) < 256 and len(text) < 4096:
                self.eval_codes[text] = obj
        return obj

    def compile(self, code):
        obj = self.codes.get(code)
        if obj is None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                obj = compile(code, PROGRAM_FILE, "exec", dont_inherit=True)
            if len(self.codes) < 64:
                self.codes[code] = obj
        return obj

    # -- one request ---------------------------------------------------------------
    def run(self, i, req):
        timeout = _timeout_of(req, self.limits)
        out = {"status": None, "value_repr": None, "fingerprint": None, "literal_ok": False,
               "exception": None, "args_fingerprint": None, "stdout": "", "output_matches": None,
               "duration": 0.0, "lines": None, "arcs": None, "types": None,
               "output_truncated": False, "repr_error": None, "note": None}
        code = req.get("code", "")
        entry = req.get("entry_point") or "f"
        args = req.get("args", "")
        expected = req.get("expected_output")
        tracer = _Tracer(req.get("max_lines"), req.get("types", True) and not _observes_lifetimes(code)) \
            if req.get("trace") else None
        script = args is None
        self.progress(0)
        self.reset()
        self.reseed_random(code)
        recursion_limit = req.get("recursion_limit")
        if recursion_limit:
            # as many frames as a plain ``python program.py`` run has at this limit: the
            # worker's own frames below the module's come on top (measured: the deepest
            # ``f(n - 1)`` recursion that returns is the same, n = 998 at 1000)
            depth, frame = 0, sys._getframe()
            while frame is not None:
                depth, frame = depth + 1, frame.f_back
            sys.setrecursionlimit(int(recursion_limit) + depth - 1)
        # untraced runs of a program that can catch a MemoryError: an exception-only tracer
        catcher = None
        if tracer is None:
            catcher = self.catchers.get(code)
            if catcher is None:
                catcher = _may_catch_memory(code)
                if len(self.catchers) < 256:
                    self.catchers[code] = catcher
        watcher = tracer.glob if tracer is not None else _exc_glob if catcher else None
        # the program's module, registered as a plain ``python program.py`` run registers
        # ``__main__`` (dataclasses, typing and pickle look classes up through sys.modules);
        # dropped with the other modules the request added (_child_main)
        module = _types.ModuleType(MODULE_NAME)
        sys.modules[MODULE_NAME] = module
        g = module.__dict__
        value = None
        call_args = None
        phase = "compile"
        cpu_timeout = _cpu_timeout_of(req)
        t0 = _perf()
        try:
            _arm(timeout)
            if cpu_timeout is not None:
                _arm_cpu(cpu_timeout)
            try:
                codeobj = self.compile(code)
                phase = "module"
                if watcher is not None:
                    sys.settrace(watcher)
                exec(codeobj, g)
                if not script:
                    phase = "args"
                    # CRUXEval evaluates f(<args>) in the module's globals: evaluate the same
                    # argument list there, through a packing function under a reserved name
                    # that is removed before the call
                    argcode = self.compile_args(args)
                    g[_PACK] = _pack
                    try:
                        a, k = eval(argcode, g)
                    finally:
                        g.pop(_PACK, None)
                    call_args = [list(a), k]
                    fn = g.get(entry, _MISSING)
                    if fn is _MISSING:
                        phase = "entry"
                        raise NameError(f"entry point {entry!r} is not defined by the program")
                    phase = "call"
                    value = fn(*a, **k)
                phase = "done"
            finally:
                sys.settrace(None)
                _disarm()
                if cpu_timeout is not None:
                    _disarm_cpu()
        except BaseException as exc:  # noqa: B902 - the program may raise anything
            out["duration"] = _perf() - t0
            if _state.timed_out:
                out["status"] = "timeout"
            elif _state.output_over:
                out["status"] = "output-limit"
            elif isinstance(exc, MemoryError):
                out["status"] = "memory"
                out["exception"] = {"type": "MemoryError", "message": "", "line": None}
            else:
                if phase == "compile" or phase == "entry" or (phase == "module" and not script):
                    out["status"] = "bad-code"
                elif phase == "args":
                    out["status"] = "bad-input"
                else:
                    out["status"] = "raised"
                try:
                    _arm(timeout)
                    try:
                        out["exception"] = _exc_info(exc)
                    finally:
                        _disarm()
                except BaseException:
                    out["exception"] = {"type": type(exc).__name__, "message": "", "line": None}
            exc = None
        else:
            out["duration"] = _perf() - t0
            if _state.timed_out:  # the program swallowed the timeout
                out["status"] = "timeout"
            elif _state.output_over:
                out["status"] = "output-limit"
            else:
                out["status"] = "returned"
        if _state.memory_raised and out["status"] in ("returned", "raised", "bad-code", "bad-input"):
            _memory_outcome(out)  # a MemoryError the program caught: memory exhaustion
        if _state.out_of_lines and out["status"] == "timeout":
            out["note"] = f"stopped after {req.get('max_lines')} traced lines (the request's line budget)"
        # builtins and output are the program's no longer
        self.reset_builtins_only()
        if _state.refused:
            _refused_outcome(out)
        self.progress(1)
        self.post(i, out, value, call_args, expected, g, script, timeout)
        if _state.refused and out["status"] != "refused":  # e.g. the result's __repr__ opened a socket
            _refused_outcome(out)
        text, truncated = self.read_output()
        out["stdout"] = text
        if truncated and out["status"] in ("returned", "raised", "bad-code", "bad-input"):
            # e.g. os.write(1, ...) past the limit: the file-size limit made it fail
            out["status"] = "output-limit"
        out["output_truncated"] = truncated or out["status"] == "output-limit"
        if out["status"] in ("returned", "raised"):
            shown = _environment_shown(out)
            if shown is not None:
                _environment_outcome(out, shown)
            elif out["status"] == "returned":
                _environment_repr(out)
        if self.unraisable:
            names = ", ".join(sorted(set(self.unraisable)))
            extra = (f"{len(self.unraisable)} exception(s) ignored in finalizers ({names}); "
                     f"left out of the output")
            out["note"] = f"{out['note']}; {extra}" if out.get("note") else extra
        if tracer is not None:
            # type names may run a metaclass's descriptors: under the timer
            try:
                _arm(timeout)
                try:
                    out.update(tracer.result())
                finally:
                    _disarm()
            except BaseException:
                out.update(tracer.result(with_types=False))
                out["note"] = (f"{out['note']}; " if out.get("note") else "") + "types of locals not collected"
        return out

    def reset_builtins_only(self):
        d = builtins.__dict__
        if d != self.builtins_snapshot:
            d.clear()
            d.update(self.builtins_snapshot)
        sys.stdout = sys.stderr = self.cap  # a __repr__ may print: it still counts
        sys.setrecursionlimit(self.limits["recursion_limit"])
        if sys.get_int_max_str_digits() != self.int_digits:
            # the result's repr and the literal check run at the interpreter's default
            # int-to-str digit limit: a program that lifted it returns a 5,000-digit int
            # whose literal a harness cannot even compile (``assert f(x) == <output>``)
            sys.set_int_max_str_digits(self.int_digits)

    def post(self, i, out, value, call_args, expected, g, script, timeout):
        """repr (under its own timer), then fingerprints, literal check and expected-output
        check (under one more timer)."""
        status = out["status"]
        if status == "returned":
            try:
                _arm(timeout)
                try:
                    r = repr(value)
                    if not isinstance(r, str):
                        raise TypeError("__repr__ returned non-string")
                    if len(r) > self.limits["repr_limit"]:
                        out["repr_error"] = f"repr is {len(r)} characters, over the limit"
                    else:
                        out["value_repr"] = r
                finally:
                    _disarm()
            except _Timeout:
                out["repr_error"] = "repr timed out"
            except BaseException as exc:
                try:
                    out["repr_error"] = f"{type(exc).__name__}: {exc}"[:500]
                except BaseException:
                    out["repr_error"] = type(exc).__name__
            self.progress(1)
        step = "fingerprint"
        try:
            _arm(timeout)
            try:
                # our own (non-recursive-user-code) traversal: deep values must not fail it
                sys.setrecursionlimit(max(self.limits["recursion_limit"], _POST_RECURSION_LIMIT))
                if status == "returned":
                    out["fingerprint"] = fingerprint(value)
                if status in ("returned", "raised") and call_args is not None:
                    step = "args fingerprint"
                    out["args_fingerprint"] = fingerprint(call_args)
                sys.setrecursionlimit(self.limits["recursion_limit"])
                if status == "returned" and out["value_repr"] is not None:
                    step = "literal check"
                    try:
                        back = eval(self.compile_eval(out["value_repr"]), {})
                        out["literal_ok"] = bool(type(back) is type(value) and back == value)
                    except (_Timeout, _OutputLimit):
                        raise
                    except BaseException:
                        out["literal_ok"] = False
                if expected is not None and not script:
                    step = "expected output"
                    if status == "returned":
                        try:
                            out["output_matches"] = bool(value == eval(self.compile_eval(expected), g))
                        except (_Timeout, _OutputLimit):
                            raise
                        except BaseException:
                            out["output_matches"] = False
                    else:
                        out["output_matches"] = False
            finally:
                _disarm()
        except _Timeout:
            out["note"] = f"{step} of the result timed out"
            out["incomplete"] = True
        except BaseException as exc:
            out["note"] = f"{step} of the result failed: {type(exc).__name__}"[:500]
            out["incomplete"] = True


# ------------------------------------------------------------------------------ guard
#: audit events refused in the child outright (processes, threads, signals to others,
#: resource limits, foreign code)
_REFUSED_EVENTS = frozenset({
    "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty", "os.startfile",
    "subprocess.Popen", "pty.spawn", "_thread.start_new_thread", "os.killpg", "signal.pthread_kill",
    "resource.setrlimit", "resource.prlimit", "ctypes.dlopen", "ctypes.dlsym", "ctypes.call_function",
    "ctypes.cdata", "ctypes.dlsym/handle", "os.setuid", "os.setgid", "sys.remote_exec", "webbrowser.open",
    "ftplib.connect", "smtplib.connect", "poplib.connect", "imaplib.open", "nntplib.connect",
    "telnetlib.Telnet.open", "http.client.connect", "urllib.Request",
})
#: event prefixes refused outright: no socket can be created, resolved or connected
_REFUSED_PREFIXES = ("socket.", "ssl.")
#: events whose listed argument positions are paths that must stay inside the work directory
_PATH_EVENTS = {
    "os.remove": (0,), "os.rmdir": (0,), "os.rename": (0, 1), "os.truncate": (0,), "os.chmod": (0,),
    "os.chown": (0,), "os.mkdir": (0,), "os.symlink": (1,), "os.link": (0, 1), "os.utime": (0,),
    "os.chflags": (0,), "os.lchflags": (0,), "os.lchmod": (0,), "os.setxattr": (0,),
    "os.removexattr": (0,), "shutil.rmtree": (0,), "shutil.move": (0, 1), "shutil.copyfile": (1,),
    "shutil.copymode": (1,), "shutil.copystat": (1,), "shutil.copytree": (1,), "shutil.chown": (0,),
}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def _opens_for_writing(args):
    """Whether the arguments ``(path, mode, flags)`` of an ``open`` audit event write, create,
    truncate or append (used by the sandbox's guard and by the CrossHair search process's)."""
    flags = args[2] if len(args) > 2 else 0
    mode = args[1] if len(args) > 1 else None
    return bool((isinstance(flags, int) and flags & _WRITE_FLAGS)
                or (isinstance(mode, str) and any(c in mode for c in "wax+")))


def _refused_what(event):
    """What a refused event of :data:`_REFUSED_EVENTS` asked for, in a few words."""
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


_REFUSED_WHAT = {e: _refused_what(e) for e in _REFUSED_EVENTS}


_AF_UNIX = 1  # socket.AF_UNIX on Linux and macOS (the worker does not import socket)


def _install_guard(workdir, before_zygote_signal=None):
    """Refuse, with ``PermissionError``, what a benchmark program has no business doing:
    starting processes or threads, signalling processes other than itself and its zygote, raising its resource limits,
    loading foreign code with ctypes, any socket (so no connection and no DNS lookup), and
    writing, creating, deleting or renaming files outside ``workdir`` (the batch's temporary
    directory).  Implemented with a :pep:`578` audit hook (``sys.addaudithook``), installed
    in the forked child only (a hook cannot be removed, so it ends with the child).

    Every refusal is counted in ``_state`` (reset before each request): the request's
    outcome becomes ``"refused"`` (:func:`_refused_outcome`), never a ``PermissionError``
    raised by the program, since a plain interpreter would have let the call through.

    ``before_zygote_signal()`` is called before a signal to the zygote is allowed (the
    child uses it to make sure every outcome it sent has reached the host first)."""
    realpath, join, getcwd, getpid, fspath = os.path.realpath, os.path.join, os.getcwd, os.getpid, os.fspath
    zygote = os.getppid()
    root = realpath(workdir)
    prefix = root + os.sep
    refused, refused_prefixes, path_events = _REFUSED_EVENTS, _REFUSED_PREFIXES, _PATH_EVENTS
    refused_what, opens_for_writing = _REFUSED_WHAT, _opens_for_writing

    def inside(p):
        if isinstance(p, int):  # an fd the process already holds
            return True
        try:
            p = fspath(p)
            if isinstance(p, bytes):
                p = p.decode("utf-8", "surrogateescape")
            if p == "/dev/null":
                return True
            full = realpath(join(getcwd(), p))
        except BaseException:
            return False
        return full == root or full.startswith(prefix)

    state = _state

    def deny(event, what):
        # counted per request: the outcome of a request with a refusal is "refused", whatever
        # the program did with the PermissionError (see _refused_outcome)
        state.refused += 1
        if state.refused_what is None:
            state.refused_what = f"{what} ({event})"
        raise PermissionError(f"codemorph sandbox: {what} is not allowed ({event})")

    def hook(event, args):
        if event in refused:
            deny(event, refused_what[event])
        if event == "open":
            if opens_for_writing(args) and not inside(args[0]):
                deny(event, f"writing {args[0]!r} outside the sandbox's temporary directory")
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
        elif event.startswith(refused_prefixes):
            # a local socket pair (AF_UNIX, no address: asyncio's self-pipe) is no network
            # access; connecting or binding any socket still is refused
            if event == "socket.__new__" and len(args) > 1 and args[1] == _AF_UNIX:
                return
            deny(event, "network access")

    sys.addaudithook(hook)

    # CPython 3.11 raises no audit event when a thread starts: the entry points are replaced
    # (``threading`` keeps its own reference, bound when it was imported)
    def no_threads(*args, **kwargs):
        deny("_thread.start_new_thread", "starting a thread")

    for mod, attr in ((_thread, "start_new_thread"), (_thread, "start_new"), (_thread, "start_joinable_thread"),
                      (sys.modules.get("threading"), "_start_new_thread"),
                      (sys.modules.get("threading"), "_start_joinable_thread")):
        if mod is not None and hasattr(mod, attr):
            setattr(mod, attr, no_threads)


def _modules_snapshot():
    """``sys.modules`` and every loaded module's namespace, for :func:`_modules_changed`."""
    return dict(sys.modules), _module_spaces()


def _module_spaces():
    """Every loaded module's namespace (copied: a few thousand entries, ~1 ms after a fork)."""
    return {name: (m, dict(vars(m))) for name, m in sys.modules.items()
            if isinstance(m, _types.ModuleType) and name not in _RESET_MODULES}


#: a program (or its argument literal / expected output, evaluated in its globals) that
#: names none of these cannot reach a module object, so its modules need no check
_REACH_WORDS = ("import", "__", "exec", "eval", "compile", "getattr", "setattr", "delattr", "vars", "globals",
                "locals", "breakpoint", "help", "sys")
_REACH_FIELDS = ("code", "args", "expected_output")


def _mentions(req, words):
    """Whether the request's code, arguments or expected output spell any of ``words``."""
    return any(w in (req.get(f) or "") for f in _REACH_FIELDS for w in words)

def _thread_count():
    """Threads other than the main one (``RLIMIT_NPROC`` stops them unless the user is exempt)."""
    try:
        return _thread._count()
    except Exception:
        return 0


#: modules whose state the child resets itself before every request
_RESET_MODULES = frozenset({"sys", "builtins"})


def _modules_changed(snapshot):
    """Whether a program replaced or removed an entry of ``sys.modules`` or rebound a name
    in a module loaded before it ran (identity comparison: runs no program code)."""
    mods, spaces = snapshot
    cur = sys.modules
    for name, m in mods.items():
        if cur.get(name, _MISSING) is not m:
            return True
    for name, (m, space) in spaces.items():
        d = vars(m)
        if len(d) != len(space):
            return True
        for k, v in space.items():
            if d.get(k, _MISSING) is not v:
                return True
    return False


_patch_cache = {}


def _patches_loaded_objects(code):
    """Whether the program may set or delete an attribute of something it imported
    (``collections.Counter.most_common = ...``, ``json.JSONEncoder.item_separator = ';'``,
    ``setattr``/``delattr``): a class of a module loaded before the request keeps the change,
    which :func:`_modules_changed` (module namespaces only) does not see, so the next
    request gets a fresh child (tester's F6: a later run of the same program saw the patch).
    Conservative; cached per source text."""
    if "import" not in code:
        return False
    found = _patch_cache.get(code)
    if found is None:
        found = _find_patch(code)
        if len(_patch_cache) < 256:
            _patch_cache[code] = found
    return found


def _find_patch(code):
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    # ``import m``: the module's own names are compared by _modules_changed, so only an
    # attribute of one of its members counts (m.C.attr); ``from m import C``: C.attr counts
    modules, members = set(), set()
    nodes = list(ast.walk(tree))
    for n in nodes:
        if isinstance(n, ast.Import):
            modules.update((a.asname or a.name).split(".")[0] for a in n.names)
        elif isinstance(n, ast.ImportFrom):
            members.update(a.asname or a.name for a in n.names)
    if not modules and not members:
        return False

    def patched(t):
        depth, base = 0, t
        while isinstance(base, (ast.Attribute, ast.Subscript)):
            depth += isinstance(base, ast.Attribute)
            base = base.value
        if not isinstance(base, ast.Name):
            return False
        return base.id in members and depth >= 1 or base.id in modules and depth >= 2

    for n in nodes:
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("setattr", "delattr") \
                and n.args and patched(ast.Attribute(value=n.args[0], attr="_", ctx=ast.Store())):
            return True
        if isinstance(n, (ast.Assign, ast.Delete)):
            targets = list(n.targets)
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign)):
            targets = [n.target]
        else:
            continue
        while targets:
            t = targets.pop()
            if isinstance(t, (ast.Tuple, ast.List)):
                targets.extend(t.elts)
            elif isinstance(t, ast.Starred):
                targets.append(t.value)
            elif isinstance(t, (ast.Attribute, ast.Subscript)) and patched(t):
                return True
    return False


def _set_pdeathsig():
    """Ask Linux to SIGKILL the child when the zygote dies (prctl PR_SET_PDEATHSIG)."""
    if _libc is None:
        return
    try:
        _libc.prctl(1, signal.SIGKILL, 0, 0, 0)
    except Exception:
        pass


def _frame(kind, index=None, payload=b""):
    """A child -> zygote message: 4-byte length, a kind byte (``R`` result, ``S`` sync,
    ``X`` restart, ``E`` end), a 4-byte request index for ``R``/``X``, the payload."""
    body = kind if index is None else kind + _IDX.pack(index)
    return _HDR.pack(len(body) + len(payload)) + body + payload


def _child_main(reqs, start, limits, wfd, ack_fd, close_fds, zygote_pid, mark):
    code = 0
    try:
        for fd in close_fds:
            os.close(fd)
        os.setpgid(0, 0)
        _set_pdeathsig()
        if os.getppid() != zygote_pid:
            os._exit(1)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        try:
            cap = os.memfd_create("codemorph-output")
        except (AttributeError, OSError):
            name = f".out-{os.getpid()}"
            cap = os.open(name, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
            os.unlink(name)
        os.dup2(cap, 1)
        os.dup2(cap, 2)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        mem = limits["memory"]
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        fsize = limits["output"] + 4096
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
        try:  # no new processes (enforced for non-root users; the guard below refuses fork too)
            resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
        except (ValueError, OSError):
            pass
        os.environ["TMPDIR"] = os.getcwd()  # tempfile works, inside the allowed directory
        child = _Child(limits, wfd, ack_fd, cap, os.getcwd(), mark)
        modules = dict(sys.modules)
        # the namespaces are copied only before the first request that could reach a module
        # (none before it could change them)
        spaces = None
        _install_guard(os.getcwd(), child.sync)
        tainted = False
        for i in range(start, len(reqs)):
            req = reqs[i]
            reach = _mentions(req, _REACH_WORDS)
            if reach and spaces is None:
                spaces = _module_spaces()
            try:
                out = child.run(i, req)
            except MemoryError:
                out = {"status": "memory", "exception": {"type": "MemoryError", "message": "", "line": None},
                       "note": "memory exhausted in the sandbox harness"}
            # modules the program imported are dropped (the next import runs them afresh);
            # a changed module loaded before means a fresh child for the next request
            for name in [n for n in sys.modules if n not in modules]:
                del sys.modules[name]
            tainted = (reach and (_modules_changed((modules, spaces)) or _patches_loaded_objects(req.get("code") or ""))) \
                or _thread_count() > 0  # threads left running
            try:
                payload = encode_outcome(out)
            except BaseException as exc:  # e.g. a fingerprint JSON cannot encode
                payload = encode_outcome({"status": "crashed", "note": f"result not encodable: {exc!r}"[:500]})
            # no acknowledgement is awaited: the outcome sits in the pipe even if this child
            # dies next; only a program that signals the zygote could lose it, and the
            # guard syncs with the zygote first (Child.sync)
            write_all(wfd, _frame(b"R", i, payload))
            if not tainted and i + 1 < len(reqs) and (
                    reach or "open" in (req.get("code") or "") or "open" in (req.get("args") or "")
                    or "open" in (req.get("expected_output") or "")):
                # process state the program changed (files, environment, gc, warnings, ...)
                try:
                    tainted = child.restore_process_state(req, reach)
                except BaseException:
                    tainted = True
            if tainted and i + 1 < len(reqs):
                write_all(wfd, _frame(b"X", i + 1))
                break
        else:
            write_all(wfd, _frame(b"E"))
    except BaseException:
        code = 70
    finally:
        os._exit(code)


# ------------------------------------------------------------------------------ zygote
try:
    import ctypes

    _libc = ctypes.CDLL(None, use_errno=True)
except Exception:  # pragma: no cover - non-Linux
    _libc = None


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
        self.root = os.getcwd()

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
        # a fresh working directory per batch: files one program writes are not seen by
        # another batch
        workdir = os.path.join(self.root, f"b{bid}")
        os.mkdir(workdir, 0o700)
        os.chdir(workdir)
        try:
            i = 0
            while i < len(reqs):
                i = self.fork_and_watch(bid, reqs, i, limits)
        finally:
            os.chdir(self.root)
            shutil.rmtree(workdir, ignore_errors=True)
        self.send({"t": "done", "b": bid})

    def report(self, bid, i, outcome):
        self.send({"t": "result", "b": bid, "i": i, "o": outcome})

    def fork_and_watch(self, bid, reqs, start, limits):
        rfd, wfd = os.pipe()
        ack_r, ack_w = os.pipe()
        try:  # room for many outcomes: the child rarely waits for the zygote's next look
            fcntl.fcntl(wfd, _F_SETPIPE_SZ, 1 << 20)
        except (OSError, AttributeError):
            pass
        mark = mmap.mmap(-1, _MARK.size)  # shared with the child: its progress counter
        pid = os.fork()
        if pid == 0:
            _child_main(reqs, start, limits, wfd, ack_r, (self.inp, self.out, rfd, ack_w), self.pid, mark)
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
        try:
            return self.watch(pid, pidfd, rfd, ack_w, bid, reqs, start, limits, mark)
        finally:
            os.close(rfd)
            os.close(ack_w)
            if pidfd is not None:
                os.close(pidfd)
            mark.close()

    def kill(self, pid):
        for f in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
            try:
                f()
            except OSError:
                pass

    def reap(self, pid):
        try:
            _, status = os.waitpid(pid, 0)
            return status
        except ChildProcessError:
            return None

    def watch(self, pid, pidfd, rfd, ack_w, bid, reqs, i, limits, mark):
        """Relay the child's outcomes to the host until the batch is done or the child dies
        or stalls; returns the index of the first request still to run.

        Neither side is woken per request: the zygote sleeps until the child exits (its
        pidfd becomes readable) or ``_POLL`` seconds pass, then forwards every outcome waiting
        in the pipe to the host in one write.  The child counts its progress (a new request,
        the next post-processing step) in ``mark`` (shared memory), read when a deadline
        passes: a child that made no progress for ``timeout + grace`` seconds is killed.
        Without pidfds (old kernels) the zygote wakes on every outcome instead."""
        def budget_of(j):
            return _timeout_of(reqs[j] if j < len(reqs) else {}, limits) + limits["grace"]

        st = {"i": i, "started": _mono(), "end": False, "restart": False, "bad": False}
        budget = budget_of(i)
        deadline = _mono() + budget
        last_mark = _MARK.unpack_from(mark, 0)
        buf = bytearray()

        def handle(data):
            """Process complete frames in ``buf``; sets st["bad"] when the channel is corrupt."""
            buf.extend(data)
            out = []
            while len(buf) >= 4 and not st["bad"]:
                (n,) = _HDR.unpack_from(buf)
                if n > _MAX_MSG or n < 1:
                    st["bad"] = True
                    break
                if len(buf) < 4 + n:
                    break
                kind = bytes(buf[4:5])
                if kind == b"R" or kind == b"X":
                    (j,) = _IDX.unpack_from(buf, 5) if n >= 5 else (-1,)
                    if j != st["i"]:
                        st["bad"] = True
                        break
                    if kind == b"R":
                        out.append(_HDR.pack(n + 4) + b"R" + _IDX.pack(bid) + bytes(buf[5:4 + n]))
                        st["i"] += 1
                        st["started"] = _mono()
                    else:
                        st["restart"] = True
                elif kind == b"S":
                    if out:
                        write_all(self.out, b"".join(out))
                        out = []
                    try:
                        os.write(ack_w, b"k")
                    except OSError:
                        pass
                elif kind == b"E" and st["i"] >= len(reqs):
                    st["end"] = True
                else:
                    st["bad"] = True
                    break
                del buf[:4 + n]
            if out:
                write_all(self.out, b"".join(out))

        def drain(wait=0.0):
            """Read what the child wrote (until EOF when ``wait`` > 0: it is dead)."""
            end = _mono() + wait
            while True:
                try:
                    chunk = os.read(rfd, 1 << 20)
                except BlockingIOError:
                    left = end - _mono()
                    if left <= 0:
                        return
                    select.select([rfd], [], [], left)
                    continue
                if not chunk:
                    return
                handle(chunk)
                if st["bad"]:
                    return

        waitables = [pidfd] if pidfd is not None else [rfd]
        while True:
            now = _mono()
            if now >= deadline:
                drain()
                now_mark = _MARK.unpack_from(mark, 0)
                if st["bad"]:
                    return self.corrupt(pid, bid, st["i"], st["started"])
                if now_mark != last_mark or st["end"] or st["restart"]:
                    last_mark = now_mark  # it moved on since: a new step gets a new budget
                    budget = budget_of(st["i"])
                    deadline = _mono() + budget
                    continue
                self.kill(pid)
                self.reap(pid)
                hung = st["i"]
                drain(0.5)
                if st["i"] != hung or hung >= len(reqs):  # it had finished after all
                    return st["i"]
                what = "post-processing the result" if now_mark[1] == 1 else "running the program"
                self.report(bid, hung, {"status": "timeout", "duration": _mono() - st["started"],
                                        "note": f"no response for {budget:.3g}s while {what}; process killed"})
                return hung + 1
            ready, _, _ = select.select(waitables, [], [], min(deadline - now, _POLL))
            before = st["i"]
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
                self.report(bid, st["i"], self.death_outcome(status, _mono() - st["started"]))
                return st["i"] + 1
            if st["i"] != before:
                budget = budget_of(st["i"])
                deadline = _mono() + budget
                last_mark = _MARK.unpack_from(mark, 0)

    def corrupt(self, pid, bid, i, started):
        self.kill(pid)
        self.reap(pid)
        self.report(bid, i, {"status": "crashed", "duration": _mono() - started,
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
            if sig == signal.SIGKILL:
                out["status"] = "memory"
                out["note"] = "killed by SIGKILL (out-of-memory killer, or the program itself)"
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


_POST_RECURSION_LIMIT = 10000


def _maybe_raise_stack_limit():
    """Re-exec once with a larger C stack, so deep recursion raises RecursionError
    instead of overflowing the C stack (the stack size is fixed at exec time)."""
    if os.environ.pop(_REEXEC_FLAG, None):
        return
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
    except (ValueError, OSError):
        return
    inf = resource.RLIM_INFINITY
    if soft == inf or soft >= _STACK_WANTED:
        return
    want = _STACK_WANTED if hard == inf else min(_STACK_WANTED, hard)
    if want <= soft:
        return
    try:
        resource.setrlimit(resource.RLIMIT_STACK, (want, hard))
    except (ValueError, OSError):
        return
    os.environ[_REEXEC_FLAG] = "1"
    sys.stdout.flush()
    os.execv(sys.executable, [sys.executable] + [a for a in sys.orig_argv[1:]] if hasattr(sys, "orig_argv")
             else [sys.executable, "-s", os.path.abspath(__file__)])


def main():
    global _POST_RECURSION_LIMIT
    _maybe_raise_stack_limit()
    _POST_RECURSION_LIMIT = _post_recursion_limit()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the host stops workers by SIGKILL
    zygote = Zygote()
    # the zygote's own objects are never collected in a forked child: the child's garbage
    # collections skip them and do not copy their pages (fewer copy-on-write faults)
    gc.freeze()
    zygote.serve()


if __name__ == "__main__":
    main()
